//! Painters' Duel solver benchmark: Test Set 2 in total, random open boards of side 7 and 8
//! (median and worst of 10), and the largest sides solved.
//!
//! `cargo bench --bench painters` (env `PAINTERS_MAX_S`, default 9: the largest side tried;
//! `PAINTERS_CAP_S`, default 60: seconds allowed per board beyond side 8).

use std::time::{Duration, Instant};

use arena::budget::Budget;
use arena::games::painters::board::{parse_kickstart, random_board};
use arena::games::painters::{Solver, solve_cases};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// This thread's CPU time: on a shared machine, wall time counts the other processes too.
fn cpu() -> Duration {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("clock_gettime");
    Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let input = std::fs::read_to_string(format!("{root}/tests/data/painters/test_set_2.in"))
        .expect("test set 2");
    let answers = std::fs::read_to_string(format!("{root}/tests/data/painters/test_set_2.ans"))
        .expect("its answers");
    let boards = parse_kickstart("test_set_2.in", &input).expect("a valid input");
    let mut runs = Vec::new();
    let mut cpu_runs = Vec::new();
    for _ in 0..11 {
        let mut out = String::new();
        let (started, cpu_started) = (Instant::now(), cpu());
        solve_cases(&boards, |case, _, value, _, _| {
            out.push_str(&format!("Case #{case}: {value}\n"));
        });
        runs.push(started.elapsed());
        cpu_runs.push(cpu() - cpu_started);
        assert_eq!(out, answers, "Test Set 2 answers differ");
    }
    runs.sort();
    cpu_runs.sort();
    println!(
        "Test Set 2 ({} cases, answers checked), {} runs: wall median {:.2} ms (best {:.2}, worst {:.2}); CPU median {:.2} ms (best {:.2})",
        boards.len(),
        runs.len(),
        ms(runs[runs.len() / 2]),
        ms(runs[0]),
        ms(runs[runs.len() - 1]),
        ms(cpu_runs[cpu_runs.len() / 2]),
        ms(cpu_runs[0]),
    );

    let max_s = env("PAINTERS_MAX_S", 9) as u32;
    let cap = Duration::from_secs(env("PAINTERS_CAP_S", 60));
    for size in 7..=max_s {
        let count = if size <= 8 { 10 } else { 3 };
        let mut times = Vec::new();
        let mut cpu_times = Vec::new();
        let mut unsolved = 0;
        for seed in 1..=count {
            let board = random_board(size, 0.0, seed);
            let mut solver = Solver::new(board.geometry.clone(), Solver::bits_for(size));
            let [a, b] = board.starts;
            let open = board.geometry.all & !(1u128 << a) & !(1u128 << b);
            let (started, cpu_started) = (Instant::now(), cpu());
            let budget = if size > 8 { Budget::new(cap) } else { Budget::unlimited() };
            let value = solver.value(open, a, b, budget);
            let t = started.elapsed();
            let cpu_t = cpu() - cpu_started;
            match value {
                Some(v) => {
                    times.push(t);
                    cpu_times.push(cpu_t);
                    println!(
                        "  S={size} seed {seed}: value {v:>3} in {:>9.2} ms wall, {:>9.2} ms CPU ({} nodes, {} path nodes)",
                        ms(t),
                        ms(cpu_t),
                        solver.stats.nodes,
                        solver.stats.path_nodes
                    );
                }
                None => {
                    unsolved += 1;
                    println!("  S={size} seed {seed}: not solved within {} s", cap.as_secs());
                }
            }
        }
        times.sort();
        cpu_times.sort();
        if times.is_empty() {
            println!("S={size}: no board solved within {} s each", cap.as_secs());
            break;
        }
        println!(
            "S={size} open boards: wall median {:.2} ms, worst {:.2} ms; CPU median {:.2} ms, worst {:.2} ms ({} solved, {unsolved} over the cap)",
            ms(times[times.len() / 2]),
            ms(times[times.len() - 1]),
            ms(cpu_times[cpu_times.len() / 2]),
            ms(cpu_times[cpu_times.len() - 1]),
            times.len()
        );
    }
}
