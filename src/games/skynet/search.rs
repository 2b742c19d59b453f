//! What the virus's searches measure in a position (the agent's node plus the links cut so
//! far), shared by the exact solver, the planner and the bots.
//!
//! All of it leans on one fact: a node's *danger* (its remaining gateway links) only ever falls.
//! So once no node the agent can reach has danger 2 or more, the virus has won whatever the agent
//! does: it cuts the gateway link under the agent's feet whenever there is one ([`greedy_cut`]
//! does exactly that).
//!
//! The searches keep their own adjacency lists and link bitsets: they scan positions millions of
//! times, where a general graph library's visitors would cost more than the scans themselves.

use super::episode::Episode;
use super::map::SkynetMap;

/// A position: the links cut and the agent's node, with scratch space for the scans the
/// searches run at every node.
pub(crate) struct Scan {
    seen: Vec<bool>,
    stack: Vec<u32>,
}

/// What the agent can reach from where it stands.
pub(crate) struct Reach {
    /// It can reach a gateway at all.
    pub(crate) gateway: bool,
    /// The largest danger of a node it can reach.
    pub(crate) max_danger: u32,
}

impl Scan {
    pub(crate) fn new() -> Scan {
        Scan { seen: Vec::new(), stack: Vec::new() }
    }

    pub(crate) fn reach(&mut self, map: &SkynetMap, cut: &[bool], agent: u32) -> Reach {
        self.seen.clear();
        self.seen.resize(map.nodes, false);
        self.stack.clear();
        self.stack.push(agent);
        self.seen[agent as usize] = true;
        let mut reach = Reach { gateway: map.is_gateway[agent as usize], max_danger: 0 };
        while let Some(v) = self.stack.pop() {
            if map.is_gateway[v as usize] {
                reach.gateway = true;
                continue; // the agent's path ends on the first gateway
            }
            reach.max_danger = reach.max_danger.max(danger(map, cut, v));
            for &(n, id) in &map.adj[v as usize] {
                if !cut[id as usize] && !self.seen[n as usize] {
                    self.seen[n as usize] = true;
                    self.stack.push(n);
                }
            }
        }
        reach
    }
}

/// The number of remaining links from `v` to a gateway.
pub(crate) fn danger(map: &SkynetMap, cut: &[bool], v: u32) -> u32 {
    map.adj[v as usize]
        .iter()
        .filter(|&&(n, id)| !cut[id as usize] && map.is_gateway[n as usize])
        .count() as u32
}

/// The remaining gateway links at `v`, as link ids, in adjacency order.
pub(crate) fn gateway_links_at<'a>(
    map: &'a SkynetMap,
    cut: &'a [bool],
    v: u32,
) -> impl Iterator<Item = u32> + 'a {
    map.adj[v as usize]
        .iter()
        .filter(move |&&(n, id)| !cut[id as usize] && map.is_gateway[n as usize])
        .map(|&(_, id)| id)
}

/// The gateway links in the order a virus should consider cutting them: those of the nodes the
/// agent threatens soonest first. The agent is measured the way the CodinGame agent measures
/// itself: nodes on its way that touch no gateway give the virus a free cut each.
pub(crate) fn cut_order(map: &SkynetMap, cut: &[bool], agent: u32, episode: Episode) -> Vec<u32> {
    ranked_cuts(map, cut, agent, episode).into_iter().map(|(_, id)| id).collect()
}

/// [`cut_order`] with each link's class: 0 a gateway link of a node threatening two gateways
/// (by slack, then distance), 1 of a node threatening one (by free cuts, then distance), 2 out of
/// the agent's reach, 3 between two gateways, 4 a plain link (Episode 1 only).
fn ranked_cuts(map: &SkynetMap, cut: &[bool], agent: u32, episode: Episode) -> Vec<(u32, u32)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    const FAR: (u32, u32) = (u32::MAX, u32::MAX);
    let mut label = vec![FAR; map.nodes];
    let mut heap = BinaryHeap::new();
    label[agent as usize] = (0, 0);
    heap.push(Reverse((0u32, 0u32, agent)));
    while let Some(Reverse((c, len, v))) = heap.pop() {
        if label[v as usize] != (c, len) {
            continue;
        }
        let next = (c + u32::from(danger(map, cut, v) == 0), len + 1);
        for &(n, id) in &map.adj[v as usize] {
            if !cut[id as usize] && !map.is_gateway[n as usize] && next < label[n as usize] {
                label[n as usize] = next;
                heap.push(Reverse((next.0, next.1, n)));
            }
        }
    }
    // (class, slack or free cuts, distance), then the link id for a stable order.
    let mut keyed: Vec<((u32, i64, u32), u32)> = Vec::new();
    for (id, &(a, b)) in map.links.iter().enumerate() {
        if cut[id] {
            continue;
        }
        let inner = match (map.is_gateway[a as usize], map.is_gateway[b as usize]) {
            (true, false) => b,
            (false, true) => a,
            (true, true) => {
                keyed.push(((3, 0, u32::MAX), id as u32));
                continue;
            }
            (false, false) => {
                if episode == Episode::Ep1 {
                    // Plain links come after every gateway link, nearest the agent first.
                    let len = label[a as usize].1.min(label[b as usize].1);
                    keyed.push(((4, 0, len), id as u32));
                }
                continue;
            }
        };
        let d = danger(map, cut, inner);
        let (c, len) = label[inner as usize];
        let key = if c == u32::MAX {
            (2, 0, u32::MAX) // out of the agent's reach: a free cut with no effect
        } else if d >= 2 {
            (0, (c as i64 + 2) - d as i64, len)
        } else {
            (1, c as i64, len)
        };
        keyed.push((key, id as u32));
    }
    keyed.sort();
    keyed.into_iter().map(|(key, id)| (key.0, id)).collect()
}

/// The `greedy` virus: cut the gateway link nearest the agent (a node threatening two gateways
/// before one threatening one at the same distance). `None` if no gateway link is left.
pub(crate) fn greedy_cut(map: &SkynetMap, cut: &[bool], agent: u32) -> Option<u32> {
    let mut dist = vec![u32::MAX; map.nodes];
    let mut queue = std::collections::VecDeque::from([agent]);
    dist[agent as usize] = 0;
    let mut best: Option<((u32, std::cmp::Reverse<u32>), u32)> = None;
    while let Some(v) = queue.pop_front() {
        let d = danger(map, cut, v);
        if d > 0 {
            let key = (dist[v as usize], std::cmp::Reverse(d));
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, gateway_links_at(map, cut, v).next().expect("danger > 0")));
            }
        }
        for &(n, id) in &map.adj[v as usize] {
            if !cut[id as usize] && !map.is_gateway[n as usize] && dist[n as usize] == u32::MAX {
                dist[n as usize] = dist[v as usize] + 1;
                queue.push_back(n);
            }
        }
    }
    best.map(|(_, id)| id).or_else(|| {
        (0..map.links.len() as u32).find(|&id| !cut[id as usize] && map.is_gateway_link(id))
    })
}

/// The cuts worth trying in a position where the agent touches no gateway: the gateway links
/// the agent can still reach, most urgent first (and, in Episode 1, the plain links after them).
/// A link out of the agent's reach is never worth more than any other cut, since a position only
/// gets better for the virus as links go, so it is offered only when nothing else is left.
pub(crate) fn useful_cuts(map: &SkynetMap, cut: &[bool], agent: u32, episode: Episode) -> Vec<u32> {
    let order = ranked_cuts(map, cut, agent, episode);
    let useful: Vec<u32> =
        order.iter().filter(|&&(class, _)| class <= 1 || class == 4).map(|&(_, id)| id).collect();
    if useful.is_empty() { order.into_iter().take(1).map(|(_, id)| id).collect() } else { useful }
}

/// A position's key in the memo tables: the agent's node and a bitset of links.
pub(crate) type Key = (u32, Box<[u64]>);

pub(crate) fn key_of(cut: &[bool], agent: u32, bit_of_link: &[u32], words: usize) -> Key {
    let mut bits = vec![0u64; words].into_boxed_slice();
    for (id, &is_cut) in cut.iter().enumerate() {
        let bit = bit_of_link[id];
        if is_cut && bit != u32::MAX {
            bits[bit as usize / 64] |= 1 << (bit % 64);
        }
    }
    (agent, bits)
}

/// Whether the virus has already won, whatever the agent does: the agent can reach no gateway,
/// or no node it can reach threatens two gateways (then [`greedy_cut`] holds it off for good).
pub(crate) fn virus_is_safe(map: &SkynetMap, cut: &[bool], agent: u32) -> bool {
    let reach = Scan::new().reach(map, cut, agent);
    !reach.gateway || reach.max_danger <= 1
}

/// The remaining gateway links at `v`, as link ids.
pub(crate) fn gateway_links_of(map: &SkynetMap, cut: &[bool], v: u32) -> Vec<u32> {
    gateway_links_at(map, cut, v).collect()
}
