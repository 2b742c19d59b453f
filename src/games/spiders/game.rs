//! Greedy Spiders as a [`Game`]: the state and checks of [`super::rules`] and the line protocol
//! of [`super::protocol`] behind the one trait the referee knows.

use rand::{Rng, RngExt};

use super::map::Cuts;
use super::protocol;
use super::rules::{DEFENDER, SPIDERS, SpiderAction, SpidersGame, SpidersView, steps};
use crate::game::{BadLine, Game, Illegal, Seat, Status};

impl Game for SpidersGame {
    type Action = SpiderAction;
    type View = SpidersView;

    fn roles(&self) -> Vec<String> {
        vec!["defender".to_string(), "spiders".to_string()]
    }

    fn status(&self) -> Status {
        match &self.over {
            Some(outcome) => Status::Over(outcome.clone()),
            None => Status::ToAct(self.to_act),
        }
    }

    fn view(&self, seat: Seat) -> SpidersView {
        SpidersView { seat, game: self.clone() }
    }

    fn play(
        &mut self,
        seat: Seat,
        action: &SpiderAction,
        _rng: &mut dyn Rng,
    ) -> Result<(), Illegal> {
        Illegal::unless_turn(self.over.is_none().then_some(self.to_act), seat)?;
        match (seat, action) {
            (DEFENDER, &SpiderAction::Cut(a, b)) => {
                let n = self.map.nodes as u32;
                if a >= n || b >= n {
                    return Err(Illegal::new(format!(
                        "no vertex {} (vertices 0..{n})",
                        if a >= n { a } else { b }
                    )));
                }
                let e = self
                    .map
                    .edge_between(a, b)
                    .filter(|&e| !self.removed.is_cut(e))
                    .ok_or_else(|| Illegal::new(format!("no edge {a} {b} left to remove")))?;
                self.removed[e as usize] = true;
                self.last_cut = Some((a, b));
            }
            (DEFENDER, SpiderAction::Pass) => {
                if !self.options.defender_may_pass {
                    return Err(Illegal::new(
                        "the defender must remove an edge (defender_may_pass is off)",
                    ));
                }
                self.last_cut = None;
            }
            (SPIDERS, SpiderAction::Moves(moves)) => {
                self.validate_moves(moves)?;
                for &(i, to) in moves {
                    self.spiders[i] = to;
                }
            }
            (DEFENDER, _) => return Err(Illegal::new("the defender removes an edge: `U V`")),
            _ => return Err(Illegal::new("the spiders move: `WAIT` or `I:V ...`")),
        }
        if seat == DEFENDER {
            self.round += 1;
            self.to_act = SPIDERS;
        } else {
            self.to_act = DEFENDER;
        }
        self.over = self.check_end();
        Ok(())
    }

    /// The defender: every remaining edge named both ways (`a b` and `b a` are both legal, and
    /// the spiders are told the cut as named), sorted, then `PASS` when passes are allowed.
    ///
    /// The spiders: every round, the product of each spider's choices (stay, when allowed, then a
    /// step to each neighbour in increasing order), spider 0's choice varying slowest; a round
    /// lists its steps by spider. The list grows exponentially with the spiders, so
    /// [`Game::random_action_of`] draws each spider's choice instead of building it.
    fn legal_actions_of(view: &SpidersView) -> Vec<SpiderAction> {
        let g = &view.game;
        if g.over.is_some() || g.to_act != view.seat {
            return Vec::new();
        }
        if view.seat == DEFENDER {
            let mut cuts: Vec<(u32, u32)> =
                g.remaining_edges().into_iter().flat_map(|(a, b)| [(a, b), (b, a)]).collect();
            cuts.sort_unstable();
            let mut actions: Vec<SpiderAction> =
                cuts.into_iter().map(|(a, b)| SpiderAction::Cut(a, b)).collect();
            if g.options.defender_may_pass {
                actions.push(SpiderAction::Pass);
            }
            return actions;
        }
        let choices = g.spider_choices();
        let mut rounds: Vec<Vec<Option<u32>>> = vec![Vec::new()];
        for spider in &choices {
            rounds = rounds
                .iter()
                .flat_map(|r| spider.iter().map(move |&c| [r.as_slice(), &[c]].concat()))
                .collect();
        }
        rounds.into_iter().map(|r| steps(r.into_iter().enumerate())).collect()
    }

    fn random_action_of(view: &SpidersView, rng: &mut dyn Rng) -> Option<SpiderAction> {
        let g = &view.game;
        if g.over.is_some() || g.to_act != view.seat || view.seat == DEFENDER {
            let actions = Self::legal_actions_of(view);
            return (!actions.is_empty())
                .then(|| actions[rng.random_range(0..actions.len())].clone());
        }
        // Uniform over the product: each spider's choice uniform and independent.
        let choices = g.spider_choices();
        Some(steps(choices.iter().enumerate().map(|(i, c)| (i, c[rng.random_range(0..c.len())]))))
    }

    /// A round's steps sorted by spider: `play` takes them in any order, to the same effect.
    fn canonical(action: &SpiderAction) -> SpiderAction {
        match action {
            SpiderAction::Moves(m) => {
                let mut m = m.clone();
                m.sort_unstable();
                SpiderAction::Moves(m)
            }
            other => other.clone(),
        }
    }

    fn init_input(view: &SpidersView) -> String {
        protocol::init_input(view)
    }

    fn turn_input(view: &SpidersView) -> String {
        protocol::turn_input(view)
    }

    fn parse_action(view: &SpidersView, line: &str) -> Result<SpiderAction, BadLine> {
        protocol::parse_action(view, line)
    }

    fn format_action(action: &SpiderAction) -> String {
        protocol::format_action(action)
    }
}
