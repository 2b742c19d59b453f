//! The tournament report: `report.html` in a results folder, drawn from its CSV files alone (so it
//! can be written for any folder, finished, merged or still running): ratings with their
//! intervals, the head-to-head matrix, how matches ended per bot, decision times against the
//! limits, results per map, and every match with a link to its replay when the run kept one
//! (`replays/<id>.jsonl`, or the page `arena view` made of it).
//!
//! Self-contained like the viewer: plots are SVG drawn here, the match table is built by
//! `assets/report/report.js` from compact embedded JSON, and nothing is fetched at view time.

mod charts;
pub(crate) mod read;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::{Deserialize, Serialize};

use self::read::{MatchRow, Results};
use crate::error::{Error, Result};

/// The report's file name inside a results folder.
pub(crate) const REPORT_FILE: &str = "report.html";
/// Where a run keeps its replays, inside the results folder: `<match id>.jsonl`.
pub(crate) const REPLAYS_DIR: &str = "replays";
/// The per-map table stops after this many maps (the matches table still lists every match).
const MAX_MAP_ROWS: usize = 300;
/// Replay headers read for the time limits (a run's limits rarely differ between matches).
const MAX_LIMIT_READS: usize = 200;

const REPORT_JS: &str = include_str!("../../../assets/report/report.js");
const REPORT_CSS: &str = include_str!("../../../assets/report/report.css");

/// Writes `DIR/report.html` and returns its path. The call for the end of `arena run` and
/// `arena merge`, and for `arena report DIR`.
pub(crate) fn write_report(dir: &Path) -> Result<PathBuf> {
    let html = render_report(dir)?;
    let path = dir.join(REPORT_FILE);
    std::fs::write(&path, html).map_err(|e| Error::write(&path, e))?;
    Ok(path)
}

/// Writes the viewer page of every kept replay that has none yet (`replays/<id>.html`), so the
/// report links to pages rather than to JSON Lines. Returns how many were written.
///
/// A run with `analysis = true` (it wrote `analysis.csv`) gets pages with the analysis, at the
/// budget `analysis.csv` was made with, so the marks on a page add up to the match's rows.
pub(crate) fn write_replay_views(dir: &Path) -> Result<usize> {
    use crate::tournament::results::analysis::{ANALYSIS_FILE, POSITIONS};
    let analysis = if dir.join(ANALYSIS_FILE).is_file() {
        crate::view::Analysis::IfExact(crate::analysis::Limits {
            time_ms: None,
            positions: Some(POSITIONS),
        })
    } else {
        crate::view::Analysis::Off
    };
    let replays = dir.join(REPLAYS_DIR);
    let names = replay_names(&replays)?;
    let mut written = 0;
    for name in &names {
        if let Some(stem) = name.strip_suffix(".jsonl")
            && !names.contains(&format!("{stem}.html"))
        {
            let source = replays.join(name);
            crate::view::write_view(&source, &crate::view::default_output(&source), analysis)?;
            written += 1;
        }
    }
    Ok(written)
}

/// The report of a results folder, as HTML text.
pub(crate) fn render_report(dir: &Path) -> Result<String> {
    let results = read::read_results(dir)?;
    let replays = replay_names(&dir.join(REPLAYS_DIR))?;
    let limits = read_limits(&dir.join(REPLAYS_DIR), &replays);
    Ok(page(&results, &replays, &limits))
}

/// The file names in the replays folder (empty when there is none).
fn replay_names(folder: &Path) -> Result<BTreeSet<String>> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(Error::read(folder, e)),
    };
    let mut names = BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::read(folder, e))?;
        names.insert(entry.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// The parts of a replay header the report needs (the replay format's field names).
#[derive(Deserialize)]
struct HeaderLimits {
    seats: Vec<SeatLimits>,
}

#[derive(Deserialize)]
struct SeatLimits {
    bot: String,
    limits: Limits,
}

#[derive(Deserialize)]
struct Limits {
    first_turn: f64,
    per_turn: f64,
}

/// Each bot's `(per turn, first turn)` limits in ms, from the headers of kept replays. The
/// results files do not record limits, so without replays the report shows none.
fn read_limits(folder: &Path, names: &BTreeSet<String>) -> BTreeMap<String, (f64, f64)> {
    let mut limits = BTreeMap::new();
    for name in names.iter().filter(|n| n.ends_with(".jsonl")).take(MAX_LIMIT_READS) {
        let Ok(file) = std::fs::File::open(folder.join(name)) else { continue };
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut std::io::BufReader::new(file), &mut line).is_err() {
            continue;
        }
        if let Ok(header) = serde_json::from_str::<HeaderLimits>(&line) {
            for s in header.seats {
                limits.entry(s.bot).or_insert((s.limits.per_turn, s.limits.first_turn));
            }
        }
    }
    limits
}

/// How one seat's match ended, for the stacked bars.
const ENDINGS: &[(&str, &str)] = &[
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
    ("own startup_failed", "#8a8a8a"),
];

fn ending_index(row: &MatchRow, seat: usize) -> usize {
    let me = &row.seats[seat];
    if !["normal", "turn_limit"].contains(&row.termination.as_str()) {
        if row.culprit_role.as_deref() == Some(me.role.as_str()) {
            let own = format!("own {}", row.termination);
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
fn seat_points(row: &MatchRow, seat: usize) -> f64 {
    let me = row.seats[seat].rank;
    let others = row.seats.len().saturating_sub(1).max(1) as f64;
    let ahead = row.seats.iter().filter(|s| s.rank > me).count() as f64;
    let tied = row.seats.iter().filter(|s| s.rank == me).count().saturating_sub(1) as f64;
    (ahead + tied / 2.0) / others
}

/// The `q` quantile (nearest rank) of sorted values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The bots in the arena's order (`meta.json`), then any others the files name.
fn bot_order(results: &Results) -> Vec<String> {
    let mut bots: Vec<String> = results.meta["bots"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| b.as_str().map(String::from)).collect())
        .unwrap_or_default();
    let mut add = |b: &str| {
        if !bots.iter().any(|x| x == b) {
            bots.push(b.to_string());
        }
    };
    for s in results.summary.iter().flatten() {
        add(&s.bot);
    }
    for row in &results.matches {
        for s in &row.seats {
            add(&s.bot);
        }
    }
    bots
}

/// The compact match list the page's script shows: names by index, one array per match.
#[derive(Serialize)]
struct MatchTable<'a> {
    bots: &'a [String],
    roles: Vec<String>,
    maps: Vec<&'a str>,
    terminations: Vec<&'a str>,
    reasons: Vec<&'a str>,
    /// `[id, game, map, termination, culprit seat or -1, turns, duration ms, reason, replay,
    /// seat0 bot, seat0 rank, seat1 bot, seat1 rank, ...]`, replay 0 none, 1 `.jsonl`, 2 `.html`.
    rows: Vec<Vec<serde_json::Value>>,
}

fn match_table<'a>(
    results: &'a Results,
    bots: &'a [String],
    replays: &BTreeSet<String>,
) -> MatchTable<'a> {
    let mut table = MatchTable {
        bots,
        roles: results
            .matches
            .first()
            .map(|r| r.seats.iter().map(|s| s.role.clone()).collect())
            .unwrap_or_default(),
        maps: Vec::new(),
        terminations: Vec::new(),
        reasons: Vec::new(),
        rows: Vec::new(),
    };
    fn intern<'s>(
        list: &mut Vec<&'s str>,
        index: &mut BTreeMap<&'s str, usize>,
        s: &'s str,
    ) -> usize {
        *index.entry(s).or_insert_with(|| {
            list.push(s);
            list.len() - 1
        })
    }
    let (mut maps, mut terms, mut reasons) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let mut rows: Vec<&MatchRow> = results.matches.iter().collect();
    rows.sort_by_key(|r| r.id);
    for r in rows {
        let replay = if replays.contains(&format!("{}.html", r.id)) {
            2
        } else if replays.contains(&format!("{}.jsonl", r.id)) {
            1
        } else {
            0
        };
        let culprit = r
            .culprit_role
            .as_ref()
            .and_then(|c| r.seats.iter().position(|s| &s.role == c))
            .map_or(-1, |s| s as i64);
        let mut row: Vec<serde_json::Value> = vec![
            r.id.into(),
            r.game.into(),
            intern(&mut table.maps, &mut maps, &r.map).into(),
            intern(&mut table.terminations, &mut terms, &r.termination).into(),
            culprit.into(),
            r.turns.into(),
            ((r.duration_ms * 10.0).round() / 10.0).into(),
            intern(&mut table.reasons, &mut reasons, &r.reason).into(),
            replay.into(),
        ];
        for s in &r.seats {
            row.push(bots.iter().position(|b| *b == s.bot).unwrap_or(0).into());
            row.push(s.rank.into());
        }
        table.rows.push(row);
    }
    table
}

fn page(
    results: &Results,
    replays: &BTreeSet<String>,
    limits: &BTreeMap<String, (f64, f64)>,
) -> String {
    let bots = bot_order(results);
    let name = results.meta["arena"].as_str().unwrap_or("results");
    let planned = results.meta["planned"].as_u64();
    let shard = results.meta["shard"].as_str();
    let matches = &results.matches;
    let table = match_table(results, &bots, replays);
    let kept = table.rows.iter().filter(|r| r[8] != 0).count();
    let title = format!("arena report: {name}");
    let body = html! {
        header {
            h1 { (title) }
            p.meta {
                (matches.len()) " matches"
                @if let Some(p) = planned { " of " (p) " planned" }
                @if let Some(s) = shard { " · shard " (s) }
                " · roles " (table.roles.join(", "))
                " · " (bots.len()) " bots"
                @if kept > 0 { " · " (kept) " replays kept" }
            }
            nav {
                a href="#ratings" { "ratings" } a href="#head-to-head" { "head to head" }
                a href="#endings" { "endings" } a href="#times" { "decision times" }
                a href="#maps" { "maps" } a href="#matches" { "matches" }
            }
        }
        main {
            (ratings_section(results))
            (head_to_head_section(results, &bots))
            (endings_section(matches, &bots))
            (times_section(matches, &bots, limits))
            (maps_section(matches, &bots))
            section #matches {
                h2 { "Matches" }
                p.note {
                    "Every match of " code { "matches.csv" } ", by id. "
                    @if kept > 0 {
                        "Replays link to " code { "replays/<id>.html" } " when " code { "arena report --views" }
                        " (or " code { "arena view" } ") has drawn them, else to the JSON Lines file, which "
                        code { "arena view replays/ID.jsonl" } " (run in this folder) draws."
                    } @else {
                        "This run kept no replays (" code { "replays/" } " is absent)."
                    }
                }
                div #match-controls {}
                div #match-table {}
            }
        }
        script #report-data type="application/json" { (PreEscaped(crate::view::script_json(&table))) }
        script { (PreEscaped(REPORT_JS)) }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            (crate::view::page::head(&title, REPORT_CSS))
            body { (body) }
        }
    }
    .into_string()
}

fn ratings_section(results: &Results) -> Markup {
    html! {
        section #ratings {
            h2 { "Ratings" }
            @match &results.summary {
                None => p.note { code { "summary.csv" } " is missing: the run has not written its summary yet." },
                Some(rows) => {
                    p.note { "Elo from the Bradley-Terry / Plackett-Luce fit of " code { "summary.csv" }
                        ", with its 95% interval; mean 0. In games with asymmetric roles compare bots that play the same roles." }
                    (charts::ratings(&rows.iter().filter_map(|r| Some(charts::Rating {
                        bot: &r.bot, elo: r.elo?, low: r.elo_low?, high: r.elo_high?, games: r.games,
                    })).collect::<Vec<_>>()))
                    table.data {
                        thead { tr {
                            th { "rank" } th { "bot" } th { "games" } th { "wins" } th { "draws" } th { "losses" }
                            th { "score" } th { "win rate (95%)" } th { "Elo (95%)" } th { "faults" } th { "timeouts" }
                        } }
                        tbody {
                            @for r in rows {
                                tr {
                                    td.num { (r.rank.map(|k| k.to_string()).unwrap_or_else(|| "-".into())) }
                                    td { (r.bot) } td.num { (r.games) } td.num { (r.wins) }
                                    td.num { (r.draws) } td.num { (r.losses) }
                                    td.num { (r.mean_score.map(|m| format!("{m:.3}")).unwrap_or_else(|| "-".into())) }
                                    td.num { (match (r.win_rate, r.win_rate_low, r.win_rate_high) {
                                        (Some(v), Some(l), Some(h)) => format!("{:.1}% [{:.1}, {:.1}]", v * 100.0, l * 100.0, h * 100.0),
                                        _ => "-".into(),
                                    }) }
                                    td.num { (match (r.elo, r.elo_low, r.elo_high) {
                                        (Some(e), Some(l), Some(h)) => format!("{e:.0} [{l:.0}, {h:.0}]"),
                                        _ => "no games, not rated".into(),
                                    }) }
                                    td.num.fault[r.faults > 0] { (r.faults) } td.num.fault[r.timeouts > 0] { (r.timeouts) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn head_to_head_section(results: &Results, bots: &[String]) -> Markup {
    html! {
        section #head-to-head {
            h2 { "Head to head" }
            @match &results.pairwise {
                None => p.note { code { "pairwise.csv" } " is missing." },
                Some(rows) => {
                    p.note { "The row bot's score rate against the column bot (win 1, draw ½) in the matches both played ("
                        code { "pairwise.csv" } "); hover a cell for the games." }
                    @let cell = |i: usize, j: usize| -> Option<charts::Cell> {
                        rows.iter().find(|r| r.bot == bots[i] && r.opponent == bots[j]).map(|r| charts::Cell {
                            rate: r.score_rate, games: r.games, wins: r.wins, draws: r.draws, losses: r.losses,
                        })
                    };
                    (charts::heatmap(bots, &cell))
                }
            }
        }
    }
}

fn endings_section(matches: &[MatchRow], bots: &[String]) -> Markup {
    let mut counts = vec![vec![0u64; ENDINGS.len()]; bots.len()];
    for row in matches {
        for (seat, s) in row.seats.iter().enumerate() {
            if let Some(b) = bots.iter().position(|x| *x == s.bot) {
                counts[b][ending_index(row, seat)] += 1;
            }
        }
    }
    let used: Vec<usize> =
        (0..ENDINGS.len()).filter(|&k| counts.iter().any(|c| c[k] > 0)).collect();
    let categories: Vec<(&str, &str)> = used.iter().map(|&k| ENDINGS[k]).collect();
    let bars: Vec<charts::Stack<'_>> = bots
        .iter()
        .zip(&counts)
        .map(|(bot, c)| charts::Stack { bot, counts: used.iter().map(|&k| c[k]).collect() })
        .collect();
    html! {
        section #endings {
            h2 { "How matches ended" }
            p.note { "Per bot, its matches by result; a match ended by a bot's failure counts as that bot's own fault "
                "(by termination) and as the opponent's fault for everyone else at the table." }
            ul.legend {
                @for (name, colour) in &categories {
                    li { span.swatch style=(format!("background:{colour}")) {} (name) }
                }
            }
            (charts::stacked_bars(&categories, &bars))
        }
    }
}

fn times_section(
    matches: &[MatchRow],
    bots: &[String],
    limits: &BTreeMap<String, (f64, f64)>,
) -> Markup {
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); bots.len()];
    for row in matches {
        for s in &row.seats {
            if let Some(b) = bots.iter().position(|x| *x == s.bot) {
                samples[b].push(s.max_turn_ms);
            }
        }
    }
    for v in &mut samples {
        v.sort_by(f64::total_cmp);
    }
    let rows: Vec<charts::Times<'_>> = bots
        .iter()
        .zip(&samples)
        .filter(|(_, v)| !v.is_empty())
        .map(|(bot, v)| charts::Times {
            bot,
            samples: v.len(),
            p50: quantile(v, 0.5),
            p90: quantile(v, 0.9),
            p99: quantile(v, 0.99),
            max: quantile(v, 1.0),
            limits: limits.get(bot).copied(),
        })
        .collect();
    html! {
        section #times {
            h2 { "Decision times" }
            p.note {
                "What is plotted: " code { "matches.csv" } " records, per match and seat, only the "
                b { "longest" } " decision (" code { "seat*_max_turn_ms" } "). Per bot, the bar runs from the median to the "
                "99th percentile of that per-match maximum over all its matches, the cross marks the largest, "
                "so the plot shows how close a bot's worst moments come to the limit, not the time of a typical decision. "
                @if rows.iter().all(|r| r.limits.is_none()) {
                    "The limits are not in the results files and no kept replay of these bots records them, so no limit is drawn."
                } @else {
                    "Red ticks: the per-turn limit; grey ticks: the first turn's limit (the longest decision of a match may be its first), "
                    "read from the kept replays' headers."
                }
            }
            (charts::decision_times(&rows))
        }
    }
}

fn maps_section(matches: &[MatchRow], bots: &[String]) -> Markup {
    // Maps in the order of their first game; per map and bot: points and matches.
    let mut order: BTreeMap<&str, u64> = BTreeMap::new();
    let mut cells: BTreeMap<&str, Vec<(f64, u64)>> = BTreeMap::new();
    let mut faults: BTreeMap<&str, u64> = BTreeMap::new();
    let mut played: BTreeMap<&str, u64> = BTreeMap::new();
    for row in matches {
        let first = order.entry(&row.map).or_insert(row.game);
        *first = (*first).min(row.game);
        *played.entry(&row.map).or_default() += 1;
        if !["normal", "turn_limit"].contains(&row.termination.as_str()) {
            *faults.entry(&row.map).or_default() += 1;
        }
        let per_bot = cells.entry(&row.map).or_insert_with(|| vec![(0.0, 0); bots.len()]);
        for (seat, s) in row.seats.iter().enumerate() {
            if let Some(b) = bots.iter().position(|x| *x == s.bot) {
                per_bot[b].0 += seat_points(row, seat);
                per_bot[b].1 += 1;
            }
        }
    }
    let mut maps: Vec<(&str, u64)> = order.into_iter().collect();
    maps.sort_by_key(|&(m, g)| (g, m));
    let shown = maps.len().min(MAX_MAP_ROWS);
    html! {
        section #maps {
            h2 { "Results per map" }
            p.note { "Each bot's score rate on each map (its share of the points against the others at the table: "
                "win 1, draw ½), with the number of its matches there."
                @if shown < maps.len() { " The first " (shown) " of " (maps.len()) " maps, in the order they were played." }
            }
            div.scroll {
                table.data.maps {
                    thead { tr {
                        th { "map" } th { "matches" } th { "faults" }
                        @for b in bots { th.bot { (b) } }
                    } }
                    tbody {
                        @for (map, _) in &maps[..shown] {
                            tr {
                                td.map { (map) }
                                td.num { (played[map]) }
                                td.num.fault[faults.contains_key(map)] { (faults.get(map).copied().unwrap_or(0)) }
                                @for &(points, n) in &cells[map] {
                                    @if n == 0 {
                                        td.rate.none { "–" }
                                    } @else {
                                        @let rate = points / n as f64;
                                        @let (bg, ink) = charts::rate_colour(rate);
                                        td.rate style=(format!("background:{bg};color:{ink}")) title=(format!("{n} matches")) {
                                            (format!("{:.0}%", rate * 100.0)) small { " (" (n) ")" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::read::SeatResult;
    use super::*;

    fn row(ranks: &[u32], termination: &str, culprit: Option<&str>) -> MatchRow {
        MatchRow {
            id: 0,
            game: 0,
            map: "m".into(),
            seed: 1,
            seats: ranks
                .iter()
                .enumerate()
                .map(|(s, &rank)| SeatResult {
                    role: format!("r{s}"),
                    bot: format!("b{s}"),
                    score: 0.0,
                    rank,
                    max_turn_ms: 1.0,
                })
                .collect(),
            termination: termination.into(),
            culprit_role: culprit.map(String::from),
            turns: 3,
            reason: "why".into(),
            duration_ms: 1.0,
        }
    }

    #[test]
    fn endings_tell_wins_draws_losses_and_whose_fault() {
        let won = row(&[1, 2], "normal", None);
        assert_eq!((ending_index(&won, 0), ending_index(&won, 1)), (0, 2));
        let drawn = row(&[1, 1], "normal", None);
        assert_eq!((ending_index(&drawn, 0), ending_index(&drawn, 1)), (1, 1));
        let timeout = row(&[1, 2], "timeout", Some("r1"));
        assert_eq!(ENDINGS[ending_index(&timeout, 1)].0, "own timeout");
        assert_eq!(ENDINGS[ending_index(&timeout, 0)].0, "opponent's fault");
    }

    #[test]
    fn seat_points_count_the_others_beaten_and_half_the_ties() {
        let r = row(&[1, 2, 2, 4], "normal", None);
        assert_eq!(seat_points(&r, 0), 1.0);
        assert_eq!(seat_points(&r, 1), 1.5 / 3.0);
        assert_eq!(seat_points(&r, 3), 0.0);
        assert_eq!(seat_points(&row(&[1, 1], "normal", None), 0), 0.5);
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), 50.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(quantile(&v, 1.0), 100.0);
        assert_eq!(quantile(&[7.0], 0.5), 7.0);
    }
}
