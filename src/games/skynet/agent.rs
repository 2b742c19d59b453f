//! The CodinGame Skynet agent, reconstructed from recorded CodinGame runs (see `docs/skynet.md`):
//! the built-in `cg-ep1` / `cg-ep2` agents, and the model the `solver` virus plans against.
//!
//! Both models are pure functions of the map, the links cut so far and the agent's node, so the
//! virus can simulate them exactly. "In order" always means the map's adjacency (insertion)
//! order restricted to links not yet cut; where neighbours are equally good the tie-break picks
//! the last (CodinGame's observed behaviour) or the first of them.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::episode::Episode;
use super::map::SkynetMap;

/// Which of several equally good neighbours the agent takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TieBreak {
    /// The last in adjacency order: reproduces every recorded CodinGame run.
    #[default]
    Last,
    First,
}

impl TieBreak {
    /// Whether a candidate equal to the best so far replaces it.
    fn replaces_on_tie(self) -> bool {
        self == TieBreak::Last
    }
}

/// One of the two agent models, with scratch space reused across calls (the solver calls it
/// thousands of times a turn).
#[derive(Clone, Debug)]
pub struct AgentModel {
    pub episode: Episode,
    pub tiebreak: TieBreak,
    dist: Vec<u32>,
    label: Vec<(u32, u32)>,
    danger: Vec<u32>,
    queue: VecDeque<u32>,
    heap: BinaryHeap<Reverse<(u32, u32, u32)>>,
}

const UNSEEN: u32 = u32::MAX;

impl AgentModel {
    pub fn new(episode: Episode, tiebreak: TieBreak) -> AgentModel {
        AgentModel {
            episode,
            tiebreak,
            dist: Vec::new(),
            label: Vec::new(),
            danger: Vec::new(),
            queue: VecDeque::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// The node the agent at `agent` steps to, given the links `cut`; `None` if it has no
    /// neighbour at all.
    pub fn next_move(&mut self, map: &SkynetMap, cut: &[bool], agent: u32) -> Option<u32> {
        let live = |&&(_, id): &&(u32, u32)| !cut[id as usize];
        // 1. A gateway next door: step onto the first one.
        if let Some(&(g, _)) =
            map.adj[agent as usize].iter().filter(live).find(|&&(n, _)| map.is_gateway[n as usize])
        {
            return Some(g);
        }
        if self.episode == Episode::Ep2 {
            if let Some(step) = self.urgent_chain_move(map, cut, agent) {
                return Some(step);
            }
        }
        self.nearest_gateway_move(map, cut, agent)
    }

    /// Episode 1: the neighbour with the smallest distance to a gateway, over paths that never
    /// pass through a gateway.
    fn nearest_gateway_move(&mut self, map: &SkynetMap, cut: &[bool], agent: u32) -> Option<u32> {
        self.dist.clear();
        self.dist.resize(map.nodes, UNSEEN);
        self.queue.clear();
        for &g in &map.gateways {
            self.dist[g as usize] = 0;
            self.queue.push_back(g);
        }
        while let Some(v) = self.queue.pop_front() {
            let d = self.dist[v as usize] + 1;
            for &(n, id) in &map.adj[v as usize] {
                if !cut[id as usize] && self.dist[n as usize] == UNSEEN {
                    self.dist[n as usize] = d;
                    // A gateway is only ever a starting point: a path does not go through it.
                    if !map.is_gateway[n as usize] {
                        self.queue.push_back(n);
                    }
                }
            }
        }
        let mut best: Option<(u32, u32)> = None;
        for &(n, id) in &map.adj[agent as usize] {
            if cut[id as usize] {
                continue;
            }
            let d = self.dist[n as usize];
            let better = match best {
                None => true,
                Some((bd, _)) => d < bd || (d == bd && self.tiebreak.replaces_on_tie()),
            };
            if better {
                best = Some((d, n));
            }
        }
        best.map(|(_, n)| n)
    }

    /// Episode 2's "urgent chain": head for the node with two or more gateway links that the
    /// virus has the least time to defuse. `None` when no such node is reachable.
    fn urgent_chain_move(&mut self, map: &SkynetMap, cut: &[bool], agent: u32) -> Option<u32> {
        self.danger.clear();
        self.danger.resize(map.nodes, 0);
        let mut any_double = false;
        for (id, &(a, b)) in map.links.iter().enumerate() {
            if cut[id] {
                continue;
            }
            if map.is_gateway[a as usize] {
                self.danger[b as usize] += 1;
                any_double |= self.danger[b as usize] >= 2;
            }
            if map.is_gateway[b as usize] {
                self.danger[a as usize] += 1;
                any_double |= self.danger[a as usize] >= 2;
            }
        }
        if !any_double {
            return None;
        }
        // (slack, len, neighbour)
        let mut best: Option<(i64, u32, u32)> = None;
        for &(f, id) in &map.adj[agent as usize] {
            if cut[id as usize] || map.is_gateway[f as usize] {
                continue;
            }
            let Some((slack, len)) = self.best_key_from(map, cut, agent, f) else { continue };
            let better = match best {
                None => true,
                Some((bs, bl, _)) => {
                    (slack, len) < (bs, bl)
                        || ((slack, len) == (bs, bl) && self.tiebreak.replaces_on_tie())
                }
            };
            if better {
                best = Some((slack, len, f));
            }
        }
        best.map(|(_, _, f)| f)
    }

    /// The smallest candidate key `(slack, len)` of a search from neighbour `from` of the agent.
    fn best_key_from(
        &mut self,
        map: &SkynetMap,
        cut: &[bool],
        agent: u32,
        from: u32,
    ) -> Option<(i64, u32)> {
        self.label.clear();
        self.label.resize(map.nodes, (UNSEEN, UNSEEN));
        self.heap.clear();
        self.label[from as usize] = (0, 1);
        self.heap.push(Reverse((0, 1, from)));
        let mut best: Option<(i64, u32)> = None;
        while let Some(Reverse((c, len, v))) = self.heap.pop() {
            if self.label[v as usize] != (c, len) {
                continue; // a stale entry: v was settled with a smaller label
            }
            let danger = self.danger[v as usize];
            if danger >= 2 {
                let key = ((c as i64 + 1) - (danger as i64 - 1), len);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
            let next = (c + u32::from(danger == 0), len + 1);
            for &(n, id) in &map.adj[v as usize] {
                if cut[id as usize] || n == agent || map.is_gateway[n as usize] {
                    continue;
                }
                if next < self.label[n as usize] {
                    self.label[n as usize] = next;
                    self.heap.push(Reverse((next.0, next.1, n)));
                }
            }
        }
        best
    }
}

/// Whether the agent at `agent` can still reach a gateway over links not `cut`.
pub fn can_reach_gateway(map: &SkynetMap, cut: &[bool], agent: u32, seen: &mut Vec<bool>) -> bool {
    seen.clear();
    seen.resize(map.nodes, false);
    let mut stack = vec![agent];
    seen[agent as usize] = true;
    while let Some(v) = stack.pop() {
        if map.is_gateway[v as usize] {
            return true;
        }
        for &(n, id) in &map.adj[v as usize] {
            if !cut[id as usize] && !seen[n as usize] {
                seen[n as usize] = true;
                stack.push(n);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::skynet::map::parse_map;

    /// A transcript from a map's header: the agent's start, then for each turn the virus's cut
    /// and the node the agent is on at the next turn (the last cut wins, so it has none).
    struct Transcript {
        start: u32,
        turns: Vec<((u32, u32), Option<u32>)>,
    }

    /// Reads `SI=s -> "a b"` pairs from the header line starting with `marker`.
    fn transcript(text: &str, marker: &str) -> Transcript {
        let line = text.lines().find(|l| l.starts_with(marker)).expect("a transcript line");
        let mut sis = Vec::new();
        let mut cuts = Vec::new();
        for part in line.split("SI=").skip(1) {
            let si: u32 =
                part.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
            let quoted = part.split('"').nth(1).expect("a quoted cut");
            let mut ab = quoted.split_whitespace().map(|w| w.parse::<u32>().unwrap());
            sis.push(si);
            cuts.push((ab.next().unwrap(), ab.next().unwrap()));
        }
        let turns =
            cuts.iter().enumerate().map(|(i, &cut)| (cut, sis.get(i + 1).copied())).collect();
        Transcript { start: sis[0], turns }
    }

    /// Replays the recorded cuts and checks every recorded agent position.
    fn reproduce(
        text: &str,
        marker: &str,
        episode: Episode,
        tiebreak: TieBreak,
    ) -> Result<(), String> {
        let map = parse_map("golden", text, episode).unwrap().map;
        let t = transcript(text, marker);
        assert_eq!(t.start, map.agent_start);
        let mut model = AgentModel::new(episode, tiebreak);
        let mut cut = vec![false; map.links.len()];
        let mut agent = map.agent_start;
        let mut seen = Vec::new();
        for (turn, &((a, b), expected)) in t.turns.iter().enumerate() {
            let id = map.link_between(a, b, &cut).expect("the recorded cut exists");
            cut[id as usize] = true;
            match expected {
                Some(si) => {
                    let got = model.next_move(&map, &cut, agent).expect("the agent moves");
                    if got != si {
                        return Err(format!(
                            "turn {}: agent went to {got}, CodinGame to {si}",
                            turn + 1
                        ));
                    }
                    agent = got;
                }
                None => {
                    if can_reach_gateway(&map, &cut, agent, &mut seen) {
                        return Err("the recorded last cut does not win".into());
                    }
                }
            }
        }
        Ok(())
    }

    const EP1_EXAMPLE: &str = include_str!("../../../arenas/maps/skynet/ep1_statement_example.txt");
    const EP2_01: &str = include_str!("../../../arenas/maps/skynet/ep2_01.txt");
    const EP2_02: &str = include_str!("../../../arenas/maps/skynet/ep2_02.txt");
    const EP2_03: &str = include_str!("../../../arenas/maps/skynet/ep2_03.txt");

    #[test]
    fn golden_ep1_statement_example() {
        reproduce(EP1_EXAMPLE, "# AGENT_START", Episode::Ep1, TieBreak::Last).unwrap();
    }

    #[test]
    fn golden_ep2_01() {
        reproduce(EP2_01, "# Observed transcript", Episode::Ep2, TieBreak::Last).unwrap();
    }

    #[test]
    fn golden_ep2_02() {
        reproduce(EP2_02, "# Observed transcript", Episode::Ep2, TieBreak::Last).unwrap();
    }

    #[test]
    fn golden_ep2_03() {
        reproduce(EP2_03, "# Observed transcript", Episode::Ep2, TieBreak::Last).unwrap();
    }

    #[test]
    fn the_transcripts_hold_14_agent_moves() {
        let moves: usize = [
            (EP1_EXAMPLE, "# AGENT_START"),
            (EP2_01, "# Observed transcript"),
            (EP2_02, "# Observed transcript"),
            (EP2_03, "# Observed transcript"),
        ]
        .iter()
        .map(|&(text, marker)| {
            transcript(text, marker).turns.iter().filter(|t| t.1.is_some()).count()
        })
        .sum();
        assert_eq!(moves, 14);
    }

    #[test]
    fn the_first_tiebreak_does_not_reproduce_codingame() {
        let failures = [EP2_01, EP2_02, EP2_03]
            .iter()
            .filter(|t| {
                reproduce(t, "# Observed transcript", Episode::Ep2, TieBreak::First).is_err()
            })
            .count();
        assert!(failures > 0, "the tie-break makes no difference on the recorded runs");
    }
}

/// The golden transcripts again, through the whole match machinery: the recorded cuts come from
/// a scripted virus, the agent is the built-in `cg-ep2`/`cg-ep1` bot, the referee plays.
#[cfg(test)]
mod golden_matches {
    use std::sync::Arc;

    use super::TieBreak;
    use crate::bot::{Bot, BotFailure, TimeLimits, TurnContext};
    use crate::game::Game;
    use crate::games::skynet::bots::CgAgent;
    use crate::games::skynet::episode::Episode;
    use crate::games::skynet::map::parse_map;
    use crate::games::skynet::rules::{AGENT, Skynet, SkynetAction, SkynetView, VIRUS};
    use crate::referee::play_match;

    struct Scripted(std::vec::IntoIter<(u32, u32)>);

    impl Bot<Skynet> for Scripted {
        fn act(&mut self, _: &SkynetView, _: &TurnContext) -> Result<SkynetAction, BotFailure> {
            let (a, b) = self.0.next().ok_or(BotFailure::Eof)?;
            Ok(SkynetAction::Cut(a, b))
        }
    }

    fn check(text: &str, marker: &str, episode: Episode) {
        let line = text.lines().find(|l| l.starts_with(marker)).unwrap();
        let mut sis = Vec::new();
        let mut cuts = Vec::new();
        for part in line.split("SI=").skip(1) {
            sis.push(part.split(|c: char| !c.is_ascii_digit()).next().unwrap().to_string());
            let mut ab = part.split('"').nth(1).unwrap().split_whitespace();
            cuts.push((ab.next().unwrap().parse().unwrap(), ab.next().unwrap().parse().unwrap()));
        }
        let map = parse_map("golden", text, episode).unwrap().map;
        let game = Skynet::new(Arc::new(map), episode);
        let mut bots: Vec<Box<dyn Bot<Skynet>>> = vec![
            Box::new(Scripted(cuts.clone().into_iter())),
            Box::new(CgAgent::new(episode, TieBreak::Last)),
        ];
        let limits = vec![TimeLimits::new(10_000, 10_000); 2];
        let result = play_match(game, &mut bots, &limits, 1);
        assert_eq!(result.outcome.winner(), Some(VIRUS), "{result:?}");
        let moves: Vec<&str> =
            result.steps.iter().filter(|s| s.seat == AGENT).map(|s| s.action.as_str()).collect();
        assert_eq!(moves, sis[1..].iter().map(String::as_str).collect::<Vec<_>>());
        let played: Vec<String> =
            result.steps.iter().filter(|s| s.seat == VIRUS).map(|s| s.action.clone()).collect();
        let recorded: Vec<String> =
            cuts.iter().map(|&(a, b)| Skynet::format_action(&SkynetAction::Cut(a, b))).collect();
        assert_eq!(played, recorded);
    }

    #[test]
    fn recorded_runs_replay_through_the_referee() {
        let maps = [
            (
                include_str!("../../../arenas/maps/skynet/ep1_statement_example.txt"),
                "# AGENT_START",
                Episode::Ep1,
            ),
            (include_str!("../../../arenas/maps/skynet/ep2_01.txt"), "# Observed", Episode::Ep2),
            (include_str!("../../../arenas/maps/skynet/ep2_02.txt"), "# Observed", Episode::Ep2),
            (include_str!("../../../arenas/maps/skynet/ep2_03.txt"), "# Observed", Episode::Ep2),
        ];
        for (text, marker, episode) in maps {
            check(text, marker, episode);
        }
    }
}
