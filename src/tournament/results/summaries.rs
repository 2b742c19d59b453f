//! `summary.csv` and `pairwise.csv`: the standings as files, written and read back here, one row
//! type per file ([`SummaryRow`], [`PairRow`]). Floats have fixed formatting, so the same counters
//! always give the same bytes; columns are read by name, so a column added later does not break
//! a reader of an older folder.

use std::path::Path;

use serde::Deserialize;

use super::{PAIRWISE_FILE, SUMMARY_FILE, corrupt, write_atomically};
use crate::error::{Error, Result};
use crate::tournament::stats::standings::{BotStanding, HeadToHead, Standings};

/// Fixed formatting, so the same counters always print the same text: `decimals` places, no
/// `-0`, `inf`/`-inf` for infinities and nothing for NaN.
pub(crate) fn fmt_f(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        String::new()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        let s = format!("{v:.decimals$}");
        // No "-0.0".
        if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            s.trim_start_matches('-').to_string()
        } else {
            s
        }
    }
}

/// [`fmt_f`] of a figure that may be absent (written empty).
fn fmt_opt(v: Option<f64>, decimals: usize) -> String {
    v.map(|v| fmt_f(v, decimals)).unwrap_or_default()
}

/// A figure that is not a number is absent.
fn finite_or_inf(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

pub(crate) const SUMMARY_COLUMNS: &[&str] = &[
    "rank",
    "bot",
    "games",
    "wins",
    "draws",
    "losses",
    "mean_score",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "elo",
    "elo_low",
    "elo_high",
    "faults",
    "timeouts",
    "component",
    "turn_limit",
    "los_next",
    "role",
];

/// One line of `summary.csv`. A bot without games has no rank, rates, rating or component
/// (empty fields).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct SummaryRow {
    pub(crate) rank: Option<usize>,
    pub(crate) bot: String,
    pub(crate) games: u64,
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
    pub(crate) mean_score: Option<f64>,
    pub(crate) win_rate: Option<f64>,
    pub(crate) win_rate_low: Option<f64>,
    pub(crate) win_rate_high: Option<f64>,
    pub(crate) elo: Option<f64>,
    pub(crate) elo_low: Option<f64>,
    pub(crate) elo_high: Option<f64>,
    pub(crate) faults: u64,
    pub(crate) timeouts: u64,
    /// Absent in folders written before the column existed.
    #[serde(default)]
    pub(crate) component: Option<usize>,
    #[serde(default)]
    pub(crate) turn_limit: u64,
    /// The likelihood of superiority over the next bot of the table; absent for the last of a
    /// component, and in folders written before the column existed.
    #[serde(default)]
    pub(crate) los_next: Option<f64>,
    /// The role a bot is ranked within when the bots split by role; empty otherwise.
    #[serde(default)]
    pub(crate) role: Option<String>,
}

impl SummaryRow {
    pub(crate) fn of(r: &BotStanding) -> SummaryRow {
        SummaryRow {
            rank: r.rank,
            bot: r.bot.clone(),
            games: r.games,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            mean_score: finite_or_inf(r.mean_score),
            win_rate: finite_or_inf(r.win_rate.value),
            win_rate_low: finite_or_inf(r.win_rate.low),
            win_rate_high: finite_or_inf(r.win_rate.high),
            elo: finite_or_inf(r.elo),
            elo_low: finite_or_inf(r.elo - r.elo_margin),
            elo_high: finite_or_inf(r.elo + r.elo_margin),
            faults: r.faults,
            timeouts: r.timeouts,
            component: r.component,
            turn_limit: r.turn_limit,
            los_next: r.los_next,
            role: r.role.clone(),
        }
    }

    fn record(&self) -> [String; 19] {
        [
            self.rank.map(|k| k.to_string()).unwrap_or_default(),
            self.bot.clone(),
            self.games.to_string(),
            self.wins.to_string(),
            self.draws.to_string(),
            self.losses.to_string(),
            fmt_opt(self.mean_score, 4),
            fmt_opt(self.win_rate, 4),
            fmt_opt(self.win_rate_low, 4),
            fmt_opt(self.win_rate_high, 4),
            fmt_opt(self.elo, 1),
            fmt_opt(self.elo_low, 1),
            fmt_opt(self.elo_high, 1),
            self.faults.to_string(),
            self.timeouts.to_string(),
            self.component.map(|c| c.to_string()).unwrap_or_default(),
            self.turn_limit.to_string(),
            fmt_opt(self.los_next, 4),
            self.role.clone().unwrap_or_default(),
        ]
    }
}

/// `summary.csv`: one line per bot, by component and best rating first; bots without games last,
/// with no rank, rating or component.
pub(crate) fn summary_csv(standings: &Standings) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(SUMMARY_COLUMNS).expect("writing to memory");
    for r in &standings.bots {
        w.write_record(SummaryRow::of(r).record()).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

pub(crate) const PAIRWISE_COLUMNS: &[&str] =
    &["bot", "opponent", "games", "wins", "draws", "losses", "score_rate"];

/// One line of `pairwise.csv`: the row bot's results against the opponent.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct PairRow {
    pub(crate) bot: String,
    pub(crate) opponent: String,
    pub(crate) games: u64,
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
    pub(crate) score_rate: f64,
}

impl PairRow {
    pub(crate) fn of(h: &HeadToHead) -> PairRow {
        let p = &h.record;
        PairRow {
            bot: h.bot.clone(),
            opponent: h.opponent.clone(),
            games: p.games,
            wins: p.wins,
            draws: p.draws,
            losses: p.losses,
            score_rate: p.score_rate,
        }
    }

    fn record(&self) -> [String; 7] {
        [
            self.bot.clone(),
            self.opponent.clone(),
            self.games.to_string(),
            self.wins.to_string(),
            self.draws.to_string(),
            self.losses.to_string(),
            fmt_f(self.score_rate, 4),
        ]
    }
}

/// `pairwise.csv`: one line per ordered pair of bots that met, in the arena's bot order.
pub(crate) fn pairwise_csv(standings: &Standings) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(PAIRWISE_COLUMNS).expect("writing to memory");
    for h in &standings.head_to_head {
        w.write_record(PairRow::of(h).record()).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

/// Writes `summary.csv` and `pairwise.csv`, each whole or not at all.
pub(crate) fn write(dir: &Path, standings: &Standings) -> Result<()> {
    write_atomically(&dir.join(SUMMARY_FILE), summary_csv(standings).as_bytes())?;
    write_atomically(&dir.join(PAIRWISE_FILE), pairwise_csv(standings).as_bytes())
}

/// The rows of `summary.csv`; `None` when the folder has none yet (a run that has not finished).
pub(crate) fn read_summary(dir: &Path) -> Result<Option<Vec<SummaryRow>>> {
    read_optional(&dir.join(SUMMARY_FILE))
}

/// The rows of `pairwise.csv`; `None` when the folder has none yet.
pub(crate) fn read_pairwise(dir: &Path) -> Result<Option<Vec<PairRow>>> {
    read_optional(&dir.join(PAIRWISE_FILE))
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
        let row: T =
            row.map_err(|e| corrupt(path, e.position().map(csv::Position::line), e.to_string()))?;
        rows.push(row);
    }
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::stats::tally::tests::{tally_of, three_matches};

    #[test]
    fn fixed_formatting_has_no_negative_zero() {
        assert_eq!(fmt_f(-0.00001, 2), "0.00");
        assert_eq!(fmt_f(1.23456, 2), "1.23");
        assert_eq!(fmt_f(f64::NAN, 2), "");
        assert_eq!(fmt_f(f64::NEG_INFINITY, 1), "-inf");
    }

    #[test]
    fn the_files_do_not_depend_on_row_order() {
        let forward = Standings::of(&tally_of(three_matches().into_iter()));
        let backward = Standings::of(&tally_of(three_matches().into_iter().rev()));
        assert_eq!(summary_csv(&forward), summary_csv(&backward));
        assert_eq!(pairwise_csv(&forward), pairwise_csv(&backward));
        let summary = summary_csv(&forward);
        assert_eq!(summary.lines().count(), 4, "{summary}");
        assert!(summary.lines().nth(1).unwrap().starts_with("1,a,2,2,0,0,1.0000,"), "{summary}");
        // a met b and c, b met a and c, c met b and a: six ordered pairs.
        assert_eq!(pairwise_csv(&forward).lines().count(), 7);
        assert!(pairwise_csv(&forward).contains("\nb,c,1,0,1,0,0.5000\n"));
    }

    #[test]
    fn the_files_read_back_as_the_rows_they_were_written_from() {
        let mut tally = tally_of(three_matches().into_iter());
        // A bot without games: no rank, rates, rating or component.
        tally.bots.push("idle".into());
        tally.per_bot.push(Default::default());
        for row in &mut tally.pair {
            row.push(Default::default());
        }
        tally.pair.push(vec![Default::default(); tally.bots.len()]);
        tally.by_seat.push(vec![Default::default(); tally.roles.len()]);
        let standings = Standings::of(&tally);
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_summary(dir.path()).unwrap(), None, "no file yet");
        write(dir.path(), &standings).unwrap();
        let summary = read_summary(dir.path()).unwrap().unwrap();
        assert_eq!(summary.len(), standings.bots.len());
        for (read, standing) in summary.iter().zip(&standings.bots) {
            // What was written rounded: the row re-read writes the same line.
            assert_eq!(read.record(), SummaryRow::of(standing).record());
        }
        let idle = summary.iter().find(|r| r.bot == "idle").unwrap();
        assert_eq!((idle.rank, idle.elo, idle.component, idle.games), (None, None, None, 0));
        let pairs = read_pairwise(dir.path()).unwrap().unwrap();
        assert_eq!(pairs.len(), standings.head_to_head.len());
        assert_eq!(pairs[0].record(), PairRow::of(&standings.head_to_head[0]).record());
        // A bad line is an error naming the file and the line.
        std::fs::write(dir.path().join(SUMMARY_FILE), summary_csv(&standings) + "x,y\n").unwrap();
        let e = read_summary(dir.path()).unwrap_err();
        assert!(matches!(e, Error::Results { line: Some(6), .. }), "{e:?}");
    }
}
