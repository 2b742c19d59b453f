//! Risk: the classic rules for 2 to 6 players with hidden cards, the path algorithms of the seed's
//! homework, and bots that plan with them. See `docs/risk.md` for the rules, every choice made
//! where the printed rules leave room, the protocol, the board format and the bots' strength.

pub mod battle;
pub mod bots;
pub mod cards;
pub mod map;
pub mod paths;
pub mod protocol;
pub mod rules;
pub mod view;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use serde::Deserialize;

use crate::bot::{Bot, TimeLimits};
use crate::error::Error;
use crate::games::{BotInfo, BotSetup, GameDef, MapText, Setup, SetupError};

pub use map::RiskMap;
pub use paths::Board;
pub use rules::{Defence, FortifyRule, Options, Phase, Risk, RiskAction, RiskView};

/// Reads the game options (`players`, `deal`, `defence`, `fortify`, `max_rounds`).
pub fn parse_options(options: &BTreeMap<String, String>) -> Result<Options, SetupError> {
    let mut opts = Options::default();
    for (key, value) in options {
        let bad = |what: &str| SetupError::option(key, format!("`{value}`: {what}"));
        match key.as_str() {
            "players" => {
                opts.players = value
                    .parse()
                    .ok()
                    .filter(|p| (2..=6).contains(p))
                    .ok_or_else(|| bad("a number of players from 2 to 6"))?;
            }
            "deal" => {
                opts.random_deal = match value.as_str() {
                    "claim" => false,
                    "random" => true,
                    _ => return Err(bad("`claim` (one army at a time) or `random`")),
                }
            }
            "defence" | "defense" => {
                opts.defence = match value.as_str() {
                    "choose" => Defence::Choose,
                    "auto" | "max" => Defence::Auto,
                    _ => return Err(bad("`choose` (the defender decides) or `auto` (maximum)")),
                }
            }
            "fortify" => {
                opts.fortify = match value.as_str() {
                    "chain" | "modern" => FortifyRule::Chain,
                    "adjacent" | "1993" => FortifyRule::Adjacent,
                    _ => return Err(bad("`chain` (modern rules) or `adjacent` (1993 rules)")),
                }
            }
            "max_rounds" | "turns" => {
                opts.max_rounds =
                    value.parse().map_err(|_| bad("a number of rounds (0 for no cap)"))?;
            }
            _ => {
                return Err(SetupError::option(
                    key,
                    "unknown option of risk (players, deal, defence, fortify, max_rounds)",
                ));
            }
        }
    }
    Ok(opts)
}

impl GameDef for Risk {
    type G = Risk;

    const NAME: &'static str = "risk";
    const SUMMARY: &'static str =
        "classic Risk for 2 to 6 players (neutral army with 2), hidden cards, seeded dice";
    const VARIANTS: &'static [&'static str] = &["classic"];

    fn default_limits(_variant: &str) -> TimeLimits {
        TimeLimits::new(2000, 200)
    }

    fn default_map(_variant: &str) -> MapText {
        let (_, file, text) = map::BUILTIN_MAPS[0];
        MapText { name: file.to_string(), text: text.to_string() }
    }

    fn generate_map(
        _variant: &str,
        _params: &BTreeMap<String, String>,
        _seed: u64,
    ) -> Result<MapText, SetupError> {
        Err(SetupError::Other(
            "risk has no map generator; play the classic map or a map file (--map)".into(),
        ))
    }

    fn new_game(setup: &Setup) -> Result<(Risk, Vec<String>), SetupError> {
        if setup.variant != "classic" {
            return Err(SetupError::Variant(setup.variant.clone()));
        }
        let opts = parse_options(&setup.options)?;
        let map = map::parse(&setup.map.name, &setup.map.text)?;
        let game = Risk::new(map.into_arc(), opts, setup.seed)
            .map_err(|m| SetupError::map(&setup.map.name, None, m))?;
        Ok((game, Vec::new()))
    }

    fn default_bot(_variant: &str, role: &str) -> Option<&'static str> {
        // The strongest bot in the first seat, the heuristic one in the others.
        match role {
            "player1" => Some("planner"),
            _ if role.starts_with("player") => Some("greedy"),
            _ => None,
        }
    }

    fn bots() -> &'static [BotInfo] {
        const ROLES: &[&str] = &["player1", "player2", "player3", "player4", "player5", "player6"];
        &[
            BotInfo { name: "random", roles: ROLES, summary: "a random legal decision (seeded)" },
            BotInfo {
                name: "greedy",
                roles: ROLES,
                summary: "attacks while the exact odds favour it, reinforces its best attacker",
            },
            BotInfo {
                name: "planner",
                roles: ROLES,
                summary: "targets continents along cheapest attack paths, holds borders, times trades",
            },
        ]
    }

    fn builtin_bot(name: &str, bot: &BotSetup<'_>) -> Result<Box<dyn Bot<Risk>>, String> {
        match name {
            "random" => Ok(Box::new(bots::RandomBot::new(bot.seed))),
            "greedy" => Ok(Box::new(bots::GreedyBot::new())),
            "planner" => Ok(Box::new(bots::PlannerBot::new())),
            _ => Err(format!("no built-in risk bot `{name}` (random, greedy, planner)")),
        }
    }
}

/// `arena risk ...`: Risk's own tools.
#[derive(Parser, Debug)]
#[command(name = "arena risk", about = "Risk tools")]
struct RiskCli {
    #[command(subcommand)]
    command: RiskCommand,
}

#[derive(Subcommand, Debug)]
enum RiskCommand {
    /// The homework's path questions on a board: shortest path, cheapest attack path and its
    /// cost, whether FROM can fortify TO and whether FROM can attack TO.
    Paths {
        /// A board file (TOML; see docs/risk.md).
        #[arg(long)]
        board: PathBuf,
        /// The source territory, by id or name.
        #[arg(long)]
        from: String,
        /// The target territory, by id or name.
        #[arg(long)]
        to: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `arena risk ARGS...`; returns the exit code.
pub fn command(args: &[String], out: &mut dyn Write) -> Result<i32, Error> {
    let cli = match RiskCli::try_parse_from(
        std::iter::once("arena risk".to_string()).chain(args.iter().cloned()),
    ) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            if e.use_stderr() {
                let text = e.to_string();
                let text = text.trim_end().trim_start_matches("error: ");
                return Err(Error::Usage(text.to_string()));
            }
            write!(out, "{e}").map_err(write_error)?;
            return Ok(code);
        }
    };
    match cli.command {
        RiskCommand::Paths { board, from, to, json } => {
            let board_file = BoardFile::read(&board)?;
            let report = paths_report(&board_file, &from, &to)
                .map_err(|m| Error::Usage(format!("{}: {m}", board.display())))?;
            if json {
                let text = serde_json::to_string(&report.json()).expect("a report serializes");
                writeln!(out, "{text}").map_err(write_error)?;
            } else {
                write!(out, "{}", report.text(&board_file.map)).map_err(write_error)?;
            }
            Ok(0)
        }
    }
}

fn write_error(e: std::io::Error) -> Error {
    Error::Io { context: "failed to write to stdout".into(), source: e }
}

/// A board file: a map and each territory's owner and armies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardToml {
    map: String,
    default_owner: Option<u32>,
    default_armies: Option<u32>,
    owners: Option<Vec<u32>>,
    armies: Option<Vec<u32>>,
    #[serde(default)]
    territories: BTreeMap<String, TerritoryToml>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TerritoryToml {
    owner: Option<u32>,
    armies: Option<u32>,
}

/// A board read from a file.
#[derive(Clone, Debug)]
pub struct BoardFile {
    pub map: RiskMap,
    pub owner: Vec<u32>,
    pub armies: Vec<u32>,
}

impl BoardFile {
    /// Reads a board file; a `map` that is not a built-in name is a path relative to the file.
    pub fn read(path: &Path) -> Result<BoardFile, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::read(path, e))?;
        BoardFile::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<BoardFile, Error> {
        let bad = |m: String| Error::Usage(format!("board `{}`: {m}", path.display()));
        let raw: BoardToml = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        let map = match map::builtin(&raw.map) {
            Some(m) => m,
            None => {
                let map_path = path.parent().unwrap_or(Path::new(".")).join(&raw.map);
                let text =
                    std::fs::read_to_string(&map_path).map_err(|e| Error::read(&map_path, e))?;
                map::parse(&map_path.display().to_string(), &text)?
            }
        };
        let n = map.len();
        let column = |v: &Option<Vec<u32>>, what: &str, default: Option<u32>| match v {
            Some(v) if v.len() != n => {
                Err(bad(format!("`{what}` has {} entries; the map has {n} territories", v.len())))
            }
            Some(v) => Ok(v.iter().map(|&x| Some(x)).collect::<Vec<_>>()),
            None => Ok(vec![default; n]),
        };
        let mut owner = column(&raw.owners, "owners", raw.default_owner)?;
        let mut armies = column(&raw.armies, "armies", raw.default_armies)?;
        for (key, entry) in &raw.territories {
            let t = map.find(key).ok_or_else(|| {
                bad(format!("[territories]: no territory `{key}` on {}", map.name))
            })?;
            if let Some(o) = entry.owner {
                owner[t] = Some(o);
            }
            if let Some(a) = entry.armies {
                armies[t] = Some(a);
            }
        }
        let mut full_owner = Vec::with_capacity(n);
        let mut full_armies = Vec::with_capacity(n);
        for t in 0..n {
            let name = &map.territories[t].name;
            full_owner.push(owner[t].ok_or_else(|| bad(format!("{name} ({t}) has no owner")))?);
            let a = armies[t].ok_or_else(|| bad(format!("{name} ({t}) has no armies")))?;
            if a == 0 {
                return Err(bad(format!(
                    "{name} ({t}) has 0 armies; a territory holds at least 1"
                )));
            }
            full_armies.push(a);
        }
        Ok(BoardFile { map, owner: full_owner, armies: full_armies })
    }

    pub fn board(&self) -> Board<'_> {
        Board::new(&self.map, &self.owner, &self.armies)
    }
}

/// The answers of `arena risk paths`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathsReport {
    pub from: usize,
    pub to: usize,
    pub shortest_path: Option<Vec<usize>>,
    pub cheapest_attack_path: Option<Vec<usize>>,
    pub attack_cost: Option<u64>,
    pub can_fortify: bool,
    pub can_attack: bool,
}

/// Answers the path questions for `from` and `to` (ids or names) on a board.
pub fn paths_report(file: &BoardFile, from: &str, to: &str) -> Result<PathsReport, String> {
    let find = |key: &str| {
        file.map.find(key).ok_or_else(|| format!("no territory `{key}` on {}", file.map.name))
    };
    let (from, to) = (find(from)?, find(to)?);
    let board = file.board();
    let cheapest = board.cheapest_attack_path(from, to);
    Ok(PathsReport {
        from,
        to,
        shortest_path: board.shortest_path(from, to),
        attack_cost: cheapest.as_ref().and_then(|p| board.cost_of_attack_path(p)),
        can_attack: cheapest.is_some(),
        cheapest_attack_path: cheapest,
        can_fortify: board.can_fortify(from, to),
    })
}

impl PathsReport {
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "from": self.from,
            "to": self.to,
            "shortest_path": self.shortest_path,
            "cheapest_attack_path": self.cheapest_attack_path,
            "attack_cost": self.attack_cost,
            "can_fortify": self.can_fortify,
            "can_attack": self.can_attack,
        })
    }

    pub fn text(&self, map: &RiskMap) -> String {
        let name = |t: usize| format!("{} {}", t, map.territories[t].name);
        let path = |p: &Option<Vec<usize>>| match p {
            Some(p) => p.iter().map(|&t| name(t)).collect::<Vec<_>>().join(" -> "),
            None => "none".to_string(),
        };
        let yes = |b: bool| if b { "yes" } else { "no" };
        let mut s = format!("from {} to {} on {}\n", name(self.from), name(self.to), map.name);
        s += &format!(
            "shortest path: {} ({} territories)\n",
            path(&self.shortest_path),
            self.shortest_path.as_ref().map_or(0, Vec::len)
        );
        s += &format!("cheapest attack path: {}", path(&self.cheapest_attack_path));
        if let Some(c) = self.attack_cost {
            s += &format!(" (cost {c})");
        }
        s += "\n";
        s += &format!(
            "can fortify: {}\ncan attack: {}\n",
            yes(self.can_fortify),
            yes(self.can_attack)
        );
        s
    }
}

#[cfg(test)]
mod tests;
