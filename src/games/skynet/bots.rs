//! Built-in Skynet bots: the reconstructed CodinGame agents, virus bots from greedy to a planner
//! that beats them, and a perfect agent from the exact solver (`random` is the registry's).

use std::collections::VecDeque;
use std::time::Duration;

use super::agent::{AgentModel, TieBreak};
use super::episode::Episode;
use super::planner::{PlanResult, PlanStep, Planner};
use super::rules::{Skynet, SkynetAction, SkynetView};
use super::search::{cut_order, gateway_links_of, greedy_cut, virus_is_safe};
use super::solver::{ExactSolver, Verdict};
use crate::bot::{Bot, BotFailure, TurnContext};
use crate::budget::Budget;

/// The cut of link `id`, as the protocol names it.
fn cut_action(g: &Skynet, id: u32) -> SkynetAction {
    let (a, b) = g.map.links[id as usize];
    SkynetAction::Cut(a, b)
}

/// Some legal cut, for positions where nothing matters any more.
fn any_cut(g: &Skynet) -> Result<SkynetAction, BotFailure> {
    g.legal_cuts()
        .first()
        .map(|&(a, b)| SkynetAction::Cut(a, b))
        .ok_or_else(|| BotFailure::Crash("no legal cut left".into()))
}

/// `cg-ep1` / `cg-ep2`: the CodinGame agent of one episode (see [`AgentModel`]).
pub struct CgAgent {
    model: AgentModel,
}

impl CgAgent {
    pub fn new(episode: Episode, tiebreak: TieBreak) -> CgAgent {
        CgAgent { model: AgentModel::new(episode, tiebreak) }
    }
}

impl Bot<Skynet> for CgAgent {
    fn act(&mut self, view: &SkynetView, _ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        self.model
            .next_move(&g.map, &g.cut, g.agent)
            .map(SkynetAction::Move)
            .ok_or_else(|| BotFailure::Crash(format!("the agent on {} has no link", g.agent)))
    }
}

/// `greedy`: cuts the gateway link nearest the agent.
pub struct GreedyVirus;

impl Bot<Skynet> for GreedyVirus {
    fn act(&mut self, view: &SkynetView, _ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        match greedy_cut(&g.map, &g.cut, g.agent) {
            Some(id) => Ok(cut_action(g, id)),
            None => any_cut(g),
        }
    }
}

/// `priority`: the classic heuristic of published Episode 2 solutions. Cut the gateway link at
/// the agent's node; else a gateway link of the nearest node with two gateway links (breadth
/// first from the agent over remaining links, never through a gateway, neighbours in adjacency
/// order; its first gateway link in adjacency order); else any gateway link: the first one left
/// in the map's link order.
pub struct PriorityVirus;

impl PriorityVirus {
    fn choose(g: &Skynet) -> Option<u32> {
        let map = &g.map;
        if let Some(&at_agent) = gateway_links_of(map, &g.cut, g.agent).first() {
            return Some(at_agent);
        }
        let mut seen = vec![false; map.nodes];
        let mut queue = VecDeque::from([g.agent]);
        seen[g.agent as usize] = true;
        while let Some(v) = queue.pop_front() {
            let links = gateway_links_of(map, &g.cut, v);
            if links.len() >= 2 {
                return Some(links[0]);
            }
            for &(n, id) in &map.adj[v as usize] {
                if !g.cut[id as usize] && !map.is_gateway[n as usize] && !seen[n as usize] {
                    seen[n as usize] = true;
                    queue.push_back(n);
                }
            }
        }
        (0..map.links.len() as u32).find(|&id| !g.cut[id as usize] && map.is_gateway_link(id))
    }
}

impl Bot<Skynet> for PriorityVirus {
    fn act(&mut self, view: &SkynetView, _ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        match PriorityVirus::choose(g) {
            Some(id) => Ok(cut_action(g, id)),
            None => any_cut(g),
        }
    }
}

/// A search's budget: `share` of the turn's remaining time, less 2 ms for the answer's way back.
fn search_budget(ctx: &TurnContext, share: f64) -> Budget {
    ctx.budget(share, Duration::from_millis(2))
}

/// `solver`: plans against the CodinGame agent of the match's episode and tie-break (the agent
/// it faces when that is `cg-ep1`/`cg-ep2`). It follows a winning line once found, replanning
/// if the agent strays from it; out of time or facing a position the model wins, it plays the
/// exact solver's cut (Episode 2) or the most urgent cut.
pub struct SolverVirus {
    tiebreak: TieBreak,
    planner: Option<Planner>,
    plan: VecDeque<PlanStep>,
}

impl SolverVirus {
    pub fn new(tiebreak: TieBreak) -> SolverVirus {
        SolverVirus { tiebreak, planner: None, plan: VecDeque::new() }
    }

    fn choose(&mut self, g: &Skynet, ctx: &TurnContext) -> Option<u32> {
        let map = &g.map;
        let at_agent = gateway_links_of(map, &g.cut, g.agent);
        if let Some(&forced) = at_agent.first() {
            return Some(forced);
        }
        if virus_is_safe(map, &g.cut, g.agent) {
            return greedy_cut(map, &g.cut, g.agent);
        }
        if let Some(step) = self.plan.pop_front() {
            if step.agent == g.agent && !g.cut[step.cut as usize] {
                return Some(step.cut);
            }
        }
        self.plan.clear();
        let planner = self
            .planner
            .get_or_insert_with(|| Planner::new(map, AgentModel::new(g.episode, self.tiebreak)));
        let mut cut = g.cut.clone();
        match planner.plan(map, &mut cut, g.agent, search_budget(ctx, 0.5)) {
            PlanResult::Win(steps) => {
                self.plan = steps.into();
                if let Some(step) = self.plan.pop_front() {
                    return Some(step.cut);
                }
            }
            // The exact solver cannot help: a forced win would beat the model too.
            PlanResult::Lost => {}
            PlanResult::OutOfTime if g.episode == Episode::Ep2 => {
                let mut exact = ExactSolver::new(map).with_budget(search_budget(ctx, 0.5));
                if let Ok(Verdict::VirusWins(Some(id))) = exact.virus_to_move(&mut cut, g.agent) {
                    return Some(id);
                }
            }
            PlanResult::OutOfTime => {}
        }
        cut_order(map, &g.cut, g.agent, g.episode).first().copied()
    }
}

impl Bot<Skynet> for SolverVirus {
    fn act(&mut self, view: &SkynetView, ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        match self.choose(g, ctx) {
            Some(id) => Ok(cut_action(g, id)),
            None => any_cut(g),
        }
    }
}

/// `perfect` as the virus: in Episode 2 the exact solver's winning cut whenever the virus can
/// force a win against any agent; otherwise (Episode 1, a lost position, out of time) it plays
/// as `solver`.
pub struct PerfectVirus {
    fallback: SolverVirus,
}

impl PerfectVirus {
    pub fn new(tiebreak: TieBreak) -> PerfectVirus {
        PerfectVirus { fallback: SolverVirus::new(tiebreak) }
    }
}

impl Bot<Skynet> for PerfectVirus {
    fn act(&mut self, view: &SkynetView, ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        if g.episode == Episode::Ep2 {
            let mut exact = ExactSolver::new(&g.map).with_budget(search_budget(ctx, 0.4));
            let mut cut = g.cut.clone();
            if let Ok(Verdict::VirusWins(Some(id))) = exact.virus_to_move(&mut cut, g.agent) {
                return Ok(cut_action(g, id));
            }
        }
        self.fallback.act(view, ctx)
    }
}

/// `perfect`: the agent that plays the exact solver's refutation: a step after which the virus
/// cannot force a win. When every step loses against perfect play (or time runs out) it moves
/// as the CodinGame agent of the match's episode, hoping the virus errs.
pub struct PerfectAgent {
    fallback: AgentModel,
}

impl PerfectAgent {
    pub fn new(episode: Episode, tiebreak: TieBreak) -> PerfectAgent {
        PerfectAgent { fallback: AgentModel::new(episode, tiebreak) }
    }
}

impl Bot<Skynet> for PerfectAgent {
    fn act(&mut self, view: &SkynetView, ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        let map = &g.map;
        let steps: Vec<u32> = g.neighbours(g.agent).collect();
        if let Some(&gate) = steps.iter().find(|&&n| map.is_gateway[n as usize]) {
            return Ok(SkynetAction::Move(gate));
        }
        if g.episode == Episode::Ep2 {
            let mut exact = ExactSolver::new(map).with_budget(search_budget(ctx, 0.6));
            let mut cut = g.cut.clone();
            for &step in &steps {
                match exact.virus_to_move(&mut cut, step) {
                    Ok(Verdict::AgentWins) => return Ok(SkynetAction::Move(step)),
                    Ok(Verdict::VirusWins(_)) => {}
                    Err(_) => break,
                }
            }
        }
        self.fallback
            .next_move(map, &g.cut, g.agent)
            .map(SkynetAction::Move)
            .ok_or_else(|| BotFailure::Crash(format!("the agent on {} has no link", g.agent)))
    }
}
