//! `arena report DIR [--open]`: a results folder's `report.html`.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

#[derive(clap::Args, Debug)]
pub(super) struct ReportArgs {
    /// The results folder (with `matches.csv`, `summary.csv`, `pairwise.csv`, `meta.json`).
    dir: PathBuf,
    /// Also draw every kept replay (`replays/<id>.jsonl`) that has no page yet, so the report
    /// links to pages; after a run with `analysis = true`, with the solver's marks on their
    /// timelines.
    #[arg(long)]
    views: bool,
    /// Open the report in the default browser.
    #[arg(long)]
    open: bool,
}

pub(super) fn run(args: ReportArgs, out: &mut dyn Write) -> Result<i32> {
    if args.views {
        let drawn = crate::view::report::write_replay_views(&args.dir)?;
        writeln!(out, "{drawn} replay page(s) written").map_err(Error::stdout)?;
    }
    let page = crate::view::report::write_report(&args.dir)?;
    writeln!(out, "{}", page.display()).map_err(Error::stdout)?;
    if args.open {
        super::view::open_in_browser(&page)?;
    }
    Ok(0)
}
