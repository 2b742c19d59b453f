//! A league's ratings over its history (`ratings.csv`, written by `crate::tournament::league`
//! every few matches): one line per bot, Elo against the number of matches played, drawn as SVG
//! like the other plots.

use std::collections::BTreeMap;
use std::path::Path;

use maud::{Markup, html};

use super::charts::nice_ticks;

/// A league's rating history in its results folder: `matches,bot,elo,elo_low,elo_high,games`.
pub(crate) const HISTORY_FILE: &str = "ratings.csv";

const WIDTH: f64 = 820.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 130.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 34.0;
/// Points kept per bot (the history is thinned evenly beyond).
const MAX_POINTS: usize = 400;

/// Line colours, by bot.
const COLOURS: &[&str] =
    &["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"];

/// One bot's history: `(matches, elo)` points.
pub(crate) type History = BTreeMap<String, Vec<(f64, f64)>>;

/// The history in `dir`, if the folder has one (a league's).
pub(crate) fn read(dir: &Path) -> Option<History> {
    let text = std::fs::read_to_string(dir.join(HISTORY_FILE)).ok()?;
    let mut history = History::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (Some(m), Some(bot), Some(elo)) = (f.first(), f.get(1), f.get(2)) else { continue };
        if let (Ok(m), Ok(elo)) = (m.parse::<f64>(), elo.parse::<f64>())
            && elo.is_finite()
        {
            history.entry((*bot).to_string()).or_default().push((m, elo));
        }
    }
    for points in history.values_mut() {
        if points.len() > MAX_POINTS {
            let step = points.len() as f64 / MAX_POINTS as f64;
            let last = *points.last().expect("non-empty");
            *points = (0..MAX_POINTS).map(|i| points[(i as f64 * step) as usize]).collect();
            points.push(last);
        }
    }
    Some(history)
}

/// The plot of every bot's rating over the league's matches.
pub(crate) fn chart(history: &History) -> Markup {
    let points = || history.values().flatten();
    let (x_lo, x_hi) =
        points().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y_lo, y_hi) =
        points().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (x_lo, x_hi) = if x_lo < x_hi { (x_lo, x_hi) } else { (x_lo - 1.0, x_lo + 1.0) };
    let (y_lo, y_hi) = if y_lo < y_hi { (y_lo, y_hi) } else { (y_lo - 50.0, y_lo + 50.0) };
    let pad = (y_hi - y_lo) * 0.05;
    let (y_lo, y_hi) = (y_lo - pad, y_hi + pad);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |v: f64| LEFT + (v - x_lo) / (x_hi - x_lo) * plot_w;
    let y = |v: f64| TOP + (y_hi - v) / (y_hi - y_lo) * plot_h;
    let c = |v: f64| format!("{v:.1}");
    let labels = label_positions(
        &history
            .values()
            .map(|pts| pts.last().map_or(TOP, |&(_, e)| y(e) + 4.0))
            .collect::<Vec<_>>(),
        13.0,
    );
    html! {
        svg.chart #rating-history viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) width=(WIDTH) role="img"
            aria-label="every bot's rating over the league's matches" {
            @for t in nice_ticks(y_lo, y_hi, 6) {
                line.grid x1=(c(LEFT)) x2=(c(LEFT + plot_w)) y1=(c(y(t))) y2=(c(y(t))) {}
                text.tick x=(c(LEFT - 6.0)) y=(c(y(t) + 4.0)) text-anchor="end" { (format!("{t:.0}")) }
            }
            @for t in nice_ticks(x_lo, x_hi, 8) {
                text.tick x=(c(x(t))) y=(c(TOP + plot_h + 16.0)) text-anchor="middle" { (format!("{t:.0}")) }
            }
            text.tick x=(c(LEFT + plot_w / 2.0)) y=(c(HEIGHT - 4.0)) text-anchor="middle" { "matches played" }
            @for (i, (bot, pts)) in history.iter().enumerate() {
                @let colour = COLOURS[i % COLOURS.len()];
                @let path: Vec<String> = pts.iter().map(|&(m, e)| format!("{},{}", c(x(m)), c(y(e)))).collect();
                polyline data-bot=(bot) points=(path.join(" ")) fill="none" stroke=(colour) stroke-width="2" {
                    title { (bot) }
                }
                @if let Some(&(m, e)) = pts.last() {
                    text x=(c(x(m) + 6.0)) y=(c(labels[i])) fill=(colour) { (bot) " " (format!("{e:.0}")) }
                }
            }
        }
    }
}

/// The labels' heights moved apart to at least `gap` from each other, their order kept: labels
/// that would overlap form a block spaced by `gap` and centred where they wanted to be, blocks
/// merged while they overlap, so bots that end close do not print over each other.
fn label_positions(wanted: &[f64], gap: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by(|&a, &b| wanted[a].total_cmp(&wanted[b]).then(a.cmp(&b)));
    // Each block: its members (in order) and its top.
    let mut blocks: Vec<(Vec<usize>, f64)> = Vec::new();
    for i in order {
        blocks.push((vec![i], wanted[i]));
        while blocks.len() > 1 {
            let (last, prev) = (&blocks[blocks.len() - 1], &blocks[blocks.len() - 2]);
            if prev.1 + gap * prev.0.len() as f64 <= last.1 {
                break;
            }
            let (mut members, _) = blocks.pop().expect("two blocks");
            let (mut merged, _) = blocks.pop().expect("two blocks");
            merged.append(&mut members);
            let mean = merged.iter().map(|&m| wanted[m]).sum::<f64>() / merged.len() as f64;
            let top = mean - gap * (merged.len() - 1) as f64 / 2.0;
            blocks.push((merged, top));
        }
    }
    let mut placed = vec![0.0; wanted.len()];
    for (members, top) in blocks {
        for (k, m) in members.into_iter().enumerate() {
            placed[m] = top + gap * k as f64;
        }
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::label_positions;

    #[test]
    fn labels_that_would_overlap_are_moved_apart_and_keep_their_order() {
        let placed = label_positions(&[100.0, 102.0, 300.0, 101.0], 13.0);
        let mut sorted = placed.clone();
        sorted.sort_by(f64::total_cmp);
        for w in sorted.windows(2) {
            assert!(w[1] - w[0] >= 13.0 - 1e-9, "{placed:?}");
        }
        assert!(placed[0] < placed[3] && placed[3] < placed[1], "{placed:?}");
        assert_eq!(placed[2], 300.0, "a label far from the others stays where it was");
    }
}
