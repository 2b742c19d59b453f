//! The rules of Painters' Duel and the line protocol of both roles.
//!
//! A painter who cannot move passes. Because the set of painted rooms only grows, a painter who
//! cannot move now can never move again, so the rules skip such a seat: [`Game::status`] names
//! only a seat that has a move, and a bot is never asked to pass.

use std::fmt::Write as _;
use std::sync::Arc;

use rand::Rng;

use super::map::{Board, Rooms, bit, coords, index, rooms};
use crate::game::{BadLine, Game, Illegal, Outcome, Seat, Status};

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
    fn next_to_act(&self, last: Seat) -> Option<Seat> {
        let other = 1 - last;
        [other, last].into_iter().find(|&s| self.moves_of(s) != 0)
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
                let b = bit(room);
                let c = if room == self.positions[ALMA] {
                    'A'
                } else if room == self.positions[BERTHE] {
                    'B'
                } else if self.painted_by[ALMA] & b != 0 {
                    'a'
                } else if self.painted_by[BERTHE] & b != 0 {
                    'b'
                } else if self.board.blocked & b != 0 {
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

impl Game for Painters {
    type Action = PaintersAction;
    type View = PaintersView;

    fn roles(&self) -> Vec<String> {
        ROLES.iter().map(std::string::ToString::to_string).collect()
    }

    fn status(&self) -> Status {
        match self.to_act {
            Some(seat) => Status::ToAct(seat),
            None => {
                let score = self.score();
                let reason = format!(
                    "neither painter can move: alma painted {}, berthe {}",
                    self.painted_by[ALMA].count_ones(),
                    self.painted_by[BERTHE].count_ones()
                );
                Status::Over(Outcome::from_scores(vec![score as f64, -score as f64], reason))
            }
        }
    }

    fn view(&self, seat: Seat) -> PaintersView {
        PaintersView { seat, game: self.clone() }
    }

    fn play(
        &mut self,
        seat: Seat,
        action: &PaintersAction,
        _rng: &mut dyn Rng,
    ) -> Result<(), Illegal> {
        Illegal::unless_turn(self.to_act, seat)?;
        let PaintersAction { row, pos } = *action;
        let room = self.room_of(action).ok_or_else(|| {
            Illegal::new(format!(
                "no room ({row}, {pos}) in a museum of side {}",
                self.board.size()
            ))
        })?;
        let (r0, p0) = coords(self.positions[seat]);
        if self.board.geometry.neighbours[self.positions[seat] as usize] & bit(room) == 0 {
            return Err(Illegal::new(format!("room ({row}, {pos}) is not next to ({r0}, {p0})")));
        }
        if self.board.blocked & bit(room) != 0 {
            return Err(Illegal::new(format!("room ({row}, {pos}) is under construction")));
        }
        if self.closed & bit(room) != 0 {
            return Err(Illegal::new(format!("room ({row}, {pos}) is already painted")));
        }
        self.closed |= bit(room);
        self.painted_by[seat] |= bit(room);
        self.positions[seat] = room;
        self.moves.push((seat, room));
        self.to_act = self.next_to_act(seat);
        Ok(())
    }

    /// A move into each open room next to the painter, lowest room index first.
    fn legal_actions_of(view: &PaintersView) -> Vec<PaintersAction> {
        let g = &view.game;
        if g.to_act != Some(view.seat) {
            return Vec::new();
        }
        rooms(g.moves_of(view.seat)).map(PaintersAction::to_room).collect()
    }

    /// `alma` or `berthe`, then the board as one Kick Start case: `S RA PA RB PB C` and `C`
    /// lines `R P`.
    fn init_input(view: &PaintersView) -> String {
        format!("{}\n{}", ROLES[view.seat], view.game.board.kickstart_case())
    }

    /// `RA PA RB PB` (where the painters stand now), then `S` lines, one per row, a character per
    /// room: `A`/`B` a painter, `a`/`b` painted by that painter, `#` under construction, `.` open.
    fn turn_input(view: &PaintersView) -> String {
        let g = &view.game;
        let (ra, pa) = coords(g.positions[ALMA]);
        let (rb, pb) = coords(g.positions[BERTHE]);
        let mut s = String::new();
        let _ = writeln!(s, "{ra} {pa} {rb} {pb}");
        s.push_str(&g.grid());
        s
    }

    fn parse_action(_view: &PaintersView, line: &str) -> Result<PaintersAction, BadLine> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let int = |w: &str| w.parse::<u32>().map_err(|_| format!("`{w}` is not a number"));
        match words.as_slice() {
            [r, p] => Ok(PaintersAction { row: int(r)?, pos: int(p)? }),
            _ => Err("expected the room to move to: `ROW POSITION`".into()),
        }
    }

    fn format_action(action: &PaintersAction) -> String {
        format!("{} {}", action.row, action.pos)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::games::painters::map::{random_board, rooms};

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
            prop_assert_eq!(g.painted_by[0] & g.painted_by[1], 0);
            prop_assert_eq!((g.painted_by[0] | g.painted_by[1]) & g.board.blocked, 0);
        }
    }
}
