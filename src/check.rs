//! `arena check`: a bot's compliance run, before any tournament. It plays the bot on the game's
//! shipped maps against deterministic built-in opponents, each map twice under the same seed,
//! and checks what a tournament would otherwise show one lost match at a time: that the bot
//! starts within the first-turn limit, answers every turn with a legal action, stops at the end
//! of its input and exits cleanly, plays the same under the same `ARENA_SEED`, and how its CPU
//! per turn and memory peak compare with the limits. The first failure comes with the exchange
//! that failed: what arena sent, what it expected, what it got (CodinGame's "expected ...
//! found ...").

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::bot::{BotSpec, Ending, Supervisor, Termination, TimeLimits, TurnClock};
use crate::error::{Error, Result};
use crate::game::{Game, Seat};
use crate::games::GameId;
use crate::matches::{LimitOverrides, MapSource, MatchSpec, PlayedMatch, Player};
use crate::registry::GameDef;
use crate::replay::ActionLine;

/// What to check.
#[derive(Clone, Debug)]
pub struct CheckSpec {
    /// The game.
    pub game: GameId,
    /// Its variant (`None`: the game's first).
    pub variant: Option<String>,
    /// Game options, `key = value`.
    pub options: BTreeMap<String, String>,
    /// The role the bot plays (`None`: the game's first role).
    pub role: Option<String>,
    /// The bot, with how it runs.
    pub player: Player,
    /// The maps (empty: the game's shipped maps, [`GameDef::check_maps`]).
    pub maps: Vec<MapSource>,
    /// The match seed of every map: the bot's `ARENA_SEED` derives from it.
    pub seed: u64,
    /// Time limit overrides.
    pub limits: LimitOverrides,
    /// The resident memory all of the bot's processes together must stay under, in MiB (the
    /// memory a tournament will give it); `None`: the address-space limit, if any.
    pub memory_mib: Option<u64>,
}

/// How one check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// It holds on every map.
    Pass,
    /// It failed somewhere: the detail says where.
    Fail,
    /// It could not be checked (an earlier failure hid it, or nothing could be measured).
    Skip,
}

/// One line of the checklist.
#[derive(Clone, Debug, Serialize)]
pub struct CheckLine {
    /// A stable name (`starts`, `answers`, `stops`, `exits`, `deterministic`, `cpu`, `memory`).
    pub id: &'static str,
    /// What is checked, in words.
    pub title: &'static str,
    /// How it came out.
    pub verdict: Verdict,
    /// What was measured, or where it failed.
    pub detail: String,
}

/// The exchange that failed first: what arena sent the bot, what it expected, what it got.
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    /// The check that failed.
    pub check: &'static str,
    /// The map it failed on.
    pub map: String,
    /// Which of the bot's decisions (from 1); `None` for what happens after the last.
    pub decision: Option<usize>,
    /// The lines arena wrote to the bot for that decision (`None` where nothing was sent).
    pub sent: Option<String>,
    /// What a compliant bot does there.
    pub expected: String,
    /// What this bot did.
    pub got: String,
    /// The bot's last stderr lines, where they explain it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
}

/// The result of `arena check`.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The bot's spec.
    pub bot: String,
    /// The game, variant and role it was checked in.
    pub game: GameId,
    /// The variant.
    pub variant: String,
    /// The role.
    pub role: String,
    /// The opponents, by role.
    pub opponents: BTreeMap<String, String>,
    /// The maps played (each twice).
    pub maps: Vec<String>,
    /// The match seed of every map.
    pub seed: u64,
    /// The checklist, in order.
    pub checks: Vec<CheckLine>,
    /// The first failure's exchange.
    pub first_failure: Option<Exchange>,
    /// Whether every check passed (or could not be measured without any failing).
    pub passed: bool,
}

/// Runs the check `spec` describes; `supervisor` starts the bot.
pub fn run(spec: &CheckSpec, supervisor: &Supervisor) -> Result<CheckReport> {
    crate::with_game!(spec.game, D => run_game::<D>(spec, supervisor))
}

/// The two plays of one map, under the same seed.
struct MapRuns {
    name: String,
    runs: [PlayedMatch; 2],
}

fn run_game<D: GameDef>(spec: &CheckSpec, supervisor: &Supervisor) -> Result<CheckReport> {
    let variant = crate::registry::resolve_variant::<D>(spec.variant.as_deref())
        .map_err(|e| Error::Usage(format!("--variant: {e}")))?;
    let maps: Vec<MapSource> = if spec.maps.is_empty() {
        D::check_maps(&variant).into_iter().map(MapSource::Text).collect()
    } else {
        spec.maps.clone()
    };
    let roles = roles_of::<D>(spec, &variant, &maps[0])?;
    let role = match &spec.role {
        Some(role) if roles.contains(role) => role.clone(),
        Some(role) => {
            return Err(Error::Usage(format!(
                "--role `{role}`: {} has no such role (roles: {})",
                D::NAME,
                roles.join(", ")
            )));
        }
        // A built-in bot plays the first role it can; an external one the game's first.
        None => {
            let builtin = match &spec.player.spec {
                BotSpec::Builtin(name) => D::BOTS.iter().find(|b| b.name == name),
                _ => None,
            };
            let playable = |r: &&String| builtin.is_none_or(|b| b.roles.contains(&r.as_str()));
            roles.iter().find(playable).unwrap_or(&roles[0]).clone()
        }
    };
    let seat = roles.iter().position(|r| *r == role).expect("the role is one of them");
    let mut players = BTreeMap::from([(role.clone(), spec.player.clone())]);
    let mut opponents = BTreeMap::new();
    for other in roles.iter().filter(|r| **r != role) {
        let name = opponent::<D>(&variant, other).ok_or_else(|| {
            Error::Usage(format!(
                "{} has no deterministic built-in bot for role `{other}`",
                D::NAME
            ))
        })?;
        opponents.insert(other.clone(), name.to_string());
        players.insert(other.clone(), Player::new(BotSpec::Builtin(name.into())));
    }
    let mut played = Vec::new();
    for map in maps {
        let match_spec = MatchSpec {
            game: spec.game,
            variant: Some(variant.clone()),
            options: spec.options.clone(),
            map,
            players: players.clone(),
            seed: spec.seed,
            limits: spec.limits,
        };
        let first = crate::matches::play(&match_spec, supervisor)?;
        let second = crate::matches::play(&match_spec, supervisor)?;
        played.push(MapRuns { name: first.header.map.name.clone(), runs: [first, second] });
    }
    let limits = played[0].runs[0].header.seats[seat].limits;
    let external = !matches!(spec.player.spec, BotSpec::Builtin(_));
    let mut checks = Vec::new();
    let mut failures = Vec::new();
    let mut record = |line: CheckLine, failure: Option<Exchange>| {
        failures.extend(failure);
        checks.push(line);
    };
    let (line, failure) = check_starts::<D>(&played, seat, &limits);
    record(line, failure);
    let (line, failure) = check_answers::<D>(&played, seat, &limits);
    record(line, failure);
    let (line, failure) = check_stops(&played, seat, external);
    record(line, failure);
    let (line, failure) = check_exits(&played, seat, external);
    record(line, failure);
    let (line, failure) = check_deterministic::<D>(&played, seat);
    record(line, failure);
    let (line, failure) = check_cpu::<D>(&played, seat, &limits);
    record(line, failure);
    let memory_limit = spec.memory_mib.or(spec.player.external.address_space_mb);
    record(check_memory(&played, seat, external, memory_limit), None);
    let passed = checks.iter().all(|c| c.verdict != Verdict::Fail);
    Ok(CheckReport {
        bot: spec.player.spec.to_string(),
        game: spec.game,
        variant,
        role,
        opponents,
        maps: played.iter().map(|m| m.name.clone()).collect(),
        seed: spec.seed,
        checks,
        first_failure: failures.into_iter().next(),
        passed,
    })
}

/// The roles of the game the first map sets up.
fn roles_of<D: GameDef>(spec: &CheckSpec, variant: &str, map: &MapSource) -> Result<Vec<String>> {
    let map = crate::matches::resolve_map::<D>(variant, map)?;
    let setup = crate::game::Setup {
        variant: variant.to_string(),
        options: spec.options.clone(),
        map,
        seed: spec.seed,
    };
    let (game, _) = D::new_game(&setup)?;
    Ok(game.roles())
}

/// The built-in bot that plays `role` against the checked bot: the game's default when it plays
/// the same whatever its seed and however loaded the machine, else the first such bot, so a
/// difference between the two plays of a map is the checked bot's.
fn opponent<D: GameDef>(variant: &str, role: &str) -> Option<&'static str> {
    let deterministic = |name: &str| D::BOTS.iter().any(|b| b.name == name && b.deterministic);
    D::default_bot(variant, role).filter(|name| deterministic(name)).or_else(|| {
        D::BOTS.iter().find(|b| b.deterministic && b.roles.contains(&role)).map(|b| b.name)
    })
}

/// The lines arena wrote to `seat` for the decision at `index` of `played`'s steps (the game's
/// opening block as well when it is the seat's first), and up to three of its legal actions.
fn sent_at<D: GameDef>(
    played: &PlayedMatch,
    index: usize,
    seat: Seat,
) -> Option<(String, Vec<String>)> {
    let (game, _) = D::new_game(&played.header.setup::<D>()).ok()?;
    let actions: Vec<ActionLine> =
        played.steps[..index].iter().map(|s| ActionLine::new(&played.header, s)).collect();
    let walked =
        crate::replay::walk(Path::new("check"), &played.header, game, &actions, &mut ()).ok()?;
    let view = walked.game.view(seat);
    let mut sent = String::new();
    if !played.steps[..index].iter().any(|s| s.seat == seat) {
        sent.push_str(&D::G::init_input(&view));
    }
    sent.push_str(&D::G::turn_input(&view));
    let mut examples: Vec<String> = Vec::new();
    for action in D::G::legal_actions_of(&view) {
        let text = D::G::format_action(&D::G::canonical(&action));
        if !examples.contains(&text) {
            examples.push(text);
        }
        if examples.len() == 3 {
            break;
        }
    }
    Some((sent, examples))
}

/// The index in `steps` of `seat`'s `n`-th decision (from 1), or the end when it has fewer.
fn index_of_decision(played: &PlayedMatch, seat: Seat, n: usize) -> usize {
    played
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.seat == seat)
        .nth(n - 1)
        .map_or(played.steps.len(), |(i, _)| i)
}

fn decisions_of(played: &PlayedMatch, seat: Seat) -> usize {
    played.steps.iter().filter(|s| s.seat == seat).count()
}

/// The bot's failure in `played`, when it ended the match.
fn fault_of(played: &PlayedMatch, seat: Seat) -> Option<Termination> {
    let s = &played.summary;
    (s.culprit == Some(seat) && s.termination.is_fault()).then_some(s.termination)
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    match (n, thing.ends_with('h')) {
        (1, _) => format!("1 {thing}"),
        (_, true) => format!("{n} {thing}es"),
        _ => format!("{n} {thing}s"),
    }
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

fn micros_ms(micros: u64) -> String {
    if micros < 10_000 {
        format!("{:.1} ms", micros as f64 / 1000.0)
    } else {
        format!("{} ms", micros / 1000)
    }
}

/// What the clock of `limits` measures, for the details.
fn clock_words(limits: &TimeLimits) -> &'static str {
    match limits.clock {
        TurnClock::Cpu => "CPU time",
        TurnClock::Wall => "wall time",
    }
}

/// A decision's time on the match's clock, in microseconds.
fn turn_micros(step: &crate::referee::Step, clock: TurnClock) -> u64 {
    match clock {
        TurnClock::Cpu => step.cpu_micros.unwrap_or(step.micros),
        TurnClock::Wall => step.micros,
    }
}

/// The exchange of the failure that ended `played` at the bot's decision `n`.
fn failure_exchange<D: GameDef>(
    check: &'static str,
    played: &PlayedMatch,
    seat: Seat,
    limits: &TimeLimits,
) -> Exchange {
    let n = decisions_of(played, seat) + 1;
    let index = index_of_decision(played, seat, n);
    let (sent, examples) = match sent_at::<D>(played, index, seat) {
        Some((sent, examples)) => (Some(sent), examples),
        None => (None, Vec::new()),
    };
    let s = &played.summary;
    let limit = if n == 1 { limits.first_turn } else { limits.per_turn };
    let detail = s.detail.clone().unwrap_or_default();
    let one_line = format!("one line the game reads as an action, within {}", ms(limit));
    let (expected, got) = match s.termination {
        Termination::Illegal => {
            let examples: Vec<String> = examples.iter().map(|e| format!("`{e}`")).collect();
            let examples = if examples.is_empty() {
                String::new()
            } else {
                format!(" (for example {})", examples.join(", "))
            };
            (
                format!("a legal action{examples}"),
                format!("`{}`: {detail}", s.offending.clone().unwrap_or_default()),
            )
        }
        Termination::Garbage => (
            one_line,
            match &s.offending {
                Some(line) => format!("`{line}`: {detail}"),
                None => detail,
            },
        ),
        Termination::Timeout => (
            format!("an answer within {} of {}", ms(limit), clock_words(limits)),
            format!("no answer: {detail}"),
        ),
        Termination::StartupFailed => ("a bot that starts".into(), detail),
        _ => (one_line, format!("{}: {detail}", s.termination)),
    };
    Exchange {
        check,
        map: played.header.map.name.clone(),
        decision: Some(n),
        sent,
        expected,
        got,
        stderr: played.reports[seat].stderr_tail.clone(),
    }
}

fn line(id: &'static str, title: &'static str, verdict: Verdict, detail: String) -> CheckLine {
    CheckLine { id, title, verdict, detail }
}

/// A failure in the bot's first decision that is not about its answer: it did not start, or
/// gave no answer.
fn failed_to_start(played: &PlayedMatch, seat: Seat) -> bool {
    decisions_of(played, seat) == 0
        && matches!(
            fault_of(played, seat),
            Some(
                Termination::StartupFailed
                    | Termination::Timeout
                    | Termination::Crash
                    | Termination::Eof
                    | Termination::OutputLimit
            )
        )
}

fn check_starts<D: GameDef>(
    maps: &[MapRuns],
    seat: Seat,
    limits: &TimeLimits,
) -> (CheckLine, Option<Exchange>) {
    const ID: &str = "starts";
    const TITLE: &str = "starts and answers its first turn within the first-turn limit";
    for m in maps {
        for played in &m.runs {
            if failed_to_start(played, seat) {
                let exchange = failure_exchange::<D>(ID, played, seat, limits);
                let detail = format!("on {}: {}", m.name, exchange.got);
                return (line(ID, TITLE, Verdict::Fail, detail), Some(exchange));
            }
        }
    }
    let firsts = maps.iter().flat_map(|m| &m.runs).filter_map(|p| {
        p.steps.iter().find(|s| s.seat == seat).map(|s| turn_micros(s, limits.clock))
    });
    let Some(slowest) = firsts.max() else {
        let detail = "it answered in time, and its answer was refused (see the next check)";
        return (line(ID, TITLE, Verdict::Pass, detail.into()), None);
    };
    let detail = format!(
        "slowest first answer {} of the {} limit ({})",
        micros_ms(slowest),
        ms(limits.first_turn),
        clock_words(limits)
    );
    (line(ID, TITLE, Verdict::Pass, detail), None)
}

fn check_answers<D: GameDef>(
    maps: &[MapRuns],
    seat: Seat,
    limits: &TimeLimits,
) -> (CheckLine, Option<Exchange>) {
    const ID: &str = "answers";
    const TITLE: &str = "answers every turn with a legal action";
    for m in maps {
        for played in &m.runs {
            if fault_of(played, seat).is_some() && !failed_to_start(played, seat) {
                let exchange = failure_exchange::<D>(ID, played, seat, limits);
                let detail = format!(
                    "on {}, decision {}: {}",
                    m.name,
                    exchange.decision.unwrap_or_default(),
                    played.summary.termination
                );
                return (line(ID, TITLE, Verdict::Fail, detail), Some(exchange));
            }
        }
    }
    if maps.iter().flat_map(|m| &m.runs).any(|p| failed_to_start(p, seat)) {
        let detail = "not checked: it did not start".to_string();
        return (line(ID, TITLE, Verdict::Skip, detail), None);
    }
    let decisions: usize = maps.iter().map(|m| decisions_of(&m.runs[0], seat)).sum();
    let wins = maps
        .iter()
        .filter(|m| {
            m.runs[0].summary.winner.as_deref() == Some(&*m.runs[0].header.seats[seat].role)
        })
        .count();
    let detail = format!(
        "{decisions} decisions on {}, all legal; won {wins} of {}",
        count(maps.len(), "map"),
        maps.len()
    );
    (line(ID, TITLE, Verdict::Pass, detail), None)
}

/// How the bot ended in each play where it did not fail first.
fn endings(maps: &[MapRuns], seat: Seat) -> Vec<(&str, &PlayedMatch, Option<Ending>)> {
    maps.iter()
        .flat_map(|m| m.runs.iter().map(move |p| (m.name.as_str(), p)))
        .filter(|(_, p)| fault_of(p, seat).is_none())
        .map(|(name, p)| (name, p, p.reports[seat].ending))
        .collect()
}

const END_OF_INPUT: &str = "(end of input: its standard input closes after the match)";

fn check_stops(maps: &[MapRuns], seat: Seat, external: bool) -> (CheckLine, Option<Exchange>) {
    const ID: &str = "stops";
    const TITLE: &str = "stops when its input ends";
    let ended = endings(maps, seat);
    if !external || ended.is_empty() {
        let why = if external { "it failed in every match" } else { "a built-in bot" };
        return (line(ID, TITLE, Verdict::Skip, format!("not checked: {why}")), None);
    }
    let mut slowest = 0;
    for (name, played, ending) in &ended {
        match ending {
            Some(Ending::Stopped { grace_ms }) => {
                let exchange = Exchange {
                    check: ID,
                    map: name.to_string(),
                    decision: None,
                    sent: Some(END_OF_INPUT.into()),
                    expected: format!("it exits within {grace_ms} ms (the kill grace)"),
                    got: format!(
                        "still running {grace_ms} ms later: arena stopped it (SIGTERM, then \
                         SIGKILL)"
                    ),
                    stderr: played.reports[seat].stderr_tail.clone(),
                };
                let detail =
                    format!("on {name}: still running {grace_ms} ms after its input ended");
                return (line(ID, TITLE, Verdict::Fail, detail), Some(exchange));
            }
            Some(Ending::Exited { after_ms: Some(ms), .. }) => slowest = slowest.max(*ms),
            Some(Ending::Exited { after_ms: None, .. }) | None => {}
        }
    }
    let detail = format!("exited at most {slowest} ms after its input ended");
    (line(ID, TITLE, Verdict::Pass, detail), None)
}

fn check_exits(maps: &[MapRuns], seat: Seat, external: bool) -> (CheckLine, Option<Exchange>) {
    const ID: &str = "exits";
    const TITLE: &str = "exits cleanly (exit code 0)";
    let ended = endings(maps, seat);
    let codes: Vec<_> = ended
        .iter()
        .filter_map(|(name, played, ending)| match ending {
            Some(Ending::Exited { code, signal, .. }) => Some((*name, *played, *code, *signal)),
            _ => None,
        })
        .collect();
    if !external || codes.is_empty() {
        let why = if !external {
            "a built-in bot"
        } else if ended.is_empty() {
            "it failed in every match"
        } else {
            "it did not exit by itself"
        };
        return (line(ID, TITLE, Verdict::Skip, format!("not checked: {why}")), None);
    }
    for (name, played, code, signal) in &codes {
        if *code == Some(0) {
            continue;
        }
        let got = match (code, signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("killed by {}", signal_name(*signal)),
            (None, None) => "an unknown end".to_string(),
        };
        let exchange = Exchange {
            check: ID,
            map: name.to_string(),
            decision: None,
            sent: Some(END_OF_INPUT.into()),
            expected: "exit code 0".into(),
            got: got.clone(),
            stderr: played.reports[seat].exit_stderr_tail.clone(),
        };
        let detail = format!("on {name}: {got}");
        return (line(ID, TITLE, Verdict::Fail, detail), Some(exchange));
    }
    let detail = format!("exit code 0 in {} of {}", codes.len(), count(2 * maps.len(), "match"));
    (line(ID, TITLE, Verdict::Pass, detail), None)
}

fn signal_name(signal: i32) -> String {
    match nix::sys::signal::Signal::try_from(signal) {
        Ok(s) => s.as_str().to_string(),
        Err(_) => format!("signal {signal}"),
    }
}

fn check_deterministic<D: GameDef>(maps: &[MapRuns], seat: Seat) -> (CheckLine, Option<Exchange>) {
    const ID: &str = "deterministic";
    const TITLE: &str = "plays the same with the same ARENA_SEED";
    if maps.iter().flat_map(|m| &m.runs).any(|p| failed_to_start(p, seat)) {
        return (line(ID, TITLE, Verdict::Skip, "not checked: it did not start".into()), None);
    }
    for m in maps {
        let [a, b] = &m.runs;
        let mine = |p: &PlayedMatch| -> Vec<(usize, String)> {
            p.steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.seat == seat)
                .map(|(i, s)| (i, s.action.clone()))
                .collect()
        };
        let (first, second) = (mine(a), mine(b));
        let ended = |p: &PlayedMatch| match &p.summary.detail {
            Some(detail) => format!("{}: {detail}", p.summary.termination),
            None => format!("the end of the match ({})", p.summary.reason),
        };
        let (n, at, expected, got) = match first.iter().zip(&second).position(|(x, y)| x.1 != y.1) {
            Some(k) => (
                k + 1,
                (a, first[k].0),
                format!("`{}`, its answer the first time", first[k].1),
                format!("`{}`", second[k].1),
            ),
            // The same answers as far as both went: one play went on longer, or ended otherwise.
            None if first.len() != second.len()
                || a.summary.termination != b.summary.termination =>
            {
                let k = first.len().min(second.len());
                let (shorter, longer, longer_answers) =
                    if second.len() <= first.len() { (b, a, &first) } else { (a, b, &second) };
                let expected = match longer_answers.get(k) {
                    Some((_, action)) => format!("`{action}`, as in the other play"),
                    None => format!("as in the other play, {}", ended(longer)),
                };
                (
                    k + 1,
                    (shorter, index_of_decision(shorter, seat, k + 1)),
                    expected,
                    ended(shorter),
                )
            }
            None => continue,
        };
        let sent = sent_at::<D>(at.0, at.1, seat).map(|(sent, _)| sent);
        let exchange = Exchange {
            check: ID,
            map: m.name.clone(),
            decision: Some(n),
            sent,
            expected,
            got,
            stderr: Vec::new(),
        };
        let detail = format!(
            "on {}, decision {n}: the two plays under seed {} differ",
            m.name, a.header.seed
        );
        return (line(ID, TITLE, Verdict::Fail, detail), Some(exchange));
    }
    let detail = format!("{} played twice each, the same answers", count(maps.len(), "map"));
    (line(ID, TITLE, Verdict::Pass, detail), None)
}

/// A decision's time on the match's clock, its map, its play and its index in the steps.
type Worst<'a> = Option<(u64, &'a MapRuns, &'a PlayedMatch, usize)>;

fn check_cpu<D: GameDef>(
    maps: &[MapRuns],
    seat: Seat,
    limits: &TimeLimits,
) -> (CheckLine, Option<Exchange>) {
    const ID: &str = "cpu";
    const TITLE: &str = "time per turn within the limits";
    // The slowest first decision and the slowest later one: time, map, play, index in steps.
    let mut worst_first: Worst<'_> = None;
    let mut worst_later: Worst<'_> = None;
    for m in maps {
        for played in &m.runs {
            for (n, (index, step)) in
                played.steps.iter().enumerate().filter(|(_, s)| s.seat == seat).enumerate()
            {
                let micros = turn_micros(step, limits.clock);
                let slot = if n == 0 { &mut worst_first } else { &mut worst_later };
                if slot.is_none_or(|(w, ..)| micros > w) {
                    *slot = Some((micros, m, played, index));
                }
            }
        }
    }
    fn over(worst: Worst<'_>, limit: Duration) -> Worst<'_> {
        worst.filter(|(micros, ..)| Duration::from_micros(*micros) > limit)
    }
    let failed = over(worst_first, limits.first_turn)
        .map(|w| (w, limits.first_turn))
        .or_else(|| over(worst_later, limits.per_turn).map(|w| (w, limits.per_turn)));
    if let Some(((micros, m, played, index), limit)) = failed {
        let n = played.steps[..=index].iter().filter(|s| s.seat == seat).count();
        let exchange = Exchange {
            check: ID,
            map: m.name.clone(),
            decision: Some(n),
            sent: sent_at::<D>(played, index, seat).map(|(sent, _)| sent),
            expected: format!("an answer within {} of {}", ms(limit), clock_words(limits)),
            got: format!(
                "`{}` after {} (over the limit; the grace or the time bank let it pass)",
                played.steps[index].action,
                micros_ms(micros)
            ),
            stderr: Vec::new(),
        };
        let detail = format!("on {}, decision {n}: {} of {}", m.name, micros_ms(micros), ms(limit));
        return (line(ID, TITLE, Verdict::Fail, detail), Some(exchange));
    }
    let share = |micros: u64, limit: Duration| {
        let limit = limit.as_micros().max(1) as f64;
        format!("{} ({:.0}%)", micros_ms(micros), 100.0 * micros as f64 / limit)
    };
    let mut parts = Vec::new();
    if let Some((micros, ..)) = worst_first {
        parts.push(format!(
            "first turn {} of {}",
            share(micros, limits.first_turn),
            ms(limits.first_turn)
        ));
    }
    if let Some((micros, ..)) = worst_later {
        parts.push(format!(
            "later turns at most {} of {}",
            share(micros, limits.per_turn),
            ms(limits.per_turn)
        ));
    }
    if parts.is_empty() {
        let detail = "not checked: no answer it gave was played";
        return (line(ID, TITLE, Verdict::Skip, detail.into()), None);
    }
    let detail = format!("{} ({})", parts.join("; "), clock_words(limits));
    (line(ID, TITLE, Verdict::Pass, detail), None)
}

fn check_memory(maps: &[MapRuns], seat: Seat, external: bool, limit_mib: Option<u64>) -> CheckLine {
    const ID: &str = "memory";
    const TITLE: &str = "memory peak within the limit";
    let peak =
        maps.iter().flat_map(|m| &m.runs).filter_map(|p| p.reports[seat].memory_peak_kib).max();
    let Some(peak) = peak.filter(|_| external) else {
        let why = if external { "its memory could not be read" } else { "a built-in bot" };
        return line(ID, TITLE, Verdict::Skip, format!("not checked: {why}"));
    };
    let mib = peak as f64 / 1024.0;
    match limit_mib {
        Some(limit) if mib > limit as f64 => line(
            ID,
            TITLE,
            Verdict::Fail,
            format!("resident peak {mib:.1} MiB, over the {limit} MiB limit"),
        ),
        Some(limit) => line(
            ID,
            TITLE,
            Verdict::Pass,
            format!("resident peak {mib:.1} MiB of the {limit} MiB limit"),
        ),
        None => line(
            ID,
            TITLE,
            Verdict::Pass,
            format!("resident peak {mib:.1} MiB (no limit given: --memory-mb gives one)"),
        ),
    }
}
