//! `arena sprt ARENA.toml`: candidate against baseline until a sequential test decides.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result, exit};
use crate::tournament::results::summaries::fmt_f;
use crate::tournament::{Arena, SprtReport, Verdict, config, sprt};

/// `arena sprt ARENA.toml`: the arena's `[sprt]` section, with these overrides.
#[derive(clap::Args, Debug)]
pub(super) struct SprtArgs {
    arena: PathBuf,
    #[arg(long)]
    candidate: Option<String>,
    #[arg(long)]
    baseline: Option<String>,
    #[arg(long)]
    elo0: Option<f64>,
    #[arg(long)]
    elo1: Option<f64>,
    #[arg(long)]
    alpha: Option<f64>,
    #[arg(long)]
    beta: Option<f64>,
    /// Stop without a verdict after this many game pairs.
    #[arg(long)]
    max_pairs: Option<u64>,
    #[arg(short = 'j', long)]
    concurrency: Option<usize>,
    /// The results folder (default: `<output>/<name>/sprt`).
    #[arg(long)]
    out: Option<PathBuf>,
    #[arg(short, long)]
    quiet: bool,
    /// Print the verdict as one JSON document (the content of `sprt.json`) instead of words.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: SprtArgs, out: &mut dyn Write) -> Result<i32> {
    // Overrides are applied to the file's text, so the one validator checks them.
    let text = std::fs::read_to_string(&args.arena).map_err(|e| Error::read(&args.arena, e))?;
    let mut doc: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::Arena { path: args.arena.clone(), message: e.to_string() })?;
    let section = doc
        .entry("sprt")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .ok_or_else(|| Error::Arena {
            path: args.arena.clone(),
            message: "key `sprt`: must be a table".into(),
        })?;
    let strings = [("candidate", &args.candidate), ("baseline", &args.baseline)];
    for (key, value) in strings {
        if let Some(v) = value {
            section.insert(key.into(), toml::Value::String(v.clone()));
        }
    }
    let floats =
        [("elo0", args.elo0), ("elo1", args.elo1), ("alpha", args.alpha), ("beta", args.beta)];
    for (key, value) in floats {
        if let Some(v) = value {
            section.insert(key.into(), toml::Value::Float(v));
        }
    }
    if let Some(n) = args.max_pairs {
        section.insert("max_pairs".into(), toml::Value::Integer(n as i64));
    }
    let base = args.arena.parent().map(PathBuf::from).unwrap_or_default();
    let arena = Arena::parse(&doc.to_string(), &args.arena, &config::Files::Disk(base))?;
    let test = arena.sprt.clone().ok_or_else(|| Error::Arena {
        path: args.arena.clone(),
        message: "key `sprt`: needs candidate, baseline, elo0 and elo1".into(),
    })?;
    let report = sprt::run_sprt(&arena, &test, args.concurrency, args.out, !args.quiet)?;
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
