//! Skynet maps: the bot protocol's init block with `#` header lines (`# AGENT_START s`).

use std::sync::Arc;

use crate::games::SetupError;

/// A Skynet network: nodes `0..n`, undirected links, gateways and the agent's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkynetMap {
    pub nodes: usize,
    /// Links in input order; link `i` is `links[i]`.
    pub links: Vec<(u32, u32)>,
    /// Gateways in input order.
    pub gateways: Vec<u32>,
    pub agent_start: u32,
    /// `is_gateway[v]`.
    pub is_gateway: Vec<bool>,
    /// For each node, `(neighbour, link id)` in insertion order: link `a b` appends `b` to `a`'s
    /// list and `a` to `b`'s, which is the order the CodinGame agent breaks ties in.
    pub adj: Vec<Vec<(u32, u32)>>,
}

impl SkynetMap {
    /// Builds a map and its adjacency, checking every index.
    pub fn new(
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
            is_gateway[g] = true;
        }
        if agent_start as usize >= nodes {
            return Err(format!("agent start {agent_start} is not a node (N = {nodes})"));
        }
        let mut adj = vec![Vec::new(); nodes];
        for (id, &(a, b)) in links.iter().enumerate() {
            if a as usize >= nodes || b as usize >= nodes {
                return Err(format!("link {a} {b} names a node outside 0..{nodes}"));
            }
            if a == b {
                return Err(format!("link {a} {b} is a self-loop"));
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

    pub fn into_arc(self) -> Arc<SkynetMap> {
        Arc::new(self)
    }
}

/// Reads a map in the bot-protocol format: `#` lines anywhere (one of them `# AGENT_START s`),
/// then `N L E`, L links and E gateways, as whitespace-separated integers.
pub fn parse_protocol_map(name: &str, text: &str) -> Result<SkynetMap, SetupError> {
    let err = |line: Option<usize>, msg: String| SetupError::map(name, line, msg);
    let mut start: Option<u32> = None;
    let mut tokens: Vec<(usize, &str)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if let Some(comment) = t.strip_prefix('#') {
            let mut words = comment.split_whitespace();
            if words.next() == Some("AGENT_START") {
                let v =
                    words.next().ok_or_else(|| err(Some(n), "AGENT_START needs a node".into()))?;
                start =
                    Some(v.parse().map_err(|_| err(Some(n), format!("bad AGENT_START `{v}`")))?);
            }
            continue;
        }
        tokens.extend(t.split_whitespace().map(|w| (n, w)));
    }
    let mut it = tokens.into_iter();
    let last_line = text.lines().count().max(1);
    let mut next = |what: &str| -> Result<(usize, u32), SetupError> {
        match it.next() {
            None => Err(err(Some(last_line), format!("the map ends before {what}"))),
            Some((n, w)) => w
                .parse::<u32>()
                .map(|v| (n, v))
                .map_err(|_| err(Some(n), format!("expected {what}, found `{w}`"))),
        }
    };
    let (hn, nodes) = next("N")?;
    let (_, l) = next("L")?;
    let (_, e) = next("E")?;
    if nodes < 1 {
        return Err(err(Some(hn), "N must be at least 1".into()));
    }
    let mut links = Vec::with_capacity(l as usize);
    let mut line_of_link = Vec::with_capacity(l as usize);
    for i in 0..l {
        let (n, a) = next(&format!("link {} of {l}", i + 1))?;
        let (_, b) = next(&format!("link {} of {l}", i + 1))?;
        links.push((a, b));
        line_of_link.push(n);
    }
    let mut gateways = Vec::with_capacity(e as usize);
    let mut line_of_gateway = Vec::new();
    for i in 0..e {
        let (n, g) = next(&format!("gateway {} of {e}", i + 1))?;
        gateways.push(g);
        line_of_gateway.push(n);
    }
    if let Some((n, w)) = it.next() {
        return Err(err(Some(n), format!("unexpected `{w}` after the {e} gateways")));
    }
    // Name the offending line for index errors, which `SkynetMap::new` reports without lines.
    for (i, &(a, b)) in links.iter().enumerate() {
        if a as usize >= nodes as usize || b as usize >= nodes as usize || a == b {
            let msg = SkynetMap::new(nodes as usize, vec![(a, b)], vec![], 0).unwrap_err();
            return Err(err(Some(line_of_link[i]), msg));
        }
    }
    for (i, &g) in gateways.iter().enumerate() {
        if g >= nodes {
            return Err(err(
                Some(line_of_gateway[i]),
                format!("gateway {g} is not a node (N = {nodes})"),
            ));
        }
    }
    let start = start.ok_or_else(|| err(None, "no `# AGENT_START s` line".into()))?;
    SkynetMap::new(nodes as usize, links, gateways, start).map_err(|m| err(None, m))
}
