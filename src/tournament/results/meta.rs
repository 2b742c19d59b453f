//! `meta.json`: what a results folder holds — which arena and config its rows belong to, how
//! many matches it plans, and for a shard which one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{META_FILE, corrupt, write_atomically};
use crate::error::{Error, Result};
use crate::tournament::bot_files::BotFingerprint;

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
fn read_meta_text(dir: &Path) -> Result<(PathBuf, String)> {
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
