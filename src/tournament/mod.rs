//! Tournaments: many seeded matches between bots, and honest statistics on which is stronger.
//!
//! [`config`] turns an arena file into a validated [`Arena`]; [`schedule`] makes every match a
//! pure function of the arena and a match id; [`run`] plays them in parallel, appending a row per
//! match to `matches.csv`, resuming and sharding; [`stats`] turns rows into summaries; [`sprt`]
//! runs sequential regression tests. `docs/tournaments.md` is the user's guide.

pub mod config;
pub mod csv;
pub mod run;
pub mod schedule;
pub mod sprt;
pub mod stats;

pub use config::Arena;
pub use run::{RunOptions, RunOutcome, merge, run};
pub use schedule::{Schedule, Shard};
