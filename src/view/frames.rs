//! From a replay to the data the page draws: the board, the first state, and per step the
//! action, the input the seat read, the time it took, the events and a patch of the state.
//!
//! A patch holds only what changed, so the page stays small however long the match: for each key
//! of the state object either the new value (`"key"`), the changed elements of an array of the
//! same length (`"key~": [[index, value], ...]`), or the elements appended to an array that only
//! grew (`"key+": [...]`). `assets/viewer/viewer.js` applies them in the same three ways.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::game::{Game, Seat};
use crate::games::GameId;
use crate::registry::{Drawing, Event, GameDef};
use crate::replay::{MatchSummary, Replay, SeatInfo, Visitor, WalkStep};

/// Everything the page shows, embedded in it as JSON.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ViewData {
    /// The replay file's name, for the title.
    pub source: String,
    pub game: GameId,
    pub variant: String,
    pub options: std::collections::BTreeMap<String, String>,
    pub map: String,
    pub seed: u64,
    pub seats: Vec<SeatInfo>,
    pub private_inputs: bool,
    /// What each seat read once, before its first turn.
    pub init_inputs: Vec<String>,
    pub board: Value,
    /// The state before the first action.
    pub initial: Value,
    pub steps: Vec<StepData>,
    pub result: MatchSummary,
    /// Every decision rated against the exact solver, when the page was asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<super::analysis::ViewAnalysis>,
}

/// One recorded action and what it did.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StepData {
    pub seat: Seat,
    pub action: String,
    pub micros: u64,
    /// The turn input the seat read before answering.
    pub input: String,
    pub patch: Map<String, Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// What the seat wrote to stderr during the decision, as the replay recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The metrics it reported during the decision.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub metrics: std::collections::BTreeMap<String, f64>,
}

/// Replays `replay` through the rules and collects what the page needs. A replay whose actions
/// the rules refuse is an error naming the action, as for `arena replay --verify` (both walk it
/// with [`crate::replay::walk`]).
pub(crate) fn build<D: GameDef>(path: &Path, replay: &Replay) -> Result<ViewData> {
    let h = &replay.header;
    let game = crate::replay::game_of_header::<D>(path, h)?;
    let board = D::Drawing::board(&game, &h.map);
    let initial = D::Drawing::state(&game);
    let init_inputs = (0..game.roles().len()).map(|s| D::G::init_input(&game.view(s))).collect();
    let mut frames = Frames::<D> {
        state: initial.clone(),
        steps: Vec::with_capacity(replay.actions.len()),
        input: String::new(),
        before: None,
    };
    crate::replay::walk(path, h, game, &replay.actions, &mut frames)?;
    Ok(ViewData {
        source: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        game: h.game,
        variant: h.variant.clone(),
        options: h.options.clone(),
        map: h.map.name.clone(),
        seed: h.seed,
        seats: h.seats.clone(),
        private_inputs: D::Drawing::PRIVATE_INPUTS,
        init_inputs,
        board,
        initial,
        steps: frames.steps,
        result: replay.result.clone(),
        analysis: None,
    })
}

/// The visitor that turns a walk into the page's steps.
struct Frames<D: GameDef> {
    /// The state after the last step, as the page has it.
    state: Value,
    steps: Vec<StepData>,
    /// The turn input of the step being played.
    input: String,
    /// The game before the step being played, for its events.
    before: Option<D::G>,
}

impl<D: GameDef> Visitor<D::G> for Frames<D> {
    fn before(&mut self, step: &WalkStep<'_, D::G>, game: &D::G) {
        self.input = D::G::turn_input(step.view);
        self.before = Some(game.clone());
    }

    fn after(&mut self, step: &WalkStep<'_, D::G>, game: &D::G) {
        let next = D::Drawing::state(game);
        let before = self.before.take().expect("`before` runs before `after`");
        self.steps.push(StepData {
            seat: step.seat,
            action: step.record.action.clone(),
            micros: step.record.micros,
            input: std::mem::take(&mut self.input),
            patch: patch(&self.state, &next),
            events: D::Drawing::events(&before, game, step.seat, step.action),
            stderr: step.record.stderr.clone(),
            metrics: step.record.metrics.clone(),
        });
        self.state = next;
    }
}

/// What turns state `old` into `new` (both objects with the same keys).
pub(crate) fn patch(old: &Value, new: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        out.insert("=".into(), new.clone());
        return out;
    };
    for (key, value) in new {
        let before = old.get(key);
        if before == Some(value) {
            continue;
        }
        match (before, value) {
            (Some(Value::Array(a)), Value::Array(b)) if a.len() == b.len() => {
                let changed: Vec<Value> = (0..b.len())
                    .filter(|&i| a[i] != b[i])
                    .map(|i| Value::Array(vec![i.into(), b[i].clone()]))
                    .collect();
                out.insert(format!("{key}~"), Value::Array(changed));
            }
            (Some(Value::Array(a)), Value::Array(b)) if b.len() > a.len() && b.starts_with(a) => {
                out.insert(format!("{key}+"), Value::Array(b[a.len()..].to_vec()));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

/// Applies a patch, as the page does (for tests).
#[cfg(test)]
fn apply(state: &Value, patch: &Map<String, Value>) -> Value {
    if let Some(whole) = patch.get("=") {
        return whole.clone();
    }
    let mut s = state.as_object().cloned().unwrap_or_default();
    for (key, value) in patch {
        if let Some(k) = key.strip_suffix('~') {
            if let (Some(Value::Array(arr)), Value::Array(changes)) = (s.get_mut(k), value) {
                for c in changes {
                    if let (Some(i), Some(v)) = (c[0].as_u64(), c.get(1)) {
                        arr[i as usize] = v.clone();
                    }
                }
            }
        } else if let Some(k) = key.strip_suffix('+') {
            if let (Some(Value::Array(arr)), Value::Array(more)) = (s.get_mut(k), value) {
                arr.extend(more.iter().cloned());
            }
        } else {
            s.insert(key.clone(), value.clone());
        }
    }
    Value::Object(s)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_patch_holds_only_what_changed() {
        let old = json!({"agent": 3, "cut": [false, false, true], "path": [3], "turn": 1});
        let new = json!({"agent": 4, "cut": [false, true, true], "path": [3, 4], "turn": 1});
        let p = patch(&old, &new);
        assert_eq!(
            Value::Object(p.clone()),
            json!({"agent": 4, "cut~": [[1, true]], "path+": [4]})
        );
        assert_eq!(apply(&old, &p), new);
    }

    proptest! {
        #[test]
        fn applying_the_patch_gives_the_new_state(
            a in prop::collection::vec(0u8..4, 0..8),
            b in prop::collection::vec(0u8..4, 0..8),
            x in 0u8..3, y in 0u8..3,
        ) {
            let old = json!({"list": a, "x": x, "nested": [[x], [y]]});
            let new = json!({"list": b, "x": y, "nested": [[y], [x]]});
            prop_assert_eq!(apply(&old, &patch(&old, &new)), new);
        }
    }
}
