//! Plays one match: asks the rules who acts, hands that seat's bot its view under the seat's time
//! limit, plays the answer, and records every step.
//!
//! The referee knows no game. It owns the match RNG (ChaCha8, seeded from the match seed), so the
//! same seed gives the same match, byte for byte. A bot's failure (late answer, crash, garbage,
//! illegal action) ends the match with that seat as the culprit; it is a result, not an error.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::bot::{Bot, BotFailure, BotReport, Termination, TimeLimits, TurnContext};
use crate::game::{Game, Outcome, Seat, Status};

/// One action played, as the replay records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub seat: Seat,
    /// The action's protocol text, exactly as a bot would write it.
    pub action: String,
    /// How long the bot took, in microseconds (monotonic clock).
    pub micros: u64,
}

/// Everything a match produced.
#[derive(Clone, Debug)]
pub struct MatchResult {
    pub outcome: Outcome,
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
    pub duration: Duration,
}

impl MatchResult {
    /// The number of actions played.
    pub fn turns(&self) -> usize {
        self.steps.len()
    }
}

/// The seed of the rules' RNG and the per-seat seeds of the bots, all from one match seed.
pub fn rules_rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The seed a bot at `seat` gets in a match seeded with `match_seed`: distinct per seat, and
/// independent of the rules' RNG stream.
pub fn bot_seed(match_seed: u64, seat: Seat) -> u64 {
    splitmix64(match_seed ^ splitmix64(0xB07_5EED + seat as u64))
}

/// The SplitMix64 finaliser: a fast, well-mixed bijection on u64, used to derive seeds.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
        // did answer in the end.
        if elapsed > limit + bank_left[seat] + limits[seat].grace {
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
