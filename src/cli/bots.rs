//! `arena bots`: every game's built-in bots.

use std::io::Write;

use clap::builder::PossibleValue;
use serde::Serialize;

use crate::error::{Error, Result, exit};
use crate::games::GameId;
use crate::registry::GameDef;

#[derive(clap::Args, Debug)]
pub(super) struct BotsArgs {
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

/// One game in the listing.
#[derive(Serialize)]
struct GameBots {
    game: &'static str,
    variants: &'static [&'static str],
    summary: &'static str,
    bots: Vec<BotLine>,
}

#[derive(Serialize)]
struct BotLine {
    name: &'static str,
    roles: &'static [&'static str],
    summary: &'static str,
}

pub(super) fn run(args: BotsArgs, out: &mut dyn Write) -> Result<i32> {
    let games: Vec<GameBots> =
        GameId::ALL.iter().map(|&game| crate::with_game!(game, D => listing::<D>())).collect();
    let text = if args.json {
        let doc = serde_json::json!({ "games": games });
        format!("{}\n", serde_json::to_string(&doc).expect("a listing serializes"))
    } else {
        render(&games)
    };
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(exit::OK)
}

fn listing<D: GameDef>() -> GameBots {
    GameBots {
        game: D::NAME,
        variants: D::VARIANTS,
        summary: D::SUMMARY,
        bots: D::BOTS
            .iter()
            .map(|b| BotLine { name: b.name, roles: b.roles, summary: b.summary })
            .collect(),
    }
}

fn render(games: &[GameBots]) -> String {
    let mut s = String::new();
    for g in games {
        s += &format!("{} ({}): {}\n", g.game, g.variants.join(", "), g.summary);
        for b in &g.bots {
            s += &format!("  {:<12} [{}] {}\n", b.name, b.roles.join(", "), b.summary);
        }
    }
    s
}

/// The games as a command-line value, for every command that takes one.
impl clap::ValueEnum for GameId {
    fn value_variants<'a>() -> &'a [Self] {
        GameId::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}
