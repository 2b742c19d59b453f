//! Painters' Duel (Kick Start 2020 Round F): two painters walk a triangular museum, painting
//! every room they enter, and the one who paints more wins. See `docs/painters.md` for the
//! rules, the formats, the protocol, the bots and the solver.

pub mod bits;
pub(crate) mod bots;
pub(crate) mod game;
pub mod generator;
pub mod map;
pub(crate) mod oracle;
pub(crate) mod protocol;
pub(crate) mod rules;
pub mod solve;
pub(crate) mod solver;
pub(crate) mod view;

pub use view::PaintersDrawing;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::bot::TimeLimits;
use crate::game::{MapText, Setting, SetupError};
use crate::registry::{BotEntry, Exact, GameDef, RandomBot, Separating};

pub use map::Board;
pub use rules::{Options, Painters, PaintersAction, PaintersView};
pub use solve::solve_cases;
pub use solver::{BoardSolver, Found, Profile, Solver};

impl GameDef for Painters {
    type G = Painters;
    type Options = Options;
    type Drawing = view::PaintersDrawing;

    const NAME: &'static str = "painters";
    const SUMMARY: &'static str =
        "Painters' Duel: two painters walk a triangular museum; whoever paints more rooms wins";
    const VARIANTS: &'static [&'static str] = &["standard"];
    const CHANCE: bool = false;
    const INIT: &'static str = include_str!("init.toml");
    const SEPARATING: Option<Separating> = Some(Separating {
        variants: &["standard"],
        solver_plays: "Painters' Duel",
        against: &["greedy"],
        opponent: "perfect",
        draw: generator::separating_settings,
    });
    const BOTS: &'static [BotEntry<Painters>] = &[
        BotEntry {
            name: "random",
            roles: &["alma", "berthe"],
            summary: "a uniformly random legal move (seeded)",
            deterministic: false,
            make: |b| Box::new(RandomBot::new(b.seed)),
        },
        BotEntry {
            name: "greedy",
            roles: &["alma", "berthe"],
            summary: "one ply: the move that leaves it the most rooms it reaches first",
            deterministic: true,
            make: |_| Box::new(bots::GreedyBot::new()),
        },
        BotEntry {
            name: "perfect",
            roles: &["alma", "berthe"],
            summary: "the exact solver (greedy if a turn's proof runs out of time)",
            deterministic: true,
            make: |_| Box::new(bots::PerfectBot::new()),
        },
        BotEntry {
            name: "search",
            roles: &["alma", "berthe"],
            summary: "iterative-deepening alpha-beta, answers by the deadline (seeded)",
            deterministic: false,
            make: |b| Box::new(bots::SearchBot::new(b.seed)),
        },
    ];
    const GENERATOR: &'static [Setting] = generator::SETTINGS;

    fn oracle<'g>(_variant: &str, game: &'g Painters) -> Exact<'g, Painters> {
        Exact::Oracle {
            oracle: Box::new(oracle::PaintersOracle::new(game)),
            unit: "points",
            statement: None,
        }
    }

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
        let board = generator::generate(params, seed)?;
        let settings: Vec<String> = params.iter().map(|(k, v)| format!("--{k} {v}")).collect();
        let comment = format!("arena gen painters --seed {seed} {}", settings.join(" "));
        Ok(MapText {
            name: format!("generated-{seed}"),
            text: board.to_board_file(comment.trim_end()),
        })
    }

    fn create(
        _variant: &str,
        options: &Options,
        map: &MapText,
        _seed: u64,
    ) -> Result<(Painters, Vec<String>), SetupError> {
        let board = map::parse_board(&map.name, &map.text, options.case)?;
        let mut warnings = Vec::new();
        if board.size() > map::KICKSTART_MAX_SIZE {
            warnings.push(format!(
                "side {} is beyond the original problem's limit ({})",
                board.size(),
                map::KICKSTART_MAX_SIZE
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
}
