//! Regression tests: pairs of games until a sequential probability ratio test
//! ([`super::stats::gsprt`]) accepts "at least elo1 better" (H1) or "at most elo0" (H0).
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
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;

use super::config::{Arena, PairMaps, SprtConfig, SprtKind};
use super::determinism::game_has_chance;
use super::engine::{
    Event, Events, Flow, Job, Pool, Schedule as EngineSchedule, Start, Unit, Warning, threads,
};
use super::results::meta::Kind;
use super::results::{Recorder, SPRT_FILE, prepare_dir, write_atomically};
use super::run::{arena_key, meta_of};
use super::schedule::{Planned, Shard, paired_configs};
use super::stats::gsprt::{EloModel, Overshoot, bounds, elo_estimate, llr};
use crate::bot::Supervisor;
use crate::error::Result;
use crate::game::MapText;
use crate::matches::PlayedMatch;
use crate::registry::GameDef;
use crate::seed::sprt_map_seed;
use crate::seed::{SeedKey, game_seed};

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
    /// Only `arena sprt --decide`: the pairs played so far (spread over machines) decide nothing
    /// yet, and the test may count more; play the next ones.
    NeedsMorePairs,
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
    /// What the test warned about, in order (also sent as events while it ran).
    pub warnings: Vec<Warning>,
}

/// The candidate's points against the bot of `other` in a match, from its ranks by seat: 1 for a
/// better rank, 1/2 for an equal one.
fn points(ranks: &[u32], seat: usize, other: usize) -> f64 {
    match ranks[seat].cmp(&ranks[other]) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// What a test plays: the two games of every pair and how a pair is scored.
pub(super) struct Layout {
    /// The seats of the pair's first game (with the candidate) for each configuration; the
    /// second game has the baseline where the candidate sat (head to head: the swapped seats).
    pub(super) configs: Vec<[Vec<usize>; 2]>,
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
                let bot_roles: Vec<Vec<String>> =
                    arena.bots.iter().map(|b| b.roles.clone()).collect();
                let configs = paired_configs(cand, opponents, &bot_roles, &arena.roles)
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

    /// The draw of a pair (its map and seed) and its configuration.
    pub(super) fn draw_and_config(&self, pair: u64) -> (u64, usize) {
        let per_draw = self.configs.len() as u64;
        (pair / per_draw, (pair % per_draw) as usize)
    }

    /// The cell of a pair from its two games: each game's ranks by seat (1 is best). A pair
    /// played here and a pair read back from `matches.csv` score alike.
    pub(super) fn cell(&self, test: &SprtConfig, config: usize, ranks: [&[u32]; 2]) -> usize {
        let [first, second] = &self.configs[config];
        let seat = first.iter().position(|&b| b == test.candidate).expect("the candidate sits");
        match (&test.kind, self.cells) {
            (SprtKind::HeadToHead, _) => {
                let again = second.iter().position(|&b| b == test.candidate).expect("it sits");
                let total = points(ranks[0], seat, 1 - seat) + points(ranks[1], again, 1 - again);
                (2.0 * total).round() as usize
            }
            (SprtKind::Paired { .. }, 5) => {
                let candidate = points(ranks[0], seat, 1 - seat);
                let baseline = points(ranks[1], seat, 1 - seat);
                (2.0 * (candidate + 1.0 - baseline)).round() as usize
            }
            (SprtKind::Paired { .. }, _) => match ranks[0][seat].cmp(&ranks[1][seat]) {
                std::cmp::Ordering::Less => 2,
                std::cmp::Ordering::Equal => 1,
                std::cmp::Ordering::Greater => 0,
            },
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

/// How a test is asked to go.
#[derive(Clone, Debug, Default)]
pub struct SprtOptions {
    /// Games in flight; `None` (or 0) takes the arena's setting, else the default for its bots.
    pub concurrency: Option<usize>,
    /// The results folder; `None` is `output/name/sprt`.
    pub out: Option<PathBuf>,
    /// Who hears the test's events (its start, progress and warnings).
    pub events: Events,
    /// Starts the external bots; stopping it ends the test with
    /// [`Error::Interrupted`](crate::error::Error::Interrupted).
    pub supervisor: Supervisor,
}

/// A test as the arena file plans it: which games pair `j` plays, how a pair scores, the bounds,
/// and the most pairs it may count. Playing the pairs on one machine (`arena sprt`) or spread
/// over several (`--pairs`, then `--decide`, [`super::sprt_cluster`]) goes through this.
pub(super) struct TestPlan<'a> {
    pub(super) arena: &'a Arena,
    pub(super) test: &'a SprtConfig,
    pub(super) layout: Layout,
    /// The most pairs the test may count: `max_pairs`, or fewer in a deterministic pool.
    pub(super) limit: u64,
    /// When everything repeats after that many pairs (a deterministic pool).
    repeats_after: Option<u64>,
    lower: f64,
    upper: f64,
    /// The folder's secret, which the match seeds are drawn with.
    key: SeedKey,
}

impl<'a> TestPlan<'a> {
    pub(super) fn new(arena: &'a Arena, test: &'a SprtConfig, key: &SeedKey) -> TestPlan<'a> {
        let (lower, upper) = bounds(test.alpha, test.beta);
        let layout = Layout::new(arena, test);
        let repeats_after = (matches!(test.maps, PairMaps::Cycle) && repeatable(arena, &layout))
            .then(|| arena.maps.len() as u64 * layout.configs.len() as u64);
        let limit = repeats_after.map_or(test.max_pairs, |pool| pool.min(test.max_pairs));
        TestPlan { arena, test, layout, limit, repeats_after, lower, upper, key: key.clone() }
    }

    /// The group of a pair's bots, as `matches.csv` labels a pairing.
    fn label(&self, seats: &[usize]) -> String {
        let mut group: Vec<&str> = Vec::new();
        for &b in seats {
            let name = self.arena.bots[b].name.as_str();
            if !group.contains(&name) {
                group.push(name);
            }
        }
        group.join(" vs ")
    }

    /// The plans of pair `pair`'s two games (ids `2 pair` and `2 pair + 1`), without their map.
    pub(super) fn planned(&self, pair: u64) -> [Planned; 2] {
        let (draw, config) = self.layout.draw_and_config(pair);
        let seed = game_seed(&self.key, self.arena.seed, draw);
        let map = match self.test.maps {
            PairMaps::Cycle => (draw % self.arena.maps.len() as u64) as usize,
            PairMaps::Generate { .. } => 0,
        };
        [0, 1].map(|o: usize| Planned {
            id: 2 * pair + o as u64,
            game: pair,
            pairing: config,
            seats: self.layout.configs[config][o].clone(),
            map,
            seed,
        })
    }

    /// Pair `pair`'s two games, ready to play.
    pub(super) fn jobs(&self, pair: u64) -> Result<Vec<Job>> {
        let (draw, _) = self.layout.draw_and_config(pair);
        let (_, map) = draw_map(self.arena, &self.test.maps, draw)?;
        Ok(self
            .planned(pair)
            .into_iter()
            .map(|planned| {
                let label = self.label(&planned.seats);
                Job { planned, map: map.clone(), label }
            })
            .collect())
    }

    /// The stop rule of this test, no pair counted yet.
    pub(super) fn stop_rule(&self) -> StopRule {
        StopRule {
            waiting: BTreeMap::new(),
            counted: 0,
            counts: vec![0; self.layout.cells],
            overshoot: Overshoot::default(),
            decided: None,
        }
    }

    /// Pair `pair` scored `cell`: `rule` counts it once every earlier pair is counted, then
    /// every waiting pair after it, in pair order, until the test decides. Whether it has.
    pub(super) fn count(&self, rule: &mut StopRule, pair: u64, cell: usize) -> bool {
        rule.waiting.insert(pair, cell);
        while rule.decided.is_none() {
            let Some(cell) = rule.waiting.remove(&rule.counted) else { break };
            rule.counts[cell] += 1;
            rule.counted += 1;
            let value = llr(&rule.counts, self.test.elo0, self.test.elo1, self.test.elo_model);
            rule.overshoot.update(value);
            if let Some((verdict, why)) = self.decide(rule, value) {
                rule.decided = Some((verdict, why, value));
            }
        }
        rule.decided.is_some()
    }

    fn decide(&self, s: &StopRule, value: f64) -> Option<(Verdict, Stop)> {
        let (o0, o1) = s.overshoot.corrections();
        if value < self.lower + o0 {
            Some((Verdict::H0, Stop::Decided))
        } else if value > self.upper - o1 {
            Some((Verdict::H1, Stop::Decided))
        } else if s.counted >= self.limit {
            let why = if s.counted < self.test.max_pairs {
                Stop::NoMoreInformation
            } else {
                Stop::MaxPairs
            };
            Some((Verdict::Inconclusive, why))
        } else {
            None
        }
    }

    /// The report of the test as `rule` stands (`undecided`: why it stopped if it has not
    /// decided), written to `dir/sprt.json` too.
    pub(super) fn report(
        &self,
        rule: &StopRule,
        undecided: Stop,
        dir: &Path,
        warnings: Vec<Warning>,
    ) -> Result<SprtReport> {
        let (test, arena) = (self.test, self.arena);
        let (verdict, stopped, value) = rule.decided.unwrap_or_else(|| {
            let value = llr(&rule.counts, test.elo0, test.elo1, test.elo_model);
            (Verdict::Inconclusive, undecided, value)
        });
        let (overshoot_lower, overshoot_upper) = rule.overshoot.corrections();
        let estimate = elo_estimate(&rule.counts, test.elo_model);
        let names: Vec<String> = arena.bots.iter().map(|b| b.name.clone()).collect();
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
            lower_bound: self.lower,
            upper_bound: self.upper,
            overshoot_lower,
            overshoot_upper,
            pairs: rule.counted,
            pentanomial: rule.counts.as_slice().try_into().ok(),
            trinomial: rule.counts.as_slice().try_into().ok(),
            elo: estimate.value,
            elo_low: estimate.low,
            elo_high: estimate.high,
            maps: match test.maps {
                PairMaps::Cycle => "cycle",
                PairMaps::Generate { .. } => "generate",
            },
            repeats_after: self.repeats_after,
            results: dir.to_path_buf(),
            warnings,
        };
        let json = serde_json::to_string_pretty(&report).expect("a report serializes") + "\n";
        write_atomically(&dir.join(SPRT_FILE), json.as_bytes())?;
        Ok(report)
    }
}

/// The test's counts, in pair order: the pairs finished ahead of an earlier one wait.
pub(super) struct StopRule {
    /// Finished pairs waiting for an earlier one: pair index -> cell.
    waiting: BTreeMap<u64, usize>,
    counted: u64,
    counts: Vec<u64>,
    overshoot: Overshoot,
    decided: Option<(Verdict, Stop, f64)>,
}

impl StopRule {
    /// The pairs counted so far (`0..counted`).
    pub(super) fn counted(&self) -> u64 {
        self.counted
    }

    /// Whether the test has stopped: a verdict, or no verdict with nothing more to count.
    pub(super) fn is_decided(&self) -> bool {
        self.decided.is_some()
    }
}

/// A test as the engine plays it: unit `j` is pair `j` (its two games), and the stop rule counts
/// the pairs in order.
struct Pairs<'a> {
    plan: TestPlan<'a>,
    rule: Mutex<StopRule>,
}

impl EngineSchedule for Pairs<'_> {
    fn units(&self) -> u64 {
        self.plan.limit
    }

    fn jobs(&self, pair: u64) -> Result<Vec<Job>> {
        self.plan.jobs(pair)
    }

    fn done(&self, pair: u64, games: &[PlayedMatch]) -> Flow {
        let (_, config) = self.plan.layout.draw_and_config(pair);
        let ranks = [&games[0].summary.ranks[..], &games[1].summary.ranks[..]];
        let cell = self.plan.layout.cell(self.plan.test, config, ranks);
        let mut rule = self.rule.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.plan.count(&mut rule, pair, cell) { Flow::Stop } else { Flow::Continue }
    }
}

/// Runs a test; the arena's `[sprt]` section (with the caller's overrides) says which.
pub fn run_sprt(arena: &Arena, test: &SprtConfig, opts: &SprtOptions) -> Result<SprtReport> {
    let dir = opts.out.clone().unwrap_or_else(|| sprt_dir(arena));
    let key = arena_key(arena, &dir)?;
    let meta = meta_of(arena, 2 * test.max_pairs, Shard::all(), Kind::Sprt, &key);
    // A test always starts afresh: its stopping point depends on every pair before it.
    let _lock = prepare_dir(&dir, &meta, true)?;
    let plan = TestPlan::new(arena, test, &key);
    let limit = plan.limit;
    let pairs = Pairs { rule: Mutex::new(plan.stop_rule()), plan };
    let recorder =
        Recorder::open(&dir, arena.roles.len(), arena.replays, arena.analysis, &|_| false)?;
    let pool = Pool {
        arena,
        supervisor: &opts.supervisor,
        events: &opts.events,
        concurrency: threads(opts.concurrency, arena, limit),
        to_play: limit,
        unit: Unit::Pair,
    };
    opts.events.send(&Event::Started(Start {
        update: None,
        arena: arena.name.clone(),
        command: "sprt",
        results: dir.clone(),
        planned: 2 * test.max_pairs,
        shard: None,
        in_shard: 2 * test.max_pairs,
        resumed: 0,
        to_play: limit,
        unit: Unit::Pair,
        concurrency: pool.concurrency,
    }));
    let played = pool.play(&pairs, &recorder, Vec::new())?;
    recorder.finish(&dir)?;
    let rule = pairs.rule.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    pairs.plan.report(&rule, Stop::MaxPairs, &dir, played.warnings)
}

/// A test's folder: `<output>/<name>/sprt`.
pub(super) fn sprt_dir(arena: &Arena) -> PathBuf {
    arena.output.join(&arena.name).join("sprt")
}
