//! Skynet benchmarks: full Episode-2 matches on generated 500-node maps (`solver` against
//! `cg-ep2` through the referee, real time limits), and the exact solver on the shipped maps.
//!
//! `cargo bench --bench skynet` (set `SKYNET_BENCH_MATCHES` to change the number of matches).

use std::sync::Arc;
use std::time::{Duration, Instant};

use arena::bot::{Bot, TimeLimits};
use arena::games::skynet::agent::TieBreak;
use arena::games::skynet::bots::{CgAgent, SolverVirus};
use arena::games::skynet::generator::{GenParams, generate};
use arena::games::skynet::map::parse_map;
use arena::games::skynet::solver::{Verdict, solve_ep2};
use arena::games::skynet::{Episode, Skynet};
use arena::referee::play_match;

fn matches_on_generated_maps(count: u64) {
    let params =
        GenParams { episode: Episode::Ep2, nodes: 500, gateways: GenParams::default_gateways(500) };
    let limits = vec![TimeLimits::new(1000, 150); 2];
    let (mut actions, mut virus_turns, mut wins, mut timeouts) = (0usize, 0usize, 0, 0);
    let (mut solver_time, mut agent_time) = (Duration::ZERO, Duration::ZERO);
    let mut worst_turn = [0u64; 2];
    let started = Instant::now();
    for seed in 1..=count {
        let map = Arc::new(generate(params, seed));
        let game = Skynet::new(map, Episode::Ep2);
        let mut bots: Vec<Box<dyn Bot<Skynet>>> = vec![
            Box::new(SolverVirus::new(TieBreak::Last)),
            Box::new(CgAgent::new(Episode::Ep2, TieBreak::Last)),
        ];
        let result = play_match(game, &mut bots, &limits, seed);
        actions += result.steps.len();
        virus_turns += result.steps.iter().filter(|s| s.seat == 0).count();
        for step in &result.steps {
            let t = Duration::from_micros(step.micros);
            if step.seat == 0 { solver_time += t } else { agent_time += t }
        }
        for (worst, &micros) in worst_turn.iter_mut().zip(&result.max_turn_micros) {
            *worst = (*worst).max(micros);
        }
        wins += usize::from(result.outcome.winner() == Some(0));
        timeouts += usize::from(result.culprit.is_some());
        if result.outcome.winner() != Some(0) {
            println!(
                "  seed {seed}: {} ({}{})",
                result.outcome.reason,
                result.termination,
                result.detail.map(|d| format!(": {d}")).unwrap_or_default()
            );
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!("ep2, generated 500-node maps (20 gateways), solver vs cg-ep2, {count} matches:");
    println!("  virus wins {wins}/{count}, bot failures {timeouts}");
    println!(
        "  {actions} actions ({virus_turns} turns) in {secs:.2} s: {:.0} turns/s, {:.0} actions/s",
        virus_turns as f64 / secs,
        actions as f64 / secs
    );
    println!(
        "  time in solver {:.2} s, in cg-ep2 {:.2} s; slowest decision: solver {:.1} ms, cg-ep2 {:.1} ms",
        solver_time.as_secs_f64(),
        agent_time.as_secs_f64(),
        worst_turn[0] as f64 / 1000.0,
        worst_turn[1] as f64 / 1000.0
    );
}

fn exact_solver_on_shipped_maps() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/maps/skynet");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the maps")
        .map(|e| e.expect("an entry").path())
        .filter(|path| path.is_file()) // `separating/` is a folder of its own
        .collect();
    paths.sort();
    println!("exact Episode-2 solver on the shipped maps (mean of 200 solves each):");
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("a map");
        let map = parse_map(&name, &text, Episode::Ep2).expect("a valid map").map;
        let started = Instant::now();
        let mut solution = solve_ep2(&map);
        for _ in 1..200 {
            solution = solve_ep2(&map);
        }
        let micros = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        let verdict = match solution.verdict {
            Verdict::VirusWins(Some(id)) => {
                let (a, b) = map.links[id as usize];
                format!("virus wins, cut {a} {b}")
            }
            Verdict::VirusWins(None) => "virus has won".to_string(),
            Verdict::AgentWins => "agent wins".to_string(),
        };
        println!("  {name:<40} {micros:>9.1} us  {:>5} positions  {verdict}", solution.positions);
    }
}

fn main() {
    let count =
        std::env::var("SKYNET_BENCH_MATCHES").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    exact_solver_on_shipped_maps();
    matches_on_generated_maps(count);
}
