//! Arena files: TOML in, a validated [`Arena`] out, in layers.
//!
//! Everything that can be wrong with an arena file is found here, before a single match is played:
//! unknown keys, missing or malformed maps, unknown or duplicate bots, bots asked to play roles they
//! cannot play, bad numbers. Every error names the file and the key (`bots[2].roles`): an
//! [`ArenaError`], whose [`Problem`] says what is wrong there. The layers, in the order they run:
//!
//! - `raw`: the file as written (serde types, enums for the keys that take names); unknown keys
//!   and wrong types are refused with their line;
//! - `maps`: the `[maps]` table checked, then loaded (files read, globs searched, maps
//!   generated): the one step before validation that reads files;
//! - `validate`: pure: the raw types and the loaded maps become an [`Arena`], every value checked
//!   against the game and the others; `sprt_settings` does the same for `[sprt]`, whose
//!   [`SprtSettings`] are also `arena sprt`'s flags;
//! - `prepare`: the bots' programs: `cg:` sources compiled, commands looked up, files hashed.
//!
//! `files` says where relative map paths point (a folder, or the default arena's embedded maps);
//! `error` holds the error types.

mod error;
mod files;
mod maps;
mod prepare;
mod raw;
mod sprt_settings;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::bot::external::ExternalOptions;
use crate::bot::{BotSpec, TurnClock};
use crate::error::{Error, Result};
use crate::game::MapText;
use crate::games::GameId;
use crate::matches::LimitOverrides;
use crate::seed::SeedKey;

use super::bot_files::BotFingerprint;
use super::results::replays::ReplayPolicy;
pub(crate) use super::schedule::Format;
use super::schedule::{Plan, Schedule};

pub use error::{ArenaError, ConfigError, FileError, Problem};
pub(crate) use files::DEFAULT_ARENA;
pub use files::Files;
pub(crate) use sprt_settings::{MAX_SPRT_ELO, MAX_SPRT_PAIRS};
pub use sprt_settings::{PairMaps, PairMapsName, SprtConfig, SprtKind, SprtKindName, SprtSettings};

use maps::MapSources;
use raw::RawArena;

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

/// One bot of the arena.
#[derive(Clone, Debug, PartialEq)]
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
    /// declare it, external ones only if the arena file says so. It changes no result, only
    /// when an SPRT stops.
    pub deterministic: bool,
}

/// A validated arena: every map read and parsed, every bot known, every number in range.
/// `RunInputs` says which of these decide results (the fingerprint).
#[derive(Clone, Debug)]
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
    /// Matches at once (`None`: the default).
    pub concurrency: Option<usize>,
    /// Results go to `output/name/`.
    pub output: PathBuf,
    /// Which matches keep their replay in `replays/`.
    pub replays: ReplayPolicy,
    /// Whether every match is rated against the exact solver (`analysis.csv`).
    pub analysis: bool,
    /// The `[sprt]` section (with `arena sprt`'s flags over it), checked.
    pub sprt: Option<SprtConfig>,
    /// `format = "league"`: how the league picks its matches (`arena league`).
    pub league: Option<LeagueSettings>,
    /// Where the arena came from, for messages.
    pub source: PathBuf,
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

impl Arena {
    /// Reads and validates an arena file. Relative map paths are relative to the file's folder.
    pub fn load(path: &Path) -> Result<Arena> {
        Arena::load_with(path, &SprtSettings::default())
    }

    /// Reads an arena file, puts `sprt` (`arena sprt`'s flags) over its `[sprt]` section, and
    /// validates the result.
    pub fn load_with(path: &Path, sprt: &SprtSettings) -> Result<Arena> {
        let text = crate::game::read_input(path).map_err(|e| Error::read(path, e))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Arena::parse_with(&text, path, &Files::Disk(base), sprt)
    }

    /// The built-in default arena; its maps are embedded, so it runs from any folder.
    pub fn default_arena() -> Result<Arena> {
        Arena::parse(DEFAULT_ARENA, Path::new("<built-in default arena>"), &Files::Embedded)
    }

    /// Validates arena text. `source` names it in errors; `files` resolves relative map paths.
    pub fn parse(text: &str, source: &Path, files: &Files) -> Result<Arena> {
        Arena::parse_with(text, source, files, &SprtSettings::default())
    }

    /// [`Arena::parse`], with `sprt` over the `[sprt]` section.
    pub fn parse_with(
        text: &str,
        source: &Path,
        files: &Files,
        sprt: &SprtSettings,
    ) -> Result<Arena> {
        let mut arena = Arena::validated(text, source, files, sprt)?;
        prepare::bots(&mut arena)?;
        Ok(arena)
    }

    /// [`Arena::parse`] without touching the bots' programs: `cg:` sources are not compiled,
    /// commands not looked up, files not hashed (every external bot's `files` is empty). For the
    /// fingerprint's golden test, which must not depend on the machine's interpreters.
    #[cfg(test)]
    pub(crate) fn parse_unprepared(text: &str, source: &Path, files: &Files) -> Result<Arena> {
        Ok(Arena::validated(text, source, files, &SprtSettings::default())?)
    }

    /// The layers up to the validated arena: the TOML, the map sources, the maps loaded, the
    /// pure validation.
    fn validated(
        text: &str,
        source: &Path,
        files: &Files,
        sprt: &SprtSettings,
    ) -> std::result::Result<Arena, ArenaError> {
        let mut raw = RawArena::from_toml(text, source)?;
        raw.sprt = SprtSettings::over(raw.sprt.take(), sprt);
        let in_file = |e: ConfigError| e.in_file(source);
        let name = validate::arena_name(&raw.name).map_err(in_file)?;
        let game = validate::game(&raw.game).map_err(in_file)?;
        crate::with_game!(game, D => {
            let variant = validate::variant::<D>(raw.variant.as_deref()).map_err(in_file)?;
            let seed = raw.seed.unwrap_or(1);
            let sources = MapSources::check(std::mem::take(&mut raw.maps), seed).map_err(in_file)?;
            let maps = sources.load::<D>(files, &variant).map_err(in_file)?;
            let header =
                validate::Header { name, game, variant, seed, source: source.to_path_buf() };
            validate::arena::<D>(raw, header, maps, sources.generator_params()).map_err(in_file)
        })
    }

    /// The arena's schedule, its match seeds drawn with `key` (a results folder's): every
    /// planned match, computed on demand.
    pub(crate) fn schedule(&self, key: &SeedKey) -> Schedule {
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
            key,
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

#[cfg(test)]
mod tests;
