//! Rating every decision of a played match against a game's exact solver: `arena analyze`, the
//! tournament's `analysis.csv` and the viewer's blunder marks all read the typed [`Report`] made
//! here.
//!
//! The games' solvers answer one question, what a position is worth with perfect play on both
//! sides (Skynet Episode 2 and Greedy Spiders: which side can force a win; Painters' Duel: the
//! final score). Each game registers an [`Oracle`] that asks its solver that question for any
//! state of its rules (`GameDef::oracle`, in the game's `oracle.rs`); everything else is shared: the value before a decision and after it, the moves
//! that keep the value, and the label. A position the solver cannot settle within the budget is
//! `unknown`, never guessed. `docs/analysis.md` is the user's guide.

pub mod separating;
mod text;

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::game::{Game, Seat};
use crate::games::GameId;
use crate::registry::{Allowance, Exact, GameDef, Oracle, Worth};
use crate::replay::{ActionLine, Header, Replay, Visitor, WalkStep, game_of_header, walk};
use crate::seed::rules_rng;

pub use text::{best_text, label_text, limits_text, value_text};

/// What a position is worth with perfect play on both sides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// The role that can force a win, whatever the other side does (Skynet Episode 2, Greedy
    /// Spiders: these games have no draws, so the other role cannot).
    WonBy(String),
    /// The final score the first role can guarantee and the second can hold it to (Painters'
    /// Duel: Alma's rooms minus Berthe's, over the whole match).
    Score(i32),
}

/// How good one decision was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// The move keeps the position's value (in a lost position, every move does).
    Best,
    /// The move gives away value but not the result (Painters' Duel: `lost` points).
    Inaccuracy,
    /// The move turns the result for the worse: a won position into a lost one (Painters' Duel
    /// also: won into drawn, drawn into lost).
    Blunder,
    /// The solver could not settle the values within the budget.
    Unknown,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Best => "best",
            Label::Inaccuracy => "inaccuracy",
            Label::Blunder => "blunder",
            Label::Unknown => "unknown",
        }
    }
}

/// One decision of one seat, rated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The action's number in the match, from 1 (the viewer's step).
    pub step: usize,
    pub seat: Seat,
    pub role: String,
    /// The action as the seat wrote it.
    pub action: String,
    pub label: Label,
    /// The position's value before the decision (`None`: not settled within the budget).
    pub before: Option<Value>,
    /// The value after it.
    pub after: Option<Value>,
    /// What the move cost the seat: points in Painters' Duel, 1 for a forced win thrown away in
    /// the win-or-lose games, 0 for a best move; `None` when unknown.
    pub lost: Option<i32>,
    /// Moves that keep the position's value, as protocol text (one spelling each).
    pub best: Vec<String>,
    /// Whether `best` lists every such move (not when the budget ran out first, or when the
    /// seat had too many moves to try them all: a spider round of many spiders).
    pub best_complete: bool,
    /// Distinct legal moves the seat had (`None`: too many to list).
    pub moves: Option<usize>,
    /// Positions the solver searched for this decision.
    pub positions: u64,
}

/// What one seat's decisions add up to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatSummary {
    pub seat: Seat,
    pub role: String,
    /// The player's name in the replay.
    pub bot: String,
    /// Every decision the seat made.
    pub decisions: usize,
    /// Decisions with a known label (all but `unknown`).
    pub analysed: usize,
    pub best: usize,
    pub inaccuracies: usize,
    pub blunders: usize,
    pub unknown: usize,
    /// `best / analysed`; `None` with nothing analysed.
    pub accuracy: Option<f64>,
    /// The sum of `lost` over the analysed decisions.
    pub value_lost: i64,
    /// `value_lost / analysed`.
    pub mean_value_lost: Option<f64>,
}

/// How much search one decision may use. Both limits apply; `None` is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock milliseconds per decision.
    pub time_ms: Option<u64>,
    /// Solver positions per decision: the same count settles the same positions on any machine,
    /// so a tournament's `analysis.csv` is reproducible byte for byte.
    pub positions: Option<u64>,
}

/// The analysis of one match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub game: GameId,
    pub variant: String,
    pub map: String,
    /// Whether an exact solver rates this game's decisions at all (not Skynet Episode 1, not
    /// Risk).
    pub exact: bool,
    /// What limits the analysis, in words (no exact analysis for this game, a map beyond the
    /// solver), if anything does.
    pub statement: Option<String>,
    /// The unit of `lost`: `points` (Painters' Duel) or `wins` (a forced win thrown away).
    pub unit: String,
    pub limits: Limits,
    /// The value of the starting position.
    pub start: Option<Value>,
    pub decisions: Vec<Decision>,
    pub seats: Vec<SeatSummary>,
    /// Positions searched over all decisions.
    pub positions: u64,
}

/// The replay `path` analysed.
pub fn analyze_file(path: &Path, limits: Limits) -> Result<Report> {
    let replay = crate::replay::read(path)?;
    analyze(path, &replay, limits)
}

/// A replay read from `path` (which names it in errors) analysed.
pub fn analyze(path: &Path, replay: &Replay, limits: Limits) -> Result<Report> {
    analyze_actions(path, &replay.header, &replay.actions, limits)
}

/// The actions of a match (as played from the header's setup) analysed; `source` names the match
/// in errors.
pub fn analyze_actions(
    source: &Path,
    header: &Header,
    actions: &[ActionLine],
    limits: Limits,
) -> Result<Report> {
    let run = Run { source, header, actions, limits };
    crate::with_game!(header.game, D => analyze_game::<D>(&run))
}

/// Asks the game for its exact oracle and rates the match with it.
fn analyze_game<D: GameDef>(run: &Run<'_>) -> Result<Report> {
    let game = game_of_header::<D>(run.source, run.header)?;
    match D::oracle(&run.header.variant, &game) {
        Exact::Oracle { oracle, unit, statement } => {
            run.analyse(game.clone(), oracle, unit, statement)
        }
        Exact::Unavailable(why) => run.without_solver(why),
    }
}

impl Worth {
    /// What it is worth to `seat`: 1 or 0 for a win, the score from its side.
    fn to(self, seat: Seat) -> i32 {
        match self {
            Worth::Win(w) => i32::from(w == seat),
            Worth::Score(s) if seat == 0 => s,
            Worth::Score(s) => -s,
        }
    }

    /// The result for `seat`: 1 won, 0 drawn, -1 lost.
    fn result(self, seat: Seat) -> i32 {
        match self {
            Worth::Win(w) if w == seat => 1,
            Worth::Win(_) => -1,
            Worth::Score(_) => self.to(seat).signum(),
        }
    }

    fn value(self, roles: &[String]) -> Value {
        match self {
            Worth::Win(w) => Value::WonBy(roles[w].clone()),
            Worth::Score(s) => Value::Score(s),
        }
    }
}

/// The label of a move that took a position worth `before` to `after`, and what it cost.
fn rate(seat: Seat, before: Option<Worth>, after: Option<Worth>) -> (Label, Option<i32>) {
    let (Some(before), Some(after)) = (before, after) else { return (Label::Unknown, None) };
    // The position's value is the best of its moves, so no move gains: a negative cost would be
    // a solver's contradiction, and is rated as no loss rather than as a gain.
    let lost = (before.to(seat) - after.to(seat)).max(0);
    let label = if lost == 0 {
        Label::Best
    } else if after.result(seat) < before.result(seat) {
        Label::Blunder
    } else {
        Label::Inaccuracy
    };
    (label, Some(lost))
}

/// One decision's allowance under `limits`.
fn allowance(limits: Limits) -> Allowance {
    let deadline = limits.time_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
    Allowance::new(deadline, limits.positions)
}

/// One match being analysed.
struct Run<'a> {
    source: &'a Path,
    header: &'a Header,
    actions: &'a [ActionLine],
    limits: Limits,
}

impl Run<'_> {
    fn roles(&self) -> Vec<String> {
        self.header.seats.iter().map(|s| s.role.clone()).collect()
    }

    fn report(
        &self,
        exact: bool,
        statement: Option<String>,
        unit: &str,
        start: Option<Value>,
        decisions: Vec<Decision>,
    ) -> Report {
        let seats = self
            .header
            .seats
            .iter()
            .map(|s| summary(s.seat, &s.role, &s.bot, self.actions, &decisions))
            .collect();
        Report {
            game: self.header.game,
            variant: self.header.variant.clone(),
            map: self.header.map.name.clone(),
            exact,
            statement,
            unit: unit.to_string(),
            limits: self.limits,
            start,
            positions: decisions.iter().map(|d| d.positions).sum(),
            decisions,
            seats,
        }
    }

    fn without_solver(&self, statement: &str) -> Result<Report> {
        Ok(self.report(false, Some(statement.to_string()), "wins", None, Vec::new()))
    }

    /// Plays the actions through the rules, rating each against `oracle`.
    fn analyse<G: Game>(
        &self,
        game: G,
        oracle: Box<dyn Oracle<G> + '_>,
        unit: &str,
        statement: Option<String>,
    ) -> Result<Report> {
        let roles = self.roles();
        let mut rater = Rater {
            oracle,
            run: self,
            start: None,
            before: None,
            decisions: Vec::with_capacity(self.actions.len()),
        };
        walk(self.source, self.header, game, self.actions, &mut rater)?;
        let start = rater.start.map(|w| w.value(&roles));
        Ok(self.report(true, statement, unit, start, rater.decisions))
    }
}

/// The visitor that rates each decision of a walk against the oracle.
struct Rater<'a, G: Game> {
    oracle: Box<dyn Oracle<G> + 'a>,
    run: &'a Run<'a>,
    /// The value of the starting position.
    start: Option<Worth>,
    /// The game before the step being played.
    before: Option<G>,
    decisions: Vec<Decision>,
}

impl<G: Game> Visitor<G> for Rater<'_, G> {
    fn start(&mut self, game: &G) {
        self.start = self.oracle.value(game, &mut allowance(self.run.limits)).ok();
    }

    fn before(&mut self, _step: &WalkStep<'_, G>, game: &G) {
        self.before = Some(game.clone());
    }

    fn after(&mut self, step: &WalkStep<'_, G>, game: &G) {
        let before = self.before.take().expect("`before` runs before `after`");
        let mut decision =
            rate_decision(&mut *self.oracle, &before, game, step.seat, step.action, self.run);
        decision.step = step.number;
        decision.action = step.record.action.clone();
        self.decisions.push(decision);
    }
}

/// Rates `action` of `seat`, which took `before` to `after`.
fn rate_decision<G: Game>(
    oracle: &mut dyn Oracle<G>,
    before: &G,
    after: &G,
    seat: Seat,
    action: &G::Action,
    run: &Run<'_>,
) -> Decision {
    let roles = run.roles();
    let mut allowance = allowance(run.limits);
    let after_worth = oracle.value(after, &mut allowance).ok();
    let before_worth = oracle.value(before, &mut allowance).ok();
    let played = oracle.spelling(action);
    let moves = oracle.moves(before, seat);
    let mut best = Vec::new();
    let mut best_complete = false;
    if let (Some(moves), Some(value)) = (&moves, before_worth) {
        best_complete = true;
        // A throwaway RNG: the games with a solver have no chance in their rules.
        let mut rng = rules_rng(0);
        for m in moves {
            let worth = if *m == played {
                after_worth
            } else {
                let mut next = before.clone();
                next.play(seat, m, &mut rng)
                    .ok()
                    .and_then(|()| oracle.value(&next, &mut allowance).ok())
            };
            match worth {
                Some(w) if w.to(seat) == value.to(seat) => best.push(G::format_action(m)),
                Some(_) => {}
                None => best_complete = false,
            }
        }
    }
    let (label, lost) = rate(seat, before_worth, after_worth);
    Decision {
        step: 0,
        seat,
        role: roles[seat].clone(),
        action: String::new(),
        label,
        before: before_worth.map(|w| w.value(&roles)),
        after: after_worth.map(|w| w.value(&roles)),
        lost,
        best,
        best_complete,
        moves: moves.map(|m| m.len()),
        positions: allowance.used(),
    }
}

/// The summary of `seat`'s decisions.
fn summary(
    seat: Seat,
    role: &str,
    bot: &str,
    actions: &[ActionLine],
    decisions: &[Decision],
) -> SeatSummary {
    let mine: Vec<&Decision> = decisions.iter().filter(|d| d.seat == seat).collect();
    let count = |label: Label| mine.iter().filter(|d| d.label == label).count();
    let analysed = mine.iter().filter(|d| d.label != Label::Unknown).count();
    let value_lost: i64 = mine.iter().filter_map(|d| d.lost).map(i64::from).sum();
    let best = count(Label::Best);
    let share = |x: f64| (analysed > 0).then(|| x / analysed as f64);
    SeatSummary {
        seat,
        role: role.to_string(),
        bot: bot.to_string(),
        decisions: actions.iter().filter(|a| a.seat == seat).count(),
        analysed,
        best,
        inaccuracies: count(Label::Inaccuracy),
        blunders: count(Label::Blunder),
        unknown: count(Label::Unknown),
        accuracy: share(best as f64),
        value_lost,
        mean_value_lost: share(value_lost as f64),
    }
}

#[cfg(test)]
mod tests;
