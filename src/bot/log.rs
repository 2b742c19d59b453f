//! What a bot wrote to its standard error during one decision, and the metrics it reported there:
//! the bot author's own debug output, kept with the decision it explains (CodinGame shows the
//! same beside each turn of a replay).
//!
//! A metric is a stderr line of the form `@metric NAME=VALUE NAME=VALUE ...` (for example
//! `@metric depth=7 nodes=18234`): names of letters, digits and `_ . - : /` (at most
//! [`MAX_METRIC_NAME`] bytes), values decimal numbers (`7`, `-0.5`, `1e6`). Anything else on such
//! a line is ignored, so a typo costs one metric, never the turn. `docs/external-bots.md`,
//! "Debugging a bot", documents the form.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The word that opens a metric line.
pub const METRIC_PREFIX: &str = "@metric";

/// The longest metric name kept, in bytes.
pub const MAX_METRIC_NAME: usize = 64;

/// The most metrics kept from one decision (the first ones named; a later value of a name
/// already kept replaces it).
pub const MAX_METRICS_PER_DECISION: usize = 32;

/// One decision's log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnLog {
    /// What the bot wrote to stderr from the end of its previous decision (or its start) to the
    /// end of this one, capped (the cut is marked at the end of the text); `None` when it wrote
    /// nothing or stderr is not kept.
    pub stderr: Option<String>,
    /// The metrics its `@metric` lines reported during the decision (the last value of each).
    pub metrics: BTreeMap<String, f64>,
}

impl TurnLog {
    /// Whether there is nothing to record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.stderr.is_none() && self.metrics.is_empty()
    }

    /// Adds what `later` wrote (later in the same decision).
    pub fn append(&mut self, later: TurnLog) {
        if let Some(more) = later.stderr {
            self.stderr.get_or_insert_with(String::new).push_str(&more);
        }
        self.metrics.extend(later.metrics);
    }
}

/// Reads `line` (without its newline) as a metric line; adds what it reports to `metrics`.
/// Returns whether it was one.
pub fn read_metric_line(line: &str, metrics: &mut BTreeMap<String, f64>) -> bool {
    let Some(rest) = line.trim_start().strip_prefix(METRIC_PREFIX) else { return false };
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return false;
    }
    for word in rest.split_whitespace() {
        let Some((name, value)) = word.split_once('=') else { continue };
        if name.is_empty() || name.len() > MAX_METRIC_NAME || !name.chars().all(is_name_char) {
            continue;
        }
        let Ok(value) = value.parse::<f64>() else { continue };
        if !value.is_finite() {
            continue;
        }
        if metrics.len() >= MAX_METRICS_PER_DECISION && !metrics.contains_key(name) {
            continue;
        }
        metrics.insert(name.to_string(), value);
    }
    true
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> (bool, BTreeMap<String, f64>) {
        let mut metrics = BTreeMap::new();
        let was = read_metric_line(line, &mut metrics);
        (was, metrics)
    }

    #[test]
    fn a_metric_line_reports_each_well_formed_pair_and_skips_the_rest() {
        let (was, m) = read("@metric depth=7 nodes=18234 eval=-0.5 junk bad=x n/s=1e3 =4 inf=inf");
        assert!(was);
        let expected: BTreeMap<String, f64> =
            [("depth", 7.0), ("nodes", 18234.0), ("eval", -0.5), ("n/s", 1000.0)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        assert_eq!(m, expected);
    }

    #[test]
    fn other_lines_are_not_metric_lines() {
        for line in ["depth=7", "@metrics depth=7", "# @metric depth=7", ""] {
            let (was, m) = read(line);
            assert!(!was && m.is_empty(), "{line:?}");
        }
        assert!(read("  @metric\tdepth=3").0, "leading blanks and tabs are fine");
    }

    #[test]
    fn a_decision_keeps_a_bounded_number_of_metrics_and_the_last_value_of_each() {
        let mut metrics = BTreeMap::new();
        for i in 0..100 {
            read_metric_line(&format!("@metric m{i}={i} m0={i}"), &mut metrics);
        }
        assert_eq!(metrics.len(), MAX_METRICS_PER_DECISION);
        assert_eq!(metrics["m0"], 99.0);
        let long = "x".repeat(MAX_METRIC_NAME + 1);
        assert!(read(&format!("@metric {long}=1")).1.is_empty());
    }
}
