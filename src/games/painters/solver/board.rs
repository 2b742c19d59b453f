//! The solver for a board of any side: the one search of [`Solver`], built over a `u128` when the
//! museum fits one (side 11 and below, as fast as before wider boards existed; over a [`Popcnt`]
//! where the processor counts bits in one instruction) and over [`Wide`] beyond. The choice is
//! made once, when the solver is made; every call after it converts the rules' [`Rooms`] to the
//! solver's sets and runs the same code.

use super::{Found, Profile, Solver, Stats};
use crate::budget::Budget;
use crate::games::painters::map::{Bits, Board, Geometry, Popcnt, Rooms, Wide};

/// A [`Solver`] sized for a museum side: see the module comment.
pub enum BoardSolver {
    /// Sides up to [`u128::MAX_SIDE`](Bits::MAX_SIDE) (11), on a processor without `popcnt`.
    Narrow(Solver<u128>),
    /// The same sides, on a processor with `popcnt`: the same search, in fewer instructions.
    Counted(Solver<Popcnt>),
    /// Sides 12 and 13.
    Wide(Solver<Wide>),
}

/// Runs `$body` with `$s` bound to the solver inside, whichever its sets are.
macro_rules! each {
    ($solver:expr, $s:ident => $body:expr) => {
        match $solver {
            BoardSolver::Narrow($s) => $body,
            BoardSolver::Counted($s) => $body,
            BoardSolver::Wide($s) => $body,
        }
    };
}

impl BoardSolver {
    /// A solver for museums of side `size` whose tables grow up to `2^max_bits` entries (see
    /// [`Solver::new`]).
    pub fn new(size: u32, max_bits: u32) -> BoardSolver {
        if size <= u128::MAX_SIDE && Popcnt::available() {
            BoardSolver::Counted(Solver::new(Geometry::new(size), max_bits))
        } else if size <= u128::MAX_SIDE {
            BoardSolver::Narrow(Solver::new(Geometry::new(size), max_bits))
        } else {
            BoardSolver::Wide(Solver::new(Geometry::new(size), max_bits))
        }
    }

    /// A solver for `board`'s side with the tables [`BoardSolver::bits_for`] it.
    pub fn for_board(board: &Board) -> BoardSolver {
        BoardSolver::new(board.size(), BoardSolver::bits_for(board.size()))
    }

    /// See [`Solver::bits_for`].
    pub fn bits_for(size: u32) -> u32 {
        Solver::<u128>::bits_for(size)
    }

    pub fn stats(&self) -> Stats {
        each!(self, s => s.stats)
    }

    pub fn reset_stats(&mut self) {
        each!(self, s => s.stats = Stats::default());
    }

    /// Collects a [`Profile`] of the searches from now on.
    pub fn start_profile(&mut self) {
        each!(self, s => s.profile = Some(Box::default()));
    }

    /// What the searches collected since [`BoardSolver::start_profile`].
    pub fn profile(&self) -> Option<&Profile> {
        each!(self, s => s.profile.as_deref())
    }

    /// See [`Solver::preallocate`].
    pub fn preallocate(&mut self) {
        each!(self, s => s.preallocate());
    }

    /// See [`Solver::solve_board`].
    pub fn solve_board(&mut self, board: &Board) -> i32 {
        each!(self, s => s.solve_board(board))
    }

    /// See [`Solver::value_range`].
    pub fn value_range(&mut self, open: Rooms, mover: u8, other: u8, budget: Budget) -> (i32, i32) {
        each!(self, s => s.value_range(Bits::from_wide(open), mover, other, budget))
    }

    /// See [`Solver::value`].
    pub fn value(&mut self, open: Rooms, mover: u8, other: u8, budget: Budget) -> Option<i32> {
        each!(self, s => s.value(Bits::from_wide(open), mover, other, budget))
    }

    /// See [`Solver::best_move`].
    pub fn best_move(
        &mut self,
        open: Rooms,
        mover: u8,
        other: u8,
        budget: Budget,
    ) -> Option<(u8, i32)> {
        each!(self, s => s.best_move(Bits::from_wide(open), mover, other, budget))
    }

    /// See [`Solver::iterative`].
    pub fn iterative(
        &mut self,
        open: Rooms,
        mover: u8,
        other: u8,
        order: Vec<u8>,
        budget: Budget,
    ) -> Option<Found> {
        each!(self, s => s.iterative(Bits::from_wide(open), mover, other, order, budget))
    }

    /// See [`Solver::greedy`].
    pub fn greedy(&self, open: Rooms, mover: u8, other: u8) -> Option<u8> {
        each!(self, s => s.greedy(Bits::from_wide(open), mover, other))
    }
}

impl<B: Bits> Solver<B> {
    /// The `greedy` bot's move for the painter at `mover`, or `None` if it cannot move: the
    /// move after which its reachable region most outgrows the other's (rooms it reaches first
    /// count for it, as in [`Solver::voronoi`]); ties go to the move with fewer exits, which
    /// hugs walls and keeps the open space for later.
    pub fn greedy(&self, open: B, mover: u8, other: u8) -> Option<u8> {
        let geo = self.geometry();
        crate::games::painters::map::rooms(geo.neighbours[mover as usize] & open).max_by_key(|&m| {
            let after = open & !B::bit(m);
            let score = -self.voronoi(after, other, m);
            let exits = (geo.neighbours[m as usize] & after).count_ones() as i32;
            (score, -exits, std::cmp::Reverse(m))
        })
    }
}
