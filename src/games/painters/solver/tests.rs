use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::dfpn::PROOF_ROOMS;
use super::table::BoundKind;
use super::*;
use crate::budget::Budget;
use crate::games::painters::generator::random_board;
use crate::games::painters::map::{Popcnt, Wide, parse_kickstart};

/// Runs a check written over the bit sets `B` on both kinds the solver is built for: every
/// check of this file holds for the `u128` solver and for the wide one (on boards that fit
/// both, so the wide solver's set operations are checked where a `u128` path and the plain
/// minimax can vouch for the answer).
macro_rules! on_both {
    ($check:ident) => {
        $check::<u128>();
        $check::<Wide>();
    };
}

/// A board's geometry, open rooms and starts in the bit sets `B`.
fn start<B: Bits>(board: &Board) -> (Geometry<B>, B, u8, u8) {
    let geo = Geometry::<B>::new(board.size());
    let [a, b] = board.starts;
    let open = geo.all & !B::from_wide(board.blocked) & !B::bit(a) & !B::bit(b);
    (geo, open, a, b)
}

/// The published plain minimax, over rooms as bits: the reference the fast search must match.
fn minimax<B: Bits>(geo: &Geometry<B>, open: B, mover: u8, other: u8) -> i32 {
    let mine = geo.neighbours[mover as usize] & open;
    let theirs = geo.neighbours[other as usize] & open;
    match (mine.is_empty(), theirs.is_empty()) {
        (true, true) => 0,
        (true, false) => -minimax(geo, open, other, mover),
        _ => rooms(mine)
            .map(|m| 1 - minimax(geo, open & !B::bit(m), other, m))
            .max()
            .expect("a move"),
    }
}

/// Plain negamax memoised on the whole position: the reference for boards of side 6, where
/// [`minimax`] alone takes too long.
fn memoised<B: Bits>(
    geo: &Geometry<B>,
    open: B,
    mover: u8,
    other: u8,
    memo: &mut HashMap<(B, u8, u8), i32>,
) -> i32 {
    if let Some(&v) = memo.get(&(open, mover, other)) {
        return v;
    }
    let mine = geo.neighbours[mover as usize] & open;
    let theirs = geo.neighbours[other as usize] & open;
    let v = match (mine.is_empty(), theirs.is_empty()) {
        (true, true) => 0,
        (true, false) => -memoised(geo, open, other, mover, memo),
        _ => rooms(mine)
            .map(|m| 1 - memoised(geo, open & !B::bit(m), other, m, memo))
            .max()
            .expect("a move"),
    };
    memo.insert((open, mover, other), v);
    v
}

fn brute_longest<B: Bits>(geo: &Geometry<B>, from: u8, open: B) -> i32 {
    rooms(geo.neighbours[from as usize] & open)
        .map(|n| 1 + brute_longest(geo, n, open & !B::bit(n)))
        .max()
        .unwrap_or(0)
}

#[test]
fn the_official_sample() {
    let boards =
        parse_kickstart("sample", include_str!("../../../../tests/data/painters/sample.in"))
            .unwrap();
    let values: Vec<i32> =
        boards.iter().map(|b| BoardSolver::new(b.size(), 10).solve_board(b)).collect();
    assert_eq!(values, vec![2, 0]);
}

#[test]
fn matches_plain_minimax_on_random_boards() {
    on_both!(matches_plain_minimax_on_random_boards_in);
}

fn matches_plain_minimax_on_random_boards_in<B: Bits>() {
    for seed in 0..300u64 {
        let size = 2 + (seed % 3) as u32;
        let board = random_board(size, [0.0, 0.15, 0.3][(seed % 7 % 3) as usize], seed);
        let (geo, open, a, b) = start::<B>(&board);
        let geo = &geo;
        let expected = minimax(geo, open, a, b);
        // A tiny table forces collisions and replacements, which must not change the value.
        let mut solver = Solver::new(geo.clone(), 4);
        assert_eq!(solver.solve_board(&board), expected, "seed {seed}: {board:?}");
        let mut big = Solver::new(geo.clone(), 12);
        assert_eq!(big.solve_board(&board), expected, "seed {seed}");
        // Every optimal move keeps the value.
        let (m, v) = big.best_move(open, a, b, Budget::unlimited()).unwrap_or((u8::MAX, expected));
        assert_eq!(v, expected);
        if m != u8::MAX {
            assert_eq!(1 - minimax(geo, open & !B::bit(m), b, m), expected, "seed {seed}");
        }
    }
}

#[test]
fn matches_a_memoised_minimax_up_to_side_6_for_either_painter_and_any_window() {
    on_both!(matches_a_memoised_minimax_up_to_side_6_in);
}

fn matches_a_memoised_minimax_up_to_side_6_in<B: Bits>() {
    let mut sides = [0usize; 7];
    for seed in 0..250u64 {
        let size = 2 + (seed % 5) as u32;
        let blocked = if size == 6 {
            [0.3, 0.4][(seed % 2) as usize]
        } else {
            [0.0, 0.15, 0.3][(seed % 3) as usize]
        };
        let board = random_board(size, blocked, 1000 + seed);
        let (geo, open, a, b) = start::<B>(&board);
        let geo = &geo;
        sides[size as usize] += 1;
        let mut memo = HashMap::new();
        for (mover, other) in [(a, b), (b, a)] {
            let expected = memoised(geo, open, mover, other, &mut memo);
            let mut tiny = Solver::new(geo.clone(), 4);
            assert_eq!(
                tiny.value(open, mover, other, Budget::unlimited()),
                Some(expected),
                "seed {seed}"
            );
            // One solver answers every window, so bounds stored by one search serve the next: a
            // fail-soft answer must lie between the window's edge and the true value.
            let mut solver = Solver::new(geo.clone(), 12);
            for edge in expected - 3..=expected + 3 {
                let v = solver.search(open, mover, other, edge, edge + 1);
                if expected <= edge {
                    assert!(
                        expected <= v && v <= edge,
                        "seed {seed}: window at {edge}, got {v}, value {expected}"
                    );
                } else {
                    assert!(
                        edge < v && v <= expected,
                        "seed {seed}: window at {edge}, got {v}, value {expected}"
                    );
                }
            }
            assert_eq!(solver.search(open, mover, other, -INF, INF), expected, "seed {seed}");
            let range =
                Solver::new(geo.clone(), 8).value_range(open, mover, other, Budget::unlimited());
            assert_eq!(range, (expected, expected), "seed {seed}");
        }
    }
    assert!(sides[6] >= 40, "{sides:?}");
}

/// A position in mid-game: up to five random moves played from the board's start. Returns the
/// open rooms, the painter to move and the other.
fn random_position<B: Bits>(board: &Board, rng: &mut ChaCha8Rng) -> (B, u8, u8) {
    let (geo, mut open, mut mover, mut other) = start::<B>(board);
    for _ in 0..rng.random_range(0..6) {
        let moves: Vec<u8> = rooms(geo.neighbours[mover as usize] & open).collect();
        let Some(&m) = moves.choose(rng) else { break };
        open &= !B::bit(m);
        (mover, other) = (other, m);
    }
    (open, mover, other)
}

#[test]
fn territory_bounds_hold_in_random_positions() {
    on_both!(territory_bounds_hold_in);
}

fn territory_bounds_hold_in<B: Bits>() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut cut = 0;
    for seed in 0..300u64 {
        let board = random_board(3 + (seed % 3) as u32, [0.0, 0.2][(seed % 2) as usize], seed);
        let geo = &Geometry::<B>::new(board.size());
        let (open, mover, other) = random_position::<B>(&board, &mut rng);
        if (geo.neighbours[mover as usize] & open).is_empty()
            || (geo.neighbours[other as usize] & open).is_empty()
        {
            continue;
        }
        let mut solver = Solver::new(geo.clone(), 4);
        let relevant = solver.canonical(open, mover, other);
        let value = minimax(geo, open, mover, other);
        let high = solver.territory(relevant, other, mover, true);
        let low = -solver.territory(relevant, mover, other, false);
        assert!(low <= value && value <= high, "seed {seed}: {low} <= {value} <= {high}");
        cut += usize::from(high - low <= 4);
    }
    // The bounds are not vacuous: some positions are pinned to a narrow range.
    assert!(cut > 0);
}

#[test]
fn every_table_entry_holds_a_true_bound() {
    on_both!(every_table_entry_holds_a_true_bound_in);
}

fn every_table_entry_holds_a_true_bound_in<B: Bits>() {
    let mut checked = [0usize; 4];
    for seed in 0..60u64 {
        let board = random_board(3 + (seed % 2) as u32, 0.1, seed);
        let geo = &Geometry::<B>::new(board.size());
        let mut solver = Solver::new(geo.clone(), 8);
        solver.solve_board(&board);
        for e in solver.table.iter().filter(|e| e.used) {
            let truth = minimax(geo, e.open, e.mover, e.other);
            assert!(
                (e.lower as i32) <= truth && truth <= e.upper as i32,
                "seed {seed}: {:?} entry [{}, {}] but the value is {truth}",
                e.kind(),
                e.lower,
                e.upper
            );
            checked[e.kind() as usize] += 1;
        }
    }
    // The boards exercise exact entries and at least one kind of one-sided bound.
    assert!(checked[BoundKind::Exact as usize] > 0, "{checked:?}");
    assert!(
        checked[BoundKind::Lower as usize] + checked[BoundKind::Upper as usize] > 0,
        "{checked:?}"
    );
}

#[test]
fn longest_paths_match_brute_force_and_bounds_hold() {
    on_both!(longest_paths_match_brute_force_in);
}

fn longest_paths_match_brute_force_in<B: Bits>() {
    // How often peeling dead ends in layers tightened the bound: the check is not vacuous.
    let mut tightened = 0;
    for seed in 0..200u64 {
        let board = random_board(4, 0.25, seed);
        let (geo, open, from, other) = start::<B>(&board);
        let open = open | B::bit(other);
        let region = geo.component(open, geo.neighbours[from as usize]);
        let mut solver = Solver::new(geo.clone(), 8);
        let exact = brute_longest(&geo, from, region);
        assert_eq!(solver.longest(from, region), exact, "seed {seed}");
        let bound = solver.path_bound(from, region);
        assert!(bound >= exact, "seed {seed}");
        // Peeled for every cut it could be asked to make, down to below the length.
        for enough in exact - 3..=bound {
            let peeled = solver.path_bound_to(from, region, enough);
            assert!(exact <= peeled && peeled <= bound, "seed {seed}: {peeled} for {enough}");
            tightened += usize::from(peeled < bound);
        }
        assert!(solver.walk(from, region) <= exact, "seed {seed}");
        // Asked through a window, with a memo that keeps what earlier windows proved: a result
        // at or below the window bounds the length from above, at or above it from below, and
        // anything between is the length.
        let mut windowed = Solver::new(geo.clone(), 4);
        for edge in (exact - 3..=exact + 3).rev() {
            for width in [1, 3] {
                let v = windowed.longest_within(from, region, edge, edge + width);
                if v <= edge {
                    assert!(exact <= v, "seed {seed}: ({edge}, +{width}) gave {v}, length {exact}");
                } else if v >= edge + width {
                    assert!(exact >= v, "seed {seed}: ({edge}, +{width}) gave {v}, length {exact}");
                } else {
                    assert_eq!(v, exact, "seed {seed}: ({edge}, +{width})");
                }
            }
        }
        // The bitboard dead-end count agrees with counting doors room by room.
        let reach = region | B::bit(from);
        let slow: B = rooms(region)
            .filter(|&r| (geo.neighbours[r as usize] & reach).count_ones() <= 1)
            .fold(B::ZERO, |acc, r| acc | B::bit(r));
        assert_eq!(region & geo.at_most_one_neighbour_in(reach), slow, "seed {seed}");
    }
    assert!(tightened > 0, "peeling never tightened the bound");
}

#[test]
fn a_deadline_in_the_past_aborts() {
    on_both!(a_deadline_in_the_past_aborts_in);
}

fn a_deadline_in_the_past_aborts_in<B: Bits>() {
    let board = random_board(8, 0.0, 1);
    let (geo, open, a, b) = start::<B>(&board);
    let mut solver = Solver::new(geo, 10);
    assert_eq!(solver.best_move(open, a, b, Budget::until(Instant::now())), None);
    // A range cut short is still a true range, and wider than one value.
    let (lower, upper) = solver.value_range(open, a, b, Budget::until(Instant::now()));
    assert!(lower < upper && lower <= -60 && upper >= 60, "{lower}..={upper}");
}

#[test]
fn iterative_deepening_is_exact_on_small_boards() {
    on_both!(iterative_deepening_is_exact_in);
}

fn iterative_deepening_is_exact_in<B: Bits>() {
    for seed in 0..60u64 {
        let board = random_board(3 + (seed % 2) as u32, 0.1, seed);
        let (geo, open, a, b) = start::<B>(&board);
        let geo = &geo;
        let order: Vec<u8> = rooms(geo.neighbours[a as usize] & open).collect();
        let mut solver = Solver::new(geo.clone(), 10);
        match solver.iterative(open, a, b, order, Budget::new(Duration::from_secs(60))) {
            None => assert!((geo.neighbours[a as usize] & open).is_empty()),
            Some(found) => {
                assert!(found.exact, "seed {seed}: {found:?}");
                assert_eq!(found.value, minimax(geo, open, a, b), "seed {seed}");
            }
        }
    }
}

/// Whether `v`, a fail-soft answer to the window `(edge, edge + 1)`, lies on the right side of
/// the window and of the true value `expected`.
fn fail_soft_right(expected: i32, edge: i32, v: i32) -> bool {
    if expected <= edge { expected <= v && v <= edge } else { edge < v && v <= expected }
}

/// Checks that the driver, with `wrong` switched on and positions of at most `proof_rooms`
/// rooms left to alpha-beta, gives `expected` with a 16-entry table; returns a solver set up
/// alike, with a larger table, for further questions.
fn driver_agrees<B: Bits>(
    geo: &Geometry<B>,
    (open, mover, other): (B, u8, u8),
    expected: i32,
    wrong: Option<Wrong>,
    proof_rooms: u32,
    seed: u64,
) -> Result<Solver<B>, String> {
    let [mut tiny, mut solver] = [4, 10].map(|bits| Solver::new(geo.clone(), bits));
    for s in [&mut tiny, &mut solver] {
        (s.proof_rooms, s.wrong) = (proof_rooms, wrong);
    }
    let got = tiny.value(open, mover, other, Budget::unlimited());
    if got != Some(expected) {
        return Err(format!("seed {seed}: value {got:?}, plain minimax {expected}"));
    }
    Ok(solver)
}

/// Every pruning against the plain solver in random positions: boards of side 3 to 5 with 10 to
/// 30 % of the rooms under construction, a few random moves played, each painter to move. The
/// solver (with `wrong` switched on, if any) must give the memoised plain minimax's value through
/// its null-window driver with a tiny table, the right side of every null window around it, and
/// each painter's exact longest path through every window. The first disagreement is the error.
fn check_prunings<B: Bits>(wrong: Option<Wrong>) -> Result<usize, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    let mut checked = 0;
    for seed in 0..240u64 {
        let size = 3 + (seed % 3) as u32;
        let board = random_board(size, [0.1, 0.2, 0.3][(seed % 3) as usize], 5000 + seed);
        let geo = &Geometry::<B>::new(size);
        let (open, mover, other) = random_position::<B>(&board, &mut rng);
        let mut memo = HashMap::new();
        for (mover, other) in [(mover, other), (other, mover)] {
            let expected = memoised(geo, open, mover, other, &mut memo);
            let mut solver =
                driver_agrees(geo, (open, mover, other), expected, wrong, PROOF_ROOMS, seed)?;
            for edge in expected - 2..=expected + 2 {
                let v = solver.search(open, mover, other, edge, edge + 1);
                if !fail_soft_right(expected, edge, v) {
                    return Err(format!(
                        "seed {seed}: window at {edge} gave {v}, value {expected}"
                    ));
                }
            }
            let region = geo.component(open, geo.neighbours[mover as usize]);
            let length = brute_longest(geo, mover, region);
            for edge in length - 2..=length + 1 {
                let v = solver.longest_within(mover, region, edge, edge + 1);
                let right =
                    if length <= edge { length <= v && v <= edge } else { edge < v && v <= length };
                // The bound peeled as far as a cut at `edge - 1` or lower needs.
                let peeled = solver.path_bound_to(mover, region, edge - 1);
                if !right || solver.path_bound(mover, region) < length || peeled < length {
                    return Err(format!(
                        "seed {seed}: path window at {edge} gave {v}, length {length}"
                    ));
                }
            }
            checked += 1;
        }
    }
    // And proof-number search, which the driver runs on larger boards, on its own positions.
    Ok(checked + check_proofs::<B>(wrong)?)
}

#[test]
fn every_pruning_agrees_with_plain_minimax_in_random_positions() {
    let checked = check_prunings::<u128>(None).unwrap();
    assert!(checked >= 700, "{checked} positions");
    assert_eq!(check_prunings::<Wide>(None), Ok(checked), "the wide sets");
}

/// The check above is not vacuous: each pruning made wrong on purpose (one room or one move
/// off) gives a value the plain minimax contradicts.
#[test]
fn a_deliberately_wrong_pruning_is_caught() {
    for rule in [
        Wrong::PathBound,
        Wrong::DeadEnds,
        Wrong::PeelDoors,
        Wrong::Walk,
        Wrong::SafeWalkLate,
        Wrong::SafeWalkRestart,
        Wrong::Territory,
        Wrong::TerritoryLongest,
        Wrong::Hinterland,
        Wrong::ChildSkip,
        Wrong::TableExact,
        Wrong::ProofThreshold,
        Wrong::ProofSum,
        Wrong::GuessProves,
    ] {
        assert!(check_prunings::<u128>(Some(rule)).is_err(), "{rule:?} went unnoticed");
        assert!(check_prunings::<Wide>(Some(rule)).is_err(), "{rule:?} went unnoticed (wide)");
    }
}

/// The wide sets change nothing but the width: on boards that fit a `u128`, the solver over
/// [`Wide`] visits exactly the positions the `u128` one does (the tables hash a set that fits
/// the same either way) and finds the same value.
#[test]
fn the_wide_solver_retraces_the_u128_one_node_for_node() {
    retraces_the_u128_solver::<Wide>(700);
}

/// Solves twelve random boards of sides 6 to 9 (seeds from `first_seed`) over `u128` and over
/// `B`, and checks the values and the statistics (nodes, path nodes, table hits) are the same.
fn retraces_the_u128_solver<B: Bits>(first_seed: u64) {
    let mut nodes = 0;
    for seed in 0..12u64 {
        let size = 6 + (seed % 4) as u32;
        let board = random_board(size, [0.0, 0.1, 0.2][(seed % 3) as usize], first_seed + seed);
        let mut narrow = Solver::new(Geometry::<u128>::new(size), 12);
        let mut other = Solver::new(Geometry::<B>::new(size), 12);
        let value = narrow.solve_board(&board);
        assert_eq!(other.solve_board(&board), value, "seed {seed}");
        assert_eq!(other.stats, narrow.stats, "seed {seed}");
        nodes += narrow.stats.nodes;
    }
    assert!(nodes > 1000, "the searches ran: {nodes} nodes");
}

/// Counting with `popcnt` changes nothing but the instructions: where the processor has it, the
/// solver over [`Popcnt`] visits exactly the positions the `u128` one does, finds the same value,
/// and is the one [`BoardSolver`] makes for sides up to 11.
#[test]
fn the_popcnt_solver_retraces_the_u128_one_node_for_node() {
    if !Popcnt::available() {
        assert!(matches!(BoardSolver::new(11, 12), BoardSolver::Narrow(_)));
        return;
    }
    assert!(matches!(BoardSolver::new(11, 12), BoardSolver::Counted(_)));
    assert!(matches!(BoardSolver::new(12, 12), BoardSolver::Wide(_)));
    retraces_the_u128_solver::<Popcnt>(800);
}

/// Sides 12 and 13 fit only the wide sets. With most rooms under construction the painters'
/// regions are small enough for the memoised plain minimax, an independent check of the value
/// from either painter's side; the solver made for the board by side ([`BoardSolver`]) is the
/// wide one.
#[test]
fn wide_boards_with_small_regions_match_the_memoised_minimax() {
    let mut checked = 0;
    for seed in 0..400u64 {
        let size = 12 + (seed % 2) as u32;
        let board = random_board(size, [0.5, 0.55, 0.6][(seed % 3) as usize], 9000 + seed);
        let (geo, open, a, b) = start::<Wide>(&board);
        let solver = Solver::new(geo.clone(), 12);
        // Keep the plain search small: the rooms either painter can reach.
        if solver.canonical(open, a, b).count_ones() > 22 {
            continue;
        }
        let mut memo = HashMap::new();
        let expected = memoised(&geo, open, a, b, &mut memo);
        let mut by_side = BoardSolver::new(size, 12);
        assert!(matches!(by_side, BoardSolver::Wide(_)));
        assert_eq!(by_side.solve_board(&board), expected, "seed {seed}: {board:?}");
        let mut tiny = Solver::new(geo.clone(), 4);
        let other_side = memoised(&geo, open, b, a, &mut memo);
        assert_eq!(tiny.value(open, b, a, Budget::unlimited()), Some(other_side), "seed {seed}");
        if expected != 0 {
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} boards with a non-zero value");
}

#[test]
fn the_profile_accounts_for_every_node_and_changes_nothing() {
    for seed in 0..12u64 {
        let board = random_board(5 + (seed % 3) as u32, [0.0, 0.1][(seed % 2) as usize], seed);
        let mut plain = Solver::new(Geometry::<u128>::new(board.size()), 16);
        let mut profiled = Solver::new(Geometry::<u128>::new(board.size()), 16);
        profiled.profile = Some(Box::default());
        let value = profiled.solve_board(&board);
        assert_eq!(value, plain.solve_board(&board), "seed {seed}");
        assert_eq!(profiled.stats, plain.stats, "seed {seed}: profiling changed the search");
        let p = profiled.profile.as_deref().expect("a profile");
        let stats = profiled.stats;
        let passes: u64 = p.passes.iter().map(|pass| pass.2).sum();
        let path_passes: u64 = p.passes.iter().map(|pass| pass.3).sum();
        assert_eq!((passes, path_passes), (stats.nodes, stats.path_nodes), "seed {seed}");
        let searched: u64 = p.by_region.iter().sum();
        assert_eq!(p.by_distance.iter().sum::<u64>(), searched, "seed {seed}");
        let (mover_bound, other_bound) = (p.settled[1], p.settled[2]);
        assert_eq!(searched + mover_bound + other_bound, stats.nodes, "seed {seed}");
        let ended = p.first_move_cutoffs + p.later_cutoffs + p.all_moves_searched;
        assert!(
            ended <= searched,
            "seed {seed}: {ended} searched nodes ended, {searched} searched"
        );
        // The driver stops when a pass's answer closes the range: that answer is the value.
        let last = p.passes.last().expect("a pass");
        assert_eq!(last.1, value, "seed {seed}: last pass {last:?}");
    }
}

/// The history table's slots ([`Solver::history_slot`]) on every side the sets `B` hold: each
/// `(mover's room, room moved into, other painter's room)` gets a slot of its own inside the
/// table. The first shared or outlying slot is the error.
fn check_history_slots<B: Bits>(wrong: Option<Wrong>) -> Result<usize, String> {
    let mut checked = 0;
    for size in 1..=B::MAX_SIDE {
        let geo = Geometry::<B>::new(size);
        let mut solver = Solver::new(geo.clone(), 4);
        solver.wrong = wrong;
        let mut owner = vec![None; solver.history.len()];
        let cells = geo.rooms() as u8;
        for mover in 0..cells {
            for to in rooms(geo.neighbours[mover as usize]) {
                for other in 0..cells {
                    let slot = solver.history_slot(mover, to, other);
                    let Some(seen) = owner.get_mut(slot) else {
                        return Err(format!("side {size}: slot {slot} outside the table"));
                    };
                    if let Some(first) = seen.replace((mover, to, other)) {
                        return Err(format!(
                            "side {size}: {first:?} and {:?} share slot {slot}",
                            (mover, to, other)
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    Ok(checked)
}

/// A move's history is its own: no two moves (nor one move with the rival elsewhere) add to
/// the same count, so the ordering learns per mover's room, door and rival's room as
/// documented. The ordering cannot change a value (alpha-beta is exact in any move order, and
/// every check against the plain minimax above runs with it); what it must not do is mix
/// counts. A slot taking the door as the room moved into modulo 3 mixes them, and is caught.
#[test]
fn history_slots_are_one_per_room_door_and_rival() {
    // Side 11 alone: 165 doors, each taken from either end, and 121 rival rooms.
    let narrow = check_history_slots::<u128>(None).unwrap();
    assert!(narrow > 2 * 165 * 121, "{narrow} slots");
    let wide = check_history_slots::<Wide>(None).unwrap();
    assert!(wide > narrow, "{wide} slots in the wide sets");
    assert!(check_history_slots::<u128>(Some(Wrong::HistorySlot)).is_err());
    assert!(check_history_slots::<Wide>(Some(Wrong::HistorySlot)).is_err());
}

/// Proof-number search against the plain solver, with proof numbers down to the leaves (no
/// alpha-beta in small regions, which would otherwise take every board this small): boards of
/// side 3 to 6 (side 6 with 30 to 40 % of the rooms under construction), a few random moves
/// played, each painter to move. The driver's value with a 16-entry game table, and each
/// question "above `t`?" for `t` around the value asked of one solver in turn (so what one
/// question writes into the game and proof tables serves the next): every fail-soft answer must
/// lie on the right side of its question and of the value. The first disagreement is the error.
fn check_proofs<B: Bits>(wrong: Option<Wrong>) -> Result<usize, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let mut checked = 0;
    for seed in 0..160u64 {
        let size = 3 + (seed % 4) as u32;
        let blocked = if size == 6 { [0.3, 0.4][(seed % 2) as usize] } else { 0.15 };
        let board = random_board(size, blocked, 7000 + seed);
        let geo = &Geometry::<B>::new(size);
        let (open, mover, other) = random_position::<B>(&board, &mut rng);
        let mut memo = HashMap::new();
        for (mover, other) in [(mover, other), (other, mover)] {
            let expected = memoised(geo, open, mover, other, &mut memo);
            let mut solver = driver_agrees(geo, (open, mover, other), expected, wrong, 0, seed)?;
            for t in expected - 3..=expected + 3 {
                let v = solver.proof_search(open, mover, other, t);
                if !fail_soft_right(expected, t, v) {
                    return Err(format!("seed {seed}: question at {t} gave {v}, value {expected}"));
                }
            }
            checked += 1;
        }
    }
    Ok(checked)
}

/// The driver gives the same values with proof numbers as with alpha-beta alone, on boards
/// large enough that proof-number search runs above [`dfpn::PROOF_ROOMS`] as in a release
/// build (side 8 to 9, open or nearly).
#[test]
fn the_driver_with_proof_numbers_matches_alpha_beta_on_larger_boards() {
    for seed in 0..6u64 {
        let size = 8 + (seed % 2) as u32;
        let board = random_board(size, [0.0, 0.05][(seed % 2) as usize], 9000 + seed);
        let (geo, open, a, b) = start::<u128>(&board);
        let mut proofs = Solver::new(geo.clone(), 18);
        let got = proofs.value(open, a, b, Budget::unlimited());
        let mut alpha_beta = Solver::new(geo, 18);
        let expected = alpha_beta.search(open, a, b, -INF, INF);
        assert_eq!(got, Some(expected), "seed {seed}");
        assert!(!proofs.proofs.is_empty(), "seed {seed}: no proof-number search ran");
    }
}

/// Proof-number search's initial numbers start from the bounds the game table holds (what an
/// earlier question of the driver proved), not only from the cheap bounds and the guess: asked
/// "above `t`?", a position the table knows to be at least `t` starts with proof number 1
/// (`cost(1)`, the cheapest), one it knows to be at most `t + 1` with disproof number one per
/// move. The bounds stored are true ones (the value is the driver's). On some of these boards a
/// fresh solver's numbers are larger, so without the table's bounds the check fails.
#[test]
fn initial_proof_numbers_start_from_the_tables_bounds() {
    on_both!(initial_proof_numbers_in);
}

fn initial_proof_numbers_in<B: Bits>() {
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let (mut checked, mut lower_narrows, mut upper_narrows) = (0, 0, 0);
    for seed in 0..60u64 {
        let board = random_board(6 + (seed % 2) as u32, [0.0, 0.1][(seed % 3 == 0) as usize], seed);
        let geo = Geometry::<B>::new(board.size());
        let (open, mover, other) = random_position::<B>(&board, &mut rng);
        let mut solver = Solver::new(geo.clone(), 16);
        let value = solver.value(open, mover, other, Budget::unlimited()).expect("no budget");
        // Proof numbers down to the leaves, so that these small regions are not left to
        // alpha-beta.
        let fresh_solver = || {
            let mut s = Solver::new(geo.clone(), 16);
            s.proof_rooms = 0;
            s
        };
        let t = value;
        let solved = |(pn, dn): (u32, u32)| pn == 0 || dn == 0;
        let fresh = fresh_solver().initial_numbers(open, mover, other, t);
        if solved(fresh) {
            continue;
        }
        let relevant = fresh_solver().canonical(open, mover, other);
        // At least `t`: a search of the window `(t - 1, t)` answered `t`.
        let mut known = fresh_solver();
        known.store(relevant, mover, other, (t - 1, t), t, u8::MAX);
        let (pn, dn) = known.initial_numbers(open, mover, other, t);
        if !solved((pn, dn)) {
            assert_eq!(pn, 1, "seed {seed}: value {t}, fresh numbers {fresh:?}");
            lower_narrows += usize::from(fresh.0 > 1);
        }
        // At most `t + 1`: a search of the window `(t + 1, t + 2)` answered `t + 1`.
        let mut known = fresh_solver();
        known.store(relevant, mover, other, (t + 1, t + 2), t + 1, u8::MAX);
        let (pn, dn) = known.initial_numbers(open, mover, other, t);
        if !solved((pn, dn)) {
            let moves = (geo.neighbours[mover as usize] & open).count_ones();
            assert_eq!(dn, moves, "seed {seed}: value {t}, fresh numbers {fresh:?}");
            upper_narrows += usize::from(fresh.1 > moves);
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} positions checked");
    assert!(lower_narrows > 0 && upper_narrows > 0, "{lower_narrows} and {upper_narrows}");
}

/// The Voronoi cells proof-number search's guess starts from, room by room: in each round the
/// mover takes every free open room next to a room it took in the round before (its own room
/// in the first), then the other does the same; a taken room is nobody else's.
fn voronoi_cells_room_by_room<B: Bits>(
    geo: &Geometry<B>,
    open: B,
    mover: u8,
    other: u8,
) -> [Vec<u8>; 2] {
    let mut taken = vec![false; B::CAPACITY];
    let mut fronts = [vec![mover], vec![other]];
    let mut cells = [Vec::new(), Vec::new()];
    while fronts.iter().any(|f| !f.is_empty()) {
        for side in 0..2 {
            let mut next = Vec::new();
            for &room in &fronts[side] {
                for to in rooms(geo.neighbours[room as usize] & open) {
                    if !taken[to as usize] {
                        taken[to as usize] = true;
                        next.push(to);
                    }
                }
            }
            cells[side].extend(&next);
            fronts[side] = next;
        }
    }
    for cell in &mut cells {
        cell.sort_unstable();
    }
    cells
}

#[test]
fn the_guess_counts_the_voronoi_cells() {
    on_both!(the_guess_counts_the_voronoi_cells_in);
}

fn the_guess_counts_the_voronoi_cells_in<B: Bits>() {
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    let mut unequal = 0;
    for seed in 0..200u64 {
        let board = random_board(3 + (seed % 5) as u32, [0.0, 0.2][(seed % 2) as usize], seed);
        let geo = &Geometry::<B>::new(board.size());
        let (open, mover, other) = random_position::<B>(&board, &mut rng);
        let solver = Solver::new(geo.clone(), 4);
        let (me, them) = solver.voronoi_cells(open, mover, other);
        let [mine, theirs] = voronoi_cells_room_by_room(geo, open, mover, other);
        assert_eq!(rooms(me).collect::<Vec<_>>(), mine, "seed {seed}: the mover's cell");
        assert_eq!(rooms(them).collect::<Vec<_>>(), theirs, "seed {seed}: the other's cell");
        assert_eq!(
            me | them,
            solver.canonical(open, mover, other),
            "seed {seed}: every reachable room"
        );
        let sizes = mine.len() as i32 - theirs.len() as i32;
        assert_eq!(solver.voronoi(open, mover, other), sizes, "seed {seed}");
        let paths = solver.path_bound(mover, me) - solver.path_bound(other, them);
        assert_eq!(solver.guess(open, mover, other), (sizes + paths) / 2, "seed {seed}");
        unequal += usize::from(paths != sizes);
    }
    // The path bounds are not the sizes again: colours and dead ends cost rooms somewhere.
    assert!(unequal > 0);
}

/// The driver's order of questions ([`Questions`]) on every value of a range, against answers
/// as a fail-soft search may give them (anywhere between the question and the value): every
/// question lies inside the range still possible, no question is asked twice, the range closes
/// on the value, and a value near 0 takes at most three questions (bisection of this range
/// takes six or seven).
#[test]
fn the_driver_gallops_from_zero_and_closes_on_every_value() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for value in -60..=60 {
        for _ in 0..20 {
            let (mut lower, mut upper) = (-61, 61);
            let (mut order, mut asked) = (Questions::First, Vec::new());
            while lower < upper {
                let t = order.question(lower, upper);
                assert!(lower <= t && t < upper, "value {value}: {t} outside {lower}..={upper}");
                assert!(!asked.contains(&t), "value {value}: {t} asked again after {asked:?}");
                asked.push(t);
                let answer = if value > t {
                    rng.random_range(t + 1..=value)
                } else {
                    rng.random_range(value..=t)
                };
                (lower, upper) = narrowed((lower, upper), answer, (t, t + 1));
                order = order.answered(answer > t);
            }
            assert_eq!((lower, upper), (value, value), "asked {asked:?}");
            if (-1..=2).contains(&value) {
                assert!(asked.len() <= 3, "value {value}: asked {asked:?}");
            }
            assert!(asked.len() <= 14, "value {value}: asked {asked:?}");
        }
    }
}

/// The same through the solver: on boards whose value is near 0, the driver's searches (the
/// profile's passes) are at most three, the first "above 0?", and the value is the plain
/// minimax's.
#[test]
fn the_driver_asks_three_questions_when_the_value_is_near_zero() {
    let mut near = 0;
    for seed in 0..40u64 {
        let board = random_board(4 + (seed % 2) as u32, [0.0, 0.2][(seed % 2) as usize], seed);
        let (geo, open, a, b) = start::<u128>(&board);
        let mut solver = Solver::new(geo.clone(), 12);
        solver.profile = Some(Box::default());
        let value = solver.solve_board(&board);
        assert_eq!(value, memoised(&geo, open, a, b, &mut HashMap::new()), "seed {seed}");
        let passes = &solver.profile.as_deref().expect("a profile").passes;
        assert_eq!(passes[0].0, 0, "seed {seed}: {passes:?}");
        if (-1..=2).contains(&value) {
            near += 1;
            assert!(passes.len() <= 3, "seed {seed}, value {value}: {passes:?}");
        }
    }
    assert!(near >= 8, "{near} boards with a value near 0");
}
