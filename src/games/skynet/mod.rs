//! Skynet Revolution, Episodes 1 and 2 (CodinGame): a virus cuts links, an agent walks to
//! gateways. See `docs/skynet.md` for the rules, the protocol of both roles and the choices made
//! where the statements are silent.

pub mod agent;
pub mod bots;
pub(crate) mod episode;
pub(crate) mod game;
pub mod generator;
pub mod map;
pub(crate) mod oracle;
pub(crate) mod planner;
pub(crate) mod protocol;
pub(crate) mod rules;
pub(crate) mod search;
pub mod solve;
pub mod solver;
pub mod trap;
pub(crate) mod view;

pub use view::SkynetDrawing;

use std::collections::BTreeMap;

use crate::bot::TimeLimits;
use crate::game::{MapText, Setting, SetupError};
use crate::registry::{BotEntry, Exact, GameDef, RandomBot, Separating};

pub use agent::{AgentModel, TieBreak};
pub use episode::Episode;
pub use map::SkynetMap;
pub use rules::{InvalidCut, Options, Skynet, SkynetAction, SkynetView};

impl GameDef for Skynet {
    type G = Skynet;
    type Options = Options;
    type Drawing = view::SkynetDrawing;

    const NAME: &'static str = "skynet";
    const SUMMARY: &'static str =
        "Skynet Revolution, Episodes 1 and 2: a virus cuts links, an agent walks to gateways";
    const VARIANTS: &'static [&'static str] = &["ep2", "ep1"];
    const CHANCE: bool = false;
    const STRICT_OPTIONS: &'static [(&'static str, &'static str)] = &[("invalid_cut", "lose")];
    // Before replay version 2 both episodes lost on an invalid cut.
    const REPLAY_V1_OPTIONS: &'static [(&'static str, &'static str)] = &[("invalid_cut", "lose")];
    const INIT: &'static str = include_str!("init.toml");
    const SEPARATING: Option<Separating> = Some(Separating {
        variants: &["ep2"],
        solver_plays: "Skynet Episode 2",
        against: &["greedy", "priority"],
        opponent: "cg-ep2",
        draw: generator::separating_settings,
    });
    const BOTS: &'static [BotEntry<Skynet>] = &[
        BotEntry {
            name: "random",
            roles: &["virus", "agent"],
            summary: "a uniformly random legal action (seeded)",
            deterministic: false,
            make: |b| Box::new(RandomBot::new(b.seed)),
        },
        BotEntry {
            name: "greedy",
            roles: &["virus"],
            summary: "cuts the gateway link nearest the agent",
            deterministic: true,
            make: |_| Box::new(bots::GreedyVirus),
        },
        BotEntry {
            name: "priority",
            roles: &["virus"],
            summary: "the classic heuristic: cut the agent's gateway link, else one of the \
                      nearest node with two gateway links, else any gateway link",
            deterministic: true,
            make: |_| Box::new(bots::PriorityVirus),
        },
        BotEntry {
            name: "solver",
            roles: &["virus"],
            summary: "plans a winning line of cuts against the CodinGame agent of the episode \
                      (tiebreak option), else the exact solver's or the most urgent cut",
            deterministic: true,
            make: |b| Box::new(bots::SolverVirus::new(b.options.tiebreak)),
        },
        BotEntry {
            name: "cg-ep1",
            roles: &["agent"],
            summary: "the CodinGame Episode 1 agent: step to the neighbour nearest a gateway",
            deterministic: true,
            make: |b| Box::new(bots::CgAgent::new(Episode::Ep1, b.options.tiebreak)),
        },
        BotEntry {
            name: "cg-ep2",
            roles: &["agent"],
            summary: "the CodinGame Episode 2 agent (\"urgent chain\" model, tiebreak option)",
            deterministic: true,
            make: |b| Box::new(bots::CgAgent::new(Episode::Ep2, b.options.tiebreak)),
        },
        BotEntry {
            name: "perfect",
            roles: &["virus", "agent"],
            summary: "Episode 2 exact solver: a forced win's cut / a step the virus cannot \
                      beat; else plays as solver / the CodinGame agent",
            deterministic: true,
            make: |b| match b.role {
                "virus" => Box::new(bots::PerfectVirus::new(b.options.tiebreak)),
                _ => Box::new(bots::PerfectAgent::new(b.game.episode, b.options.tiebreak)),
            },
        },
    ];
    const GENERATOR: &'static [Setting] = generator::SETTINGS;

    fn oracle<'g>(variant: &str, game: &'g Skynet) -> Exact<'g, Skynet> {
        match variant {
            "ep2" => Exact::Oracle {
                oracle: Box::new(oracle::SkynetOracle::new(&game.map)),
                unit: "wins",
                statement: None,
            },
            _ => Exact::Unavailable(
                "no exact analysis exists for Skynet Episode 1: the exact solver plays Episode 2 \
                 only (on an Episode 1 map within the limits the virus always wins by cutting the \
                 agent's gateway link)",
            ),
        }
    }

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

    fn check_maps(variant: &str) -> Vec<MapText> {
        let map = |name: &str, text: &str| MapText { name: name.into(), text: text.into() };
        match variant {
            // The statement's example and the three teaching maps public Episode 1 bots play.
            "ep1" => vec![
                Self::default_map(variant),
                map(
                    "extra_teaching_alpha.txt",
                    include_str!("../../../arenas/maps/skynet/extra_teaching_alpha.txt"),
                ),
                map(
                    "extra_teaching_default.txt",
                    include_str!("../../../arenas/maps/skynet/extra_teaching_default.txt"),
                ),
                map(
                    "extra_teaching_gamma.txt",
                    include_str!("../../../arenas/maps/skynet/extra_teaching_gamma.txt"),
                ),
            ],
            // CodinGame's three first Episode 2 tests and a forum map.
            _ => vec![
                map("ep2_01.txt", include_str!("../../../arenas/maps/skynet/ep2_01.txt")),
                map("ep2_02.txt", include_str!("../../../arenas/maps/skynet/ep2_02.txt")),
                Self::default_map(variant),
                map(
                    "ep2_custom_forum_12nodes.txt",
                    include_str!("../../../arenas/maps/skynet/ep2_custom_forum_12nodes.txt"),
                ),
            ],
        }
    }

    fn generate_map(
        variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError> {
        let settings = generator::GenSettings::parse(Episode::of_variant(variant)?, params)?;
        let map = settings.generate(seed);
        Ok(MapText { name: settings.name(seed), text: settings.to_text(seed, &map) })
    }

    fn create(
        variant: &str,
        options: &Options,
        map: &MapText,
        _seed: u64,
    ) -> Result<(Skynet, Vec<String>), SetupError> {
        let episode = Episode::of_variant(variant)?;
        let parsed = map::parse_map(&map.name, &map.text, episode)?;
        let invalid_cut = options.invalid_cut.unwrap_or(episode.default_invalid_cut());
        let game = Skynet::new(parsed.map.into_arc(), episode).with_invalid_cut(invalid_cut);
        Ok((game, parsed.warnings))
    }

    fn default_bot(variant: &str, role: &str) -> Option<&'static str> {
        match (variant, role) {
            (_, "virus") => Some("solver"),
            ("ep1", "agent") => Some("cg-ep1"),
            (_, "agent") => Some("cg-ep2"),
            _ => None,
        }
    }
}

/// Every map shipped in `arenas/maps/skynet/`, for tests.
#[cfg(test)]
pub(crate) mod tests_support {
    macro_rules! maps {
        ($($name:literal),* $(,)?) => {
            &[$(($name, include_str!(concat!("../../../arenas/maps/skynet/", $name)))),*]
        };
    }

    pub(crate) const SHIPPED_MAPS: &[(&str, &str)] = maps!(
        "ep1_statement_example.txt",
        "ep2_01.txt",
        "ep2_01_from_forum_with_coords.cg.txt",
        "ep2_02.txt",
        "ep2_03.txt",
        "ep2_custom_forum_12nodes.txt",
        "extra_teaching_alpha.txt",
        "extra_teaching_default.txt",
        "extra_teaching_gamma.txt",
    );
}

#[cfg(test)]
mod search_tests;

#[cfg(test)]
mod proptests {
    use std::sync::Arc;

    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use rand_chacha::ChaCha8Rng;

    use super::generator::{GenParams, generate};
    use super::rules::{AGENT, VIRUS};
    use super::*;
    use crate::game::{Game, Setup, Status};

    fn episode_of(ep1: bool) -> Episode {
        if ep1 { Episode::Ep1 } else { Episode::Ep2 }
    }

    fn generated(ep1: bool, nodes: usize, seed: u64) -> Skynet {
        let episode = episode_of(ep1);
        let params = GenParams { episode, nodes, gateways: GenParams::default_gateways(nodes) };
        Skynet::new(Arc::new(generate(params, seed)), episode)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn random_legal_play_ends_within_l_virus_turns(
            ep1 in any::<bool>(), nodes in 4usize..80, seed in any::<u64>()
        ) {
            let mut game = generated(ep1, nodes, seed);
            let links = game.map.links.len() as u32;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut virus_turns = 0;
            while let Status::ToAct(seat) = game.status() {
                let action = if seat == VIRUS {
                    virus_turns += 1;
                    let &(a, b) = game.legal_cuts().choose(&mut rng).expect("a cut is left");
                    SkynetAction::Cut(a, b)
                } else {
                    let moves: Vec<u32> = game.neighbours(game.agent).collect();
                    SkynetAction::Move(*moves.choose(&mut rng).expect("a step is left"))
                };
                prop_assert!(game.play(seat, &action, &mut rng).is_ok());
                prop_assert!(virus_turns <= links);
            }
            prop_assert_eq!(game.turn, virus_turns);
        }

        #[test]
        fn an_illegal_cut_is_refused_and_changes_nothing(
            ep1 in any::<bool>(), nodes in 4usize..60, seed in any::<u64>(),
            cuts_first in 0usize..5, pick in any::<prop::sample::Index>(), kind in 0u8..4,
        ) {
            let mut game = generated(ep1, nodes, seed);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut already_cut = Vec::new();
            // A few legal turns first, so "already cut" has something to name.
            for _ in 0..cuts_first {
                let Status::ToAct(VIRUS) = game.status() else { break };
                let &(a, b) = game.legal_cuts().choose(&mut rng).unwrap();
                game.play(VIRUS, &SkynetAction::Cut(a, b), &mut rng).unwrap();
                already_cut.push((b, a));
                let Status::ToAct(AGENT) = game.status() else { break };
                let moves: Vec<u32> = game.neighbours(game.agent).collect();
                game.play(AGENT, &SkynetAction::Move(*moves.choose(&mut rng).unwrap()), &mut rng)
                    .unwrap();
            }
            prop_assume!(game.status() == Status::ToAct(VIRUS));
            let n = game.map.nodes as u32;
            let map = game.map.clone();
            let linked = |a: u32, b: u32| map.adj[a as usize].iter().any(|&(x, _)| x == b);
            let candidates: Vec<(u32, u32)> = match kind {
                0 => (0..n).flat_map(|a| (0..n).map(move |b| (a, b)))
                    .filter(|&(a, b)| !linked(a, b)).collect(),
                1 => already_cut.clone(),
                2 if !ep1 => map.links.iter().copied()
                    .filter(|&(a, b)| !map.is_gateway[a as usize] && !map.is_gateway[b as usize])
                    .collect(),
                _ => vec![(n, 0), (0, n + 7), (u32::MAX, 1)],
            };
            prop_assume!(!candidates.is_empty());
            let (a, b) = *pick.get(&candidates);
            let before = game.clone();
            prop_assert!(game.play(VIRUS, &SkynetAction::Cut(a, b), &mut rng).is_err());
            prop_assert_eq!(&game, &before);
            // The agent may not act out of turn either.
            prop_assert!(game.play(AGENT, &SkynetAction::Move(0), &mut rng).is_err());
            prop_assert_eq!(&game, &before);
        }

        #[test]
        fn parse_action_rejects_garbage(line in "\\PC*") {
            let game = generated(false, 10, 1);
            let numbers: Vec<&str> = line.split_whitespace().collect();
            let is_index = |w: &str| w.parse::<u32>().is_ok();
            let virus_ok = numbers.len() == 2 && numbers.iter().all(|w| is_index(w));
            let agent_ok = numbers.len() == 1 && is_index(numbers[0]);
            prop_assert_eq!(Skynet::parse_action(&game.view(VIRUS), &line).is_ok(), virus_ok);
            prop_assert_eq!(Skynet::parse_action(&game.view(AGENT), &line).is_ok(), agent_ok);
        }

        #[test]
        fn parse_action_reads_what_format_action_writes(a in any::<u32>(), b in any::<u32>()) {
            let game = generated(false, 10, 1);
            let cut = SkynetAction::Cut(a, b);
            let text = Skynet::format_action(&cut);
            prop_assert_eq!(Skynet::parse_action(&game.view(VIRUS), &text), Ok(cut));
            let step = SkynetAction::Move(a);
            let text = Skynet::format_action(&step);
            prop_assert_eq!(Skynet::parse_action(&game.view(AGENT), &text), Ok(step));
        }
    }

    #[test]
    fn garbage_examples_are_refused() {
        let game = generated(false, 10, 1);
        for line in ["", "1", "1 2 3", "a b", "-1 2", "1.0 2", "1,2", "0x1 2"] {
            assert!(Skynet::parse_action(&game.view(VIRUS), line).is_err(), "{line:?}");
        }
        for line in ["", "1 2", "x", "-3"] {
            assert!(Skynet::parse_action(&game.view(AGENT), line).is_err(), "{line:?}");
        }
    }

    #[test]
    fn options_are_validated() {
        let setup = |key: &str, value: &str| Setup {
            variant: "ep2".into(),
            options: [(key.to_string(), value.to_string())].into(),
            map: Skynet::default_map("ep2"),
            seed: 1,
        };
        assert!(Skynet::new_game(&setup("tiebreak", "first")).is_ok());
        assert!(Skynet::new_game(&setup("invalid_cut", "ignore")).is_ok());
        assert!(Skynet::new_game(&setup("invalid_cut", "lose")).is_ok());
        assert!(matches!(
            Skynet::new_game(&setup("invalid_cut", "pass")),
            Err(SetupError::Option { key, .. }) if key == "invalid_cut"
        ));
        assert!(matches!(
            Skynet::new_game(&setup("tiebreak", "middle")),
            Err(SetupError::Option { key, .. }) if key == "tiebreak"
        ));
        assert!(matches!(
            Skynet::new_game(&setup("colour", "red")),
            Err(SetupError::Option { key, .. }) if key == "colour"
        ));
    }
}
