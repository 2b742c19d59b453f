//! The viewer's HTML: a fixed frame (header, board, side panel, controls) around the embedded
//! data, with the script and the style from `assets/viewer/` inline, so the file needs nothing
//! else and works from `file://`.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::ViewData;

pub(crate) const VIEWER_JS: &str = include_str!("../../assets/viewer/viewer.js");
pub(crate) const VIEWER_CSS: &str = include_str!("../../assets/viewer/viewer.css");
/// The bot author's panels: each seat's stderr at the current step, and its metrics per turn.
pub(crate) const DEBUG_JS: &str = include_str!("../../assets/viewer/debug.js");
pub(crate) const DEBUG_CSS: &str = include_str!("../../assets/viewer/debug.css");

/// Only inline script and style, and images from `data:` URLs: every fetch, font, frame or
/// connection is refused, so a page cannot leak that it was opened or depend on a network.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// The `<head>` every page of ours shares.
pub(crate) fn head(title: &str, css: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta http-equiv="Content-Security-Policy" content=(CSP);
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) }
            style { (PreEscaped(css)) }
        }
    }
}

pub(crate) fn viewer(data: &ViewData) -> String {
    let title = format!("{} · {} {} on {}", data.source, data.game, data.variant, data.map);
    // Marks and their keys only where a solver rated the decisions.
    let marked = data.analysis.as_ref().is_some_and(|a| a.exact);
    let has_stderr = data.steps.iter().any(|s| s.stderr.is_some())
        || data.result.reports.iter().any(|r| !r.stderr_tail.is_empty());
    let has_metrics = data.steps.iter().any(|s| !s.metrics.is_empty());
    let players: Vec<String> =
        data.seats.iter().map(|s| format!("{}: {}", s.role, s.bot)).collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            (head(&title, VIEWER_CSS))
            body data-game=(data.game.to_string()) {
                header {
                    h1 { (data.game) " " span.variant { (data.variant) } }
                    p.meta {
                        "map " b { (data.map) } " · seed " (data.seed) " · " (players.join(" · "))
                    }
                }
                main {
                    section #stage {
                        svg #board xmlns="http://www.w3.org/2000/svg" role="img"
                            aria-label="the board" {}
                        div #overlay hidden {}
                    }
                    aside #side {
                        section #now aria-live="polite" {}
                        @if has_stderr {
                            section #stderr-panel {}
                        }
                        @if has_metrics {
                            section #metrics-panel {}
                        }
                        @if data.analysis.is_some() {
                            section #analysis {}
                        }
                        section #game-panel {}
                        details #input-panel {
                            summary { "protocol input" }
                            pre #input {}
                        }
                        section #log-panel {
                            h2 { "log " select #log-filter aria-label="which events" {} }
                            ol #log {}
                        }
                        section #result {}
                    }
                }
                footer #controls {
                    button #first type="button" title="first step (Home)" { "|◀" }
                    button #back type="button" title="step back (←)" { "◀" }
                    button #play type="button" title="play / pause (space)" { "▶ play" }
                    button #forward type="button" title="step forward (→)" { "▶" }
                    button #last type="button" title="last step (End)" { "▶|" }
                    div #timeline {
                        @if marked {
                            div #marks role="group" aria-label="rated decisions" {}
                        }
                        input #slider type="range" min="0" max="0" value="0" aria-label="step";
                    }
                    span #counter {}
                    label {
                        "speed "
                        select #speed {
                            option value="1000" { "1/s" }
                            option value="250" selected { "4/s" }
                            option value="60" { "16/s" }
                            option value="16" { "60/s" }
                        }
                    }
                    span.keys {
                        "keys: ← → space Home End"
                        @if marked { " · P N: previous, next marked decision" }
                    }
                }
                script #replay-data type="application/json" {
                    (PreEscaped(super::script_json(data)))
                }
                script { (PreEscaped(VIEWER_JS)) }
                @if has_stderr || has_metrics {
                    style { (PreEscaped(DEBUG_CSS)) }
                    script { (PreEscaped(DEBUG_JS)) }
                }
            }
        }
    };
    page.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_assets_cannot_end_their_elements_early() {
        for (name, text) in [
            ("viewer.js", VIEWER_JS),
            ("viewer.css", VIEWER_CSS),
            ("debug.js", DEBUG_JS),
            ("debug.css", DEBUG_CSS),
        ] {
            let lower = text.to_lowercase();
            assert!(!lower.contains("</script"), "{name}");
            assert!(!lower.contains("</style"), "{name}");
        }
    }
}
