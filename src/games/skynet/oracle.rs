//! Skynet Episode 2's oracle: the exact solver says which side can force a win.
//!
//! "Won" is meant against every reply: the virus has won a position when some line of cuts beats
//! every way the agent can walk, the agent when some walk beats every line of cuts. The game has
//! no draw, so exactly one holds. The solver searches the whole game, trying every step of the
//! agent and every cut that can matter (a link out of the agent's reach never does better than
//! one within it), so its answer is this game value, not a value against one model of the agent.

use crate::budget::OutOfTime;
use crate::game::Seat;
use crate::games::skynet::map::SkynetMap;
use crate::games::skynet::rules::{AGENT, VIRUS};
use crate::games::skynet::solver::{ExactSolver, Verdict};
use crate::games::skynet::{Skynet, SkynetAction};
use crate::registry::{Allowance, Oracle, Worth};

/// The exact solver, kept for the whole match: what it proved for one position serves the next.
pub(crate) struct SkynetOracle<'m> {
    /// `None` only while a call holds it (`with_budget` takes the solver by value).
    solver: Option<ExactSolver<'m>>,
}

impl<'m> SkynetOracle<'m> {
    pub(crate) fn new(map: &'m SkynetMap) -> SkynetOracle<'m> {
        SkynetOracle { solver: Some(ExactSolver::new(map)) }
    }

    /// Runs `search` on the solver under the allowance's budget, counting its positions.
    fn with_solver<T>(
        &mut self,
        allowance: &mut Allowance,
        search: impl FnOnce(&mut ExactSolver<'m>) -> Result<T, OutOfTime>,
    ) -> Result<T, OutOfTime> {
        let mut solver = self
            .solver
            .take()
            .expect("the solver is back after every call")
            .with_budget(allowance.budget());
        let before = solver.positions;
        let result = search(&mut solver);
        allowance.spend(solver.positions - before);
        self.solver = Some(solver);
        result
    }
}

impl Oracle<Skynet> for SkynetOracle<'_> {
    fn value(&mut self, game: &Skynet, allowance: &mut Allowance) -> Result<Worth, OutOfTime> {
        if let Some(outcome) = &game.over {
            return Ok(Worth::Win(outcome.winner().unwrap_or(VIRUS)));
        }
        let mut cut = game.cut.clone();
        let agent = game.agent;
        if game.to_act == VIRUS {
            let verdict = self.with_solver(allowance, |s| s.virus_to_move(&mut cut, agent))?;
            Ok(match verdict {
                Verdict::VirusWins(_) => Worth::Win(VIRUS),
                Verdict::AgentWins => Worth::Win(AGENT),
            })
        } else {
            let virus_wins = self.with_solver(allowance, |s| s.agent_to_move(&mut cut, agent))?;
            Ok(Worth::Win(if virus_wins { VIRUS } else { AGENT }))
        }
    }

    fn moves(&self, game: &Skynet, seat: Seat) -> Option<Vec<SkynetAction>> {
        Some(if seat == VIRUS {
            game.legal_cuts().into_iter().map(|(a, b)| SkynetAction::Cut(a, b)).collect()
        } else {
            game.neighbours(game.agent).map(SkynetAction::Move).collect()
        })
    }

    /// A cut named either way is one move: `legal_cuts` names it lower node first.
    fn spelling(&self, action: &SkynetAction) -> SkynetAction {
        match *action {
            SkynetAction::Cut(a, b) => SkynetAction::Cut(a.min(b), a.max(b)),
            step => step,
        }
    }
}
