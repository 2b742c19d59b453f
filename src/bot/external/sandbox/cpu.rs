//! The CPU time all of a bot's processes have used: what a limit on the bot's own work (rather
//! than on the wall clock of a loaded machine) measures.
//!
//! With a `cpuacct` cgroup (the sandbox, as root on cgroup v1) the kernel counts it exactly, for
//! every process that ever ran in the cgroup, and one `pread` of `cpuacct.usage` (about a
//! microsecond) reads it. Without one, the process tree under the bot's leader is walked through
//! `/proc`: each process's own CPU clock (all its threads, live and exited, in nanoseconds) plus
//! the CPU time of the children it has reaped (`cutime` and `cstime`, in clock ticks). In the
//! sandbox that tree is complete: every orphan of the bot is re-parented to the init of its PID
//! namespace, which reaps it, so its time lands in the init's `cutime`. Without the sandbox, an
//! orphan re-parented to arena leaves the tree, and its time with it.
//!
//! The walk is read twice a turn, so it keeps what it can open: each process's `stat` and its
//! threads' `children` files stay open between reads and are read again with `pread` (the kernel
//! makes their text afresh at offset 0), and its clock id is found once. A read of a
//! single-threaded bot is then three system calls (its clock, its `stat`, its `children`) where
//! opening, listing and closing took a dozen and path lookups in `/proc`. A process with several
//! threads has its `task` folder listed again at every read (a thread may have started and
//! forked); a process that is gone fails its `pread` (its files name that process, never a later
//! one with the same pid) and is forgotten.
//!
//! The sandbox's relay and init, the first two generations under a sandboxed bot's leader, are
//! arena's code with one thread each: only their main thread's `children` file is opened, their
//! `task` folders are never listed, and their own CPU time is not the bot's (as with a cgroup,
//! which they stay out of). The init's reaped children are: every process of the bot, orphans
//! included. The relay's only child is the init, for the relay's whole life, so once a walk has
//! found the init, later walks start there and never read the relay again (a walk of a
//! single-threaded bot is then four reads and one clock, where it was six and three; the relay's
//! `stat` is never opened).
//!
//! The same walk tells which processes are the bot's own (beyond the relay and the init) at its
//! end, for its memory peak, without opening `/proc` again ([`CpuClock::processes`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Where a bot's CPU time is read.
pub(in crate::bot::external) enum CpuClock {
    /// `cpuacct.usage` of the bot's cgroup, in nanoseconds.
    Cgroup(File),
    /// The process tree under a leader, with what is kept open of it.
    Tree(Mutex<Tree>),
}

impl CpuClock {
    /// A clock over the process tree under `leader`, whose first `arenas_own` generations are
    /// the sandbox's relay and init (0 without them).
    pub(in crate::bot::external) fn tree(leader: i32, arenas_own: usize) -> CpuClock {
        CpuClock::Tree(Mutex::new(Tree {
            top: (leader, 0),
            ended: false,
            arenas_own,
            known: BTreeMap::new(),
            buf: Vec::new(),
            walked: Vec::new(),
            walks: 0,
        }))
    }

    /// The CPU time used so far, or `None` once it cannot be read (the tree is gone).
    pub(in crate::bot::external) fn read(&self) -> Option<Duration> {
        match self {
            CpuClock::Cgroup(usage) => read_counter(usage).map(Duration::from_nanos),
            CpuClock::Tree(tree) => tree.lock().unwrap_or_else(PoisonError::into_inner).time(),
        }
    }

    /// The bot's own processes now (the tree under the leader without the relay and the init),
    /// from a walk through the files kept open; `None` for a cgroup's clock, which walks no tree
    /// (the cgroup lists them itself).
    pub(in crate::bot::external) fn processes(&self) -> Option<Vec<i32>> {
        let CpuClock::Tree(tree) = self else { return None };
        let mut tree = tree.lock().unwrap_or_else(PoisonError::into_inner);
        tree.time();
        Some(tree.own_processes())
    }

    /// The bot's own processes as the last [`CpuClock::read`] found them (`None` for a cgroup's
    /// clock). Right after a read, what [`CpuClock::processes`] would find, without walking the
    /// tree a second time.
    pub(in crate::bot::external) fn processes_as_read(&self) -> Option<Vec<i32>> {
        let CpuClock::Tree(tree) = self else { return None };
        Some(tree.lock().unwrap_or_else(PoisonError::into_inner).own_processes())
    }

    /// How many times the tree was walked (0 for a cgroup's clock).
    #[cfg(test)]
    pub(in crate::bot::external) fn walks(&self) -> u64 {
        let CpuClock::Tree(tree) = self else { return 0 };
        tree.lock().unwrap_or_else(PoisonError::into_inner).walks
    }
}

/// Reads a cgroup's counter file of a few digits (`cpuacct.usage`) at offset 0, without
/// reopening it.
pub(super) fn read_counter(file: &File) -> Option<u64> {
    let mut buf = [0u8; 32];
    let n = file.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()
}

/// A bot's process tree as last walked.
pub(in crate::bot::external) struct Tree {
    /// Where a walk starts, and its generation: the leader, until a walk has found the first
    /// generation that is not a link of arena's chain down to the init (see the module's text).
    top: (i32, usize),
    /// The top was found gone: the tree is over for good. (The init's pid, once the relay has
    /// reaped it, may be another process's by the next read, which must not be walked.)
    ended: bool,
    /// How many generations from the leader down are the sandbox's relay and init.
    arenas_own: usize,
    /// The processes found by the last walk, by pid.
    known: BTreeMap<i32, Process>,
    /// Room for a file's text, kept between reads.
    buf: Vec<u8>,
    /// The processes of the last walk, each with its generation (the leader's is 0).
    walked: Vec<(i32, usize)>,
    /// How many walks were made.
    walks: u64,
}

/// What is kept open of one process.
struct Process {
    /// Its CPU clock: all its threads, live and exited.
    clock: libc::clockid_t,
    /// `/proc/<pid>/stat` (not opened for a link of arena's chain: only its child matters).
    stat: Option<File>,
    /// `/proc/<pid>/task/<tid>/children` of each of its threads.
    children: Vec<File>,
}

impl Tree {
    /// The CPU time of the tree: `None` if the leader is gone.
    fn time(&mut self) -> Option<Duration> {
        if self.ended {
            return None;
        }
        self.walks += 1;
        let tick = ticks_per_second();
        let mut total = Duration::ZERO;
        let mut pending = vec![self.top];
        let mut walked = std::mem::take(&mut self.walked);
        walked.clear();
        let mut children = Vec::new();
        let mut leader_gone = false;
        while let Some((pid, generation)) = pending.pop() {
            children.clear();
            let Some(used) = self.process_time(pid, generation, tick, &mut children) else {
                self.known.remove(&pid);
                if (pid, generation) == self.top {
                    leader_gone = true;
                    self.ended = true;
                    break;
                }
                continue;
            };
            total += used;
            walked.push((pid, generation));
            if generation + 1 < self.arenas_own && (pid, generation) == self.top {
                // A link of the chain (the relay): its one child is the next, for its life.
                if let [next] = children[..] {
                    self.top = (next, generation + 1);
                    self.known.remove(&pid);
                }
            }
            pending.extend(children.iter().map(|&child| (child, generation + 1)));
        }
        // A process that left the tree (it ended, or was re-parented away) is forgotten.
        self.known.retain(|pid, _| walked.iter().any(|&(p, _)| p == *pid));
        self.walked = walked;
        (!leader_gone).then_some(total)
    }

    /// The last walk's processes below the sandbox's relay and init: the bot's own.
    fn own_processes(&self) -> Vec<i32> {
        let own = self.arenas_own;
        self.walked
            .iter()
            .filter(|&&(_, generation)| generation >= own)
            .map(|&(pid, _)| pid)
            .collect()
    }

    /// The CPU time of process `pid`, of generation `generation`, and of the children it
    /// reaped; appends its children.
    fn process_time(
        &mut self,
        pid: i32,
        generation: usize,
        tick: f64,
        children: &mut Vec<i32>,
    ) -> Option<Duration> {
        let arenas = generation < self.arenas_own;
        let link = generation + 1 < self.arenas_own;
        let process = match self.known.entry(pid) {
            std::collections::btree_map::Entry::Occupied(kept) => kept.into_mut(),
            std::collections::btree_map::Entry::Vacant(new) => {
                new.insert(Process::open(pid, arenas, link)?)
            }
        };
        let Some(stat) = &process.stat else {
            // A link of arena's chain (the relay): none of its time is the bot's, and its one
            // child is the next link or the init; without one (or gone: its `children` then
            // reads empty) the bot's tree is gone.
            let list = read_at_zero(process.children.first()?, &mut self.buf)?;
            let list = std::str::from_utf8(list).unwrap_or_default();
            children.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
            return (!children.is_empty()).then_some(Duration::ZERO);
        };
        // `stat` first: it fails once the process is reaped, so the clock below, read by pid,
        // is that of the process the files name (or of nothing).
        let stat = Stat::parse(read_at_zero(stat, &mut self.buf)?)?;
        // The init's own time is arena's work; what it reaped is the bot's processes.
        let own = if arenas { Duration::ZERO } else { process.clock_time()? };
        if !arenas && (process.children.len() != 1 || stat.threads != 1) {
            process.children = thread_children_files(pid);
        }
        for file in &process.children {
            if let Some(list) = read_at_zero(file, &mut self.buf) {
                let list = std::str::from_utf8(list).unwrap_or_default();
                children.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
            }
        }
        Some(own + Duration::from_secs_f64(stat.reaped_ticks as f64 / tick))
    }
}

impl Process {
    /// Opens what the walk reads of `pid`; `arenas`: a relay or an init (one thread), `link`:
    /// a relay.
    fn open(pid: i32, arenas: bool, link: bool) -> Option<Process> {
        let mut clock: libc::clockid_t = 0;
        // (arena's own are not timed: no clock, whose lookup is a system call.)
        // SAFETY: an out-parameter of the right type.
        #[allow(unsafe_code)]
        if !arenas && unsafe { libc::clock_getcpuclockid(pid, &mut clock) } != 0 {
            return None;
        }
        let stat = if link { None } else { Some(File::open(format!("/proc/{pid}/stat")).ok()?) };
        // The main thread's alone: a walk lists the threads of a process whose `stat` shows
        // several (most bots have one: no folder listed at their first walk).
        let children = File::open(format!("/proc/{pid}/task/{pid}/children")).into_iter().collect();
        Some(Process { clock, stat, children })
    }

    fn clock_time(&self) -> Option<Duration> {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: an out-parameter of the right type.
        #[allow(unsafe_code)]
        if unsafe { libc::clock_gettime(self.clock, &mut now) } != 0 {
            return None;
        }
        Some(Duration::new(u64::try_from(now.tv_sec).ok()?, u32::try_from(now.tv_nsec).ok()?))
    }
}

/// What the walk needs of `/proc/<pid>/stat`.
struct Stat {
    /// `num_threads`.
    threads: u64,
    /// `cutime + cstime`: the children it waited for, in clock ticks.
    reaped_ticks: u64,
}

impl Stat {
    fn parse(text: &[u8]) -> Option<Stat> {
        let text = std::str::from_utf8(text).ok()?;
        // `pid (comm) state ppid ...`: comm may hold anything, the fields after its `)` do not.
        let rest = text.rsplit_once(')')?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After comm, state is field 3 of the line, so cutime (16), cstime (17) and num_threads
        // (20) are at 13, 14 and 17.
        let field = |i: usize| fields.get(i)?.parse::<u64>().ok();
        Some(Stat { threads: field(17)?, reaped_ticks: field(13)? + field(14)? })
    }
}

/// The `children` file of every thread of `pid` (a child belongs to the thread that forked it).
fn thread_children_files(pid: i32) -> Vec<File> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks.flatten().filter_map(|task| File::open(task.path().join("children")).ok()).collect()
}

/// The whole text of a `/proc` file read again from offset 0 (the kernel makes it afresh). Its
/// files fill a read as far as their text goes, so a read that leaves room is the last one: one
/// system call for a text that fits.
fn read_at_zero<'a>(file: &File, buf: &'a mut Vec<u8>) -> Option<&'a [u8]> {
    if buf.len() < 4096 {
        buf.resize(4096, 0);
    }
    let mut filled = 0;
    loop {
        let n = file.read_at(&mut buf[filled..], filled as u64).ok()?;
        filled += n;
        if n == 0 || filled < buf.len() {
            return Some(&buf[..filled]);
        }
        buf.resize(buf.len() * 2, 0);
    }
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    #[allow(unsafe_code)]
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}
#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    use super::*;

    /// `cutime + cstime` of `pid`, read as the clock reads them.
    fn reaped_children_ticks(pid: i32) -> Option<u64> {
        let text = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
        Stat::parse(&text).map(|s| s.reaped_ticks)
    }

    /// Reads `clock` until it shows at least `enough` or two minutes pass; the last reading.
    fn read_until(clock: &CpuClock, enough: Duration) -> Duration {
        let started = Instant::now();
        let mut last = Duration::ZERO;
        while started.elapsed() < Duration::from_secs(120) {
            last = clock.read().expect("the tree runs");
            if last >= enough {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        last
    }

    /// A shell loop that burns about a second of CPU on an idle machine.
    const BURN: &str = "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done";

    /// A shell loop that burns CPU until it is killed (never reaped while it runs, so only its
    /// own clock shows its time).
    const SPIN: &str = "while :; do :; done";

    #[test]
    fn a_tree_clock_counts_a_child_that_burned_cpu_and_was_reaped() {
        // The leader forks a child that burns CPU and is reaped; then the leader waits.
        let mut leader = Command::new("sh")
            .args(["-c", &format!("sh -c '{BURN}'; read x")])
            .stdin(Stdio::piped())
            .spawn()
            .expect("sh starts");
        let pid = leader.id() as i32;
        let clock = CpuClock::tree(pid, 0);
        let started = Instant::now();
        // The child's time reaches the leader's `cutime` when the leader reaps it.
        let mut last = Duration::ZERO;
        while started.elapsed() < Duration::from_secs(120) {
            if reaped_children_ticks(pid).unwrap_or(0) > 0 {
                last = clock.read().expect("the leader runs");
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let reaped = reaped_children_ticks(pid).unwrap_or(0);
        drop(leader.stdin.take());
        leader.wait().expect("reaped");
        assert!(reaped > 0, "the child's CPU time never reached its parent");
        assert!(
            last >= Duration::from_secs_f64(reaped as f64 / ticks_per_second()),
            "{last:?} < {reaped} ticks"
        );
        assert_eq!(clock.read(), None, "the tree is gone");
    }

    #[test]
    fn a_tree_clock_kept_open_sees_children_born_after_its_first_read() {
        // The leader waits for a line, then forks a burning child and waits for another line.
        let mut leader = Command::new("sh")
            .args(["-c", &format!("read x; sh -c '{SPIN}' & read y; kill $!")])
            .stdin(Stdio::piped())
            .spawn()
            .expect("sh starts");
        let pid = leader.id() as i32;
        let clock = CpuClock::tree(pid, 0);
        let before = clock.read().expect("the leader runs");
        let mut input = leader.stdin.take().expect("a pipe");
        input.write_all(b"go\n").expect("written");
        // The running child is counted by its own clock, through the leader's `children` file
        // read again, not reopened.
        let during = read_until(&clock, before + Duration::from_millis(300));
        assert!(during >= before + Duration::from_millis(300), "{before:?} then {during:?}");
        let CpuClock::Tree(tree) = &clock else { unreachable!() };
        assert_eq!(tree.lock().unwrap().known.len(), 2, "the leader and its child are kept open");
        input.write_all(b"stop\n").expect("written");
        drop(input);
        leader.wait().expect("reaped");
        assert_eq!(clock.read(), None, "the tree is gone");
    }

    /// The children of `pid`'s main thread.
    fn children_of(pid: i32) -> Vec<i32> {
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }

    #[test]
    fn a_sandboxed_tree_clock_charges_what_the_init_reaped_not_the_relay_and_the_init() {
        // A stand-in for the relay burns CPU, then starts one for the init, which reaps a child
        // that burned CPU, then waits.
        let burn = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        let mut relay = Command::new("sh")
            .args(["-c", &format!("{burn}; sh -c 'sh -c \"$B\"; read x'; true")])
            .env("B", burn)
            .stdin(Stdio::piped())
            .spawn()
            .expect("sh starts");
        let pid = relay.id() as i32;
        let started = Instant::now();
        let mut init = None;
        while started.elapsed() < Duration::from_secs(120) {
            if let [child] = children_of(pid)[..] {
                if reaped_children_ticks(child).unwrap_or(0) > 0 && children_of(child).is_empty() {
                    init = Some(child);
                    break;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let init = init.expect("the init reaped its child");
        let reaped = reaped_children_ticks(init).expect("the init runs");
        let whole = CpuClock::tree(pid, 0).read().expect("the relay runs");
        let clock = CpuClock::tree(pid, 2);
        let bots = clock.read().expect("the init runs");
        let CpuClock::Tree(tree) = &clock else { unreachable!() };
        let (top, known) = {
            let tree = tree.lock().unwrap();
            (tree.top, tree.known.keys().copied().collect::<Vec<_>>())
        };
        drop(relay.stdin.take());
        relay.wait().expect("reaped");
        assert_eq!(clock.read(), None, "the init is gone");
        // Its pid may be another process's by now (here: this one's): the tree stays over,
        // nothing is opened.
        tree.lock().unwrap().top = (std::process::id() as i32, 1);
        assert_eq!(clock.read(), None, "the tree stays over");
        assert!(tree.lock().unwrap().known.is_empty(), "no file opened by a pid that ended");
        assert_eq!(bots, Duration::from_secs_f64(reaped as f64 / ticks_per_second()));
        assert!(whole > bots, "the relay's own time is in the whole tree's: {whole:?}, {bots:?}");
        assert_eq!(top, (init, 1), "later walks start at the init");
        assert_eq!(known, vec![init], "the relay's files are closed");
    }

    #[test]
    fn a_tree_clock_sees_the_children_of_every_thread() {
        // A child forked by a second thread is that thread's child: the main thread's `children`
        // file does not list it, so a process of several threads lists its threads at every read.
        // The thread lives on while its child spins: a thread that exits hands its children to
        // another thread of the process.
        let script = format!(
            "import subprocess, sys, threading\n\
             done = threading.Event()\n\
             def spin():\n    \
                 child = subprocess.Popen(['sh', '-c', {SPIN:?}])\n    \
                 done.wait()\n    \
                 child.kill()\n    \
                 child.wait()\n\
             t = threading.Thread(target=spin)\n\
             sys.stdin.readline()\n\
             t.start()\n\
             sys.stdin.readline()\n\
             done.set()\n\
             t.join()\n"
        );
        let Ok(mut leader) =
            Command::new("python3").args(["-c", &script]).stdin(Stdio::piped()).spawn()
        else {
            return; // No Python on this machine: nothing to run the threads.
        };
        let pid = leader.id() as i32;
        let clock = CpuClock::tree(pid, 0);
        let before = clock.read().expect("the leader runs");
        let mut input = leader.stdin.take().expect("a pipe");
        input.write_all(b"go\n").expect("written");
        let during = read_until(&clock, before + Duration::from_millis(300));
        input.write_all(b"stop\n").expect("written");
        drop(input);
        leader.wait().expect("reaped");
        assert!(during >= before + Duration::from_millis(300), "{before:?} then {during:?}");
    }
}
