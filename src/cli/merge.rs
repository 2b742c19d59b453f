//! `arena merge DIR...`: the shards of a run, checked and combined, reported as tables or JSON;
//! `--status`: how far the shards got, and what finishes them.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result, exit};
use crate::tournament::shard_status::ranges;
use crate::tournament::{ShardState, ShardStatus};

#[derive(clap::Args, Debug)]
pub(super) struct MergeArgs {
    /// The shards' results folders (`arena run --shard K/N` wrote them).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where to write the merged results (default: the first folder's parent).
    #[arg(long, conflicts_with = "status")]
    out: Option<PathBuf>,
    /// Merge nothing: say which shards are complete, partial or missing and how to finish them
    /// (exit code 0 when all are complete, else 1).
    #[arg(long)]
    status: bool,
    /// Print the report as one JSON document instead of tables.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: MergeArgs, out: &mut dyn Write) -> Result<i32> {
    if args.status {
        let status = crate::tournament::shard_status(&args.dirs)?;
        if args.json {
            super::render::json(&status, out)?;
        } else {
            out.write_all(describe_status(&status).as_bytes()).map_err(Error::stdout)?;
        }
        return Ok(if status.complete { exit::OK } else { exit::CHECK_FAILED });
    }
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

/// The shards by state, then the commands that finish the unfinished ones.
fn describe_status(s: &ShardStatus) -> String {
    let mut text = format!(
        "{}: {} of {} matches in {} shards (fingerprint {})\n",
        s.arena, s.played, s.planned, s.shards, s.fingerprint
    );
    for (state, name) in [
        (ShardState::Complete, "complete"),
        (ShardState::Partial, "partial"),
        (ShardState::Missing, "missing"),
    ] {
        let shards: Vec<_> = s.in_state(state).collect();
        if shards.is_empty() {
            continue;
        }
        let what = match state {
            ShardState::Complete => ranges(shards.iter().map(|p| p.index)),
            ShardState::Partial => shards
                .iter()
                .map(|p| format!("{} ({} of {})", p.index, p.played, p.planned))
                .collect::<Vec<_>>()
                .join(", "),
            ShardState::Missing => {
                format!("{} (no folder)", ranges(shards.iter().map(|p| p.index)))
            }
        };
        let plural = if shards.len() == 1 { "shard: " } else { "shards:" };
        text.push_str(&format!("  {name:<8} {:>4} {plural} {what}\n", shards.len()));
    }
    let unfinished: Vec<_> =
        s.progress.iter().filter(|p| p.state != ShardState::Complete).collect();
    let glob = |dir: &Option<PathBuf>| match dir.as_ref().and_then(|d| d.parent()) {
        Some(parent) => parent.join(format!("shard-*-of-{}", s.shards)).display().to_string(),
        None => format!("<the shards' folders> (shard-*-of-{})", s.shards),
    };
    let merge = format!("arena merge {}", glob(&s.progress.iter().find_map(|p| p.folder.clone())));
    if unfinished.is_empty() {
        text.push_str(&format!("every shard is complete: {merge}\n"));
        return text;
    }
    text.push_str(&format!(
        "to finish (a partial shard resumes; ARENA.toml is the arena file of `{}`):\n",
        s.arena
    ));
    for p in &unfinished {
        let out = p.folder.as_ref().map(|d| format!(" --out {}", d.display())).unwrap_or_default();
        text.push_str(&format!("  arena run ARENA.toml --shard {}/{}{out}\n", p.index, s.shards));
    }
    text.push_str(&format!(
        "or as a Slurm array: sbatch --array={} JOB_SCRIPT\nthen: {merge}\n",
        ranges(unfinished.iter().map(|p| p.index))
    ));
    text
}
