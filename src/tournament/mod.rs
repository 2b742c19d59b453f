//! Tournaments: many seeded matches between bots, and honest statistics on which is stronger.
//!
//! [`config`] turns an arena file into a validated [`Arena`]; [`schedule`] makes every match a
//! pure function of the arena and a match id; [`run`] plays them in parallel, appending a row per
//! match to the [`results`] folder, resuming and sharding; [`merge`] combines the shards;
//! [`stats`] turns rows into standings and holds the SPRT's statistics; [`sprt`] runs sequential
//! regression tests. The runners return typed reports ([`RunReport`], [`MergeReport`],
//! [`SprtReport`]) that the command line renders. `docs/tournaments.md` is the user's guide.

pub mod config;
pub mod merge;
mod progress;
pub mod results;
pub mod run;
pub mod schedule;
pub mod sprt;
pub mod stats;

pub use config::Arena;
pub use merge::{MergeReport, merge};
pub use run::{RunOptions, RunReport, run};
pub use schedule::{Schedule, Shard};
pub use sprt::{SprtReport, Verdict};
pub use stats::standings::Standings;
