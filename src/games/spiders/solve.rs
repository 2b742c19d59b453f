//! The answer of `arena solve spiders`: who wins a map with perfect play (or against greedy
//! spiders), and a winning first move, as a report the command line renders as text or JSON.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::bots::emergency_cut;
use super::greedy::greedy_round;
use super::map::SpiderMap;
use super::rules::{Options, SpiderAction, SpidersGame};
use super::solver::{Mask, Policy, Solver};
use crate::budget::Budget;
use crate::game::{Game, SetupError};

/// What the solver found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// No spider can reach a fly: the defender has won before any move.
    AlreadyWon,
    /// The defender wins; removing `first_move` (an edge `[a, b]`) does it.
    DefenderWins { first_move: [u32; 2] },
    /// The spiders win against every defence. `example`: their answer to the cut the
    /// `emergency` defender would make.
    SpidersWin { example: Option<Example> },
    /// The search ran out of time before it knew.
    Unknown,
}

/// The spiders' winning answer to one cut.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Example {
    pub cut: [u32; 2],
    /// The spiders' round, as the protocol writes it.
    pub reply: String,
}

/// What `arena solve spiders` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub against: Policy,
    pub verdict: Verdict,
    /// The time the search was given, in milliseconds.
    pub time_limit_ms: u64,
    /// Positions the search expanded.
    pub positions: u64,
    /// The search's time, in seconds.
    pub seconds: f64,
}

/// Solves `map` (named `name` in errors) with `options`, giving up after `time` of search.
pub fn solve(
    name: &str,
    map: &SpiderMap,
    options: Options,
    against: Policy,
    time: Duration,
) -> Result<Report, SetupError> {
    let mut solver = Solver::new(map, against, options.all_must_move)
        .map_err(|e| SetupError::map(name, None, e.to_string()))?;
    let started = Instant::now();
    solver.set_budget(Budget::new(time));
    let game = SpidersGame::new(map.clone().into_arc(), options);
    let report = |verdict, solver: &Solver| Report {
        against,
        verdict,
        time_limit_ms: time.as_millis() as u64,
        positions: solver.states,
        seconds: started.elapsed().as_secs_f64(),
    };
    if game.over.is_some() {
        return Ok(report(Verdict::AlreadyWon, &solver));
    }
    let verdict = match solver.winning_cut(Mask::EMPTY, &map.spiders) {
        None => Verdict::Unknown,
        Some(Some(e)) => {
            let (a, b) = map.edges[e as usize];
            Verdict::DefenderWins { first_move: [a, b] }
        }
        Some(None) => {
            let (a, b) = emergency_cut(&game).unwrap_or(map.edges[0]);
            let e = map.edge_between(a, b).expect("an edge of the map");
            let reply = match against {
                Policy::Optimal => {
                    solver.winning_round(Mask::EMPTY.with(e), &map.spiders).flatten()
                }
                Policy::Greedy => Some(greedy_round(
                    map,
                    &Mask::EMPTY.with(e),
                    &map.spiders,
                    options.all_must_move,
                )),
            };
            let example = reply.map(|moves| Example {
                cut: [a, b],
                reply: SpidersGame::format_action(&SpiderAction::Moves(moves)),
            });
            Verdict::SpidersWin { example }
        }
    };
    Ok(report(verdict, &solver))
}
