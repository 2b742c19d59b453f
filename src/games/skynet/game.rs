//! Skynet Revolution as a [`Game`]: the state and checks of [`super::rules`] and the line protocol
//! of [`super::protocol`] behind the one trait the referee knows.

use rand::Rng;

use super::protocol;
use super::rules::{AGENT, Skynet, SkynetAction, SkynetView, VIRUS};
use crate::game::{BadLine, Game, Illegal, Seat, Status};

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
        protocol::init_input(view)
    }

    fn turn_input(view: &SkynetView) -> String {
        protocol::turn_input(view)
    }

    fn parse_action(view: &SkynetView, line: &str) -> Result<SkynetAction, BadLine> {
        protocol::parse_action(view, line)
    }

    fn format_action(action: &SkynetAction) -> String {
        protocol::format_action(action)
    }
}
