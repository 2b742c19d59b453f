//! The planner of the `solver` virus: a winning line of cuts against the deterministic
//! CodinGame agent.

use std::collections::HashMap;

use super::agent::AgentModel;
use super::episode::Episode;
use super::map::SkynetMap;
use super::search::{Key, Scan, gateway_links_at, key_of, useful_cuts};
use crate::budget::{Budget, OutOfTime};

/// How often the search looks at the clock, in positions.
const CLOCK_EVERY: u64 = 8;

/// One step of a plan: where the agent should be, and the cut (a link id) to make there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlanStep {
    pub agent: u32,
    pub cut: u32,
}

/// What one search of the planner found.
enum Found {
    /// A winning line, last step first.
    Win(Vec<PlanStep>),
    /// No win within the search's limits; `exhaustive` if the limits cut nothing off.
    Fail { exhaustive: bool },
}

/// The most positions the planner remembers across turns.
const MEMO_LIMIT: usize = 2_000_000;

/// Marks a position the planner has proved lost against the model.
const PROVEN: u32 = u32::MAX;

/// Plans the virus's cuts against a deterministic agent model: the agent's reply to every cut is
/// known, so a winning line is a path in a one-player game tree. The tree is searched by limited
/// discrepancy search (first the line that follows the [`cut_order`](super::search::cut_order) heuristic everywhere, then
/// lines straying from it by more and more), with a memo of positions that failed and with what
/// allowance, kept across turns.
pub(crate) struct Planner {
    episode: Episode,
    model: AgentModel,
    bit_of_link: Vec<u32>,
    words: usize,
    failed: HashMap<Key, u32>,
    scan: Scan,
    budget: Budget,
    positions: u64,
}

/// How a planner's search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PlanResult {
    /// A line of cuts that wins against the model, first step first.
    Win(Vec<PlanStep>),
    /// The model beats every line of cuts.
    Lost,
    OutOfTime,
}

impl Planner {
    pub(crate) fn new(map: &SkynetMap, model: AgentModel) -> Planner {
        Planner {
            episode: model.episode,
            bit_of_link: (0..map.links.len() as u32).collect(),
            words: map.links.len().div_ceil(64),
            model,
            failed: HashMap::new(),
            scan: Scan::new(),
            budget: Budget::unlimited(),
            positions: 0,
        }
    }

    /// Positions searched so far, over every call.
    #[allow(dead_code, reason = "a counter for tuning the planner; no caller reads it today")]
    pub(crate) fn positions(&self) -> u64 {
        self.positions
    }

    /// Searches for a winning line from the position, virus to move, within `budget`.
    pub(crate) fn plan(
        &mut self,
        map: &SkynetMap,
        cut: &mut [bool],
        agent: u32,
        budget: Budget,
    ) -> PlanResult {
        self.budget = budget.check_every(CLOCK_EVERY);
        // The memo outlives turns; on a long lost game it is dropped before it grows too big.
        if self.failed.len() > MEMO_LIMIT {
            self.failed.clear();
        }
        for allowance in 0.. {
            match self.search(map, cut, agent, allowance) {
                Ok(Found::Win(mut steps)) => {
                    steps.reverse();
                    return PlanResult::Win(steps);
                }
                Ok(Found::Fail { exhaustive: true }) => return PlanResult::Lost,
                Ok(Found::Fail { exhaustive: false }) => {}
                Err(OutOfTime) => return PlanResult::OutOfTime,
            }
        }
        unreachable!("the allowance loop ends by returning")
    }

    /// The search with `allowance` discrepancies: trying the `i`-th best cut costs `i`.
    fn search(
        &mut self,
        map: &SkynetMap,
        cut: &mut [bool],
        agent: u32,
        allowance: u32,
    ) -> Result<Found, OutOfTime> {
        self.positions += 1;
        self.budget.tick()?;
        if map.is_gateway[agent as usize] {
            return Ok(Found::Fail { exhaustive: true });
        }
        let reach = self.scan.reach(map, cut, agent);
        if !reach.gateway || reach.max_danger <= 1 {
            return Ok(Found::Win(Vec::new()));
        }
        let at_agent: Vec<u32> = gateway_links_at(map, cut, agent).collect();
        if at_agent.len() >= 2 {
            return Ok(Found::Fail { exhaustive: true });
        }
        let key = key_of(cut, agent, &self.bit_of_link, self.words);
        if let Some(&failed_with) = self.failed.get(&key) {
            if failed_with >= allowance {
                return Ok(Found::Fail { exhaustive: failed_with == PROVEN });
            }
        }
        let candidates =
            if at_agent.is_empty() { useful_cuts(map, cut, agent, self.episode) } else { at_agent };
        let mut exhaustive = true;
        for (i, &e) in candidates.iter().enumerate() {
            if i as u32 > allowance {
                exhaustive = false;
                break;
            }
            cut[e as usize] = true;
            let found = match self.model.next_move(map, cut, agent) {
                None => Ok(Found::Win(Vec::new())),
                Some(u) => self.search(map, cut, u, allowance - i as u32),
            };
            cut[e as usize] = false;
            match found? {
                Found::Win(mut line) => {
                    line.push(PlanStep { agent, cut: e });
                    return Ok(Found::Win(line));
                }
                Found::Fail { exhaustive: e } => exhaustive &= e,
            }
        }
        self.failed.insert(key, if exhaustive { PROVEN } else { allowance });
        Ok(Found::Fail { exhaustive })
    }
}
