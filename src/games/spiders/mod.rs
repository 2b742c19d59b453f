//! Greedy Spiders (Kulkarni and Pusalkar, after de Haan and Wolf): a defender removes edges,
//! spiders walk to flies. Skynet Revolution is this game with one spider and gateways for flies
//! ([`SpiderMap::from_skynet`]). See `docs/spiders.md` for the rules, formats, protocol, bots and
//! solver.

pub mod bots;
pub mod map;
pub mod paths;
pub mod rules;
pub mod solver;
pub mod view;

use std::collections::BTreeMap;
use std::io::Write;

use crate::bot::{Bot, TimeLimits};
use crate::games::{BotInfo, BotSetup, GameDef, MapText, Setup, SetupError};

pub use map::SpiderMap;
pub use rules::{Options, SpiderAction, SpidersGame, SpidersView};

/// The game's registry entry.
pub struct Spiders;

/// Reads the game options (`all_must_move`, `defender_may_pass`).
pub fn parse_options(options: &BTreeMap<String, String>) -> Result<Options, SetupError> {
    let mut out = Options::default();
    for (key, value) in options {
        let flag = match value.as_str() {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            _ => return Err(SetupError::option(key, format!("`{value}` is not true or false"))),
        };
        match key.as_str() {
            "all_must_move" => out.all_must_move = flag,
            "defender_may_pass" => out.defender_may_pass = flag,
            _ => {
                return Err(SetupError::option(
                    key,
                    "unknown option of spiders (known: all_must_move, defender_may_pass)",
                ));
            }
        }
    }
    Ok(out)
}

impl GameDef for Spiders {
    type G = SpidersGame;

    const NAME: &'static str = "spiders";
    const SUMMARY: &'static str =
        "Greedy Spiders: a defender removes an edge a round, spiders walk to flies";
    const VARIANTS: &'static [&'static str] = &["standard"];

    fn default_limits(_variant: &str) -> TimeLimits {
        TimeLimits::new(1000, 100)
    }

    fn default_map(_variant: &str) -> MapText {
        MapText {
            name: "paper_example.txt".into(),
            text: include_str!("../../../arenas/maps/spiders/paper_example.txt").into(),
        }
    }

    fn generate_map(
        _variant: &str,
        params: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<MapText, SetupError> {
        map::generate(params, seed)
    }

    fn new_game(setup: &Setup) -> Result<(SpidersGame, Vec<String>), SetupError> {
        if setup.variant != "standard" {
            return Err(SetupError::Variant(setup.variant.clone()));
        }
        let options = parse_options(&setup.options)?;
        let map = map::parse_map(&setup.map.name, &setup.map.text)?;
        let game = SpidersGame::new(map.into_arc(), options);
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

    fn bots() -> &'static [BotInfo] {
        &[
            BotInfo {
                name: "greedy",
                roles: &["spiders"],
                summary: "the paper's greedy spiders: each heads for the nearest fly it sees",
            },
            BotInfo {
                name: "random",
                roles: &["defender", "spiders"],
                summary: "a uniformly random legal action (seeded)",
            },
            BotInfo {
                name: "adversary",
                roles: &["spiders"],
                summary: "exact search (small graphs), greedy when it cannot decide in time",
            },
            BotInfo {
                name: "emergency",
                roles: &["defender"],
                summary: "cuts the spider-fly edge about to be crossed, else the nearest threat",
            },
            BotInfo {
                name: "paths",
                roles: &["defender"],
                summary: "the paper's M/D/D' algorithm on paths (emergency on other graphs)",
            },
            BotInfo {
                name: "solver",
                roles: &["defender"],
                summary: "exact search (small graphs), emergency when it cannot decide in time",
            },
        ]
    }

    fn builtin_bot(name: &str, bot: &BotSetup<'_>) -> Result<Box<dyn Bot<SpidersGame>>, String> {
        let info = crate::games::bot_info::<Spiders>(name)
            .ok_or_else(|| format!("no built-in spiders bot `{name}` (see `arena bots`)"))?;
        if !info.roles.contains(&bot.role.as_str()) {
            return Err(format!("`{name}` plays {}, not {}", info.roles.join(" or "), bot.role));
        }
        let (game, _) = Spiders::new_game(bot.setup).map_err(|e| e.to_string())?;
        Ok(match name {
            "greedy" => Box::new(bots::GreedyBot),
            "random" => Box::new(bots::RandomBot::new(bot.seed)),
            "emergency" => Box::new(bots::EmergencyBot),
            "paths" => Box::new(bots::PathsBot::new(&game.map)),
            _ => Box::new(bots::SolverBot::new(&game.map, game.options)),
        })
    }

    fn solve(args: &[String], out: &mut dyn Write) -> Result<i32, crate::Error> {
        solve_command(args, out)
    }
}

const SOLVE_USAGE: &str = "usage: arena solve spiders (--map FILE | --path 'F B S B F') \
                           [--spiders optimal|greedy] [--opt all_must_move=true] [--time-ms MS]";

/// `arena solve spiders`: who wins with perfect play (or against greedy spiders), and a winning
/// first move.
fn solve_command(args: &[String], out: &mut dyn Write) -> Result<i32, crate::Error> {
    let usage = |m: &str| crate::Error::Usage(format!("{m}\n{SOLVE_USAGE}"));
    let mut map_text: Option<MapText> = None;
    let mut policy = solver::Policy::Optimal;
    let mut options = BTreeMap::new();
    let mut time_ms: u64 = 60_000;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") && f != "--opt" => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        if flag == "--help" || flag == "-h" {
            writeln!(out, "{SOLVE_USAGE}").map_err(io_error)?;
            return Ok(0);
        }
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| usage(&format!("{flag} needs a value")))
        };
        match flag {
            "--map" => {
                let path = value()?;
                let text =
                    std::fs::read_to_string(&path).map_err(|e| crate::Error::read(&path, e))?;
                map_text = Some(MapText { name: path, text });
            }
            "--path" => map_text = Some(MapText { name: "--path".into(), text: value()? }),
            "--spiders" => {
                policy = match value()?.as_str() {
                    "optimal" | "perfect" | "adversary" => solver::Policy::Optimal,
                    "greedy" => solver::Policy::Greedy,
                    other => return Err(usage(&format!("unknown spider play `{other}`"))),
                }
            }
            "--opt" => {
                let kv = value()?;
                let (k, v) = kv.split_once('=').ok_or_else(|| usage("--opt takes KEY=VALUE"))?;
                options.insert(k.to_string(), v.to_string());
            }
            "--time-ms" => {
                time_ms = value()?.parse().map_err(|_| usage("--time-ms takes a number"))?
            }
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    let map_text = map_text.ok_or_else(|| usage("name a map with --map or --path"))?;
    let opts = parse_options(&options)?;
    let map = map::parse_map(&map_text.name, &map_text.text)?;
    let mut s =
        solver::Solver::new(&map, policy, opts.all_must_move).map_err(crate::Error::Usage)?;
    let started = std::time::Instant::now();
    s.set_deadline(Some(started + std::time::Duration::from_millis(time_ms)));
    let against = match policy {
        solver::Policy::Optimal => "perfect spiders",
        solver::Policy::Greedy => "greedy spiders",
    };
    let game = SpidersGame::new(map.clone().into_arc(), opts);
    let mut say = |line: String| writeln!(out, "{line}").map_err(io_error);
    if game.over.is_some() {
        say("defender wins: no spider can reach a fly (no move needed)".into())?;
        return Ok(0);
    }
    let Some(cut) = s.winning_cut(0, &map.spiders) else {
        say(format!(
            "unknown: the search ran out of time after {time_ms} ms ({} positions)",
            s.states
        ))?;
        return Ok(3);
    };
    let elapsed = started.elapsed();
    match cut {
        Some(e) => {
            let (a, b) = map.edges[e as usize];
            say(format!("defender wins against {against}"))?;
            say(format!("winning first move: {a} {b}"))?;
        }
        None => {
            say(format!("spiders win against every defence ({against})"))?;
            // Show the spiders' answer to the cut the emergency defender would make.
            let (a, b) = bots::emergency_cut(&game).unwrap_or(map.edges[0]);
            let e = map.edge_between(a, b).expect("an edge of the map");
            let reply = match policy {
                solver::Policy::Optimal => s.winning_round(1 << e, &map.spiders).flatten(),
                solver::Policy::Greedy => {
                    Some(bots::greedy_round(&map, &(1u64 << e), &map.spiders, opts.all_must_move))
                }
            };
            if let Some(moves) = reply {
                let action = SpiderAction::Moves(moves);
                say(format!(
                    "for example, after {a} {b} the spiders answer: {}",
                    <SpidersGame as crate::game::Game>::format_action(&action)
                ))?;
            }
        }
    }
    say(format!("searched {} positions in {:.3} s", s.states, elapsed.as_secs_f64()))?;
    Ok(0)
}

fn io_error(e: std::io::Error) -> crate::Error {
    crate::Error::Io { context: "writing the solver's answer".into(), source: e }
}
