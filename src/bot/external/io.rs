//! One turn's exchange with an external bot: write its input, wait for one line, never holding
//! more of it than the cap. This is the hot path of every external match.
//!
//! It runs on the match thread with plain non-blocking system calls and `poll(2)` until the hard
//! deadline: going through the tokio runtime would add a thread hop per answer (its I/O driver
//! wakes the waiting thread), more than doubling the round trip of a fast bot. The same `poll`
//! also watches the exit socket of [`ExitWatch`](super::exit::ExitWatch), so the wait ends at once
//! when the leader exits, even if a child of it holds the output open.
//!
//! Every wait of a turn goes through [`wait_turn`], the one place that decides how long
//! the bot may still take: until the wall clock's hard deadline, and with the CPU clock also
//! until its processes have used up the turn's CPU allowance ([`TurnTimer`]).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

use super::sandbox::CpuClock;
use super::stall::{StallState, StallWatch};
use crate::bot::BotFailure;

/// Why a line a bot wrote after its answer to the previous turn is garbage (the protocol is one
/// line per turn); a replay's verification recognises it.
pub(crate) const EXTRA_LINE_REASON: &str =
    "written after its answer to the previous turn (one line per turn)";

/// When a turn is over: a wall-clock deadline (the cap, with the CPU clock), and with the CPU
/// clock a CPU allowance of the bot's processes.
pub(super) struct TurnTimer<'a> {
    pub(super) deadline: Instant,
    pub(super) cpu: Option<CpuAllowance<'a>>,
    /// Watching for a bot that waits for input that will never come, while its answer is due.
    pub(super) stall: Option<StallWatch<'a>>,
}

/// The CPU time a bot may use in a turn, read from its processes' clock.
pub(super) struct CpuAllowance<'a> {
    pub(super) clock: &'a CpuClock,
    /// The clock's reading when the turn began.
    pub(super) start: Duration,
    /// More than this is a timeout.
    pub(super) hard: Duration,
}

/// Re-reading a CPU clock wakes a wait at least this often: the CPU time of a bot's processes
/// can grow faster than the wall clock (several threads), so the earliest instant the allowance
/// could run out is only a guess.
const CPU_RECHECK: Duration = Duration::from_millis(50);

impl TurnTimer<'_> {
    /// A wall-clock turn.
    pub(super) fn wall(deadline: Instant) -> TurnTimer<'static> {
        TurnTimer { deadline, cpu: None, stall: None }
    }

    /// When to look again: `None` if the turn is over (the wall deadline passed, or the CPU
    /// allowance is spent, or its clock cannot be read any more: the bot is gone, which the
    /// pipes will tell).
    fn next_check(&self) -> Option<Instant> {
        let now = Instant::now();
        if now >= self.deadline {
            return None;
        }
        let Some(cpu) = &self.cpu else { return Some(self.deadline) };
        let Some(used) = cpu.clock.read().map(|r| r.saturating_sub(cpu.start)) else {
            return Some(self.deadline);
        };
        if used > cpu.hard {
            return None;
        }
        // One thread cannot use up the rest sooner than this.
        let soonest = (cpu.hard - used).max(Duration::from_millis(1)).min(CPU_RECHECK);
        Some((now + soonest).min(self.deadline))
    }
}

/// After a bot's output closes or its input breaks, how long to wait (never past the turn's
/// deadline) for its exit status to tell a crash from a closed output. A dying process closes its
/// pipes microseconds before it can be reaped; the margin is for a loaded machine, and is only
/// spent in full by a bot that closed its output and lives on.
pub(super) const EXIT_STATUS_WAIT: Duration = Duration::from_millis(200);

/// The bot's ends of its stdin and stdout, non-blocking, and what was read and not yet consumed.
pub(super) struct Pipes {
    /// `None` once closed for the end of the match.
    stdin: Option<File>,
    stdout: File,
    /// Bytes read from stdout and not yet consumed: `buf[start..end]`.
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Whether the game's init block has been written.
    init_sent: bool,
    /// Lines written to the bot in the whole match, and in this turn.
    lines_sent: u64,
    lines_this_turn: u64,
}

/// Why a turn ended without a line.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NoAnswer {
    /// The pipes alone tell what went wrong.
    Failure(BotFailure),
    /// Its output closed or its input broke: how it exited tells a crash from an end of output.
    Gone,
}

/// What woke a wait.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Wake {
    Ready,
    Exited,
    Deadline,
    /// Blocked reading its input, every byte of which it has read.
    Stalled,
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
    Stalled,
}

impl Pipes {
    /// Takes the pipes the spawn created (tokio hands them back blocking).
    pub(super) fn new(stdin: OwnedFd, stdout: OwnedFd) -> std::io::Result<Pipes> {
        Ok(Pipes {
            stdin: Some(nonblocking(stdin)?),
            stdout: nonblocking(stdout)?,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            start: 0,
            end: 0,
            init_sent: false,
            lines_sent: 0,
            lines_this_turn: 0,
        })
    }

    /// Whether a turn has begun, so the game's init block has been written.
    pub(super) fn init_sent(&self) -> bool {
        self.init_sent
    }

    /// Closes the bot's input: the end of file that asks it to stop.
    pub(super) fn close_input(&mut self) {
        drop(self.stdin.take());
    }

    /// [`Pipes::exchange_then`] with a bot that runs all the time.
    #[cfg(test)]
    pub(super) fn exchange(
        &mut self,
        input: &[u8],
        exit_signal: BorrowedFd<'_>,
        timer: &TurnTimer<'_>,
        max_line: usize,
    ) -> Result<String, NoAnswer> {
        self.exchange_then(input, exit_signal, timer, max_line, || {})
    }

    /// One turn: checks that nothing is left over from the last turn, writes the input, and
    /// waits for one line of at most `max_line` bytes until `deadline`. `exit_signal` becomes
    /// readable when the leader exits. `written` runs once the input is in the pipe, or as much
    /// of it as the pipe takes, before any wait: a bot stopped between its turns is continued
    /// there, so that it wakes once, to its input (continued before, it would wake, find nothing
    /// to read and sleep again: a wake-up more per turn).
    pub(super) fn exchange_then(
        &mut self,
        input: &[u8],
        exit_signal: BorrowedFd<'_>,
        timer: &TurnTimer<'_>,
        max_line: usize,
        written: impl FnOnce(),
    ) -> Result<String, NoAnswer> {
        if self.init_sent {
            if let Some(extra) = self.leftover_output() {
                return Err(NoAnswer::Failure(BotFailure::Garbage {
                    line: extra,
                    reason: EXTRA_LINE_REASON.into(),
                }));
            }
        }
        self.init_sent = true;
        self.lines_this_turn = 0;
        match self.write_input(input, exit_signal, timer, written) {
            Ok(Wake::Ready) => {}
            Ok(Wake::Deadline | Wake::Stalled) => {
                return Err(NoAnswer::Failure(BotFailure::Timeout));
            }
            // Its input is closed: it has exited, or closed stdin on purpose.
            Ok(Wake::Exited) | Err(_) => return Err(NoAnswer::Gone),
        }
        let line = match self.read_line(max_line, exit_signal, timer) {
            Ok(LineRead::Line(line)) => line,
            // A last line without its newline still counts as the answer.
            Ok(LineRead::Eof(partial)) if !partial.is_empty() => partial,
            Ok(LineRead::Eof(_) | LineRead::Exited) => return Err(NoAnswer::Gone),
            Ok(LineRead::TooLong) => {
                return Err(NoAnswer::Failure(BotFailure::OutputLimit { limit: max_line }));
            }
            Ok(LineRead::Deadline) => return Err(NoAnswer::Failure(BotFailure::Timeout)),
            Ok(LineRead::Stalled) => {
                return Err(NoAnswer::Failure(BotFailure::WaitingForInput {
                    lines: self.lines_sent,
                    this_turn: self.lines_this_turn,
                }));
            }
            Err(e) => {
                let failure = BotFailure::Crash(format!("reading its output failed: {e}"));
                return Err(NoAnswer::Failure(failure));
            }
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

    /// Writes all of `input`, waiting (for a bot that does not read) at most until `deadline`;
    /// `written` runs after the first write, before any wait.
    fn write_input(
        &mut self,
        mut input: &[u8],
        exit_signal: BorrowedFd<'_>,
        timer: &TurnTimer<'_>,
        written: impl FnOnce(),
    ) -> std::io::Result<Wake> {
        let mut written = Some(written);
        let mut after_write = || {
            if let Some(written) = written.take() {
                written();
            }
        };
        let Some(stdin) = self.stdin.as_mut() else {
            after_write();
            return Err(std::io::ErrorKind::BrokenPipe.into());
        };
        while !input.is_empty() {
            match stdin.write(input) {
                Ok(n) => {
                    let lines = input[..n].iter().filter(|&&b| b == b'\n').count() as u64;
                    self.lines_sent += lines;
                    self.lines_this_turn += lines;
                    input = &input[n..];
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    after_write();
                    let fd = stdin.as_fd();
                    let wake = wait_turn(fd, PollFlags::POLLOUT, exit_signal, timer, None)?;
                    if wake != Wake::Ready {
                        return Ok(wake);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    after_write();
                    return Err(e);
                }
            }
        }
        after_write();
        Ok(Wake::Ready)
    }

    /// Reads one line, never holding more than `max` bytes of it.
    fn read_line(
        &mut self,
        max: usize,
        exit_signal: BorrowedFd<'_>,
        timer: &TurnTimer<'_>,
    ) -> std::io::Result<LineRead> {
        let mut line = Vec::new();
        let mut exited = false;
        let mut stall = timer.stall.clone().map(StallState::new);
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
                    let watch = stall.as_mut().zip(self.stdin.as_ref());
                    match wait_turn(stdout, PollFlags::POLLIN, exit_signal, timer, watch)? {
                        Wake::Ready => {}
                        Wake::Deadline => return Ok(LineRead::Deadline),
                        Wake::Stalled => return Ok(LineRead::Stalled),
                        // It exited, perhaps right after writing its answer, or its output is
                        // held open by a child: read what it left, briefly.
                        Wake::Exited => {
                            exited = true;
                            let until = (Instant::now() + EXIT_STATUS_WAIT).min(timer.deadline);
                            if wait_fd(stdout, PollFlags::POLLIN, None, until)? != Wake::Ready {
                                return Ok(LineRead::Exited);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A turn's wait for `fd`: until it is ready, the leader exits, or the bot's time is up, or
/// (with `stall`: the looks of this turn and arena's end of the bot's input) it is seen waiting
/// for input that will never come.
///
/// The clock of the turn lives here alone: with the CPU clock the wait is bounded by the
/// earliest instant the allowance could run out, and on waking what was spent is re-read.
fn wait_turn(
    fd: BorrowedFd<'_>,
    events: PollFlags,
    exit_signal: BorrowedFd<'_>,
    timer: &TurnTimer<'_>,
    mut stall: Option<(&mut StallState<'_>, &File)>,
) -> std::io::Result<Wake> {
    loop {
        let Some(mut until) = timer.next_check() else { return Ok(Wake::Deadline) };
        if let Some((state, _)) = &stall {
            until = until.min(state.next());
        }
        match wait_fd(fd, events, Some(exit_signal), until)? {
            Wake::Deadline => {
                if let Some((state, stdin)) = &mut stall
                    && state.look(stdin).is_some()
                {
                    return Ok(Wake::Stalled);
                }
            }
            wake => return Ok(wake),
        }
    }
}

/// Waits until `fd` is ready for `events`, or `exit_signal` is readable (the leader exited), or
/// `deadline` passes: one `poll(2)`, woken by the kernel, no polling loop but for `EINTR` and the
/// millisecond rounding of `poll`'s timeout.
pub(super) fn wait_fd(
    fd: BorrowedFd<'_>,
    events: PollFlags,
    exit_signal: Option<BorrowedFd<'_>>,
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
            fds[1] = PollFd::new(signal, PollFlags::POLLIN);
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

/// A pipe end in non-blocking mode, as a file.
pub(super) fn nonblocking(fd: OwnedFd) -> std::io::Result<File> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_retain(fcntl(&fd, FcntlArg::F_GETFL)?);
    fcntl(&fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(File::from(fd))
}

#[cfg(test)]
mod tests {
    use std::os::unix::net::UnixStream;

    use super::*;

    /// The other ends: the bot's input and output, and the exit socket's two ends (closing
    /// `exit_peer` is the leader's exit).
    struct FakeBot {
        input: File,
        output: File,
        exit_signal: UnixStream,
        exit_peer: UnixStream,
    }

    fn pipes() -> (Pipes, FakeBot) {
        let (input_read, input_write) = nix::unistd::pipe().unwrap();
        let (output_read, output_write) = nix::unistd::pipe().unwrap();
        let (exit_signal, exit_peer) = UnixStream::pair().unwrap();
        let pipes = Pipes::new(input_write, output_read).unwrap();
        let bot = FakeBot {
            input: input_read.into(),
            output: output_write.into(),
            exit_signal,
            exit_peer,
        };
        (pipes, bot)
    }

    fn soon() -> TurnTimer<'static> {
        TurnTimer::wall(Instant::now() + Duration::from_millis(50))
    }

    fn far() -> TurnTimer<'static> {
        TurnTimer::wall(Instant::now() + Duration::from_secs(60))
    }

    #[test]
    fn a_line_already_written_is_the_answer_and_the_input_arrives() {
        let (mut pipes, mut bot) = pipes();
        bot.output.write_all(b"0 1\r\n").unwrap();
        let answer = pipes.exchange(b"turn\n", bot.exit_signal.as_fd(), &soon(), 100);
        assert_eq!(answer, Ok("0 1".to_string()));
        let mut got = [0u8; 5];
        bot.input.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"turn\n");
    }

    #[test]
    fn no_line_by_the_deadline_is_a_timeout() {
        let (mut pipes, bot) = pipes();
        let answer = pipes.exchange(b"turn\n", bot.exit_signal.as_fd(), &soon(), 100);
        assert_eq!(answer, Err(NoAnswer::Failure(BotFailure::Timeout)));
    }

    #[test]
    fn a_line_over_the_cap_is_refused_without_waiting_for_its_end() {
        let (mut pipes, mut bot) = pipes();
        bot.output.write_all(&[b'x'; 101]).unwrap();
        let answer = pipes.exchange(b"turn\n", bot.exit_signal.as_fd(), &far(), 100);
        assert_eq!(answer, Err(NoAnswer::Failure(BotFailure::OutputLimit { limit: 100 })));
    }

    #[test]
    fn a_second_line_in_one_turn_is_garbage_at_the_next() {
        let (mut pipes, mut bot) = pipes();
        bot.output.write_all(b"a\nb\n").unwrap();
        let first = pipes.exchange(b"1\n", bot.exit_signal.as_fd(), &soon(), 100);
        assert_eq!(first, Ok("a".to_string()));
        let Err(NoAnswer::Failure(BotFailure::Garbage { line, .. })) =
            pipes.exchange(b"2\n", bot.exit_signal.as_fd(), &soon(), 100)
        else {
            panic!("the extra line is not garbage");
        };
        assert_eq!(line, "b");
    }

    #[test]
    fn a_closed_output_is_gone_and_a_last_line_without_newline_counts() {
        let (mut pipes, bot) = pipes();
        let FakeBot { mut output, exit_signal, exit_peer: _exit_peer, .. } = bot;
        output.write_all(b"last").unwrap();
        drop(output);
        let first = pipes.exchange(b"1\n", exit_signal.as_fd(), &far(), 100);
        assert_eq!(first, Ok("last".to_string()));
        assert_eq!(pipes.exchange(b"2\n", exit_signal.as_fd(), &far(), 100), Err(NoAnswer::Gone));
    }

    #[test]
    fn an_exit_ends_the_wait_long_before_the_deadline() {
        let (mut pipes, bot) = pipes();
        let FakeBot { exit_signal, exit_peer, .. } = bot;
        drop(exit_peer);
        let started = Instant::now();
        assert_eq!(pipes.exchange(b"1\n", exit_signal.as_fd(), &far(), 100), Err(NoAnswer::Gone));
        assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    }
}
