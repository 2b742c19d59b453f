//! `arena merge --status`: which shards of a sharded run are complete, partial or missing, read
//! from their folders alone, and what finishes the others — the question a cluster job that
//! failed or was cancelled leaves behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::results::matches::{IdSet, read_rows};
use super::results::{MATCHES_FILE, Meta, corrupt};
use super::schedule::Shard;
use crate::error::{Error, Result};
// The status asks the plan which matches each shard holds, never their seeds: no key needed.
use crate::seed::SeedKey;

/// Where a shard stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShardState {
    /// Every match of the shard is recorded.
    Complete,
    /// Some are: the shard is running, or stopped (a time limit, a kill); a rerun resumes it.
    Partial,
    /// No folder of this shard was given: it never started, or its folder is elsewhere.
    Missing,
}

/// One shard of the run.
#[derive(Clone, Debug, Serialize)]
pub struct ShardProgress {
    /// `K` of `K/N`.
    pub index: u64,
    pub state: ShardState,
    /// Matches recorded in its folder.
    pub played: u64,
    /// Matches it plays.
    pub planned: u64,
    /// Its folder: the one given, or for a missing shard where its siblings' naming puts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<PathBuf>,
}

/// The shards of one run (`--json` prints it).
#[derive(Clone, Debug, Serialize)]
pub struct ShardStatus {
    pub arena: String,
    pub fingerprint: String,
    /// `N`: the number of shards.
    pub shards: u64,
    /// Matches in the whole run.
    pub planned: u64,
    /// Matches recorded in all the shards' folders.
    pub played: u64,
    /// Every shard, in order.
    pub progress: Vec<ShardProgress>,
    /// Every shard is complete: `arena merge` will take them.
    pub complete: bool,
}

impl ShardStatus {
    /// The shards in a state.
    pub fn in_state(&self, state: ShardState) -> impl Iterator<Item = &ShardProgress> {
        self.progress.iter().filter(move |p| p.state == state)
    }
}

/// Reads the shards' folders of one run: their `meta.json` says which shard of how many each is,
/// their `matches.csv` how far it got. Shards of `1..=N` without a folder are missing.
pub fn shard_status(dirs: &[PathBuf]) -> Result<ShardStatus> {
    let first =
        dirs.first().ok_or_else(|| Error::Usage("--status needs the shards' folders".into()))?;
    let mut reference: Option<(Meta, u64)> = None;
    let mut given: BTreeMap<u64, (&Path, u64)> = BTreeMap::new();
    for dir in dirs {
        let meta = Meta::read(dir)?;
        let Some(shard) = meta.shard.as_deref() else {
            return Err(Error::Usage(format!(
                "`{}` is not a shard's folder (its meta.json names no shard): give the folders \
                 `arena run --shard K/N` wrote",
                dir.display()
            )));
        };
        let shard: Shard = shard.parse().map_err(|e: super::schedule::BadShard| {
            corrupt(&dir.join(super::results::META_FILE), None, e.to_string())
        })?;
        match &reference {
            None => reference = Some((meta.clone(), shard.count)),
            Some((first_meta, count)) => {
                if (&meta.fingerprint, meta.planned)
                    != (&first_meta.fingerprint, first_meta.planned)
                {
                    return Err(corrupt(
                        dir,
                        None,
                        format!(
                            "comes from another config (fingerprint {}) than `{}` ({}): give one \
                             run's shards",
                            meta.fingerprint,
                            first.display(),
                            first_meta.fingerprint
                        ),
                    ));
                }
                if shard.count != *count {
                    return Err(Error::Usage(format!(
                        "`{}` is shard {shard}, `{}` one of {count}: give one run's shards (a \
                         glob such as shard-*-of-{count})",
                        dir.display(),
                        first.display()
                    )));
                }
            }
        }
        let played = recorded(dir, &meta)?;
        if let Some((other, _)) = given.insert(shard.index, (dir, played)) {
            return Err(Error::Usage(format!(
                "shard {shard} is given twice: `{}` and `{}`",
                other.display(),
                dir.display()
            )));
        }
    }
    let (meta, count) = reference.expect("at least one folder was read");
    let schedule = meta
        .inputs
        .as_ref()
        .filter(|inputs| inputs.version == crate::tournament::inputs::INPUTS_VERSION)
        .map(|inputs| inputs.schedule(&SeedKey::PUBLIC));
    // Where a missing shard's folder would be, when the given ones are named as `arena run` names
    // them.
    let sibling = |index: u64| -> Option<PathBuf> {
        let (&k, &(dir, _)) = given.iter().next()?;
        let parent = dir.parent()?;
        let named = dir.file_name()? == format!("shard-{k}-of-{count}").as_str();
        named.then(|| parent.join(format!("shard-{index}-of-{count}")))
    };
    let progress: Vec<ShardProgress> = (1..=count)
        .map(|index| {
            // The shard's share of the plan its folders record (schedule::Schedule::shard_len);
            // folders of an earlier format: every Nth match.
            let planned = schedule.as_ref().map_or((meta.planned + count - index) / count, |s| {
                s.shard_len(Shard { index, count })
            });
            match given.get(&index) {
                Some(&(dir, played)) => ShardProgress {
                    index,
                    state: if played >= planned {
                        ShardState::Complete
                    } else {
                        ShardState::Partial
                    },
                    played,
                    planned,
                    folder: Some(dir.to_path_buf()),
                },
                None => ShardProgress {
                    index,
                    state: ShardState::Missing,
                    played: 0,
                    planned,
                    folder: sibling(index),
                },
            }
        })
        .collect();
    Ok(ShardStatus {
        arena: meta.arena,
        fingerprint: meta.fingerprint,
        shards: count,
        planned: meta.planned,
        played: progress.iter().map(|p| p.played).sum(),
        complete: progress.iter().all(|p| p.state == ShardState::Complete),
        progress,
    })
}

/// The matches a shard's folder records (complete rows; a torn last line is not one).
fn recorded(dir: &Path, meta: &Meta) -> Result<u64> {
    let path = dir.join(MATCHES_FILE);
    if !path.exists() {
        return Ok(0);
    }
    // A row's place in the plan: found from its game and seats (match ids are drawn from them),
    // or, in folders of an earlier format, its id.
    let schedule = meta
        .inputs
        .as_ref()
        .filter(|inputs| inputs.version == crate::tournament::inputs::INPUTS_VERSION)
        .map(|inputs| inputs.schedule(&SeedKey::PUBLIC));
    let mut seen =
        IdSet::new(schedule.as_ref().map_or(meta.planned, super::schedule::Schedule::total));
    read_rows(&path, meta.roles.len(), |line, row| {
        let index = match &schedule {
            Some(s) => {
                let seats: Vec<&str> = row.seats.iter().map(|s| s.bot.as_str()).collect();
                s.find(row.game, &seats)
            }
            None => Some(row.id).filter(|&id| id < meta.planned),
        };
        let Some(index) = index else {
            return Err(corrupt(&path, Some(line), format!("match {} is not planned", row.id)));
        };
        if !seen.insert(index) {
            return Err(corrupt(&path, Some(line), format!("match {} is recorded twice", row.id)));
        }
        Ok(())
    })?;
    Ok(seen.len())
}

/// `1-4, 6, 8-9`: shard numbers as ranges.
pub(crate) fn ranges(indices: impl IntoIterator<Item = u64>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(u64, u64)> = None;
    let flush = |run: (u64, u64), out: &mut Vec<String>| {
        out.push(if run.0 == run.1 { run.0.to_string() } else { format!("{}-{}", run.0, run.1) });
    };
    for i in indices {
        run = match run {
            Some((a, b)) if i == b + 1 => Some((a, i)),
            Some(r) => {
                flush(r, &mut out);
                Some((i, i))
            }
            None => Some((i, i)),
        };
    }
    if let Some(r) = run {
        flush(r, &mut out);
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_numbers_read_as_ranges() {
        assert_eq!(ranges([1, 2, 3, 4, 6, 8, 9]), "1-4,6,8-9");
        assert_eq!(ranges([5]), "5");
        assert_eq!(ranges([]), "");
    }
}
