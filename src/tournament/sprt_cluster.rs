//! An SPRT spread over machines. A test's pair `j` is a pure function of the arena file and `j`
//! (its map, seed and seats), so pairs can be played anywhere, in any order:
//! `arena sprt --pairs FROM..TO` plays a range of them, with no stop rule, into a folder of its own
//! (a cluster's array task; a rerun resumes it), and `arena sprt --decide DIR...` reads those
//! folders back and counts the pairs `0, 1, 2, ...` with the very stop rule of `arena sprt`
//! ([`TestPlan::count`]) up to the first pair not played yet. The verdict and the number of pairs
//! are therefore those one machine reaches on the same pairs — or the test needs more pairs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::config::{Arena, PairMaps, SprtConfig};
use super::engine::{
    Event, Flow, Job, Pool, Schedule as EngineSchedule, Start, Unit, Warning, WarningKind, threads,
};
use super::merge::same_dir;
use super::results::matches::{IdSet, MatchRow, RowWriter, drop_torn_line, read_rows};
use super::results::meta::Kind;
use super::results::replays::{kept_ids, link_or_copy, replay_path};
use super::results::seed_key::{SEED_KEY_FILE, other_key, read_key, replace_key};
use super::results::{
    Folder, MATCHES_FILE, META_FILE, Meta, REPLAYS_DIR, Recorder, corrupt, other_config,
    prepare_dir,
};
use super::run::{arena_key, meta_of};
use super::schedule::Shard;
use super::sprt::{SprtOptions, SprtReport, Stop, TestPlan, sprt_dir};
use crate::error::{Error, Result};
use crate::matches::PlayedMatch;
use crate::seed::SeedKey;

/// Pairs `from..to` of a test (`FROM..TO` on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairRange {
    pub from: u64,
    pub to: u64,
}

/// A range that is not `FROM..TO` with `FROM < TO`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pairs `{0}` are not FROM..TO with FROM < TO (pair numbers from 0, TO not included)")]
pub struct BadPairRange(pub String);

impl std::str::FromStr for PairRange {
    type Err = BadPairRange;

    fn from_str(s: &str) -> std::result::Result<PairRange, BadPairRange> {
        let bad = || BadPairRange(s.to_string());
        let (from, to) = s.split_once("..").ok_or_else(bad)?;
        let from: u64 = from.trim().parse().map_err(|_| bad())?;
        let to: u64 = to.trim().parse().map_err(|_| bad())?;
        if from >= to {
            return Err(bad());
        }
        Ok(PairRange { from, to })
    }
}

impl std::fmt::Display for PairRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.from, self.to)
    }
}

/// What `arena sprt --pairs` did (`--json` prints it).
#[derive(Clone, Debug, Serialize)]
pub struct PairsReport {
    pub arena: String,
    /// The folder of the pairs.
    pub results: PathBuf,
    /// The pairs asked for.
    pub from: u64,
    pub to: u64,
    /// The pairs of the range the test can count: beyond `max_pairs` (or a deterministic pool's
    /// end) none is played.
    pub playable: u64,
    /// Games already in the folder when it started, and games played now.
    pub resumed_games: u64,
    pub played_games: u64,
    pub warnings: Vec<Warning>,
}

/// The default folder of a range of pairs: `<output>/<name>/sprt-pairs/FROM-TO`.
fn pairs_dir(arena: &Arena, range: PairRange) -> PathBuf {
    arena.output.join(&arena.name).join("sprt-pairs").join(format!("{}-{}", range.from, range.to))
}

/// The meta file of a test's folders: a test's, so `--pairs`, `--decide` and `arena sprt` agree.
fn test_meta(arena: &Arena, test: &SprtConfig, key: &SeedKey) -> Meta {
    meta_of(arena, 2 * test.max_pairs, Shard::all(), Kind::Sprt, key)
}

/// Why `row` is not the game its id plans in this test, if it is not.
fn row_problem(plan: &TestPlan<'_>, meta: &Meta, row: &MatchRow) -> Option<String> {
    let pair = row.id / 2;
    if pair >= plan.test.max_pairs {
        return Some(format!("is pair {pair}, beyond the test's max_pairs"));
    }
    let planned = &plan.planned(pair)[(row.id % 2) as usize];
    let map = match plan.test.maps {
        PairMaps::Cycle => Some(plan.arena.maps[planned.map].name.as_str()),
        // Named by the generator after its seed, which the row's seed already pins.
        PairMaps::Generate { .. } => None,
    };
    let inputs = meta.inputs.as_ref().expect("a test's meta records its inputs");
    inputs.row_differs_on(planned, map, row)
}

/// The engine's schedule of a range: unit `i` is pair `from + i`, only its games not yet
/// recorded; no stop rule.
struct Range<'a> {
    plan: &'a TestPlan<'a>,
    from: u64,
    to: u64,
    done: &'a IdSet,
}

impl EngineSchedule for Range<'_> {
    fn units(&self) -> u64 {
        self.to - self.from
    }

    fn jobs(&self, i: u64) -> Result<Vec<Job>> {
        let pair = self.from + i;
        if self.done.contains(2 * pair) && self.done.contains(2 * pair + 1) {
            return Ok(Vec::new());
        }
        let jobs = self.plan.jobs(pair)?;
        Ok(jobs.into_iter().filter(|j| !self.done.contains(j.planned.id)).collect())
    }

    fn done(&self, _: u64, _: &[PlayedMatch]) -> Flow {
        Flow::Continue
    }
}

/// Plays pairs `range` of a test (all of them: no stop rule) into their folder, resuming what is
/// there unless `fresh`.
pub fn play_pairs(
    arena: &Arena,
    test: &SprtConfig,
    range: PairRange,
    fresh: bool,
    opts: &SprtOptions,
) -> Result<PairsReport> {
    let dir = opts.out.clone().unwrap_or_else(|| pairs_dir(arena, range));
    // The ranges of one test share the arena's key, so one decision reads them all (on other
    // machines: with the arena's seed.key copied there).
    let key = arena_key(arena, &dir)?;
    let plan = TestPlan::new(arena, test, &key);
    let meta = test_meta(arena, test, &key);
    let _lock = prepare_dir(&dir, &meta, fresh)?;
    let path = dir.join(MATCHES_FILE);
    let mut done = IdSet::new(2 * test.max_pairs);
    let mut warnings = Vec::new();
    if path.exists() {
        if drop_torn_line(&path)? {
            let warning = Warning::new(
                WarningKind::TornRow,
                format!("dropped a torn last line of `{}` (a run was interrupted)", path.display()),
            );
            opts.events.send(&Event::Warning(warning.clone()));
            warnings.push(warning);
        }
        read_rows(&path, arena.roles.len(), |line, row| {
            let problem = row_problem(&plan, &meta, &row).or_else(|| {
                (!done.insert(row.id)).then(|| "is recorded more than once".to_string())
            });
            match problem {
                Some(p) => Err(corrupt(
                    &path,
                    Some(line),
                    format!("game {} {p}; rerun with --fresh to start over", row.id),
                )),
                None => Ok(()),
            }
        })?;
    }
    let resumed_games = done.len();
    // Pairs the test can never count are not played.
    let to = range.to.min(plan.limit);
    let from = range.from.min(to);
    let missing = (from..to)
        .map(|p| u64::from(!done.contains(2 * p)) + u64::from(!done.contains(2 * p + 1)))
        .sum::<u64>();
    let to_play = (from..to).filter(|&p| !done.contains(2 * p) || !done.contains(2 * p + 1));
    let to_play = to_play.count() as u64;
    let schedule = Range { plan: &plan, from, to, done: &done };
    let has_row = |id| done.contains(id);
    let recorder =
        Recorder::open(&dir, arena.roles.len(), arena.replays, arena.analysis, &has_row)?;
    let pool = Pool {
        arena,
        supervisor: &opts.supervisor,
        events: &opts.events,
        concurrency: threads(opts.concurrency, arena, to_play),
        to_play,
        unit: Unit::Pair,
    };
    opts.events.send(&Event::Started(Start {
        arena: arena.name.clone(),
        command: "sprt",
        results: dir.clone(),
        planned: 2 * test.max_pairs,
        shard: Some(format!("pairs {range}")),
        in_shard: 2 * (to - from),
        resumed: 2 * (to - from) - missing,
        to_play,
        unit: Unit::Pair,
        concurrency: pool.concurrency,
        update: None,
    }));
    let played = pool.play(&schedule, &recorder, warnings)?;
    recorder.finish(&dir)?;
    Ok(PairsReport {
        arena: arena.name.clone(),
        results: dir,
        from: range.from,
        to: range.to,
        playable: to - from,
        resumed_games,
        played_games: missing,
        warnings: played.warnings,
    })
}

/// Decides a test from the pairs that folders written by [`play_pairs`] hold: counts pairs `0, 1,
/// ...` in order with `arena sprt`'s stop rule up to the first one missing, then writes the
/// counted pairs' games, their replays and `sprt.json` to `out` (default `<output>/<name>/sprt`).
/// Undecided with pairs left to count, the report says [`Stop::NeedsMorePairs`].
pub fn decide_sprt(
    arena: &Arena,
    test: &SprtConfig,
    dirs: &[PathBuf],
    out: Option<PathBuf>,
) -> Result<SprtReport> {
    let out = out.unwrap_or_else(|| sprt_dir(arena));
    let key = ranges_key(dirs)?.map_or_else(|| arena_key(arena, &out), Ok)?;
    let plan = TestPlan::new(arena, test, &key);
    let meta = test_meta(arena, test, &key);
    // Every game, by id: its row and its folder.
    let mut games: BTreeMap<u64, (MatchRow, &Path)> = BTreeMap::new();
    for dir in dirs {
        // A task stopped between making its folder and writing to it: nothing played there.
        if dir.is_dir() && !dir.join(META_FILE).exists() && !dir.join(MATCHES_FILE).exists() {
            continue;
        }
        let folder = Folder::open(dir)?;
        let theirs = &folder.meta;
        if (theirs.arena_results, &theirs.kind, &theirs.fingerprint)
            != (meta.arena_results, &meta.kind, &meta.fingerprint)
        {
            return Err(other_config(
                dir,
                theirs,
                &meta,
                "leave it out of --decide, or play its range again with --pairs FROM..TO --fresh",
            ));
        }
        if same_dir(dir, &out) {
            return Err(Error::Usage(format!(
                "`{}` is where the decision is written; give the folders of `--pairs`",
                dir.display()
            )));
        }
        let path = dir.join(MATCHES_FILE);
        folder.rows(|line, row| {
            let fail = |m: String| corrupt(&path, Some(line), format!("game {} {m}", row.id));
            if let Some(p) = row_problem(&plan, &meta, &row) {
                return Err(fail(p));
            }
            if let Some((_, other)) = games.get(&row.id) {
                return Err(fail(format!("is also in `{}`", other.display())));
            }
            games.insert(row.id, (row, dir.as_path()));
            Ok(())
        })?;
    }

    let mut rule = plan.stop_rule();
    let mut pair = 0;
    while pair < plan.limit {
        let (Some((first, _)), Some((second, _))) =
            (games.get(&(2 * pair)), games.get(&(2 * pair + 1)))
        else {
            break;
        };
        let (_, config) = plan.layout.draw_and_config(pair);
        let ranks: Vec<u32> = first.seats.iter().map(|s| s.rank).collect();
        let again: Vec<u32> = second.seats.iter().map(|s| s.rank).collect();
        let cell = plan.layout.cell(test, config, [&ranks, &again]);
        if plan.count(&mut rule, pair, cell) {
            break;
        }
        pair += 1;
    }
    let counted = rule.counted();
    let mut warnings = Vec::new();
    let beyond = games.range(2 * counted..).next().map(|(&id, _)| id / 2);
    if let Some(later) = beyond.filter(|_| !rule.is_decided())
        && later > counted
    {
        warnings.push(Warning::new(
            WarningKind::MissingPairs,
            format!(
                "pair {counted} is missing while later pairs (from {later}) are played: rerun the \
                 task that plays it (its folder resumes)"
            ),
        ));
    }

    // The counted pairs' games, in order, as `arena sprt` would have written them, and the key
    // they were played with.
    let _lock = prepare_dir(&out, &meta, true)?;
    replace_key(&out, &key)?;
    let writer = RowWriter::open(&out.join(MATCHES_FILE), arena.roles.len())?;
    // Each folder's kept replays, read once.
    let mut kept: BTreeMap<&Path, BTreeSet<u64>> = BTreeMap::new();
    for (id, (row, dir)) in games.range(..2 * counted) {
        writer.append(row)?;
        if !kept.contains_key(dir) {
            kept.insert(dir, kept_ids(dir)?);
        }
        if kept[dir].contains(id) {
            let replays = out.join(REPLAYS_DIR);
            std::fs::create_dir_all(&replays).map_err(|e| Error::write(&replays, e))?;
            link_or_copy(&replay_path(dir, *id), &replay_path(&out, *id))?;
        }
    }
    writer.sync()?;
    plan.report(&rule, Stop::NeedsMorePairs, &out, warnings)
}

/// The one key of the ranges' folders `dirs` (those with results; `None` when none has any);
/// folders of two keys are refused, naming both files.
fn ranges_key(dirs: &[PathBuf]) -> Result<Option<SeedKey>> {
    let mut found: Option<(SeedKey, &Path)> = None;
    for dir in dirs.iter().filter(|d| d.join(META_FILE).exists()) {
        let Some(key) = read_key(dir)? else {
            return Err(corrupt(
                &dir.join(SEED_KEY_FILE),
                None,
                "is missing: the seeds of the folder's games cannot be checked without the key \
                 they were drawn with; put it back (the other ranges' folders hold it)",
            ));
        };
        match &found {
            Some((first, from)) if *first != key => {
                return Err(other_key(
                    &dir.join(SEED_KEY_FILE),
                    &key,
                    &from.join(SEED_KEY_FILE),
                    first,
                ));
            }
            Some(_) => {}
            None => found = Some((key, dir)),
        }
    }
    Ok(found.map(|(key, _)| key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_ranges_read_as_from_to() {
        assert_eq!("0..100".parse::<PairRange>(), Ok(PairRange { from: 0, to: 100 }));
        for bad in ["5..5", "7..3", "1-3", "..4", "a..b", "3"] {
            assert!(bad.parse::<PairRange>().is_err(), "{bad}");
        }
    }
}
