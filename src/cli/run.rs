//! `arena run [ARENA.toml]`: a tournament.

use std::io::Write;
use std::path::PathBuf;

use crate::bot::external::{SandboxMode, sandbox};
use crate::bot::{BotSpec, Supervisor};
use crate::error::{Error, Result};
use crate::tournament::{Arena, RunOptions, Shard};

#[derive(clap::Args, Debug)]
pub(super) struct RunArgs {
    /// The arena file; without it the built-in default arena runs (Skynet Episode 2 bots).
    arena: Option<PathBuf>,
    /// Run only slice K of N (1-based), for several machines; merge with `arena merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Matches in flight (default: the arena's `concurrency`, else the number of cores).
    #[arg(short = 'j', long)]
    concurrency: Option<usize>,
    /// Discard the results already in the folder instead of resuming.
    #[arg(long)]
    fresh: bool,
    /// The results folder (default: `<output>/<name>`, plus `shard-K-of-N` for a shard).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// The sandbox of every external bot, whatever the arena file says: `auto`, `require` or
    /// `off` (docs/security.md).
    #[arg(long, value_name = "MODE")]
    sandbox: Option<SandboxMode>,
}

pub(super) fn run(args: RunArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    let mut arena = match &args.arena {
        Some(p) => Arena::load(p)?,
        None => Arena::default_arena()?,
    };
    if let Some(mode) = args.sandbox {
        for bot in &mut arena.bots {
            bot.external.sandbox = Some(mode);
        }
    }
    let externals = arena.bots.iter().filter(|b| matches!(b.spec, BotSpec::Command(_)));
    if let Some(warning) = sandbox::preflight(externals.map(|b| &b.external))? {
        eprintln!("warning: {warning}");
    }
    let opts = RunOptions {
        shard: args.shard.unwrap_or_else(Shard::all),
        concurrency: args.concurrency.filter(|&c| c > 0),
        fresh: args.fresh,
        out: args.out,
        progress: !args.quiet,
        supervisor: supervisor.clone(),
    };
    let outcome = crate::tournament::run(&arena, &opts)?;
    let mut text = String::new();
    if !opts.shard.is_all() {
        text.push_str(&format!(
            "shard {} only (merge the shards with `arena merge` for the whole tournament)\n",
            opts.shard
        ));
    }
    text.push_str(&crate::tournament::run::report(&outcome.tally, &outcome.summary));
    text.push_str(&format!(
        "played {} matches ({} resumed); results in {}\n",
        outcome.played,
        outcome.resumed,
        outcome.dir.display()
    ));
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(0)
}
