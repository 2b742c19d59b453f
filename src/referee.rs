//! Plays one match: asks the rules who acts, hands that seat's bot its view under the seat's time
//! limit, plays the answer, and records every step.
//!
//! The referee knows no game. It owns the match RNG (ChaCha8, seeded from the match seed), so the
//! same seed gives the same match, byte for byte. A bot's failure (late answer, crash, garbage,
//! illegal action) ends the match with that seat as the culprit; it is a result, not an error.

#![warn(missing_docs)]

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bot::{Bot, BotFailure, BotReport, Termination, TimeLimits, TurnContext};
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
    /// The actions played, in order.
    pub steps: Vec<Step>,
    /// Per seat, the longest time one decision took, in microseconds.
    pub max_turn_micros: Vec<u64>,
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

    let (outcome, termination, culprit, detail) = loop {
        let seat = match game.status() {
            Status::Over(outcome) => break (outcome, Termination::Normal, None, None),
            Status::ToAct(seat) => seat,
        };
        let view = game.view(seat);
        let limit =
            if decisions[seat] == 0 { limits[seat].first_turn } else { limits[seat].per_turn };
        let turn_start = Instant::now();
        let deadline = turn_start + limit + bank_left[seat];
        let ctx = TurnContext {
            started: turn_start,
            deadline,
            hard_deadline: deadline + limits[seat].grace,
            decision: decisions[seat],
        };
        let answer = bots[seat].act(&view, &ctx);
        let elapsed = turn_start.elapsed();
        decisions[seat] += 1;
        let micros = elapsed.as_micros() as u64;
        max_turn_micros[seat] = max_turn_micros[seat].max(micros);

        let fail = |failure: BotFailure, game: &G| {
            let detail = failure.to_string();
            (game.forfeit(seat, &detail), failure.termination(), Some(seat), Some(detail))
        };
        // A late answer is a timeout even if the bot (an in-process one cannot be preempted)
        // did answer in the end. A failure keeps its own label: the harness may have spent the
        // rest of the turn telling a crash from a closed output.
        if answer.is_ok() && elapsed > limit + bank_left[seat] + limits[seat].grace {
            break fail(BotFailure::Timeout, &game);
        }
        bank_left[seat] = bank_left[seat].saturating_sub(elapsed.saturating_sub(limit));
        let action = match answer {
            Ok(action) => action,
            Err(failure) => break fail(failure, &game),
        };
        let text = G::format_action(&action);
        if let Err(illegal) = game.play(seat, &action, &mut rng) {
            let detail = format!("illegal action {text:?}: {illegal}");
            break (game.forfeit(seat, &detail), Termination::Illegal, Some(seat), Some(detail));
        }
        steps.push(Step { seat, action: text, micros });
    };

    let reports = bots.iter_mut().map(|b| b.finish()).collect();
    MatchResult {
        outcome,
        termination,
        culprit,
        detail,
        steps,
        max_turn_micros,
        reports,
        duration: started.elapsed(),
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
    use crate::registry::{BotEntry, GameDef, RandomBot};

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

    fn limits(per_turn_ms: u64) -> Vec<TimeLimits> {
        vec![TimeLimits::new(per_turn_ms, per_turn_ms); 2]
    }

    fn race() -> Race {
        Race { total: 0, to_act: 0 }
    }

    /// Race registered as a game: everything a game adds to the harness besides its rules.
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
            make: |b| Box::new(RandomBot::new(b.seed)),
        }];

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
