//! Ratings and intervals: a Plackett-Luce fit (Bradley-Terry when games have two seats) of the
//! bots' strengths from their finishing orders, and Wilson score intervals of win rates.
//!
//! Pure functions of counters, apart from the files and the text they end up in, so the fit can
//! be tested against known strengths and reworked on its own.

use std::collections::BTreeMap;

use serde::Serialize;

/// The z of a two-sided 95% interval.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// Elo points per natural-log unit of strength: `400 / ln 10`.
pub(crate) const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The virtual draws per bot against the anchor (see [`fit_ratings`]).
pub(crate) const RATING_PRIOR: f64 = 1.0;

/// A proportion with its 95% Wilson score interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// The Wilson score interval of `successes` (may be fractional: draws count 1/2) in `n` trials.
pub(crate) fn wilson(successes: f64, n: f64, z: f64) -> Interval {
    if n <= 0.0 {
        return Interval { value: f64::NAN, low: 0.0, high: 1.0 };
    }
    let p = successes / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Interval { value: p, low: (centre - half).max(0.0), high: (centre + half).min(1.0) }
}

/// Ratings from a Plackett-Luce model: the probability that bot `i` finishes first among a set
/// `S` is `gamma_i / sum_{j in S} gamma_j`; a finishing order is a sequence of such choices. With
/// two seats this is exactly Bradley-Terry. Ties are averaged over their orders (a two-seat draw
/// is half a win each).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ratings {
    /// Elo per bot (`400 log10 gamma`), shifted so the mean is 0.
    pub elo: Vec<f64>,
    /// Half the width of each 95% interval, in Elo.
    pub elo_margin: Vec<f64>,
}

/// One choice of a finishing order: `winner` comes first among `set`.
struct Stage {
    set: Vec<usize>,
    winner: usize,
    weight: f64,
}

/// Fits ratings by Hunter's MM algorithm (2004). `prior` virtual draws of each bot against a fixed
/// anchor of rating 0 keep the fit finite when a bot wins or loses everything (as BayesElo's
/// prior does); `prior = 0` gives the plain maximum-likelihood fit, mean-centred.
/// The intervals come from the inverse of the observed Fisher information.
pub(crate) fn fit_ratings(
    n: usize,
    rankings: &BTreeMap<Vec<Vec<usize>>, u64>,
    prior: f64,
) -> Ratings {
    let anchor = n;
    let items = if prior > 0.0 { n + 1 } else { n };
    let mut stages: Vec<Stage> = Vec::new();
    for (groups, &count) in rankings {
        for (order, weight) in tie_orders(groups) {
            for t in 0..order.len().saturating_sub(1) {
                stages.push(Stage {
                    set: order[t..].to_vec(),
                    winner: order[t],
                    weight: weight * count as f64,
                });
            }
        }
    }
    if prior > 0.0 {
        for i in 0..n {
            stages.push(Stage { set: vec![i, anchor], winner: i, weight: prior / 2.0 });
            stages.push(Stage { set: vec![i, anchor], winner: anchor, weight: prior / 2.0 });
        }
    }
    let mut wins = vec![0.0; items];
    for s in &stages {
        wins[s.winner] += s.weight;
    }
    let mut gamma = vec![1.0; items];
    for _ in 0..100_000 {
        let mut denom = vec![0.0; items];
        for s in &stages {
            let total: f64 = s.set.iter().map(|&j| gamma[j]).sum();
            for &j in &s.set {
                denom[j] += s.weight / total;
            }
        }
        let mut next = gamma.clone();
        for i in 0..n {
            if denom[i] > 0.0 {
                next[i] = (wins[i] / denom[i]).max(1e-300);
            }
        }
        if prior <= 0.0 {
            // Without an anchor only ratios are identified: keep the geometric mean at 1.
            let mean_log = next[..n].iter().map(|g| g.ln()).sum::<f64>() / n as f64;
            for g in &mut next[..n] {
                *g = (g.ln() - mean_log).exp();
            }
        }
        let change = (0..n).map(|i| (next[i].ln() - gamma[i].ln()).abs()).fold(0.0, f64::max);
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    let theta: Vec<f64> = gamma[..n].iter().map(|g| g.ln()).collect();
    let mean = theta.iter().sum::<f64>() / n as f64;
    let elo: Vec<f64> = theta.iter().map(|t| (t - mean) * ELO_PER_NAT).collect();

    // Observed information: sum over stages of weight * (diag(p) - p p^T), p the choice
    // probabilities within the stage's set.
    let mut info = vec![vec![0.0; items]; items];
    for s in &stages {
        let total: f64 = s.set.iter().map(|&j| gamma[j]).sum();
        for &a in &s.set {
            let pa = gamma[a] / total;
            info[a][a] += s.weight * pa;
            for &b in &s.set {
                info[a][b] -= s.weight * pa * gamma[b] / total;
            }
        }
    }
    let info: Vec<Vec<f64>> = info[..n].iter().map(|row| row[..n].to_vec()).collect();
    let covariance = if prior > 0.0 {
        invert(info)
    } else {
        // The information is singular along (1, ..., 1); the pseudo-inverse of a matrix whose
        // null space is exactly that line is (I + J/n)^-1 - J/n.
        let j = 1.0 / n as f64;
        let shifted: Vec<Vec<f64>> =
            info.iter().map(|row| row.iter().map(|v| v + j).collect()).collect();
        invert(shifted).map(|m| m.iter().map(|row| row.iter().map(|v| v - j).collect()).collect())
    };
    // The reported rating is a contrast, theta_i - mean(theta): its variance is c^T C c with
    // c = e_i - 1/n. This removes the (large) uncertainty of the anchor's own position.
    let elo_margin = (0..n)
        .map(|i| {
            let Some(c) = &covariance else { return f64::INFINITY };
            let coef = |a: usize| if a == i { 1.0 } else { 0.0 } - 1.0 / n as f64;
            let var: f64 =
                (0..n).map(|a| (0..n).map(|b| coef(a) * c[a][b] * coef(b)).sum::<f64>()).sum();
            if var > 0.0 { Z95 * ELO_PER_NAT * var.sqrt() } else { f64::INFINITY }
        })
        .collect();
    Ratings { elo, elo_margin }
}

/// Every order of the tied groups' members, each with weight 1 / (product of group sizes!).
fn tie_orders(groups: &[Vec<usize>]) -> Vec<(Vec<usize>, f64)> {
    let mut out = vec![(Vec::new(), 1.0)];
    for g in groups {
        let perms = permutations(g);
        let w = 1.0 / perms.len() as f64;
        out = out
            .into_iter()
            .flat_map(|(prefix, pw)| {
                perms.iter().map(move |p| {
                    let mut order = prefix.clone();
                    order.extend_from_slice(p);
                    (order, pw * w)
                })
            })
            .collect();
    }
    out
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Gauss-Jordan inversion with partial pivoting; `None` for a singular matrix.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> =
        (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for j in 0..n {
            a[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..n {
            if row != col && a[row][col] != 0.0 {
                let f = a[row][col];
                for j in 0..n {
                    a[row][j] -= f * a[col][j];
                    inv[row][j] -= f * inv[col][j];
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn wilson_matches_the_formula() {
        // 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416, half 1.96/1.38416 * sqrt(0.016 + 0.009604)
        let i = wilson(8.0, 10.0, 1.96);
        let denom = 1.0 + 1.96f64.powi(2) / 10.0;
        let centre = (0.8 + 1.96f64.powi(2) / 20.0) / denom;
        let half = 1.96 / denom * (0.8 * 0.2 / 10.0 + 1.96f64.powi(2) / 400.0).sqrt();
        assert!(close(i.low, centre - half, 1e-12) && close(i.high, centre + half, 1e-12));
        assert!(close(i.low, 0.4902, 1e-4) && close(i.high, 0.9433, 1e-4), "{i:?}");
        // All wins: the interval still has a lower bound below 1.
        let all = wilson(20.0, 20.0, Z95);
        assert!(all.high == 1.0 && all.low < 0.9 && all.low > 0.8, "{all:?}");
    }

    fn pair_rankings(results: &[(usize, usize, u64)]) -> BTreeMap<Vec<Vec<usize>>, u64> {
        results.iter().map(|&(w, l, n)| (vec![vec![w], vec![l]], n)).collect()
    }

    #[test]
    fn bradley_terry_recovers_known_strengths() {
        // Strengths 1, 2, 4: expected results of 120 games per pair (exact, so the MLE is the
        // truth): P(1 beats 0) = 2/3, P(2 beats 0) = 4/5, P(2 beats 1) = 2/3.
        let r = pair_rankings(&[
            (1, 0, 80),
            (0, 1, 40),
            (2, 0, 96),
            (0, 2, 24),
            (2, 1, 80),
            (1, 2, 40),
        ]);
        let fit = fit_ratings(3, &r, 0.0);
        let step = 400.0 * 2f64.log10(); // 120.41 Elo per doubling
        assert!(close(fit.elo[0], -step, 1e-6), "{:?}", fit.elo);
        assert!(close(fit.elo[1], 0.0, 1e-6), "{:?}", fit.elo);
        assert!(close(fit.elo[2], step, 1e-6), "{:?}", fit.elo);
        assert!(fit.elo_margin.iter().all(|m| m.is_finite() && *m > 0.0));
    }

    #[test]
    fn two_bots_at_three_to_one_are_400_log10_3_apart() {
        let r = pair_rankings(&[(0, 1, 750), (1, 0, 250)]);
        let fit = fit_ratings(2, &r, 0.0);
        let diff = fit.elo[0] - fit.elo[1];
        assert!(close(diff, 400.0 * 3f64.log10(), 1e-6), "{diff}");
        // The delta method: var(theta0 - theta1) = 1 / (n p q); each theta is half of it.
        let se_diff = 1.0 / (1000.0f64 * 0.75 * 0.25).sqrt();
        let margin = Z95 * ELO_PER_NAT * se_diff / 2.0;
        assert!(close(fit.elo_margin[0], margin, 1e-6), "{} vs {margin}", fit.elo_margin[0]);
    }

    #[test]
    fn draws_count_half_and_the_prior_keeps_perfect_scores_finite() {
        // 2 wins and 2 draws of 4 games = 75%, as 3 wins of 4.
        let mut r = pair_rankings(&[(0, 1, 200)]);
        r.insert(vec![vec![0, 1]], 200);
        let fit = fit_ratings(2, &r, 0.0);
        assert!(close(fit.elo[0] - fit.elo[1], 400.0 * 3f64.log10(), 1e-6));
        let perfect = fit_ratings(2, &pair_rankings(&[(0, 1, 10)]), RATING_PRIOR);
        assert!(perfect.elo[0].is_finite() && perfect.elo[0] > 100.0, "{:?}", perfect.elo);
        assert!(perfect.elo_margin[0].is_finite());
    }

    #[test]
    fn plackett_luce_recovers_three_seat_strengths() {
        // Strengths g = (1, 2, 3): P(order a, b, c) = g_a / 6 * g_b / (6 - g_a). Weighted by a
        // large multiple, the expected counts are integers and the MLE is the truth.
        let g = [1.0f64, 2.0, 3.0];
        let mut r = BTreeMap::new();
        for order in permutations(&[0, 1, 2]) {
            let p = g[order[0]] / 6.0 * g[order[1]] / (6.0 - g[order[0]]);
            r.insert(order.iter().map(|&b| vec![b]).collect::<Vec<_>>(), (p * 240_000.0) as u64);
        }
        let fit = fit_ratings(3, &r, 0.0);
        let mean = (1f64.ln() + 2f64.ln() + 3f64.ln()) / 3.0;
        for (elo, strength) in fit.elo.iter().zip(g) {
            assert!(close(*elo, (strength.ln() - mean) * ELO_PER_NAT, 1e-6), "{:?}", fit.elo);
        }
    }
}
