//! Board files: a Risk position for the path questions of `arena risk paths` (a map plus each
//! territory's owner and armies, in TOML; see docs/risk.md), and the typed answers to them.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::map::{self, RiskMap};
use super::paths::Board;
use crate::error::Error;
use crate::game::SetupError;

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
        let text = crate::game::read_input(path).map_err(|e| Error::read(path, e))?;
        BoardFile::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<BoardFile, Error> {
        let bad = |message: String| {
            Error::from(SetupError::Board { path: path.display().to_string(), message })
        };
        let raw: BoardToml =
            toml::from_str(text).map_err(|e| bad(crate::error::toml_error_line(text, &e)))?;
        let map = match map::builtin(&raw.map) {
            Some(m) => m,
            None => {
                let map_path = path.parent().unwrap_or(Path::new(".")).join(&raw.map);
                let text =
                    crate::game::read_input(&map_path).map_err(|e| Error::read(&map_path, e))?;
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
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathsReport {
    pub from: usize,
    pub to: usize,
    pub shortest_path: Option<Vec<usize>>,
    pub cheapest_attack_path: Option<Vec<usize>>,
    pub attack_cost: Option<u64>,
    pub can_fortify: bool,
    pub can_attack: bool,
}

/// Answers the path questions for `from` and `to` (ids or names) on a board read from `path`.
pub fn paths_report(
    path: &Path,
    file: &BoardFile,
    from: &str,
    to: &str,
) -> Result<PathsReport, SetupError> {
    let find = |key: &str| {
        file.map.find(key).ok_or_else(|| SetupError::Board {
            path: path.display().to_string(),
            message: format!("no territory `{key}` on {}", file.map.name),
        })
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
