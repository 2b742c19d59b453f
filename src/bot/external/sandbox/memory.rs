//! The memory all of a bot's processes hold, for its `memory_mb` limit. With a `memory` cgroup
//! (the sandbox, as root on cgroup v1) the kernel caps it, and its OOM killer picks among the
//! bot's processes only; arena then learns from the cgroup that it did. Without one (an ordinary
//! user's arena), arena sums what the bot's processes hold (resident and swapped, from
//! `/proc/PID/status`) after each of its turns: the limit is then checked, not enforced, and a
//! bot can go past it within a turn (each process is still bound by `address_space_mb`).

/// The bytes held by the processes `pids`, resident and swapped (a bot's own, not the sandbox's
/// relay and init, whose resident memory is theirs: `crate::bot::external::bot_processes`).
pub(in crate::bot::external) fn tree_memory(pids: &[i32]) -> u64 {
    pids.iter().map(|&pid| process_memory(pid)).sum()
}

/// `VmRSS + VmSwap` of process `pid`, in bytes (0 once it is gone).
fn process_memory(pid: i32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return 0 };
    let kib = |key: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (kib("VmRSS:") + kib("VmSwap:")) * 1024
}

#[cfg(test)]
mod tests {
    use super::super::CpuClock;
    use super::*;

    #[test]
    fn the_memory_of_a_tree_counts_a_child_that_holds_memory() {
        // The leader's child holds a 64 MiB string; the sum counts it. (`; true`: the shell
        // forks it rather than becoming it.)
        let mut leader = std::process::Command::new("sh")
            .args([
                "-c",
                "python3 -c 'x = \"a\" * (64 << 20); print(1, flush=True); input()'; true",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let mut ready = [0u8; 2];
        std::io::Read::read_exact(leader.stdout.as_mut().unwrap(), &mut ready).unwrap();
        let pid = leader.id() as i32;
        let of = |arenas_own| tree_memory(&CpuClock::tree(pid, arenas_own).processes().unwrap());
        let held = of(0);
        // Without the leader's generation (as a relay's is left out): the child alone.
        let child = of(1);
        let beyond = of(2);
        drop(leader.stdin.take());
        leader.wait().unwrap();
        assert!(held >= 64 << 20, "{held}");
        assert!(child >= 64 << 20 && child < held, "{child} of {held}");
        assert_eq!(beyond, 0, "no third generation");
        assert_eq!(of(0), 0, "the tree is gone");
    }
}
