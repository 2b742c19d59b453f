//! From a user's description of a match (game, variant, options, map, bots, seed, limits) to a
//! played match: resolves the map, sets up the game, creates the bots, runs the referee and
//! returns a game-independent record of everything ([`PlayedMatch`]: the replay's header and
//! result, and the actions), ready for a replay file or a tournament's row. The records
//! themselves are the replay format's, in [`crate::replay`].

#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bot::external::{BotIdentity, ExternalBot, ExternalOptions};
use crate::bot::{Bot, BotReport, BotSpec, Supervisor, TimeLimits, TurnClock};
use crate::error::{Error, Result};
use crate::game::{Game, MapText, Seat, Setup};
use crate::games::GameId;
use crate::referee::{Step, play_match};
use crate::registry::{GameDef, builtin_bot, resolve_variant};
use crate::replay::{Header, MatchSummary, REPLAY_VERSION, SeatInfo};
use crate::seed::bot_seed;

/// Where a match's map comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapSource {
    /// The game's embedded default map.
    Default,
    /// A map file in one of the game's formats.
    File(PathBuf),
    /// A map from the game's seeded generator.
    Generated {
        /// The generator's settings (as `arena gen GAME --help` lists them).
        params: BTreeMap<String, String>,
        /// The generator's seed.
        seed: u64,
    },
    /// A map already in memory (from a replay's header, or a tournament's map list).
    Text(MapText),
}

/// Time limit overrides; `None` keeps the game's default. The one definition of these settings
/// from the command line to the validated [`TimeLimits`]: the arena file's `[limits]` table and
/// a bot's `limits` deserialize into it (unknown keys are errors), `arena play`'s flags are its
/// fields (`--turn-ms`), and [`check`](LimitOverrides::check) validates either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::Args)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of limits (first_turn_ms, turn_ms, grace_ms, bank_ms, clock, wall_cap_ms)"
)]
pub struct LimitOverrides {
    /// The limit of each seat's first decision, in ms.
    #[arg(long)]
    pub first_turn_ms: Option<u64>,
    /// The limit of every later decision, in ms.
    #[arg(long)]
    pub turn_ms: Option<u64>,
    /// Slack added to every limit before an answer counts as late, in ms.
    #[arg(long)]
    pub grace_ms: Option<u64>,
    /// A time bank per seat, in ms.
    #[arg(long)]
    pub bank_ms: Option<u64>,
    /// How a turn's time is measured: `cpu` (the CPU time the bot's processes use during the
    /// turn, with a wall-clock cap) or `wall` [default: cpu].
    #[arg(long, value_name = "CLOCK")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TurnClock>,
    /// With `--clock cpu`, the longest a decision may take on the wall clock, in ms
    /// [default: the turn's limit × 10 + 1000].
    #[arg(long, value_name = "MS")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_cap_ms: Option<u64>,
}

/// A time limit out of its range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BadLimit {
    /// The setting: its arena-file key (`turn_ms`); its flag is the same with dashes
    /// (`--turn-ms`).
    pub key: &'static str,
    /// Why, in words.
    pub message: String,
}

/// The longest first-turn or per-turn limit arena accepts: ten minutes.
pub const MAX_TURN_MS: u64 = 600_000;
/// The longest grace, bank or wall-clock cap arena accepts: an hour.
pub const MAX_EXTRA_MS: u64 = 3_600_000;

impl LimitOverrides {
    /// Checks every setting given: turn limits and the wall-clock cap from 1 ms, grace and bank
    /// from 0, none beyond its documented maximum.
    ///
    /// # Errors
    ///
    /// The first setting out of its range, by its key.
    pub fn check(&self) -> std::result::Result<(), BadLimit> {
        let settings = [
            ("first_turn_ms", self.first_turn_ms, 1, MAX_TURN_MS),
            ("turn_ms", self.turn_ms, 1, MAX_TURN_MS),
            ("grace_ms", self.grace_ms, 0, MAX_EXTRA_MS),
            ("bank_ms", self.bank_ms, 0, MAX_EXTRA_MS),
            ("wall_cap_ms", self.wall_cap_ms, 1, MAX_EXTRA_MS),
        ];
        for (key, value, min, max) in settings {
            if let Some(v) = value
                && !(min..=max).contains(&v)
            {
                let message = format!("{v} is out of range: from {min} to {max} ms");
                return Err(BadLimit { key, message });
            }
        }
        Ok(())
    }

    /// `self` on top of `base`.
    pub fn apply(&self, base: TimeLimits) -> TimeLimits {
        let ms = |v: Option<u64>, d: Duration| v.map(Duration::from_millis).unwrap_or(d);
        TimeLimits {
            first_turn: ms(self.first_turn_ms, base.first_turn),
            per_turn: ms(self.turn_ms, base.per_turn),
            grace: ms(self.grace_ms, base.grace),
            bank: ms(self.bank_ms, base.bank),
            clock: self.clock.unwrap_or(base.clock),
            wall_cap: self.wall_cap_ms.map(Duration::from_millis).or(base.wall_cap),
        }
    }

    /// `other`'s settings where it has them, else `self`'s.
    pub fn or(&self, other: &LimitOverrides) -> LimitOverrides {
        LimitOverrides {
            first_turn_ms: other.first_turn_ms.or(self.first_turn_ms),
            turn_ms: other.turn_ms.or(self.turn_ms),
            grace_ms: other.grace_ms.or(self.grace_ms),
            bank_ms: other.bank_ms.or(self.bank_ms),
            clock: other.clock.or(self.clock),
            wall_cap_ms: other.wall_cap_ms.or(self.wall_cap_ms),
        }
    }
}

/// One seat's player: a bot spec and its own limit overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The name shown in results (defaults to the spec).
    pub name: String,
    /// Which bot plays: a built-in name, `cmd:` or `cg:`.
    pub spec: BotSpec,
    /// This seat's own limits, over the match's.
    pub limits: LimitOverrides,
    /// How an external bot is run (ignored for built-in bots).
    pub external: ExternalOptions,
}

impl Player {
    /// The player `spec` names, under its own name, with no overrides.
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
    /// Which game.
    pub game: GameId,
    /// The game's variant; `None` is its first.
    pub variant: Option<String>,
    /// The game's options (`--opt key=value`), checked against its options type.
    pub options: BTreeMap<String, String>,
    /// Where the map comes from.
    pub map: MapSource,
    /// The player of each role, by role name.
    pub players: BTreeMap<String, Player>,
    /// The match's seed: the rules' RNG and every bot's seed derive from it.
    pub seed: u64,
    /// Overrides for every seat (a player's own overrides come on top).
    pub limits: LimitOverrides,
}

/// A played match, game-independent.
#[derive(Clone, Debug)]
pub struct PlayedMatch {
    /// What is needed to play the match again (the replay's first line).
    pub header: Header,
    /// The actions, in order.
    pub steps: Vec<Step>,
    /// How it ended (the replay's last line).
    pub summary: MatchSummary,
    /// Warnings about the setup (a map beyond the original game's limits, ...).
    pub warnings: Vec<String>,
    /// Per seat, what the bot left behind (the summary keeps the culprit's alone).
    pub reports: Vec<BotReport>,
}

impl PlayedMatch {
    /// Writes the match as a replay file.
    pub fn write_replay(&self, path: &std::path::Path) -> Result<()> {
        crate::replay::write_file(&self.header, &self.steps, &self.summary, path)
    }
}

/// Reads, generates or picks the map of a match.
pub(crate) fn resolve_map<D: GameDef>(variant: &str, source: &MapSource) -> Result<MapText> {
    Ok(match source {
        MapSource::Default => D::default_map(variant),
        MapSource::File(path) => MapText {
            name: path.display().to_string(),
            text: crate::game::read_input(path).map_err(|e| Error::read(path, e))?,
        },
        MapSource::Generated { params, seed } => D::generate_map(variant, params, *seed)?,
        MapSource::Text(map) => map.clone(),
    })
}

/// Plays the match `spec` describes; `supervisor` starts its external bots. A match during
/// which the supervisor began to stop every bot is [`Error::Interrupted`], not a result.
///
/// The exact solver against CodinGame's agent on the default Episode 2 map, recorded as a
/// replay and verified by playing it again:
///
/// ```
/// use std::collections::BTreeMap;
/// use arena::bot::Supervisor;
/// use arena::games::GameId;
/// use arena::matches::{MapSource, MatchSpec, Player, play};
///
/// let players = BTreeMap::from([
///     ("virus".to_string(), Player::new("solver".parse()?)),
///     ("agent".to_string(), Player::new("cg-ep2".parse()?)),
/// ]);
/// let spec = MatchSpec {
///     game: GameId::Skynet,
///     variant: Some("ep2".into()),
///     options: BTreeMap::new(),
///     map: MapSource::Default,
///     players,
///     seed: 5,
///     limits: Default::default(),
/// };
/// let played = play(&spec, &Supervisor::new())?;
/// assert_eq!(played.summary.turns, played.steps.len());
/// assert_eq!(played.summary.culprit, None);
///
/// let folder = tempfile::tempdir()?;
/// let path = folder.path().join("match.jsonl");
/// played.write_replay(&path)?;
/// let verified = arena::replay::verify(&path)?;
/// assert_eq!(verified.summary.winner, played.summary.winner);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
                "--bot `{role}=...`: {} has no role `{role}` (roles: {})",
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
        bots.push(make_bot::<D>(player, &setup, &game, seat, role, supervisor)?);
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
    let summary = MatchSummary::new(&result, &roles);
    Ok(PlayedMatch { header, steps: result.steps, summary, warnings, reports: result.reports })
}

/// Creates the bot a player's spec names for one seat; `supervisor` starts an external one. An
/// external command that cannot be started, or a `cg:` source that does not compile, is not an
/// error here: its first turn fails with `startup_failed`.
pub(crate) fn make_bot<D: GameDef>(
    player: &Player,
    setup: &Setup,
    game: &D::G,
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
        BotSpec::Builtin(name) => builtin_bot::<D>(name, seat, role, seed, setup, game)
            .map_err(|e| bot_error(e.to_string())),
        BotSpec::Command(words) => {
            // `require` on a machine that cannot: an error before the match, not the bot's fault.
            crate::bot::external::sandbox::preflight([&player.external])?;
            if let Some(problem) = crate::bot::external::program_problem(words, &player.external) {
                return Err(bot_error(problem));
            }
            let identity = BotIdentity { game: D::NAME, role, seed };
            let options = player.external.clone();
            Ok(Box::new(ExternalBot::<D::G>::spawn(words, &identity, options, supervisor)))
        }
        BotSpec::CodinGame(source) => {
            let identity = BotIdentity { game: D::NAME, role, seed };
            crate::bot::codingame::bot::<D::G>(
                source,
                &identity,
                player.external.clone(),
                supervisor,
            )
            .map_err(|e| e.into_error(|e| bot_error(e.to_string())))
        }
    }
}
