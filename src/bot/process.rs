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
//! [`crate::matches::play`]). A turn runs on the match thread itself: it writes the input and
//! waits for the answer in `poll(2)` with the turn's hard deadline as the timeout (event-driven,
//! no sleeping loop), as fast as a plain pipe round trip. What must go on between turns (draining
//! stderr, waiting for the process's exit) runs on one small multi-thread tokio runtime shared by
//! all external bots.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs::File;
use std::io::{Read, Write};
use std::marker::PhantomData;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, Command};
use tokio::runtime::Runtime;

use super::{Bot, BotFailure, BotReport, TurnContext};
use crate::game::Game;

/// The variables a bot inherits from arena's environment, when arena has them. Everything else
/// is cleared, so a bot behaves the same whoever runs the tournament.
pub const ENV_ALLOW_LIST: &[&str] =
    &["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"];

/// The `PATH` a bot gets when arena itself has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// After a bot's output closes or its input breaks, how long to wait (never past the turn's
/// deadline) for its exit status to tell a crash from a closed output. A dying process closes its
/// pipes microseconds before it can be reaped; the margin is for a loaded machine, and is only
/// spent in full by a bot that closed its output and lives on.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(200);

/// How long the end of a match waits for the last bytes of a dead bot's stderr.
const STDERR_FLUSH_WAIT: Duration = Duration::from_millis(200);

/// How long the end of a match waits for a killed group to be gone before giving up on it.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// The longest stderr line kept in the tail; longer lines are cut, with a marker.
const STDERR_LINE_CAP: usize = 1024;

/// How an external bot is run, beyond its command line. Every field has a default; a tournament
/// sets them per bot (TOML keys are the field names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExternalOptions {
    /// The longest line a bot may write, in bytes, without its newline (`output_limit` beyond).
    pub max_line: usize,
    /// How many of the last stderr lines are kept for the result.
    pub stderr_lines: usize,
    /// The bot's working directory; `None` runs it where arena runs, so relative paths in the
    /// command line mean what they mean to the user who typed them.
    pub workdir: Option<PathBuf>,
    /// The grace period of the end of a match, in ms: after the end of input, before `SIGTERM`,
    /// and again after `SIGTERM`, before `SIGKILL`.
    pub kill_grace_ms: u64,
    /// `RLIMIT_AS`: the bot's address space, in MiB.
    pub address_space_mb: Option<u64>,
    /// `RLIMIT_CPU`: the CPU seconds the bot may use in the whole match.
    pub cpu_seconds: Option<u64>,
    /// Allow core dumps (`RLIMIT_CORE` is 0 unless this is set).
    pub core_dumps: bool,
    /// Extra environment variables, on top of the allow-list and the `ARENA_` variables.
    pub env: BTreeMap<String, String>,
}

impl Default for ExternalOptions {
    fn default() -> ExternalOptions {
        ExternalOptions {
            max_line: 64 * 1024,
            stderr_lines: 20,
            workdir: None,
            kill_grace_ms: 100,
            address_space_mb: None,
            cpu_seconds: None,
            core_dumps: false,
            env: BTreeMap::new(),
        }
    }
}

impl ExternalOptions {
    fn kill_grace(&self) -> Duration {
        Duration::from_millis(self.kill_grace_ms)
    }
}

/// Who the bot is, as its `ARENA_` environment variables tell it.
#[derive(Clone, Debug)]
pub struct BotIdentity<'a> {
    /// `ARENA_GAME`: the game's name (`skynet`).
    pub game: &'a str,
    /// `ARENA_ROLE`: the role the bot plays (`virus`).
    pub role: &'a str,
    /// `ARENA_SEED`: the bot's own seed, to seed itself reproducibly.
    pub seed: u64,
}

/// The runtime that does every external bot's I/O. The first call also registers arena as a
/// child subreaper (Linux), so orphans of a bot's process tree are re-parented to arena.
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        #[cfg(target_os = "linux")]
        if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
            tracing::warn!("cannot become a child subreaper: {e}");
        }
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("arena-bot-io")
            .enable_all()
            .build()
            .expect("the bot I/O runtime starts (threads and an epoll instance)")
    })
}

/// The process groups of the external bots alive now, for Ctrl-C.
struct LiveGroups {
    groups: BTreeSet<i32>,
}

static LIVE_GROUPS: Mutex<LiveGroups> = Mutex::new(LiveGroups { groups: BTreeSet::new() });
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);

fn live_groups() -> MutexGuard<'static, LiveGroups> {
    lock(&LIVE_GROUPS)
}

/// Makes `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT` to arena stop every live bot's process group
/// (`SIGTERM`, a grace period, `SIGKILL`) before arena exits with 130, 143, 129 or 131. Call it
/// once at start; later calls do nothing.
pub fn install_interrupt_handler() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use tokio::signal::unix::{SignalKind, signal};
        let rt = runtime();
        // The listeners exist before this returns, so no early signal slips through.
        let _guard = rt.enter();
        let (Ok(mut int), Ok(mut term), Ok(mut hup), Ok(mut quit)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::quit()),
        ) else {
            tracing::warn!("cannot install the Ctrl-C handler");
            return;
        };
        rt.spawn(async move {
            let code = tokio::select! {
                _ = int.recv() => 130,
                _ = term.recv() => 143,
                _ = hup.recv() => 129,
                _ = quit.recv() => 131,
            };
            let stopped = stop_all_groups(Duration::from_millis(100)).await;
            // Not eprintln!: after a hang-up the terminal is gone, and a panic here would leave
            // arena parked forever instead of exiting.
            let _ = writeln!(
                std::io::stderr(),
                "arena: interrupted; stopped {stopped} bot process group(s)"
            );
            std::process::exit(code);
        });
    });
}

/// Refuses new bots, then TERMs every live group, waits `grace`, and KILLs what is left.
async fn stop_all_groups(grace: Duration) -> usize {
    SHUTTING_DOWN.store(true, Ordering::SeqCst);
    let groups: Vec<i32> = live_groups().groups.iter().copied().collect();
    for &g in &groups {
        let _ = killpg(Pid::from_raw(g), Signal::SIGTERM);
    }
    tokio::time::sleep(grace).await;
    for &g in &groups {
        let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
    }
    groups.len()
}

/// Once Ctrl-C has stopped the bots, the failures they return are not results: the match thread
/// waits here for the interrupt handler to end the process.
fn wait_for_exit_if_interrupted() {
    while SHUTTING_DOWN.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// An external executable playing game `G`.
pub struct ExternalBot<G: Game> {
    state: State,
    options: ExternalOptions,
    _game: PhantomData<fn() -> G>,
}

enum State {
    Running(Box<Process>),
    /// The command could not be started; the first turn reports it.
    NotStarted(String),
    Finished,
}

impl<G: Game> ExternalBot<G> {
    /// Starts `command` (program and arguments). A command that cannot be started is not an
    /// error here: the bot's first turn fails with `startup_failed`, as a result of the match.
    pub fn spawn(
        command: &[String],
        identity: &BotIdentity<'_>,
        options: ExternalOptions,
    ) -> ExternalBot<G> {
        let state = match Process::spawn(command, identity, &options) {
            Ok(process) => State::Running(Box::new(process)),
            Err(message) => State::NotStarted(message),
        };
        ExternalBot { state, options, _game: PhantomData }
    }

    /// The process group id, while the bot runs.
    pub fn process_group(&self) -> Option<i32> {
        match &self.state {
            State::Running(p) => Some(p.pgid.as_raw()),
            _ => None,
        }
    }
}

impl<G: Game> Bot<G> for ExternalBot<G> {
    fn act(&mut self, view: &G::View, ctx: &TurnContext) -> Result<G::Action, BotFailure> {
        let process = match &mut self.state {
            State::Running(p) => p,
            State::NotStarted(message) => {
                // Refused because of Ctrl-C: no result, like the failures of stopped bots.
                wait_for_exit_if_interrupted();
                return Err(BotFailure::StartupFailed(message.clone()));
            }
            State::Finished => return Err(BotFailure::Crash("the bot was already stopped".into())),
        };
        let mut input = String::new();
        if !process.init_sent {
            input.push_str(&G::init_input(view));
        }
        input.push_str(&G::turn_input(view));
        let answer = process.exchange(input.as_bytes(), ctx.hard_deadline, self.options.max_line);
        wait_for_exit_if_interrupted();
        let line = answer?;
        G::parse_action(view, &line).map_err(|e| BotFailure::Garbage { line, reason: e.reason })
    }

    fn finish(&mut self) -> BotReport {
        match std::mem::replace(&mut self.state, State::Finished) {
            State::Running(process) => {
                let grace = self.options.kill_grace();
                let lines = self.options.stderr_lines;
                let report = process.shutdown(grace, lines);
                wait_for_exit_if_interrupted();
                report
            }
            State::NotStarted(_) | State::Finished => BotReport::default(),
        }
    }
}

impl<G: Game> Drop for ExternalBot<G> {
    /// A bot dropped without `finish` (a panic, an early return) still leaves nothing behind.
    fn drop(&mut self) {
        if let State::Running(process) = std::mem::replace(&mut self.state, State::Finished) {
            let _ = killpg(process.pgid, Signal::SIGKILL);
            process.shutdown(Duration::ZERO, 0);
        }
    }
}

/// A running bot and its pipes.
///
/// The turn's hot path (write the input, wait for the line) runs on the match thread with plain
/// non-blocking system calls and `poll(2)` until the hard deadline: going through the tokio
/// runtime would add a thread hop per answer (its I/O driver wakes the waiting thread), more than
/// doubling the round trip of a fast bot. The runtime does what must go on between turns:
/// draining stderr, and waiting for the process to exit, which it signals by closing
/// `exit_signal`'s peer, so the hot path's `poll` wakes on an exit too.
struct Process {
    pgid: Pid,
    stdin: Option<File>,
    stdout: File,
    /// Bytes read from stdout and not yet consumed: `buf[start..end]`.
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Readable (end of file) once the leader has exited and `exit` holds its status.
    exit_signal: UnixStream,
    exit: Arc<Mutex<Option<Exit>>>,
    stderr: Arc<StderrTail>,
    /// Whether the game's init block has been written.
    init_sent: bool,
}

/// How the leader ended, as tokio's reaper saw it.
#[derive(Clone, Copy, Debug)]
enum Exit {
    Status(ExitStatus),
    /// Waiting failed (the status was taken by someone else); it has exited all the same.
    Unknown,
}

/// What woke a wait.
#[derive(Debug, PartialEq, Eq)]
enum Wake {
    Ready,
    Exited,
    Deadline,
}

/// How a read of one line ended.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    Line(Vec<u8>),
    TooLong,
    /// The output closed (with the unfinished last line, maybe empty).
    Eof(Vec<u8>),
    /// The leader exited and nothing more came (its output may be held open by a child).
    Exited,
    Deadline,
}

impl Process {
    fn spawn(
        command: &[String],
        identity: &BotIdentity<'_>,
        options: &ExternalOptions,
    ) -> Result<Process, String> {
        let (program, args) = command.split_first().ok_or("empty command line")?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for &name in ENV_ALLOW_LIST {
            if let Some(value) = std::env::var_os(name) {
                cmd.env(name, value);
            }
        }
        if std::env::var_os("PATH").is_none() {
            cmd.env("PATH", DEFAULT_PATH);
        }
        cmd.envs(&options.env)
            .env("ARENA_GAME", identity.game)
            .env("ARENA_ROLE", identity.role)
            .env("ARENA_SEED", identity.seed.to_string());
        if let Some(dir) = &options.workdir {
            cmd.current_dir(dir);
        }
        let limits = Rlimits::from(options);
        // SAFETY: the closure runs in the forked child before exec; it only makes setrlimit
        // system calls (async-signal-safe) and allocates nothing.
        unsafe {
            cmd.pre_exec(move || limits.apply());
        }
        let (exit_signal, exit_signal_peer) =
            UnixStream::pair().map_err(|e| format!("cannot create a socket pair: {e}"))?;

        let rt = runtime();
        let _enter = rt.enter();
        // Registering under the lock that Ctrl-C takes means no bot is started unseen.
        let mut live = live_groups();
        if SHUTTING_DOWN.load(Ordering::SeqCst) {
            return Err("arena is shutting down".into());
        }
        let mut child = cmd.spawn().map_err(|e| {
            let place = match &options.workdir {
                Some(dir) => format!(" in `{}`", dir.display()),
                None => String::new(),
            };
            format!("cannot run `{program}`{place}: {e}")
        })?;
        let pid = child.id().ok_or("the process vanished as it started")?;
        let pgid = Pid::from_raw(pid as i32);
        live.groups.insert(pgid.as_raw());
        drop(live);

        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            unreachable!("all three pipes were requested");
        };
        let pipe_error = |e: std::io::Error| format!("cannot take the bot's pipes: {e}");
        let stdin = nonblocking(stdin.into_owned_fd().map_err(pipe_error)?).map_err(pipe_error)?;
        let stdout =
            nonblocking(stdout.into_owned_fd().map_err(pipe_error)?).map_err(pipe_error)?;
        let tail = Arc::new(StderrTail::new(options.stderr_lines));
        rt.spawn(drain_stderr(stderr, Arc::clone(&tail)));
        let exit = Arc::new(Mutex::new(None));
        let exit_slot = Arc::clone(&exit);
        rt.spawn(async move {
            let status = child.wait().await;
            *lock(&exit_slot) = Some(status.map_or(Exit::Unknown, Exit::Status));
            // Closing the peer wakes every poll on `exit_signal`.
            drop(exit_signal_peer);
        });
        Ok(Process {
            pgid,
            stdin: Some(stdin),
            stdout,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            start: 0,
            end: 0,
            exit_signal,
            exit,
            stderr: tail,
            init_sent: false,
        })
    }

    fn exit(&self) -> Option<Exit> {
        *lock(&self.exit)
    }

    /// One turn: checks that nothing is left over from the last turn, writes the input, and
    /// waits for one line until `deadline`.
    fn exchange(
        &mut self,
        input: &[u8],
        deadline: Instant,
        max_line: usize,
    ) -> Result<String, BotFailure> {
        if self.init_sent {
            if let Some(extra) = self.leftover_output() {
                return Err(BotFailure::Garbage {
                    line: extra,
                    reason: "written after its answer to the previous turn (one line per turn)"
                        .into(),
                });
            }
        }
        self.init_sent = true;
        match self.write_input(input, deadline) {
            Ok(Wake::Ready) => {}
            Ok(Wake::Deadline) => return Err(BotFailure::Timeout),
            // Its input is closed: it has exited, or closed stdin on purpose.
            Ok(Wake::Exited) | Err(_) => return Err(self.gone(deadline)),
        }
        let line = match self.read_line(max_line, deadline) {
            Ok(LineRead::Line(line)) => line,
            // A last line without its newline still counts as the answer.
            Ok(LineRead::Eof(partial)) if !partial.is_empty() => partial,
            Ok(LineRead::Eof(_) | LineRead::Exited) => return Err(self.gone(deadline)),
            Ok(LineRead::TooLong) => return Err(BotFailure::OutputLimit { limit: max_line }),
            Ok(LineRead::Deadline) => return Err(BotFailure::Timeout),
            Err(e) => return Err(BotFailure::Crash(format!("reading its output failed: {e}"))),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        Ok(String::from_utf8_lossy(line).into_owned())
    }

    /// Output the bot wrote after its last answer and before this turn's input: its first line
    /// (or all of it, without a newline yet). Only what is already there counts; never waits.
    fn leftover_output(&mut self) -> Option<String> {
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
            match (&self.stdout).read(&mut self.buf) {
                Ok(n) if n > 0 => self.end = n,
                _ => return None,
            }
        }
        let pending = &self.buf[self.start..self.end];
        let first = pending.split(|&b| b == b'\n').next().unwrap_or_default();
        let shown = &first[..first.len().min(200)];
        Some(String::from_utf8_lossy(shown).into_owned())
    }

    /// Writes all of `input`, waiting (for a bot that does not read) at most until `deadline`.
    fn write_input(&mut self, mut input: &[u8], deadline: Instant) -> std::io::Result<Wake> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        };
        while !input.is_empty() {
            match stdin.write(input) {
                Ok(n) => input = &input[n..],
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let wake = wait_fd(
                        stdin.as_fd(),
                        PollFlags::POLLOUT,
                        Some(&self.exit_signal),
                        deadline,
                    )?;
                    if wake != Wake::Ready {
                        return Ok(wake);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Wake::Ready)
    }

    /// Reads one line, never holding more than `max` bytes of it.
    fn read_line(&mut self, max: usize, deadline: Instant) -> std::io::Result<LineRead> {
        let mut line = Vec::new();
        let mut exited = false;
        loop {
            let pending = &self.buf[self.start..self.end];
            if let Some(i) = pending.iter().position(|&b| b == b'\n') {
                self.start += i + 1;
                if line.len() + i > max {
                    return Ok(LineRead::TooLong);
                }
                line.extend_from_slice(&pending[..i]);
                return Ok(LineRead::Line(line));
            }
            (self.start, self.end) = (0, 0);
            if line.len() + pending.len() > max {
                return Ok(LineRead::TooLong);
            }
            line.extend_from_slice(pending);
            match (&self.stdout).read(&mut self.buf) {
                Ok(0) => return Ok(LineRead::Eof(line)),
                Ok(n) => self.end = n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => return Err(e),
                Err(_) if exited => return Ok(LineRead::Exited),
                Err(_) => {
                    let stdout = self.stdout.as_fd();
                    match wait_fd(stdout, PollFlags::POLLIN, Some(&self.exit_signal), deadline)? {
                        Wake::Ready => {}
                        Wake::Deadline => return Ok(LineRead::Deadline),
                        // It exited, perhaps right after writing its answer, or its output is
                        // held open by a child: read what it left, briefly.
                        Wake::Exited => {
                            exited = true;
                            let until = (Instant::now() + EXIT_STATUS_WAIT).min(deadline);
                            if wait_fd(stdout, PollFlags::POLLIN, None, until)? != Wake::Ready {
                                return Ok(LineRead::Exited);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The failure of a bot whose output closed or whose input broke: `crash` if it exited with
    /// a non-zero code or a signal, `eof` if it exited with code 0 or still runs.
    fn gone(&mut self, deadline: Instant) -> BotFailure {
        self.wait_exit(EXIT_STATUS_WAIT.min(deadline.saturating_duration_since(Instant::now())));
        match self.exit() {
            Some(Exit::Status(status)) => exit_failure(status),
            Some(Exit::Unknown) => BotFailure::Crash("exited (status unknown)".into()),
            None => BotFailure::Eof,
        }
    }

    /// Waits up to `limit` for the leader to exit; whether it has.
    fn wait_exit(&self, limit: Duration) -> bool {
        if self.exit().is_some() {
            return true;
        }
        let until = Instant::now() + limit;
        let _ = wait_fd(self.exit_signal.as_fd(), PollFlags::POLLIN, None, until);
        self.exit().is_some()
    }

    /// Ends the bot: end of input, `grace`, `SIGTERM` to the group, `grace`, `SIGKILL`, then
    /// reaps the leader and every member re-parented to arena. Returns the stderr tail.
    fn shutdown(mut self, grace: Duration, stderr_lines: usize) -> BotReport {
        // What it wrote until now explains the match; what it writes on being stopped does not.
        if self.exit().is_some() {
            self.stderr.wait_closed(STDERR_FLUSH_WAIT);
        }
        let stderr_tail = self.stderr.lines(stderr_lines);

        drop(self.stdin.take());
        self.wait_exit(grace);
        // Members can outlive the leader, so the group gets the signals either way. (The group
        // id cannot be reused while a member or the unreaped leader exists.)
        if self.group_exists() {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            self.wait_exit(grace);
            let until = Instant::now() + grace;
            while self.group_exists() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        if self.group_exists() {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
        self.wait_exit(REAP_WAIT);
        let until = Instant::now() + REAP_WAIT;
        while self.group_exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        live_groups().groups.remove(&self.pgid.as_raw());
        BotReport { stderr_tail }
    }

    /// Whether a process of the group still exists. Reaps members re-parented to arena first,
    /// but only once tokio, which owns the leader's pid, has reaped the leader.
    fn group_exists(&self) -> bool {
        if self.exit().is_some() {
            reap_group(self.pgid);
        }
        killpg(self.pgid, None::<Signal>) != Err(Errno::ESRCH)
    }
}

/// Reaps every exited child of arena in group `pgid`, without blocking.
fn reap_group(pgid: Pid) {
    let group = Pid::from_raw(-pgid.as_raw());
    while let Ok(status) = waitpid(group, Some(WaitPidFlag::WNOHANG)) {
        if status == WaitStatus::StillAlive {
            break;
        }
    }
}

/// The failure of a bot that exited before answering.
fn exit_failure(status: ExitStatus) -> BotFailure {
    if let Some(signal) = status.signal() {
        let name = Signal::try_from(signal).map(|s| s.as_str()).unwrap_or("unknown signal");
        return BotFailure::Crash(format!("killed by signal {signal} ({name})"));
    }
    match status.code() {
        Some(0) => BotFailure::Eof,
        Some(code) => BotFailure::Crash(format!("exit code {code}")),
        None => BotFailure::Crash(format!("exited: {status}")),
    }
}

/// A pipe end in non-blocking mode (tokio hands its pipes back blocking), as a file.
fn nonblocking(fd: OwnedFd) -> std::io::Result<File> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_retain(fcntl(&fd, FcntlArg::F_GETFL)?);
    fcntl(&fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(File::from(fd))
}

/// Waits until `fd` is ready for `events`, or `exit_signal` is readable (the leader exited), or
/// `deadline` passes: one `poll(2)`, woken by the kernel, no polling loop but for `EINTR` and the
/// millisecond rounding of `poll`'s timeout.
fn wait_fd(
    fd: BorrowedFd<'_>,
    events: PollFlags,
    exit_signal: Option<&UnixStream>,
    deadline: Instant,
) -> std::io::Result<Wake> {
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Ok(Wake::Deadline);
        }
        let ms = i32::try_from(remaining.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
        let mut fds = [PollFd::new(fd, events), PollFd::new(fd, PollFlags::empty())];
        if let Some(signal) = exit_signal {
            fds[1] = PollFd::new(signal.as_fd(), PollFlags::POLLIN);
        }
        let watched = if exit_signal.is_some() { 2 } else { 1 };
        let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
        match poll(&mut fds[..watched], timeout) {
            Ok(0) | Err(Errno::EINTR) => continue,
            Ok(_) => {
                // Ready, or an error/hang-up, which the next read or write reports.
                if fds[0].any().unwrap_or(true) {
                    return Ok(Wake::Ready);
                }
                return Ok(Wake::Exited);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The last lines a bot wrote to stderr, filled by [`drain_stderr`].
#[derive(Debug)]
struct StderrTail {
    lines: Mutex<TailLines>,
    closed: Condvar,
}

impl StderrTail {
    fn new(capacity: usize) -> StderrTail {
        StderrTail { lines: Mutex::new(TailLines::new(capacity)), closed: Condvar::new() }
    }

    fn lines(&self, n: usize) -> Vec<String> {
        lock(&self.lines).last(n)
    }

    /// Waits up to `limit` for stderr to close (a dead bot's last words to arrive).
    fn wait_closed(&self, limit: Duration) {
        let guard = lock(&self.lines);
        let _ = self.closed.wait_timeout_while(guard, limit, |t| !t.closed);
    }
}

/// Reads a bot's stderr until it closes, so the bot never blocks on a full pipe.
async fn drain_stderr(mut stderr: ChildStderr, tail: Arc<StderrTail>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => lock(&tail.lines).push(&buf[..n]),
        }
    }
    lock(&tail.lines).closed = true;
    tail.closed.notify_all();
}

#[derive(Debug)]
struct TailLines {
    lines: VecDeque<String>,
    capacity: usize,
    partial: Vec<u8>,
    partial_cut: bool,
    closed: bool,
}

impl TailLines {
    fn new(capacity: usize) -> TailLines {
        TailLines {
            lines: VecDeque::new(),
            capacity,
            partial: Vec::new(),
            partial_cut: false,
            closed: false,
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        while let Some(i) = data.iter().position(|&b| b == b'\n') {
            self.extend_partial(&data[..i]);
            self.end_line();
            data = &data[i + 1..];
        }
        self.extend_partial(data);
    }

    fn extend_partial(&mut self, data: &[u8]) {
        let room = STDERR_LINE_CAP.saturating_sub(self.partial.len());
        self.partial.extend_from_slice(&data[..data.len().min(room)]);
        self.partial_cut |= data.len() > room;
    }

    fn end_line(&mut self) {
        if self.capacity == 0 {
            self.partial.clear();
            self.partial_cut = false;
            return;
        }
        // Recycle the oldest line's allocation: a chatty bot costs no allocation per line.
        let mut line = if self.lines.len() >= self.capacity {
            self.lines.pop_front().unwrap_or_default()
        } else {
            String::new()
        };
        line.clear();
        let partial = self.partial.strip_suffix(b"\r").unwrap_or(&self.partial);
        line.push_str(&String::from_utf8_lossy(partial));
        if self.partial_cut {
            line.push_str(" [...]");
        }
        self.lines.push_back(line);
        self.partial.clear();
        self.partial_cut = false;
    }

    /// The last `n` lines, the unfinished one included.
    fn last(&self, n: usize) -> Vec<String> {
        let mut lines: Vec<String> = self.lines.iter().cloned().collect();
        if !self.partial.is_empty() {
            lines.push(String::from_utf8_lossy(&self.partial).into_owned());
        }
        let skip = lines.len().saturating_sub(n);
        lines.split_off(skip)
    }
}

/// Locks a mutex whose data stays valid even if a holder panicked.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The resource limits set in the child before it runs the bot.
#[derive(Clone, Copy, Debug)]
struct Rlimits {
    address_space: Option<u64>,
    cpu_seconds: Option<u64>,
    core_dumps: bool,
}

impl From<&ExternalOptions> for Rlimits {
    fn from(o: &ExternalOptions) -> Rlimits {
        Rlimits {
            address_space: o.address_space_mb.map(|mb| mb.saturating_mul(1024 * 1024)),
            cpu_seconds: o.cpu_seconds,
            core_dumps: o.core_dumps,
        }
    }
}

impl Rlimits {
    fn apply(&self) -> std::io::Result<()> {
        use nix::sys::resource::{Resource, setrlimit};
        let set = |resource, value: u64| {
            setrlimit(resource, value, value)
                .map_err(|e| std::io::Error::from_raw_os_error(e as i32))
        };
        if let Some(bytes) = self.address_space {
            set(Resource::RLIMIT_AS, bytes)?;
        }
        if let Some(seconds) = self.cpu_seconds {
            // The soft limit sends SIGXCPU; the hard limit one second later, SIGKILL.
            setrlimit(Resource::RLIMIT_CPU, seconds, seconds.saturating_add(1))
                .map_err(|e| std::io::Error::from_raw_os_error(e as i32))?;
        }
        if !self.core_dumps {
            set(Resource::RLIMIT_CORE, 0)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_lines_and_cuts_long_ones() {
        let mut tail = TailLines::new(3);
        tail.push(b"one\ntwo\nthr");
        tail.push(b"ee\nfour\r\nfi");
        assert_eq!(tail.last(3), vec!["three", "four", "fi"]);
        assert_eq!(tail.last(10), vec!["two", "three", "four", "fi"]);
        let long = vec![b'x'; STDERR_LINE_CAP * 3];
        tail.push(&long);
        tail.push(b"\n");
        let last = tail.last(1).pop().unwrap();
        assert!(last.starts_with("fix") && last.ends_with(" [...]"), "{}", &last[..10]);
        assert!(last.len() < STDERR_LINE_CAP + 10);
    }

    #[test]
    fn a_bot_refused_during_ctrl_c_gives_no_result() {
        use crate::game::Setup;
        use crate::games::skynet::Skynet;
        use crate::registry::{GameDef, resolve_variant};
        let variant = resolve_variant::<Skynet>(None).unwrap();
        let map = Skynet::default_map(&variant);
        let setup = Setup { variant, options: BTreeMap::new(), map, seed: 1 };
        let (game, _) = Skynet::new_game(&setup).unwrap();
        let view = game.view(0);
        // No other unit test starts an external bot, so raising the flag disturbs none.
        SHUTTING_DOWN.store(true, Ordering::SeqCst);
        let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
        let mut bot = ExternalBot::<Skynet>::spawn(
            &["true".to_string()],
            &identity,
            ExternalOptions::default(),
        );
        assert_eq!(bot.process_group(), None, "no bot starts once arena shuts down");
        let (tx, rx) = std::sync::mpsc::channel();
        let match_thread = std::thread::spawn(move || {
            let now = Instant::now();
            let deadline = now + Duration::from_secs(1);
            let ctx = TurnContext { started: now, deadline, hard_deadline: deadline, decision: 0 };
            let _ = tx.send(bot.act(&view, &ctx).is_err());
        });
        // The interrupt handler ends the process: until then the refusal must not become a
        // result (a tournament would write it down as `startup_failed`).
        let early = rx.recv_timeout(Duration::from_millis(300));
        SHUTTING_DOWN.store(false, Ordering::SeqCst);
        match_thread.thread().unpark();
        assert!(early.is_err(), "the match thread got a result while arena was shutting down");
        assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(true));
        match_thread.join().unwrap();
    }

    #[test]
    fn exit_statuses_map_to_failures() {
        assert_eq!(exit_failure(ExitStatus::from_raw(0)), BotFailure::Eof);
        assert_eq!(
            exit_failure(ExitStatus::from_raw(3 << 8)),
            BotFailure::Crash("exit code 3".into())
        );
        assert_eq!(
            exit_failure(ExitStatus::from_raw(11)),
            BotFailure::Crash("killed by signal 11 (SIGSEGV)".into())
        );
    }

    #[test]
    fn options_read_from_toml_with_defaults() {
        let o: ExternalOptions = toml::from_str("max_line = 100\ncpu_seconds = 5").unwrap();
        assert_eq!(o.max_line, 100);
        assert_eq!(o.cpu_seconds, Some(5));
        assert_eq!(o.kill_grace_ms, ExternalOptions::default().kill_grace_ms);
        assert!(toml::from_str::<ExternalOptions>("max_lines = 1").is_err());
    }
}
