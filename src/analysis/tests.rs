//! The analysis checked against a plain minimax over the rules: on small random positions of
//! each game, every value, label, cost and list of best moves must be the minimax's; a losing
//! move planted where a winning one exists is found; best play is never called anything but
//! best.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::Hash;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::bot::TimeLimits;
use crate::error::Error;
use crate::game::MapText;
use crate::game::Status;
use crate::games::painters::{Painters, generator::random_board};
use crate::games::skynet::Skynet;
use crate::games::spiders::{Spiders, SpidersGame};
use crate::registry::GameDef;
use crate::replay::{REPLAY_VERSION, SeatInfo};

/// Plain minimax over `legal_actions` and `play`: the first seat's final score with perfect
/// play (Skynet: 1 when the virus wins; Greedy Spiders: 1 when the defender wins; Painters'
/// Duel: Alma's rooms minus Berthe's). Seat 0 maximises, seat 1 minimises. Memoised on `key`.
fn minimax<G: Game, K: Hash + Eq>(
    game: &G,
    key: &impl Fn(&G) -> K,
    memo: &mut HashMap<K, i32>,
) -> i32 {
    let seat = match game.status() {
        Status::Over(outcome) => return outcome.scores[0] as i32,
        Status::ToAct(seat) => seat,
    };
    let k = key(game);
    if let Some(&v) = memo.get(&k) {
        return v;
    }
    let mut rng = rules_rng(0);
    let values = game.legal_actions(seat).into_iter().map(|a| {
        let mut next = game.clone();
        next.play(seat, &a, &mut rng).expect("a legal action");
        minimax(&next, key, memo)
    });
    let v = if seat == 0 { values.max() } else { values.min() }.expect("a seat to act has a move");
    memo.insert(k, v);
    v
}

/// The minimax value of a game as the analysis reports values.
fn as_value(first_seat_score: i32, roles: &[String], scored: bool) -> Value {
    if scored {
        Value::Score(first_seat_score)
    } else {
        Value::WonBy(roles[if first_seat_score == 1 { 0 } else { 1 }].clone())
    }
}

/// A move's protocol text with a cut named lower node first (`legal_actions` lists both ways).
fn one_spelling(text: &str) -> String {
    let numbers: Vec<u32> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    match numbers.as_slice() {
        [a, b] if text.split_whitespace().count() == 2 => format!("{} {}", a.min(b), a.max(b)),
        _ => text.to_string(),
    }
}

/// The action lines of `(seat, text)` pairs played from `header`.
fn lines(header: &Header, actions: &[(Seat, &str)]) -> Vec<ActionLine> {
    actions
        .iter()
        .map(|&(seat, text)| ActionLine {
            seat,
            role: header.seats.get(seat).map(|s| s.role.clone()).unwrap_or_default(),
            action: text.to_string(),
            micros: 0,
            cpu_micros: None,
            stderr: None,
            metrics: std::collections::BTreeMap::new(),
        })
        .collect()
}

fn header(
    game: GameId,
    variant: &str,
    options: &[(&str, &str)],
    map: MapText,
    roles: &[&str],
) -> Header {
    Header {
        arena_replay: REPLAY_VERSION,
        game,
        variant: variant.to_string(),
        options: options.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect(),
        map,
        seed: 7,
        seats: roles
            .iter()
            .enumerate()
            .map(|(seat, role)| SeatInfo {
                seat,
                role: role.to_string(),
                bot: format!("bot{seat}"),
                spec: "random".into(),
                limits: TimeLimits::new(1000, 100),
            })
            .collect(),
    }
}

/// How the test picks each move of a playout.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Play {
    /// Uniformly at random.
    Random,
    /// A move with the minimax value (the first one).
    Best,
    /// Best play, except that at the first decision where the mover can throw away a result (or
    /// points), it plays the worst move.
    PlantOneMistake,
}

/// What one checked playout saw.
#[derive(Default, Debug)]
struct Seen {
    labels: BTreeMap<&'static str, usize>,
    /// The planted mistake: its step, and its cost by minimax.
    planted: Option<(usize, i32)>,
}

/// Plays a game from `game` by `play`, analyses it, and checks every decision against minimax.
fn check_playout<D: GameDef, K: Hash + Eq>(
    header: &Header,
    key: impl Fn(&D::G) -> K,
    scored: bool,
    play: Play,
    rng: &mut ChaCha8Rng,
) -> Seen {
    let (mut game, _) = D::new_game(&header.setup::<D>()).expect("a valid map");
    let roles = game.roles();
    let mut memo = HashMap::new();
    let mut actions: Vec<(Seat, String)> = Vec::new();
    let mut seen = Seen::default();
    let mut play_rng = rules_rng(0);
    while let Status::ToAct(seat) = game.status() {
        let moves = game.legal_actions(seat);
        let worth = |a: &<D::G as Game>::Action, memo: &mut HashMap<K, i32>| {
            let mut next = game.clone();
            next.play(seat, a, &mut rules_rng(0)).unwrap();
            let v = minimax(&next, &key, memo);
            if seat == 0 { v } else { -v }
        };
        let values: Vec<i32> = moves.iter().map(|a| worth(a, &mut memo)).collect();
        let best = *values.iter().max().unwrap();
        let worst = *values.iter().min().unwrap();
        let pick = match play {
            Play::Random => rng.random_range(0..moves.len()),
            Play::PlantOneMistake if seen.planted.is_none() && worst < best => {
                seen.planted = Some((actions.len() + 1, best - worst));
                values.iter().position(|&v| v == worst).unwrap()
            }
            _ => values.iter().position(|&v| v == best).unwrap(),
        };
        actions.push((seat, <D::G as Game>::format_action(&moves[pick])));
        game.play(seat, &moves[pick], &mut play_rng).unwrap();
    }
    let borrowed: Vec<(Seat, &str)> = actions.iter().map(|(s, a)| (*s, a.as_str())).collect();
    let report =
        analyze_actions(Path::new("test"), header, &lines(header, &borrowed), Limits::default())
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.exact);
    assert_eq!(report.decisions.len(), actions.len());

    // Replay the same moves, checking each decision.
    let (mut game, _) = D::new_game(&header.setup::<D>()).unwrap();
    let start = minimax(&game, &key, &mut memo);
    assert_eq!(report.start, Some(as_value(start, &roles, scored)), "{}", header.map.text);
    for (d, (seat, text)) in report.decisions.iter().zip(&actions) {
        let context = format!("step {} ({} {text}) on\n{}", d.step, roles[*seat], header.map.text);
        let action = <D::G as Game>::parse_action(&game.view(*seat), text).unwrap();
        let before = minimax(&game, &key, &mut memo);
        let mut expected_best = BTreeSet::new();
        let mine = |v: i32| if *seat == 0 { v } else { -v };
        for m in game.legal_actions(*seat) {
            let mut next = game.clone();
            next.play(*seat, &m, &mut rules_rng(0)).unwrap();
            if mine(minimax(&next, &key, &mut memo)) == mine(before) {
                expected_best.insert(one_spelling(&<D::G as Game>::format_action(&m)));
            }
        }
        game.play(*seat, &action, &mut rules_rng(0)).unwrap();
        let after = minimax(&game, &key, &mut memo);
        assert_eq!(d.before, Some(as_value(before, &roles, scored)), "{context}");
        assert_eq!(d.after, Some(as_value(after, &roles, scored)), "{context}");
        let lost = mine(before) - mine(after);
        let result = |v: i32| if scored { mine(v).signum() } else { 2 * mine(v) - 1 };
        let expected_label = if lost == 0 {
            Label::Best
        } else if result(after) < result(before) {
            Label::Blunder
        } else {
            Label::Inaccuracy
        };
        assert_eq!((d.label, d.lost), (expected_label, Some(lost)), "{context}");
        let listed: BTreeSet<String> = d.best.iter().map(|b| one_spelling(b)).collect();
        assert!(d.best_complete, "{context}");
        assert_eq!(listed, expected_best, "{context}");
        *seen.labels.entry(d.label.as_str()).or_default() += 1;
    }
    if let Some((step, cost)) = seen.planted {
        let d = &report.decisions[step - 1];
        assert!(matches!(d.label, Label::Blunder | Label::Inaccuracy), "{d:?}");
        assert_eq!(d.lost, Some(cost), "{d:?}");
        if !scored {
            assert_eq!(d.label, Label::Blunder, "{d:?}");
        }
    }
    if play == Play::Best {
        assert!(report.decisions.iter().all(|d| d.label == Label::Best), "{report:#?}");
    }
    // The summary adds up.
    for s in &report.seats {
        assert_eq!(s.analysed, s.best + s.inaccuracies + s.blunders);
        assert_eq!(s.unknown, 0);
        assert_eq!(s.decisions, actions.iter().filter(|(seat, _)| *seat == s.seat).count());
    }
    seen
}

/// A small random Skynet map: a tree over the plain nodes, extra links, 1 to 3 gateways.
fn skynet_map(rng: &mut ChaCha8Rng) -> MapText {
    let n = rng.random_range(4..=8u32);
    let e = rng.random_range(1..=3u32).min(n - 2);
    let plain = n - e;
    let mut links = BTreeSet::new();
    for v in 1..plain {
        links.insert((rng.random_range(0..v), v));
    }
    for _ in 0..rng.random_range(0..=n) {
        let (a, b) = (rng.random_range(0..plain), rng.random_range(0..n));
        if a != b {
            links.insert((a.min(b), a.max(b)));
        }
    }
    for g in plain..n {
        for _ in 0..rng.random_range(1..=3) {
            links.insert((rng.random_range(0..plain), g));
        }
    }
    let mut text =
        format!("# AGENT_START {}\n{n} {} {e}\n", rng.random_range(0..plain), links.len());
    let mut order: Vec<_> = links.into_iter().collect();
    order.shuffle(rng);
    for (a, b) in order {
        text += &format!("{a} {b}\n");
    }
    for g in plain..n {
        text += &format!("{g}\n");
    }
    MapText { name: "small.txt".into(), text }
}

/// A small random Greedy Spiders graph: 3 to 6 vertices, 1 or 2 flies and spiders.
fn spiders_map(rng: &mut ChaCha8Rng) -> MapText {
    let n = rng.random_range(3..=6u32);
    let mut text = format!("nodes {n}\n");
    let mut edges = 0;
    for a in 0..n {
        for b in a + 1..n {
            if rng.random_bool(0.5) && edges < 7 {
                text += &format!("edge {a} {b}\n");
                edges += 1;
            }
        }
    }
    let mut vertices: Vec<u32> = (0..n).collect();
    vertices.shuffle(rng);
    let flies = rng.random_range(1..=2usize);
    let spiders: Vec<String> = (0..rng.random_range(1..=2usize))
        .map(|_| vertices[rng.random_range(flies..n as usize)].to_string())
        .collect();
    let flies: Vec<String> = vertices[..flies].iter().map(u32::to_string).collect();
    text += &format!("spiders {}\nflies {}\n", spiders.join(" "), flies.join(" "));
    MapText { name: "tiny.txt".into(), text }
}

fn count(total: &mut BTreeMap<&'static str, usize>, seen: &Seen) {
    for (label, n) in &seen.labels {
        *total.entry(label).or_default() += n;
    }
}

const PLAYS: [Play; 3] = [Play::Random, Play::Best, Play::PlantOneMistake];

#[test]
fn skynet_analysis_agrees_with_minimax() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut labels = BTreeMap::new();
    let mut planted = 0;
    for case in 0..120 {
        let map = skynet_map(&mut rng);
        let h = header(GameId::Skynet, "ep2", &[], map, &["virus", "agent"]);
        let key = |g: &Skynet| (g.cut.clone(), g.agent, g.to_act);
        let seen = check_playout::<Skynet, _>(&h, key, false, PLAYS[case % 3], &mut rng);
        planted += usize::from(seen.planted.is_some());
        count(&mut labels, &seen);
    }
    // Both labels occur, and mistakes were planted.
    assert!(labels.get("blunder").copied().unwrap_or(0) >= 10, "{labels:?}");
    assert!(labels.get("best").copied().unwrap_or(0) >= 100, "{labels:?}");
    assert!(planted >= 10, "{planted} planted");
}

#[test]
fn painters_analysis_agrees_with_minimax() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut labels = BTreeMap::new();
    let mut planted = 0;
    for case in 0..60 {
        let size = rng.random_range(2..=4u32);
        let blocked = [0.0, 0.15, 0.3][case % 3];
        let board = random_board(size, blocked, rng.random());
        let map = MapText { name: "board.txt".into(), text: board.to_board_file("test") };
        let h = header(GameId::Painters, "standard", &[], map, &["alma", "berthe"]);
        let key = |g: &Painters| (g.closed, g.positions, g.to_act);
        let seen = check_playout::<Painters, _>(&h, key, true, PLAYS[case % 3], &mut rng);
        planted += usize::from(seen.planted.is_some());
        count(&mut labels, &seen);
    }
    for label in ["best", "inaccuracy", "blunder"] {
        assert!(labels.get(label).copied().unwrap_or(0) >= 3, "{labels:?}");
    }
    assert!(planted >= 5, "{planted} planted");
}

#[test]
fn spiders_analysis_agrees_with_minimax() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut labels = BTreeMap::new();
    let mut planted = 0;
    for case in 0..90 {
        let map = spiders_map(&mut rng);
        let options: &[(&str, &str)] =
            if case % 4 == 1 { &[("all_must_move", "true")] } else { &[] };
        let h = header(GameId::Spiders, "standard", options, map, &["defender", "spiders"]);
        if SpidersGame::new(
            crate::games::spiders::map::parse_map("t", &h.map.text).unwrap().into_arc(),
            Spiders::options(&h.options).unwrap(),
        )
        .over
        .is_some()
        {
            continue;
        }
        let key = |g: &SpidersGame| {
            let mut spiders = g.spiders.clone();
            spiders.sort_unstable();
            (g.removed.clone(), spiders, g.to_act)
        };
        let seen = check_playout::<Spiders, _>(&h, key, false, PLAYS[case % 3], &mut rng);
        planted += usize::from(seen.planted.is_some());
        count(&mut labels, &seen);
    }
    assert!(labels.get("blunder").copied().unwrap_or(0) >= 5, "{labels:?}");
    assert!(planted >= 5, "{planted} planted");
}

#[test]
fn a_game_without_a_solver_says_so_and_rates_nothing() {
    let skynet_ep1 =
        header(GameId::Skynet, "ep1", &[], Skynet::default_map("ep1"), &["virus", "agent"]);
    let report = analyze_actions(
        Path::new("t"),
        &skynet_ep1,
        &lines(&skynet_ep1, &[(0, "1 2")]),
        Limits::default(),
    )
    .expect("a statement, not an error");
    assert!(!report.exact && report.decisions.is_empty());
    assert!(report.statement.as_deref().unwrap().contains("no exact analysis exists"));
    assert_eq!((report.seats[0].decisions, report.seats[0].analysed), (1, 0));
    assert_eq!(report.seats[0].accuracy, None);
}

#[test]
fn a_position_beyond_the_budget_is_unknown_never_guessed() {
    // With no position per decision nothing is settled, and with no limit everything is (the
    // exact solver's counts settle the forum map's start at its first position, so even one
    // position would settle it).
    let map = MapText {
        name: "forum".into(),
        text: include_str!("../../arenas/maps/skynet/ep2_custom_forum_12nodes.txt").into(),
    };
    let h = header(GameId::Skynet, "ep2", &[], map, &["virus", "agent"]);
    let actions = lines(&h, &[(0, "8 10"), (1, "9"), (0, "2 6"), (1, "1"), (0, "3 1"), (1, "4")]);
    let starved = Limits { time_ms: None, positions: Some(0) };
    let report = analyze_actions(Path::new("t"), &h, &actions, starved).unwrap();
    let first = &report.decisions[0];
    assert_eq!((first.label, first.lost, &first.before), (Label::Unknown, None, &None));
    assert!(report.seats[0].unknown >= 1);
    // A search stops at its first position past the count, which it has counted.
    assert!(report.decisions.iter().all(|d| d.positions <= 6), "{report:#?}");
    let full = analyze_actions(Path::new("t"), &h, &actions, Limits::default()).unwrap();
    assert_eq!(full.decisions[0].label, Label::Blunder);
    assert_eq!(full.decisions[0].best, ["1 3", "1 4", "2 5", "2 6"]);
    assert!(full.decisions.iter().all(|d| d.label != Label::Unknown));
    // A position count is a deterministic budget: the same count, the same report.
    let limited = Limits { time_ms: None, positions: Some(20) };
    let once = analyze_actions(Path::new("t"), &h, &actions, limited).unwrap();
    let again = analyze_actions(Path::new("t"), &h, &actions, limited).unwrap();
    assert_eq!(once, again);
}

#[test]
fn a_replay_the_rules_refuse_is_a_mismatch_naming_the_action() {
    let h = header(GameId::Skynet, "ep2", &[], Skynet::default_map("ep2"), &["virus", "agent"]);
    let err =
        analyze_actions(Path::new("bad.jsonl"), &h, &lines(&h, &[(0, "0 99")]), Limits::default())
            .unwrap_err();
    assert!(matches!(err, Error::ReplayMismatch { .. }), "{err}");
    assert!(err.to_string().contains("action 1"), "{err}");
    let err =
        analyze_actions(Path::new("bad.jsonl"), &h, &lines(&h, &[(1, "3")]), Limits::default())
            .unwrap_err();
    assert!(err.to_string().contains("not seat 1"), "{err}");
}
