//! The exact Episode-2 solver: can the virus force a win against an agent that plays perfectly?

use std::collections::HashMap;

use serde::Serialize;

use super::analysis::{Key, Scan, danger, gateway_links_at, greedy_cut, key_of, useful_cuts};
use super::episode::Episode;
use super::map::SkynetMap;
use crate::budget::{Budget, OutOfTime};

/// What a search learned about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The virus can force a win; this cut (a link id) does it.
    VirusWins(Option<u32>),
    /// The virus cannot force a win.
    AgentWins,
}

/// How often the search looks at the clock, in positions.
const CLOCK_EVERY: u64 = 8;

/// The exact Episode-2 solver: can the virus force a win against an agent that plays perfectly?
///
/// A position is the agent's node plus the set of gateway links left (in Episode 2 no other
/// link changes), memoised. The virus to move: if the agent touches two gateway links it has
/// lost; if one, that cut is forced; otherwise it tries every gateway link the agent can reach,
/// most urgent first. The agent to move tries every neighbour. The search stops at once when no
/// node within the agent's reach threatens two gateways.
pub struct ExactSolver<'m> {
    map: &'m SkynetMap,
    bit_of_link: Vec<u32>,
    words: usize,
    memo: HashMap<Key, Verdict>,
    scan: Scan,
    budget: Budget,
    /// Positions searched so far.
    pub positions: u64,
}

impl<'m> ExactSolver<'m> {
    pub fn new(map: &'m SkynetMap) -> ExactSolver<'m> {
        let mut bit_of_link = vec![u32::MAX; map.links.len()];
        let mut bits = 0u32;
        for id in 0..map.links.len() as u32 {
            if map.is_gateway_link(id) {
                bit_of_link[id as usize] = bits;
                bits += 1;
            }
        }
        ExactSolver {
            map,
            bit_of_link,
            words: (bits as usize).div_ceil(64),
            memo: HashMap::new(),
            scan: Scan::new(),
            budget: Budget::unlimited(),
            positions: 0,
        }
    }

    /// Gives up with [`OutOfTime`] once `budget` is spent.
    pub fn with_budget(mut self, budget: Budget) -> ExactSolver<'m> {
        self.budget = budget.check_every(CLOCK_EVERY);
        self
    }

    /// The value of the position with the virus to move.
    pub fn virus_to_move(&mut self, cut: &mut [bool], agent: u32) -> Result<Verdict, OutOfTime> {
        self.positions += 1;
        self.budget.tick()?;
        let map = self.map;
        if map.is_gateway[agent as usize] {
            return Ok(Verdict::AgentWins);
        }
        let reach = self.scan.reach(map, cut, agent);
        if !reach.gateway {
            return Ok(Verdict::VirusWins(None));
        }
        if reach.max_danger <= 1 {
            return Ok(Verdict::VirusWins(greedy_cut(map, cut, agent)));
        }
        let at_agent: Vec<u32> = gateway_links_at(map, cut, agent).collect();
        if at_agent.len() >= 2 {
            return Ok(Verdict::AgentWins);
        }
        let key = key_of(cut, agent, &self.bit_of_link, self.words);
        if let Some(&v) = self.memo.get(&key) {
            return Ok(v);
        }
        let candidates =
            if at_agent.is_empty() { useful_cuts(map, cut, agent, Episode::Ep2) } else { at_agent };
        let mut verdict = Verdict::AgentWins;
        for e in candidates {
            cut[e as usize] = true;
            let held = self.agent_to_move(cut, agent);
            cut[e as usize] = false;
            if held? {
                verdict = Verdict::VirusWins(Some(e));
                break;
            }
        }
        self.memo.insert(key, verdict);
        Ok(verdict)
    }

    /// Whether the virus wins whatever the agent at `agent` does next (the virus just cut).
    pub fn agent_to_move(&mut self, cut: &mut [bool], agent: u32) -> Result<bool, OutOfTime> {
        let map = self.map;
        let mut moves: Vec<(u32, u32)> = map.adj[agent as usize]
            .iter()
            .filter(|&&(_, id)| !cut[id as usize])
            .map(|&(n, _)| (danger(map, cut, n), n))
            .collect();
        // The most dangerous steps first: they refute a cut soonest.
        moves.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
        for (_, u) in moves {
            if map.is_gateway[u as usize] || self.virus_to_move(cut, u)? == Verdict::AgentWins {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// What [`solve_ep2`] found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Solution {
    pub verdict: Verdict,
    pub positions: u64,
}

/// Solves a map from its start, virus to move.
pub fn solve_ep2(map: &SkynetMap) -> Solution {
    let mut solver = ExactSolver::new(map);
    let mut cut = vec![false; map.links.len()];
    let verdict = solver.virus_to_move(&mut cut, map.agent_start).expect("the budget is unlimited");
    Solution { verdict, positions: solver.positions }
}
