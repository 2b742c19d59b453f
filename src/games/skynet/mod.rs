//! Skynet Revolution, Episodes 1 and 2 (CodinGame): a virus cuts links, an agent walks to
//! gateways. See `docs/skynet.md` for the rules, the protocol of both roles and the choices made
//! where the statements are silent.

pub mod bots;
pub mod map;
pub mod rules;

use std::collections::BTreeMap;

use crate::bot::{Bot, TimeLimits};
use crate::games::{BotInfo, BotSetup, GameDef, MapText, Setup, SetupError};

pub use map::SkynetMap;
pub use rules::{Episode, Skynet, SkynetAction, SkynetView};

impl GameDef for Skynet {
    type G = Skynet;

    const NAME: &'static str = "skynet";
    const SUMMARY: &'static str =
        "Skynet Revolution, Episodes 1 and 2: a virus cuts links, an agent walks to gateways";
    const VARIANTS: &'static [&'static str] = &["ep2", "ep1"];

    fn default_limits(_variant: &str) -> TimeLimits {
        TimeLimits::new(1000, 150)
    }

    fn default_map(variant: &str) -> MapText {
        match variant {
            "ep1" => MapText {
                name: "ep1_statement_example.txt".into(),
                text: include_str!("../../../arenas/maps/skynet/ep1_statement_example.txt").into(),
            },
            _ => MapText {
                name: "ep2_03.txt".into(),
                text: include_str!("../../../arenas/maps/skynet/ep2_03.txt").into(),
            },
        }
    }

    fn generate_map(
        _variant: &str,
        _params: &BTreeMap<String, String>,
        _seed: u64,
    ) -> Result<MapText, SetupError> {
        Err(SetupError::Other("the Skynet map generator is not written yet".into()))
    }

    fn new_game(setup: &Setup) -> Result<(Skynet, Vec<String>), SetupError> {
        if let Some(key) = setup.options.keys().next() {
            return Err(SetupError::option(key, "unknown option of skynet"));
        }
        let episode = match setup.variant.as_str() {
            "ep1" => Episode::Ep1,
            "ep2" => Episode::Ep2,
            v => return Err(SetupError::Variant(v.to_string())),
        };
        let map = map::parse_protocol_map(&setup.map.name, &setup.map.text)?;
        Ok((Skynet::new(map.into_arc(), episode), Vec::new()))
    }

    fn bots() -> &'static [BotInfo] {
        &[BotInfo {
            name: "random",
            roles: &["virus", "agent"],
            summary: "a uniformly random legal action (seeded)",
        }]
    }

    fn builtin_bot(name: &str, bot: &BotSetup<'_>) -> Result<Box<dyn Bot<Skynet>>, String> {
        match name {
            "random" => Ok(Box::new(bots::RandomBot::new(bot.seed))),
            _ => Err(format!("no built-in skynet bot `{name}` (see `arena bots`)")),
        }
    }
}
