//! `arena sprt ARENA.toml`: candidate against baseline until a sequential test decides.

use std::io::Write;
use std::path::PathBuf;

use crate::bot::Supervisor;
use crate::error::{Error, Result, exit};
use crate::tournament::config::SprtOverrides;
use crate::tournament::results::summaries::fmt_f;
use crate::tournament::{Arena, SprtReport, Verdict, sprt};

/// `arena sprt ARENA.toml`: the arena's `[sprt]` section, with these overrides.
#[derive(clap::Args, Debug)]
pub(super) struct SprtArgs {
    /// The arena file; its `[sprt]` section says which test to run (the flags below override it).
    arena: PathBuf,
    /// The bot under test (a bot name of the arena; it must play every role).
    #[arg(long, value_name = "BOT")]
    candidate: Option<String>,
    /// The bot it is tested against (a bot name of the arena; it must play every role).
    #[arg(long, value_name = "BOT")]
    baseline: Option<String>,
    /// H0: the candidate is at most this many Elo stronger.
    #[arg(long, value_name = "ELO", allow_negative_numbers = true)]
    elo0: Option<f64>,
    /// H1: the candidate is at least this many Elo stronger (above elo0).
    #[arg(long, value_name = "ELO", allow_negative_numbers = true)]
    elo1: Option<f64>,
    /// The chance of accepting H1 when H0 holds, in (0, 0.5) (default 0.05).
    #[arg(long, value_name = "P")]
    alpha: Option<f64>,
    /// The chance of accepting H0 when H1 holds, in (0, 0.5) (default 0.05).
    #[arg(long, value_name = "P")]
    beta: Option<f64>,
    /// Stop without a verdict after this many game pairs (default 100000).
    #[arg(long, value_name = "PAIRS")]
    max_pairs: Option<u64>,
    /// Games in flight (default: the arena's `concurrency`, else the number of cores).
    #[arg(short = 'j', long)]
    concurrency: Option<usize>,
    /// The results folder (default: `<output>/<name>/sprt`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Print the verdict as one JSON document (the content of `sprt.json`) instead of words.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: SprtArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    let overrides = SprtOverrides {
        candidate: args.candidate,
        baseline: args.baseline,
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        max_pairs: args.max_pairs,
    };
    let arena = Arena::load_with(&args.arena, &overrides)?;
    let test = arena.sprt.clone().ok_or_else(|| Error::Arena {
        path: args.arena.clone(),
        message: "key `sprt`: needs candidate, baseline, elo0 and elo1".into(),
    })?;
    let report =
        sprt::run_sprt(&arena, &test, args.concurrency, args.out, !args.quiet, supervisor)?;
    if args.json {
        super::render::json(&report, out)?;
    } else {
        out.write_all(describe(&report).as_bytes()).map_err(Error::stdout)?;
    }
    Ok(match report.verdict {
        Verdict::H1 => exit::OK,
        Verdict::H0 => exit::CHECK_FAILED,
        Verdict::Inconclusive => exit::UNDECIDED,
    })
}

/// The verdict, the LLR and the Elo estimate in words.
fn describe(r: &SprtReport) -> String {
    let verdict = match r.verdict {
        Verdict::H1 => format!("H1 accepted: {} is at least {} Elo stronger", r.candidate, r.elo1),
        Verdict::H0 => format!(
            "H0 accepted: {} is not more than {} Elo stronger than {}",
            r.candidate, r.elo0, r.baseline
        ),
        Verdict::Inconclusive => format!("no decision after {} pairs", r.pairs),
    };
    format!(
        "{verdict}\nLLR {} (bounds {}, {}) after {} pairs ({} games); pentanomial {:?}\n\
         Elo {} vs {}: {} [{}, {}] (95%)\nresults in {}\n",
        fmt_f(r.llr, 3),
        fmt_f(r.lower_bound, 3),
        fmt_f(r.upper_bound, 3),
        r.pairs,
        2 * r.pairs,
        r.pentanomial,
        r.candidate,
        r.baseline,
        fmt_f(r.elo, 1),
        fmt_f(r.elo_low, 1),
        fmt_f(r.elo_high, 1),
        r.results.display()
    )
}
