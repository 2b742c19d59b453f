//! Running a tournament: matches in parallel on plain OS threads, rows appended as each ends,
//! resume from what is on disk, and shards.
//!
//! Workers are `std::thread::scope` threads pulling match ids from one atomic counter, not tasks
//! of an async runtime: a match is CPU work (in-process bots) or blocking I/O (external bots
//! block on their own runtime), and a thread per slot keeps `concurrency` an honest bound on
//! the matches in flight. Which worker plays which match changes nothing: the match is a pure
//! function of its id.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Serialize;

use super::config::Arena;
use super::load::{TimeoutWatch, default_concurrency, oversubscription};
use super::progress::Progress;
use super::results::analysis::AnalysisRows;
use super::results::matches::{IdSet, MatchRow, RowWriter, SeatRow, drop_torn_line, read_rows};
use super::results::replays::{ReplayKeeper, ReplayPolicy};
use super::results::{
    Folder, MATCHES_FILE, Meta, RESULTS_VERSION, corrupt, prepare_dir, write_summaries,
};
use super::schedule::{Planned, Shard};
use super::stats::standings::Standings;
use crate::bot::Supervisor;
use crate::error::{Error, Result};
use crate::game::MapText;
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
    /// Starts the external bots; stopping it ends the run with [`Error::Interrupted`].
    pub supervisor: Supervisor,
    /// Which replays to keep; `None` takes the arena's `replays`.
    pub replays: Option<ReplayPolicy>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            shard: Shard::all(),
            concurrency: None,
            fresh: false,
            out: None,
            progress: false,
            supervisor: Supervisor::new(),
            replays: None,
        }
    }
}

/// What `arena run` did and what its results say (`--json` prints it).
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The arena's name.
    pub arena: String,
    /// The results folder.
    pub results: PathBuf,
    /// `K/N` when only a shard ran; absent for a whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Matches in the whole schedule (all shards).
    pub planned: u64,
    /// Matches already in the folder when the run started.
    pub resumed: u64,
    /// Matches this run played.
    pub played: u64,
    /// Everything in the folder: the resumed matches and the ones played now.
    pub standings: Standings,
}

/// The default results folder of an arena (and shard).
pub(crate) fn results_dir(arena: &Arena, shard: Shard) -> PathBuf {
    let dir = arena.output.join(&arena.name);
    if shard.is_all() { dir } else { dir.join(format!("shard-{}-of-{}", shard.index, shard.count)) }
}

/// The number of cores, the default concurrency.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map(std::num::NonZero::get).unwrap_or(1)
}

/// Plays one match of the arena: the bots of each seat, on a map, with a seed.
pub(crate) fn play_seats(
    arena: &Arena,
    seats: &[usize],
    map: usize,
    seed: u64,
    supervisor: &Supervisor,
) -> Result<PlayedMatch> {
    play_on(arena, seats, arena.maps[map].clone(), seed, supervisor)
}

/// [`play_seats`] on a map that need not be one of the arena's (an SPRT's generated maps).
pub(crate) fn play_on(
    arena: &Arena,
    seats: &[usize],
    map: MapText,
    seed: u64,
    supervisor: &Supervisor,
) -> Result<PlayedMatch> {
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
        map: MapSource::Text(map),
        players,
        seed,
        limits: arena.limits,
    };
    crate::matches::play(&spec, supervisor)
}

/// The `matches.csv` row of a played match.
pub(crate) fn row_of(arena: &Arena, m: &Planned, pairing: &str, played: &PlayedMatch) -> MatchRow {
    let s = &played.summary;
    let bot_of_role = |role: &Option<String>| {
        let seat = arena.roles.iter().position(|r| Some(r) == role.as_ref())?;
        Some(arena.bots[m.seats[seat]].name.clone())
    };
    MatchRow {
        id: m.id,
        game: m.game,
        pairing: pairing.to_string(),
        map: arena.maps[m.map].name.clone(),
        seed: m.seed,
        seats: m
            .seats
            .iter()
            .enumerate()
            .map(|(seat, &b)| SeatRow {
                role: arena.roles[seat].clone(),
                bot: arena.bots[b].name.clone(),
                score: s.scores[seat],
                rank: s.ranks[seat],
            })
            .collect(),
        winner: bot_of_role(&s.winner),
        winner_role: s.winner.clone(),
        termination: s.termination,
        culprit: bot_of_role(&s.culprit_role),
        culprit_role: s.culprit_role.clone(),
        turns: s.turns,
        reason: s.reason.clone(),
        duration_ms: s.duration_ms,
        max_turn_ms: s.max_turn_micros.iter().map(|&us| us as f64 / 1000.0).collect(),
        max_turn_cpu_ms: (0..m.seats.len())
            .map(|seat| s.max_turn_cpu_micros.get(seat).map(|&us| us as f64 / 1000.0))
            .collect(),
    }
}

/// The meta file of an arena's results folder.
pub(crate) fn meta_of(arena: &Arena, planned: u64, shard: Shard) -> Meta {
    Meta {
        arena_results: RESULTS_VERSION,
        arena: arena.name.clone(),
        fingerprint: arena.fingerprint(),
        planned,
        shard: (!shard.is_all()).then(|| shard.to_string()),
        roles: arena.roles.clone(),
        bots: arena.bots.iter().map(|b| b.name.clone()).collect(),
        bot_files: Some(arena.bots.iter().map(|b| b.files.clone()).collect()),
    }
}

/// How a recorded row differs from the match its id plans (its game, seats, bots, map, seed), if
/// it does: a row moved between folders or edited must not be counted as the match it names.
fn differs_from_plan(arena: &Arena, m: &Planned, row: &MatchRow) -> Option<String> {
    if row.game != m.game {
        return Some(format!("is recorded as game {}, but its id plans game {}", row.game, m.game));
    }
    for (seat, (recorded, &bot)) in row.seats.iter().zip(&m.seats).enumerate() {
        let (role, name) = (&arena.roles[seat], &arena.bots[bot].name);
        if recorded.role != *role || recorded.bot != *name {
            return Some(format!(
                "is recorded with `{}` as {} in seat {seat}, but its id plans `{name}` as {role}",
                recorded.bot, recorded.role
            ));
        }
    }
    let map = &arena.maps[m.map].name;
    if row.map != *map {
        return Some(format!("is recorded on map `{}`, but its id plans `{map}`", row.map));
    }
    if row.seed != m.seed {
        return Some(format!("is recorded with seed {}, but its id plans {}", row.seed, m.seed));
    }
    None
}

/// Runs (or resumes) an arena's tournament.
///
/// A small tournament from an arena written in a string (two generated maps, a gauntlet of
/// the CodinGame agent against two virus bots), its results in a temporary folder:
///
/// ```
/// use std::path::Path;
/// use arena::tournament::{Arena, Files, RunOptions, run};
///
/// let text = r#"
///     name = "doc"
///     game = "skynet"
///     variant = "ep2"
///     format = "gauntlet"
///     candidate = "cg-ep2"
///     games_per_pairing = 2
///     seed = 11
///
///     [maps]
///     generate = { count = 2, params = { nodes = 12 } }
///
///     [[bots]]
///     name = "cg-ep2"
///     roles = ["agent"]
///
///     [[bots]]
///     name = "greedy"
///     roles = ["virus"]
///
///     [[bots]]
///     name = "random"
///     roles = ["virus"]
/// "#;
/// let folder = tempfile::tempdir()?;
/// let arena = Arena::parse(text, Path::new("doc.toml"), &Files::Disk(folder.path().into()))?;
/// let options = RunOptions { out: Some(folder.path().join("results")), ..Default::default() };
/// let report = run(&arena, &options)?;
/// assert_eq!(report.played, report.planned);
/// assert_eq!(report.standings.matches, report.planned);
/// assert!(report.results.join("matches.csv").is_file());
/// // Run again, nothing is left to play: the folder's results are resumed.
/// let again = run(&arena, &options)?;
/// assert_eq!((again.played, again.resumed), (0, report.planned));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(arena: &Arena, opts: &RunOptions) -> Result<RunReport> {
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
        read_rows(&matches_path, seats, |line, row| {
            let problem = if row.id >= planned {
                Some("is not in the schedule".to_string())
            } else if !schedule.shard_holds(shard, row.id) {
                // Also a shard folder of an earlier arena, which dealt shard K the ids
                // `id mod N = K - 1`.
                Some(format!(
                    "is not in shard {shard} (the folder of another shard, or of an earlier arena \
                     that dealt the shards otherwise)"
                ))
            } else if !done.insert(row.id) {
                Some("is recorded twice".to_string())
            } else {
                differs_from_plan(arena, &schedule.get(row.id), &row)
            };
            match problem {
                Some(p) => Err(corrupt(
                    &matches_path,
                    Some(line),
                    format!("match {} {p}; rerun with --fresh to start over", row.id),
                )),
                None => Ok(()),
            }
        })?;
    }
    let resumed = done.len();
    let in_shard = schedule.shard_len(shard);
    let to_play = in_shard - resumed;
    let keeper = ReplayKeeper::open(&dir, opts.replays.unwrap_or(arena.replays), &done)?;
    let writer = RowWriter::open(&matches_path, seats)?;
    let analysis = arena.analysis.then(AnalysisRows::default);

    let concurrency = opts
        .concurrency
        .or(arena.concurrency)
        .unwrap_or_else(|| default_concurrency(arena))
        .clamp(1, to_play.max(1) as usize);
    if to_play > 0
        && let Some(warning) = oversubscription(arena, concurrency)
    {
        eprintln!("warning: {warning}");
    }
    let timeouts = TimeoutWatch::default();
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
                    let Some(id) = schedule.shard_match(shard, j) else { break };
                    if done.contains(id) {
                        continue;
                    }
                    let m = schedule.get(id);
                    let result = play_seats(arena, &m.seats, m.map, m.seed, &opts.supervisor)
                        .map_err(|e| match e {
                            Error::Interrupted => e,
                            e => Error::MatchSetup { id, source: Box::new(e) },
                        })
                        .and_then(|p| {
                            timeouts.note(&p);
                            // The replay first: a row never lacks the replay the policy keeps.
                            keeper.keep(id, &p)?;
                            if let Some(a) = &analysis {
                                a.add(id, &p)?;
                            }
                            writer.append(&row_of(arena, &m, &labels[m.pairing], &p))
                        });
                    match result {
                        Ok(()) => {
                            played.fetch_add(1, Ordering::Relaxed);
                            progress.inc();
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            failure
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    progress.finish();
    writer.sync()?;
    if let Some(e) = failure.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        return Err(e);
    }

    if let Some(a) = analysis {
        a.write(&dir)?;
    }
    let standings = Standings::of(&Folder { dir: dir.clone(), meta: meta.clone() }.tally()?);
    write_summaries(&dir, &standings)?;
    crate::view::report::write_report(&dir)?;
    if let Some(warning) = timeouts.warning() {
        eprintln!("warning: {warning}");
    }
    Ok(RunReport {
        arena: arena.name.clone(),
        results: dir,
        shard: meta.shard,
        planned,
        resumed,
        played: played.into_inner(),
        standings,
    })
}
