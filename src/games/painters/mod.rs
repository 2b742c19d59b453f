//! Painters' Duel (Kick Start 2020 Round F): two painters walk a triangular museum, painting
//! every room they enter, and the one who paints more wins. See `docs/painters.md` for the
//! rules, the formats, the protocol, the bots and the solver.

pub mod board;
pub mod bots;
pub mod rules;
pub mod solver;
pub mod view;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Instant;

use crate::bot::{Bot, TimeLimits};
use crate::error::Error;
use crate::games::{BotInfo, BotSetup, GameDef, MapText, Setup, SetupError};

pub use board::Board;
pub use rules::{Painters, PaintersAction, PaintersView};
pub use solver::Solver;

impl GameDef for Painters {
    type G = Painters;

    const NAME: &'static str = "painters";
    const SUMMARY: &'static str =
        "Painters' Duel: two painters walk a triangular museum; whoever paints more rooms wins";
    const VARIANTS: &'static [&'static str] = &["standard"];

    fn default_limits(_variant: &str) -> TimeLimits {
        TimeLimits::new(1000, 100)
    }

    fn default_map(_variant: &str) -> MapText {
        MapText {
            name: "open6.txt".into(),
            text: include_str!("../../../arenas/maps/painters/open6.txt").into(),
        }
    }

    fn generate_map(
        _variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError> {
        let board = board::generate(params, seed)?;
        let settings: Vec<String> = params.iter().map(|(k, v)| format!("--{k} {v}")).collect();
        let comment = format!("arena gen painters --seed {seed} {}", settings.join(" "));
        Ok(MapText {
            name: format!("generated-{seed}"),
            text: board.to_board_file(comment.trim_end()),
        })
    }

    /// Option `case=N` picks the case of a Kick Start input with several (default 1).
    fn new_game(setup: &Setup) -> Result<(Painters, Vec<String>), SetupError> {
        let mut case = 1;
        for (key, value) in &setup.options {
            match key.as_str() {
                "case" => {
                    case = value
                        .parse()
                        .ok()
                        .filter(|&c: &usize| c >= 1)
                        .ok_or_else(|| SetupError::option(key, "a case number from 1"))?;
                }
                _ => return Err(SetupError::option(key, "unknown option of painters (case)")),
            }
        }
        let board = board::parse_board(&setup.map.name, &setup.map.text, case)?;
        let mut warnings = Vec::new();
        if board.size() > board::KICKSTART_MAX_SIZE {
            warnings.push(format!(
                "side {} is beyond the original problem's limit ({})",
                board.size(),
                board::KICKSTART_MAX_SIZE
            ));
        }
        Ok((Painters::new(Arc::new(board)), warnings))
    }

    fn default_bot(_variant: &str, role: &str) -> Option<&'static str> {
        match role {
            "alma" => Some("perfect"),
            "berthe" => Some("search"),
            _ => None,
        }
    }

    fn bots() -> &'static [BotInfo] {
        &[
            BotInfo {
                name: "random",
                roles: &["alma", "berthe"],
                summary: "a uniformly random legal move (seeded)",
            },
            BotInfo {
                name: "greedy",
                roles: &["alma", "berthe"],
                summary: "one ply: the move that leaves it the most rooms it reaches first",
            },
            BotInfo {
                name: "perfect",
                roles: &["alma", "berthe"],
                summary: "the exact solver (greedy if a turn's proof runs out of time)",
            },
            BotInfo {
                name: "search",
                roles: &["alma", "berthe"],
                summary: "iterative-deepening alpha-beta, answers by the deadline (seeded)",
            },
        ]
    }

    fn builtin_bot(name: &str, bot: &BotSetup<'_>) -> Result<Box<dyn Bot<Painters>>, String> {
        match name {
            "random" => Ok(Box::new(bots::RandomBot::new(bot.seed))),
            "greedy" => Ok(Box::new(bots::GreedyBot::new())),
            "perfect" => Ok(Box::new(bots::PerfectBot::new())),
            "search" => Ok(Box::new(bots::SearchBot::new(bot.seed))),
            _ => Err(format!("no built-in painters bot `{name}` (see `arena bots`)")),
        }
    }

    fn solve(args: &[String], out: &mut dyn Write) -> Result<i32, Error> {
        solve_command(args, out)
    }
}

const SOLVE_USAGE: &str = "usage: arena solve painters [--stats] [FILE|-]
Reads a Kick Start input (T, then per case `S RA PA RB PB C` and C lines `R P`; stdin when FILE
is `-` or missing) and prints `Case #x: y` for each case, y the best score Alma can guarantee.
--stats  also print nodes and time per case on stderr";

/// `arena solve painters [--stats] [FILE|-]`.
fn solve_command(args: &[String], out: &mut dyn Write) -> Result<i32, Error> {
    let mut stats = false;
    let mut file: Option<&str> = None;
    for a in args {
        match a.as_str() {
            "-h" | "--help" => {
                writeln!(out, "{SOLVE_USAGE}").map_err(write_error)?;
                return Ok(0);
            }
            "--stats" => stats = true,
            f if file.is_none() && (f == "-" || !f.starts_with('-')) => file = Some(f),
            _ => return Err(Error::Usage(format!("unexpected argument `{a}`\n{SOLVE_USAGE}"))),
        }
    }
    let (name, text) = match file {
        None | Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::Io { context: "failed to read stdin".into(), source: e })?;
            ("stdin".to_string(), text)
        }
        Some(path) => {
            (path.to_string(), std::fs::read_to_string(path).map_err(|e| Error::read(path, e))?)
        }
    };
    let boards = board::parse_kickstart(&name, &text)?;
    let started = Instant::now();
    let mut failed = None;
    solve_cases(&boards, |case, board, value, solver, elapsed| {
        if failed.is_none()
            && let Err(e) = writeln!(out, "Case #{case}: {value}")
        {
            failed = Some(write_error(e));
        }
        if stats {
            eprintln!(
                "case {case}: S={} value {value}: {} nodes, {} path nodes, {} table hits, {:.3} ms",
                board.size(),
                solver.stats.nodes,
                solver.stats.path_nodes,
                solver.stats.table_hits,
                elapsed.as_secs_f64() * 1e3
            );
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    if stats {
        eprintln!("{} cases in {:.3} ms", boards.len(), started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(0)
}

/// Solves Kick Start cases in order, calling `report(case number, board, value, solver, time)`
/// after each. A position's value depends on the open rooms and the painters only, never on how
/// they came about, so cases of one side share a solver and its tables.
pub fn solve_cases(
    boards: &[Board],
    mut report: impl FnMut(usize, &Board, i32, &Solver, std::time::Duration),
) {
    let mut solvers: BTreeMap<u32, Solver> = BTreeMap::new();
    for (i, b) in boards.iter().enumerate() {
        let started = Instant::now();
        let solver = solvers
            .entry(b.size())
            .or_insert_with(|| Solver::new(b.geometry.clone(), Solver::bits_for(b.size())));
        solver.stats = Default::default();
        let value = solver.solve_board(b);
        report(i + 1, b, value, solver, started.elapsed());
    }
}

fn write_error(e: std::io::Error) -> Error {
    Error::Io { context: "failed to write the answers".into(), source: e }
}
