//! What `/proc` says about a bot's processes as a whole, read at the end of its match: its
//! memory peak, which `arena check` compares with the limits.

/// The sum of the peak resident memory (`VmHWM`) of the live processes `pids` (a bot's own, not
/// the sandbox's relay and init: [`super::bot_processes`]), in KiB; `None` when none could be
/// read.
pub(super) fn memory_peak_kib(pids: &[i32]) -> Option<u64> {
    let mut total = None;
    for pid in pids {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let peak = status.lines().find_map(|l| l.strip_prefix("VmHWM:"));
        if let Some(kib) =
            peak.and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            *total.get_or_insert(0) += kib;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::external::sandbox::CpuClock;

    #[test]
    fn a_process_that_touched_memory_has_at_least_that_peak() {
        // A shell that holds 20 MB in a variable, then waits.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "x=$(head -c 20000000 /dev/zero | tr '\\0' a); echo ready; read end"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let mut line = String::new();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        let pid = child.id() as i32;
        let peak = memory_peak_kib(&CpuClock::tree(pid, 0).processes().unwrap());
        // Its first generation left out (as a sandboxed bot's relay and init are): nothing
        // else holds memory.
        let without_leader = CpuClock::tree(pid, 1).processes().unwrap();
        drop(child.stdin.take());
        child.wait().unwrap();
        assert!(peak.is_some_and(|kib| kib >= 19_000), "{peak:?}");
        assert_eq!(without_leader, Vec::<i32>::new(), "the shell has no child left");
        assert_eq!(memory_peak_kib(&[pid]), None, "gone");
    }
}
