//! Risk maps as data files: territories, continents with their bonuses, and borders.
//!
//! The format is the one of the classic map the project was given (`arenas/maps/risk/`), so the
//! source data is read as it is. Sections start with `[name]`; `#` starts a comment anywhere:
//!
//! ```text
//! [continents]      # id name bonus [territory ids...]
//! 3 north-america 5 1 2 5 10 13 26 27 29 40
//! [territories]     # id | name | continent (name or id) [| degree | neighbour ids | names]
//!  1 | Alaska | north-america | 3 | 2 19 26 | Alberta, Kamchatka, Northwest Territory
//! [edges]           # a b: one undirected border
//! 1 2
//! ```
//!
//! Ids are `0..n-1`, each used once, in any order. The optional columns are checked when present
//! (a continent's territory list, a territory's degree and neighbour ids must agree with the
//! borders), because a hand-edited map that contradicts itself is a map with a mistake in it.
//! Other sections (`[cards]`, notes) are ignored. Every error names the file and the line.

use std::collections::BTreeSet;
use std::sync::Arc;

use petgraph::Directed;
use petgraph::csr::Csr;
use petgraph::visit::Bfs;

use crate::game::SetupError;

/// The most territories a map may have (the classic board has 42): a position's legal actions and
/// the planner's searches grow with them.
pub const MAX_TERRITORIES: usize = 1_000;
/// The most continents a map may have.
pub const MAX_CONTINENTS: usize = 1_000;
/// The most borders a map may have.
pub const MAX_BORDERS: usize = 100_000;
/// The largest continent bonus (armies per turn), so army counts stay far from overflow.
pub const MAX_BONUS: usize = 1_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Territory {
    pub name: String,
    pub continent: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Continent {
    pub name: String,
    pub bonus: u32,
    /// Territory ids, ascending.
    pub territories: Vec<usize>,
}

/// The board's graph for petgraph's algorithms: a node per territory (its id), each border
/// stored both ways, neighbours in ascending id order.
pub type BorderGraph = Csr<(), (), Directed, u32>;

/// A validated map: every territory belongs to one continent, borders are symmetric.
#[derive(Clone, Debug)]
pub struct RiskMap {
    pub name: String,
    pub territories: Vec<Territory>,
    pub continents: Vec<Continent>,
    /// Undirected borders `(a, b)` with `a < b`, in file order.
    pub borders: Vec<(usize, usize)>,
    /// Neighbour ids of each territory, ascending (so searches are deterministic): the rules'
    /// and the bots' view of the borders.
    pub adj: Vec<Vec<usize>>,
    /// The same borders as a petgraph graph, for the path algorithms.
    pub graph: BorderGraph,
}

impl PartialEq for RiskMap {
    /// The graph is made from the borders, so it is not compared.
    fn eq(&self, other: &RiskMap) -> bool {
        (&self.name, &self.territories, &self.continents, &self.borders)
            == (&other.name, &other.territories, &other.continents, &other.borders)
    }
}

impl Eq for RiskMap {}

/// The border graph of `n` territories with neighbour lists `adj` (ascending).
fn border_graph(adj: &[Vec<usize>]) -> BorderGraph {
    let mut graph = BorderGraph::with_nodes(adj.len());
    for (a, neighbours) in adj.iter().enumerate() {
        for &b in neighbours {
            graph.add_edge(a as u32, b as u32, ());
        }
    }
    graph
}

/// The built-in maps, by the names a board file or `--map` may use.
pub const BUILTIN_MAPS: &[(&str, &str, &str)] = &[
    ("classic", "classic.txt", include_str!("../../../arenas/maps/risk/classic.txt")),
    ("homework82", "homework82.txt", include_str!("../../../arenas/maps/risk/homework82.txt")),
];

/// A built-in map by name (`classic`, `homework82`).
pub fn builtin(name: &str) -> Option<RiskMap> {
    BUILTIN_MAPS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, file, text)| parse(file, text).expect("the built-in maps are valid"))
}

impl RiskMap {
    pub fn len(&self) -> usize {
        self.territories.len()
    }

    pub fn is_empty(&self) -> bool {
        self.territories.is_empty()
    }

    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        self.adj.get(a).is_some_and(|n| n.binary_search(&b).is_ok())
    }

    /// A territory by id or by name (case-insensitive; `_` and `-` match spaces).
    pub fn find(&self, key: &str) -> Option<usize> {
        let key = key.trim();
        if let Ok(id) = key.parse::<usize>() {
            return (id < self.len()).then_some(id);
        }
        let norm = |s: &str| s.to_lowercase().replace(['_', '-'], " ");
        let key = norm(key);
        self.territories.iter().position(|t| norm(&t.name) == key)
    }

    pub fn into_arc(self) -> Arc<RiskMap> {
        Arc::new(self)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Continents,
    Territories,
    Edges,
    Other,
}

/// Reads a map. `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<RiskMap, SetupError> {
    let err = |line: usize, msg: String| SetupError::map(file, Some(line), msg);
    let mut section = Section::None;
    // (line, id, name, bonus, listed territory ids)
    type ContinentRow = (usize, usize, String, u32, Option<Vec<usize>>);
    let mut continents: Vec<ContinentRow> = Vec::new();
    // (line, id, name, continent key, listed degree, listed neighbours)
    type TerritoryRow = (usize, usize, String, String, Option<usize>, Option<Vec<usize>>);
    let mut territories: Vec<TerritoryRow> = Vec::new();
    let mut edges: Vec<(usize, usize, usize)> = Vec::new();

    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.split(']').next().unwrap_or("").trim();
            section = match name {
                "continents" => Section::Continents,
                "territories" => Section::Territories,
                "edges" | "borders" => Section::Edges,
                _ => Section::Other,
            };
            continue;
        }
        let number = |s: &str, what: &str| -> Result<usize, SetupError> {
            s.trim()
                .parse::<usize>()
                .map_err(|_| err(line_no, format!("{what} `{s}` is not a non-negative integer")))
        };
        match section {
            Section::None => {
                return Err(err(line_no, "data before the first [section]".to_string()));
            }
            Section::Other => {}
            Section::Continents => {
                let words: Vec<&str> = line.split_whitespace().collect();
                if words.len() < 3 {
                    return Err(err(
                        line_no,
                        format!(
                            "a continent is `id name bonus [territory ids...]`, found `{line}`"
                        ),
                    ));
                }
                if continents.len() == MAX_CONTINENTS {
                    return Err(err(line_no, format!("more than {MAX_CONTINENTS} continents")));
                }
                let id = number(words[0], "continent id")?;
                let bonus = number(words[2], "bonus")?;
                if bonus > MAX_BONUS {
                    return Err(err(
                        line_no,
                        format!("bonus `{}` is more than {MAX_BONUS}", words[2]),
                    ));
                }
                let bonus = bonus as u32;
                let listed = if words.len() > 3 {
                    Some(
                        words[3..]
                            .iter()
                            .map(|w| number(w, "territory id"))
                            .collect::<Result<Vec<_>, _>>()?,
                    )
                } else {
                    None
                };
                continents.push((line_no, id, words[1].to_string(), bonus, listed));
            }
            Section::Territories => {
                let cols: Vec<&str> = line.split('|').map(str::trim).collect();
                if cols.len() < 3 || cols[1].is_empty() || cols[2].is_empty() {
                    return Err(err(
                        line_no,
                        format!(
                            "a territory is `id | name | continent [| degree | neighbour ids \
                             | names]`, found `{line}`"
                        ),
                    ));
                }
                if territories.len() == MAX_TERRITORIES {
                    return Err(err(line_no, format!("more than {MAX_TERRITORIES} territories")));
                }
                let id = number(cols[0], "territory id")?;
                let degree = match cols.get(3) {
                    Some(d) if !d.is_empty() => Some(number(d, "degree")?),
                    _ => None,
                };
                let neighbours = match cols.get(4) {
                    Some(n) if !n.is_empty() => Some(
                        n.split_whitespace()
                            .map(|w| number(w, "neighbour id"))
                            .collect::<Result<Vec<_>, _>>()?,
                    ),
                    _ => None,
                };
                territories.push((
                    line_no,
                    id,
                    cols[1].to_string(),
                    cols[2].to_string(),
                    degree,
                    neighbours,
                ));
            }
            Section::Edges => {
                let words: Vec<&str> = line.split_whitespace().collect();
                if words.len() != 2 {
                    return Err(err(
                        line_no,
                        format!("a border is `a b` (two territory ids), found `{line}`"),
                    ));
                }
                if edges.len() == MAX_BORDERS {
                    return Err(err(line_no, format!("more than {MAX_BORDERS} borders")));
                }
                edges.push((
                    line_no,
                    number(words[0], "territory id")?,
                    number(words[1], "territory id")?,
                ));
            }
        }
    }

    if territories.is_empty() {
        return Err(SetupError::map(file, None, "no [territories]"));
    }
    if continents.is_empty() {
        return Err(SetupError::map(file, None, "no [continents]"));
    }

    // Continents: ids 0..k-1, each once.
    let k = continents.len();
    let mut continent_slots: Vec<Option<Continent>> = vec![None; k];
    for (line, id, name, bonus, _) in &continents {
        if *id >= k {
            return Err(err(*line, format!("continent id {id} is out of range 0..{k}")));
        }
        if continent_slots[*id].is_some() {
            return Err(err(*line, format!("continent id {id} is used twice")));
        }
        if continents.iter().filter(|c| &c.2 == name).count() > 1 {
            return Err(err(*line, format!("continent name `{name}` is used twice")));
        }
        continent_slots[*id] =
            Some(Continent { name: name.clone(), bonus: *bonus, territories: Vec::new() });
    }
    let mut cont: Vec<Continent> = continent_slots.into_iter().flatten().collect();

    // Territories: ids 0..n-1, each once; continent by name or id.
    let n = territories.len();
    let mut slots: Vec<Option<Territory>> = vec![None; n];
    for (line, id, name, ckey, _, _) in &territories {
        if *id >= n {
            return Err(err(*line, format!("territory id {id} is out of range 0..{n}")));
        }
        if slots[*id].is_some() {
            return Err(err(*line, format!("territory id {id} is used twice")));
        }
        let continent = cont
            .iter()
            .position(|c| &c.name == ckey)
            .or_else(|| ckey.parse::<usize>().ok().filter(|&c| c < k))
            .ok_or_else(|| err(*line, format!("unknown continent `{ckey}`")))?;
        cont[continent].territories.push(*id);
        slots[*id] = Some(Territory { name: name.clone(), continent });
    }
    let terr: Vec<Territory> = slots.into_iter().flatten().collect();
    for (i, t) in terr.iter().enumerate() {
        if terr[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&t.name)) {
            let line = territories.iter().find(|r| r.1 == i).map_or(0, |r| r.0);
            return Err(err(line, format!("territory name `{}` is used twice", t.name)));
        }
    }
    for c in &mut cont {
        c.territories.sort_unstable();
    }
    for (line, id, _, _, listed) in &continents {
        if let Some(listed) = listed {
            let mut listed = listed.clone();
            listed.sort_unstable();
            if listed != cont[*id].territories {
                return Err(err(
                    *line,
                    format!(
                        "continent lists territories {listed:?} but [territories] puts {:?} in it",
                        cont[*id].territories
                    ),
                ));
            }
        }
    }
    if let Some(c) = cont.iter().find(|c| c.territories.is_empty()) {
        return Err(SetupError::map(
            file,
            None,
            format!("continent `{}` has no territory", c.name),
        ));
    }

    // Borders.
    let mut seen = BTreeSet::new();
    let mut borders = Vec::new();
    let mut adj = vec![Vec::new(); n];
    for (line, a, b) in edges {
        if a >= n || b >= n {
            return Err(err(line, format!("border {a} {b} names a territory outside 0..{n}")));
        }
        if a == b {
            return Err(err(line, format!("border {a} {b} joins a territory to itself")));
        }
        let key = (a.min(b), a.max(b));
        if !seen.insert(key) {
            return Err(err(line, format!("border {a} {b} is listed twice")));
        }
        borders.push(key);
        adj[a].push(b);
        adj[b].push(a);
    }
    for list in &mut adj {
        list.sort_unstable();
    }
    for (line, id, name, _, degree, neighbours) in &territories {
        if let Some(d) = degree
            && *d != adj[*id].len()
        {
            return Err(err(
                *line,
                format!("{name} lists degree {d} but [edges] gives it {}", adj[*id].len()),
            ));
        }
        if let Some(listed) = neighbours {
            let mut listed = listed.clone();
            listed.sort_unstable();
            if listed != adj[*id] {
                return Err(err(
                    *line,
                    format!("{name} lists neighbours {listed:?} but [edges] gives {:?}", adj[*id]),
                ));
            }
        }
    }
    if let Some(lonely) = (0..n).find(|&t| adj[t].is_empty()) {
        return Err(SetupError::map(
            file,
            None,
            format!("territory `{}` has no border", terr[lonely].name),
        ));
    }
    // A player must be able to reach every territory, or no one could ever win.
    let graph = border_graph(&adj);
    let mut reached = Bfs::new(&graph, 0);
    while reached.next(&graph).is_some() {}
    if let Some(far) = (0..n).find(|&t| !reached.discovered.contains(t)) {
        return Err(SetupError::map(
            file,
            None,
            format!("the map is not connected: `{}` cannot be reached", terr[far].name),
        ));
    }
    Ok(RiskMap { name: file.to_string(), territories: terr, continents: cont, borders, adj, graph })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_map_has_42_territories_6_continents_and_83_borders() {
        let m = builtin("classic").unwrap();
        assert_eq!((m.len(), m.continents.len(), m.borders.len()), (42, 6, 83));
        let bonuses: u32 = m.continents.iter().map(|c| c.bonus).sum();
        assert_eq!(bonuses, 5 + 2 + 5 + 3 + 7 + 2);
        assert!(m.adjacent(24, 34));
        assert_eq!(m.find("north africa"), Some(24));
        assert_eq!(m.find("Western_United_States"), Some(40));
        assert_eq!(m.find("41"), Some(41));
        assert_eq!(m.find("42"), None);
    }

    #[test]
    fn the_homework_map_lacks_only_north_africa_southern_europe() {
        let c = builtin("classic").unwrap();
        let h = builtin("homework82").unwrap();
        assert_eq!(h.borders.len(), 82);
        let missing: Vec<_> = c.borders.iter().filter(|b| !h.borders.contains(b)).collect();
        assert_eq!(missing, vec![&(24, 34)]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let text = "[continents]\n0 a 1\n[territories]\n0 | X | a\n1 | Y | a\n[edges]\n0 7\n";
        let e = parse("bad.txt", text).unwrap_err().to_string();
        assert!(e.contains("bad.txt") && e.contains("line 7"), "{e}");
        let text = "[continents]\n0 a 1\n[territories]\n0 | X | b\n";
        let e = parse("bad.txt", text).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("unknown continent"), "{e}");
        let text =
            "[continents]\n0 a 1 0 1\n[territories]\n0 | X | a | 2\n1 | Y | a\n[edges]\n0 1\n";
        let e = parse("bad.txt", text).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("degree"), "{e}");
        let text = "[continents]\n0 a 1\n[territories]\n0 | X | a\n1 | Y | a\n2 | Z | a\n[edges]\n0 1\n1 0\n";
        let e = parse("bad.txt", text).unwrap_err().to_string();
        assert!(e.contains("line 9") && e.contains("twice"), "{e}");
    }
}
