//! The command line: raw arguments become validated library calls here, reports become text or
//! JSON here, and errors become exit codes here. Only this module imports clap and prints for
//! humans; `main.rs` only calls [`main`]. One file per command.

// The one place of the library that prints (see `lib.rs`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod analyze;
mod bots;
mod check;
mod completions;
mod diff;
mod generate;
mod init;
mod league;
mod merge;
mod play;
mod progress;
mod render;
mod replay;
mod report;
mod risk;
mod run;
mod solve;
mod sprt;
mod view;

use std::io::Write;

use clap::{Parser, Subcommand};

use crate::bot::Supervisor;
use crate::bot::external::Interrupted;
use crate::error::{Error, Result, exit};

#[derive(Parser, Debug)]
#[command(
    name = "arena",
    version,
    about = "A referee engine and tournament harness for turn-based graph games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play one match and print who won, how, and in how many turns.
    Play(Box<play::PlayArgs>),
    /// Print a replay, or verify it against the rules with --verify.
    Replay(replay::ReplayArgs),
    /// List the built-in bots of each game.
    Bots(bots::BotsArgs),
    /// Check a bot before a tournament: `arena check SPEC --game G [--role R]` plays it on the
    /// game's shipped maps and prints a checklist (exit 0 = every check passed, 1 = one failed).
    Check(Box<check::CheckArgs>),
    /// Run a game's exact solver (`arena solve GAME --help`).
    Solve(solve::SolveArgs),
    /// Rate every decision of a replay against the game's exact solver: best, inaccuracy,
    /// blunder or unknown, and a summary per seat.
    Analyze(analyze::AnalyzeArgs),
    /// Run a tournament: `arena run [ARENA.toml]` (no file: the built-in default arena).
    Run(run::RunArgs),
    /// Write a commented arena file for a game that runs as it is: `arena init GAME [--out FILE]`.
    Init(init::InitArgs),
    /// Merge the results folders of a sharded run: `arena merge DIR...`.
    Merge(merge::MergeArgs),
    /// Compare two results folders match by match: `arena diff A B` (exit 0 = same, 1 = changed).
    Diff(diff::DiffArgs),
    /// Test a candidate against a baseline until an SPRT decides (exit 0 = H1, 1 = H0, 3 = none).
    Sprt(sprt::SprtArgs),
    /// A league that plays on and grows: `arena league run|add|retire ARENA.toml ...`.
    League(league::LeagueArgs),
    /// Risk tools: `arena risk paths --board B.toml --from X --to Y [--json]`.
    Risk(risk::RiskArgs),
    /// Print a seeded random map (`arena gen GAME --help` lists the settings).
    Gen(generate::GenArgs),
    /// Print a shell completion script: `arena completions bash > /etc/bash_completion.d/arena`.
    Completions(completions::CompletionsArgs),
    /// Print arena's manual page (roff), or write one page per command with --dir.
    Man(completions::ManArgs),
    /// Draw a replay as one self-contained HTML page: `arena view REPLAY.jsonl [-o FILE.html]`.
    View(view::ViewArgs),
    /// Write a results folder's `report.html`: `arena report DIR`.
    Report(report::ReportArgs),
}

/// Runs the command line; returns the exit code.
pub fn main() -> i32 {
    init_logging();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            let _ = writeln!(std::io::stderr(), "{}", clap_error_line(&e));
            return exit::INPUT;
        }
        Err(e) => {
            let _ = e.print();
            return exit::OK;
        }
    };
    let supervisor = Supervisor::new();
    if let Err(e) = supervisor.install_signal_handlers(report_and_exit) {
        tracing::warn!("cannot install the Ctrl-C handler: {e}");
    }
    let result = run(cli, &supervisor);
    if supervisor.is_stopping() {
        // A signal stopped the bots, and its handler ends arena with the signal's code: what the
        // interrupted command returned is not its result.
        loop {
            std::thread::park();
        }
    }
    match result {
        Ok(code) => code,
        // A reader that stopped reading (`arena ... | head`) is not an error worth a word.
        Err(e) if e.is_broken_pipe() => exit::OK,
        Err(e) => {
            eprintln!("error: {}", shorten_quotes(&e.to_string()));
            e.exit_code()
        }
    }
}

/// A command-line error as one line. A negative number (`--turn-ms -5`) reads to clap as an
/// unknown flag, and its tip (`use '-- -5'`) leads nowhere: no option of arena takes one.
fn clap_error_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::UnknownArgument
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg)
        && arg.parse::<f64>().is_ok_and(|n| n < 0.0)
    {
        return format!(
            "error: `{arg}`: a negative number, and no option of arena takes one (counts, limits \
             and times are 0 or more)"
        );
    }
    one_line(&e.to_string())
}

/// `-j` beyond the documented cap is refused before anything runs (`run` and `sprt`).
fn check_concurrency(j: Option<usize>) -> Result<()> {
    match j {
        Some(n) if n > crate::tournament::MAX_CONCURRENCY => Err(Error::Usage(format!(
            "-j {n}: at most {} matches at once (0 = the default)",
            crate::tournament::MAX_CONCURRENCY
        ))),
        _ => Ok(()),
    }
}

/// The longest quoted token an error shows whole; a longer one (a 3,000-digit "number" in a
/// map) keeps its start and says how long it was, so the message stays one readable line.
const MAX_QUOTED: usize = 80;

/// `message` with every `` `token` `` longer than [`MAX_QUOTED`] characters cut to its start.
fn shorten_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4096));
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let chars = part.chars().count();
        if i % 2 == 1 && chars > MAX_QUOTED {
            out.extend(part.chars().take(MAX_QUOTED - 20));
            out.push_str(&format!("… ({chars} characters)"));
        } else {
            out.push_str(part);
        }
    }
    out
}

/// A clap error as one line, like every other error: its lines joined, without the closing
/// "For more information, try '--help'." (the usage block it shows for some errors stays, joined).
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ARENA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

/// After a signal has stopped every bot: a word on stderr, and the exit code of the signal.
fn report_and_exit(interrupted: Interrupted) {
    // Not eprintln!: after a hang-up the terminal is gone, and a panic here would leave arena
    // parked forever instead of exiting.
    let _ = writeln!(
        std::io::stderr(),
        "arena: interrupted; stopped {} bot process group(s)",
        interrupted.stopped_groups
    );
    std::process::exit(interrupted.signal.exit_code());
}

fn run(cli: Cli, supervisor: &Supervisor) -> Result<i32> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Play(args) => play::run(*args, supervisor, &mut out),
        Command::Replay(args) => replay::run(args, &mut out),
        Command::Bots(args) => bots::run(args, &mut out),
        Command::Check(args) => check::run(*args, supervisor, &mut out),
        Command::Run(args) => run::run(args, supervisor, &mut out),
        Command::Init(args) => init::run(args, &mut out),
        Command::Merge(args) => merge::run(args, &mut out),
        Command::Diff(args) => diff::run(args, &mut out),
        Command::Sprt(args) => sprt::run(args, supervisor, &mut out),
        Command::League(args) => league::run(args, supervisor, &mut out),
        Command::Solve(args) => solve::run(args, &mut out),
        Command::Analyze(args) => analyze::run(args, &mut out),
        Command::Risk(args) => risk::run(args, &mut out),
        Command::Gen(args) => generate::run(args, &mut out),
        Command::Completions(args) => completions::completions(args, &mut out),
        Command::Man(args) => completions::man(args, &mut out),
        Command::View(args) => view::run(args, &mut out),
        Command::Report(args) => report::run(args, &mut out),
    }
}

/// Splits `KEY=VALUE`.
fn key_value(s: &str, what: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(Error::Usage(format!("{what} `{s}` is not KEY=VALUE"))),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::shorten_quotes;

    #[test]
    fn long_quoted_tokens_are_cut_and_short_ones_kept() {
        let long = "1".repeat(3000);
        let shown = shorten_quotes(&format!("map `m.txt`, line 4: found `{long}`, expected N"));
        let cut = "1".repeat(60);
        assert_eq!(
            shown,
            format!("map `m.txt`, line 4: found `{cut}… (3000 characters)`, expected N")
        );
        assert_eq!(shorten_quotes("a `b` c"), "a `b` c");
        // An unpaired backtick: the rest is kept as it is.
        assert_eq!(shorten_quotes("a `b"), "a `b");
    }

    /// Only the command line writes for people: the lint in `lib.rs` refuses the print macros
    /// elsewhere, and this refuses a handle to stdout or stderr (which the lint does not see).
    #[test]
    fn nothing_outside_the_command_line_prints() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("src/") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    if !path.ends_with("cli") {
                        walk(&path, found);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("main.rs")
                {
                    let text = std::fs::read_to_string(&path).expect("a source file");
                    for (i, line) in text.lines().enumerate() {
                        if ["io::stdout()", "io::stderr()"].iter().any(|h| line.contains(h)) {
                            found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                        }
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut found);
        assert!(found.is_empty(), "only src/cli writes to stdout or stderr:\n{}", found.join("\n"));
    }

    /// Every command and every argument a user can type is described in `--help` (and so in the
    /// man page and the completions), at every depth of the command tree.
    #[test]
    fn every_command_and_argument_has_a_help_line() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let path = format!("{path} {}", command.get_name()).trim().to_string();
            if command.get_about().is_none() && path != "arena" {
                missing.push(format!("`{path}` has no about line"));
            }
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                let help = arg.get_help().map(std::string::ToString::to_string).unwrap_or_default();
                if help.trim().is_empty() {
                    missing.push(format!("`{path}`: argument `{id}` has no help"));
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, &path, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "", &mut missing);
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }
}
