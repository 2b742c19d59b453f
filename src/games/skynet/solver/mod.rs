//! The exact Episode-2 solver: can the virus force a win against an agent that plays perfectly?
//!
//! In Episode 2 only gateway links are cut, and a gateway ends the game, so a position is the
//! agent's node plus, for every node, how many of its gateway links are left (its *danger*):
//! which of a node's links went first changes nothing. The memo keys positions by those counts,
//! and the virus's choices are nodes, not links. Danger only falls, and a position only gets
//! better for the virus as links go (*monotony*: with fewer links it plays its old strategy,
//! cutting any link where the old one is already gone; every walk of the agent is still one the
//! old strategy answered).
//!
//! The prunings rest on it (docs/skynet.md proves each):
//! - *Relevance zones.* When the agent wins a position P, the search also returns a set Z of
//!   nodes such that the agent still wins P with every gateway link outside Z removed ("P
//!   restricted to Z"). Once a cut at w0 is refuted with zone Z0, every cut at a node outside
//!   Z0 is refuted too (the position it leaves is P - w0 restricted to Z0 or better for the
//!   agent), so only cuts inside every zone found so far are tried; the union of the zones of
//!   the cuts tried is the position's zone.
//! - *Forced chains.* With the agent to move, a walk through nodes of danger 1 (each step forces
//!   the virus's cut there) to a node of danger 2 or more wins at once; its nodes are its zone.
//! - *Deadlines.* Let g(w) be the fewest nodes of danger 0 the agent must pass through to reach
//!   w (each gives the virus a free cut). A node of danger k >= 2 needs k - 1 cuts before the
//!   agent arrives. If, counting each such node k - 1 times, at most t + s of them have g <= t
//!   for every t (s = 1 when the virus's next cut is free, else 0), the virus wins by cutting,
//!   at each free turn, a node of smallest g.
//! - *Dead sides.* The agent never needs to step into a component of the network minus its node
//!   with no node of danger 2 or more: it cannot win there and can only come back, poorer.
//! - *No step straight back.* A position is also keyed by the node the agent came from, where it
//!   may not step back to. The agent's wins found so are real wins (its moves are real moves); a
//!   win of the virus holds at the root, where nothing is forbidden, by loop erasure: on a walk
//!   that repeats a node the virus replays its strategy from the node's first visit (with fewer
//!   links, which only helps it), so it only ever answers simple walks, which never step back
//!   and never leave a dead side they enter.
//!
//! The counts of [`bounds`] settle most positions of the dense maps without search.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use super::map::SkynetMap;
use super::search::greedy_cut;
use crate::budget::{Budget, OutOfTime};
use crate::seed::MixBuild;

mod bounds;
#[cfg(test)]
mod plain;
#[cfg(test)]
mod tests;

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

/// Marks a node that has no gateway link in the network (it has no danger count).
const NO_SLOT: u32 = u32::MAX;

/// Marks a memo key's position as one with the agent to move.
const AGENT_TO_MOVE: u64 = 1 << 32;

/// The node the agent came from, at the root of a search (it may step anywhere).
const NO_NODE: u32 = u32::MAX;

/// The first word of a memo key: the agent's node, who is to move and the node the agent came
/// from (which it may not step back to, so it is part of the position searched).
fn memo_word(agent: u32, prev: u32, agent_to_move: bool) -> u64 {
    u64::from(agent)
        | if agent_to_move { AGENT_TO_MOVE } else { 0 }
        | u64::from(prev.wrapping_add(1)) << 33
}

/// A set of nodes with gateway links (by slot), as a bitset.
type Zone = Box<[u64]>;

/// How the virus wins a position it has won.
#[derive(Clone, Copy, Debug)]
enum Win {
    /// The agent can reach no gateway: there is nothing left to cut.
    Already,
    /// No node within the agent's reach has danger 2: cutting the gateway link under the agent
    /// whenever there is one wins, so any cut does now.
    AnyCut,
    /// A gateway link of this node (a slot) wins.
    At(u32),
}

/// What the search knows about a position.
#[derive(Clone, Debug)]
enum Known {
    Virus(Win),
    /// The agent wins, and still does with every gateway link outside the zone removed.
    Agent(Zone),
}

/// The fixed part of the network: which nodes have gateway links (each gets a *slot* and a
/// danger count), and the links between non-gateway nodes, which Episode 2 never cuts.
struct Network {
    slot: Vec<u32>,
    /// The node of each slot.
    node: Vec<u32>,
    /// Each slot's gateway links, in adjacency order.
    links: Vec<Vec<u32>>,
    /// Each node's non-gateway neighbours over links not cut, in adjacency order, end to end:
    /// node `v`'s at [`Network::plain`]`(v)`. The surveys and the tree count walk them for every
    /// position, and one array keeps them close.
    adj: Vec<u32>,
    adj_first: Vec<u32>,
    /// The non-gateway links cut when the network was built (none in a legal Episode-2 game).
    plain_cut: Vec<u32>,
    /// Bits per danger count in a memo key: a power of two, so no count straddles two words.
    width: u32,
    /// The most gateway links of one node.
    most: usize,
    zone_words: usize,
    /// The blocks of the links between non-gateway nodes, for [`ExactSolver::block_need`].
    blocks: bounds::Blocks,
    /// Where each node's entries start among the dominance memos' (one for each node it may be
    /// entered from, and one for the root of a search), and their total after the last node.
    arc_first: Vec<u32>,
}

impl Network {
    /// Where node `v`'s non-gateway neighbours lie in `adj` (a range, so that a loop over them
    /// may borrow the solver mutably).
    #[inline]
    fn plain(&self, v: u32) -> std::ops::Range<usize> {
        self.adj_first[v as usize] as usize..self.adj_first[v as usize + 1] as usize
    }

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
        let width = (usize::BITS - most.leading_zeros()).next_power_of_two();
        let blocks = bounds::Blocks::new(&plain_adj, |v| slot[v as usize] != NO_SLOT);
        let mut arc_first = vec![0u32; map.nodes + 1];
        for v in 0..map.nodes {
            arc_first[v + 1] = arc_first[v] + 1 + plain_adj[v].len() as u32;
        }
        let mut adj_first = vec![0u32];
        let mut adj = Vec::new();
        for list in &plain_adj {
            adj.extend_from_slice(list);
            adj_first.push(adj.len() as u32);
        }
        Network {
            adj,
            adj_first,
            blocks,
            arc_first,
            zone_words: node.len().div_ceil(64).max(1),
            slot,
            node,
            links,
            plain_cut: plain_cuts(map, cut),
            width,
            most,
        }
    }
}

/// The non-gateway links cut in `cut`.
fn plain_cuts(map: &SkynetMap, cut: &[bool]) -> Vec<u32> {
    (0..map.links.len() as u32).filter(|&id| cut[id as usize] && !map.is_gateway_link(id)).collect()
}

fn add_to_zone(zone: &mut [u64], k: u32) {
    zone[k as usize / 64] |= 1 << (k % 64);
}

fn in_zone(zone: &[u64], k: u32) -> bool {
    zone[k as usize / 64] >> (k % 64) & 1 == 1
}

/// An agent's win remembered by its zone: each zone node (a slot) with its danger then.
type ZoneWin = Box<[(u32, u32)]>;

/// The most zone wins kept per agent node and side to move: the newest replace the oldest, so
/// a lookup stays cheaper than a scan of the network.
const ZONE_WINS_KEPT: usize = 32;

/// Appends `item` to a memo that keeps at most `kept` entries, the oldest leaving first.
fn push_kept<T>(memo: &mut Vec<T>, item: T, kept: usize) {
    if memo.len() == kept {
        memo.remove(0);
    }
    memo.push(item);
}

/// The most hub-count failures kept per mark (the newest replace the oldest).
const HUB_FAILS_KEPT: usize = 32;
/// How many danger units more than a failed hub count fell short by a position may have grown
/// since, and the count still be skipped (a guess: 0 skips only counts that would fail again on
/// the same trees; 1 and 2 decide the same maps, 4 made 500/20/200/36 seed 2023 twice as slow).
const HUB_FAIL_GROWTH: u32 = 1;

/// What one scan from the agent's node found (see [`ExactSolver::survey`]).
struct Survey {
    /// The largest danger of a node the agent can reach, its own included.
    max_danger: u32,
    /// A node of danger 2 or more with the fewest free cuts on the way (a slot).
    nearest_double: Option<u32>,
    /// Whether that node is reached with no free cut at all (a forced chain).
    chain: bool,
}

/// The exact Episode-2 solver: can the virus force a win against an agent that plays perfectly?
///
/// The virus to move: if the agent stands on a node of danger 2 it has lost; if the deadlines
/// hold it has won; if the agent stands on a node of danger 1 that cut is forced; otherwise it
/// tries the nodes of danger 1 or more the agent can reach, most urgent first, skipping those
/// outside the relevance zones of the cuts already refuted. The agent to move wins at once along
/// a forced chain, loses at once if the deadlines hold, and otherwise tries every neighbour whose
/// side holds a node of danger 2: the step that won last time at the same place first, then the
/// others most dangerous first. See the module's documentation for why each shortcut is sound.
pub struct ExactSolver<'m> {
    map: &'m SkynetMap,
    net: Network,
    /// The danger of each node in the position searched (0 for a node without gateway links):
    /// by node, not by slot, as the hot loops ask it of every node they visit.
    node_danger: Vec<u32>,
    /// The danger counts packed `net.width` bits each after the agent's node in word 0: the
    /// memo key, kept up to date as cuts are made and taken back.
    packed: Vec<u64>,
    memo: HashMap<Box<[u64]>, Known, MixBuild>,
    /// The agent's wins by where it stands and who is to move (index `2 * node + agent to
    /// move`): the dangers of a win's zone at the time. Any position with at least those dangers
    /// there is a win too (monotony), whatever happened elsewhere.
    wins_by_zone: Vec<Vec<ZoneWin>>,
    /// The dangers as a thermometer code, two bits a node (bit 2k: danger >= 1, bit 2k + 1:
    /// danger >= 2), so that "every danger at most" is a test of bits; empty when some node has
    /// more than two gateway links (beyond the statement), which turns the test off.
    levels: Vec<u64>,
    /// The virus's wins by where the agent stands and who is to move, as `levels`, with the
    /// winning node when the virus is to move: any position with at most those dangers
    /// everywhere is a win too (monotony).
    virus_wins: Vec<Vec<(Box<[u64]>, u32)>>,
    /// The agent's last winning step (a node, or `NO_NODE`) by where it stands and came from,
    /// indexed as `wins_by_zone` (the agent to move): its *killer move*, tried first the next
    /// time, before the surveys that order the other steps. Only the order changes.
    killer: Vec<u32>,
    /// The hub that last won the hub count, by mark (as `killer`), tried first the next time.
    hub_killer: Vec<u32>,
    /// The hub count's failures by mark: the dangers then (as `levels`) and by how much the best
    /// hub fell short. Only ever skips a sufficient test, so no answer depends on it.
    hub_fails: Vec<Vec<(Box<[u64]>, u32)>>,
    /// Scratch for [`ExactSolver::survey`]: visit stamps, free cuts and parents per node.
    seen: Vec<u32>,
    done: Vec<u32>,
    stamp: u32,
    free: Vec<u32>,
    parent: Vec<u32>,
    deque: VecDeque<u32>,
    /// The deadlines (each node of danger k >= 2 reached, its free cuts k - 1 times), sorted.
    deadlines: Vec<u32>,
    /// The reached nodes of danger 1 or more, the agent's own left out, in order of free cuts.
    threats: Vec<u32>,
    /// Every reached node in the order the survey settled it (the agent's first), so each
    /// node's `parent` comes before it.
    order: Vec<u32>,
    /// Scratch for [`ExactSolver::tree_surplus`]: sums of children's needs, and needs, by node.
    tree_acc: Vec<u32>,
    tree_need: Vec<u32>,
    /// The tree the last count chose (parents), and each node's place in the survey's order.
    tree_parent: Vec<u32>,
    rank: Vec<u32>,
    block_scratch: bounds::BlockScratch,
    budget: Budget,
    /// Positions searched so far: calls with the virus to move, as in every version of the
    /// solver (the agent's forced chains and deadline tests settle positions without one).
    pub positions: u64,
    pub stats: SearchStats,
    /// How many steps of the agent the search is below the position asked about.
    depth: u32,
}

impl<'m> ExactSolver<'m> {
    pub fn new(map: &'m SkynetMap) -> ExactSolver<'m> {
        let net = Network::new(map, &vec![false; map.links.len()]);
        let marks = 2 * net.arc_first[map.nodes] as usize;
        let slots = net.node.len();
        let words = 1 + (slots * net.width as usize).div_ceil(64);
        ExactSolver {
            map,
            node_danger: vec![0; map.nodes],
            packed: vec![0; words],
            net,
            memo: HashMap::default(),
            wins_by_zone: vec![Vec::new(); marks],
            levels: Vec::new(),
            virus_wins: vec![Vec::new(); marks],
            killer: vec![NO_NODE; marks],
            hub_killer: vec![NO_NODE; marks],
            hub_fails: vec![Vec::new(); marks],
            seen: vec![0; map.nodes],
            done: vec![0; map.nodes],
            stamp: 0,
            free: vec![0; map.nodes],
            parent: vec![0; map.nodes],
            deque: VecDeque::new(),
            deadlines: Vec::new(),
            threats: Vec::new(),
            order: Vec::new(),
            tree_acc: vec![0; map.nodes],
            tree_need: vec![0; map.nodes],
            tree_parent: vec![0; map.nodes],
            rank: vec![0; map.nodes],
            block_scratch: bounds::BlockScratch::default(),
            budget: Budget::unlimited(),
            positions: 0,
            stats: SearchStats::default(),
            depth: 0,
        }
    }

    /// Gives up with [`OutOfTime`] once `budget` is spent.
    pub fn with_budget(mut self, budget: Budget) -> ExactSolver<'m> {
        self.budget = budget.check_every(CLOCK_EVERY);
        self
    }

    /// The value of the position with the virus to move. `cut` is only read.
    pub fn virus_to_move(&mut self, cut: &mut [bool], agent: u32) -> Result<Verdict, OutOfTime> {
        self.load(cut);
        self.depth = 0;
        Ok(match self.virus(agent, NO_NODE)? {
            Known::Virus(Win::Already) => Verdict::VirusWins(None),
            Known::Virus(Win::AnyCut) => Verdict::VirusWins(greedy_cut(self.map, cut, agent)),
            Known::Virus(Win::At(k)) => Verdict::VirusWins(Some(self.live_link(cut, k))),
            Known::Agent(_) => Verdict::AgentWins,
        })
    }

    /// Whether the virus wins whatever the agent at `agent` does next (the virus just cut).
    /// `cut` is only read.
    pub fn agent_to_move(&mut self, cut: &mut [bool], agent: u32) -> Result<bool, OutOfTime> {
        self.load(cut);
        self.depth = 0;
        Ok(matches!(self.agent(agent, NO_NODE)?, Known::Virus(_)))
    }

    /// Reads the danger counts of `cut`. Episode 2 never cuts a link between two non-gateway
    /// nodes; should `cut` hold one anyway, the network is rebuilt and the memo, which assumed
    /// the other network, dropped.
    fn load(&mut self, cut: &[bool]) {
        if plain_cuts(self.map, cut) != self.net.plain_cut {
            self.net = Network::new(self.map, cut);
            self.memo.clear();
            let marks = 2 * self.net.arc_first[self.map.nodes] as usize;
            self.wins_by_zone = vec![Vec::new(); marks];
            self.virus_wins = vec![Vec::new(); marks];
            self.killer = vec![NO_NODE; marks];
            self.hub_killer = vec![NO_NODE; marks];
            self.hub_fails = vec![Vec::new(); marks];
        }
        self.levels.clear();
        if self.net.most <= 2 {
            self.levels.resize((2 * self.net.node.len()).div_ceil(64), 0);
        }
        self.packed.iter_mut().for_each(|w| *w = 0);
        for k in 0..self.net.node.len() {
            let left = self.net.links[k].iter().filter(|&&id| !cut[id as usize]).count();
            self.node_danger[self.net.node[k] as usize] = left as u32;
            let bit = k * self.net.width as usize;
            self.packed[1 + bit / 64] |= (left as u64) << (bit % 64);
            if !self.levels.is_empty() {
                for level in 0..left {
                    let bit = 2 * k + level;
                    self.levels[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
    }

    /// The first gateway link of slot `k` left in `cut`.
    fn live_link(&self, cut: &[bool], k: u32) -> u32 {
        *self.net.links[k as usize]
            .iter()
            .find(|&&id| !cut[id as usize])
            .expect("the search only cuts at a node with danger")
    }

    #[inline]
    fn danger_of(&self, v: u32) -> u32 {
        self.node_danger[v as usize]
    }

    /// The danger of slot `k`'s node.
    #[inline]
    fn slot_danger(&self, k: u32) -> u32 {
        self.node_danger[self.net.node[k as usize] as usize]
    }

    /// Takes one gateway link from slot `k` (`by` = -1) or gives it back (`by` = 1).
    fn change_danger(&mut self, k: u32, by: i32) {
        let danger = &mut self.node_danger[self.net.node[k as usize] as usize];
        *danger = danger.wrapping_add_signed(by);
        let bit = k as usize * self.net.width as usize;
        let word = &mut self.packed[1 + bit / 64];
        if by > 0 {
            *word += 1 << (bit % 64);
        } else {
            *word -= 1 << (bit % 64);
        }
        if !self.levels.is_empty() {
            // The level that changed: the new danger's after a gain, the old one's after a loss.
            let d = self.slot_danger(k) as usize;
            let bit = 2 * k as usize + if by > 0 { d - 1 } else { d };
            self.levels[bit / 64] ^= 1 << (bit % 64);
        }
    }

    /// Where the dominance memos keep the wins of the agent at `agent`, come from `prev`, with
    /// the agent to move or not.
    fn mark(&self, agent: u32, prev: u32, agent_to_move: bool) -> usize {
        let from = if prev == NO_NODE {
            0
        } else {
            let adj = &self.net.adj[self.net.plain(agent)];
            1 + adj.iter().position(|&n| n == prev).expect("the agent came over a link")
        };
        2 * (self.net.arc_first[agent as usize] as usize + from) + usize::from(agent_to_move)
    }

    /// A remembered win of the virus with at least today's danger at every node, for the agent
    /// at `agent`: its winning node (`NO_SLOT` with the agent to move).
    fn virus_win(&self, mark: usize) -> Option<u32> {
        if self.levels.is_empty() {
            return None;
        }
        let wins = &self.virus_wins[mark];
        wins.iter()
            .find(|(levels, _)| {
                self.levels.iter().zip(levels.iter()).all(|(now, then)| now & !then == 0)
            })
            .map(|&(_, k)| k)
    }

    fn remember_virus_win(&mut self, mark: usize, k: u32) {
        if self.levels.is_empty() {
            return;
        }
        push_kept(
            &mut self.virus_wins[mark],
            (self.levels.clone().into_boxed_slice(), k),
            ZONE_WINS_KEPT,
        );
    }

    /// Whether the hub count failed before at `mark` by at least as much as the dangers have
    /// grown since, less [`HUB_FAIL_GROWTH`] (the units now above the danger then, counted by the
    /// thermometer code): each unit raises a tree count on the same tree by at most one, so the
    /// count would most likely fail again. Skipping a count only loses a shortcut, never an
    /// answer.
    fn hub_failed_near(&self, mark: usize) -> bool {
        if self.levels.is_empty() {
            return false;
        }
        #[cfg(test)]
        if bounds::faulty(bounds::Fault::NoHubMemo) {
            return false;
        }
        self.hub_fails[mark].iter().any(|(then, slack)| {
            let grown: u32 = self
                .levels
                .iter()
                .zip(then.iter())
                .map(|(now, then)| (now & !then).count_ones())
                .sum();
            grown <= *slack + HUB_FAIL_GROWTH
        })
    }

    fn remember_hub_fail(&mut self, mark: usize, best: i64) {
        if self.levels.is_empty() {
            return;
        }
        let slack = if best == i64::MIN { 0 } else { (-best).clamp(0, u32::MAX.into()) as u32 };
        push_kept(
            &mut self.hub_fails[mark],
            (self.levels.clone().into_boxed_slice(), slack),
            HUB_FAILS_KEPT,
        );
    }

    /// A remembered win of the agent at `agent` (`agent_to_move` says which side moves) whose
    /// zone has at least its old dangers now, as a zone.
    fn zone_win(&self, mark: usize) -> Option<Zone> {
        let wins = &self.wins_by_zone[mark];
        let win = wins.iter().find(|win| win.iter().all(|&(k, d)| self.slot_danger(k) >= d))?;
        let mut zone = self.empty_zone();
        win.iter().for_each(|&(k, _)| add_to_zone(&mut zone, k));
        Some(zone)
    }

    fn remember_zone_win(&mut self, mark: usize, zone: &[u64]) {
        let win: ZoneWin = (0..self.net.node.len() as u32)
            .filter(|&k| in_zone(zone, k))
            .map(|k| (k, self.slot_danger(k)))
            .collect();
        push_kept(&mut self.wins_by_zone[mark], win, ZONE_WINS_KEPT);
    }

    fn empty_zone(&self) -> Zone {
        vec![0u64; self.net.zone_words].into_boxed_slice()
    }

    fn zone_of(&self, slots: &[u32]) -> Zone {
        let mut zone = self.empty_zone();
        for &k in slots {
            add_to_zone(&mut zone, k);
        }
        zone
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

    /// One scan of what the agent at `agent` can reach: g (free cuts on the way, in `free`) of
    /// every node, by a 0-1 breadth-first search (entering a node of danger 0 costs 1, any other
    /// node 0; the agent's own node is never counted), with `parent` along cheapest walks. Fills
    /// `deadlines` and `threats`.
    fn survey(&mut self, agent: u32) -> Survey {
        let stamp = self.next_stamp();
        // The fields one by one, so the loop below borrows each on its own.
        let (net, danger) = (&self.net, &self.node_danger);
        let (seen, done, free, parent) =
            (&mut self.seen, &mut self.done, &mut self.free, &mut self.parent);
        let (deque, deadlines, threats, order) =
            (&mut self.deque, &mut self.deadlines, &mut self.threats, &mut self.order);
        deque.clear();
        deque.push_back(agent);
        seen[agent as usize] = stamp;
        free[agent as usize] = 0;
        deadlines.clear();
        threats.clear();
        order.clear();
        let mut survey =
            Survey { max_danger: danger[agent as usize], nearest_double: None, chain: false };
        while let Some(v) = deque.pop_front() {
            // Nodes leave the deque in order of g, so a node's first visit has its final g.
            if done[v as usize] == stamp {
                continue;
            }
            done[v as usize] = stamp;
            order.push(v);
            let g = free[v as usize];
            let d = danger[v as usize];
            if v != agent && d >= 1 {
                threats.push(v);
                survey.max_danger = survey.max_danger.max(d);
                if d >= 2 {
                    for _ in 1..d {
                        deadlines.push(g);
                    }
                    if survey.nearest_double.is_none() {
                        survey.nearest_double = Some(net.slot[v as usize]);
                        survey.chain = g == 0;
                    }
                }
            }
            let step = u32::from(v != agent && d == 0);
            let to = g + step;
            for &n in &net.adj[net.plain(v)] {
                if seen[n as usize] != stamp || to < free[n as usize] {
                    seen[n as usize] = stamp;
                    free[n as usize] = to;
                    parent[n as usize] = v;
                    if step == 0 {
                        deque.push_front(n);
                    } else {
                        deque.push_back(n);
                    }
                }
            }
        }
        // Pops come in order of g, so this only confirms the order.
        deadlines.sort_unstable();
        survey
    }

    /// Whether the deadlines of the last survey hold with `spare` free cuts before the agent's
    /// next step: for every t, at most t + spare deadlines are t or less.
    fn deadlines_hold(&self, spare: u32) -> bool {
        self.shortfall(spare) <= 0
    }

    /// By how much the deadlines of the last survey fail with `spare` free cuts: the most
    /// deadlines t or less beyond t + spare, over every t (0 or less: they hold).
    fn shortfall(&self, spare: u32) -> i64 {
        self.deadlines
            .iter()
            .enumerate()
            .map(|(i, &g)| i as i64 + 1 - i64::from(g + spare))
            .max()
            .unwrap_or(0)
    }

    /// The slots of the forced chain the last survey ended at `end` (a node reached with no free
    /// cut): the walk's nodes after the agent's.
    fn chain_zone(&self, agent: u32, end: u32) -> Zone {
        let mut zone = self.empty_zone();
        let mut at = end;
        while at != agent {
            add_to_zone(&mut zone, self.net.slot[at as usize]);
            at = self.parent[at as usize];
        }
        zone
    }

    /// The virus to move, the agent at `agent`.
    fn virus(&mut self, agent: u32, prev: u32) -> Result<Known, OutOfTime> {
        self.positions += 1;
        self.budget.tick()?;
        if self.map.is_gateway[agent as usize] {
            return Ok(Known::Agent(self.empty_zone()));
        }
        let here = self.net.slot[agent as usize];
        let under = self.danger_of(agent);
        if under >= 2 {
            return Ok(Known::Agent(self.zone_of(&[here])));
        }
        self.packed[0] = memo_word(agent, prev, false);
        if let Some(known) = self.memo.get(&self.packed[..]) {
            self.stats.memo += 1;
            return Ok(known.clone());
        }
        self.stats.dominance += 1;
        let mark = self.mark(agent, prev, false);
        if let Some(zone) = self.zone_win(mark) {
            return Ok(Known::Agent(zone));
        }
        // The old win's node may have no link left here; then the search finds another.
        if let Some(k) = self.virus_win(mark).filter(|&k| self.slot_danger(k) >= 1) {
            return Ok(Known::Virus(Win::At(k)));
        }
        self.stats.dominance -= 1;
        let survey = self.survey(agent);
        if survey.max_danger == 0 {
            return Ok(Known::Virus(Win::Already));
        }
        let known = if under == 1 {
            if self.deadlines_hold(0) {
                self.stats.deadlines += 1;
                return Ok(Known::Virus(Win::At(here)));
            }
            if let Some(known) = self.counts_decide(agent, prev, 0) {
                return Ok(self.remember(agent, prev, false, known));
            }
            self.change_danger(here, -1);
            let after = self.agent(agent, prev);
            self.change_danger(here, 1);
            match after? {
                Known::Virus(_) => Known::Virus(Win::At(here)),
                Known::Agent(mut zone) => {
                    add_to_zone(&mut zone, here);
                    Known::Agent(zone)
                }
            }
        } else {
            if self.deadlines_hold(1) {
                self.stats.deadlines += 1;
                return Ok(Known::Virus(survey.nearest_double.map_or(Win::AnyCut, Win::At)));
            }
            if let Some(known) = self.counts_decide(agent, prev, 1) {
                return Ok(self.remember(agent, prev, false, known));
            }
            self.free_cut(agent, prev)?
        };
        Ok(self.remember(agent, prev, false, known))
    }

    /// Stores what the search learned about the position with the agent at `agent`, in the memo
    /// and the dominance memos, and gives it back.
    fn remember(&mut self, agent: u32, prev: u32, agent_to_move: bool, known: Known) -> Known {
        let mark = self.mark(agent, prev, agent_to_move);
        match &known {
            Known::Agent(zone) => self.remember_zone_win(mark, zone),
            Known::Virus(Win::At(k)) => self.remember_virus_win(mark, *k),
            Known::Virus(_) if agent_to_move => self.remember_virus_win(mark, NO_SLOT),
            Known::Virus(_) => {}
        }
        self.packed[0] = memo_word(agent, prev, agent_to_move);
        self.memo.insert(self.packed.clone().into_boxed_slice(), known.clone());
        known
    }

    /// The two counts of [`bounds`] after a survey from `agent`, before the virus's cut (`spare`
    /// 1 when it is free, 0 when it is forced under the agent, which the caller makes) or, with
    /// `spare` 0 and the agent's node of danger 0, with the agent to move: the answer when one of
    /// them gives it.
    fn counts_decide(&mut self, agent: u32, prev: u32, spare: u32) -> Option<Known> {
        if self.tree_surplus(agent, prev) > spare {
            self.stats.tree += 1;
            let mut zone = self.tree_zone(agent, spare + 1);
            if self.danger_of(agent) >= 1 {
                add_to_zone(&mut zone, self.net.slot[agent as usize]);
            }
            return Some(Known::Agent(zone));
        }
        let block_need = self.block_need(agent);
        if block_need > spare {
            // Deeper down, hubs only with the agent to move (`spare` 0 on a node of danger 0):
            // every one where the block count is far off (the agent walks a long corridor to a
            // large block), elsewhere the few first, the hub that won last at the same place
            // first (docs/skynet.md has the figures).
            let agent_moves = spare == 0 && self.danger_of(agent) == 0;
            let hubs = if self.depth <= bounds::HUB_DEPTH {
                bounds::HUBS
            } else if !agent_moves || deep_hubs_off() {
                0
            } else if block_need >= bounds::HUB_BLOCK_NEED {
                bounds::HUBS
            } else if few_deep_hubs_off() {
                0
            } else {
                bounds::HUBS_DEEP
            };
            // No tries, no call: `hub_zone` would still gather and sort every candidate hub.
            if hubs > 0 {
                let mark = self.mark(agent, prev, agent_moves);
                if self.hub_failed_near(mark) {
                    self.stats.hub_skips += 1;
                    return None;
                }
                let first = self.hub_killer[mark];
                #[cfg(test)]
                let first = if bounds::faulty(bounds::Fault::NoHubMemo) { NO_NODE } else { first };
                let found = match self.hub_zone(agent, spare, hubs, first) {
                    Ok((zone, h)) => {
                        self.hub_killer[mark] = h;
                        Some(zone)
                    }
                    Err(best) => {
                        self.remember_hub_fail(mark, best);
                        None
                    }
                };
                if let Some(mut zone) = found {
                    self.stats.hub += 1;
                    if self.danger_of(agent) >= 1 {
                        add_to_zone(&mut zone, self.net.slot[agent as usize]);
                    }
                    self.survey(agent);
                    return Some(Known::Agent(zone));
                }
                // The search goes on from the agent's own survey, which the hubs' replaced.
                self.survey(agent);
            }
            return None;
        }
        self.stats.block += 1;
        if self.danger_of(agent) >= 1 {
            return Some(Known::Virus(Win::At(self.net.slot[agent as usize])));
        }
        let cut = self.block_cut(agent).map(|w| self.net.slot[w as usize]);
        Some(Known::Virus(cut.map_or(Win::AnyCut, Win::At)))
    }

    /// The virus's cut with no gateway link under the agent, right after a survey that found
    /// the deadlines broken: every node of the survey's `threats`, most urgent first, within the
    /// zones of the cuts refuted so far.
    fn free_cut(&mut self, agent: u32, prev: u32) -> Result<Known, OutOfTime> {
        // Nodes of danger 2 by slack (free cuts left over before the agent arrives), then the
        // others by free cuts; the survey's order breaks ties.
        let mut candidates: Vec<(i64, u32)> = self
            .threats
            .iter()
            .map(|&v| {
                let (g, d) = (i64::from(self.free[v as usize]), i64::from(self.danger_of(v)));
                let urgency = if d >= 2 { g + 1 - d } else { (1 << 32) | g };
                (urgency, self.net.slot[v as usize])
            })
            .collect();
        candidates.sort_by_key(|&(urgency, _)| urgency);
        let mut within: Option<Zone> = None;
        // The cuts refuted, each with its zone.
        let mut refuted: Vec<(u32, Zone)> = Vec::new();
        let threats = self.zone_of(&candidates.iter().map(|&(_, k)| k).collect::<Vec<_>>());
        for &(_, k) in &candidates {
            if within.as_ref().is_some_and(|zone| !in_zone(zone, k)) {
                continue;
            }
            self.stats.cuts_tried += 1;
            self.change_danger(k, -1);
            let after = self.agent(agent, prev);
            self.change_danger(k, 1);
            match after? {
                Known::Virus(_) => {
                    self.stats.free_virus += 1;
                    return Ok(Known::Virus(Win::At(k)));
                }
                Known::Agent(zone) => {
                    match &mut within {
                        None => within = Some(zone.clone()),
                        Some(w) => w.iter_mut().zip(&zone).for_each(|(w, z)| *w &= z),
                    }
                    refuted.push((k, zone));
                }
            }
        }
        self.stats.free_agent += 1;
        self.stats.free_agent_cuts += refuted.len() as u64;
        Ok(Known::Agent(self.refutation_zone(&refuted, &threats)))
    }

    /// The zone of a position the agent wins with the virus's cut free, from the cuts refuted
    /// and their zones: the union of the zones of a few of them such that every candidate cut
    /// (a node of `threats`) is outside one of those zones or is that zone's own cut. In the
    /// position restricted to the union, a cut outside such a zone leaves at least that zone's
    /// restricted refutation, and a cut of its own node leaves that refutation restricted, so
    /// the agent still wins. All the cuts refuted qualify (a candidate skipped was outside a zone
    /// found before it), so picking greedily, fewest candidates left in common first, ends.
    fn refutation_zone(&self, refuted: &[(u32, Zone)], threats: &[u64]) -> Zone {
        let others = |i: usize, word: usize| {
            let (k, zone) = &refuted[i];
            let own = if *k as usize / 64 == word { 1u64 << (k % 64) } else { 0 };
            zone[word] & !own
        };
        if refuted.is_empty() {
            return self.empty_zone();
        }
        let mut chosen: Vec<usize> = vec![0];
        let mut rest: Vec<u64> = (0..threats.len()).map(|w| others(0, w) & threats[w]).collect();
        while rest.iter().any(|&w| w != 0) {
            let best = (1..refuted.len())
                .filter(|i| !chosen.contains(i))
                .min_by_key(|&i| {
                    rest.iter()
                        .enumerate()
                        .map(|(w, r)| (r & others(i, w)).count_ones())
                        .sum::<u32>()
                })
                .expect("every candidate is outside some refuted zone or is its cut");
            for (w, r) in rest.iter_mut().enumerate() {
                *r &= others(best, w);
            }
            chosen.push(best);
        }
        let mut union = self.empty_zone();
        for i in chosen {
            union.iter_mut().zip(refuted[i].1.iter()).for_each(|(u, z)| *u |= z);
        }
        union
    }

    /// For each neighbour of `agent` (in [`Network::plain`] order), whether its side of the network
    /// without `agent` (its component in the graph minus `agent`) holds a node of danger 2 or
    /// more.
    ///
    /// A step into a dead side (none) never needs trying (docs/skynet.md). Inside it the agent
    /// cannot win against a virus that cuts under it whenever it stands on a link (dangers only
    /// fall, and the agent wins only on a node of danger 2 with the virus to move), so a winning
    /// step there comes back to `agent`, the agent to move, after at least two cuts: a position
    /// with fewer gateway links, which the agent therefore wins, and by monotony so does this
    /// one with that position's winning step. Every round cuts a link, so repeating the argument
    /// ends at a winning step into a live side.
    fn live_sides(&mut self, agent: u32) -> Vec<bool> {
        let stamp = self.next_stamp();
        self.seen[agent as usize] = stamp;
        let mut side_live: Vec<bool> = Vec::new();
        let mut live = Vec::with_capacity(self.net.plain(agent).len());
        for j in self.net.plain(agent) {
            let n = self.net.adj[j];
            if self.seen[n as usize] == stamp {
                live.push(side_live[self.parent[n as usize] as usize]);
                continue;
            }
            // A new side: flood it, labelling its nodes with its index in `parent`.
            let side = side_live.len() as u32;
            let mut alive = false;
            self.seen[n as usize] = stamp;
            self.parent[n as usize] = side;
            self.deque.clear();
            self.deque.push_back(n);
            while let Some(v) = self.deque.pop_front() {
                alive |= self.danger_of(v) >= 2;
                for i in self.net.plain(v) {
                    let w = self.net.adj[i];
                    if self.seen[w as usize] != stamp {
                        self.seen[w as usize] = stamp;
                        self.parent[w as usize] = side;
                        self.deque.push_back(w);
                    }
                }
            }
            side_live.push(alive);
            live.push(alive);
        }
        live
    }

    /// The agent to move at `agent` (the virus has just cut), having come from `prev` (`NO_NODE`
    /// at the root), where it may not step back to (see the module's documentation).
    fn agent(&mut self, agent: u32, prev: u32) -> Result<Known, OutOfTime> {
        if self.map.is_gateway[agent as usize] {
            return Ok(Known::Agent(self.empty_zone()));
        }
        if self.danger_of(agent) >= 1 {
            return Ok(Known::Agent(self.zone_of(&[self.net.slot[agent as usize]])));
        }
        self.packed[0] = memo_word(agent, prev, true);
        if let Some(known) = self.memo.get(&self.packed[..]) {
            self.stats.memo += 1;
            return Ok(known.clone());
        }
        let mark = self.mark(agent, prev, true);
        if let Some(zone) = self.zone_win(mark) {
            self.stats.dominance += 1;
            return Ok(Known::Agent(zone));
        }
        if self.virus_win(mark).is_some() {
            self.stats.dominance += 1;
            return Ok(Known::Virus(Win::AnyCut));
        }
        let survey = self.survey(agent);
        if let Some(k) = survey.nearest_double.filter(|_| survey.chain) {
            self.stats.deadlines += 1;
            return Ok(Known::Agent(self.chain_zone(agent, self.net.node[k as usize])));
        }
        if self.deadlines_hold(0) {
            self.stats.deadlines += 1;
            return Ok(Known::Virus(Win::AnyCut));
        }
        if let Some(known) = self.counts_decide(agent, prev, 0) {
            let known = if let Known::Virus(_) = known { Known::Virus(Win::AnyCut) } else { known };
            return Ok(self.remember(agent, prev, true, known));
        }
        let live = self.live_sides(agent);
        // The steps after which the tree count leaves the agent most, then after which the
        // deadlines fail worst, first: the first finds the agent's win soonest when it has one.
        let mut moves: Vec<(i64, u32)> = Vec::new();
        for (j, &alive) in live.iter().enumerate() {
            let n = self.net.adj[self.net.plain(agent).start + j];
            if !alive || n == prev {
                continue;
            }
            moves.push((0, n));
        }
        // The step that won here last (the killer move) first, before the surveys that order
        // the others: when it wins again (most of the time), they are saved.
        let killer = self.killer[mark];
        #[cfg(test)]
        let killer = if bounds::faulty(bounds::Fault::NoKillers) { NO_NODE } else { killer };
        let first = moves.iter().position(|&(_, n)| n == killer).map(|i| moves.remove(i).1);
        let mut known = Known::Virus(Win::AnyCut);
        let mut tried = 0;
        if let Some(n) = first {
            tried += 1;
            if let Known::Agent(zone) = self.step(n, agent)? {
                self.stats.killers += 1;
                known = Known::Agent(zone);
                moves.clear();
            }
        }
        // Ordering takes a survey from each step: none when there is only one.
        if moves.len() > 1 {
            for (urgency, n) in &mut moves {
                self.survey(*n);
                let spare = u32::from(self.danger_of(*n) == 0);
                let surplus = i64::from(self.tree_surplus(*n, agent));
                *urgency = -(surplus << 32 | self.shortfall(spare).clamp(0, u32::MAX.into()));
            }
            moves.sort_by_key(|&(urgency, _)| urgency);
        }
        for (_, n) in moves {
            tried += 1;
            if let Known::Agent(zone) = self.step(n, agent)? {
                self.killer[mark] = n;
                known = Known::Agent(zone);
                break;
            }
        }
        if let Known::Agent(_) = known {
            self.stats.moves_agent += 1;
            self.stats.moves_agent_steps += tried;
        } else {
            self.stats.moves_virus += 1;
        }
        Ok(self.remember(agent, prev, true, known))
    }

    /// The agent's step from `agent` to `n` tried: the position after it, the virus to move,
    /// one level deeper (the killer move and the ordered steps alike).
    fn step(&mut self, n: u32, agent: u32) -> Result<Known, OutOfTime> {
        self.stats.steps_tried += 1;
        self.depth += 1;
        let after = self.virus(n, agent);
        self.depth -= 1;
        after
    }
}

/// Whether a test switched off the hub tries deeper down (never in a build that is not a test).
fn deep_hubs_off() -> bool {
    #[cfg(test)]
    return bounds::faulty(bounds::Fault::NoDeepHubs);
    #[cfg(not(test))]
    false
}

/// Whether a test switched off the few hub tries deeper down, keeping those where the block count
/// is far off (never in a build that is not a test).
fn few_deep_hubs_off() -> bool {
    #[cfg(test)]
    return bounds::faulty(bounds::Fault::OnlyFarHubs);
    #[cfg(not(test))]
    false
}

/// How the search settled the positions it met (for benchmarks and tuning).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SearchStats {
    /// Answered from the memo.
    pub memo: u64,
    /// By a remembered win with the same or better dangers (either side's).
    pub dominance: u64,
    /// By the deadline count or a forced chain.
    pub deadlines: u64,
    /// By the tree count (agent wins).
    pub tree: u64,
    /// By the block count (virus wins).
    pub block: u64,
    /// By the hub count (agent wins).
    pub hub: u64,
    /// Agent positions won by the killer move (the step that won last time at the same node,
    /// come from the same node), tried first.
    pub killers: u64,
    /// Searched: virus cuts and agent steps tried.
    pub cuts_tried: u64,
    pub steps_tried: u64,
    /// Searched positions with the virus's cut free that the virus won and lost, and the cuts
    /// tried in those the agent won; positions with the agent to move that the agent won and
    /// lost, and the steps tried in those it won.
    pub free_virus: u64,
    pub free_agent: u64,
    pub free_agent_cuts: u64,
    pub moves_agent: u64,
    pub moves_virus: u64,
    pub moves_agent_steps: u64,
    /// The hub count: positions it was tried at, hubs tried there (each a survey), and
    /// positions where it was skipped, having failed nearby before.
    pub hub_calls: u64,
    pub hub_surveys: u64,
    pub hub_skips: u64,
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
