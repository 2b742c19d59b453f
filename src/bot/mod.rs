//! Bots: the one interface the referee talks to, for in-process strategies and external
//! executables alike.
//!
//! A bot is handed the view of its seat and a [`TurnContext`] with the turn's deadline, and
//! answers with an action or a [`BotFailure`]. A failure is a result of the match, never an error
//! of the harness.

#![warn(missing_docs)]

pub(crate) mod codingame;
pub mod external;
pub mod log;
pub mod spec;

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::game::Game;

pub use external::Supervisor;
pub use log::TurnLog;
pub use spec::BotSpec;

/// What a bot knows about the time it has for this decision.
#[derive(Clone, Debug)]
pub struct TurnContext {
    /// When the turn started (after the input was handed over).
    pub started: Instant,
    /// The answer is due by then: the turn's limit plus whatever time bank is left.
    pub deadline: Instant,
    /// The harness accepts answers until then (the deadline plus the grace margin); an external
    /// bot's line is awaited until this instant.
    pub hard_deadline: Instant,
    /// 0 for the seat's first decision.
    pub decision: u32,
    /// How the turn's time is measured. With [`TurnClock::Cpu`], `deadline` and `hard_deadline`
    /// are the wall-clock cap, and the limit is `cpu_allowance` of the bot's own CPU time.
    pub clock: TurnClock,
    /// The CPU time the bot may use by its deadline (the turn's limit plus the bank left);
    /// meaningful with [`TurnClock::Cpu`].
    pub cpu_allowance: Duration,
    /// `cpu_allowance` plus the grace margin: more CPU time than this is a timeout.
    pub cpu_hard_allowance: Duration,
}

impl TurnContext {
    /// A first decision of `limit` on the wall clock, from `started`, without grace (for bots
    /// driven outside a referee: tests, benchmarks).
    #[must_use]
    pub fn wall(started: Instant, limit: Duration) -> TurnContext {
        TurnContext {
            started,
            deadline: started + limit,
            hard_deadline: started + limit,
            decision: 0,
            clock: TurnClock::Wall,
            cpu_allowance: limit,
            cpu_hard_allowance: limit,
        }
    }

    /// The time left before the deadline, for searches that stop early and play their best move.
    #[must_use]
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The turn's whole allowance: on the wall clock, from its start to the deadline; on the CPU
    /// clock, its CPU allowance.
    #[must_use]
    pub fn allowance(&self) -> Duration {
        match self.clock {
            TurnClock::Wall => self.deadline.saturating_duration_since(self.started),
            TurnClock::Cpu => self.cpu_allowance,
        }
    }

    /// A search budget of `share` of what is left of the turn, less `reserve`, on the turn's
    /// clock: wall time, or (with [`TurnClock::Cpu`]) the searching thread's own CPU time, so a
    /// built-in bot on a busy machine thinks as much as on an idle one. Made at the start of a
    /// decision (the thread's CPU time of the turn so far is taken as nil).
    #[must_use]
    pub fn budget(&self, share: f64, reserve: Duration) -> crate::budget::Budget {
        use crate::budget::{Budget, Clock, allowance};
        match self.clock {
            TurnClock::Wall => Budget::new(allowance(self.remaining(), share, reserve)),
            TurnClock::Cpu => {
                Budget::with_clock(Clock::ThreadCpu, allowance(self.cpu_allowance, share, reserve))
            }
        }
    }
}

/// How a turn's time is measured (`clock = "wall" | "cpu"`, `--clock`); see
/// `docs/external-bots.md`, "Time limits and the clock".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnClock {
    /// Wall time from the input handed over to the answer read: what the bot's opponent waits.
    Wall,
    /// The CPU time the bot's processes used during the turn, with a wall-clock cap so a bot
    /// that sleeps or blocks still times out. The default: a busy machine does not make a bot
    /// lose on time.
    #[default]
    Cpu,
}

impl TurnClock {
    /// `wall` or `cpu`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TurnClock::Wall => "wall",
            TurnClock::Cpu => "cpu",
        }
    }

    /// The clock of limits recorded before there was a choice (replays of earlier versions).
    fn recorded_default() -> TurnClock {
        TurnClock::Wall
    }

    fn is_wall(&self) -> bool {
        *self == TurnClock::Wall
    }
}

impl std::fmt::Display for TurnClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for TurnClock {
    type Err = String;

    fn from_str(s: &str) -> Result<TurnClock, String> {
        match s {
            "wall" => Ok(TurnClock::Wall),
            "cpu" => Ok(TurnClock::Cpu),
            _ => Err(format!("unknown clock `{s}` (wall or cpu)")),
        }
    }
}

/// How a bot failed to produce an action. Each is a termination label of the match.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotFailure {
    /// No answer by the hard deadline, or an answer that came too late.
    #[error("no answer within the time limit")]
    Timeout,
    /// The bot (or its process) failed; the text says how (`exit code 3`, a panic's message).
    #[error("the bot crashed: {0}")]
    Crash(String),
    /// Its output closed before an answer, while it runs or after it exited with code 0.
    #[error("the bot closed its output")]
    Eof,
    /// A line the game cannot read as an action.
    #[error("unparseable line {line:?}: {reason}")]
    Garbage {
        /// The line (cut for extra lines written between turns).
        line: String,
        /// Why the game refused it.
        reason: String,
    },
    /// A line longer than the limit, of which no more than the limit was read.
    #[error("the bot wrote a line longer than {limit} bytes")]
    OutputLimit {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The bot could not be started; the text says why.
    #[error("the bot could not be started: {0}")]
    StartupFailed(String),
    /// The bot's processes together used more memory than its limit (`memory_mb`).
    #[error("the bot used more than its {limit_mb} MiB of memory (all its processes together)")]
    MemoryLimit {
        /// The limit, in MiB.
        limit_mb: u64,
    },
    /// The bot's processes together used more CPU time than its limit for the match
    /// (`cpu_seconds`).
    #[error("the bot used up its {seconds} CPU seconds for the match (all its processes together)")]
    CpuLimit {
        /// The limit, in seconds.
        seconds: u64,
    },
    /// While its answer was due, the bot was blocked reading its input, every line of which it
    /// had read, and used no CPU time: it waits for a line that will never come (it reads more
    /// lines than a turn sends, or its answer sits in an output buffer it did not flush: the
    /// same from outside). A `timeout`, caught at once rather than at the wall-clock cap.
    #[error(
        "waiting for input that will never come: it had read all {lines} lines sent ({this_turn} \
         this turn) and was blocked reading its standard input, using no CPU time; a bot that \
         reads more lines than a turn sends waits forever (docs/protocol.md lists each game's \
         lines), and so does one whose answer sits in an output buffer it did not flush"
    )]
    WaitingForInput {
        /// Lines arena wrote to it in the whole match.
        lines: u64,
        /// Of which in this turn.
        this_turn: u64,
    },
}

impl BotFailure {
    /// The termination label of a match this failure ends.
    #[must_use]
    pub fn termination(&self) -> Termination {
        match self {
            BotFailure::Timeout | BotFailure::WaitingForInput { .. } => Termination::Timeout,
            BotFailure::Crash(_) => Termination::Crash,
            BotFailure::Eof => Termination::Eof,
            BotFailure::Garbage { .. } => Termination::Garbage,
            BotFailure::OutputLimit { .. } => Termination::OutputLimit,
            BotFailure::StartupFailed(_) => Termination::StartupFailed,
            BotFailure::MemoryLimit { .. } => Termination::MemoryLimit,
            BotFailure::CpuLimit { .. } => Termination::CpuLimit,
        }
    }
}

/// How a match ended. Everything but `Normal` and `TurnLimit` names a culprit seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The rules ended the game.
    Normal,
    /// See [`BotFailure::Timeout`].
    Timeout,
    /// See [`BotFailure::Crash`].
    Crash,
    /// See [`BotFailure::Eof`].
    Eof,
    /// A well-formed action the rules refused.
    Illegal,
    /// See [`BotFailure::Garbage`].
    Garbage,
    /// See [`BotFailure::OutputLimit`].
    OutputLimit,
    /// See [`BotFailure::StartupFailed`].
    StartupFailed,
    /// See [`BotFailure::MemoryLimit`].
    MemoryLimit,
    /// See [`BotFailure::CpuLimit`].
    CpuLimit,
    /// The rules ended the game at their turn cap (Risk's `max_rounds`) rather than by a win:
    /// no bot's fault, but not a win either, so results count it apart.
    TurnLimit,
}

impl Termination {
    /// The label as results and replays write it (`startup_failed`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Timeout => "timeout",
            Termination::Crash => "crash",
            Termination::Eof => "eof",
            Termination::Illegal => "illegal",
            Termination::Garbage => "garbage",
            Termination::OutputLimit => "output_limit",
            Termination::StartupFailed => "startup_failed",
            Termination::MemoryLimit => "memory_limit",
            Termination::CpuLimit => "cpu_limit",
            Termination::TurnLimit => "turn_limit",
        }
    }

    /// Whether a bot's failure ended the match (every label but `normal` and `turn_limit`).
    #[must_use]
    pub fn is_fault(self) -> bool {
        !matches!(self, Termination::Normal | Termination::TurnLimit)
    }

    /// The label of a game the rules ended: `turn_limit` when they stopped it at their cap.
    #[must_use]
    pub fn of_rules<G: crate::game::Game>(game: &G) -> Termination {
        if game.ended_at_turn_limit() { Termination::TurnLimit } else { Termination::Normal }
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a bot leaves behind when its match ends.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotReport {
    /// The last lines the bot wrote to stderr (external bots only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
    /// How an external bot ended when its input closed at the end of the match (`arena check`
    /// reads it; replays do not record it).
    #[serde(skip)]
    pub ending: Option<Ending>,
    /// The peak resident memory of an external bot's processes, in KiB: the sum of each live
    /// process's own peak (`VmHWM`) as the match ended (`arena check` reads it; replays do not
    /// record it).
    #[serde(skip)]
    pub memory_peak_kib: Option<u64>,
    /// The last stderr lines of an external bot that exited with a failure after its input
    /// closed, its last words included (`arena check` reads them; replays do not record them).
    #[serde(skip)]
    pub exit_stderr_tail: Vec<String>,
}

/// How an external bot ended at the end of its match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself.
    Exited {
        /// Its exit code, if it exited normally.
        code: Option<i32>,
        /// The signal that killed it, if one did.
        signal: Option<i32>,
        /// How long after its input closed, in ms; `None` when it exited before.
        after_ms: Option<u64>,
    },
    /// It was still running after the grace period: arena stopped it (`SIGTERM`, then
    /// `SIGKILL`).
    Stopped {
        /// The grace period it had, in ms.
        grace_ms: u64,
    },
}

/// A player of game `G`.
pub trait Bot<G: Game>: Send {
    /// Chooses an action for the seat whose view this is, by `ctx.deadline`.
    ///
    /// # Errors
    ///
    /// A [`BotFailure`] ends the match, with this bot's seat as the culprit.
    fn act(&mut self, view: &G::View, ctx: &TurnContext) -> Result<G::Action, BotFailure>;

    /// The CPU time the bot has used so far, as the CPU clock charges it: read before and after
    /// each decision. An in-process bot thinks on the match thread, so by default this is that
    /// thread's CPU time; an external bot reads its processes' (`None` once they are gone).
    fn cpu_time(&self) -> Option<Duration> {
        Some(crate::budget::thread_cpu_time())
    }

    /// What the bot wrote to stderr during its last decision and the metrics it reported there
    /// (external bots; empty for others). The referee asks once after each decision, answered
    /// or failed; a second call returns an empty log.
    fn take_log(&mut self) -> TurnLog {
        TurnLog::default()
    }

    /// The match is over: release everything (an external bot's processes are killed here).
    /// Called once, whatever happened.
    fn finish(&mut self) -> BotReport {
        BotReport::default()
    }
}

/// Per-seat time limits, as the referee enforces them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeLimits {
    /// The limit of a seat's first decision (interpreters need time to start).
    #[serde(with = "millis")]
    pub first_turn: Duration,
    /// The limit of every later decision.
    #[serde(with = "millis")]
    pub per_turn: Duration,
    /// Slack the harness adds to every limit before it calls an answer late, for scheduling
    /// noise; a bot should not count on it.
    #[serde(with = "millis")]
    pub grace: Duration,
    /// A bank of extra time shared by all of a seat's decisions, drawn on when a turn runs over.
    #[serde(with = "millis")]
    pub bank: Duration,
    /// How a turn's time is measured. Left out of a replay when `wall`, which is what replays
    /// written before the choice existed measured.
    #[serde(default = "TurnClock::recorded_default", skip_serializing_if = "TurnClock::is_wall")]
    pub clock: TurnClock,
    /// With the CPU clock, the longest a decision may take on the wall clock (the bank left and
    /// the grace come on top); `None`: [`TimeLimits::default_wall_cap`] of the turn's limit.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "optional_millis")]
    pub wall_cap: Option<Duration>,
}

impl TimeLimits {
    /// The first-turn and per-turn limits, in ms, with no grace and no bank.
    #[must_use]
    pub fn new(first_turn_ms: u64, per_turn_ms: u64) -> TimeLimits {
        TimeLimits {
            first_turn: Duration::from_millis(first_turn_ms),
            per_turn: Duration::from_millis(per_turn_ms),
            grace: Duration::ZERO,
            bank: Duration::ZERO,
            clock: TurnClock::default(),
            wall_cap: None,
        }
    }

    /// The same limits on `clock`.
    #[must_use]
    pub fn on(self, clock: TurnClock) -> TimeLimits {
        TimeLimits { clock, ..self }
    }

    /// The wall-clock cap of a decision whose limit is `limit`, with the CPU clock: ten times
    /// the limit plus a second, or the configured cap.
    #[must_use]
    pub fn wall_cap_of(&self, limit: Duration) -> Duration {
        self.wall_cap.unwrap_or_else(|| TimeLimits::default_wall_cap(limit))
    }

    /// Ten times `limit` plus a second: room for a bot that shares its core with nine others
    /// and for an interpreter's start, and still an end for one that sleeps.
    #[must_use]
    pub fn default_wall_cap(limit: Duration) -> Duration {
        limit.saturating_mul(10).saturating_add(Duration::from_secs(1))
    }
}

mod optional_millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}
