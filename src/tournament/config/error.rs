//! What can be wrong with an arena file, as types: an [`ArenaError`] names the file, its
//! [`ConfigError`] the key (`bots[2].roles`), its [`Problem`] what is wrong there.
//!
//! Every layer of `config` (the TOML, the pure validation, the loading of maps and the
//! preparation of bots) reports through these, so a message has one wording wherever it is found
//! and a test can ask which key was refused and why without reading the words.

use std::path::PathBuf;

use crate::bot::spec::BotSpecError;
use crate::error::Cause;
use crate::game::SetupError;
use crate::games::UnknownGame;
use crate::matches::BadLimit;

use super::{MAX_CONCURRENCY, MAX_MAPS, MAX_PLANNED, MAX_SPRT_ELO, MAX_SPRT_PAIRS};

/// An arena file that cannot be used: the file, and what is wrong in it.
#[derive(Debug, thiserror::Error)]
#[error("failed to parse arena `{}`: {error}", file.display())]
pub struct ArenaError {
    /// The arena file (or what stands for it, such as `<built-in default arena>`).
    pub file: PathBuf,
    /// What is wrong, and where.
    pub error: FileError,
}

/// Where in an arena file the fault is.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The text is not TOML, or not of the arena file's shape (an unknown key, a wrong type):
    /// the TOML reader's message with its line and key.
    #[error("{0}")]
    Toml(String),
    /// A value the arena cannot use, by its key (boxed: a problem can be large, and every
    /// `Result` of the layers carries one).
    #[error(transparent)]
    Key(Box<ConfigError>),
}

impl ArenaError {
    /// The key at fault, when the file was read as TOML.
    pub fn key(&self) -> Option<&str> {
        match &self.error {
            FileError::Toml(_) => None,
            FileError::Key(e) => Some(&e.key),
        }
    }

    /// What is wrong at [`ArenaError::key`], when the file was read as TOML.
    pub fn problem(&self) -> Option<&Problem> {
        match &self.error {
            FileError::Toml(_) => None,
            FileError::Key(e) => Some(&e.problem),
        }
    }
}

impl From<ArenaError> for crate::error::Error {
    fn from(e: ArenaError) -> crate::error::Error {
        crate::error::Error::Arena(Box::new(e))
    }
}

/// A value at a key of the arena file that the arena cannot use.
#[derive(Debug, thiserror::Error)]
#[error("key `{key}`: {problem}")]
pub struct ConfigError {
    /// The key as a user finds it in the file: `sprt.elo1`, `bots[2].roles`.
    pub key: String,
    pub problem: Problem,
}

impl ConfigError {
    /// `problem` in the file under `key`.
    pub(crate) fn at(key: impl Into<String>, problem: Problem) -> ConfigError {
        ConfigError { key: key.into(), problem }
    }

    /// Names the file it is in.
    pub(crate) fn in_file(self, file: impl Into<PathBuf>) -> ArenaError {
        ArenaError { file: file.into(), error: FileError::Key(Box::new(self)) }
    }
}

/// What is wrong at a key.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    // The arena's name, game and variant.
    #[error("{0:?} must be letters, digits, `-`, `_` and `.` (it names the results folder)")]
    BadArenaName(String),
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    /// A variant, a map or a generator setting the game refuses.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// An option or generator setting the game refuses (the key names the option).
    #[error("{0}")]
    BadOption(String),

    // Maps.
    #[error("no maps (give `files`, `glob` or `generate`)")]
    NoMaps,
    #[error("{0} files is more than the {MAX_MAPS} maps an arena may hold")]
    TooManyFiles(usize),
    #[error("`{pattern}` matches {found} files, more than the {MAX_MAPS} maps an arena may hold")]
    GlobTooWide { pattern: String, found: usize },
    #[error("{0} seeds is more than the {MAX_MAPS} maps an arena may hold")]
    TooManySeeds(usize),
    #[error("{0} is more than the {MAX_MAPS} maps an arena may hold")]
    CountTooLarge(i64),
    #[error(
        "{generated} generated maps and {others} others are more than the {MAX_MAPS} maps an \
         arena may hold"
    )]
    TooManyGenerated { generated: usize, others: usize },
    #[error("give `count` or `seeds`, not both")]
    CountAndSeeds,
    #[error("needs `count` (>= 1) or `seeds`")]
    NoCountOrSeeds,
    #[error("cannot read `{}`: {source}", path.display())]
    CannotRead { path: PathBuf, source: std::io::Error },
    #[error("no embedded file `{0}`")]
    NoEmbeddedFile(String),
    /// A glob that cannot be searched: a bad pattern, a folder that cannot be listed, a path
    /// that is not UTF-8.
    #[error("{0}")]
    BadGlob(String),
    #[error("`{pattern}` matches no file{}", match folder {
        Some(folder) => format!(" in `{}` (map paths are relative to the arena file's folder)", folder.display()),
        None => " among the embedded files".to_string(),
    })]
    GlobMatchesNothing {
        pattern: String,
        /// The folder searched; `None` for the embedded files.
        folder: Option<PathBuf>,
    },
    #[error("map `{map}` has roles {} but the first map has {}", roles.join(", "), first.join(", "))]
    RolesDiffer { map: String, roles: Vec<String>, first: Vec<String> },

    // Bots.
    #[error("an arena needs at least 2 bots, found {0}")]
    TooFewBots(usize),
    #[error("{0:?} is not a usable name")]
    BadBotName(String),
    #[error("duplicate bot name `{0}`")]
    DuplicateBot(String),
    #[error(transparent)]
    Spec(#[from] BotSpecError),
    #[error("{game} has no built-in bot `{name}` (known: {})", known.join(", "))]
    UnknownBuiltin { game: &'static str, name: String, known: Vec<&'static str> },
    #[error("empty (leave it out for every role)")]
    EmptyRoles,
    #[error("{game} has no role `{role}` (roles: {})", roles.join(", "))]
    UnknownRole { game: &'static str, role: String, roles: Vec<String> },
    #[error("built-in bot `{bot}` cannot play `{role}` (it plays {})", plays.join(", "))]
    CannotPlay { bot: String, role: String, plays: Vec<String> },
    #[error("`{bot}` plays none of the roles {}", roles.join(", "))]
    PlaysNoRole { bot: String, roles: Vec<String> },
    #[error("`{0}` is a built-in bot; `external` is for `cmd:` and `cg:` bots")]
    ExternalOfBuiltin(String),
    #[error("`{0}` is a built-in bot, which declares it itself")]
    DeterminismOfBuiltin(String),
    /// An `external` setting out of its range (the key names the setting).
    #[error("{0}")]
    BadExternal(String),
    #[error("bot `{bot}`: {problem}")]
    NoProgram { bot: String, problem: String },
    /// A `cg:` source that cannot be compiled.
    #[error(transparent)]
    Compile(Cause),
    #[error(transparent)]
    Limit(#[from] BadLimit),

    // The format and the numbers.
    #[error("give `candidate` or `candidates`, not both")]
    CandidateAndCandidates,
    #[error("a gauntlet needs at least one candidate")]
    NoCandidates,
    #[error("a gauntlet needs the name of its candidate bot")]
    GauntletWithoutCandidate,
    #[error("only a gauntlet has a candidate")]
    CandidateOutsideGauntlet,
    #[error("no bot named `{0}`")]
    NoSuchBot(String),
    #[error("`{0}` is named twice")]
    NamedTwice(String),
    #[error("every bot is a candidate; who do they play?")]
    EveryBotCandidate,
    #[error("only `format = \"league\"` has one")]
    LeagueOutsideLeague,
    #[error("{0} must be from 1 to 1024")]
    LeagueWindow(u64),
    #[error("{0} must be at least 1")]
    BelowOne(i64),
    #[error("{0} must be from 1 to {MAX_CONCURRENCY} (0 = the default)")]
    Concurrency(i64),
    #[error(
        "no pairing can be played (check each bot's roles: every seat needs a bot that plays its \
         role)"
    )]
    NoPairing,
    #[error(
        "{games} games of {per_game} matches each is more than the {MAX_PLANNED} matches an arena \
         may plan"
    )]
    TooManyMatches { games: u64, per_game: u64 },

    // The SPRT.
    #[error("missing (the test needs it)")]
    Missing,
    #[error("needs candidate, baseline, elo0 and elo1")]
    NoTest,
    #[error("the baseline must differ from the candidate")]
    BaselineIsCandidate,
    #[error("a head-to-head test has no opponents (kind = \"paired\" has)")]
    OpponentsOfHeadToHead,
    #[error(
        "a head-to-head test needs a two-seat game, this one has {0} (a paired test, `kind = \
         \"paired\"`, plays any number of seats)"
    )]
    HeadToHeadSeats(usize),
    #[error(
        "`{bot}` must play every role ({}) for role-swapped pairs; to test it against opponents \
         in its own roles, use `kind = \"paired\"`",
        roles.join(", ")
    )]
    MustPlayEveryRole { bot: String, roles: Vec<String> },
    #[error("`{0}` is the candidate or the baseline")]
    OpponentUnderTest(String),
    #[error("`{0}` twice")]
    OpponentTwice(String),
    #[error("a paired test needs at least one opponent")]
    NoOpponents,
    #[error(
        "`{candidate}` and the opponents cannot fill the {} seats ({}) in any order their roles \
         allow",
        roles.len(),
        roles.join(", ")
    )]
    SeatsUnfilled { candidate: String, roles: Vec<String> },
    #[error(
        "`{baseline}` does not play `{role}`, which `{candidate}` plays against these opponents; \
         the baseline must play the candidate's roles"
    )]
    BaselineMissesRole { baseline: String, role: String, candidate: String },
    #[error("elo0 ({elo0}) must be below elo1 ({elo1})")]
    EloOrder { elo0: f64, elo1: f64 },
    #[error("{0} is beyond ±{MAX_SPRT_ELO}, where no test is meaningful")]
    EloBeyondRange(f64),
    #[error("{0} must be in (0, 0.5)")]
    ErrorRate(f64),
    #[error("must be at least 1")]
    NoPairs,
    #[error("{0} is more than {MAX_SPRT_PAIRS}")]
    TooManyPairs(u64),
}

impl Problem {
    /// This problem under `key`.
    pub(crate) fn at(self, key: impl Into<String>) -> ConfigError {
        ConfigError::at(key, self)
    }
}

/// A game's set-up error under the arena key it comes from: an option's error names its own key
/// (`options.max_rounds`), not the map that was being set up when it was found.
pub(super) fn setup_error(section: &str, e: SetupError) -> ConfigError {
    match e {
        SetupError::Option { key, message } => {
            Problem::BadOption(message).at(format!("{section}.{key}"))
        }
        other => Problem::Setup(other).at(section),
    }
}
