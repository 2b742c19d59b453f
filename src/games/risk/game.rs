//! Risk as a [`Game`]: the rules of [`super::rules`] and the line protocol of
//! [`super::protocol`] behind the one trait the referee knows.

use rand::Rng;

use super::protocol;
use super::rules::{Risk, RiskAction, RiskView};
use crate::game::{BadLine, Game, Illegal, Seat, Status};

impl Game for Risk {
    type Action = RiskAction;
    type View = RiskView;

    fn roles(&self) -> Vec<String> {
        (1..=self.seats()).map(|i| format!("player{i}")).collect()
    }

    fn status(&self) -> Status {
        match &self.over {
            Some(o) => Status::Over(o.clone()),
            None => Status::ToAct(self.to_act()),
        }
    }

    fn ended_at_turn_limit(&self) -> bool {
        Risk::ended_at_turn_limit(self)
    }

    fn view(&self, seat: Seat) -> RiskView {
        RiskView { seat, game: self.redacted(seat) }
    }

    fn play(&mut self, seat: Seat, action: &RiskAction, rng: &mut dyn Rng) -> Result<(), Illegal> {
        self.validate(seat, action)?;
        self.apply(seat, *action, rng);
        Ok(())
    }

    /// Per phase, in the order [`Risk::legal`] documents.
    fn legal_actions_of(view: &RiskView) -> Vec<RiskAction> {
        view.game.legal(view.seat)
    }

    fn random_action_of(view: &RiskView, rng: &mut dyn Rng) -> Option<RiskAction> {
        view.game.random_legal(view.seat, rng)
    }

    fn init_input(view: &RiskView) -> String {
        protocol::init_input(view)
    }

    fn turn_input(view: &RiskView) -> String {
        protocol::turn_input(view)
    }

    fn parse_action(view: &RiskView, line: &str) -> Result<RiskAction, BadLine> {
        protocol::parse_action(view, line)
    }

    fn format_action(action: &RiskAction) -> String {
        protocol::format_action(action)
    }
}
