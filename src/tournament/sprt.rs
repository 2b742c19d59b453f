//! Regression tests: a candidate plays a baseline in role-swapped pairs until a sequential
//! probability ratio test accepts "at least elo1 better" (H1) or "at most elo0" (H0).
//!
//! The statistic is fishtest's: the pairs are counted pentanomially (the candidate's points in a
//! pair are 0, 1/2, 1, 3/2 or 2), and the log-likelihood ratio is the generalized SPRT's normal
//! approximation (van den Bergh, "GSPRT approximation"):
//!
//! `LLR = N (s1 - s0) (2 mu - s0 - s1) / (2 var)`,
//!
//! with `mu` and `var` the mean and variance of the per-pair score (points / 2), `N` the number
//! of pairs, and `s = 1 / (1 + 10^(-elo / 400))` the expected score of a logistic Elo difference.
//! Empty cells are regularized to 1e-3 as fishtest does. The test stops when the LLR leaves
//! `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`.
//!
//! The decision is a function of the pairs in pair order: a pair counts only once every earlier
//! pair has, so the verdict and the number of pairs are the same at any concurrency.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Serialize;

use super::config::{Arena, SprtConfig};
use super::csv::{MATCHES_FILE, RowWriter, write_atomically};
use super::run::{Progress, cores, play_seats, prepare_dir, row_of};
use super::schedule::Planned;
use crate::error::{Error, Result};
use crate::matches::PlayedMatch;
use crate::seed::game_seed;

/// Before this many pairs the test does not stop: the normal approximation needs a sample
/// (a single won pair would otherwise "prove" a small Elo gain).
pub const MIN_PAIRS: u64 = 16;

/// Pair counts: `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` from the candidate's side.
pub type Penta = [u64; 5];

/// The expected score of a logistic Elo difference.
pub fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score.
pub fn score_to_elo(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The pair count (regularized) and the mean and variance of the per-pair score.
fn pair_stats(penta: &Penta) -> (f64, f64, f64) {
    let counts: Vec<f64> = penta.iter().map(|&c| if c == 0 { 1e-3 } else { c as f64 }).collect();
    let n: f64 = counts.iter().sum();
    let value = |i: usize| i as f64 / 4.0;
    let mean: f64 = counts.iter().enumerate().map(|(i, c)| c / n * value(i)).sum();
    let var: f64 = counts.iter().enumerate().map(|(i, c)| c / n * (value(i) - mean).powi(2)).sum();
    (n, mean, var)
}

/// fishtest's pentanomial LLR (the GSPRT normal approximation), in logistic Elo.
pub fn llr(penta: &Penta, elo0: f64, elo1: f64) -> f64 {
    let (n, mean, var) = pair_stats(penta);
    let (s0, s1) = (logistic_score(elo0), logistic_score(elo1));
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
}

/// The stopping bounds `(lower, upper)`: accept H0 at or below `lower`, H1 at or above `upper`.
pub fn bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The Elo estimate with its 95% interval, from the pairs' mean score and its standard error.
pub fn elo_estimate(penta: &Penta) -> (f64, f64, f64) {
    let (n, mean, var) = pair_stats(penta);
    let margin = super::stats::Z95 * (var / n).sqrt();
    (score_to_elo(mean), score_to_elo(mean - margin), score_to_elo(mean + margin))
}

/// Which hypothesis the test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is at least `elo1` stronger: exit code 0.
    H1,
    /// The candidate is at most `elo0` stronger: exit code 1.
    H0,
    /// `max_pairs` were played without a decision: exit code 3.
    Inconclusive,
}

impl Verdict {
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::H1 => 0,
            Verdict::H0 => 1,
            Verdict::Inconclusive => 3,
        }
    }
}

/// The result of a test, as printed and as written to `sprt.json`.
#[derive(Clone, Debug, Serialize)]
pub struct SprtOutcome {
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
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    #[serde(skip)]
    pub dir: PathBuf,
}

impl SprtOutcome {
    pub fn describe(&self) -> String {
        let verdict = match self.verdict {
            Verdict::H1 => {
                format!("H1 accepted: {} is at least {} Elo stronger", self.candidate, self.elo1)
            }
            Verdict::H0 => format!(
                "H0 accepted: {} is not more than {} Elo stronger than {}",
                self.candidate, self.elo0, self.baseline
            ),
            Verdict::Inconclusive => format!("no decision after {} pairs", self.pairs),
        };
        use super::stats::fmt_f;
        format!(
            "{verdict}\nLLR {} (bounds {}, {}) after {} pairs ({} games); pentanomial {:?}\n\
             Elo {} vs {}: {} [{}, {}] (95%)\n",
            fmt_f(self.llr, 3),
            fmt_f(self.lower_bound, 3),
            fmt_f(self.upper_bound, 3),
            self.pairs,
            2 * self.pairs,
            self.pentanomial,
            self.candidate,
            self.baseline,
            fmt_f(self.elo, 1),
            fmt_f(self.elo_low, 1),
            fmt_f(self.elo_high, 1)
        )
    }
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
) -> Result<SprtOutcome> {
    let dir = out.unwrap_or_else(|| arena.output.join(&arena.name).join("sprt"));
    let meta = super::csv::Meta {
        arena_results: super::csv::RESULTS_VERSION,
        arena: arena.name.clone(),
        fingerprint: arena.fingerprint(),
        planned: 2 * test.max_pairs,
        shard: None,
        roles: arena.roles.clone(),
        bots: arena.bots.iter().map(|b| b.name.clone()).collect(),
    };
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
                        result = play_seats(arena, &m.seats, map, seed).and_then(|p| {
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
    let outcome = SprtOutcome {
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
        dir: dir.clone(),
    };
    let json = serde_json::to_string_pretty(&outcome).expect("an outcome serializes") + "\n";
    write_atomically(&dir.join("sprt.json"), json.as_bytes())?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llr_of_a_symmetric_sample_is_the_formula_by_hand() {
        // Counts 10, 20, 40, 20, 10: mean 1/2, variance 0.1*0.25*2 + 0.2*0.0625*2 = 0.075.
        let penta = [10, 20, 40, 20, 10];
        let s1 = 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0));
        let expected = 100.0 * (s1 - 0.5) * (1.0 - 0.5 - s1) / (2.0 * 0.075);
        assert!((llr(&penta, 0.0, 10.0) - expected).abs() < 1e-12);
        assert!((expected + 0.1380).abs() < 1e-3, "{expected}");
    }

    #[test]
    fn llr_regularizes_empty_cells_like_fishtest() {
        // Counts 0, 5, 10, 20, 15: the empty cell becomes 0.001.
        let penta = [0, 5, 10, 20, 15];
        let n = 50.001;
        let p = [0.001 / n, 5.0 / n, 10.0 / n, 20.0 / n, 15.0 / n];
        let mean: f64 = p.iter().enumerate().map(|(i, p)| p * i as f64 / 4.0).sum();
        let var: f64 = p.iter().enumerate().map(|(i, p)| p * (i as f64 / 4.0 - mean).powi(2)).sum();
        let (s0, s1) = (logistic_score(-5.0), logistic_score(20.0));
        let expected = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        assert!((llr(&penta, -5.0, 20.0) - expected).abs() < 1e-9);
        // A mean of about 0.725: well above s1 = 0.5288, so strongly for H1.
        assert!(expected > 2.94, "{expected}");
    }

    #[test]
    fn j_zero_means_the_default_as_for_a_run() {
        assert_eq!(threads(Some(0), None), cores());
        assert_eq!(threads(Some(0), Some(3)), 3);
        assert_eq!(threads(Some(2), Some(3)), 2);
        assert_eq!(threads(None, None), cores());
    }

    #[test]
    fn bounds_and_elo_are_the_textbook_ones() {
        let (lo, hi) = bounds(0.05, 0.05);
        assert!((lo + 2.944_438_979).abs() < 1e-8 && (hi - 2.944_438_979).abs() < 1e-8);
        assert!((score_to_elo(0.75) - 400.0 * 3f64.log10()).abs() < 1e-9);
        assert!((logistic_score(0.0) - 0.5).abs() < 1e-15);
        let (elo, low, high) = elo_estimate(&[10, 20, 40, 20, 10]);
        assert!(elo.abs() < 1e-9 && low < 0.0 && high > 0.0 && (low + high).abs() < 1e-9);
    }
}
