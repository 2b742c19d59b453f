//! The statistics of a sequential probability ratio test, apart from the runner that plays the
//! pairs: fishtest's exact generalized SPRT.
//!
//! Outcomes are counted as a trinomial `[L, D, W]` (one comparison per unit) or a pentanomial
//! `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` (game pairs). The log-likelihood ratio is the generalized
//! LLR of those counts: the multinomial likelihood under the maximum-likelihood distribution that
//! satisfies H1, over the one that satisfies H0 (Michel Van den Bergh, "A practical introduction
//! to the GSPRT" and "Normalized Elo"). It is what fishtest's `update_SPRT` decides with; the
//! normal approximation (`LLR_alt2`) that fishtest only displays goes badly wrong on the
//! split-heavy counts of deterministic bots, where it "proves" anything after a handful of pairs.
//!
//! Two readings of elo0/elo1 ([`EloModel`]): logistic Elo constrains the expected score,
//! normalized Elo the t-value `(mu - 1/2) / sigma` (per game). As in fishtest, empty cells are
//! regularized to 1e-3 before anything else, and the stopping bounds get Siegmund's dynamic
//! overshoot correction ([`Overshoot`]).

use serde::{Deserialize, Serialize};

use super::ratings::Z95;

/// What an empty cell counts as (fishtest's `regularize`): every cell must be positive for the
/// constrained maxima to exist.
const EMPTY_CELL: f64 = 1e-3;

/// Normalized Elo per unit of t-value: `800 / ln 10`.
pub(crate) const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// How elo0 and elo1 are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Normalized Elo: the t-value of the score per game, times `800 / ln 10` (fishtest's
    /// default). Independent of the draw rate, so a bound means the same for any pair of bots.
    #[default]
    Normalized,
    /// Logistic Elo: the expected score `1 / (1 + 10^(-elo/400))`.
    Logistic,
}

impl EloModel {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EloModel::Normalized => "normalized",
            EloModel::Logistic => "logistic",
        }
    }
}

impl std::str::FromStr for EloModel {
    type Err = String;

    fn from_str(s: &str) -> Result<EloModel, String> {
        match s {
            "normalized" => Ok(EloModel::Normalized),
            "logistic" => Ok(EloModel::Logistic),
            _ => Err(format!("`{s}` is not `normalized` or `logistic`")),
        }
    }
}

/// The expected score of a logistic Elo difference.
pub(crate) fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference of an expected score (clamped to `[1e-3, 1 - 1e-3]`, as fishtest).
pub(crate) fn score_to_elo(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// A distribution on the scores `0, 1/(k-1), ..., 1` of the `k` cells.
#[derive(Clone, Debug)]
struct Pdf {
    values: Vec<f64>,
    probs: Vec<f64>,
}

impl Pdf {
    /// The regularized counts as a distribution, and their total (fishtest's `N`).
    fn of(counts: &[u64]) -> (f64, Pdf) {
        assert!(counts.len() >= 2, "a trinomial or a pentanomial");
        let cells: Vec<f64> =
            counts.iter().map(|&c| if c == 0 { EMPTY_CELL } else { c as f64 }).collect();
        let n: f64 = cells.iter().sum();
        let k = cells.len();
        let values = (0..k).map(|i| i as f64 / (k - 1) as f64).collect();
        (n, Pdf { values, probs: cells.iter().map(|c| c / n).collect() })
    }

    fn mean_var(&self) -> (f64, f64) {
        let mean: f64 = self.values.iter().zip(&self.probs).map(|(a, p)| a * p).sum();
        let var = self.values.iter().zip(&self.probs).map(|(a, p)| p * (a - mean).powi(2)).sum();
        (mean, var)
    }
}

/// The root of `sum p_i a_i / (1 + x a_i) = 0` in `(-1 / max a, -1 / min a)`: the Lagrange
/// multiplier of the maximum-likelihood distribution `p_i / (1 + x a_i)` under `sum q_i a_i = 0`.
/// `None` when the `a_i` do not straddle 0 (no distribution on these cells has that mean).
///
/// The function is strictly decreasing on the interval (its derivative is
/// `-sum p a^2 / (1 + x a)^2`) and runs from +inf to -inf, so Newton steps kept inside a
/// shrinking sign-change bracket (bisection when a step leaves it) converge to the one root.
fn secular(a: &[f64], p: &[f64]) -> Option<f64> {
    let min = a.iter().copied().fold(f64::INFINITY, f64::min);
    let max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    let f = |x: f64| -> (f64, f64) {
        a.iter().zip(p).fold((0.0, 0.0), |(v, d), (a, p)| {
            let q = 1.0 + x * a;
            (v + p * a / q, d - p * a * a / (q * q))
        })
    };
    // fishtest's epsilon inside the poles.
    let (mut lo, mut hi) = (-1.0 / max + 1e-9, -1.0 / min - 1e-9);
    let mut x = 0.0f64.clamp(lo, hi);
    for _ in 0..200 {
        let (v, d) = f(x);
        if v == 0.0 {
            return Some(x);
        }
        if v > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - v / d;
        let next = if newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        if (next - x).abs() <= 1e-15 * (1.0 + x.abs()) || hi - lo <= 1e-15 * (1.0 + x.abs()) {
            return Some(next);
        }
        x = next;
    }
    Some(x)
}

/// The distribution closest (in likelihood) to `pdf` whose mean is `s` (fishtest's
/// `MLE_expected`).
fn mle_expected(pdf: &Pdf, s: f64) -> Option<Vec<f64>> {
    let shifted: Vec<f64> = pdf.values.iter().map(|a| a - s).collect();
    let x = secular(&shifted, &pdf.probs)?;
    Some(pdf.probs.iter().zip(&shifted).map(|(p, a)| p / (1.0 + x * a)).collect())
}

/// The distribution closest (in likelihood) to `pdf` whose t-value `(mu - reference) / sigma`
/// is `t` (fishtest's `MLE_t_value`): a fixed point, iterated at most 10 times from the uniform
/// distribution until no probability moves by 1e-9.
fn mle_t_value(pdf: &Pdf, reference: f64, t: f64) -> Option<Vec<f64>> {
    let k = pdf.values.len();
    let mut current = Pdf { values: pdf.values.clone(), probs: vec![1.0 / k as f64; k] };
    for _ in 0..10 {
        let (mu, var) = current.mean_var();
        let sigma = var.sqrt();
        let a: Vec<f64> = pdf
            .values
            .iter()
            .map(|v| v - reference - t * sigma * (1.0 + ((mu - v) / sigma).powi(2)) / 2.0)
            .collect();
        let x = secular(&a, &pdf.probs)?;
        let next: Vec<f64> = pdf.probs.iter().zip(&a).map(|(p, a)| p / (1.0 + x * a)).collect();
        let moved = next.iter().zip(&current.probs).map(|(n, c)| (n - c).abs()).fold(0.0, f64::max);
        current.probs = next;
        if moved < 1e-9 {
            break;
        }
    }
    Some(current.probs)
}

/// The generalized log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for these counts
/// (3: a trinomial, 5: a pentanomial), as fishtest's `LLR_logistic` and `LLR_normalized`.
///
/// A hypothesis no distribution on the observed cells can meet has likelihood 0: the ratio is
/// then infinite towards the other one.
pub(crate) fn llr(counts: &[u64], elo0: f64, elo1: f64, model: EloModel) -> f64 {
    let (n, pdf) = Pdf::of(counts);
    let under = |elo: f64| match model {
        EloModel::Logistic => mle_expected(&pdf, logistic_score(elo)),
        EloModel::Normalized => {
            // Normalized Elo is per game; a pair's score averages two games.
            let per_unit = if counts.len() == 5 { std::f64::consts::SQRT_2 } else { 1.0 };
            mle_t_value(&pdf, 0.5, elo / NELO_PER_T * per_unit)
        }
    };
    match (under(elo0), under(elo1)) {
        (Some(p0), Some(p1)) => {
            n * pdf
                .probs
                .iter()
                .zip(p0.iter().zip(&p1))
                .map(|(p, (q0, q1))| p * (q1.ln() - q0.ln()))
                .sum::<f64>()
        }
        (None, Some(_)) => f64::INFINITY,
        (Some(_), None) => f64::NEG_INFINITY,
        (None, None) => 0.0,
    }
}

/// The normal approximation fishtest displays (`LLR_alt2`), kept to show in tests how far it is
/// from the exact statistic; never used to decide.
#[cfg(test)]
pub(crate) fn llr_normal_approximation(counts: &[u64], elo0: f64, elo1: f64) -> f64 {
    let (n, pdf) = Pdf::of(counts);
    let (mu, var) = pdf.mean_var();
    let (s0, s1) = (logistic_score(elo0), logistic_score(elo1));
    n * (s1 - s0) * (2.0 * mu - s0 - s1) / var / 2.0
}

/// The stopping bounds `(lower, upper)` before the overshoot correction: H0 below `lower`, H1
/// above `upper`.
pub(crate) fn bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// Siegmund's dynamic overshoot correction (Sequential Analysis, Corollary 8.33), as fishtest
/// keeps it: the LLR jumps past a bound rather than landing on it, so the bounds move inwards by
/// the expected overshoot, estimated from the jumps of the LLR's running minimum (towards H0) and
/// maximum (towards H1). Updated once per counted pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Overshoot {
    ref0: f64,
    m0: f64,
    sq0: f64,
    ref1: f64,
    m1: f64,
    sq1: f64,
}

impl Overshoot {
    pub(crate) fn update(&mut self, llr: f64) {
        if !llr.is_finite() {
            return;
        }
        if llr < self.ref0 {
            let delta = llr - self.ref0;
            self.m0 += delta;
            self.sq0 += delta * delta;
            self.ref0 = llr;
        }
        if llr > self.ref1 {
            let delta = llr - self.ref1;
            self.m1 += delta;
            self.sq1 += delta * delta;
            self.ref1 = llr;
        }
    }

    /// The corrections `(o0, o1)`: H0 is accepted below `lower + o0`, H1 above `upper - o1`.
    pub(crate) fn corrections(&self) -> (f64, f64) {
        let o0 = if self.m0 != 0.0 { -self.sq0 / self.m0 / 2.0 } else { 0.0 };
        let o1 = if self.m1 != 0.0 { self.sq1 / self.m1 / 2.0 } else { 0.0 };
        (o0, o1)
    }
}

/// An Elo estimate and its 95% interval, in the test's model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct EloEstimate {
    pub(crate) value: f64,
    pub(crate) low: f64,
    pub(crate) high: f64,
}

/// The Elo the counts give, with a 95% interval from `mu ± 1.96 sqrt(var / N)` (fishtest's
/// `get_elo`, regularized counts): logistic Elo of the mean score, or normalized Elo
/// `(mu - 1/2) / sigma_per_game x 800 / ln 10` (a pair's variance is half a game's).
pub(crate) fn elo_estimate(counts: &[u64], model: EloModel) -> EloEstimate {
    let (n, pdf) = Pdf::of(counts);
    let (mu, var) = pdf.mean_var();
    let margin = Z95 * (var / n).sqrt();
    let to_elo = |score: f64| match model {
        EloModel::Logistic => score_to_elo(score),
        EloModel::Normalized => {
            let per_game_var = if counts.len() == 5 { 2.0 * var } else { var };
            (score - 0.5) / per_game_var.sqrt() * NELO_PER_T
        }
    };
    EloEstimate { value: to_elo(mu), low: to_elo(mu - margin), high: to_elo(mu + margin) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secular_root_solves_its_equation() {
        let a = [-0.4, -0.1, 0.2, 0.6];
        let p = [0.1, 0.3, 0.4, 0.2];
        let x = secular(&a, &p).unwrap();
        let v: f64 = a.iter().zip(&p).map(|(a, p)| p * a / (1.0 + x * a)).sum();
        assert!(v.abs() < 1e-12 && x > -1.0 / 0.6 && x < 1.0 / 0.4, "{x} {v}");
        assert!(secular(&[0.1, 0.2], &[0.5, 0.5]).is_none(), "no sign change, no root");
    }

    #[test]
    fn the_constrained_maxima_meet_their_constraints() {
        let (_, pdf) = Pdf::of(&[3, 10, 40, 12, 5]);
        let q = mle_expected(&pdf, 0.53).unwrap();
        let mean: f64 = q.iter().zip(&pdf.values).map(|(q, a)| q * a).sum();
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12 && (mean - 0.53).abs() < 1e-12);
        let q = mle_t_value(&pdf, 0.5, 0.1).unwrap();
        let fitted = Pdf { values: pdf.values.clone(), probs: q };
        let (mu, var) = fitted.mean_var();
        assert!(((mu - 0.5) / var.sqrt() - 0.1).abs() < 1e-6, "{mu} {var}");
    }

    #[test]
    fn symmetric_counts_favour_neither_hypothesis_symmetric_about_zero() {
        for model in [EloModel::Logistic, EloModel::Normalized] {
            assert!(llr(&[10, 20, 40, 20, 10], -5.0, 5.0, model).abs() < 1e-9);
            assert!(llr(&[7, 30, 7], -5.0, 5.0, model).abs() < 1e-9);
        }
    }

    #[test]
    fn the_overshoot_correction_follows_the_running_extremes() {
        let mut o = Overshoot::default();
        for llr in [0.5, -0.3, 0.2, -1.0, 1.5] {
            o.update(llr);
        }
        // Minimum jumps: -0.3, then -0.7; maximum jumps: 0.5, then 1.0.
        let (o0, o1) = o.corrections();
        assert!((o0 - (0.09 + 0.49) / 2.0).abs() < 1e-12, "{o0}");
        assert!((o1 - (0.25 + 1.0) / 1.5 / 2.0).abs() < 1e-12, "{o1}");
    }

    #[test]
    fn bounds_and_elo_are_the_textbook_ones() {
        let (lo, hi) = bounds(0.05, 0.05);
        assert!((lo + 2.944_438_979).abs() < 1e-8 && (hi - 2.944_438_979).abs() < 1e-8);
        assert!((score_to_elo(0.75) - 400.0 * 3f64.log10()).abs() < 1e-9);
        assert!((logistic_score(0.0) - 0.5).abs() < 1e-15);
        for model in [EloModel::Logistic, EloModel::Normalized] {
            let e = elo_estimate(&[10, 20, 40, 20, 10], model);
            assert!(e.value.abs() < 1e-9 && e.low < 0.0 && e.high > 0.0);
            assert!((e.low + e.high).abs() < 1e-9);
        }
    }

    /// The reference cases of `tests/data/sprt/llr_reference.json`, made by an independent Python
    /// re-implementation of fishtest's LLRcalc with scipy's brentq (`fishtest_llr.py` beside it).
    #[test]
    fn the_llr_is_fishtests_exact_statistic() {
        let data: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/data/sprt/llr_reference.json"))
                .expect("the reference data");
        let cases = data["cases"].as_array().expect("cases");
        assert!(cases.len() >= 5);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let counts: Vec<u64> =
                case["counts"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect();
            let (elo0, elo1) = (case["elo0"].as_f64().unwrap(), case["elo1"].as_f64().unwrap());
            for (model, key) in
                [(EloModel::Logistic, "llr_logistic"), (EloModel::Normalized, "llr_normalized")]
            {
                let want = case[key].as_f64().unwrap();
                let got = llr(&counts, elo0, elo1, model);
                assert!(
                    (got - want).abs() <= 1e-7 * (1.0 + want.abs()),
                    "{name} {key}: {got} vs {want}"
                );
            }
            let want = case["llr_normal_approximation"].as_f64().unwrap();
            let got = llr_normal_approximation(&counts, elo0, elo1);
            assert!((got - want).abs() <= 1e-9 * (1.0 + want.abs()), "{name}: {got} vs {want}");
        }
        // The two cases: the approximation decided, the exact statistic keeps playing.
        let (lower, upper) = bounds(0.05, 0.05);
        let painters = llr(&[0, 0, 16, 0, 0], 0.0, 10.0, EloModel::Logistic);
        assert!(painters > lower && (painters + 0.4605).abs() < 1e-3, "{painters}");
        assert!(llr_normal_approximation(&[0, 0, 16, 0, 0], 0.0, 10.0) < lower);
        let greedy = llr(&[0, 0, 12, 3, 3], 0.0, 50.0, EloModel::Logistic);
        assert!(greedy < upper && (greedy - 2.4026).abs() < 1e-3, "{greedy}");
        assert!(llr_normal_approximation(&[0, 0, 12, 3, 3], 0.0, 50.0) > upper);
    }

    /// How often a test accepts H0 when the truth (+52.5 logistic Elo, pairs that are splits or
    /// double wins as deterministic bots play them) is above elo1 = 50: at most beta = 5% up to
    /// sampling noise for the exact statistic (the reference simulation: 5.0%), far more for the
    /// approximation (13.9%).
    #[test]
    fn the_exact_test_keeps_its_error_rate_where_the_approximation_does_not() {
        use rand::{RngExt, SeedableRng};
        let q = 2.0 * logistic_score(52.5) - 1.0;
        let (lower, upper) = bounds(0.05, 0.05);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
        let runs = 400;
        let (mut exact_h0, mut approx_h0) = (0, 0);
        for _ in 0..runs {
            let draws: Vec<bool> = (0..20_000).map(|_| rng.random_bool(q)).collect();
            let mut counts = [0u64; 5];
            let mut overshoot = Overshoot::default();
            for &double_win in &draws {
                counts[if double_win { 4 } else { 2 }] += 1;
                let value = llr(&counts, 0.0, 50.0, EloModel::Logistic);
                overshoot.update(value);
                let (o0, o1) = overshoot.corrections();
                if value < lower + o0 {
                    exact_h0 += 1;
                    break;
                }
                if value > upper - o1 {
                    break;
                }
            }
            let mut counts = [0u64; 5];
            for (i, &double_win) in draws.iter().enumerate() {
                counts[if double_win { 4 } else { 2 }] += 1;
                if i + 1 < 16 {
                    continue;
                }
                let value = llr_normal_approximation(&counts, 0.0, 50.0);
                if value <= lower {
                    approx_h0 += 1;
                    break;
                }
                if value >= upper {
                    break;
                }
            }
        }
        let (exact, approx) = (exact_h0 as f64 / runs as f64, approx_h0 as f64 / runs as f64);
        // 0.09 is beta plus three standard errors of 400 runs.
        assert!(exact <= 0.09, "exact statistic: H0 in {exact} of runs");
        assert!(approx >= 0.09, "the approximation: H0 in {approx} of runs");
    }
}
