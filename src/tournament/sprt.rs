//! Regression tests: pairs of games until a sequential probability ratio test
//! ([`super::stats::sprt`]) accepts "at least elo1 better" (H1) or "at most elo0" (H0).
//!
//! Two kinds of pair. **Head to head**: the candidate plays the baseline once in each seat order
//! (the role swap), on one map with one seed, and the pair scores the candidate's points
//! (a pentanomial, as fishtest's game pairs). **Paired**: the candidate and the baseline each
//! play the same seat against the same opponents on the same map with the same seed, and the
//! pair compares their results — for bots that never meet (two Skynet viruses) or games of more
//! seats. Draw `k` (a map and a seed) is shared by the `C` seat-and-opponent configurations of
//! pairs `kC .. kC + C - 1`.
//!
//! The decision is a function of the pairs in pair order: a pair counts only once every earlier
//! pair has, so the verdict and the number of pairs are the same at any concurrency. When every
//! bot is deterministic, the game has no chance and the maps cycle a fixed pool, pairs after the
//! pool's end repeat earlier ones exactly; the test stops there ("no more information") instead
//! of counting the copies as evidence.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Serialize;

use super::config::{Arena, ArenaBot, PairMaps, SprtConfig, SprtKind};
use super::determinism::game_has_chance;
use super::load::{TimeoutWatch, default_concurrency, oversubscription};
use super::progress::Progress;
use super::results::matches::RowWriter;
use super::results::{MATCHES_FILE, SPRT_FILE, prepare_dir, write_atomically};
use super::run::{meta_of, play_on, row_of};
use super::schedule::{Format, Plan, Planned, Schedule, Shard};
use super::stats::sprt::{EloModel, Overshoot, bounds, elo_estimate, llr};
use crate::bot::Supervisor;
use crate::error::{Error, Result};
use crate::game::MapText;
use crate::matches::PlayedMatch;
use crate::registry::GameDef;
use crate::seed::game_seed;
use crate::seed::sprt_map_seed;

/// Which hypothesis the test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is at least `elo1` stronger.
    H1,
    /// The candidate is at most `elo0` stronger.
    H0,
    /// The test stopped without a decision (see [`Stop`]).
    Inconclusive,
}

/// Why the test stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The LLR left the bounds.
    Decided,
    /// `max_pairs` were played.
    MaxPairs,
    /// Every pair of the cycling pool was played by deterministic bots: more pairs would repeat
    /// them.
    NoMoreInformation,
}

/// The result of a test: what `arena sprt` prints, what `--json` prints and what `sprt.json`
/// holds.
#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    /// `head-to-head` or `paired`.
    pub kind: &'static str,
    pub candidate: String,
    pub baseline: String,
    /// A paired test's opponents.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub opponents: Vec<String>,
    pub verdict: Verdict,
    pub stopped: Stop,
    /// How elo0, elo1 and the estimate are read.
    pub elo_model: EloModel,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// The generalized log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.
    pub lower_bound: f64,
    pub upper_bound: f64,
    /// The overshoot corrections in force at the end: H0 below `lower_bound + overshoot_lower`,
    /// H1 above `upper_bound - overshoot_upper`.
    pub overshoot_lower: f64,
    pub overshoot_upper: f64,
    pub pairs: u64,
    /// Head to head and paired two-seat games: `[LL, LD+DL, LW+DD+WL, DW+WD, WW]`, the
    /// candidate's points in the pair (paired: its points plus one minus the baseline's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pentanomial: Option<[u64; 5]>,
    /// Paired games of more seats: `[worse, equal, better]`, the candidate's finishing position
    /// against the baseline's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trinomial: Option<[u64; 3]>,
    /// The Elo difference (in `elo_model`'s units) the counts give, with its 95% interval.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// `generate` (a fresh map per draw) or `cycle` (the arena's maps in turn).
    pub maps: &'static str,
    /// When every bot is deterministic, the game has no chance and the maps cycle: the pairs
    /// after which everything repeats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats_after: Option<u64>,
    /// The test's results folder (its games and `sprt.json`).
    pub results: PathBuf,
}

/// The candidate's points against the bot of `other` in a match: 1 for a better rank, 1/2 for
/// an equal one.
fn points(played: &PlayedMatch, seat: usize, other: usize) -> f64 {
    let r = &played.summary.ranks;
    match r[seat].cmp(&r[other]) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// Every seat assignment of the candidate and the opponents that a paired test plays: the
/// rotations of every group of opponents the candidate's and their roles allow, as a gauntlet of
/// the candidate would play them.
pub(crate) fn paired_configs(
    candidate: usize,
    opponents: &[usize],
    bots: &[ArenaBot],
    roles: &[String],
) -> Vec<Vec<usize>> {
    let bot_roles: Vec<Vec<String>> =
        bots.iter()
            .enumerate()
            .map(|(i, b)| {
                if i == candidate || opponents.contains(&i) { b.roles.clone() } else { Vec::new() }
            })
            .collect();
    let schedule = Schedule::new(Plan {
        format: &Format::Gauntlet { candidate },
        roles,
        bot_roles: &bot_roles,
        games_per_pairing: 1,
        maps: 1,
        seed: 0,
    });
    schedule.pairings().iter().flat_map(|p| p.orders.iter().cloned()).collect()
}

/// What a test plays: the two games of every pair and how a pair is scored.
struct Layout {
    /// The seats of the pair's first game (with the candidate) for each configuration; the
    /// second game has the baseline where the candidate sat (head to head: the swapped seats).
    configs: Vec<[Vec<usize>; 2]>,
    /// The cell count: 5 (pentanomial) or 3 (trinomial).
    cells: usize,
}

impl Layout {
    fn new(arena: &Arena, test: &SprtConfig) -> Layout {
        let (cand, base) = (test.candidate, test.baseline);
        match test.kind {
            SprtKind::HeadToHead => {
                Layout { configs: vec![[vec![cand, base], vec![base, cand]]], cells: 5 }
            }
            SprtKind::Paired { ref opponents } => {
                let configs = paired_configs(cand, opponents, &arena.bots, &arena.roles)
                    .into_iter()
                    .map(|seats| {
                        let swapped = seats.iter().map(|&b| if b == cand { base } else { b });
                        let swapped = swapped.collect();
                        [seats, swapped]
                    })
                    .collect();
                Layout { configs, cells: if arena.roles.len() == 2 { 5 } else { 3 } }
            }
        }
    }

    /// The cell of a pair from its two games.
    fn cell(&self, test: &SprtConfig, config: usize, games: [&PlayedMatch; 2]) -> usize {
        let [first, second] = &self.configs[config];
        let seat = first.iter().position(|&b| b == test.candidate).expect("the candidate sits");
        match (&test.kind, self.cells) {
            (SprtKind::HeadToHead, _) => {
                let again = second.iter().position(|&b| b == test.candidate).expect("it sits");
                let total = points(games[0], seat, 1 - seat) + points(games[1], again, 1 - again);
                (2.0 * total).round() as usize
            }
            (SprtKind::Paired { .. }, 5) => {
                let candidate = points(games[0], seat, 1 - seat);
                let baseline = points(games[1], seat, 1 - seat);
                (2.0 * (candidate + 1.0 - baseline)).round() as usize
            }
            (SprtKind::Paired { .. }, _) => {
                let (c, b) = (games[0].summary.ranks[seat], games[1].summary.ranks[seat]);
                match c.cmp(&b) {
                    std::cmp::Ordering::Less => 2,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => 0,
                }
            }
        }
    }
}

/// Whether every bot that plays in the test is deterministic and the game has no chance, so the
/// same map gives the same pair.
fn repeatable(arena: &Arena, layout: &Layout) -> bool {
    !game_has_chance(arena.game)
        && layout.configs.iter().flatten().flatten().all(|&b| arena.bots[b].deterministic)
}

/// The map of draw `k`.
fn draw_map(arena: &Arena, maps: &PairMaps, k: u64) -> Result<(usize, MapText)> {
    match maps {
        PairMaps::Cycle => {
            let i = (k % arena.maps.len() as u64) as usize;
            Ok((i, arena.maps[i].clone()))
        }
        PairMaps::Generate { params } => {
            let seed = sprt_map_seed(arena.seed, k);
            let map =
                crate::with_game!(arena.game, D => D::generate_map(&arena.variant, params, seed))?;
            Ok((0, map))
        }
    }
}

struct State {
    /// Finished pairs waiting for an earlier one: pair index -> cell.
    waiting: BTreeMap<u64, usize>,
    counted: u64,
    counts: Vec<u64>,
    overshoot: Overshoot,
    decided: Option<(Verdict, Stop, f64)>,
}

/// The threads of a test: `-j` (0 = the default, as for `arena run`), else the arena's
/// `concurrency`, else the number of cores.
fn threads(requested: Option<usize>, configured: Option<usize>, default: usize) -> usize {
    requested.filter(|&c| c > 0).or(configured).unwrap_or(default).max(1)
}

/// Runs a test; the arena's `[sprt]` section (with the caller's overrides) says which.
pub fn run_sprt(
    arena: &Arena,
    test: &SprtConfig,
    concurrency: Option<usize>,
    out: Option<PathBuf>,
    progress: bool,
    supervisor: &Supervisor,
) -> Result<SprtReport> {
    let dir = out.unwrap_or_else(|| arena.output.join(&arena.name).join("sprt"));
    let meta = meta_of(arena, 2 * test.max_pairs, Shard::all());
    // A test always starts afresh: its stopping point depends on every pair before it.
    let _lock = prepare_dir(&dir, &meta, true)?;
    let writer = RowWriter::open(&dir.join(MATCHES_FILE), arena.roles.len())?;
    let (lower, upper) = bounds(test.alpha, test.beta);
    let layout = Layout::new(arena, test);
    let per_draw = layout.configs.len() as u64;
    let repeats_after = (matches!(test.maps, PairMaps::Cycle) && repeatable(arena, &layout))
        .then(|| arena.maps.len() as u64 * per_draw);
    let limit = repeats_after.map_or(test.max_pairs, |pool| pool.min(test.max_pairs));
    let names: Vec<String> = arena.bots.iter().map(|b| b.name.clone()).collect();
    let label = |seats: &[usize]| {
        let mut group: Vec<&str> = Vec::new();
        for &b in seats {
            if !group.contains(&names[b].as_str()) {
                group.push(&names[b]);
            }
        }
        group.join(" vs ")
    };
    let concurrency = threads(concurrency, arena.concurrency, default_concurrency(arena));
    if progress && let Some(warning) = oversubscription(arena, concurrency) {
        eprintln!("warning: {warning}");
    }
    let timeouts = TimeoutWatch::default();
    let bar = Progress::new(limit, progress);
    let decide = |s: &State, value: f64| {
        let (o0, o1) = s.overshoot.corrections();
        if value < lower + o0 {
            Some((Verdict::H0, Stop::Decided))
        } else if value > upper - o1 {
            Some((Verdict::H1, Stop::Decided))
        } else if s.counted >= limit {
            let why =
                if s.counted < test.max_pairs { Stop::NoMoreInformation } else { Stop::MaxPairs };
            Some((Verdict::Inconclusive, why))
        } else {
            None
        }
    };

    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let state = Mutex::new(State {
        waiting: BTreeMap::new(),
        counted: 0,
        counts: vec![0; layout.cells],
        overshoot: Overshoot::default(),
        decided: None,
    });
    std::thread::scope(|scope| {
        for _ in 0..concurrency {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let pair = next.fetch_add(1, Ordering::Relaxed);
                    if pair >= limit {
                        break;
                    }
                    let (draw, config) = (pair / per_draw, (pair % per_draw) as usize);
                    let seed = game_seed(arena.seed, draw);
                    let played = draw_map(arena, &test.maps, draw).and_then(|(index, map)| {
                        let mut games = Vec::with_capacity(2);
                        for (o, seats) in layout.configs[config].iter().enumerate() {
                            let m = Planned {
                                id: 2 * pair + o as u64,
                                game: pair,
                                pairing: config,
                                seats: seats.clone(),
                                map: index,
                                seed,
                            };
                            let p = play_on(arena, seats, map.clone(), seed, supervisor).map_err(
                                |e| match e {
                                    Error::Interrupted => e,
                                    e => Error::MatchSetup { id: m.id, source: Box::new(e) },
                                },
                            )?;
                            timeouts.note(&p);
                            let mut row = row_of(arena, &m, &label(seats), &p);
                            row.map = map.name.clone();
                            writer.append(&row)?;
                            games.push(p);
                        }
                        Ok(games)
                    });
                    let games = match played {
                        Ok(games) => games,
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            failure
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .get_or_insert(e);
                            break;
                        }
                    };
                    let cell = layout.cell(test, config, [&games[0], &games[1]]);
                    bar.inc();
                    let mut s = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    s.waiting.insert(pair, cell);
                    while s.decided.is_none() {
                        let counted = s.counted;
                        let Some(cell) = s.waiting.remove(&counted) else { break };
                        s.counts[cell] += 1;
                        s.counted += 1;
                        let value = llr(&s.counts, test.elo0, test.elo1, test.elo_model);
                        s.overshoot.update(value);
                        if let Some((verdict, why)) = decide(&s, value) {
                            s.decided = Some((verdict, why, value));
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    bar.finish();
    writer.sync()?;
    if let Some(e) = failure.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        return Err(e);
    }
    let s = state.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (verdict, stopped, value) = s.decided.unwrap_or_else(|| {
        let value = llr(&s.counts, test.elo0, test.elo1, test.elo_model);
        (Verdict::Inconclusive, Stop::MaxPairs, value)
    });
    let (overshoot_lower, overshoot_upper) = s.overshoot.corrections();
    let estimate = elo_estimate(&s.counts, test.elo_model);
    let opponents = match &test.kind {
        SprtKind::HeadToHead => Vec::new(),
        SprtKind::Paired { opponents } => opponents.iter().map(|&o| names[o].clone()).collect(),
    };
    let report = SprtReport {
        kind: match test.kind {
            SprtKind::HeadToHead => "head-to-head",
            SprtKind::Paired { .. } => "paired",
        },
        candidate: names[test.candidate].clone(),
        baseline: names[test.baseline].clone(),
        opponents,
        verdict,
        stopped,
        elo_model: test.elo_model,
        elo0: test.elo0,
        elo1: test.elo1,
        alpha: test.alpha,
        beta: test.beta,
        llr: value,
        lower_bound: lower,
        upper_bound: upper,
        overshoot_lower,
        overshoot_upper,
        pairs: s.counted,
        pentanomial: s.counts.as_slice().try_into().ok(),
        trinomial: s.counts.as_slice().try_into().ok(),
        elo: estimate.value,
        elo_low: estimate.low,
        elo_high: estimate.high,
        maps: match test.maps {
            PairMaps::Cycle => "cycle",
            PairMaps::Generate { .. } => "generate",
        },
        repeats_after,
        results: dir.clone(),
    };
    let json = serde_json::to_string_pretty(&report).expect("a report serializes") + "\n";
    write_atomically(&dir.join(SPRT_FILE), json.as_bytes())?;
    if let Some(warning) = timeouts.warning() {
        eprintln!("warning: {warning}");
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn j_zero_means_the_default_as_for_a_run() {
        assert_eq!(threads(Some(0), None, 4), 4);
        assert_eq!(threads(Some(0), Some(3), 4), 3);
        assert_eq!(threads(Some(2), Some(3), 4), 2);
        assert_eq!(threads(None, None, 4), 4);
    }
}
