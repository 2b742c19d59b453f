//! The plain memoised AND-OR search the exact solver started as, kept as the reference the
//! pruned solver is tested against: it tries every gateway link the agent can reach and every
//! step of the agent, keyed by the exact set of links cut, with no pruning a proof could get
//! wrong beyond the two tests every search relies on (a node with two gateway links under the
//! agent, and no node of danger two within its reach).

use std::collections::HashMap;

use crate::games::skynet::episode::Episode;
use crate::games::skynet::map::SkynetMap;
use crate::games::skynet::search::{Key, Scan, gateway_links_at, greedy_cut, key_of, useful_cuts};

use super::Verdict;

pub(crate) struct PlainSolver<'m> {
    map: &'m SkynetMap,
    bit_of_link: Vec<u32>,
    words: usize,
    memo: HashMap<Key, Verdict>,
    scan: Scan,
    pub(crate) positions: u64,
}

impl<'m> PlainSolver<'m> {
    pub(crate) fn new(map: &'m SkynetMap) -> PlainSolver<'m> {
        let mut bit_of_link = vec![u32::MAX; map.links.len()];
        let mut bits = 0u32;
        for id in 0..map.links.len() as u32 {
            if map.is_gateway_link(id) {
                bit_of_link[id as usize] = bits;
                bits += 1;
            }
        }
        PlainSolver {
            map,
            bit_of_link,
            words: (bits as usize).div_ceil(64),
            memo: HashMap::new(),
            scan: Scan::new(),
            positions: 0,
        }
    }

    /// The value of the position with the virus to move.
    pub(crate) fn virus_to_move(&mut self, cut: &mut [bool], agent: u32) -> Verdict {
        self.positions += 1;
        let map = self.map;
        if map.is_gateway[agent as usize] {
            return Verdict::AgentWins;
        }
        let reach = self.scan.reach(map, cut, agent);
        if !reach.gateway {
            return Verdict::VirusWins(None);
        }
        if reach.max_danger <= 1 {
            return Verdict::VirusWins(greedy_cut(map, cut, agent));
        }
        let at_agent: Vec<u32> = gateway_links_at(map, cut, agent).collect();
        if at_agent.len() >= 2 {
            return Verdict::AgentWins;
        }
        let key = key_of(cut, agent, &self.bit_of_link, self.words);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let candidates =
            if at_agent.is_empty() { useful_cuts(map, cut, agent, Episode::Ep2) } else { at_agent };
        let mut verdict = Verdict::AgentWins;
        for e in candidates {
            cut[e as usize] = true;
            let held = self.agent_to_move(cut, agent);
            cut[e as usize] = false;
            if held {
                verdict = Verdict::VirusWins(Some(e));
                break;
            }
        }
        self.memo.insert(key, verdict);
        verdict
    }

    /// Whether the virus wins whatever the agent at `agent` does next (the virus just cut).
    pub(crate) fn agent_to_move(&mut self, cut: &mut [bool], agent: u32) -> bool {
        let map = self.map;
        if map.is_gateway[agent as usize] {
            return false;
        }
        let moves: Vec<u32> = map.adj[agent as usize]
            .iter()
            .filter(|&&(_, id)| !cut[id as usize])
            .map(|&(n, _)| n)
            .collect();
        for u in moves {
            if map.is_gateway[u as usize] || self.virus_to_move(cut, u) == Verdict::AgentWins {
                return false;
            }
        }
        true
    }
}
