//! `matches.csv`: the durable record of a run, one row per match.
//!
//! Rows are appended as matches end, one `write` of one whole line each, so a run killed at any
//! instant leaves complete rows plus at most one torn last line (no trailing newline), which a
//! resume cuts off. Rows are keyed by match id, not by position; their order on disk is the order
//! matches finished.
//!
//! [`MatchRow`] is the one type of this layer: a row is written from it and read back into it.
//! The chain of a match's result is: the referee's `MatchResult` → the replay's
//! [`MatchSummary`](crate::replay::MatchSummary) (roles by name) → a [`MatchRow`] here (bots by
//! name, plus the schedule's id, map and seed) → the tally's
//! [`MatchPlacing`](crate::tournament::stats::tally::MatchPlacing) (bots by index).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;
use serde::de::IntoDeserializer;

use super::corrupt;
use crate::bot::Termination;
use crate::error::{Error, Result};
use crate::tournament::stats::tally::MatchPlacing;

/// The columns of `matches.csv` for a game of `seats` seats. Timing columns come last, so
/// `cut`-ing them leaves exactly the reproducible part of a row: the wall-clock ones, then
/// (since results format 2) the CPU time ones.
pub(crate) fn columns(seats: usize) -> Vec<String> {
    let mut c = columns_v1(seats);
    for s in 0..seats {
        c.push(format!("seat{s}_max_turn_cpu_ms"));
    }
    c
}

/// The columns of results format 1, before the CPU time was recorded: still read (by `merge`,
/// `diff`, `report`), never resumed or written.
fn columns_v1(seats: usize) -> Vec<String> {
    let mut c: Vec<String> = ["id", "game", "pairing", "map", "seed"]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    for s in 0..seats {
        for field in ["role", "bot", "score", "rank"] {
            c.push(format!("seat{s}_{field}"));
        }
    }
    for field in
        ["winner", "winner_role", "termination", "culprit", "culprit_role", "turns", "reason"]
    {
        c.push(field.to_string());
    }
    c.push("duration_ms".to_string());
    for s in 0..seats {
        c.push(format!("seat{s}_max_turn_ms"));
    }
    c
}

/// One seat of a row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SeatRow {
    pub(crate) role: String,
    pub(crate) bot: String,
    pub(crate) score: f64,
    /// 1 is best; equal ranks tie.
    pub(crate) rank: u32,
}

/// One row of `matches.csv`: a match of a tournament, its place in the schedule and its result.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MatchRow {
    pub(crate) id: u64,
    /// The game number: the matches of one game share the map and the seed.
    pub(crate) game: u64,
    /// The pairing's label (its bots, ` vs `-separated).
    pub(crate) pairing: String,
    pub(crate) map: String,
    pub(crate) seed: u64,
    pub(crate) seats: Vec<SeatRow>,
    /// The bot and role ranked first alone; `None` for a draw.
    pub(crate) winner: Option<String>,
    pub(crate) winner_role: Option<String>,
    pub(crate) termination: Termination,
    /// The bot and role whose failure ended the match.
    pub(crate) culprit: Option<String>,
    pub(crate) culprit_role: Option<String>,
    pub(crate) turns: usize,
    pub(crate) reason: String,
    pub(crate) duration_ms: f64,
    /// Per seat, the longest single decision, in ms (wall clock).
    pub(crate) max_turn_ms: Vec<f64>,
    /// Per seat, the most CPU time a single decision used, in ms; `None` in rows of results
    /// format 1 (written empty).
    pub(crate) max_turn_cpu_ms: Vec<Option<f64>>,
}

/// A row names a bot the results folder does not list.
#[derive(Debug, thiserror::Error)]
#[error("unknown bot `{0}`")]
pub(crate) struct UnknownBot(pub String);

impl MatchRow {
    /// The row as one CSV line, with its newline.
    pub(crate) fn to_line(&self) -> String {
        let text = |s: &Option<String>| s.clone().unwrap_or_default();
        let mut fields: Vec<String> = vec![
            self.id.to_string(),
            self.game.to_string(),
            self.pairing.clone(),
            self.map.clone(),
            self.seed.to_string(),
        ];
        for seat in &self.seats {
            fields.push(seat.role.clone());
            fields.push(seat.bot.clone());
            fields.push(format!("{}", seat.score));
            fields.push(seat.rank.to_string());
        }
        fields.push(text(&self.winner));
        fields.push(text(&self.winner_role));
        fields.push(self.termination.as_str().to_string());
        fields.push(text(&self.culprit));
        fields.push(text(&self.culprit_role));
        fields.push(self.turns.to_string());
        fields.push(self.reason.clone());
        fields.push(format!("{:.3}", self.duration_ms));
        for ms in &self.max_turn_ms {
            fields.push(format!("{ms:.3}"));
        }
        for ms in &self.max_turn_cpu_ms {
            fields.push(ms.map(|ms| format!("{ms:.3}")).unwrap_or_default());
        }
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(fields.iter().map(|f| one_line(f))).expect("writing to memory");
        String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
    }

    /// Reads a record of `seats` seats (the header already checked).
    fn parse(record: &csv::StringRecord, seats: usize) -> std::result::Result<MatchRow, String> {
        let field = |i: usize| &record[i];
        let optional = |i: usize| (!field(i).is_empty()).then(|| field(i).to_string());
        let mut seat_rows = Vec::with_capacity(seats);
        for s in 0..seats {
            let at = 5 + 4 * s;
            seat_rows.push(SeatRow {
                role: field(at).to_string(),
                bot: field(at + 1).to_string(),
                score: parsed(record, at + 2, "score")?,
                rank: parsed(record, at + 3, "rank")?,
            });
        }
        let at = 5 + 4 * seats;
        let termination = Termination::deserialize(field(at + 2).into_deserializer())
            .map_err(|_: serde::de::value::Error| format!("bad termination `{}`", field(at + 2)))?;
        let timing = at + 8;
        Ok(MatchRow {
            id: parsed(record, 0, "id")?,
            game: parsed(record, 1, "game")?,
            pairing: field(2).to_string(),
            map: field(3).to_string(),
            seed: parsed(record, 4, "seed")?,
            seats: seat_rows,
            winner: optional(at),
            winner_role: optional(at + 1),
            termination,
            culprit: optional(at + 3),
            culprit_role: optional(at + 4),
            turns: parsed(record, at + 5, "turns")?,
            reason: field(at + 6).to_string(),
            duration_ms: parsed(record, at + 7, "duration")?,
            max_turn_ms: (0..seats)
                .map(|s| parsed(record, timing + s, "turn time"))
                .collect::<std::result::Result<_, _>>()?,
            max_turn_cpu_ms: (0..seats)
                .map(|s| match record.get(timing + seats + s) {
                    None | Some("") => Ok(None),
                    Some(_) => parsed(record, timing + seats + s, "CPU turn time").map(Some),
                })
                .collect::<std::result::Result<_, _>>()?,
        })
    }

    /// The counters' view of the row, bots as indices into `bots`.
    pub(crate) fn placing(&self, bots: &[String]) -> std::result::Result<MatchPlacing, UnknownBot> {
        let index = |name: &str| {
            bots.iter().position(|b| b == name).ok_or_else(|| UnknownBot(name.to_string()))
        };
        Ok(MatchPlacing {
            bots: self
                .seats
                .iter()
                .map(|s| index(&s.bot))
                .collect::<std::result::Result<_, _>>()?,
            scores: self.seats.iter().map(|s| s.score).collect(),
            ranks: self.seats.iter().map(|s| s.rank).collect(),
            termination: self.termination,
            culprit: self.culprit.as_deref().map(index).transpose()?,
        })
    }
}

/// Field `i` of a record as a number, or an error naming it.
fn parsed<T: std::str::FromStr>(
    record: &csv::StringRecord,
    i: usize,
    what: &str,
) -> std::result::Result<T, String> {
    record[i].parse().map_err(|_| format!("bad {what} `{}`", &record[i]))
}

/// Newlines in a field would defeat torn-line detection; no field needs one.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The header line.
pub(crate) fn format_header(seats: usize) -> String {
    let mut w =
        csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    w.write_record(columns(seats)).expect("writing to memory");
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

/// Appends rows to `matches.csv`, each flushed to the OS as one write.
pub(crate) struct RowWriter {
    path: PathBuf,
    /// The file, and whether a write to it has failed.
    file: Mutex<(File, bool)>,
}

impl RowWriter {
    /// Opens (creating with a header if needed) the file for appending.
    pub(crate) fn open(path: &Path, seats: usize) -> Result<RowWriter> {
        let fresh = !path.exists();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::write(path, e))?;
        if fresh || file.metadata().map_err(|e| Error::write(path, e))?.len() == 0 {
            file.write_all(format_header(seats).as_bytes()).map_err(|e| Error::write(path, e))?;
        }
        Ok(RowWriter { path: path.to_path_buf(), file: Mutex::new((file, false)) })
    }

    /// Appends one row. After a failed write nothing more is written: a write that failed half
    /// way leaves a torn line, which resume can only cut off while it is the last one.
    pub(crate) fn append(&self, row: &MatchRow) -> Result<()> {
        let line = row.to_line();
        let mut guard = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (file, failed) = &mut *guard;
        if *failed {
            return Err(Error::write(
                &self.path,
                std::io::Error::other("not written after an earlier failed write"),
            ));
        }
        let written = file.write_all(line.as_bytes()).and_then(|()| file.flush());
        *failed = written.is_err();
        written.map_err(|e| Error::write(&self.path, e))
    }

    pub(crate) fn sync(&self) -> Result<()> {
        let guard = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.0.sync_all().map_err(|e| Error::write(&self.path, e))
    }
}

/// The length of the file up to and including its last newline: what is left once a torn last
/// line (a write cut short by a kill) is dropped.
pub(crate) fn complete_len(path: &Path) -> Result<u64> {
    let mut file = File::open(path).map_err(|e| Error::read(path, e))?;
    let len = file.metadata().map_err(|e| Error::read(path, e))?.len();
    let mut end = len;
    let mut buf = vec![0u8; 8192];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start)).map_err(|e| Error::read(path, e))?;
        file.read_exact(chunk).map_err(|e| Error::read(path, e))?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// If the file's last line has no newline (a write torn by a kill), cuts it off and says so.
pub(crate) fn drop_torn_line(path: &Path) -> Result<bool> {
    let keep = complete_len(path)?;
    let file = OpenOptions::new().write(true).open(path).map_err(|e| Error::write(path, e))?;
    if file.metadata().map_err(|e| Error::read(path, e))?.len() == keep {
        return Ok(false);
    }
    file.set_len(keep).map_err(|e| Error::write(path, e))?;
    Ok(true)
}

/// Streams the complete rows of a `matches.csv` to `visit`, with their 1-based line numbers. A
/// torn last line (no newline) is skipped; any other bad line is an error naming the file and
/// line.
pub(crate) fn read_rows(
    path: &Path,
    seats: usize,
    mut visit: impl FnMut(u64, MatchRow) -> Result<()>,
) -> Result<()> {
    // Only complete lines: a torn last line is not read.
    let complete = complete_len(path)?;
    if complete == 0 {
        // Not even a whole header: a run killed as it created the file.
        return Ok(());
    }
    let file = File::open(path).map_err(|e| Error::read(path, e))?.take(complete);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(file);
    let header = reader.headers().map_err(|e| corrupt(path, Some(1), e.to_string()))?.clone();
    let same = |columns: &[String]| header.iter().eq(columns.iter().map(String::as_str));
    let expected = [columns(seats), columns_v1(seats)].into_iter().find(|c| same(c));
    let Some(expected) = expected else {
        return Err(corrupt(
            path,
            Some(1),
            format!("the header is not the {seats}-seat header of this arena"),
        ));
    };
    let mut record = csv::StringRecord::new();
    loop {
        let more = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map(csv::Position::line);
            corrupt(path, line, e.to_string())
        })?;
        if !more {
            break;
        }
        let line = record.position().expect("a read record has a position").line();
        if record.len() != expected.len() {
            let message = format!("{} fields, expected {}", record.len(), expected.len());
            return Err(corrupt(path, Some(line), message));
        }
        let row = MatchRow::parse(&record, seats).map_err(|m| corrupt(path, Some(line), m))?;
        visit(line, row)?;
    }
    Ok(())
}

/// A set of match ids: one bit each, the only per-match memory a run keeps.
#[derive(Clone, Debug)]
pub(crate) struct IdSet {
    bits: Vec<u64>,
    len: u64,
}

impl IdSet {
    pub(crate) fn new(capacity: u64) -> IdSet {
        IdSet { bits: vec![0; capacity.div_ceil(64) as usize], len: 0 }
    }

    /// Adds `id`; false if it was already there.
    pub(crate) fn insert(&mut self, id: u64) -> bool {
        let (w, b) = ((id / 64) as usize, id % 64);
        let was = self.bits[w] >> b & 1 == 1;
        self.bits[w] |= 1 << b;
        if !was {
            self.len += 1;
        }
        !was
    }

    pub(crate) fn contains(&self, id: u64) -> bool {
        self.bits.get((id / 64) as usize).is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::super::MATCHES_FILE;
    use super::*;

    /// A row whose fields need quoting (a comma in a bot's name, quotes and a newline in the
    /// reason).
    fn row(id: u64) -> MatchRow {
        let seat = |role: &str, bot: &str, score: f64, rank: u32| SeatRow {
            role: role.into(),
            bot: bot.into(),
            score,
            rank,
        };
        MatchRow {
            id,
            game: 0,
            pairing: "a vs b,c".into(),
            map: "m.txt".into(),
            seed: 9,
            seats: vec![seat("virus", "a", 0.0, 2), seat("agent", "b,c", 1.0, 1)],
            winner: Some("b,c".into()),
            winner_role: Some("agent".into()),
            termination: Termination::Normal,
            culprit: None,
            culprit_role: None,
            turns: 7,
            reason: "the agent reached gateway 3, \"quoted\"\nnext".into(),
            duration_ms: 1.5,
            max_turn_ms: vec![0.12, 4.5],
            max_turn_cpu_ms: vec![Some(0.1), None],
        }
    }

    #[test]
    fn after_a_failed_write_no_row_is_written() {
        // /dev/full fails every write, as a full disk does.
        let full = File::options().append(true).open("/dev/full").expect("/dev/full");
        let writer = RowWriter { path: "/dev/full".into(), file: Mutex::new((full, false)) };
        assert!(matches!(writer.append(&row(0)), Err(Error::Write { .. })));
        let err = writer.append(&row(1)).unwrap_err();
        assert!(matches!(err, Error::Write { .. }), "{err:?}");
        assert!(err.to_string().contains("after an earlier failed write"), "{err}");
    }

    #[test]
    fn a_row_reads_back_as_written_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MATCHES_FILE);
        let mut faulty = row(5);
        faulty.termination = Termination::OutputLimit;
        faulty.culprit = Some("a".into());
        faulty.culprit_role = Some("virus".into());
        let w = RowWriter::open(&path, 2).unwrap();
        w.append(&row(4)).unwrap();
        w.append(&faulty).unwrap();
        drop(w);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);
        let mut back = Vec::new();
        read_rows(&path, 2, |line, r| {
            back.push((line, r));
            Ok(())
        })
        .unwrap();
        // A newline in a field would defeat torn-line detection: it is written as a space.
        let mut expected = row(4);
        expected.reason = expected.reason.replace('\n', " ");
        faulty.reason = expected.reason.clone();
        assert_eq!(back, vec![(2, expected), (3, faulty)]);
        let bots = ["b,c".to_string(), "a".to_string()];
        let placing = back[1].1.placing(&bots).unwrap();
        assert_eq!((placing.bots, placing.culprit), (vec![1, 0], Some(1)));
        assert!(back[1].1.placing(&bots[..1]).is_err(), "a bot the folder does not list");
    }

    #[test]
    fn a_corrupt_row_is_a_results_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MATCHES_FILE);
        let good = row(1).to_line();
        for (bad, what) in [
            (good.replacen("1,0,", "x,0,", 1), "bad id"),
            (good.replace(",normal,", ",resigned,"), "bad termination"),
            (good.replace(",a,0,2,", ",a,zero,2,"), "bad score"),
            (good.replace(",7,", ","), "fields"),
        ] {
            std::fs::write(&path, format!("{}{good}{bad}", format_header(2))).unwrap();
            let e = read_rows(&path, 2, |_, _| Ok(())).unwrap_err();
            assert!(matches!(e, Error::Results { line: Some(3), .. }), "{e:?}");
            assert!(e.to_string().contains(what), "{e}");
        }
    }

    #[test]
    fn rows_round_trip_and_a_torn_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MATCHES_FILE);
        let w = RowWriter::open(&path, 2).unwrap();
        w.append(&row(3)).unwrap();
        w.append(&row(1)).unwrap();
        drop(w);
        let full = std::fs::read_to_string(&path).unwrap();
        assert_eq!(full.lines().count(), 3, "header and two rows, one line each:\n{full}");
        let torn = row(2).to_line();
        std::fs::write(&path, format!("{full}{}", &torn[..torn.len() / 2])).unwrap();

        let mut seen = Vec::new();
        read_rows(&path, 2, |_, r| {
            let bots: Vec<String> = r.seats.iter().map(|s| s.bot.clone()).collect();
            let ranks: Vec<u32> = r.seats.iter().map(|s| s.rank).collect();
            seen.push((r.id, bots, ranks));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 2, "the torn row is not read");
        assert_eq!(seen[0], (3, vec!["a".to_string(), "b,c".to_string()], vec![2, 1]));

        assert!(drop_torn_line(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), full);
        assert!(!drop_torn_line(&path).unwrap());

        // Killed while writing the header: nothing to read, and the writer starts over.
        std::fs::write(&path, "id,game,pai").unwrap();
        assert!(drop_torn_line(&path).unwrap());
        read_rows(&path, 2, |_, _| panic!("no rows")).unwrap();
        RowWriter::open(&path, 2).unwrap().append(&row(0)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format_header(2) + &row(0).to_line());
    }

    #[test]
    fn rows_of_results_format_1_read_without_cpu_times() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MATCHES_FILE);
        let mut old = row(1);
        old.max_turn_cpu_ms.clear();
        let header = columns_v1(2).join(",") + "\n";
        std::fs::write(&path, header + &old.to_line()).unwrap();
        let mut back = Vec::new();
        read_rows(&path, 2, |_, r| {
            back.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].max_turn_cpu_ms, vec![None, None]);
        assert_eq!(back[0].max_turn_ms, vec![0.12, 4.5]);
        assert!(
            format_header(2).trim_end().ends_with("seat0_max_turn_cpu_ms,seat1_max_turn_cpu_ms")
        );
    }

    #[test]
    fn a_wrong_header_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MATCHES_FILE);
        std::fs::write(&path, format_header(3)).unwrap();
        let e = read_rows(&path, 2, |_, _| Ok(())).err().unwrap().to_string();
        assert!(e.contains("line 1") && e.contains("header"), "{e}");
    }

    #[test]
    fn the_id_set_counts_once() {
        let mut s = IdSet::new(130);
        assert!(s.insert(129) && s.insert(0) && !s.insert(129));
        assert!(s.contains(0) && s.contains(129) && !s.contains(64));
        assert_eq!(s.len(), 2);
    }
}
