//! `arena merge`: the results folders of a sharded run, checked and combined into the folder one
//! run would have written.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::bot_files::changed_bots;
use super::engine::{Warning, WarningKind};
use super::inputs::{BotInputs, INPUTS_VERSION, RowCheck, RunInputs};
use super::results::matches::{IdSet, complete_len, format_header, read_rows};
use super::results::meta::Kind;
use super::results::metrics;
use super::results::replays::{kept_ids, link_or_copy, replay_path};
use super::results::seed_key::{SEED_KEY_FILE, install_key, other_key, read_key};
use super::results::{MATCHES_FILE, Meta, REPLAYS_DIR, corrupt, lock_dir, write_summaries};
use super::schedule::Shard;
use super::stats::standings::Standings;
use super::stats::tally::Tally;
use crate::error::{Error, Result};
use crate::seed::SeedKey;

/// What `arena merge` did and what the merged results say (`--json` prints it).
#[derive(Clone, Debug, Serialize)]
pub struct MergeReport {
    /// The arena's name.
    pub arena: String,
    /// The merged results folder.
    pub results: PathBuf,
    /// The folders merged.
    pub folders: usize,
    /// Matches in the merged results: every planned match, once.
    pub matches: u64,
    pub standings: Standings,
    /// What the merge could not check (also on stderr).
    pub warnings: Vec<Warning>,
}

/// Merges shard folders: checks that they come from one config and hold every planned match
/// exactly once, then writes one `matches.csv`, the summaries a single run would write, one
/// `metrics.csv`, and the shards' replays (hard-linked where the filesystem allows, else copied).
pub fn merge(dirs: &[PathBuf], out: Option<PathBuf>) -> Result<MergeReport> {
    let first =
        dirs.first().ok_or_else(|| Error::Usage("merge needs at least one folder".into()))?;
    let out = match out {
        Some(o) => o,
        None => first
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(".")),
    };
    let metas: Vec<Meta> = dirs.iter().map(|d| Meta::read(d)).collect::<Result<_>>()?;
    let reference = &metas[0];
    let key = shards_key(dirs, &metas)?;
    for (dir, meta) in dirs.iter().zip(&metas) {
        if meta.kind != Kind::Tournament {
            return Err(Error::Usage(format!(
                "`{}` holds an SPRT's games: `arena merge` merges the shards of a tournament",
                dir.display()
            )));
        }
        if meta.arena_results != reference.arena_results {
            return Err(corrupt(
                dir,
                None,
                format!(
                    "is in results format {}, `{}` in format {}: shards of one run come from one \
                     version of arena",
                    meta.arena_results,
                    first.display(),
                    reference.arena_results
                ),
            ));
        }
        if (&meta.fingerprint, meta.planned, &meta.bots, &meta.roles)
            != (&reference.fingerprint, reference.planned, &reference.bots, &reference.roles)
        {
            return Err(corrupt(
                dir,
                None,
                format!(
                    "comes from another config (fingerprint {}) than `{}` ({}){}",
                    meta.fingerprint,
                    first.display(),
                    reference.fingerprint,
                    other_builds(reference, meta)
                ),
            ));
        }
        if same_dir(dir, &out) {
            return Err(Error::Usage(format!(
                "the merge would overwrite its input `{}`; choose another --out",
                dir.display()
            )));
        }
    }
    let seats = reference.roles.len();
    let planned = reference.planned;
    // Every row is checked against the plan the folders record, as a resume checks it; folders
    // of the formats before the plan was recorded (or before match ids were drawn from the
    // matches' identities) can only be checked for ids.
    let mut check = reference
        .inputs
        .as_ref()
        .filter(|inputs| inputs.version == INPUTS_VERSION)
        .zip(key.as_ref())
        .map(|(inputs, key)| RowCheck::new(inputs, key));
    let mut warnings = Vec::new();
    if check.is_none() {
        warnings.push(Warning::new(
            WarningKind::UncheckedRows,
            format!(
                "the rows of these folders (results format {}) are not checked against their \
                 plan: arena records the plan from results format 3 on",
                reference.arena_results
            ),
        ));
    }
    let mut unchecked = IdSet::new(planned);
    let mut tally = Tally::new(reference.bots.clone(), reference.roles.clone());
    // The shards' replays of rows they hold (a replay without its row is not a result).
    let mut replays: Vec<(&Path, u64)> = Vec::new();
    for (dir, meta) in dirs.iter().zip(&metas) {
        let path = dir.join(MATCHES_FILE);
        let shard = match &meta.shard {
            Some(s) => {
                s.parse::<Shard>().map_err(|e| corrupt(dir, None, format!("meta.json: {e}")))?
            }
            None => Shard::all(),
        };
        let kept = kept_ids(dir)?;
        read_rows(&path, seats, |line, row| {
            let fail = |m: String| corrupt(&path, Some(line), m);
            let problem = match &mut check {
                Some(check) => check.problem(shard, &row),
                None if row.id >= planned => {
                    Some(format!("match {} is not in the schedule", row.id))
                }
                None if !unchecked.insert(row.id) => {
                    Some(format!("match {} is recorded more than once", row.id))
                }
                None => None,
            };
            if let Some(problem) = problem {
                return Err(fail(problem));
            }
            tally.add(&row.placing(&reference.bots).map_err(|e| fail(e.to_string()))?);
            if kept.contains(&row.id) {
                replays.push((dir, row.id));
            }
            Ok(())
        })?;
    }
    let (seen, id_of): (IdSet, Box<dyn Fn(u64) -> u64>) = match check {
        Some(check) => {
            let schedule = check.schedule().clone();
            (check.into_seen(), Box::new(move |index| schedule.get(index).id))
        }
        None => (unchecked, Box::new(|id| id)),
    };
    if seen.len() != planned {
        let missing: Vec<String> = (0..planned)
            .filter(|&index| !seen.contains(index))
            .take(10)
            .map(|index| id_of(index).to_string())
            .collect();
        // Named by the first folder: the set of folders as a whole is incomplete.
        return Err(corrupt(
            first,
            None,
            format!(
                "{} of {planned} planned matches are missing from the {} folders (ids {}{}); \
                 finish the shards first",
                planned - seen.len(),
                dirs.len(),
                missing.join(", "),
                if planned - seen.len() > 10 { ", ..." } else { "" }
            ),
        ));
    }

    // One matches.csv, the shards' rows one after the other, and the key they were played with.
    std::fs::create_dir_all(&out).map_err(|e| Error::write(&out, e))?;
    let _lock = lock_dir(&out)?;
    if let Some(key) = &key {
        install_key(&out, key, &first.join(SEED_KEY_FILE))?;
    }
    let out_replays = out.join(REPLAYS_DIR);
    if out_replays.exists() {
        std::fs::remove_dir_all(&out_replays).map_err(|e| Error::write(&out_replays, e))?;
    }
    if !replays.is_empty() {
        std::fs::create_dir(&out_replays).map_err(|e| Error::write(&out_replays, e))?;
    }
    for (dir, id) in replays {
        link_or_copy(&replay_path(dir, id), &replay_path(&out, id))?;
    }
    let merged = out.join(MATCHES_FILE);
    let tmp = merged.with_extension("csv.tmp");
    {
        let mut w = std::fs::File::create(&tmp).map_err(|e| Error::write(&tmp, e))?;
        // The shards' own header (they share their format), so their rows fit it.
        let mut header_written = false;
        for dir in dirs {
            let path = dir.join(MATCHES_FILE);
            let complete = complete_len(&path)?;
            let mut r = std::io::BufReader::new(
                std::fs::File::open(&path).map_err(|e| Error::read(&path, e))?.take(complete),
            );
            let mut header = String::new();
            std::io::BufRead::read_line(&mut r, &mut header).map_err(|e| Error::read(&path, e))?;
            if !header_written && header.ends_with('\n') {
                w.write_all(header.as_bytes()).map_err(|e| Error::write(&tmp, e))?;
                header_written = true;
            }
            std::io::copy(&mut r, &mut w).map_err(|e| Error::write(&tmp, e))?;
        }
        if !header_written {
            w.write_all(format_header(seats).as_bytes()).map_err(|e| Error::write(&tmp, e))?;
        }
        w.sync_all().map_err(|e| Error::write(&tmp, e))?;
    }
    std::fs::rename(&tmp, &merged).map_err(|e| Error::write(&merged, e))?;
    // The shards' metrics, as one run would have sorted them.
    let mut metric_rows = Vec::new();
    for dir in dirs {
        metric_rows.extend(metrics::read(dir)?);
    }
    metrics::write(&out, metric_rows)?;
    let meta = Meta { shard: None, ..reference.clone() };
    meta.write(&out)?;
    let standings = Standings::of(&tally);
    write_summaries(&out, &standings)?;
    crate::view::report::write_report(&out)?;
    Ok(MergeReport {
        arena: reference.arena.clone(),
        results: out,
        folders: dirs.len(),
        matches: planned,
        standings,
        warnings,
    })
}

/// The one key of the shards `dirs` (of `metas`): each folder's `seed.key` must be the key its
/// rows were played with, and the same in every folder. `None` for folders of the formats before
/// keys (their rows are not checked against a plan).
fn shards_key(dirs: &[PathBuf], metas: &[Meta]) -> Result<Option<SeedKey>> {
    let mut found: Option<(SeedKey, &Path)> = None;
    for (dir, meta) in dirs.iter().zip(metas) {
        let Some(id) = meta.inputs.as_ref().and_then(|i| i.plan.seed_key.as_ref()) else {
            continue;
        };
        let path = dir.join(SEED_KEY_FILE);
        let key = read_key(dir)?.ok_or_else(|| {
            corrupt(
                &path,
                None,
                format!(
                    "is missing: the folder's rows were played with seed key {id}, and their \
                     seeds cannot be checked without it; put the run's seed.key back"
                ),
            )
        })?;
        if key.id() != *id {
            return Err(corrupt(
                &path,
                None,
                format!(
                    "is seed key {}, but the rows `{}` records were played with key {id}; put \
                     back the seed.key they were played with",
                    key.id(),
                    dir.join(super::results::META_FILE).display()
                ),
            ));
        }
        match &found {
            Some((first, from)) if *first != key => {
                return Err(other_key(&path, &key, &from.join(SEED_KEY_FILE), first));
            }
            Some(_) => {}
            None => found = Some((key, dir)),
        }
    }
    Ok(found.map(|(key, _)| key))
}

/// How the inputs of two shards differ, for the message refusing them (empty if they are the
/// same, or a folder does not record them): the bots run in other builds, with their files,
/// then every other difference.
fn other_builds(reference: &Meta, meta: &Meta) -> String {
    let (Some(first), Some(this)) = (&reference.inputs, &meta.inputs) else {
        return String::new();
    };
    let identities = |i: &RunInputs| i.bots.iter().map(BotInputs::identity).collect::<Vec<_>>();
    let mut lines = changed_bots(&identities(first), &identities(this));
    lines.extend(this.changes_from(first).iter().map(ToString::to_string));
    if lines.is_empty() { String::new() } else { format!(": {}", lines.join("; ")) }
}

/// Whether two paths name one folder.
pub(super) fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
