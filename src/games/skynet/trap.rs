//! The trap family of generated Episode 2 maps (`arena gen skynet --family trap`): random
//! networks with a planted trap for the simple virus heuristics, so that maps which separate
//! them from a perfect virus are common instead of one in a hundred.
//!
//! The virus gets one free cut per turn the agent spends on a node with no gateway link (the
//! other turns go to the link at the agent's node). The trap, around the agent's start `s`:
//! - the **lure**: a chain `s - y1 - ... - yk - B` of nodes with one gateway link each, ending in
//!   a node `B` linked to two gateways. Walking it gives the virus no free cut, so its only
//!   chance is the cut it makes now, on `B` or the chain; the CodinGame agent walks it (its
//!   "slack" there is 0, the least it can be).
//! - the **decoy double** `A`: also linked to two gateways, fewer steps from `s` than `B`, but
//!   only over nodes with no gateway link, so it is no threat yet. `priority` ("the nearest
//!   node with two gateway links") cuts it and loses on the lure.
//! - the **decoy singles**: neighbours of `s` with one gateway link; `greedy` (the gateway link
//!   nearest the agent) cuts the first it finds, and loses on the lure when a decoy comes before
//!   `y1` in `s`'s links.
//!
//! The rest of the nodes are filler: a random tree hung off the start and the decoys (never the
//! lure, so no shortcut brings `B` nearer), a few extra links, some gateway links. Chain length,
//! decoy depth, the number of decoys and the filler's shape are drawn from the seed; link order
//! and orientation are shuffled, so not every map fools every heuristic: the separating search
//! keeps those that do (the exact solver and real matches decide, not this construction).

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::map::SkynetMap;

/// The fewest plain nodes the trap needs: start, two chain nodes, `B`, one path node, `A`, one
/// decoy single.
pub const TRAP_NODES: usize = 7;

/// A trap map of `nodes` nodes, `gateways` of them gateways (at least 2, and `nodes - gateways >=`
/// [`TRAP_NODES`]; the caller checks). The same arguments give the same map.
pub fn generate_trap(nodes: usize, gateways: usize, seed: u64) -> SkynetMap {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let plain = nodes - gateways;
    // Node numbers are a random permutation, so the roles do not show in them.
    let mut ids: Vec<u32> = (0..nodes as u32).collect();
    ids.shuffle(&mut rng);
    let mut next = ids.into_iter();
    let mut take = || next.next().expect("the caller checked the node count");
    let gates: Vec<u32> = (0..gateways).map(|_| take()).collect();

    // Sizes: the lure's chain, the decoy double's depth (strictly nearer than B), the decoy
    // singles; what is left is filler.
    let spare = plain - TRAP_NODES;
    let chain = rng.random_range(2..=(2 + spare).min(5));
    let spare = spare - (chain - 2);
    let depth = rng.random_range(1..chain).min(1 + spare);
    let spare = spare - (depth - 1);
    let singles = rng.random_range(1..=(1 + spare).min(3));
    let spare = spare - (singles - 1);

    let mut links: Vec<(u32, u32)> = Vec::new();
    let gateway_link = |links: &mut Vec<(u32, u32)>, v: u32, count: usize, rng: &mut ChaCha8Rng| {
        for &g in gates.sample(rng, count) {
            links.push((v, g));
        }
    };
    let start = take();
    let mut prev = start;
    for _ in 0..chain {
        let y = take();
        links.push((prev, y));
        gateway_link(&mut links, y, 1, &mut rng);
        prev = y;
    }
    let lure = take();
    links.push((prev, lure));
    gateway_link(&mut links, lure, 2, &mut rng);

    // The way to A: nodes without gateway links, except that a longer way may have one with a
    // link (at least one free cut stays on it).
    let mut anchors = vec![start];
    let mut prev = start;
    for i in 0..depth {
        let x = take();
        links.push((prev, x));
        if i > 0 && rng.random_bool(0.3) {
            gateway_link(&mut links, x, 1, &mut rng);
        }
        anchors.push(x);
        prev = x;
    }
    let decoy = take();
    links.push((prev, decoy));
    gateway_link(&mut links, decoy, 2, &mut rng);
    anchors.push(decoy);
    for _ in 0..singles {
        let z = take();
        links.push((start, z));
        gateway_link(&mut links, z, 1, &mut rng);
        anchors.push(z);
    }

    // Filler: each node hangs off an anchor or an earlier filler node; a few more links among
    // them; about a third get a gateway link.
    let mut filler: Vec<u32> = Vec::with_capacity(spare);
    for _ in 0..spare {
        let f = take();
        let pool = if filler.is_empty() || rng.random_bool(0.3) { &anchors } else { &filler };
        let &to = pool.choose(&mut rng).expect("anchors are never empty");
        links.push((to, f));
        if rng.random_bool(0.35) {
            gateway_link(&mut links, f, 1, &mut rng);
        }
        filler.push(f);
    }
    let extra = filler.len() / 3;
    for _ in 0..extra {
        let &a = filler.choose(&mut rng).expect("extra links only with filler");
        let pool = if rng.random_bool(0.5) { &anchors } else { &filler };
        let &b = pool.choose(&mut rng).expect("a pool is never empty");
        if a != b && !links.iter().any(|&l| l == (a, b) || l == (b, a)) {
            links.push((a, b));
        }
    }

    links.shuffle(&mut rng);
    for link in &mut links {
        if rng.random_bool(0.5) {
            *link = (link.1, link.0);
        }
    }
    let mut gates = gates;
    gates.sort_unstable();
    SkynetMap::new(nodes, links, gates, start).expect("the trap generator makes valid maps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap_maps_are_connected_valid_episode_2_maps() {
        for (nodes, gateways, seed) in [(9, 2, 1), (20, 3, 2), (40, 4, 3), (200, 10, 4)] {
            let map = generate_trap(nodes, gateways, seed);
            assert_eq!((map.nodes, map.gateways.len()), (nodes, gateways));
            assert_eq!(map, generate_trap(nodes, gateways, seed), "the same seed, the same map");
            assert!(map.limit_warnings(super::super::Episode::Ep2).is_empty());
            assert_eq!(map.gateway_links_at(map.agent_start), 0);
            let mut graph = petgraph::graph::UnGraph::<(), ()>::from_edges(&map.links);
            while graph.node_count() < nodes {
                graph.add_node(());
            }
            assert_eq!(petgraph::algo::connected_components(&graph), 1, "{nodes} nodes");
            let doubles = (0..nodes as u32).filter(|&v| map.gateway_links_at(v) == 2).count();
            assert!(doubles >= 2, "the lure and the decoy double");
        }
    }
}
