//! The pure part of reading an arena: the raw TOML types and the loaded maps in, a validated
//! [`Arena`] out, or the first key it cannot take. No file is read and no program looked up here
//! (that is `maps` before and `prepare` after), so every check of a value against the game and
//! against the other values is in this one place.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::bot::BotSpec;
use crate::bot::external::ExternalOptions;
use crate::game::{Game, MapText, Setup, SetupError};
use crate::games::GameId;
use crate::registry::{GameDef, find_bot, resolve_variant};

use super::super::bot_files::BotFingerprint;
use super::super::determinism::seedless_builtin;
use super::super::schedule::Format;
use super::error::{ConfigError, Problem, setup_error};
use super::raw::{FormatName, RawArena, RawBot, RawLeague, strings};
use super::sprt_settings::TestContext;
use super::{Arena, ArenaBot, LeagueSettings, MAX_CONCURRENCY, MAX_PLANNED};

/// The arena's name: it names the results folder, so no path tricks.
pub(super) fn arena_name(given: &str) -> Result<String, ConfigError> {
    let name = given.trim().to_string();
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        || name.starts_with('.')
    {
        return Err(Problem::BadArenaName(given.to_string()).at("name"));
    }
    Ok(name)
}

/// The game named by `game`.
pub(super) fn game(given: &str) -> Result<GameId, ConfigError> {
    given.parse().map_err(|e| Problem::UnknownGame(e).at("game"))
}

/// The game's variant (its first when none is given).
pub(super) fn variant<D: GameDef>(given: Option<&str>) -> Result<String, ConfigError> {
    resolve_variant::<D>(given).map_err(|e| Problem::Setup(e).at("variant"))
}

/// A map and the key it came from (`maps.files[2]`, `maps.glob`, `maps.generate`), so a map the
/// game refuses is named by it.
pub(super) struct LoadedMap {
    pub key: String,
    pub map: MapText,
}

/// What is known before the rest of the file is validated.
pub(super) struct Header {
    pub name: String,
    pub game: GameId,
    pub variant: String,
    pub seed: u64,
    /// Where the arena came from, for messages.
    pub source: PathBuf,
}

/// Validates everything but the name, game and maps' sources (see [`Header`]) against the game
/// and the maps; `generator_params` are the `[maps.generate]` settings, which an SPRT reuses.
/// The bots' programs are not looked at: external bots' `files` are left unhashed.
pub(super) fn arena<D: GameDef>(
    raw: RawArena,
    header: Header,
    maps: Vec<LoadedMap>,
    generator_params: Option<BTreeMap<String, String>>,
) -> Result<Arena, ConfigError> {
    let Header { name, game, variant, seed, source } = header;
    let options = strings(raw.options);
    let roles = roles::<D>(&maps, &variant, &options, seed)?;
    let maps: Vec<MapText> = maps.into_iter().map(|m| m.map).collect();

    if raw.bots.len() < 2 {
        return Err(Problem::TooFewBots(raw.bots.len()).at("bots"));
    }
    let mut bots: Vec<ArenaBot> = Vec::new();
    for (i, b) in raw.bots.into_iter().enumerate() {
        let context = BotContext { game, roles: &roles, sandbox: raw.sandbox, stderr: raw.stderr };
        let bot = bot::<D>(b, &format!("bots[{i}]"), &context, &bots)?;
        bots.push(bot);
    }

    let league = league(raw.format, raw.league)?;
    let format = format(raw.format, raw.candidate, raw.candidates, &bots)?;
    let games_per_pairing = match raw.games_per_pairing {
        None => 1,
        Some(n) if n >= 1 => n as u64,
        Some(n) => return Err(Problem::BelowOne(n).at("games_per_pairing")),
    };
    let concurrency = match raw.concurrency {
        None | Some(0) => None,
        Some(n) if (1..=MAX_CONCURRENCY as i64).contains(&n) => Some(n as usize),
        Some(n) => return Err(Problem::Concurrency(n).at("concurrency")),
    };
    let limits = raw.limits;
    limits.check().map_err(|e| Problem::Limit(e.clone()).at(format!("limits.{}", e.key)))?;
    let sprt = raw
        .sprt
        .map(|s| {
            s.check::<D>(TestContext {
                bots: &bots,
                roles: &roles,
                variant: &variant,
                generator_params,
                seed,
            })
        })
        .transpose()?;

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
        replays: raw.replays.unwrap_or_default(),
        analysis: raw.analysis.unwrap_or(false),
        sprt,
        league,
        source,
    };
    // Asked for its pairings and totals only: no seed of it is played.
    let schedule = arena.schedule(&crate::seed::SeedKey::PUBLIC);
    if schedule.pairings().is_empty() {
        return Err(Problem::NoPairing.at("bots"));
    }
    // A run keeps one bit per planned match, so the total must fit in memory (and in a u64).
    let per_game: u64 = schedule.pairings().iter().map(|p| p.orders.len() as u64).sum();
    if per_game.checked_mul(arena.games_per_pairing).is_none_or(|total| total > MAX_PLANNED) {
        let problem = Problem::TooManyMatches { games: arena.games_per_pairing, per_game };
        return Err(problem.at("games_per_pairing"));
    }
    Ok(arena)
}

/// The game's roles: every map is set up with the arena's options and must give the same.
fn roles<D: GameDef>(
    maps: &[LoadedMap],
    variant: &str,
    options: &BTreeMap<String, String>,
    seed: u64,
) -> Result<Vec<String>, ConfigError> {
    let mut roles: Option<Vec<String>> = None;
    for LoadedMap { key, map } in maps {
        let setup = Setup {
            variant: variant.to_string(),
            options: options.clone(),
            map: map.clone(),
            seed,
        };
        let (g, _warnings) = D::new_game(&setup).map_err(|e| match e {
            SetupError::Option { .. } => setup_error("options", e),
            _ => Problem::Setup(e).at(key),
        })?;
        let map_roles = g.roles();
        match &roles {
            None => roles = Some(map_roles),
            Some(first) if *first != map_roles => {
                let problem = Problem::RolesDiffer {
                    map: map.name.clone(),
                    roles: map_roles,
                    first: first.clone(),
                };
                return Err(problem.at(key));
            }
            Some(_) => {}
        }
    }
    Ok(roles.expect("the map sources give at least one map"))
}

/// What a bot's validation needs of the arena around it.
struct BotContext<'a> {
    game: GameId,
    /// The game's roles, in seat order.
    roles: &'a [String],
    /// The arena's `sandbox`, for bots that set none.
    sandbox: Option<crate::bot::external::SandboxMode>,
    /// The arena's `stderr`.
    stderr: Option<bool>,
}

/// One `[[bots]]` table at `key`; `earlier` are the bots before it.
fn bot<D: GameDef>(
    b: RawBot,
    key: &str,
    at: &BotContext<'_>,
    earlier: &[ArenaBot],
) -> Result<ArenaBot, ConfigError> {
    let roles = at.roles;
    let name = b.name.trim().to_string();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(Problem::BadBotName(b.name).at(format!("{key}.name")));
    }
    if earlier.iter().any(|o| o.name == name) {
        return Err(Problem::DuplicateBot(name).at(format!("{key}.name")));
    }
    let spec_text = b.spec.unwrap_or_else(|| name.clone());
    let spec: BotSpec =
        spec_text.parse().map_err(|e| Problem::Spec(e).at(format!("{key}.spec")))?;
    let can_play: Vec<String> = match &spec {
        BotSpec::Builtin(builtin) => {
            let info = find_bot::<D>(builtin.as_str()).map_err(|_| {
                let problem = Problem::UnknownBuiltin {
                    game: D::NAME,
                    name: builtin.clone(),
                    known: D::BOTS.iter().map(|b| b.name).collect(),
                };
                problem.at(format!("{key}.spec"))
            })?;
            roles.iter().filter(|r| info.roles.contains(&r.as_str())).cloned().collect()
        }
        BotSpec::Command(_) | BotSpec::CodinGame(_) => roles.to_vec(),
    };
    let bot_roles = match b.roles {
        None => can_play,
        Some(wanted) => {
            let at_roles = || format!("{key}.roles");
            if wanted.is_empty() {
                return Err(Problem::EmptyRoles.at(at_roles()));
            }
            for r in &wanted {
                if !roles.contains(r) {
                    let problem = Problem::UnknownRole {
                        game: D::NAME,
                        role: r.clone(),
                        roles: roles.to_vec(),
                    };
                    return Err(problem.at(at_roles()));
                }
                if !can_play.contains(r) {
                    let problem = Problem::CannotPlay {
                        bot: spec.to_string(),
                        role: r.clone(),
                        plays: can_play.clone(),
                    };
                    return Err(problem.at(at_roles()));
                }
            }
            // In the game's role order, whatever order the file lists them in.
            roles.iter().filter(|r| wanted.contains(r)).cloned().collect()
        }
    };
    if bot_roles.is_empty() {
        let problem = Problem::PlaysNoRole { bot: spec.to_string(), roles: roles.to_vec() };
        return Err(problem.at(format!("{key}.spec")));
    }
    if b.external.is_some() && matches!(spec, BotSpec::Builtin(_)) {
        return Err(Problem::ExternalOfBuiltin(spec.to_string()).at(format!("{key}.external")));
    }
    let deterministic = match (&spec, b.deterministic) {
        (BotSpec::Builtin(builtin), None) => seedless_builtin(at.game, builtin.as_str()),
        (BotSpec::Builtin(_), Some(_)) => {
            let problem = Problem::DeterminismOfBuiltin(spec.to_string());
            return Err(problem.at(format!("{key}.deterministic")));
        }
        (_, declared) => declared.unwrap_or(false),
    };
    let sandbox = b.external.as_ref().and_then(|e| e.sandbox).or(at.sandbox);
    let mut external = ExternalOptions { sandbox, ..b.external.unwrap_or_default() };
    if at.stderr == Some(false) {
        external = external.without_stderr();
    }
    if let Err((setting, message)) = external.check() {
        return Err(Problem::BadExternal(message).at(format!("{key}.external.{setting}")));
    }
    let limits = b.limits;
    limits.check().map_err(|e| Problem::Limit(e.clone()).at(format!("{key}.limits.{}", e.key)))?;
    // An external bot's files are hashed when the bots are prepared.
    let files = BotFingerprint::unhashed(&name, &spec);
    Ok(ArenaBot { name, spec, roles: bot_roles, limits, external, files, deterministic })
}

/// A league's settings: only with `format = "league"`, which always has them.
fn league(
    format: Option<FormatName>,
    raw: Option<RawLeague>,
) -> Result<Option<LeagueSettings>, ConfigError> {
    match (format, raw) {
        (Some(FormatName::League), settings) => {
            let settings = settings.unwrap_or_default();
            let window = settings.window.unwrap_or(8);
            if !(1..=1024).contains(&window) {
                return Err(Problem::LeagueWindow(window).at("league.window"));
            }
            Ok(Some(LeagueSettings { min_games: settings.min_games.unwrap_or(10), window }))
        }
        (_, Some(_)) => Err(Problem::LeagueOutsideLeague.at("league")),
        (_, None) => Ok(None),
    }
}

/// How bots are paired: a gauntlet's candidates by index (in increasing order); a league picks
/// its matches from a round robin.
fn format(
    format: Option<FormatName>,
    candidate: Option<String>,
    candidates: Option<Vec<String>>,
    bots: &[ArenaBot],
) -> Result<Format, ConfigError> {
    let named = match (candidate, candidates) {
        (Some(_), Some(_)) => return Err(Problem::CandidateAndCandidates.at("candidates")),
        (Some(c), None) => Some(vec![c]),
        (None, Some(list)) if list.is_empty() => {
            return Err(Problem::NoCandidates.at("candidates"));
        }
        (None, list) => list,
    };
    match (format, named) {
        (None | Some(FormatName::RoundRobin | FormatName::League), None) => Ok(Format::RoundRobin),
        (None | Some(FormatName::RoundRobin | FormatName::League), Some(_)) => {
            Err(Problem::CandidateOutsideGauntlet.at("candidate"))
        }
        (Some(FormatName::Gauntlet), None) => {
            Err(Problem::GauntletWithoutCandidate.at("candidate"))
        }
        (Some(FormatName::Gauntlet), Some(names)) => {
            let key = if names.len() == 1 { "candidate" } else { "candidates" };
            let mut candidates = Vec::with_capacity(names.len());
            for c in names {
                let Some(at) = bots.iter().position(|b| b.name == c) else {
                    return Err(Problem::NoSuchBot(c).at(key));
                };
                if candidates.contains(&at) {
                    return Err(Problem::NamedTwice(c).at(key));
                }
                candidates.push(at);
            }
            if candidates.len() == bots.len() {
                return Err(Problem::EveryBotCandidate.at(key));
            }
            candidates.sort_unstable();
            Ok(Format::Gauntlet { candidates })
        }
    }
}
