//! What each game registers with the harness beyond its rules, and the lookups over it.
//!
//! A game is described by data: its variants, its options type (a serde struct, so options are
//! declared once and checked with keyed errors), its table of built-in bots (name, roles, a
//! one-line summary, whether it plays the same whatever its seed, and a constructor), its
//! generator's settings, its default map and limits, whether its rules draw from the seed, the
//! arena file `arena init` writes, how the viewer draws it ([`Drawing`]), the exact oracle the
//! analysis asks ([`Exact`]) and what the separating-map search needs ([`Separating`]). Every
//! fact without a default is one the compiler asks a new game for. The registry does the rest
//! the same way for every game: it checks variants, parses options, finds a bot by name and
//! refuses it for a role it does not play.
//!
//! This layer sits above [`crate::bot`] (a bot table holds bot constructors) and below the games;
//! [`crate::game`] below both holds the rules abstraction alone.

#![warn(missing_docs)]

mod drawing;
mod oracle;
mod random;

use std::collections::BTreeMap;
use std::fmt::Debug;

use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;

use crate::bot::{Bot, TimeLimits};
use crate::game::{Game, MapText, Seat, Setting, Setup, SetupError, parse_settings};

pub use drawing::{Drawing, Event};
pub use oracle::{Allowance, Exact, Oracle, Worth};
pub use random::RandomBot;

#[cfg(test)]
pub(crate) mod conformance;

/// Makes a built-in bot for one seat of a match that is set up.
pub type MakeBot<D> = fn(&BotContext<'_, D>) -> Box<dyn Bot<<D as GameDef>::G>>;

/// One built-in bot of a game: what `arena bots` lists, and how to make one.
pub struct BotEntry<D: GameDef> {
    /// The name users type (`--bot virus=solver`).
    pub name: &'static str,
    /// The roles it can play.
    pub roles: &'static [&'static str],
    /// One line for `arena bots`.
    pub summary: &'static str,
    /// Whether it plays the same whatever its seed (a search with a deadline counts: only a
    /// machine so loaded that the deadline cuts it short makes it vary). An SPRT whose bots all
    /// are, in a game without chance, stops at the end of its maps instead of counting the same
    /// pairs again; a test plays every such bot under two seeds.
    pub deterministic: bool,
    /// Makes the bot for one seat of a match.
    pub make: MakeBot<D>,
}

/// What `arena gen GAME --separating` needs of a game whose exact solver and generator can
/// certify maps that tell strategies apart (see [`crate::analysis::separating`]).
pub struct Separating {
    /// The variants the exact solver plays.
    pub variants: &'static [&'static str],
    /// What the solver plays, in words, for the refusal of another variant ("Skynet Episode 2").
    pub solver_plays: &'static str,
    /// The built-in bots that must fall short unless the user names others; they play the first
    /// role.
    pub against: &'static [&'static str],
    /// The built-in bot they play against unless the user names another.
    pub opponent: &'static str,
    /// Draws a candidate's generator settings: `set(key, value)` for each drawn setting (a
    /// setting in `fixed` keeps its fixed value; the draw is made anyway, so the RNG advances the
    /// same), where maps are small enough for the solver and often hard.
    pub draw: DrawSettings,
}

/// Draws the generator settings of one candidate of the separating-map search (see
/// [`Separating::draw`]).
pub type DrawSettings =
    fn(fixed: &BTreeMap<String, String>, rng: &mut ChaCha8Rng, set: &mut dyn FnMut(&str, String));

/// What a built-in bot is told when it is made.
pub struct BotContext<'a, D: GameDef> {
    /// The bot's seat.
    pub seat: Seat,
    /// The role it plays there.
    pub role: &'a str,
    /// The bot's own seed (see [`crate::seed::bot_seed`]).
    pub seed: u64,
    /// The match's variant.
    pub variant: &'a str,
    /// The match's options, parsed.
    pub options: &'a D::Options,
    /// The game as set up, before the first action.
    pub game: &'a D::G,
}

/// A built-in bot that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    /// No built-in bot of that name.
    #[error("no built-in {game} bot `{name}` (known: {})", known.join(", "))]
    Unknown {
        /// The game's name.
        game: &'static str,
        /// The name asked for.
        name: String,
        /// The game's built-in bots.
        known: Vec<&'static str>,
    },
    /// A bot asked to play a role it does not play.
    #[error("`{name}` plays {}, not {role}", roles.join(" or "))]
    WrongRole {
        /// The bot.
        name: &'static str,
        /// The roles it plays.
        roles: &'static [&'static str],
        /// The role asked for.
        role: String,
    },
    /// The bot's constructor refused the setup.
    #[error(transparent)]
    Setup(#[from] SetupError),
}

/// A game as the harness sees it: the rules type plus everything around it.
pub trait GameDef: Sized + 'static {
    /// The rules.
    type G: Game;
    /// The game options (`--opt key=value`), a serde type with `deny_unknown_fields` whose
    /// `Default` is the game with no options given.
    type Options: DeserializeOwned + Default + Clone + Debug;

    /// The name users type (`skynet`).
    const NAME: &'static str;
    /// One line for `arena bots` and `--help`.
    const SUMMARY: &'static str;
    /// The variants; the first is the default.
    const VARIANTS: &'static [&'static str];
    /// The built-in bots.
    const BOTS: &'static [BotEntry<Self>];
    /// The map generator's settings; empty when the game has no generator.
    const GENERATOR: &'static [Setting] = &[];
    /// Option sets (`key`, `value` pairs) worth playing besides the defaults: the conformance
    /// tests play every game under each of them.
    const SAMPLE_OPTIONS: &'static [&'static [(&'static str, &'static str)]] = &[];
    /// Options under which the rules accept exactly their legal actions, added to every option
    /// set the conformance tests play. Empty for a game whose rules never take an action outside
    /// its legal ones; Skynet's Episode 1 default (`invalid_cut=ignore`) accepts a cut of a
    /// missing link as a pass, a lenience the strict contract of those tests leaves out.
    const STRICT_OPTIONS: &'static [(&'static str, &'static str)] = &[];
    /// The options a replay of format version 1 was played under unless its header names them:
    /// the defaults of that day, where one has changed since. Replays keep verifying as they did.
    const REPLAY_V1_OPTIONS: &'static [(&'static str, &'static str)] = &[];
    /// Whether the rules draw from the match seed (Risk's deal and dice). Without chance, a
    /// match between bots that are [`BotEntry::deterministic`] repeats itself on the same map.
    const CHANCE: bool;
    /// The arena file `arena init GAME` writes, commented, that runs as it is. `"NAME"` is
    /// replaced by the tournament's name; `"MAP"`, if present, by the file name of the game's
    /// default map, which `arena init` writes beside it.
    const INIT: &'static str;
    /// What the separating-map search needs, or `None` for a game it cannot search (no exact
    /// solver or no generator).
    const SEPARATING: Option<Separating>;

    /// How the viewer draws a match (the game's `view.rs`).
    type Drawing: Drawing<Self::G>;

    /// The exact analysis of a match of `variant` set up as `game`: its solver as an
    /// [`Oracle`], or why there is none.
    fn oracle<'g>(variant: &str, game: &'g Self::G) -> Exact<'g, Self::G>;

    /// The time limits a seat gets unless the user says otherwise.
    fn default_limits(variant: &str) -> TimeLimits;

    /// The map a match plays when none is named (embedded, so it needs no file).
    fn default_map(variant: &str) -> MapText;

    /// The maps `arena check` plays a bot on unless told otherwise: the shipped maps of
    /// `variant`, embedded. By default the default map alone.
    fn check_maps(variant: &str) -> Vec<MapText> {
        vec![Self::default_map(variant)]
    }

    /// A seeded random map in the game's text format, from generator settings (see
    /// [`GameDef::GENERATOR`]) as `key = value` strings.
    fn generate_map(
        variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError> {
        let _ = (variant, params, seed);
        Err(SetupError::Other(format!(
            "{} has no map generator; play its default map or a map file (--map)",
            Self::NAME
        )))
    }

    /// Sets up a match of a known variant with parsed options. Returns the game and warnings
    /// (a map beyond the original limits, ...).
    fn create(
        variant: &str,
        options: &Self::Options,
        map: &MapText,
        seed: u64,
    ) -> Result<(Self::G, Vec<String>), SetupError>;

    /// The built-in bot that plays `role` in `variant` when the user names none.
    fn default_bot(variant: &str, role: &str) -> Option<&'static str> {
        let _ = (variant, role);
        None
    }

    /// Reads the game options.
    fn options(options: &BTreeMap<String, String>) -> Result<Self::Options, SetupError> {
        parse_settings(&format!("option of {}", Self::NAME), options)
    }

    /// Sets up a match: checks the variant, reads the options, parses the map.
    fn new_game(setup: &Setup) -> Result<(Self::G, Vec<String>), SetupError> {
        if !Self::VARIANTS.contains(&setup.variant.as_str()) {
            return Err(resolve_variant::<Self>(Some(&setup.variant)).unwrap_err());
        }
        let options = Self::options(&setup.options)?;
        Self::create(&setup.variant, &options, &setup.map, setup.seed)
    }
}

/// Looks up a built-in bot by name.
///
/// ```
/// use arena::games::skynet::Skynet;
/// use arena::registry::find_bot;
///
/// let solver = find_bot::<Skynet>("solver")?;
/// assert_eq!(solver.roles, ["virus"]);
/// assert!(find_bot::<Skynet>("no-such-bot").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_bot<D: GameDef>(name: &str) -> Result<&'static BotEntry<D>, BotError> {
    D::BOTS.iter().find(|b| b.name == name).ok_or_else(|| BotError::Unknown {
        game: D::NAME,
        name: name.to_string(),
        known: D::BOTS.iter().map(|b| b.name).collect(),
    })
}

/// Makes the built-in bot `name` for `seat` (playing `role`, with its own `seed`) of the match
/// `setup` describes, set up as `game`, after checking that it plays the role.
pub fn builtin_bot<D: GameDef>(
    name: &str,
    seat: Seat,
    role: &str,
    seed: u64,
    setup: &Setup,
    game: &D::G,
) -> Result<Box<dyn Bot<D::G>>, BotError> {
    let entry = find_bot::<D>(name)?;
    if !entry.roles.contains(&role) {
        return Err(BotError::WrongRole {
            name: entry.name,
            roles: entry.roles,
            role: role.into(),
        });
    }
    let options = D::options(&setup.options)?;
    let context = BotContext { seat, role, seed, variant: &setup.variant, options: &options, game };
    Ok((entry.make)(&context))
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
