//! `arena analyze REPLAY.jsonl [--json] [--time-ms N] [--positions N]`: every decision of a
//! replay rated against the game's exact solver ([`crate::analysis`]), as a table and a summary
//! per seat, or as one JSON document.

use std::io::Write;
use std::path::PathBuf;

use crate::analysis::{Limits, Report, SeatSummary, best_text, label_text, limits_text};
// `arena gen --separating` writes values the same way.
pub(super) use crate::analysis::value_text;
use crate::error::{Error, Result, exit};

#[derive(clap::Args, Debug)]
pub(super) struct AnalyzeArgs {
    /// The replay (JSON Lines, as `arena play --replay` writes it).
    replay: PathBuf,
    /// The solver's wall-clock time per decision, in milliseconds; a position it cannot settle
    /// in that time is `unknown`.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    time_ms: u64,
    /// Also stop each decision's search after this many positions (the same count settles the
    /// same positions on any machine).
    #[arg(long, value_name = "N")]
    positions: Option<u64>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: AnalyzeArgs, out: &mut dyn Write) -> Result<i32> {
    let limits = Limits { time_ms: Some(args.time_ms), positions: args.positions };
    let report = crate::analysis::analyze_file(&args.replay, limits)?;
    let text = if args.json {
        format!("{}\n", serde_json::to_string(&report).expect("a report serializes"))
    } else {
        render(&args.replay.display().to_string(), &report)
    };
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(exit::OK)
}

fn render(name: &str, r: &Report) -> String {
    let mut s = format!("{name}: {} {} on {}\n", r.game, r.variant, r.map);
    if let Some(statement) = &r.statement {
        s += &format!("{statement}\n");
    }
    if !r.exact {
        return s;
    }
    let what = if r.unit == "points" {
        "the final score (first role minus second) with perfect play"
    } else {
        "which side can force a win against every reply"
    };
    s += &format!("value: {what}; at the start: {}\n", value_text(&r.start));
    s += &format!("budget per decision: {}\n\n", limits_text(&r.limits));
    let seats: Vec<String> = r.seats.iter().map(|s| format!("{} ({})", s.role, s.bot)).collect();
    let mut rows: Vec<[String; 7]> =
        vec![["step", "seat", "action", "label", "before", "after", "best"].map(String::from)];
    for d in &r.decisions {
        rows.push([
            d.step.to_string(),
            seats[d.seat].clone(),
            d.action.clone(),
            label_text(d, &r.unit),
            value_text(&d.before),
            value_text(&d.after),
            best_text(d),
        ]);
    }
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in &rows {
        let mut line = format!("{:>w$}", row[0], w = widths[0]);
        for (cell, w) in row.iter().zip(widths).skip(1).take(5) {
            line += &format!("  {cell:<w$}");
        }
        s += &format!("{line}  {}\n", row[6]);
    }
    s += "\nper seat:\n";
    for seat in &r.seats {
        s += &format!("  {}\n", summary_text(seat, &r.unit));
    }
    s
}

fn summary_text(s: &SeatSummary, unit: &str) -> String {
    let accuracy = s.accuracy.map_or("-".to_string(), |a| format!("{:.1}%", a * 100.0));
    let lost = match unit {
        "points" => format!("{} point(s)", s.value_lost),
        _ => format!("{} win(s) thrown away", s.value_lost),
    };
    let mean = s.mean_value_lost.map_or("-".to_string(), |m| format!("{m:.3}"));
    format!(
        "{} ({}): {} decisions, {} analysed, accuracy {accuracy}, {} blunder(s), {} \
         inaccuracy(ies), {} unknown; value lost {lost} (mean {mean} per analysed decision)",
        s.role, s.bot, s.decisions, s.analysed, s.blunders, s.inaccuracies, s.unknown
    )
}
