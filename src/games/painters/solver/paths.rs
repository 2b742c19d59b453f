//! Longest simple paths in a region of open rooms, and the bounds that cut their search: what a
//! painter can still paint once the painters' regions are apart.

use super::Solver;
use super::table::PathEntry;
use crate::games::painters::board::{Rooms, bit, rooms};
use crate::seed::mix_key;

impl Solver {
    /// An upper bound on the rooms a painter at `from` can still paint in `region` (the open
    /// rooms it can reach): the rooms entered alternate colours (the museum graph is bipartite).
    #[inline]
    pub fn colour_bound(&self, from: u8, region: Rooms) -> i32 {
        let up = self.geo.up;
        let (same, opposite) = if up & bit(from) != 0 {
            (region & up, region & !up)
        } else {
            (region & !up, region & up)
        };
        let same = same.count_ones() as i32;
        let opposite = opposite.count_ones() as i32;
        // Rooms entered alternate opposite, same, opposite, ...
        (same + opposite).min(2 * opposite).min(2 * same + 1)
    }

    /// [`Solver::colour_bound`] refined by dead ends: a room with one open door (counting
    /// `from`'s) can only be a path's last room, so all but one dead end stay unpainted.
    #[inline]
    pub fn path_bound(&self, from: u8, region: Rooms) -> i32 {
        let by_colour = self.colour_bound(from, region);
        let dead_ends =
            (region & self.geo.at_most_one_neighbour_in(region | bit(from))).count_ones();
        by_colour.min(region.count_ones() as i32 - (dead_ends as i32 - 1).max(0))
    }

    /// The longest simple path from `from` into `region` (the open rooms reachable from it),
    /// counted in rooms entered. Exact; memoised on `(region, from)`.
    pub fn longest(&mut self, from: u8, region: Rooms) -> i32 {
        let exits = self.geo.neighbours[from as usize] & region;
        if exits == 0 {
            return 0;
        }
        let bound = self.path_bound(from, region);
        if bound <= 1 {
            return bound;
        }
        self.stats.path_nodes += 1;
        if self.tick() {
            return 0;
        }
        let slot = (mix_key(region, from, 0xFF) as usize) & (self.paths.len() - 1);
        let e = self.paths[slot];
        if e.used && e.open == region && e.from == from {
            return e.length as i32;
        }
        // A greedy walk is a path: if it meets the bound it is a longest one, else it is the
        // length the search has to beat.
        let mut best = self.walk(from, region);
        if best >= bound {
            return best;
        }
        for next in rooms(exits) {
            let rest = region & !bit(next);
            let sub = self.geo.component(rest, self.geo.neighbours[next as usize] & rest);
            if self.path_bound(next, sub) < best {
                continue;
            }
            best = best.max(1 + self.longest(next, sub));
            if best >= bound {
                break;
            }
        }
        if !self.budget.is_out() {
            self.paths_used += usize::from(!self.paths[slot].used);
            self.paths[slot] = PathEntry { open: region, from, length: best as u8, used: true };
            if self.paths_used * 4 > self.paths.len() * 3 && self.paths.len() < self.max_len {
                self.grow_paths();
            }
        }
        best
    }

    /// The length of one path from `from` into `region`, by Warnsdorff's rule: always into the
    /// room with the fewest onward exits, so dead ends are taken last. A lower bound on
    /// [`Solver::longest`], often equal to it.
    pub fn walk(&self, from: u8, region: Rooms) -> i32 {
        let (mut at, mut left, mut length) = (from, region, 0);
        loop {
            let exits = self.geo.neighbours[at as usize] & left;
            if exits == 0 {
                return length;
            }
            let next = rooms(exits)
                .min_by_key(|&r| (self.geo.neighbours[r as usize] & left).count_ones())
                .expect("an exit");
            left &= !bit(next);
            at = next;
            length += 1;
        }
    }
}
