//! Reads a results folder for the report, by the schemas of `docs/tournaments.md` (columns found
//! by name, so an added column does not break the report). A torn last line of `matches.csv` (a
//! run killed mid-write, or one still running) is left out, as a resume would; any other bad line
//! is an error naming the file and the line.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// One row of `summary.csv`. A bot without games has no rank, rates or rating (empty fields).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct SummaryRow {
    pub rank: Option<u32>,
    pub bot: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub mean_score: Option<f64>,
    pub win_rate: Option<f64>,
    pub win_rate_low: Option<f64>,
    pub win_rate_high: Option<f64>,
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    pub faults: u64,
    pub timeouts: u64,
}

/// One row of `pairwise.csv`.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct PairRow {
    pub bot: String,
    pub opponent: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub score_rate: f64,
}

/// One seat of a match row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SeatResult {
    pub role: String,
    pub bot: String,
    pub score: f64,
    pub rank: u32,
    /// The seat's longest decision in the match, in ms.
    pub max_turn_ms: f64,
}

/// One row of `matches.csv`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MatchRow {
    pub id: u64,
    pub game: u64,
    pub map: String,
    pub seed: u64,
    pub seats: Vec<SeatResult>,
    pub termination: String,
    /// The role of the seat whose failure ended the match.
    pub culprit_role: Option<String>,
    pub turns: u64,
    pub reason: String,
    pub duration_ms: f64,
}

/// Everything the report is drawn from.
#[derive(Clone, Debug)]
pub(crate) struct Results {
    /// `meta.json` as it is (only a few fields are shown).
    pub meta: serde_json::Value,
    /// `None` when the file is missing (a run that has not finished its first summary).
    pub summary: Option<Vec<SummaryRow>>,
    pub pairwise: Option<Vec<PairRow>>,
    pub matches: Vec<MatchRow>,
}

fn results_error(path: &Path, line: Option<usize>, message: impl Into<String>) -> Error {
    Error::Results { path: path.to_path_buf(), line, message: message.into() }
}

/// Reads `meta.json`, `matches.csv` and, when present, `summary.csv` and `pairwise.csv`.
pub(crate) fn read_results(dir: &Path) -> Result<Results> {
    let (meta_path, meta_text) = crate::tournament::results::read_meta_text(dir)?;
    let meta: serde_json::Value = serde_json::from_str(&meta_text)
        .map_err(|e| results_error(&meta_path, Some(e.line()), e.to_string()))?;
    let matches = read_matches(&dir.join("matches.csv"))?;
    let summary = read_optional::<SummaryRow>(&dir.join("summary.csv"))?;
    let pairwise = read_optional::<PairRow>(&dir.join("pairwise.csv"))?;
    Ok(Results { meta, summary, pairwise, matches })
}

fn read_optional<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<Vec<T>>> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::read(path, e)),
    };
    let mut reader = csv::Reader::from_reader(file);
    let mut rows = Vec::new();
    for row in reader.deserialize() {
        let row: T = row.map_err(|e| csv_error(path, &e))?;
        rows.push(row);
    }
    Ok(Some(rows))
}

fn csv_error(path: &Path, e: &csv::Error) -> Error {
    let line = e.position().map(|p| p.line() as usize);
    results_error(path, line, e.to_string())
}

/// The rows of `matches.csv`, in file order, without a torn last line.
pub(crate) fn read_matches(path: &Path) -> Result<Vec<MatchRow>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| Error::read(path, e))?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(complete);
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let header = reader.headers().map_err(|e| csv_error(path, &e))?.clone();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| results_error(path, Some(1), format!("no column `{name}`")))
    };
    let seats = (0..).take_while(|s| header.iter().any(|h| h == format!("seat{s}_bot"))).count();
    if seats == 0 {
        return Err(results_error(path, Some(1), "no `seat0_bot` column"));
    }
    let seat_cols = (0..seats)
        .map(|s| {
            Ok([
                col(&format!("seat{s}_role"))?,
                col(&format!("seat{s}_bot"))?,
                col(&format!("seat{s}_score"))?,
                col(&format!("seat{s}_rank"))?,
                col(&format!("seat{s}_max_turn_ms"))?,
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    let [id, game, map, seed, termination, culprit_role, turns, reason, duration] = [
        "id",
        "game",
        "map",
        "seed",
        "termination",
        "culprit_role",
        "turns",
        "reason",
        "duration_ms",
    ]
    .map(col);
    let (id, game, map, seed, termination) = (id?, game?, map?, seed?, termination?);
    let (culprit_role, turns, reason, duration) = (culprit_role?, turns?, reason?, duration?);
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(|e| csv_error(path, &e))? {
        let line = record.position().map_or(0, |p| p.line() as usize);
        let bad = |col: usize, what: &str| {
            results_error(
                path,
                Some(line),
                format!("column `{}`: `{}` is not {what}", &header[col], &record[col]),
            )
        };
        let int = |col: usize| record[col].parse::<u64>().map_err(|_| bad(col, "a whole number"));
        let float = |col: usize| record[col].parse::<f64>().map_err(|_| bad(col, "a number"));
        if record.len() != header.len() {
            return Err(results_error(
                path,
                Some(line),
                format!("{} fields, the header has {}", record.len(), header.len()),
            ));
        }
        let seats = seat_cols
            .iter()
            .map(|&[role, bot, score, rank, max_ms]| {
                Ok(SeatResult {
                    role: record[role].to_string(),
                    bot: record[bot].to_string(),
                    score: float(score)?,
                    rank: u32::try_from(int(rank)?).map_err(|_| bad(rank, "a rank"))?,
                    max_turn_ms: float(max_ms)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        rows.push(MatchRow {
            id: int(id)?,
            game: int(game)?,
            map: record[map].to_string(),
            seed: int(seed)?,
            seats,
            termination: record[termination].to_string(),
            culprit_role: Some(record[culprit_role].to_string()).filter(|r| !r.is_empty()),
            turns: int(turns)?,
            reason: record[reason].to_string(),
            duration_ms: float(duration)?,
        });
    }
    Ok(rows)
}
