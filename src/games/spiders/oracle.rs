//! Greedy Spiders' oracle: the exact solver against perfect spiders (`spiders=optimal`) says
//! which side can force a win.
//!
//! As in the solver, passes (`defender_may_pass`) are valued like any other defender move but
//! the round limit they bring is not modelled: spiders that win do so within |E| rounds of cuts
//! (see `docs/spiders.md`).

use crate::budget::OutOfTime;
use crate::game::{Game, Seat};
use crate::games::spiders::rules::{DEFENDER, SPIDERS};
use crate::games::spiders::solver::{Policy, Solver, mask_of};
use crate::games::spiders::{SpiderAction, SpidersGame};
use crate::registry::{Allowance, Oracle, Worth};

/// More spider rounds than this are not all tried for the list of best moves (a round moves
/// every spider, so their number is a product).
const MAX_ROUNDS_LISTED: u64 = 512;

/// The exact solver, kept for the whole match; `None` when the map is beyond it.
pub(crate) struct SpidersOracle {
    solver: Option<Solver>,
}

impl SpidersOracle {
    /// The oracle of a game, and why it cannot settle anything when the map is beyond the solver.
    pub(crate) fn new(game: &SpidersGame) -> (SpidersOracle, Option<String>) {
        match Solver::new(&game.map, Policy::Optimal, game.options.all_must_move) {
            Ok(solver) => (SpidersOracle { solver: Some(solver) }, None),
            Err(e) => {
                (SpidersOracle { solver: None }, Some(format!("every decision is unknown: {e}")))
            }
        }
    }
}

impl Oracle<SpidersGame> for SpidersOracle {
    fn value(&mut self, game: &SpidersGame, allowance: &mut Allowance) -> Result<Worth, OutOfTime> {
        if let Some(outcome) = &game.over {
            return Ok(Worth::Win(outcome.winner().unwrap_or(DEFENDER)));
        }
        let solver = self.solver.as_mut().ok_or(OutOfTime)?;
        solver.set_budget(allowance.budget());
        let before = solver.states;
        let removed = mask_of(&game.removed);
        let defender_wins = if game.to_act == DEFENDER {
            solver.defender_wins(removed, &game.spiders)
        } else {
            // The spiders to move win when some round of theirs wins.
            solver.winning_round(removed, &game.spiders).map(|round| round.is_none())
        };
        allowance.spend(solver.states - before);
        Ok(Worth::Win(if defender_wins.ok_or(OutOfTime)? { DEFENDER } else { SPIDERS }))
    }

    fn moves(&self, game: &SpidersGame, seat: Seat) -> Option<Vec<SpiderAction>> {
        if seat == DEFENDER {
            let mut cuts: Vec<SpiderAction> =
                game.remaining_edges().into_iter().map(|(a, b)| SpiderAction::Cut(a, b)).collect();
            if game.options.defender_may_pass {
                cuts.push(SpiderAction::Pass);
            }
            return Some(cuts);
        }
        let rounds = game.spiders.iter().try_fold(1u64, |product, &s| {
            let steps = game.neighbours(s).count() as u64;
            let stay = u64::from(!game.options.all_must_move || steps == 0);
            product.checked_mul(steps + stay).filter(|&p| p <= MAX_ROUNDS_LISTED)
        })?;
        debug_assert!(rounds >= 1);
        Some(game.legal_actions(seat))
    }

    /// A cut named either way is one move; a round's steps in any order are one round.
    fn spelling(&self, action: &SpiderAction) -> SpiderAction {
        match *action {
            SpiderAction::Cut(a, b) => SpiderAction::Cut(a.min(b), a.max(b)),
            ref other => SpidersGame::canonical(other),
        }
    }
}
