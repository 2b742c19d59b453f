//! Tournaments: many seeded matches between bots, and honest statistics on which is stronger.
//!
//! `config` turns an arena file into a validated [`Arena`]; `schedule` makes every match a pure
//! function of the arena and a match id; `run` plays them in parallel, appending a row per match
//! to the results folder (`results`), resuming and sharding, and `update` carries a folder's rows
//! over to an edited arena (bots added, changed, retired); `merge` combines the shards and
//! `shard_status` says how far they got; `stats`
//! turns rows into [`Standings`] and holds the SPRT's statistics; `sprt` runs sequential
//! regression tests; `diff` compares two results folders match by match. The runners return
//! typed reports ([`RunReport`], [`MergeReport`], [`SprtReport`], [`DiffReport`]) that the
//! command line renders as text or JSON. `docs/tournaments.md` is the user's guide.
//!
//! The public API is what this module re-exports; the modules themselves are the crate's.

pub(crate) mod bot_files;
pub(crate) mod config;
pub(crate) mod determinism;
pub(crate) mod diff;
pub(crate) mod engine;
pub(crate) mod inputs;
pub(crate) mod league;
pub(crate) mod machine_load;
pub(crate) mod merge;
pub(crate) mod results;
pub(crate) mod run;
pub(crate) mod schedule;
pub(crate) mod shard_status;
pub(crate) mod sprt;
pub(crate) mod sprt_cluster;
pub(crate) mod stats;
pub(crate) mod update;

pub use bot_files::{BotFile, BotFingerprint};
pub use config::{
    Arena, ArenaBot, ArenaError, ConfigError, FileError, Files, LeagueSettings, MAX_CONCURRENCY,
    PairMaps, PairMapsName, Problem, SprtConfig, SprtKind, SprtKindName, SprtSettings,
};
pub use diff::{
    BotChange, ChangedMatch, DiffReport, DiffSeat, DiffSide, DiffVerdict, MatchOutcome, diff,
};
pub use engine::{Event, Events, Leaderboard, Reporter, Start, Unit, Warning, WarningKind};
pub use inputs::{BotInputs, LimitInputs, MapInput, PlanInputs, RunInputs};
pub use league::{LeagueOptions, LeagueReport, add_bot, league, retire_bot};
pub use merge::{MergeReport, merge};
pub use results::replays::{BadReplayPolicy, ReplayPolicy};
pub use run::{RunOptions, RunReport, run};
pub use schedule::{BadShard, Format, Shard};
pub use shard_status::{ShardProgress, ShardState, ShardStatus, shard_status};
pub use sprt::{SprtOptions, SprtReport, Stop, Verdict, run_sprt};
pub use sprt_cluster::{BadPairRange, PairRange, PairsReport, decide_sprt, play_pairs};
pub use stats::gsprt::EloModel;
pub use stats::ratings::Interval;
pub use stats::standings::{BotStanding, HeadToHead, Record, RoleRecord, Standings};
pub use update::{ChangedBot, Update};
