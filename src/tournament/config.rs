//! Arena files: TOML in, validated [`Arena`] out, in this one place.
//!
//! Everything that can be wrong with an arena file is found here, before a single match is played:
//! unknown keys, missing or malformed maps, unknown or duplicate bots, bots asked to play roles they
//! cannot play, bad numbers. Every error names the file and the key (`bots[2].roles`), and maps are
//! read, generated and parsed here, so a run never stops halfway on a bad map.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bot::external::{ExternalOptions, SandboxMode, program_problem};
use crate::bot::{BotSpec, TurnClock};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::game::{MapText, Setup, SetupError};
use crate::games::GameId;
use crate::matches::LimitOverrides;
use crate::registry::{GameDef, find_bot, resolve_variant};
use crate::seed::sprt_map_seed;

use super::bot_files::{BotFingerprint, fingerprint_bot};
use super::results::replays::ReplayPolicy;
pub(crate) use super::schedule::Format;
use super::schedule::{Plan, Schedule};
use super::stats::gsprt::EloModel;

/// The arena `arena run` plays without a file: Skynet Episode 2's built-in bots.
pub(crate) const DEFAULT_ARENA: &str = include_str!("../../arenas/default.toml");

/// What the default arena's relative map paths resolve to, so it runs from any folder.
const EMBEDDED_FILES: &[(&str, &str)] = &[
    ("maps/skynet/ep2_01.txt", include_str!("../../arenas/maps/skynet/ep2_01.txt")),
    ("maps/skynet/ep2_02.txt", include_str!("../../arenas/maps/skynet/ep2_02.txt")),
    ("maps/skynet/ep2_03.txt", include_str!("../../arenas/maps/skynet/ep2_03.txt")),
    (
        "maps/skynet/ep2_custom_forum_12nodes.txt",
        include_str!("../../arenas/maps/skynet/ep2_custom_forum_12nodes.txt"),
    ),
    (
        "maps/skynet/extra_teaching_alpha.txt",
        include_str!("../../arenas/maps/skynet/extra_teaching_alpha.txt"),
    ),
    (
        "maps/skynet/extra_teaching_default.txt",
        include_str!("../../arenas/maps/skynet/extra_teaching_default.txt"),
    ),
];

/// A TOML scalar where the game expects a string setting (`nodes = 30` or `nodes = "30"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged, expecting = "expected a string, a number or a boolean")]
enum Scalar {
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

fn strings(map: BTreeMap<String, Scalar>) -> BTreeMap<String, String> {
    map.into_iter().map(|(k, v)| (k, v.into_string())).collect()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArena {
    name: String,
    game: String,
    variant: Option<String>,
    #[serde(default)]
    options: BTreeMap<String, Scalar>,
    maps: RawMaps,
    bots: Vec<RawBot>,
    #[serde(default)]
    format: Option<String>,
    candidate: Option<String>,
    candidates: Option<Vec<String>>,
    games_per_pairing: Option<i64>,
    seed: Option<u64>,
    concurrency: Option<i64>,
    output: Option<PathBuf>,
    replays: Option<String>,
    analysis: Option<bool>,
    #[serde(default)]
    limits: LimitOverrides,
    sprt: Option<RawSprt>,
    /// A league's settings (`format = "league"`).
    league: Option<RawLeague>,
    /// The sandbox of every external bot that does not set its own.
    sandbox: Option<SandboxMode>,
    /// `false`: replays keep no external bot's stderr per decision.
    stderr: Option<bool>,
}

/// `[league]`: how a league picks its matches.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [league] table (min_games, window)")]
struct RawLeague {
    min_games: Option<u64>,
    window: Option<u64>,
}

/// A league's settings (`format = "league"` and its `[league]` table): see
/// `crate::tournament::league`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LeagueSettings {
    /// A bot with fewer games than this plays first (default 10).
    pub min_games: u64,
    /// Decision `n` uses the results of the decisions up to `n - window` (default 8): the
    /// league is the same at any concurrency up to it.
    pub window: u64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [maps] table (files, glob or generate)")]
struct RawMaps {
    #[serde(default)]
    files: Vec<String>,
    glob: Option<String>,
    generate: Option<RawGenerate>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table (params, count, seeds)")]
struct RawGenerate {
    #[serde(default)]
    params: BTreeMap<String, Scalar>,
    count: Option<i64>,
    seeds: Option<Vec<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a bot table (name, spec, roles, ...)")]
struct RawBot {
    name: String,
    spec: Option<String>,
    roles: Option<Vec<String>>,
    #[serde(default)]
    limits: LimitOverrides,
    /// How an external bot runs: working directory, resource limits, environment, ...
    external: Option<ExternalOptions>,
    /// An external bot's play depends only on the map, not on the seed (see `determinism`).
    deterministic: Option<bool>,
}

/// The `[sprt]` section as written; [`validate_sprt`] says what is missing, so settings given on
/// the command line ([`SprtOverrides`]) can complete it first.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an [sprt] table (candidate, baseline, elo0, elo1, ...)")]
struct RawSprt {
    candidate: Option<String>,
    baseline: Option<String>,
    elo0: Option<f64>,
    elo1: Option<f64>,
    alpha: Option<f64>,
    beta: Option<f64>,
    max_pairs: Option<u64>,
    elo_model: Option<EloModel>,
    kind: Option<SprtKindName>,
    opponents: Option<Vec<String>>,
    maps: Option<String>,
}

/// The error rates when the section does not give them.
const DEFAULT_ERROR_RATE: f64 = 0.05;

/// Settings of the `[sprt]` section given elsewhere (`arena sprt --elo1 5 ...`): each replaces the
/// file's value, of the same type as the file's, and the result goes through the same validation
/// as the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SprtOverrides {
    pub candidate: Option<String>,
    pub baseline: Option<String>,
    pub elo0: Option<f64>,
    pub elo1: Option<f64>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub max_pairs: Option<u64>,
    pub elo_model: Option<EloModel>,
    pub kind: Option<SprtKindName>,
}

/// The kinds of test, by the names the `[sprt]` table and `--kind` use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtKindName {
    HeadToHead,
    Paired,
}

impl std::str::FromStr for SprtKindName {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<SprtKindName, String> {
        match s {
            "head-to-head" => Ok(SprtKindName::HeadToHead),
            "paired" => Ok(SprtKindName::Paired),
            _ => Err(format!("`{s}` is not `head-to-head` or `paired`")),
        }
    }
}

impl SprtOverrides {
    /// The file's section with these settings on top (a section of their own if the file has
    /// none and any is given).
    fn apply(&self, raw: Option<RawSprt>) -> Option<RawSprt> {
        if *self == SprtOverrides::default() {
            return raw;
        }
        let mut s = raw.unwrap_or_default();
        let o = self.clone();
        s.candidate = o.candidate.or(s.candidate);
        s.baseline = o.baseline.or(s.baseline);
        s.elo0 = o.elo0.or(s.elo0);
        s.elo1 = o.elo1.or(s.elo1);
        s.alpha = o.alpha.or(s.alpha);
        s.beta = o.beta.or(s.beta);
        s.max_pairs = o.max_pairs.or(s.max_pairs);
        s.elo_model = o.elo_model.or(s.elo_model);
        s.kind = o.kind.or(s.kind);
        Some(s)
    }
}

/// One bot of the arena.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArenaBot {
    pub name: String,
    pub spec: BotSpec,
    /// The roles it plays, in the game's role order.
    pub roles: Vec<String>,
    pub limits: LimitOverrides,
    /// How an external bot runs (part of the fingerprint: a resource limit can change results).
    pub external: ExternalOptions,
    /// The hashes of the files its spec names, or the arena version of a built-in bot (part of
    /// the fingerprint: a rebuilt bot is another bot).
    pub files: BotFingerprint,
    /// Whether its play depends only on the map (never on the seed or the clock): built-in bots
    /// declare it, external ones only if the arena file says so. Not part of the fingerprint:
    /// it changes no result, only when an SPRT stops.
    #[serde(skip)]
    pub deterministic: bool,
}

/// How a test pairs its games.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtKind {
    /// The candidate plays the baseline; a pair is one game in each seat order (role swap).
    HeadToHead,
    /// The candidate and the baseline each play the same seat against the same opponents on the
    /// same map with the same seed; a pair compares their results.
    Paired {
        /// The opponents (bot indices), in arena order.
        opponents: Vec<usize>,
    },
}

/// Where pair `j` of a test is played.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairMaps {
    /// The arena's maps in turn: draw `k` on map `k mod maps`.
    Cycle,
    /// A fresh map from the game's generator for every draw, seeded by the draw number.
    Generate { params: BTreeMap<String, String> },
}

/// The `[sprt]` section: a sequential test of `candidate` against `baseline`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtConfig {
    pub kind: SprtKind,
    pub candidate: usize,
    pub baseline: usize,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Stop without a verdict after this many game pairs.
    pub max_pairs: u64,
    /// How elo0 and elo1 are read.
    pub elo_model: EloModel,
    pub maps: PairMaps,
}

/// A validated arena: every map read and parsed, every bot known, every number in range.
#[derive(Clone, Debug, Serialize)]
pub struct Arena {
    pub name: String,
    pub game: GameId,
    pub variant: String,
    pub options: BTreeMap<String, String>,
    /// The game's roles, in seat order.
    pub roles: Vec<String>,
    pub maps: Vec<MapText>,
    pub bots: Vec<ArenaBot>,
    pub format: Format,
    pub games_per_pairing: u64,
    pub seed: u64,
    pub limits: LimitOverrides,
    /// Not part of the fingerprint: it does not change any result.
    #[serde(skip)]
    pub concurrency: Option<usize>,
    /// Not part of the fingerprint: results go to `output/name/`.
    #[serde(skip)]
    pub output: PathBuf,
    /// Which matches keep their replay in `replays/`. Not part of the fingerprint: it changes
    /// what is kept, not what happens.
    #[serde(skip)]
    pub replays: ReplayPolicy,
    /// Whether every match is rated against the exact solver (`analysis.csv`). Not part of the
    /// fingerprint: it adds files, it changes no result.
    #[serde(skip)]
    pub analysis: bool,
    /// Not part of the fingerprint: a tournament and a test of the same arena are separate runs.
    #[serde(skip)]
    pub sprt: Option<SprtConfig>,
    /// `format = "league"`: how the league picks its matches (`arena league`).
    pub league: Option<LeagueSettings>,
    /// Where the arena came from, for messages.
    #[serde(skip)]
    pub source: PathBuf,
}

impl Arena {
    /// Reads and validates an arena file. Relative map paths are relative to the file's folder.
    pub fn load(path: &Path) -> Result<Arena> {
        Arena::load_with(path, &SprtOverrides::default())
    }

    /// Reads an arena file, puts `overrides` over its `[sprt]` section, and validates the result.
    pub fn load_with(path: &Path, overrides: &SprtOverrides) -> Result<Arena> {
        let text = crate::game::read_input(path).map_err(|e| Error::read(path, e))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Arena::parse_with(&text, path, &Files::Disk(base), overrides)
    }

    /// The built-in default arena; its maps are embedded, so it runs from any folder.
    pub fn default_arena() -> Result<Arena> {
        Arena::parse(DEFAULT_ARENA, Path::new("<built-in default arena>"), &Files::Embedded)
    }

    /// Validates arena text. `source` names it in errors; `files` resolves relative map paths.
    pub fn parse(text: &str, source: &Path, files: &Files) -> Result<Arena> {
        Arena::parse_with(text, source, files, &SprtOverrides::default())
    }

    /// [`Arena::parse`], with `overrides` over the `[sprt]` section.
    pub fn parse_with(
        text: &str,
        source: &Path,
        files: &Files,
        overrides: &SprtOverrides,
    ) -> Result<Arena> {
        let fail = |message: String| Error::Arena { path: source.to_path_buf(), message };
        let mut raw: RawArena =
            toml::from_str(text).map_err(|e| fail(crate::error::toml_error_line(text, &e)))?;
        raw.sprt = overrides.apply(raw.sprt.take());
        validate(raw, source, files, Prepare::Bots).map_err(fail)
    }

    /// [`Arena::parse`] without touching the bots' programs: `cg:` sources are not compiled,
    /// commands not looked up, files not hashed (every external bot's `files` is empty). For the
    /// fingerprint's golden test, which must not depend on the machine's interpreters.
    #[cfg(test)]
    pub(crate) fn parse_unprepared(text: &str, source: &Path, files: &Files) -> Result<Arena> {
        let fail = |message: String| Error::Arena { path: source.to_path_buf(), message };
        let raw: RawArena =
            toml::from_str(text).map_err(|e| fail(crate::error::toml_error_line(text, &e)))?;
        validate(raw, source, files, Prepare::Nothing).map_err(fail)
    }

    /// The arena's schedule: every planned match, computed on demand.
    pub(crate) fn schedule(&self) -> Schedule {
        let bot_roles: Vec<Vec<String>> = self.bots.iter().map(|b| b.roles.clone()).collect();
        let names: Vec<String> = self.bots.iter().map(|b| b.name.clone()).collect();
        Schedule::new(Plan {
            format: &self.format,
            names: &names,
            roles: &self.roles,
            bot_roles: &bot_roles,
            games_per_pairing: self.games_per_pairing,
            maps: self.maps.len(),
            seed: self.seed,
        })
    }

    /// Measures every seat's turns on `clock`, whatever the file says (`--clock`). The clock is
    /// part of the fingerprint: results measured on another clock are not resumed.
    pub fn set_clock(&mut self, clock: TurnClock) {
        self.limits.clock = Some(clock);
        for bot in &mut self.bots {
            bot.limits.clock = None;
        }
    }

    /// Keeps no external bot's stderr with its decisions, whatever the file says
    /// (`--no-stderr`). What is kept changes no result, so the fingerprint stays.
    pub fn drop_stderr(&mut self) {
        for bot in &mut self.bots {
            bot.external = std::mem::take(&mut bot.external).without_stderr();
        }
    }

    pub fn bot_index(&self, name: &str) -> Option<usize> {
        self.bots.iter().position(|b| b.name == name)
    }
}

/// An external bot's settings that would make every match of it fail: a line cap out of range,
/// a program that is not there.
fn check_external(
    key: &str,
    name: &str,
    spec: &BotSpec,
    external: &ExternalOptions,
) -> std::result::Result<(), String> {
    if let Err((setting, message)) = external.check() {
        return Err(format!("key `{key}.external.{setting}`: {message}"));
    }
    if let BotSpec::Command(words) = spec
        && let Some(problem) = program_problem(words, external)
    {
        return Err(format!("key `{key}`: bot `{name}`: {problem}"));
    }
    Ok(())
}

/// Where an arena's relative paths point.
pub enum Files {
    /// Files on disk, relative to this folder.
    Disk(PathBuf),
    /// The files embedded in the binary (for the default arena).
    Embedded,
}

impl Files {
    fn read(&self, rel: &str) -> std::result::Result<MapText, String> {
        match self {
            Files::Disk(base) => {
                let path = base.join(rel);
                let text = crate::game::read_input(&path)
                    .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
                Ok(MapText { name: map_name(rel), text })
            }
            Files::Embedded => EMBEDDED_FILES
                .iter()
                .find(|(p, _)| *p == rel)
                .map(|(p, text)| MapText { name: map_name(p), text: text.to_string() })
                .ok_or_else(|| format!("no embedded file `{rel}`")),
        }
    }

    fn glob(&self, pattern: &str) -> std::result::Result<Vec<String>, String> {
        match self {
            Files::Disk(base) => {
                // The folder is literal text: a `[` or `*` in its name is not part of the pattern.
                let folder = base.to_str().ok_or("the arena's folder is not UTF-8")?;
                let full = Path::new(&glob::Pattern::escape(folder)).join(pattern);
                let full = full.to_str().ok_or("the pattern is not UTF-8")?;
                let mut found = Vec::new();
                for entry in glob::glob(full).map_err(|e| e.to_string())? {
                    let path = entry.map_err(|e| e.to_string())?;
                    if path.is_file() {
                        let rel = path.strip_prefix(base).unwrap_or(&path);
                        found.push(rel.to_string_lossy().into_owned());
                    }
                }
                found.sort();
                Ok(found)
            }
            Files::Embedded => {
                let pattern = glob::Pattern::new(pattern).map_err(|e| e.to_string())?;
                Ok(EMBEDDED_FILES
                    .iter()
                    .filter(|(p, _)| pattern.matches(p))
                    .map(|(p, _)| p.to_string())
                    .collect())
            }
        }
    }
}

/// A game's setup error under the arena key it comes from: an option's error names its own key
/// (`options.max_rounds`), not the map that was being set up when it was found.
fn setup_error(section: &str, e: SetupError) -> String {
    match e {
        SetupError::Option { key, message } => format!("key `{section}.{key}`: {message}"),
        other => format!("key `{section}`: {other}"),
    }
}

/// A map's name in results: its file name without folders.
fn map_name(rel: &str) -> String {
    Path::new(rel).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(rel.into())
}

/// The most matches an arena may plan (all shards together): a run keeps one bit per planned
/// match, so this bounds that bitmap at 512 MiB.
pub(crate) const MAX_PLANNED: u64 = 1 << 32;

/// The most maps an arena may hold (files, glob matches and generated maps together): every map
/// is read, parsed and kept in memory before the first match.
pub(crate) const MAX_MAPS: usize = 10_000;

/// The most matches a run or an SPRT plays at once (`-j`, `concurrency`): each is a thread and
/// up to a few bot processes; beyond this a machine thrashes rather than plays.
pub const MAX_CONCURRENCY: usize = 1024;

/// The most pairs an SPRT may play (`sprt.max_pairs`).
pub(crate) const MAX_SPRT_PAIRS: u64 = 10_000_000;

/// Whether validation also prepares the bots' programs (compiles, lookups, hashes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prepare {
    Bots,
    #[cfg_attr(not(test), allow(dead_code))]
    Nothing,
}

fn validate(
    raw: RawArena,
    source: &Path,
    files: &Files,
    prepare: Prepare,
) -> std::result::Result<Arena, String> {
    let name = raw.name.trim().to_string();
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        || name.starts_with('.')
    {
        return Err(format!(
            "key `name`: {:?} must be letters, digits, `-`, `_` and `.` (it names the results folder)",
            raw.name
        ));
    }
    let game: GameId = raw.game.parse().map_err(|e| format!("key `game`: {e}"))?;
    crate::with_game!(game, D => validate_game::<D>(raw, name, game, source, files, prepare))
}

fn validate_game<D: GameDef>(
    raw: RawArena,
    name: String,
    game: GameId,
    source: &Path,
    files: &Files,
    prepare: Prepare,
) -> std::result::Result<Arena, String> {
    let variant =
        resolve_variant::<D>(raw.variant.as_deref()).map_err(|e| format!("key `variant`: {e}"))?;
    let options = strings(raw.options);
    let seed = raw.seed.unwrap_or(1);

    // Maps: files, then the glob's matches, then generated ones; every one parsed by the game.
    let mut maps: Vec<(String, MapText)> = Vec::new();
    if raw.maps.files.len() > MAX_MAPS {
        return Err(format!(
            "key `maps.files`: {} files is more than the {MAX_MAPS} maps an arena may hold",
            raw.maps.files.len()
        ));
    }
    for (i, rel) in raw.maps.files.iter().enumerate() {
        let map = files.read(rel).map_err(|e| format!("key `maps.files[{i}]`: {e}"))?;
        maps.push((format!("maps.files[{i}]"), map));
    }
    if let Some(pattern) = &raw.maps.glob {
        let found = files.glob(pattern).map_err(|e| format!("key `maps.glob`: {e}"))?;
        if found.is_empty() {
            let base = match files {
                Files::Disk(base) => format!(
                    " in `{}` (map paths are relative to the arena file's folder)",
                    if base.as_os_str().is_empty() { Path::new(".") } else { base }.display()
                ),
                Files::Embedded => " among the embedded files".to_string(),
            };
            return Err(format!("key `maps.glob`: `{pattern}` matches no file{base}"));
        }
        if found.len() + maps.len() > MAX_MAPS {
            return Err(format!(
                "key `maps.glob`: `{pattern}` matches {} files, more than the {MAX_MAPS} maps an arena may hold",
                found.len()
            ));
        }
        for rel in found {
            let map = files.read(&rel).map_err(|e| format!("key `maps.glob`: {e}"))?;
            maps.push(("maps.glob".to_string(), map));
        }
    }
    let mut generator_params = None;
    if let Some(generate) = raw.maps.generate {
        let params = strings(generate.params);
        generator_params = Some(params.clone());
        let seeds: Vec<u64> = match (generate.count, generate.seeds) {
            (Some(_), Some(_)) => {
                return Err("key `maps.generate`: give `count` or `seeds`, not both".into());
            }
            (None, Some(seeds)) if seeds.len() > MAX_MAPS => {
                return Err(format!(
                    "key `maps.generate.seeds`: {} seeds is more than the {MAX_MAPS} maps an arena may hold",
                    seeds.len()
                ));
            }
            (Some(count), None) if count > MAX_MAPS as i64 => {
                return Err(format!(
                    "key `maps.generate.count`: {count} is more than the {MAX_MAPS} maps an arena may hold"
                ));
            }
            (None, Some(seeds)) if !seeds.is_empty() => seeds,
            (Some(count), None) if count >= 1 => {
                (0..count as u64).map(|i| crate::seed::map_seed(seed, i)).collect()
            }
            (Some(count), None) => {
                return Err(format!("key `maps.generate.count`: {count} must be at least 1"));
            }
            _ => return Err("key `maps.generate`: needs `count` (>= 1) or `seeds`".into()),
        };
        if seeds.len() + maps.len() > MAX_MAPS {
            return Err(format!(
                "key `maps.generate`: {} generated maps and {} others are more than the {MAX_MAPS} maps an arena may hold",
                seeds.len(),
                maps.len()
            ));
        }
        for s in seeds {
            let map = D::generate_map(&variant, &params, s)
                .map_err(|e| setup_error("maps.generate.params", e))?;
            maps.push(("maps.generate".to_string(), map));
        }
    }
    if maps.is_empty() {
        return Err("key `maps`: no maps (give `files`, `glob` or `generate`)".into());
    }
    let mut roles: Option<Vec<String>> = None;
    for (key, map) in &maps {
        let setup =
            Setup { variant: variant.clone(), options: options.clone(), map: map.clone(), seed };
        let (g, _warnings) = D::new_game(&setup).map_err(|e| match e {
            SetupError::Option { .. } => setup_error("options", e),
            _ => format!("key `{key}`: {e}"),
        })?;
        let map_roles = g.roles();
        match &roles {
            None => roles = Some(map_roles),
            Some(r) if *r != map_roles => {
                return Err(format!(
                    "key `{key}`: map `{}` has roles {} but the first map has {}",
                    map.name,
                    map_roles.join(", "),
                    r.join(", ")
                ));
            }
            Some(_) => {}
        }
    }
    let roles = roles.expect("at least one map");
    let maps: Vec<MapText> = maps.into_iter().map(|(_, m)| m).collect();

    // Bots.
    if raw.bots.len() < 2 {
        return Err(format!(
            "key `bots`: an arena needs at least 2 bots, found {}",
            raw.bots.len()
        ));
    }
    let mut bots: Vec<ArenaBot> = Vec::new();
    for (i, b) in raw.bots.into_iter().enumerate() {
        let key = format!("bots[{i}]");
        let bot_name = b.name.trim().to_string();
        if bot_name.is_empty() || bot_name.chars().any(char::is_control) {
            return Err(format!("key `{key}.name`: {:?} is not a usable name", b.name));
        }
        if bots.iter().any(|o| o.name == bot_name) {
            return Err(format!("key `{key}.name`: duplicate bot name `{bot_name}`"));
        }
        let spec_text = b.spec.unwrap_or_else(|| bot_name.clone());
        let spec: BotSpec = spec_text.parse().map_err(|e| format!("key `{key}.spec`: {e}"))?;
        let can_play: Vec<String> = match &spec {
            BotSpec::Builtin(builtin) => {
                let info = find_bot::<D>(builtin).map_err(|_| {
                    let known: Vec<&str> = D::BOTS.iter().map(|b| b.name).collect();
                    format!(
                        "key `{key}.spec`: {} has no built-in bot `{builtin}` (known: {})",
                        D::NAME,
                        known.join(", ")
                    )
                })?;
                roles.iter().filter(|r| info.roles.contains(&r.as_str())).cloned().collect()
            }
            BotSpec::Command(_) => roles.clone(),
            // Compiled now, before the first match, so compile time never counts against a turn.
            BotSpec::CodinGame(source) => {
                if prepare == Prepare::Bots {
                    crate::bot::codingame::prepare(source)
                        .map_err(|e| format!("key `{key}.spec`: {e}"))?;
                }
                roles.clone()
            }
        };
        let bot_roles = match b.roles {
            None => can_play,
            Some(wanted) => {
                if wanted.is_empty() {
                    return Err(format!("key `{key}.roles`: empty (leave it out for every role)"));
                }
                for r in &wanted {
                    if !roles.contains(r) {
                        return Err(format!(
                            "key `{key}.roles`: {} has no role `{r}` (roles: {})",
                            D::NAME,
                            roles.join(", ")
                        ));
                    }
                    if !can_play.contains(r) {
                        return Err(format!(
                            "key `{key}.roles`: built-in bot `{spec}` cannot play `{r}` (it plays {})",
                            can_play.join(", ")
                        ));
                    }
                }
                // In the game's role order, whatever order the file lists them in.
                roles.iter().filter(|r| wanted.contains(r)).cloned().collect()
            }
        };
        if bot_roles.is_empty() {
            return Err(format!(
                "key `{key}.spec`: `{spec}` plays none of the roles {}",
                roles.join(", ")
            ));
        }
        if b.external.is_some() && matches!(spec, BotSpec::Builtin(_)) {
            return Err(format!(
                "key `{key}.external`: `{spec}` is a built-in bot; `external` is for `cmd:` and `cg:` bots"
            ));
        }
        let deterministic = match (&spec, b.deterministic) {
            (BotSpec::Builtin(builtin), None) => {
                super::determinism::seedless_builtin(game, builtin)
            }
            (BotSpec::Builtin(_), Some(_)) => {
                return Err(format!(
                    "key `{key}.deterministic`: `{spec}` is a built-in bot, which declares it itself"
                ));
            }
            (_, declared) => declared.unwrap_or(false),
        };
        let sandbox = b.external.as_ref().and_then(|e| e.sandbox).or(raw.sandbox);
        let mut external = ExternalOptions { sandbox, ..b.external.unwrap_or_default() };
        if raw.stderr == Some(false) {
            external = external.without_stderr();
        }
        if prepare == Prepare::Bots {
            check_external(&key, &bot_name, &spec, &external)?;
        }
        let limits = b.limits;
        limits.check().map_err(|e| format!("key `{key}.limits.{}`: {e}", e.key))?;
        let files = match (prepare, &spec) {
            (Prepare::Nothing, BotSpec::Command(_) | BotSpec::CodinGame(_)) => BotFingerprint {
                bot: bot_name.clone(),
                spec: spec.to_string(),
                arena_version: None,
                files: Vec::new(),
            },
            _ => fingerprint_bot(&bot_name, &spec, &external),
        };
        bots.push(ArenaBot {
            name: bot_name,
            spec,
            roles: bot_roles,
            limits,
            external,
            files,
            deterministic,
        });
    }

    let league = match (raw.format.as_deref(), raw.league) {
        (Some("league"), settings) => {
            let settings = settings.unwrap_or_default();
            let window = settings.window.unwrap_or(8);
            if !(1..=1024).contains(&window) {
                return Err(format!("key `league.window`: {window} must be from 1 to 1024"));
            }
            Some(LeagueSettings { min_games: settings.min_games.unwrap_or(10), window })
        }
        (_, Some(_)) => return Err("key `league`: only `format = \"league\"` has one".into()),
        (_, None) => None,
    };
    let named = match (raw.candidate, raw.candidates) {
        (Some(_), Some(_)) => {
            return Err("key `candidates`: give `candidate` or `candidates`, not both".into());
        }
        (Some(c), None) => Some(vec![c]),
        (None, Some(list)) if list.is_empty() => {
            return Err("key `candidates`: a gauntlet needs at least one candidate".into());
        }
        (None, list) => list,
    };
    let format = match (raw.format.as_deref(), named) {
        (None | Some("round-robin" | "league"), None) => Format::RoundRobin,
        (Some("league"), Some(_)) => {
            return Err("key `candidate`: only a gauntlet has a candidate".into());
        }
        (None | Some("round-robin"), Some(_)) => {
            return Err("key `candidate`: only a gauntlet has a candidate".into());
        }
        (Some("gauntlet"), Some(names)) => {
            let key = if names.len() == 1 { "candidate" } else { "candidates" };
            let mut candidates = Vec::with_capacity(names.len());
            for c in &names {
                let at = bots
                    .iter()
                    .position(|b| b.name == *c)
                    .ok_or_else(|| format!("key `{key}`: no bot named `{c}`"))?;
                if candidates.contains(&at) {
                    return Err(format!("key `{key}`: `{c}` is named twice"));
                }
                candidates.push(at);
            }
            if candidates.len() == bots.len() {
                return Err(format!("key `{key}`: every bot is a candidate; who do they play?"));
            }
            candidates.sort_unstable();
            Format::Gauntlet { candidates }
        }
        (Some("gauntlet"), None) => {
            return Err("key `candidate`: a gauntlet needs the name of its candidate bot".into());
        }
        (Some(other), _) => {
            return Err(format!(
                "key `format`: `{other}` is not `round-robin`, `gauntlet` or `league`"
            ));
        }
    };
    let games_per_pairing = match raw.games_per_pairing {
        None => 1,
        Some(n) if n >= 1 => n as u64,
        Some(n) => return Err(format!("key `games_per_pairing`: {n} must be at least 1")),
    };
    let concurrency = match raw.concurrency {
        None | Some(0) => None,
        Some(n) if (1..=MAX_CONCURRENCY as i64).contains(&n) => Some(n as usize),
        Some(n) => {
            return Err(format!(
                "key `concurrency`: {n} must be from 1 to {MAX_CONCURRENCY} (0 = the default)"
            ));
        }
    };
    let limits = raw.limits;
    limits.check().map_err(|e| format!("key `limits.{}`: {e}", e.key))?;
    let sprt = raw
        .sprt
        .map(|s| validate_sprt::<D>(s, &bots, &roles, &variant, generator_params, seed))
        .transpose()?;
    let replays = match raw.replays {
        None => ReplayPolicy::default(),
        Some(name) => name.parse().map_err(|e| format!("key `replays`: {e}"))?,
    };

    let arena = Arena {
        name,
        game,
        variant,
        options,
        roles,
        maps,
        bots,
        format,
        games_per_pairing,
        seed,
        limits,
        concurrency,
        output: raw.output.unwrap_or_else(|| PathBuf::from("results")),
        replays,
        analysis: raw.analysis.unwrap_or(false),
        sprt,
        league,
        source: source.to_path_buf(),
    };
    let schedule = arena.schedule();
    if schedule.pairings().is_empty() {
        return Err(
            "key `bots`: no pairing can be played (check each bot's roles: every seat needs a bot that plays its role)"
                .into(),
        );
    }
    // A run keeps one bit per planned match, so the total must fit in memory (and in a u64).
    let per_game: u64 = schedule.pairings().iter().map(|p| p.orders.len() as u64).sum();
    if per_game.checked_mul(arena.games_per_pairing).is_none_or(|total| total > MAX_PLANNED) {
        return Err(format!(
            "key `games_per_pairing`: {} games of {per_game} matches each is more than the {MAX_PLANNED} matches an arena may plan",
            arena.games_per_pairing
        ));
    }
    Ok(arena)
}

fn validate_sprt<D: GameDef>(
    s: RawSprt,
    bots: &[ArenaBot],
    roles: &[String],
    variant: &str,
    generator_params: Option<BTreeMap<String, String>>,
    seed: u64,
) -> std::result::Result<SprtConfig, String> {
    fn given<T>(key: &str, value: Option<T>) -> std::result::Result<T, String> {
        value.ok_or_else(|| format!("key `sprt.{key}`: missing (the test needs it)"))
    }
    let find = |key: &str, name: &str| {
        bots.iter()
            .position(|b| b.name == name)
            .ok_or_else(|| format!("key `sprt.{key}`: no bot named `{name}`"))
    };
    let candidate = find("candidate", &given("candidate", s.candidate)?)?;
    let baseline = find("baseline", &given("baseline", s.baseline)?)?;
    let (elo0, elo1) = (given("elo0", s.elo0)?, given("elo1", s.elo1)?);
    let alpha = s.alpha.unwrap_or(DEFAULT_ERROR_RATE);
    let beta = s.beta.unwrap_or(DEFAULT_ERROR_RATE);
    if candidate == baseline {
        return Err("key `sprt.baseline`: the baseline must differ from the candidate".into());
    }
    let elo_model = s.elo_model.unwrap_or_default();
    let kind_name = match (s.kind, &s.opponents) {
        (Some(k), _) => k,
        (None, Some(_)) => SprtKindName::Paired,
        (None, None) => SprtKindName::HeadToHead,
    };
    let kind = match kind_name {
        SprtKindName::HeadToHead => {
            if s.opponents.is_some() {
                return Err(
                    "key `sprt.opponents`: a head-to-head test has no opponents (kind = \"paired\" has)"
                        .into(),
                );
            }
            if roles.len() != 2 {
                return Err(format!(
                    "key `sprt`: a head-to-head test needs a two-seat game, this one has {} \
                     (a paired test, `kind = \"paired\"`, plays any number of seats)",
                    roles.len()
                ));
            }
            for (key, i) in [("candidate", candidate), ("baseline", baseline)] {
                if bots[i].roles.len() != roles.len() {
                    return Err(format!(
                        "key `sprt.{key}`: `{}` must play every role ({}) for role-swapped pairs; \
                         to test it against opponents in its own roles, use `kind = \"paired\"`",
                        bots[i].name,
                        roles.join(", ")
                    ));
                }
            }
            SprtKind::HeadToHead
        }
        SprtKindName::Paired => {
            let opponents: Vec<usize> = match s.opponents {
                Some(names) => {
                    let mut found = Vec::new();
                    for name in &names {
                        let i = find("opponents", name)?;
                        if i == candidate || i == baseline {
                            return Err(format!(
                                "key `sprt.opponents`: `{name}` is the candidate or the baseline"
                            ));
                        }
                        if found.contains(&i) {
                            return Err(format!("key `sprt.opponents`: `{name}` twice"));
                        }
                        found.push(i);
                    }
                    found.sort();
                    found
                }
                None => (0..bots.len()).filter(|&i| i != candidate && i != baseline).collect(),
            };
            if opponents.is_empty() {
                return Err(
                    "key `sprt.opponents`: a paired test needs at least one opponent".into()
                );
            }
            let bot_roles: Vec<Vec<String>> = bots.iter().map(|b| b.roles.clone()).collect();
            let configs = super::schedule::paired_configs(candidate, &opponents, &bot_roles, roles);
            if configs.is_empty() {
                return Err(format!(
                    "key `sprt.opponents`: `{}` and the opponents cannot fill the {} seats ({}) \
                     in any order their roles allow",
                    bots[candidate].name,
                    roles.len(),
                    roles.join(", ")
                ));
            }
            for seats in &configs {
                let seat = seats.iter().position(|&b| b == candidate).expect("the candidate sits");
                if !bots[baseline].roles.contains(&roles[seat]) {
                    return Err(format!(
                        "key `sprt.baseline`: `{}` does not play `{}`, which `{}` plays against \
                         these opponents; the baseline must play the candidate's roles",
                        bots[baseline].name, roles[seat], bots[candidate].name
                    ));
                }
            }
            SprtKind::Paired { opponents }
        }
    };
    if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
        return Err(format!("key `sprt.elo1`: elo0 ({elo0}) must be below elo1 ({elo1})"));
    }
    for (key, v) in [("elo0", elo0), ("elo1", elo1)] {
        if v.abs() > MAX_SPRT_ELO {
            return Err(format!(
                "key `sprt.{key}`: {v} is beyond ±{MAX_SPRT_ELO}, where no test is meaningful"
            ));
        }
    }
    for (key, v) in [("alpha", alpha), ("beta", beta)] {
        if !(v > 0.0 && v < 0.5) {
            return Err(format!("key `sprt.{key}`: {v} must be in (0, 0.5)"));
        }
    }
    let max_pairs = match s.max_pairs {
        None => 100_000,
        Some(0) => return Err("key `sprt.max_pairs`: must be at least 1".into()),
        Some(n) if n > MAX_SPRT_PAIRS => {
            return Err(format!("key `sprt.max_pairs`: {n} is more than {MAX_SPRT_PAIRS}"));
        }
        Some(n) => n,
    };
    // Fresh generated maps where the game has a generator: a pool that cycles repeats itself.
    let params = generator_params.unwrap_or_default();
    let can_generate = D::generate_map(variant, &params, sprt_map_seed(seed, 0));
    let maps = match s.maps.as_deref() {
        None => match can_generate {
            Ok(_) => PairMaps::Generate { params },
            Err(_) => PairMaps::Cycle,
        },
        Some("cycle") => PairMaps::Cycle,
        Some("generate") => match can_generate {
            Ok(_) => PairMaps::Generate { params },
            Err(e) => return Err(format!("key `sprt.maps`: {e}")),
        },
        Some(other) => {
            return Err(format!("key `sprt.maps`: `{other}` is not `generate` or `cycle`"));
        }
    };
    Ok(SprtConfig {
        kind,
        candidate,
        baseline,
        elo0,
        elo1,
        alpha,
        beta,
        max_pairs,
        elo_model,
        maps,
    })
}

/// The largest |elo0| or |elo1| a test accepts: far beyond any useful bound, and short of the
/// scores of 0 and 1 where the hypotheses stop being distributions.
const MAX_SPRT_ELO: f64 = 1000.0;

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "4 4 1\n0 1\n0 2\n1 3\n2 3\n3\n";

    fn dir_with_map() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.txt"), format!("# AGENT_START 0\n{MAP}")).unwrap();
        dir
    }

    fn parse_in(dir: &Path, text: &str) -> Result<Arena> {
        Arena::parse(text, Path::new("t.toml"), &Files::Disk(dir.to_path_buf()))
    }

    const GOOD: &str = r#"
name = "t"
game = "skynet"
seed = 7
games_per_pairing = 3
[maps]
files = ["m.txt"]
[[bots]]
name = "a"
spec = "random"
[[bots]]
name = "b"
spec = "random"
limits = { turn_ms = 50 }
"#;

    #[test]
    fn a_good_arena_validates() {
        let dir = dir_with_map();
        let arena = parse_in(dir.path(), GOOD).unwrap();
        assert_eq!(arena.roles, vec!["virus", "agent"]);
        assert_eq!(arena.bots[1].limits.turn_ms, Some(50));
        assert_eq!(arena.bots[0].roles, vec!["virus", "agent"]);
        assert_eq!(arena.maps[0].name, "m.txt");
        assert_eq!(arena.games_per_pairing, 3);
        assert_eq!(arena.format, Format::RoundRobin);
    }

    fn error_of(text: &str) -> String {
        let dir = dir_with_map();
        parse_in(dir.path(), text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        let cases: Vec<(String, &str)> = vec![
            (GOOD.replace("seed = 7", "seed = 7\ncolour = 3"), "colour"),
            (GOOD.replace("\"m.txt\"", "\"missing.txt\""), "maps.files[0]"),
            (GOOD.replace("name = \"b\"", "name = \"a\""), "bots[1].name"),
            (GOOD.replace("games_per_pairing = 3", "games_per_pairing = 0"), "games_per_pairing"),
            (
                GOOD.replace("spec = \"random\"\nlimits", "spec = \"nobody\"\nlimits"),
                "bots[1].spec",
            ),
            (GOOD.replace("turn_ms = 50", "turn_msec = 50"), "turn_msec"),
            (GOOD.replace("game = \"skynet\"", "game = \"chess\""), "game"),
            (GOOD.replace("seed = 7", "seed = 7\nformat = \"swiss\""), "format"),
            (GOOD.replace("seed = 7", "seed = 7\nreplays = \"some\""), "replays"),
            (
                GOOD.replace("seed = 7", "seed = 7\nformat = \"gauntlet\"\ncandidate = \"z\""),
                "candidate",
            ),
            (GOOD.replace("limits = { turn_ms = 50 }", "roles = [\"spider\"]"), "bots[1].roles"),
        ];
        for (text, key) in cases {
            let e = error_of(&text);
            assert!(e.starts_with("failed to parse arena `t.toml`: "), "{e}");
            assert!(e.contains(key), "error should name `{key}`: {e}");
        }
    }

    #[test]
    fn a_malformed_map_names_the_key_and_the_line() {
        let dir = dir_with_map();
        std::fs::write(dir.path().join("bad.txt"), "# AGENT_START 0\n3 2 1\n0 1\n1 7\n2\n")
            .unwrap();
        let e = parse_in(dir.path(), &GOOD.replace("\"m.txt\"", "\"bad.txt\"")).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("maps.files[0]") && e.contains("bad.txt") && e.contains("line"), "{e}");
    }

    #[test]
    fn the_fingerprint_follows_results_not_concurrency() {
        let dir = dir_with_map();
        let a = parse_in(dir.path(), GOOD).unwrap();
        let b =
            parse_in(dir.path(), &GOOD.replace("seed = 7", "seed = 7\nconcurrency = 3")).unwrap();
        let c = parse_in(dir.path(), &GOOD.replace("seed = 7", "seed = 8")).unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), c.fingerprint());
        std::fs::write(dir.path().join("m.txt"), format!("# AGENT_START 1\n{MAP}")).unwrap();
        let d = parse_in(dir.path(), GOOD).unwrap();
        assert_ne!(a.fingerprint(), d.fingerprint(), "a changed map changes the fingerprint");
    }

    #[test]
    fn the_fingerprint_follows_the_files_a_bot_names() {
        let dir = dir_with_map();
        let bot = dir.path().join("bot.sh");
        std::fs::write(&bot, "echo 0\n").unwrap();
        let text = GOOD.replace(
            "name = \"b\"\nspec = \"random\"",
            &format!("name = \"b\"\nspec = \"cmd:sh {}\"", bot.display()),
        );
        let a = parse_in(dir.path(), &text).unwrap();
        assert_eq!(a.bots[0].files.arena_version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
        let named: Vec<&str> = a.bots[1].files.files.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(named, vec!["sh".to_string(), bot.display().to_string()]);
        assert_eq!(parse_in(dir.path(), &text).unwrap().fingerprint(), a.fingerprint());
        std::fs::write(&bot, "echo 1\n").unwrap();
        let b = parse_in(dir.path(), &text).unwrap();
        assert_ne!(a.fingerprint(), b.fingerprint(), "an edited bot is another config");
        // Which replays are kept changes no result.
        let all = parse_in(dir.path(), &text.replace("seed = 7", "seed = 7\nreplays = \"all\""));
        let all = all.unwrap();
        assert_eq!((all.replays, b.replays), (ReplayPolicy::All, ReplayPolicy::Faults));
        assert_eq!(all.fingerprint(), b.fingerprint());
    }

    #[test]
    fn a_schedule_too_big_to_track_is_an_error_not_a_crash() {
        // 3 bots, 6 matches per game: the total overflows u64 (and no bitmap of it fits memory).
        let text = format!("{GOOD}[[bots]]\nname = \"c\"\nspec = \"random\"\n")
            .replace("games_per_pairing = 3", "games_per_pairing = 9223372036854775807");
        let e = error_of(&text);
        assert!(e.contains("games_per_pairing"), "{e}");
        let e =
            error_of(&GOOD.replace("games_per_pairing = 3", "games_per_pairing = 1000000000000"));
        assert!(e.contains("games_per_pairing"), "{e}");
    }

    #[test]
    fn a_glob_that_matches_nothing_names_the_folder_searched() {
        let dir = dir_with_map();
        let text = GOOD.replace("files = [\"m.txt\"]", "glob = \"maps/skynet/ep2_*.txt\"");
        let err = parse_in(dir.path(), &text).unwrap_err().to_string();
        let expected = format!(
            "`maps/skynet/ep2_*.txt` matches no file in `{}` (map paths are relative to the \
             arena file's folder)",
            dir.path().display()
        );
        assert!(err.contains(&expected), "{err}");
    }

    #[test]
    fn a_glob_works_in_a_folder_whose_name_looks_like_a_pattern() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("runs [2026]");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("m.txt"), format!("# AGENT_START 0\n{MAP}")).unwrap();
        let text = GOOD.replace("files = [\"m.txt\"]", "glob = \"*.txt\"");
        let arena = parse_in(&dir, &text).unwrap();
        assert_eq!(arena.maps.len(), 1);
        assert_eq!(arena.maps[0].name, "m.txt");
    }

    #[test]
    fn sprt_needs_bots_of_every_role() {
        let text =
            format!("{GOOD}\n[sprt]\ncandidate = \"a\"\nbaseline = \"b\"\nelo0 = 0\nelo1 = 10\n");
        let dir = dir_with_map();
        let arena = parse_in(dir.path(), &text).unwrap();
        let sprt = arena.sprt.unwrap();
        assert_eq!((sprt.candidate, sprt.baseline, sprt.alpha), (0, 1, 0.05));
        let e = error_of(&text.replace("elo1 = 10", "elo1 = -5"));
        assert!(e.contains("sprt.elo1"), "{e}");
        let e = error_of(&text.replace("elo1 = 10\n", ""));
        assert!(e.contains("sprt.elo1") && e.contains("missing"), "{e}");
    }

    fn sprt_with(text: &str, overrides: &SprtOverrides) -> Result<Arena> {
        let dir = dir_with_map();
        let files = Files::Disk(dir.path().to_path_buf());
        Arena::parse_with(text, Path::new("t.toml"), &files, overrides)
    }

    #[test]
    fn sprt_overrides_replace_the_file_and_pass_the_same_validation() {
        let text =
            format!("{GOOD}\n[sprt]\ncandidate = \"a\"\nbaseline = \"b\"\nelo0 = 0\nelo1 = 10\n");
        let swap = SprtOverrides {
            candidate: Some("b".into()),
            baseline: Some("a".into()),
            elo1: Some(25.0),
            beta: Some(0.1),
            max_pairs: Some(7),
            ..SprtOverrides::default()
        };
        let test = sprt_with(&text, &swap).unwrap().sprt.unwrap();
        assert_eq!((test.candidate, test.baseline), (1, 0));
        assert_eq!((test.elo0, test.elo1, test.alpha, test.beta), (0.0, 25.0, 0.05, 0.1));
        assert_eq!(test.max_pairs, 7);
        // Without a section in the file, the overrides make one; what is missing is named.
        let all = SprtOverrides { elo0: Some(0.0), ..swap.clone() };
        assert_eq!(sprt_with(GOOD, &all).unwrap().sprt.unwrap().elo1, 25.0);
        let e = sprt_with(GOOD, &swap).unwrap_err().to_string();
        assert!(e.contains("t.toml") && e.contains("sprt.elo0") && e.contains("missing"), "{e}");
        assert!(sprt_with(GOOD, &SprtOverrides::default()).unwrap().sprt.is_none());
        // Overrides are checked as the file is, with the same messages.
        for (bad, key) in [
            (SprtOverrides { alpha: Some(0.7), ..SprtOverrides::default() }, "sprt.alpha"),
            (SprtOverrides { elo0: Some(50.0), ..SprtOverrides::default() }, "sprt.elo1"),
            (SprtOverrides { baseline: Some("zed".into()), ..SprtOverrides::default() }, "zed"),
            (SprtOverrides { max_pairs: Some(0), ..SprtOverrides::default() }, "sprt.max_pairs"),
        ] {
            let e = sprt_with(&text, &bad).unwrap_err().to_string();
            assert!(e.starts_with("failed to parse arena `t.toml`: ") && e.contains(key), "{e}");
        }
    }

    #[test]
    fn a_paired_test_and_its_defaults() {
        let text = format!(
            "{GOOD}[[bots]]\nname = \"cg\"\nspec = \"cg-ep2\"\n\
             [[bots]]\nname = \"solver\"\n\
             [sprt]\ncandidate = \"solver\"\nbaseline = \"a\"\nopponents = [\"cg\"]\nelo0 = 0\nelo1 = 5\n"
        );
        let arena = sprt_with(&text, &SprtOverrides::default()).unwrap();
        let test = arena.sprt.unwrap();
        assert_eq!(test.kind, SprtKind::Paired { opponents: vec![2] });
        assert_eq!(test.elo_model, EloModel::Normalized);
        // Skynet has a generator: fresh maps by default, with the arena's generator settings.
        assert_eq!(test.maps, PairMaps::Generate { params: BTreeMap::new() });
        assert!(arena.bots[2].deterministic && !arena.bots[0].deterministic);
        // The flags override the table's model and kind.
        let logistic = SprtOverrides {
            elo_model: Some(EloModel::Logistic),
            kind: Some(SprtKindName::HeadToHead),
            ..SprtOverrides::default()
        };
        let e = sprt_with(&text, &logistic).unwrap_err().to_string();
        assert!(e.contains("sprt.opponents"), "a head-to-head test has no opponents: {e}");
        let cycle =
            text.replace("elo1 = 5", "elo1 = 5\nmaps = \"cycle\"\nelo_model = \"logistic\"");
        let test = sprt_with(&cycle, &SprtOverrides::default()).unwrap().sprt.unwrap();
        assert_eq!((test.maps, test.elo_model), (PairMaps::Cycle, EloModel::Logistic));
        // The baseline must play the seats the candidate plays against these opponents.
        let e = sprt_with(
            &text.replace("baseline = \"a\"", "baseline = \"b\"\nkind = \"paired\"").replace(
                "name = \"b\"\nspec = \"random\"",
                "name = \"b\"\nspec = \"random\"\nroles = [\"agent\"]",
            ),
            &SprtOverrides::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("sprt.baseline") && e.contains("virus"), "{e}");
        // Only external bots declare determinism.
        let e = error_of(&GOOD.replace("limits = { turn_ms = 50 }", "deterministic = true"));
        assert!(e.contains("bots[1].deterministic") && e.contains("built-in"), "{e}");
    }
}
