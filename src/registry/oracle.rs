//! What a game gives the analysis: an exact oracle, the value of any state of its rules from its
//! solver (see [`crate::analysis`], which rates every decision of a match with it).

use std::time::Instant;

use crate::budget::{Budget, OutOfTime};
use crate::game::{Game, Seat};

/// The exact analysis of one match, as a game offers it ([`GameDef::oracle`](super::GameDef::oracle)).
pub enum Exact<'g, G: Game> {
    /// The game's solver can rate the match.
    Oracle {
        /// Asks the solver.
        oracle: Box<dyn Oracle<G> + 'g>,
        /// The unit of what a move loses: `points` (a score) or `wins` (a forced win thrown
        /// away).
        unit: &'static str,
        /// What limits the analysis (a map beyond the solver), if anything.
        statement: Option<String>,
    },
    /// No exact analysis exists for this match; why, in words for the user.
    Unavailable(&'static str),
}

/// A game's exact solver, asked about states of its rules. It is kept for the whole match, so
/// what it proved for one position serves the next.
pub trait Oracle<G: Game> {
    /// What `game` is worth with perfect play (over or not, whoever is to act), searching within
    /// `allowance`.
    fn value(&mut self, game: &G, allowance: &mut Allowance) -> Result<Worth, OutOfTime>;

    /// The distinct moves of `seat` (the one to act), one spelling each, in the rules' order;
    /// `None` when there are too many to try.
    fn moves(&self, game: &G, seat: Seat) -> Option<Vec<G::Action>>;

    /// The spelling [`Oracle::moves`] uses for `action`.
    fn spelling(&self, action: &G::Action) -> G::Action {
        G::canonical(action)
    }
}

/// A value as an oracle computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Worth {
    /// This seat can force a win, whatever the others do.
    Win(Seat),
    /// The final score the first seat can guarantee and the second can hold it to.
    Score(i32),
}

/// One decision's search allowance: a deadline and a count of positions, shared by every solver
/// call the decision makes.
pub struct Allowance {
    pub(crate) deadline: Option<Instant>,
    pub(crate) positions_left: Option<u64>,
    pub(crate) used: u64,
}

impl Allowance {
    /// An allowance until `deadline` (if any) of `positions` (if any).
    pub fn new(deadline: Option<Instant>, positions: Option<u64>) -> Allowance {
        Allowance { deadline, positions_left: positions, used: 0 }
    }

    /// A budget for the next solver call: what is left of both limits.
    pub fn budget(&self) -> Budget {
        let budget = match self.deadline {
            Some(deadline) => Budget::until(deadline),
            None => Budget::unlimited(),
        };
        match self.positions_left {
            Some(left) => budget.with_tick_limit(left),
            None => budget,
        }
    }

    /// Counts the positions a solver call searched.
    pub fn spend(&mut self, positions: u64) {
        self.used += positions;
        self.positions_left = self.positions_left.map(|left| left.saturating_sub(positions));
    }

    /// The positions searched so far.
    pub fn used(&self) -> u64 {
        self.used
    }
}
