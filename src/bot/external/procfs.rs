//! What `/proc` says about a bot's processes as a whole, read at the end of its match: its
//! memory peak, which `arena check` compares with the limits.

/// The processes under `leader` (it included), as `/proc/<pid>/task/<tid>/children` link them,
/// each with its generation (the leader's is 0); at most 4096, a bound for a fork bomb's tree.
/// The first `arenas_own` generations are the sandbox's relay and init, arena's code with one
/// thread each: only their main thread's children are read, not their `task` folder (two
/// folder reads of `/proc` fewer at every bot's end).
pub(super) fn tree(leader: i32, arenas_own: usize) -> Vec<(i32, usize)> {
    let mut found = Vec::new();
    let mut pending = vec![(leader, 0)];
    let push_children = |list: &str, generation: usize, pending: &mut Vec<(i32, usize)>| {
        let children = list.split_whitespace().filter_map(|p| p.parse::<i32>().ok());
        pending.extend(children.map(|child| (child, generation + 1)));
    };
    while let Some((pid, generation)) = pending.pop() {
        if found.len() >= 4096 {
            break;
        }
        found.push((pid, generation));
        if generation < arenas_own {
            let children = format!("/proc/{pid}/task/{pid}/children");
            if let Ok(list) = std::fs::read_to_string(children) {
                push_children(&list, generation, &mut pending);
            }
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(list) = std::fs::read_to_string(task.path().join("children")) else { continue };
            push_children(&list, generation, &mut pending);
        }
    }
    found
}

/// The sum of the peak resident memory (`VmHWM`) of the live processes under `leader`, in KiB,
/// leaving out the first `arenas_own` generations (the sandbox's relay and init, copies of
/// arena, not the bot); `None` when none could be read.
pub(super) fn memory_peak_kib(leader: i32, arenas_own: usize) -> Option<u64> {
    let mut total = None;
    for (pid, generation) in tree(leader, arenas_own) {
        if generation < arenas_own {
            continue;
        }
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
        let peak = memory_peak_kib(child.id() as i32, 0);
        // Its first generation left out (as a sandboxed bot's relay and init are): nothing
        // else holds memory.
        let without_leader = memory_peak_kib(child.id() as i32, 1);
        drop(child.stdin.take());
        child.wait().unwrap();
        assert!(peak.is_some_and(|kib| kib >= 19_000), "{peak:?}");
        assert_eq!(without_leader, None, "the shell has no child left");
        assert_eq!(memory_peak_kib(child.id() as i32, 0), None, "gone");
    }
}
