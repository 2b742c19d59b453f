//! `arena solve GAME`: a game's exact solver.

use std::io::Write;

use crate::error::Result;
use crate::games::{GameDef, GameId};

#[derive(clap::Args, Debug)]
pub(super) struct SolveArgs {
    game: GameId,
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

pub(super) fn run(args: SolveArgs, out: &mut dyn Write) -> Result<i32> {
    crate::with_game!(args.game, D => D::solve(&args.args, out))
}
