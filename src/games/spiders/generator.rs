//! The seeded generator of Greedy Spiders maps (`arena gen spiders`): paths, and planar-ish
//! graphs of points each joined to its nearest neighbours.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::map::{MAX_DEGREE, MAX_SPIDERS, SpiderMap};
use crate::game::{MapText, Setting, SetupError, parse_settings};

/// The generator's settings, as `arena gen spiders --help` lists them.
pub const SETTINGS: &[Setting] = &[
    Setting { key: "kind", help: "the shape of the map", range: "path or graph", default: "path" },
    Setting {
        key: "nodes",
        help: "how many vertices",
        range: "2 to 1000000 (graphs: to 5000)",
        default: "12",
    },
    Setting {
        key: "spiders",
        help: "how many spiders",
        range: "1 to 1000, spiders + flies <= nodes",
        default: "2",
    },
    Setting {
        key: "flies",
        help: "how many flies",
        range: "1 or more, spiders + flies <= nodes",
        default: "2",
    },
    Setting {
        key: "degree",
        help: "graphs: each vertex is joined to this many nearest points",
        range: "0 to 50",
        default: "2",
    },
];

/// The shape of a generated map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Path,
    Graph,
}

#[derive(serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct GenSettings {
    kind: Kind,
    nodes: usize,
    spiders: usize,
    flies: usize,
    degree: usize,
}

impl Default for GenSettings {
    fn default() -> GenSettings {
        GenSettings { kind: Kind::Path, nodes: 12, spiders: 2, flies: 2, degree: 2 }
    }
}

/// A seeded random map (see [`SETTINGS`]): a path, or points in the plane each joined to its
/// `degree` nearest points.
pub fn generate(params: &BTreeMap<String, String>, seed: u64) -> Result<MapText, SetupError> {
    let GenSettings { kind, nodes, spiders, flies, degree } =
        parse_settings("generator setting of spiders", params)?;
    if !(2..=1_000_000).contains(&nodes) {
        return Err(SetupError::option("nodes", format!("`{nodes}` is not 2 to 1000000")));
    }
    if spiders == 0 || flies == 0 || spiders + flies > nodes {
        return Err(SetupError::option(
            "spiders",
            format!("need 1 or more spiders and flies, {spiders} + {flies} <= nodes = {nodes}"),
        ));
    }
    if spiders > MAX_SPIDERS {
        return Err(SetupError::option(
            "spiders",
            format!("`{spiders}` is not 1 to {MAX_SPIDERS}"),
        ));
    }
    if degree > MAX_DEGREE {
        return Err(SetupError::option("degree", format!("`{degree}` is not 0 to {MAX_DEGREE}")));
    }
    if kind == Kind::Graph && nodes > 5000 {
        return Err(SetupError::option("nodes", "graphs are generated up to 5000 nodes"));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut vertices: Vec<u32> = (0..nodes as u32).collect();
    vertices.shuffle(&mut rng);
    let spider_at = vertices[..spiders].to_vec();
    let fly_at = vertices[spiders..spiders + flies].to_vec();
    let kind_name = match kind {
        Kind::Path => "path",
        Kind::Graph => "graph",
    };
    let name = format!("generated-{kind_name}-{nodes}-seed{seed}");
    match kind {
        Kind::Path => {
            let edges = (1..nodes as u32).map(|v| (v - 1, v)).collect();
            let map = SpiderMap::new(nodes, edges, spider_at, fly_at)
                .map_err(|m| SetupError::Other(format!("generator: {m}")))?;
            let text = map.to_notation().expect("a generated path numbers its vertices in order");
            Ok(MapText { name, text: format!("# {kind_name}, seed {seed}\n{text}\n") })
        }
        Kind::Graph => {
            let edges = planarish_edges(nodes, degree, &mut rng);
            let map = SpiderMap::new(nodes, edges, spider_at, fly_at)
                .map_err(|m| SetupError::Other(format!("generator: {m}")))?;
            Ok(MapText { name, text: format!("# {kind_name}, seed {seed}\n{}", map.to_text()) })
        }
    }
}

/// Random points in the unit square, each joined to its `degree` nearest points, plus a random
/// geometric spanning tree (every point joins its nearest earlier point) so the graph is
/// connected. Short edges between near points rarely cross, hence "planar-ish".
fn planarish_edges(nodes: usize, degree: usize, rng: &mut ChaCha8Rng) -> Vec<(u32, u32)> {
    let points: Vec<(f64, f64)> =
        (0..nodes).map(|_| (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0))).collect();
    let d2 = |a: usize, b: usize| {
        let (dx, dy) = (points[a].0 - points[b].0, points[a].1 - points[b].1);
        dx * dx + dy * dy
    };
    let mut set = std::collections::BTreeSet::new();
    for v in 1..nodes {
        let nearest = (0..v).min_by(|&a, &b| d2(v, a).total_cmp(&d2(v, b))).unwrap_or(0);
        set.insert((nearest.min(v) as u32, nearest.max(v) as u32));
    }
    for v in 0..nodes {
        let mut others: Vec<usize> = (0..nodes).filter(|&o| o != v).collect();
        others.sort_by(|&a, &b| d2(v, a).total_cmp(&d2(v, b)).then(a.cmp(&b)));
        for &o in others.iter().take(degree) {
            set.insert((v.min(o) as u32, v.max(o) as u32));
        }
    }
    set.into_iter().collect()
}

/// The settings of one candidate of the separating-map search (`arena gen spiders --separating`):
/// `set` each drawn setting (see [`crate::registry::Separating::draw`]).
pub(crate) fn separating_settings(
    _fixed: &BTreeMap<String, String>,
    rng: &mut ChaCha8Rng,
    set: &mut dyn FnMut(&str, String),
) {
    set("kind", "graph".into());
    set("nodes", rng.random_range(6..=14usize).to_string());
    set("spiders", rng.random_range(1..=2usize).to_string());
    set("flies", rng.random_range(1..=3usize).to_string());
    set("degree", rng.random_range(2..=3usize).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::spiders::map::{fly_distances, parse_map};

    #[test]
    fn generator_is_seeded_and_valid() {
        for kind in ["path", "graph"] {
            let mut p = BTreeMap::new();
            p.insert("kind".to_string(), kind.to_string());
            p.insert("nodes".to_string(), "30".to_string());
            p.insert("spiders".to_string(), "3".to_string());
            let a = generate(&p, 7).unwrap();
            assert_eq!(a, generate(&p, 7).unwrap());
            assert_ne!(a.text, generate(&p, 8).unwrap().text);
            let map = parse_map(&a.name, &a.text).unwrap();
            assert_eq!((map.nodes, map.spiders.len(), map.flies.len()), (30, 3, 2));
            // Connected (by petgraph's count, apart from the game's own searches), so every
            // vertex reaches a fly.
            let graph = petgraph::graph::UnGraph::<(), ()>::from_edges(&map.edges);
            assert_eq!((graph.node_count(), petgraph::algo::connected_components(&graph)), (30, 1));
            assert!(
                fly_distances(&map, &vec![false; map.edges.len()]).iter().all(|&d| d < u32::MAX)
            );
        }
    }
}
