//! An external Skynet Revolution bot in Rust, for both roles: it plays the role arena names in
//! `ARENA_ROLE` (`virus` unless told otherwise), through the line protocol on stdin/stdout.
//!
//! It uses the standard library only, so arena compiles it as a CodinGame source (`cg:`, with
//! `rustc -O`, once, into its cache) and no Cargo project is needed:
//!
//! ```sh
//! arena play skynet --bot virus=cg:bots/skynet_bot.rs --bot agent=random
//! arena play skynet --bot virus=random --bot agent=cg:bots/skynet_bot.rs
//! ```
//!
//! The virus cuts a gateway link at the agent when there is one; otherwise it finds, by a 0-1
//! breadth-first search in which stepping onto a node next to a gateway costs the agent nothing,
//! the closest node with the most gateway links, and cuts one of them. The agent walks a shortest
//! path to the nearest gateway.

use std::collections::{BTreeSet, VecDeque};
use std::io::{self, BufRead, Write};

/// The map as the init block describes it, minus the links cut so far.
pub(crate) struct Network {
    links: Vec<BTreeSet<usize>>,
    gateway: Vec<bool>,
}

fn numbers(line: &str) -> io::Result<Vec<i64>> {
    line.split_whitespace()
        .map(|w| {
            w.parse().map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{w}: {e}")))
        })
        .collect()
}

fn next_numbers(
    lines: &mut impl Iterator<Item = io::Result<String>>,
) -> io::Result<Option<Vec<i64>>> {
    match lines.next() {
        Some(line) => numbers(&line?).map(Some),
        None => Ok(None),
    }
}

fn eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the init block ended early")
}

impl Network {
    /// Reads `N L E`, L links and E gateways.
    pub(crate) fn read(
        lines: &mut impl Iterator<Item = io::Result<String>>,
    ) -> io::Result<Network> {
        let head = next_numbers(lines)?.ok_or_else(eof)?;
        let [n, l, e] = head[..] else { return Err(eof()) };
        let mut net =
            Network { links: vec![BTreeSet::new(); n as usize], gateway: vec![false; n as usize] };
        for _ in 0..l {
            let link = next_numbers(lines)?.ok_or_else(eof)?;
            let [a, b] = link[..] else { return Err(eof()) };
            net.links[a as usize].insert(b as usize);
            net.links[b as usize].insert(a as usize);
        }
        for _ in 0..e {
            let g = next_numbers(lines)?.ok_or_else(eof)?;
            net.gateway[*g.first().ok_or_else(eof)? as usize] = true;
        }
        Ok(net)
    }

    fn cut(&mut self, a: usize, b: usize) {
        self.links[a].remove(&b);
        self.links[b].remove(&a);
    }

    fn gateway_links(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        self.links[v].iter().copied().filter(|&g| self.gateway[g])
    }

    /// The virus's cut with the agent at `agent`.
    pub(crate) fn virus_cut(&self, agent: usize) -> (usize, usize) {
        if let Some(g) = self.gateway_links(agent).next() {
            return (agent, g);
        }
        let threat = |v: usize| self.gateway_links(v).count();
        let mut dist = vec![usize::MAX; self.links.len()];
        dist[agent] = 0;
        let mut queue = VecDeque::from([agent]);
        while let Some(v) = queue.pop_front() {
            for &w in &self.links[v] {
                if self.gateway[w] {
                    continue;
                }
                let d = dist[v] + usize::from(threat(w) == 0);
                if d < dist[w] {
                    dist[w] = d;
                    if d == dist[v] { queue.push_front(w) } else { queue.push_back(w) }
                }
            }
        }
        let reachable = (0..self.links.len()).filter(|&v| dist[v] != usize::MAX && threat(v) > 0);
        let best = reachable.min_by_key(|&v| (threat(v) < 2, dist[v], usize::MAX - threat(v), v));
        let v = best.or_else(|| (0..self.links.len()).find(|&v| threat(v) > 0)).unwrap_or(agent);
        let g =
            self.gateway_links(v).next().or_else(|| self.links[v].first().copied()).unwrap_or(v);
        (v, g)
    }

    /// The agent's step from `agent`: along a shortest path to the nearest gateway.
    pub(crate) fn agent_step(&self, agent: usize) -> usize {
        let mut parent = vec![usize::MAX; self.links.len()];
        parent[agent] = agent;
        let mut queue = VecDeque::from([agent]);
        while let Some(v) = queue.pop_front() {
            if self.gateway[v] {
                let mut step = v;
                while parent[step] != agent {
                    step = parent[step];
                }
                return step;
            }
            for &w in &self.links[v] {
                if parent[w] == usize::MAX {
                    parent[w] = v;
                    queue.push_back(w);
                }
            }
        }
        self.links[agent].first().copied().unwrap_or(agent)
    }
}

/// Plays `role` until the input ends.
pub(crate) fn play(role: &str, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut lines = input.lines();
    let mut net = Network::read(&mut lines)?;
    while let Some(turn) = next_numbers(&mut lines)? {
        let agent = *turn.first().ok_or_else(eof)? as usize;
        if role == "agent" {
            if let [_, a, b] = turn[..] {
                if a >= 0 && b >= 0 {
                    net.cut(a as usize, b as usize);
                }
            }
            writeln!(output, "{}", net.agent_step(agent))?;
        } else {
            let (a, b) = net.virus_cut(agent);
            net.cut(a, b);
            writeln!(output, "{a} {b}")?;
        }
        output.flush()?;
    }
    Ok(())
}

#[allow(dead_code)] // the benchmark includes this file for `play` and has its own `main`
fn main() -> io::Result<()> {
    let role = std::env::var("ARENA_ROLE").unwrap_or_else(|_| "virus".to_string());
    play(&role, io::stdin().lock(), io::stdout().lock())
}
