//! The rules of Skynet Revolution, Episodes 1 and 2, and the protocol of both roles.
//!
//! Each turn the virus cuts one link; if the agent can then reach no gateway the virus wins at
//! once. Otherwise the agent steps along one remaining link; on a gateway it wins. Episode 1 lets
//! the virus cut any remaining link, Episode 2 only a link with a gateway at one end.

use std::collections::VecDeque;
use std::sync::Arc;

use rand::Rng;

use super::InvalidCut;
use super::episode::Episode;
use super::map::SkynetMap;
use crate::game::{BadLine, Game, Illegal, Outcome, Seat, Status};

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

    fn check_end(&self) -> Option<Outcome> {
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
    fn validate_cut(&self, a: u32, b: u32) -> Result<Option<u32>, Illegal> {
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
            return Err(Illegal::new(format!("no link {a} {b} left to cut{why}")));
        };
        if !self.cut_allowed(a, b) {
            return Err(Illegal::new(format!(
                "link {a} {b} touches no gateway (Episode 2 cuts only gateway links)"
            )));
        }
        Ok(Some(id))
    }
}

impl Game for Skynet {
    type Action = SkynetAction;
    type View = SkynetView;

    fn roles(&self) -> Vec<String> {
        vec!["virus".to_string(), "agent".to_string()]
    }

    fn status(&self) -> Status {
        match &self.over {
            Some(outcome) => Status::Over(outcome.clone()),
            None => Status::ToAct(self.to_act),
        }
    }

    fn view(&self, seat: Seat) -> SkynetView {
        SkynetView { seat, game: self.clone() }
    }

    fn play(
        &mut self,
        seat: Seat,
        action: &SkynetAction,
        _rng: &mut dyn Rng,
    ) -> Result<(), Illegal> {
        Illegal::unless_turn(self.over.is_none().then_some(self.to_act), seat)?;
        match (seat, *action) {
            (VIRUS, SkynetAction::Cut(a, b)) => {
                match self.validate_cut(a, b)? {
                    Some(id) => {
                        self.cut[id as usize] = true;
                        self.last_cut = Some((a, b));
                    }
                    None => {
                        self.passes += 1;
                        self.last_cut = None;
                    }
                }
                self.turn += 1;
                self.to_act = AGENT;
                self.over = self.check_end();
            }
            (AGENT, SkynetAction::Move(to)) => {
                if !self.neighbours(self.agent).any(|n| n == to) {
                    return Err(Illegal::new(format!("no link from {} to {to}", self.agent)));
                }
                self.agent = to;
                self.to_act = VIRUS;
                self.over = self.check_end();
            }
            (VIRUS, _) => return Err(Illegal::new("the virus cuts links: `C1 C2`")),
            _ => return Err(Illegal::new("the agent moves: `NODE`")),
        }
        Ok(())
    }

    /// The virus: every remaining link it may cut, named both ways (`a b` and `b a` are both
    /// legal, and the agent is told the cut as named), sorted. The agent: a step to each
    /// neighbour, in adjacency order.
    fn legal_actions_of(view: &SkynetView) -> Vec<SkynetAction> {
        let g = &view.game;
        if g.over.is_some() || g.to_act != view.seat {
            return Vec::new();
        }
        if view.seat == VIRUS {
            let mut cuts: Vec<SkynetAction> = g
                .legal_cuts()
                .into_iter()
                .flat_map(|(a, b)| [SkynetAction::Cut(a, b), SkynetAction::Cut(b, a)])
                .collect();
            cuts.sort_unstable_by_key(|c| match *c {
                SkynetAction::Cut(a, b) => (a, b),
                SkynetAction::Move(n) => (n, u32::MAX),
            });
            cuts
        } else {
            g.neighbours(g.agent).map(SkynetAction::Move).collect()
        }
    }

    fn init_input(view: &SkynetView) -> String {
        view.game.map.init_block()
    }

    fn turn_input(view: &SkynetView) -> String {
        let g = &view.game;
        match (view.seat, g.last_cut) {
            (VIRUS, _) => format!("{}\n", g.agent),
            (_, Some((a, b))) => format!("{} {a} {b}\n", g.agent),
            (_, None) => format!("{} -1 -1\n", g.agent),
        }
    }

    fn parse_action(view: &SkynetView, line: &str) -> Result<SkynetAction, BadLine> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let int = |w: &str| w.parse::<u32>().map_err(|_| format!("`{w}` is not a node index"));
        if view.seat == VIRUS {
            match words.as_slice() {
                [a, b] => Ok(SkynetAction::Cut(int(a)?, int(b)?)),
                _ => Err("expected two node indices `C1 C2`".into()),
            }
        } else {
            match words.as_slice() {
                [n] => Ok(SkynetAction::Move(int(n)?)),
                _ => Err("expected one node index".into()),
            }
        }
    }

    fn format_action(action: &SkynetAction) -> String {
        match action {
            SkynetAction::Cut(a, b) => format!("{a} {b}"),
            SkynetAction::Move(n) => n.to_string(),
        }
    }
}

#[cfg(test)]
mod invalid_cut_tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::game::Status;
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
        assert!(refused.to_string().contains("no link 4 3 left to cut"), "{refused}");
        assert_eq!(game, before);
        let missing = game.play(VIRUS, &SkynetAction::Cut(0, 4), &mut rng).unwrap_err();
        assert!(missing.to_string().contains("no link 0 4"), "{missing}");
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
