//! Painters' Duel solver benchmark: Test Set 2 in total, random open boards of side 7 and 8
//! (median and worst of 10), 9 and 10 (of 5), 11 and 12 (of 10, with the range proved when not
//! solved).
//!
//! `cargo bench --bench painters` (env `PAINTERS_MAX_S`, default 9: the largest side tried;
//! `PAINTERS_MIN_S`, default 7: the smallest; `PAINTERS_CAP_S`, default 60: seconds of CPU
//! allowed per board beyond side 8; `PAINTERS_TABLE_BITS`: the tables' largest size as a power
//! of two, default `BoardSolver::bits_for`; `PAINTERS_SEEDS`, e.g. `11-20`: other seeds than the
//! default ones, to check a figure on boards it was not tuned on; `PAINTERS_PROFILE=1`: where
//! each board's nodes go, see [`Profile`]; `PAINTERS_BEST_MOVE=1`: the boards are answered by
//! `best_move`, a move and its value, as the `perfect` bot asks on its first turn).

use std::time::{Duration, Instant};

use arena::budget::{Budget, Clock};
use arena::games::painters::generator::random_board;
use arena::games::painters::map::{Rooms, bit, parse_kickstart};
use arena::games::painters::{BoardSolver, Profile, solve_cases};

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
    let min_s = env("PAINTERS_MIN_S", 7) as u32;
    let cap = Duration::from_secs(env("PAINTERS_CAP_S", 60));
    let seeds = std::env::var("PAINTERS_SEEDS").ok().map(|range| {
        let (first, last) = range.split_once('-').expect("PAINTERS_SEEDS: FIRST-LAST");
        let parse = |s: &str| s.parse::<u64>().expect("PAINTERS_SEEDS: numbers");
        parse(first)..=parse(last)
    });
    for size in min_s..=max_s {
        open_boards(size, cap, seeds.clone());
    }
}

/// One board's figures: CPU time (the machine may be shared), wall time, nodes.
struct Run {
    cpu: Duration,
    wall: Duration,
    nodes: u64,
    path_nodes: u64,
}

/// Random open boards of one side: each board's value, time and nodes, then median and worst.
/// Up to side 10 the exact `value` search runs (unlimited up to side 8, else `cap` of CPU
/// time); from side 11 `value_range`, whose null-window searches say how far they got when the
/// cap stops them.
fn open_boards(size: u32, cap: Duration, seeds: Option<std::ops::RangeInclusive<u64>>) {
    let count = match size {
        9 | 10 => 5,
        _ => 10,
    };
    let mut runs = Vec::new();
    let mut unsolved = 0;
    for seed in seeds.unwrap_or(1..=count) {
        let board = random_board(size, 0.0, seed);
        let bits = env("PAINTERS_TABLE_BITS", u64::from(BoardSolver::bits_for(size))) as u32;
        let mut solver = BoardSolver::new(size, bits);
        if env("PAINTERS_PROFILE", 0) != 0 {
            solver.start_profile();
        }
        let [a, b] = board.starts;
        let open = board.geometry.all & !bit::<Rooms>(a) & !bit::<Rooms>(b);
        let budget =
            if size > 8 { Budget::with_clock(Clock::ThreadCpu, cap) } else { Budget::unlimited() };
        let (started, cpu_started) = (Instant::now(), cpu());
        let (lower, upper) = if env("PAINTERS_BEST_MOVE", 0) != 0 {
            // What the `perfect` bot asks on its first turn: a move and its value.
            solver.best_move(open, a, b, budget).map_or((i32::MIN, i32::MAX), |(_, v)| (v, v))
        } else if size <= 10 {
            solver.value(open, a, b, budget).map_or((i32::MIN, i32::MAX), |v| (v, v))
        } else {
            solver.value_range(open, a, b, budget)
        };
        let run = Run {
            cpu: cpu() - cpu_started,
            wall: started.elapsed(),
            nodes: solver.stats().nodes,
            path_nodes: solver.stats().path_nodes,
        };
        let figures = format!(
            "{:>9.2} ms CPU, {:>9.2} ms wall ({} nodes, {} path nodes)",
            ms(run.cpu),
            ms(run.wall),
            run.nodes,
            run.path_nodes
        );
        if let Some(profile) = solver.profile() {
            print_profile(profile);
        }
        if lower == upper {
            println!("  S={size} seed {seed}: value {lower:>3} in {figures}");
            runs.push(run);
        } else {
            unsolved += 1;
            let range = if lower == i32::MIN {
                String::new()
            } else {
                format!(", value proved in {lower}..={upper}")
            };
            println!(
                "  S={size} seed {seed}: not solved within {} s CPU{range}: {figures}",
                cap.as_secs()
            );
        }
    }
    if runs.is_empty() {
        println!("S={size}: no board solved within {} s CPU each", cap.as_secs());
        return;
    }
    let median_worst = |key: &dyn Fn(&Run) -> Duration| {
        let mut v: Vec<Duration> = runs.iter().map(key).collect();
        v.sort();
        (ms(v[v.len() / 2]), ms(v[v.len() - 1]))
    };
    let (cpu_median, cpu_worst) = median_worst(&|r| r.cpu);
    let (wall_median, wall_worst) = median_worst(&|r| r.wall);
    let mut nodes: Vec<u64> = runs.iter().map(|r| r.nodes + r.path_nodes).collect();
    nodes.sort();
    println!(
        "S={size} open boards: CPU median {cpu_median:.2} ms, worst {cpu_worst:.2} ms; wall median {wall_median:.2} ms, worst {wall_worst:.2} ms; nodes (game + path) median {}, worst {} ({} solved, {unsolved} over the cap)",
        nodes[nodes.len() / 2],
        nodes[nodes.len() - 1],
        runs.len()
    );
}

/// Where one board's nodes went: per null-window pass, by region size and by the painters'
/// distance, how positions were settled without a search, and the move ordering's quality.
fn print_profile(p: &Profile) {
    for &(guess, answer, nodes, path_nodes) in &p.passes {
        println!(
            "    pass: is the value above {guess}? answer {answer}: {nodes} nodes, {path_nodes} path nodes"
        );
    }
    let searched: u64 = p.by_region.iter().sum();
    let share = |n: u64| 100.0 * n as f64 / searched.max(1) as f64;
    let row = |counts: &[u64]| {
        counts.iter().map(|&n| format!("{:.0}", share(n))).collect::<Vec<_>>().join(" ")
    };
    println!(
        "    searched nodes {searched}, % by rooms in the shared region (0-7, 8-15, ...): {}",
        row(&p.by_region)
    );
    println!("    % by the painters' distance (0, 1, ..., 14, 15+): {}", row(&p.by_distance));
    println!(
        "    settled without a search: apart {}, mover's bound {}, other's bound {}, table {}, territory {}",
        p.settled[0], p.settled[1], p.settled[2], p.settled[3], p.settled[4]
    );
    println!(
        "    cut-offs by the first move {}, by a later one {}; all moves searched, none above alpha: {}",
        p.first_move_cutoffs, p.later_cutoffs, p.all_moves_searched
    );
}
