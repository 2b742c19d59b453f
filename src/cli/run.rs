//! `arena run [ARENA.toml]`: a tournament, reported as tables or as JSON.

use std::io::Write;
use std::path::PathBuf;

use crate::bot::external::{SandboxMode, sandbox};
use crate::bot::{BotSpec, Supervisor, TurnClock};
use crate::error::{Error, Result, exit};
use std::sync::Arc;

use super::progress::Progress;
use crate::tournament::{
    Arena, Events, ReplayPolicy, RunOptions, RunReport, Shard, Warning, WarningKind,
};

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
    /// Discard the results already in the folder instead of resuming (its `seed.key` stays, so
    /// the run plays the same matches again).
    #[arg(long)]
    fresh: bool,
    /// Draw the match seeds with the secret key in FILE (another folder's `seed.key`) instead
    /// of the folder's own: to replay a run elsewhere, compare two runs with `arena diff`, or
    /// give every machine's shard one key. A folder holding another key is refused (unless
    /// --fresh).
    #[arg(long, value_name = "FILE")]
    seed_key: Option<PathBuf>,
    /// The results folder (default: `<output>/<name>`, plus `shard-K-of-N` for a shard).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Which matches keep their replay in `<results>/replays/`: `none`, `faults` or `all`
    /// (default: the arena's `replays`, else `faults`).
    #[arg(long, value_name = "WHICH")]
    replays: Option<ReplayPolicy>,
    /// No progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Keep no external bot's stderr with its decisions in the replays (smaller replays),
    /// whatever the arena file's `stderr` says.
    #[arg(long)]
    no_stderr: bool,
    /// Print the report as one JSON document instead of tables.
    #[arg(long)]
    json: bool,
    /// Exit with code 5 when any match in the results ended by a bot's fault (a timeout, crash,
    /// illegal action, ...), once everything is written.
    #[arg(long)]
    strict: bool,
    /// The sandbox of every external bot, whatever the arena file says: `auto`, `require` or
    /// `off` (docs/security.md).
    #[arg(long, value_name = "MODE")]
    sandbox: Option<SandboxMode>,
    /// How every seat's turn time is measured, whatever the arena file says: `cpu` (the CPU
    /// time of the bot's processes, with a wall-clock cap) or `wall` (docs/external-bots.md).
    #[arg(long, value_name = "CLOCK")]
    clock: Option<TurnClock>,
    /// Show the bots removed from the arena file in the tables too, with their archived
    /// matches (summary.csv keeps the arena's bots only).
    #[arg(long)]
    retired: bool,
}

pub(super) fn run(args: RunArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    super::check_concurrency(args.concurrency)?;
    let mut arena = match &args.arena {
        Some(p) => Arena::load(p)?,
        None => Arena::default_arena()?,
    };
    if let Some(clock) = args.clock {
        arena.set_clock(clock);
    }
    if args.no_stderr {
        arena.drop_stderr();
    }
    if let Some(mode) = args.sandbox {
        for bot in &mut arena.bots {
            bot.external.sandbox = Some(mode);
        }
    }
    let externals = arena.bots.iter().filter(|b| matches!(b.spec, BotSpec::Command(_)));
    let sandbox_warning = sandbox::preflight(externals.map(|b| &b.external))?
        .map(|w| Warning::new(WarningKind::Sandbox, w));
    if let Some(warning) = &sandbox_warning {
        eprintln!("warning: {warning}");
    }
    let opts = RunOptions {
        shard: args.shard.unwrap_or_else(Shard::all),
        concurrency: args.concurrency,
        fresh: args.fresh,
        seed_key: args.seed_key,
        out: args.out,
        events: Events::to(Arc::new(Progress::new(!args.quiet))),
        supervisor: supervisor.clone(),
        replays: args.replays,
        retired: args.retired,
    };
    let mut report = crate::tournament::run(&arena, &opts)?;
    report.warnings.splice(0..0, sandbox_warning);
    if args.json {
        super::render::json(&report, out)?;
    } else {
        out.write_all(text(&report).as_bytes()).map_err(Error::stdout)?;
    }
    let faulted = args.strict && report.standings.faulted_matches() > 0;
    Ok(if faulted { exit::FAULTS } else { exit::OK })
}

fn text(report: &RunReport) -> String {
    let mut text = String::new();
    if let Some(shard) = &report.shard {
        text.push_str(&format!(
            "shard {shard} only (merge the shards with `arena merge` for the whole tournament)\n"
        ));
    }
    text.push_str(&super::render::standings(&report.standings));
    text.push_str(&format!(
        "played {} matches ({} resumed); results in {}\n",
        report.played,
        report.resumed,
        report.results.display()
    ));
    text
}

#[cfg(test)]
mod tests {
    use clap::{Args, Command};

    fn every_argument_has_help(command: Command) {
        let name = command.get_name().to_string();
        for arg in command.get_arguments() {
            let help = arg.get_help().map(std::string::ToString::to_string).unwrap_or_default();
            assert!(!help.trim().is_empty(), "`{name}`: argument `{}` has no help", arg.get_id());
        }
    }

    #[test]
    fn the_tournament_and_replay_commands_describe_every_argument() {
        every_argument_has_help(super::RunArgs::augment_args(Command::new("run")));
        every_argument_has_help(super::super::merge::MergeArgs::augment_args(Command::new(
            "merge",
        )));
        every_argument_has_help(super::super::sprt::SprtArgs::augment_args(Command::new("sprt")));
        every_argument_has_help(super::super::replay::ReplayArgs::augment_args(Command::new(
            "replay",
        )));
        every_argument_has_help(super::super::diff::DiffArgs::augment_args(Command::new("diff")));
    }
}
