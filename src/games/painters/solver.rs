//! The exact Painters' Duel solver, and the depth-limited search the anytime bot runs.
//!
//! The game is symmetric: both painters follow the same rules and the score is a difference, so
//! a position's value for the painter to move depends only on the open rooms and the two
//! positions. The search is negamax alpha-beta over `(open rooms, mover, other)` with:
//!
//! - **bitboards**: a set of rooms is a `u128`, a move is a bit;
//! - **canonical positions**: open rooms neither painter can ever reach are dropped from the
//!   state, so positions that differ only in dead pockets share one table entry;
//! - **region separation**: once the painters' reachable regions are disjoint, nothing one does
//!   can touch the other, and the value is the difference of two longest simple paths, each
//!   solved exactly by its own memoised search;
//! - **path bounds**: a path alternates up and down rooms (the museum graph is bipartite) and
//!   can end in at most one dead end, which bounds what a painter can still paint; a greedy
//!   (Warnsdorff) walk gives a path to beat; the bounds cut both searches;
//! - **move ordering and principal variation search**: the table's move, then towards open
//!   space; later moves are first searched with a null window;
//! - **a transposition table that keeps both bounds**: each entry holds a lower and an upper
//!   bound of the value (equal when exact), merged as searches with different windows learn
//!   more, plus the best move for ordering.
//!
//! `solve` stays exact: entries only ever record what a search proved for its window.

use std::time::Instant;

use super::board::{Board, Geometry, Rooms, bit, rooms};
use crate::seed::mix_key;

/// Larger than any score difference (at most 121 rooms).
pub const INF: i32 = 1000;

/// Counters, for benchmarks and `--stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Game-tree nodes visited.
    pub nodes: u64,
    /// Longest-path search nodes visited.
    pub path_nodes: u64,
    /// Game-tree nodes answered by the table.
    pub table_hits: u64,
}

/// What one table entry proved about a position's value for the painter to move.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    open: Rooms,
    mover: u8,
    other: u8,
    /// `lower <= value <= upper`; equal when the value is exact.
    lower: i8,
    upper: i8,
    /// The best move found (a room), or `u8::MAX`.
    best: u8,
    used: bool,
}

/// The kind of bound an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundKind {
    Exact,
    Lower,
    Upper,
    /// Both bounds known but not equal.
    Range,
}

impl Entry {
    fn kind(&self) -> BoundKind {
        match (self.lower == self.upper, self.lower > -127, self.upper < 127) {
            (true, _, _) => BoundKind::Exact,
            (false, true, true) => BoundKind::Range,
            (false, true, false) => BoundKind::Lower,
            _ => BoundKind::Upper,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct PathEntry {
    open: Rooms,
    from: u8,
    length: u8,
    used: bool,
}

/// Aborts a search at a deadline: it is checked every 16 nodes: a node
/// of a big museum costs microseconds, and reading the clock tens of nanoseconds.
#[derive(Clone, Copy, Debug)]
struct Clock {
    deadline: Option<Instant>,
    aborted: bool,
}

/// The exact solver and its tables, reused across positions of one board (a bot keeps one for a
/// whole match, so later turns start from what earlier ones learnt).
pub struct Solver {
    geo: Geometry,
    table: Vec<Entry>,
    /// Used entries of `table`: it grows (4x) when three quarters are used, up to `max_len`.
    table_used: usize,
    paths: Vec<PathEntry>,
    paths_used: usize,
    max_len: usize,
    clock: Clock,
    /// Whether the current depth-limited iteration used a heuristic value.
    inexact: bool,
    pub stats: Stats,
}

impl Solver {
    /// A solver whose tables grow up to `2^max_bits` game entries and as many path entries
    /// (32 bytes each). They start small: most positions need few.
    pub fn new(geo: Geometry, max_bits: u32) -> Solver {
        let max_len = 1usize << max_bits.max(1);
        let n = max_len.min(1 << 10);
        Solver {
            geo,
            table: vec![Entry::default(); n],
            table_used: 0,
            paths: vec![PathEntry::default(); n],
            paths_used: 0,
            max_len,
            clock: Clock { deadline: None, aborted: false },
            inexact: false,
            stats: Stats::default(),
        }
    }

    /// Grows both tables to their largest size now, so no later search pauses to grow them (a
    /// bot calls this on its first turn, which has the most time).
    pub fn preallocate(&mut self) {
        while self.table.len() < self.max_len {
            self.grow_table();
        }
        while self.paths.len() < self.max_len {
            self.grow_paths();
        }
    }

    /// The largest tables (as `max_bits` of [`Solver::new`]) worth growing to for a museum of
    /// side `size`: 2^22 entries are 128 MiB per table.
    pub fn bits_for(size: u32) -> u32 {
        match size {
            0..=6 => 20,
            _ => 22,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// The value of a fresh board: the best score Alma can guarantee.
    pub fn solve_board(&mut self, board: &Board) -> i32 {
        let [a, b] = board.starts;
        let open = self.geo.all & !board.blocked & !bit(a) & !bit(b);
        self.clock = Clock { deadline: None, aborted: false };
        self.search(open, a, b, -INF, INF)
    }

    /// The exact value for the painter at `mover` to move, or `None` if `deadline` passed first.
    pub fn value(
        &mut self,
        open: Rooms,
        mover: u8,
        other: u8,
        deadline: Option<Instant>,
    ) -> Option<i32> {
        self.clock = Clock { deadline, aborted: false };
        let v = self.search(open, mover, other, -INF, INF);
        (!self.clock.aborted).then_some(v)
    }

    /// An optimal move for the painter at `mover` and the value it secures, or `None` if the
    /// painter cannot move or `deadline` passed first.
    pub fn best_move(
        &mut self,
        open: Rooms,
        mover: u8,
        other: u8,
        deadline: Option<Instant>,
    ) -> Option<(u8, i32)> {
        self.clock = Clock { deadline, aborted: false };
        let mut best: Option<(u8, i32)> = None;
        for m in self.ordered_moves(open, mover, other) {
            let alpha = best.map_or(-INF, |(_, v)| v);
            let v = 1 - self.search(open & !bit(m), other, m, -INF, 1 - alpha);
            if self.clock.aborted {
                return None;
            }
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((m, v));
            }
        }
        best
    }

    fn ordered_moves(&self, open: Rooms, mover: u8, other: u8) -> Vec<u8> {
        let moves = self.geo.neighbours[mover as usize] & open;
        let mut list: Vec<u8> = rooms(moves).collect();
        let canonical = self.canonical(open, mover, other);
        if let Some(e) = self.probe(canonical, mover, other)
            && let Some(i) = list.iter().position(|&m| m == e.best)
        {
            list.swap(0, i);
        }
        list
    }

    /// The open rooms either painter can still reach.
    fn canonical(&self, open: Rooms, mover: u8, other: u8) -> Rooms {
        let from = self.geo.neighbours[mover as usize] | self.geo.neighbours[other as usize];
        self.geo.component(open, from)
    }

    #[inline]
    fn tick(&mut self) -> bool {
        if self.clock.aborted {
            return true;
        }
        if let Some(deadline) = self.clock.deadline
            && (self.stats.nodes + self.stats.path_nodes) % 16 == 0
            && Instant::now() >= deadline
        {
            self.clock.aborted = true;
        }
        self.clock.aborted
    }

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
        if !self.clock.aborted {
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

    fn grow_paths(&mut self) {
        let len = (self.paths.len() * 4).min(self.max_len);
        let old = std::mem::replace(&mut self.paths, vec![PathEntry::default(); len]);
        self.paths_used = 0;
        for e in old.into_iter().filter(|e| e.used) {
            let slot = (mix_key(e.open, e.from, 0xFF) as usize) & (len - 1);
            self.paths_used += usize::from(!self.paths[slot].used);
            self.paths[slot] = e;
        }
    }

    fn grow_table(&mut self) {
        let len = (self.table.len() * 4).min(self.max_len);
        let old = std::mem::replace(&mut self.table, vec![Entry::default(); len]);
        self.table_used = 0;
        for e in old.into_iter().filter(|e| e.used) {
            let i = self.bucket(e.open, e.mover, e.other);
            let j = if !self.table[i].used { i } else { i + 1 };
            self.table_used += usize::from(!self.table[j].used);
            self.table[j] = e;
        }
    }

    #[inline]
    fn bucket(&self, open: Rooms, mover: u8, other: u8) -> usize {
        (mix_key(open, mover, other) as usize) & (self.table.len() - 2)
    }

    fn probe(&self, open: Rooms, mover: u8, other: u8) -> Option<Entry> {
        let i = self.bucket(open, mover, other);
        [self.table[i], self.table[i + 1]]
            .into_iter()
            .find(|e| e.used && e.open == open && e.mover == mover && e.other == other)
    }

    /// Records what a search of window `(alpha, beta)` returned. Two slots per bucket: a
    /// position already there is refined in place, else the entry with the smaller subtree
    /// (fewer open rooms) is replaced.
    fn store(
        &mut self,
        open: Rooms,
        mover: u8,
        other: u8,
        (alpha, beta): (i32, i32),
        v: i32,
        best: u8,
    ) {
        if self.table_used * 4 > self.table.len() * 3 && self.table.len() < self.max_len {
            self.grow_table();
        }
        let i = self.bucket(open, mover, other);
        let slot = if let Some(j) = [i, i + 1].into_iter().find(|&j| {
            let e = &self.table[j];
            e.used && e.open == open && e.mover == mover && e.other == other
        }) {
            j
        } else {
            let e = Entry { open, mover, other, lower: -127, upper: 127, best, used: true };
            let size = |e: &Entry| if e.used { e.open.count_ones() } else { 0 };
            let j = if size(&self.table[i]) <= open.count_ones() { i } else { i + 1 };
            self.table_used += usize::from(!self.table[j].used);
            self.table[j] = e;
            j
        };
        let e = &mut self.table[slot];
        let v8 = v as i8;
        if v <= alpha {
            e.upper = e.upper.min(v8);
        } else if v >= beta {
            e.lower = e.lower.max(v8);
            e.best = best;
        } else {
            e.lower = v8;
            e.upper = v8;
            e.best = best;
        }
        debug_assert!(e.lower <= e.upper, "contradicting bounds: {:?}", e.kind());
    }

    /// Negamax alpha-beta: the value for the painter at `mover` (the rooms it will paint from now
    /// minus the other's), fail-soft: a result `<= alpha` is an upper bound, `>= beta` a lower
    /// bound, anything between exact.
    fn search(&mut self, open: Rooms, mover: u8, other: u8, mut alpha: i32, mut beta: i32) -> i32 {
        let geo = &self.geo;
        let mine = geo.neighbours[mover as usize] & open;
        let theirs = geo.neighbours[other as usize] & open;
        if mine == 0 {
            if theirs == 0 {
                return 0;
            }
            // A painter that cannot move never will again: the other paints its longest path.
            let region = geo.component(open, theirs);
            return -self.longest(other, region);
        }
        let my_region = geo.component(open, mine);
        if theirs == 0 {
            return self.longest(mover, my_region);
        }
        if my_region & theirs == 0 {
            // Apart: two longest paths. One exact path and the other's bound may already settle
            // the window (a fail-soft bound is all the caller needs), sparing the second search.
            let their_region = geo.component(open, theirs);
            let theirs_exact = self.longest(other, their_region);
            let high = self.path_bound(mover, my_region) - theirs_exact;
            if high <= alpha {
                return high;
            }
            let low = self.walk(mover, my_region) - theirs_exact;
            if low >= beta || low == high {
                return low;
            }
            return self.longest(mover, my_region) - theirs_exact;
        }
        self.stats.nodes += 1;
        if self.tick() {
            return 0;
        }
        let relevant = my_region | self.geo.component(open & !my_region, theirs);
        // I paint at least the room I move into, at most my path bound; the other likewise.
        let high = self.path_bound(mover, my_region);
        if high <= alpha {
            return high;
        }
        let low = 1 - self.path_bound(other, relevant);
        if low >= beta {
            return low;
        }
        let mut first = u8::MAX;
        if let Some(e) = self.probe(relevant, mover, other) {
            self.stats.table_hits += 1;
            let (lower, upper) = (e.lower as i32, e.upper as i32);
            if lower == upper || lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            first = e.best;
        }
        let window_low = alpha;
        let mut moves = [u8::MAX; 3];
        let mut count = 0;
        if first != u8::MAX && mine & bit(first) != 0 {
            moves[0] = first;
            count = 1;
        }
        let start = count;
        for m in rooms(mine) {
            if m != first {
                moves[count] = m;
                count += 1;
            }
        }
        // Then towards open space: on random open S = 8 boards this visits about a quarter fewer
        // nodes than room order (and the reverse, wall hugging, about a third more).
        let exits = |m: u8| (self.geo.neighbours[m as usize] & relevant).count_ones();
        moves[start..count].sort_unstable_by_key(|&m| std::cmp::Reverse(exits(m)));
        let mut best = -INF;
        let mut best_move = moves[0];
        for (i, &m) in moves[..count].iter().enumerate() {
            let child = relevant & !bit(m);
            // Principal variation search: the first move gets the window, the others a null
            // window that only asks whether they beat alpha, searched again if they do.
            let mut v = if i == 0 || beta - alpha <= 1 {
                1 - self.search(child, other, m, 1 - beta, 1 - alpha)
            } else {
                1 - self.search(child, other, m, -alpha, 1 - alpha)
            };
            if i > 0 && v > alpha && v < beta && beta - alpha > 1 && !self.clock.aborted {
                v = 1 - self.search(child, other, m, 1 - beta, 1 - v);
            }
            if self.clock.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = m;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.store(relevant, mover, other, (window_low, beta), best, best_move);
        best
    }
}

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

impl Solver {
    /// Iterative-deepening alpha-beta for the anytime bot: deepens one ply at a time until
    /// `deadline` or an exact answer, and returns the best move of the deepest finished
    /// iteration. `order` is the root move order of the first iteration (a bot shuffles it with
    /// its seed); later iterations try the previous best move first. `None` if the painter
    /// cannot move.
    pub fn iterative(
        &mut self,
        open: Rooms,
        mover: u8,
        other: u8,
        mut order: Vec<u8>,
        deadline: Instant,
    ) -> Option<Found> {
        debug_assert!(order.iter().all(|&m| self.geo.neighbours[mover as usize] & bit(m) != 0));
        let mut found: Option<Found> = None;
        let max_depth = open.count_ones() + 1;
        for depth in 1..=max_depth {
            self.clock = Clock { deadline: Some(deadline), aborted: false };
            self.inexact = false;
            let mut best: Option<(u8, i32)> = None;
            for &m in &order {
                let alpha = best.map_or(-INF, |(_, v)| v);
                let v = 1 - self.search_depth(open & !bit(m), other, m, depth - 1, -INF, 1 - alpha);
                if self.clock.aborted {
                    break;
                }
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((m, v));
                }
            }
            if self.clock.aborted {
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
        open: Rooms,
        mover: u8,
        other: u8,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let geo = &self.geo;
        let mine = geo.neighbours[mover as usize] & open;
        let theirs = geo.neighbours[other as usize] & open;
        if mine == 0 {
            if theirs == 0 {
                return 0;
            }
            let region = geo.component(open, theirs);
            return -self.path_value(other, region);
        }
        let my_region = geo.component(open, mine);
        if theirs == 0 {
            return self.path_value(mover, my_region);
        }
        if my_region & theirs == 0 {
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
            let v = 1 - self.search_depth(open & !bit(m), other, m, depth - 1, 1 - beta, 1 - alpha);
            if self.clock.aborted {
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
    fn path_value(&mut self, from: u8, region: Rooms) -> i32 {
        if region.count_ones() <= EXACT_REGION {
            self.longest(from, region)
        } else {
            self.inexact = true;
            self.path_bound(from, region)
        }
    }

    /// Rooms the mover reaches strictly first (ties go to the mover, who moves first) minus the
    /// rooms the other reaches first.
    pub fn voronoi(&self, open: Rooms, mover: u8, other: u8) -> i32 {
        let expand =
            |set: Rooms| rooms(set).fold(0, |acc, r| acc | self.geo.neighbours[r as usize]);
        let (mut front_me, mut front_them) = (bit(mover), bit(other));
        let mut claimed: Rooms = 0;
        let (mut me, mut them) = (0i32, 0i32);
        while front_me | front_them != 0 {
            front_me = expand(front_me) & open & !claimed;
            claimed |= front_me;
            front_them = expand(front_them) & open & !claimed;
            claimed |= front_them;
            me += front_me.count_ones() as i32;
            them += front_them.count_ones() as i32;
        }
        me - them
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::painters::board::{parse_kickstart, random_board};

    /// The published plain minimax, over rooms as bits: the reference the fast search must match.
    fn minimax(geo: &Geometry, open: Rooms, mover: u8, other: u8) -> i32 {
        let mine = geo.neighbours[mover as usize] & open;
        let theirs = geo.neighbours[other as usize] & open;
        match (mine, theirs) {
            (0, 0) => 0,
            (0, _) => -minimax(geo, open, other, mover),
            _ => rooms(mine)
                .map(|m| 1 - minimax(geo, open & !bit(m), other, m))
                .max()
                .expect("a move"),
        }
    }

    fn brute_longest(geo: &Geometry, from: u8, open: Rooms) -> i32 {
        rooms(geo.neighbours[from as usize] & open)
            .map(|n| 1 + brute_longest(geo, n, open & !bit(n)))
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn the_official_sample() {
        let boards =
            parse_kickstart("sample", include_str!("../../../tests/data/painters/sample.in"))
                .unwrap();
        let values: Vec<i32> =
            boards.iter().map(|b| Solver::new(b.geometry.clone(), 10).solve_board(b)).collect();
        assert_eq!(values, vec![2, 0]);
    }

    #[test]
    fn matches_plain_minimax_on_random_boards() {
        for seed in 0..300u64 {
            let size = 2 + (seed % 3) as u32;
            let board = random_board(size, [0.0, 0.15, 0.3][(seed % 7 % 3) as usize], seed);
            let geo = &board.geometry;
            let [a, b] = board.starts;
            let open = geo.all & !board.blocked & !bit(a) & !bit(b);
            let expected = minimax(geo, open, a, b);
            // A tiny table forces collisions and replacements, which must not change the value.
            let mut solver = Solver::new(geo.clone(), 4);
            assert_eq!(solver.solve_board(&board), expected, "seed {seed}: {board:?}");
            let mut big = Solver::new(geo.clone(), 12);
            assert_eq!(big.solve_board(&board), expected, "seed {seed}");
            // Every optimal move keeps the value.
            let (m, v) = big.best_move(open, a, b, None).unwrap_or((u8::MAX, expected));
            assert_eq!(v, expected);
            if m != u8::MAX {
                assert_eq!(1 - minimax(geo, open & !bit(m), b, m), expected, "seed {seed}");
            }
        }
    }

    #[test]
    fn every_table_entry_holds_a_true_bound() {
        let mut checked = [0usize; 4];
        for seed in 0..60u64 {
            let board = random_board(3 + (seed % 2) as u32, 0.1, seed);
            let geo = &board.geometry;
            let mut solver = Solver::new(geo.clone(), 8);
            solver.solve_board(&board);
            for e in solver.table.iter().filter(|e| e.used) {
                let truth = minimax(geo, e.open, e.mover, e.other);
                assert!(
                    (e.lower as i32) <= truth && truth <= e.upper as i32,
                    "seed {seed}: {:?} entry [{}, {}] but the value is {truth}",
                    e.kind(),
                    e.lower,
                    e.upper
                );
                checked[e.kind() as usize] += 1;
            }
        }
        // The boards exercise exact entries and at least one kind of one-sided bound.
        assert!(checked[BoundKind::Exact as usize] > 0, "{checked:?}");
        assert!(
            checked[BoundKind::Lower as usize] + checked[BoundKind::Upper as usize] > 0,
            "{checked:?}"
        );
    }

    #[test]
    fn longest_paths_match_brute_force_and_bounds_hold() {
        for seed in 0..200u64 {
            let board = random_board(4, 0.25, seed);
            let geo = board.geometry.clone();
            let from = board.starts[0];
            let open = geo.all & !board.blocked & !bit(from);
            let region = geo.component(open, geo.neighbours[from as usize]);
            let mut solver = Solver::new(geo.clone(), 8);
            let exact = brute_longest(&geo, from, region);
            assert_eq!(solver.longest(from, region), exact, "seed {seed}");
            assert!(solver.path_bound(from, region) >= exact, "seed {seed}");
            assert!(solver.walk(from, region) <= exact, "seed {seed}");
            // The bitboard dead-end count agrees with counting doors room by room.
            let reach = region | bit(from);
            let slow: Rooms = rooms(region)
                .filter(|&r| (geo.neighbours[r as usize] & reach).count_ones() <= 1)
                .fold(0, |acc, r| acc | bit(r));
            assert_eq!(region & geo.at_most_one_neighbour_in(reach), slow, "seed {seed}");
        }
    }

    #[test]
    fn a_deadline_in_the_past_aborts() {
        let board = random_board(8, 0.0, 1);
        let [a, b] = board.starts;
        let open = board.geometry.all & !bit(a) & !bit(b);
        let mut solver = Solver::new(board.geometry.clone(), 10);
        assert_eq!(solver.best_move(open, a, b, Some(Instant::now())), None);
    }

    #[test]
    fn iterative_deepening_is_exact_on_small_boards() {
        for seed in 0..60u64 {
            let board = random_board(3 + (seed % 2) as u32, 0.1, seed);
            let geo = &board.geometry;
            let [a, b] = board.starts;
            let open = geo.all & !board.blocked & !bit(a) & !bit(b);
            let order: Vec<u8> = rooms(geo.neighbours[a as usize] & open).collect();
            let mut solver = Solver::new(geo.clone(), 10);
            let deadline = Instant::now() + std::time::Duration::from_secs(60);
            match solver.iterative(open, a, b, order, deadline) {
                None => assert_eq!(geo.neighbours[a as usize] & open, 0),
                Some(found) => {
                    assert!(found.exact, "seed {seed}: {found:?}");
                    assert_eq!(found.value, minimax(geo, open, a, b), "seed {seed}");
                }
            }
        }
    }
}
