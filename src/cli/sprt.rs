//! `arena sprt ARENA.toml`: candidate against baseline until a sequential test decides.

use std::io::Write;
use std::path::PathBuf;

use crate::bot::Supervisor;
use crate::error::{Error, Result};
use crate::tournament::{Arena, config, sprt};

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
}

pub(super) fn run(args: SprtArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
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
    let outcome =
        sprt::run_sprt(&arena, &test, args.concurrency, args.out, !args.quiet, supervisor)?;
    let text = format!("{}results in {}\n", outcome.describe(), outcome.dir.display());
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(outcome.verdict.exit_code())
}
