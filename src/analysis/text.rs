//! The analysis in words, the same in `arena analyze`'s table and on the viewer's page: a value,
//! a label with its cost, the best moves.

use super::{Decision, Label, Limits, Value};

/// A value in words: who wins, or the final score; `?` when the solver did not settle it.
pub fn value_text(value: &Option<Value>) -> String {
    match value {
        None => "?".to_string(),
        Some(Value::WonBy(role)) => format!("won by {role}"),
        Some(Value::Score(s)) => format!("{s:+}"),
    }
}

/// The label, with the points a move lost in Painters' Duel (`unit` `points`).
pub fn label_text(d: &Decision, unit: &str) -> String {
    match (d.label, d.lost) {
        (Label::Inaccuracy | Label::Blunder, Some(k)) if unit == "points" => {
            format!("{} -{k}", d.label.as_str())
        }
        (label, _) => label.as_str().to_string(),
    }
}

/// The moves that keep the value: `any move` when every move does, at most six of them, and a
/// note when the solver did not try them all.
pub fn best_text(d: &Decision) -> String {
    if d.label == Label::Unknown && d.best.is_empty() {
        return "?".to_string();
    }
    if d.best_complete && d.moves == Some(d.best.len()) && d.best.len() > 1 {
        return "any move".to_string();
    }
    const SHOWN: usize = 6;
    let mut text = d.best.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if d.best.len() > SHOWN {
        text += &format!(", ... ({} in all)", d.best.len());
    }
    if !d.best_complete {
        text += if d.best.is_empty() { "(not all moves tried)" } else { " (not all moves tried)" };
    }
    text
}

/// A decision's search budget in words.
pub fn limits_text(l: &Limits) -> String {
    match (l.time_ms, l.positions) {
        (Some(ms), Some(p)) => format!("{ms} ms or {p} positions, whichever comes first"),
        (Some(ms), None) => format!("{ms} ms"),
        (None, Some(p)) => format!("{p} positions"),
        (None, None) => "unlimited".to_string(),
    }
}
