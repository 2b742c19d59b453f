//! `replays/<match id>.jsonl`: the replays a run keeps, in the replay format of
//! [`crate::replay`], so a fault can be read turn by turn and a changed result (`arena diff`)
//! seen, not guessed at.
//!
//! A replay is written before its match's row, under a temporary name and renamed into place, so
//! a run killed at any instant leaves complete replays only, and never a row whose replay is
//! missing. A replay whose row is missing (the kill landed between the two) is of a match the
//! resume plays again: the resume deletes it first, so a replay in the folder always belongs to a
//! row.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::REPLAYS_DIR;
use crate::bot::Termination;
use crate::error::{Error, Result};
use crate::matches::PlayedMatch;

/// Which matches of a tournament keep their replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum ReplayPolicy {
    /// None.
    None,
    /// The matches a bot's fault ended (timeout, crash, illegal action, ...): the ones a user
    /// must read to know why.
    #[default]
    Faults,
    /// Every match.
    All,
}

impl ReplayPolicy {
    /// The policy's name in arena files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplayPolicy::None => "none",
            ReplayPolicy::Faults => "faults",
            ReplayPolicy::All => "all",
        }
    }

    fn keeps(self, termination: Termination) -> bool {
        match self {
            ReplayPolicy::None => false,
            ReplayPolicy::Faults => termination.is_fault(),
            ReplayPolicy::All => true,
        }
    }
}

/// A name that is not `none`, `faults` or `all`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not `none`, `faults` or `all`")]
pub struct BadReplayPolicy(pub String);

impl TryFrom<String> for ReplayPolicy {
    type Error = BadReplayPolicy;

    fn try_from(s: String) -> std::result::Result<ReplayPolicy, BadReplayPolicy> {
        s.parse()
    }
}

impl std::str::FromStr for ReplayPolicy {
    type Err = BadReplayPolicy;

    fn from_str(s: &str) -> std::result::Result<ReplayPolicy, BadReplayPolicy> {
        match s {
            "none" => Ok(ReplayPolicy::None),
            "faults" => Ok(ReplayPolicy::Faults),
            "all" => Ok(ReplayPolicy::All),
            _ => Err(BadReplayPolicy(s.to_string())),
        }
    }
}

/// The replay of match `id` in a results folder.
pub(crate) fn replay_path(results: &Path, id: u64) -> PathBuf {
    results.join(REPLAYS_DIR).join(format!("{id}.jsonl"))
}

/// The match ids of the replays in a results folder (none when it has no `replays/`).
pub(crate) fn kept_ids(results: &Path) -> Result<BTreeSet<u64>> {
    Ok(file_names(results)?
        .iter()
        .filter_map(|name| name.strip_suffix(".jsonl")?.parse::<u64>().ok())
        .collect())
}

/// The file names in a results folder's `replays/` (kept replays and the viewer pages drawn of
/// them); empty when it has none.
pub(crate) fn file_names(results: &Path) -> Result<BTreeSet<String>> {
    let folder = results.join(REPLAYS_DIR);
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(Error::read(&folder, e)),
    };
    let mut names = BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::read(&folder, e))?;
        names.insert(entry.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// Writes the replays a run keeps.
pub(crate) struct ReplayKeeper {
    folder: PathBuf,
    policy: ReplayPolicy,
}

impl ReplayKeeper {
    /// Prepares `results/replays/` for a run that has the rows `done`: deletes what a killed run
    /// left (temporary files, replays without a row, and their viewer pages), and creates the
    /// folder if the policy keeps anything.
    pub(crate) fn open(
        results: &Path,
        policy: ReplayPolicy,
        has_row: &dyn Fn(u64) -> bool,
    ) -> Result<ReplayKeeper> {
        let folder = results.join(REPLAYS_DIR);
        match std::fs::read_dir(&folder) {
            Ok(entries) => {
                for entry in entries {
                    let entry = entry.map_err(|e| Error::read(&folder, e))?;
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    let orphan = name
                        .strip_suffix(".jsonl")
                        .or_else(|| name.strip_suffix(".html"))
                        .and_then(|id| id.parse::<u64>().ok())
                        .is_some_and(|id| !has_row(id));
                    if orphan || name.ends_with(".tmp") {
                        let path = entry.path();
                        std::fs::remove_file(&path).map_err(|e| Error::write(&path, e))?;
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::read(&folder, e)),
        }
        if policy != ReplayPolicy::None {
            std::fs::create_dir_all(&folder).map_err(|e| Error::write(&folder, e))?;
        }
        Ok(ReplayKeeper { folder, policy })
    }

    /// Writes match `id`'s replay if the policy keeps it: whole, under its final name, or not at
    /// all. Call it before the match's row is appended.
    pub(crate) fn keep(&self, id: u64, played: &PlayedMatch) -> Result<()> {
        if !self.policy.keeps(played.summary.termination) {
            return Ok(());
        }
        let path = self.folder.join(format!("{id}.jsonl"));
        let tmp = self.folder.join(format!("{id}.jsonl.tmp"));
        played.write_replay(&tmp)?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::write(&path, e))
    }
}

/// Puts `source` at `target`: a hard link when both are on one filesystem (a merge of shards on
/// a shared disk costs no space), else a copy.
pub(crate) fn link_or_copy(source: &Path, target: &Path) -> Result<()> {
    if std::fs::hard_link(source, target).is_ok() {
        return Ok(());
    }
    std::fs::copy(source, target).map(|_| ()).map_err(|e| Error::write(target, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_read_as_written_and_keep_what_they_say() {
        for p in [ReplayPolicy::None, ReplayPolicy::Faults, ReplayPolicy::All] {
            assert_eq!(p.as_str().parse::<ReplayPolicy>(), Ok(p));
        }
        assert!("some".parse::<ReplayPolicy>().unwrap_err().to_string().contains("`faults`"));
        assert_eq!(ReplayPolicy::default(), ReplayPolicy::Faults);
        assert!(!ReplayPolicy::Faults.keeps(Termination::Normal));
        assert!(ReplayPolicy::Faults.keeps(Termination::Timeout));
        assert!(ReplayPolicy::All.keeps(Termination::Normal));
        assert!(!ReplayPolicy::None.keeps(Termination::Crash));
    }

    #[test]
    fn opening_deletes_what_a_killed_run_left_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(REPLAYS_DIR);
        std::fs::create_dir(&folder).unwrap();
        for name in ["1.jsonl", "1.html", "2.jsonl", "2.html", "3.jsonl.tmp", "notes.txt"] {
            std::fs::write(folder.join(name), "x").unwrap();
        }
        ReplayKeeper::open(dir.path(), ReplayPolicy::None, &|id| id == 1).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, vec!["1.html", "1.jsonl", "notes.txt"]);
        assert_eq!(kept_ids(dir.path()).unwrap(), BTreeSet::from([1]));
        assert!(kept_ids(&dir.path().join("nowhere")).unwrap().is_empty());
    }
}
