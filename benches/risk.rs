//! Risk benchmark: full games of random bots on the classic map (games per second, turns and
//! actions per game) and the homework's path algorithms (calls per second).
//!
//! Run with `cargo bench --bench risk`; the figures are in docs/risk.md.

use std::hint::black_box;
use std::time::Instant;

use arena::game::{Game, Status};
use arena::games::risk::map;
use arena::games::risk::{Board, Options, Risk};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn games(players: usize, count: u64) {
    let map = map::builtin("classic").expect("the classic map").into_arc();
    let (mut actions, mut turns, mut capped) = (0u64, 0u64, 0u64);
    let started = Instant::now();
    for seed in 0..count {
        let opts = Options { players, ..Options::default() };
        let mut g = Risk::new(map.clone(), opts, seed).expect("a valid setup");
        // Each seat's uniformly random decisions, from its own RNG (the `random` bot's draw).
        let mut bots: Vec<ChaCha8Rng> =
            (0..players).map(|s| ChaCha8Rng::seed_from_u64(seed * 10 + s as u64)).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut last = (g.round, g.current);
        loop {
            match g.status() {
                Status::Over(o) => {
                    capped += u64::from(o.reason.contains("cap"));
                    break;
                }
                Status::ToAct(seat) => {
                    let action = Risk::random_action_of(&g.view(seat), &mut bots[seat])
                        .expect("a seat to act has a legal action");
                    g.play(seat, &action, &mut rng).expect("random bots play legal actions");
                    actions += 1;
                    if g.round > 0 && (g.round, g.current) != last {
                        turns += 1;
                        last = (g.round, g.current);
                    }
                }
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "random games, {players} players, classic map, cap {} rounds: {count} games in {secs:.2} s = {:.1} games/s; {:.0} turns and {:.0} actions per game; {capped} of {count} reached the cap",
        Options::default().max_rounds,
        count as f64 / secs,
        turns as f64 / count as f64,
        actions as f64 / count as f64,
    );
}

fn paths() {
    let map = map::builtin("classic").expect("the classic map");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let boards: Vec<(Vec<u32>, Vec<u32>)> = (0..64)
        .map(|_| {
            let owner = (0..42).map(|_| rng.random_range(0..4u32)).collect();
            let armies = (0..42).map(|_| rng.random_range(1..20u32)).collect();
            (owner, armies)
        })
        .collect();
    let queries: Vec<(usize, usize, usize)> = (0..4096)
        .map(|_| (rng.random_range(0..64), rng.random_range(0..42), rng.random_range(0..42)))
        .collect();
    let rounds = 50;
    type Query = fn(&Board<'_>, usize, usize) -> usize;
    let cases: [(&str, Query); 4] = [
        ("shortest_path (BFS)", |b, s, t| b.shortest_path(s, t).map_or(0, |p| p.len())),
        ("cheapest_attack_path (Dijkstra)", |b, s, t| {
            b.cheapest_attack_path(s, t).map_or(0, |p| p.len())
        }),
        ("can_fortify", |b, s, t| usize::from(b.can_fortify(s, t))),
        ("can_attack", |b, s, t| usize::from(b.can_attack(s, t))),
    ];
    for (name, f) in cases {
        let started = Instant::now();
        let mut sink = 0usize;
        for _ in 0..rounds {
            for &(b, s, t) in &queries {
                let board = Board::new(&map, &boards[b].0, &boards[b].1);
                sink += f(&board, s, t);
            }
        }
        black_box(sink);
        let calls = (rounds * queries.len()) as f64;
        let secs = started.elapsed().as_secs_f64();
        println!("{name}: {:.2} M calls/s ({calls} calls in {secs:.2} s)", calls / secs / 1e6);
    }
}

fn main() {
    games(2, 200);
    games(4, 200);
    games(6, 100);
    paths();
}
