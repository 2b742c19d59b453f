//! The rules of Skynet Revolution, Episodes 1 and 2: the state, its actions and views, the
//! options, and the checks of a cut and a step.
//!
//! Each turn the virus cuts one link; if the agent can then reach no gateway the virus wins at
//! once. Otherwise the agent steps along one remaining link; on a gateway it wins. Episode 1 lets
//! the virus cut any remaining link, Episode 2 only a link with a gateway at one end.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::Deserialize;

use super::agent::TieBreak;
use super::episode::Episode;
use super::map::SkynetMap;
use crate::game::{Illegal, Outcome, Seat};

/// The game options of a Skynet match (`--opt key=value`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// How the built-in CodinGame agents (and the `solver` virus's model of them) break ties:
    /// `last` (CodinGame's) or `first`.
    pub tiebreak: TieBreak,
    /// What a cut of a missing or already cut link does: `lose` or `ignore`; unset, the
    /// episode's default ([`Episode::default_invalid_cut`]).
    pub invalid_cut: Option<InvalidCut>,
}

/// What the referee does with a virus's cut of a link that does not exist or was already cut.
/// CodinGame does not publish its referee; `ignore` models what public bots show it does in
/// Episode 1 (`docs/skynet.md`, "Choices where the sources are silent", has the evidence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InvalidCut {
    /// The cut is an illegal action: the virus loses.
    Lose,
    /// The turn is a pass: nothing is cut and the agent steps (at most N passes a game).
    Ignore,
}

pub(crate) const VIRUS: Seat = 0;
pub(crate) const AGENT: Seat = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkynetAction {
    /// The virus cuts the link between two nodes (either order).
    Cut(u32, u32),
    /// The agent steps to a neighbouring node.
    Move(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Skynet {
    pub map: Arc<SkynetMap>,
    pub episode: Episode,
    /// `cut[link id]`.
    pub cut: Vec<bool>,
    pub agent: u32,
    /// The last link cut, as the virus named it; `None` after a pass (see [`InvalidCut`]).
    pub last_cut: Option<(u32, u32)>,
    /// What a cut of a missing or already cut link does (the `invalid_cut` option).
    pub invalid_cut: InvalidCut,
    /// Cuts of missing or already cut links taken as passes so far (`invalid_cut=ignore`).
    pub passes: u32,
    pub to_act: Seat,
    /// Turns played (one turn = a cut and the agent's step).
    pub turn: u32,
    pub over: Option<Outcome>,
}

/// A seat's view: Skynet is a game of perfect information.
#[derive(Clone, Debug, PartialEq)]
pub struct SkynetView {
    pub seat: Seat,
    pub game: Skynet,
}

impl Skynet {
    /// The start of a match on `map` with the strict `invalid_cut` rule (`lose`); a match arena
    /// sets up gets the option or the episode's default through [`Skynet::with_invalid_cut`].
    pub fn new(map: Arc<SkynetMap>, episode: Episode) -> Skynet {
        let mut game = Skynet {
            cut: vec![false; map.links.len()],
            agent: map.agent_start,
            map,
            episode,
            last_cut: None,
            invalid_cut: InvalidCut::Lose,
            passes: 0,
            to_act: VIRUS,
            turn: 0,
            over: None,
        };
        game.over = game.check_end();
        game
    }

    /// Neighbours of `v` over links not yet cut, in insertion order.
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.map.adj[v as usize].iter().filter(|&&(_, id)| !self.cut[id as usize]).map(|&(n, _)| n)
    }

    /// Whether the agent can still reach a gateway. A path ends at the first gateway it meets.
    pub fn agent_can_escape(&self) -> bool {
        let mut seen = vec![false; self.map.nodes];
        let mut queue = VecDeque::from([self.agent]);
        seen[self.agent as usize] = true;
        while let Some(v) = queue.pop_front() {
            if self.map.is_gateway[v as usize] {
                return true;
            }
            for n in self.neighbours(v) {
                if !seen[n as usize] {
                    seen[n as usize] = true;
                    queue.push_back(n);
                }
            }
        }
        false
    }

    /// The links the virus may cut now, as `(a, b)` with `a` the lower node id.
    pub fn legal_cuts(&self) -> Vec<(u32, u32)> {
        let mut cuts: Vec<(u32, u32)> = (0..self.map.links.len())
            .filter(|&id| !self.cut[id])
            .map(|id| self.map.links[id])
            .filter(|&(a, b)| self.cut_allowed(a, b))
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts
    }

    fn cut_allowed(&self, a: u32, b: u32) -> bool {
        match self.episode {
            Episode::Ep1 => true,
            Episode::Ep2 => self.map.is_gateway[a as usize] || self.map.is_gateway[b as usize],
        }
    }

    pub(super) fn check_end(&self) -> Option<Outcome> {
        if self.map.is_gateway[self.agent as usize] {
            return Some(Outcome::win(
                2,
                AGENT,
                format!("the agent reached gateway {}", self.agent),
            ));
        }
        if !self.agent_can_escape() {
            return Some(Outcome::win(2, VIRUS, "the agent can reach no gateway".to_string()));
        }
        None
    }

    /// The same rules with `invalid_cut` set (see [`InvalidCut`]).
    pub fn with_invalid_cut(mut self, invalid_cut: InvalidCut) -> Skynet {
        self.invalid_cut = invalid_cut;
        self
    }

    /// The link a cut removes, or `None` for a cut the `ignore` option takes as a pass.
    pub(super) fn validate_cut(&self, a: u32, b: u32) -> Result<Option<u32>, Illegal> {
        let n = self.map.nodes as u32;
        if a >= n || b >= n {
            return Err(Illegal::new(format!("no node {} (N = {n})", if a >= n { a } else { b })));
        }
        let Some(id) = self.map.link_between(a, b, &self.cut) else {
            // Every pass gives the agent a free step, so N of them would let any agent walk
            // to a gateway: the bound ends games between two bots that would stall forever.
            if self.invalid_cut == InvalidCut::Ignore && self.passes < self.map.nodes as u32 {
                return Ok(None);
            }
            let why =
                if self.invalid_cut == InvalidCut::Ignore { " (and no pass left)" } else { "" };
            // A link that never existed (a self-loop included) is not one "already cut".
            let exists = self.map.adj[a as usize].iter().any(|&(n, _)| n == b);
            let what = if exists {
                format!("link {a} {b} is already cut")
            } else {
                format!("link {a} {b} does not exist (the map has no link between {a} and {b})")
            };
            return Err(Illegal::new(format!("{what}{why}")));
        };
        if !self.cut_allowed(a, b) {
            return Err(Illegal::new(format!(
                "link {a} {b} touches no gateway (Episode 2 cuts only gateway links)"
            )));
        }
        Ok(Some(id))
    }
}

#[cfg(test)]
mod invalid_cut_tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::game::{Game, Status};
    use crate::games::skynet::map::parse_map;

    fn ep2_01(invalid_cut: InvalidCut) -> Skynet {
        let text = include_str!("../../../arenas/maps/skynet/ep2_01.txt");
        let map = parse_map("ep2_01.txt", text, Episode::Ep2).unwrap().map;
        Skynet::new(map.into_arc(), Episode::Ep2).with_invalid_cut(invalid_cut)
    }

    /// The recorded run's first turn: cut `3 4`, the agent steps to 3.
    fn after_first_turn(invalid_cut: InvalidCut) -> (Skynet, ChaCha8Rng) {
        let mut game = ep2_01(invalid_cut);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        game.play(VIRUS, &SkynetAction::Cut(3, 4), &mut rng).unwrap();
        game.play(AGENT, &SkynetAction::Move(3), &mut rng).unwrap();
        (game, rng)
    }

    #[test]
    fn by_default_a_repeated_cut_loses_and_changes_nothing() {
        let (mut game, mut rng) = after_first_turn(InvalidCut::Lose);
        let before = game.clone();
        let refused = game.play(VIRUS, &SkynetAction::Cut(4, 3), &mut rng).unwrap_err();
        assert!(refused.to_string().contains("link 4 3 is already cut"), "{refused}");
        assert_eq!(game, before);
        let missing = game.play(VIRUS, &SkynetAction::Cut(0, 4), &mut rng).unwrap_err();
        assert!(missing.to_string().contains("link 0 4 does not exist"), "{missing}");
        let looped = game.play(VIRUS, &SkynetAction::Cut(0, 0), &mut rng).unwrap_err();
        assert!(looped.to_string().contains("link 0 0 does not exist"), "{looped}");
    }

    #[test]
    fn with_ignore_a_repeated_or_missing_cut_is_a_pass() {
        for cut in [SkynetAction::Cut(3, 4), SkynetAction::Cut(4, 3), SkynetAction::Cut(0, 4)] {
            let (mut game, mut rng) = after_first_turn(InvalidCut::Ignore);
            let cuts_before = game.cut.clone();
            game.play(VIRUS, &cut, &mut rng).unwrap();
            assert_eq!(game.cut, cuts_before, "{cut:?} cut nothing");
            assert_eq!((game.passes, game.turn, game.status()), (1, 2, Status::ToAct(AGENT)));
            // The agent is told there was no cut.
            assert_eq!(Skynet::turn_input(&game.view(AGENT)), "3 -1 -1\n");
            // It steps on: 3 is still linked to gateway 5.
            game.play(AGENT, &SkynetAction::Move(5), &mut rng).unwrap();
            let Status::Over(outcome) = game.status() else { panic!("the agent is on a gateway") };
            assert_eq!(outcome.winner(), Some(AGENT));
        }
    }

    #[test]
    fn with_ignore_bad_nodes_and_forbidden_cuts_still_lose() {
        let (game, mut rng) = after_first_turn(InvalidCut::Ignore);
        // 3-7 exists but touches no gateway (Episode 2); node 8 does not exist.
        for cut in [SkynetAction::Cut(3, 7), SkynetAction::Cut(8, 4), SkynetAction::Cut(4, 99)] {
            let mut attempt = game.clone();
            assert!(attempt.play(VIRUS, &cut, &mut rng).is_err(), "{cut:?}");
            assert_eq!(attempt, game);
        }
    }

    #[test]
    fn with_ignore_passes_run_out_after_n() {
        let (mut game, mut rng) = after_first_turn(InvalidCut::Ignore);
        // Walk the agent back and forth between 3 and 0 (both stay away from the gateways'
        // last links) while the virus repeats its cut.
        let nodes = game.map.nodes as u32;
        for pass in 0..nodes {
            game.play(VIRUS, &SkynetAction::Cut(3, 4), &mut rng).unwrap();
            let to = if game.agent == 3 { 0 } else { 3 };
            game.play(AGENT, &SkynetAction::Move(to), &mut rng).unwrap();
            assert_eq!(game.passes, pass + 1);
        }
        let before = game.clone();
        let refused = game.play(VIRUS, &SkynetAction::Cut(3, 4), &mut rng).unwrap_err();
        assert!(refused.to_string().contains("no pass left"), "{refused}");
        assert_eq!(game, before);
        // A real cut still plays.
        let (a, b) = game.legal_cuts()[0];
        game.play(VIRUS, &SkynetAction::Cut(a, b), &mut rng).unwrap();
    }
}
