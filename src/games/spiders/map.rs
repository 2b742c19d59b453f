//! Greedy Spiders maps: a graph file with spiders and flies, the paper's path notation
//! (`F B S B S B F`) as a shorthand.
//!
//! The graph format is line based, so every error can name its line:
//!
//! ```text
//! # comments start with `#`
//! nodes 7
//! edge 0 1
//! edge 1 2
//! spiders 2 4      # one vertex per spider; a vertex may repeat (spiders may share it)
//! flies 0 6
//! ```
//!
//! A file whose first non-comment line holds only `F`, `B` and `S` tokens (an optional number may
//! follow a letter, as in the paper's `S1`, and spaces are optional) is a path: vertex `i` is the
//! `i`-th letter, edges join neighbours, spiders are numbered left to right.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::game::{InvalidMap, SetupError};

/// The most vertices a map may have (the generator's largest path); beyond it a map is refused
/// before anything is allocated for it.
pub const MAX_NODES: usize = 1_000_000;
/// The most edges a map may have.
pub const MAX_EDGES: usize = 4_000_000;
/// The most spiders a map may have (one action carries every spider's step).
pub const MAX_SPIDERS: usize = 1_000;
/// The generator's largest `degree`.
pub const MAX_DEGREE: usize = 50;

/// A graph with the spiders' start vertices and the flies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpiderMap {
    pub nodes: usize,
    /// Edge `id` joins `edges[id] = (a, b)` with `a < b`, in file order.
    pub edges: Vec<(u32, u32)>,
    /// `adj[v]`: `(neighbour, edge id)` sorted by neighbour, so ties break towards smaller ids.
    pub adj: Vec<Vec<(u32, u32)>>,
    /// Spider `i` starts on `spiders[i]`.
    pub spiders: Vec<u32>,
    /// Fly vertices, sorted, without repeats.
    pub flies: Vec<u32>,
    pub is_fly: Vec<bool>,
}

impl SpiderMap {
    /// Builds a map, checking every index. Errors are sentences without a location; the readers
    /// add the file and line.
    pub fn new(
        nodes: usize,
        edges: Vec<(u32, u32)>,
        spiders: Vec<u32>,
        flies: Vec<u32>,
    ) -> Result<SpiderMap, InvalidMap> {
        SpiderMap::build(nodes, edges, spiders, flies).map_err(InvalidMap)
    }

    fn build(
        nodes: usize,
        edges: Vec<(u32, u32)>,
        spiders: Vec<u32>,
        flies: Vec<u32>,
    ) -> Result<SpiderMap, String> {
        if nodes == 0 {
            return Err("a map needs at least one vertex".into());
        }
        if nodes > MAX_NODES {
            return Err(format!("{nodes} vertices is more than the {MAX_NODES} a map may have"));
        }
        if edges.len() > MAX_EDGES {
            return Err(format!(
                "{} edges is more than the {MAX_EDGES} a map may have",
                edges.len()
            ));
        }
        if spiders.len() > MAX_SPIDERS {
            return Err(format!(
                "{} spiders is more than the {MAX_SPIDERS} a map may have",
                spiders.len()
            ));
        }
        let in_range = |v: u32, what: &str| {
            if (v as usize) < nodes {
                Ok(())
            } else {
                Err(format!("{what} {v} is not a vertex (nodes = {nodes}, vertices 0..{nodes})"))
            }
        };
        let mut adj = vec![Vec::new(); nodes];
        let mut normalised = Vec::with_capacity(edges.len());
        for (id, &(a, b)) in edges.iter().enumerate() {
            in_range(a, "edge end")?;
            in_range(b, "edge end")?;
            if a == b {
                return Err(format!("edge {a} {b} is a loop"));
            }
            let (a, b) = (a.min(b), a.max(b));
            if adj[a as usize].iter().any(|&(n, _)| n == b) {
                return Err(format!("edge {a} {b} is listed twice"));
            }
            adj[a as usize].push((b, id as u32));
            adj[b as usize].push((a, id as u32));
            normalised.push((a, b));
        }
        for list in &mut adj {
            list.sort_unstable();
        }
        let mut is_fly = vec![false; nodes];
        for &f in &flies {
            in_range(f, "fly")?;
            is_fly[f as usize] = true;
        }
        for (i, &s) in spiders.iter().enumerate() {
            in_range(s, "spider")?;
            if is_fly[s as usize] {
                return Err(format!("spider {i} starts on fly vertex {s}"));
            }
        }
        if spiders.is_empty() {
            return Err("a map needs at least one spider".into());
        }
        if flies.is_empty() {
            return Err("a map needs at least one fly".into());
        }
        let mut flies = flies;
        flies.sort_unstable();
        flies.dedup();
        Ok(SpiderMap { nodes, edges: normalised, adj, spiders, flies, is_fly })
    }

    /// The id of the edge between `a` and `b`, removed or not.
    pub fn edge_between(&self, a: u32, b: u32) -> Option<u32> {
        let list = self.adj.get(a as usize)?;
        list.binary_search_by_key(&b, |&(n, _)| n).ok().map(|i| list[i].1)
    }

    /// The vertices in path order when the graph is one simple path (connected, every degree at
    /// most 2, no cycle), starting from the end with the smaller id; `None` otherwise.
    pub fn path_order(&self) -> Option<Vec<u32>> {
        if self.edges.len() + 1 != self.nodes || self.adj.iter().any(|a| a.len() > 2) {
            return None;
        }
        let start = (0..self.nodes).find(|&v| self.adj[v].len() <= 1)? as u32;
        let mut order = vec![start];
        let mut prev = u32::MAX;
        let mut at = start;
        while let Some(&(next, _)) = self.adj[at as usize].iter().find(|&&(n, _)| n != prev) {
            order.push(next);
            prev = at;
            at = next;
        }
        (order.len() == self.nodes).then_some(order)
    }

    /// The same game as a Skynet network: one spider on the agent's start, flies on the gateways.
    /// Repeated links collapse into one edge.
    pub fn from_skynet(net: &crate::games::skynet::SkynetMap) -> Result<SpiderMap, InvalidMap> {
        let mut seen = std::collections::BTreeSet::new();
        let edges: Vec<(u32, u32)> = net
            .links
            .iter()
            .map(|&(a, b)| (a.min(b), a.max(b)))
            .filter(|e| seen.insert(*e))
            .collect();
        SpiderMap::new(net.nodes, edges, vec![net.agent_start], net.gateways.clone())
    }

    /// The map in the graph file format.
    pub fn to_text(&self) -> String {
        let mut s = format!("nodes {}\n", self.nodes);
        for (a, b) in &self.edges {
            s.push_str(&format!("edge {a} {b}\n"));
        }
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
        s.push_str(&format!("spiders {}\nflies {}\n", list(&self.spiders), list(&self.flies)));
        s
    }

    /// The path notation of a path map whose vertices are numbered along the path, if it is one.
    pub fn to_notation(&self) -> Option<String> {
        let order = self.path_order()?;
        if order.iter().enumerate().any(|(i, &v)| v as usize != i) {
            return None;
        }
        let mut count = vec![0usize; self.nodes];
        for &s in &self.spiders {
            count[s as usize] += 1;
        }
        if count.iter().any(|&c| c > 1) {
            return None;
        }
        let letters: Vec<&str> = (0..self.nodes)
            .map(|v| match (self.is_fly[v], count[v]) {
                (true, _) => "F",
                (false, 1) => "S",
                _ => "B",
            })
            .collect();
        Some(letters.join(" "))
    }

    pub fn into_arc(self) -> Arc<SpiderMap> {
        Arc::new(self)
    }
}

/// Whether `line` is the paper's path notation (only `F`, `B`, `S` letters, each optionally
/// followed by a label number, spaces optional).
fn is_notation(line: &str) -> bool {
    let mut letters = 0;
    for c in line.chars() {
        match c {
            'F' | 'B' | 'S' => letters += 1,
            c if c.is_ascii_digit() || c.is_whitespace() => {}
            _ => return false,
        }
    }
    letters > 0 && !line.trim_start().starts_with(|c: char| c.is_ascii_digit())
}

/// The error of a line that starts with no keyword. A line that starts like the path notation
/// (`F B Q S`) names its first character that is not one, rather than its first word.
fn unknown_keyword(line: &str) -> String {
    let first = line.split_whitespace().next().unwrap_or("");
    if first.starts_with(['F', 'B', 'S']) && first[1..].chars().all(|c| c.is_ascii_digit()) {
        if let Some(bad) = line
            .split_whitespace()
            .find(|w| !w.chars().all(|c| "FBS".contains(c) || c.is_ascii_digit()))
        {
            return format!(
                "`{bad}` is not a path letter (expected `F`, `B` or `S`, each optionally followed \
                 by a number, as in `F B S1 B S2 B F`)"
            );
        }
    }
    format!(
        "unknown keyword `{first}` (expected nodes, edge, spiders, flies, or a path such as \
         `F B S B F`)"
    )
}

/// Reads the path notation (`F B S B S B F` or `FBS1BS2BF`).
pub fn parse_notation(name: &str, line_no: usize, line: &str) -> Result<SpiderMap, SetupError> {
    let mut spiders = Vec::new();
    let mut flies = Vec::new();
    let mut nodes = 0u32;
    for c in line.chars() {
        match c {
            'F' => flies.push(nodes),
            'S' => spiders.push(nodes),
            'B' => {}
            _ => continue,
        }
        nodes += 1;
    }
    let edges = (1..nodes).map(|v| (v - 1, v)).collect();
    SpiderMap::new(nodes as usize, edges, spiders, flies)
        .map_err(|m| SetupError::map(name, Some(line_no), m))
}

/// Reads a map in either format (detected from the first non-comment line).
pub fn parse_map(name: &str, text: &str) -> Result<SpiderMap, SetupError> {
    let err = |line: Option<usize>, msg: String| SetupError::map(name, line, msg);
    let content = |l: &str| l.split('#').next().unwrap_or("").trim().to_string();
    let lines: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, content(l)))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let Some((first_no, first)) = lines.first() else {
        return Err(err(None, "the map is empty".into()));
    };
    if is_notation(first) {
        if let Some((n, _)) = lines.get(1) {
            return Err(err(Some(*n), "a path-notation map is a single line".into()));
        }
        return parse_notation(name, *first_no, first);
    }
    let mut nodes: Option<(usize, usize)> = None;
    let mut edges = Vec::new();
    let mut edge_lines = Vec::new();
    let mut spiders: Option<(usize, Vec<u32>)> = None;
    let mut flies: Option<(usize, Vec<u32>)> = None;
    for (n, line) in &lines {
        let n = *n;
        let mut words = line.split_whitespace();
        let keyword = words.next().unwrap_or("");
        if !["nodes", "edge", "spiders", "flies"].contains(&keyword) {
            return Err(err(Some(n), unknown_keyword(line)));
        }
        let expected = if keyword == "nodes" {
            format!("a count from 1 to {MAX_NODES}")
        } else {
            "a vertex".to_string()
        };
        let numbers: Vec<u32> = words
            .map(|w| w.parse::<u32>().map_err(|_| err(Some(n), format!("`{w}` is not {expected}"))))
            .collect::<Result<_, _>>()?;
        match keyword {
            "nodes" => {
                if nodes.is_some() {
                    return Err(err(Some(n), "a second `nodes` line".into()));
                }
                match numbers.as_slice() {
                    [v] if (1..=MAX_NODES).contains(&(*v as usize)) => {
                        nodes = Some((n, *v as usize));
                    }
                    _ => {
                        return Err(err(
                            Some(n),
                            format!("`{line}`: expected `nodes N` with N from 1 to {MAX_NODES}"),
                        ));
                    }
                }
            }
            "edge" => match numbers.as_slice() {
                [_, _] if edges.len() == MAX_EDGES => {
                    return Err(err(Some(n), format!("more than {MAX_EDGES} edges")));
                }
                [a, b] => {
                    edges.push((*a, *b));
                    edge_lines.push(n);
                }
                _ => {
                    return Err(err(
                        Some(n),
                        format!("expected `edge U V`, found `{}`", line.trim()),
                    ));
                }
            },
            "spiders" | "flies" => {
                let slot = if keyword == "spiders" { &mut spiders } else { &mut flies };
                if slot.is_some() {
                    return Err(err(Some(n), format!("a second `{keyword}` line")));
                }
                if numbers.is_empty() {
                    return Err(err(Some(n), format!("`{keyword}` needs at least one vertex")));
                }
                if keyword == "spiders" && numbers.len() > MAX_SPIDERS {
                    return Err(err(
                        Some(n),
                        format!("{} spiders is more than {MAX_SPIDERS}", numbers.len()),
                    ));
                }
                *slot = Some((n, numbers));
            }
            _ => unreachable!("keywords are checked above"),
        }
    }
    let Some((nodes_line, nodes)) = nodes else {
        return Err(err(None, "no `nodes N` line".into()));
    };
    let Some((spider_line, spiders)) = spiders else {
        return Err(err(None, "no `spiders ...` line".into()));
    };
    let Some((fly_line, flies)) = flies else {
        return Err(err(None, "no `flies ...` line".into()));
    };
    // Check piece by piece so the error names the line at fault.
    let vertex = |v: u32, what: &str, line: usize| {
        if (v as usize) < nodes {
            Ok(())
        } else {
            Err(err(
                Some(line),
                format!("{what} {v} is not a vertex (nodes = {nodes}, vertices 0..{nodes})"),
            ))
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    for (&(a, b), &n) in edges.iter().zip(&edge_lines) {
        vertex(a, "edge end", n)?;
        vertex(b, "edge end", n)?;
        if a == b {
            return Err(err(Some(n), format!("edge {a} {b} is a loop")));
        }
        if !seen.insert((a.min(b), a.max(b))) {
            return Err(err(Some(n), format!("edge {a} {b} is listed twice")));
        }
    }
    for &f in &flies {
        vertex(f, "fly", fly_line)?;
    }
    for (i, &s) in spiders.iter().enumerate() {
        vertex(s, "spider", spider_line)?;
        if flies.contains(&s) {
            return Err(err(Some(spider_line), format!("spider {i} starts on fly vertex {s}")));
        }
    }
    SpiderMap::new(nodes, edges, spiders, flies).map_err(|m| err(Some(nodes_line), m.into()))
}

/// Multi-source BFS distances from the flies over the edges `cut` leaves, `u32::MAX` where no
/// fly can be reached.
pub fn fly_distances(map: &SpiderMap, cut: &impl Cuts) -> Vec<u32> {
    let mut dist = vec![u32::MAX; map.nodes];
    let mut queue = VecDeque::new();
    for &f in &map.flies {
        dist[f as usize] = 0;
        queue.push_back(f);
    }
    while let Some(v) = queue.pop_front() {
        for &(w, e) in &map.adj[v as usize] {
            if !cut.is_cut(e) && dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[v as usize] + 1;
                queue.push_back(w);
            }
        }
    }
    dist
}

/// Which edges are gone: the rules keep a `Vec<bool>`, the solver a bitmask.
pub trait Cuts {
    fn is_cut(&self, edge: u32) -> bool;
}

impl Cuts for [bool] {
    fn is_cut(&self, edge: u32) -> bool {
        self[edge as usize]
    }
}

impl Cuts for Vec<bool> {
    fn is_cut(&self, edge: u32) -> bool {
        self[edge as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_is_detected_with_or_without_spaces_and_labels() {
        let a = parse_map("a", "# the paper\nF B S B S B F\n").unwrap();
        let b = parse_map("b", "FBS1BS2BF").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.nodes, 7);
        assert_eq!(a.spiders, vec![2, 4]);
        assert_eq!(a.flies, vec![0, 6]);
        assert_eq!(a.to_notation().unwrap(), "F B S B S B F");
    }

    #[test]
    fn graph_format_round_trips() {
        let text = "nodes 4\nedge 0 1\nedge 1 2 # trailing comment\nedge 2 3\nedge 3 0\n\
                    spiders 1 1\nflies 3\n";
        let map = parse_map("g", text).unwrap();
        assert_eq!(map.spiders, vec![1, 1]);
        assert_eq!(map.edge_between(0, 3), Some(3));
        assert_eq!(parse_map("g", &map.to_text()).unwrap(), map);
        assert_eq!(map.path_order(), None);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("nodes 3\nedge 0 1\nedge 1 5\nspiders 0\nflies 2\n", 3, "not a vertex"),
            ("nodes 3\nedge 0 1\nedge 1 0\nspiders 0\nflies 2\n", 3, "twice"),
            ("nodes 3\nedge 0 1\nspiders 2\nflies 2\n", 3, "starts on fly"),
            ("nodes 3\nedge 0 x\n", 2, "not a vertex"),
            ("nodes 3\nwall 0 1\n", 2, "unknown keyword"),
            ("F B S\nF\n", 2, "single line"),
            ("nodes 3\nspiders 0\nflies 9\n", 3, "not a vertex"),
        ];
        for (text, line, words) in cases {
            let e = parse_map("m.txt", text).unwrap_err();
            let s = e.to_string();
            assert!(s.contains("m.txt") && s.contains(&format!("line {line}")), "{s}");
            assert!(s.contains(words), "{s}");
        }
        assert!(
            parse_map("m", "nodes 2\nedge 0 1\nflies 1\n")
                .unwrap_err()
                .to_string()
                .contains("spiders")
        );
    }

    #[test]
    fn path_order_follows_the_path() {
        let map = SpiderMap::new(4, vec![(2, 0), (0, 3), (3, 1)], vec![2], vec![1]).unwrap();
        assert_eq!(map.path_order(), Some(vec![1, 3, 0, 2]));
    }
}

#[cfg(test)]
mod skynet_tests {
    use super::*;
    use crate::games::skynet::Episode;
    use crate::games::skynet::map::parse_map;

    #[test]
    fn a_skynet_network_is_a_one_spider_map() {
        let text = include_str!("../../../arenas/maps/skynet/ep1_statement_example.txt");
        let net = parse_map("ep1", text, Episode::Ep1).unwrap().map;
        let map = SpiderMap::from_skynet(&net).unwrap();
        assert_eq!(map.nodes, net.nodes);
        assert_eq!(map.spiders, vec![net.agent_start]);
        let mut gateways = net.gateways.clone();
        gateways.sort_unstable();
        gateways.dedup();
        assert_eq!(map.flies, gateways);
        for &(a, b) in &net.links {
            assert!(map.edge_between(a, b).is_some());
        }
    }
}
