//! Statistics from compact counters: per-bot results with Wilson intervals, a head-to-head
//! matrix, and ratings from a Plackett-Luce fit (Bradley-Terry when games have two seats).
//!
//! A [`Tally`] is fed one result row at a time and keeps only counters whose size depends on the
//! number of bots, never on the number of matches, so summaries of a million matches take the
//! memory of ten. Every counter is an integer (scores in fixed point), so the tally — and every
//! figure derived from it — is the same whatever order the rows arrive in: one run, a resumed run
//! and merged shards print the same summaries byte for byte.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The z of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo points per natural-log unit of strength: `400 / ln 10`.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Scores are summed in units of 1e-9, exactly.
const SCORE_UNIT: f64 = 1e9;

/// One match's result, as the stats need it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResultRow {
    /// The bot of each seat (an index into the tally's bots).
    pub bots: Vec<usize>,
    pub scores: Vec<f64>,
    /// 1 is best; equal ranks tie.
    pub ranks: Vec<u32>,
    pub termination: String,
    /// The bot whose failure ended the match.
    pub culprit: Option<usize>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotTally {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    score_units: i128,
    /// Matches this bot lost by its own failure (timeout, crash, illegal action, ...).
    pub faults: u64,
    pub timeouts: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairTally {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl PairTally {
    /// Points per game: a win is 1, a draw 1/2.
    pub fn score_rate(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games as f64
    }
}

/// Counters of every result seen.
#[derive(Clone, Debug)]
pub struct Tally {
    pub bots: Vec<String>,
    pub per_bot: Vec<BotTally>,
    /// `pair[a][b]`: `a`'s results against `b` in the matches both played.
    pub pair: Vec<Vec<PairTally>>,
    /// Each distinct finishing order (groups of tied bots, best first) and how often it happened.
    pub rankings: BTreeMap<Vec<Vec<usize>>, u64>,
    pub terminations: BTreeMap<String, u64>,
    pub matches: u64,
    /// The roles, in seat order, and `by_seat[bot][seat]`: that bot's results in that seat.
    pub roles: Vec<String>,
    pub by_seat: Vec<Vec<PairTally>>,
}

impl Tally {
    pub fn new(bots: Vec<String>, roles: Vec<String>) -> Tally {
        let n = bots.len();
        Tally {
            by_seat: vec![vec![PairTally::default(); roles.len()]; n],
            roles,
            bots,
            per_bot: vec![BotTally::default(); n],
            pair: vec![vec![PairTally::default(); n]; n],
            rankings: BTreeMap::new(),
            terminations: BTreeMap::new(),
            matches: 0,
        }
    }

    pub fn add(&mut self, row: &MatchResultRow) {
        self.matches += 1;
        *self.terminations.entry(row.termination.clone()).or_default() += 1;
        let firsts = row.ranks.iter().filter(|&&r| r == 1).count();
        for (seat, &bot) in row.bots.iter().enumerate() {
            let t = &mut self.per_bot[bot];
            t.games += 1;
            t.score_units += (row.scores[seat] * SCORE_UNIT).round() as i128;
            let r = &mut self.by_seat[bot][seat];
            r.games += 1;
            match (row.ranks[seat], firsts) {
                (1, 1) => {
                    t.wins += 1;
                    r.wins += 1;
                }
                (1, _) => {
                    t.draws += 1;
                    r.draws += 1;
                }
                _ => {
                    t.losses += 1;
                    r.losses += 1;
                }
            }
            for (other_seat, &other) in row.bots.iter().enumerate() {
                if other_seat == seat {
                    continue;
                }
                let p = &mut self.pair[bot][other];
                p.games += 1;
                match row.ranks[seat].cmp(&row.ranks[other_seat]) {
                    std::cmp::Ordering::Less => p.wins += 1,
                    std::cmp::Ordering::Equal => p.draws += 1,
                    std::cmp::Ordering::Greater => p.losses += 1,
                }
            }
        }
        if let Some(c) = row.culprit {
            self.per_bot[c].faults += 1;
            if row.termination == "timeout" {
                self.per_bot[c].timeouts += 1;
            }
        }
        let mut order: Vec<usize> = (0..row.bots.len()).collect();
        order.sort_by_key(|&s| (row.ranks[s], row.bots[s]));
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut last_rank = None;
        for s in order {
            if last_rank == Some(row.ranks[s]) {
                groups.last_mut().expect("a group").push(row.bots[s]);
            } else {
                groups.push(vec![row.bots[s]]);
            }
            last_rank = Some(row.ranks[s]);
        }
        *self.rankings.entry(groups).or_default() += 1;
    }
}

/// A proportion with its 95% Wilson score interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// The Wilson score interval of `successes` (may be fractional: draws count 1/2) in `n` trials.
pub fn wilson(successes: f64, n: f64, z: f64) -> Interval {
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
pub struct Ratings {
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
pub fn fit_ratings(n: usize, rankings: &BTreeMap<Vec<Vec<usize>>, u64>, prior: f64) -> Ratings {
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

/// One bot's line of `summary.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct BotSummary {
    pub bot: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub mean_score: f64,
    pub win_rate: Interval,
    pub elo: f64,
    pub elo_margin: f64,
    pub faults: u64,
    pub timeouts: u64,
}

/// The virtual draws per bot against the anchor (see [`fit_ratings`]).
pub const RATING_PRIOR: f64 = 1.0;

/// Per-bot summaries, best rating first (ties by name).
pub fn summarize(tally: &Tally) -> Vec<BotSummary> {
    let ratings = fit_ratings(tally.bots.len(), &tally.rankings, RATING_PRIOR);
    let mut rows: Vec<BotSummary> = tally
        .bots
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let t = &tally.per_bot[i];
            let points = t.wins as f64 + 0.5 * t.draws as f64;
            BotSummary {
                bot: name.clone(),
                games: t.games,
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                mean_score: if t.games == 0 {
                    f64::NAN
                } else {
                    t.score_units as f64 / SCORE_UNIT / t.games as f64
                },
                win_rate: wilson(points, t.games as f64, Z95),
                elo: ratings.elo[i],
                elo_margin: ratings.elo_margin[i],
                faults: t.faults,
                timeouts: t.timeouts,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.elo.total_cmp(&a.elo).then_with(|| a.bot.cmp(&b.bot)));
    rows
}

/// Fixed formatting, so the same counters always print the same text.
pub fn fmt_f(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        String::new()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        let s = format!("{v:.decimals$}");
        // No "-0.0".
        if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            s.trim_start_matches('-').to_string()
        } else {
            s
        }
    }
}

pub const SUMMARY_COLUMNS: &[&str] = &[
    "rank",
    "bot",
    "games",
    "wins",
    "draws",
    "losses",
    "mean_score",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "elo",
    "elo_low",
    "elo_high",
    "faults",
    "timeouts",
];

pub fn summary_csv(rows: &[BotSummary]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(SUMMARY_COLUMNS).expect("writing to memory");
    for (i, r) in rows.iter().enumerate() {
        w.write_record([
            (i + 1).to_string(),
            r.bot.clone(),
            r.games.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            fmt_f(r.mean_score, 4),
            fmt_f(r.win_rate.value, 4),
            fmt_f(r.win_rate.low, 4),
            fmt_f(r.win_rate.high, 4),
            fmt_f(r.elo, 1),
            fmt_f(r.elo - r.elo_margin, 1),
            fmt_f(r.elo + r.elo_margin, 1),
            r.faults.to_string(),
            r.timeouts.to_string(),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

pub const PAIRWISE_COLUMNS: &[&str] =
    &["bot", "opponent", "games", "wins", "draws", "losses", "score_rate"];

/// `pairwise.csv`: one line per ordered pair of bots that met, in the arena's bot order.
pub fn pairwise_csv(tally: &Tally) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(PAIRWISE_COLUMNS).expect("writing to memory");
    for (a, row) in tally.pair.iter().enumerate() {
        for (b, p) in row.iter().enumerate() {
            if p.games == 0 {
                continue;
            }
            w.write_record([
                tally.bots[a].clone(),
                tally.bots[b].clone(),
                p.games.to_string(),
                p.wins.to_string(),
                p.draws.to_string(),
                p.losses.to_string(),
                fmt_f(p.score_rate(), 4),
            ])
            .expect("writing to memory");
        }
    }
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

/// The tables printed at the end of a run.
pub fn render_tables(tally: &Tally, rows: &[BotSummary]) -> String {
    let mut out = String::new();
    let width = rows.iter().map(|r| r.bot.chars().count()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>6}  {:>6}  {:>6}  {:>6}  {:>8}  {:>21}  {:>20}  {:>6}",
        "rank",
        "bot",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "win rate (95%)",
        "Elo (95%)",
        "faults"
    );
    for (i, r) in rows.iter().enumerate() {
        let rate = format!(
            "{}% [{}, {}]",
            fmt_f(100.0 * r.win_rate.value, 1),
            fmt_f(100.0 * r.win_rate.low, 1),
            fmt_f(100.0 * r.win_rate.high, 1)
        );
        let elo = format!("{} ± {}", fmt_f(r.elo, 0), fmt_f(r.elo_margin, 0));
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>6}  {:>6}  {:>6}  {:>6}  {:>8}  {:>21}  {:>20}  {:>6}",
            i + 1,
            r.bot,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            fmt_f(r.mean_score, 3),
            rate,
            elo,
            r.faults
        );
    }
    // The head-to-head matrix: the row bot's score rate against the column bot.
    let order: Vec<usize> =
        rows.iter().map(|r| tally.bots.iter().position(|b| *b == r.bot).expect("a bot")).collect();
    let col = order.iter().map(|&b| tally.bots[b].chars().count()).max().unwrap_or(0).clamp(11, 16);
    let _ = writeln!(out, "\nhead to head (row's score rate against column, games in brackets):");
    let _ = write!(out, "{:<width$}", "");
    for &b in &order {
        let name: String = tally.bots[b].chars().take(col).collect();
        let _ = write!(out, "  {name:>col$}");
    }
    let _ = writeln!(out);
    for &a in &order {
        let _ = write!(out, "{:<width$}", tally.bots[a]);
        for &b in &order {
            let p = tally.pair[a][b];
            let cell = if p.games == 0 {
                "-".to_string()
            } else {
                format!("{}% ({})", fmt_f(100.0 * p.score_rate(), 0), p.games)
            };
            let _ = write!(out, "  {cell:>col$}");
        }
        let _ = writeln!(out);
    }
    // By role: in asymmetric games (Skynet's virus and agent) a bot's strength differs by role.
    if tally.roles.len() > 1 {
        let _ = writeln!(out, "\nby role (score rate, games in brackets):");
        let _ = write!(out, "{:<width$}", "");
        for role in &tally.roles {
            let _ = write!(out, "  {role:>col$}");
        }
        let _ = writeln!(out);
        for &a in &order {
            let _ = write!(out, "{:<width$}", tally.bots[a]);
            for p in &tally.by_seat[a] {
                let cell = if p.games == 0 {
                    "-".to_string()
                } else {
                    format!("{}% ({})", fmt_f(100.0 * p.score_rate(), 0), p.games)
                };
                let _ = write!(out, "  {cell:>col$}");
            }
            let _ = writeln!(out);
        }
    }
    let terms: Vec<String> = tally.terminations.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let _ = writeln!(out, "\n{} matches; endings: {}", tally.matches, terms.join(", "));
    out
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
    fn the_tally_does_not_depend_on_row_order() {
        let rows = [
            MatchResultRow {
                bots: vec![0, 1],
                scores: vec![1.0, 0.0],
                ranks: vec![1, 2],
                termination: "normal".into(),
                culprit: None,
            },
            MatchResultRow {
                bots: vec![1, 2],
                scores: vec![0.1, 0.2],
                ranks: vec![1, 1],
                termination: "normal".into(),
                culprit: None,
            },
            MatchResultRow {
                bots: vec![2, 0],
                scores: vec![0.0, 1.0],
                ranks: vec![2, 1],
                termination: "timeout".into(),
                culprit: Some(2),
            },
        ];
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let roles = vec!["first".to_string(), "second".to_string()];
        let mut t1 = Tally::new(names.clone(), roles.clone());
        let mut t2 = Tally::new(names, roles);
        rows.iter().for_each(|r| t1.add(r));
        rows.iter().rev().for_each(|r| t2.add(r));
        let (s1, s2) = (summarize(&t1), summarize(&t2));
        assert_eq!(summary_csv(&s1), summary_csv(&s2));
        assert_eq!(pairwise_csv(&t1), pairwise_csv(&t2));
        assert_eq!(s1[0].bot, "a");
        assert_eq!((t1.per_bot[0].wins, t1.per_bot[1].draws, t1.per_bot[2].timeouts), (2, 1, 1));
        assert_eq!(t1.pair[1][2], PairTally { games: 1, wins: 0, draws: 1, losses: 0 });
        // Bot a won in seat 0 (against b) and in seat 1 (against c).
        assert_eq!(t1.by_seat[0][0], PairTally { games: 1, wins: 1, draws: 0, losses: 0 });
        assert_eq!(t1.by_seat[0][1], PairTally { games: 1, wins: 1, draws: 0, losses: 0 });
        assert_eq!(t1.by_seat[2][0].losses, 1);
        let table = render_tables(&t1, &s1);
        assert!(table.contains("by role") && table.contains("first"), "{table}");
    }

    #[test]
    fn fixed_formatting_has_no_negative_zero() {
        assert_eq!(fmt_f(-0.00001, 2), "0.00");
        assert_eq!(fmt_f(1.23456, 2), "1.23");
        assert_eq!(fmt_f(f64::NAN, 2), "");
    }
}
