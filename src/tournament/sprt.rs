//! Regression tests: a candidate plays a baseline in role-swapped pairs until a sequential
//! probability ratio test ([`super::stats::sprt`]) accepts "at least elo1 better" (H1) or "at
//! most elo0" (H0).
//!
//! The decision is a function of the pairs in pair order: a pair counts only once every earlier
//! pair has, so the verdict and the number of pairs are the same at any concurrency.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Serialize;

use super::config::{Arena, SprtConfig};
use super::progress::Progress;
use super::results::matches::RowWriter;
use super::results::{MATCHES_FILE, SPRT_FILE, prepare_dir, write_atomically};
use super::run::{cores, meta_of, play_seats, row_of};
use super::schedule::{Planned, Shard};
use super::stats::sprt::{Penta, bounds, elo_estimate, llr};
use crate::bot::Supervisor;
use crate::error::{Error, Result};
use crate::matches::PlayedMatch;
use crate::seed::game_seed;

/// Before this many pairs the test does not stop: the normal approximation needs a sample
/// (a single won pair would otherwise "prove" a small Elo gain).
pub(crate) const MIN_PAIRS: u64 = 16;

/// Which hypothesis the test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is at least `elo1` stronger.
    H1,
    /// The candidate is at most `elo0` stronger.
    H0,
    /// `max_pairs` were played without a decision.
    Inconclusive,
}

/// The result of a test: what `arena sprt` prints, what `--json` prints and what `sprt.json`
/// holds.
#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    pub candidate: String,
    pub baseline: String,
    pub verdict: Verdict,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub pairs: u64,
    /// `[LL, LD+DL, LW+DD+WL, DW+WD, WW]`.
    pub pentanomial: Penta,
    /// The Elo difference the pairs' mean score gives, with its 95% interval.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// The test's results folder (its games and `sprt.json`).
    pub results: PathBuf,
}

/// The candidate's points in a match: 1 for a better rank, 1/2 for an equal one.
fn candidate_points(played: &PlayedMatch, candidate_seat: usize) -> f64 {
    let r = &played.summary.ranks;
    let other = 1 - candidate_seat;
    match r[candidate_seat].cmp(&r[other]) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

struct State {
    /// Finished pairs waiting for an earlier one: pair index -> pentanomial cell.
    waiting: BTreeMap<u64, usize>,
    counted: u64,
    penta: Penta,
    decided: Option<(Verdict, f64)>,
}

/// The threads of a test: `-j` (0 = the default, as for `arena run`), else the arena's
/// `concurrency`, else the number of cores.
fn threads(requested: Option<usize>, configured: Option<usize>) -> usize {
    requested.filter(|&c| c > 0).or(configured).unwrap_or_else(cores).max(1)
}

/// Runs a test; the arena's `[sprt]` section (with the caller's overrides) says which.
pub fn run_sprt(
    arena: &Arena,
    test: &SprtConfig,
    concurrency: Option<usize>,
    out: Option<PathBuf>,
    progress: bool,
    supervisor: &Supervisor,
) -> Result<SprtReport> {
    let dir = out.unwrap_or_else(|| arena.output.join(&arena.name).join("sprt"));
    let meta = meta_of(arena, 2 * test.max_pairs, Shard::all());
    // A test always starts afresh: its stopping point depends on every pair before it.
    let _lock = prepare_dir(&dir, &meta, true)?;
    let writer = RowWriter::open(&dir.join(MATCHES_FILE), arena.roles.len())?;
    let (lower, upper) = bounds(test.alpha, test.beta);
    let (cand, base) = (test.candidate, test.baseline);
    let label = format!("{} vs {}", arena.bots[cand].name, arena.bots[base].name);
    let concurrency = threads(concurrency, arena.concurrency);
    let bar = Progress::new(test.max_pairs, progress);

    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let state =
        Mutex::new(State { waiting: BTreeMap::new(), counted: 0, penta: [0; 5], decided: None });
    std::thread::scope(|scope| {
        for _ in 0..concurrency {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let pair = next.fetch_add(1, Ordering::Relaxed);
                    if pair >= test.max_pairs {
                        break;
                    }
                    let map = (pair % arena.maps.len() as u64) as usize;
                    let seed = game_seed(arena.seed, pair);
                    let mut points = 0.0;
                    let mut result = Ok(());
                    for (o, seats) in [[cand, base], [base, cand]].into_iter().enumerate() {
                        let m = Planned {
                            id: 2 * pair + o as u64,
                            game: pair,
                            pairing: 0,
                            seats: seats.to_vec(),
                            map,
                            seed,
                        };
                        result = play_seats(arena, &m.seats, map, seed, supervisor)
                            .map_err(|e| match e {
                                Error::Interrupted => e,
                                e => Error::MatchSetup { id: m.id, source: Box::new(e) },
                            })
                            .and_then(|p| {
                                points += candidate_points(&p, o);
                                writer.append(&row_of(arena, &m, &label, &p))
                            });
                        if result.is_err() {
                            break;
                        }
                    }
                    if let Err(e) = result {
                        stop.store(true, Ordering::Relaxed);
                        failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                        break;
                    }
                    bar.inc();
                    let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
                    s.waiting.insert(pair, (points * 2.0).round() as usize);
                    while s.decided.is_none() {
                        let counted = s.counted;
                        let Some(cell) = s.waiting.remove(&counted) else { break };
                        s.penta[cell] += 1;
                        s.counted += 1;
                        let value = llr(&s.penta, test.elo0, test.elo1);
                        let verdict = if s.counted < MIN_PAIRS.min(test.max_pairs) {
                            None
                        } else if value >= upper {
                            Some(Verdict::H1)
                        } else if value <= lower {
                            Some(Verdict::H0)
                        } else if s.counted >= test.max_pairs {
                            Some(Verdict::Inconclusive)
                        } else {
                            None
                        };
                        if let Some(v) = verdict {
                            s.decided = Some((v, value));
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    bar.finish();
    writer.sync()?;
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let s = state.into_inner().unwrap_or_else(|p| p.into_inner());
    let (verdict, value) =
        s.decided.unwrap_or((Verdict::Inconclusive, llr(&s.penta, test.elo0, test.elo1)));
    let (elo, elo_low, elo_high) = elo_estimate(&s.penta);
    let report = SprtReport {
        candidate: arena.bots[cand].name.clone(),
        baseline: arena.bots[base].name.clone(),
        verdict,
        llr: value,
        lower_bound: lower,
        upper_bound: upper,
        elo0: test.elo0,
        elo1: test.elo1,
        alpha: test.alpha,
        beta: test.beta,
        pairs: s.counted,
        pentanomial: s.penta,
        elo,
        elo_low,
        elo_high,
        results: dir.clone(),
    };
    let json = serde_json::to_string_pretty(&report).expect("a report serializes") + "\n";
    write_atomically(&dir.join(SPRT_FILE), json.as_bytes())?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn j_zero_means_the_default_as_for_a_run() {
        assert_eq!(threads(Some(0), None), cores());
        assert_eq!(threads(Some(0), Some(3)), 3);
        assert_eq!(threads(Some(2), Some(3)), 2);
        assert_eq!(threads(None, None), cores());
    }
}
