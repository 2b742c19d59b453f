//! The CPU time all of a bot's processes have used: what a limit on the bot's own work (rather
//! than on the wall clock of a loaded machine) measures.
//!
//! With a `cpuacct` cgroup (the sandbox, as root on cgroup v1) the kernel counts it exactly, for
//! every process that ever ran in the cgroup, and one `pread` of `cpuacct.usage` (about a
//! microsecond) reads it. Without one, the process tree under the bot's leader is walked through
//! `/proc` (tens of microseconds): each process's own CPU clock (all its threads, live and
//! exited, in nanoseconds) plus the CPU time of the children it has reaped (`cutime` and
//! `cstime`, in clock ticks). In the sandbox that tree is complete: every orphan of the bot is
//! re-parented to the init of its PID namespace, which reaps it, so its time lands in the init's
//! `cutime`. Without the sandbox, an orphan re-parented to arena leaves the tree, and its time
//! with it.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Duration;

/// Where a bot's CPU time is read.
pub(in crate::bot::external) enum CpuClock {
    /// `cpuacct.usage` of the bot's cgroup, in nanoseconds.
    Cgroup(File),
    /// The process tree under this pid.
    Tree(i32),
}

impl CpuClock {
    /// A clock over the process tree under `leader`.
    pub(in crate::bot::external) fn tree(leader: i32) -> CpuClock {
        CpuClock::Tree(leader)
    }

    /// The CPU time used so far, or `None` once it cannot be read (the tree is gone).
    pub(in crate::bot::external) fn read(&self) -> Option<Duration> {
        match self {
            CpuClock::Cgroup(usage) => read_counter(usage).map(Duration::from_nanos),
            CpuClock::Tree(leader) => tree_time(*leader),
        }
    }
}

/// Reads a cgroup's counter file of a few digits (`cpuacct.usage`) at offset 0, without
/// reopening it.
pub(super) fn read_counter(file: &File) -> Option<u64> {
    let mut buf = [0u8; 32];
    let n = file.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()
}

/// The CPU time of the tree under `leader`: `None` if the leader is gone.
fn tree_time(leader: i32) -> Option<Duration> {
    let tick = ticks_per_second();
    let mut total = Duration::ZERO;
    let mut pending = vec![leader];
    let mut first = true;
    while let Some(pid) = pending.pop() {
        let Some(own) = process_clock(pid) else {
            if first {
                return None;
            }
            continue;
        };
        first = false;
        total += own;
        if let Some(reaped) = reaped_children_ticks(pid) {
            total += Duration::from_secs_f64(reaped as f64 / tick);
        }
        children(pid, &mut pending);
    }
    Some(total)
}

/// The CPU clock of process `pid`: all its threads, live and exited.
fn process_clock(pid: i32) -> Option<Duration> {
    let mut clock: libc::clockid_t = 0;
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: out-parameters of the right types.
    #[allow(unsafe_code)]
    unsafe {
        if libc::clock_getcpuclockid(pid, &mut clock) != 0
            || libc::clock_gettime(clock, &mut now) != 0
        {
            return None;
        }
    }
    Some(Duration::new(u64::try_from(now.tv_sec).ok()?, u32::try_from(now.tv_nsec).ok()?))
}

/// `cutime + cstime` of `/proc/<pid>/stat`: the children it waited for.
fn reaped_children_ticks(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: comm may hold anything, the fields after its `)` do not.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After comm: state is field 3 of the line, so cutime (16) and cstime (17) are at 13 and 14.
    let cutime: u64 = fields.get(13)?.parse().ok()?;
    let cstime: u64 = fields.get(14)?.parse().ok()?;
    Some(cutime + cstime)
}

/// Appends the children of every thread of `pid`.
fn children(pid: i32, out: &mut Vec<i32>) {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return };
    for task in tasks.flatten() {
        let Ok(list) = std::fs::read_to_string(task.path().join("children")) else { continue };
        out.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
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
    use std::process::Command;

    use super::*;

    #[test]
    fn a_tree_clock_counts_a_child_that_burned_cpu_and_was_reaped() {
        // The leader forks a child that burns 0.3 s of CPU and is reaped; then the leader waits.
        let mut leader = Command::new("sh")
            .args(["-c", "sh -c 'i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done'; read x"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let pid = leader.id() as i32;
        let clock = CpuClock::tree(pid);
        let started = std::time::Instant::now();
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
}
