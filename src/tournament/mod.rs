//! Tournaments: many seeded matches between bots, and honest statistics on which is stronger.
//!
//! [`config`] turns an arena file into a validated [`Arena`]; [`schedule`] makes every match a
//! pure function of the arena and a match id; [`run`] plays them in parallel, appending a row per
//! match to `matches.csv`, resuming and sharding; [`stats`] turns rows into summaries; [`sprt`]
//! runs sequential regression tests. `docs/tournaments.md` is the user's guide.
//!
//! The command-line arguments of `arena run`, `arena merge` and `arena sprt` live here, so the
//! CLI module only forwards to [`run_command`], [`merge_command`] and [`sprt_command`].

pub mod config;
pub mod csv;
pub mod run;
pub mod schedule;
pub mod sprt;
pub mod stats;

use std::io::Write;
use std::path::PathBuf;

pub use config::Arena;
pub use run::{RunOptions, RunOutcome, merge, run};
pub use schedule::{Schedule, Shard};

use crate::error::{Error, Result};

/// `arena run [ARENA.toml]`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The arena file; without it the built-in default arena runs (Skynet Episode 2 bots).
    pub arena: Option<PathBuf>,
    /// Run only slice K of N (1-based), for several machines; merge with `arena merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Matches in flight (default: the arena's `concurrency`, else the number of cores).
    #[arg(short = 'j', long)]
    pub concurrency: Option<usize>,
    /// Discard the results already in the folder instead of resuming.
    #[arg(long)]
    pub fresh: bool,
    /// The results folder (default: `<output>/<name>`, plus `shard-K-of-N` for a shard).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `arena merge DIR...`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' results folders.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where to write the merged results (default: the first folder's parent).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `arena sprt ARENA.toml`: the arena's `[sprt]` section, with these overrides.
#[derive(clap::Args, Debug)]
pub struct SprtArgs {
    pub arena: PathBuf,
    #[arg(long)]
    pub candidate: Option<String>,
    #[arg(long)]
    pub baseline: Option<String>,
    #[arg(long)]
    pub elo0: Option<f64>,
    #[arg(long)]
    pub elo1: Option<f64>,
    #[arg(long)]
    pub alpha: Option<f64>,
    #[arg(long)]
    pub beta: Option<f64>,
    /// Stop without a verdict after this many game pairs.
    #[arg(long)]
    pub max_pairs: Option<u64>,
    #[arg(short = 'j', long)]
    pub concurrency: Option<usize>,
    /// The results folder (default: `<output>/<name>/sprt`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(short, long)]
    pub quiet: bool,
}

fn stdout_error(e: std::io::Error) -> Error {
    Error::Io { context: "failed to write to stdout".into(), source: e }
}

fn load(path: Option<&PathBuf>) -> Result<Arena> {
    match path {
        Some(p) => Arena::load(p),
        None => Arena::default_arena(),
    }
}

pub fn run_command(args: RunArgs, out: &mut dyn Write) -> Result<i32> {
    let arena = load(args.arena.as_ref())?;
    let opts = RunOptions {
        shard: args.shard.unwrap_or_else(Shard::all),
        concurrency: args.concurrency.filter(|&c| c > 0),
        fresh: args.fresh,
        out: args.out,
        progress: !args.quiet,
    };
    let outcome = run(&arena, &opts)?;
    let mut text = String::new();
    if !opts.shard.is_all() {
        text.push_str(&format!(
            "shard {} only (merge the shards with `arena merge` for the whole tournament)\n",
            opts.shard
        ));
    }
    text.push_str(&run::report(&outcome.tally, &outcome.summary));
    text.push_str(&format!(
        "played {} matches ({} resumed); results in {}\n",
        outcome.played,
        outcome.resumed,
        outcome.dir.display()
    ));
    out.write_all(text.as_bytes()).map_err(stdout_error)?;
    Ok(0)
}

pub fn merge_command(args: MergeArgs, out: &mut dyn Write) -> Result<i32> {
    let outcome = merge(&args.dirs, args.out)?;
    let text = format!(
        "{}merged {} folders, {} matches; results in {}\n",
        run::report(&outcome.tally, &outcome.summary),
        args.dirs.len(),
        outcome.matches,
        outcome.dir.display()
    );
    out.write_all(text.as_bytes()).map_err(stdout_error)?;
    Ok(0)
}

pub fn sprt_command(args: SprtArgs, out: &mut dyn Write) -> Result<i32> {
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
    let outcome = sprt::run_sprt(&arena, &test, args.concurrency, args.out, !args.quiet)?;
    let text = format!("{}results in {}\n", outcome.describe(), outcome.dir.display());
    out.write_all(text.as_bytes()).map_err(stdout_error)?;
    Ok(outcome.verdict.exit_code())
}
