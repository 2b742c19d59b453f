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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

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
    /// Candidates tried at once, each on a thread of its own (at least 1). The maps found do
    /// not depend on it.
    pub jobs: usize,
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
    // Any map of the search tells its roles; ranges may draw settings the generator refuses,
    // so the first of a few draws it accepts (none: its reason for the first, a usage error).
    let mut samples =
        (0..64).map(|i| D::generate_map(&variant, &draw(&separating, &s.fixed, i), 1));
    let first = samples.next().expect("64 draws");
    let sample = match first {
        Ok(map) => map,
        Err(e) => samples.find_map(std::result::Result::ok).ok_or(e)?,
    };
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

    let bots = Bots { against: &against, opponent: &opponent };
    let (mut found, passed_over, candidates) =
        run_candidates(s, progress, |candidate| -> Result<Outcome> {
            let settings = draw(&separating, &s.fixed, map_seed(s.seed, candidate));
            let seed = map_seed(s.seed ^ 0x5E9A, candidate);
            // A drawn combination the generator refuses (more spiders and flies than vertices,
            // more gateway links than nodes) is no candidate.
            let Ok(map) = D::generate_map(&variant, &settings, seed) else {
                return Ok(Outcome::Refused);
            };
            Ok(match check_candidate::<D>(&variant, &roles, &map, &bots, seed)? {
                Ok((value, results)) => Outcome::Found(Box::new(Found {
                    candidate,
                    settings,
                    map_seed: seed,
                    value,
                    results,
                    map,
                })),
                Err(passed_over) => passed_over,
            })
        })?;
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

/// What one candidate turned out to be.
enum Outcome {
    Found(Box<Found>),
    Refused,
    Unsettled,
    Lost,
    BotReached,
}

/// Tries candidates 0, 1, 2, ... with `try_candidate` on `s.jobs` threads, until the first
/// `s.count` of them that separate are known or `s.max_candidates` are tried; returns the maps
/// found in candidate order, the counts of the others, and the candidates counted. The answer is
/// the one trying them one by one would give, whatever the number of threads: outcomes are taken
/// in candidate order, and those of candidates past the last one counted (threads that ran ahead)
/// are dropped. Progress is reported in that order too.
fn run_candidates(
    s: &Search,
    progress: &mut dyn FnMut(u64, usize),
    try_candidate: impl Fn(u64) -> Result<Outcome> + Sync,
) -> Result<(Vec<Found>, PassedOver, u64)> {
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let (sender, outcomes) = mpsc::channel::<(u64, Result<Outcome>)>();
    std::thread::scope(|scope| {
        for _ in 0..s.jobs.max(1) {
            let sender = sender.clone();
            let (next, stop, try_candidate) = (&next, &stop, &try_candidate);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let candidate = next.fetch_add(1, Ordering::Relaxed);
                    if candidate >= s.max_candidates
                        || sender.send((candidate, try_candidate(candidate))).is_err()
                    {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting: BTreeMap<u64, Result<Outcome>> = BTreeMap::new();
        let (mut found, mut passed_over, mut counted) = (Vec::new(), PassedOver::default(), 0);
        let mut error = None;
        // Ends when every thread has stopped (after its candidate in hand).
        for (candidate, outcome) in outcomes {
            waiting.insert(candidate, outcome);
            while found.len() < s.count && error.is_none() {
                let Some(outcome) = waiting.remove(&counted) else { break };
                counted += 1;
                match outcome {
                    Ok(Outcome::Found(f)) => found.push(*f),
                    Ok(Outcome::Refused) => passed_over.refused += 1,
                    Ok(Outcome::Unsettled) => passed_over.unsettled += 1,
                    Ok(Outcome::Lost) => passed_over.lost += 1,
                    Ok(Outcome::BotReached) => passed_over.bot_reached += 1,
                    Err(e) => error = Some(e),
                }
                progress(counted, found.len());
            }
            if found.len() >= s.count || error.is_some() {
                stop.store(true, Ordering::Relaxed);
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok((found, passed_over, counted)),
        }
    })
}

/// Whether `map` separates: the solver's value for the first role, then each named bot's match.
/// `Ok`: the value and how each bot did; `Err`: why the map is passed over.
fn check_candidate<D: GameDef>(
    variant: &str,
    roles: &[String],
    map: &MapText,
    bots: &Bots<'_>,
    seed: u64,
) -> Result<std::result::Result<(Value, Vec<BotResult>), Outcome>> {
    let Some(value) = solver_value(game_of::<D>(), variant, map)? else {
        return Ok(Err(Outcome::Unsettled));
    };
    let target = match &value {
        Value::WonBy(role) if *role == roles[0] => 1.0,
        Value::WonBy(_) => return Ok(Err(Outcome::Lost)),
        Value::Score(s) => f64::from(*s),
    };
    let mut results = Vec::new();
    for bot in bots.against {
        let seats = [(roles[0].as_str(), bot.as_str()), (roles[1].as_str(), bots.opponent)];
        let played = play(game_of::<D>(), variant, map, seed, seats)?;
        let score = played.summary.scores[0];
        if score >= target {
            return Ok(Err(Outcome::BotReached));
        }
        results.push(BotResult { bot: bot.clone(), score, reason: played.summary.reason });
    }
    Ok(Ok((value, results)))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn search(count: usize, max_candidates: u64, jobs: usize) -> Search {
        Search {
            game: GameId::Skynet,
            variant: None,
            fixed: BTreeMap::new(),
            against: Vec::new(),
            opponent: None,
            count,
            seed: 1,
            max_candidates,
            jobs,
        }
    }

    /// A stand-in candidate: every seventh separates, the others are passed over for one reason
    /// or another, and the late ones among the first are slow, so threads finish out of order.
    fn fake(candidate: u64) -> Result<Outcome> {
        std::thread::sleep(std::time::Duration::from_millis((candidate * 13 % 5) * 2));
        Ok(match candidate % 7 {
            3 => Outcome::Found(Box::new(Found {
                candidate,
                settings: BTreeMap::new(),
                map_seed: candidate,
                value: Value::WonBy("virus".into()),
                results: Vec::new(),
                map: MapText { name: String::new(), text: String::new() },
            })),
            0 | 1 => Outcome::Lost,
            2 => Outcome::Refused,
            4 => Outcome::Unsettled,
            _ => Outcome::BotReached,
        })
    }

    fn run(s: &Search) -> (Vec<u64>, PassedOver, u64, Vec<(u64, usize)>) {
        let mut reports = Vec::new();
        let (found, passed, counted) =
            run_candidates(s, &mut |c, f| reports.push((c, f)), fake).unwrap();
        (found.iter().map(|f| f.candidate).collect(), passed, counted, reports)
    }

    #[test]
    fn the_candidates_counted_do_not_depend_on_the_threads() {
        let one = run(&search(4, 1000, 1));
        assert_eq!(one.0, [3, 10, 17, 24]);
        // Candidates 0 to 24: 8 lost, 4 refused, 3 unsettled, 6 reached by a bot.
        let expected = PassedOver { refused: 4, unsettled: 3, lost: 8, bot_reached: 6 };
        assert_eq!((one.1.clone(), one.2), (expected, 25));
        assert_eq!(one.3.len(), 25);
        assert_eq!(one.3.last(), Some(&(25, 4)));
        for jobs in [2, 3, 8] {
            assert_eq!(run(&search(4, 1000, jobs)), one, "{jobs} threads");
        }
        // Too few candidates: every one is counted, on any number of threads.
        let few = run(&search(4, 12, 1));
        assert_eq!((few.0.clone(), few.2), (vec![3, 10], 12));
        assert_eq!(run(&search(4, 12, 5)), few);
    }

    #[test]
    fn an_error_is_the_first_in_candidate_order() {
        let failing = |c: u64| -> Result<Outcome> {
            std::thread::sleep(std::time::Duration::from_millis(20 - c.min(20)));
            if c == 5 || c == 9 { Err(Error::Usage(format!("candidate {c}"))) } else { fake(c) }
        };
        for jobs in [1, 4] {
            let e = run_candidates(&search(50, 1000, jobs), &mut |_, _| {}, failing).unwrap_err();
            assert!(e.to_string().contains("candidate 5"), "{jobs}: {e}");
        }
    }

    #[test]
    fn a_range_is_drawn_within_its_ends_and_other_values_are_kept() {
        assert_eq!(range("100..300"), Some((100, 300)));
        assert_eq!(range(" 7 .. 7"), Some((7, 7)));
        for value in ["300..100", "5", "a..b", "1..", "..4", "-1..3", "trap"] {
            assert_eq!(range(value), None, "{value}");
        }
        let separating = crate::games::skynet::Skynet::SEPARATING.expect("skynet searches");
        let fixed: BTreeMap<String, String> = [("nodes", "100..300"), ("family", "plane")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let drawn = draw(&separating, &fixed, seed);
            assert_eq!(drawn, draw(&separating, &fixed, seed));
            assert_eq!(drawn["family"], "plane");
            let nodes: u64 = drawn["nodes"].parse().unwrap();
            assert!((100..=300).contains(&nodes), "{drawn:?}");
            seen.insert(nodes);
        }
        assert!(seen.len() > 50, "{seen:?}");
    }
}
