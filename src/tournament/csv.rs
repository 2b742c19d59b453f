//! `matches.csv` and `meta.json`: the durable record of a run.
//!
//! Rows are appended as matches end, one `write` of one whole line each, so a run killed at any
//! instant leaves complete rows plus at most one torn last line (no trailing newline), which a
//! resume cuts off. Rows are keyed by match id, not by position; their order on disk is the order
//! matches finished. `meta.json` records the config fingerprint that resume and merge check.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::stats::MatchResultRow;
use crate::error::{Error, Result};
use crate::matches::MatchSummary;

pub const MATCHES_FILE: &str = "matches.csv";
pub const META_FILE: &str = "meta.json";
pub const SUMMARY_FILE: &str = "summary.csv";
pub const PAIRWISE_FILE: &str = "pairwise.csv";

/// The version of the files' layout.
pub const RESULTS_VERSION: u32 = 1;

/// `meta.json`: what a results folder holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub arena_results: u32,
    pub arena: String,
    /// The config fingerprint ([`super::config::Arena::fingerprint`]).
    pub fingerprint: String,
    /// Matches in the whole schedule (all shards).
    pub planned: u64,
    /// `K/N` for a shard's folder, absent for a whole run or a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub roles: Vec<String>,
    pub bots: Vec<String>,
}

impl Meta {
    pub fn read(dir: &Path) -> Result<Meta> {
        let path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::read(&path, e))?;
        serde_json::from_str(&text).map_err(|e| Error::Io {
            context: format!("`{}` is not a results meta file", path.display()),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(META_FILE);
        let text = serde_json::to_string_pretty(self).expect("meta serializes") + "\n";
        write_atomically(&path, text.as_bytes())
    }
}

/// Writes a whole file so a reader never sees half of it: a temporary file, then a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    // On disk before the rename: after a power cut the file is the old one or the new one,
    // never an empty one that would make the folder unresumable.
    let written =
        File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
    written.map_err(|e| Error::write(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::write(path, e))
}

/// The columns of `matches.csv` for a game of `seats` seats. Timing columns come last, so
/// `cut`-ing them leaves exactly the reproducible part of a row.
pub fn columns(seats: usize) -> Vec<String> {
    let mut c: Vec<String> =
        ["id", "game", "pairing", "map", "seed"].iter().map(|s| s.to_string()).collect();
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

/// What a row says about one match, beyond the summary.
pub struct RowContext<'a> {
    pub id: u64,
    pub game: u64,
    pub pairing: &'a str,
    pub map: &'a str,
    pub seed: u64,
    /// Role and bot name of every seat.
    pub seats: Vec<(&'a str, &'a str)>,
}

/// Newlines in a field would defeat torn-line detection; no field needs one.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// One CSV line (with its newline) for a finished match.
pub fn format_row(ctx: &RowContext<'_>, summary: &MatchSummary) -> String {
    let bot_of_role = |role: &Option<String>| {
        role.as_ref()
            .and_then(|r| ctx.seats.iter().find(|(sr, _)| sr == r))
            .map(|(_, b)| b.to_string())
            .unwrap_or_default()
    };
    let mut fields: Vec<String> = vec![
        ctx.id.to_string(),
        ctx.game.to_string(),
        ctx.pairing.to_string(),
        ctx.map.to_string(),
        ctx.seed.to_string(),
    ];
    for (s, (role, bot)) in ctx.seats.iter().enumerate() {
        fields.push(role.to_string());
        fields.push(bot.to_string());
        fields.push(format!("{}", summary.scores[s]));
        fields.push(summary.ranks[s].to_string());
    }
    fields.push(bot_of_role(&summary.winner));
    fields.push(summary.winner.clone().unwrap_or_default());
    fields.push(summary.termination.as_str().to_string());
    fields.push(bot_of_role(&summary.culprit_role));
    fields.push(summary.culprit_role.clone().unwrap_or_default());
    fields.push(summary.turns.to_string());
    fields.push(summary.reason.clone());
    fields.push(format!("{:.3}", summary.duration_ms));
    for micros in &summary.max_turn_micros {
        fields.push(format!("{:.3}", *micros as f64 / 1000.0));
    }
    let mut w =
        csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    w.write_record(fields.iter().map(|f| one_line(f))).expect("writing to memory");
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

/// The header line.
pub fn format_header(seats: usize) -> String {
    let mut w =
        csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    w.write_record(columns(seats)).expect("writing to memory");
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

/// Appends rows to `matches.csv`, each flushed to the OS as one write.
pub struct RowWriter {
    path: PathBuf,
    /// The file, and whether a write to it has failed.
    file: Mutex<(File, bool)>,
}

impl RowWriter {
    /// Opens (creating with a header if needed) the file for appending.
    pub fn open(path: &Path, seats: usize) -> Result<RowWriter> {
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
    pub fn append(&self, line: &str) -> Result<()> {
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let (file, failed) = &mut *guard;
        if *failed {
            return Err(Error::Usage(format!(
                "`{}`: not written after an earlier failed write",
                self.path.display()
            )));
        }
        let written = file.write_all(line.as_bytes()).and_then(|()| file.flush());
        *failed = written.is_err();
        written.map_err(|e| Error::write(&self.path, e))
    }

    pub fn sync(&self) -> Result<()> {
        let guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        guard.0.sync_all().map_err(|e| Error::write(&self.path, e))
    }
}

/// The length of the file up to and including its last newline: what is left once a torn last
/// line (a write cut short by a kill) is dropped.
pub fn complete_len(path: &Path) -> Result<u64> {
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
pub fn drop_torn_line(path: &Path) -> Result<bool> {
    let keep = complete_len(path)?;
    let file = OpenOptions::new().write(true).open(path).map_err(|e| Error::write(path, e))?;
    if file.metadata().map_err(|e| Error::read(path, e))?.len() == keep {
        return Ok(false);
    }
    file.set_len(keep).map_err(|e| Error::write(path, e))?;
    Ok(true)
}

/// A row read back: its id and the result the stats need, bots by name.
pub struct ReadRow {
    pub id: u64,
    /// The 1-based line number in the file.
    pub line: u64,
    pub bots: Vec<String>,
    pub scores: Vec<f64>,
    pub ranks: Vec<u32>,
    pub termination: String,
    pub culprit: Option<String>,
}

impl ReadRow {
    /// The stats' view, with bot names resolved against `bots`.
    pub fn result(&self, bots: &[String]) -> std::result::Result<MatchResultRow, String> {
        let index = |name: &str| {
            bots.iter().position(|b| b == name).ok_or_else(|| format!("unknown bot `{name}`"))
        };
        Ok(MatchResultRow {
            bots: self.bots.iter().map(|b| index(b)).collect::<std::result::Result<_, _>>()?,
            scores: self.scores.clone(),
            ranks: self.ranks.clone(),
            termination: self.termination.clone(),
            culprit: self.culprit.as_deref().map(index).transpose()?,
        })
    }
}

/// Streams the complete rows of a `matches.csv` to `visit`. A torn last line (no newline) is
/// skipped; any other bad line is an error naming the file and line.
pub fn read_rows(
    path: &Path,
    seats: usize,
    mut visit: impl FnMut(ReadRow) -> Result<()>,
) -> Result<()> {
    // Only complete lines: a torn last line is not read.
    let complete = complete_len(path)?;
    if complete == 0 {
        // Not even a whole header: a run killed as it created the file.
        return Ok(());
    }
    let file = File::open(path).map_err(|e| Error::read(path, e))?.take(complete);
    let bad = |line: u64, message: String| Error::Io {
        context: format!("`{}`, line {line}", path.display()),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, message),
    };
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(file);
    let expected = columns(seats);
    let header = reader.headers().map_err(|e| bad(1, e.to_string()))?.clone();
    if header.iter().ne(expected.iter().map(String::as_str)) {
        return Err(bad(1, format!("the header is not the {seats}-seat header of this arena")));
    }
    let col = |name: &str| expected.iter().position(|c| c == name).expect("a known column");
    let id_col = col("id");
    let term_col = col("termination");
    let culprit_col = col("culprit");
    let seat_cols: Vec<(usize, usize, usize)> = (0..seats)
        .map(|s| {
            (
                col(&format!("seat{s}_bot")),
                col(&format!("seat{s}_score")),
                col(&format!("seat{s}_rank")),
            )
        })
        .collect();
    let mut record = csv::StringRecord::new();
    loop {
        let more = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            bad(line, e.to_string())
        })?;
        if !more {
            break;
        }
        let line = record.position().expect("a read record has a position").line();
        if record.len() != expected.len() {
            return Err(bad(line, format!("{} fields, expected {}", record.len(), expected.len())));
        }
        let num = |i: usize, what: &str| -> Result<f64> {
            record[i].parse::<f64>().map_err(|_| bad(line, format!("bad {what} `{}`", &record[i])))
        };
        let id = record[id_col].parse::<u64>().map_err(|_| bad(line, "bad id".into()))?;
        let mut row = ReadRow {
            id,
            line,
            bots: Vec::with_capacity(seats),
            scores: Vec::with_capacity(seats),
            ranks: Vec::with_capacity(seats),
            termination: record[term_col].to_string(),
            culprit: (!record[culprit_col].is_empty()).then(|| record[culprit_col].to_string()),
        };
        for &(b, s, r) in &seat_cols {
            row.bots.push(record[b].to_string());
            row.scores.push(num(s, "score")?);
            row.ranks.push(record[r].parse().map_err(|_| bad(line, "bad rank".into()))?);
        }
        visit(row)?;
    }
    Ok(())
}

/// A set of match ids: one bit each, the only per-match memory a run keeps.
#[derive(Clone, Debug)]
pub struct IdSet {
    bits: Vec<u64>,
    len: u64,
}

impl IdSet {
    pub fn new(capacity: u64) -> IdSet {
        IdSet { bits: vec![0; capacity.div_ceil(64) as usize], len: 0 }
    }

    /// Adds `id`; false if it was already there.
    pub fn insert(&mut self, id: u64) -> bool {
        let (w, b) = ((id / 64) as usize, id % 64);
        let was = self.bits[w] >> b & 1 == 1;
        self.bits[w] |= 1 << b;
        if !was {
            self.len += 1;
        }
        !was
    }

    pub fn contains(&self, id: u64) -> bool {
        self.bits.get((id / 64) as usize).is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Termination;

    #[test]
    fn after_a_failed_write_no_row_is_written() {
        // /dev/full fails every write, as a full disk does.
        let full = File::options().append(true).open("/dev/full").expect("/dev/full");
        let writer = RowWriter { path: "/dev/full".into(), file: Mutex::new((full, false)) };
        assert!(matches!(writer.append("0,a\n"), Err(Error::Write { .. })));
        let err = writer.append("1,b\n").unwrap_err().to_string();
        assert!(err.contains("after an earlier failed write"), "{err}");
    }

    fn summary() -> MatchSummary {
        MatchSummary {
            winner: Some("agent".into()),
            scores: vec![0.0, 1.0],
            ranks: vec![2, 1],
            reason: "the agent reached gateway 3, \"quoted\"\nnext".into(),
            termination: Termination::Normal,
            culprit: None,
            culprit_role: None,
            detail: None,
            turns: 7,
            duration_ms: 1.5,
            max_turn_micros: vec![120, 4500],
            reports: vec![],
        }
    }

    fn row(id: u64) -> String {
        let ctx = RowContext {
            id,
            game: 0,
            pairing: "a vs b",
            map: "m.txt",
            seed: 9,
            seats: vec![("virus", "a"), ("agent", "b,c")],
        };
        format_row(&ctx, &summary())
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
        let torn = row(2);
        std::fs::write(&path, format!("{full}{}", &torn[..torn.len() / 2])).unwrap();

        let mut seen = Vec::new();
        read_rows(&path, 2, |r| {
            seen.push((r.id, r.bots.clone(), r.ranks.clone()));
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
        read_rows(&path, 2, |_| panic!("no rows")).unwrap();
        RowWriter::open(&path, 2).unwrap().append(&row(0)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format_header(2) + &row(0));
    }

    #[test]
    fn a_wrong_header_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MATCHES_FILE);
        std::fs::write(&path, format_header(3)).unwrap();
        let e = read_rows(&path, 2, |_| Ok(())).err().unwrap().to_string();
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
