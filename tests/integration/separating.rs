//! The shipped separating maps of every game (`arenas/maps/GAME/separating/`, and Skynet's of
//! CodinGame's sizes in `separating-large/`) still separate: the exact solver gives the first
//! role its value on each, and every bot the map's header names falls short of it in a real
//! match (the harness's match code, in process, so all 200 maps take seconds); and each folder's
//! README command finds the same first maps again, on one thread and on two.

use std::path::{Path, PathBuf};

use arena::analysis::Value;
use arena::analysis::separating::{play, solver_value};
use arena::game::MapText;
use arena::games::GameId;

use crate::support::{Arena, root};

/// A game's shipped separating maps: the folder, the variant, the two roles (the named bots
/// play the first), and how many of the first maps the README test finds again (each costs the
/// candidates before it).
struct Shipped {
    game: GameId,
    folder: &'static str,
    variant: &'static str,
    roles: [&'static str; 2],
    regenerate: usize,
}

const SHIPPED: [Shipped; 4] = [
    Shipped {
        game: GameId::Skynet,
        folder: "arenas/maps/skynet/separating",
        variant: "ep2",
        roles: ["virus", "agent"],
        regenerate: 2,
    },
    // The first map is candidate 39: seconds of search.
    Shipped {
        game: GameId::Skynet,
        folder: LARGE,
        variant: "ep2",
        roles: ["virus", "agent"],
        regenerate: 1,
    },
    Shipped {
        game: GameId::Spiders,
        folder: "arenas/maps/spiders/separating",
        variant: "standard",
        roles: ["defender", "spiders"],
        regenerate: 2,
    },
    Shipped {
        game: GameId::Painters,
        folder: "arenas/maps/painters/separating",
        variant: "standard",
        roles: ["alma", "berthe"],
        regenerate: 2,
    },
];

/// Skynet's separating maps of CodinGame's sizes (issue 26).
const LARGE: &str = "arenas/maps/skynet/separating-large";

fn maps_in(folder: &str) -> Vec<PathBuf> {
    let mut maps: Vec<_> = std::fs::read_dir(root().join(folder))
        .unwrap_or_else(|e| panic!("{folder}: {e}"))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    maps.sort();
    maps
}

/// The `(bot, opponent)` pairs a map's header names: `# SEPARATING: BOT (ROLE) vs OPPONENT: ...`.
fn named_bots(text: &str, role: &str) -> Vec<(String, String)> {
    let marker = format!(" ({role}) vs ");
    text.lines()
        .filter_map(|l| l.strip_prefix("# SEPARATING: "))
        .filter_map(|l| l.split_once(marker.as_str()))
        .map(|(bot, rest)| (bot.to_string(), rest.split(':').next().unwrap().to_string()))
        .collect()
}

fn map_text(path: &Path) -> MapText {
    MapText {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        text: std::fs::read_to_string(path).unwrap(),
    }
}

#[test]
fn every_shipped_separating_map_is_won_by_perfect_play_and_lost_by_the_bots_it_names() {
    for s in &SHIPPED {
        let maps = maps_in(s.folder);
        assert_eq!(maps.len(), 50, "{}: {maps:?}", s.folder);
        for path in &maps {
            let map = map_text(path);
            let named = named_bots(&map.text, s.roles[0]);
            assert!(!named.is_empty(), "{}: no named bots in\n{}", path.display(), map.text);
            let value = solver_value(s.game, s.variant, &map)
                .unwrap()
                .unwrap_or_else(|| panic!("{}: the solver did not settle it", path.display()));
            // Skynet and Spiders: a forced win for the first role (score 1); Painters' Duel:
            // Alma's exact score.
            let target = match &value {
                Value::WonBy(role) => {
                    assert_eq!(role, s.roles[0], "{}", path.display());
                    1.0
                }
                Value::Score(score) => f64::from(*score),
            };
            for (bot, opponent) in &named {
                let seats = [(s.roles[0], bot.as_str()), (s.roles[1], opponent.as_str())];
                // Another seed than the search's: the named bots are deterministic.
                let played = play(s.game, s.variant, &map, 7, seats).unwrap();
                let score = played.summary.scores[0];
                assert!(
                    score < target,
                    "{}: {bot} scored {score} against {opponent}, the solver's value is {value:?}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn each_readme_command_finds_the_same_maps_twice_and_they_are_the_shipped_ones() {
    for s in &SHIPPED {
        let readme = std::fs::read_to_string(root().join(s.folder).join("README.md")).unwrap();
        let prefix = format!("arena gen {} ", s.game.name());
        let command = readme
            .lines()
            .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("{}: the README gives no command", s.folder));
        let mut args: Vec<String> = command.split_whitespace().map(ToString::to_string).collect();
        let at = |flag: &str| args.iter().position(|a| a == flag).expect(flag) + 1;
        let (count, out) = (at("--count"), at("--out"));
        args[count] = s.regenerate.to_string();
        let search = |dir: &str, jobs: &str| {
            let mut a = args.clone();
            a[out] = dir.into();
            let run = Arena::new()
                .args(["gen", s.game.name()])
                .args(&a)
                .args(["-j", jobs])
                .run()
                .success();
            let mut found: Vec<PathBuf> =
                std::fs::read_dir(run.dir.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
            found.sort();
            found.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect::<Vec<_>>()
        };
        let first = search("a", "1");
        assert_eq!(first.len(), s.regenerate, "{}", s.folder);
        assert_eq!(first, search("b", "2"), "{}: two threads found other maps", s.folder);
        let shipped: Vec<String> = maps_in(s.folder)[..s.regenerate]
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert_eq!(first, shipped, "{}: the README's command no longer finds them", s.folder);
    }
}

/// The large Skynet maps are of the size of CodinGame's hard tests and within the statement's
/// limits: 100 to 300 nodes, at most 1000 links and 20 gateways, at most 60 nodes linked to two
/// gateways (and some, or the heuristics would not be tested on them).
#[test]
fn the_large_skynet_separating_maps_are_of_codingame_sizes() {
    use arena::games::skynet::{Episode, map::parse_map};
    let maps = maps_in(LARGE);
    assert_eq!(maps.len(), 50, "{maps:?}");
    for path in &maps {
        let text = std::fs::read_to_string(path).unwrap();
        let map = parse_map("large", &text, Episode::Ep2).unwrap().map;
        let doubles = (0..map.nodes as u32).filter(|&v| map.gateway_links_at(v) == 2).count();
        let what = format!(
            "{}: {} nodes, {} links, {} gateways, {doubles} doubles",
            path.display(),
            map.nodes,
            map.links.len(),
            map.gateways.len()
        );
        assert!((100..=300).contains(&map.nodes), "{what}");
        assert!(map.links.len() <= 1000 && map.gateways.len() <= 20, "{what}");
        assert!((1..=60).contains(&doubles), "{what}");
    }
}
