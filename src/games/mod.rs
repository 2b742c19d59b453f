//! The registry of games: what each game offers the harness beyond its rules (variants, options,
//! maps, built-in bots, solvers), and the one place that lists the games.
//!
//! Adding a game touches its own folder, one variant of [`GameId`] and one line of
//! [`with_game!`](crate::with_game).

pub mod painters;
pub mod risk;
pub mod skynet;
pub mod spiders;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::bot::{Bot, TimeLimits};
use crate::game::{Game, Seat};

/// The games arena knows.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum GameId {
    Skynet,
    Painters,
    Spiders,
    Risk,
}

impl GameId {
    pub const ALL: &'static [GameId] =
        &[GameId::Skynet, GameId::Painters, GameId::Spiders, GameId::Risk];

    pub fn name(self) -> &'static str {
        crate::with_game!(self, D => D::NAME)
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for GameId {
    type Err = String;

    fn from_str(s: &str) -> Result<GameId, String> {
        GameId::ALL.iter().copied().find(|g| g.name() == s).ok_or_else(|| {
            let names: Vec<&str> = GameId::ALL.iter().map(|g| g.name()).collect();
            format!("unknown game `{s}` (known: {})", names.join(", "))
        })
    }
}

/// Runs `$body` with `$D` bound to the [`GameDef`] type of the game `$id`. This is how code that
/// is generic over games (the CLI, replays, tournaments) reaches a game chosen at run time.
#[macro_export]
macro_rules! with_game {
    ($id:expr, $D:ident => $body:expr) => {
        match $id {
            $crate::games::GameId::Skynet => {
                type $D = $crate::games::skynet::Skynet;
                $body
            }
            $crate::games::GameId::Painters => {
                type $D = $crate::games::painters::Painters;
                $body
            }
            $crate::games::GameId::Spiders => {
                type $D = $crate::games::spiders::Spiders;
                $body
            }
            $crate::games::GameId::Risk => {
                type $D = $crate::games::risk::Risk;
                $body
            }
        }
    };
}

/// A map as text in the game's own format, with a name for humans (usually its file name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapText {
    pub name: String,
    pub text: String,
}

/// Everything a game needs to set up one match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    pub variant: String,
    /// Game options, `key = value`; the game validates keys and values.
    pub options: BTreeMap<String, String>,
    pub map: MapText,
    pub seed: u64,
}

/// A problem with a match's setup: its map, variant or options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("map `{map}`{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Map { map: String, line: Option<usize>, message: String },
    #[error("option `{key}`: {message}")]
    Option { key: String, message: String },
    #[error("unknown variant `{0}`")]
    Variant(String),
    #[error("{0}")]
    Other(String),
}

impl SetupError {
    pub fn map(map: &str, line: Option<usize>, message: impl Into<String>) -> SetupError {
        SetupError::Map { map: map.to_string(), line, message: message.into() }
    }

    pub fn option(key: &str, message: impl Into<String>) -> SetupError {
        SetupError::Option { key: key.to_string(), message: message.into() }
    }
}

/// A built-in bot, as `arena bots` lists it.
#[derive(Clone, Copy, Debug)]
pub struct BotInfo {
    pub name: &'static str,
    /// The roles it can play.
    pub roles: &'static [&'static str],
    pub summary: &'static str,
}

/// What a built-in bot is told when it is created.
#[derive(Clone, Debug)]
pub struct BotSetup<'a> {
    pub seat: Seat,
    pub role: String,
    /// The bot's own seed (see [`crate::seed::bot_seed`]).
    pub seed: u64,
    pub setup: &'a Setup,
}

/// A game as the harness sees it: the rules type plus everything around it.
pub trait GameDef: 'static {
    type G: Game;

    /// The name users type (`skynet`).
    const NAME: &'static str;
    /// One line for `arena bots` and `--help`.
    const SUMMARY: &'static str;
    /// The variants; the first is the default.
    const VARIANTS: &'static [&'static str];

    /// The time limits a seat gets unless the user says otherwise.
    fn default_limits(variant: &str) -> TimeLimits;

    /// The map a match plays when none is named (embedded, so it needs no file).
    fn default_map(variant: &str) -> MapText;

    /// A seeded random map in the game's text format. `params` are generator settings
    /// (`nodes = 50`, ...), validated by the game.
    fn generate_map(
        variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError>;

    /// Sets up a match. Returns the game and warnings (a map beyond the original limits, ...).
    fn new_game(setup: &Setup) -> Result<(Self::G, Vec<String>), SetupError>;

    /// The built-in bots.
    fn bots() -> &'static [BotInfo];

    /// Creates the built-in bot `name` for a seat. `Err` names the problem (unknown bot, a bot
    /// that cannot play that role).
    fn builtin_bot(name: &str, bot: &BotSetup<'_>) -> Result<Box<dyn Bot<Self::G>>, String>;

    /// The built-in bot that plays `role` in `variant` when the user names none
    /// (`arena play GAME`).
    fn default_bot(variant: &str, role: &str) -> Option<&'static str> {
        let _ = (variant, role);
        None
    }

    /// `arena solve GAME ARGS...`: the game's own solver command, with its own arguments.
    /// Writes its answer to `out`; returns the process exit code.
    fn solve(args: &[String], out: &mut dyn Write) -> Result<i32, crate::Error> {
        let _ = (args, out);
        Err(crate::Error::Usage(format!("{} has no solver", Self::NAME)))
    }
}

/// Looks up a built-in bot's info, for error messages and listings.
pub fn bot_info<D: GameDef>(name: &str) -> Option<&'static BotInfo> {
    D::bots().iter().find(|b| b.name == name)
}

/// Checks `variant` against the game's list, or picks the default.
pub fn resolve_variant<D: GameDef>(variant: Option<&str>) -> Result<String, SetupError> {
    match variant {
        None => Ok(D::VARIANTS[0].to_string()),
        Some(v) if D::VARIANTS.contains(&v) => Ok(v.to_string()),
        Some(v) => Err(SetupError::Other(format!(
            "unknown variant `{v}` of {} (known: {})",
            D::NAME,
            D::VARIANTS.join(", ")
        ))),
    }
}
