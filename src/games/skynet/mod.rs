//! Skynet Revolution, Episodes 1 and 2 (CodinGame): a virus cuts links, an agent walks to
//! gateways. See `docs/skynet.md` for the rules, the protocol of both roles and the choices made
//! where the statements are silent.

pub mod agent;
pub mod bots;
pub mod generator;
pub mod map;
pub mod rules;
pub mod solver;
pub mod view;

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use clap::Parser;

use crate::bot::{Bot, TimeLimits};
use crate::games::{BotInfo, BotSetup, GameDef, MapText, Setup, SetupError};

pub use agent::{AgentModel, TieBreak};
pub use map::SkynetMap;
pub use rules::{Episode, Skynet, SkynetAction, SkynetView};

/// The game options of a Skynet match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SkynetOptions {
    /// How the built-in CodinGame agents (and the `solver` virus's model of them) break ties.
    pub tiebreak: TieBreak,
}

impl SkynetOptions {
    pub fn from_setup(setup: &Setup) -> Result<SkynetOptions, SetupError> {
        let mut options = SkynetOptions::default();
        for (key, value) in &setup.options {
            match key.as_str() {
                "tiebreak" => {
                    options.tiebreak = TieBreak::parse(value).ok_or_else(|| {
                        SetupError::option(key, format!("`{value}` is not `last` or `first`"))
                    })?;
                }
                _ => {
                    return Err(SetupError::option(
                        key,
                        "unknown option of skynet (known: tiebreak)",
                    ));
                }
            }
        }
        Ok(options)
    }
}

fn episode(variant: &str) -> Result<Episode, SetupError> {
    match variant {
        "ep1" => Ok(Episode::Ep1),
        "ep2" => Ok(Episode::Ep2),
        v => Err(SetupError::Variant(v.to_string())),
    }
}

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
        variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError> {
        let p = generator::GenParams::parse(episode(variant)?, params)?;
        let map = generator::generate(p, seed);
        Ok(MapText {
            name: format!("gen-{variant}-n{}-g{}-s{seed}", p.nodes, p.gateways),
            text: generator::to_text(p, seed, &map),
        })
    }

    fn new_game(setup: &Setup) -> Result<(Skynet, Vec<String>), SetupError> {
        SkynetOptions::from_setup(setup)?;
        let episode = episode(&setup.variant)?;
        let parsed = map::parse_map(&setup.map.name, &setup.map.text, episode)?;
        Ok((Skynet::new(parsed.map.into_arc(), episode), parsed.warnings))
    }

    fn bots() -> &'static [BotInfo] {
        &[
            BotInfo {
                name: "random",
                roles: &["virus", "agent"],
                summary: "a uniformly random legal action (seeded)",
            },
            BotInfo {
                name: "greedy",
                roles: &["virus"],
                summary: "cuts the gateway link nearest the agent",
            },
            BotInfo {
                name: "solver",
                roles: &["virus"],
                summary: "plans a winning line of cuts against the CodinGame agent of the episode \
                          (tiebreak option), else the exact solver's or the most urgent cut",
            },
            BotInfo {
                name: "cg-ep1",
                roles: &["agent"],
                summary: "the CodinGame Episode 1 agent: step to the neighbour nearest a gateway",
            },
            BotInfo {
                name: "cg-ep2",
                roles: &["agent"],
                summary: "the CodinGame Episode 2 agent (\"urgent chain\" model, tiebreak option)",
            },
            BotInfo {
                name: "perfect",
                roles: &["virus", "agent"],
                summary: "Episode 2 exact solver: a forced win's cut / a step the virus cannot \
                          beat; else plays as solver / the CodinGame agent",
            },
        ]
    }

    fn builtin_bot(name: &str, bot: &BotSetup<'_>) -> Result<Box<dyn Bot<Skynet>>, String> {
        let options = SkynetOptions::from_setup(bot.setup).map_err(|e| e.to_string())?;
        let episode = episode(&bot.setup.variant).map_err(|e| e.to_string())?;
        let info = crate::games::bot_info::<Skynet>(name)
            .ok_or_else(|| format!("no built-in skynet bot `{name}` (see `arena bots`)"))?;
        if !info.roles.contains(&bot.role.as_str()) {
            return Err(format!("`{name}` plays {}, not {}", info.roles.join(" or "), bot.role));
        }
        Ok(match name {
            "random" => Box::new(bots::RandomBot::new(bot.seed)),
            "greedy" => Box::new(bots::GreedyVirus),
            "solver" => Box::new(bots::SolverVirus::new(options.tiebreak)),
            "cg-ep1" => Box::new(bots::CgAgent::new(Episode::Ep1, options.tiebreak)),
            "cg-ep2" => Box::new(bots::CgAgent::new(Episode::Ep2, options.tiebreak)),
            "perfect" if bot.role == "virus" => Box::new(bots::PerfectVirus::new(options.tiebreak)),
            "perfect" => Box::new(bots::PerfectAgent::new(episode, options.tiebreak)),
            _ => return Err(format!("no built-in skynet bot `{name}` (see `arena bots`)")),
        })
    }

    fn default_bot(variant: &str, role: &str) -> Option<&'static str> {
        match (variant, role) {
            (_, "virus") => Some("solver"),
            ("ep1", "agent") => Some("cg-ep1"),
            (_, "agent") => Some("cg-ep2"),
            _ => None,
        }
    }

    fn solve(args: &[String], out: &mut dyn Write) -> Result<i32, crate::Error> {
        let args = match SolveArgs::try_parse_from(
            std::iter::once("arena solve skynet".to_string()).chain(args.iter().cloned()),
        ) {
            Ok(args) => args,
            Err(e) if !e.use_stderr() => {
                write!(out, "{e}").map_err(write_error)?;
                return Ok(0);
            }
            Err(e) => return Err(crate::Error::Usage(e.to_string())),
        };
        if args.variant != "ep2" {
            return Err(crate::Error::Usage(format!(
                "the exact solver plays Episode 2 only, not `{}` (on an Episode 1 map within the \
                 limits the virus always wins by cutting the agent's gateway link)",
                args.variant
            )));
        }
        let text = match &args.map {
            Some(path) => MapText {
                name: path.display().to_string(),
                text: std::fs::read_to_string(path).map_err(|e| crate::Error::read(path, e))?,
            },
            None => Skynet::default_map("ep2"),
        };
        let parsed = map::parse_map(&text.name, &text.text, Episode::Ep2)?;
        for w in &parsed.warnings {
            eprintln!("warning: {w}");
        }
        let started = Instant::now();
        let solution = solver::solve_ep2(&parsed.map);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let verdict = match solution.verdict {
            solver::Verdict::VirusWins(Some(id)) => {
                let (a, b) = parsed.map.links[id as usize];
                format!("the virus forces a win; winning first cut: {a} {b}")
            }
            solver::Verdict::VirusWins(None) => {
                "the virus has already won: the agent can reach no gateway".to_string()
            }
            solver::Verdict::AgentWins => {
                "the agent wins against any virus (perfect play)".to_string()
            }
        };
        writeln!(out, "{}: {verdict} ({} positions, {ms:.2} ms)", text.name, solution.positions)
            .map_err(write_error)?;
        Ok(0)
    }
}

fn write_error(e: std::io::Error) -> crate::Error {
    crate::Error::Io { context: "failed to write to stdout".into(), source: e }
}

/// `arena solve skynet`: the exact Episode-2 solver.
#[derive(Parser, Debug)]
#[command(
    name = "arena solve skynet",
    about = "Can the virus force a win against a perfect agent? Prints a winning first cut."
)]
struct SolveArgs {
    /// The map (either format); without it, the embedded default map.
    #[arg(long)]
    map: Option<std::path::PathBuf>,
    /// The variant; only ep2 is solved exactly.
    #[arg(long, default_value = "ep2")]
    variant: String,
}

/// Every map shipped in `arenas/maps/skynet/`, for tests.
#[cfg(test)]
pub(crate) mod tests_support {
    macro_rules! maps {
        ($($name:literal),* $(,)?) => {
            &[$(($name, include_str!(concat!("../../../arenas/maps/skynet/", $name)))),*]
        };
    }

    pub const SHIPPED_MAPS: &[(&str, &str)] = maps!(
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
mod proptests {
    use std::sync::Arc;

    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use rand_chacha::ChaCha8Rng;

    use super::generator::{GenParams, generate};
    use super::rules::{AGENT, VIRUS};
    use super::*;
    use crate::game::{Game, Status};

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
        assert!(matches!(
            Skynet::new_game(&setup("tiebreak", "middle")),
            Err(SetupError::Option { key, .. }) if key == "tiebreak"
        ));
        assert!(matches!(
            Skynet::new_game(&setup("colour", "red")),
            Err(SetupError::Option { key, .. }) if key == "colour"
        ));
    }

    #[test]
    fn every_listed_bot_can_be_built_for_its_roles() {
        let setup = Setup {
            variant: "ep2".into(),
            options: Default::default(),
            map: Skynet::default_map("ep2"),
            seed: 1,
        };
        for info in Skynet::bots() {
            for role in ["virus", "agent"] {
                let seat = if role == "virus" { VIRUS } else { AGENT };
                let bot = BotSetup { seat, role: role.into(), seed: 1, setup: &setup };
                let built = Skynet::builtin_bot(info.name, &bot);
                assert_eq!(built.is_ok(), info.roles.contains(&role), "{} as {role}", info.name);
            }
        }
    }
}
