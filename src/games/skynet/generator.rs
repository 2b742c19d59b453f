//! A seeded generator of CodinGame-like Skynet maps, so that large tests need no stored data.
//!
//! CodinGame's maps are drawn in a plane: nodes joined to their near neighbours, each gateway at
//! the centre of a ring of nodes that all link to it. The generator does the same: random points
//! kept apart, a Euclidean minimum spanning tree (so the network is connected) plus short links
//! to near neighbours, gateways spread out by farthest-point sampling (in Episode 2 some placed
//! next to another one, so that rings overlap and nodes touch two gateways), a ring around each
//! gateway, and the agent started far from every gateway. It respects the statements' limits:
//! at most 1 gateway link per node in Episode 1 and 2 in Episode 2, L <= 1000 up to 500 nodes.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::episode::Episode;
use super::map::SkynetMap;
use crate::game::{Setting, SetupError, bounded, parse_settings};

/// The generator's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenParams {
    pub episode: Episode,
    pub nodes: usize,
    pub gateways: usize,
}

/// The largest map the generator makes.
pub const MAX_GEN_NODES: usize = 2000;

impl GenParams {
    /// The default gateway count for `nodes`: about one per 25 nodes, 1 to 20.
    pub fn default_gateways(nodes: usize) -> usize {
        (nodes / 25).clamp(1, 20).min(nodes / 4).max(1)
    }

    /// Reads the settings (see [`SETTINGS`]).
    pub fn parse(
        episode: Episode,
        params: &BTreeMap<String, String>,
    ) -> Result<GenParams, SetupError> {
        let raw: RawParams = parse_settings("generator setting of skynet", params)?;
        let nodes = raw.nodes;
        let gateways = raw.gateways.unwrap_or_else(|| GenParams::default_gateways(nodes));
        if gateways == 0 || gateways > nodes / 2 {
            return Err(SetupError::option(
                "gateways",
                format!("`{gateways}` is not 1 to {} for {nodes} nodes", (nodes / 2).max(1)),
            ));
        }
        Ok(GenParams { episode, nodes, gateways })
    }
}

/// The generator's settings, as `arena gen skynet --help` lists them.
pub const SETTINGS: &[Setting] = &[
    Setting { key: "nodes", help: "how many nodes", range: "2 to 2000", default: "50" },
    Setting {
        key: "gateways",
        help: "how many of the nodes are gateways",
        range: "1 to nodes / 2",
        default: "nodes / 25, 1 to 20",
    },
];

#[derive(serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RawParams {
    #[serde(deserialize_with = "bounded::<_, 2, { MAX_GEN_NODES as u64 }>")]
    nodes: usize,
    gateways: Option<usize>,
}

impl Default for RawParams {
    fn default() -> RawParams {
        RawParams { nodes: 50, gateways: None }
    }
}

type Point = (f64, f64);

fn dist2(a: Point, b: Point) -> f64 {
    (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)
}

/// Links as a set of `(low, high)` pairs plus the gateway link count of every node.
struct Links {
    set: BTreeSet<(u32, u32)>,
    order: Vec<(u32, u32)>,
}

impl Links {
    fn add(&mut self, a: usize, b: usize) -> bool {
        let (a, b) = (a.min(b) as u32, a.max(b) as u32);
        if a == b || !self.set.insert((a, b)) {
            return false;
        }
        self.order.push((a, b));
        true
    }
}

/// Generates a map; the same parameters and seed give the same map.
///
/// ```
/// use arena::games::skynet::Episode;
/// use arena::games::skynet::generator::{GenParams, generate, to_text};
/// use arena::games::skynet::map::parse_map;
///
/// let params = GenParams { episode: Episode::Ep2, nodes: 30, gateways: 3 };
/// let map = generate(params, 7);
/// assert_eq!((map.nodes, map.gateways.len()), (30, 3));
/// assert!(!map.is_gateway[map.agent_start as usize]);
/// assert_eq!(generate(params, 7), map, "the same seed gives the same map");
/// // The map's text (what `arena gen skynet` prints) reads back as the same map.
/// let text = to_text(params, 7, &map);
/// assert_eq!(parse_map("gen", &text, Episode::Ep2)?.map, map);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate(params: GenParams, seed: u64) -> SkynetMap {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = params.nodes;
    let side = 1000.0;
    let spacing = side / (n as f64).sqrt();
    let mut points: Vec<Point> = Vec::with_capacity(n);
    while points.len() < n {
        let mut best = (0.0, 0.0);
        // Keep points apart like a drawn network: a few tries at the spacing, then anywhere.
        for _ in 0..30 {
            best = (rng.random_range(0.0..side), rng.random_range(0.0..side));
            if points.iter().all(|&p| dist2(p, best) > (0.6 * spacing).powi(2)) {
                break;
            }
        }
        points.push(best);
    }

    let gateways = place_gateways(&mut rng, &points, params);
    let mut is_gateway = vec![false; n];
    for &g in &gateways {
        is_gateway[g] = true;
    }
    let plain: Vec<usize> = (0..n).filter(|&v| !is_gateway[v]).collect();
    let mut links = Links { set: BTreeSet::new(), order: Vec::new() };

    // Rings first, so the plain links' budget knows what they took.
    let cap = params.episode.gateway_links_per_node();
    let mut gateway_links = vec![0usize; n];
    // Nodes touching two gateways are what makes Episode 2 hard; CodinGame's maps have a few,
    // and too many make a map the virus cannot win.
    let max_doubles = params.gateways / 4 + 1;
    let mut doubles = 0;
    for &g in &gateways {
        let mut near: Vec<usize> = plain.clone();
        near.sort_by(|&a, &b| dist2(points[a], points[g]).total_cmp(&dist2(points[b], points[g])));
        let size = rng.random_range(3..=6usize);
        let mut ring: Vec<usize> = Vec::with_capacity(size);
        for v in near {
            if ring.len() == size {
                break;
            }
            let double = gateway_links[v] == 1;
            if gateway_links[v] < cap && (!double || doubles < max_doubles) {
                doubles += usize::from(double);
                links.add(g, v);
                gateway_links[v] += 1;
                ring.push(v);
            }
        }
        // Around the gateway by angle, each ring node joined to the next.
        let angle = |v: usize| (points[v].1 - points[g].1).atan2(points[v].0 - points[g].0);
        ring.sort_by(|&a, &b| angle(a).total_cmp(&angle(b)));
        if ring.len() >= 2 {
            for i in 0..ring.len() {
                let j = (i + 1) % ring.len();
                if ring.len() == 2 && j == 0 {
                    break;
                }
                links.add(ring[i], ring[j]);
            }
        }
    }

    // A Euclidean minimum spanning tree over the plain nodes (Prim, O(n^2)): connected.
    let m = plain.len();
    let mut in_tree = vec![false; m];
    let mut best = vec![(f64::INFINITY, 0usize); m];
    if m > 0 {
        best[0] = (0.0, 0);
    }
    for _ in 0..m {
        let i = (0..m)
            .filter(|&i| !in_tree[i])
            .min_by(|&a, &b| best[a].0.total_cmp(&best[b].0))
            .expect("a node is left");
        in_tree[i] = true;
        if best[i].0 > 0.0 {
            links.add(plain[i], plain[best[i].1]);
        }
        for j in 0..m {
            let d = dist2(points[plain[i]], points[plain[j]]);
            if !in_tree[j] && d < best[j].0 {
                best[j] = (d, i);
            }
        }
    }

    // Short links to near neighbours, shortest first, within the budget.
    let limit = if n <= 500 { 1000 } else { usize::MAX };
    let budget = (m * 7 / 5 + links.order.len() - m.saturating_sub(1)).min(limit);
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for &a in &plain {
        let mut near: Vec<usize> = plain.iter().copied().filter(|&b| b != a).collect();
        near.sort_by(|&x, &y| dist2(points[a], points[x]).total_cmp(&dist2(points[a], points[y])));
        for &b in near.iter().take(3) {
            candidates.push((dist2(points[a], points[b]), a, b));
        }
    }
    candidates.sort_by(|x, y| x.0.total_cmp(&y.0));
    for (d, a, b) in candidates {
        if links.order.len() >= budget {
            break;
        }
        if d <= (2.2 * spacing).powi(2) {
            links.add(a, b);
        }
    }

    let agent = pick_start(&mut rng, n, &links.order, &is_gateway);
    let mut order = links.order;
    order.shuffle(&mut rng);
    for link in &mut order {
        if rng.random_bool(0.5) {
            *link = (link.1, link.0);
        }
    }
    let mut gateways: Vec<u32> = gateways.into_iter().map(|g| g as u32).collect();
    gateways.sort_unstable();
    SkynetMap::new(n, order, gateways, agent as u32).expect("the generator makes valid maps")
}

/// Spreads the gateways by farthest-point sampling; in Episode 2 every other one goes next to
/// an earlier gateway instead, so their rings overlap.
fn place_gateways(rng: &mut ChaCha8Rng, points: &[Point], params: GenParams) -> Vec<usize> {
    let n = points.len();
    let mut gateways = vec![rng.random_range(0..n)];
    let mut nearest = vec![f64::INFINITY; n];
    while gateways.len() < params.gateways {
        let last = points[*gateways.last().expect("one gateway")];
        for v in 0..n {
            nearest[v] = nearest[v].min(dist2(points[v], last));
        }
        let pick = if params.episode == Episode::Ep2 && gateways.len() % 2 == 1 && n >= 12 {
            // A node near an earlier gateway but not right beside it: its ring then overlaps.
            let anchor = points[gateways[rng.random_range(0..gateways.len())]];
            let mut by_distance: Vec<usize> = (0..n).filter(|v| !gateways.contains(v)).collect();
            by_distance
                .sort_by(|&a, &b| dist2(points[a], anchor).total_cmp(&dist2(points[b], anchor)));
            by_distance[rng.random_range(2..6usize).min(by_distance.len() - 1)]
        } else {
            (0..n)
                .filter(|v| !gateways.contains(v))
                .max_by(|&a, &b| nearest[a].total_cmp(&nearest[b]))
                .expect("fewer gateways than nodes")
        };
        gateways.push(pick);
    }
    gateways
}

/// A start far from every gateway: a random node among those at least half the largest
/// distance away (and never next to a gateway when the map allows it).
fn pick_start(rng: &mut ChaCha8Rng, n: usize, links: &[(u32, u32)], is_gateway: &[bool]) -> usize {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in links {
        adj[a as usize].push(b as usize);
        adj[b as usize].push(a as usize);
    }
    let mut dist = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    for v in (0..n).filter(|&v| is_gateway[v]) {
        dist[v] = 0;
        queue.push_back(v);
    }
    while let Some(v) = queue.pop_front() {
        for &w in &adj[v] {
            if dist[w] == usize::MAX {
                dist[w] = dist[v] + 1;
                queue.push_back(w);
            }
        }
    }
    let reachable: Vec<usize> =
        (0..n).filter(|&v| !is_gateway[v] && dist[v] != usize::MAX).collect();
    let far = reachable.iter().map(|&v| dist[v]).max().unwrap_or(0);
    let threshold = (far / 2).max(2).min(far);
    let candidates: Vec<usize> = reachable.into_iter().filter(|&v| dist[v] >= threshold).collect();
    match candidates.len() {
        0 => (0..n).find(|&v| !is_gateway[v]).expect("a node that is not a gateway"),
        k => candidates[rng.random_range(0..k)],
    }
}

/// The map as `arena gen` prints it: a source line, `# AGENT_START`, the init block.
pub fn to_text(params: GenParams, seed: u64, map: &SkynetMap) -> String {
    let variant = params.episode.variant();
    format!(
        "# SOURCE: arena gen skynet --variant {variant} --nodes {} --gateways {} --seed {seed}\n{}",
        params.nodes,
        params.gateways,
        map.to_text()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::skynet::map::parse_map;

    fn params(episode: Episode, nodes: usize) -> GenParams {
        GenParams { episode, nodes, gateways: GenParams::default_gateways(nodes) }
    }

    #[test]
    fn generated_maps_respect_codingame_limits() {
        for (episode, nodes, seed) in [
            (Episode::Ep1, 10, 1),
            (Episode::Ep1, 500, 2),
            (Episode::Ep2, 12, 3),
            (Episode::Ep2, 100, 4),
            (Episode::Ep2, 500, 5),
        ] {
            let p = params(episode, nodes);
            let map = generate(p, seed);
            let text = to_text(p, seed, &map);
            let parsed = parse_map("gen", &text, episode).unwrap();
            assert_eq!(parsed.map, map);
            assert!(parsed.warnings.is_empty(), "{episode:?} {nodes}: {:?}", parsed.warnings);
            assert_eq!(map.nodes, nodes);
            assert_eq!(map.gateways.len(), p.gateways);
            assert!(!map.is_gateway[map.agent_start as usize]);
            assert_eq!(map.gateway_links_at(map.agent_start), 0, "{episode:?} {nodes}");
            let mut graph = petgraph::graph::UnGraph::<(), ()>::from_edges(&map.links);
            while graph.node_count() < nodes {
                graph.add_node(());
            }
            assert_eq!(
                petgraph::algo::connected_components(&graph),
                1,
                "{episode:?} {nodes}: the map is connected"
            );
        }
    }

    #[test]
    fn episode_2_maps_have_nodes_touching_two_gateways() {
        let map = generate(params(Episode::Ep2, 200), 7);
        assert!((0..200).any(|v| !map.is_gateway[v as usize] && map.gateway_links_at(v) == 2));
    }

    #[test]
    fn the_same_seed_gives_the_same_map() {
        let p = params(Episode::Ep2, 80);
        assert_eq!(generate(p, 9), generate(p, 9));
        assert_ne!(generate(p, 9), generate(p, 10));
    }

    #[test]
    fn settings_are_validated() {
        let mut settings = BTreeMap::new();
        settings.insert("nodes".to_string(), "x".to_string());
        assert!(GenParams::parse(Episode::Ep2, &settings).is_err());
        settings.insert("nodes".to_string(), "1".to_string());
        assert!(GenParams::parse(Episode::Ep2, &settings).is_err());
        settings.insert("nodes".to_string(), "40".to_string());
        assert_eq!(GenParams::parse(Episode::Ep2, &settings).unwrap().gateways, 1);
        settings.insert("colour".to_string(), "red".to_string());
        assert!(matches!(
            GenParams::parse(Episode::Ep2, &settings),
            Err(SetupError::Option { key, .. }) if key == "colour"
        ));
    }
}
