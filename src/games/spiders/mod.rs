//! Greedy Spiders (Kulkarni and Pusalkar, after de Haan and Wolf): a defender removes edges,
//! spiders walk to flies. Skynet Revolution is this game with one spider and gateways for flies
//! ([`SpiderMap::from_skynet`]). See `docs/spiders.md` for the rules, formats, protocol, bots and
//! solver.

pub mod bots;
pub(crate) mod game;
pub mod generator;
pub mod greedy;
pub mod map;
pub(crate) mod oracle;
pub mod paths;
pub(crate) mod protocol;
pub mod rules;
pub mod solve;
pub mod solver;
pub(crate) mod view;

pub use view::SpidersDrawing;

use std::collections::BTreeMap;

use crate::bot::TimeLimits;
use crate::game::{MapText, Setting, SetupError};
use crate::registry::{BotEntry, Exact, GameDef, RandomBot, Separating};

pub use map::SpiderMap;
pub use rules::{Options, SpiderAction, SpidersGame, SpidersView};

/// The game's registry entry.
pub struct Spiders;

impl GameDef for Spiders {
    type G = SpidersGame;
    type Options = Options;
    type Drawing = view::SpidersDrawing;

    const NAME: &'static str = "spiders";
    const SUMMARY: &'static str =
        "Greedy Spiders: a defender removes an edge a round, spiders walk to flies";
    const VARIANTS: &'static [&'static str] = &["standard"];
    const CHANCE: bool = false;
    const INIT: &'static str = include_str!("init.toml");
    const SEPARATING: Option<Separating> = Some(Separating {
        variants: &["standard"],
        solver_plays: "Greedy Spiders",
        // The greedy-like defenders (`paths` plays `emergency` off path maps) against the
        // game's own greedy spiders; the solver's verdict is against perfect spiders, so a map
        // it calls won is won against greedy ones too.
        against: &["emergency", "paths"],
        opponent: "greedy",
        draw: generator::separating_settings,
    });
    const BOTS: &'static [BotEntry<Spiders>] = &[
        BotEntry {
            name: "greedy",
            roles: &["spiders"],
            summary: "the paper's greedy spiders: each heads for the nearest fly it sees",
            deterministic: true,
            make: |_| Box::new(bots::GreedyBot),
        },
        BotEntry {
            name: "random",
            roles: &["defender", "spiders"],
            summary: "a uniformly random legal action (seeded)",
            deterministic: false,
            make: |b| Box::new(RandomBot::new(b.seed)),
        },
        BotEntry {
            name: "adversary",
            roles: &["spiders"],
            summary: "exact search (small graphs), greedy when it cannot decide in time",
            deterministic: true,
            make: |b| Box::new(bots::SolverBot::new(&b.game.map, b.game.options)),
        },
        BotEntry {
            name: "emergency",
            roles: &["defender"],
            summary: "cuts the spider-fly edge about to be crossed, else the nearest threat",
            deterministic: true,
            make: |_| Box::new(bots::EmergencyBot),
        },
        BotEntry {
            name: "paths",
            roles: &["defender"],
            summary: "the paper's M/D/D' algorithm on paths (emergency on other graphs)",
            deterministic: true,
            make: |b| Box::new(bots::PathsBot::new(&b.game.map)),
        },
        BotEntry {
            name: "solver",
            roles: &["defender"],
            summary: "exact search (small graphs), emergency when it cannot decide in time",
            deterministic: true,
            make: |b| Box::new(bots::SolverBot::new(&b.game.map, b.game.options)),
        },
    ];
    const GENERATOR: &'static [Setting] = generator::SETTINGS;
    const SAMPLE_OPTIONS: &'static [&'static [(&'static str, &'static str)]] = &[
        &[("all_must_move", "true")],
        &[("defender_may_pass", "true")],
        &[("all_must_move", "true"), ("defender_may_pass", "true")],
    ];

    fn oracle<'g>(_variant: &str, game: &'g SpidersGame) -> Exact<'g, SpidersGame> {
        let (oracle, statement) = oracle::SpidersOracle::new(game);
        Exact::Oracle { oracle: Box::new(oracle), unit: "wins", statement }
    }

    fn default_limits(_variant: &str) -> TimeLimits {
        TimeLimits::new(1000, 100)
    }

    fn default_map(_variant: &str) -> MapText {
        MapText {
            name: "paper_example.txt".into(),
            text: include_str!("../../../arenas/maps/spiders/paper_example.txt").into(),
        }
    }

    fn check_maps(variant: &str) -> Vec<MapText> {
        vec![
            Self::default_map(variant),
            MapText {
                name: "small_graph.txt".into(),
                text: include_str!("../../../arenas/maps/spiders/small_graph.txt").into(),
            },
        ]
    }

    fn generate_map(
        _variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError> {
        generator::generate(params, seed)
    }

    fn create(
        _variant: &str,
        options: &Options,
        map: &MapText,
        _seed: u64,
    ) -> Result<(SpidersGame, Vec<String>), SetupError> {
        let map = map::parse_map(&map.name, &map.text)?;
        let game = SpidersGame::new(map.into_arc(), *options);
        let mut warnings = Vec::new();
        if game.over.is_some() {
            warnings.push("no spider can reach a fly: the defender wins before any move".into());
        }
        Ok((game, warnings))
    }

    fn default_bot(_variant: &str, role: &str) -> Option<&'static str> {
        match role {
            "defender" => Some("emergency"),
            "spiders" => Some("greedy"),
            _ => None,
        }
    }
}
