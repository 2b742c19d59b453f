//! Iterative-deepening alpha-beta for the anytime `search` bot: one ply deeper at a time until
//! the budget runs out or the answer is exact, with a territory heuristic at the leaves.

use super::{INF, Solver};
use crate::budget::Budget;
use crate::games::painters::map::{Bits, rooms};

/// What an iterative-deepening search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub room: u8,
    /// The value at the depth reached (exact when `exact`).
    pub value: i32,
    /// The deepest completed iteration, in plies.
    pub depth: u32,
    /// Whether that iteration needed no heuristic leaf, so `value` is the game's value.
    pub exact: bool,
}

/// Regions at most this big are solved exactly at the leaves of the depth-limited search.
const EXACT_REGION: u32 = 40;

impl<B: Bits> Solver<B> {
    /// Iterative-deepening alpha-beta for the anytime bot: deepens one ply at a time until
    /// the budget runs out or the answer is exact, and returns the best move of the deepest finished
    /// iteration. `order` is the root move order of the first iteration (a bot shuffles it with
    /// its seed); later iterations try the previous best move first. `None` if the painter
    /// cannot move.
    pub fn iterative(
        &mut self,
        open: B,
        mover: u8,
        other: u8,
        mut order: Vec<u8>,
        budget: Budget,
    ) -> Option<Found> {
        debug_assert!(order.iter().all(|&m| self.geo.neighbours[mover as usize].has(m)));
        let mut found: Option<Found> = None;
        let max_depth = open.count_ones() + 1;
        for depth in 1..=max_depth {
            // Every iteration runs against the same allowance.
            self.budget = budget.clone().check_every(super::CLOCK_EVERY);
            self.inexact = false;
            let mut best: Option<(u8, i32)> = None;
            for &m in &order {
                let alpha = best.map_or(-INF, |(_, v)| v);
                let v =
                    1 - self.search_depth(open & !B::bit(m), other, m, depth - 1, -INF, 1 - alpha);
                if self.budget.is_out() {
                    break;
                }
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((m, v));
                }
            }
            if self.budget.is_out() {
                break;
            }
            let (room, value) = best?;
            found = Some(Found { room, value, depth, exact: !self.inexact });
            if !self.inexact {
                break;
            }
            if let Some(i) = order.iter().position(|&m| m == room) {
                order[..=i].rotate_right(1);
            }
        }
        found
            .or_else(|| order.first().map(|&room| Found { room, value: 0, depth: 0, exact: false }))
    }

    /// Depth-limited negamax with a heuristic at the leaves; exact where the painters' regions
    /// are apart and small.
    fn search_depth(
        &mut self,
        open: B,
        mover: u8,
        other: u8,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let geo = &self.geo;
        let mine = geo.neighbours[mover as usize] & open;
        let theirs = geo.neighbours[other as usize] & open;
        if mine.is_empty() {
            if theirs.is_empty() {
                return 0;
            }
            let region = geo.component(open, theirs);
            return -self.path_value(other, region);
        }
        let my_region = geo.component(open, mine);
        if theirs.is_empty() {
            return self.path_value(mover, my_region);
        }
        if (my_region & theirs).is_empty() {
            let their_region = geo.component(open, theirs);
            return self.path_value(mover, my_region) - self.path_value(other, their_region);
        }
        self.stats.nodes += 1;
        if self.tick() {
            return 0;
        }
        if depth == 0 {
            self.inexact = true;
            return self.voronoi(open, mover, other);
        }
        let mut best = -INF;
        for m in rooms(mine) {
            let v =
                1 - self.search_depth(open & !B::bit(m), other, m, depth - 1, 1 - beta, 1 - alpha);
            if self.budget.is_out() {
                return 0;
            }
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The longest path when the region is small enough to solve, else its bound.
    fn path_value(&mut self, from: u8, region: B) -> i32 {
        if region.count_ones() <= EXACT_REGION {
            self.longest(from, region)
        } else {
            self.inexact = true;
            self.path_bound(from, region)
        }
    }

    /// Rooms the mover reaches strictly first (ties go to the mover, who moves first) minus the
    /// rooms the other reaches first.
    pub fn voronoi(&self, open: B, mover: u8, other: u8) -> i32 {
        let (me, them) = self.voronoi_cells(open, mover, other);
        me.count_ones() as i32 - them.count_ones() as i32
    }

    /// The rooms of `open` the mover reaches first (ties to the mover) and those the other
    /// reaches first, each painter's rooms blocking the other's way.
    pub(super) fn voronoi_cells(&self, open: B, mover: u8, other: u8) -> (B, B) {
        let expand =
            |set: B| rooms(set).fold(B::ZERO, |acc, r| acc | self.geo.neighbours[r as usize]);
        let (mut front_me, mut front_them) = (B::bit(mover), B::bit(other));
        let (mut me, mut them) = (B::ZERO, B::ZERO);
        while !(front_me | front_them).is_empty() {
            front_me = expand(front_me) & open & !(me | them);
            me |= front_me;
            front_them = expand(front_them) & open & !(me | them);
            them |= front_them;
        }
        (me, them)
    }
}
