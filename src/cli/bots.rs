//! `arena bots`: every game's built-in bots.

use std::io::Write;

use crate::error::{Error, Result};
use crate::games::{GameDef, GameId};

#[derive(clap::Args, Debug)]
pub(super) struct BotsArgs {}

pub(super) fn run(_args: BotsArgs, out: &mut dyn Write) -> Result<i32> {
    list_bots(out).map_err(Error::stdout)?;
    Ok(0)
}

fn list_bots(out: &mut dyn Write) -> std::io::Result<()> {
    for &game in GameId::ALL {
        crate::with_game!(game, D => {
            writeln!(out, "{} ({}): {}", D::NAME, D::VARIANTS.join(", "), D::SUMMARY)?;
            for b in D::bots() {
                writeln!(out, "  {:<12} [{}] {}", b.name, b.roles.join(", "), b.summary)?;
            }
        });
    }
    Ok(())
}
