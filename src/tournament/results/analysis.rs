//! `analysis.csv` and `analysis-summary.csv`: with `analysis = true` in the arena file, every
//! played match is rated against the exact solver ([`crate::analysis`]) while its steps are at
//! hand, so a tournament says where each bot went wrong, not only how often it lost.
//!
//! The solver's budget is a count of positions, never time, and the file is rewritten sorted by
//! match and seat at the end of a run: the same arena gives the same bytes at any concurrency,
//! and a resumed run keeps the rows of the matches it does not replay.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::summaries::fmt_f;
use super::{corrupt, write_atomically};
use crate::analysis::{Limits, analyze_actions};
use crate::error::{Error, Result};
use crate::game::Seat;
use crate::matches::PlayedMatch;
use crate::replay::ActionLine;

pub(crate) const ANALYSIS_FILE: &str = "analysis.csv";
pub(crate) const ANALYSIS_SUMMARY_FILE: &str = "analysis-summary.csv";

/// Solver positions per decision: enough for the shipped maps and the separating ones.
pub(crate) const POSITIONS: u64 = 1_000_000;

/// One seat of one match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnalysisRow {
    #[serde(rename = "match")]
    pub id: u64,
    pub seat: Seat,
    pub role: String,
    pub bot: String,
    pub decisions: usize,
    pub analysed: usize,
    pub best: usize,
    pub inaccuracies: usize,
    pub blunders: usize,
    pub unknown: usize,
    pub value_lost: i64,
}

/// The rows of the matches played in this run, by match.
#[derive(Default)]
pub(crate) struct AnalysisRows(Mutex<BTreeMap<u64, Vec<AnalysisRow>>>);

impl AnalysisRows {
    /// Rates the decisions of match `id`.
    pub(crate) fn add(&self, id: u64, played: &PlayedMatch) -> Result<()> {
        let actions: Vec<ActionLine> =
            played.steps.iter().map(|s| ActionLine::new(&played.header, s)).collect();
        let limits = Limits { time_ms: None, positions: Some(POSITIONS) };
        let name = format!("match {id}");
        let report = analyze_actions(Path::new(&name), &played.header, &actions, limits)?;
        let rows = report
            .seats
            .iter()
            .map(|s| AnalysisRow {
                id,
                seat: s.seat,
                role: s.role.clone(),
                bot: s.bot.clone(),
                decisions: s.decisions,
                analysed: s.analysed,
                best: s.best,
                inaccuracies: s.inaccuracies,
                blunders: s.blunders,
                unknown: s.unknown,
                value_lost: s.value_lost,
            })
            .collect();
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id, rows);
        Ok(())
    }

    /// Merges this run's rows with those already in `dir` and writes both files.
    pub(crate) fn write(self, dir: &Path) -> Result<()> {
        let path = dir.join(ANALYSIS_FILE);
        let mut all: BTreeMap<(u64, Seat), AnalysisRow> = BTreeMap::new();
        if path.exists() {
            let mut reader =
                csv::Reader::from_path(&path).map_err(|e| corrupt(&path, None, e.to_string()))?;
            for (i, row) in reader.deserialize::<AnalysisRow>().enumerate() {
                let row = row.map_err(|e| corrupt(&path, Some(i as u64 + 2), e.to_string()))?;
                all.insert((row.id, row.seat), row);
            }
        }
        for row in self
            .0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .into_values()
            .flatten()
        {
            all.insert((row.id, row.seat), row);
        }
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in all.values() {
            writer.serialize(row).map_err(|e| Error::write(&path, std::io::Error::other(e)))?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|e| Error::write(&path, std::io::Error::other(e.to_string())))?;
        let bytes = if all.is_empty() { header_line().into_bytes() } else { bytes };
        write_atomically(&path, &bytes)?;
        write_atomically(&dir.join(ANALYSIS_SUMMARY_FILE), summary(all.values()).as_bytes())
    }
}

fn header_line() -> String {
    "match,seat,role,bot,decisions,analysed,best,inaccuracies,blunders,unknown,value_lost\n".into()
}

/// Per bot: decisions, analysed, blunders, blunder rate and mean value lost per analysed
/// decision, sorted by bot name.
fn summary<'a>(rows: impl Iterator<Item = &'a AnalysisRow>) -> String {
    let mut bots: BTreeMap<&str, [i64; 4]> = BTreeMap::new();
    for r in rows {
        let t = bots.entry(&r.bot).or_default();
        t[0] += r.decisions as i64;
        t[1] += r.analysed as i64;
        t[2] += r.blunders as i64;
        t[3] += r.value_lost;
    }
    let mut s =
        String::from("bot,decisions,analysed,blunders,blunder_rate,value_lost,mean_value_lost\n");
    for (bot, [decisions, analysed, blunders, lost]) in bots {
        let per = |x: i64| if analysed == 0 { f64::NAN } else { x as f64 / analysed as f64 };
        s += &format!(
            "{bot},{decisions},{analysed},{blunders},{},{lost},{}\n",
            fmt_f(per(blunders), 4),
            fmt_f(per(lost), 4)
        );
    }
    s
}
