//! `arena merge DIR...`: the shards of a run, checked and combined, reported as tables or JSON.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

#[derive(clap::Args, Debug)]
pub(super) struct MergeArgs {
    /// The shards' results folders (`arena run --shard K/N` wrote them).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where to write the merged results (default: the first folder's parent).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the report as one JSON document instead of tables.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: MergeArgs, out: &mut dyn Write) -> Result<i32> {
    let report = crate::tournament::merge(&args.dirs, args.out)?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        super::render::json(&report, out)?;
        return Ok(0);
    }
    let text = format!(
        "{}merged {} folders, {} matches; results in {}\n",
        super::render::standings(&report.standings),
        report.folders,
        report.matches,
        report.results.display()
    );
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(0)
}
