//! `arena merge DIR...`: the shards of a run, checked and combined.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

#[derive(clap::Args, Debug)]
pub(super) struct MergeArgs {
    /// The shards' results folders.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where to write the merged results (default: the first folder's parent).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub(super) fn run(args: MergeArgs, out: &mut dyn Write) -> Result<i32> {
    let outcome = crate::tournament::merge(&args.dirs, args.out)?;
    let text = format!(
        "{}merged {} folders, {} matches; results in {}\n",
        crate::tournament::run::report(&outcome.tally, &outcome.summary),
        args.dirs.len(),
        outcome.matches,
        outcome.dir.display()
    );
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(0)
}
