//! `arena view REPLAY.jsonl [-o FILE.html] [--open]`: a replay as one self-contained HTML page.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

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
}

pub(super) fn run(args: ViewArgs, out: &mut dyn Write) -> Result<i32> {
    let output = args.output.unwrap_or_else(|| crate::view::default_output(&args.replay));
    crate::view::write_view(&args.replay, &output)?;
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
