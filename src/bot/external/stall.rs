//! Telling a bot that waits for input that will never come from one that thinks or sleeps.
//!
//! A bot that reads one line more than a turn sends (a common protocol slip) blocks in a read of
//! its standard input while it owes an answer, and would only end at the turn's wall-clock cap
//! (ten times the limit plus a second, with the CPU clock) with a detail that says nothing of
//! why. Such a bot is recognised while it runs, by three facts that hold together only for it:
//!
//! - its input pipe is empty (`FIONREAD` on arena's end): it has read every byte sent;
//! - one of its threads is blocked reading that pipe: in `read` (or `readv`, `pread64`...) of a
//!   descriptor that is the pipe (`/proc/<pid>/fd/<n>`), or in `poll`, `select` or `epoll_wait`
//!   without a timeout on a set that holds it (the `pollfd` array and `fd_set` are read from
//!   `/proc/<pid>/mem`, an epoll's set from `/proc/<pid>/fdinfo`), as `/proc/<pid>/task/<tid>/
//!   syscall` shows;
//! - nothing else of it can make progress: no thread runs or waits on the disk, none sleeps
//!   (`nanosleep`, or a `poll`/`select`/`epoll_wait` with a timeout: what a bot that sleeps
//!   before answering does), none waits on a socket (the network may answer), and its
//!   processes' CPU time does not grow between two looks.
//!
//! Threads blocked without a timeout on anything else (a child's exit, a lock, a pipe between
//! its own processes) and futex waits with a timeout (the housekeeping threads of a JVM or .NET
//! runtime) do not prevent the verdict: none of them can produce the answer without input. The
//! verdict needs two looks a few milliseconds apart ([`interval`]), so a bot between two reads
//! of a turn is never caught. Any `/proc` file that cannot be read (another user's process, a
//! kernel without `/proc/<pid>/syscall`) means no verdict: the bot then ends at the cap, as
//! before.
//!
//! The sandbox puts a bot in PID namespaces of its own, but arena sees its processes under their
//! host pids: the walk starts at the process arena started (the sandbox's relay) and follows
//! `/proc/<pid>/task/<tid>/children`.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::time::{Duration, Instant};

use super::sandbox::CpuClock;

/// How often a turn looks: a tenth of the turn's allowance, from 10 to 100 ms.
pub(super) fn interval(allowance: Duration) -> Duration {
    (allowance / 10).clamp(Duration::from_millis(10), Duration::from_millis(100))
}

/// What a turn's wait needs to watch for a stall.
#[derive(Clone)]
pub(super) struct StallWatch<'a> {
    /// The process arena started; the bot's processes are it and its descendants.
    pub(super) leader: i32,
    /// How many generations from the leader down are arena's own (the sandbox's relay and the
    /// init of the bot's PID namespace: they never answer, and as they may not be read by
    /// arena's user, they are not judged, only walked through).
    pub(super) arenas_own: usize,
    /// The CPU time of all of them.
    pub(super) clock: &'a CpuClock,
    /// The time between two looks.
    pub(super) every: Duration,
}

/// The looks of one turn.
pub(super) struct StallState<'a> {
    watch: StallWatch<'a>,
    next: Instant,
    /// The CPU time at the previous look, if that look found the bot waiting.
    waiting_since: Option<(Instant, Duration)>,
}

/// A stall, as the detail tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stalled {
    /// How long it was seen waiting.
    pub(super) waited: Duration,
}

impl<'a> StallState<'a> {
    pub(super) fn new(watch: StallWatch<'a>) -> StallState<'a> {
        let next = Instant::now() + watch.every;
        StallState { watch, next, waiting_since: None }
    }

    /// When to look next.
    pub(super) fn next(&self) -> Instant {
        self.next
    }

    /// Looks if it is time: `Some` once two looks in a row found the bot waiting for input on
    /// `stdin` (arena's end of its input pipe) with no CPU time used in between.
    pub(super) fn look(&mut self, stdin: &File) -> Option<Stalled> {
        let now = Instant::now();
        if now < self.next {
            return None;
        }
        self.next = now + self.watch.every;
        let cpu = self.watch.clock.read()?;
        if !waiting_for_input(self.watch.leader, self.watch.arenas_own, stdin) {
            self.waiting_since = None;
            return None;
        }
        match self.waiting_since {
            // A tenth of the time between the looks: what a runtime's housekeeping threads use.
            Some((since, before)) if cpu.saturating_sub(before) <= (now - since) / 10 => {
                Some(Stalled { waited: now - since })
            }
            _ => {
                self.waiting_since = Some((now, cpu));
                None
            }
        }
    }
}

/// One look: whether every byte sent was read, a thread of the bot is blocked reading `stdin`'s
/// pipe and nothing else of the bot can make progress (the first `arenas_own` generations
/// from `leader` down are arena's, not the bot's).
pub(super) fn waiting_for_input(leader: i32, arenas_own: usize, stdin: &File) -> bool {
    if unread_bytes(stdin) != Some(0) {
        return false;
    }
    let Ok(meta) = stdin.metadata() else { return false };
    let pipe = format!("pipe:[{}]", meta.ino());
    let mut witness = false;
    let mut pending = vec![(leader, 0)];
    let mut seen = 0;
    while let Some((pid, generation)) = pending.pop() {
        seen += 1;
        // A bot of thousands of processes is not one that waits for a line.
        if seen > 512 {
            return false;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            // Gone meanwhile (the leader's absence is the pipes' business).
            continue;
        };
        for task in tasks.flatten() {
            let Ok(tid) = task.file_name().to_string_lossy().parse::<i32>() else { continue };
            if generation >= arenas_own {
                match task_wait(pid, tid, &pipe) {
                    Wait::Input => witness = true,
                    Wait::Indefinite | Wait::Gone => {}
                    Wait::Progress => return false,
                }
            }
            if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                let children = list.split_whitespace().filter_map(|p| p.parse::<i32>().ok());
                pending.extend(children.map(|child| (child, generation + 1)));
            }
        }
    }
    witness
}

/// What one thread is doing, for the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// Blocked reading the bot's input pipe, with no timeout.
    Input,
    /// Blocked without a timeout on something only the bot itself could provide, or a
    /// runtime's timed futex wait.
    Indefinite,
    /// Running, sleeping, waiting on a socket or with a timeout, or unreadable: it may answer.
    Progress,
    /// A zombie, or gone meanwhile.
    Gone,
}

/// What thread `tid` of process `pid` waits for; `pipe` is the input pipe's link text.
fn task_wait(pid: i32, tid: i32, pipe: &str) -> Wait {
    let base = format!("/proc/{pid}/task/{tid}");
    let Ok(stat) = std::fs::read_to_string(format!("{base}/stat")) else { return Wait::Gone };
    // `tid (comm) state ...`: comm may hold anything, what follows its last `)` does not.
    let state = stat.rsplit_once(") ").and_then(|(_, rest)| rest.chars().next());
    match state {
        Some('S') => {}
        Some('Z' | 'X' | 'x') | None => return Wait::Gone,
        // Running, on the disk, stopped or traced: not a verdict to give now.
        Some(_) => return Wait::Progress,
    }
    let Ok(text) = std::fs::read_to_string(format!("{base}/syscall")) else {
        return Wait::Progress;
    };
    let Some(call) = Syscall::parse(&text) else { return Wait::Progress };
    classify(pid, &call, pipe)
}

/// A blocked thread's system call, as `/proc/<pid>/task/<tid>/syscall` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Syscall {
    number: i64,
    args: [u64; 6],
}

impl Syscall {
    /// `nr arg0 ... arg5 sp pc` (hex arguments); `running` or `-1 sp pc` are not a call.
    fn parse(text: &str) -> Option<Syscall> {
        let mut words = text.split_whitespace();
        let number: i64 = words.next()?.parse().ok()?;
        if number < 0 {
            return None;
        }
        let mut args = [0u64; 6];
        for arg in &mut args {
            *arg = u64::from_str_radix(words.next()?.trim_start_matches("0x"), 16).ok()?;
        }
        Some(Syscall { number, args })
    }
}

/// The system calls a waiting thread may be in, by number on this architecture.
mod calls {
    pub(super) const READS: &[i64] =
        &[libc::SYS_read, libc::SYS_readv, libc::SYS_pread64, libc::SYS_preadv, libc::SYS_preadv2];
    pub(super) const CHILD_WAITS: &[i64] = &[libc::SYS_wait4, libc::SYS_waitid];
    #[cfg(target_arch = "x86_64")]
    pub(super) const POLL: i64 = libc::SYS_poll;
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) const POLL: i64 = -1;
    #[cfg(target_arch = "x86_64")]
    pub(super) const SELECT: i64 = libc::SYS_select;
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) const SELECT: i64 = -1;
    #[cfg(target_arch = "x86_64")]
    pub(super) const EPOLL_WAIT: i64 = libc::SYS_epoll_wait;
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) const EPOLL_WAIT: i64 = -1;
    #[cfg(target_arch = "x86_64")]
    pub(super) const PAUSE: i64 = libc::SYS_pause;
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) const PAUSE: i64 = -1;
}

/// `FUTEX_WAIT`, `FUTEX_LOCK_PI`, `FUTEX_WAIT_BITSET`, ...: the futex operations that wait.
const FUTEX_CMD_MASK: u64 = 0x7f;

fn classify(pid: i32, call: &Syscall, pipe: &str) -> Wait {
    let n = call.number;
    let [a0, a1, a2, a3, a4, _] = call.args;
    // Pointer arguments: 0 is NULL. Timeouts in milliseconds are C ints: negative is none.
    let millis_forever = |arg: u64| (arg as u32 as i32) < 0;
    if calls::READS.contains(&n) {
        return fd_wait(pid, a0, pipe);
    }
    // A wait on a set with a timeout is how a script sleeps (a JavaScript timer, Python's
    // asyncio): it may answer when it wakes.
    if n == calls::POLL || n == libc::SYS_ppoll {
        let forever = if n == calls::POLL { millis_forever(a2) } else { a2 == 0 };
        return if forever { set_wait(pid, &pollfds(pid, a0, a1), pipe) } else { Wait::Progress };
    }
    if n == calls::SELECT || n == libc::SYS_pselect6 {
        return if a4 == 0 { set_wait(pid, &fd_set(pid, a0, a1), pipe) } else { Wait::Progress };
    }
    if n == calls::EPOLL_WAIT || n == libc::SYS_epoll_pwait || n == libc::SYS_epoll_pwait2 {
        let forever = if n == libc::SYS_epoll_pwait2 { a3 == 0 } else { millis_forever(a3) };
        return if forever { set_wait(pid, &epoll_set(pid, a0), pipe) } else { Wait::Progress };
    }
    if n == libc::SYS_futex {
        // Waiting for another thread of the bot; with a timeout, a runtime's housekeeping.
        let op = a1 & FUTEX_CMD_MASK;
        return if matches!(op, 0 | 6 | 9 | 11 | 13) { Wait::Indefinite } else { Wait::Progress };
    }
    if calls::CHILD_WAITS.contains(&n) || n == libc::SYS_rt_sigsuspend || n == calls::PAUSE {
        return Wait::Indefinite;
    }
    // `nanosleep` and everything not listed: it may answer.
    Wait::Progress
}

/// A wait without a timeout on the descriptors `fds` (`None`: they cannot be read).
fn set_wait(pid: i32, fds: &Option<Vec<u64>>, pipe: &str) -> Wait {
    let Some(fds) = fds else { return Wait::Progress };
    let mut verdict = Wait::Indefinite;
    for &fd in fds {
        match fd_wait(pid, fd, pipe) {
            Wait::Input => verdict = Wait::Input,
            Wait::Indefinite | Wait::Gone => {}
            Wait::Progress => return Wait::Progress,
        }
    }
    verdict
}

/// What waiting to read descriptor `fd` of `pid` waits for.
fn fd_wait(pid: i32, fd: u64, pipe: &str) -> Wait {
    let Ok(link) = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")) else {
        return Wait::Progress;
    };
    let link = link.to_string_lossy();
    if link == pipe {
        Wait::Input
    } else if link == "anon_inode:[timerfd]" {
        // A timer: it wakes by itself.
        Wait::Progress
    } else if link.starts_with("pipe:") || link.starts_with("anon_inode:") {
        // A pipe, an eventfd or an epoll between the bot's own threads and processes.
        Wait::Indefinite
    } else {
        // A socket (the network may answer), a terminal, a device.
        Wait::Progress
    }
}

/// The descriptors of a `poll` array (`struct pollfd`: an `int` and two `short`s) of `nfds`
/// entries at `address` in `pid`'s memory.
fn pollfds(pid: i32, address: u64, nfds: u64) -> Option<Vec<u64>> {
    let n = usize::try_from(nfds).ok().filter(|&n| n <= 1024)?;
    let bytes = read_memory(pid, address, n * 8)?;
    Some(
        bytes
            .chunks_exact(8)
            .filter_map(|e| u64::try_from(i32::from_ne_bytes([e[0], e[1], e[2], e[3]])).ok())
            .collect(),
    )
}

/// The descriptors of a `select` read set of `nfds` bits at `address` (none when NULL).
fn fd_set(pid: i32, nfds: u64, address: u64) -> Option<Vec<u64>> {
    if address == 0 {
        return Some(Vec::new());
    }
    let n = usize::try_from(nfds).ok().filter(|&n| n <= 1024)?;
    let bytes = read_memory(pid, address, n.div_ceil(8))?;
    Some((0..n).filter(|&i| bytes[i / 8] & (1 << (i % 8)) != 0).map(|i| i as u64).collect())
}

/// The descriptors epoll instance `epfd` of `pid` watches (`tfd:` lines of its fdinfo).
fn epoll_set(pid: i32, epfd: u64) -> Option<Vec<u64>> {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{epfd}")).ok()?;
    Some(
        info.lines()
            .filter_map(|l| l.strip_prefix("tfd:"))
            .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
            .collect(),
    )
}

fn read_memory(pid: i32, address: u64, len: usize) -> Option<Vec<u8>> {
    let mem = File::open(format!("/proc/{pid}/mem")).ok()?;
    let mut bytes = vec![0u8; len];
    mem.read_exact_at(&mut bytes, address).ok()?;
    Some(bytes)
}

/// The bytes in the pipe `stdin` writes to that its reader has not read.
fn unread_bytes(stdin: &File) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD on a pipe writes one int through the pointer, which is valid.
    #[allow(unsafe_code)]
    let result = unsafe { libc::ioctl(stdin.as_raw_fd(), libc::FIONREAD, &raw mut n) };
    if result == 0 { usize::try_from(n).ok() } else { None }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Stdio};

    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;

    use super::*;

    #[test]
    fn a_blocked_call_reads_and_a_running_thread_does_not() {
        let read =
            Syscall::parse("0 0x3 0x7ffd1000 0x2000 0x0 0x0 0x0 0x7ffd0ff8 0x7f00aa").unwrap();
        assert_eq!(read.number, 0);
        assert_eq!(read.args[0], 3);
        assert_eq!(Syscall::parse("running"), None);
        assert_eq!(Syscall::parse("-1 0x7ffd0ff8 0x7f00aa"), None);
    }

    /// `sh -c script` with its input on a pipe whose write end the test holds, in a process
    /// group of its own so that the test's kill takes the `sleep` it starts too.
    fn shell(script: &str) -> (Child, File) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("sh starts");
        let stdin = child.stdin.take().expect("piped");
        (child, File::from(std::os::fd::OwnedFd::from(stdin)))
    }

    /// Whether a look finds `script` waiting for input once it has had `lines` (up to 30 s for a
    /// loaded machine to run it that far; a `false` is only said after a second's looks).
    fn seen_waiting(script: &str, lines: &str, expected: bool) -> bool {
        let (mut child, mut stdin) = shell(script);
        stdin.write_all(lines.as_bytes()).unwrap();
        let pid = child.id() as i32;
        let started = Instant::now();
        let limit = if expected { Duration::from_secs(30) } else { Duration::from_secs(1) };
        let mut seen = false;
        while started.elapsed() < limit && !seen {
            std::thread::sleep(Duration::from_millis(20));
            seen = waiting_for_input(pid, 0, &stdin);
        }
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        let _ = child.wait();
        seen
    }

    #[test]
    fn a_reader_that_has_read_everything_waits_and_a_sleeper_or_a_spinner_does_not() {
        // sh's `read` is a read(2) of the pipe; its child `cat` too, with sh waiting for it.
        assert!(seen_waiting("read a; read b", "one\n", true));
        assert!(seen_waiting("read a; cat", "one\n", true));
        // A line left unread in the pipe: it has not read everything sent.
        assert!(!seen_waiting("sleep 1000", "one\n", false));
        assert!(!seen_waiting("read a; sleep 1000", "one\n", false));
        assert!(!seen_waiting("read a; while :; do :; done", "one\n", false));
        // A thread reading while another sleeps may answer when it wakes.
        assert!(!seen_waiting("read a; sleep 1000 & read b", "one\n", false));
    }
}
