//! Depth-first proof-number search (df-pn, Nagai 2002) for the null-window questions of the
//! driver ([`Solver::value_range`]): "is the value above `t`?" is an AND/OR tree over the same
//! positions as alpha-beta, whose leaves are the positions [`Solver::settle`] answers (stuck
//! painter, regions apart, path bounds, table, territory bound). Proof-number search expands
//! the most-proving position first: on the open S = 11 boards it visits about half the
//! positions alpha-beta does with the same bounds (docs/painters.md, "Benchmarks").
//!
//! Negamax form: a position's proof number estimates what proving "value > t" for its mover
//! costs, its disproof number what proving "value <= t" costs. As `value = max over moves (1 -
//! value(child))`, "value > t" holds iff some child has `value(child) <= -t`, i.e. the child's
//! question at `-t` is disproved: `pn = min dn(child)`, `dn = sum pn(child)`. What is solved is
//! solved by the same rule as alpha-beta's (a child answered, all children answered), so the
//! answers are exact whatever the numbers: they only choose the order in which positions are
//! expanded (docs/painters.md, "Why each pruning is right", 12).
//!
//! Four things on top of Nagai's algorithm, each measured: the numbers of a new position start
//! from its cheap bounds and the game table's (what an earlier question proved) narrowed
//! towards a guess from its Voronoi cells (df-pn+: proving is cheap when the lower bound or the
//! guess is near `t`, disproving when the upper bound is, and disproving takes every move;
//! growing quadratically with the distance), among children of equal disproof number the one
//! of largest proof number is expanded, a child's threshold is the second best child's
//! number times 1.5 rather than plus 1 (the 1+epsilon trick of
//! Pawlewicz and Lew, against re-expanding the same two children in turn), and positions with
//! at most [`PROOF_ROOMS`] reachable rooms are solved by alpha-beta at once (their trees are
//! small, and alpha-beta's history ordering serves them better than proof numbers'
//! bookkeeping).

use super::{Solver, Wrong, table};
use crate::games::painters::map::{Bits, rooms};

/// Infinite proof number: the position is disproved (or, as a disproof number, proved).
const INF: u32 = u32::MAX / 2;

/// The proof table's largest size, as a power of two (32 bytes an entry over a `u128`). It
/// starts at 2^10 entries and grows fourfold when three quarters full, as the game table does.
const PROOF_BITS: u32 = 20;

/// Positions whose painters reach at most this many rooms are solved by alpha-beta when first
/// met; so is every side up to 7 (at most 49 rooms) entirely. Node counts (game + path) on
/// S = 11 seed 10 with the numbers below: 0 (proof numbers down to the leaves) 3.40 M, 40 rooms
/// 3.17 M, 50 3.09 M, 60 3.90 M; alpha-beta alone 5.96 M.
pub(super) const PROOF_ROOMS: u32 = 50;

/// A new position's numbers grow by one per this many points between `t` and its cheap bounds
/// (and quadratically, see [`cost`]). S = 11 seed 10, proof numbers down to the leaves, linear
/// numbers: 2 gives 3.42 M nodes, 4 3.01 M, 8 3.08 M; all ones (and the disproof number the
/// moves) 3.38 M. (Measured keyed by canonical rooms.)
const PROOF_SCALE: i32 = 4;

/// The number of a new position whose bound (narrowed towards the guess) lies `d` points
/// beyond the question on the side that proves it: `1 + d / 4 + d^2 / 192`. Far from `t` a
/// position is much less likely to be the cheap one than near it, faster than linearly: node
/// counts (game + path) on S = 11 seeds 1 to 10 with the Voronoi sizes as the guess, linear
/// (`1 + d / 4`) 3.27 M, this 2.98 M; `1 + d^2 / 96` 3.39 M, `2^(d / 4)` 3.20 M, `2^(d / 6)`
/// 3.46 M, `2^(d / 8)` 3.44 M (seeds 11 to 30, not tuned on: linear 6.71 M, this 6.48 M,
/// `2^(d / 4)` 8.75 M).
fn cost(d: i32) -> u32 {
    let d = d.max(0);
    1 + (d / PROOF_SCALE + d * d / 192) as u32
}

/// A new position's numbers are measured from its cheap bounds narrowed to within this many
/// points of its guess ([`Solver::guess`]). Node counts (game + path) over S = 11 seeds 1 to
/// 10, with the Voronoi count (the rooms the mover reaches first minus those the other does)
/// as the guess and linear numbers: bounds alone 7.89 M; within 10 4.08 M, 16 3.47 M, 24
/// 3.27 M, 40 3.49 M (measured with a Voronoi count of independent distances; the landed one
/// lets each painter's rooms block the other).
const GUESS_SPREAD: i32 = 24;

/// The 1+epsilon trick's epsilon is `1 / EPS_DIV`. Seed 10 as above with all-one numbers: 1/2
/// 3.38 M nodes, 1/4 3.91 M, none (plus one) 3.96 M; with the numbers above, 1 4.05 M, 1/2
/// 3.01 M, 1/4 2.98 M.
const EPS_DIV: u32 = 2;

/// What proof-number search knows of `(open, mover, other)` for the question "value > t".
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ProofEntry<B: Bits> {
    open: B,
    mover: u8,
    other: u8,
    t: i16,
    /// The fail-soft value once solved (`pn == 0`: a lower bound above `t`; `dn == 0`: an
    /// upper bound at or below `t`).
    v: i16,
    pn: u32,
    dn: u32,
    used: bool,
}

impl<B: Bits> ProofEntry<B> {
    /// Whether this entry is the question "above `t`?" of `(open, mover, other)`.
    fn is(&self, open: B, mover: u8, other: u8, t: i32) -> bool {
        self.used
            && self.open == open
            && self.mover == mover
            && self.other == other
            && self.t as i32 == t
    }
}

/// One move of a position being expanded.
#[derive(Clone, Copy)]
struct Child<B: Bits> {
    /// The child's open rooms (its key in the proof table).
    open: B,
    to: u8,
    pn: u32,
    dn: u32,
    v: i32,
}

impl<B: Bits> Solver<B> {
    /// The fail-soft answer to the window `(t, t + 1)` for the painter at `mover`, by
    /// proof-number search; what it proves is also written into the transposition table.
    pub(super) fn proof_search(&mut self, open: B, mover: u8, other: u8, t: i32) -> i32 {
        let node = match self.settle(open, mover, other, t, t + 1) {
            Ok(v) => return v,
            Err(node) => node,
        };
        if node.relevant.count_ones() <= self.proof_rooms {
            return self.search_moves(mover, other, node);
        }
        if self.proofs.is_empty() {
            self.proofs = table::huge_table(1 << 10);
        }
        let (_, _, v) = self.mid(node.relevant, mover, other, t, INF, INF);
        v
    }

    /// Grows the proof table fourfold, keeping what fits (a lost entry costs time only: what
    /// is solved is in the game table too).
    fn grow_proofs(&mut self) {
        let len = self.proofs.len() * 4;
        let old = std::mem::replace(&mut self.proofs, table::huge_table(len));
        self.proofs_used = 0;
        for e in old.into_iter().filter(|e| e.used) {
            let i = self.proof_slot(e.open, e.mover, e.other, e.t as i32);
            let j = if !self.proofs[i].used { i } else { i + 1 };
            self.proofs_used += usize::from(!self.proofs[j].used);
            self.proofs[j] = e;
        }
    }

    fn proof_slot(&self, open: B, mover: u8, other: u8, t: i32) -> usize {
        let key = open.key(mover, other) ^ (t as i64 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (key as usize) & (self.proofs.len() - 2)
    }

    fn proof_probe(&self, open: B, mover: u8, other: u8, t: i32) -> Option<ProofEntry<B>> {
        let i = self.proof_slot(open, mover, other, t);
        [self.proofs[i], self.proofs[i + 1]].into_iter().find(|e| e.is(open, mover, other, t))
    }

    #[allow(clippy::too_many_arguments)]
    fn proof_store(&mut self, open: B, mover: u8, other: u8, t: i32, pn: u32, dn: u32, v: i32) {
        if self.proofs_used * 4 > self.proofs.len() * 3 && self.proofs.len() < 1 << PROOF_BITS {
            self.grow_proofs();
        }
        let i = self.proof_slot(open, mover, other, t);
        let free_or_same = |e: &ProofEntry<B>| !e.used || e.is(open, mover, other, t);
        let j = if free_or_same(&self.proofs[i]) {
            i
        } else if free_or_same(&self.proofs[i + 1]) {
            i + 1
        } else if self.proofs[i].open.count_ones() <= self.proofs[i + 1].open.count_ones() {
            i
        } else {
            i + 1
        };
        self.proofs_used += usize::from(!self.proofs[j].used);
        self.proofs[j] =
            ProofEntry { open, mover, other, t: t as i16, v: v as i16, pn, dn, used: true };
    }

    /// Proof and disproof numbers of a position first met as a child: solved when
    /// [`Solver::settle`] answers it (or alpha-beta, in a small region), else estimated.
    fn proof_init(&mut self, open: B, mover: u8, other: u8, t: i32) -> (B, u32, u32, i32) {
        // Keyed by the open rooms as they come (dead pockets and all), which spares a flood per
        // child at every visit of a position; only what is solved goes to the game table,
        // under the canonical key.
        let key = open;
        if let Some(e) = self.proof_probe(key, mover, other, t) {
            return (key, e.pn, e.dn, e.v as i32);
        }
        let solved = |v: i32| if v > t { (0, INF, v) } else { (INF, 0, v) };
        let (pn, dn, v) = match self.settle(open, mover, other, t, t + 1) {
            Ok(v) => solved(v),
            Err(node) if node.relevant.count_ones() <= self.proof_rooms => {
                solved(self.search_moves(mover, other, node))
            }
            Err(node) => {
                // Proving "value > t" looks cheap when the lower bound is near it, disproving
                // when the upper bound is; disproving must answer every move.
                // The bounds are far apart where the painters share a large region, so the
                // guess from the Voronoi cells (rooms each painter reaches first) narrows them
                // to an estimate: a guess, not a bound, which is all the numbers need. (Taking
                // it for a bound, a position proved when it is above `t`, is wrong, and
                // caught.)
                let moves = node.mine.count_ones();
                let guess = self.guess(node.relevant, mover, other);
                if self.wrong(Wrong::GuessProves) && guess > t {
                    solved(guess)
                } else {
                    // The guess kept inside the proved bounds (`node.low` and `node.high`
                    // include the table's, which an earlier question of the driver may have
                    // proved): S = 11 seeds 1 to 40, with the table's bounds, 9.05 M nodes
                    // (game + path) without this, 9.06 M with it, and with the tie rule of
                    // `mid` 8.87 M and 8.68 M (docs/painters.md, twelfth round).
                    let guess = guess.max(node.low).min(node.high);
                    let low = node.low.max(guess - GUESS_SPREAD);
                    let high = node.high.min(guess + GUESS_SPREAD);
                    (cost(t + 1 - low), moves * cost(high - t), 0)
                }
            }
        };
        if !self.budget.is_out() {
            self.proof_store(key, mover, other, t, pn, dn, v);
        }
        (key, pn, dn, v)
    }

    /// The proof and disproof numbers proof-number search gives `(open, mover, other)` when it
    /// first meets it for the question "above `t`?" (tests).
    #[cfg(test)]
    pub(super) fn initial_numbers(&mut self, open: B, mover: u8, other: u8, t: i32) -> (u32, u32) {
        if self.proofs.is_empty() {
            self.proofs = table::huge_table(1 << 10);
        }
        let (_, pn, dn, _) = self.proof_init(open, mover, other, t);
        (pn, dn)
    }

    /// What proof-number search's numbers start from, a guess of the value (not a bound): the
    /// Voronoi cells of the two painters (the rooms each reaches first, ties to the mover), the
    /// mean of the difference of their sizes and of their path bounds (a painter paints a path
    /// of its cell, not all of it: the path bound counts the colours and dead ends that cost it
    /// rooms). Node counts (game + path) on S = 11 seeds 1 to 10 with the numbers of [`cost`]:
    /// the sizes alone 2.98 M, with the path bounds 2.80 M (with the linear numbers before
    /// [`cost`]: sizes 3.27 M, path bounds alone 3.12 M, colour bounds alone 3.26 M, the mean
    /// 3.08 M; the rooms the mover still reaches after the territory bound's safe walk, the
    /// guess's only flood-free rival, 8 M and more).
    pub(super) fn guess(&self, relevant: B, mover: u8, other: u8) -> i32 {
        let (me, them) = self.voronoi_cells(relevant, mover, other);
        let sizes = me.count_ones() as i32 - them.count_ones() as i32;
        let paths = self.path_bound(mover, me) - self.path_bound(other, them);
        (sizes + paths) / 2
    }

    /// Nagai's MID: expands `(open, mover, other)`, a position [`Solver::settle`] did not
    /// answer for the question "above `t`?", until its proof number reaches `th_pn` or its
    /// disproof number `th_dn`. Returns `(pn, dn, v)`, `v` the fail-soft value once solved.
    fn mid(
        &mut self,
        open: B,
        mover: u8,
        other: u8,
        t: i32,
        th_pn: u32,
        th_dn: u32,
    ) -> (u32, u32, i32) {
        let mut kids = [Child { open: B::ZERO, to: 0, pn: 0, dn: 0, v: 0 }; 3];
        let mut count = 0;
        // Each child is asked whether its value is above `-t`: `1 - value(child) > t` iff
        // `value(child) < 1 - t`, i.e. at most `-t`.
        let ct = if self.wrong(Wrong::ProofThreshold) { 1 - t } else { -t };
        let moves = self.geo.neighbours[mover as usize] & open;
        for m in rooms(moves) {
            let slot = self.proof_slot(open & !B::bit(m), other, m, ct);
            table::prefetch_lines(&self.proofs[slot..=slot + 1]);
        }
        for m in rooms(moves) {
            let (key, pn, dn, v) = self.proof_init(open & !B::bit(m), other, m, ct);
            if self.budget.is_out() {
                return (1, 1, 0);
            }
            kids[count] = Child { open: key, to: m, pn, dn, v };
            count += 1;
            if dn == 0 {
                break;
            }
        }
        let kids = &mut kids[..count];
        let sum_wrong = self.wrong(Wrong::ProofSum);
        let (mut pn, mut dn);
        loop {
            pn = INF;
            dn = 0u32;
            let (mut best, mut second) = (0, INF);
            for (i, c) in kids.iter().enumerate() {
                // Among children of equal disproof number, the one whose proof number (the
                // cost of its mover's proof) is largest: the likelier to be disproved. S = 11
                // seeds 1 to 40 (with the table's bounds): 9.06 M nodes without this rule, 9.13 M
                // with the smallest, 8.68 M with the largest (docs/painters.md, twelfth round).
                if c.dn < pn || (c.dn == pn && c.pn > kids[best].pn) {
                    second = pn;
                    pn = c.dn;
                    best = i;
                } else if c.dn < second {
                    second = c.dn;
                }
                // Disproving takes every child proved: the sum. (A minimum would call a
                // position disproved once one child is proved, which is wrong, and caught.)
                dn = if c.pn >= INF || dn >= INF {
                    INF
                } else if sum_wrong {
                    if i == 0 { c.pn } else { dn.min(c.pn) }
                } else {
                    dn.saturating_add(c.pn).min(INF - 1)
                };
            }
            if pn == 0 || dn == 0 || pn >= th_pn || dn >= th_dn {
                break;
            }
            let c = kids[best];
            let eps = second / EPS_DIV;
            let child_dn = th_pn.min(second.saturating_add(eps).max(second.saturating_add(1)));
            let child_pn = (th_dn - (dn - c.pn)).min(INF);
            let (cpn, cdn, cv) = self.mid(c.open, other, c.to, ct, child_pn, child_dn);
            if self.budget.is_out() {
                return (1, 1, 0);
            }
            (kids[best].pn, kids[best].dn, kids[best].v) = (cpn, cdn, cv);
        }
        let mut v = 0;
        let mut best_move = kids[0].to;
        if pn == 0 || dn == 0 {
            v = i32::MIN;
            for c in kids.iter().filter(|c| pn != 0 || c.dn == 0) {
                if 1 - c.v > v {
                    v = 1 - c.v;
                    best_move = c.to;
                }
            }
            let canonical = self.canonical(open, mover, other);
            self.store(canonical, mover, other, (t, t + 1), v, best_move);
        }
        self.proof_store(open, mover, other, t, pn, dn, v);
        (pn, dn, v)
    }
}
