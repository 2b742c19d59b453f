//! The results folder, in this one module: every file a run, a test or a merge leaves behind,
//! written and read back here, so a new statistic or file is a change of this module and its
//! readers never drift from its writers.
//!
//! | file | module |
//! |---|---|
//! | `meta.json` (which config the rows belong to) | [`meta`] |
//! | `matches.csv` (the durable record, a row appended as each match ends) | [`matches`] |
//! | `summary.csv`, `pairwise.csv` (the standings) | [`summaries`] |
//! | `replays/<id>.jsonl` (the replays kept) | [`replays`] |
//! | `analysis.csv`, `analysis-summary.csv` (`analysis = true`) | [`analysis`] |
//! | `metrics.csv` (the bots' `@metric` lines, per match and seat) | [`metrics`] |
//! | `seed.key` (the secret the match seeds are drawn with; kept by `--fresh`) | [`seed_key`] |
//! | `sprt.json` (a test's verdict), `report.html` (drawn by `crate::view::report`) | names only |
//!
//! This module also holds the lock that keeps two runs out of one folder, the atomic writes, and
//! [`Folder`], what every reader of a finished or running folder (the report, `diff`) opens.
//! It draws nothing: `report.html` is named here so a fresh run clears it, and written by
//! `crate::view::report`, which reads the folder through [`Folder`].

pub(crate) mod analysis;
pub(crate) mod matches;
pub(crate) mod meta;
pub(crate) mod metrics;
pub(crate) mod replays;
pub(crate) mod seed_key;
pub(crate) mod summaries;

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use self::matches::MatchRow;
pub(crate) use self::meta::Meta;
use self::summaries::{PairRow, SummaryRow};
use super::bot_files::changed_bots;
use super::inputs::{BotInputs, RunInputs};
use super::stats::standings::Standings;
use super::stats::tally::Tally;
use crate::bot::external::parent_only::ParentOnly;
use crate::error::{Error, Result};

pub(crate) const MATCHES_FILE: &str = "matches.csv";
pub(crate) const META_FILE: &str = "meta.json";
pub(crate) const SUMMARY_FILE: &str = "summary.csv";
pub(crate) const PAIRWISE_FILE: &str = "pairwise.csv";
/// An SPRT's verdict, in its folder.
pub(crate) const SPRT_FILE: &str = "sprt.json";
/// The report drawn from the folder (`crate::view::report` writes it).
pub(crate) const REPORT_FILE: &str = "report.html";
/// Where the kept replays are: `<match id>.jsonl`, and the viewer pages drawn of them.
pub(crate) const REPLAYS_DIR: &str = "replays";

/// The files a run writes at the top of its folder: what `--fresh` clears (with
/// [`REPLAYS_DIR`]). A file added to the folder is added here.
const RUN_FILES: &[&str] = &[
    MATCHES_FILE,
    META_FILE,
    SUMMARY_FILE,
    PAIRWISE_FILE,
    REPORT_FILE,
    analysis::ANALYSIS_FILE,
    analysis::ANALYSIS_SUMMARY_FILE,
    metrics::METRICS_FILE,
];

/// The version of the files' layout. 2: `matches.csv` has the `seat*_max_turn_cpu_ms` columns.
/// 3: `meta.json` holds the run's inputs ([`RunInputs`]) and its fingerprint is theirs. 4: match
/// ids are drawn from each match's identity (`crate::seed::match_id`), not numbered by position.
/// 5: match seeds are drawn with the folder's secret `seed.key` (`crate::seed::game_seed`), whose
/// id the inputs record.
/// A folder of an earlier version is still read (`merge`, `diff`, `report`) but not resumed.
pub(crate) const RESULTS_VERSION: u32 = 5;

/// A results folder whose content is not what arena wrote (edited, truncated, mixed).
pub(crate) fn corrupt(path: &Path, line: Option<u64>, message: impl Into<String>) -> Error {
    Error::Results {
        path: path.to_path_buf(),
        line: line.map(|l| l as usize),
        message: message.into(),
    }
}

/// Writes a whole file so a reader never sees half of it: a temporary file, then a rename.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    // On disk before the rename: after a power cut the file is the old one or the new one,
    // never an empty one that would make the folder unresumable.
    let written =
        File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
    written.map_err(|e| Error::write(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::write(path, e))
}

/// Writes `summary.csv` and `pairwise.csv` from the standings.
pub(crate) fn write_summaries(dir: &Path, standings: &Standings) -> Result<()> {
    summaries::write(dir, standings)
}

/// Holds a results folder for this process: two runs writing one folder would play the same
/// missing matches twice. An advisory `flock` on the folder, so the kernel releases it when the
/// process ends, even by `kill -9`.
pub(crate) struct DirLock {
    // Declared first so that it drops first: unregistered before the descriptor closes.
    _parent_only: Option<ParentOnly>,
    _lock: Option<nix::fcntl::Flock<File>>,
}

/// Locks `dir` (which must exist) for this process, or says who holds it.
pub(crate) fn lock_dir(dir: &Path) -> Result<DirLock> {
    let folder = File::open(dir).map_err(|e| Error::read(dir, e))?;
    match nix::fcntl::Flock::lock(folder, nix::fcntl::FlockArg::LockExclusiveNonblock) {
        // A bot's child forked while this is held must not keep the folder locked after a
        // `kill -9` of arena.
        Ok(lock) => Ok(DirLock {
            _parent_only: Some(ParentOnly::register(lock.as_raw_fd())),
            _lock: Some(lock),
        }),
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => Err(Error::Busy(format!(
            "`{}` is in use by another arena run; wait for it to end (or stop it) first",
            dir.display()
        ))),
        // A filesystem without locks (some network mounts) must not stop a run: go unguarded.
        Err(_) => Ok(DirLock { _parent_only: None, _lock: None }),
    }
}

/// Refuses a folder whose rows were played by other builds of this run's bots (the same name
/// and spec, other files), naming each bot and file that changed ([`Error::StaleBots`]).
fn check_same_bots(dir: &Path, old: &RunInputs, new: &RunInputs) -> Result<()> {
    let identities = |i: &RunInputs| i.bots.iter().map(BotInputs::identity).collect::<Vec<_>>();
    let changed = changed_bots(&identities(old), &identities(new));
    if changed.is_empty() {
        return Ok(());
    }
    Err(Error::StaleBots {
        path: dir.to_path_buf(),
        message: format!("were played by other builds of the bots: {}", changed.join("; ")),
    })
}

/// Prepares a results folder: locks it for this process, checks that what is there belongs to
/// this config (or clears it for a fresh run) and writes the meta file. The folder stays locked
/// while the returned guard lives.
pub(crate) fn prepare_dir(dir: &Path, meta: &Meta, fresh: bool) -> Result<DirLock> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let lock = lock_dir(dir)?;
    admit(dir, meta, fresh)?;
    Ok(lock)
}

/// Checks that what a locked folder holds belongs to this config (or clears it for a fresh
/// run), and writes the meta file.
pub(crate) fn admit(dir: &Path, meta: &Meta, fresh: bool) -> Result<()> {
    if fresh {
        for f in RUN_FILES {
            let path = dir.join(f);
            if path.exists() {
                std::fs::remove_file(&path).map_err(|e| Error::write(&path, e))?;
            }
        }
        let replays = dir.join(REPLAYS_DIR);
        if replays.exists() {
            std::fs::remove_dir_all(&replays).map_err(|e| Error::write(&replays, e))?;
        }
    } else if dir.join(META_FILE).exists() {
        let old = Meta::read(dir)?;
        if old.arena_results != meta.arena_results {
            return Err(corrupt(
                dir,
                None,
                format!(
                    "was written by another version of arena (results format {}, this one \
                     writes {}; docs/tournaments.md, \"Resume\", says what changed); rerun with \
                     --fresh to discard them, or choose another folder with --out",
                    old.arena_results, meta.arena_results
                ),
            ));
        }
        if let Some(refused) = other_seed_key(dir, &old, meta) {
            return Err(refused);
        }
        if old != *meta {
            return Err(other_config(
                dir,
                &old,
                meta,
                "rerun with --fresh to discard them, or choose another folder with --out",
            ));
        }
    } else if dir.join(MATCHES_FILE).exists() {
        return Err(corrupt(
            dir,
            None,
            format!(
                "has a {MATCHES_FILE} but no {META_FILE}, so its config is unknown; rerun with \
                 --fresh to discard it"
            ),
        ));
    }
    meta.write(dir)
}

/// The error for a folder whose rows (`old`'s) were played with another seed key than the one
/// in its `seed.key` now (`meta`'s), if they were.
pub(crate) fn other_seed_key(dir: &Path, old: &Meta, meta: &Meta) -> Option<Error> {
    let key_of = |m: &Meta| m.inputs.as_ref().and_then(|i| i.plan.seed_key.clone());
    let (old_key, new_key) = (key_of(old)?, key_of(meta)?);
    (old_key != new_key).then(|| {
        corrupt(
            &dir.join(seed_key::SEED_KEY_FILE),
            None,
            format!(
                "is seed key {new_key}, but the rows `{}` records were played with key {old_key}: \
                 put back the seed.key they were played with, or rerun with --fresh to play them \
                 again with this one",
                dir.join(META_FILE).display()
            ),
        )
    })
}

/// The error for a folder `dir` whose rows (`old`'s) are of another config than `meta`: other
/// builds of the bots ([`Error::StaleBots`], naming each bot and file), or else what changed and
/// the `remedy`.
pub(crate) fn other_config(dir: &Path, old: &Meta, meta: &Meta, remedy: &str) -> Error {
    let changes = match (&old.inputs, &meta.inputs) {
        (Some(old_inputs), Some(new_inputs)) => {
            if let Err(stale) = check_same_bots(dir, old_inputs, new_inputs) {
                return stale;
            }
            let changes = new_inputs.changes_from(old_inputs);
            changes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        }
        _ => String::new(),
    };
    let shard = |m: &Meta| m.shard.as_ref().map(|s| format!(", shard {s}")).unwrap_or_default();
    corrupt(
        dir,
        None,
        format!(
            "holds results of a different config (fingerprint {}{}, this run {}{}{}); {remedy}",
            old.fingerprint,
            shard(old),
            meta.fingerprint,
            shard(meta),
            if changes.is_empty() { String::new() } else { format!(": {changes}") }
        ),
    )
}

/// Records each played match in the folder as it ends: its replay if the policy keeps it, its
/// analysis if the arena asks for it, its metrics, then its row (so a row never lacks its replay
/// or its metrics). What the
/// engine of `arena run` and `arena sprt` writes through.
pub(crate) struct Recorder {
    dir: PathBuf,
    replays: replays::ReplayKeeper,
    analysis: Option<analysis::AnalysisRows>,
    metrics: metrics::MetricsWriter,
    rows: matches::RowWriter,
}

impl Recorder {
    /// Opens `dir` for more rows of a game of `seats` seats; `has_row` says which match ids
    /// have a row already (replays of other matches, left by a kill, are deleted).
    pub(crate) fn open(
        dir: &Path,
        seats: usize,
        policy: replays::ReplayPolicy,
        analysis: bool,
        has_row: &dyn Fn(u64) -> bool,
    ) -> Result<Recorder> {
        Ok(Recorder {
            dir: dir.to_path_buf(),
            replays: replays::ReplayKeeper::open(dir, policy, has_row)?,
            analysis: analysis.then(analysis::AnalysisRows::default),
            metrics: metrics::MetricsWriter::open(dir)?,
            rows: matches::RowWriter::open(&dir.join(MATCHES_FILE), seats)?,
        })
    }

    /// Records one played match under `row`.
    pub(crate) fn record(
        &self,
        row: &MatchRow,
        played: &crate::matches::PlayedMatch,
    ) -> Result<()> {
        self.replays.keep(row.id, played)?;
        if let Some(a) = &self.analysis {
            a.add(row.id, played)?;
        }
        self.metrics.append(&self.dir, row.id, played)?;
        self.rows.append(row)
    }

    /// Puts every row written so far on disk.
    pub(crate) fn sync(&self) -> Result<()> {
        self.rows.sync()
    }

    /// Writes what is written at the end (the analysis files, `metrics.csv` sorted).
    pub(crate) fn finish(self, dir: &Path) -> Result<()> {
        self.rows.sync()?;
        drop(self.metrics);
        metrics::sort(dir)?;
        match self.analysis {
            Some(a) => a.write(dir),
            None => Ok(()),
        }
    }
}

/// A results folder opened for reading: its meta, and its files read through their owners'
/// readers. A folder still being written reads as what is complete in it (a torn last row is
/// left out, as a resume would).
pub(crate) struct Folder {
    pub(crate) dir: PathBuf,
    pub(crate) meta: Meta,
}

impl Folder {
    /// Opens `dir`, reading its `meta.json` (an error says when `dir` is no results folder).
    pub(crate) fn open(dir: &Path) -> Result<Folder> {
        Ok(Folder { dir: dir.to_path_buf(), meta: Meta::read(dir)? })
    }

    /// Streams the complete rows of `matches.csv` to `visit`, with their line numbers.
    pub(crate) fn rows(&self, visit: impl FnMut(u64, MatchRow) -> Result<()>) -> Result<()> {
        matches::read_rows(&self.dir.join(MATCHES_FILE), self.meta.roles.len(), visit)
    }

    /// The counters of every row, bots as the meta lists them (a row naming another bot is an
    /// error naming its line).
    pub(crate) fn tally(&self) -> Result<Tally> {
        let path = self.dir.join(MATCHES_FILE);
        let mut tally = Tally::new(self.meta.bots.clone(), self.meta.roles.clone());
        self.rows(|line, row| {
            let placing = row
                .placing(&self.meta.bots)
                .map_err(|e| corrupt(&path, Some(line), e.to_string()))?;
            tally.add(&placing);
            Ok(())
        })?;
        Ok(tally)
    }

    /// `summary.csv`'s rows; `None` before the first summary is written.
    pub(crate) fn summary(&self) -> Result<Option<Vec<SummaryRow>>> {
        summaries::read_summary(&self.dir)
    }

    /// `pairwise.csv`'s rows; `None` before the first summary is written.
    pub(crate) fn pairwise(&self) -> Result<Option<Vec<PairRow>>> {
        summaries::read_pairwise(&self.dir)
    }

    /// `metrics.csv`'s rows (none when the folder has none).
    pub(crate) fn metrics(&self) -> Result<Vec<metrics::MetricRow>> {
        metrics::read(&self.dir)
    }

    /// The file names in `replays/` (replays and the pages drawn of them).
    pub(crate) fn replay_files(&self) -> Result<BTreeSet<String>> {
        replays::file_names(&self.dir)
    }
}
