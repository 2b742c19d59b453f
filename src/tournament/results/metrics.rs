//! `metrics.csv`: what the bots reported on their `@metric` stderr lines ([`crate::bot::log`]),
//! per match and seat: for each metric, how many of the seat's decisions reported it, and its
//! last, mean and largest value.
//!
//! Each match's rows are appended as it ends (so a run stopped by `kill -9` keeps the rows of the
//! matches its `matches.csv` keeps), and the file is rewritten sorted by match, seat and metric
//! at the end of a run: the same bots reporting the same numbers give the same bytes at any
//! concurrency, and a resumed run keeps the rows of the matches it does not replay. A torn last
//! line (a run killed while appending) is left out when the file is read back.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::summaries::fmt_f;
use super::{corrupt, write_atomically};
use crate::error::{Error, Result};
use crate::game::Seat;
use crate::matches::PlayedMatch;

pub(crate) const METRICS_FILE: &str = "metrics.csv";

const HEADER: &str = "match,seat,role,bot,metric,decisions,last,mean,max\n";

/// One metric of one seat of one match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MetricRow {
    #[serde(rename = "match")]
    pub id: u64,
    pub seat: Seat,
    pub role: String,
    pub bot: String,
    pub metric: String,
    /// The seat's decisions that reported it.
    pub decisions: usize,
    pub last: f64,
    pub mean: f64,
    pub max: f64,
}

impl MetricRow {
    fn key(&self) -> (u64, Seat, String) {
        (self.id, self.seat, self.metric.clone())
    }

    fn line(&self) -> String {
        let field = |s: &str| {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        format!(
            "{},{},{},{},{},{},{},{},{}\n",
            self.id,
            self.seat,
            field(&self.role),
            field(&self.bot),
            field(&self.metric),
            self.decisions,
            number(self.last),
            number(self.mean),
            number(self.max)
        )
    }
}

/// A value as the file writes it: at most 6 decimals, no trailing zeros.
fn number(v: f64) -> String {
    let s = fmt_f(v, 6);
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// The rows of one played match: every seat's metrics, by seat then name.
pub(crate) fn rows_of(id: u64, played: &PlayedMatch) -> Vec<MetricRow> {
    // Per seat and name: decisions, last, sum, max.
    let mut seen: BTreeMap<(Seat, &str), (usize, f64, f64, f64)> = BTreeMap::new();
    for step in &played.steps {
        for (name, &value) in &step.log.metrics {
            let e = seen.entry((step.seat, name)).or_insert((0, value, 0.0, value));
            e.0 += 1;
            e.1 = value;
            e.2 += value;
            e.3 = e.3.max(value);
        }
    }
    seen.into_iter()
        .map(|((seat, name), (decisions, last, sum, max))| {
            let info = &played.header.seats[seat];
            MetricRow {
                id,
                seat,
                role: info.role.clone(),
                bot: info.bot.clone(),
                metric: name.to_string(),
                decisions,
                last,
                mean: sum / decisions as f64,
                max,
            }
        })
        .collect()
}

/// `metrics.csv` of a run: rows appended as matches end, the file sorted at the end.
pub(crate) struct MetricsWriter {
    file: Mutex<File>,
}

impl MetricsWriter {
    /// Opens `dir`'s file for appending, writing its header if it is new.
    pub(crate) fn open(dir: &Path) -> Result<MetricsWriter> {
        let path = dir.join(METRICS_FILE);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Error::write(&path, e))?;
        let len = file.metadata().map_err(|e| Error::read(&path, e))?.len();
        if len == 0 {
            file.write_all(HEADER.as_bytes()).map_err(|e| Error::write(&path, e))?;
        }
        Ok(MetricsWriter { file: Mutex::new(file) })
    }

    /// Appends the rows of match `id`, in one write.
    pub(crate) fn append(&self, dir: &Path, id: u64, played: &PlayedMatch) -> Result<()> {
        let text: String = rows_of(id, played).iter().map(MetricRow::line).collect();
        if text.is_empty() {
            return Ok(());
        }
        let mut file = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(text.as_bytes()).map_err(|e| Error::write(dir.join(METRICS_FILE), e))
    }
}

/// Rewrites `dir`'s file sorted by match, seat and metric (a row appended twice for one match,
/// by runs stopped and resumed, counts once).
pub(crate) fn sort(dir: &Path) -> Result<()> {
    write(dir, read(dir)?)
}

/// Writes `rows` as `dir`'s file, sorted.
pub(crate) fn write(dir: &Path, rows: Vec<MetricRow>) -> Result<()> {
    let mut sorted: BTreeMap<(u64, Seat, String), MetricRow> = BTreeMap::new();
    for row in rows {
        sorted.insert(row.key(), row);
    }
    let text: String =
        std::iter::once(HEADER.to_string()).chain(sorted.values().map(MetricRow::line)).collect();
    write_atomically(&dir.join(METRICS_FILE), text.as_bytes())
}

/// The rows of `dir`'s file (none when it has none); a torn last line is left out.
pub(crate) fn read(dir: &Path) -> Result<Vec<MetricRow>> {
    let path = dir.join(METRICS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::read(&path, e)),
    };
    // What follows the last newline was being written when the run stopped.
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let mut reader = csv::Reader::from_reader(complete.as_bytes());
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<MetricRow>().enumerate() {
        rows.push(row.map_err(|e| corrupt(&path, Some(i as u64 + 2), e.to_string()))?);
    }
    Ok(rows)
}

/// Per bot and metric: the decisions that reported it and its mean over them (over every match
/// of the bot, each decision counting once).
pub(crate) fn bot_means(rows: &[MetricRow]) -> BTreeMap<String, BTreeMap<String, (usize, f64)>> {
    let mut sums: BTreeMap<String, BTreeMap<String, (usize, f64)>> = BTreeMap::new();
    for r in rows {
        let e = sums.entry(r.bot.clone()).or_default().entry(r.metric.clone()).or_default();
        e.0 += r.decisions;
        e.1 += r.mean * r.decisions as f64;
    }
    for metrics in sums.values_mut() {
        for (decisions, sum) in metrics.values_mut() {
            *sum /= (*decisions).max(1) as f64;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, seat: Seat, bot: &str, metric: &str, decisions: usize, mean: f64) -> MetricRow {
        MetricRow {
            id,
            seat,
            role: "virus".into(),
            bot: bot.into(),
            metric: metric.into(),
            decisions,
            last: mean,
            mean,
            max: mean,
        }
    }

    #[test]
    fn rows_write_sorted_read_back_and_a_torn_last_line_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let rows = vec![
            row(2, 0, "b", "nodes", 3, 1.5),
            row(1, 1, "a, the \"first\"", "depth", 2, 7.0),
            row(1, 0, "b", "depth", 4, 0.1234567),
        ];
        write(dir.path(), rows).unwrap();
        let path = dir.path().join(METRICS_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "match,seat,role,bot,metric,decisions,last,mean,max\n\
             1,0,virus,b,depth,4,0.123457,0.123457,0.123457\n\
             1,1,virus,\"a, the \"\"first\"\"\",depth,2,7,7,7\n\
             2,0,virus,b,nodes,3,1.5,1.5,1.5\n"
        );
        std::fs::write(&path, format!("{text}3,0,vir")).unwrap();
        let back = read(dir.path()).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back[1].bot, "a, the \"first\"");
    }

    #[test]
    fn a_bot_s_mean_counts_each_decision_once() {
        let rows = vec![row(1, 0, "b", "depth", 1, 10.0), row(2, 0, "b", "depth", 3, 2.0)];
        let means = bot_means(&rows);
        assert_eq!(means["b"]["depth"], (4, 4.0));
    }
}
