//! `arena diff A B`: two results folders of one plan compared match by match — the regression
//! check after a bot changed: which matches it now wins or loses, and whether the change in its
//! results is more than noise.
//!
//! Two folders are comparable when they planned the same matches: the same roles, the same
//! number of matches and bots, and every match present in both with the same game number, map,
//! seed and bots in the same seats. Otherwise the report lists how the plans differ and compares
//! nothing. A match *changed* when its winner, ranks, scores or termination (with its culprit)
//! differ; its duration, turns and timings do not count.
//!
//! Each bot's summary pairs its matches: for every match it played in both folders, the change
//! `d = points(B) - points(A)` in the standings' points (a win 1, a draw 1/2, a loss 0). Pairing
//! by match takes out everything the two folders share (map, seed, seat, opponent), so the mean
//! of `d` with a paired t interval answers "did this bot get better or worse" with fewer matches
//! than comparing two win rates would; the counts of gains and losses (the sign test's view) are
//! given beside it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::results::matches::{MatchRow, read_rows};
use super::results::replays::replay_path;
use super::results::seed_key::SEED_KEY_FILE;
use super::results::{MATCHES_FILE, Meta, corrupt};
use super::stats::ratings::Z95;
use crate::bot::Termination;
use crate::error::Result;

/// How many matches of a plan difference are listed one by one.
pub(crate) const MAX_LISTED_PLAN_DIFFERENCES: usize = 20;

/// What a comparison found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffVerdict {
    /// The same plan, every match in both folders, none changed.
    Same,
    /// The same plan, and some match changed or is in one folder only.
    Changed,
    /// The folders did not plan the same matches: nothing was compared.
    DifferentPlans,
}

/// One side of a comparison.
#[derive(Clone, Debug, Serialize)]
pub struct DiffSide {
    /// The results folder.
    pub results: PathBuf,
    pub arena: String,
    pub fingerprint: String,
    /// Matches in its whole schedule.
    pub planned: u64,
    /// Matches in its `matches.csv`.
    pub matches: u64,
}

/// Who sat in a seat.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiffSeat {
    pub role: String,
    pub bot: String,
}

/// How a match ended, in one folder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchOutcome {
    /// The bot ranked first alone; `None` for a draw.
    pub winner: Option<String>,
    pub ranks: Vec<u32>,
    pub scores: Vec<f64>,
    pub termination: Termination,
    /// The bot whose failure ended the match.
    pub culprit: Option<String>,
    pub turns: usize,
    pub reason: String,
}

/// A match whose result differs between the folders.
#[derive(Clone, Debug, Serialize)]
pub struct ChangedMatch {
    pub id: u64,
    pub game: u64,
    pub map: String,
    pub seed: u64,
    pub seats: Vec<DiffSeat>,
    /// What changed, of `winner`, `ranks`, `scores` and `termination`.
    pub changes: Vec<&'static str>,
    pub a: MatchOutcome,
    pub b: MatchOutcome,
    /// The match's replay in A and in B, when the runs kept one.
    pub replay_a: Option<PathBuf>,
    pub replay_b: Option<PathBuf>,
}

/// One bot's results in B against A, over the matches it played in both.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotChange {
    pub bot: String,
    /// Matches it played in both folders.
    pub matches: u64,
    /// Matches in which it scored more points in B than in A, fewer, the same.
    pub gains: u64,
    pub losses: u64,
    pub unchanged: u64,
    /// The mean change in points per match (B - A; a win is 1, a draw 1/2), and its 95% paired
    /// t interval (`null` bounds with fewer than two matches).
    pub mean_change: f64,
    pub low: f64,
    pub high: f64,
}

/// What `arena diff` found (`--json` prints it).
#[derive(Clone, Debug, Serialize)]
pub struct DiffReport {
    pub verdict: DiffVerdict,
    pub a: DiffSide,
    pub b: DiffSide,
    /// How the plans differ, one line each (empty for the same plan). Listed matches stop after
    /// [`MAX_LISTED_PLAN_DIFFERENCES`]; a last line counts the rest.
    pub plan_differences: Vec<String>,
    /// Matches in both folders, compared.
    pub compared: u64,
    /// The ids of matches in one folder only (a run not finished, or killed).
    pub only_in_a: Vec<u64>,
    pub only_in_b: Vec<u64>,
    /// The matches whose result changed, by id.
    pub changed: Vec<ChangedMatch>,
    /// Each bot of the arena, in its order.
    pub bots: Vec<BotChange>,
}

/// A results folder read whole: its meta and its rows by id.
struct Folder {
    dir: PathBuf,
    meta: Meta,
    rows: BTreeMap<u64, MatchRow>,
}

fn read_folder(dir: &Path) -> Result<Folder> {
    let meta = Meta::read(dir)?;
    let path = dir.join(MATCHES_FILE);
    let mut rows = BTreeMap::new();
    read_rows(&path, meta.roles.len(), |line, row| {
        let id = row.id;
        if rows.insert(id, row).is_some() {
            return Err(corrupt(&path, Some(line), format!("match {id} is recorded twice")));
        }
        Ok(())
    })?;
    Ok(Folder { dir: dir.to_path_buf(), meta, rows })
}

/// Compares results folder `b` with `a` (the baseline).
pub fn diff(a: &Path, b: &Path) -> Result<DiffReport> {
    let (a, b) = (read_folder(a)?, read_folder(b)?);
    let side = |f: &Folder| DiffSide {
        results: f.dir.clone(),
        arena: f.meta.arena.clone(),
        fingerprint: f.meta.fingerprint.clone(),
        planned: f.meta.planned,
        matches: f.rows.len() as u64,
    };
    let mut report = DiffReport {
        verdict: DiffVerdict::DifferentPlans,
        a: side(&a),
        b: side(&b),
        plan_differences: plan_differences(&a, &b),
        compared: 0,
        only_in_a: a.rows.keys().filter(|id| !b.rows.contains_key(id)).copied().collect(),
        only_in_b: b.rows.keys().filter(|id| !a.rows.contains_key(id)).copied().collect(),
        changed: Vec::new(),
        bots: Vec::new(),
    };
    if !report.plan_differences.is_empty() {
        return Ok(report);
    }
    let mut changes: Vec<Vec<f64>> = vec![Vec::new(); a.meta.bots.len()];
    for (id, ra) in &a.rows {
        let Some(rb) = b.rows.get(id) else { continue };
        report.compared += 1;
        for (seat, s) in ra.seats.iter().enumerate() {
            if let Some(bot) = a.meta.bots.iter().position(|name| *name == s.bot) {
                changes[bot].push(points(rb, seat) - points(ra, seat));
            }
        }
        let (oa, ob) = (outcome(ra), outcome(rb));
        let changed: Vec<&'static str> = [
            ("winner", oa.winner != ob.winner),
            ("ranks", oa.ranks != ob.ranks && oa.winner == ob.winner),
            ("scores", oa.scores != ob.scores),
            ("termination", (oa.termination, &oa.culprit) != (ob.termination, &ob.culprit)),
        ]
        .into_iter()
        .filter_map(|(what, differs)| differs.then_some(what))
        .collect();
        if changed.is_empty() {
            continue;
        }
        let kept = |dir: &Path| Some(replay_path(dir, *id)).filter(|p| p.is_file());
        report.changed.push(ChangedMatch {
            id: *id,
            game: ra.game,
            map: ra.map.clone(),
            seed: ra.seed,
            seats: ra
                .seats
                .iter()
                .map(|s| DiffSeat { role: s.role.clone(), bot: s.bot.clone() })
                .collect(),
            changes: changed,
            a: oa,
            b: ob,
            replay_a: kept(&a.dir),
            replay_b: kept(&b.dir),
        });
    }
    report.bots = a.meta.bots.iter().zip(&changes).map(|(bot, d)| bot_change(bot, d)).collect();
    let differs =
        !(report.changed.is_empty() && report.only_in_a.is_empty() && report.only_in_b.is_empty());
    report.verdict = if differs { DiffVerdict::Changed } else { DiffVerdict::Same };
    Ok(report)
}

/// How the two folders' plans differ (nothing when they are the same plan).
fn plan_differences(a: &Folder, b: &Folder) -> Vec<String> {
    let (ma, mb) = (&a.meta, &b.meta);
    let mut lines = Vec::new();
    if ma.roles != mb.roles {
        // Rows of different games cannot be set side by side at all.
        lines.push(format!("roles: A {}, B {}", ma.roles.join(", "), mb.roles.join(", ")));
        return lines;
    }
    if ma.planned != mb.planned {
        lines.push(format!("planned matches: A {}, B {}", ma.planned, mb.planned));
    }
    if ma.bots != mb.bots {
        lines.push(format!("bots: A {}, B {}", ma.bots.join(", "), mb.bots.join(", ")));
    }
    let key = |m: &Meta| m.inputs.as_ref().and_then(|i| i.plan.seed_key.clone());
    if let (Some(ka), Some(kb)) = (key(ma), key(mb))
        && ka != kb
    {
        // Every seed differs: listing the matches would say nothing more.
        lines.push(format!(
            "seed keys: A {ka}, B {kb} (every match seed differs; to replay A's matches, run B \
             with `--seed-key {}`)",
            a.dir.join(SEED_KEY_FILE).display()
        ));
        return lines;
    }
    let planned = |r: &MatchRow| {
        let seats: Vec<String> =
            r.seats.iter().map(|s| format!("{} ({})", s.bot, s.role)).collect();
        format!("{} on {} (game {}, seed {})", seats.join(" vs "), r.map, r.game, r.seed)
    };
    let mut differing = 0;
    for (id, ra) in &a.rows {
        let Some(rb) = b.rows.get(id) else { continue };
        let (pa, pb) = (planned(ra), planned(rb));
        if pa != pb {
            differing += 1;
            if differing <= MAX_LISTED_PLAN_DIFFERENCES {
                lines.push(format!("match {id}: A {pa}, B {pb}"));
            }
        }
    }
    if differing > MAX_LISTED_PLAN_DIFFERENCES {
        lines.push(format!(
            "and {} more matches planned differently",
            differing - MAX_LISTED_PLAN_DIFFERENCES
        ));
    }
    lines
}

/// A seat's points in a match, as the standings count them: 1 for first place alone, 1/2 for a
/// shared first place, 0 otherwise.
fn points(row: &MatchRow, seat: usize) -> f64 {
    let firsts = row.seats.iter().filter(|s| s.rank == 1).count();
    match (row.seats[seat].rank, firsts) {
        (1, 1) => 1.0,
        (1, _) => 0.5,
        _ => 0.0,
    }
}

fn outcome(row: &MatchRow) -> MatchOutcome {
    MatchOutcome {
        winner: row.winner.clone(),
        ranks: row.seats.iter().map(|s| s.rank).collect(),
        scores: row.seats.iter().map(|s| s.score).collect(),
        termination: row.termination,
        culprit: row.culprit.clone(),
        turns: row.turns,
        reason: row.reason.clone(),
    }
}

/// A bot's paired changes summed up: counts, mean, and the paired t interval
/// `mean ± t(0.975, n-1) s / sqrt(n)`.
fn bot_change(bot: &str, d: &[f64]) -> BotChange {
    let n = d.len();
    let count = |keep: fn(f64) -> bool| d.iter().filter(|&&x| keep(x)).count() as u64;
    let mean = if n == 0 { f64::NAN } else { d.iter().sum::<f64>() / n as f64 };
    let half = if n < 2 {
        f64::NAN
    } else {
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        t95(n as u64 - 1) * (var / n as f64).sqrt()
    };
    BotChange {
        bot: bot.to_string(),
        matches: n as u64,
        gains: count(|x| x > 0.0),
        losses: count(|x| x < 0.0),
        unchanged: count(|x| x == 0.0),
        mean_change: mean,
        low: mean - half,
        high: mean + half,
    }
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom: exact for 1 and 2, else the
/// Cornish-Fisher expansion in `1/df` (Abramowitz and Stegun 26.7.5), within 0.004 of the exact
/// value at `df = 3` and closer beyond.
pub(crate) fn t95(df: u64) -> f64 {
    let z = Z95;
    match df {
        0 => f64::INFINITY,
        1 => (0.475 * std::f64::consts::PI).tan(),
        // F(t) = 1/2 + t / (2 sqrt(2 + t²)) = 0.975 solved for t.
        2 => (2.0 * 0.95f64.powi(2) / (1.0 - 0.95f64.powi(2))).sqrt(),
        _ => {
            let v = df as f64;
            let g1 = (z.powi(3) + z) / 4.0;
            let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
            let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
            let g4 = (79.0 * z.powi(9) + 776.0 * z.powi(7) + 1482.0 * z.powi(5)
                - 1920.0 * z.powi(3)
                - 945.0 * z)
                / 92160.0;
            z + g1 / v + g2 / v.powi(2) + g3 / v.powi(3) + g4 / v.powi(4)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tournament::results::matches::{RowWriter, SeatRow};

    /// A three-seat match of bots a, b, c (in seat order) with these ranks.
    fn row(id: u64, ranks: [u32; 3]) -> MatchRow {
        let seats = ["a", "b", "c"]
            .iter()
            .zip(ranks)
            .enumerate()
            .map(|(s, (bot, rank))| SeatRow {
                role: format!("p{s}"),
                bot: bot.to_string(),
                score: f64::from(4 - rank),
                rank,
            })
            .collect();
        let alone = ranks.iter().filter(|&&r| r == 1).count() == 1;
        let first = ranks.iter().position(|&r| r == 1).filter(|_| alone);
        MatchRow {
            id,
            game: id,
            pairing: "a vs b vs c".into(),
            map: "m".into(),
            seed: 100 + id,
            seats,
            winner: first.map(|s| ["a", "b", "c"][s].to_string()),
            winner_role: first.map(|s| format!("p{s}")),
            termination: Termination::Normal,
            culprit: None,
            culprit_role: None,
            turns: 5,
            reason: "r".into(),
            duration_ms: 1.0,
            max_turn_ms: vec![0.1; 3],
            max_turn_cpu_ms: vec![Some(0.1); 3],
        }
    }

    fn folder(planned: u64, rows: &[MatchRow]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let meta = Meta {
            arena_results: crate::tournament::results::RESULTS_VERSION,
            arena: "t".into(),
            fingerprint: "f".into(),
            kind: crate::tournament::results::meta::Kind::Tournament,
            planned,
            shard: None,
            roles: vec!["p0".into(), "p1".into(), "p2".into()],
            bots: vec!["a".into(), "b".into(), "c".into()],
            inputs: None,
        };
        meta.write(dir.path()).unwrap();
        let writer = RowWriter::open(&dir.path().join(MATCHES_FILE), 3).unwrap();
        for r in rows {
            writer.append(r).unwrap();
        }
        dir
    }

    #[test]
    fn ranks_below_the_winner_count_and_a_match_in_one_folder_is_a_change() {
        let a = folder(3, &[row(0, [1, 2, 3]), row(1, [1, 2, 3])]);
        let b = folder(3, &[row(1, [1, 3, 2]), row(0, [1, 2, 3]), row(2, [2, 1, 3])]);
        let r = diff(a.path(), b.path()).unwrap();
        assert_eq!(r.verdict, DiffVerdict::Changed);
        assert_eq!((r.compared, r.only_in_a.clone(), r.only_in_b.clone()), (2, vec![], vec![2]));
        assert_eq!(r.changed.len(), 1);
        assert_eq!((r.changed[0].id, r.changed[0].changes.clone()), (1, vec!["ranks", "scores"]));
        // Points count first places only: b and c lost both matches either way.
        assert!(r.bots.iter().all(|b| b.mean_change == 0.0 && b.matches == 2), "{:?}", r.bots);
        // Against itself: the same.
        assert_eq!(diff(a.path(), a.path()).unwrap().verdict, DiffVerdict::Same);
    }

    #[test]
    fn other_plans_are_listed_and_a_repeated_row_is_corrupt() {
        let a = folder(3, &[row(0, [1, 2, 3])]);
        let mut moved = row(0, [1, 2, 3]);
        moved.seed = 7;
        let b = folder(4, &[moved]);
        let r = diff(a.path(), b.path()).unwrap();
        assert_eq!(r.verdict, DiffVerdict::DifferentPlans);
        assert_eq!(r.plan_differences.len(), 2, "{:?}", r.plan_differences);
        assert!(r.plan_differences[0].contains("A 3, B 4"));
        assert!(
            r.plan_differences[1].starts_with("match 0:")
                && r.plan_differences[1].contains("seed 7")
        );
        let twice = folder(3, &[row(0, [1, 2, 3]), row(0, [1, 2, 3])]);
        let e = diff(a.path(), twice.path()).unwrap_err();
        assert!(matches!(e, crate::error::Error::Results { line: Some(3), .. }), "{e}");
    }

    #[test]
    fn t95_matches_the_published_table() {
        // Student's t table, two-sided 95% (0.975 quantile).
        for (df, table, tolerance) in [
            (1, 12.706, 0.001),
            (2, 4.303, 0.001),
            (3, 3.182, 0.004),
            (4, 2.776, 0.002),
            (5, 2.571, 0.001),
            (10, 2.228, 0.001),
            (30, 2.042, 0.001),
            (100, 1.984, 0.001),
            (1000, 1.962, 0.001),
        ] {
            let t = t95(df);
            assert!((t - table).abs() <= tolerance, "df {df}: {t} vs {table}");
        }
        assert!(t95(1_000_000) > Z95 && t95(1_000_000) - Z95 < 1e-5);
    }

    #[test]
    fn a_bots_change_is_the_paired_mean_with_its_t_interval() {
        // Ten matches, one lost that was won: mean -0.1, s = sqrt(0.1), t(9) = 2.262.
        let mut d = vec![0.0; 9];
        d.push(-1.0);
        let c = bot_change("x", &d);
        assert_eq!((c.matches, c.gains, c.losses, c.unchanged), (10, 0, 1, 9));
        assert!((c.mean_change + 0.1).abs() < 1e-12);
        let half = 2.262 * (0.1f64 / 10.0).sqrt();
        assert!((c.low - (-0.1 - half)).abs() < 1e-3 && (c.high - (-0.1 + half)).abs() < 1e-3);
        // Nothing changed: a zero-width interval at 0. No match: no figures.
        let same = bot_change("x", &[0.0; 5]);
        assert_eq!((same.mean_change, same.low, same.high), (0.0, 0.0, 0.0));
        let none = bot_change("x", &[]);
        assert!(none.mean_change.is_nan() && none.low.is_nan());
    }
}
