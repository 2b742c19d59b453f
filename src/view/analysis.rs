//! The analysis on the viewer's page: every decision rated by [`crate::analysis`] (the same
//! report `arena analyze` prints), put in the words the page shows, so the timeline can mark the
//! blunders, the inaccuracies and the positions the solver did not settle, and the side panel can
//! say what each decision was worth and what the solver would have played.
//!
//! The words are made here, not in the page's script, so `arena analyze` and the page say the
//! same thing, and the embedded data is the same for the same replay and budget.

use std::path::Path;

use serde::Serialize;

use crate::analysis::{
    Label, Limits, Report, SeatSummary, best_text, label_text, limits_text, value_text,
};
use crate::error::{Error, Result};
use crate::replay::Replay;

/// Whether and how a page gets the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Analysis {
    /// No analysis: the page as it always was.
    Off,
    /// `arena view --analyze`: asked for, so a game without an exact solver is an error.
    Required(Limits),
    /// A tournament's pages (`arena report --views` on a run with `analysis = true`): a game
    /// without an exact solver gets a page that says so.
    IfExact(Limits),
}

/// What the page embeds of the analysis (`analysis` in the page's data).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct ViewAnalysis {
    /// Whether an exact solver rated the decisions (not Skynet Episode 1, not Risk).
    pub exact: bool,
    /// What limits the analysis, in words (no solver for this game, a map beyond it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// What a value is: `the final score ...` or `which side can force a win ...`.
    pub value: String,
    /// The unit of a move's cost: `points` (Painters' Duel) or `wins`.
    pub unit: String,
    /// The solver's budget per decision, in words.
    pub budget: String,
    /// The starting position's value in words (`?`: not settled).
    pub start: String,
    pub seats: Vec<SeatSummary>,
    /// Every decision, in step order (`step` from 1).
    pub decisions: Vec<Rated>,
}

/// One decision as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Rated {
    pub step: usize,
    pub seat: usize,
    pub label: Label,
    /// The label in words, with the points lost in Painters' Duel (`inaccuracy -2`).
    pub text: String,
    pub before: String,
    pub after: String,
    /// What the move cost (points, or 1 for a win thrown away); absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<i32>,
    /// The move played, as the seat wrote it.
    pub played: String,
    /// The moves that keep the value, in words (`any move`, a list, `?`).
    pub best: String,
    /// Solver positions searched for this decision.
    pub positions: u64,
}

impl ViewAnalysis {
    pub(crate) fn of(report: &Report) -> ViewAnalysis {
        let value = if report.unit == "points" {
            "the final score (first role minus second) with perfect play"
        } else {
            "which side can force a win against every reply"
        };
        ViewAnalysis {
            exact: report.exact,
            statement: report.statement.clone(),
            value: value.to_string(),
            unit: report.unit.clone(),
            budget: limits_text(&report.limits),
            start: value_text(&report.start),
            seats: report.seats.clone(),
            decisions: report
                .decisions
                .iter()
                .map(|d| Rated {
                    step: d.step,
                    seat: d.seat,
                    label: d.label,
                    text: label_text(d, &report.unit),
                    before: value_text(&d.before),
                    after: value_text(&d.after),
                    lost: d.lost,
                    played: d.action.clone(),
                    best: best_text(d),
                    positions: d.positions,
                })
                .collect(),
        }
    }
}

/// The analysis of `replay` (read from `path`) the page embeds, as `how` asks.
pub(crate) fn for_page(
    path: &Path,
    replay: &Replay,
    how: Analysis,
) -> Result<Option<ViewAnalysis>> {
    let (limits, required) = match how {
        Analysis::Off => return Ok(None),
        Analysis::Required(limits) => (limits, true),
        Analysis::IfExact(limits) => (limits, false),
    };
    let report = crate::analysis::analyze(path, replay, limits)?;
    if required && !report.exact {
        let why = report.statement.as_deref().unwrap_or("no exact analysis exists for this game");
        return Err(Error::Usage(format!(
            "--analyze: {why}; view `{}` without --analyze",
            path.display()
        )));
    }
    Ok(Some(ViewAnalysis::of(&report)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Decision, Value};
    use crate::games::GameId;

    fn decision(step: usize, label: Label, before: i32, after: i32, best: &[&str]) -> Decision {
        Decision {
            step,
            seat: (step + 1) % 2,
            role: if step % 2 == 1 { "alma" } else { "berthe" }.to_string(),
            action: format!("move {step}"),
            label,
            before: (label != Label::Unknown).then_some(Value::Score(before)),
            after: (label != Label::Unknown).then_some(Value::Score(after)),
            lost: (label != Label::Unknown).then_some((before - after).abs()),
            best: best.iter().map(ToString::to_string).collect(),
            best_complete: label != Label::Unknown,
            moves: Some(3),
            positions: 10 * step as u64,
        }
    }

    fn report(decisions: Vec<Decision>) -> Report {
        Report {
            game: GameId::Painters,
            variant: "standard".into(),
            map: "m".into(),
            exact: true,
            statement: None,
            unit: "points".into(),
            limits: Limits { time_ms: None, positions: Some(500) },
            start: Some(Value::Score(3)),
            decisions,
            seats: Vec::new(),
            positions: 0,
        }
    }

    #[test]
    fn every_decision_is_embedded_in_words_with_its_label() {
        let r = report(vec![
            decision(1, Label::Best, 3, 3, &["4 2"]),
            decision(2, Label::Inaccuracy, 3, 5, &["6 9", "5 8"]),
            decision(3, Label::Blunder, 5, -1, &["4 4"]),
            decision(4, Label::Unknown, 0, 0, &[]),
        ]);
        let v = ViewAnalysis::of(&r);
        assert_eq!(v.budget, "500 positions");
        assert_eq!(v.start, "+3");
        assert_eq!(v.decisions.len(), 4);
        let shown: Vec<(usize, Label, &str, &str, &str, &str)> = v
            .decisions
            .iter()
            .map(|d| {
                (
                    d.step,
                    d.label,
                    d.text.as_str(),
                    d.before.as_str(),
                    d.after.as_str(),
                    d.best.as_str(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                (1, Label::Best, "best", "+3", "+3", "4 2"),
                (2, Label::Inaccuracy, "inaccuracy -2", "+3", "+5", "6 9, 5 8"),
                (3, Label::Blunder, "blunder -6", "+5", "-1", "4 4"),
                // Unknown stays unknown: no value, no best move, no cost guessed.
                (4, Label::Unknown, "unknown", "?", "?", "?"),
            ]
        );
        assert_eq!(v.decisions[3].lost, None);
        assert_eq!(v.decisions[1].played, "move 2");
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["decisions"][2]["label"], "blunder");
        assert_eq!(json["decisions"][3]["label"], "unknown");
        assert!(json["decisions"][3].get("lost").is_none());
    }

    fn shipped(name: &str) -> (std::path::PathBuf, Replay) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/replays").join(name);
        let replay = crate::replay::read(&path).unwrap();
        (path, replay)
    }

    #[test]
    fn asked_for_on_risk_it_is_an_input_error_and_a_tournament_page_says_why() {
        let (path, replay) = shipped("risk-6-players.jsonl");
        let limits = Limits { time_ms: None, positions: Some(10) };
        let err = for_page(&path, &replay, Analysis::Required(limits)).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::INPUT);
        let text = err.to_string();
        assert!(text.contains("no exact analysis exists for Risk"), "{text}");
        assert!(!text.contains('\n'), "{text}");
        let page = for_page(&path, &replay, Analysis::IfExact(limits)).unwrap().unwrap();
        assert!(!page.exact && page.decisions.is_empty());
        assert!(page.statement.unwrap().contains("no exact analysis exists for Risk"));
        assert_eq!(for_page(&path, &replay, Analysis::Off).unwrap(), None);
    }

    #[test]
    fn a_replay_with_a_solver_embeds_one_rating_per_action_in_step_order() {
        let (path, replay) = shipped("painters-generated.jsonl");
        let limits = Limits { time_ms: None, positions: Some(1_000_000) };
        let page = for_page(&path, &replay, Analysis::Required(limits)).unwrap().unwrap();
        assert!(page.exact);
        let steps: Vec<usize> = page.decisions.iter().map(|d| d.step).collect();
        assert_eq!(steps, (1..=replay.actions.len()).collect::<Vec<_>>());
        for (d, a) in page.decisions.iter().zip(&replay.actions) {
            assert_eq!((d.seat, d.played.as_str()), (a.seat, a.action.as_str()));
        }
        // The same budget in positions gives the same data.
        let again = for_page(&path, &replay, Analysis::Required(limits)).unwrap().unwrap();
        assert_eq!(page, again);
    }

    #[test]
    fn a_game_without_a_solver_keeps_its_statement() {
        let mut r = report(Vec::new());
        r.exact = false;
        r.statement = Some("no exact analysis exists for Risk".into());
        r.unit = "wins".into();
        r.start = None;
        let v = ViewAnalysis::of(&r);
        assert!(!v.exact);
        assert_eq!(v.statement.as_deref(), Some("no exact analysis exists for Risk"));
        assert_eq!(v.start, "?");
        assert!(v.decisions.is_empty());
    }
}
