//! `arena league run|add|retire`: a league that plays on, and its pool edited while it runs.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use super::progress::Progress;
use crate::bot::Supervisor;
use crate::error::{Error, Result, exit};
use crate::tournament::{Arena, Events, LeagueOptions, LeagueReport};

#[derive(clap::Args, Debug)]
pub(super) struct LeagueArgs {
    #[command(subcommand)]
    command: LeagueCommand,
}

#[derive(clap::Subcommand, Debug)]
enum LeagueCommand {
    /// Play a league (`format = "league"`) until --matches, --minutes or Ctrl-C; run it again to
    /// go on (it resumes, also after `kill -9`).
    Run(RunLeague),
    /// Add a bot to a league's arena file; a running league starts its games at once.
    Add(AddBot),
    /// Remove a bot from a league's arena file; its matches stay on disk (archived).
    Retire(RetireBot),
}

#[derive(clap::Args, Debug)]
struct RunLeague {
    /// The league's arena file (watched: an edit changes the pool while the league runs).
    arena: PathBuf,
    /// Stop once the league holds this many matches (those of earlier runs included).
    #[arg(long, value_name = "N")]
    matches: Option<u64>,
    /// Stop deciding matches after this many minutes.
    #[arg(long, value_name = "M")]
    minutes: Option<f64>,
    /// Matches in flight (default: the arena's `concurrency`, else the number of cores).
    #[arg(short = 'j', long)]
    concurrency: Option<usize>,
    /// The results folder (default: `<output>/<name>`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Print the report as one JSON document instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct AddBot {
    /// The league's arena file.
    arena: PathBuf,
    /// The bot's name.
    name: String,
    /// Its spec: a built-in bot's name, `cmd:COMMAND` or `cg:SOURCE`.
    spec: String,
    /// A role it plays (repeat for several; default: every role it can).
    #[arg(long = "role", value_name = "ROLE")]
    roles: Vec<String>,
}

#[derive(clap::Args, Debug)]
struct RetireBot {
    /// The league's arena file.
    arena: PathBuf,
    /// The bot's name.
    name: String,
}

pub(super) fn run(args: LeagueArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    match args.command {
        LeagueCommand::Run(a) => run_league(a, supervisor, out),
        LeagueCommand::Add(a) => {
            crate::tournament::add_bot(&a.arena, &a.name, &a.spec, &a.roles)?;
            writeln!(out, "bot `{}` added to {}", a.name, a.arena.display())
                .map_err(Error::stdout)?;
            Ok(exit::OK)
        }
        LeagueCommand::Retire(a) => {
            crate::tournament::retire_bot(&a.arena, &a.name)?;
            writeln!(out, "bot `{}` retired from {}", a.name, a.arena.display())
                .map_err(Error::stdout)?;
            Ok(exit::OK)
        }
    }
}

fn run_league(args: RunLeague, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    super::check_concurrency(args.concurrency)?;
    let arena = Arena::load(&args.arena)?;
    let opts = LeagueOptions {
        matches: args.matches,
        minutes: args.minutes,
        concurrency: args.concurrency,
        out: args.out,
        events: Events::to(Arc::new(Progress::new(!args.quiet))),
        supervisor: supervisor.clone(),
        watch: Some(args.arena.clone()),
    };
    let report = crate::tournament::league(&arena, &opts)?;
    if args.json {
        super::render::json(&report, out)?;
    } else {
        out.write_all(text(&report).as_bytes()).map_err(Error::stdout)?;
    }
    Ok(exit::OK)
}

fn text(report: &LeagueReport) -> String {
    let mut text = super::render::standings(&report.standings);
    for change in &report.changes {
        text.push_str(&format!("{change}\n"));
    }
    text.push_str(&format!(
        "played {} matches ({} in the league); results in {}\n",
        report.played,
        report.matches,
        report.results.display()
    ));
    text
}
