//! The arena file as written: serde types that mirror its TOML, with enums where a key takes one
//! of a few names. Reading them refuses unknown keys, wrong types and unknown names, with the
//! line and the key; nothing here checks a value against another or touches a file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bot::external::{ExternalOptions, SandboxMode};
use crate::matches::LimitOverrides;

use super::super::results::replays::ReplayPolicy;
use super::error::{ArenaError, FileError};
use super::sprt_settings::SprtSettings;

/// The arena file's top level.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawArena {
    pub name: String,
    pub game: String,
    pub variant: Option<String>,
    #[serde(default)]
    pub options: BTreeMap<String, Scalar>,
    pub maps: RawMaps,
    pub bots: Vec<RawBot>,
    #[serde(default)]
    pub format: Option<FormatName>,
    pub candidate: Option<String>,
    pub candidates: Option<Vec<String>>,
    pub games_per_pairing: Option<i64>,
    pub seed: Option<u64>,
    pub concurrency: Option<i64>,
    pub output: Option<PathBuf>,
    pub replays: Option<ReplayPolicy>,
    pub analysis: Option<bool>,
    #[serde(default)]
    pub limits: LimitOverrides,
    pub sprt: Option<SprtSettings>,
    /// A league's settings (`format = "league"`).
    pub league: Option<RawLeague>,
    /// The sandbox of every external bot that does not set its own.
    pub sandbox: Option<SandboxMode>,
    /// `false`: replays keep no external bot's stderr per decision.
    pub stderr: Option<bool>,
}

impl RawArena {
    /// Reads arena text; an error names `file`, the line and the key.
    pub(super) fn from_toml(text: &str, file: &Path) -> Result<RawArena, ArenaError> {
        toml::from_str(text).map_err(|e| ArenaError {
            file: file.to_path_buf(),
            error: FileError::Toml(crate::error::toml_error_line(text, &e)),
        })
    }
}

/// How bots are paired, by the names `format` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub(super) enum FormatName {
    RoundRobin,
    Gauntlet,
    League,
}

impl TryFrom<String> for FormatName {
    type Error = String;

    fn try_from(s: String) -> Result<FormatName, String> {
        match s.as_str() {
            "round-robin" => Ok(FormatName::RoundRobin),
            "gauntlet" => Ok(FormatName::Gauntlet),
            "league" => Ok(FormatName::League),
            _ => Err(format!("`{s}` is not `round-robin`, `gauntlet` or `league`")),
        }
    }
}

/// `[league]`: how a league picks its matches.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [league] table (min_games, window)")]
pub(super) struct RawLeague {
    pub min_games: Option<u64>,
    pub window: Option<u64>,
}

/// `[maps]`: where the maps come from.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [maps] table (files, glob or generate)")]
pub(super) struct RawMaps {
    #[serde(default)]
    pub files: Vec<String>,
    pub glob: Option<String>,
    pub generate: Option<RawGenerate>,
}

/// `[maps.generate]`: maps from the game's generator.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table (params, count, seeds)")]
pub(super) struct RawGenerate {
    #[serde(default)]
    pub params: BTreeMap<String, Scalar>,
    pub count: Option<i64>,
    pub seeds: Option<Vec<u64>>,
}

/// `[[bots]]`: one bot.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a bot table (name, spec, roles, ...)")]
pub(super) struct RawBot {
    pub name: String,
    pub spec: Option<String>,
    pub roles: Option<Vec<String>>,
    #[serde(default)]
    pub limits: LimitOverrides,
    /// How an external bot runs: working directory, resource limits, environment, ...
    pub external: Option<ExternalOptions>,
    /// An external bot's play depends only on the map, not on the seed (see `determinism`).
    pub deterministic: Option<bool>,
}

/// A TOML scalar where the game expects a string setting (`nodes = 30` or `nodes = "30"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged, expecting = "expected a string, a number or a boolean")]
pub(super) enum Scalar {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl Scalar {
    fn into_string(self) -> String {
        match self {
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Text(s) => s,
        }
    }
}

/// Game settings as the game reads them: every value as text.
pub(super) fn strings(map: BTreeMap<String, Scalar>) -> BTreeMap<String, String> {
    map.into_iter().map(|(k, v)| (k, v.into_string())).collect()
}
