//! The exact Episode-2 solver: can the virus force a win against an agent that plays perfectly?
//!
//! In Episode 2 only gateway links are cut, so a position is the agent's node plus, for every
//! node, how many of its gateway links are left (its *danger*): which of a node's two links went
//! first changes nothing, and the memo keys positions by those counts. Danger only falls, and a
//! position only gets better for the virus as links go (it can play its old strategy, cutting
//! any link where the old one is already gone).
//!
//! That monotony gives the search its strongest pruning, *relevance zones*: when the agent wins
//! a position, the search also returns a set of nodes (the zone) such that the agent still wins
//! with every gateway link outside the zone cut. So once a cut of the virus is refuted with zone
//! Z, every cut outside Z is refuted too (it leaves the links in Z as they were, and they alone
//! win), and only cuts inside every zone found so far are left to try. A refutation is typically
//! a short walk to a node with two gateway links, so its zone holds a few nodes and the virus's
//! hundreds of possible cuts on a dense map shrink to a handful. A winning walk is found without
//! search when it exists: a chain of nodes with one gateway link each (every step forces the
//! virus's cut) leading to a node with two.

use std::collections::HashMap;

use serde::Serialize;

use super::analysis::{greedy_cut, useful_cuts};
use super::episode::Episode;
use super::map::SkynetMap;
use crate::budget::{Budget, OutOfTime};
use crate::seed::MixBuild;

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

/// Marks a node that has no gateway link in the full map (it has no danger count).
const NO_SLOT: u32 = u32::MAX;

/// A set of counted nodes (by slot), as a bitset.
type Zone = Box<[u64]>;

/// What the search knows about a position with the virus to move.
#[derive(Clone, Debug)]
enum Known {
    /// The virus wins; with this cut (a link id, which any link of the same node may replace)
    /// unless the game is already won.
    Virus(Option<u32>),
    /// The agent wins, and still does with every gateway link outside the zone cut.
    Agent(Zone),
}

/// The fixed part of the network: which nodes have gateway links (each gets a *slot* and a
/// danger count), and the links between non-gateway nodes, which Episode 2 never cuts.
struct Network {
    slot: Vec<u32>,
    /// The node of each slot.
    node: Vec<u32>,
    /// Each slot's gateway links, in adjacency order (= link id order).
    links: Vec<Vec<u32>>,
    /// Each node's non-gateway neighbours over links not cut, in adjacency order.
    plain_adj: Vec<Vec<u32>>,
    /// The non-gateway links cut when the network was built (none in a real Episode-2 game).
    plain_cut: Vec<u32>,
    /// Bits per danger count in a memo key.
    width: u32,
    zone_words: usize,
}

impl Network {
    fn new(map: &SkynetMap, cut: &[bool]) -> Network {
        let mut slot = vec![NO_SLOT; map.nodes];
        let mut node = Vec::new();
        let mut links: Vec<Vec<u32>> = Vec::new();
        let mut plain_adj = vec![Vec::new(); map.nodes];
        for v in 0..map.nodes as u32 {
            if map.is_gateway[v as usize] {
                continue;
            }
            for &(n, id) in &map.adj[v as usize] {
                if map.is_gateway[n as usize] {
                    if slot[v as usize] == NO_SLOT {
                        slot[v as usize] = node.len() as u32;
                        node.push(v);
                        links.push(Vec::new());
                    }
                    links[slot[v as usize] as usize].push(id);
                } else if !cut[id as usize] {
                    plain_adj[v as usize].push(n);
                }
            }
        }
        let most = links.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let width = usize::BITS - most.leading_zeros();
        Network {
            zone_words: node.len().div_ceil(64).max(1),
            slot,
            node,
            links,
            plain_adj,
            plain_cut: plain_cuts(map, cut),
            width,
        }
    }
}

/// The non-gateway links cut in `cut`.
fn plain_cuts(map: &SkynetMap, cut: &[bool]) -> Vec<u32> {
    (0..map.links.len() as u32).filter(|&id| cut[id as usize] && !map.is_gateway_link(id)).collect()
}

fn zone_of(words: usize, slots: &[u32]) -> Zone {
    let mut z = vec![0u64; words].into_boxed_slice();
    for &k in slots {
        z[k as usize / 64] |= 1 << (k % 64);
    }
    z
}

fn in_zone(z: &[u64], k: u32) -> bool {
    z[k as usize / 64] >> (k % 64) & 1 == 1
}

/// The exact Episode-2 solver: can the virus force a win against an agent that plays perfectly?
///
/// The virus to move: if the agent touches two gateway links it has lost; if one, that cut is
/// forced; if no node within the agent's reach touches two, it has won; otherwise it tries the
/// nodes whose gateway links the agent can reach, most urgent first, skipping those outside the
/// relevance zones of the cuts already refuted. The agent to move wins at once along a chain of
/// one-link nodes to a two-link node; otherwise it tries every neighbour, most dangerous first.
pub struct ExactSolver<'m> {
    map: &'m SkynetMap,
    net: Network,
    /// The danger count of each slot in the position searched.
    danger: Vec<u8>,
    /// The danger counts packed `net.width` bits each: the memo key, kept up to date.
    packed: Vec<u64>,
    memo: HashMap<Box<[u64]>, Known, MixBuild>,
    seen: Vec<u32>,
    stamp: u32,
    queue: Vec<u32>,
    parent: Vec<u32>,
    /// Free cuts to each node (see [`ExactSolver::deadlines_hold`]).
    free: Vec<u32>,
    done: Vec<u32>,
    deque: std::collections::VecDeque<u32>,
    deadlines: Vec<u32>,
    budget: Budget,
    /// Positions searched so far.
    pub positions: u64,
}

impl<'m> ExactSolver<'m> {
    pub fn new(map: &'m SkynetMap) -> ExactSolver<'m> {
        let net = Network::new(map, &vec![false; map.links.len()]);
        let slots = net.node.len();
        let words = (slots * net.width as usize).div_ceil(64) + 1;
        ExactSolver {
            map,
            danger: vec![0; slots],
            packed: vec![0; words],
            net,
            memo: HashMap::default(),
            seen: vec![0; map.nodes],
            stamp: 0,
            queue: Vec::new(),
            parent: vec![0; map.nodes],
            free: vec![0; map.nodes],
            done: vec![0; map.nodes],
            deque: std::collections::VecDeque::new(),
            deadlines: Vec::new(),
            budget: Budget::unlimited(),
            positions: 0,
        }
    }

    /// Gives up with [`OutOfTime`] once `budget` is spent.
    pub fn with_budget(mut self, budget: Budget) -> ExactSolver<'m> {
        self.budget = budget.check_every(CLOCK_EVERY);
        self
    }

    /// Reads the danger counts of `cut`. Episode 2 never cuts a link between two non-gateway
    /// nodes; should `cut` hold one anyway, the network is rebuilt and the memo, which assumed
    /// the other network, dropped.
    fn load(&mut self, cut: &[bool]) {
        if plain_cuts(self.map, cut) != self.net.plain_cut {
            self.net = Network::new(self.map, cut);
            self.memo.clear();
        }
        self.packed.iter_mut().for_each(|w| *w = 0);
        for k in 0..self.net.node.len() {
            let left = self.net.links[k].iter().filter(|&&id| !cut[id as usize]).count();
            self.danger[k] = left as u8;
            let bit = k * self.net.width as usize;
            self.packed[1 + bit / 64] |= (left as u64) << (bit % 64);
        }
    }

    /// The danger of node `v`.
    #[inline]
    fn danger_of(&self, v: u32) -> u8 {
        match self.net.slot[v as usize] {
            NO_SLOT => 0,
            k => self.danger[k as usize],
        }
    }

    /// Cuts one gateway link of slot `k`: the first one left in `cut`, which it marks.
    fn cut_slot(&mut self, cut: &mut [bool], k: u32) -> u32 {
        let id = *self.net.links[k as usize]
            .iter()
            .find(|&&id| !cut[id as usize])
            .expect("a gateway link is left at a node with danger");
        cut[id as usize] = true;
        self.set_danger(k, -1);
        id
    }

    fn uncut(&mut self, cut: &mut [bool], k: u32, id: u32) {
        cut[id as usize] = false;
        self.set_danger(k, 1);
    }

    fn set_danger(&mut self, k: u32, by: i8) {
        self.danger[k as usize] = self.danger[k as usize].wrapping_add_signed(by);
        let bit = k as usize * self.net.width as usize;
        let word = &mut self.packed[1 + bit / 64];
        if by > 0 {
            *word += 1 << (bit % 64);
        } else {
            *word -= 1 << (bit % 64);
        }
    }

    fn key(&mut self, agent: u32) -> Box<[u64]> {
        self.packed[0] = u64::from(agent);
        self.packed.clone().into_boxed_slice()
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.done.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// The largest danger of a node the agent at `agent` can reach (0 if it can reach no
    /// gateway).
    fn reach(&mut self, agent: u32) -> u8 {
        let stamp = self.next_stamp();
        self.queue.clear();
        self.queue.push(agent);
        self.seen[agent as usize] = stamp;
        let mut most = 0;
        let mut i = 0;
        while i < self.queue.len() {
            let v = self.queue[i];
            i += 1;
            most = most.max(self.danger_of(v));
            for &n in &self.net.plain_adj[v as usize] {
                if self.seen[n as usize] != stamp {
                    self.seen[n as usize] = stamp;
                    self.queue.push(n);
                }
            }
        }
        most
    }

    /// A walk that wins at once for the agent at `agent` (to move, no gateway link under it):
    /// through nodes with one gateway link each (each step forces the virus to cut it) to a node
    /// with two or more. Returns its zone: the nodes of the walk.
    fn chain_to_double(&mut self, agent: u32) -> Option<Zone> {
        let stamp = self.next_stamp();
        self.queue.clear();
        self.queue.push(agent);
        self.seen[agent as usize] = stamp;
        let mut i = 0;
        while i < self.queue.len() {
            let v = self.queue[i];
            i += 1;
            for j in 0..self.net.plain_adj[v as usize].len() {
                let n = self.net.plain_adj[v as usize][j];
                if self.seen[n as usize] == stamp {
                    continue;
                }
                self.seen[n as usize] = stamp;
                match self.danger_of(n) {
                    0 => {}
                    1 => {
                        self.parent[n as usize] = v;
                        self.queue.push(n);
                    }
                    _ => {
                        let mut walk = vec![self.net.slot[n as usize]];
                        let mut at = v;
                        while at != agent {
                            walk.push(self.net.slot[at as usize]);
                            at = self.parent[at as usize];
                        }
                        return Some(zone_of(self.net.zone_words, &walk));
                    }
                }
            }
        }
        None
    }

    /// Whether the virus wins by cutting, at each free turn, a link of the node with two gateway
    /// links that the agent can reach with the fewest free cuts (earliest deadline first). Returns
    /// that node (`NO_SLOT` if there is none) when it does; `spare` is 1 with the virus to move
    /// (its cut is still to come), 0 with the agent to move.
    ///
    /// The argument: let g(w) be the fewest nodes without a gateway link the agent must enter
    /// (each gives the virus a free cut) on a walk from where it stands to w, not counting w,
    /// nodes with gateway links counting 0. A node w with k >= 2 gateway links needs k - 1 cuts
    /// before the agent gets there. If, counting each such node k - 1 times, at most t + spare of
    /// them have g <= t for every t, the virus keeps that true: a step onto a node with one link
    /// forces a cut there and lowers no g; a step onto a node with none lowers each g by at most
    /// 1 and gives one free cut, which the virus spends on a node of smallest g; cutting a link
    /// of a node with two changes no g, since nodes with one or two links both count 0. With
    /// t = 0 the agent never stands next to a node with two links on its turn, so it never
    /// reaches a gateway.
    fn deadlines_hold(&mut self, agent: u32, spare: u32) -> Option<u32> {
        let stamp = self.next_stamp();
        self.deque.clear();
        self.deque.push_back(agent);
        self.seen[agent as usize] = stamp;
        self.free[agent as usize] = 0;
        self.deadlines.clear();
        let mut first: Option<(u32, u32)> = None;
        while let Some(v) = self.deque.pop_front() {
            // 0-1 breadth-first: a node's first pop has its final count.
            if self.done[v as usize] == stamp {
                continue;
            }
            self.done[v as usize] = stamp;
            let g = self.free[v as usize];
            let d = self.danger_of(v);
            if v != agent && d >= 2 {
                for _ in 1..d {
                    self.deadlines.push(g);
                }
                if first.is_none_or(|(best, _)| g < best) {
                    first = Some((g, self.net.slot[v as usize]));
                }
            }
            let step = u32::from(v != agent && d == 0);
            for j in 0..self.net.plain_adj[v as usize].len() {
                let n = self.net.plain_adj[v as usize][j];
                let to = g + step;
                if self.seen[n as usize] != stamp || to < self.free[n as usize] {
                    self.seen[n as usize] = stamp;
                    self.free[n as usize] = to;
                    if step == 0 {
                        self.deque.push_front(n);
                    } else {
                        self.deque.push_back(n);
                    }
                }
            }
        }
        self.deadlines.sort_unstable();
        let holds = self.deadlines.iter().enumerate().all(|(i, &g)| g as usize + spare as usize > i);
        holds.then(|| first.map_or(NO_SLOT, |(_, k)| k))
    }

    /// The value of the position with the virus to move.
    pub fn virus_to_move(&mut self, cut: &mut [bool], agent: u32) -> Result<Verdict, OutOfTime> {
        self.load(cut);
        Ok(match self.virus(cut, agent)? {
            Known::Virus(id) => Verdict::VirusWins(id.map(|id| self.live_link(cut, id))),
            Known::Agent(_) => Verdict::AgentWins,
        })
    }

    /// Whether the virus wins whatever the agent at `agent` does next (the virus just cut).
    pub fn agent_to_move(&mut self, cut: &mut [bool], agent: u32) -> Result<bool, OutOfTime> {
        self.load(cut);
        if self.map.is_gateway[agent as usize] {
            return Ok(false);
        }
        Ok(matches!(self.agent(cut, agent)?, Known::Virus(_)))
    }

    /// `id`, or if `cut` already holds it (a memo entry reached through the other link of the
    /// same node), the node's first link left.
    fn live_link(&self, cut: &[bool], id: u32) -> u32 {
        if !cut[id as usize] {
            return id;
        }
        let (a, b) = self.map.links[id as usize];
        let v = if self.map.is_gateway[a as usize] { b } else { a };
        self.map.adj[v as usize]
            .iter()
            .find(|&&(n, l)| self.map.is_gateway[n as usize] && !cut[l as usize])
            .map_or(id, |&(_, l)| l)
    }

    fn virus(&mut self, cut: &mut [bool], agent: u32) -> Result<Known, OutOfTime> {
        self.positions += 1;
        self.budget.tick()?;
        let map = self.map;
        if map.is_gateway[agent as usize] {
            return Ok(Known::Agent(zone_of(self.net.zone_words, &[])));
        }
        let most = self.reach(agent);
        if most == 0 {
            return Ok(Known::Virus(None));
        }
        if most <= 1 {
            return Ok(Known::Virus(greedy_cut(map, cut, agent)));
        }
        let here = self.net.slot[agent as usize];
        let under = self.danger_of(agent);
        if under >= 2 {
            return Ok(Known::Agent(zone_of(self.net.zone_words, &[here])));
        }
        let key = self.key(agent);
        if let Some(known) = self.memo.get(&key) {
            return Ok(known.clone());
        }
        let known = if under == 1 {
            let id = self.cut_slot(cut, here);
            let after = self.agent(cut, agent);
            self.uncut(cut, here, id);
            match after? {
                Known::Virus(_) => Known::Virus(Some(id)),
                Known::Agent(mut zone) => {
                    zone[here as usize / 64] |= 1 << (here % 64);
                    Known::Agent(zone)
                }
            }
        } else {
            self.free_cut(cut, agent)?
        };
        self.memo.insert(key, known.clone());
        Ok(known)
    }

    /// The virus's cut with no gateway link under the agent: every node whose gateway links the
    /// agent can reach, most urgent first, within the zones of the cuts refuted so far.
    fn free_cut(&mut self, cut: &mut [bool], agent: u32) -> Result<Known, OutOfTime> {
        let mut candidates: Vec<u32> = Vec::new();
        for id in useful_cuts(self.map, cut, agent, Episode::Ep2) {
            let (a, b) = self.map.links[id as usize];
            let v = if self.map.is_gateway[a as usize] { b } else { a };
            let k = self.net.slot[v as usize];
            if k != NO_SLOT && !candidates.contains(&k) {
                candidates.push(k);
            }
        }
        if let Some(k) = self.deadlines_hold(agent, 1) {
            // The most urgent cut is a node of fewest free cuts too (unless nodes with three
            // gateway links, beyond the statement, rank it differently).
            let first = candidates[0];
            let g = |k: u32| self.free[self.net.node[k as usize] as usize];
            let k = if self.danger[first as usize] >= 2 && g(first) == g(k) { first } else { k };
            let id = self.net.links[k as usize].iter().copied().find(|&id| !cut[id as usize]);
            return Ok(Known::Virus(id));
        }
        let words = self.net.zone_words;
        let mut within: Option<Zone> = None;
        let mut union = zone_of(words, &[]);
        for k in candidates {
            if within.as_ref().is_some_and(|z| !in_zone(z, k)) {
                continue;
            }
            let id = self.cut_slot(cut, k);
            let after = self.agent(cut, agent);
            self.uncut(cut, k, id);
            match after? {
                Known::Virus(_) => return Ok(Known::Virus(Some(id))),
                Known::Agent(zone) => {
                    for w in 0..words {
                        union[w] |= zone[w];
                    }
                    match &mut within {
                        None => within = Some(zone),
                        Some(z) => (0..words).for_each(|w| z[w] &= zone[w]),
                    }
                }
            }
        }
        Ok(Known::Agent(union))
    }

    /// The agent to move at `agent` (the virus has just cut).
    fn agent(&mut self, cut: &mut [bool], agent: u32) -> Result<Known, OutOfTime> {
        let here = self.net.slot[agent as usize];
        if self.danger_of(agent) >= 1 {
            return Ok(Known::Agent(zone_of(self.net.zone_words, &[here])));
        }
        if let Some(zone) = self.chain_to_double(agent) {
            return Ok(Known::Agent(zone));
        }
        if self.deadlines_hold(agent, 0).is_some() {
            return Ok(Known::Virus(None));
        }
        let mut moves: Vec<(u8, u32)> = self.net.plain_adj[agent as usize]
            .iter()
            .map(|&n| (self.danger_of(n), n))
            .collect();
        // The most dangerous steps first: they refute a cut soonest.
        moves.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
        for (_, n) in moves {
            if let Known::Agent(zone) = self.virus(cut, n)? {
                return Ok(Known::Agent(zone));
            }
        }
        Ok(Known::Virus(None))
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
