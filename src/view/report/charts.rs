//! The report's plots, drawn as SVG in Rust: each is a handful of rectangles, lines and labels,
//! so the page needs no plotting library at view time and every mark carries a `<title>` tooltip
//! with its exact numbers.

use maud::{Markup, html};

/// The plots' width in CSS pixels (they scale down with the page).
const WIDTH: f64 = 820.0;
/// Room for bot names left of a plot.
const LABELS: f64 = 170.0;
const ROW: f64 = 24.0;

/// Rounds a coordinate for compact SVG.
fn c(v: f64) -> String {
    format!("{v:.1}")
}

/// Ticks at 1, 2 or 5 times a power of ten, about `count` of them over `[lo, hi]`.
pub(super) fn nice_ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / count.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(raw);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A bot's rating with its 95% interval.
pub(super) struct Rating<'a> {
    pub bot: &'a str,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    pub games: u64,
}

/// Ratings as points with their intervals, best first, on a shared Elo axis.
pub(super) fn ratings(rows: &[Rating<'_>]) -> Markup {
    let finite = |v: f64| v.is_finite().then_some(v);
    let lo = rows.iter().filter_map(|r| finite(r.low)).fold(f64::INFINITY, f64::min);
    let hi = rows.iter().filter_map(|r| finite(r.high)).fold(f64::NEG_INFINITY, f64::max);
    // One finite bound (a single rating) or none (no bot rated): a window around what there is.
    let (lo, hi) = match (lo.is_finite(), hi.is_finite()) {
        (true, true) if lo < hi => (lo, hi),
        (true, _) => (lo - 50.0, lo + 50.0),
        (false, true) => (hi - 50.0, hi + 50.0),
        (false, false) => (-50.0, 50.0),
    };
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let right = 150.0;
    let plot = WIDTH - LABELS - right;
    let x = |v: f64| LABELS + (v.clamp(lo, hi) - lo) / (hi - lo) * plot;
    let height = rows.len() as f64 * ROW + 52.0;
    let ticks = nice_ticks(lo, hi, 8);
    html! {
        svg.chart viewBox=(format!("0 0 {WIDTH} {height}")) width=(WIDTH) role="img"
            aria-label="ratings with 95% intervals" {
            @for t in &ticks {
                line.grid x1=(c(x(*t))) x2=(c(x(*t))) y1="4" y2=(c(height - 40.0)) {}
                text.tick x=(c(x(*t))) y=(c(height - 28.0)) { (format!("{t:.0}")) }
            }
            @if lo < 0.0 && hi > 0.0 {
                line.zero x1=(c(x(0.0))) x2=(c(x(0.0))) y1="4" y2=(c(height - 40.0)) {}
            }
            @for (i, r) in rows.iter().enumerate() {
                @let y = 14.0 + i as f64 * ROW;
                g.rating {
                    title { (format!("{}: Elo {:.1}, 95% interval [{:.1}, {:.1}], {} games",
                        r.bot, r.elo, r.low, r.high, r.games)) }
                    text.label x=(c(LABELS - 8.0)) y=(c(y)) { (r.bot) }
                    line.interval x1=(c(x(r.low))) x2=(c(x(r.high))) y1=(c(y)) y2=(c(y)) {}
                    circle.point cx=(c(x(r.elo))) cy=(c(y)) r="5" {}
                    text.value x=(c(WIDTH - right + 10.0)) y=(c(y)) {
                        (format!("{:.0} [{:.0}, {:.0}]", r.elo, r.low, r.high))
                    }
                }
            }
            text.axis x=(c(LABELS + plot / 2.0)) y=(c(height - 10.0)) { "Elo (95% interval)" }
        }
    }
}

/// A cell of the head-to-head matrix: the row bot's score rate against the column bot.
pub(super) struct Cell {
    pub rate: f64,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// A colour for a score rate: red (0) through light grey (0.5) to blue (1), readable by most
/// colour-blind viewers, with the text colour that stays legible on it.
pub(super) fn rate_colour(rate: f64) -> (String, &'static str) {
    let t = rate.clamp(0.0, 1.0);
    let (from, to, u) = if t < 0.5 {
        ((202.0, 0.0, 32.0), (247.0, 247.0, 247.0), t * 2.0)
    } else {
        ((247.0, 247.0, 247.0), (5.0, 113.0, 176.0), (t - 0.5) * 2.0)
    };
    let mix = |a: f64, b: f64| (a + (b - a) * u).round() as u8;
    let colour =
        format!("#{:02x}{:02x}{:02x}", mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2));
    let text = if (t - 0.5).abs() > 0.3 { "#fff" } else { "#1d232a" };
    (colour, text)
}

/// The head-to-head matrix: row bot against column bot, coloured by score rate.
pub(super) fn heatmap(
    rows: &[String],
    bots: &[String],
    cell: &dyn Fn(usize, usize) -> Option<Cell>,
) -> Markup {
    let n = bots.len();
    let size = (560.0 / n.max(rows.len()).max(1) as f64).clamp(14.0, 52.0);
    // Column labels run up at 45 degrees: room for the longest (about 7 px a character).
    let longest = bots.iter().map(|b| b.chars().count()).max().unwrap_or(1) as f64;
    let top = 14.0 + longest * 7.0 * std::f64::consts::FRAC_1_SQRT_2;
    let width = LABELS + n as f64 * size + 10.0;
    let height = top + rows.len() as f64 * size + 10.0;
    let font = (size * 0.32).clamp(7.0, 12.0);
    html! {
        svg.chart.heatmap viewBox=(format!("0 0 {width} {height}")) width=(width) role="img"
            aria-label="head-to-head score rates" {
            @for (j, b) in bots.iter().enumerate() {
                @let x = LABELS + (j as f64 + 0.5) * size;
                text.col-label transform=(format!("translate({} {}) rotate(-45)", c(x), c(top - 6.0))) { (b) }
            }
            @for (i, a) in rows.iter().enumerate() {
                @let y = top + i as f64 * size;
                text.label x=(c(LABELS - 8.0)) y=(c(y + size / 2.0)) { (a) }
                @for j in 0..n {
                    @let x = LABELS + j as f64 * size;
                    @match cell(i, j) {
                        Some(cl) => {
                            @let (fill, ink) = rate_colour(cl.rate);
                            g.cell {
                                title { (format!("{a} against {}: {:.1}% over {} games ({} W, {} D, {} L)",
                                    bots[j], cl.rate * 100.0, cl.games, cl.wins, cl.draws, cl.losses)) }
                                rect x=(c(x)) y=(c(y)) width=(c(size - 1.0)) height=(c(size - 1.0)) fill=(fill) {}
                                @if size >= 24.0 {
                                    text x=(c(x + size / 2.0)) y=(c(y + size / 2.0))
                                        style=(format!("fill:{ink};font-size:{font:.1}px")) {
                                        (format!("{:.0}%", cl.rate * 100.0))
                                    }
                                }
                            }
                        }
                        None => {
                            rect.empty x=(c(x)) y=(c(y)) width=(c(size - 1.0)) height=(c(size - 1.0)) {
                                title { (if *a == bots[j] { a.to_string() } else { format!("{a} never met {}", bots[j]) }) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One stacked bar: a bot and its counts per category.
pub(super) struct Stack<'a> {
    pub bot: &'a str,
    pub counts: Vec<u64>,
}

/// Stacked horizontal bars, one per bot, as shares of the bot's matches.
pub(super) fn stacked_bars(categories: &[(&str, &str)], bars: &[Stack<'_>]) -> Markup {
    let right = 70.0;
    let plot = WIDTH - LABELS - right;
    let height = bars.len() as f64 * ROW + 28.0;
    html! {
        svg.chart viewBox=(format!("0 0 {WIDTH} {height}")) width=(WIDTH) role="img"
            aria-label="how matches ended, per bot" {
            @for (i, bar) in bars.iter().enumerate() {
                @let y = 4.0 + i as f64 * ROW;
                @let total = bar.counts.iter().sum::<u64>().max(1) as f64;
                text.label x=(c(LABELS - 8.0)) y=(c(y + ROW / 2.0 - 2.0)) { (bar.bot) }
                @for (x, w, k, count) in segments(&bar.counts, plot) {
                    rect x=(c(x)) y=(c(y)) width=(c(w)) height=(c(ROW - 6.0)) fill=(categories[k].1) {
                        title { (format!("{}: {} {} of {} ({:.1}%)", bar.bot, count, categories[k].0,
                            total, count as f64 / total * 100.0)) }
                    }
                    @if w > 34.0 {
                        text.in-bar x=(c(x + w / 2.0)) y=(c(y + ROW / 2.0 - 2.0)) { (count) }
                    }
                }
                text.value x=(c(WIDTH - right + 8.0)) y=(c(y + ROW / 2.0 - 2.0)) { (total) }
            }
            @for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
                text.tick x=(c(LABELS + t * plot)) y=(c(height - 6.0)) { (format!("{:.0}%", t * 100.0)) }
            }
        }
    }
}

/// The non-empty segments of a bar of width `plot`: `(x, width, category, count)`.
fn segments(counts: &[u64], plot: f64) -> Vec<(f64, f64, usize, u64)> {
    let total = counts.iter().sum::<u64>().max(1) as f64;
    let mut x = LABELS;
    let mut out = Vec::new();
    for (k, &count) in counts.iter().enumerate() {
        let w = count as f64 / total * plot;
        if count > 0 {
            out.push((x, w, k, count));
        }
        x += w;
    }
    out
}

/// One bot's decision times: percentiles of its per-match longest decision, and its limits.
pub(super) struct Times<'a> {
    pub bot: &'a str,
    pub samples: usize,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    /// The per-turn and first-turn limits in ms, when a replay recorded them.
    pub limits: Option<(f64, f64)>,
}

/// Per bot, on a log scale: a bar from the median to the 99th percentile of the longest
/// decision per match, the maximum, and the time limits.
pub(super) fn decision_times(rows: &[Times<'_>]) -> Markup {
    let right = 250.0;
    let plot = WIDTH - LABELS - right;
    let top_value = rows
        .iter()
        .flat_map(|r| [r.max, r.limits.map_or(0.0, |l| l.0.max(l.1))])
        .fold(1.0f64, f64::max);
    let lo = 0.01f64.log10();
    let hi = (top_value * 1.5).log10().ceil();
    let x = |v: f64| LABELS + ((v.max(0.01).log10() - lo) / (hi - lo)).clamp(0.0, 1.0) * plot;
    let height = rows.len() as f64 * ROW + 52.0;
    let decades: Vec<f64> = (lo.round() as i32..=hi as i32).map(|e| 10f64.powi(e)).collect();
    let ms = |v: f64| {
        if v < 1.0 {
            format!("{v:.2}")
        } else if v < 100.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.0}")
        }
    };
    html! {
        svg.chart viewBox=(format!("0 0 {WIDTH} {height}")) width=(WIDTH) role="img"
            aria-label="longest decision per match, per bot" {
            @for d in &decades {
                line.grid x1=(c(x(*d))) x2=(c(x(*d))) y1="4" y2=(c(height - 40.0)) {}
                text.tick x=(c(x(*d))) y=(c(height - 28.0)) { (ms(*d)) }
            }
            @for (i, r) in rows.iter().enumerate() {
                @let y = 14.0 + i as f64 * ROW;
                g {
                    title { (format!("{}: longest decision per match over {} seat-matches: median {} ms, p90 {} ms, p99 {} ms, max {} ms{}",
                        r.bot, r.samples, ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max),
                        r.limits.map(|(t, f)| format!("; limits {} ms per turn, {} ms first turn", ms(t), ms(f))).unwrap_or_default())) }
                    text.label x=(c(LABELS - 8.0)) y=(c(y)) { (r.bot) }
                    line.whisker x1=(c(x(r.p99))) x2=(c(x(r.max))) y1=(c(y)) y2=(c(y)) {}
                    rect.spread x=(c(x(r.p50))) y=(c(y - 6.0)) width=(c((x(r.p99) - x(r.p50)).max(2.0))) height="12" {}
                    line.p50 x1=(c(x(r.p50))) x2=(c(x(r.p50))) y1=(c(y - 7.0)) y2=(c(y + 7.0)) {}
                    path.max d=(format!("M{} {}l6 6m0 -6l-6 6", c(x(r.max) - 3.0), c(y - 3.0))) {}
                    @if let Some((turn, first)) = r.limits {
                        line.limit x1=(c(x(turn))) x2=(c(x(turn))) y1=(c(y - 10.0)) y2=(c(y + 10.0)) {}
                        @if first != turn {
                            line.limit.first x1=(c(x(first))) x2=(c(x(first))) y1=(c(y - 10.0)) y2=(c(y + 10.0)) {}
                        }
                    }
                    text.value x=(c(WIDTH - right + 10.0)) y=(c(y)) {
                        (format!("p50 {} · p99 {} · max {} ms", ms(r.p50), ms(r.p99), ms(r.max)))
                    }
                }
            }
            text.axis x=(c(LABELS + plot / 2.0)) y=(c(height - 10.0)) { "longest decision in a match, ms (log scale)" }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers_inside_the_range() {
        assert_eq!(nice_ticks(-130.0, 170.0, 6), vec![-100.0, -50.0, 0.0, 50.0, 100.0, 150.0]);
        assert_eq!(nice_ticks(0.0, 1.0, 4), vec![0.0, 0.5, 1.0]);
        assert_eq!(nice_ticks(5.0, 5.0, 4), vec![5.0]);
    }

    #[test]
    fn rate_colours_run_from_red_through_grey_to_blue() {
        assert_eq!(rate_colour(0.0).0, "#ca0020");
        assert_eq!(rate_colour(0.5).0, "#f7f7f7");
        assert_eq!(rate_colour(1.0).0, "#0571b0");
        assert_eq!(rate_colour(0.5).1, "#1d232a");
        assert_eq!(rate_colour(1.0).1, "#fff");
    }
}
