//! External bots: any executable speaking a game's line protocol on stdin/stdout, supervised so
//! that whatever it does, the harness keeps working, records what happened and leaves no process
//! behind (see `docs/external-bots.md`).
//!
//! The process handling follows cargo-nextest's: each bot runs in its own process group, with a
//! cleared environment; its stdout is read line by line with a length cap, its stderr is drained
//! all the time into a capped tail, and at the end the whole group gets end of input, a grace
//! period, `SIGTERM`, another grace period and `SIGKILL`, and is reaped. arena registers itself as
//! a child subreaper, so children a bot forks are re-parented to arena, not to init, and can be
//! reaped.
//!
//! Matches run on plain OS threads (a tournament runs many at once, each match in one call of
//! [`crate::matches::play`]). A turn runs on the match thread itself, in `poll(2)`; what must go on
//! between turns runs on one small tokio runtime shared by all external bots. The files follow a
//! bot's life:
//! - `spawn`: starting it (command, environment, process group, limits);
//! - `sandbox`: what it may touch (private directory, Landlock, namespaces, cgroups), and the CPU
//!   time of all its processes;
//! - `io`: each turn, on the match thread (write the input, wait for one capped line);
//! - `stderr`: all the time, on the runtime (drain stderr into a capped tail);
//! - `exit`: its leader's exit, seen by the runtime, woken on by the turns;
//! - `supervision`: stopping it at the end of its match, and the [`Supervisor`] that can stop
//!   every live bot at once (Ctrl-C);
//! - `runtime`: the tokio runtime, and why there is one per process;
//! - `job`: a one-off command (a `cg:` compile) started and stopped the same way, its output
//!   captured;
//! - `parent_only`: descriptors (a results folder's lock) a forked child drops before anything.
//!
//! This file ties them into [`ExternalBot`], the [`Bot`] the referee talks to.

mod exit;
mod hints;
mod io;
pub(crate) mod job;
pub(crate) use io::EXTRA_LINE_REASON;
mod options;
pub(crate) mod parent_only;
mod pause;
mod procfs;
mod runtime;
pub mod sandbox;
mod spawn;
mod spawn_error;
mod stall;
mod stderr;
mod supervision;

use std::marker::PhantomData;
use std::time::Duration;

pub use options::{
    DEFAULT_MAX_PROCESSES, DEFAULT_STDERR_MATCH_BYTES, DEFAULT_STDERR_TURN_BYTES, ExternalOptions,
    MAX_LINE,
};
pub use sandbox::{SandboxMode, SandboxUnavailable};
pub use spawn::{BotIdentity, ENV_ALLOW_LIST, SpawnError, program_problem};
pub use supervision::{Interrupted, StopSignal, Supervisor};

use super::{Bot, BotFailure, BotReport, Ending, TurnClock, TurnContext, TurnLog};
use crate::game::Game;
use io::{CpuAllowance, NoAnswer, TurnTimer};
use spawn::Process;

/// How long the end of a match waits for the last bytes of a dead bot's stderr.
const STDERR_FLUSH_WAIT: Duration = Duration::from_millis(200);

/// An external executable playing game `G`.
///
/// ```
/// use arena::bot::external::{BotIdentity, ExternalBot, ExternalOptions, SpawnError};
/// use arena::bot::Supervisor;
/// use arena::games::skynet::Skynet;
///
/// let supervisor = Supervisor::new();
/// let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
/// let command = vec!["/nonexistent/virus".to_string()];
/// let bot =
///     ExternalBot::<Skynet>::spawn(&command, &identity, ExternalOptions::default(), &supervisor);
/// // Not an error of the caller: the bot's first turn will fail with `startup_failed`.
/// assert!(matches!(bot.startup_error(), Some(SpawnError::Run { .. })));
/// ```
pub struct ExternalBot<G: Game> {
    state: State,
    options: ExternalOptions,
    /// The stderr of the last decision, read as it ended.
    log: TurnLog,
    _game: PhantomData<fn() -> G>,
}

enum State {
    Running(Box<Process>),
    /// The command could not be started; the first turn reports it.
    NotStarted(SpawnError),
    Finished,
}

impl<G: Game> ExternalBot<G> {
    /// Starts `command` (program and arguments) under `supervisor`. A command that cannot be
    /// started is not an error here: the bot's first turn fails with `startup_failed`, as a
    /// result of the match.
    #[must_use]
    pub fn spawn(
        command: &[String],
        identity: &BotIdentity<'_>,
        options: ExternalOptions,
        supervisor: &Supervisor,
    ) -> ExternalBot<G> {
        let state = match spawn::spawn(command, identity, &options, supervisor) {
            // Its start-up runs before its first turn, as other bots start: it is stopped from
            // its first answer on.
            Ok(process) => State::Running(Box::new(process)),
            Err(error) => State::NotStarted(error),
        };
        ExternalBot { state, options, log: TurnLog::default(), _game: PhantomData }
    }

    /// The process group id, while the bot runs.
    #[must_use]
    pub fn process_group(&self) -> Option<i32> {
        match &self.state {
            State::Running(p) => Some(p.group.id().as_raw()),
            _ => None,
        }
    }

    /// The CPU time all of the bot's processes have used since it started (its leader and every
    /// descendant, those that exited included), while it runs; `None` before it started or after
    /// it was stopped.
    ///
    /// Cheap enough to read twice a turn: one `pread` of the bot's `cpuacct` cgroup when the
    /// sandbox made one (about a microsecond, exact), else a walk of its process tree in `/proc`
    /// whose files stay open between reads (a few microseconds; children re-parented away from
    /// the tree are not counted).
    #[must_use]
    pub fn cpu_time(&self) -> Option<Duration> {
        match &self.state {
            // Stopped since it answered: its time then is its time now.
            State::Running(p) => p.paused.cpu_time().unwrap_or_else(|| p.cpu.read()),
            _ => None,
        }
    }

    /// Why the bot did not start, if it did not.
    #[must_use]
    pub fn startup_error(&self) -> Option<&SpawnError> {
        match &self.state {
            State::NotStarted(error) => Some(error),
            _ => None,
        }
    }
}

impl<G: Game> Bot<G> for ExternalBot<G> {
    fn act(&mut self, view: &G::View, ctx: &TurnContext) -> Result<G::Action, BotFailure> {
        let process = match &mut self.state {
            State::Running(p) => p,
            State::NotStarted(error) => return Err(BotFailure::StartupFailed(error.to_string())),
            State::Finished => return Err(BotFailure::Crash("the bot was already stopped".into())),
        };
        let limits = Limits::of(&self.options);
        let mut input = String::new();
        if !process.pipes.init_sent() {
            input.push_str(&G::init_input(view));
        }
        input.push_str(&G::turn_input(view));
        // Continued once its input is written (below); stopped, it has used no CPU since the
        // reading taken as it was stopped.
        let paused_at = process.paused.cpu_time();
        let start = paused_at.unwrap_or_else(|| process.cpu.read());
        // CPU time spent since its last turn (pondering) counts against the match's seconds.
        // (A stopped bot's reading is from before its stop, when it may have forked since: its
        // processes are walked afresh.)
        if let Some(failure) = limits.spent(process, start, paused_at.is_none()) {
            return Err(failure);
        }
        let match_left = limits.cpu_left(start);
        let Process { pipes, exit, group, confinement, paused, cpu: clock, .. } = &mut **process;
        let cpu = match (ctx.clock, start) {
            (TurnClock::Cpu, Some(start)) => Some(CpuAllowance {
                clock,
                start,
                hard: match_left.map_or(ctx.cpu_hard_allowance, |l| l.min(ctx.cpu_hard_allowance)),
            }),
            (TurnClock::Wall, Some(start)) => {
                match_left.map(|hard| CpuAllowance { clock, start, hard })
            }
            (_, None) => None,
        };
        let stall = stall::StallWatch {
            leader: group.id().as_raw(),
            arenas_own: confinement.as_ref().map_or(0, sandbox::Confinement::arenas_own),
            clock,
            every: stall::interval(ctx.allowance()),
        };
        let timer = TurnTimer { cpu, stall: Some(stall), ..TurnTimer::wall(ctx.hard_deadline) };
        let exchanged = pipes.exchange_then(
            input.as_bytes(),
            exit.signal(),
            &timer,
            self.options.max_line,
            || {
                pause::resume(group, confinement.as_ref(), paused);
            },
        );
        // Everything it wrote before its answer is this decision's: read before anything else
        // happens to the bot.
        self.log = process.stderr.end_decision();
        // Over a limit of its own, whatever its answer: the limit is the reason.
        let end = process.cpu.read();
        if let Some(failure) = limits.spent(process, end, true) {
            process.group.kill();
            return Err(failure);
        }
        if !self.options.ponder {
            process.pause(end);
        }
        let line = match exchanged {
            Ok(line) => line,
            Err(NoAnswer::Failure(failure)) => return Err(failure),
            Err(NoAnswer::Gone) => {
                let failure = process.exit.failure(ctx.hard_deadline);
                // Its last words (a traceback) belong to this decision too.
                if process.exit.exit().is_some() {
                    process.stderr.wait_closed(STDERR_FLUSH_WAIT);
                    self.log.append(process.stderr.end_decision());
                }
                // A sandboxed bot whose program could not start is gone at once.
                let startup =
                    process.confinement.as_ref().and_then(sandbox::Confinement::startup_failure);
                let failure = match (failure, ctx.decision, process.confinement.as_ref()) {
                    (BotFailure::Crash(detail), 0, Some(confinement)) => {
                        let hint = confinement.readable().and_then(|readable| {
                            hints::startup_hint(self.log.stderr.as_deref()?, readable)
                        });
                        BotFailure::Crash(match hint {
                            Some(hint) => format!("{detail}; {hint}"),
                            None => detail,
                        })
                    }
                    (failure, ..) => failure,
                };
                return Err(startup.map_or(failure, BotFailure::StartupFailed));
            }
        };
        G::parse_action(view, &line).map_err(|e| BotFailure::Garbage { line, reason: e.reason })
    }

    fn cpu_time(&self) -> Option<Duration> {
        ExternalBot::cpu_time(self)
    }

    fn take_log(&mut self) -> TurnLog {
        std::mem::take(&mut self.log)
    }

    fn finish(&mut self) -> BotReport {
        match std::mem::replace(&mut self.state, State::Finished) {
            State::Running(process) => {
                stop(*process, self.options.kill_grace(), self.options.stderr_lines)
            }
            State::NotStarted(_) | State::Finished => BotReport::default(),
        }
    }
}

impl<G: Game> Drop for ExternalBot<G> {
    /// A bot dropped without `finish` (a panic, an early return) still leaves nothing behind.
    fn drop(&mut self) {
        if let State::Running(process) = std::mem::replace(&mut self.state, State::Finished) {
            process.group.kill();
            stop(*process, Duration::ZERO, 0);
        }
    }
}

/// A bot's limits for the whole match, beyond a turn's: the CPU seconds and the memory of all
/// its processes together.
struct Limits {
    cpu_seconds: Option<u64>,
    memory_mb: Option<u64>,
}

impl Limits {
    fn of(options: &ExternalOptions) -> Limits {
        Limits { cpu_seconds: options.cpu_seconds, memory_mb: options.memory_mb }
    }

    /// The CPU time the bot may still use in the match, given what it used (`None`: no limit).
    fn cpu_left(&self, used: Option<Duration>) -> Option<Duration> {
        let limit = Duration::from_secs(self.cpu_seconds?);
        Some(limit.saturating_sub(used.unwrap_or_default()))
    }

    /// The failure of a bot past one of its limits: its CPU seconds (its clock reads `used`,
    /// or `RLIMIT_CPU`, the backstop, ended it), its memory (the kernel's cap killed one of its
    /// processes, or they hold more than the limit together). `clock_just_read`: `used` was
    /// read from the bot's clock just now, whose walk of the bot's tree (without a cgroup) then
    /// names its processes.
    fn spent(
        &self,
        process: &Process,
        used: Option<Duration>,
        clock_just_read: bool,
    ) -> Option<BotFailure> {
        if let Some(seconds) = self.cpu_seconds {
            let over = used.is_some_and(|u| u >= Duration::from_secs(seconds));
            if over || process.exit.killed_by(nix::sys::signal::Signal::SIGXCPU) {
                return Some(BotFailure::CpuLimit { seconds });
            }
        }
        let limit_mb = self.memory_mb?;
        let confinement = process.confinement.as_ref();
        let over = if confinement.is_some_and(sandbox::Confinement::caps_memory) {
            confinement.is_some_and(sandbox::Confinement::hit_memory_cap)
        } else {
            let tmpfs = confinement.map_or(0, sandbox::Confinement::tmpfs_bytes);
            let processes = bot_processes(&process.cpu, confinement, clock_just_read);
            sandbox::tree_memory(&processes).saturating_add(tmpfs)
                > limit_mb.saturating_mul(1 << 20)
        };
        over.then_some(BotFailure::MemoryLimit { limit_mb })
    }
}

/// The bot's own processes now, not the sandbox's relay and init: its cgroup's list where it has
/// one, else a walk of its tree through the files its CPU clock keeps open (either is a few
/// system calls where listing the tree through `/proc` afresh opened a file per process and
/// listed every process's threads); with `clock_just_read`, the walk that reading made.
fn bot_processes(
    cpu: &sandbox::CpuClock,
    confinement: Option<&sandbox::Confinement>,
    clock_just_read: bool,
) -> Vec<i32> {
    confinement
        .and_then(sandbox::Confinement::cgroup_processes)
        .or_else(|| if clock_just_read { cpu.processes_as_read() } else { cpu.processes() })
        .unwrap_or_default()
}

/// Ends a bot: its input closes, then its group is stopped (`ProcessGroup::stop`). Returns the
/// stderr tail, how the bot ended and its memory peak.
fn stop(mut process: Process, grace: Duration, stderr_lines: usize) -> BotReport {
    // A stopped bot could neither read its end of input nor act on SIGTERM.
    process.resume();
    let Process { group, mut pipes, exit, stderr, cpu, mut confinement, paused: _ } = process;
    let exited_before = exit.exit().is_some();
    // What it wrote until now explains the match; what it writes on being stopped does not.
    if exited_before {
        stderr.wait_closed(STDERR_FLUSH_WAIT);
    }
    let stderr_tail = stderr.lines(stderr_lines);
    let memory_peak_kib =
        procfs::memory_peak_kib(&bot_processes(&cpu, confinement.as_ref(), false));
    if let Some(confinement) = &mut confinement {
        confinement.close_tmpfs();
    }
    pipes.close_input();
    let supervision::Stopped { by_itself, gone } = group.stop(&exit, grace);
    let ending = match (exit.exit(), by_itself) {
        (Some(how), Some(after)) => {
            let status = match how {
                exit::Exit::Status(status) => Some(status),
                exit::Exit::Unknown => None,
            };
            Ending::Exited {
                code: status.and_then(|s| s.code()),
                signal: status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
                after_ms: (!exited_before).then_some(after.as_millis() as u64),
            }
        }
        _ => Ending::Stopped { grace_ms: grace.as_millis() as u64 },
    };
    // A bot that failed on its way out explains it in what it wrote then.
    let exit_stderr_tail = match ending {
        Ending::Exited { code, after_ms: Some(_), .. } if code != Some(0) => {
            stderr.wait_closed(STDERR_FLUSH_WAIT);
            stderr.lines(stderr_lines)
        }
        _ => Vec::new(),
    };
    if let Some(confinement) = confinement {
        confinement.release(gone);
    }
    BotReport { stderr_tail, ending: Some(ending), memory_peak_kib, exit_stderr_tail }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::skynet::Skynet;

    /// Without a `memory` cgroup, the memory check right after a reading of the bot's clock
    /// takes the bot's processes from that reading's walk of its tree rather than walking it
    /// again; otherwise (a reading taken before the bot was stopped) it walks afresh. Both find
    /// the bot: over a limit of 0 MiB, both say so.
    #[test]
    fn the_memory_check_after_a_clock_reading_reuses_its_walk() {
        let command = ["sh", "-c", "read x"].map(String::from).to_vec();
        let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
        let options = ExternalOptions { sandbox: Some(SandboxMode::Off), ..Default::default() };
        let supervisor = Supervisor::new();
        let mut bot = ExternalBot::<Skynet>::spawn(&command, &identity, options, &supervisor);
        let State::Running(process) = &bot.state else { panic!("it runs") };
        let limits = Limits { cpu_seconds: None, memory_mb: Some(0) };
        let used = process.cpu.read();
        assert!(used.is_some(), "the tree clock reads the bot");
        let walks = process.cpu.walks();
        assert!(matches!(
            limits.spent(process, used, true),
            Some(BotFailure::MemoryLimit { limit_mb: 0 })
        ));
        assert_eq!(process.cpu.walks(), walks, "no second walk right after a reading");
        assert!(matches!(
            limits.spent(process, used, false),
            Some(BotFailure::MemoryLimit { limit_mb: 0 })
        ));
        assert_eq!(process.cpu.walks(), walks + 1, "a walk afresh otherwise");
        bot.finish();
    }
}
