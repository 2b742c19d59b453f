//! What the report needs of `matches.csv`, gathered in one pass over the rows in memory that does
//! not grow with their number: per bot how its matches ended and a sketch of its decision times,
//! per map the points of every bot, and the rows the page lists — every faulted match (up to
//! [`MAX_FAULT_ROWS`]) and the first [`PAGE_ROWS`] of the others by id. The full list stays in
//! `matches.csv`, and the page says so.

use std::collections::{BTreeMap, BinaryHeap};

use crate::tournament::results::matches::MatchRow;

/// The matches without a fault the page lists (the lowest ids).
pub(crate) const PAGE_ROWS: usize = 5_000;
/// The faulted matches the page lists (the lowest ids): every one in any run a user would read.
pub(crate) const MAX_FAULT_ROWS: usize = 50_000;
/// The maps tracked for the per-map table (an arena holds at most 10,000; an SPRT that generates
/// a map per pair may name more).
pub(crate) const MAX_MAPS: usize = 10_000;

/// How one seat's match ended, for the stacked bars.
pub(crate) const ENDINGS: &[(&str, &str)] = &[
    ("win", "#2b9a58"),
    ("draw", "#b8bec4"),
    ("loss", "#f28e2b"),
    ("opponent's fault", "#9fd39b"),
    ("own timeout", "#7b3294"),
    ("own crash", "#1d232a"),
    ("own eof", "#5a5a5a"),
    ("own illegal", "#c51b7d"),
    ("own garbage", "#8c510a"),
    ("own output_limit", "#01665e"),
    ("own memory_limit", "#35978f"),
    ("own cpu_limit", "#bf812d"),
    ("own startup_failed", "#8a8a8a"),
];

/// The ending of `seat`'s match: an index into [`ENDINGS`].
pub(crate) fn ending_index(row: &MatchRow, seat: usize) -> usize {
    let me = &row.seats[seat];
    if row.termination.is_fault() {
        if row.culprit_role.as_deref() == Some(me.role.as_str()) {
            let own = format!("own {}", row.termination.as_str());
            return ENDINGS.iter().position(|(name, _)| *name == own).unwrap_or(ENDINGS.len() - 1);
        }
        return 3;
    }
    let firsts = row.seats.iter().filter(|s| s.rank == 1).count();
    match (me.rank, firsts) {
        (1, 1) => 0,
        (1, _) => 1,
        _ => 2,
    }
}

/// A seat's share of the points of a match: the others it finished ahead of, half the ties.
pub(crate) fn seat_points(row: &MatchRow, seat: usize) -> f64 {
    let me = row.seats[seat].rank;
    let others = row.seats.len().saturating_sub(1).max(1) as f64;
    let ahead = row.seats.iter().filter(|s| s.rank > me).count() as f64;
    let tied = row.seats.iter().filter(|s| s.rank == me).count().saturating_sub(1) as f64;
    (ahead + tied / 2.0) / others
}

/// Quantiles of non-negative values in constant memory: counts in buckets whose bounds grow by
/// [`TimeSketch::GROWTH`], so a quantile is within 1% of the exact one (nearest rank), clamped
/// to the smallest and largest value seen, which are exact.
#[derive(Clone, Debug, Default)]
pub(crate) struct TimeSketch {
    buckets: BTreeMap<i32, u64>,
    count: u64,
    min: f64,
    max: f64,
}

impl TimeSketch {
    const GROWTH: f64 = 1.01;
    /// Values at or below this (ms) share bucket 0: `matches.csv` has 3 decimals.
    const FLOOR: f64 = 0.001;

    pub(crate) fn add(&mut self, v: f64) {
        let v = if v.is_finite() { v.max(0.0) } else { return };
        let bucket = if v <= Self::FLOOR {
            0
        } else {
            ((v / Self::FLOOR).ln() / Self::GROWTH.ln()).ceil() as i32
        };
        *self.buckets.entry(bucket).or_default() += 1;
        if self.count == 0 {
            (self.min, self.max) = (v, v);
        } else {
            (self.min, self.max) = (self.min.min(v), self.max.max(v));
        }
        self.count += 1;
    }

    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The `q` quantile (nearest rank): the upper bound of the bucket holding that rank.
    pub(crate) fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank == self.count {
            return self.max;
        }
        let mut seen = 0;
        for (&bucket, &n) in &self.buckets {
            seen += n;
            if seen >= rank {
                let bound = Self::FLOOR * Self::GROWTH.powi(bucket);
                return bound.clamp(self.min, self.max);
            }
        }
        self.max
    }
}

/// One map's row of the per-map table.
#[derive(Clone, Debug, Default)]
pub(crate) struct MapDigest {
    /// Its first game number: maps are listed in the order they were played.
    pub(crate) first_game: u64,
    pub(crate) played: u64,
    pub(crate) faults: u64,
    /// Per bot: its points and its matches on the map.
    pub(crate) cells: Vec<(f64, u64)>,
}

/// A row the page lists, ordered by id (for the heaps that keep the lowest ids).
struct Listed(MatchRow);

impl PartialEq for Listed {
    fn eq(&self, other: &Listed) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Listed {}
impl PartialOrd for Listed {
    fn partial_cmp(&self, other: &Listed) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Listed {
    fn cmp(&self, other: &Listed) -> std::cmp::Ordering {
        self.0.id.cmp(&other.0.id)
    }
}

/// The lowest-id rows up to a cap, and how many there were in all.
struct Lowest {
    cap: usize,
    heap: BinaryHeap<Listed>,
    seen: u64,
}

impl Lowest {
    fn new(cap: usize) -> Lowest {
        Lowest { cap, heap: BinaryHeap::new(), seen: 0 }
    }

    fn add(&mut self, row: MatchRow) {
        self.seen += 1;
        if self.heap.len() < self.cap {
            self.heap.push(Listed(row));
        } else if self.heap.peek().is_some_and(|top| row.id < top.0.id) {
            self.heap.pop();
            self.heap.push(Listed(row));
        }
    }
}

/// Everything the report draws from `matches.csv`.
pub(crate) struct Digest {
    /// The bots, in the order given, then any other a row names.
    pub(crate) bots: Vec<String>,
    pub(crate) matches: u64,
    /// Per bot, its matches by ending ([`ENDINGS`]).
    pub(crate) endings: Vec<Vec<u64>>,
    /// Per bot, its longest decision of each match, in ms.
    pub(crate) times: Vec<TimeSketch>,
    pub(crate) maps: BTreeMap<String, MapDigest>,
    /// Matches on maps beyond [`MAX_MAPS`], left out of the per-map table.
    pub(crate) maps_untracked: u64,
    faulted: Lowest,
    others: Lowest,
}

impl Digest {
    pub(crate) fn new(bots: Vec<String>) -> Digest {
        let n = bots.len();
        Digest {
            bots,
            matches: 0,
            endings: vec![vec![0; ENDINGS.len()]; n],
            times: vec![TimeSketch::default(); n],
            maps: BTreeMap::new(),
            maps_untracked: 0,
            faulted: Lowest::new(MAX_FAULT_ROWS),
            others: Lowest::new(PAGE_ROWS),
        }
    }

    fn bot(&mut self, name: &str) -> usize {
        if let Some(i) = self.bots.iter().position(|b| b == name) {
            return i;
        }
        self.bots.push(name.to_string());
        self.endings.push(vec![0; ENDINGS.len()]);
        self.times.push(TimeSketch::default());
        for map in self.maps.values_mut() {
            map.cells.push((0.0, 0));
        }
        self.bots.len() - 1
    }

    pub(crate) fn add(&mut self, row: MatchRow) {
        self.matches += 1;
        let seats: Vec<usize> = row.seats.iter().map(|s| self.bot(&s.bot)).collect();
        for (seat, &b) in seats.iter().enumerate() {
            self.endings[b][ending_index(&row, seat)] += 1;
            if let Some(&ms) = row.max_turn_ms.get(seat) {
                self.times[b].add(ms);
            }
        }
        let bots = self.bots.len();
        let tracked = self.maps.len() < MAX_MAPS || self.maps.contains_key(&row.map);
        if tracked {
            let map = self.maps.entry(row.map.clone()).or_insert_with(|| MapDigest {
                first_game: row.game,
                cells: vec![(0.0, 0); bots],
                ..MapDigest::default()
            });
            map.first_game = map.first_game.min(row.game);
            map.played += 1;
            map.faults += u64::from(row.termination.is_fault());
            for (seat, &b) in seats.iter().enumerate() {
                map.cells[b].0 += seat_points(&row, seat);
                map.cells[b].1 += 1;
            }
        } else {
            self.maps_untracked += 1;
        }
        if row.termination.is_fault() {
            self.faulted.add(row);
        } else {
            self.others.add(row);
        }
    }

    /// Faulted matches in all, and those without a fault.
    #[cfg(test)]
    fn counts(&self) -> (u64, u64) {
        (self.faulted.seen, self.others.seen)
    }

    /// The rows the page lists, by id.
    pub(crate) fn listed(self) -> (Vec<MatchRow>, Digested) {
        let mut rows: Vec<MatchRow> =
            self.faulted.heap.into_iter().chain(self.others.heap).map(|listed| listed.0).collect();
        rows.sort_by_key(|r| r.id);
        let rest = Digested {
            bots: self.bots,
            matches: self.matches,
            endings: self.endings,
            times: self.times,
            maps: self.maps,
            maps_untracked: self.maps_untracked,
            faulted: self.faulted.seen,
        };
        (rows, rest)
    }
}

/// A [`Digest`] once its listed rows are taken out.
pub(crate) struct Digested {
    pub(crate) bots: Vec<String>,
    pub(crate) matches: u64,
    pub(crate) endings: Vec<Vec<u64>>,
    pub(crate) times: Vec<TimeSketch>,
    pub(crate) maps: BTreeMap<String, MapDigest>,
    pub(crate) maps_untracked: u64,
    pub(crate) faulted: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Termination;
    use crate::tournament::results::matches::SeatRow;

    fn row(id: u64, ranks: &[u32], termination: Termination, culprit: Option<&str>) -> MatchRow {
        MatchRow {
            id,
            game: id,
            pairing: String::new(),
            map: "m".into(),
            seed: 1,
            seats: ranks
                .iter()
                .enumerate()
                .map(|(s, &rank)| SeatRow {
                    role: format!("r{s}"),
                    bot: format!("b{s}"),
                    score: 0.0,
                    rank,
                })
                .collect(),
            winner: None,
            winner_role: None,
            termination,
            culprit: culprit.map(|c| c.replace('r', "b")),
            culprit_role: culprit.map(String::from),
            turns: 3,
            reason: "why".into(),
            duration_ms: 1.0,
            max_turn_ms: vec![1.0; ranks.len()],
            max_turn_cpu_ms: vec![None; ranks.len()],
        }
    }

    #[test]
    fn endings_tell_wins_draws_losses_and_whose_fault() {
        let won = row(0, &[1, 2], Termination::Normal, None);
        assert_eq!((ending_index(&won, 0), ending_index(&won, 1)), (0, 2));
        let drawn = row(0, &[1, 1], Termination::Normal, None);
        assert_eq!((ending_index(&drawn, 0), ending_index(&drawn, 1)), (1, 1));
        let timeout = row(0, &[1, 2], Termination::Timeout, Some("r1"));
        assert_eq!(ENDINGS[ending_index(&timeout, 1)].0, "own timeout");
        assert_eq!(ENDINGS[ending_index(&timeout, 0)].0, "opponent's fault");
        // The rules' turn cap is no one's fault.
        let capped = row(0, &[1, 2], Termination::TurnLimit, None);
        assert_eq!(ending_index(&capped, 0), 0);
    }

    #[test]
    fn seat_points_count_the_others_beaten_and_half_the_ties() {
        let r = row(0, &[1, 2, 2, 4], Termination::Normal, None);
        assert_eq!(seat_points(&r, 0), 1.0);
        assert_eq!(seat_points(&r, 1), 1.5 / 3.0);
        assert_eq!(seat_points(&r, 3), 0.0);
        assert_eq!(seat_points(&row(0, &[1, 1], Termination::Normal, None), 0), 0.5);
    }

    #[test]
    fn the_sketch_is_within_one_percent_of_the_nearest_rank() {
        let mut s = TimeSketch::default();
        for v in (1..=1000).rev() {
            s.add(f64::from(v) / 10.0);
        }
        for (q, exact) in [(0.5, 50.0), (0.9, 90.0), (0.99, 99.0), (0.01, 1.0)] {
            let got = s.quantile(q);
            assert!((got / exact - 1.0).abs() <= 0.01, "q {q}: {got} against {exact}");
        }
        assert_eq!(s.quantile(1.0), 100.0, "the largest is exact");
        let mut one = TimeSketch::default();
        one.add(7.0);
        assert_eq!((one.quantile(0.5), one.count()), (7.0, 1));
        assert_eq!(TimeSketch::default().quantile(0.5), 0.0);
    }

    #[test]
    fn the_page_keeps_every_fault_and_the_first_of_the_rest_whatever_the_order() {
        let mut d = Digest::new(vec!["b0".into(), "b1".into()]);
        let total = PAGE_ROWS as u64 * 3;
        // Rows arrive in the order matches finished, not by id.
        for i in 0..total {
            let id = (i * 7919) % total;
            let fault = id % 1000 == 999;
            let t = if fault { Termination::Crash } else { Termination::Normal };
            d.add(row(id, &[1, 2], t, fault.then_some("r0")));
        }
        assert_eq!(d.counts(), (total / 1000, total - total / 1000));
        let (listed, rest) = d.listed();
        let faults = listed.iter().filter(|r| r.termination.is_fault()).count() as u64;
        assert_eq!(faults, total / 1000, "every faulted match");
        assert_eq!(listed.len(), PAGE_ROWS + faults as usize);
        let others: Vec<u64> =
            listed.iter().filter(|r| !r.termination.is_fault()).map(|r| r.id).collect();
        let expected: Vec<u64> = (0..total).filter(|id| id % 1000 != 999).take(PAGE_ROWS).collect();
        assert_eq!(others, expected, "the lowest ids, in order");
        assert_eq!(rest.matches, total);
        assert_eq!(rest.endings[0][0] + rest.endings[0][5], total);
        assert_eq!(rest.maps["m"].played, total);
    }
}
