//! Painters' Duel's oracle: the exact solver's value of a position, turned into the final score
//! of the match (the rooms painted so far count too).

use crate::budget::OutOfTime;
use crate::game::Seat;
use crate::games::painters::map::{Rooms, rooms};
use crate::games::painters::rules::ALMA;
use crate::games::painters::{BoardSolver, Painters, PaintersAction};
use crate::registry::{Allowance, Oracle, Worth};

/// The exact solver, kept for the whole match: its tables serve every later position.
pub(crate) struct PaintersOracle {
    solver: BoardSolver,
}

impl PaintersOracle {
    pub(crate) fn new(game: &Painters) -> PaintersOracle {
        PaintersOracle { solver: BoardSolver::for_board(&game.board) }
    }
}

impl Oracle<Painters> for PaintersOracle {
    fn value(&mut self, game: &Painters, allowance: &mut Allowance) -> Result<Worth, OutOfTime> {
        let Some(mover) = game.to_act else { return Ok(Worth::Score(game.score())) };
        let open: Rooms = game.board.geometry.all & !game.closed;
        let [me, other] = [game.positions[mover], game.positions[1 - mover]];
        let before = self.solver.stats().nodes;
        let value = self.solver.value(open, me, other, allowance.budget());
        allowance.spend(self.solver.stats().nodes - before);
        // The solver's value is what the mover paints from now on minus what the other paints.
        let from_now = value.ok_or(OutOfTime)?;
        Ok(Worth::Score(game.score() + if mover == ALMA { from_now } else { -from_now }))
    }

    fn moves(&self, game: &Painters, seat: Seat) -> Option<Vec<PaintersAction>> {
        Some(rooms(game.moves_of(seat)).map(PaintersAction::to_room).collect())
    }
}
