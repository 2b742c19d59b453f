//! `arena sprt ARENA.toml`: candidate against baseline until a sequential test decides; with
//! `--pairs`, a range of the test's pairs for one machine of a cluster, and with `--decide`, the
//! decision from the pairs those machines played.

use std::io::Write;
use std::path::PathBuf;

use crate::bot::{Supervisor, TurnClock};
use crate::error::{Error, Result, exit};
use crate::tournament::results::summaries::fmt_f;
use std::sync::Arc;

use super::progress::Progress;
use crate::tournament::{
    Arena, Events, PairRange, PairsReport, SprtOptions, SprtReport, Verdict, decide_sprt,
    play_pairs, sprt,
};
use crate::tournament::{Problem, SprtSettings, Stop};

/// `arena sprt ARENA.toml`: the arena's `[sprt]` section, with these overrides.
#[derive(clap::Args, Debug)]
pub(super) struct SprtArgs {
    /// The arena file; its `[sprt]` section says which test to run (the flags below override it).
    arena: PathBuf,
    /// The test's settings: each replaces the `[sprt]` key of the same name.
    #[command(flatten)]
    settings: SprtSettings,
    /// Games in flight (default: the arena's `concurrency`, else the number of cores).
    #[arg(short = 'j', long)]
    concurrency: Option<usize>,
    /// The results folder (default: `<output>/<name>/sprt`; with `--pairs`,
    /// `<output>/<name>/sprt-pairs/FROM-TO`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Play exactly these pairs of the test (`FROM..TO`, numbered from 0, TO excluded) with no
    /// stop rule, for one machine of a cluster; a rerun resumes them. `--decide` decides.
    #[arg(long, value_name = "FROM..TO", conflicts_with = "decide")]
    pairs: Option<PairRange>,
    /// Play nothing: decide from the pairs these folders hold (`--pairs` wrote them), counted in
    /// order as `arena sprt` counts them; exit code 6 when the test needs more pairs.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    decide: Vec<PathBuf>,
    /// With `--pairs`: discard what the range's folder holds and play it again.
    #[arg(long, requires = "pairs")]
    fresh: bool,
    /// No progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Print the verdict as one JSON document (the content of `sprt.json`) instead of words.
    #[arg(long)]
    json: bool,
    /// How every seat's turn time is measured, whatever the arena file says: `cpu` or `wall`
    /// (docs/external-bots.md).
    #[arg(long, value_name = "CLOCK")]
    clock: Option<TurnClock>,
}

pub(super) fn run(args: SprtArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    super::check_concurrency(args.concurrency)?;
    let mut arena = Arena::load_with(&args.arena, &args.settings)?;
    if let Some(clock) = args.clock {
        arena.set_clock(clock);
    }
    let test = arena
        .sprt
        .clone()
        .ok_or_else(|| Error::from(Problem::NoTest.at("sprt").in_file(&args.arena)))?;
    let opts = SprtOptions {
        concurrency: args.concurrency,
        out: args.out,
        events: Events::to(Arc::new(Progress::new(!args.quiet))),
        supervisor: supervisor.clone(),
    };
    if let Some(range) = args.pairs {
        let report = play_pairs(&arena, &test, range, args.fresh, &opts)?;
        if args.json {
            super::render::json(&report, out)?;
        } else {
            out.write_all(describe_pairs(&report, &args.arena).as_bytes())
                .map_err(Error::stdout)?;
        }
        return Ok(exit::OK);
    }
    let report = if args.decide.is_empty() {
        sprt::run_sprt(&arena, &test, &opts)?
    } else {
        let report = decide_sprt(&arena, &test, &args.decide, opts.out)?;
        for warning in &report.warnings {
            eprintln!("warning: {warning}");
        }
        report
    };
    if args.json {
        super::render::json(&report, out)?;
    } else {
        out.write_all(describe(&report).as_bytes()).map_err(Error::stdout)?;
    }
    Ok(match (report.verdict, report.stopped) {
        (Verdict::H1, _) => exit::OK,
        (Verdict::H0, _) => exit::CHECK_FAILED,
        (_, Stop::NeedsMorePairs) => exit::MORE_PAIRS,
        (Verdict::Inconclusive, _) => exit::UNDECIDED,
    })
}

/// What `--pairs` played, and what to do next.
fn describe_pairs(r: &PairsReport, arena: &std::path::Path) -> String {
    let mut text = format!(
        "pairs {}..{}: {} games played, {} already there; results in {}\n",
        r.from,
        r.to,
        r.played_games,
        r.resumed_games,
        r.results.display()
    );
    if r.playable < r.to - r.from {
        text.push_str(&format!(
            "note: the test counts no pair from {} on (max_pairs, or the end of a deterministic \
             map pool): those were not played\n",
            r.from + r.playable
        ));
    }
    text.push_str(&format!(
        "decide with: arena sprt {} --decide <the folders of every range>\n",
        arena.display()
    ));
    text
}

/// The verdict, the LLR and the Elo estimate in words.
fn describe(r: &SprtReport) -> String {
    let model = r.elo_model.as_str();
    let verdict = match (r.verdict, r.stopped) {
        (Verdict::H1, _) => format!(
            "H1 accepted: {} is at least {} {model} Elo stronger than {}",
            r.candidate, r.elo1, r.baseline
        ),
        (Verdict::H0, _) => format!(
            "H0 accepted: {} is not more than {} {model} Elo stronger than {}",
            r.candidate, r.elo0, r.baseline
        ),
        (_, Stop::NoMoreInformation) => format!(
            "no decision: no more information after {} pairs (every pair of the map pool played)",
            r.pairs
        ),
        (_, Stop::NeedsMorePairs) => format!(
            "no decision yet after {} pairs: play more (from pair {}) and decide again",
            r.pairs, r.pairs
        ),
        _ => format!("no decision after {} pairs", r.pairs),
    };
    let mut text = String::new();
    if let Some(pool) = r.repeats_after {
        text.push_str(&format!(
            "note: every bot in this test is deterministic, the game has no chance and the maps \
             cycle, so pairs after the first {pool} would repeat them exactly; the test stops \
             there (`maps = \"generate\"` in [sprt] draws new maps instead)\n"
        ));
    }
    let (counts_name, counts) = match (&r.pentanomial, &r.trinomial) {
        (Some(p), _) => ("pentanomial", format!("{p:?}")),
        (None, Some(t)) => ("trinomial", format!("{t:?}")),
        (None, None) => ("counts", "[]".to_string()),
    };
    let against = if r.opponents.is_empty() {
        String::new()
    } else {
        format!(" (paired, against {})", r.opponents.join(", "))
    };
    text.push_str(&format!(
        "{verdict}\nLLR {} (bounds {}, {}) after {} pairs ({} games){against}; {counts_name} \
         {counts}\n{model} Elo {} vs {}: {} [{}, {}] (95%)\nresults in {}\n",
        fmt_f(r.llr, 3),
        fmt_f(r.lower_bound + r.overshoot_lower, 3),
        fmt_f(r.upper_bound - r.overshoot_upper, 3),
        r.pairs,
        2 * r.pairs,
        r.candidate,
        r.baseline,
        fmt_f(r.elo, 1),
        fmt_f(r.elo_low, 1),
        fmt_f(r.elo_high, 1),
        r.results.display()
    ));
    text
}
