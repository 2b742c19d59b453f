//! From a user's description of a match (game, variant, options, map, bots, seed, limits) to a
//! played match: resolves the map, sets up the game, creates the bots, runs the referee and
//! returns a game-independent record of everything, ready for a replay file or a CSV row.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bot::external::{BotIdentity, ExternalBot, ExternalOptions};
use crate::bot::{Bot, BotReport, BotSpec, Supervisor, Termination, TimeLimits};
use crate::error::{Error, Result};
use crate::game::{Game, Outcome, Seat};
use crate::games::{BotSetup, GameDef, GameId, MapText, Setup, resolve_variant};
use crate::referee::{Step, bot_seed, play_match};

/// Where a match's map comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapSource {
    /// The game's embedded default map.
    Default,
    /// A map file in one of the game's formats.
    File(PathBuf),
    /// A map from the game's seeded generator.
    Generated { params: BTreeMap<String, String>, seed: u64 },
    /// A map already in memory (from a replay's header, or a tournament's map list).
    Text(MapText),
}

/// Time limit overrides; `None` keeps the game's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitOverrides {
    pub first_turn_ms: Option<u64>,
    pub per_turn_ms: Option<u64>,
    pub grace_ms: Option<u64>,
    pub bank_ms: Option<u64>,
}

impl LimitOverrides {
    /// `self` on top of `base`.
    pub fn apply(&self, base: TimeLimits) -> TimeLimits {
        let ms = |v: Option<u64>, d: Duration| v.map(Duration::from_millis).unwrap_or(d);
        TimeLimits {
            first_turn: ms(self.first_turn_ms, base.first_turn),
            per_turn: ms(self.per_turn_ms, base.per_turn),
            grace: ms(self.grace_ms, base.grace),
            bank: ms(self.bank_ms, base.bank),
        }
    }

    /// `other`'s settings where it has them, else `self`'s.
    pub fn or(&self, other: &LimitOverrides) -> LimitOverrides {
        LimitOverrides {
            first_turn_ms: other.first_turn_ms.or(self.first_turn_ms),
            per_turn_ms: other.per_turn_ms.or(self.per_turn_ms),
            grace_ms: other.grace_ms.or(self.grace_ms),
            bank_ms: other.bank_ms.or(self.bank_ms),
        }
    }
}

/// One seat's player: a bot spec and its own limit overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The name shown in results (defaults to the spec).
    pub name: String,
    pub spec: BotSpec,
    pub limits: LimitOverrides,
    /// How an external bot is run (ignored for built-in bots).
    pub external: ExternalOptions,
}

impl Player {
    pub fn new(spec: BotSpec) -> Player {
        Player {
            name: spec.to_string(),
            spec,
            limits: LimitOverrides::default(),
            external: ExternalOptions::default(),
        }
    }
}

/// A match as the user describes it.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub game: GameId,
    pub variant: Option<String>,
    pub options: BTreeMap<String, String>,
    pub map: MapSource,
    /// The player of each role, by role name.
    pub players: BTreeMap<String, Player>,
    pub seed: u64,
    /// Overrides for every seat (a player's own overrides come on top).
    pub limits: LimitOverrides,
}

/// One seat of a played match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatInfo {
    pub seat: Seat,
    pub role: String,
    /// The player's name.
    pub bot: String,
    /// The bot spec it ran.
    pub spec: String,
    pub limits: TimeLimits,
}

/// The first line of a replay: what is needed to play the match again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The replay format's version.
    pub arena_replay: u32,
    pub game: GameId,
    pub variant: String,
    pub options: BTreeMap<String, String>,
    pub map: MapText,
    pub seed: u64,
    pub seats: Vec<SeatInfo>,
}

/// The last line of a replay: how the match ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// The role that won, or `None` for a draw or a shared first place.
    pub winner: Option<String>,
    pub scores: Vec<f64>,
    pub ranks: Vec<u32>,
    /// The game's reason (or the forfeit's).
    pub reason: String,
    pub termination: Termination,
    pub culprit: Option<Seat>,
    pub culprit_role: Option<String>,
    pub detail: Option<String>,
    pub turns: usize,
    pub duration_ms: f64,
    pub max_turn_micros: Vec<u64>,
    #[serde(default)]
    pub reports: Vec<BotReport>,
}

impl MatchSummary {
    pub fn outcome(&self) -> Outcome {
        Outcome {
            scores: self.scores.clone(),
            ranks: self.ranks.clone(),
            reason: self.reason.clone(),
        }
    }
}

/// A played match, game-independent.
#[derive(Clone, Debug)]
pub struct PlayedMatch {
    pub header: Header,
    pub steps: Vec<Step>,
    pub summary: MatchSummary,
    /// Warnings about the setup (a map beyond the original game's limits, ...).
    pub warnings: Vec<String>,
}

pub const REPLAY_VERSION: u32 = 1;

/// Reads, generates or picks the map of a match.
pub fn resolve_map<D: GameDef>(variant: &str, source: &MapSource) -> Result<MapText> {
    Ok(match source {
        MapSource::Default => D::default_map(variant),
        MapSource::File(path) => MapText {
            name: path.display().to_string(),
            text: std::fs::read_to_string(path).map_err(|e| Error::read(path, e))?,
        },
        MapSource::Generated { params, seed } => D::generate_map(variant, params, *seed)?,
        MapSource::Text(map) => map.clone(),
    })
}

/// Plays the match `spec` describes; `supervisor` starts its external bots. A match during
/// which the supervisor began to stop every bot is [`Error::Interrupted`], not a result.
pub fn play(spec: &MatchSpec, supervisor: &Supervisor) -> Result<PlayedMatch> {
    crate::with_game!(spec.game, D => play_game::<D>(spec, supervisor))
}

fn play_game<D: GameDef>(spec: &MatchSpec, supervisor: &Supervisor) -> Result<PlayedMatch> {
    let variant = resolve_variant::<D>(spec.variant.as_deref())?;
    let map = resolve_map::<D>(&variant, &spec.map)?;
    let setup = Setup { variant, options: spec.options.clone(), map, seed: spec.seed };
    let (game, warnings) = D::new_game(&setup)?;
    let roles = game.roles();
    for role in spec.players.keys() {
        if !roles.contains(role) {
            return Err(Error::Usage(format!(
                "{} has no role `{role}` (roles: {})",
                D::NAME,
                roles.join(", ")
            )));
        }
    }
    let base = D::default_limits(&setup.variant);
    let mut seats = Vec::new();
    let mut bots: Vec<Box<dyn Bot<D::G>>> = Vec::new();
    for (seat, role) in roles.iter().enumerate() {
        let default = D::default_bot(&setup.variant, role)
            .map(|name| Player::new(BotSpec::Builtin(name.into())));
        let player = spec.players.get(role).or(default.as_ref()).ok_or_else(|| {
            Error::Usage(format!("no bot for role `{role}` (give one with --bot {role}=NAME)"))
        })?;
        let limits = spec.limits.or(&player.limits).apply(base);
        bots.push(make_bot::<D>(player, &setup, seat, role, supervisor)?);
        seats.push(SeatInfo {
            seat,
            role: role.clone(),
            bot: player.name.clone(),
            spec: player.spec.to_string(),
            limits,
        });
    }
    let limits: Vec<TimeLimits> = seats.iter().map(|s| s.limits).collect();
    let result = play_match(game, &mut bots, &limits, setup.seed);
    // The failures of bots a stop killed say nothing about the bots.
    if supervisor.is_stopping() {
        return Err(Error::Interrupted);
    }
    let header = Header {
        arena_replay: REPLAY_VERSION,
        game: spec.game,
        variant: setup.variant,
        options: setup.options,
        map: setup.map,
        seed: setup.seed,
        seats,
    };
    let summary = MatchSummary {
        winner: result.outcome.winner().map(|s| roles[s].clone()),
        scores: result.outcome.scores.clone(),
        ranks: result.outcome.ranks.clone(),
        reason: result.outcome.reason.clone(),
        termination: result.termination,
        culprit: result.culprit,
        culprit_role: result.culprit.map(|s| roles[s].clone()),
        detail: result.detail.clone(),
        turns: result.turns(),
        duration_ms: result.duration.as_secs_f64() * 1000.0,
        max_turn_micros: result.max_turn_micros.clone(),
        // The stderr tail explains a failure; the other seats' chatter would only bloat replays.
        reports: (0..roles.len())
            .map(|s| {
                if result.culprit == Some(s) {
                    result.reports[s].clone()
                } else {
                    BotReport::default()
                }
            })
            .collect(),
    };
    Ok(PlayedMatch { header, steps: result.steps, summary, warnings })
}

/// Creates the bot a player's spec names for one seat; `supervisor` starts an external one. An
/// external command that cannot be started is not an error here: its first turn fails with
/// `startup_failed`.
pub fn make_bot<D: GameDef>(
    player: &Player,
    setup: &Setup,
    seat: Seat,
    role: &str,
    supervisor: &Supervisor,
) -> Result<Box<dyn Bot<D::G>>> {
    let spec = &player.spec;
    let seed = bot_seed(setup.seed, seat);
    let bot_error = |message: String| Error::Bot {
        spec: spec.to_string(),
        seat,
        role: role.to_string(),
        message,
    };
    match spec {
        BotSpec::Builtin(name) => {
            let bot = BotSetup { seat, role: role.to_string(), seed, setup };
            D::builtin_bot(name, &bot).map_err(bot_error)
        }
        BotSpec::Command(words) => {
            // `require` on a machine that cannot: an error before the match, not the bot's fault.
            crate::bot::external::sandbox::preflight([&player.external])?;
            let identity = BotIdentity { game: D::NAME, role, seed };
            let options = player.external.clone();
            Ok(Box::new(ExternalBot::<D::G>::spawn(words, &identity, options, supervisor)))
        }
    }
}
