//! `arena diff A B [--json]`: two results folders compared match by match, as text or JSON; the
//! exit code says whether anything changed (0 no, 1 yes, 2 the plans differ).

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result, exit};
use crate::tournament::results::summaries::fmt_f;
use crate::tournament::{ChangedMatch, DiffReport, DiffSide, DiffVerdict, MatchOutcome};

/// Changed matches the text lists before it refers to `--json` for the rest.
const MAX_LISTED: usize = 50;

#[derive(clap::Args, Debug)]
pub(super) struct DiffArgs {
    /// The baseline's results folder (e.g. before a bot changed).
    a: PathBuf,
    /// The results folder to compare with it (e.g. the same arena after, run with --out).
    b: PathBuf,
    /// Print the report as one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: DiffArgs, out: &mut dyn Write) -> Result<i32> {
    let report = crate::tournament::diff(&args.a, &args.b)?;
    if args.json {
        super::render::json(&report, out)?;
    } else {
        out.write_all(text(&report).as_bytes()).map_err(Error::stdout)?;
    }
    Ok(match report.verdict {
        DiffVerdict::Same => exit::OK,
        DiffVerdict::Changed => exit::CHECK_FAILED,
        DiffVerdict::DifferentPlans => exit::INPUT,
    })
}

fn side(name: &str, s: &DiffSide) -> String {
    format!(
        "{name}: {} (arena {}, fingerprint {}, {} of {} matches)\n",
        s.results.display(),
        s.arena,
        s.fingerprint,
        s.matches,
        s.planned
    )
}

/// The first ids of a list, and how many more.
fn ids(list: &[u64]) -> String {
    let shown: Vec<String> = list.iter().take(10).map(u64::to_string).collect();
    let more = list.len().saturating_sub(10);
    format!(
        "{}{}",
        shown.join(", "),
        if more > 0 { format!(", ... ({more} more)") } else { String::new() }
    )
}

fn outcome(o: &MatchOutcome) -> String {
    let mut s = match &o.winner {
        Some(w) => format!("{w} won"),
        None => "no winner".to_string(),
    };
    let _ = write!(s, " ({}", o.termination);
    if let Some(c) = &o.culprit {
        let _ = write!(s, " by {c}");
    }
    let scores: Vec<String> = o.scores.iter().map(std::string::ToString::to_string).collect();
    let _ = write!(s, ", scores {}, {} turns)", scores.join(" "), o.turns);
    s
}

fn changed(m: &ChangedMatch) -> String {
    let seats: Vec<String> = m.seats.iter().map(|s| format!("{} ({})", s.bot, s.role)).collect();
    let mut s = format!(
        "  match {}: {} on {}, seed {} — {} changed\n    A: {}\n    B: {}\n",
        m.id,
        seats.join(" vs "),
        m.map,
        m.seed,
        m.changes.join(", "),
        outcome(&m.a),
        outcome(&m.b)
    );
    let replay = |p: &Option<PathBuf>| match p {
        Some(p) => p.display().to_string(),
        None => "not kept".to_string(),
    };
    if m.replay_a.is_some() || m.replay_b.is_some() {
        let _ = writeln!(s, "    replays: A {}, B {}", replay(&m.replay_a), replay(&m.replay_b));
    }
    s
}

fn text(r: &DiffReport) -> String {
    let mut t = side("A", &r.a) + &side("B", &r.b);
    if r.verdict == DiffVerdict::DifferentPlans {
        t.push_str("the folders planned different matches, so no result was compared:\n");
        for line in &r.plan_differences {
            let _ = writeln!(t, "  {line}");
        }
        return t;
    }
    let _ = writeln!(t, "same plan; {} matches in both, {} changed", r.compared, r.changed.len());
    if !r.only_in_a.is_empty() {
        let _ = writeln!(t, "only in A: {} matches (ids {})", r.only_in_a.len(), ids(&r.only_in_a));
    }
    if !r.only_in_b.is_empty() {
        let _ = writeln!(t, "only in B: {} matches (ids {})", r.only_in_b.len(), ids(&r.only_in_b));
    }
    if !r.changed.is_empty() {
        t.push_str("\nchanged matches:\n");
        for m in r.changed.iter().take(MAX_LISTED) {
            t.push_str(&changed(m));
        }
        if r.changed.len() > MAX_LISTED {
            let _ =
                writeln!(t, "  ... and {} more (--json lists all)", r.changed.len() - MAX_LISTED);
        }
    }
    let width = r.bots.iter().map(|b| b.bot.chars().count()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        t,
        "\nper bot, B - A in points per match (win 1, draw 1/2, loss 0) over the matches in both:"
    );
    let _ = writeln!(
        t,
        "{:<width$}  {:>7}  {:>5}  {:>6}  {:>7}  {:>24}",
        "bot", "matches", "gains", "losses", "change", "95% interval (paired t)"
    );
    for b in &r.bots {
        let interval = if b.low.is_nan() {
            "-".to_string()
        } else {
            format!("[{}, {}]", fmt_f(b.low, 3), fmt_f(b.high, 3))
        };
        let _ = writeln!(
            t,
            "{:<width$}  {:>7}  {:>5}  {:>6}  {:>7}  {:>24}",
            b.bot,
            b.matches,
            b.gains,
            b.losses,
            fmt_f(b.mean_change, 3),
            interval
        );
    }
    t.push_str(match r.verdict {
        DiffVerdict::Same => "\nno change\n",
        _ => "\nchanged\n",
    });
    t
}
