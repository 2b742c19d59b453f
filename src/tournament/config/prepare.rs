//! The bots' programs, once the arena is valid: `cg:` sources compiled (before the first match,
//! so compile time never counts against a turn), commands looked up, and the files every
//! external bot names hashed into its fingerprint. The only part of reading an arena that runs
//! programs.

use crate::bot::BotSpec;
use crate::bot::external::program_problem;
use crate::error::{Error, Result};

use super::super::bot_files::fingerprint_bot;
use super::Arena;
use super::error::Problem;

/// Prepares every external bot of `arena`, in arena order; a bot that cannot run is an error of
/// the arena file under its key, a machine that cannot compile (a cache it cannot write, Ctrl-C)
/// the harness's.
pub(super) fn bots(arena: &mut Arena) -> Result<()> {
    for (i, bot) in arena.bots.iter_mut().enumerate() {
        let key = format!("bots[{i}]");
        let refused = |problem: Problem, key: String| -> Error {
            problem.at(key).in_file(&arena.source).into()
        };
        match &bot.spec {
            BotSpec::Builtin(_) => continue,
            BotSpec::CodinGame(source) => {
                crate::bot::codingame::prepare(source).map_err(|e| {
                    e.into_error(|e| refused(Problem::Compile(Box::new(e)), format!("{key}.spec")))
                })?;
            }
            BotSpec::Command(words) => {
                if let Some(problem) = program_problem(words, &bot.external) {
                    return Err(refused(
                        Problem::NoProgram { bot: bot.name.clone(), problem },
                        key,
                    ));
                }
            }
        }
        bot.files = fingerprint_bot(&bot.name, &bot.spec, &bot.external);
    }
    Ok(())
}
