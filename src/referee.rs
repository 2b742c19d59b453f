//! Plays one match: asks the rules who acts, hands that seat's bot its view under the seat's time
//! limit, plays the answer, and records every step.
//!
//! The referee knows no game. It owns the match RNG (ChaCha8, seeded from the match seed), so the
//! same seed gives the same match, byte for byte. A bot's failure (late answer, crash, garbage,
//! illegal action) ends the match with that seat as the culprit; it is a result, not an error.

#![warn(missing_docs)]

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bot::{
    Bot, BotFailure, BotReport, Termination, TimeLimits, TurnClock, TurnContext, TurnLog,
};
use crate::game::{Game, Outcome, Seat, Status};
use crate::seed::rules_rng;

/// One action played, as the replay records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The seat that acted.
    pub seat: Seat,
    /// The action's protocol text, exactly as a bot would write it.
    pub action: String,
    /// How long the bot took, in microseconds (monotonic clock).
    pub micros: u64,
    /// The CPU time its processes (or, in-process, its thread) used meanwhile, in microseconds;
    /// `None` where it could not be read (a bot gone, a replay written before it was recorded).
    pub cpu_micros: Option<u64>,
    /// What the bot wrote to stderr during the decision, and its metrics (external bots).
    pub log: TurnLog,
}

/// Everything a match produced.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// Scores and ranks: the game's own, or the forfeit's when a bot failed.
    pub outcome: Outcome,
    /// How the match ended: normally, or by which failure of a bot.
    pub termination: Termination,
    /// The seat whose failure ended the match, for every termination but `Normal`.
    pub culprit: Option<Seat>,
    /// For a failure: what went wrong, with the offending text where there is one.
    pub detail: Option<String>,
    /// For a `garbage` or `illegal` ending: the culprit's line, as it wrote it (garbage) or as the
    /// game formats the refused action (illegal), so a replay's verification can show the rules
    /// refuse it.
    pub offending: Option<String>,
    /// The actions played, in order.
    pub steps: Vec<Step>,
    /// Per seat, the longest time one decision took, in microseconds.
    pub max_turn_micros: Vec<u64>,
    /// Per seat, the most CPU time one decision used, in microseconds.
    pub max_turn_cpu_micros: Vec<u64>,
    /// Per seat, what the bot left behind (stderr tails of external bots).
    pub reports: Vec<BotReport>,
    /// The match's wall-clock time.
    pub duration: Duration,
}

impl MatchResult {
    /// The number of actions played.
    pub fn turns(&self) -> usize {
        self.steps.len()
    }
}

/// Plays `game` to its end with one bot per seat.
///
/// `limits` has one entry per seat. The bots' `finish` is called once each, whatever happens.
pub fn play_match<G: Game>(
    mut game: G,
    bots: &mut [Box<dyn Bot<G>>],
    limits: &[TimeLimits],
    seed: u64,
) -> MatchResult {
    let seats = game.roles().len();
    assert_eq!(bots.len(), seats, "one bot per seat");
    assert_eq!(limits.len(), seats, "one time limit per seat");
    let started = Instant::now();
    let mut rng = rules_rng(seed);
    let mut steps = Vec::new();
    let mut decisions = vec![0u32; seats];
    let mut bank_left: Vec<Duration> = limits.iter().map(|l| l.bank).collect();
    let mut max_turn_micros = vec![0u64; seats];
    let mut max_turn_cpu_micros = vec![0u64; seats];

    let (outcome, termination, culprit, detail, offending) = loop {
        let seat = match game.status() {
            Status::Over(outcome) => {
                break (outcome, Termination::of_rules(&game), None, None, None);
            }
            Status::ToAct(seat) => seat,
        };
        let view = game.view(seat);
        let lim = &limits[seat];
        let limit = if decisions[seat] == 0 { lim.first_turn } else { lim.per_turn };
        let allowance = limit + bank_left[seat];
        let turn_start = Instant::now();
        // On the CPU clock the wall clock only caps the turn, so a bot that sleeps or blocks
        // still ends; on the wall clock the cap is the limit itself.
        let wall_cap = match lim.clock {
            TurnClock::Wall => allowance + lim.grace,
            TurnClock::Cpu => lim.wall_cap_of(limit) + bank_left[seat] + lim.grace,
        };
        let ctx = TurnContext {
            started: turn_start,
            deadline: match lim.clock {
                TurnClock::Wall => turn_start + allowance,
                TurnClock::Cpu => turn_start + wall_cap,
            },
            hard_deadline: turn_start + wall_cap,
            decision: decisions[seat],
            clock: lim.clock,
            cpu_allowance: allowance,
            cpu_hard_allowance: allowance + lim.grace,
        };
        let cpu_before = bots[seat].cpu_time();
        let answer = bots[seat].act(&view, &ctx);
        let wall = turn_start.elapsed();
        let cpu = cpu_before
            .zip(bots[seat].cpu_time())
            .map(|(before, after)| after.saturating_sub(before));
        let log = bots[seat].take_log();
        decisions[seat] += 1;
        let micros = wall.as_micros() as u64;
        let cpu_micros = cpu.map(|c| c.as_micros() as u64);
        max_turn_micros[seat] = max_turn_micros[seat].max(micros);
        max_turn_cpu_micros[seat] = max_turn_cpu_micros[seat].max(cpu_micros.unwrap_or(0));
        let measured = match lim.clock {
            TurnClock::Wall => wall,
            // A clock that could not be read (the bot is gone) charges the wall time.
            TurnClock::Cpu => cpu.unwrap_or(wall),
        };
        let timing = TurnTiming {
            decision: decisions[seat] - 1,
            limit,
            bank_left: bank_left[seat],
            wall_cap,
            wall,
            cpu,
        };

        let fail = |failure: BotFailure, game: &G| {
            let detail = match failure {
                BotFailure::Timeout => timeout_detail(lim, &timing),
                _ => failure.to_string(),
            };
            let offending = match &failure {
                BotFailure::Garbage { line, .. } => Some(line.clone()),
                _ => None,
            };
            (
                game.forfeit(seat, &detail),
                failure.termination(),
                Some(seat),
                Some(detail),
                offending,
            )
        };
        // A late answer is a timeout even if the bot (an in-process one cannot be preempted)
        // did answer in the end. A failure keeps its own label: the harness may have spent the
        // rest of the turn telling a crash from a closed output.
        if answer.is_ok() && (measured > allowance + lim.grace || wall > wall_cap) {
            break fail(BotFailure::Timeout, &game);
        }
        bank_left[seat] = bank_left[seat].saturating_sub(measured.saturating_sub(limit));
        let action = match answer {
            Ok(action) => action,
            Err(failure) => break fail(failure, &game),
        };
        let text = G::format_action(&action);
        if let Err(illegal) = game.play(seat, &action, &mut rng) {
            let detail = format!("illegal action {text:?}: {illegal}");
            let outcome = game.forfeit(seat, &detail);
            break (outcome, Termination::Illegal, Some(seat), Some(detail), Some(text));
        }
        steps.push(Step { seat, action: text, micros, cpu_micros, log });
    };

    let reports = bots.iter_mut().map(|b| b.finish()).collect();
    MatchResult {
        outcome,
        termination,
        culprit,
        detail,
        offending,
        steps,
        max_turn_micros,
        max_turn_cpu_micros,
        reports,
        duration: started.elapsed(),
    }
}

/// What was measured of a decision that may have timed out.
struct TurnTiming {
    /// 0 for the seat's first decision.
    decision: u32,
    limit: Duration,
    bank_left: Duration,
    wall_cap: Duration,
    wall: Duration,
    cpu: Option<Duration>,
}

/// A timeout's detail: the limit passed, what was measured on both clocks, and the options that
/// set them, so a user can tell a slow bot from a busy machine and knows what to change.
fn timeout_detail(limits: &TimeLimits, t: &TurnTiming) -> String {
    let ms = |d: Duration| format!("{} ms", d.as_millis());
    let (which, option) = if t.decision == 0 {
        ("first-turn", "--first-turn-ms / first_turn_ms")
    } else {
        ("per-turn", "--turn-ms / turn_ms")
    };
    let cpu = t.cpu.map_or_else(|| "unknown".to_string(), ms);
    let measured = format!("measured {} wall, {cpu} CPU", ms(t.wall));
    let mut limit = format!("{which} limit {}", ms(t.limit));
    if !t.bank_left.is_zero() {
        limit.push_str(&format!(" + bank {} left", ms(t.bank_left)));
    }
    if !limits.grace.is_zero() {
        limit.push_str(&format!(" + grace {}", ms(limits.grace)));
    }
    let over_cap = limits.clock == TurnClock::Cpu
        && t.wall >= t.wall_cap
        && t.cpu.is_none_or(|c| c <= t.limit + t.bank_left + limits.grace);
    if over_cap {
        format!(
            "no answer within the wall-clock cap {} of the cpu clock (its {limit} of CPU time \
             was not used up): {measured}; set by --wall-cap-ms / wall_cap_ms (default: the \
             limit x 10 + 1000 ms)",
            ms(t.wall_cap)
        )
    } else {
        format!(
            "no answer within the {limit} of {} time: {measured}; set by {option} (and the \
             clock by --clock / clock)",
            limits.clock.as_str().replace("cpu", "CPU")
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use rand::{Rng, RngExt};

    use super::*;
    use crate::game::{BadLine, Illegal, MapText, Setup, SetupError};
    use crate::registry::{BotEntry, Drawing, Event, Exact, GameDef, RandomBot, Separating};

    /// A race to 20: each seat in turn adds 1 or 2, or rolls a die (chance from the referee).
    #[derive(Clone, Debug, PartialEq)]
    struct Race {
        total: u32,
        to_act: Seat,
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Step2 {
        Add(u32),
        Roll,
    }

    impl Game for Race {
        type Action = Step2;
        type View = Race;

        fn roles(&self) -> Vec<String> {
            vec!["first".into(), "second".into()]
        }

        fn status(&self) -> Status {
            if self.total >= 20 {
                // The seat that just moved reached 20.
                Status::Over(Outcome::win(2, 1 - self.to_act, "reached 20"))
            } else {
                Status::ToAct(self.to_act)
            }
        }

        fn view(&self, _seat: Seat) -> Race {
            self.clone()
        }

        fn play(&mut self, seat: Seat, action: &Step2, rng: &mut dyn Rng) -> Result<(), Illegal> {
            if seat != self.to_act {
                return Err(Illegal::new("not your turn"));
            }
            self.total += match *action {
                Step2::Add(n @ 1..=2) => n,
                Step2::Add(n) => return Err(Illegal::new(format!("cannot add {n}"))),
                Step2::Roll => rng.random_range(1..=6),
            };
            self.to_act = 1 - seat;
            Ok(())
        }

        fn legal_actions_of(view: &Race) -> Vec<Step2> {
            if view.total >= 20 {
                return Vec::new();
            }
            vec![Step2::Add(1), Step2::Add(2), Step2::Roll]
        }

        fn init_input(_: &Race) -> String {
            String::new()
        }

        fn turn_input(view: &Race) -> String {
            format!("{}\n", view.total)
        }

        fn parse_action(_: &Race, line: &str) -> Result<Step2, BadLine> {
            match line.trim() {
                "roll" => Ok(Step2::Roll),
                n => n.parse().map(Step2::Add).map_err(|_| format!("bad {n:?}").into()),
            }
        }

        fn format_action(action: &Step2) -> String {
            match action {
                Step2::Add(n) => n.to_string(),
                Step2::Roll => "roll".into(),
            }
        }
    }

    /// Plays a fixed action, optionally after sleeping, or fails.
    struct Scripted {
        action: Result<Step2, BotFailure>,
        sleep: Duration,
        finished: Arc<AtomicUsize>,
    }

    impl Bot<Race> for Scripted {
        fn act(&mut self, _: &Race, _: &TurnContext) -> Result<Step2, BotFailure> {
            std::thread::sleep(self.sleep);
            self.action.clone()
        }

        fn finish(&mut self) -> BotReport {
            self.finished.fetch_add(1, Ordering::SeqCst);
            BotReport::default()
        }
    }

    fn bot(action: Result<Step2, BotFailure>, sleep_ms: u64) -> Box<dyn Bot<Race>> {
        let finished = Arc::new(AtomicUsize::new(0));
        Box::new(Scripted { action, sleep: Duration::from_millis(sleep_ms), finished })
    }

    /// Wall-clock limits: the scripted bots sleep, which only the wall clock sees.
    fn limits(per_turn_ms: u64) -> Vec<TimeLimits> {
        vec![TimeLimits::new(per_turn_ms, per_turn_ms).on(TurnClock::Wall); 2]
    }

    fn cpu_limits(per_turn_ms: u64) -> Vec<TimeLimits> {
        vec![TimeLimits::new(per_turn_ms, per_turn_ms).on(TurnClock::Cpu); 2]
    }

    /// Burns `ms` of its thread's CPU time, then adds 1.
    struct Burner {
        ms: u64,
    }

    impl Bot<Race> for Burner {
        fn act(&mut self, _: &Race, _: &TurnContext) -> Result<Step2, BotFailure> {
            let until = crate::budget::thread_cpu_time() + Duration::from_millis(self.ms);
            let mut x = 0u64;
            while crate::budget::thread_cpu_time() < until {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
            }
            Ok(Step2::Add(1))
        }
    }

    #[test]
    fn on_the_cpu_clock_sleeping_is_free_until_the_wall_cap() {
        // 30 ms of sleep a turn against a 5 ms limit: no CPU time, so no timeout.
        let mut bots = vec![bot(Ok(Step2::Add(1)), 0), bot(Ok(Step2::Add(1)), 30)];
        let r = play_match(race(), &mut bots, &cpu_limits(5), 1);
        assert_eq!(r.termination, Termination::Normal, "{:?}", r.detail);
        assert!(r.max_turn_micros[1] >= 30_000);
        assert!(r.max_turn_cpu_micros[1] < 30_000, "{:?}", r.max_turn_cpu_micros);
        assert!(r.steps.iter().all(|s| s.cpu_micros.is_some()));
        // With a wall-clock cap of 10 ms the sleeper ends at its first turn.
        let mut capped = cpu_limits(5);
        capped[1].wall_cap = Some(Duration::from_millis(10));
        let mut bots = vec![bot(Ok(Step2::Add(1)), 0), bot(Ok(Step2::Add(1)), 30)];
        let r = play_match(race(), &mut bots, &capped, 1);
        assert_eq!((r.termination, r.culprit), (Termination::Timeout, Some(1)));
        let detail = r.detail.unwrap();
        assert!(detail.contains("wall-clock cap 10 ms"), "{detail}");
        assert!(detail.contains("wall_cap_ms"), "{detail}");
    }

    #[test]
    fn on_the_cpu_clock_work_beyond_the_limit_is_a_timeout_naming_both_clocks() {
        let mut bots: Vec<Box<dyn Bot<Race>>> =
            vec![bot(Ok(Step2::Add(1)), 0), Box::new(Burner { ms: 40 })];
        let r = play_match(race(), &mut bots, &cpu_limits(5), 1);
        assert_eq!((r.termination, r.culprit), (Termination::Timeout, Some(1)));
        assert!(r.max_turn_cpu_micros[1] >= 40_000, "{:?}", r.max_turn_cpu_micros);
        let detail = r.detail.unwrap();
        assert!(detail.contains("first-turn limit 5 ms of CPU time"), "{detail}");
        assert!(detail.contains("wall") && detail.contains("--first-turn-ms"), "{detail}");
        // The same work on the wall clock is a timeout too, named so.
        let mut bots: Vec<Box<dyn Bot<Race>>> =
            vec![bot(Ok(Step2::Add(1)), 0), Box::new(Burner { ms: 40 })];
        let r = play_match(race(), &mut bots, &limits(5), 1);
        assert_eq!((r.termination, r.culprit), (Termination::Timeout, Some(1)));
        assert!(r.detail.unwrap().contains("of wall time"));
    }

    fn race() -> Race {
        Race { total: 0, to_act: 0 }
    }

    /// Race registered as a game: everything a game adds to the harness besides its rules. It
    /// registers every fact a real game does (docs/architecture.md, "Adding a game", is checked
    /// against the trait below).
    struct RaceDef;

    #[derive(Clone, Debug, Default, serde::Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct RaceOptions {}

    impl GameDef for RaceDef {
        type G = Race;
        type Options = RaceOptions;

        const NAME: &'static str = "race";
        const SUMMARY: &'static str = "a race to 20: add 1 or 2, or roll a die";
        const VARIANTS: &'static [&'static str] = &["standard"];
        const BOTS: &'static [BotEntry<RaceDef>] = &[BotEntry {
            name: "random",
            roles: &["first", "second"],
            summary: "a uniformly random legal action (seeded)",
            deterministic: false,
            make: |b| Box::new(RandomBot::new(b.seed)),
        }];
        const CHANCE: bool = true;
        const INIT: &'static str = "# A race: every pair of bots, each in both seats.\n\
                                    name = \"NAME\"\ngame = \"race\"\n\n[[bots]]\nname = \"random\"\n";
        const SEPARATING: Option<Separating> = None;

        type Drawing = RaceDrawing;

        fn oracle<'g>(_variant: &str, _game: &'g Race) -> Exact<'g, Race> {
            Exact::Unavailable("no exact analysis exists for the race: a die decides it")
        }

        fn default_limits(_variant: &str) -> TimeLimits {
            TimeLimits::new(1000, 100)
        }

        fn default_map(_variant: &str) -> MapText {
            MapText { name: "track".into(), text: String::new() }
        }

        fn create(
            _variant: &str,
            _options: &RaceOptions,
            _map: &MapText,
            _seed: u64,
        ) -> Result<(Race, Vec<String>), SetupError> {
            Ok((race(), Vec::new()))
        }
    }

    /// How the viewer draws the race: the finish line, the total and who is to act.
    struct RaceDrawing;

    impl Drawing<Race> for RaceDrawing {
        fn board(_game: &Race, _map: &MapText) -> serde_json::Value {
            serde_json::json!({ "finish": 20 })
        }

        fn state(game: &Race) -> serde_json::Value {
            serde_json::json!({ "total": game.total, "to_act": game.to_act })
        }

        fn events(before: &Race, after: &Race, seat: Seat, _action: &Step2) -> Vec<Event> {
            let text = format!("seat {seat}: {} to {}", before.total, after.total);
            vec![Event::new("step", text)]
        }
    }

    #[test]
    fn the_fake_games_registration_drives_the_viewer_and_the_replay_walk() {
        let mut bots = vec![bot(Ok(Step2::Roll), 0), bot(Ok(Step2::Add(2)), 0)];
        let result = play_match(race(), &mut bots, &limits(1000), 5);
        let seats = ["first", "second"]
            .iter()
            .enumerate()
            .map(|(seat, role)| crate::replay::SeatInfo {
                seat,
                role: role.to_string(),
                bot: String::new(),
                spec: String::new(),
                limits: RaceDef::default_limits("standard"),
            })
            .collect();
        let header = crate::replay::Header {
            arena_replay: crate::replay::REPLAY_VERSION,
            // The race is no game of the list: the walk and the frames set it up from `RaceDef`
            // and only carry this name along.
            game: crate::games::GameId::Skynet,
            variant: "standard".into(),
            options: Default::default(),
            map: RaceDef::default_map("standard"),
            seed: 5,
            seats,
        };
        let roles = vec!["first".to_string(), "second".to_string()];
        let replay = crate::replay::Replay {
            actions: result
                .steps
                .iter()
                .map(|s| crate::replay::ActionLine::new(&header, s))
                .collect(),
            result: crate::replay::MatchSummary::new(&result, &roles),
            header,
        };
        let data = crate::view::frames::build::<RaceDef>(std::path::Path::new("race"), &replay)
            .expect("the race replays");
        assert_eq!(data.steps.len(), result.turns());
        assert_eq!(data.board, serde_json::json!({ "finish": 20 }));
        let last = data.steps.last().expect("a step");
        assert!(last.events[0].text.starts_with("seat "), "{:?}", last.events);
        // The rolls came from the seed: the frames' totals are the referee's.
        let totals: Vec<u32> = replay_totals(&data);
        assert!(totals.last().is_some_and(|&t| t >= 20), "{totals:?}");
        assert!(matches!(RaceDef::oracle("standard", &race()), Exact::Unavailable(_)));
    }

    /// The total after every step, from the frames' patches.
    fn replay_totals(data: &crate::view::ViewData) -> Vec<u32> {
        let mut total = data.initial["total"].as_u64().expect("a total");
        data.steps
            .iter()
            .map(|s| {
                if let Some(t) = s.patch.get("total") {
                    total = t.as_u64().expect("a total");
                }
                total as u32
            })
            .collect()
    }

    #[test]
    fn adding_a_game_in_the_architecture_doc_names_every_fact_a_game_registers() {
        let doc = include_str!("../docs/architecture.md");
        let section = doc
            .split("## Adding a game")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("docs/architecture.md has a section `## Adding a game`");
        let registry = include_str!("registry/mod.rs");
        let def = registry
            .split("pub trait GameDef")
            .nth(1)
            .and_then(|rest| rest.split("\n}\n").next())
            .expect("the trait GameDef");
        // Every item of the trait a game writes: its associated types, its constants and the
        // functions it must or may write (`options` and `new_game` are the registry's own).
        let mut items = Vec::new();
        for line in def.lines() {
            let line = line.trim_start();
            let name = ["type ", "const ", "fn "].iter().find_map(|kw| line.strip_prefix(kw));
            let Some(name) = name else { continue };
            let name: String =
                name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !["options", "new_game"].contains(&name.as_str()) {
                items.push(name);
            }
        }
        assert!(items.len() >= 15, "{items:?}");
        for name in &items {
            assert!(section.contains(&format!("`{name}`")), "the doc does not name `{name}`");
        }
        let entry = registry
            .split("pub struct BotEntry")
            .nth(1)
            .and_then(|rest| rest.split("\n}\n").next())
            .expect("the struct BotEntry");
        for line in entry.lines().filter_map(|l| l.trim_start().strip_prefix("pub ")) {
            let field = line.split(':').next().unwrap_or_default();
            assert!(section.contains(&format!("`{field}`")), "the doc does not name `{field}`");
        }
    }

    #[test]
    fn a_game_registered_as_data_keeps_the_contract_every_game_keeps() {
        crate::registry::conformance::conformance::<RaceDef>(16);
        let setup = Setup {
            variant: "standard".into(),
            options: [("laps".to_string(), "3".to_string())].into(),
            map: RaceDef::default_map("standard"),
            seed: 1,
        };
        assert!(
            matches!(RaceDef::new_game(&setup), Err(SetupError::Option { key, .. }) if key == "laps")
        );
    }

    #[test]
    fn a_normal_match_records_every_step() {
        let mut bots = vec![bot(Ok(Step2::Add(2)), 0), bot(Ok(Step2::Add(1)), 0)];
        let r = play_match(race(), &mut bots, &limits(1000), 1);
        assert_eq!(r.termination, Termination::Normal);
        assert_eq!(r.culprit, None);
        // 2+1 per round: 18 after six rounds, then the first seat reaches 20.
        assert_eq!(r.turns(), 13);
        assert_eq!(r.outcome.winner(), Some(0));
        assert!(r.steps.iter().step_by(2).all(|s| s.seat == 0 && s.action == "2"));
    }

    #[test]
    fn chance_comes_from_the_seed() {
        let roll = |seed| {
            let mut bots = vec![bot(Ok(Step2::Roll), 0), bot(Ok(Step2::Roll), 0)];
            let r = play_match(race(), &mut bots, &limits(1000), seed);
            (r.turns(), r.outcome.winner())
        };
        assert_eq!(roll(7), roll(7));
        let outcomes: std::collections::BTreeSet<_> = (0..20).map(roll).collect();
        assert!(outcomes.len() > 1, "different seeds should give different games");
    }

    #[test]
    fn an_illegal_action_forfeits_and_names_the_culprit() {
        let mut bots = vec![bot(Ok(Step2::Add(1)), 0), bot(Ok(Step2::Add(5)), 0)];
        let r = play_match(race(), &mut bots, &limits(1000), 1);
        assert_eq!(r.termination, Termination::Illegal);
        assert_eq!(r.culprit, Some(1));
        assert_eq!(r.outcome.winner(), Some(0));
        assert_eq!(r.turns(), 1, "the illegal action is not recorded as played");
        assert!(r.detail.unwrap().contains("cannot add 5"));
    }

    #[test]
    fn a_bot_failure_is_a_result() {
        let failure = BotFailure::Garbage { line: "xyz".into(), reason: "bad".into() };
        let mut bots = vec![bot(Err(failure), 0), bot(Ok(Step2::Add(1)), 0)];
        let r = play_match(race(), &mut bots, &limits(1000), 1);
        assert_eq!(r.termination, Termination::Garbage);
        assert_eq!(r.culprit, Some(0));
        assert_eq!(r.outcome.winner(), Some(1));
    }

    #[test]
    fn a_late_in_process_answer_is_a_timeout() {
        let mut bots = vec![bot(Ok(Step2::Add(1)), 0), bot(Ok(Step2::Add(1)), 30)];
        let r = play_match(race(), &mut bots, &limits(5), 1);
        assert_eq!(r.termination, Termination::Timeout);
        assert_eq!(r.culprit, Some(1));
        assert!(r.max_turn_micros[1] >= 30_000);
    }

    #[test]
    fn a_failure_found_after_the_limit_keeps_its_label() {
        let mut bots = vec![bot(Ok(Step2::Add(1)), 0), bot(Err(BotFailure::Eof), 30)];
        let r = play_match(race(), &mut bots, &limits(5), 1);
        assert_eq!((r.termination, r.culprit), (Termination::Eof, Some(1)));
    }

    #[test]
    fn the_time_bank_absorbs_overruns() {
        // The slow seat overruns a 1 ms limit by about 10 ms on each of its ten turns: without a
        // bank that is a timeout at once, with a bank of a second the match ends normally.
        let slow = || vec![bot(Ok(Step2::Add(1)), 0), bot(Ok(Step2::Add(1)), 10)];
        let r = play_match(race(), &mut slow(), &limits(1), 1);
        assert_eq!((r.termination, r.culprit), (Termination::Timeout, Some(1)));
        let mut banked = limits(1);
        banked[1].bank = Duration::from_millis(1000);
        let r = play_match(race(), &mut slow(), &banked, 1);
        assert_eq!(r.termination, Termination::Normal);
        assert_eq!(r.steps.iter().filter(|s| s.seat == 1).count(), 10);
    }

    #[test]
    fn every_bot_is_finished_once_whatever_happens() {
        let finished = Arc::new(AtomicUsize::new(0));
        let scripted = |action| -> Box<dyn Bot<Race>> {
            Box::new(Scripted { action, sleep: Duration::ZERO, finished: finished.clone() })
        };
        let mut bots = vec![scripted(Ok(Step2::Add(1))), scripted(Err(BotFailure::Eof))];
        let r = play_match(race(), &mut bots, &limits(1000), 1);
        assert_eq!(r.termination, Termination::Eof);
        assert_eq!(finished.load(Ordering::SeqCst), 2);
    }
}
