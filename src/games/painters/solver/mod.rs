//! The exact Painters' Duel solver, and the depth-limited search the anytime bot runs.
//!
//! The game is symmetric: both painters follow the same rules and the score is a difference, so
//! a position's value for the painter to move depends only on the open rooms and the two
//! positions. The search is negamax alpha-beta over `(open rooms, mover, other)` with:
//!
//! - **bitboards**: a set of rooms is a `u128` up to side 11 and three `u64` words beyond
//!   ([`Bits`]; [`BoardSolver`] picks one by side, once), a move is a bit;
//! - **canonical positions**: open rooms neither painter can ever reach are dropped from the
//!   state, so positions that differ only in dead pockets share one table entry;
//! - **region separation**: once the painters' reachable regions are disjoint, nothing one does
//!   can touch the other, and the value is the difference of two longest simple paths, each
//!   solved exactly by its own memoised search;
//! - **path bounds**: a path alternates up and down rooms (the museum graph is bipartite) and
//!   only its last room can be a dead end (its last but one a dead end once those are gone, and
//!   so on, peeled where a cut is near), which bounds what a painter can still paint; a greedy
//!   (Warnsdorff) walk gives a path to beat; the bounds cut both searches;
//! - **territory bound**: the other painter can paint a path of rooms it reaches before the
//!   mover whatever the mover does (a "safe walk"); the mover's path bound in the rooms left,
//!   minus that path, caps the mover's score;
//! - **lazy longest paths**: once apart, a greedy walk and the path bound of each side often
//!   settle the window, and an exact longest path is searched only when they do not;
//! - **move ordering and principal variation search**: the table's move, then the moves that
//!   cut off most often elsewhere with the other painter in the same room (a history table per
//!   mover's room, door and other painter's room, weighted by the open region), then those that
//!   cut off most often from this room wherever the other stood, then towards open space; later
//!   moves are first searched with a null window;
//! - **a transposition table that keeps both bounds**: each entry holds a lower and an upper
//!   bound of the value (equal when exact), merged as searches with different windows learn
//!   more, plus the best move for ordering.
//!
//! `solve` stays exact: entries only ever record what a search proved for its window, and every
//! cut-off is a proved bound (each proof is in the comment where the bound is made, all of them
//! together in docs/painters.md, "Why each pruning is right"; `tests.rs` checks each against a
//! plain minimax and shows that a deliberately wrong version of each is caught).
//!
//! The solver's parts: this file holds the exact game-tree search, `table.rs` the transposition
//! and longest-path tables, `paths.rs` the longest-path search and its bounds, `anytime.rs` the
//! depth-limited iterative deepening of the `search` bot, `board.rs` the choice of bit sets by
//! side ([`BoardSolver`]) and the `greedy` bot's move.

mod anytime;
mod board;
mod dfpn;
mod paths;
mod table;

pub use anytime::Found;
pub use board::BoardSolver;

use super::map::{Bits, Board, Geometry, rooms};
use crate::budget::Budget;
use table::{Entry, PathEntry};

/// How often a search reads the clock, in nodes: a node of a big museum costs microseconds, and
/// reading the clock tens of nanoseconds.
const CLOCK_EVERY: u64 = 64;

/// Larger than any score difference (at most 169 rooms).
pub(crate) const INF: i32 = 1000;

/// The territory bound asks the mover's exact longest path when it misses a cut by at most
/// this much and the mover reaches at most [`EXACT_ROOMS`] rooms: more often (a margin of 2 or
/// 5, or any region) the longest-path searches cost more than the positions they spare (S = 11,
/// docs/painters.md, "Benchmarks").
const EXACT_MARGIN: i32 = 1;
const EXACT_ROOMS: u32 = 40;

/// The range `(lower, upper)` of a value once a fail-soft search with window `(low, high)`
/// answered `v`: at most `v` when `v <= low`, at least `v` when `v >= high`, else exactly `v`.
fn narrowed((lower, upper): (i32, i32), v: i32, (low, high): (i32, i32)) -> (i32, i32) {
    if v <= low {
        (lower, v)
    } else if v >= high {
        (v, upper)
    } else {
        (v, v)
    }
}

/// The answer a fail-soft search with window `(low, high)` may give at once when the value is
/// known to lie in `(lower, upper)`: exact, at least `high`, or at most `low`.
fn settled((lower, upper): (i32, i32), (low, high): (i32, i32)) -> Option<i32> {
    if lower == upper || lower >= high {
        Some(lower)
    } else if upper <= low {
        Some(upper)
    } else {
        None
    }
}

/// The first step of the driver's gallop ([`Questions`]): after "above 0?", the next question
/// lies this far past the bound the answer proved. Node counts (game + path) over S = 11 seeds 1
/// to 40: bisection 11.63 M, steps from 1 10.96 M, from 2 10.06 M, from 3 10.56 M, from 4
/// 10.06 M (but the hardest, seed 25, 1.42 M from 2 and 1.63 M from 4, and seeds 16 and 30
/// fall most from 2); seeds 41 to 60, not tuned on: bisection 5.15 M, from 2 5.03 M
/// (docs/painters.md, eleventh round).
const GALLOP_FIRST_STEP: i32 = 2;

/// The order of the driver's questions "is the value above `t`?" ([`Solver::value_range`]): 0
/// first, then away from 0 in the direction of the answers, each question `step` past the
/// bound proved so far with the step doubling from [`GALLOP_FIRST_STEP`] (galloping), until an
/// answer goes the other way; then bisection of the range left. Any order gives the same value
/// (each answer is a true bound, and the range only narrows); this one asks few questions when
/// the value is near 0, where the hardest open boards' values are and where every question
/// costs most: the questions near the value are the dear ones, and bisection of the whole range
/// asks several of them (S = 11 seed 25, value 2: "above 4?" and "above 8?" cost 0.59 M and
/// 0.29 M positions, both spared by the gallop; docs/painters.md, eleventh round).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Questions {
    /// No question asked yet.
    First,
    /// Every answer so far said "above": the next question lies the step above the lower bound.
    Up(i32),
    /// Every answer so far said "not above": the next question lies the step below the upper
    /// bound.
    Down(i32),
    /// The answers went both ways: the value lies in the range between, bisected.
    Bisect,
}

impl Questions {
    /// The next question `t` ("above `t`?") for a value known to lie in `lower..=upper`
    /// (`lower < upper`): always inside, `lower <= t < upper`, so each answer narrows the range.
    fn question(self, lower: i32, upper: i32) -> i32 {
        let t = match self {
            Questions::First => 0,
            Questions::Up(step) => lower - 1 + step,
            Questions::Down(step) => upper - step,
            Questions::Bisect => lower + (upper - lower) / 2,
        };
        t.clamp(lower, upper - 1)
    }

    /// The order after a question answered "above" (`above`) or "not above".
    fn answered(self, above: bool) -> Questions {
        match (self, above) {
            (Questions::First, true) => Questions::Up(GALLOP_FIRST_STEP),
            (Questions::First, false) => Questions::Down(GALLOP_FIRST_STEP),
            (Questions::Up(step), true) => Questions::Up(step * 2),
            (Questions::Down(step), false) => Questions::Down(step * 2),
            _ => Questions::Bisect,
        }
    }
}

/// A deliberately wrong rule, one per pruning, that a test switches on to show that the checks
/// against the plain solver catch a broken pruning (`tests.rs`). Release builds have no switch:
/// [`Solver::wrong`] is then `false` and compiles away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Wrong {
    /// The path bound one room too low.
    PathBound,
    /// Dead ends counted without the painter's own room, so a room entered first and left by
    /// its one other door counts as a dead end.
    DeadEnds,
    /// Dead ends of the second and later layers counted without the painter's own room (as
    /// the first layer's are in `DeadEnds`).
    PeelDoors,
    /// The greedy walk, a lower bound, one room too long.
    Walk,
    /// The safe walk forgets that the rival moves first.
    SafeWalkLate,
    /// The safe walk's later phases count the rival's moves from zero again.
    SafeWalkRestart,
    /// The territory bound one too low.
    Territory,
    /// The territory bound through the mover's exact longest path one too low.
    TerritoryLongest,
    /// The territory bound credits the walk after the safe walk with rooms the rival can
    /// still reach, not only the ones the safe walk cut off from it.
    Hinterland,
    /// The longest-path search skips exits whose bound only ties the path to beat.
    ChildSkip,
    /// The table records a fail-low result as exact.
    TableExact,
    /// The history table's slot takes the door as the room moved into modulo 3, which is not
    /// one slot per door (two doors of a room can share it).
    HistorySlot,
    /// Proof-number search asks a child whether its value is above `1 - t` instead of `-t`.
    ProofThreshold,
    /// Proof-number search's disproof number is its children's smallest proof number instead
    /// of their sum, so one child proved disproves a position.
    ProofSum,
    /// Proof-number search takes a new position's guess (from its Voronoi cells), which its
    /// initial numbers start from, for a bound: the position proved when the guess is above the
    /// question.
    GuessProves,
}

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

/// Where a search's nodes go, for finding what to improve (`PAINTERS_PROFILE=1 cargo bench
/// --bench painters`): collected only when [`Solver::profile`] is `Some`, so an ordinary solve
/// pays one branch per node.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Each null-window search of the driver: `(guess, answer, game nodes, path nodes)`.
    pub passes: Vec<(i32, i32, u64, u64)>,
    /// Searched game-tree nodes (the painters in one region, no cheap bound settled the
    /// window) by the number of rooms either painter can reach, in buckets of 8.
    pub by_region: [u64; 16],
    /// The same nodes by the distance between the painters through open rooms (15: 15 or
    /// more).
    pub by_distance: [u64; 16],
    /// Positions settled without a search: the regions apart (or a painter stuck), the
    /// mover's path bound, the other's path bound, the table, the territory bound.
    pub settled: [u64; 5],
    /// Searched nodes cut off by their first move, by a later one, and with every move
    /// searched and none reaching beta (ordering quality: a cut-off after the first move
    /// means the first move's subtree was wasted).
    pub first_move_cutoffs: u64,
    pub later_cutoffs: u64,
    pub all_moves_searched: u64,
}

/// What [`Profile::settled`] counts, by index.
#[derive(Clone, Copy)]
enum Settled {
    Apart,
    MoverBound,
    OtherBound,
    Table,
    Territory,
}

/// Counts a position settled without a search, when profiling (a free function, so it borrows
/// only the profile while the search holds the geometry).
#[inline]
fn settled_by(profile: &mut Option<Box<Profile>>, how: Settled) {
    if let Some(p) = profile {
        p.settled[how as usize] += 1;
    }
}

/// A position [`Solver::settle`] could not answer: what searching its moves needs.
pub(crate) struct Node<B: Bits> {
    /// The mover's moves.
    mine: B,
    /// The open rooms either painter can reach (the table's key).
    relevant: B,
    /// The table's best move, or `u8::MAX`.
    first: u8,
    /// The window, narrowed by the table's bounds.
    alpha: i32,
    beta: i32,
    /// Bounds of the value that are proved, `low <= value <= high`: the cheap answers' (the
    /// other's path bound, the territory bound), narrowed by the table's bounds (what earlier
    /// searches proved, such as an earlier question of the driver; they do not settle this
    /// window, or the table would have answered). Proof-number search's initial numbers
    /// start from them.
    high: i32,
    low: i32,
}

/// The exact solver and its tables, reused across positions of one board (a bot keeps one for a
/// whole match, so later turns start from what earlier ones learnt).
pub struct Solver<B: Bits = u128> {
    geo: Geometry<B>,
    table: Vec<Entry<B>>,
    /// Used entries of `table`: it grows (4x) when three quarters are used, up to `max_len`.
    table_used: usize,
    paths: Vec<PathEntry<B>>,
    paths_used: usize,
    max_len: usize,
    budget: Budget,
    /// Whether the current depth-limited iteration used a heuristic value.
    inexact: bool,
    pub stats: Stats,
    /// How often each move cut off a search, weighted by the open region's size: one slot per
    /// mover's room, door of that room (0 to 2) and other painter's room
    /// ([`Solver::history_slot`]).
    history: Vec<u32>,
    /// The same counts per mover's room and room moved into only, whoever the rival: the
    /// order among moves whose counts above tie (most often: none yet).
    history_any: Vec<u32>,
    /// The mover's breadth-first layers of the node being searched (see
    /// [`paths::layers_into`]), measured while flooding its region and read by the territory
    /// bound's safe walk before any child is searched.
    layers: Vec<B>,
    /// The safe walk's layers in its later phases (scratch, kept to spare an allocation).
    walk_layers: Vec<B>,
    /// Where the nodes go, when asked for (benchmarks).
    pub profile: Option<Box<Profile>>,
    /// Proof-number search's table (empty until first used; see `dfpn.rs`).
    proofs: Vec<dfpn::ProofEntry<B>>,
    proofs_used: usize,
    /// Positions reaching at most this many rooms are left to alpha-beta by the proof-number
    /// search ([`dfpn::PROOF_ROOMS`]; the tests set 0, so that their small boards are searched
    /// by proof numbers down to the leaves).
    proof_rooms: u32,
    /// The deliberately wrong rule switched on, if any (tests only).
    #[cfg(test)]
    wrong: Option<Wrong>,
}

impl<B: Bits> Solver<B> {
    /// A solver whose tables grow up to `2^max_bits` game entries and as many path entries
    /// (32 bytes each). They start small: most positions need few.
    pub fn new(geo: Geometry<B>, max_bits: u32) -> Solver<B> {
        let max_len = 1usize << max_bits.max(1);
        let n = max_len.min(1 << 10);
        Solver {
            geo,
            table: table::huge_table(n),
            table_used: 0,
            paths: table::huge_table(n),
            paths_used: 0,
            max_len,
            budget: Budget::unlimited(),
            inexact: false,
            stats: Stats::default(),
            history: vec![0; B::CAPACITY * 3 * B::CAPACITY],
            history_any: vec![0; B::CAPACITY * B::CAPACITY],
            layers: vec![B::ZERO; B::CAPACITY + 2],
            walk_layers: vec![B::ZERO; B::CAPACITY + 2],
            profile: None,
            proofs: Vec::new(),
            proofs_used: 0,
            proof_rooms: dfpn::PROOF_ROOMS,
            #[cfg(test)]
            wrong: None,
        }
    }

    /// Whether the deliberately wrong `rule` is switched on (tests only; always `false` in a
    /// release build).
    #[inline(always)]
    fn wrong(&self, rule: Wrong) -> bool {
        #[cfg(test)]
        return self.wrong == Some(rule);
        #[cfg(not(test))]
        {
            let _ = rule;
            false
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
    /// side `size`: 2^22 entries are 128 MiB per table. Up to side 11, 2^21: on the benchmark's
    /// S = 11 boards the last growth to 2^22 (the kernel zeroing another 96 MiB per table, and
    /// the rehash) cost more time than the 0.1 % of positions it spares (docs/painters.md).
    pub fn bits_for(size: u32) -> u32 {
        match size {
            0..=6 => 20,
            7..=11 => 21,
            _ => 22,
        }
    }

    pub fn geometry(&self) -> &Geometry<B> {
        &self.geo
    }

    /// The value of a fresh board: the best score Alma can guarantee.
    pub fn solve_board(&mut self, board: &Board) -> i32 {
        let [a, b] = board.starts;
        let open = self.geo.all & !B::from_wide(board.blocked) & !B::bit(a) & !B::bit(b);
        let (value, _) = self.value_range(open, a, b, Budget::unlimited());
        value
    }

    /// What null-window searches proved about the value before `budget` ran out: `(lower,
    /// upper)`, equal once exact. Each search narrows the range left (in the order of
    /// [`Questions`]), so a search cut short by its budget still says how far it got (the
    /// benchmark reports this for the largest side).
    /// Each question "is the value above `guess`?" is answered by proof-number search over the
    /// same positions and bounds as alpha-beta, alpha-beta taking over in small regions
    /// (`dfpn.rs`; on the open S = 11 boards about half the nodes of alpha-beta alone).
    pub fn value_range(&mut self, open: B, mover: u8, other: u8, budget: Budget) -> (i32, i32) {
        self.budget = budget.check_every(CLOCK_EVERY);
        let most = open.count_ones() as i32 + 1;
        let (mut lower, mut upper) = (-most, most);
        let mut order = Questions::First;
        while lower < upper {
            let guess = order.question(lower, upper);
            let before = (self.stats.nodes, self.stats.path_nodes);
            let v = self.proof_search(open, mover, other, guess);
            if let Some(p) = &mut self.profile {
                let (nodes, path_nodes) = (self.stats.nodes, self.stats.path_nodes);
                p.passes.push((guess, v, nodes - before.0, path_nodes - before.1));
            }
            if self.budget.is_out() {
                break;
            }
            (lower, upper) = narrowed((lower, upper), v, (guess, guess + 1));
            order = order.answered(v > guess);
        }
        (lower, upper)
    }

    /// The exact value for the painter at `mover` to move, or `None` if `budget` ran out first.
    /// Found by null-window searches ([`Solver::value_range`]): on open S = 10 boards they
    /// visit about a third fewer positions than one full-window search.
    pub fn value(&mut self, open: B, mover: u8, other: u8, budget: Budget) -> Option<i32> {
        let (lower, upper) = self.value_range(open, mover, other, budget);
        (lower == upper).then_some(lower)
    }

    /// An optimal move for the painter at `mover` and the value it secures, or `None` if the
    /// painter cannot move or `budget` ran out first.
    pub fn best_move(
        &mut self,
        open: B,
        mover: u8,
        other: u8,
        budget: Budget,
    ) -> Option<(u8, i32)> {
        if (self.geo.neighbours[mover as usize] & open).is_empty() {
            return None;
        }
        // The value first, by the driver's proof-number search (about half the positions of a
        // full-window search of each move on open S = 11 boards), then the first move, in the
        // table's order, that keeps it: the question "is the child's value above `1 - v`?"
        // answered no (a fail-soft answer at most `1 - v`) proves `1 - value(child) >= v`, and
        // no move gives more than the value. The table holds what the value's search proved, so
        // this is mostly one probe.
        let v = self.value(open, mover, other, budget)?;
        for m in self.ordered_moves(open, mover, other) {
            let child = self.proof_search(open & !B::bit(m), other, m, 1 - v);
            if self.budget.is_out() {
                return None;
            }
            if child <= 1 - v {
                return Some((m, v));
            }
        }
        // Some move keeps an exact value; a caller without a move falls back as on a budget.
        debug_assert!(false, "no move keeps the value {v}");
        None
    }

    fn ordered_moves(&self, open: B, mover: u8, other: u8) -> Vec<u8> {
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
    fn canonical(&self, open: B, mover: u8, other: u8) -> B {
        let from = self.geo.neighbours[mover as usize] | self.geo.neighbours[other as usize];
        self.geo.component(open, from)
    }

    /// Records a searched node's region size and the painters' distance, when profiling.
    fn profile_node(&mut self, relevant: B, mover: u8, other: u8) {
        let Some(p) = &mut self.profile else { return };
        p.by_region[(relevant.count_ones() as usize / 8).min(15)] += 1;
        let through = relevant | B::bit(other);
        let (mut reached, mut frontier, mut distance) = (B::bit(mover), B::bit(mover), 0);
        while !frontier.has(other) && !frontier.is_empty() && distance < 15 {
            frontier = self.geo.neighbours_of(frontier) & through & !reached;
            reached |= frontier;
            distance += 1;
        }
        p.by_distance[distance] += 1;
    }

    /// The history table's slot of the move from `mover` into `to` (a room next to it) with the
    /// other painter at `other`: which of `mover`'s doors (0 to 2, in room order) leads to `to`,
    /// and where the other painter stands. Keyed by the other painter's room as well: which
    /// move refutes a position depends on where the rival is (ordering by a history per `(from,
    /// to)` alone, as before, visited 20 % more positions on thirty open S = 11 boards; by this
    /// one alone, without [`Solver::history_any`] to break its ties, fewer still on those but
    /// up to twice as many on S = 12; docs/painters.md, "Benchmarks").
    #[inline]
    fn history_slot(&self, mover: u8, to: u8, other: u8) -> usize {
        let door = if self.wrong(Wrong::HistorySlot) {
            to as usize % 3
        } else {
            (self.geo.neighbours[mover as usize] & B::first(to as usize)).count_ones() as usize
        };
        (mover as usize * 3 + door) * B::CAPACITY + other as usize
    }

    /// Counts a node against the budget; true once it is spent.
    #[inline]
    fn tick(&mut self) -> bool {
        self.budget.tick().is_err()
    }

    /// The value once the painters' regions are apart: the difference of two longest paths.
    /// Cheap bounds on both (a greedy walk below, the path bound above) often settle the window
    /// (a fail-soft bound is all the caller needs), sparing one or both exact searches.
    fn apart(&mut self, mover: u8, mine: B, other: u8, theirs: B, alpha: i32, beta: i32) -> i32 {
        let (mut my_low, mut my_high) = (self.walk(mover, mine), self.path_bound(mover, mine));
        let (mut their_low, mut their_high) =
            (self.walk(other, theirs), self.path_bound(other, theirs));
        loop {
            let (low, high) = (my_low - their_high, my_high - their_low);
            if high <= alpha || low == high {
                return high;
            }
            if low >= beta {
                return low;
            }
            // Narrow the side with the wider gap first, asking its longest path only what the
            // window needs: below it (the value stays at most alpha), above it (at least
            // beta), or exactly.
            if my_high - my_low >= their_high - their_low {
                let window = (alpha + their_low, beta + their_high);
                let v = self.longest_within(mover, mine, window.0, window.1);
                (my_low, my_high) = narrowed((my_low, my_high), v, window);
            } else {
                let window = (my_low - beta, my_high - alpha);
                let v = self.longest_within(other, theirs, window.0, window.1);
                (their_low, their_high) = narrowed((their_low, their_high), v, window);
            }
        }
    }

    /// An upper bound on what `rival` paints minus what `painter` paints from now on, among
    /// the `relevant` open rooms: `painter` can paint its safe walk whatever `rival` does (see
    /// [`Solver::safe_walk`]; `rival_first`: the rival moves next), then a walk into the rooms
    /// the safe walk cuts off from `rival` (its hinterland), and `rival` paints at most its
    /// path bound in the rooms it can still reach.
    ///
    /// Why it bounds the value: take the one strategy of `painter` "walk the safe walk `W`,
    /// then the greedy walk `G` into the hinterland `H`, then anything". `rival` never enters a
    /// room of `W` (see [`Solver::safe_walk`]), so its path stays in its component of the
    /// rooms without `W` (`reach`), whose path bound is `b`; `H`, the rest, lies outside that
    /// component, so `rival` never enters `H` either. When `W` is done, `H` is untouched (not
    /// `rival`'s, and `W` is apart from it), so `painter` paints all of `G` too. Against that
    /// strategy `rival` scores at most `b - |W| - |G|`, and so at most that against
    /// `painter`'s best play. And as `rival`'s rooms are a simple path from its room through
    /// `reach`, its exact longest path there may stand for `b`.
    ///
    /// Returns `(reach, credit)`, `credit = |W| + |G|`: the bound is `b - credit`, or the
    /// longest path of `rival` through `reach` minus `credit`. `layers`: the rival's
    /// breadth-first layers through `relevant` when the caller has them (see
    /// [`Solver::safe_walk`]).
    pub(crate) fn territory_parts(
        &mut self,
        layers: Option<&[B]>,
        relevant: B,
        painter: u8,
        rival: u8,
        rival_first: bool,
    ) -> (B, i32) {
        let (safe, end, reach) = self.safe_walk(layers, painter, rival, relevant, rival_first);
        let rest = relevant & !safe;
        let hinterland = if self.wrong(Wrong::Hinterland) { rest } else { rest & !reach };
        let beyond = self.walk(end, hinterland);
        (reach, safe.count_ones() as i32 + beyond + i32::from(self.wrong(Wrong::Territory)))
    }

    /// The territory bound as one number, `b - credit` (tests).
    #[cfg(test)]
    pub(crate) fn territory(
        &mut self,
        relevant: B,
        painter: u8,
        rival: u8,
        rival_first: bool,
    ) -> i32 {
        let (reach, credit) = self.territory_parts(None, relevant, painter, rival, rival_first);
        self.path_bound(rival, reach) - credit
    }

    /// Negamax alpha-beta: the value for the painter at `mover` (the rooms it will paint from now
    /// minus the other's), fail-soft: a result `<= alpha` is an upper bound, `>= beta` a lower
    /// bound, anything between exact.
    fn search(&mut self, open: B, mover: u8, other: u8, alpha: i32, beta: i32) -> i32 {
        match self.settle(open, mover, other, alpha, beta) {
            Ok(v) => v,
            Err(node) => self.search_moves(mover, other, node),
        }
    }

    /// A node's cheap answers, in order: a painter stuck or the regions apart, the path
    /// bounds, the table, the territory bound. `Ok(v)`: one of them settles the window `(alpha,
    /// beta)` (fail-soft, as [`Solver::search`]); `Err(node)`: the moves must be searched, in
    /// the window `node` narrows it to. Both searches (alpha-beta and proof numbers) ask this
    /// first at every position.
    fn settle(
        &mut self,
        open: B,
        mover: u8,
        other: u8,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<i32, Node<B>> {
        let geo = &self.geo;
        let mine = geo.neighbours[mover as usize] & open;
        let theirs = geo.neighbours[other as usize] & open;
        if mine.is_empty() {
            if theirs.is_empty() {
                return Ok(0);
            }
            // A painter that cannot move never will again: the other paints its longest path.
            settled_by(&mut self.profile, Settled::Apart);
            let region = geo.component(open, theirs);
            return Ok(self.apart(mover, B::ZERO, other, region, alpha, beta));
        }
        // The mover's region, flooded layer by layer: the territory bound's safe walk below
        // reads the layers as the mover's distances.
        let (my_region, layer_count) = paths::layers_into(geo, &mut self.layers, mine, open);
        if theirs.is_empty() {
            settled_by(&mut self.profile, Settled::Apart);
            return Ok(self.apart(mover, my_region, other, B::ZERO, alpha, beta));
        }
        if (my_region & theirs).is_empty() {
            settled_by(&mut self.profile, Settled::Apart);
            let their_region = geo.component(open, theirs);
            return Ok(self.apart(mover, my_region, other, their_region, alpha, beta));
        }
        self.stats.nodes += 1;
        if self.tick() {
            return Ok(0);
        }
        let relevant = my_region | self.geo.component(open & !my_region, theirs);
        self.prefetch(relevant, mover, other);
        // I paint at least the room I move into, at most my path bound; the other likewise.
        let high = self.path_bound_to(mover, my_region, alpha);
        if high <= alpha {
            settled_by(&mut self.profile, Settled::MoverBound);
            return Ok(high);
        }
        let low = 1 - self.path_bound_to(other, relevant, 1 - beta);
        if low >= beta {
            settled_by(&mut self.profile, Settled::OtherBound);
            return Ok(low);
        }
        self.profile_node(relevant, mover, other);
        let mut first = u8::MAX;
        let mut known = (-INF, INF);
        if let Some(e) = self.probe(relevant, mover, other) {
            self.stats.table_hits += 1;
            let (lower, upper) = (e.lower as i32, e.upper as i32);
            if let Some(v) = settled((lower, upper), (alpha, beta)) {
                settled_by(&mut self.profile, Settled::Table);
                return Ok(v);
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            known = (lower, upper);
            first = e.best;
        }
        // Territory: what the other paints whatever I do caps my score. (The mirror bound, what
        // I paint whatever the other does, cost more time than it saved on open S = 10 boards.)
        // The layers are the mover's distances through `relevant` too: flooding from the
        // mover through `open` stays in `my_region`, which `relevant` holds.
        let layers = std::mem::take(&mut self.layers);
        let (reach, credit) =
            self.territory_parts(Some(&layers[..layer_count]), relevant, other, mover, true);
        self.layers = layers;
        let high = self.path_bound_to(mover, reach, alpha + credit) - credit;
        if high <= alpha {
            settled_by(&mut self.profile, Settled::Territory);
            return Ok(high);
        }
        // Just short of a cut in a small region: my rooms are a simple path from my room
        // through `reach` (see [`Solver::territory_parts`]), so my exact longest path there may take
        // the path bound's place. Asked only whether it exceeds `alpha + credit`: a fail-low
        // answer is at least the longest path, so `longest - credit` is a true upper bound at
        // or below alpha.
        if high <= alpha + EXACT_MARGIN && reach.count_ones() <= EXACT_ROOMS {
            let need = alpha + credit;
            let longest = self.longest_within(mover, reach, need, need + 1);
            if longest <= need {
                settled_by(&mut self.profile, Settled::Territory);
                return Ok(longest - credit - i32::from(self.wrong(Wrong::TerritoryLongest)));
            }
        }
        let (high, low) = (high.min(known.1), low.max(known.0));
        Err(Node { mine, relevant, first, alpha, beta, high, low })
    }

    /// The rest of [`Solver::search`] once [`Solver::settle`] left `node` open: every move, in
    /// order, principal variation search.
    fn search_moves(&mut self, mover: u8, other: u8, node: Node<B>) -> i32 {
        let Node { mine, relevant, first, mut alpha, beta, .. } = node;
        let window_low = alpha;
        let mut moves = [u8::MAX; 3];
        let mut count = 0;
        if first != u8::MAX && mine.has(first) {
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
        let history = |m: u8| self.history[self.history_slot(mover, m, other)];
        let history_any = |m: u8| self.history_any[mover as usize * B::CAPACITY + m as usize];
        moves[start..count]
            .sort_unstable_by_key(|&m| std::cmp::Reverse((history(m), history_any(m), exits(m))));
        // Each child's table bucket, asked for now: unless the move cuts the region in two,
        // the child's position is `relevant` without the room moved into, and its probe comes
        // only after its flood fills and path bounds.
        for &m in &moves[..count] {
            self.prefetch(relevant & !B::bit(m), other, m);
        }
        let mut best = -INF;
        let mut best_move = moves[0];
        for (i, &m) in moves[..count].iter().enumerate() {
            let child = relevant & !B::bit(m);
            // Principal variation search: the first move gets the window, the others a null
            // window that only asks whether they beat alpha, searched again if they do.
            let mut v = if i == 0 || beta - alpha <= 1 {
                1 - self.search(child, other, m, 1 - beta, 1 - alpha)
            } else {
                1 - self.search(child, other, m, -alpha, 1 - alpha)
            };
            if i > 0 && v > alpha && v < beta && beta - alpha > 1 && !self.budget.is_out() {
                v = 1 - self.search(child, other, m, 1 - beta, 1 - v);
            }
            if self.budget.is_out() {
                return 0;
            }
            if v > best {
                best = v;
                best_move = m;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        if let Some(p) = &mut self.profile {
                            *if i == 0 {
                                &mut p.first_move_cutoffs
                            } else {
                                &mut p.later_cutoffs
                            } += 1;
                        }
                        let weight = relevant.count_ones();
                        let slot = self.history_slot(mover, m, other);
                        let count = &mut self.history[slot];
                        *count = count.saturating_add(weight * weight);
                        let count =
                            &mut self.history_any[mover as usize * B::CAPACITY + m as usize];
                        *count = count.saturating_add(weight * weight);
                        break;
                    }
                }
            }
        }
        if best <= window_low
            && let Some(p) = &mut self.profile
        {
            p.all_moves_searched += 1;
        }
        self.store(relevant, mover, other, (window_low, beta), best, best_move);
        best
    }
}

#[cfg(test)]
mod tests;
