//! Maps that separate strategies: `arena gen GAME --separating`.
//!
//! A tournament ranks strategies only if its maps tell them apart; on typical generated maps the
//! good and the weak all win. This search draws generated maps (seeded: candidate `i` is a pure
//! function of the search's seed and `i`) and keeps those on which the exact solver says the
//! first role can reach a value (Skynet: the virus forces a win; Greedy Spiders: the defender
//! does, against perfect spiders; Painters' Duel: Alma's score) that every named bot, playing
//! that role against the opponent, falls short of in a real match (the harness's own match code,
//! [`crate::matches::play`]). The solver's verdict is bounded by a count of positions and the
//! bots' turns by generous time limits, so with deterministic bots the same seed finds the same
//! maps on any machine.

use std::collections::BTreeMap;
use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::{Limits, Value, analyze_actions};
use crate::bot::{BotSpec, Supervisor};
use crate::error::{Error, Result};
use crate::game::{Game, MapText, Setup};
use crate::games::GameId;
use crate::matches::{LimitOverrides, MapSource, MatchSpec, Player};
use crate::registry::{GameDef, Separating, find_bot, resolve_variant};
use crate::replay::{Header, REPLAY_VERSION, SeatInfo};
use crate::seed::map_seed;

/// The games whose maps can be searched: those with an exact solver and a generator, which
/// register what the search needs ([`GameDef::SEPARATING`]).
pub fn games() -> Vec<GameId> {
    GameId::ALL
        .iter()
        .copied()
        .filter(|&g| crate::with_game!(g, D => D::SEPARATING.is_some()))
        .collect()
}

/// Positions the solver may search to settle a candidate's value; a candidate it cannot settle
/// is passed over.
pub const SOLVER_POSITIONS: u64 = 2_000_000;

/// The turn time of every match of the search: long enough that no bot ever runs short (a
/// search bot that fell back to a weaker move in a slow moment would make the search depend
/// on the machine's load).
const TURN_MS: u64 = 30_000;

/// What to search for.
#[derive(Clone, Debug)]
pub struct Search {
    pub game: GameId,
    /// `None`: the game's default variant.
    pub variant: Option<String>,
    /// Generator settings to keep fixed; the others are drawn per candidate.
    pub fixed: BTreeMap<String, String>,
    /// The bots that must fall short (built-in names); empty: the game's default list.
    pub against: Vec<String>,
    /// The bot they play against; `None`: the game's default.
    pub opponent: Option<String>,
    /// How many maps to find.
    pub count: usize,
    pub seed: u64,
    /// How many candidates to try at most before giving up.
    pub max_candidates: u64,
}

/// The defaults of a game: the bots that must fall short, and their opponent (`None`: a game
/// the search cannot search).
pub fn defaults(game: GameId) -> Option<(&'static [&'static str], &'static str)> {
    crate::with_game!(game, D => D::SEPARATING.map(|s| (s.against, s.opponent)))
}

/// How a bot did on a map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotResult {
    pub bot: String,
    /// Its score in the match (the first role's).
    pub score: f64,
    /// The match's reason, in words.
    pub reason: String,
}

/// One map found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Found {
    /// The candidate's number in the search, from 0.
    pub candidate: u64,
    /// The generator's settings and seed for this candidate (`arena gen GAME --KEY VALUE ...
    /// --seed SEED` prints the map without the header this search adds).
    pub settings: BTreeMap<String, String>,
    pub map_seed: u64,
    /// The first role's value with perfect play.
    pub value: Value,
    /// How each named bot did against the opponent.
    pub results: Vec<BotResult>,
    /// The map, with a header saying how it was found and what separates.
    pub map: MapText,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchReport {
    pub game: GameId,
    pub variant: String,
    /// The role the named bots play.
    pub role: String,
    pub against: Vec<String>,
    pub opponent: String,
    pub seed: u64,
    /// Candidates drawn.
    pub candidates: u64,
    /// Why the others were passed over.
    pub passed_over: PassedOver,
    pub found: Vec<Found>,
}

/// Counts of candidates passed over, by reason: what to change when a search finds too few.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PassedOver {
    /// The generator refused the drawn settings.
    pub refused: u64,
    /// The solver did not settle the start within its positions.
    pub unsettled: u64,
    /// The first role cannot force a win (Painters' Duel: never, a score is always a value).
    pub lost: u64,
    /// A named bot reached the solver's value.
    pub bot_reached: u64,
}

/// Searches for separating maps; `progress(candidates, found)` is called after each candidate.
pub fn search(s: &Search, mut progress: impl FnMut(u64, usize)) -> Result<SearchReport> {
    crate::with_game!(s.game, D => search_game::<D>(s, &mut progress))
}

fn search_game<D: GameDef>(
    s: &Search,
    progress: &mut dyn FnMut(u64, usize),
) -> Result<SearchReport> {
    let Some(separating) = D::SEPARATING else {
        return Err(Error::Usage(format!(
            "--separating searches the maps of {} only (the games with an exact solver)",
            games().iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")
        )));
    };
    let variant = resolve_variant::<D>(s.variant.as_deref())?;
    if !separating.variants.contains(&variant.as_str()) {
        return Err(Error::Usage(format!(
            "--separating needs the exact solver, which plays {} only",
            separating.solver_plays
        )));
    }
    let against: Vec<String> = if s.against.is_empty() {
        separating.against.iter().map(ToString::to_string).collect()
    } else {
        s.against.clone()
    };
    let opponent = s.opponent.clone().unwrap_or_else(|| separating.opponent.to_string());
    let sample = D::generate_map(&variant, &draw(&separating, &s.fixed, 0), 1)?;
    let setup = Setup { variant: variant.clone(), options: BTreeMap::new(), map: sample, seed: 1 };
    let roles = D::new_game(&setup)?.0.roles();
    let check_role = |name: &str, role: &str, what: &str| -> Result<()> {
        let entry = find_bot::<D>(name).map_err(|e| Error::Usage(format!("{what}: {e}")))?;
        if entry.roles.contains(&role) {
            Ok(())
        } else {
            Err(Error::Usage(format!("{what}: `{name}` does not play {role}")))
        }
    };
    for bot in &against {
        check_role(bot, &roles[0], "--against")?;
    }
    check_role(&opponent, &roles[1], "--opponent")?;

    let mut found = Vec::new();
    let mut passed_over = PassedOver::default();
    let mut candidates = 0;
    while found.len() < s.count && candidates < s.max_candidates {
        let candidate = candidates;
        candidates += 1;
        let settings = draw(&separating, &s.fixed, map_seed(s.seed, candidate));
        let seed = map_seed(s.seed ^ 0x5E9A, candidate);
        // A drawn combination the generator refuses (more spiders and flies than vertices) is
        // no candidate.
        let Ok(map) = D::generate_map(&variant, &settings, seed) else {
            passed_over.refused += 1;
            continue;
        };
        let bots = Bots { against: &against, opponent: &opponent };
        match check_candidate::<D>(&variant, &roles, &map, &bots, seed)? {
            Verdict::Separates(value, results) => {
                found.push(Found { candidate, settings, map_seed: seed, value, results, map });
            }
            Verdict::Unsettled => passed_over.unsettled += 1,
            Verdict::Lost => passed_over.lost += 1,
            Verdict::BotReached => passed_over.bot_reached += 1,
        }
        progress(candidates, found.len());
    }
    let fixed: Vec<String> = s.fixed.iter().map(|(k, v)| format!(" --{k} {v}")).collect();
    let command = format!(
        "arena gen {} --variant {variant}{} --separating --against {} --opponent {opponent} \
         --seed {}",
        D::NAME,
        fixed.concat(),
        against.join(" "),
        s.seed
    );
    let header = |f: &mut Found| {
        f.map.text = describe::<D>(&variant, &roles, &command, f, &opponent) + &f.map.text;
        f.map.name = format!("{}-separating-{:04}.txt", D::NAME, f.candidate);
    };
    found.iter_mut().for_each(header);
    Ok(SearchReport {
        game: s.game,
        variant,
        role: roles[0].clone(),
        against,
        opponent,
        seed: s.seed,
        candidates,
        passed_over,
        found,
    })
}

/// The generator settings of candidate `seed`: the fixed ones, and the others drawn as the game
/// registers (where maps are small enough for the solver and often hard). A setting given as a
/// range `LOW..HIGH` of whole numbers is drawn uniformly from it (both ends included), first, so
/// the game's own draw sees the value (Skynet draws the gateways from the node count).
fn draw(
    separating: &Separating,
    fixed: &BTreeMap<String, String>,
    seed: u64,
) -> BTreeMap<String, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let fixed: BTreeMap<String, String> = fixed
        .iter()
        .map(|(key, value)| {
            let value = match range(value) {
                Some((low, high)) => rng.random_range(low..=high).to_string(),
                None => value.clone(),
            };
            (key.clone(), value)
        })
        .collect();
    let fixed = &fixed;
    let mut drawn: BTreeMap<String, String> = BTreeMap::new();
    let mut set = |key: &str, value: String| {
        drawn.insert(key.to_string(), fixed.get(key).cloned().unwrap_or(value));
    };
    (separating.draw)(fixed, &mut rng, &mut set);
    drawn.extend(fixed.iter().map(|(k, v)| (k.clone(), v.clone())));
    drawn
}

/// `LOW..HIGH` with `LOW <= HIGH`, whole numbers: a range of a setting to draw from.
fn range(value: &str) -> Option<(u64, u64)> {
    let (low, high) = value.split_once("..")?;
    let (low, high) = (low.trim().parse::<u64>().ok()?, high.trim().parse::<u64>().ok()?);
    (low <= high).then_some((low, high))
}

/// The bots of a search.
struct Bots<'a> {
    against: &'a [String],
    opponent: &'a str,
}

/// What a candidate turned out to be.
enum Verdict {
    Separates(Value, Vec<BotResult>),
    Unsettled,
    Lost,
    BotReached,
}

/// Whether `map` separates: the solver's value for the first role, then each named bot's match.
fn check_candidate<D: GameDef>(
    variant: &str,
    roles: &[String],
    map: &MapText,
    bots: &Bots<'_>,
    seed: u64,
) -> Result<Verdict> {
    let Some(value) = solver_value(game_of::<D>(), variant, map)? else {
        return Ok(Verdict::Unsettled);
    };
    let target = match &value {
        Value::WonBy(role) if *role == roles[0] => 1.0,
        Value::WonBy(_) => return Ok(Verdict::Lost),
        Value::Score(s) => f64::from(*s),
    };
    let mut results = Vec::new();
    for bot in bots.against {
        let seats = [(roles[0].as_str(), bot.as_str()), (roles[1].as_str(), bots.opponent)];
        let played = play(game_of::<D>(), variant, map, seed, seats)?;
        let score = played.summary.scores[0];
        if score >= target {
            return Ok(Verdict::BotReached);
        }
        results.push(BotResult { bot: bot.clone(), score, reason: played.summary.reason });
    }
    Ok(Verdict::Separates(value, results))
}

fn game_of<D: GameDef>() -> GameId {
    D::NAME.parse().expect("a registered game")
}

/// The exact solver's value of `map`'s start (in `game`'s default options), or `None` when it
/// cannot settle it within [`SOLVER_POSITIONS`] positions: what the search certifies a map with.
pub fn solver_value(game: GameId, variant: &str, map: &MapText) -> Result<Option<Value>> {
    crate::with_game!(game, D => solver_value_of::<D>(variant, map))
}

fn solver_value_of<D: GameDef>(variant: &str, map: &MapText) -> Result<Option<Value>> {
    let setup =
        Setup { variant: variant.to_string(), options: BTreeMap::new(), map: map.clone(), seed: 1 };
    let roles = D::new_game(&setup)?.0.roles();
    let header = Header {
        arena_replay: REPLAY_VERSION,
        game: game_of::<D>(),
        variant: variant.to_string(),
        options: BTreeMap::new(),
        map: map.clone(),
        seed: 1,
        seats: roles
            .iter()
            .enumerate()
            .map(|(seat, role)| SeatInfo {
                seat,
                role: role.clone(),
                bot: String::new(),
                spec: String::new(),
                limits: D::default_limits(variant),
            })
            .collect(),
    };
    let limits = Limits { time_ms: None, positions: Some(SOLVER_POSITIONS) };
    Ok(analyze_actions(Path::new(&map.name), &header, &[], limits)?.start)
}

/// Plays one match on `map` between built-in bots (`(role, bot)` per seat), with the search's
/// generous limits.
pub fn play(
    game: GameId,
    variant: &str,
    map: &MapText,
    seed: u64,
    seats: [(&str, &str); 2],
) -> Result<crate::matches::PlayedMatch> {
    let players = seats
        .iter()
        .map(|&(role, bot)| (role.to_string(), Player::new(BotSpec::Builtin(bot.to_string()))))
        .collect();
    let spec = MatchSpec {
        game,
        variant: Some(variant.to_string()),
        options: BTreeMap::new(),
        map: MapSource::Text(map.clone()),
        players,
        seed,
        limits: LimitOverrides {
            first_turn_ms: Some(TURN_MS),
            turn_ms: Some(TURN_MS),
            ..LimitOverrides::default()
        },
    };
    crate::matches::play(&spec, &Supervisor::new())
}

/// The `#` lines a found map starts with: how to find it again and what separates.
fn describe<D: GameDef>(
    variant: &str,
    roles: &[String],
    command: &str,
    f: &Found,
    opponent: &str,
) -> String {
    let settings: Vec<String> = f.settings.iter().map(|(k, v)| format!("--{k} {v}")).collect();
    let value = match &f.value {
        Value::WonBy(role) => format!("{role} forces a win"),
        Value::Score(s) => format!("{} scores {s:+} with perfect play", roles[0]),
    };
    let mut s = format!(
        "# SEPARATING: candidate {} of `{command}`; the map is `arena gen {} --variant {variant} \
         {} --seed {}`\n",
        f.candidate,
        D::NAME,
        settings.join(" "),
        f.map_seed
    );
    s += &format!("# SEPARATING: exact solver: {value}\n");
    for r in &f.results {
        s += &format!(
            "# SEPARATING: {} ({}) vs {opponent}: score {} ({})\n",
            r.bot, roles[0], r.score, r.reason
        );
    }
    s
}
