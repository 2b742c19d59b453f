//! Painters' Duel as a [`Game`]: the state and checks of [`super::rules`] and the line protocol
//! of [`super::protocol`] behind the one trait the referee knows.

use rand::Rng;

use super::map::{Bits, Rooms, bit, coords, rooms};
use super::protocol;
use super::rules::{ALMA, BERTHE, Painters, PaintersAction, PaintersView, ROLES};
use crate::game::{BadLine, Game, Illegal, Outcome, Seat, Status};

impl Game for Painters {
    type Action = PaintersAction;
    type View = PaintersView;

    fn roles(&self) -> Vec<String> {
        ROLES.iter().map(std::string::ToString::to_string).collect()
    }

    fn status(&self) -> Status {
        match self.to_act {
            Some(seat) => Status::ToAct(seat),
            None => {
                let score = self.score();
                let reason = format!(
                    "neither painter can move: alma painted {}, berthe {}",
                    self.painted_by[ALMA].count_ones(),
                    self.painted_by[BERTHE].count_ones()
                );
                Status::Over(Outcome::from_scores(vec![score as f64, -score as f64], reason))
            }
        }
    }

    fn view(&self, seat: Seat) -> PaintersView {
        PaintersView { seat, game: self.clone() }
    }

    fn play(
        &mut self,
        seat: Seat,
        action: &PaintersAction,
        _rng: &mut dyn Rng,
    ) -> Result<(), Illegal> {
        Illegal::unless_turn(self.to_act, seat)?;
        let PaintersAction { row, pos } = *action;
        let room = self.room_of(action).ok_or_else(|| {
            Illegal::new(format!(
                "no room ({row}, {pos}) in a museum of side {}",
                self.board.size()
            ))
        })?;
        let (r0, p0) = coords(self.positions[seat]);
        if !self.board.geometry.neighbours[self.positions[seat] as usize].has(room) {
            return Err(Illegal::new(format!("room ({row}, {pos}) is not next to ({r0}, {p0})")));
        }
        if self.board.blocked.has(room) {
            return Err(Illegal::new(format!("room ({row}, {pos}) is under construction")));
        }
        if self.closed.has(room) {
            return Err(Illegal::new(format!("room ({row}, {pos}) is already painted")));
        }
        self.closed |= bit::<Rooms>(room);
        self.painted_by[seat] |= bit::<Rooms>(room);
        self.positions[seat] = room;
        self.moves.push((seat, room));
        self.to_act = self.next_to_act(seat);
        Ok(())
    }

    /// A move into each open room next to the painter, lowest room index first.
    fn legal_actions_of(view: &PaintersView) -> Vec<PaintersAction> {
        let g = &view.game;
        if g.to_act != Some(view.seat) {
            return Vec::new();
        }
        rooms(g.moves_of(view.seat)).map(PaintersAction::to_room).collect()
    }

    fn init_input(view: &PaintersView) -> String {
        protocol::init_input(view)
    }

    fn turn_input(view: &PaintersView) -> String {
        protocol::turn_input(view)
    }

    fn parse_action(view: &PaintersView, line: &str) -> Result<PaintersAction, BadLine> {
        protocol::parse_action(view, line)
    }

    fn format_action(action: &PaintersAction) -> String {
        protocol::format_action(action)
    }
}
