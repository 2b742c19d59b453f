//! What the replay viewer draws of Painters' Duel: the triangular museum, room by room, with the
//! rooms under construction, each painter's rooms in its colour, where the painters stand and the
//! score so far.

use serde_json::{Value, json};

use super::map::{Bits, coords};
use super::rules::{ALMA, BERTHE, Painters, PaintersAction, ROLES};
use crate::game::MapText;
use crate::game::Seat;
use crate::registry::{Drawing, Event};

/// A room's state in [`GameView::state`]'s `rooms` array.
const OPEN: i8 = -1;
const BLOCKED: i8 = 2;

/// How the viewer draws Painters' Duel ([`Drawing`]).
pub struct PaintersDrawing;

impl Drawing<Painters> for PaintersDrawing {
    fn board(game: &Painters, _map: &MapText) -> Value {
        let rooms: Vec<[u32; 2]> = (0..game.board.geometry.rooms() as u8)
            .map(|room| {
                let (r, p) = coords(room);
                [r, p]
            })
            .collect();
        json!({
            "size": game.board.size(),
            "rooms": rooms,
            "starts": game.board.starts,
        })
    }

    fn state(game: &Painters) -> Value {
        let rooms: Vec<i8> = (0..game.board.geometry.rooms() as u8)
            .map(|room| {
                if game.painted_by[ALMA].has(room) {
                    ALMA as i8
                } else if game.painted_by[BERTHE].has(room) {
                    BERTHE as i8
                } else if game.board.blocked.has(room) {
                    BLOCKED
                } else {
                    OPEN
                }
            })
            .collect();
        json!({
            "rooms": rooms,
            "positions": game.positions,
            "painted": game.painted_by.map(Bits::count_ones),
        })
    }

    fn events(
        before: &Painters,
        after: &Painters,
        seat: Seat,
        action: &PaintersAction,
    ) -> Vec<Event> {
        let (r0, p0) = coords(before.positions[seat]);
        let mut events = vec![Event::new(
            "move",
            format!("{} paints ({}, {}) from ({r0}, {p0})", ROLES[seat], action.row, action.pos),
        )];
        let other = 1 - seat;
        if !before.moves_of(other).is_empty()
            && after.moves_of(other).is_empty()
            && after.to_act.is_some()
        {
            events.push(Event::new(
                "stuck",
                format!("{} can no longer move; {} plays on alone", ROLES[other], ROLES[seat]),
            ));
        }
        if after.to_act.is_none() {
            events.push(Event::new(
                "end",
                format!(
                    "neither painter can move: alma {}, berthe {}",
                    after.painted_by[ALMA].count_ones(),
                    after.painted_by[BERTHE].count_ones()
                ),
            ));
        }
        events
    }
}
