//! The rules of Greedy Spiders and the line protocol of both roles.
//!
//! Each round the defender removes one edge for good; then the spider side moves any subset of
//! its spiders one step each, all in one action. The spiders win as soon as a spider stands on a
//! fly; the defender wins as soon as no spider can reach any fly. The seed paper is silent on
//! passes and forced moves; both are options, off by default (see `docs/spiders.md`).

use std::sync::Arc;

use rand::Rng;

use super::map::{Cuts, SpiderMap, fly_distances};
use crate::game::{Game, Illegal, Outcome, Seat, Status};

pub const DEFENDER: Seat = 0;
pub const SPIDERS: Seat = 1;

/// Game options (`--opt key=value`), all off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `all_must_move=true`: every spider with an edge left must step.
    pub all_must_move: bool,
    /// `defender_may_pass=true`: the defender may answer `PASS` instead of removing an edge.
    pub defender_may_pass: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpiderAction {
    /// The defender removes the edge between two vertices (either order).
    Cut(u32, u32),
    /// The defender removes nothing (only with `defender_may_pass=true`).
    Pass,
    /// The spider side's round: `(spider index, vertex)` for each spider that steps; empty to wait.
    Moves(Vec<(usize, u32)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SpidersGame {
    pub map: Arc<SpiderMap>,
    pub options: Options,
    /// `removed[edge id]`.
    pub removed: Vec<bool>,
    /// Spider `i` stands on `spiders[i]`.
    pub spiders: Vec<u32>,
    /// The last edge removed, as the defender named it; `None` before the first cut or after a pass.
    pub last_cut: Option<(u32, u32)>,
    pub to_act: Seat,
    /// Rounds begun (a round is the defender's move and the spiders' answer).
    pub round: u32,
    pub over: Option<Outcome>,
}

/// A seat's view: Greedy Spiders is a game of perfect information.
#[derive(Clone, Debug, PartialEq)]
pub struct SpidersView {
    pub seat: Seat,
    pub game: SpidersGame,
}

impl SpidersGame {
    pub fn new(map: Arc<SpiderMap>, options: Options) -> SpidersGame {
        let mut game = SpidersGame {
            removed: vec![false; map.edges.len()],
            spiders: map.spiders.clone(),
            map,
            options,
            last_cut: None,
            to_act: DEFENDER,
            round: 0,
            over: None,
        };
        game.over = game.check_end();
        game
    }

    /// With passes allowed a game could idle for ever; it ends, won by the defender, after this
    /// many rounds. The bound is large enough that passing never helps the defender: between two
    /// cuts the nearest spider needs at most |V| steps, and there are at most |E| cuts.
    pub fn max_rounds(&self) -> u64 {
        (self.map.edges.len() as u64 + 1) * (self.map.nodes as u64 + 1)
    }

    /// Neighbours of `v` over edges not removed, in increasing order.
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.map.adj[v as usize]
            .iter()
            .filter(|&&(_, e)| !self.removed[e as usize])
            .map(|&(n, _)| n)
    }

    /// The edges left, as `(a, b)` with `a < b`, in edge-id order.
    pub fn remaining_edges(&self) -> Vec<(u32, u32)> {
        (0..self.map.edges.len()).filter(|&e| !self.removed[e]).map(|e| self.map.edges[e]).collect()
    }

    /// Whether some spider can still reach some fly.
    pub fn threatened(&self) -> bool {
        let dist = fly_distances(&self.map, &self.removed);
        self.spiders.iter().any(|&s| dist[s as usize] != u32::MAX)
    }

    fn check_end(&self) -> Option<Outcome> {
        if let Some((i, &v)) =
            self.spiders.iter().enumerate().find(|&(_, &v)| self.map.is_fly[v as usize])
        {
            return Some(Outcome::win(2, SPIDERS, format!("spider {i} ate the fly on vertex {v}")));
        }
        if !self.threatened() {
            return Some(Outcome::win(2, DEFENDER, "no spider can reach a fly"));
        }
        if u64::from(self.round) >= self.max_rounds() && self.to_act == DEFENDER {
            return Some(Outcome::win(2, DEFENDER, "the round limit passed with every fly alive"));
        }
        None
    }

    /// Checks a spider round without playing it.
    pub fn validate_moves(&self, moves: &[(usize, u32)]) -> Result<(), Illegal> {
        let mut moved = vec![false; self.spiders.len()];
        for &(i, to) in moves {
            let Some(&from) = self.spiders.get(i) else {
                return Err(Illegal::new(format!(
                    "no spider {i} (spiders 0..{})",
                    self.spiders.len()
                )));
            };
            if std::mem::replace(&mut moved[i], true) {
                return Err(Illegal::new(format!("spider {i} moves twice in one round")));
            }
            if !self.neighbours(from).any(|n| n == to) {
                return Err(Illegal::new(format!("spider {i} on {from} has no edge to {to}")));
            }
        }
        if self.options.all_must_move {
            if let Some(i) = (0..self.spiders.len())
                .find(|&i| !moved[i] && self.neighbours(self.spiders[i]).next().is_some())
            {
                return Err(Illegal::new(format!(
                    "spider {i} can move and must (all_must_move=true)"
                )));
            }
        }
        Ok(())
    }

    /// Every legal spider round (the product of each spider's choices), for searches on tiny
    /// games.
    pub fn all_spider_rounds(&self) -> Vec<Vec<(usize, u32)>> {
        let mut rounds = vec![Vec::new()];
        for (i, &s) in self.spiders.iter().enumerate() {
            let steps: Vec<u32> = self.neighbours(s).collect();
            let may_stay = !self.options.all_must_move || steps.is_empty();
            let mut next = Vec::new();
            for round in &rounds {
                if may_stay {
                    next.push(round.clone());
                }
                for &to in &steps {
                    let mut r = round.clone();
                    r.push((i, to));
                    next.push(r);
                }
            }
            rounds = next;
        }
        rounds
    }
}

impl Game for SpidersGame {
    type Action = SpiderAction;
    type View = SpidersView;

    fn roles(&self) -> Vec<String> {
        vec!["defender".to_string(), "spiders".to_string()]
    }

    fn status(&self) -> Status {
        match &self.over {
            Some(outcome) => Status::Over(outcome.clone()),
            None => Status::ToAct(self.to_act),
        }
    }

    fn view(&self, seat: Seat) -> SpidersView {
        SpidersView { seat, game: self.clone() }
    }

    fn play(
        &mut self,
        seat: Seat,
        action: &SpiderAction,
        _rng: &mut dyn Rng,
    ) -> Result<(), Illegal> {
        if self.over.is_some() {
            return Err(Illegal::new("the game is over"));
        }
        if seat != self.to_act {
            return Err(Illegal::new(format!("it is not seat {seat}'s turn")));
        }
        match (seat, action) {
            (DEFENDER, &SpiderAction::Cut(a, b)) => {
                let n = self.map.nodes as u32;
                if a >= n || b >= n {
                    return Err(Illegal::new(format!(
                        "no vertex {} (vertices 0..{n})",
                        if a >= n { a } else { b }
                    )));
                }
                let e = self
                    .map
                    .edge_between(a, b)
                    .filter(|&e| !self.removed.is_cut(e))
                    .ok_or_else(|| Illegal::new(format!("no edge {a} {b} left to remove")))?;
                self.removed[e as usize] = true;
                self.last_cut = Some((a, b));
            }
            (DEFENDER, SpiderAction::Pass) => {
                if !self.options.defender_may_pass {
                    return Err(Illegal::new(
                        "the defender must remove an edge (defender_may_pass is off)",
                    ));
                }
                self.last_cut = None;
            }
            (SPIDERS, SpiderAction::Moves(moves)) => {
                self.validate_moves(moves)?;
                for &(i, to) in moves {
                    self.spiders[i] = to;
                }
            }
            (DEFENDER, _) => return Err(Illegal::new("the defender removes an edge: `U V`")),
            _ => return Err(Illegal::new("the spiders move: `WAIT` or `I:V ...`")),
        }
        if seat == DEFENDER {
            self.round += 1;
            self.to_act = SPIDERS;
        } else {
            self.to_act = DEFENDER;
        }
        self.over = self.check_end();
        Ok(())
    }

    fn init_input(view: &SpidersView) -> String {
        let m = &view.game.map;
        let mut s =
            format!("{} {} {} {}\n", m.nodes, m.edges.len(), m.spiders.len(), m.flies.len());
        for (a, b) in &m.edges {
            s.push_str(&format!("{a} {b}\n"));
        }
        let flies: Vec<String> = m.flies.iter().map(u32::to_string).collect();
        s.push_str(&flies.join(" "));
        s.push('\n');
        s
    }

    fn turn_input(view: &SpidersView) -> String {
        let g = &view.game;
        let cut = match g.last_cut {
            Some((a, b)) => format!("{a} {b}"),
            None => "-1 -1".to_string(),
        };
        let spiders: Vec<String> = g.spiders.iter().map(u32::to_string).collect();
        format!("{cut}\n{}\n", spiders.join(" "))
    }

    fn parse_action(view: &SpidersView, line: &str) -> Result<SpiderAction, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let int = |w: &str| w.parse::<u32>().map_err(|_| format!("`{w}` is not a vertex"));
        if view.seat == DEFENDER {
            match words.as_slice() {
                ["PASS"] => Ok(SpiderAction::Pass),
                [a, b] => Ok(SpiderAction::Cut(int(a)?, int(b)?)),
                _ => Err("expected `U V` (the edge to remove) or `PASS`".to_string()),
            }
        } else {
            match words.as_slice() {
                ["WAIT"] => Ok(SpiderAction::Moves(Vec::new())),
                [] => Err("expected `WAIT` or `SPIDER:VERTEX ...`".to_string()),
                moves => moves
                    .iter()
                    .map(|m| {
                        let (i, v) = m
                            .split_once(':')
                            .ok_or_else(|| format!("`{m}` is not `SPIDER:VERTEX`"))?;
                        let i = i
                            .parse::<usize>()
                            .map_err(|_| format!("`{i}` is not a spider index"))?;
                        Ok((i, int(v)?))
                    })
                    .collect::<Result<Vec<_>, String>>()
                    .map(SpiderAction::Moves),
            }
        }
    }

    fn format_action(action: &SpiderAction) -> String {
        match action {
            SpiderAction::Cut(a, b) => format!("{a} {b}"),
            SpiderAction::Pass => "PASS".to_string(),
            SpiderAction::Moves(m) if m.is_empty() => "WAIT".to_string(),
            SpiderAction::Moves(m) => {
                m.iter().map(|(i, v)| format!("{i}:{v}")).collect::<Vec<_>>().join(" ")
            }
        }
    }
}
