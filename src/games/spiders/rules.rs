//! The rules of Greedy Spiders: the state, its actions and views, the options, and the checks of
//! a cut and a round of steps.
//!
//! Each round the defender removes one edge for good; then the spider side moves any subset of
//! its spiders one step each, all in one action. The spiders win as soon as a spider stands on a
//! fly; the defender wins as soon as no spider can reach any fly. The seed paper is silent on
//! passes and forced moves; both are options, off by default (see `docs/spiders.md`).

use std::sync::Arc;

use super::map::{SpiderMap, fly_distances};
use crate::game::{Illegal, Outcome, Seat};

pub const DEFENDER: Seat = 0;
pub const SPIDERS: Seat = 1;

/// Game options (`--opt key=value`), all off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `all_must_move=true`: every spider with an edge left must step.
    pub all_must_move: bool,
    /// `defender_may_pass=true`: the defender may answer `PASS` instead of removing an edge.
    pub defender_may_pass: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpiderAction {
    /// The defender removes the edge between two vertices (either order).
    Cut(u32, u32),
    /// The defender removes nothing (only with `defender_may_pass=true`).
    Pass,
    /// The spider side's round: `(spider index, vertex)` for each spider that steps; empty to wait.
    Moves(Vec<(usize, u32)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SpidersGame {
    pub map: Arc<SpiderMap>,
    pub options: Options,
    /// `removed[edge id]`.
    pub removed: Vec<bool>,
    /// Spider `i` stands on `spiders[i]`.
    pub spiders: Vec<u32>,
    /// The last edge removed, as the defender named it; `None` before the first cut or after a pass.
    pub last_cut: Option<(u32, u32)>,
    pub to_act: Seat,
    /// Rounds begun (a round is the defender's move and the spiders' answer).
    pub round: u32,
    pub over: Option<Outcome>,
}

/// A seat's view: Greedy Spiders is a game of perfect information.
#[derive(Clone, Debug, PartialEq)]
pub struct SpidersView {
    pub seat: Seat,
    pub game: SpidersGame,
}

impl SpidersGame {
    pub fn new(map: Arc<SpiderMap>, options: Options) -> SpidersGame {
        let mut game = SpidersGame {
            removed: vec![false; map.edges.len()],
            spiders: map.spiders.clone(),
            map,
            options,
            last_cut: None,
            to_act: DEFENDER,
            round: 0,
            over: None,
        };
        game.over = game.check_end();
        game
    }

    /// With passes allowed a game could idle for ever; it ends, won by the defender, after this
    /// many rounds. Passing never helps the defender under this bound: spiders that win without
    /// passes can answer a pass as if some remaining edge had been removed, and so still win
    /// within |E| rounds.
    pub fn max_rounds(&self) -> u64 {
        (self.map.edges.len() as u64 + 1) * (self.map.nodes as u64 + 1)
    }

    /// Neighbours of `v` over edges not removed, in increasing order.
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.map.adj[v as usize]
            .iter()
            .filter(|&&(_, e)| !self.removed[e as usize])
            .map(|&(n, _)| n)
    }

    /// The edges left, as `(a, b)` with `a < b`, in edge-id order.
    pub fn remaining_edges(&self) -> Vec<(u32, u32)> {
        (0..self.map.edges.len()).filter(|&e| !self.removed[e]).map(|e| self.map.edges[e]).collect()
    }

    /// Whether some spider can still reach some fly.
    pub fn threatened(&self) -> bool {
        let dist = fly_distances(&self.map, &self.removed);
        self.spiders.iter().any(|&s| dist[s as usize] != u32::MAX)
    }

    pub(super) fn check_end(&self) -> Option<Outcome> {
        if let Some((i, &v)) =
            self.spiders.iter().enumerate().find(|&(_, &v)| self.map.is_fly[v as usize])
        {
            return Some(Outcome::win(2, SPIDERS, format!("spider {i} ate the fly on vertex {v}")));
        }
        if !self.threatened() {
            return Some(Outcome::win(2, DEFENDER, "no spider can reach a fly"));
        }
        if u64::from(self.round) >= self.max_rounds() && self.to_act == DEFENDER {
            return Some(Outcome::win(2, DEFENDER, "the round limit passed with every fly alive"));
        }
        None
    }

    /// Checks a spider round without playing it.
    pub fn validate_moves(&self, moves: &[(usize, u32)]) -> Result<(), Illegal> {
        let mut moved = vec![false; self.spiders.len()];
        for &(i, to) in moves {
            let Some(&from) = self.spiders.get(i) else {
                return Err(Illegal::new(format!(
                    "no spider {i} (spiders 0..{})",
                    self.spiders.len()
                )));
            };
            if std::mem::replace(&mut moved[i], true) {
                return Err(Illegal::new(format!("spider {i} moves twice in one round")));
            }
            if !self.neighbours(from).any(|n| n == to) {
                return Err(Illegal::new(format!("spider {i} on {from} has no edge to {to}")));
            }
        }
        if self.options.all_must_move {
            if let Some(i) = (0..self.spiders.len())
                .find(|&i| !moved[i] && self.neighbours(self.spiders[i]).next().is_some())
            {
                return Err(Illegal::new(format!(
                    "spider {i} can move and must (all_must_move=true)"
                )));
            }
        }
        Ok(())
    }

    /// Each spider's choices in a round: `None` to stay (when allowed), else a neighbour,
    /// in increasing order.
    pub(super) fn spider_choices(&self) -> Vec<Vec<Option<u32>>> {
        self.spiders
            .iter()
            .map(|&s| {
                let steps = self.neighbours(s).map(Some);
                let may_stay = !self.options.all_must_move || self.neighbours(s).next().is_none();
                may_stay.then_some(None).into_iter().chain(steps).collect()
            })
            .collect()
    }
}

/// The steps of a spider round, one choice per spider.
pub(crate) fn steps(choices: impl IntoIterator<Item = (usize, Option<u32>)>) -> SpiderAction {
    SpiderAction::Moves(choices.into_iter().filter_map(|(i, c)| c.map(|to| (i, to))).collect())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::game::Game;
    use crate::games::spiders::generator::generate;
    use crate::games::spiders::map::parse_map;

    fn game_from(seed: u64, kind: &str, options: Options) -> SpidersGame {
        let mut p = BTreeMap::new();
        p.insert("kind".to_string(), kind.to_string());
        p.insert("nodes".to_string(), (6 + seed % 10).to_string());
        p.insert("spiders".to_string(), (1 + seed % 3).to_string());
        let text = generate(&p, seed).unwrap();
        SpidersGame::new(parse_map("g", &text.text).unwrap().into_arc(), options)
    }

    /// A random action, legal or not, for the seat to act.
    fn any_action(g: &SpidersGame, rng: &mut ChaCha8Rng) -> SpiderAction {
        let n = g.map.nodes as u32 + 2;
        if g.to_act == DEFENDER {
            match rng.random_range(0..3) {
                0 => SpiderAction::Pass,
                1 => SpiderAction::Cut(rng.random_range(0..n), rng.random_range(0..n)),
                _ => {
                    let edges = g.remaining_edges();
                    let (a, b) = edges[rng.random_range(0..edges.len())];
                    if rng.random_bool(0.5) {
                        SpiderAction::Cut(a, b)
                    } else {
                        SpiderAction::Cut(b, a)
                    }
                }
            }
        } else {
            let k = rng.random_range(0..=g.spiders.len() + 1);
            SpiderAction::Moves(
                (0..k)
                    .map(|_| {
                        let i = rng.random_range(0..g.spiders.len() + 1);
                        let near = g.spiders.get(i).and_then(|&s| g.neighbours(s).next());
                        (i, near.filter(|_| rng.random_bool(0.8)).unwrap_or(rng.random_range(0..n)))
                    })
                    .collect(),
            )
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random actions, legal or not: a refused action leaves the state as it was, an accepted
        /// one keeps every spider on a vertex joined to where it was, removes at most one edge, and
        /// the game ends as the rules say.
        #[test]
        fn rules_hold_under_random_play(seed in 0u64..10_000, must in any::<bool>(), pass in any::<bool>(), path in any::<bool>()) {
            let options = Options { all_must_move: must, defender_may_pass: pass };
            let mut g = game_from(seed, if path { "path" } else { "graph" }, options);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut cuts = 0;
            for _ in 0..200_000 {
                if g.over.is_some() {
                    break;
                }
                let before = g.clone();
                let action = any_action(&g, &mut rng);
                // The protocol text reads back as the same action.
                let line = SpidersGame::format_action(&action);
                let view = g.view(g.to_act);
                prop_assert_eq!(SpidersGame::parse_action(&view, &line), Ok(action.clone()));
                match g.play(g.to_act, &action, &mut rng) {
                    Err(_) => prop_assert_eq!(&g, &before),
                    Ok(()) => {
                        let removed = g.removed.iter().filter(|&&r| r).count()
                            - before.removed.iter().filter(|&&r| r).count();
                        prop_assert!(removed <= 1);
                        cuts += removed;
                        for (i, (&a, &b)) in before.spiders.iter().zip(&g.spiders).enumerate() {
                            prop_assert!(a == b || before.neighbours(a).any(|w| w == b), "spider {} jumped", i);
                            if must && before.to_act == SPIDERS && before.neighbours(a).next().is_some() {
                                prop_assert_ne!(a, b);
                            }
                        }
                    }
                }
            }
            let outcome = g.over.clone().expect("every game ends");
            let on_fly = g.spiders.iter().any(|&s| g.map.is_fly[s as usize]);
            prop_assert_eq!(outcome.winner() == Some(SPIDERS), on_fly);
            if outcome.winner() == Some(DEFENDER) && !pass {
                prop_assert!(!g.threatened());
            }
            if !pass {
                prop_assert!(cuts <= g.map.edges.len() && g.round as usize <= g.map.edges.len());
            }
        }
    }

    #[test]
    fn illegal_actions_name_the_reason() {
        let map = parse_map("t", "F B S B S B F").unwrap().into_arc();
        let mut g = SpidersGame::new(map, Options::default());
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let said = |g: &mut SpidersGame, seat, a: SpiderAction, rng: &mut ChaCha8Rng| {
            let before = g.clone();
            let e = g.play(seat, &a, rng).unwrap_err().reason;
            assert_eq!(*g, before);
            e
        };
        assert!(said(&mut g, DEFENDER, SpiderAction::Cut(0, 2), &mut rng).contains("no edge 0 2"));
        assert!(said(&mut g, DEFENDER, SpiderAction::Pass, &mut rng).contains("defender_may_pass"));
        assert!(said(&mut g, SPIDERS, SpiderAction::Moves(vec![]), &mut rng).contains("turn"));
        g.play(DEFENDER, &SpiderAction::Cut(2, 1), &mut rng).unwrap();
        assert!(said(&mut g, DEFENDER, SpiderAction::Cut(3, 4), &mut rng).contains("turn"));
        let r = said(&mut g, SPIDERS, SpiderAction::Moves(vec![(0, 1)]), &mut rng);
        assert!(r.contains("no edge to 1"), "{r}");
        let r = said(&mut g, SPIDERS, SpiderAction::Moves(vec![(1, 5), (1, 3)]), &mut rng);
        assert!(r.contains("twice"), "{r}");
        assert!(
            said(&mut g, SPIDERS, SpiderAction::Moves(vec![(2, 5)]), &mut rng)
                .contains("no spider 2")
        );
        // Two spiders may share a vertex.
        g.play(SPIDERS, &SpiderAction::Moves(vec![(0, 3), (1, 3)]), &mut rng).unwrap();
        assert_eq!(g.spiders, vec![3, 3]);
    }

    #[test]
    fn all_must_move_forces_every_spider_that_can() {
        let map = parse_map("t", "F B S B S B F").unwrap().into_arc();
        let options = Options { all_must_move: true, defender_may_pass: true };
        let mut g = SpidersGame::new(map, options);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        g.play(DEFENDER, &SpiderAction::Pass, &mut rng).unwrap();
        let e = g.play(SPIDERS, &SpiderAction::Moves(vec![(0, 1)]), &mut rng).unwrap_err();
        assert!(e.reason.contains("spider 1 can move and must"), "{}", e.reason);
        g.play(SPIDERS, &SpiderAction::Moves(vec![(0, 1), (1, 5)]), &mut rng).unwrap();
    }

    #[test]
    fn protocol_lines() {
        let map = parse_map("t", "F B S B F").unwrap().into_arc();
        let g = SpidersGame::new(map, Options::default());
        let v = g.view(SPIDERS);
        assert_eq!(
            SpidersGame::init_input(&v),
            "5 4 1 2\n0 1\n1 2\n2 3\n3 4\n0 4\noptions all_must_move=false defender_may_pass=false\n"
        );
        let options = Options { all_must_move: true, defender_may_pass: true };
        let told =
            SpidersGame::init_input(&SpidersGame::new(g.map.clone(), options).view(DEFENDER));
        assert!(told.ends_with("\noptions all_must_move=true defender_may_pass=true\n"), "{told}");
        assert_eq!(SpidersGame::turn_input(&v), "-1 -1\n2\n");
        assert_eq!(SpidersGame::parse_action(&v, "0:1"), Ok(SpiderAction::Moves(vec![(0, 1)])));
        assert_eq!(SpidersGame::parse_action(&v, " WAIT "), Ok(SpiderAction::Moves(vec![])));
        assert!(SpidersGame::parse_action(&v, "0-1").is_err());
        assert!(SpidersGame::parse_action(&v, "").is_err());
        let d = g.view(DEFENDER);
        assert_eq!(SpidersGame::parse_action(&d, "PASS"), Ok(SpiderAction::Pass));
        assert_eq!(SpidersGame::parse_action(&d, "3 2"), Ok(SpiderAction::Cut(3, 2)));
        assert!(SpidersGame::parse_action(&d, "3").is_err());
    }
}
