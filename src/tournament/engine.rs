//! The match engine: one pool of threads that plays planned matches, records each in the results
//! folder as it ends, and tells a [`Reporter`] what happens. `arena run` is a schedule over it
//! (one match per unit, in id order, the resumed ones skipped); `arena sprt` is a schedule of
//! game pairs and a stop rule. Both share what is here: how many threads (`-j 0` is resolved
//! here and nowhere else), what a failure does (the first error stops every worker and is the
//! result), the results sink, the machine-load warnings and the events.
//!
//! Workers are `std::thread::scope` threads pulling unit numbers from one atomic counter, not
//! tasks of an async runtime: a match is CPU work (in-process bots) or blocking I/O (external
//! bots block on their own runtime), and a thread per slot keeps the concurrency an honest bound
//! on the matches in flight. Which worker plays which unit changes nothing: a match is a pure
//! function of its plan.
//!
//! The library never prints: it sends [`Event`]s (the start, each unit done, every warning) to
//! the [`Reporter`] it is given, and returns the warnings in its report; `src/cli` draws them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::config::Arena;
use super::machine_load::{TimeoutWatch, default_concurrency, oversubscription};
use super::results::Recorder;
use super::results::matches::{MatchRow, SeatRow};
use super::schedule::Planned;
use crate::bot::Supervisor;
use crate::error::{Error, Result};
use crate::game::MapText;
use crate::matches::{MapSource, MatchSpec, PlayedMatch, Player};

/// What a warning is about, for a program reading `--json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A last row cut short by a kill was dropped before resuming.
    TornRow,
    /// More bot processes at once than cores.
    Oversubscribed,
    /// Timeouts ended more than 5% of the matches.
    FrequentTimeouts,
    /// The sandbox cannot confine the external bots as asked (`auto` runs them unconfined).
    Sandbox,
    /// Rows that could not be checked against their plan (folders of an earlier format).
    UncheckedRows,
    /// `arena sprt --decide`: a pair is missing while later ones are played (a task failed).
    MissingPairs,
    /// A running league's live report could not be written (the league goes on).
    Live,
}

/// Something a user should know that does not stop the work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub kind: WarningKind,
    /// In words, one line.
    pub message: String,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Warning {
        Warning { kind, message: message.into() }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What one unit of work is: a match of a tournament, a pair of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Match,
    Pair,
}

impl Unit {
    /// The unit's name in the plural (`matches`, `pairs`).
    pub fn plural(self) -> &'static str {
        match self {
            Unit::Match => "matches",
            Unit::Pair => "pairs",
        }
    }
}

/// What is about to be played.
#[derive(Clone, Debug, Serialize)]
pub struct Start {
    pub arena: String,
    /// `run` or `sprt`.
    pub command: &'static str,
    /// The results folder.
    pub results: PathBuf,
    /// Matches in the whole schedule (an SPRT: its most games).
    pub planned: u64,
    /// `K/N` when only a shard runs.
    pub shard: Option<String>,
    /// Matches in the shard (the whole schedule without one).
    pub in_shard: u64,
    /// Matches already in the folder.
    pub resumed: u64,
    /// Units to play (at most, for an SPRT), of `unit`.
    pub to_play: u64,
    /// What an edit of the arena changed in its results folder before playing (`arena run`
    /// only): bots added, changed, retired, and the rows kept and archived.
    pub update: Option<Box<super::update::Update>>,
    pub unit: Unit,
    /// Threads: units in flight.
    pub concurrency: usize,
}

/// What the engine tells its reporter.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    Started(Start),
    Warning(Warning),
    /// `done` of `total` units played (sent as each ends).
    Progress {
        done: u64,
        total: u64,
        unit: Unit,
    },
    /// A league's standings, every few matches while it plays (`arena league`).
    Leaderboard(Box<Leaderboard>),
    /// Every worker has stopped (the results may still be summarised after).
    Finished,
}

/// The standings of a running league.
#[derive(Clone, Debug, Serialize)]
pub struct Leaderboard {
    /// Matches in the league so far.
    pub matches: u64,
    pub standings: super::stats::standings::Standings,
}

/// Who hears a run's events: `src/cli` draws progress and prints warnings; a library user may
/// collect them or ignore them.
pub trait Reporter: Send + Sync {
    fn event(&self, event: &Event);
}

/// The reporter of [`RunOptions`](super::RunOptions) and [`SprtOptions`](super::SprtOptions):
/// none by default (the events are dropped; the warnings still come back in the report).
#[derive(Clone, Default)]
pub struct Events(Option<Arc<dyn Reporter>>);

impl Events {
    pub fn to(reporter: Arc<dyn Reporter>) -> Events {
        Events(Some(reporter))
    }

    pub(crate) fn send(&self, event: &Event) {
        if let Some(r) = &self.0 {
            r.event(event);
        }
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Events(reporter)" } else { "Events(none)" })
    }
}

/// The threads of a run or a test: `-j` (0 = the default), else the arena's `concurrency`, else
/// the default for its bots ([`default_concurrency`]); never more than the units to play.
pub(crate) fn threads(requested: Option<usize>, arena: &Arena, units: u64) -> usize {
    requested
        .filter(|&c| c > 0)
        .or(arena.concurrency)
        .unwrap_or_else(|| default_concurrency(arena))
        .clamp(1, usize::try_from(units.max(1)).unwrap_or(usize::MAX))
}

/// One match of a unit: its plan and its map (an SPRT's map may be generated for it).
pub(crate) struct Job {
    pub(crate) planned: Planned,
    pub(crate) map: MapText,
    /// The pairing's label in `matches.csv`.
    pub(crate) label: String,
}

/// Whether the pool goes on after a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// A schedule the engine plays: units numbered from 0, each a few matches played in order by
/// one worker.
pub(crate) trait Schedule: Sync {
    /// The units there are (numbers `0..units()`).
    fn units(&self) -> u64;
    /// Unit `i`'s matches; empty for a unit with nothing to play (a resumed match).
    fn jobs(&self, i: u64) -> Result<Vec<Job>>;
    /// Unit `i` was played and recorded, its matches in the order of its jobs: the stop rule.
    fn done(&self, i: u64, played: &[PlayedMatch]) -> Flow;
    /// Unit `i` failed (the error stops the pool): a schedule whose units wait on others (a
    /// league's window) lets them go.
    fn abandon(&self, _i: u64) {}
}

/// How the engine runs.
pub(crate) struct Pool<'a> {
    pub(crate) arena: &'a Arena,
    pub(crate) supervisor: &'a Supervisor,
    pub(crate) events: &'a Events,
    pub(crate) concurrency: usize,
    /// Units to play (for the progress).
    pub(crate) to_play: u64,
    pub(crate) unit: Unit,
}

/// What a pool did.
pub(crate) struct Played {
    pub(crate) units: u64,
    /// The warnings sent during the run and at its end.
    pub(crate) warnings: Vec<Warning>,
}

impl Pool<'_> {
    /// Sends a warning to the reporter and keeps it for the report.
    pub(crate) fn warn(&self, warnings: &mut Vec<Warning>, warning: Warning) {
        self.events.send(&Event::Warning(warning.clone()));
        warnings.push(warning);
    }

    /// Plays `schedule`'s units, recording every match with `recorder`, until they are all played
    /// or the schedule says stop. The first error stops every worker and is returned, once the
    /// matches in flight have ended (and been recorded).
    pub(crate) fn play(
        &self,
        schedule: &dyn Schedule,
        recorder: &Recorder,
        mut warnings: Vec<Warning>,
    ) -> Result<Played> {
        if self.to_play > 0
            && let Some(message) = oversubscription(self.arena, self.concurrency)
        {
            self.warn(&mut warnings, Warning::new(WarningKind::Oversubscribed, message));
        }
        let timeouts = TimeoutWatch::default();
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let failure: Mutex<Option<Error>> = Mutex::new(None);
        let done = AtomicU64::new(0);
        let fail = |e: Error| {
            stop.store(true, Ordering::Relaxed);
            failure.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
        };
        std::thread::scope(|scope| {
            for _ in 0..self.concurrency {
                scope.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= schedule.units() {
                            break;
                        }
                        let played = schedule.jobs(i).and_then(|jobs| {
                            let mut played = Vec::with_capacity(jobs.len());
                            for job in jobs {
                                let p = self.play_one(&job).and_then(|p| {
                                    timeouts.note(&p);
                                    let row = row_of(self.arena, &job, &p);
                                    recorder.record(&row, &p)?;
                                    Ok(p)
                                })?;
                                played.push(p);
                            }
                            Ok(played)
                        });
                        match played {
                            Ok(played) if played.is_empty() => {}
                            Ok(played) => {
                                let total = done.fetch_add(1, Ordering::Relaxed) + 1;
                                self.events.send(&Event::Progress {
                                    done: total,
                                    total: self.to_play,
                                    unit: self.unit,
                                });
                                if schedule.done(i, &played) == Flow::Stop {
                                    stop.store(true, Ordering::Relaxed);
                                }
                            }
                            Err(e) => {
                                schedule.abandon(i);
                                fail(e);
                            }
                        }
                    }
                });
            }
        });
        self.events.send(&Event::Finished);
        recorder.sync()?;
        if let Some(e) = failure.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            return Err(e);
        }
        if let Some(message) = timeouts.warning() {
            self.warn(&mut warnings, Warning::new(WarningKind::FrequentTimeouts, message));
        }
        Ok(Played { units: done.into_inner(), warnings })
    }

    /// Plays one match; a failure to set it up names the match.
    fn play_one(&self, job: &Job) -> Result<PlayedMatch> {
        play_on(self.arena, &job.planned.seats, job.map.clone(), job.planned.seed, self.supervisor)
            .map_err(|e| match e {
                Error::Interrupted => e,
                e => Error::MatchSetup { id: job.planned.id, source: Box::new(e) },
            })
    }
}

/// Plays one match of the arena: the bots of each seat (indices into its bots), on a map, with a
/// seed.
pub(crate) fn play_on(
    arena: &Arena,
    seats: &[usize],
    map: MapText,
    seed: u64,
    supervisor: &Supervisor,
) -> Result<PlayedMatch> {
    let players = seats
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
pub(crate) fn row_of(arena: &Arena, job: &Job, played: &PlayedMatch) -> MatchRow {
    let (m, s) = (&job.planned, &played.summary);
    let bot_of_role = |role: &Option<String>| {
        let seat = arena.roles.iter().position(|r| Some(r) == role.as_ref())?;
        Some(arena.bots[m.seats[seat]].name.clone())
    };
    MatchRow {
        id: m.id,
        game: m.game,
        pairing: job.label.clone(),
        map: job.map.name.clone(),
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::tournament::config::Files;

    #[test]
    fn j_zero_means_the_default_and_no_more_threads_than_units() {
        let text = "name = \"t\"\ngame = \"skynet\"\nconcurrency = 3\n\
                    [maps]\ngenerate = { count = 1 }\n\
                    [[bots]]\nname = \"a\"\nspec = \"random\"\n[[bots]]\nname = \"b\"\nspec = \"random\"\n";
        let mut arena =
            Arena::parse(text, Path::new("t.toml"), &Files::Disk(PathBuf::new())).unwrap();
        assert_eq!(threads(Some(0), &arena, 100), 3, "0: the arena's setting");
        assert_eq!(threads(Some(2), &arena, 100), 2, "-j wins");
        assert_eq!(threads(None, &arena, 2), 2, "no more than the units");
        assert_eq!(threads(Some(5), &arena, 0), 1, "at least one");
        arena.concurrency = None;
        assert_eq!(threads(Some(0), &arena, 1000), default_concurrency(&arena));
    }
}
