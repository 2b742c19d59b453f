//! Built-in Greedy Spiders bots: the paper's greedy spiders, the `emergency` defender, and the
//! exact-search players built on [`super::solver`] (`random` is the registry's).

use std::time::Duration;

use super::greedy::greedy_round;
use super::map::{SpiderMap, fly_distances};
use super::paths::PathsDefender;
use super::rules::{DEFENDER, SpiderAction, SpidersGame, SpidersView};
use super::solver::{Policy, Solver};
use crate::bot::{Bot, BotFailure, TurnContext};

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
const RESERVE: Duration = Duration::from_millis(5);

impl Bot<SpidersGame> for SolverBot {
    fn act(&mut self, view: &SpidersView, ctx: &TurnContext) -> Result<SpiderAction, BotFailure> {
        let g = &view.game;
        if let Some(solver) = &mut self.solver {
            solver.set_budget(ctx.budget(1.0, RESERVE));
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
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::game::{Game, Status};
    use crate::games::spiders::map::parse_map;
    use crate::games::spiders::rules::{Options, SPIDERS};

    fn ctx(budget: Duration) -> TurnContext {
        TurnContext::wall(Instant::now(), budget)
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
                .defender_wins(crate::games::spiders::solver::Mask::EMPTY, &m.spiders)
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
        let text = crate::games::spiders::generator::generate(&p, 3).unwrap();
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
