//! Built-in Greedy Spiders bots: the paper's greedy spiders, seeded random players, the
//! `emergency` defender, and the exact-search players built on [`super::solver`].
//!
//! The greedy rule is a pure function ([`greedy_round`]) so the solver can play against it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::map::{Cuts, SpiderMap, fly_distances};
use super::paths::PathsDefender;
use super::rules::{DEFENDER, SpiderAction, SpidersGame, SpidersView};
use super::solver::{Policy, Solver};
use crate::bot::{Bot, BotFailure, TurnContext};

/// The step the paper's greedy spider `i` takes, or `None` to stay.
///
/// A spider sees along the remaining edges, but not through a vertex held by another spider
/// (on a path it sees the nearest entity on each side, as in the paper's "spider's vision").
/// It heads for the nearest fly it sees, stepping to the smallest-numbered neighbour that starts a
/// shortest path to one; on a path numbered left to right a spider halfway between two flies so
/// goes left. A spider that sees no fly stays (the paper's "X" spiders), unless it must move.
pub fn greedy_step(map: &SpiderMap, cut: &impl Cuts, spiders: &[u32], i: usize) -> Option<u32> {
    Scratch::new(map, spiders).step(map, cut, spiders[i])
}

/// Buffers shared by the spiders of one round, so a round costs the vertices the spiders look
/// at, not one whole-graph allocation per spider.
struct Scratch {
    dist: Vec<u32>,
    good: Vec<bool>,
    /// Spiders on each vertex.
    occupied: Vec<u32>,
    order: Vec<u32>,
    queue: VecDeque<u32>,
}

impl Scratch {
    fn new(map: &SpiderMap, spiders: &[u32]) -> Scratch {
        let mut occupied = vec![0; map.nodes];
        for &s in spiders {
            occupied[s as usize] += 1;
        }
        Scratch {
            dist: vec![u32::MAX; map.nodes],
            good: vec![false; map.nodes],
            occupied,
            order: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    fn step(&mut self, map: &SpiderMap, cut: &impl Cuts, s: u32) -> Option<u32> {
        let answer = self.search(map, cut, s);
        // Leave the buffers clean for the next spider.
        for &v in self.order.iter().chain(self.queue.iter()) {
            self.dist[v as usize] = u32::MAX;
            self.good[v as usize] = false;
        }
        self.order.clear();
        self.queue.clear();
        answer
    }

    fn search(&mut self, map: &SpiderMap, cut: &impl Cuts, s: u32) -> Option<u32> {
        let Scratch { dist, good, occupied, order, queue } = self;
        let blocked = |v: u32| v != s && occupied[v as usize] > 0;
        queue.push_back(s);
        dist[s as usize] = 0;
        let mut best = u32::MAX;
        while let Some(&v) = queue.front() {
            let d = dist[v as usize];
            if d >= best {
                // Flies at distance `best` other than the first one found wait here in the queue.
                break;
            }
            queue.pop_front();
            order.push(v);
            if map.is_fly[v as usize] {
                best = d;
                continue;
            }
            if blocked(v) {
                continue;
            }
            for &(w, e) in &map.adj[v as usize] {
                if !cut.is_cut(e) && dist[w as usize] == u32::MAX {
                    dist[w as usize] = d + 1;
                    queue.push_back(w);
                }
            }
        }
        if best == u32::MAX {
            return None;
        }
        // `good[v]`: v lies on a shortest path from s to a nearest fly.
        for &v in queue.iter().chain(order.iter()) {
            if map.is_fly[v as usize] && dist[v as usize] == best {
                good[v as usize] = true;
            }
        }
        for &v in order.iter().rev() {
            let d = dist[v as usize];
            if good[v as usize] || map.is_fly[v as usize] || blocked(v) || d >= best {
                continue;
            }
            good[v as usize] = map.adj[v as usize]
                .iter()
                .any(|&(w, e)| !cut.is_cut(e) && dist[w as usize] == d + 1 && good[w as usize]);
        }
        map.adj[s as usize]
            .iter()
            .find(|&&(w, e)| !cut.is_cut(e) && dist[w as usize] == 1 && good[w as usize])
            .map(|&(w, _)| w)
    }
}

/// The greedy spiders' whole round. With `must_move`, a spider that sees no fly but has an edge
/// steps to its smallest-numbered neighbour.
pub fn greedy_round(
    map: &SpiderMap,
    cut: &impl Cuts,
    spiders: &[u32],
    must_move: bool,
) -> Vec<(usize, u32)> {
    let mut scratch = Scratch::new(map, spiders);
    let mut moves = Vec::new();
    for (i, &s) in spiders.iter().enumerate() {
        let forced = || map.adj[s as usize].iter().find(|&&(_, e)| !cut.is_cut(e)).map(|&(w, _)| w);
        let step = scratch.step(map, cut, s).or_else(|| if must_move { forced() } else { None });
        if let Some(to) = step {
            moves.push((i, to));
        }
    }
    moves
}

/// The `emergency` defender's cut: the edge between a spider and a fly it reaches next step
/// (the lowest-numbered spider's first), else the fly end of a shortest path from the spider
/// nearest to a fly (ties: lower spider index, then smaller vertex numbers).
pub fn emergency_cut(game: &SpidersGame) -> Option<(u32, u32)> {
    let map = &game.map;
    let dist = fly_distances(map, &game.removed);
    let (_, spider) = game
        .spiders
        .iter()
        .enumerate()
        .filter(|&(_, &s)| dist[s as usize] != u32::MAX)
        .map(|(i, &s)| (dist[s as usize], i))
        .min()?;
    // Walk down the distance gradient to the fly, smallest neighbour first.
    let mut at = game.spiders[spider];
    loop {
        let d = dist[at as usize];
        let next = game.neighbours(at).find(|&w| dist[w as usize] + 1 == d)?;
        if d == 1 {
            return Some((at.min(next), at.max(next)));
        }
        at = next;
    }
}

/// A uniformly random legal action from the bot's own seeded RNG: a random remaining edge (or a
/// pass, when allowed, with the same weight as one edge); each spider stays or steps at random.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot<SpidersGame> for RandomBot {
    fn act(&mut self, view: &SpidersView, _ctx: &TurnContext) -> Result<SpiderAction, BotFailure> {
        let g = &view.game;
        if view.seat == DEFENDER {
            let edges = g.remaining_edges();
            let passes = usize::from(g.options.defender_may_pass);
            let k = self.rng.random_range(0..edges.len() + passes);
            return Ok(match edges.get(k) {
                Some(&(a, b)) => SpiderAction::Cut(a, b),
                None => SpiderAction::Pass,
            });
        }
        let mut moves = Vec::new();
        for (i, &s) in g.spiders.iter().enumerate() {
            let mut choices: Vec<Option<u32>> = g.neighbours(s).map(Some).collect();
            if !g.options.all_must_move || choices.is_empty() {
                choices.push(None);
            }
            if let Some(&Some(to)) = choices.choose(&mut self.rng) {
                moves.push((i, to));
            }
        }
        Ok(SpiderAction::Moves(moves))
    }
}

/// The paper's greedy spiders.
pub struct GreedyBot;

impl Bot<SpidersGame> for GreedyBot {
    fn act(&mut self, view: &SpidersView, _ctx: &TurnContext) -> Result<SpiderAction, BotFailure> {
        let g = &view.game;
        Ok(SpiderAction::Moves(greedy_round(
            &g.map,
            &g.removed,
            &g.spiders,
            g.options.all_must_move,
        )))
    }
}

/// Cuts the most urgent threat (see [`emergency_cut`]).
pub struct EmergencyBot;

impl Bot<SpidersGame> for EmergencyBot {
    fn act(&mut self, view: &SpidersView, _ctx: &TurnContext) -> Result<SpiderAction, BotFailure> {
        Ok(cut_or_any(&view.game, emergency_cut(&view.game)))
    }
}

/// The chosen cut, or when there is nothing to choose (the game is decided) the first edge left.
pub fn cut_or_any(game: &SpidersGame, cut: Option<(u32, u32)>) -> SpiderAction {
    match cut.or_else(|| game.remaining_edges().first().copied()) {
        Some((a, b)) => SpiderAction::Cut(a, b),
        None => SpiderAction::Pass,
    }
}

/// The `paths` defender: the paper's algorithm on path maps, `emergency` elsewhere.
pub struct PathsBot {
    defender: Option<PathsDefender>,
}

impl PathsBot {
    pub fn new(map: &SpiderMap) -> PathsBot {
        PathsBot { defender: PathsDefender::new(map) }
    }
}

impl Bot<SpidersGame> for PathsBot {
    fn act(&mut self, view: &SpidersView, _ctx: &TurnContext) -> Result<SpiderAction, BotFailure> {
        let g = &view.game;
        let cut = match &self.defender {
            Some(d) => d.choose(g).cut.map(|e| g.map.edges[e as usize]),
            None => emergency_cut(g),
        };
        Ok(cut_or_any(g, cut))
    }
}

/// Exact search for either side, with a fallback (`emergency` or `greedy`) when the graph is too
/// large for the solver or the search runs out of time. The memo is kept across turns.
pub struct SolverBot {
    solver: Option<Solver>,
}

impl SolverBot {
    pub fn new(map: &SpiderMap, options: super::rules::Options) -> SolverBot {
        SolverBot { solver: Solver::new(map, Policy::Optimal, options.all_must_move).ok() }
    }
}

/// Time kept back from the deadline for the fallback and the answer itself.
const SAFETY: Duration = Duration::from_millis(5);

impl Bot<SpidersGame> for SolverBot {
    fn act(&mut self, view: &SpidersView, ctx: &TurnContext) -> Result<SpiderAction, BotFailure> {
        let g = &view.game;
        let deadline = ctx.deadline.checked_sub(SAFETY).unwrap_or_else(Instant::now);
        if let Some(solver) = &mut self.solver {
            solver.set_deadline(Some(deadline));
            let mask = super::solver::mask_of(&g.removed);
            if view.seat == DEFENDER {
                if let Some(Some(e)) = solver.winning_cut(mask, &g.spiders) {
                    let (a, b) = g.map.edges[e as usize];
                    return Ok(SpiderAction::Cut(a, b));
                }
            } else if let Some(Some(moves)) = solver.winning_round(mask, &g.spiders) {
                return Ok(SpiderAction::Moves(moves));
            }
        }
        Ok(if view.seat == DEFENDER {
            cut_or_any(g, emergency_cut(g))
        } else {
            SpiderAction::Moves(greedy_round(
                &g.map,
                &g.removed,
                &g.spiders,
                g.options.all_must_move,
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::spiders::map::parse_map;

    fn step_all(notation: &str, cut: &[bool]) -> Vec<(usize, u32)> {
        let map = parse_map("t", notation).unwrap();
        greedy_round(&map, &cut.to_vec(), &map.spiders.clone(), false)
    }

    #[test]
    fn greedy_spiders_see_up_to_the_nearest_entity() {
        // S0 sees only the left fly (S1 blocks its view right); S1 heads right.
        assert_eq!(step_all("F B B S S B F", &[false; 6]), vec![(0, 2), (1, 5)]);
        // A spider between two flies goes to the nearer one; halfway, to the left.
        assert_eq!(step_all("F B S B B F", &[false; 5]), vec![(0, 1)]);
        assert_eq!(step_all("F B S B F", &[false; 4]), vec![(0, 1)]);
        // Cut off from the nearer fly, it turns to the other one.
        assert_eq!(step_all("F B S B B F", &[false, true, false, false, false]), vec![(0, 3)]);
        // Blind spiders (the paper's X) stay.
        assert_eq!(step_all("S S F", &[false, true]), vec![]);
    }

    #[test]
    fn emergency_cuts_the_edge_before_the_fly() {
        let map = parse_map("t", "F B B S F").unwrap().into_arc();
        let g = SpidersGame::new(map, Default::default());
        assert_eq!(emergency_cut(&g), Some((3, 4)));
        let map = parse_map("t", "F B B S B B F B B B S").unwrap().into_arc();
        let g = SpidersGame::new(map, Default::default());
        assert_eq!(emergency_cut(&g), Some((0, 1)));
    }
}

#[cfg(test)]
mod match_tests {
    use std::time::{Duration, Instant};

    use rand::SeedableRng;

    use super::*;
    use crate::game::{Game, Status};
    use crate::games::spiders::map::parse_map;
    use crate::games::spiders::rules::{Options, SPIDERS};

    fn ctx(budget: Duration) -> TurnContext {
        let now = Instant::now();
        TurnContext {
            started: now,
            deadline: now + budget,
            hard_deadline: now + budget,
            decision: 0,
        }
    }

    /// Plays a match between two bots; returns whether the defender won.
    fn play(
        notation: &str,
        defender: &mut dyn Bot<SpidersGame>,
        spiders: &mut dyn Bot<SpidersGame>,
        options: Options,
    ) -> bool {
        let map = parse_map("t", notation).unwrap().into_arc();
        let mut g = SpidersGame::new(map, options);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        loop {
            match g.status() {
                Status::Over(o) => return o.winner() == Some(DEFENDER),
                Status::ToAct(seat) => {
                    let bot: &mut dyn Bot<SpidersGame> =
                        if seat == DEFENDER { &mut *defender } else { &mut *spiders };
                    let action = bot.act(&g.view(seat), &ctx(Duration::from_secs(10))).unwrap();
                    g.play(seat, &action, &mut rng).unwrap();
                }
            }
        }
    }

    #[test]
    fn exact_players_reach_the_solvers_verdict() {
        let graph = "nodes 8\nedge 0 1\nedge 1 2\nedge 2 3\nedge 3 4\nedge 4 5\nedge 5 0\nedge 1 4\n\
                     edge 5 6\nedge 6 7\nspiders 3 6\nflies 0 7\n";
        for (map, options) in [
            ("F S S F", Options::default()),
            ("F B S B S B F", Options::default()),
            ("F B B S S F B S B B F B B S", Options::default()),
            ("F B B S B B B F", Options { all_must_move: true, defender_may_pass: false }),
            (graph, Options::default()),
            (graph, Options { all_must_move: true, defender_may_pass: true }),
        ] {
            let m = parse_map("t", map).unwrap();
            let verdict = Solver::new(&m, Policy::Optimal, options.all_must_move)
                .unwrap()
                .defender_wins(0, &m.spiders)
                .unwrap();
            // Both sides searching: the verdict. Against a weaker side, at least the verdict.
            let mut d = SolverBot::new(&m, options);
            let mut s = SolverBot::new(&m, options);
            assert_eq!(play(map, &mut d, &mut s, options), verdict, "{map}");
            let mut d = SolverBot::new(&m, options);
            assert!(play(map, &mut d, &mut GreedyBot, options) || !verdict, "{map}");
            let mut s = SolverBot::new(&m, options);
            assert!(!play(map, &mut EmergencyBot, &mut s, options) || verdict, "{map}");
        }
    }

    #[test]
    fn the_solver_bot_answers_in_time_on_a_large_graph() {
        let mut p = std::collections::BTreeMap::new();
        for (k, v) in [("kind", "graph"), ("nodes", "30"), ("spiders", "4"), ("flies", "3")] {
            p.insert(k.to_string(), v.to_string());
        }
        let text = crate::games::spiders::map::generate(&p, 3).unwrap();
        let map = parse_map("g", &text.text).unwrap();
        let g = SpidersGame::new(map.clone().into_arc(), Options::default());
        let mut bot = SolverBot::new(&map, Options::default());
        let started = Instant::now();
        let action = bot.act(&g.view(DEFENDER), &ctx(Duration::from_millis(50))).unwrap();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(g.clone().play(DEFENDER, &action, &mut ChaCha8Rng::seed_from_u64(0)).is_ok());
        let _ = SPIDERS;
    }

    #[test]
    fn paths_falls_back_to_emergency_off_paths() {
        let map =
            parse_map("t", "nodes 4\nedge 0 1\nedge 1 2\nedge 2 0\nedge 2 3\nspiders 0\nflies 3\n")
                .unwrap();
        let g = SpidersGame::new(map.clone().into_arc(), Options::default());
        let mut bot = PathsBot::new(&map);
        let action = bot.act(&g.view(DEFENDER), &ctx(Duration::from_secs(1))).unwrap();
        assert_eq!(action, SpiderAction::Cut(2, 3));
    }
}
