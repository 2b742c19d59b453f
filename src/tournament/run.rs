//! Running a tournament: matches in parallel on plain OS threads, rows appended as each ends,
//! resume from what is on disk, shards, and the merge of shards.
//!
//! Workers are `std::thread::scope` threads pulling match ids from one atomic counter, not tasks
//! of an async runtime: a match is CPU work (in-process bots) or blocking I/O (external bots
//! block on their own runtime), and a thread per slot keeps `concurrency` an honest bound on
//! the matches in flight. Which worker plays which match changes nothing: the match is a pure
//! function of its id.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::config::Arena;
use super::csv::{
    IdSet, MATCHES_FILE, META_FILE, Meta, PAIRWISE_FILE, RESULTS_VERSION, RowContext, RowWriter,
    SUMMARY_FILE, complete_len, drop_torn_line, format_header, format_row, read_rows,
    write_atomically,
};
use super::schedule::{Planned, Shard};
use super::stats::{BotSummary, Tally, pairwise_csv, render_tables, summarize, summary_csv};
use crate::error::{Error, Result};
use crate::matches::{MapSource, MatchSpec, PlayedMatch, Player};

/// How a run is asked to go.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub shard: Shard,
    /// Matches in flight; `None` takes the arena's setting, else the number of cores.
    pub concurrency: Option<usize>,
    /// Throw away earlier results in the folder, even of another config.
    pub fresh: bool,
    /// The results folder; `None` is `output/name` (plus `shard-K-of-N` for a shard).
    pub out: Option<PathBuf>,
    /// Report progress on stderr.
    pub progress: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            shard: Shard::all(),
            concurrency: None,
            fresh: false,
            out: None,
            progress: false,
        }
    }
}

/// What a run did.
#[derive(Debug)]
pub struct RunOutcome {
    pub dir: PathBuf,
    pub planned: u64,
    /// Matches already on disk when the run started.
    pub resumed: u64,
    pub played: u64,
    pub tally: Tally,
    pub summary: Vec<BotSummary>,
}

/// The default results folder of an arena (and shard).
pub fn results_dir(arena: &Arena, shard: Shard) -> PathBuf {
    let dir = arena.output.join(&arena.name);
    if shard.is_all() { dir } else { dir.join(format!("shard-{}-of-{}", shard.index, shard.count)) }
}

/// The number of cores, the default concurrency.
pub fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Plays one match of the arena: the bots of each seat, on a map, with a seed.
pub fn play_seats(arena: &Arena, seats: &[usize], map: usize, seed: u64) -> Result<PlayedMatch> {
    let players: BTreeMap<String, Player> = seats
        .iter()
        .enumerate()
        .map(|(seat, &b)| {
            let bot = &arena.bots[b];
            // Built from `Player::new`, so settings added to players later keep their defaults.
            let mut player = Player::new(bot.spec.clone());
            player.name = bot.name.clone();
            player.limits = bot.limits;
            player.external = bot.external.clone();
            (arena.roles[seat].clone(), player)
        })
        .collect();
    let spec = MatchSpec {
        game: arena.game,
        variant: Some(arena.variant.clone()),
        options: arena.options.clone(),
        map: MapSource::Text(arena.maps[map].clone()),
        players,
        seed,
        limits: arena.limits,
    };
    crate::matches::play(&spec)
}

/// The CSV line of a played match.
pub fn row_of(arena: &Arena, m: &Planned, pairing: &str, played: &PlayedMatch) -> String {
    let ctx = RowContext {
        id: m.id,
        game: m.game,
        pairing,
        map: &arena.maps[m.map].name,
        seed: m.seed,
        seats: m
            .seats
            .iter()
            .enumerate()
            .map(|(seat, &b)| (arena.roles[seat].as_str(), arena.bots[b].name.as_str()))
            .collect(),
    };
    format_row(&ctx, &played.summary)
}

fn meta_of(arena: &Arena, planned: u64, shard: Shard) -> Meta {
    Meta {
        arena_results: RESULTS_VERSION,
        arena: arena.name.clone(),
        fingerprint: arena.fingerprint(),
        planned,
        shard: (!shard.is_all()).then(|| shard.to_string()),
        roles: arena.roles.clone(),
        bots: arena.bots.iter().map(|b| b.name.clone()).collect(),
    }
}

/// Holds a results folder for this process: two runs writing one folder would play the same
/// missing matches twice. An advisory `flock` on the folder, so the kernel releases it when the
/// process ends, even by `kill -9`.
pub struct DirLock {
    _lock: Option<nix::fcntl::Flock<std::fs::File>>,
}

fn lock_dir(dir: &Path) -> Result<DirLock> {
    let folder = std::fs::File::open(dir).map_err(|e| Error::read(dir, e))?;
    match nix::fcntl::Flock::lock(folder, nix::fcntl::FlockArg::LockExclusiveNonblock) {
        Ok(lock) => Ok(DirLock { _lock: Some(lock) }),
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => Err(Error::Busy(format!(
            "`{}` is in use by another arena run; wait for it to end (or stop it) first",
            dir.display()
        ))),
        // A filesystem without locks (some network mounts) must not stop a run: go unguarded.
        Err(_) => Ok(DirLock { _lock: None }),
    }
}

/// Prepares a results folder: locks it for this process, checks that what is there belongs to
/// this config (or clears it for a fresh run) and writes the meta file. The folder stays locked
/// while the returned guard lives.
pub fn prepare_dir(dir: &Path, meta: &Meta, fresh: bool) -> Result<DirLock> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let lock = lock_dir(dir)?;
    let files = [MATCHES_FILE, META_FILE, SUMMARY_FILE, PAIRWISE_FILE];
    if fresh {
        for f in files {
            let path = dir.join(f);
            if path.exists() {
                std::fs::remove_file(&path).map_err(|e| Error::write(&path, e))?;
            }
        }
    } else if dir.join(META_FILE).exists() {
        let old = Meta::read(dir)?;
        if old != *meta {
            return Err(Error::Usage(format!(
                "`{}` holds results of a different config (fingerprint {}{}, this run {}{}); \
                 rerun with --fresh to discard them, or choose another folder with --out",
                dir.display(),
                old.fingerprint,
                old.shard.map(|s| format!(", shard {s}")).unwrap_or_default(),
                meta.fingerprint,
                meta.shard.as_ref().map(|s| format!(", shard {s}")).unwrap_or_default(),
            )));
        }
    } else if dir.join(MATCHES_FILE).exists() {
        return Err(Error::Usage(format!(
            "`{}` has a {MATCHES_FILE} but no {META_FILE}, so its config is unknown; rerun with \
             --fresh to discard it",
            dir.display()
        )));
    }
    meta.write(dir)?;
    Ok(lock)
}

/// Runs (or resumes) an arena's tournament.
pub fn run(arena: &Arena, opts: &RunOptions) -> Result<RunOutcome> {
    let schedule = arena.schedule();
    let planned = schedule.total();
    let shard = opts.shard;
    let dir = opts.out.clone().unwrap_or_else(|| results_dir(arena, shard));
    let meta = meta_of(arena, planned, shard);
    let _lock = prepare_dir(&dir, &meta, opts.fresh)?;
    let seats = arena.roles.len();
    let matches_path = dir.join(MATCHES_FILE);

    // Resume: every complete row on disk is a match not to play again.
    let mut done = IdSet::new(planned);
    if matches_path.exists() {
        if drop_torn_line(&matches_path)? {
            eprintln!(
                "note: dropped a torn last line of `{}` (a run was interrupted)",
                matches_path.display()
            );
        }
        read_rows(&matches_path, seats, |row| {
            let problem = if row.id >= planned {
                Some("is not in the schedule")
            } else if !shard.contains(row.id) {
                Some("is not in this shard")
            } else if !done.insert(row.id) {
                Some("is recorded twice")
            } else {
                None
            };
            match problem {
                Some(p) => Err(Error::Usage(format!(
                    "`{}`, line {}: match {} {p}; rerun with --fresh to start over",
                    matches_path.display(),
                    row.line,
                    row.id
                ))),
                None => Ok(()),
            }
        })?;
    }
    let resumed = done.len();
    let in_shard = (0..shard.count.min(planned))
        .filter(|&i| shard.contains(i))
        .map(|first| (planned - first).div_ceil(shard.count))
        .sum::<u64>();
    let to_play = in_shard - resumed;
    let writer = RowWriter::open(&matches_path, seats)?;

    let concurrency = opts
        .concurrency
        .or(arena.concurrency)
        .unwrap_or_else(cores)
        .clamp(1, to_play.max(1) as usize);
    let progress = Progress::new(to_play, opts.progress);
    if opts.progress {
        eprintln!(
            "{}: {planned} matches planned{}, {resumed} already played, {to_play} to play on {concurrency} threads -> {}",
            arena.name,
            if shard.is_all() { String::new() } else { format!(" (shard {shard}: {in_shard})") },
            dir.display()
        );
    }
    let labels: Vec<String> =
        (0..schedule.pairings().len()).map(|p| schedule.label(&meta.bots, p)).collect();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let played = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..concurrency {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some(id) = (shard.index - 1).checked_add(j * shard.count) else { break };
                    if id >= planned {
                        break;
                    }
                    if done.contains(id) {
                        continue;
                    }
                    let m = schedule.get(id);
                    let result = play_seats(arena, &m.seats, m.map, m.seed).and_then(|p| {
                        let line = row_of(arena, &m, &labels[m.pairing], &p);
                        writer.append(&line)
                    });
                    match result {
                        Ok(()) => {
                            played.fetch_add(1, Ordering::Relaxed);
                            progress.inc();
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                            f.get_or_insert(Error::Usage(format!("match {id}: {e}")));
                        }
                    }
                }
            });
        }
    });
    progress.finish();
    writer.sync()?;
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }

    let bots: Vec<String> = meta.bots.clone();
    let mut tally = Tally::new(bots.clone(), meta.roles.clone());
    read_rows(&matches_path, seats, |row| {
        let result = row.result(&bots).map_err(|m| {
            Error::Usage(format!("`{}`, line {}: {m}", matches_path.display(), row.line))
        })?;
        tally.add(&result);
        Ok(())
    })?;
    let summary = write_summaries(&dir, &tally)?;
    Ok(RunOutcome { dir, planned, resumed, played: played.into_inner(), tally, summary })
}

/// Writes `summary.csv` and `pairwise.csv`.
pub fn write_summaries(dir: &Path, tally: &Tally) -> Result<Vec<BotSummary>> {
    let summary = summarize(tally);
    write_atomically(&dir.join(SUMMARY_FILE), summary_csv(&summary).as_bytes())?;
    write_atomically(&dir.join(PAIRWISE_FILE), pairwise_csv(tally).as_bytes())?;
    Ok(summary)
}

/// What a merge produced.
#[derive(Debug)]
pub struct MergeOutcome {
    pub dir: PathBuf,
    pub matches: u64,
    pub tally: Tally,
    pub summary: Vec<BotSummary>,
}

/// Merges shard folders: checks that they come from one config and hold every planned match
/// exactly once, then writes one `matches.csv` and the summaries a single run would write.
pub fn merge(dirs: &[PathBuf], out: Option<PathBuf>) -> Result<MergeOutcome> {
    let first =
        dirs.first().ok_or_else(|| Error::Usage("merge needs at least one folder".into()))?;
    let out = match out {
        Some(o) => o,
        None => first
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(".")),
    };
    let metas: Vec<Meta> = dirs.iter().map(|d| Meta::read(d)).collect::<Result<_>>()?;
    let reference = &metas[0];
    for (dir, meta) in dirs.iter().zip(&metas) {
        if (&meta.fingerprint, meta.planned, &meta.bots, &meta.roles)
            != (&reference.fingerprint, reference.planned, &reference.bots, &reference.roles)
        {
            return Err(Error::Usage(format!(
                "`{}` comes from another config (fingerprint {}) than `{}` ({})",
                dir.display(),
                meta.fingerprint,
                first.display(),
                reference.fingerprint
            )));
        }
        if same_dir(dir, &out) {
            return Err(Error::Usage(format!(
                "the merge would overwrite its input `{}`; choose another --out",
                dir.display()
            )));
        }
    }
    let seats = reference.roles.len();
    let planned = reference.planned;
    let mut seen = IdSet::new(planned);
    let mut tally = Tally::new(reference.bots.clone(), reference.roles.clone());
    for dir in dirs {
        let path = dir.join(MATCHES_FILE);
        read_rows(&path, seats, |row| {
            let fail =
                |m: String| Error::Usage(format!("`{}`, line {}: {m}", path.display(), row.line));
            if row.id >= planned {
                return Err(fail(format!("match {} is not in the schedule", row.id)));
            }
            if !seen.insert(row.id) {
                return Err(fail(format!("match {} is recorded more than once", row.id)));
            }
            tally.add(&row.result(&reference.bots).map_err(fail)?);
            Ok(())
        })?;
    }
    if seen.len() != planned {
        let missing: Vec<String> = (0..planned)
            .filter(|&id| !seen.contains(id))
            .take(10)
            .map(|id| id.to_string())
            .collect();
        return Err(Error::Usage(format!(
            "{} of {planned} planned matches are missing (ids {}{}); finish the shards first",
            planned - seen.len(),
            missing.join(", "),
            if planned - seen.len() > 10 { ", ..." } else { "" }
        )));
    }

    // One matches.csv, the shards' rows one after the other.
    std::fs::create_dir_all(&out).map_err(|e| Error::write(&out, e))?;
    let _lock = lock_dir(&out)?;
    let merged = out.join(MATCHES_FILE);
    let tmp = merged.with_extension("csv.tmp");
    {
        let mut w = std::fs::File::create(&tmp).map_err(|e| Error::write(&tmp, e))?;
        w.write_all(format_header(seats).as_bytes()).map_err(|e| Error::write(&tmp, e))?;
        for dir in dirs {
            let path = dir.join(MATCHES_FILE);
            let complete = complete_len(&path)?;
            let mut r = std::io::BufReader::new(
                std::fs::File::open(&path).map_err(|e| Error::read(&path, e))?.take(complete),
            );
            let mut header = String::new();
            std::io::BufRead::read_line(&mut r, &mut header).map_err(|e| Error::read(&path, e))?;
            std::io::copy(&mut r, &mut w).map_err(|e| Error::write(&tmp, e))?;
        }
        w.sync_all().map_err(|e| Error::write(&tmp, e))?;
    }
    std::fs::rename(&tmp, &merged).map_err(|e| Error::write(&merged, e))?;
    let meta = Meta { shard: None, ..reference.clone() };
    meta.write(&out)?;
    let summary = write_summaries(&out, &tally)?;
    Ok(MergeOutcome { dir: out, matches: planned, tally, summary })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The tables a run or a merge prints.
pub fn report(tally: &Tally, summary: &[BotSummary]) -> String {
    render_tables(tally, summary)
}

/// Progress on stderr: a bar with the count, the rate and the time left on a terminal, a plain
/// line every few seconds otherwise (logs, CI, Slurm).
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    plain: Option<Mutex<PlainProgress>>,
}

pub struct PlainProgress {
    total: u64,
    done: u64,
    started: Instant,
    last: Instant,
}

impl Progress {
    pub fn new(total: u64, enabled: bool) -> Progress {
        if !enabled || total == 0 {
            return Progress { bar: None, plain: None };
        }
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40.cyan/blue} {pos}/{len} matches  {per_sec}  ETA {eta}",
                )
                .expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            Progress { bar: Some(bar), plain: None }
        } else {
            let now = Instant::now();
            Progress {
                bar: None,
                plain: Some(Mutex::new(PlainProgress { total, done: 0, started: now, last: now })),
            }
        }
    }

    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let Some(plain) = &self.plain {
            let mut p = plain.lock().unwrap_or_else(|e| e.into_inner());
            p.done += 1;
            if p.last.elapsed() >= Duration::from_secs(5) || p.done == p.total {
                p.last = Instant::now();
                let secs = p.started.elapsed().as_secs_f64().max(1e-9);
                let rate = p.done as f64 / secs;
                let eta = (p.total - p.done) as f64 / rate.max(1e-9);
                eprintln!(
                    "progress: {}/{} matches, {:.1}/s, ETA {:.0}s",
                    p.done, p.total, rate, eta
                );
            }
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}
