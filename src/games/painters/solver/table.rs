//! The solver's two tables: the transposition table of game positions, which keeps a lower and
//! an upper bound of each value, and the memo of longest paths. Both are open-addressed arrays
//! indexed by [`mix_key`], grown fourfold when three quarters full.

use super::{Solver, Wrong};
use crate::games::painters::map::Bits;

/// What one table entry proved about a position's value for the painter to move.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry<B: Bits> {
    pub(super) open: B,
    pub(super) mover: u8,
    pub(super) other: u8,
    /// `lower <= value <= upper`; equal when the value is exact.
    pub(super) lower: i16,
    pub(super) upper: i16,
    /// The best move found (a room), or `u8::MAX`.
    pub(super) best: u8,
    pub(super) used: bool,
}

/// The kind of bound an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoundKind {
    Exact,
    Lower,
    Upper,
    /// Both bounds known but not equal.
    Range,
}

impl<B: Bits> Entry<B> {
    /// Whether this entry holds `(open, mover, other)`.
    fn is(&self, open: B, mover: u8, other: u8) -> bool {
        self.used && self.open == open && self.mover == mover && self.other == other
    }

    pub(super) fn kind(&self) -> BoundKind {
        match (self.lower == self.upper, self.lower > -B::UNBOUNDED, self.upper < B::UNBOUNDED) {
            (true, _, _) => BoundKind::Exact,
            (false, true, true) => BoundKind::Range,
            (false, true, false) => BoundKind::Lower,
            _ => BoundKind::Upper,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PathEntry<B: Bits> {
    pub(super) open: B,
    pub(super) from: u8,
    /// `lower <= longest path <= upper`; equal when exact.
    pub(super) lower: u8,
    pub(super) upper: u8,
    pub(super) used: bool,
}

/// A table of `len` default entries whose memory the kernel is asked to back with huge pages
/// (2 MiB on x86-64) where it can. The tables grow to 128 MiB and are probed at random: with
/// 4 KiB pages nearly every probe also misses the TLB and waits for a page walk, which `perf`
/// showed as the largest single stall of the search. Only a hint: where the kernel declines
/// (huge pages off, or not Linux) the table is the same, only slower to reach.
pub(super) fn huge_table<T: Copy + Default>(len: usize) -> Vec<T> {
    let mut table: Vec<T> = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = len * size_of::<T>();
        let start = table.as_mut_ptr() as usize;
        // Only whole huge pages inside the allocation, before any of it is touched (the
        // kernel decides the page size when a page is first written).
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: the range lies inside the allocation `table` owns, and `madvise` with
            // `MADV_HUGEPAGE` changes only how the kernel backs those pages, never their
            // contents; an error (the advice refused) leaves everything as it was.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    table.resize(len, T::default());
    table
}

/// Asks the memory for `entries` without waiting. They need not start a cache line: this asks
/// for the lines of their first and last bytes (at most two lines, as `entries` are at most 64
/// bytes).
#[inline]
pub(super) fn prefetch_lines<T>(entries: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let first = entries.as_ptr().cast::<i8>();
        // SAFETY: a prefetch is only a hint: it never faults nor changes memory, and both
        // pointers are to bytes of live entries.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(first.add(size_of_val(entries) - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entries;
}

impl<B: Bits> Solver<B> {
    pub(super) fn grow_paths(&mut self) {
        let len = (self.paths.len() * 4).min(self.max_len);
        let old = std::mem::replace(&mut self.paths, huge_table(len));
        self.paths_used = 0;
        for e in old.into_iter().filter(|e| e.used) {
            let slot = self.path_slot(e.open, e.from);
            self.paths_used += usize::from(!self.paths[slot].used);
            self.paths[slot] = e;
        }
    }

    /// Records what a longest-path search proved at `slot` (one slot per key, always
    /// replaced): merged with the entry's bounds when it holds the same region and start.
    pub(super) fn store_path(&mut self, slot: usize, open: B, from: u8, lower: i32, upper: i32) {
        let e = &mut self.paths[slot];
        let (mut lower, mut upper) = (lower as u8, upper as u8);
        if e.used && e.open == open && e.from == from {
            lower = lower.max(e.lower);
            upper = upper.min(e.upper);
        } else {
            self.paths_used += usize::from(!e.used);
        }
        *e = PathEntry { open, from, lower, upper, used: true };
        if self.paths_used * 4 > self.paths.len() * 3 && self.paths.len() < self.max_len {
            self.grow_paths();
        }
    }

    pub(super) fn grow_table(&mut self) {
        let len = (self.table.len() * 4).min(self.max_len);
        let old = std::mem::replace(&mut self.table, huge_table(len));
        self.table_used = 0;
        for e in old.into_iter().filter(|e| e.used) {
            let i = self.bucket(e.open, e.mover, e.other);
            let j = if !self.table[i].used { i } else { i + 1 };
            self.table_used += usize::from(!self.table[j].used);
            self.table[j] = e;
        }
    }

    #[inline]
    fn bucket(&self, open: B, mover: u8, other: u8) -> usize {
        (open.key(mover, other) as usize) & (self.table.len() - 2)
    }

    /// Asks the memory for `(open, mover, other)`'s bucket without waiting, so the cheap bounds
    /// computed before [`Solver::probe`] overlap the cache miss (the table is far larger than
    /// the caches: a quarter of the search's time was this wait).
    #[inline]
    pub(super) fn prefetch(&self, open: B, mover: u8, other: u8) {
        let i = self.bucket(open, mover, other);
        // The bucket's two entries, adjacent.
        prefetch_lines(&self.table[i..=i + 1]);
    }

    /// The slot of `(region, from)` in the longest-path memo.
    #[inline]
    pub(super) fn path_slot(&self, region: B, from: u8) -> usize {
        (region.key(from, 0xFF) as usize) & (self.paths.len() - 1)
    }

    /// Asks the memory for a longest-path memo slot without waiting: the search computes every
    /// exit's region before it searches the first, so the later exits' entries arrive while
    /// the first is searched.
    #[inline]
    pub(super) fn prefetch_path(&self, slot: usize) {
        prefetch_lines(&self.paths[slot..=slot]);
    }

    pub(super) fn probe(&self, open: B, mover: u8, other: u8) -> Option<Entry<B>> {
        let i = self.bucket(open, mover, other);
        [self.table[i], self.table[i + 1]].into_iter().find(|e| e.is(open, mover, other))
    }

    /// Records what a search of window `(alpha, beta)` returned. Two slots per bucket: a
    /// position already there is refined in place, else the entry with the smaller subtree
    /// (fewer open rooms) is replaced.
    pub(super) fn store(
        &mut self,
        open: B,
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
        let slot = if let Some(j) =
            [i, i + 1].into_iter().find(|&j| self.table[j].is(open, mover, other))
        {
            j
        } else {
            let unbounded = B::UNBOUNDED;
            let e =
                Entry { open, mover, other, lower: -unbounded, upper: unbounded, best, used: true };
            let size = |e: &Entry<B>| if e.used { e.open.count_ones() } else { 0 };
            let j = if size(&self.table[i]) <= open.count_ones() { i } else { i + 1 };
            self.table_used += usize::from(!self.table[j].used);
            self.table[j] = e;
            j
        };
        let exact_low = self.wrong(Wrong::TableExact);
        let e = &mut self.table[slot];
        let v8 = v as i16;
        if v <= alpha && exact_low {
            (e.lower, e.upper) = (v8, v8);
        } else if v <= alpha {
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
}
