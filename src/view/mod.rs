//! Seeing the games: `arena view` turns a replay into one self-contained HTML page, and
//! [`report::write_report`] turns a results folder into `report.html`.
//!
//! The viewer replays the recorded actions through the rules (as `arena replay --verify` does),
//! so the page shows what the rules made of each action, not what a bot believed. Each game says
//! what to draw through the [`Drawing`](crate::registry::Drawing) it registers (in its own
//! `view.rs`): a static board, its state after every step as JSON, and the step's events in words. The page embeds the first state and, per step,
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

use crate::error::{Error, Result};

pub(crate) use analysis::Analysis;
pub(crate) use frames::ViewData;

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
    use serde_json::Value;

    use super::*;

    #[test]
    fn script_json_cannot_close_its_element() {
        let text = script_json(&serde_json::json!({"stderr": "</script><!-- <b>"}));
        assert!(!text.contains('<'), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["stderr"], "</script><!-- <b>");
    }
}
