//! The results folder: the files a run leaves behind, how they are written so a kill never
//! corrupts them, and the lock that keeps two runs out of one folder.
//!
//! [`matches`] is `matches.csv`, the durable record of every match, appended as matches end;
//! [`summaries`] writes `summary.csv` and `pairwise.csv` from the standings; this module holds
//! `meta.json` (which config the rows belong to), the lock, and the atomic writes.

pub(crate) mod analysis;
pub(crate) mod matches;
pub(crate) mod replays;
pub(crate) mod summaries;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::bot_files::{BotFingerprint, changed_bots};
use super::stats::standings::Standings;
use crate::error::{Error, Result};

pub(crate) const MATCHES_FILE: &str = "matches.csv";
pub(crate) const META_FILE: &str = "meta.json";
pub(crate) const SUMMARY_FILE: &str = "summary.csv";
pub(crate) const PAIRWISE_FILE: &str = "pairwise.csv";
/// An SPRT's verdict, in its folder.
pub(crate) const SPRT_FILE: &str = "sprt.json";

/// The version of the files' layout. 2: `matches.csv` has the `seat*_max_turn_cpu_ms` columns.
/// A folder of an earlier version is still read (`merge`, `diff`, `report`) but not resumed.
pub(crate) const RESULTS_VERSION: u32 = 2;

/// A results folder whose content is not what arena wrote (edited, truncated, mixed).
pub(crate) fn corrupt(path: &Path, line: Option<u64>, message: impl Into<String>) -> Error {
    Error::Results {
        path: path.to_path_buf(),
        line: line.map(|l| l as usize),
        message: message.into(),
    }
}

/// `meta.json`: what a results folder holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Meta {
    pub(crate) arena_results: u32,
    pub(crate) arena: String,
    /// The config fingerprint ([`crate::tournament::Arena::fingerprint`]).
    pub(crate) fingerprint: String,
    /// Matches in the whole schedule (all shards).
    pub(crate) planned: u64,
    /// `K/N` for a shard's folder, absent for a whole run or a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shard: Option<String>,
    pub(crate) roles: Vec<String>,
    pub(crate) bots: Vec<String>,
    /// What each bot ran: the hashes of the files its spec names, or a built-in bot's arena
    /// version. Absent (`None`) in folders written before arena recorded it: such a folder cannot
    /// tell whether its bots are this run's, so a run does not resume it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bot_files: Option<Vec<BotFingerprint>>,
}

impl Meta {
    pub(crate) fn read(dir: &Path) -> Result<Meta> {
        let (path, text) = read_meta_text(dir)?;
        serde_json::from_str(&text)
            .map_err(|e| corrupt(&path, None, format!("not a results meta file: {e}")))
    }

    pub(crate) fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(META_FILE);
        let text = serde_json::to_string_pretty(self).expect("meta serializes") + "\n";
        write_atomically(&path, text.as_bytes())
    }
}

/// The path and text of a results folder's `meta.json`, for everything that opens a results
/// folder by its name.
pub(crate) fn read_meta_text(dir: &Path) -> Result<(PathBuf, String)> {
    let path = dir.join(META_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((path, text)),
        // The usual slip is a wrong folder: say so, rather than name a file the user never heard
        // of.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(if dir.is_dir() {
            Error::Usage(format!(
                "`{}` is not a results folder: it has no `{META_FILE}` (every folder `arena run` \
                 writes has one)",
                dir.display()
            ))
        } else {
            Error::Usage(format!("results folder `{}`: no such folder", dir.display()))
        }),
        Err(e) => Err(Error::read(&path, e)),
    }
}

/// Writes a whole file so a reader never sees half of it: a temporary file, then a rename.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    // On disk before the rename: after a power cut the file is the old one or the new one,
    // never an empty one that would make the folder unresumable.
    let written =
        File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
    written.map_err(|e| Error::write(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::write(path, e))
}

/// Writes `summary.csv` and `pairwise.csv`, then `report.html`, which is drawn from them.
pub(crate) fn write_summaries(dir: &Path, standings: &Standings) -> Result<()> {
    write_atomically(&dir.join(SUMMARY_FILE), summaries::summary_csv(standings).as_bytes())?;
    write_atomically(&dir.join(PAIRWISE_FILE), summaries::pairwise_csv(standings).as_bytes())?;
    let report = crate::view::report::render_report(dir)?;
    write_atomically(&dir.join(crate::view::report::REPORT_FILE), report.as_bytes())
}

/// Holds a results folder for this process: two runs writing one folder would play the same
/// missing matches twice. An advisory `flock` on the folder, so the kernel releases it when the
/// process ends, even by `kill -9`.
pub(crate) struct DirLock {
    _lock: Option<nix::fcntl::Flock<File>>,
}

/// Locks `dir` (which must exist) for this process, or says who holds it.
pub(crate) fn lock_dir(dir: &Path) -> Result<DirLock> {
    let folder = File::open(dir).map_err(|e| Error::read(dir, e))?;
    match nix::fcntl::Flock::lock(folder, nix::fcntl::FlockArg::LockExclusiveNonblock) {
        Ok(lock) => Ok(DirLock { _lock: Some(lock) }),
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => Err(Error::Busy(format!(
            "`{}` is in use by another arena run; wait for it to end (or stop it) first",
            dir.display()
        ))),
        // A filesystem without locks (some network mounts) must not stop a run: go unguarded.
        Err(_) => Ok(DirLock { _lock: None }),
    }
}

/// Refuses a folder whose rows were played by other builds of this run's bots, naming each bot
/// and file that changed ([`Error::StaleBots`]); a folder that does not record its bots' files
/// is refused too, since it cannot say.
fn check_same_bots(dir: &Path, old: &Meta, new: &Meta) -> Result<()> {
    let stale = |message: String| Err(Error::StaleBots { path: dir.to_path_buf(), message });
    match (&old.bot_files, &new.bot_files) {
        (None, Some(_)) => stale(
            "were written by an earlier arena that did not record its bots' files, so they may \
             come from other builds of the bots"
                .into(),
        ),
        (Some(old_files), Some(new_files)) => {
            let changed = changed_bots(old_files, new_files);
            if changed.is_empty() {
                Ok(())
            } else {
                stale(format!("were played by other builds of the bots: {}", changed.join("; ")))
            }
        }
        (_, None) => Ok(()),
    }
}

/// Prepares a results folder: locks it for this process, checks that what is there belongs to
/// this config (or clears it for a fresh run) and writes the meta file. The folder stays locked
/// while the returned guard lives.
pub(crate) fn prepare_dir(dir: &Path, meta: &Meta, fresh: bool) -> Result<DirLock> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let lock = lock_dir(dir)?;
    let files = [
        MATCHES_FILE,
        META_FILE,
        SUMMARY_FILE,
        PAIRWISE_FILE,
        crate::view::report::REPORT_FILE,
        analysis::ANALYSIS_FILE,
        analysis::ANALYSIS_SUMMARY_FILE,
    ];
    if fresh {
        for f in files {
            let path = dir.join(f);
            if path.exists() {
                std::fs::remove_file(&path).map_err(|e| Error::write(&path, e))?;
            }
        }
        let replays = dir.join(replays::REPLAYS_DIR);
        if replays.exists() {
            std::fs::remove_dir_all(&replays).map_err(|e| Error::write(&replays, e))?;
        }
    } else if dir.join(META_FILE).exists() {
        let old = Meta::read(dir)?;
        if old.arena_results != meta.arena_results {
            return Err(corrupt(
                dir,
                None,
                format!(
                    "was written by another version of arena (results format {}, this one \
                     writes {}: matches.csv gained the CPU time columns); rerun with --fresh to \
                     discard them, or choose another folder with --out",
                    old.arena_results, meta.arena_results
                ),
            ));
        }
        if old != *meta {
            check_same_bots(dir, &old, meta)?;
            return Err(corrupt(
                dir,
                None,
                format!(
                    "holds results of a different config (fingerprint {}{}, this run {}{}); \
                     rerun with --fresh to discard them, or choose another folder with --out",
                    old.fingerprint,
                    old.shard.map(|s| format!(", shard {s}")).unwrap_or_default(),
                    meta.fingerprint,
                    meta.shard.as_ref().map(|s| format!(", shard {s}")).unwrap_or_default(),
                ),
            ));
        }
    } else if dir.join(MATCHES_FILE).exists() {
        return Err(corrupt(
            dir,
            None,
            format!(
                "has a {MATCHES_FILE} but no {META_FILE}, so its config is unknown; rerun with \
                 --fresh to discard it"
            ),
        ));
    }
    meta.write(dir)?;
    Ok(lock)
}
