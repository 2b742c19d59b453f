//! `arena run`: a tournament's schedule on the match engine ([`super::engine`]) — each unit one
//! match of the schedule, in schedule order, those of other shards and those already in the
//! folder skipped — and its standings at the end. A folder of an earlier version of the arena
//! file is first carried over to this one ([`super::update`]).

use std::path::PathBuf;

use serde::Serialize;

use super::config::Arena;
use super::engine::{
    Event, Events, Flow, Job, Pool, Schedule as EngineSchedule, Start, Unit, Warning, WarningKind,
    threads,
};
use super::inputs::{RowCheck, RunInputs};
use super::results::matches::{IdSet, drop_torn_line, read_rows};
use super::results::meta::Kind;
use super::results::replays::{ReplayPolicy, kept_ids};
use super::results::seed_key::{KeySource, folder_key};
use super::results::{
    Folder, MATCHES_FILE, Meta, RESULTS_VERSION, Recorder, corrupt, write_summaries,
};
use super::schedule::{Schedule, Shard};
use super::stats::standings::Standings;
use super::update::Update;
use crate::bot::Supervisor;
use crate::error::Result;
use crate::matches::PlayedMatch;
use crate::seed::SeedKey;

/// How a run is asked to go.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub shard: Shard,
    /// Matches in flight; `None` (or 0) takes the arena's setting, else the default for its bots.
    pub concurrency: Option<usize>,
    /// Throw away earlier results in the folder, even of another config (its `seed.key` stays).
    pub fresh: bool,
    /// A `seed.key` to draw the match seeds with instead of the folder's own (another folder's,
    /// to replay its run); `None`: the folder's, made if it has none.
    pub seed_key: Option<PathBuf>,
    /// The results folder; `None` is `output/name` (plus `shard-K-of-N` for a shard).
    pub out: Option<PathBuf>,
    /// Who hears the run's events (its start, progress and warnings).
    pub events: Events,
    /// Starts the external bots; stopping it ends the run with
    /// [`Error::Interrupted`](crate::error::Error::Interrupted).
    pub supervisor: Supervisor,
    /// Which replays to keep; `None` takes the arena's `replays`.
    pub replays: Option<ReplayPolicy>,
    /// Count the archived rows of retired bots (bots no longer in the arena) in the report's
    /// standings too; `summary.csv` keeps the arena's bots only.
    pub retired: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            shard: Shard::all(),
            concurrency: None,
            fresh: false,
            seed_key: None,
            out: None,
            events: Events::default(),
            supervisor: Supervisor::new(),
            replays: None,
            retired: false,
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
    /// What an edit of the arena changed in the folder before this run played (bots added,
    /// changed, retired; rows kept and archived); absent when nothing was carried over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update: Option<Update>,
    /// Everything in the folder: the resumed matches and the ones played now.
    pub standings: Standings,
    /// What the run warned about, in order (also sent as events while it ran).
    pub warnings: Vec<Warning>,
}

/// The default results folder of an arena (and shard).
pub(crate) fn results_dir(arena: &Arena, shard: Shard) -> PathBuf {
    let dir = arena.output.join(&arena.name);
    if shard.is_all() { dir } else { dir.join(format!("shard-{}-of-{}", shard.index, shard.count)) }
}

/// The secret key of results folder `dir` of `arena`: the folder's own, else the arena's
/// (`<output>/<name>/seed.key`, made if need be), which every folder of the arena shares — so
/// its shards merge and two of its runs compare match by match.
pub(crate) fn arena_key(arena: &Arena, dir: &std::path::Path) -> Result<SeedKey> {
    folder_key(dir, KeySource::Arena { home: &results_dir(arena, Shard::all()) })
}

/// The meta file of an arena's results folder, whose match seeds are drawn with `key`.
pub(crate) fn meta_of(
    arena: &Arena,
    planned: u64,
    shard: Shard,
    kind: Kind,
    key: &SeedKey,
) -> Meta {
    let inputs = RunInputs::of(arena).keyed(key);
    Meta {
        arena_results: RESULTS_VERSION,
        arena: arena.name.clone(),
        fingerprint: inputs.fingerprint(),
        kind,
        planned,
        shard: (!shard.is_all()).then(|| shard.to_string()),
        roles: arena.roles.clone(),
        bots: arena.bots.iter().map(|b| b.name.clone()).collect(),
        inputs: Some(inputs),
    }
}

/// A tournament as the engine plays it: unit `j` is the schedule's match `j`, played if it is
/// the shard's and not in the folder.
struct Tournament<'a> {
    arena: &'a Arena,
    schedule: Schedule,
    shard: Shard,
    /// The schedule's indices of the rows already in the folder.
    done: &'a IdSet,
    labels: Vec<String>,
}

impl EngineSchedule for Tournament<'_> {
    fn units(&self) -> u64 {
        self.schedule.total()
    }

    fn jobs(&self, j: u64) -> Result<Vec<Job>> {
        if self.done.contains(j) || !self.schedule.shard_holds(self.shard, j) {
            return Ok(Vec::new());
        }
        let planned = self.schedule.get(j);
        let map = self.arena.maps[planned.map].clone();
        let label = self.labels[planned.pairing].clone();
        Ok(vec![Job { planned, map, label }])
    }

    fn done(&self, _: u64, _: &[PlayedMatch]) -> Flow {
        Flow::Continue
    }
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
    if arena.league.is_some() {
        return Err(crate::error::Error::Usage(format!(
            "arena `{}` is a league (`format = \"league\"`): play it with `arena league run {}`",
            arena.name,
            arena.source.display()
        )));
    }
    let shard = opts.shard;
    let dir = opts.out.clone().unwrap_or_else(|| results_dir(arena, shard));
    let key = match &opts.seed_key {
        Some(file) => folder_key(&dir, KeySource::File { file, replace: opts.fresh })?,
        None => arena_key(arena, &dir)?,
    };
    let schedule = arena.schedule(&key);
    let planned = schedule.total();
    let meta = meta_of(arena, planned, shard, Kind::Tournament, &key);
    let (_lock, update) = super::update::prepare(&dir, &meta, opts.fresh, shard, &key)?;
    let seats = arena.roles.len();
    let matches_path = dir.join(MATCHES_FILE);
    let mut warnings = Vec::new();

    // Resume: every complete row on disk is a match not to play again.
    let inputs = meta.inputs.as_ref().expect("a run records its inputs");
    let mut check = RowCheck::new(inputs, &key);
    // The replays whose rows are found: the others are of matches to play again.
    let kept = kept_ids(&dir)?;
    let mut with_row = std::collections::BTreeSet::new();
    if matches_path.exists() {
        if drop_torn_line(&matches_path)? {
            let warning = Warning::new(
                WarningKind::TornRow,
                format!(
                    "dropped a torn last line of `{}` (a run was interrupted)",
                    matches_path.display()
                ),
            );
            opts.events.send(&Event::Warning(warning.clone()));
            warnings.push(warning);
        }
        read_rows(&matches_path, seats, |line, row| match check.problem(shard, &row) {
            Some(problem) => Err(corrupt(&matches_path, Some(line), problem)),
            None => {
                if kept.contains(&row.id) {
                    with_row.insert(row.id);
                }
                Ok(())
            }
        })?;
    }
    let done = check.into_seen();
    let resumed = done.len();
    let labels = (0..schedule.pairings().len()).map(|p| schedule.label(&meta.bots, p)).collect();
    let tournament = Tournament { arena, schedule, shard, done: &done, labels };
    let in_shard = tournament.schedule.shard_len(shard);
    let to_play = in_shard - resumed;
    let policy = opts.replays.unwrap_or(arena.replays);
    let recorder =
        Recorder::open(&dir, seats, policy, arena.analysis, &|id| with_row.contains(&id))?;
    let pool = Pool {
        arena,
        supervisor: &opts.supervisor,
        events: &opts.events,
        concurrency: threads(opts.concurrency, arena, to_play),
        to_play,
        unit: Unit::Match,
    };
    opts.events.send(&Event::Started(Start {
        arena: arena.name.clone(),
        command: "run",
        results: dir.clone(),
        planned,
        shard: meta.shard.clone(),
        in_shard,
        resumed,
        to_play,
        unit: Unit::Match,
        concurrency: pool.concurrency,
        update: update.clone().map(Box::new),
    }));
    let played = pool.play(&tournament, &recorder, warnings)?;
    recorder.finish(&dir)?;

    let folder = Folder { dir: dir.clone(), meta: meta.clone() };
    let standings = Standings::of(&folder.tally()?);
    write_summaries(&dir, &standings)?;
    crate::view::report::write_report(&dir)?;
    let standings = if opts.retired {
        Standings::of(&super::update::tally_with_retired(&folder)?)
    } else {
        standings
    };
    Ok(RunReport {
        arena: arena.name.clone(),
        results: dir,
        shard: meta.shard,
        planned,
        resumed,
        played: played.units,
        update,
        standings,
        warnings: played.warnings,
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::tournament::config::Files;
    use crate::tournament::engine::Reporter;

    /// Keeps every event, in order.
    #[derive(Default)]
    struct Recorded(Mutex<Vec<Event>>);

    impl Reporter for Recorded {
        fn event(&self, event: &Event) {
            self.0.lock().unwrap().push(event.clone());
        }
    }

    #[test]
    fn a_run_tells_its_reporter_what_it_does_and_its_report_keeps_the_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let text = "name = \"t\"\ngame = \"skynet\"\ngames_per_pairing = 5\n\
                    [maps]\ngenerate = { count = 2, params = { nodes = 10 } }\n\
                    [[bots]]\nname = \"a\"\nspec = \"random\"\n\
                    [[bots]]\nname = \"b\"\nspec = \"greedy\"\nroles = [\"virus\"]\n";
        let arena = Arena::parse(text, Path::new("t.toml"), &Files::Disk(PathBuf::new())).unwrap();
        let recorded = Arc::new(Recorded::default());
        let opts = RunOptions {
            out: Some(dir.path().join("r")),
            concurrency: Some(2),
            events: Events::to(recorded.clone()),
            ..RunOptions::default()
        };
        let report = run(&arena, &opts).unwrap();
        let events = std::mem::take(&mut *recorded.0.lock().unwrap());
        let Some(Event::Started(start)) = events.first() else { panic!("{events:?}") };
        assert_eq!((start.to_play, start.resumed, start.concurrency), (report.planned, 0, 2));
        let progress: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                Event::Progress { done, total, unit: Unit::Match } => {
                    assert_eq!(*total, report.planned);
                    Some(*done)
                }
                _ => None,
            })
            .collect();
        assert_eq!(progress, (1..=report.planned).collect::<Vec<_>>(), "one event per match");
        assert!(matches!(events.last(), Some(Event::Finished)), "{events:?}");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);

        // A kill's torn last row: dropped, said as an event and kept in the report.
        let matches = dir.path().join("r").join(MATCHES_FILE);
        let text = std::fs::read_to_string(&matches).unwrap();
        let cut = text.trim_end().rfind('\n').unwrap() + 1;
        std::fs::write(&matches, &text[..cut + 5]).unwrap();
        let again = run(&arena, &opts).unwrap();
        assert_eq!((again.played, again.resumed), (1, report.planned - 1));
        assert_eq!(again.warnings.len(), 1, "{:?}", again.warnings);
        assert_eq!(again.warnings[0].kind, WarningKind::TornRow);
        let events = recorded.0.lock().unwrap();
        assert!(events.iter().any(|e| matches!(e, Event::Warning(w) if *w == again.warnings[0])));
        let json = serde_json::to_value(&again).unwrap();
        assert_eq!(json["warnings"][0]["kind"], "torn_row", "{json}");
    }
}
