//! The rules every game keeps, checked once for all of them (generic over [`GameDef`]):
//!
//! - over random play, [`Game::play`] accepts every action of [`Game::legal_actions`]; it
//!   refuses exactly the other actions (sampled from a superset: protocol lines mutated from the
//!   legal ones and garbage, parsed by the game), and a refused action leaves the state equal to
//!   what it was; seats not to act have no legal action; random play always ends;
//! - move counts at fixed depths from fixed positions ("perft", as in chess) match the tables in
//!   `tests/data/perft/<game>.txt`, and for the games whose every action is a short line of
//!   numbers, counts made by playing every such line (not using `legal_actions`) agree.
//!
//! A new game is covered as soon as it is in [`GameId::ALL`]: its default map, a few generated
//! maps, its [`GameDef::SAMPLE_OPTIONS`], and its perft table.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::GameDef;
use crate::game::{Game, MapText, Setup, Status};
use crate::games::GameId;
use crate::seed::rules_rng;

/// The positions a game is played from: every variant with its default map and (if it has a
/// generator) three generated maps, under the default options and each sample option set.
fn setups<D: GameDef>() -> Vec<Setup> {
    let mut out = Vec::new();
    for &variant in D::VARIANTS {
        let mut maps = vec![D::default_map(variant)];
        if !D::GENERATOR.is_empty() {
            for seed in 1..=3 {
                maps.push(D::generate_map(variant, &BTreeMap::new(), seed).expect("a map"));
            }
        }
        let mut option_sets: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
        option_sets.extend(
            D::SAMPLE_OPTIONS
                .iter()
                .map(|set| set.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect()),
        );
        for options in &mut option_sets {
            for &(key, value) in D::STRICT_OPTIONS {
                options.entry(key.to_string()).or_insert_with(|| value.to_string());
            }
        }
        for map in &maps {
            for options in &option_sets {
                out.push(Setup {
                    variant: variant.to_string(),
                    options: options.clone(),
                    map: map.clone(),
                    seed: 1,
                });
            }
        }
    }
    out
}

/// A protocol line changed a little: a number moved, a word dropped, doubled, swapped, or
/// borrowed from another line. Most such lines parse; some name legal actions, most do not.
fn mutate(line: &str, others: &[String], rng: &mut ChaCha8Rng) -> String {
    let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if words.is_empty() {
        words.push("0".into());
    }
    let i = rng.random_range(0..words.len());
    match rng.random_range(0..7) {
        0 | 1 => words[i] = mutate_word(&words[i], rng),
        2 => {
            words.remove(i);
        }
        3 => {
            let w = words[i].clone();
            words.insert(i, w);
        }
        4 => {
            let j = rng.random_range(0..words.len());
            words.swap(i, j);
        }
        5 => {
            if let Some(other) = others.choose(rng) {
                words.extend(other.split_whitespace().skip(1).map(str::to_string));
            }
        }
        _ => {
            words[i] =
                ["x", "-1", "999999", "1:1", "PASS", "WAIT", "end"][rng.random_range(0..7)].into();
        }
    }
    words.join(" ")
}

fn mutate_word(word: &str, rng: &mut ChaCha8Rng) -> String {
    if let Some((a, b)) = word.split_once(':') {
        return if rng.random_bool(0.5) {
            format!("{}:{b}", mutate_word(a, rng))
        } else {
            format!("{a}:{}", mutate_word(b, rng))
        };
    }
    match word.parse::<u64>() {
        Ok(n) => match rng.random_range(0..5) {
            0 => n + 1,
            1 => n.saturating_sub(1),
            2 => 0,
            3 => n + 100,
            _ => rng.random_range(0..=2 * n + 3),
        }
        .to_string(),
        Err(_) => word.to_string(),
    }
}

/// How many parsed candidate actions were accepted and refused: both must occur, or the check
/// of refusals says little.
#[derive(Default)]
struct Tally {
    accepted: Cell<u64>,
    refused: Cell<u64>,
}

/// Checks one position where `seat` is to act; returns the action random play takes next.
fn check_position<G: Game>(
    game: &G,
    seat: usize,
    seats: usize,
    exhaustive: bool,
    rng: &mut ChaCha8Rng,
    tally: &Tally,
) -> Result<G::Action, TestCaseError> {
    let view = game.view(seat);
    let legal = game.legal_actions(seat);
    prop_assert!(!legal.is_empty(), "seat {} is to act but has no legal action", seat);
    for other in (0..seats).filter(|&s| s != seat) {
        prop_assert!(game.legal_actions(other).is_empty(), "seat {} is not to act", other);
    }
    let draw = G::random_action_of(&view, rng).expect("a seat to act has an action");
    prop_assert!(legal.contains(&G::canonical(&draw)), "the random draw {:?} is not legal", draw);
    if !exhaustive {
        return Ok(draw);
    }
    let lines: Vec<String> = legal.iter().map(G::format_action).collect();
    // Every legal action is listed once, reads back from its line, and is accepted.
    let sample: Vec<usize> = if legal.len() <= 400 {
        (0..legal.len()).collect()
    } else {
        (0..400).map(|_| rng.random_range(0..legal.len())).collect()
    };
    for &i in &sample {
        let a = &legal[i];
        prop_assert_eq!(legal.iter().filter(|b| *b == a).count(), 1, "{:?} is listed twice", a);
        prop_assert_eq!(G::parse_action(&view, &lines[i]).map(|p| G::canonical(&p)), Ok(a.clone()));
        let mut after = game.clone();
        let played = after.play(seat, a, &mut rules_rng(0));
        prop_assert!(played.is_ok(), "legal {:?} refused: {:?}", a, played);
        // Out of turn, the same action is refused and changes nothing.
        if let Some(other) = (0..seats).find(|&s| s != seat) {
            let mut wrong = game.clone();
            prop_assert!(wrong.play(other, a, &mut rules_rng(0)).is_err());
            prop_assert!(wrong == *game, "a refused action changed the state");
        }
    }
    // Mutated lines: accepted exactly when they name a legal action; refused ones change nothing.
    for _ in 0..48 {
        let line = match lines.choose(rng) {
            Some(base) if rng.random_bool(0.9) => mutate(base, &lines, rng),
            _ => (0..rng.random_range(0..4))
                .map(|_| rng.random_range(0..60).to_string())
                .collect::<Vec<_>>()
                .join(" "),
        };
        let Ok(action) = G::parse_action(&view, &line) else { continue };
        let is_legal = legal.contains(&G::canonical(&action));
        let mut after = game.clone();
        let played = after.play(seat, &action, &mut rules_rng(0));
        prop_assert_eq!(
            played.is_ok(),
            is_legal,
            "{:?} (line {:?}): legal {}, play says {:?}",
            action,
            line,
            is_legal,
            played
        );
        if played.is_err() {
            prop_assert!(after == *game, "refused {:?} changed the state", action);
            tally.refused.set(tally.refused.get() + 1);
        } else {
            tally.accepted.set(tally.accepted.get() + 1);
        }
    }
    Ok(draw)
}

/// Plays `setup` at random to the end, checking the first `checked` positions in full.
fn play_out<D: GameDef>(
    setup: &Setup,
    seed: u64,
    checked: usize,
    tally: &Tally,
) -> Result<(), TestCaseError> {
    let (mut game, _) = D::new_game(&Setup { seed, ..setup.clone() }).expect("a valid setup");
    let seats = game.roles().len();
    let mut rules = rules_rng(seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5EED);
    let mut plies = 0usize;
    while let Status::ToAct(seat) = game.status() {
        let exhaustive = plies < checked || plies % 97 == 0;
        let action = check_position(&game, seat, seats, exhaustive, &mut rng, tally)?;
        let played = game.play(seat, &action, &mut rules);
        prop_assert!(played.is_ok(), "{:?}: {:?}", action, played);
        plies += 1;
        prop_assert!(plies < 5_000_000, "random play of {} does not end", D::NAME);
    }
    prop_assert!(game.legal_actions(0).is_empty(), "a finished game has legal actions");
    Ok(())
}

/// Plays `cases` random games of `D` under the contract above (any game, the fake ones of other
/// modules' tests included).
pub(crate) fn conformance<D: GameDef>(cases: u32) {
    let setups = setups::<D>();
    let mut runner =
        TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let tally = Tally::default();
    runner
        .run(&(0..setups.len(), any::<u64>()), |(i, seed)| {
            play_out::<D>(&setups[i], seed, 60, &tally)
        })
        .unwrap_or_else(|e| panic!("{}: {e}", D::NAME));
    let (accepted, refused) = (tally.accepted.get(), tally.refused.get());
    assert!(accepted > 20 && refused > 20, "{}: {accepted} accepted, {refused} refused", D::NAME);
}

#[test]
fn every_game_plays_exactly_its_legal_actions() {
    for &game in GameId::ALL {
        crate::with_game!(game, D => conformance::<D>(24));
    }
}

#[test]
fn every_game_registers_bots_that_play_their_roles_and_only_those() {
    fn check<D: GameDef>() {
        let variant = D::VARIANTS[0];
        let map = D::default_map(variant);
        let setup = Setup { variant: variant.into(), options: BTreeMap::new(), map, seed: 1 };
        let (game, _) = D::new_game(&setup).expect("the default setup");
        let roles = game.roles();
        let mut names: Vec<&str> = D::BOTS.iter().map(|b| b.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), D::BOTS.len(), "{}: a bot name is listed twice", D::NAME);
        assert!(D::BOTS.iter().any(|b| b.name == "random"), "{} has no random bot", D::NAME);
        for entry in D::BOTS {
            for (seat, role) in roles.iter().enumerate() {
                let built = super::builtin_bot::<D>(entry.name, seat, role, 1, &setup, &game);
                assert_eq!(
                    built.is_ok(),
                    entry.roles.contains(&role.as_str()),
                    "{} `{}` as {role}",
                    D::NAME,
                    entry.name
                );
            }
        }
        let unknown = super::builtin_bot::<D>("no-such-bot", 0, &roles[0], 1, &setup, &game);
        assert!(matches!(unknown, Err(super::BotError::Unknown { .. })));
        for role in &roles {
            if let Some(name) = D::default_bot(variant, role) {
                assert!(super::find_bot::<D>(name).is_ok(), "{}: default bot {name}", D::NAME);
            }
        }
    }
    for &game in GameId::ALL {
        crate::with_game!(game, D => check::<D>());
    }
}

#[test]
fn every_generator_lists_exactly_the_settings_it_reads() {
    fn check<D: GameDef>() {
        if D::GENERATOR.is_empty() {
            let none = D::generate_map(D::VARIANTS[0], &BTreeMap::new(), 1);
            assert!(none.is_err(), "{} generates maps but lists no setting", D::NAME);
            return;
        }
        for s in D::GENERATOR {
            // An unknown key is refused with the list of known ones: every listed key is in it.
            let mut probe = BTreeMap::new();
            probe.insert("no_such_setting".to_string(), "1".to_string());
            let e = D::generate_map(D::VARIANTS[0], &probe, 1).unwrap_err().to_string();
            assert!(e.contains(s.key), "{}: `{}` is not a setting it reads: {e}", D::NAME, s.key);
            // A numeric default as listed gives the same map as no setting at all.
            if s.default.parse::<f64>().is_ok() {
                let given: BTreeMap<String, String> =
                    [(s.key.to_string(), s.default.to_string())].into();
                let with = D::generate_map(D::VARIANTS[0], &given, 7).expect("the default");
                let without = D::generate_map(D::VARIANTS[0], &BTreeMap::new(), 7).unwrap();
                assert_eq!(
                    strip_comments(&with),
                    strip_comments(&without),
                    "{}: `{}` default",
                    D::NAME,
                    s.key
                );
            }
        }
    }
    fn strip_comments(map: &MapText) -> String {
        map.text.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n")
    }
    for &game in GameId::ALL {
        crate::with_game!(game, D => check::<D>());
    }
}

/// Action sequences of exactly `depth` actions from `game` (chance drawn from a fresh
/// `rules_rng(0)` for every action, so the counts are fixed).
fn perft<G: Game>(game: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Status::ToAct(seat) = game.status() else { return 0 };
    game.legal_actions(seat)
        .iter()
        .map(|a| {
            let mut next = game.clone();
            next.play(seat, a, &mut rules_rng(0)).expect("a legal action");
            perft(&next, depth - 1)
        })
        .sum()
}

/// One line of a perft table: a position and its counts for depths 1, 2, ...
struct PerftLine {
    variant: String,
    map: String,
    options: String,
    /// Random plies played before counting (by the `random` draw seeded with 7).
    warmup: usize,
    counts: Vec<u64>,
}

fn perft_path(game: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft").join(format!("{game}.txt"))
}

fn read_perft(game: &str) -> (Vec<String>, Vec<PerftLine>) {
    let path = perft_path(game);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (every game has a perft table)", path.display()));
    let mut header = Vec::new();
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            header.push(line.to_string());
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        assert!(w.len() >= 5, "{}: `{line}`", path.display());
        lines.push(PerftLine {
            variant: w[0].into(),
            map: w[1].into(),
            options: w[2].into(),
            warmup: w[3].parse().expect("a warm-up count"),
            counts: w[4..].iter().map(|c| c.parse().expect("a count")).collect(),
        });
    }
    (header, lines)
}

/// The position of a perft line: `map` is `default` or `gen:SEED`, `options` `-` or `k=v,k=v`.
fn perft_position<D: GameDef>(line: &PerftLine) -> D::G {
    let map = match line.map.as_str() {
        "default" => D::default_map(&line.variant),
        m => {
            let seed = m.strip_prefix("gen:").and_then(|s| s.parse().ok()).expect("gen:SEED");
            D::generate_map(&line.variant, &BTreeMap::new(), seed).expect("a generated map")
        }
    };
    let options = match line.options.as_str() {
        "-" => BTreeMap::new(),
        o => o
            .split(',')
            .map(|kv| {
                let (k, v) = kv.split_once('=').expect("k=v");
                (k.to_string(), v.to_string())
            })
            .collect(),
    };
    let setup = Setup { variant: line.variant.clone(), options, map, seed: 1 };
    let (mut game, _) = D::new_game(&setup).expect("a perft position");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut rules = rules_rng(7);
    for _ in 0..line.warmup {
        let Status::ToAct(seat) = game.status() else { break };
        let a = D::G::random_action_of(&game.view(seat), &mut rng).expect("an action");
        game.play(seat, &a, &mut rules).expect("a legal action");
    }
    game
}

/// Checks a game's perft table; with `ARENA_PERFT_WRITE=1` in the environment, writes the counts
/// the implementation gives instead (for new positions; a change of counts is a change of rules).
fn check_perft<D: GameDef>() {
    let (header, lines) = read_perft(D::NAME);
    assert!(!lines.is_empty(), "{}: an empty perft table", D::NAME);
    let write = std::env::var_os("ARENA_PERFT_WRITE").is_some();
    let mut out = header.join("\n");
    for line in &lines {
        let game = perft_position::<D>(line);
        let counts: Vec<u64> = (1..=line.counts.len() as u32).map(|d| perft(&game, d)).collect();
        if write {
            let counts: Vec<String> = counts.iter().map(u64::to_string).collect();
            let _ = write!(
                out,
                "\n{} {} {} {} {}",
                line.variant,
                line.map,
                line.options,
                line.warmup,
                counts.join(" ")
            );
        } else {
            assert_eq!(
                counts,
                line.counts,
                "{} {} {} {} after {} plies",
                D::NAME,
                line.variant,
                line.map,
                line.options,
                line.warmup
            );
        }
    }
    if write {
        std::fs::write(perft_path(D::NAME), out + "\n").expect("the perft table is written");
    }
}

#[test]
fn perft_tables_hold_for_every_game() {
    for &game in GameId::ALL {
        crate::with_game!(game, D => check_perft::<D>());
    }
}

/// Perft without `legal_actions`: every line of up to `words` numbers below `bound` (after an
/// optional verb per phase) is parsed and played; the accepted ones are the actions.
fn brute_perft<G: Game>(game: &G, depth: u32, lines: &dyn Fn(&G) -> Vec<String>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Status::ToAct(seat) = game.status() else { return 0 };
    let view = game.view(seat);
    let mut seen: Vec<G::Action> = Vec::new();
    let mut total = 0;
    for line in lines(game) {
        let Ok(action) = G::parse_action(&view, &line) else { continue };
        let mut next = game.clone();
        if next.play(seat, &action, &mut rules_rng(0)).is_err() || seen.contains(&action) {
            continue;
        }
        seen.push(action);
        total += brute_perft(&next, depth - 1, lines);
    }
    total
}

/// Every line `prefix n1 ... nk` with `k` numbers in `0..bound`.
fn number_lines(prefix: &str, k: usize, bound: u64) -> Vec<String> {
    let mut out = vec![prefix.to_string()];
    for _ in 0..k {
        out = out
            .iter()
            .flat_map(|l| (0..bound).map(move |n| format!("{l} {n}").trim().to_string()))
            .collect();
    }
    out
}

/// The first rows of the Skynet, Painters' Duel and Risk tables, counted by brute force over
/// protocol lines: the tables are not a snapshot of `legal_actions` alone.
#[test]
fn brute_force_over_protocol_lines_agrees_with_the_perft_tables() {
    use crate::games::painters::Painters;
    use crate::games::risk::Risk;
    use crate::games::skynet::Skynet;

    fn agree<D: GameDef>(max_depth: u32, lines: &dyn Fn(&D::G) -> Vec<String>) {
        let (_, table) = read_perft(D::NAME);
        let line = &table[0];
        let game = perft_position::<D>(line);
        for depth in 1..=max_depth.min(line.counts.len() as u32) {
            let brute = brute_perft(&game, depth, lines);
            assert_eq!(brute, line.counts[depth as usize - 1], "{} depth {depth}", D::NAME);
        }
    }
    agree::<Skynet>(3, &|g: &Skynet| {
        let n = g.map.nodes as u64 + 1;
        [number_lines("", 2, n), number_lines("", 1, n)].concat()
    });
    agree::<Painters>(4, &|g: &Painters| number_lines("", 2, g.board.size() as u64 * 2 + 2));
    agree::<Risk>(2, &|g: &Risk| {
        let n = g.map.len() as u64 + 2;
        ["claim", "place", "end"]
            .iter()
            .flat_map(|verb| {
                let mut lines = number_lines(verb, 1, n);
                if *verb == "place" {
                    lines.extend(number_lines(verb, 2, n));
                }
                if *verb == "end" {
                    lines.truncate(1);
                }
                lines
            })
            .collect()
    });
}
