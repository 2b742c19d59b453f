//! A seeded generator of CodinGame-like Skynet maps, so that large tests need no stored data.
//!
//! CodinGame's maps are drawn in a plane: nodes joined to their near neighbours, each gateway at
//! the centre of a ring of nodes that all link to it. The generator does the same: random points
//! kept apart, a Euclidean minimum spanning tree (so the network is connected) plus short links
//! to near neighbours, gateways spread out by farthest-point sampling (in Episode 2 some placed
//! next to another one, so that rings overlap and nodes touch two gateways), a ring around each
//! gateway, and the agent started far from every gateway. It respects the statements' limits:
//! at most 1 gateway link per node in Episode 1 and 2 in Episode 2, L <= 1000 up to 500 nodes.
//!
//! A second family, asked for with `gateway-links` (and optionally `doubles`), makes the
//! dense-gateway maps that push the exact solver to CodinGame's limits: each gateway in turn links
//! to its nearest free node until the map has the asked number of gateway links, so the
//! neighbourhoods of nearby gateways overlap in many nodes linked to two gateways. Without these
//! settings the generator's output is what it always was, byte for byte.
//!
//! A third family, `family = trap` ([`super::trap`]), plants a trap for the simple virus
//! heuristics in a random network: the maps that separate them from a perfect virus.

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

    /// Reads the settings of the classic family (see [`SETTINGS`]); the dense-gateway and trap
    /// settings are refused here, [`GenSettings::parse`] reads every setting.
    pub fn parse(
        episode: Episode,
        params: &BTreeMap<String, String>,
    ) -> Result<GenParams, SetupError> {
        let settings = GenSettings::parse(episode, params)?;
        match settings.dense {
            None if settings.trap => Err(SetupError::option(
                "family",
                "the trap family is read by GenSettings::parse".to_string(),
            )),
            None => Ok(settings.base),
            Some(_) => Err(SetupError::option(
                "gateway-links",
                "the dense-gateway family is read by GenSettings::parse".to_string(),
            )),
        }
    }
}

/// The dense-gateway family's settings: gateway links in all, and at most how many nodes touch
/// two gateways (`None`: as many as the overlapping neighbourhoods make).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseGateways {
    pub gateway_links: usize,
    pub doubles: Option<usize>,
}

impl DenseGateways {
    /// The most gateway links a map of these sizes can hold: one per plain node, plus a second
    /// one for as many nodes as may touch two gateways (Episode 2, two gateways or more).
    pub fn most_links(
        episode: Episode,
        nodes: usize,
        gateways: usize,
        doubles: Option<usize>,
    ) -> usize {
        let plain = nodes - gateways;
        let second = if episode.gateway_links_per_node() >= 2 && gateways >= 2 {
            doubles.unwrap_or(plain).min(plain)
        } else {
            0
        };
        plain + second
    }
}

/// Every generator setting: the classic family's, and the dense-gateway family's when asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenSettings {
    pub base: GenParams,
    pub dense: Option<DenseGateways>,
    /// The trap family ([`super::trap`]; Episode 2 only, never with `dense`).
    pub trap: bool,
}

impl GenSettings {
    /// Reads the settings (see [`SETTINGS`]).
    pub fn parse(
        episode: Episode,
        params: &BTreeMap<String, String>,
    ) -> Result<GenSettings, SetupError> {
        let raw: RawParams = parse_settings("generator setting of skynet", params)?;
        let nodes = raw.nodes;
        let gateways = raw.gateways.unwrap_or_else(|| GenParams::default_gateways(nodes));
        if gateways == 0 || gateways > nodes / 2 {
            return Err(SetupError::option(
                "gateways",
                format!("`{gateways}` is not 1 to {} for {nodes} nodes", (nodes / 2).max(1)),
            ));
        }
        let base = GenParams { episode, nodes, gateways };
        let trap = match raw.family.as_deref() {
            None | Some("plane") => false,
            Some("trap") => true,
            Some(other) => {
                return Err(SetupError::option(
                    "family",
                    format!("`{other}` is not `plane` or `trap`"),
                ));
            }
        };
        if trap {
            check_trap(episode, nodes, gateways, raw.gateway_links.is_some())?;
        }
        let dense = match (raw.gateway_links, raw.doubles) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(SetupError::option(
                    "doubles",
                    "only goes with gateway-links (the dense-gateway family)".to_string(),
                ));
            }
            (Some(links), doubles) => {
                let most = DenseGateways::most_links(episode, nodes, gateways, doubles);
                if links < gateways || links > most {
                    return Err(SetupError::option(
                        "gateway-links",
                        format!(
                            "`{links}` is not {gateways} to {most} for {nodes} nodes, {gateways} \
                             gateways{} in {}",
                            doubles.map(|d| format!(", {d} doubles")).unwrap_or_default(),
                            episode.variant()
                        ),
                    ));
                }
                Some(DenseGateways { gateway_links: links, doubles })
            }
        };
        Ok(GenSettings { base, dense, trap })
    }

    /// The map of these settings and `seed`.
    pub fn generate(&self, seed: u64) -> SkynetMap {
        if self.trap {
            return super::trap::generate_trap(self.base.nodes, self.base.gateways, seed);
        }
        match self.dense {
            None => generate(self.base, seed),
            Some(dense) => generate_dense(self.base, dense, seed),
        }
    }

    /// The map as `arena gen` prints it (see [`to_text`]).
    pub fn to_text(&self, seed: u64, map: &SkynetMap) -> String {
        if self.trap {
            let p = self.base;
            return format!(
                "# SOURCE: arena gen skynet --variant {} --family trap --nodes {} --gateways {} \
                 --seed {seed}\n{}",
                p.episode.variant(),
                p.nodes,
                p.gateways,
                map.to_text()
            );
        }
        match self.dense {
            None => to_text(self.base, seed, map),
            Some(DenseGateways { gateway_links, doubles }) => {
                let p = self.base;
                format!(
                    "# SOURCE: arena gen skynet --variant {} --nodes {} --gateways {} \
                     --gateway-links {gateway_links}{} --seed {seed}\n{}",
                    p.episode.variant(),
                    p.nodes,
                    p.gateways,
                    doubles.map(|d| format!(" --doubles {d}")).unwrap_or_default(),
                    map.to_text()
                )
            }
        }
    }

    /// A short name for the map (`gen-ep2-n500-g20-s1`, `gen-ep2-n500-g20-k300-s1`).
    pub fn name(&self, seed: u64) -> String {
        let p = self.base;
        let dense = match self.dense {
            None if self.trap => "-trap".to_string(),
            None => String::new(),
            Some(d) => format!(
                "-k{}{}",
                d.gateway_links,
                d.doubles.map(|x| format!("-d{x}")).unwrap_or_default()
            ),
        };
        format!("gen-{}-n{}-g{}{dense}-s{seed}", p.episode.variant(), p.nodes, p.gateways)
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
    Setting {
        key: "gateway-links",
        help: "how many gateway links in all (the dense-gateway family: each gateway in turn \
               links to its nearest free node)",
        range: "gateways to nodes - gateways (+ doubles in ep2)",
        default: "none: the classic family",
    },
    Setting {
        key: "doubles",
        help: "with gateway-links: at most this many nodes linked to two gateways",
        range: "0 to nodes - gateways",
        default: "no limit",
    },
    Setting {
        key: "family",
        help: "plane: drawn like CodinGame's maps (dense with gateway-links); trap: a random \
               network with a planted trap for the simple virus heuristics (ep2)",
        range: "plane, trap",
        default: "plane",
    },
];

/// The trap family's limits: Episode 2, two gateways or more, room for the trap, no
/// dense-gateway settings.
fn check_trap(
    episode: Episode,
    nodes: usize,
    gateways: usize,
    dense: bool,
) -> Result<(), SetupError> {
    let fail = |why: String| Err(SetupError::option("family", why));
    if episode != Episode::Ep2 {
        return fail("`trap` makes Episode 2 maps (nodes linked to two gateways)".into());
    }
    if dense {
        return fail("`trap` does not go with gateway-links or doubles".into());
    }
    if gateways < 2 || nodes < gateways + super::trap::TRAP_NODES || nodes > 500 {
        return fail(format!(
            "`trap` needs 2 gateways or more, {} more nodes than gateways, and at most 500 nodes \
             ({nodes} nodes, {gateways} gateways)",
            super::trap::TRAP_NODES
        ));
    }
    Ok(())
}

#[derive(serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RawParams {
    #[serde(deserialize_with = "bounded::<_, 2, { MAX_GEN_NODES as u64 }>")]
    nodes: usize,
    gateways: Option<usize>,
    #[serde(rename = "gateway-links", alias = "gateway_links")]
    gateway_links: Option<usize>,
    doubles: Option<usize>,
    family: Option<String>,
}

impl Default for RawParams {
    fn default() -> RawParams {
        RawParams { nodes: 50, gateways: None, gateway_links: None, doubles: None, family: None }
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
    let Layout { points, gateways, is_gateway, plain, mut links } = lay_out(&mut rng, params);
    let n = params.nodes;

    // Rings first, so the plain links' budget knows what they took. Nodes touching two gateways
    // are what makes Episode 2 hard; CodinGame's maps have a few, and too many make a map the
    // virus cannot win.
    let mut counts = GatewayLinkCounts::new(params, params.gateways / 4 + 1);
    for &g in &gateways {
        let mut near: Vec<usize> = plain.clone();
        near.sort_by(|&a, &b| dist2(points[a], points[g]).total_cmp(&dist2(points[b], points[g])));
        let size = rng.random_range(3..=6usize);
        let mut ring: Vec<usize> = Vec::with_capacity(size);
        for v in near {
            if ring.len() == size {
                break;
            }
            if counts.link(&mut links, g, v) {
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

    // The plain links' budget counts the tree as it was meant (m - 1 links), even where a tree
    // link repeated a ring link.
    let m = plain.len();
    let tree = spanning_tree(&points, &plain, &mut links);
    let limit = if n <= 500 { 1000 } else { usize::MAX };
    let budget = (m * 7 / 5 + links.order.len() - tree).min(limit);
    add_near_links(&points, &plain, n, budget, &mut links);

    let agent = pick_start(&mut rng, n, &links.order, &is_gateway);
    finish(&mut rng, n, links.order, gateways, agent)
}

/// Generates a map of the dense-gateway family: the classic family's points and gateways, then
/// the gateways take turns linking to their nearest node that may still take a gateway link
/// (at most 2 per node in Episode 2, 1 in Episode 1, and at most `doubles` nodes with two) until
/// there are `gateway_links` of them; then a Euclidean minimum spanning tree over the other
/// nodes and short links to near neighbours, within L <= 1000 up to 500 nodes when the gateway
/// links leave room. The same parameters and seed give the same map.
pub fn generate_dense(params: GenParams, dense: DenseGateways, seed: u64) -> SkynetMap {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let Layout { points, gateways, is_gateway, plain, mut links } = lay_out(&mut rng, params);
    let n = params.nodes;
    let mut counts = GatewayLinkCounts::new(params, dense.doubles.unwrap_or(usize::MAX));
    // Each gateway's plain nodes, nearest first, and how far down that list it has got.
    let by_distance: Vec<Vec<usize>> = gateways
        .iter()
        .map(|&g| {
            let mut near = plain.clone();
            near.sort_by(|&a, &b| {
                dist2(points[a], points[g]).total_cmp(&dist2(points[b], points[g]))
            });
            near
        })
        .collect();
    let mut next = vec![0usize; gateways.len()];
    let mut placed = 0;
    while placed < dense.gateway_links {
        let before = placed;
        for (i, &g) in gateways.iter().enumerate() {
            if placed == dense.gateway_links {
                break;
            }
            while let Some(&v) = by_distance[i].get(next[i]) {
                next[i] += 1;
                if counts.link(&mut links, g, v) {
                    placed += 1;
                    break;
                }
            }
        }
        // The settings were checked against what the map can hold; a gateway that has run out
        // of nodes leaves its turn to the others.
        if placed == before {
            break;
        }
    }

    spanning_tree(&points, &plain, &mut links);
    let limit = if n <= 500 { 1000 } else { usize::MAX };
    let budget = (plain.len() * 7 / 5 + placed).min(limit).max(links.order.len());
    add_near_links(&points, &plain, n, budget, &mut links);

    let agent = pick_start(&mut rng, n, &links.order, &is_gateway);
    finish(&mut rng, n, links.order, gateways, agent)
}

/// What both families start from: the points, the gateways among them, the other (plain) nodes,
/// and no link yet.
struct Layout {
    points: Vec<Point>,
    gateways: Vec<usize>,
    is_gateway: Vec<bool>,
    plain: Vec<usize>,
    links: Links,
}

fn lay_out(rng: &mut ChaCha8Rng, params: GenParams) -> Layout {
    let n = params.nodes;
    let points = draw_points(rng, n);
    let gateways = place_gateways(rng, &points, params);
    let mut is_gateway = vec![false; n];
    for &g in &gateways {
        is_gateway[g] = true;
    }
    let plain: Vec<usize> = (0..n).filter(|&v| !is_gateway[v]).collect();
    let links = Links { set: BTreeSet::new(), order: Vec::new() };
    Layout { points, gateways, is_gateway, plain, links }
}

/// The gateway links of every node so far, against the episode's cap per node and a cap on the
/// nodes linked to two gateways.
struct GatewayLinkCounts {
    per_node: Vec<usize>,
    cap: usize,
    doubles: usize,
    max_doubles: usize,
}

impl GatewayLinkCounts {
    fn new(params: GenParams, max_doubles: usize) -> GatewayLinkCounts {
        GatewayLinkCounts {
            per_node: vec![0; params.nodes],
            cap: params.episode.gateway_links_per_node(),
            doubles: 0,
            max_doubles,
        }
    }

    /// Links gateway `g` to node `v` if `v` may take one more gateway link.
    fn link(&mut self, links: &mut Links, g: usize, v: usize) -> bool {
        let double = self.per_node[v] == 1;
        if self.per_node[v] >= self.cap || (double && self.doubles >= self.max_doubles) {
            return false;
        }
        self.doubles += usize::from(double);
        links.add(g, v);
        self.per_node[v] += 1;
        true
    }
}

/// N random points in a 1000 x 1000 square, kept apart like a drawn network: a few tries at the
/// spacing, then anywhere.
fn draw_points(rng: &mut ChaCha8Rng, n: usize) -> Vec<Point> {
    let side = 1000.0;
    let spacing = side / (n as f64).sqrt();
    let mut points: Vec<Point> = Vec::with_capacity(n);
    while points.len() < n {
        let mut best = (0.0, 0.0);
        for _ in 0..30 {
            best = (rng.random_range(0.0..side), rng.random_range(0.0..side));
            if points.iter().all(|&p| dist2(p, best) > (0.6 * spacing).powi(2)) {
                break;
            }
        }
        points.push(best);
    }
    points
}

/// A Euclidean minimum spanning tree over the plain nodes (Prim, O(n^2)): connected. Returns
/// the number of tree links.
fn spanning_tree(points: &[Point], plain: &[usize], links: &mut Links) -> usize {
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
    m.saturating_sub(1)
}

/// Short links to the 3 nearest neighbours, shortest first, until the map has `budget` links.
fn add_near_links(points: &[Point], plain: &[usize], n: usize, budget: usize, links: &mut Links) {
    let spacing = 1000.0 / (n as f64).sqrt();
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for &a in plain {
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
}

/// The map from its links: shuffled and randomly oriented, gateways sorted.
fn finish(
    rng: &mut ChaCha8Rng,
    n: usize,
    mut order: Vec<(u32, u32)>,
    gateways: Vec<usize>,
    agent: usize,
) -> SkynetMap {
    order.shuffle(rng);
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

/// The settings of one candidate of the separating-map search (`arena gen skynet --separating`):
/// `set` each drawn setting (see [`crate::registry::Separating::draw`]).
pub(crate) fn separating_settings(
    fixed: &BTreeMap<String, String>,
    rng: &mut ChaCha8Rng,
    set: &mut dyn FnMut(&str, String),
) {
    if fixed.get("family").is_some_and(|f| f == "trap") {
        // The trap family (docs/skynet.md): small enough that the solver settles every
        // candidate far below its budget.
        let drawn_nodes: usize = rng.random_range(14..=36);
        set("nodes", drawn_nodes.to_string());
        // A fixed node count sets the range of gateways to draw from.
        let nodes = fixed.get("nodes").and_then(|n| n.parse().ok()).unwrap_or(drawn_nodes);
        set("gateways", rng.random_range(2..=(nodes / 8).clamp(2, 20)).to_string());
    } else {
        // The dense-gateway family: with few nodes touching two gateways (the classic
        // family) the simple heuristics win too.
        let nodes: usize = rng.random_range(16..=40);
        let gateways = rng.random_range(3..=(nodes / 6).max(3));
        set("nodes", nodes.to_string());
        set("gateways", gateways.to_string());
        set("gateway-links", rng.random_range(nodes / 4..=nodes / 2).to_string());
        set("doubles", rng.random_range(2..=6usize).to_string());
    }
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
    fn the_classic_family_is_unchanged_byte_for_byte() {
        // FNV-1a fingerprints of `arena gen skynet` output made by the generator before the
        // dense-gateway family existed.
        for (episode, nodes, seed, fingerprint) in [
            (Episode::Ep2, 500, 1, 0xb5a9_194e_8a81_025e_u64),
            (Episode::Ep1, 500, 2, 0xa3cc_fe04_7cf6_74cd),
            (Episode::Ep2, 100, 7, 0x96fc_6b8a_7a56_222d),
            (Episode::Ep2, 1200, 2, 0xbd0a_b47f_3a9c_e6c0),
            (Episode::Ep1, 50, 1, 0xa9cf_7d19_092c_ff69),
        ] {
            let settings: BTreeMap<String, String> =
                [("nodes".to_string(), nodes.to_string())].into();
            let s = GenSettings::parse(episode, &settings).unwrap();
            assert_eq!(s.dense, None);
            let text = s.to_text(seed, &s.generate(seed));
            assert_eq!(
                crate::seed::text_hash(text.as_bytes()),
                fingerprint,
                "{episode:?} {nodes} {seed}"
            );
        }
    }

    fn dense(nodes: usize, gateways: usize, links: usize, doubles: Option<usize>) -> GenSettings {
        let mut settings: BTreeMap<String, String> = [
            ("nodes".to_string(), nodes.to_string()),
            ("gateways".to_string(), gateways.to_string()),
            ("gateway-links".to_string(), links.to_string()),
        ]
        .into();
        if let Some(d) = doubles {
            settings.insert("doubles".to_string(), d.to_string());
        }
        GenSettings::parse(Episode::Ep2, &settings).unwrap()
    }

    #[test]
    fn dense_maps_have_the_asked_gateway_links_within_codingame_limits() {
        for (nodes, gateways, links, doubles, seed) in [
            (500, 20, 200, Some(36), 1),
            (500, 20, 300, Some(61), 2),
            (500, 20, 300, None, 3),
            (100, 10, 60, Some(10), 4),
            (300, 15, 150, Some(0), 5),
        ] {
            let s = dense(nodes, gateways, links, doubles);
            let map = s.generate(seed);
            let text = s.to_text(seed, &map);
            assert!(text.starts_with(&format!(
                "# SOURCE: arena gen skynet --variant ep2 --nodes {nodes} --gateways {gateways} \
                 --gateway-links {links}"
            )));
            let parsed = parse_map("gen", &text, Episode::Ep2).unwrap();
            assert_eq!(parsed.map, map);
            assert!(parsed.warnings.is_empty(), "{nodes} {links}: {:?}", parsed.warnings);
            let gateway_links = (0..map.links.len() as u32).filter(|&id| map.is_gateway_link(id));
            assert_eq!(gateway_links.count(), links);
            let two = (0..nodes as u32).filter(|&v| map.gateway_links_at(v) == 2).count();
            if let Some(d) = doubles {
                assert!(two <= d, "{two} doubles > {d}");
            }
            assert!(two > 0 || doubles == Some(0));
            let mut graph = petgraph::graph::UnGraph::<(), ()>::from_edges(&map.links);
            while graph.node_count() < nodes {
                graph.add_node(());
            }
            assert_eq!(petgraph::algo::connected_components(&graph), 1);
            assert_eq!(s.generate(seed), map, "deterministic");
            assert_ne!(s.generate(seed + 100), map);
        }
    }

    #[test]
    fn dense_settings_are_validated() {
        let parse = |pairs: &[(&str, &str)]| {
            let settings: BTreeMap<String, String> =
                pairs.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect();
            GenSettings::parse(Episode::Ep2, &settings)
        };
        let key_of = |r: Result<GenSettings, SetupError>| match r {
            Err(SetupError::Option { key, .. }) => key,
            other => panic!("{other:?}"),
        };
        assert_eq!(key_of(parse(&[("doubles", "3")])), "doubles");
        // 10 nodes, 2 gateways: 8 plain nodes hold at most 8 + 8 links, 8 + 1 with 1 double.
        let ok = parse(&[("nodes", "10"), ("gateways", "2"), ("gateway-links", "16")]);
        assert_eq!(ok.unwrap().dense.unwrap().gateway_links, 16);
        for (links, doubles) in [("17", None), ("10", Some("1")), ("1", None)] {
            let mut pairs = vec![("nodes", "10"), ("gateways", "2"), ("gateway-links", links)];
            pairs.extend(doubles.map(|d| ("doubles", d)));
            assert_eq!(key_of(parse(&pairs)), "gateway-links", "{links} {doubles:?}");
        }
        let underscore = parse(&[("nodes", "10"), ("gateways", "2"), ("gateway_links", "9")]);
        assert_eq!(underscore.unwrap().dense.unwrap().gateway_links, 9);
        // The classic parser refuses the dense family rather than drop its settings.
        let settings: BTreeMap<String, String> =
            [("gateway-links".to_string(), "5".to_string())].into();
        assert!(GenParams::parse(Episode::Ep2, &settings).is_err());
        // Episode 1 allows one gateway link per node.
        let ep1: BTreeMap<String, String> = [
            ("nodes".to_string(), "10".to_string()),
            ("gateways".to_string(), "2".to_string()),
            ("gateway-links".to_string(), "9".to_string()),
        ]
        .into();
        assert!(GenSettings::parse(Episode::Ep1, &ep1).is_err());
    }

    #[test]
    fn the_trap_family_is_asked_for_by_name_and_checked() {
        let settings = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let trap = settings(&[("family", "trap"), ("nodes", "20"), ("gateways", "3")]);
        let s = GenSettings::parse(Episode::Ep2, &trap).unwrap();
        assert!(s.trap && s.dense.is_none());
        assert_eq!(s.generate(4), super::super::trap::generate_trap(20, 3, 4));
        assert!(s.to_text(4, &s.generate(4)).contains("--family trap --nodes 20 --gateways 3"));
        assert!(GenParams::parse(Episode::Ep2, &trap).is_err());
        let plane = settings(&[("family", "plane"), ("nodes", "20"), ("gateways", "3")]);
        assert!(!GenSettings::parse(Episode::Ep2, &plane).unwrap().trap);
        for bad in [
            settings(&[("family", "trap"), ("nodes", "9"), ("gateways", "3")]),
            settings(&[("family", "trap"), ("nodes", "20"), ("gateways", "1")]),
            settings(&[("family", "trap"), ("nodes", "600"), ("gateways", "3")]),
            settings(&[("family", "trap"), ("nodes", "20"), ("gateway-links", "5")]),
            settings(&[("family", "spiral"), ("nodes", "20")]),
        ] {
            assert!(GenSettings::parse(Episode::Ep2, &bad).is_err(), "{bad:?}");
        }
        assert!(GenSettings::parse(Episode::Ep1, &trap).is_err(), "Episode 1");
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
