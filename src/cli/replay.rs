//! `arena replay FILE [--verify] [--stderr]`: a replay's actions (with what each bot wrote to
//! stderr during each decision), or its verification against the rules.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

#[derive(clap::Args, Debug)]
pub(super) struct ReplayArgs {
    /// The replay file (JSON Lines, as `arena play --replay FILE` writes it).
    file: PathBuf,
    /// Play the actions through the rules again and check the recorded result.
    #[arg(long)]
    verify: bool,
    /// Under each action, what the bot wrote to stderr during that decision (and, at the end,
    /// the last lines of a bot whose failure ended the match).
    #[arg(long, conflicts_with = "verify")]
    stderr: bool,
    /// Print one JSON document: the replay (header, actions, result), or with --verify what the
    /// verification found.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: ReplayArgs, out: &mut dyn Write) -> Result<i32> {
    if args.verify {
        let verified = crate::replay::verify(&args.file)?;
        if args.json {
            super::render::json(&verified, out)?;
            return Ok(0);
        }
        writeln!(
            out,
            "{}: verified, {} actions, {}",
            args.file.display(),
            verified.turns,
            verified.summary.reason
        )
        .map_err(Error::stdout)?;
        if let Some(what) = &verified.unverifiable {
            writeln!(out, "not verifiable: {what}").map_err(Error::stdout)?;
        }
        return Ok(0);
    }
    let r = crate::replay::read(&args.file)?;
    if args.json {
        super::render::json(&r, out)?;
        return Ok(0);
    }
    let h = &r.header;
    writeln!(out, "{} {} on {} (seed {})", h.game, h.variant, h.map.name, h.seed)
        .map_err(Error::stdout)?;
    for (i, a) in r.actions.iter().enumerate() {
        writeln!(out, "{:>4} {:<8} {}", i + 1, a.role, a.action).map_err(Error::stdout)?;
        if args.stderr {
            print_stderr(a.stderr.as_deref().unwrap_or_default(), out)?;
        }
    }
    let s = &r.result;
    writeln!(out, "{} ({}): {}", s.winner.as_deref().unwrap_or("draw"), s.termination, s.reason)
        .map_err(Error::stdout)?;
    if args.stderr
        && let Some(culprit) = s.culprit
        && let Some(report) = s.reports.get(culprit).filter(|r| !r.stderr_tail.is_empty())
    {
        let role = s.culprit_role.as_deref().unwrap_or_default();
        writeln!(out, "last stderr lines of {role}:").map_err(Error::stdout)?;
        print_stderr(&report.stderr_tail.join("\n"), out)?;
    }
    Ok(0)
}

/// A decision's stderr, indented under its action and marked off, so it never reads as an
/// action.
fn print_stderr(text: &str, out: &mut dyn Write) -> Result<()> {
    for line in text.lines() {
        writeln!(out, "       | {line}").map_err(Error::stdout)?;
    }
    Ok(())
}
