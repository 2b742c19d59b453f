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
        // No trials, no proportion: not the uninformative [0, 1], which reads as a result.
        return Interval { value: f64::NAN, low: f64::NAN, high: f64::NAN };
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
///
/// Only bots that played are rated, and only against the bots they are connected to by games:
/// the comparison graph's components are rated apart, each centred on its own mean.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ratings {
    /// Elo per bot (`400 log10 gamma`), its component's mean at 0; NaN for a bot without games
    /// or when the fit did not converge.
    pub elo: Vec<f64>,
    /// Half the width of each 95% interval, in Elo (NaN where `elo` is).
    pub elo_margin: Vec<f64>,
    /// Each bot's component (1-based, numbered in the order of their first bots); `None` for a
    /// bot without games.
    pub component: Vec<Option<usize>>,
    /// Whether Newton's method met its tolerances in every component.
    pub converged: bool,
    /// Per component (in `component`'s numbering from 1), its members and the covariance of
    /// their strengths (in nats, members' order) where the fit has one: for [`Ratings::los`].
    pub covariance: Vec<(Vec<usize>, Option<Covariance>)>,
}

impl Ratings {
    /// The likelihood of superiority of bot `a` over bot `b`: the probability that `a` is the
    /// stronger, `Φ((θa − θb) / sd(θa − θb))` with the difference's standard deviation from the
    /// fit's covariance (which accounts for the two ratings' correlation). NaN when they are in
    /// different components or not rated.
    pub(crate) fn los(&self, a: usize, b: usize) -> f64 {
        let (Some(ca), Some(cb)) = (self.component[a], self.component[b]) else { return f64::NAN };
        if ca != cb || !(self.elo[a].is_finite() && self.elo[b].is_finite()) {
            return f64::NAN;
        }
        let (members, covariance) = &self.covariance[ca - 1];
        let Some(c) = covariance else { return f64::NAN };
        let (Some(i), Some(j)) =
            (members.iter().position(|&m| m == a), members.iter().position(|&m| m == b))
        else {
            return f64::NAN;
        };
        let var = c[i][i] + c[j][j] - 2.0 * c[i][j];
        let diff = (self.elo[a] - self.elo[b]) / ELO_PER_NAT;
        if var > 0.0 {
            normal_cdf(diff / var.sqrt())
        } else if diff > 0.0 {
            1.0
        } else if diff < 0.0 {
            0.0
        } else {
            0.5
        }
    }
}

/// The standard normal distribution function (Abramowitz and Stegun 7.1.26 through erf, within
/// 1.5e-7).
pub(crate) fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 { 0.5 * (1.0 + erf) } else { 0.5 * (1.0 - erf) }
}

/// A covariance matrix, row by row.
pub(crate) type Covariance = Vec<Vec<f64>>;

/// One choice of a finishing order: `winner` comes first among `set`.
struct Stage {
    set: Vec<usize>,
    winner: usize,
    weight: f64,
}

/// Newton's method stops when no strength moves by more than this (in nats, about 1e-7 Elo)...
const STEP_TOLERANCE: f64 = 1e-9;
/// ... and no component of the gradient exceeds this, relative to the games behind it.
const GRADIENT_TOLERANCE: f64 = 1e-9;
/// A fit that needs more Newton iterations than this is reported as not converged.
const MAX_NEWTON_ITERATIONS: usize = 500;

/// Fits ratings: the maximum of the Plackett-Luce log-likelihood plus `prior` virtual draws of
/// each bot against a fixed anchor of strength 0 (as BayesElo's prior), so a bot that wins or
/// loses every game still has a finite rating: the one where its real games and its virtual
/// draws balance. `prior = 0` is the plain maximum-likelihood fit, which does not exist (and is
/// reported as not converged) when a bot wins everything.
///
/// The maximum is found by Newton's method with the information matrix and a backtracking line
/// search: with `prior > 0` the objective is strictly concave and tends to minus infinity in
/// every direction, so it has one maximum and damped Newton converges to it from anywhere
/// (Boyd and Vandenberghe, Convex Optimization, 9.5.3), quadratically at the end. It stops on
/// both a step and a gradient tolerance. The intervals come from the inverse of the observed
/// Fisher information at the maximum.
pub(crate) fn fit_ratings(
    n: usize,
    rankings: &BTreeMap<Vec<Vec<usize>>, u64>,
    prior: f64,
) -> Ratings {
    // The comparison graph's components: bots connected by a match.
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut played = vec![false; n];
    for (groups, &count) in rankings {
        if count == 0 {
            continue;
        }
        let members: Vec<usize> = groups.iter().flatten().copied().collect();
        for &m in &members {
            played[m] = true;
            let (a, b) = (root(&mut parent, members[0]), root(&mut parent, m));
            parent[b] = a;
        }
    }
    let mut component = vec![None; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        if !played[i] {
            continue;
        }
        let r = root(&mut parent, i);
        match (0..i).find(|&j| played[j] && root(&mut parent, j) == r) {
            Some(j) => {
                let c: usize = component[j].expect("an earlier bot of the component");
                component[i] = Some(c);
                groups[c - 1].push(i);
            }
            None => {
                groups.push(vec![i]);
                component[i] = Some(groups.len());
            }
        }
    }

    let mut elo = vec![f64::NAN; n];
    let mut elo_margin = vec![f64::NAN; n];
    let mut converged = true;
    let mut covariance = Vec::with_capacity(groups.len());
    for members in &groups {
        let fit = fit_component(members, rankings, prior);
        converged &= fit.converged;
        covariance.push((members.clone(), fit.covariance.clone().filter(|_| fit.converged)));
        for (k, &bot) in members.iter().enumerate() {
            if fit.converged {
                elo[bot] = fit.elo[k];
                elo_margin[bot] = fit.margin[k];
            }
        }
    }
    Ratings { elo, elo_margin, component, converged, covariance }
}

/// The fit of one component: Elo and margins of `members`, in their order.
struct ComponentFit {
    elo: Vec<f64>,
    margin: Vec<f64>,
    converged: bool,
    /// The covariance of the members' strengths (nats), when the information matrix inverts.
    covariance: Option<Covariance>,
}

fn fit_component(
    members: &[usize],
    rankings: &BTreeMap<Vec<Vec<usize>>, u64>,
    prior: f64,
) -> ComponentFit {
    let n = members.len();
    let local = |bot: usize| members.iter().position(|&m| m == bot);
    // Strengths `theta[0..n]`; with a prior, `theta[n]` is the anchor, fixed at 0.
    let anchor = n;
    let mut stages: Vec<Stage> = Vec::new();
    for (groups, &count) in rankings {
        if count == 0 || local(groups[0][0]).is_none() {
            continue;
        }
        let groups: Vec<Vec<usize>> = groups
            .iter()
            .map(|g| g.iter().map(|&b| local(b).expect("one component")).collect())
            .collect();
        for (order, weight) in tie_orders(&groups) {
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
    let total_weight: f64 = stages.iter().map(|s| s.weight).sum();

    let mut theta = vec![0.0; n + 1];
    let mut converged = false;
    for _ in 0..MAX_NEWTON_ITERATIONS {
        let (value, gradient, info) = evaluate(&stages, &theta, n);
        let step = newton_step(&info, &gradient, prior > 0.0);
        let Some(step) = step else { break };
        let largest_step = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        let largest_gradient = gradient.iter().fold(0.0f64, |m, g| m.max(g.abs()));
        if largest_step <= STEP_TOLERANCE
            && largest_gradient <= GRADIENT_TOLERANCE * total_weight.max(1.0)
        {
            converged = true;
            break;
        }
        // Backtracking: halve the step until the objective does not decrease (the Newton
        // direction is an ascent direction of a concave function, so a small enough step is).
        let mut scale = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            let trial: Vec<f64> = (0..=n)
                .map(|i| if i < n { theta[i] + scale * step[i] } else { theta[i] })
                .collect();
            if log_likelihood(&stages, &trial) >= value - 1e-12 * value.abs().max(1.0) {
                theta = trial;
                moved = true;
                break;
            }
            scale /= 2.0;
        }
        if !moved {
            break;
        }
        if prior <= 0.0 {
            // Without an anchor only differences are identified: keep the mean at 0.
            let mean = theta[..n].iter().sum::<f64>() / n as f64;
            theta[..n].iter_mut().for_each(|t| *t -= mean);
        }
    }

    let (_, _, info) = evaluate(&stages, &theta, n);
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
    let mean = theta[..n].iter().sum::<f64>() / n as f64;
    let elo = theta[..n].iter().map(|t| (t - mean) * ELO_PER_NAT).collect();
    // The reported rating is a contrast, theta_i - mean(theta): its variance is c^T C c with
    // c = e_i - 1/n. This removes the (large) uncertainty of the anchor's own position.
    let margin = (0..n)
        .map(|i| {
            let Some(c) = &covariance else { return f64::INFINITY };
            let coef = |a: usize| if a == i { 1.0 } else { 0.0 } - 1.0 / n as f64;
            let var: f64 =
                (0..n).map(|a| (0..n).map(|b| coef(a) * c[a][b] * coef(b)).sum::<f64>()).sum();
            if var > 0.0 { Z95 * ELO_PER_NAT * var.sqrt() } else { f64::INFINITY }
        })
        .collect();
    let covariance = covariance.map(|c| c[..n].iter().map(|row| row[..n].to_vec()).collect());
    ComponentFit { elo, margin, converged, covariance }
}

/// The choice probabilities of a stage, computed stably (the largest strength factored out).
fn probabilities(stage: &Stage, theta: &[f64]) -> Vec<f64> {
    let top = stage.set.iter().map(|&j| theta[j]).fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = stage.set.iter().map(|&j| (theta[j] - top).exp()).collect();
    let total: f64 = e.iter().sum();
    e.into_iter().map(|v| v / total).collect()
}

fn log_likelihood(stages: &[Stage], theta: &[f64]) -> f64 {
    stages
        .iter()
        .map(|s| {
            let top = s.set.iter().map(|&j| theta[j]).fold(f64::NEG_INFINITY, f64::max);
            let total: f64 = s.set.iter().map(|&j| (theta[j] - top).exp()).sum();
            s.weight * (theta[s.winner] - top - total.ln())
        })
        .sum()
}

/// The log-likelihood, its gradient and the observed information
/// `sum weight (diag(p) - p p^T)` over the free strengths `0..n`.
fn evaluate(stages: &[Stage], theta: &[f64], n: usize) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let mut gradient = vec![0.0; n];
    let mut info = vec![vec![0.0; n]; n];
    for s in stages {
        let p = probabilities(s, theta);
        if s.winner < n {
            gradient[s.winner] += s.weight;
        }
        for (x, &a) in s.set.iter().enumerate() {
            if a >= n {
                continue;
            }
            gradient[a] -= s.weight * p[x];
            info[a][a] += s.weight * p[x];
            for (y, &b) in s.set.iter().enumerate() {
                if b < n {
                    info[a][b] -= s.weight * p[x] * p[y];
                }
            }
        }
    }
    (log_likelihood(stages, theta), gradient, info)
}

/// The Newton step `info^-1 gradient` (without an anchor, in the space orthogonal to
/// `(1, ..., 1)`, where the gradient lies).
fn newton_step(info: &[Vec<f64>], gradient: &[f64], anchored: bool) -> Option<Vec<f64>> {
    let n = gradient.len();
    let matrix: Vec<Vec<f64>> = if anchored {
        info.to_vec()
    } else {
        let j = 1.0 / n as f64;
        info.iter().map(|row| row.iter().map(|v| v + j).collect()).collect()
    };
    let inverse = invert(matrix)?;
    Some((0..n).map(|i| (0..n).map(|j| inverse[i][j] * gradient[j]).sum()).collect())
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

    #[test]
    fn a_fit_without_a_maximum_is_flagged_not_printed() {
        // Without the prior, a bot that wins everything has no finite maximum-likelihood rating.
        let fit = fit_ratings(2, &pair_rankings(&[(0, 1, 50)]), 0.0);
        assert!(!fit.converged);
        assert!(fit.elo.iter().all(|e| e.is_nan()), "{:?}", fit.elo);
        // With it, the fit converges however lopsided the results.
        let fit = fit_ratings(3, &pair_rankings(&[(0, 1, 3000), (0, 2, 3000), (1, 2, 1)]), 1.0);
        assert!(fit.converged && fit.elo.iter().all(|e| e.is_finite()), "{fit:?}");
    }

    #[test]
    fn bots_without_games_and_separate_groups_are_not_linked_by_the_prior() {
        // Bots 0-1 and 3-4 play; bot 2 never does.
        let r = pair_rankings(&[(0, 1, 30), (1, 0, 10), (3, 4, 5), (4, 3, 15)]);
        let fit = fit_ratings(5, &r, RATING_PRIOR);
        assert_eq!(fit.component, vec![Some(1), Some(1), None, Some(2), Some(2)]);
        assert!(fit.elo[2].is_nan() && fit.elo_margin[2].is_nan());
        // Each group is centred on its own mean, and fits as if the other were not there.
        assert!(
            close(fit.elo[0] + fit.elo[1], 0.0, 1e-9) && close(fit.elo[3] + fit.elo[4], 0.0, 1e-9)
        );
        let alone = fit_ratings(2, &pair_rankings(&[(0, 1, 30), (1, 0, 10)]), RATING_PRIOR);
        assert!(
            close(alone.elo[0], fit.elo[0], 1e-9)
                && close(alone.elo_margin[0], fit.elo_margin[0], 1e-9)
        );
    }
}
