//! Seeing the games: `arena view` turns a replay into one self-contained HTML page, and
//! [`report::write_report`] turns a results folder into `report.html`.
//!
//! The viewer replays the recorded actions through the rules (as `arena replay --verify` does),
//! so the page shows what the rules made of each action, not what a bot believed. Each game says
//! what to draw through [`GameView`] (in its own `view.rs`): a static board, its state after every
//! step as JSON, and the step's events in words. The page embeds the first state and, per step,
//! only what changed ([`frames`]), so a 1,000-action Risk replay stays small; the JavaScript in
//! `assets/viewer/` rebuilds the states and draws them as SVG. Nothing is fetched at view time: the
//! data, the script and the style are inline and a Content-Security-Policy forbids every load.
//! Asked for, the page also embeds every decision rated by the exact solver ([`analysis`]), which
//! the timeline marks.

pub(crate) mod analysis;
pub(crate) mod frames;
pub(crate) mod layout;
mod page;
pub(crate) mod report;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::game::MapText;
use crate::game::{Game, Seat};
use crate::registry::GameDef;

pub(crate) use analysis::Analysis;
pub(crate) use frames::ViewData;

/// What a game contributes to the viewer. Implemented in each game's `view.rs`.
pub(crate) trait GameView: GameDef {
    /// Whether a seat's turn input holds what the other seats may not see (Risk: the hand), so
    /// the page shows it only from that seat's point of view.
    const PRIVATE_INPUTS: bool = false;

    /// What does not change during a match: the board's geometry, in the game's own terms.
    fn board(game: &Self::G, map: &MapText) -> Value;

    /// The state after a step, as one JSON object. Keys must be the same at every step; the page
    /// receives only the keys (and array elements) that changed.
    fn state(game: &Self::G) -> Value;

    /// What `seat` playing `action` did to `before`, giving `after`, in words for the log.
    fn events(
        before: &Self::G,
        after: &Self::G,
        seat: Seat,
        action: &<Self::G as Game>::Action,
    ) -> Vec<Event>;
}

/// One line of the page's log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Event {
    /// A short word the page filters and styles by (`cut`, `move`, `battle`, `card`, ...).
    pub kind: &'static str,
    pub text: String,
    /// Hidden information: shown only from this seat's point of view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_to: Option<Seat>,
    /// What the page draws beside the text (a battle's dice), if anything.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub data: Value,
}

impl Event {
    pub(crate) fn new(kind: &'static str, text: impl Into<String>) -> Event {
        Event { kind, text: text.into(), private_to: None, data: Value::Null }
    }

    /// An event only `seat` may see.
    pub(crate) fn private(kind: &'static str, seat: Seat, text: impl Into<String>) -> Event {
        Event { private_to: Some(seat), ..Event::new(kind, text) }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Event {
        self.data = data;
        self
    }
}

/// The page of one replay, as HTML text, with the analysis `how` asks for.
pub(crate) fn render_replay(replay_path: &Path, how: Analysis) -> Result<String> {
    let replay = crate::replay::read(replay_path)?;
    let mut data =
        crate::with_game!(replay.header.game, D => frames::build::<D>(replay_path, &replay))?;
    data.analysis = analysis::for_page(replay_path, &replay, how)?;
    Ok(page::viewer(&data))
}

/// The default page of a replay: the same path with `.html`.
pub(crate) fn default_output(replay_path: &Path) -> PathBuf {
    replay_path.with_extension("html")
}

/// `arena view`: writes the page of `replay_path` to `out`.
pub(crate) fn write_view(replay_path: &Path, out: &Path, how: Analysis) -> Result<()> {
    let html = render_replay(replay_path, how)?;
    std::fs::write(out, html).map_err(|e| Error::write(out, e))
}

/// JSON for an inline `<script type="application/json">`: `<` is written as `\u003c`, so no
/// string in the data (a map name, a bot's stderr) can close the element or open a comment.
pub(crate) fn script_json<T: Serialize>(value: &T) -> String {
    // Plain data (strings, numbers, maps with string keys): it always serializes.
    let json = serde_json::to_string(value).expect("view data serializes");
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_its_element() {
        let text = script_json(&serde_json::json!({"stderr": "</script><!-- <b>"}));
        assert!(!text.contains('<'), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["stderr"], "</script><!-- <b>");
    }
}
