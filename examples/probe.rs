use std::time::{Duration, Instant};
use arena::budget::Budget;
use arena::games::skynet::exact::{ExactSolver, Verdict};
use arena::games::skynet::map::parse_map;
use arena::games::skynet::Episode;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ms: u64 = args[1].parse().unwrap();
    for path in &args[2..] {
        let text = std::fs::read_to_string(path).unwrap();
        let map = parse_map(path, &text, Episode::Ep2).unwrap().map;
        let started = Instant::now();
        let mut s = ExactSolver::new(&map).with_budget(Budget::new(Duration::from_millis(ms)));
        let mut cut = vec![false; map.links.len()];
        let r = s.virus_to_move(&mut cut, map.agent_start);
        let v = match r { Ok(Verdict::AgentWins) => "agent".to_string(), Ok(Verdict::VirusWins(c)) => format!("virus {c:?}"), Err(_) => "unknown".into() };
        println!("{path}: {v} {} positions {:.1} ms", s.positions, started.elapsed().as_secs_f64()*1e3);
    }
}
