//! The rules of Painters' Duel: the state, its actions and views, the options, and the checks of
//! a move.
//!
//! A painter who cannot move passes. Because the set of painted rooms only grows, a painter who
//! cannot move now can never move again, so the rules skip such a seat: [`Game::status`](crate::game::Game::status) names
//! only a seat that has a move, and a bot is never asked to pass.

use std::sync::Arc;

use serde::Deserialize;

use super::map::{Bits, Board, Rooms, bit, coords, index};
use crate::game::{Seat, bounded};

/// The game options of a Painters' Duel match (`--opt key=value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// The case of a Kick Start input with several, from 1.
    #[serde(deserialize_with = "bounded::<_, 1, { u32::MAX as u64 }>")]
    pub case: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { case: 1 }
    }
}

pub(crate) const ALMA: Seat = 0;
pub(crate) const BERTHE: Seat = 1;
pub(crate) const ROLES: [&str; 2] = ["alma", "berthe"];

/// A move into room `(row, pos)`, exactly as written; the rules check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaintersAction {
    pub row: u32,
    pub pos: u32,
}

impl PaintersAction {
    pub fn to_room(room: u8) -> PaintersAction {
        let (row, pos) = coords(room);
        PaintersAction { row, pos }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Painters {
    pub board: Arc<Board>,
    /// Rooms that can no longer be entered: under construction or painted.
    pub closed: Rooms,
    /// The rooms each painter painted, starting room included.
    pub painted_by: [Rooms; 2],
    pub positions: [u8; 2],
    /// The seat to act, or `None` once neither painter can move.
    pub to_act: Option<Seat>,
    /// Every move so far: `(seat, room)`.
    pub moves: Vec<(Seat, u8)>,
}

/// A seat's view: the game has perfect information.
#[derive(Clone, Debug, PartialEq)]
pub struct PaintersView {
    pub seat: Seat,
    pub game: Painters,
}

impl Painters {
    pub fn new(board: Arc<Board>) -> Painters {
        let [a, b] = board.starts;
        let mut game = Painters {
            closed: board.blocked | bit(a) | bit(b),
            painted_by: [bit(a), bit(b)],
            positions: [a, b],
            to_act: None,
            moves: Vec::new(),
            board,
        };
        game.to_act = game.next_to_act(BERTHE);
        game
    }

    /// The open rooms `seat` may move into now.
    pub fn moves_of(&self, seat: Seat) -> Rooms {
        self.board.geometry.neighbours[self.positions[seat] as usize] & !self.closed
    }

    /// Who acts after `last` played: the other painter if it can move, else `last` again if it
    /// can, else nobody.
    pub(super) fn next_to_act(&self, last: Seat) -> Option<Seat> {
        let other = 1 - last;
        [other, last].into_iter().find(|&s| !self.moves_of(s).is_empty())
    }

    /// Alma's rooms minus Berthe's.
    pub fn score(&self) -> i32 {
        self.painted_by[ALMA].count_ones() as i32 - self.painted_by[BERTHE].count_ones() as i32
    }

    /// The room an action names, if the museum has it.
    pub fn room_of(&self, action: &PaintersAction) -> Option<u8> {
        self.board.geometry.contains(action.row, action.pos).then(|| index(action.row, action.pos))
    }

    /// The board as protocol text: one line per row, a character per room.
    pub fn grid(&self) -> String {
        let mut s = String::new();
        for r in 1..=self.board.size() {
            for p in 1..2 * r {
                let room = index(r, p);
                let c = if room == self.positions[ALMA] {
                    'A'
                } else if room == self.positions[BERTHE] {
                    'B'
                } else if self.painted_by[ALMA].has(room) {
                    'a'
                } else if self.painted_by[BERTHE].has(room) {
                    'b'
                } else if self.board.blocked.has(room) {
                    '#'
                } else {
                    '.'
                };
                s.push(c);
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::game::{Game, Status};
    use crate::games::painters::generator::random_board;
    use crate::games::painters::map::rooms;

    fn game(text: &str) -> Painters {
        Painters::new(Arc::new(super::super::map::parse_board("t", text, 1).unwrap()))
    }

    #[test]
    fn the_first_sample_plays_out() {
        // S = 2, Alma in (1,1), Berthe in (2,1): Alma must go to (2,2), then Berthe is stuck and
        // Alma goes on to (2,3). Score 3 - 1 = 2.
        let mut g = game("1\n2 1 1 2 1 0\n");
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        assert_eq!(g.status(), Status::ToAct(ALMA));
        g.play(ALMA, &PaintersAction { row: 2, pos: 2 }, &mut rng).unwrap();
        assert_eq!(g.status(), Status::ToAct(ALMA), "Berthe is stuck, so Alma plays again");
        g.play(ALMA, &PaintersAction { row: 2, pos: 3 }, &mut rng).unwrap();
        match g.status() {
            Status::Over(o) => {
                assert_eq!(o.scores, vec![2.0, -2.0]);
                assert_eq!(o.ranks, vec![1, 2]);
            }
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn a_painter_stuck_from_the_start_is_skipped() {
        // Alma in the top room, its one neighbour under construction.
        let g = game("size 3\nalma 1 1\nberthe 3 1\nblocked 2 2\n");
        assert_eq!(g.status(), Status::ToAct(BERTHE));
    }

    #[test]
    fn the_protocol_round_trips() {
        let g = game("1\n2 2 2 1 1 2\n2 1\n2 3\n");
        let view = g.view(BERTHE);
        assert_eq!(Painters::init_input(&view), "berthe\n2 2 2 1 1 2\n2 1\n2 3\n");
        assert_eq!(Painters::turn_input(&view), "2 2 1 1\nB\n#A#\n");
        let a = Painters::parse_action(&view, " 3 4 ").unwrap();
        assert_eq!(a, PaintersAction { row: 3, pos: 4 });
        assert_eq!(Painters::format_action(&a), "3 4");
        assert!(Painters::parse_action(&view, "PASS").is_err());
        assert!(Painters::parse_action(&view, "1").is_err());
    }

    #[test]
    fn illegal_moves_are_refused_with_a_reason() {
        let g = game("size 3\nalma 2 2\nberthe 3 5\nblocked 2 1\n");
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        for (seat, r, p, why) in [
            (BERTHE, 3, 4, "turn"),
            (ALMA, 4, 1, "no room"),
            (ALMA, 3, 3, "not next to"),
            (ALMA, 2, 1, "construction"),
            (ALMA, 2, 2, "not next to"),
        ] {
            let mut h = g.clone();
            let e = h.play(seat, &PaintersAction { row: r, pos: p }, &mut rng).unwrap_err();
            assert!(e.reason.contains(why), "({r}, {p}): {e}");
            assert_eq!(h, g);
        }
    }

    proptest! {
        #[test]
        fn random_play_ends_and_illegal_moves_change_nothing(
            size in 1u32..=8, blocked in 0.0f64..0.5, seed in any::<u64>(),
        ) {
            let size = size.max(2);
            let mut g = Painters::new(Arc::new(random_board(size, blocked, seed)));
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut plies = 0;
            while let Status::ToAct(seat) = g.status() {
                let legal: Vec<u8> = rooms(g.moves_of(seat)).collect();
                prop_assert!(!legal.is_empty());
                // Every room that is not a legal move is refused and changes nothing.
                for room in 0..(size * size) as u8 {
                    if legal.contains(&room) {
                        continue;
                    }
                    let before = g.clone();
                    prop_assert!(g.play(seat, &PaintersAction::to_room(room), &mut rng).is_err());
                    prop_assert_eq!(&g, &before);
                }
                let before = g.clone();
                prop_assert!(g.play(1 - seat, &PaintersAction::to_room(legal[0]), &mut rng).is_err());
                prop_assert_eq!(&g, &before);
                let &room = legal.choose(&mut rng).unwrap();
                g.play(seat, &PaintersAction::to_room(room), &mut rng).unwrap();
                plies += 1;
                prop_assert!(plies <= size * size);
            }
            let painted = g.painted_by[0].count_ones() + g.painted_by[1].count_ones();
            prop_assert_eq!(painted as usize, 2 + g.moves.len());
            prop_assert_eq!(g.painted_by[0] & g.painted_by[1], Rooms::ZERO);
            prop_assert_eq!((g.painted_by[0] | g.painted_by[1]) & g.board.blocked, Rooms::ZERO);
        }
    }
}
