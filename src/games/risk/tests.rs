//! Tests of the whole game: setup, turns, cards, hidden information, the protocol, and property
//! tests of random play (never panics, ends by the cap, refuses illegal actions without a trace,
//! conserves cards and armies).

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::cards::{self, Card};
use super::map;
use super::rules::{Defence, FortifyRule, Options, Phase, Risk, RiskAction, UNCLAIMED};
use super::*;
use crate::game::{Game, Status};
use crate::registry::GameDef;

fn classic() -> std::sync::Arc<RiskMap> {
    map::builtin("classic").unwrap().into_arc()
}

fn game(players: usize, seed: u64) -> Risk {
    Risk::new(classic(), Options { players, ..Options::default() }, seed).unwrap()
}

/// Plays random decisions (a uniform draw from each seat's legal actions, with each seat's own
/// RNG) until the end or `limit` actions.
fn play_random(
    g: &mut Risk,
    seed: u64,
    limit: usize,
    mut check: impl FnMut(&Risk, &Risk, &RiskAction),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bots: Vec<ChaCha8Rng> = (0..g.seats())
        .map(|s| ChaCha8Rng::seed_from_u64(seed.wrapping_mul(31) + s as u64))
        .collect();
    for _ in 0..limit {
        let Status::ToAct(seat) = g.status() else { return };
        let action =
            Risk::random_action_of(&g.view(seat), &mut bots[seat]).expect("a legal action");
        let before = g.clone();
        g.play(seat, &action, &mut rng).unwrap_or_else(|e| panic!("{action:?}: {e}"));
        check(&before, g, &action);
    }
}

fn total_armies(g: &Risk) -> i64 {
    g.armies.iter().map(|&a| i64::from(a)).sum::<i64>()
        + g.reserve.iter().map(|&a| i64::from(a)).sum::<i64>()
        + i64::from(g.pool)
}

/// The invariants every state keeps, and how one action may change the army total.
fn check_step(before: &Risk, after: &Risk, action: &RiskAction) {
    let n = after.map.len();
    // Cards: every card is in exactly one hand or in the deck.
    let mut all: Vec<Card> = after.deck.clone();
    for h in &after.hands {
        all.extend(h);
    }
    all.sort_unstable();
    assert_eq!(all, cards::full_deck(n), "cards are conserved");
    for (s, h) in after.hands.iter().enumerate() {
        assert_eq!(after.hand_sizes[s], h.len());
    }
    assert_eq!(after.deck_size, after.deck.len());
    // Territories.
    for t in 0..n {
        if after.owner[t] == UNCLAIMED {
            assert_eq!(after.armies[t], 0);
        } else {
            assert!(after.armies[t] >= 1, "a held territory has an army");
        }
    }
    // Armies change only by battles (losses) and trades (set value, +2 bonus).
    let mut delta = total_armies(after) - total_armies(before);
    // A new turn starts with its reinforcements in the pool.
    if after.round > 0 && (before.round == 0 || before.current != after.current) {
        assert_eq!(after.pool, after.base_reinforcements(after.current));
        delta -= i64::from(after.pool);
    }
    match action {
        RiskAction::Attack { .. } if matches!(after.phase, Phase::Defend { .. }) => {
            assert_eq!(delta, 0, "the defender has not rolled yet");
        }
        RiskAction::Attack { .. } | RiskAction::Defend(_) => {
            let b = after.last_battle.as_ref().expect("a battle was fought");
            assert_eq!(delta, -i64::from(b.losses.attacker + b.losses.defender));
        }
        RiskAction::Trade(_) => {
            let bonus = i64::from(after.bonus_taken && !before.bonus_taken) * 2;
            assert_eq!(delta, i64::from(cards::set_value(before.trades)) + bonus);
        }
        _ => assert_eq!(delta, 0, "{action:?} keeps the army total"),
    }
    if !matches!(after.phase, Phase::Claim) && after.round > 0 {
        for s in 0..after.seats() {
            assert_eq!(after.alive[s], after.territories_of(s as u32) > 0);
        }
    }
}

#[test]
fn starting_armies_follow_the_player_count() {
    for (players, each) in [(3, 35), (4, 30), (5, 25), (6, 20)] {
        let g = game(players, 1);
        assert_eq!(g.phase, Phase::Claim);
        assert_eq!(&g.reserve[..players], vec![each; players].as_slice());
        assert_eq!(g.reserve[players], 0);
        assert_eq!(g.roles().len(), players);
    }
}

#[test]
fn two_players_get_a_dealt_neutral_and_place_two_plus_one() {
    let g = game(2, 9);
    for holder in 0..3u32 {
        assert_eq!(g.territories_of(holder), 14);
        assert_eq!(g.reserve[holder as usize], 40 - 14);
    }
    assert_eq!(g.phase, Phase::SetupPlace { own_left: 2, neutral_left: 1 });
    let mut g2 = g.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mine = (0..42).find(|&t| g.owner[t] == 0).unwrap();
    let neutral = (0..42).find(|&t| g.owner[t] == 2).unwrap();
    // The neutral army cannot go first, nor on an own territory.
    assert!(g2.play(0, &RiskAction::Place { territory: neutral, armies: 1 }, &mut rng).is_err());
    g2.play(0, &RiskAction::Place { territory: mine, armies: 1 }, &mut rng).unwrap();
    g2.play(0, &RiskAction::Place { territory: mine, armies: 1 }, &mut rng).unwrap();
    assert!(g2.play(0, &RiskAction::Place { territory: mine, armies: 1 }, &mut rng).is_err());
    g2.play(0, &RiskAction::Place { territory: neutral, armies: 1 }, &mut rng).unwrap();
    assert_eq!(g2.current, 1);
    assert_eq!(g2.armies[neutral], 2);
    // The same seed deals the same board; another seed another.
    assert_eq!(game(2, 9).owner, g.owner);
    assert_ne!(game(2, 10).owner, g.owner);
}

#[test]
fn claims_go_in_turn_order_then_placement_one_at_a_time() {
    let mut g = game(3, 1);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    g.play(0, &RiskAction::Claim(5), &mut rng).unwrap();
    let again = g.clone();
    assert!(g.play(1, &RiskAction::Claim(5), &mut rng).is_err(), "already claimed");
    assert!(g.play(0, &RiskAction::Claim(6), &mut rng).is_err(), "not player1's turn");
    assert!(g.play(1, &RiskAction::Place { territory: 5, armies: 1 }, &mut rng).is_err());
    assert_eq!(g, again, "refusals change nothing");
    for t in 0..42 {
        if g.owner[t] == UNCLAIMED {
            let seat = g.current;
            g.play(seat, &RiskAction::Claim(t), &mut rng).unwrap();
        }
    }
    // 42 claims over 3 players: 14 each; player1 places next.
    assert_eq!(g.phase, Phase::SetupPlace { own_left: 1, neutral_left: 0 });
    assert_eq!(g.current, 0);
    let own = (0..42).find(|&t| g.owner[t] == 0).unwrap();
    assert!(g.play(0, &RiskAction::Place { territory: own, armies: 2 }, &mut rng).is_err());
    g.play(0, &RiskAction::Place { territory: own, armies: 1 }, &mut rng).unwrap();
    assert_eq!(g.current, 1);
}

/// A game past setup: every territory dealt, reserves placed, player1 to move.
fn started(players: usize, seed: u64) -> Risk {
    let mut g =
        Risk::new(classic(), Options { players, random_deal: true, ..Options::default() }, seed)
            .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while matches!(g.phase, Phase::SetupPlace { .. }) {
        let seat = g.current;
        let holder = match g.phase {
            Phase::SetupPlace { own_left, .. } if own_left > 0 => seat as u32,
            _ => 2,
        };
        let t = (0..42).find(|&t| g.owner[t] == holder).unwrap();
        g.play(seat, &RiskAction::Place { territory: t, armies: 1 }, &mut rng).unwrap();
    }
    g
}

#[test]
fn reinforcements_are_territories_over_three_plus_continent_bonuses() {
    let mut g = started(3, 4);
    assert_eq!(g.round, 1);
    assert_eq!(g.current, 0);
    // Give player1 South America (bonus 2) and 12 other territories: 16 / 3 = 5, + 2.
    for t in 0..42 {
        g.owner[t] = 1;
    }
    for t in [3, 4, 28, 37] {
        g.owner[t] = 0;
    }
    for t in 0..12 {
        if g.owner[t] != 0 {
            g.owner[t] = 0;
        }
    }
    let held = g.territories_of(0) as u32;
    assert_eq!(g.base_reinforcements(0), held / 3 + 2);
    // Few territories: at least 3.
    for t in 0..42 {
        g.owner[t] = 1;
    }
    g.owner[0] = 0;
    assert_eq!(g.base_reinforcements(0), 3);
}

#[test]
fn trading_gives_the_set_value_and_two_armies_once_per_turn() {
    let mut g = started(3, 5);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // Two infantry sets (ids 0 mod 3) whose territories player1 owns.
    let own: Vec<u16> = vec![0, 3, 6, 9, 12, 15];
    for &t in &own {
        g.owner[t as usize] = 0;
    }
    g.hands[0] = own.iter().map(|&t| Card(t)).collect();
    g.hand_sizes[0] = 6;
    g.deck.retain(|c| !g.hands[0].contains(c));
    g.deck_size = g.deck.len();
    g.phase = Phase::Trade { forced: false };
    let pool = g.pool;
    assert!(g.play(0, &RiskAction::End, &mut rng).is_err(), "6 cards: trading is mandatory");
    let first = [Card(own[0]), Card(own[1]), Card(own[2])];
    let armies_before = g.armies[own[0] as usize];
    g.play(0, &RiskAction::Trade(first), &mut rng).unwrap();
    assert_eq!(g.pool, pool + 4);
    assert_eq!(g.armies[own[0] as usize], armies_before + 2);
    let second = [Card(own[3]), Card(own[4]), Card(own[5])];
    let armies_before = g.armies[own[3] as usize];
    g.play(0, &RiskAction::Trade(second), &mut rng).unwrap();
    assert_eq!(g.pool, pool + 4 + 6);
    assert_eq!(g.armies[own[3] as usize], armies_before, "the +2 comes once per turn");
    assert_eq!(g.phase, Phase::Reinforce);
    assert_eq!(g.trades, 2);
}

#[test]
fn a_bad_set_is_refused() {
    let mut g = started(3, 5);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    g.hands[0] = vec![Card(0), Card(3), Card(1)];
    g.hand_sizes[0] = 3;
    g.deck.retain(|c| !g.hands[0].contains(c));
    g.deck_size = g.deck.len();
    g.phase = Phase::Trade { forced: false };
    let before = g.clone();
    assert!(g.play(0, &RiskAction::Trade([Card(0), Card(3), Card(1)]), &mut rng).is_err());
    assert!(g.play(0, &RiskAction::Trade([Card(0), Card(3), Card(6)]), &mut rng).is_err());
    assert!(g.play(0, &RiskAction::Trade([Card(0), Card(0), Card(3)]), &mut rng).is_err());
    assert_eq!(g, before);
}

/// Player1 next to a lone player2 territory with a big stack, attacking phase.
fn duel(defence: Defence) -> (Risk, usize, usize) {
    let mut g = started(3, 6);
    let (from, to) = (3usize, 4usize); // Argentina -> Brazil
    for t in 0..42 {
        g.owner[t] = 2;
        g.armies[t] = 1;
    }
    g.owner[from] = 0;
    g.armies[from] = 30;
    g.owner[to] = 1;
    g.armies[to] = 1;
    g.opts.defence = defence;
    g.phase = Phase::Attack;
    g.pool = 0;
    (g, from, to)
}

#[test]
fn conquering_the_last_territory_eliminates_and_hands_over_the_cards() {
    let (mut g, from, to) = duel(Defence::Choose);
    g.hands[1] = vec![Card(1), Card(2), Card(5), Card(7), Card(8)];
    g.hands[0] = vec![Card(9)];
    g.hand_sizes = vec![1, 5, 0];
    let held: Vec<Card> = g.hands.concat();
    g.deck.retain(|c| !held.contains(c));
    g.deck_size = g.deck.len();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    // One defender: it rolls one die without being asked; repeat until the conquest.
    while g.owner[to] == 1 {
        g.play(0, &RiskAction::Attack { from, to, dice: 3 }, &mut rng).unwrap();
        assert_eq!(g.to_act(), 0);
    }
    assert!(!g.alive[1]);
    assert_eq!(g.hands[0].len(), 6);
    assert_eq!(g.armies[to], 3, "the dice rolled moved in");
    let Phase::Occupy { min, .. } = g.phase else { panic!("{:?}", g.phase) };
    assert_eq!(min, 3);
    assert!(g.play(0, &RiskAction::Occupy(2), &mut rng).is_err());
    g.play(0, &RiskAction::Occupy(5), &mut rng).unwrap();
    assert_eq!(g.armies[to], 5);
    assert_eq!(g.phase, Phase::Trade { forced: true }, "six cards: trade down at once");
    assert!(g.play(0, &RiskAction::End, &mut rng).is_err());
}

#[test]
fn the_defender_chooses_its_dice_unless_automatic() {
    let (mut g, from, to) = duel(Defence::Choose);
    g.armies[to] = 5;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    g.play(0, &RiskAction::Attack { from, to, dice: 3 }, &mut rng).unwrap();
    assert_eq!(g.phase, Phase::Defend { from, to, dice: 3 });
    assert_eq!(g.status(), Status::ToAct(1), "the defender decides");
    assert!(g.play(0, &RiskAction::Defend(2), &mut rng).is_err(), "not the attacker's choice");
    assert!(g.play(1, &RiskAction::Defend(3), &mut rng).is_err());
    g.play(1, &RiskAction::Defend(2), &mut rng).unwrap();
    let b = g.last_battle.clone().unwrap();
    assert_eq!((b.attack.len(), b.defence.len()), (3, 2));
    assert_eq!(b.losses.attacker + b.losses.defender, 2);

    let (mut g, from, to) = duel(Defence::Auto);
    g.armies[to] = 5;
    g.play(0, &RiskAction::Attack { from, to, dice: 2 }, &mut rng).unwrap();
    assert_eq!(g.phase, Phase::Attack);
    assert_eq!(g.last_battle.unwrap().defence.len(), 2);
}

#[test]
fn attacks_need_one_more_army_than_dice_and_a_border() {
    let (mut g, from, to) = duel(Defence::Auto);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    g.armies[from] = 3;
    let before = g.clone();
    for bad in [
        RiskAction::Attack { from, to, dice: 3 },
        RiskAction::Attack { from, to, dice: 0 },
        RiskAction::Attack { from, to: 24, dice: 1 },
        RiskAction::Attack { from: to, to: from, dice: 1 },
        RiskAction::Attack { from, to: 99, dice: 1 },
        RiskAction::Fortify { from, to, armies: 1 },
        RiskAction::Claim(0),
    ] {
        assert!(g.play(0, &bad, &mut rng).is_err(), "{bad:?}");
        assert_eq!(g, before);
    }
    g.play(0, &RiskAction::Attack { from, to, dice: 2 }, &mut rng).unwrap();
}

#[test]
fn fortify_follows_chains_or_only_borders_in_1993_rules() {
    let mut g = started(3, 6);
    for t in 0..42 {
        g.owner[t] = 1;
        g.armies[t] = 1;
    }
    // Player1 holds Argentina - Peru - Venezuela; Argentina does not border Venezuela.
    for t in [3, 28, 37] {
        g.owner[t] = 0;
    }
    g.armies[3] = 5;
    g.phase = Phase::Fortify;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut chain = g.clone();
    chain.play(0, &RiskAction::Fortify { from: 3, to: 37, armies: 4 }, &mut rng).unwrap();
    assert_eq!((chain.armies[3], chain.armies[37]), (1, 5));
    assert_eq!(chain.current, 1, "fortifying ends the turn");
    let mut adjacent = g.clone();
    adjacent.opts.fortify = FortifyRule::Adjacent;
    assert!(
        adjacent.play(0, &RiskAction::Fortify { from: 3, to: 37, armies: 4 }, &mut rng).is_err()
    );
    assert!(
        adjacent.play(0, &RiskAction::Fortify { from: 3, to: 28, armies: 5 }, &mut rng).is_err()
    );
    adjacent.play(0, &RiskAction::Fortify { from: 3, to: 28, armies: 4 }, &mut rng).unwrap();
}

#[test]
fn a_card_is_drawn_only_after_a_conquest() {
    let (mut g, from, to) = duel(Defence::Auto);
    g.owner[5] = 1; // player2 keeps another territory, so the game goes on
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut quiet = g.clone();
    quiet.play(0, &RiskAction::End, &mut rng).unwrap();
    quiet.play(0, &RiskAction::End, &mut rng).unwrap();
    assert!(quiet.hands[0].is_empty());
    while g.owner[to] != 0 {
        g.play(0, &RiskAction::Attack { from, to, dice: 3 }, &mut rng).unwrap();
    }
    if matches!(g.phase, Phase::Occupy { .. }) {
        g.play(0, &RiskAction::Occupy(3), &mut rng).unwrap();
    }
    g.play(0, &RiskAction::End, &mut rng).unwrap();
    g.play(0, &RiskAction::End, &mut rng).unwrap();
    assert_eq!(g.hands[0].len(), 1);
    assert_eq!(g.deck.len(), 43);
}

#[test]
fn a_view_shows_its_own_cards_and_only_the_counts_of_others() {
    let mut g = started(3, 7);
    g.hands[1] = vec![Card(1), Card(2)];
    g.hands[2] = vec![Card(4)];
    g.hand_sizes = vec![0, 2, 1];
    let v = g.view(1);
    assert_eq!(v.game.hands[1], vec![Card(1), Card(2)]);
    assert!(v.game.hands[0].is_empty() && v.game.hands[2].is_empty());
    assert!(v.game.deck.is_empty());
    assert_eq!(v.game.hand_sizes, vec![0, 2, 1]);
    let text = Risk::turn_input(&v);
    assert!(text.contains("hand 2 1:C 2:A"), "{text}");
    assert!(text.contains("cards 0 2 1"), "{text}");
    assert!(!Risk::turn_input(&g.view(2)).contains("1:C"));
}

#[test]
fn the_protocol_round_trips_and_has_nine_lines_per_decision() {
    let mut g = game(4, 3);
    let mut lines_ok = true;
    play_random(&mut g, 3, 3000, |before, _, action| {
        let seat = before.to_act();
        let view = before.view(seat);
        let text = Risk::format_action(action);
        assert_eq!(Risk::parse_action(&view, &text).as_ref(), Ok(action), "{text}");
        lines_ok &= Risk::turn_input(&view).lines().count() == 9;
    });
    assert!(lines_ok);
    let init = Risk::init_input(&g.view(0));
    assert!(init.contains("territories 42") && init.contains("borders 83"), "{init}");
    let v = g.view(0);
    for garbage in ["", "attack 1 2", "fly 3", "claim x", "trade 1 2"] {
        assert!(Risk::parse_action(&v, garbage).is_err(), "{garbage:?}");
    }
    assert_eq!(
        Risk::parse_action(&v, "place 7"),
        Ok(RiskAction::Place { territory: 7, armies: 1 })
    );
}

#[test]
fn options_are_validated_by_key() {
    let opts = |pairs: &[(&str, &str)]| {
        <Risk as GameDef>::options(
            &pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        )
    };
    let o = opts(&[
        ("players", "5"),
        ("deal", "random"),
        ("defence", "auto"),
        ("fortify", "adjacent"),
        ("max_rounds", "9"),
    ])
    .unwrap();
    assert_eq!(
        o,
        Options {
            players: 5,
            random_deal: true,
            defence: Defence::Auto,
            fortify: FortifyRule::Adjacent,
            max_rounds: 9,
            at_turn_limit: crate::games::risk::rules::AtTurnLimit::Leader,
        }
    );
    for (k, v) in [("players", "7"), ("players", "1"), ("deal", "x"), ("colour", "red")] {
        let e = opts(&[(k, v)]).unwrap_err().to_string();
        assert!(e.contains(k), "{e}");
    }
}

#[test]
fn every_player_count_and_option_plays_to_the_end_by_the_cap() {
    for players in 2..=6 {
        for (i, (defence, fortify, random_deal)) in [
            (Defence::Choose, FortifyRule::Chain, false),
            (Defence::Auto, FortifyRule::Adjacent, true),
        ]
        .into_iter()
        .enumerate()
        {
            let opts = Options {
                players,
                random_deal,
                defence,
                fortify,
                max_rounds: 60,
                ..Options::default()
            };
            let mut g = Risk::new(classic(), opts, players as u64 * 10 + i as u64).unwrap();
            play_random(&mut g, players as u64, 1_000_000, check_step);
            let Status::Over(o) = g.status() else { panic!("{players} players did not finish") };
            assert!(g.round <= 61);
            assert_eq!(o.ranks.len(), players);
            assert!(o.ranks.contains(&1));
        }
    }
}

#[test]
fn the_same_seed_replays_the_same_game() {
    let run = |seed| {
        let mut g = game(4, seed);
        let mut log = Vec::new();
        play_random(&mut g, seed, 1_000_000, |_, after, a| {
            log.push((Risk::format_action(a), after.last_battle.clone()));
        });
        (log, g.status())
    };
    assert_eq!(run(11), run(11));
    assert_ne!(run(11).0, run(12).0);
}

#[test]
fn rolls_through_the_rules_match_the_exact_odds() {
    // 3 dice against 2, 20_000 battles played through Game::play with the referee's ChaCha8.
    let (base, from, to) = duel(Defence::Auto);
    let mut g0 = base;
    g0.armies[to] = 10;
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut counts: BTreeMap<u32, u64> = BTreeMap::new();
    let n = 20_000u64;
    for _ in 0..n {
        let mut g = g0.clone();
        g.play(0, &RiskAction::Attack { from, to, dice: 3 }, &mut rng).unwrap();
        *counts.entry(g.last_battle.unwrap().losses.defender).or_insert(0) += 1;
    }
    for (defender_losses, exact) in
        [(0u32, 2275.0 / 7776.0), (1, 2611.0 / 7776.0), (2, 2890.0 / 7776.0)]
    {
        let got = counts[&defender_losses] as f64;
        let sd = (n as f64 * exact * (1.0 - exact)).sqrt();
        assert!((got - n as f64 * exact).abs() < 4.5 * sd, "{defender_losses}: {got}");
    }
}

fn arbitrary_action() -> impl Strategy<Value = RiskAction> {
    let t = 0usize..45;
    let n = 0u32..8;
    prop_oneof![
        t.clone().prop_map(RiskAction::Claim),
        (t.clone(), n.clone())
            .prop_map(|(territory, armies)| RiskAction::Place { territory, armies }),
        (0u16..46, 0u16..46, 0u16..46).prop_map(|(a, b, c)| RiskAction::Trade([
            Card(a),
            Card(b),
            Card(c)
        ])),
        (t.clone(), t.clone(), n.clone()).prop_map(|(from, to, dice)| RiskAction::Attack {
            from,
            to,
            dice
        }),
        n.clone().prop_map(RiskAction::Defend),
        n.clone().prop_map(RiskAction::Occupy),
        (t.clone(), t, n).prop_map(|(from, to, armies)| RiskAction::Fortify { from, to, armies }),
        Just(RiskAction::End),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// From a random point of a random game, arbitrary actions by arbitrary seats are either
    /// played (keeping the invariants) or refused leaving the state exactly as it was.
    #[test]
    fn arbitrary_actions_are_played_or_refused_without_a_trace(
        players in 2usize..=6,
        seed in 0u64..1000,
        steps in 0usize..1500,
        actions in proptest::collection::vec((0usize..6, arbitrary_action()), 1..60),
    ) {
        let mut g = Risk::new(classic(), Options { players, max_rounds: 40, ..Options::default() }, seed).unwrap();
        play_random(&mut g, seed, steps, check_step);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (seat, action) in actions {
            let seat = seat % players;
            let before = g.clone();
            match g.play(seat, &action, &mut rng) {
                Ok(()) => check_step(&before, &g, &action),
                Err(_) => prop_assert_eq!(&g, &before),
            }
        }
    }
}

#[test]
fn the_example_board_is_the_homework_board3() {
    let text = include_str!("../../../arenas/boards/risk/homework_board3.toml");
    let path = std::path::Path::new("homework_board3.toml");
    let file = BoardFile::parse(path, text).unwrap();
    let mut owner = vec![1u32; 42];
    let mut armies: Vec<u32> = (0..42).map(|i| i % 5 + 1).collect();
    owner[3] = 0;
    for t in [3, 4] {
        armies[t] = 500;
    }
    for t in [35, 39] {
        owner[t] = 0;
        armies[t] = 1;
    }
    armies[34] = 1;
    assert_eq!((file.owner.clone(), file.armies.clone()), (owner, armies));
    assert_eq!(file.map.borders.len(), 82);
    let report = paths_report(path, &file, "argentina", "24").unwrap();
    assert_eq!(report.attack_cost, Some(31));
    assert_eq!(report.shortest_path, Some(vec![3, 4, 24]));
    assert!(report.can_attack && !report.can_fortify);
    let e = paths_report(path, &file, "Atlantis", "3").unwrap_err().to_string();
    assert!(e.contains("Atlantis") && e.contains("homework_board3.toml"), "{e}");
}

#[test]
fn board_files_name_their_problems() {
    let path = std::path::Path::new("b.toml");
    let err = |text: &str| BoardFile::parse(path, text).unwrap_err().to_string();
    assert!(err("map = \"classic\"\ndefault_owner = 1\n").contains("no armies"));
    assert!(err("map = \"classic\"\ndefault_owner = 1\ndefault_armies = 0\n").contains("0 armies"));
    assert!(
        err("map = \"classic\"\nowners = [1]\ndefault_armies = 1\n").contains("`owners` has 1")
    );
    let e = err(
        "map = \"classic\"\ndefault_owner = 1\ndefault_armies = 1\n[territories]\nMordor = { owner = 2 }\n",
    );
    assert!(e.contains("Mordor") && e.contains("b.toml"), "{e}");
    assert!(err("map = \"classic\"\ncolour = 3\n").contains("colour"));
}

#[test]
fn the_random_draw_picks_the_legal_list_entry_its_index_names() {
    // Counting the long lists instead of building them must give a uniform draw from them: with
    // the same RNG state, the draw is the entry of `legal` at the index a plain draw would take.
    use rand::RngExt;
    let mut checked = std::collections::BTreeSet::new();
    for seed in 0..6u64 {
        let opts = Options { players: 2 + seed as usize % 3, max_rounds: 15, ..Options::default() };
        let mut g = Risk::new(classic(), opts, seed).unwrap();
        play_random(&mut g, seed, 3000, |before, _, _| {
            let Status::ToAct(seat) = before.status() else { return };
            let legal = before.legal(seat);
            let mut a = ChaCha8Rng::seed_from_u64(seed);
            let mut b = a.clone();
            let drawn = before.random_legal(seat, &mut a).expect("an action");
            assert_eq!(drawn, legal[b.random_range(0..legal.len())], "{:?}", before.phase);
            checked.insert(
                format!("{:?}", before.phase).split([' ', '{']).next().unwrap().to_string(),
            );
        });
    }
    for phase in ["Reinforce", "Attack", "Fortify", "Occupy"] {
        assert!(checked.contains(phase), "{phase} never checked: {checked:?}");
    }
}

#[test]
fn a_game_stopped_at_the_turn_cap_says_so_and_scores_as_the_option_says() {
    use crate::games::risk::rules::AtTurnLimit;
    for (at_turn_limit, players) in [(AtTurnLimit::Leader, 3), (AtTurnLimit::Draw, 3)] {
        let opts = Options { players, max_rounds: 3, at_turn_limit, ..Options::default() };
        let mut g = Risk::new(classic(), opts, 5).unwrap();
        assert!(!g.ended_at_turn_limit());
        play_random(&mut g, 5, 1_000_000, |_, _, _| {});
        let Status::Over(o) = g.status() else { panic!("the cap ends the game") };
        assert!(Game::ended_at_turn_limit(&g), "{}", o.reason);
        let living = (0..players).filter(|&s| g.alive[s]).count();
        assert!(living >= 2, "three rounds eliminate nobody");
        match at_turn_limit {
            AtTurnLimit::Leader => {
                assert_eq!(o.ranks.iter().filter(|&&r| r == 1).count(), 1, "{o:?}");
                assert_eq!(o.scores.iter().sum::<f64>(), 1.0);
            }
            AtTurnLimit::Draw => {
                assert!(o.ranks.iter().zip(&g.alive).all(|(&r, &a)| (r == 1) == a), "{o:?}");
                assert!(
                    o.scores.iter().zip(&g.alive).all(|(&s, &a)| s == if a { 0.5 } else { 0.0 })
                );
                assert!(o.reason.contains("draw"), "{}", o.reason);
            }
        }
    }
}
