//! `arena gen GAME`: a seeded random map in the game's text format.

use std::io::Write;

use crate::error::{Error, Result};
use crate::games::{GameDef, GameId};

#[derive(clap::Args, Debug)]
pub(super) struct GenArgs {
    game: GameId,
    #[arg(long)]
    variant: Option<String>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generator settings as `--key value` or `--key=value`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    params: Vec<String>,
}

pub(super) fn run(args: GenArgs, out: &mut dyn Write) -> Result<i32> {
    let GenArgs { game, variant, seed, params } = args;
    let mut params = super::parse_flag_params(&params)?;
    // After the first game setting clap hands everything over, `--seed` included.
    let seed = match params.remove("seed") {
        Some(s) => s.parse().map_err(|_| Error::Usage(format!("bad --seed `{s}`")))?,
        None => seed,
    };
    let variant = params.remove("variant").or(variant);
    let map = crate::with_game!(game, D => {
        let variant = crate::games::resolve_variant::<D>(variant.as_deref())?;
        D::generate_map(&variant, &params, seed)?
    });
    out.write_all(map.text.as_bytes()).map_err(Error::stdout)?;
    Ok(0)
}
