//! Risk: the classic rules for 2 to 6 players with hidden cards, the path algorithms of the seed's
//! homework, and bots that plan with them. See `docs/risk.md` for the rules, every choice made
//! where the printed rules leave room, the protocol, the board format and the bots' strength.

pub(crate) mod battle;
pub mod board;
pub(crate) mod bots;
pub(crate) mod cards;
pub(crate) mod game;
pub mod map;
pub(crate) mod paths;
pub(crate) mod protocol;
pub(crate) mod rules;
pub(crate) mod view;

pub use view::RiskDrawing;

use crate::bot::TimeLimits;
use crate::game::{MapText, SetupError};
use crate::registry::{BotEntry, Exact, GameDef, RandomBot, Separating};

pub use board::{BoardFile, PathsReport, paths_report};
pub use map::RiskMap;
pub use paths::Board;
pub use rules::{Defence, FortifyRule, Options, Phase, Risk, RiskAction, RiskView};

/// Every seat's role: Risk's bots play any of them.
const PLAYERS: &[&str] = &["player1", "player2", "player3", "player4", "player5", "player6"];

impl GameDef for Risk {
    type G = Risk;
    type Options = Options;
    type Drawing = view::RiskDrawing;

    const NAME: &'static str = "risk";
    const SUMMARY: &'static str =
        "classic Risk for 2 to 6 players (neutral army with 2), hidden cards, seeded dice";
    const VARIANTS: &'static [&'static str] = &["classic"];
    const CHANCE: bool = true;
    const INIT: &'static str = include_str!("init.toml");
    const SEPARATING: Option<Separating> = None;
    const BOTS: &'static [BotEntry<Risk>] = &[
        BotEntry {
            name: "random",
            roles: PLAYERS,
            summary: "a uniformly random legal decision (seeded)",
            deterministic: false,
            make: |b| Box::new(RandomBot::new(b.seed)),
        },
        BotEntry {
            name: "greedy",
            roles: PLAYERS,
            summary: "attacks while the exact odds favour it, reinforces its best attacker",
            deterministic: true,
            make: |_| Box::new(bots::GreedyBot::new()),
        },
        BotEntry {
            name: "planner",
            roles: PLAYERS,
            summary: "targets continents along cheapest attack paths, holds borders, times trades",
            deterministic: true,
            make: |_| Box::new(bots::PlannerBot::new()),
        },
    ];

    const SAMPLE_OPTIONS: &'static [&'static [(&'static str, &'static str)]] = &[
        &[("players", "2"), ("max_rounds", "12")],
        &[("players", "3"), ("deal", "random"), ("defence", "auto"), ("max_rounds", "8")],
        &[("players", "6"), ("fortify", "adjacent"), ("max_rounds", "6")],
    ];

    fn oracle<'g>(_variant: &str, _game: &'g Risk) -> Exact<'g, Risk> {
        Exact::Unavailable(
            "no exact analysis exists for Risk: no solver settles a game of dice and hidden cards",
        )
    }

    fn default_limits(_variant: &str) -> TimeLimits {
        TimeLimits::new(2000, 200)
    }

    fn default_map(_variant: &str) -> MapText {
        let (_, file, text) = map::BUILTIN_MAPS[0];
        MapText { name: file.to_string(), text: text.to_string() }
    }

    fn check_maps(_variant: &str) -> Vec<MapText> {
        map::BUILTIN_MAPS
            .iter()
            .map(|(_, file, text)| MapText { name: file.to_string(), text: text.to_string() })
            .collect()
    }

    fn create(
        _variant: &str,
        options: &Options,
        map: &MapText,
        seed: u64,
    ) -> Result<(Risk, Vec<String>), SetupError> {
        let map = map::parse(&map.name, &map.text)?;
        Ok((Risk::new(map.into_arc(), *options, seed)?, Vec::new()))
    }

    fn default_bot(_variant: &str, role: &str) -> Option<&'static str> {
        // The strongest bot in the first seat, the heuristic one in the others.
        match role {
            "player1" => Some("planner"),
            _ if role.starts_with("player") => Some("greedy"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
