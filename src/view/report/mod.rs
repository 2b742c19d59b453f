//! The tournament report: `report.html` in a results folder, drawn from its files alone (so it
//! can be written for any folder, finished, merged or still running): ratings with their
//! intervals, the head-to-head matrix, how matches ended per bot, decision times against the
//! limits, results per map, and the matches with a link to their replay when the run kept one
//! (`replays/<id>.jsonl`, or the page `arena view` made of it).
//!
//! The folder is read through [`crate::tournament::results::Folder`], the rows in one pass
//! ([`digest`]) whose memory does not grow with the number of matches: the page embeds the
//! aggregates, every faulted match and a bounded page of the others, and names `matches.csv` as
//! the full list. Self-contained like the viewer: plots are SVG drawn here, the match table is
//! built by `assets/report/report.js` from compact embedded JSON, and nothing is fetched at view
//! time.

mod charts;
pub(crate) mod digest;
pub(crate) mod history;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::{Deserialize, Serialize};

use self::digest::{Digest, Digested, ENDINGS, MAX_MAPS, PAGE_ROWS};
use crate::error::Result;
use crate::tournament::results::matches::MatchRow;
use crate::tournament::results::summaries::{PairRow, SummaryRow};
use crate::tournament::results::{Folder, REPLAYS_DIR, REPORT_FILE, write_atomically};

/// The per-map table stops after this many maps.
const MAX_MAP_ROWS: usize = 300;
/// Replay headers read for the time limits (a run's limits rarely differ between matches).
const MAX_LIMIT_READS: usize = 200;

const REPORT_JS: &str = include_str!("../../../assets/report/report.js");
const REPORT_CSS: &str = include_str!("../../../assets/report/report.css");

/// Writes `DIR/report.html` and returns its path. The call for the end of `arena run` and
/// `arena merge`, and for `arena report DIR`.
pub(crate) fn write_report(dir: &Path) -> Result<PathBuf> {
    write_report_live(dir, None)
}

/// Writes `DIR/report.html`; with `reload`, a page that reloads itself after that many seconds
/// (a running league's, rewritten as it plays).
pub(crate) fn write_report_live(dir: &Path, reload: Option<u32>) -> Result<PathBuf> {
    let mut html = render_report(dir)?;
    if let Some(seconds) = reload {
        let script = format!(
            "<script>/* a running league rewrites this page */             setTimeout(function () {{ location.reload(); }}, {});</script></body>",
            u64::from(seconds) * 1000
        );
        if let Some(at) = html.rfind("</body>") {
            html.replace_range(at..at + "</body>".len(), &script);
        }
    }
    let path = dir.join(REPORT_FILE);
    write_atomically(&path, html.as_bytes())?;
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
    let names = crate::tournament::results::replays::file_names(dir)?;
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

/// Everything the page is drawn from.
struct Report {
    arena: String,
    planned: u64,
    shard: Option<String>,
    roles: Vec<String>,
    /// `None` when the file is missing (a run that has not finished its first summary).
    summary: Option<Vec<SummaryRow>>,
    pairwise: Option<Vec<PairRow>>,
    /// The rows the page lists, by id.
    listed: Vec<MatchRow>,
    digest: Digested,
    replays: BTreeSet<String>,
    limits: BTreeMap<String, (f64, f64)>,
    /// A league's ratings over its matches (`ratings.csv`).
    history: Option<history::History>,
    /// Per bot, whether it played the first and the second seat of a two-seat game.
    seats_played: BTreeMap<String, (bool, bool)>,
    /// Per bot and metric: the decisions that reported it and its mean (`metrics.csv`).
    metric_means: BTreeMap<String, BTreeMap<String, (usize, f64)>>,
}

/// The report of a results folder, as HTML text.
pub(crate) fn render_report(dir: &Path) -> Result<String> {
    let folder = Folder::open(dir)?;
    let summary = folder.summary()?;
    let pairwise = folder.pairwise()?;
    // The bots in the arena's order, then any others the summary names (the rows add theirs).
    let mut bots = folder.meta.bots.clone();
    for s in summary.iter().flatten() {
        if !bots.contains(&s.bot) {
            bots.push(s.bot.clone());
        }
    }
    let mut digest = Digest::new(bots);
    // The seats each bot played: Skynet's viruses as rows against agents as columns.
    let mut seats_played: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    folder.rows(|_, row| {
        if let [first, second] = &row.seats[..] {
            seats_played.entry(first.bot.clone()).or_default().0 = true;
            seats_played.entry(second.bot.clone()).or_default().1 = true;
        } else {
            for seat in &row.seats {
                *seats_played.entry(seat.bot.clone()).or_default() = (true, true);
            }
        }
        digest.add(row);
        Ok(())
    })?;
    let (listed, digest) = digest.listed();
    let replays = folder.replay_files()?;
    let limits = read_limits(&dir.join(REPLAYS_DIR), &replays);
    let metric_means = crate::tournament::results::metrics::bot_means(&folder.metrics()?);
    let meta = folder.meta;
    Ok(page(&Report {
        arena: meta.arena,
        planned: meta.planned,
        shard: meta.shard,
        roles: meta.roles,
        summary,
        pairwise,
        listed,
        digest,
        replays,
        limits,
        history: history::read(dir),
        seats_played,
        metric_means,
    }))
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

/// The compact match list the page's script shows: names by index, one array per match.
#[derive(Serialize)]
struct MatchTable<'a> {
    bots: &'a [String],
    roles: &'a [String],
    maps: Vec<&'a str>,
    terminations: Vec<&'a str>,
    reasons: Vec<&'a str>,
    /// The matches in the folder; `rows` lists some of them when there are many.
    total: u64,
    /// `[id, game, map, termination, culprit seat or -1, turns, duration ms, reason, replay,
    /// seat0 bot, seat0 rank, seat1 bot, seat1 rank, ...]`, replay 0 none, 1 `.jsonl`, 2 `.html`.
    rows: Vec<Vec<serde_json::Value>>,
}

fn match_table<'a>(report: &'a Report) -> MatchTable<'a> {
    let bots = &report.digest.bots;
    let mut table = MatchTable {
        bots,
        roles: &report.roles,
        maps: Vec::new(),
        terminations: Vec::new(),
        reasons: Vec::new(),
        total: report.digest.matches,
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
    for r in &report.listed {
        let replay = if report.replays.contains(&format!("{}.html", r.id)) {
            2
        } else if report.replays.contains(&format!("{}.jsonl", r.id)) {
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
            // A string: ids are 64-bit hashes, past what a JavaScript number holds exactly.
            r.id.to_string().into(),
            r.game.into(),
            intern(&mut table.maps, &mut maps, &r.map).into(),
            intern(&mut table.terminations, &mut terms, r.termination.as_str()).into(),
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

fn page(report: &Report) -> String {
    let d = &report.digest;
    let bots = &d.bots;
    let table = match_table(report);
    let kept = report.replays.iter().filter(|n| n.ends_with(".jsonl")).count();
    let listed = report.listed.len() as u64;
    let title = format!("arena report: {}", report.arena);
    let body = html! {
        header {
            h1 { (title) }
            p.meta {
                (d.matches) " matches"
                // A league plans no number of matches.
                @if report.planned > 0 { " of " (report.planned) " planned" }
                @if let Some(s) = &report.shard { " · shard " (s) }
                " · roles " (report.roles.join(", "))
                " · " (bots.len()) " bots"
                @if kept > 0 { " · " (kept) " replays kept" }
            }
            nav {
                a href="#ratings" { "ratings" } a href="#head-to-head" { "head to head" }
                a href="#endings" { "endings" } a href="#times" { "decision times" }
                a href="#maps" { "maps" }
                @if !report.metric_means.is_empty() { a href="#metrics" { "metrics" } }
                a href="#matches" { "matches" }
            }
        }
        main {
            (ratings_section(report.summary.as_deref()))
            @if let Some(h) = report.history.as_ref().filter(|h| !h.is_empty()) {
                section #history {
                    h2 { "Ratings over the league" }
                    p.note { "Every bot's Elo as the league went on (" code { "ratings.csv" } "), against the matches played." }
                    (history::chart(h))
                }
            }
            (head_to_head_section(report.pairwise.as_deref(), bots, &report.seats_played))
            (endings_section(d))
            (times_section(d, &report.limits))
            (maps_section(d))
            @if !report.metric_means.is_empty() {
                (metrics_section(bots, &report.metric_means))
            }
            section #matches {
                h2 { "Matches" }
                p.note {
                    @if listed == d.matches {
                        "Every match of " code { "matches.csv" } ", by id. "
                    } @else {
                        "The " (d.faulted) " matches a bot's fault ended"
                        @if d.faulted > listed { " (the first " (digest::MAX_FAULT_ROWS) ")" }
                        " and the first " (PAGE_ROWS) " of the others, by id: " (listed) " of "
                        (d.matches) ". The full list is " code { "matches.csv" } " in this folder "
                        "(one row per match; " code { "docs/tournaments.md" } " lists its columns). "
                    }
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

fn ratings_section(summary: Option<&[SummaryRow]>) -> Markup {
    html! {
        section #ratings {
            h2 { "Ratings" }
            @match summary {
                None => p.note { code { "summary.csv" } " is missing: the run has not written its summary yet." },
                Some(rows) => {
                    p.note { "Elo from the Bradley-Terry / Plackett-Luce fit of " code { "summary.csv" }
                        ", with its 95% interval; mean 0. In games with asymmetric roles compare bots that play the same roles. "
                        "LOS next: the likelihood of superiority over the bot ranked just below." }
                    (charts::ratings(&rows.iter().filter_map(|r| Some(charts::Rating {
                        bot: &r.bot, elo: r.elo?, low: r.elo_low?, high: r.elo_high?, games: r.games,
                    })).collect::<Vec<_>>()))
                    table.data {
                        thead { tr {
                            th { "rank" } th { "bot" } @if rows.iter().any(|r| r.role.is_some()) { th { "role" } } th { "games" } th { "wins" } th { "draws" } th { "losses" }
                            th { "score" } th { "win rate (95%)" } th { "Elo (95%)" }
                            th title="the likelihood that the bot is stronger than the next one below it" { "LOS next" }
                            th { "faults" } th { "timeouts" }
                        } }
                        tbody {
                            @for r in rows {
                                tr {
                                    td.num { (r.rank.map(|k| k.to_string()).unwrap_or_else(|| "-".into())) }
                                    td { (r.bot) } @if rows.iter().any(|r| r.role.is_some()) { td { (r.role.as_deref().unwrap_or_default()) } } td.num { (r.games) } td.num { (r.wins) }
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
                                    td.num.los { (r.los_next.map(|p| format!("{:.0}%", p * 100.0)).unwrap_or_default()) }
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

fn head_to_head_section(
    pairwise: Option<&[PairRow]>,
    bots: &[String],
    seats_played: &BTreeMap<String, (bool, bool)>,
) -> Markup {
    html! {
        section #head-to-head {
            h2 { "Head to head" }
            @match pairwise {
                None => p.note { code { "pairwise.csv" } " is missing." },
                Some(rows) => {
                    p.note { "The row bot's score rate against the column bot (win 1, draw ½) in the matches both played ("
                        code { "pairwise.csv" } "); hover a cell for the games." }
                    // Only pairs that can meet: when the bots split in two sides that meet only
                    // across (Skynet's viruses and agents), one side's rows, the other's columns.
                    @let names: Vec<&str> = bots.iter().map(String::as_str)
                        .filter(|b| rows.iter().any(|r| r.bot == *b)).collect();
                    @let seats = |b: &str| seats_played.get(b).copied().unwrap_or_default();
                    @let (row_bots, col_bots): (Vec<String>, Vec<String>) =
                        match crate::tournament::stats::standings::sides(&names, &seats) {
                            Some((r, c)) => (r.into_iter().map(String::from).collect(), c.into_iter().map(String::from).collect()),
                            None => (bots.to_vec(), bots.to_vec()),
                        };
                    @let cell = |i: usize, j: usize| -> Option<charts::Cell> {
                        rows.iter().find(|r| r.bot == row_bots[i] && r.opponent == col_bots[j]).map(|r| charts::Cell {
                            rate: r.score_rate, games: r.games, wins: r.wins, draws: r.draws, losses: r.losses,
                        })
                    };
                    (charts::heatmap(&row_bots, &col_bots, &cell))
                }
            }
        }
    }
}

fn endings_section(d: &Digested) -> Markup {
    let (bots, counts) = (&d.bots, &d.endings);
    let used: Vec<usize> =
        (0..ENDINGS.len()).filter(|&k| counts.iter().any(|c| c[k] > 0)).collect();
    let categories: Vec<(&str, &str)> = used.iter().map(|&k| ENDINGS[k]).collect();
    let bars: Vec<charts::Stack<'_>> = bots
        .iter()
        .zip(counts)
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

fn times_section(d: &Digested, limits: &BTreeMap<String, (f64, f64)>) -> Markup {
    let rows: Vec<charts::Times<'_>> = d
        .bots
        .iter()
        .zip(&d.times)
        .filter(|(_, t)| t.count() > 0)
        .map(|(bot, t)| charts::Times {
            bot,
            samples: t.count() as usize,
            p50: t.quantile(0.5),
            p90: t.quantile(0.9),
            p99: t.quantile(0.99),
            max: t.quantile(1.0),
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

/// Per bot, the mean of each metric its `@metric` lines reported, over all its decisions.
fn metrics_section(
    bots: &[String],
    means: &BTreeMap<String, BTreeMap<String, (usize, f64)>>,
) -> Markup {
    let names: BTreeSet<&str> = means.values().flat_map(|m| m.keys().map(String::as_str)).collect();
    let reporting = bots.iter().filter(|b| means.contains_key(*b));
    html! {
        section #metrics {
            h2 { "Metrics" }
            p.note {
                "What the bots reported on " code { "@metric NAME=VALUE" } " stderr lines: per bot, the mean of "
                "each metric over every decision that reported it (how many, in small print). Per match and seat, "
                "the last, mean and largest values are in " code { "metrics.csv" } "."
            }
            table.data #metric-means {
                tr {
                    th { "bot" }
                    @for name in &names { th { (name) } }
                }
                @for bot in reporting {
                    tr {
                        td { (bot) }
                        @for name in &names {
                            @match means[bot].get(*name) {
                                Some((decisions, mean)) => td.num title={ (decisions) " decisions" } {
                                    (metric_value(*mean)) " " small { "(" (decisions) ")" }
                                },
                                None => td.num { "–" },
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A mean as the report shows it: three significant decimals at most.
fn metric_value(v: f64) -> String {
    let s = if v.abs() >= 1000.0 { format!("{v:.0}") } else { format!("{v:.3}") };
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

fn maps_section(d: &Digested) -> Markup {
    let bots = &d.bots;
    // Maps in the order of their first game.
    let mut maps: Vec<(&str, &digest::MapDigest)> =
        d.maps.iter().map(|(name, m)| (name.as_str(), m)).collect();
    maps.sort_by_key(|&(name, m)| (m.first_game, name));
    let shown = maps.len().min(MAX_MAP_ROWS);
    html! {
        section #maps {
            h2 { "Results per map" }
            p.note { "Each bot's score rate on each map (its share of the points against the others at the table: "
                "win 1, draw ½), with the number of its matches there."
                @if shown < maps.len() { " The first " (shown) " of " (maps.len()) " maps, in the order they were played." }
                @if d.maps_untracked > 0 {
                    " " (d.maps_untracked) " matches on maps beyond the first " (MAX_MAPS) " are left out of this table."
                }
            }
            div.scroll {
                table.data.maps {
                    thead { tr {
                        th { "map" } th { "matches" } th { "faults" }
                        @for b in bots { th.bot { (b) } }
                    } }
                    tbody {
                        @for (map, m) in &maps[..shown] {
                            tr {
                                td.map { (map) }
                                td.num { (m.played) }
                                td.num.fault[m.faults > 0] { (m.faults) }
                                @for &(points, n) in &m.cells {
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
