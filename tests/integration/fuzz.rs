//! Hostile input through every parser, in process: maps of the four games, arena files, replays
//! and the lines bots write. Inputs are the project's own valid files with random edits (a token
//! replaced by a huge, negative, malformed or binary one, a line dropped or repeated, the text cut
//! short). Whatever the input, a parser answers with a value or an error: a panic fails the test,
//! and an allocation abort (a size read from the input and trusted) kills the test binary.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use arena::game::{Game, MapText, Seat, Setup, Status};
use arena::games::painters::Painters;
use arena::games::risk::Risk;
use arena::games::skynet::Skynet;
use arena::games::spiders::Spiders;
use arena::registry::GameDef;
use arena::tournament::{Arena, Files};
use proptest::prelude::*;

use crate::support::root;

/// What a mutation may write: sizes far beyond every limit, signs, overflow, garbage, binary.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "4000000000",
    "100000000000",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e400",
    "nan",
    "x",
    "",
    "\"\"",
    "[",
    "]",
    "{",
    "=",
    "#",
    "|",
    "\u{0}",
    "\u{fffd}\u{7f}",
    "é",
    "1.5",
    "true",
    "F",
    "S",
    "edge",
    "nodes",
    "[[bots]]",
];

/// One edit of a text.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace the `n`-th token (modulo their number) by `TOKENS[t]`.
    Token(usize, usize),
    /// Drop the `n`-th line.
    DropLine(usize),
    /// Repeat the `n`-th line.
    RepeatLine(usize),
    /// Keep only the first `n` bytes (at a character boundary).
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), 0..TOKENS.len()).prop_map(|(n, t)| Edit::Token(n, t)),
        1 => any::<usize>().prop_map(Edit::DropLine),
        1 => any::<usize>().prop_map(Edit::RepeatLine),
        1 => any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut text = text.to_string();
    for e in edits {
        text = match *e {
            Edit::Token(n, t) => {
                let spans: Vec<(usize, usize)> = token_spans(&text);
                if spans.is_empty() {
                    TOKENS[t].to_string()
                } else {
                    let (a, b) = spans[n % spans.len()];
                    format!("{}{}{}", &text[..a], TOKENS[t], &text[b..])
                }
            }
            Edit::DropLine(n) | Edit::RepeatLine(n) => {
                let mut lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let i = n % lines.len();
                    if matches!(e, Edit::DropLine(_)) {
                        lines.remove(i);
                    } else {
                        lines.insert(i, lines[i]);
                    }
                }
                lines.join("\n")
            }
            Edit::Truncate(n) => {
                let mut cut = n % (text.len() + 1);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text[..cut].to_string()
            }
        };
    }
    text
}

/// Byte ranges of the runs of non-whitespace, JSON and TOML punctuation included.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let boundary = c.is_whitespace() || ",:\"".contains(c);
        match (start, boundary) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

/// Sets up a match of `D` on `map` (with `options`), asserting only that it does not panic.
fn set_up<D: GameDef>(map: String, options: &[(&str, &str)]) {
    let setup = Setup {
        variant: D::VARIANTS[0].to_string(),
        options: options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        map: MapText { name: "fuzz.txt".into(), text: map },
        seed: 7,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| D::new_game(&setup).map(|_| ())));
    assert!(outcome.is_ok(), "new_game panicked on:\n{}", setup.map.text);
}

/// `D`'s default match at its start, and the seat to act.
fn default_match<D: GameDef>() -> (D::G, Seat) {
    let variant = D::VARIANTS[0];
    let setup = Setup {
        variant: variant.to_string(),
        options: Default::default(),
        map: D::default_map(variant),
        seed: 3,
    };
    let (game, _) = D::new_game(&setup).expect("the default match sets up");
    let Status::ToAct(seat) = game.status() else { panic!("the default match is not over") };
    (game, seat)
}

/// Feeds `lines` to the protocol parser of the seat to act in `D`'s default match, and plays
/// what parses (legal or not) on a copy; neither may panic.
fn parse_lines<D: GameDef>(lines: &[String]) {
    let (game, seat) = default_match::<D>();
    let view = game.view(seat);
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    for line in lines {
        let parsed = catch_unwind(AssertUnwindSafe(|| D::G::parse_action(&view, line)));
        let Ok(parsed) = parsed else { panic!("parse_action panicked on {line:?}") };
        if let Ok(action) = parsed {
            let mut copy = game.clone();
            let played = catch_unwind(AssertUnwindSafe(|| copy.play(seat, &action, &mut rng)));
            assert!(played.is_ok(), "play panicked on {line:?}");
        }
    }
}

/// A legal action of `D`'s default match, as a bot would write it, to mutate.
fn legal_line<D: GameDef>() -> String {
    let (game, seat) = default_match::<D>();
    let actions = game.legal_actions(seat);
    actions.first().map(D::G::format_action).unwrap_or_default()
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_maps_of_every_game_set_up_or_are_refused(
        game in 0usize..4,
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        match game {
            0 => set_up::<Skynet>(apply(&Skynet::default_map("ep2").text, &edits), &[]),
            1 => set_up::<Spiders>(apply(&Spiders::default_map(Spiders::VARIANTS[0]).text, &edits), &[]),
            2 => set_up::<Risk>(apply(&Risk::default_map(Risk::VARIANTS[0]).text, &edits), &[]),
            _ => set_up::<Painters>(
                apply(&Painters::default_map(Painters::VARIANTS[0]).text, &edits),
                &[],
            ),
        }
    }

    #[test]
    fn spiders_graph_files_with_mutated_numbers_are_refused_or_read(
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let text = "nodes 7\nedge 0 1\nedge 1 2\nedge 2 3\nedge 3 4\nedge 4 5\nedge 5 6\nspiders 2 4\nflies 0 6\n";
        set_up::<Spiders>(apply(text, &edits), &[]);
    }

    #[test]
    fn mutated_options_are_refused_or_read(
        game in 0usize..4,
        key in 0usize..8,
        value in 0..TOKENS.len(),
    ) {
        let keys = ["players", "max_rounds", "at_turn_limit", "tiebreak", "all_must_move",
            "defender_may_pass", "deal", "colour"];
        let options = [(keys[key], TOKENS[value])];
        match game {
            0 => set_up::<Skynet>(Skynet::default_map("ep2").text, &options),
            1 => set_up::<Spiders>(Spiders::default_map(Spiders::VARIANTS[0]).text, &options),
            2 => set_up::<Risk>(Risk::default_map(Risk::VARIANTS[0]).text, &options),
            _ => set_up::<Painters>(Painters::default_map(Painters::VARIANTS[0]).text, &options),
        }
    }

    #[test]
    fn mutated_arena_files_are_refused_or_read(
        base in 0usize..4,
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        // Arenas of built-in bots only: a mutation must not start a compiler or a program.
        let names = ["default.toml", "risk-planner-2p.toml", "risk-planner-4p.toml",
            "sprt-skynet-virus.toml"];
        let dir = root().join("arenas");
        let text = std::fs::read_to_string(dir.join(names[base])).expect("an arena");
        let text = apply(&text, &edits);
        prop_assume!(!text.contains("cmd:") && !text.contains("cg:"));
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            Arena::parse(&text, Path::new("fuzz.toml"), &Files::Disk(dir.clone())).map(|_| ())
        }));
        prop_assert!(parsed.is_ok(), "Arena::parse panicked on:\n{}", text);
    }

    #[test]
    fn mutated_replays_are_refused_or_verified(
        base in 0usize..4,
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let names = ["painters.jsonl", "skynet_ep2.jsonl", "skynet_fault.jsonl", "spiders.jsonl"];
        let text = std::fs::read_to_string(root().join("tests/data/replays/earlier").join(names[base]))
            .expect("a replay");
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("fuzz.jsonl");
        let text = apply(&text, &edits);
        std::fs::write(&path, &text).expect("written");
        let verified = catch_unwind(AssertUnwindSafe(|| arena::replay::verify(&path).map(|_| ())));
        prop_assert!(verified.is_ok(), "replay::verify panicked on:\n{}", text);
    }

    #[test]
    fn bot_lines_are_parsed_or_refused_by_every_protocol(
        game in 0usize..4,
        edits in proptest::collection::vec(edit(), 0..4),
        noise in "\\PC{0,40}",
    ) {
        let lines = |legal: String| vec![apply(&legal, &edits), noise.clone(), format!("{legal} {noise}")];
        match game {
            0 => parse_lines::<Skynet>(&lines(legal_line::<Skynet>())),
            1 => parse_lines::<Spiders>(&lines(legal_line::<Spiders>())),
            2 => parse_lines::<Risk>(&lines(legal_line::<Risk>())),
            _ => parse_lines::<Painters>(&lines(legal_line::<Painters>())),
        }
    }
}
