//! The answer of `arena solve painters`: every case of a Kick Start input (or the one board of
//! arena's board file) solved exactly, as a report the command line renders as the official `Case #x: y` lines or as JSON.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::map::{Board, parse_boards};
use super::solver::BoardSolver;
use crate::game::SetupError;

/// One solved case.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseAnswer {
    /// The case number, from 1.
    pub case: usize,
    /// The museum's side.
    pub size: u32,
    /// The best score Alma can guarantee (her rooms minus Berthe's).
    pub value: i32,
    /// Game-tree nodes the solver visited.
    pub nodes: u64,
    /// Longest-path search nodes.
    pub path_nodes: u64,
    /// Game-tree nodes answered by the table.
    pub table_hits: u64,
    pub millis: f64,
}

/// Every case of an input.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answers {
    pub cases: Vec<CaseAnswer>,
    /// The time for all cases, in milliseconds.
    pub millis: f64,
}

/// Solves a Kick Start input (`T`, then per case `S RA PA RB PB C` and `C` lines `R P`) or
/// arena's board file (one case); `name` names it in errors.
pub fn solve_input(name: &str, text: &str) -> Result<Answers, SetupError> {
    let boards = parse_boards(name, text)?;
    let started = Instant::now();
    let mut cases = Vec::with_capacity(boards.len());
    solve_cases(&boards, |case, board, value, solver, elapsed| {
        cases.push(CaseAnswer {
            case,
            size: board.size(),
            value,
            nodes: solver.stats().nodes,
            path_nodes: solver.stats().path_nodes,
            table_hits: solver.stats().table_hits,
            millis: elapsed.as_secs_f64() * 1e3,
        });
    });
    Ok(Answers { cases, millis: started.elapsed().as_secs_f64() * 1e3 })
}

/// Solves Kick Start cases in order, calling `report(case number, board, value, solver, time)`
/// after each. A position's value depends on the open rooms and the painters only, never on how
/// they came about, so cases of one side share a solver and its tables.
pub fn solve_cases(
    boards: &[Board],
    mut report: impl FnMut(usize, &Board, i32, &BoardSolver, Duration),
) {
    let mut solvers: BTreeMap<u32, BoardSolver> = BTreeMap::new();
    for (i, b) in boards.iter().enumerate() {
        let started = Instant::now();
        let solver = solvers.entry(b.size()).or_insert_with(|| BoardSolver::for_board(b));
        solver.reset_stats();
        let value = solver.solve_board(b);
        report(i + 1, b, value, solver, started.elapsed());
    }
}
