//! `meta.json`: what a results folder holds — which arena and config its rows belong to, how
//! many matches it plans, and for a shard which one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{META_FILE, corrupt, write_atomically};
use crate::error::{Error, Result};
use crate::tournament::inputs::RunInputs;

/// What a folder's rows are the results of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    /// A tournament's schedule (`arena run`, `arena merge`): row `id` is match `id` of the plan.
    #[default]
    Tournament,
    /// A sequential test's pairs (`arena sprt`): rows `2j` and `2j + 1` are pair `j`.
    Sprt,
    /// A league (`arena league`): the matches its journal (`league.jsonl`) decided.
    League,
}

/// `meta.json`: what a results folder holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Meta {
    /// The results format ([`super::RESULTS_VERSION`] when written).
    pub(crate) arena_results: u32,
    pub(crate) arena: String,
    /// The run's fingerprint ([`RunInputs::fingerprint`]).
    pub(crate) fingerprint: String,
    #[serde(default)]
    pub(crate) kind: Kind,
    /// Matches in the whole schedule (all shards).
    pub(crate) planned: u64,
    /// `K/N` for a shard's folder, absent for a whole run or a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shard: Option<String>,
    pub(crate) roles: Vec<String>,
    pub(crate) bots: Vec<String>,
    /// The inputs the fingerprint is made of, in clear. Absent in folders of results formats 1
    /// and 2, which recorded a hash of the whole config only: their rows can be read, merged and
    /// reported, but not checked against their plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) inputs: Option<RunInputs>,
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
