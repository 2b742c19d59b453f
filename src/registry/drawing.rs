//! What a game gives the viewer: how to draw a match of it. `arena view` replays the recorded
//! actions through the rules and asks the game's [`Drawing`] for the board, the state after every
//! step and the step's events; the page draws them (see [`crate::view`]).

use serde::Serialize;
use serde_json::Value;

use crate::game::{Game, MapText, Seat};

/// How the viewer draws a game (each game's `view.rs`).
pub trait Drawing<G: Game> {
    /// Whether a seat's turn input holds what the other seats may not see (Risk: the hand), so
    /// the page shows it only from that seat's point of view.
    const PRIVATE_INPUTS: bool = false;

    /// What does not change during a match: the board's geometry, in the game's own terms.
    fn board(game: &G, map: &MapText) -> Value;

    /// The state after a step, as one JSON object. Keys must be the same at every step; the page
    /// receives only the keys (and array elements) that changed.
    fn state(game: &G) -> Value;

    /// What `seat` playing `action` did to `before`, giving `after`, in words for the log.
    fn events(before: &G, after: &G, seat: Seat, action: &G::Action) -> Vec<Event>;
}

/// One line of the page's log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// A short word the page filters and styles by (`cut`, `move`, `battle`, `card`, ...).
    pub kind: &'static str,
    /// The line, in words.
    pub text: String,
    /// Hidden information: shown only from this seat's point of view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_to: Option<Seat>,
    /// What the page draws beside the text (a battle's dice), if anything.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub data: Value,
}

impl Event {
    /// A line everyone sees.
    pub fn new(kind: &'static str, text: impl Into<String>) -> Event {
        Event { kind, text: text.into(), private_to: None, data: Value::Null }
    }

    /// An event only `seat` may see.
    pub fn private(kind: &'static str, seat: Seat, text: impl Into<String>) -> Event {
        Event { private_to: Some(seat), ..Event::new(kind, text) }
    }

    /// The event with what the page draws beside it.
    pub fn with_data(mut self, data: Value) -> Event {
        self.data = data;
        self
    }
}
