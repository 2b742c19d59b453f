//! The Skynet Episode 2 exact solver at CodinGame's limits: the dense-gateway family (`arena gen
//! skynet --nodes N --gateways E --gateway-links K --doubles D`), N 100 to 500, E 10 to 20, up to
//! 61 nodes linked to two gateways. Each map gets a budget of CPU time (the machine may be
//! shared); the report says how many were decided within 1 s, within the budget, and not at all
//! (`unknown`, with the positions searched), with each map's CPU and wall time.
//!
//! `cargo bench --bench skynet_dense` (`SKYNET_DENSE_SEEDS`: maps per setting, default 2;
//! `SKYNET_DENSE_FIRST_SEED`: the first seed, default 1, so that other seeds check the figures;
//! `SKYNET_DENSE_LIMIT_S`: the budget per map in seconds of CPU, default 10;
//! `SKYNET_DENSE_SETTING=N/E/K/D`: only that setting; `SKYNET_DENSE_SEED_LIST=S,S,...`: only
//! those seeds, instead of the range, to rerun the slow maps a wide run found;
//! `SKYNET_DENSE_STATS=1`: how the search settled its positions, after each map).

use std::time::{Duration, Instant};

use arena::budget::{Budget, Clock};
use arena::games::skynet::Episode;
use arena::games::skynet::generator::{DenseGateways, GenParams, generate_dense};
use arena::games::skynet::solver::{ExactSolver, Verdict};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// This thread's CPU time: on a shared machine, wall time counts the other processes too.
fn cpu() -> Duration {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("clock_gettime");
    Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32)
}

fn main() {
    let seeds = env("SKYNET_DENSE_SEEDS", 2);
    let first_seed = env("SKYNET_DENSE_FIRST_SEED", 1);
    let limit = Duration::from_secs(env("SKYNET_DENSE_LIMIT_S", 10));
    let setting = std::env::var("SKYNET_DENSE_SETTING").ok();
    let seed_list: Option<Vec<u64>> = std::env::var("SKYNET_DENSE_SEED_LIST").ok().map(|v| {
        v.split(',')
            .map(|s| s.trim().parse().expect("SKYNET_DENSE_SEED_LIST: seeds, comma-separated"))
            .collect()
    });
    let show_stats = env("SKYNET_DENSE_STATS", 0) == 1;
    let seed_range: Vec<u64> = (first_seed..first_seed + seeds).collect();
    // (nodes, gateways, gateway links, doubles): the two hard maps are (500, 20, 200,
    // 36) and (500, 20, 300, 61); the rest spread the family over its range.
    let family: &[(usize, usize, usize, usize)] = &[
        (100, 10, 40, 10),
        (100, 10, 60, 20),
        (200, 15, 80, 20),
        (200, 15, 120, 40),
        (300, 20, 120, 30),
        (300, 20, 200, 60),
        (500, 20, 200, 36),
        (500, 20, 300, 61),
    ];
    let (mut within_1s, mut within_limit, mut undecided, mut total) = (0, 0, 0, 0);
    let mut slowest = Duration::ZERO;
    println!(
        "skynet ep2 exact solver, dense-gateway family, budget {} s of CPU per map:",
        limit.as_secs()
    );
    for &(nodes, gateways, gateway_links, doubles) in family {
        let name = format!("{nodes}/{gateways}/{gateway_links}/{doubles}");
        if setting.as_ref().is_some_and(|s| *s != name) {
            continue;
        }
        for &seed in seed_list.as_ref().unwrap_or(&seed_range) {
            let params = GenParams { episode: Episode::Ep2, nodes, gateways };
            let dense = DenseGateways { gateway_links, doubles: Some(doubles) };
            let map = generate_dense(params, dense, seed);
            let (started, cpu_started) = (Instant::now(), cpu());
            let budget = Budget::with_clock(Clock::ThreadCpu, limit);
            let mut solver = ExactSolver::new(&map).with_budget(budget);
            let mut cut = vec![false; map.links.len()];
            let verdict = solver.virus_to_move(&mut cut, map.agent_start);
            let (secs, wall) = ((cpu() - cpu_started), started.elapsed().as_secs_f64());
            total += 1;
            let answer = match verdict {
                Ok(v) => {
                    slowest = slowest.max(secs);
                    if secs < Duration::from_secs(1) {
                        within_1s += 1;
                    } else {
                        within_limit += 1;
                    }
                    match v {
                        Verdict::VirusWins(_) => "virus wins",
                        Verdict::AgentWins => "agent wins",
                    }
                }
                Err(_) => {
                    undecided += 1;
                    "unknown"
                }
            };
            println!(
                "  n{nodes} g{gateways} k{gateway_links} d{doubles} seed {seed}: {answer} in \
                 {:.3} s CPU ({wall:.3} s wall), {} positions",
                secs.as_secs_f64(),
                solver.positions
            );
            if show_stats {
                println!("    {:?}", solver.stats);
            }
        }
    }
    println!(
        "{total} maps: {within_1s} decided within 1 s of CPU, {within_limit} more within {} s, \
         {undecided} not decided; the slowest decided took {:.3} s",
        limit.as_secs(),
        slowest.as_secs_f64()
    );
}
