//! `arena view REPLAY.jsonl [-o FILE.html] [--open] [--analyze [--positions N] [--time-ms MS]]`:
//! a replay as one self-contained HTML page, its timeline marking the decisions the exact solver
//! calls blunders and inaccuracies when asked.

use std::io::Write;
use std::path::PathBuf;

use crate::analysis::Limits;
use crate::error::{Error, Result};
use crate::view::Analysis;

#[derive(clap::Args, Debug)]
pub(super) struct ViewArgs {
    /// The replay (JSON Lines, as `arena play --replay` writes it).
    replay: PathBuf,
    /// Where to write the page (default: the replay's path with `.html`).
    #[arg(short = 'o', long = "output", value_name = "FILE.html")]
    output: Option<PathBuf>,
    /// Open the page in the default browser (`xdg-open`, `open` on macOS).
    #[arg(long)]
    open: bool,
    /// Rate every decision against the game's exact solver (as `arena analyze`) and mark the
    /// blunders, inaccuracies and unsettled positions on the timeline. Skynet Episode 2,
    /// Painters' Duel and Greedy Spiders only.
    #[arg(long)]
    analyze: bool,
    /// Solver positions per decision with --analyze (default 1000000, as tournaments use): the
    /// same count gives the same page on any machine.
    #[arg(long, value_name = "N", requires = "analyze")]
    positions: Option<u64>,
    /// Also stop each decision's search after this many milliseconds (the page may then differ
    /// from run to run).
    #[arg(long, value_name = "MS", requires = "analyze")]
    time_ms: Option<u64>,
}

pub(super) fn run(args: ViewArgs, out: &mut dyn Write) -> Result<i32> {
    let output = args.output.unwrap_or_else(|| crate::view::default_output(&args.replay));
    let analysis = if args.analyze {
        let positions = match (args.positions, args.time_ms) {
            (None, None) => Some(crate::tournament::results::analysis::POSITIONS),
            (positions, _) => positions,
        };
        Analysis::Required(Limits { time_ms: args.time_ms, positions })
    } else {
        Analysis::Off
    };
    crate::view::write_view(&args.replay, &output, analysis)?;
    writeln!(out, "{}", output.display()).map_err(Error::stdout)?;
    if args.open {
        open_in_browser(&output)?;
    }
    Ok(0)
}

/// Hands a page to the desktop's browser; its own errors are the opener's to report.
pub(super) fn open_in_browser(page: &std::path::Path) -> Result<()> {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    std::process::Command::new(opener)
        .arg(page)
        .stdin(std::process::Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| Error::Io { context: format!("failed to run `{opener}`"), source: e })
}
