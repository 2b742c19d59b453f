//! The statistics of a sequential probability ratio test, apart from the runner that plays the
//! pairs: fishtest's pentanomial GSPRT.
//!
//! The pairs are counted pentanomially (the candidate's points in a pair are 0, 1/2, 1, 3/2 or 2),
//! and the log-likelihood ratio is the generalized SPRT's normal approximation (van den Bergh,
//! "GSPRT approximation"):
//!
//! `LLR = N (s1 - s0) (2 mu - s0 - s1) / (2 var)`,
//!
//! with `mu` and `var` the mean and variance of the per-pair score (points / 2), `N` the number
//! of pairs, and `s = 1 / (1 + 10^(-elo / 400))` the expected score of a logistic Elo difference.
//! Empty cells are regularized to 1e-3 as fishtest does. The test stops when the LLR leaves
//! `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`.

use super::ratings::Z95;

/// Pair counts: `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` from the candidate's side.
pub(crate) type Penta = [u64; 5];

/// The expected score of a logistic Elo difference.
pub(crate) fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score.
pub(crate) fn score_to_elo(score: f64) -> f64 {
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
pub(crate) fn llr(penta: &Penta, elo0: f64, elo1: f64) -> f64 {
    let (n, mean, var) = pair_stats(penta);
    let (s0, s1) = (logistic_score(elo0), logistic_score(elo1));
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
}

/// The stopping bounds `(lower, upper)`: accept H0 at or below `lower`, H1 at or above `upper`.
pub(crate) fn bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The Elo estimate with its 95% interval, from the pairs' mean score and its standard error.
pub(crate) fn elo_estimate(penta: &Penta) -> (f64, f64, f64) {
    let (n, mean, var) = pair_stats(penta);
    let margin = Z95 * (var / n).sqrt();
    (score_to_elo(mean), score_to_elo(mean - margin), score_to_elo(mean + margin))
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
    fn bounds_and_elo_are_the_textbook_ones() {
        let (lo, hi) = bounds(0.05, 0.05);
        assert!((lo + 2.944_438_979).abs() < 1e-8 && (hi - 2.944_438_979).abs() < 1e-8);
        assert!((score_to_elo(0.75) - 400.0 * 3f64.log10()).abs() < 1e-9);
        assert!((logistic_score(0.0) - 0.5).abs() < 1e-15);
        let (elo, low, high) = elo_estimate(&[10, 20, 40, 20, 10]);
        assert!(elo.abs() < 1e-9 && low < 0.0 && high > 0.0 && (low + high).abs() < 1e-9);
    }
}
