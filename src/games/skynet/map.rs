//! Skynet maps: reading both file formats a map comes in, and checking it against CodinGame's
//! limits.
//!
//! Two formats are read, told apart by their first word:
//! - the bot protocol's init block (`N L E`, L links, E gateways) with `#` comment lines, one of
//!   them `# AGENT_START s`, which is what `arena gen` writes;
//! - CodinGame's internal "custom test" format, which starts with the word `LOCKED`: `N`, N lines
//!   of UI coordinates, `L`, L links, the agent's start, `E`, E gateways.
//!
//! A malformed map is a [`SetupError`] naming the file and the line. A map that is well formed
//! but beyond the statements' limits still plays; [`ParsedMap::warnings`] says how.

use std::sync::Arc;

use super::episode::Episode;
use crate::game::{InvalidMap, SetupError};

/// The largest node count accepted at all: beyond CodinGame's 500 a map plays with a warning,
/// but a typo such as `5000000000` must not allocate the machine away.
pub const MAX_NODES: usize = 100_000;
/// The largest link count accepted at all (CodinGame's limit is 1000).
pub const MAX_LINKS: usize = 1_000_000;

/// A Skynet network: nodes `0..n`, undirected links, gateways and the agent's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkynetMap {
    pub nodes: usize,
    /// Links in input order; link `i` is `links[i]`. Never a self-loop, never a duplicate.
    pub links: Vec<(u32, u32)>,
    /// Gateways in input order, each once.
    pub gateways: Vec<u32>,
    pub agent_start: u32,
    /// `is_gateway[v]`.
    pub is_gateway: Vec<bool>,
    /// For each node, `(neighbour, link id)` in insertion order: link `a b` appends `b` to `a`'s
    /// list and `a` to `b`'s, which is the order the CodinGame agent breaks ties in.
    pub adj: Vec<Vec<(u32, u32)>>,
}

/// A map read from text, with what is unusual about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedMap {
    pub map: SkynetMap,
    /// Things that do not stop the map from playing: merged duplicates, limits exceeded.
    pub warnings: Vec<String>,
}

impl SkynetMap {
    /// Builds a map and its adjacency, checking every index. Links must be distinct non-loops.
    pub fn new(
        nodes: usize,
        links: Vec<(u32, u32)>,
        gateways: Vec<u32>,
        agent_start: u32,
    ) -> Result<SkynetMap, InvalidMap> {
        SkynetMap::build(nodes, links, gateways, agent_start).map_err(InvalidMap)
    }

    fn build(
        nodes: usize,
        links: Vec<(u32, u32)>,
        gateways: Vec<u32>,
        agent_start: u32,
    ) -> Result<SkynetMap, String> {
        let mut is_gateway = vec![false; nodes];
        for &g in &gateways {
            let g = g as usize;
            if g >= nodes {
                return Err(format!("gateway {g} is not a node (N = {nodes})"));
            }
            if is_gateway[g] {
                return Err(format!("gateway {g} is listed twice"));
            }
            is_gateway[g] = true;
        }
        if agent_start as usize >= nodes {
            return Err(format!("agent start {agent_start} is not a node (N = {nodes})"));
        }
        let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nodes];
        for (id, &(a, b)) in links.iter().enumerate() {
            if a as usize >= nodes || b as usize >= nodes {
                return Err(format!("link {a} {b} names a node outside 0..{nodes}"));
            }
            if a == b {
                return Err(format!("link {a} {b} is a self-loop"));
            }
            if adj[a as usize].iter().any(|&(n, _)| n == b) {
                return Err(format!("link {a} {b} is listed twice"));
            }
            adj[a as usize].push((b, id as u32));
            adj[b as usize].push((a, id as u32));
        }
        Ok(SkynetMap { nodes, links, gateways, agent_start, is_gateway, adj })
    }

    /// The id of the link between `a` and `b` among those not yet cut, if any.
    pub fn link_between(&self, a: u32, b: u32, cut: &[bool]) -> Option<u32> {
        let list = self.adj.get(a as usize)?;
        list.iter().find(|&&(n, id)| n == b && !cut[id as usize]).map(|&(_, id)| id)
    }

    /// Whether link `id` has a gateway at one end (the only links Episode 2 lets the virus cut).
    pub fn is_gateway_link(&self, id: u32) -> bool {
        let (a, b) = self.links[id as usize];
        self.is_gateway[a as usize] || self.is_gateway[b as usize]
    }

    /// The number of links from `v` to a gateway in the full map.
    pub fn gateway_links_at(&self, v: u32) -> usize {
        self.adj[v as usize].iter().filter(|&&(n, _)| self.is_gateway[n as usize]).count()
    }

    /// The init block of the bot protocol: `N L E`, the links, the gateways.
    pub fn init_block(&self) -> String {
        let mut s = format!("{} {} {}\n", self.nodes, self.links.len(), self.gateways.len());
        for (a, b) in &self.links {
            s.push_str(&format!("{a} {b}\n"));
        }
        for g in &self.gateways {
            s.push_str(&format!("{g}\n"));
        }
        s
    }

    /// The map in the bot-protocol file format, with its `# AGENT_START` line.
    pub fn to_text(&self) -> String {
        format!("# AGENT_START {}\n{}", self.agent_start, self.init_block())
    }

    /// How the map goes beyond the statements' limits for `episode` (empty if it does not).
    pub fn limit_warnings(&self, episode: Episode) -> Vec<String> {
        let mut w = Vec::new();
        if self.nodes < 2 {
            w.push(format!("N = {} is below CodinGame's minimum of 2", self.nodes));
        }
        if self.nodes > 500 {
            w.push(format!("N = {} is above CodinGame's limit of 500", self.nodes));
        }
        if self.links.is_empty() {
            w.push("L = 0 is below CodinGame's minimum of 1".to_string());
        }
        if self.links.len() > 1000 {
            w.push(format!("L = {} is above CodinGame's limit of 1000", self.links.len()));
        }
        if self.gateways.is_empty() {
            w.push("E = 0 is below CodinGame's minimum of 1".to_string());
        }
        if self.gateways.len() > 20 {
            w.push(format!("E = {} is above CodinGame's limit of 20", self.gateways.len()));
        }
        let allowed = episode.gateway_links_per_node();
        let crowded: Vec<String> = (0..self.nodes as u32)
            .filter(|&v| !self.is_gateway[v as usize] && self.gateway_links_at(v) > allowed)
            .map(|v| v.to_string())
            .collect();
        if !crowded.is_empty() {
            let shown = crowded.iter().take(10).cloned().collect::<Vec<_>>().join(", ");
            let more = if crowded.len() > 10 { ", ..." } else { "" };
            w.push(format!(
                "{} node(s) touch more than {allowed} gateway(s), beyond the {} statement: {shown}{more}",
                crowded.len(),
                match episode {
                    Episode::Ep1 => "Episode 1",
                    Episode::Ep2 => "Episode 2",
                }
            ));
        }
        w
    }

    pub fn into_arc(self) -> Arc<SkynetMap> {
        Arc::new(self)
    }
}

/// The words of a map file with the line each came from, `#` lines set aside.
struct Words<'t> {
    name: &'t str,
    words: Vec<(usize, &'t str)>,
    pos: usize,
    last_line: usize,
}

impl<'t> Words<'t> {
    fn err(&self, line: Option<usize>, message: impl Into<String>) -> SetupError {
        SetupError::map(self.name, line, message)
    }

    fn peek(&self) -> Option<&'t str> {
        self.words.get(self.pos).map(|&(_, w)| w)
    }

    /// The next word as a count or index, with its line.
    fn int(&mut self, what: &str) -> Result<(usize, u32), SetupError> {
        match self.words.get(self.pos).copied() {
            None => Err(self.err(Some(self.last_line), format!("the map ends before {what}"))),
            Some((n, w)) => {
                self.pos += 1;
                w.parse::<u32>()
                    .map(|v| (n, v))
                    .map_err(|_| self.err(Some(n), format!("expected {what}, found `{w}`")))
            }
        }
    }

    /// The next word as a signed integer (a coordinate).
    fn signed(&mut self, what: &str) -> Result<(), SetupError> {
        match self.words.get(self.pos).copied() {
            None => Err(self.err(Some(self.last_line), format!("the map ends before {what}"))),
            Some((n, w)) => {
                self.pos += 1;
                w.parse::<f64>()
                    .map(|_| ())
                    .map_err(|_| self.err(Some(n), format!("expected {what}, found `{w}`")))
            }
        }
    }

    /// A count, bounded so that a wrong number fails here instead of allocating.
    fn count(&mut self, what: &str, max: usize) -> Result<(usize, usize), SetupError> {
        if let Some(&(n, w)) = self.words.get(self.pos)
            && w.parse::<u64>().is_ok_and(|v| v > max as u64)
        {
            return Err(self.err(Some(n), format!("{what} = {w} is larger than {max}")));
        }
        let (line, v) = self.int(what)?;
        if v as usize > max {
            return Err(self.err(Some(line), format!("{what} = {v} is larger than {max}")));
        }
        Ok((line, v as usize))
    }

    fn end(&self, after: &str) -> Result<(), SetupError> {
        match self.words.get(self.pos) {
            None => Ok(()),
            Some(&(n, w)) => Err(self.err(Some(n), format!("unexpected `{w}` after {after}"))),
        }
    }
}

/// Reads a map in either format (see the module documentation), for `episode`'s limits.
pub fn parse_map(name: &str, text: &str, episode: Episode) -> Result<ParsedMap, SetupError> {
    let mut start: Option<(usize, u32)> = None;
    let mut words = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if let Some(comment) = t.strip_prefix('#') {
            let mut it = comment.split_whitespace();
            if it.next() == Some("AGENT_START") {
                let err = |m: String| SetupError::map(name, Some(n), m);
                let v = it.next().ok_or_else(|| err("AGENT_START needs a node".into()))?;
                let s = v.parse().map_err(|_| err(format!("bad AGENT_START `{v}`")))?;
                if start.is_some() {
                    return Err(err("a second AGENT_START line".into()));
                }
                start = Some((n, s));
            }
            continue;
        }
        words.extend(t.split_whitespace().map(|w| (n, w)));
    }
    let mut words = Words { name, words, pos: 0, last_line: text.lines().count().max(1) };
    if words.peek() == Some("LOCKED") {
        words.pos += 1;
        parse_locked(&mut words, episode)
    } else {
        parse_protocol(&mut words, start, episode)
    }
}

fn parse_protocol(
    words: &mut Words<'_>,
    start: Option<(usize, u32)>,
    episode: Episode,
) -> Result<ParsedMap, SetupError> {
    let (n_line, nodes) = words.count("N", MAX_NODES)?;
    let (_, l) = words.count("L", MAX_LINKS)?;
    let (_, e) = words.count("E", MAX_NODES)?;
    check_nodes(words, n_line, nodes)?;
    let links = read_links(words, nodes, l)?;
    let gateways = read_gateways(words, nodes, e)?;
    words.end(&format!("the {e} gateways"))?;
    let start = start.ok_or_else(|| words.err(None, "no `# AGENT_START s` line"))?;
    finish(words, nodes, links, gateways, start, episode)
}

fn parse_locked(words: &mut Words<'_>, episode: Episode) -> Result<ParsedMap, SetupError> {
    let (n_line, nodes) = words.count("N", MAX_NODES)?;
    check_nodes(words, n_line, nodes)?;
    for i in 0..nodes {
        words.signed(&format!("the x coordinate of node {i}"))?;
        words.signed(&format!("the y coordinate of node {i}"))?;
    }
    let (_, l) = words.count("L", MAX_LINKS)?;
    let links = read_links(words, nodes, l)?;
    let start = words.int("the agent's start")?;
    let (_, e) = words.count("E", MAX_NODES)?;
    let gateways = read_gateways(words, nodes, e)?;
    words.end(&format!("the {e} gateways"))?;
    finish(words, nodes, links, gateways, start, episode)
}

fn check_nodes(words: &Words<'_>, line: usize, nodes: usize) -> Result<(), SetupError> {
    if nodes < 1 {
        return Err(words.err(Some(line), "N must be at least 1"));
    }
    Ok(())
}

/// Links with the line each came from.
fn read_links(
    words: &mut Words<'_>,
    nodes: usize,
    l: usize,
) -> Result<Vec<(usize, u32, u32)>, SetupError> {
    let mut links = Vec::with_capacity(l.min(words.words.len()));
    for i in 0..l {
        let what = format!("link {} of {l}", i + 1);
        let (line, a) = words.int(&what)?;
        let (_, b) = words.int(&what)?;
        for v in [a, b] {
            if v as usize >= nodes {
                return Err(
                    words.err(Some(line), format!("link {a} {b}: no node {v} (N = {nodes})"))
                );
            }
        }
        if a == b {
            return Err(words.err(Some(line), format!("link {a} {b} is a self-loop")));
        }
        links.push((line, a, b));
    }
    Ok(links)
}

fn read_gateways(
    words: &mut Words<'_>,
    nodes: usize,
    e: usize,
) -> Result<Vec<(usize, u32)>, SetupError> {
    let mut gateways = Vec::with_capacity(e.min(words.words.len()));
    for i in 0..e {
        let (line, g) = words.int(&format!("gateway {} of {e}", i + 1))?;
        if g as usize >= nodes {
            return Err(words.err(Some(line), format!("gateway {g} is not a node (N = {nodes})")));
        }
        if gateways.iter().any(|&(_, h)| h == g) {
            return Err(words.err(Some(line), format!("gateway {g} is listed twice")));
        }
        gateways.push((line, g));
    }
    Ok(gateways)
}

/// Merges duplicate links (keeping the first, so the adjacency order is the first one's) and
/// checks the start.
fn finish(
    words: &Words<'_>,
    nodes: usize,
    links: Vec<(usize, u32, u32)>,
    gateways: Vec<(usize, u32)>,
    (start_line, start): (usize, u32),
    episode: Episode,
) -> Result<ParsedMap, SetupError> {
    if start as usize >= nodes {
        return Err(
            words.err(Some(start_line), format!("agent start {start} is not a node (N = {nodes})"))
        );
    }
    if gateways.iter().any(|&(_, g)| g == start) {
        return Err(words.err(Some(start_line), format!("the agent starts on gateway {start}")));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut kept = Vec::with_capacity(links.len());
    let mut duplicate_lines = Vec::new();
    for (line, a, b) in links {
        if seen.insert((a.min(b), a.max(b))) {
            kept.push((a, b));
        } else {
            duplicate_lines.push(line.to_string());
        }
    }
    let mut warnings = Vec::new();
    if !duplicate_lines.is_empty() {
        warnings.push(format!(
            "map `{}`: {} duplicate link(s) merged into the first copy (lines {})",
            words.name,
            duplicate_lines.len(),
            duplicate_lines.join(", ")
        ));
    }
    let gateways = gateways.into_iter().map(|(_, g)| g).collect();
    let map = SkynetMap::new(nodes, kept, gateways, start).map_err(|m| words.err(None, m))?;
    warnings.extend(
        map.limit_warnings(episode).into_iter().map(|w| format!("map `{}`: {w}", words.name)),
    );
    Ok(ParsedMap { map, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ParsedMap, SetupError> {
        parse_map("m.txt", text, Episode::Ep2)
    }

    fn error_line(text: &str) -> (Option<usize>, String) {
        match parse(text) {
            Err(SetupError::Map { map, line, message }) => {
                assert_eq!(map, "m.txt");
                (line, message)
            }
            other => panic!("expected a map error, got {other:?}"),
        }
    }

    #[test]
    fn reads_every_shipped_map() {
        for (name, text) in super::super::tests_support::SHIPPED_MAPS {
            let parsed = parse_map(name, text, Episode::Ep2).unwrap();
            assert!(parsed.map.nodes >= 4, "{name}");
        }
    }

    #[test]
    fn locked_format_matches_the_protocol_copy_of_the_same_test() {
        let locked =
            parse(include_str!("../../../arenas/maps/skynet/ep2_01_from_forum_with_coords.cg.txt"))
                .unwrap();
        let protocol = parse(include_str!("../../../arenas/maps/skynet/ep2_01.txt")).unwrap();
        assert_eq!(locked.map, protocol.map);
        assert!(locked.warnings.is_empty());
    }

    #[test]
    fn duplicate_links_are_merged_into_the_first_copy_with_a_warning() {
        let text = include_str!("../../../arenas/maps/skynet/extra_teaching_gamma.txt");
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.map.links.len(), 38 - 11);
        assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
        assert!(parsed.warnings[0].contains("11 duplicate link(s)"), "{:?}", parsed.warnings);
        // `0 1` comes before `1 0`, so node 0's neighbours keep the first copy's position.
        let n0: Vec<u32> = parsed.map.adj[0].iter().map(|&(n, _)| n).collect();
        assert_eq!(n0, vec![5, 1, 6]);
        // The line of `1 0` (file line 8) is named.
        assert!(parsed.warnings[0].contains("lines 8,"), "{:?}", parsed.warnings);
    }

    #[test]
    fn malformed_maps_name_the_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("# AGENT_START 0\n3 2 1\n0 1\n1 7\n2\n", 4, "no node 7"),
            ("# AGENT_START 0\n3 2 1\n0 1\n1 1\n2\n", 4, "self-loop"),
            ("# AGENT_START 0\n3 2 1\n0 1\n1 2\n2\n5\n", 6, "unexpected `5`"),
            ("# AGENT_START 0\n3 3 1\n0 1\n1 2\n2\n", 5, "ends before"),
            ("# AGENT_START 0\n3 2 1\n0 1\n1 x\n2\n", 4, "found `x`"),
            ("# AGENT_START 0\n3 2 1\n0 1\n1 2\n9\n", 5, "gateway 9"),
            ("# AGENT_START 7\n3 2 1\n0 1\n1 2\n2\n", 1, "agent start 7"),
            ("# AGENT_START 2\n3 2 1\n0 1\n1 2\n2\n", 1, "starts on gateway"),
            ("# AGENT_START\n3 2 1\n0 1\n1 2\n2\n", 1, "needs a node"),
            ("# AGENT_START 0\n0 0 0\n", 2, "at least 1"),
            ("# AGENT_START 0\n3 99999999 1\n", 2, "larger than"),
            ("LOCKED\n2\n0 0\n1 1\n1\n0 1\n0\n1\n1\n0\n", 10, "unexpected `0`"),
            ("LOCKED\n2\n0 0\n1 x\n", 4, "y coordinate of node 1"),
            ("LOCKED\n2\n0 0\n1 1\n1\n0 1\n3\n1\n1\n", 7, "agent start 3"),
        ];
        for &(text, line, needle) in cases {
            let (l, message) = error_line(text);
            assert_eq!(l, Some(line), "{text:?}: {message}");
            assert!(message.contains(needle), "{text:?}: {message}");
        }
        let (line, message) = error_line("3 2 1\n0 1\n1 2\n2\n");
        assert_eq!(line, None);
        assert!(message.contains("AGENT_START"), "{message}");
    }

    #[test]
    fn maps_beyond_the_limits_play_with_warnings() {
        // Node 0 touches three gateways: too many for both episodes.
        let text = "# AGENT_START 4\n5 4 3\n0 1\n0 2\n0 3\n4 0\n1\n2\n3\n";
        let ep2 = parse_map("m.txt", text, Episode::Ep2).unwrap();
        assert_eq!(ep2.warnings.len(), 1, "{:?}", ep2.warnings);
        assert!(ep2.warnings[0].contains("more than 2 gateway"), "{:?}", ep2.warnings);
        let two = "# AGENT_START 3\n4 3 2\n0 1\n0 2\n3 0\n1\n2\n";
        assert!(parse_map("m.txt", two, Episode::Ep2).unwrap().warnings.is_empty());
        let ep1 = parse_map("m.txt", two, Episode::Ep1).unwrap();
        assert!(ep1.warnings[0].contains("more than 1 gateway"), "{:?}", ep1.warnings);
        let mut big = String::from("# AGENT_START 0\n600 599 1\n");
        for v in 1..600 {
            big.push_str(&format!("{} {v}\n", v - 1));
        }
        big.push_str("599\n");
        let parsed = parse(&big).unwrap();
        assert!(parsed.warnings.iter().any(|w| w.contains("N = 600")), "{:?}", parsed.warnings);
    }

    #[test]
    fn to_text_reads_back() {
        let parsed = parse(include_str!("../../../arenas/maps/skynet/ep2_03.txt")).unwrap();
        let again = parse(&parsed.map.to_text()).unwrap();
        assert_eq!(parsed.map, again.map);
    }
}
