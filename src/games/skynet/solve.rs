//! The answer of `arena solve skynet`: the exact Episode-2 solver on one map, as a report the
//! command line renders as text or JSON.

use std::time::Instant;

use serde::Serialize;

use super::episode::Episode;
use super::map::parse_map;
use super::solver::{Verdict, solve_ep2};
use crate::game::{MapText, SetupError};

/// Who wins the map with perfect play, virus to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The virus forces a win; cutting `first_cut` (as the map names the link) does it.
    VirusWins { first_cut: [u32; 2] },
    /// The agent can reach no gateway: the virus has won before its first cut.
    VirusHasWon,
    /// The agent wins against any virus.
    AgentWins,
}

/// What `arena solve skynet` found on one map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solution {
    /// The map's name (its file name, as given).
    pub map: String,
    pub answer: Answer,
    /// Positions the solver searched.
    pub positions: u64,
    /// The solver's time, in milliseconds.
    pub millis: f64,
    /// What is unusual about the map (merged duplicate links, limits exceeded).
    pub warnings: Vec<String>,
}

/// Solves `map` exactly. Only Episode 2 is solved: on an Episode 1 map within the limits the
/// virus always wins by cutting the agent's gateway link.
///
/// ```
/// use arena::game::MapText;
/// use arena::games::skynet::solve::{Answer, solve};
///
/// // The agent (node 0) stands between two gateways: the virus cuts one link, the agent takes
/// // the other. One more node behind a gateway changes nothing.
/// let fork = "# AGENT_START 0\n4 3 2\n0 1\n0 2\n2 3\n1\n2\n";
/// let solution = solve("ep2", &MapText { name: "fork".into(), text: fork.into() })?;
/// assert_eq!(solution.answer, Answer::AgentWins);
///
/// // A lone path to one gateway: the virus wins by cutting a link of it.
/// let path = "# AGENT_START 0\n3 2 1\n0 1\n1 2\n2\n";
/// let solution = solve("ep2", &MapText { name: "path".into(), text: path.into() })?;
/// assert!(matches!(solution.answer, Answer::VirusWins { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn solve(variant: &str, map: &MapText) -> Result<Solution, SetupError> {
    if variant != Episode::Ep2.variant() {
        return Err(SetupError::Other(format!(
            "the exact solver plays Episode 2 only, not `{variant}` (on an Episode 1 map within \
             the limits the virus always wins by cutting the agent's gateway link)"
        )));
    }
    let parsed = parse_map(&map.name, &map.text, Episode::Ep2)?;
    let started = Instant::now();
    let solution = solve_ep2(&parsed.map);
    let millis = started.elapsed().as_secs_f64() * 1000.0;
    let answer = match solution.verdict {
        Verdict::VirusWins(Some(id)) => {
            let (a, b) = parsed.map.links[id as usize];
            Answer::VirusWins { first_cut: [a, b] }
        }
        Verdict::VirusWins(None) => Answer::VirusHasWon,
        Verdict::AgentWins => Answer::AgentWins,
    };
    Ok(Solution {
        map: map.name.clone(),
        answer,
        positions: solution.positions,
        millis,
        warnings: parsed.warnings,
    })
}
