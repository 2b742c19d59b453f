//! What the replay viewer draws of Greedy Spiders: the graph (a path map as a line, folded into
//! rows when it is long; other graphs by a seeded force-directed layout), the flies, the spiders
//! and the edges removed so far.

use serde_json::{Value, json};

use super::rules::{SpiderAction, SpidersGame};
use crate::game::MapText;
use crate::game::Seat;
use crate::registry::{Drawing, Event};
use crate::view::layout::{self, Point, SPACING};

/// Vertices per row when a long path is folded.
const PATH_ROW: usize = 16;

/// How the viewer draws Greedy Spiders ([`Drawing`]).
pub struct SpidersDrawing;

impl Drawing<SpidersGame> for SpidersDrawing {
    fn board(game: &SpidersGame, map: &MapText) -> Value {
        let m = &game.map;
        let (pos, kind) = match m.path_order() {
            Some(order) => (path_layout(&order), "path"),
            None => {
                (layout::force_layout(m.nodes, &m.edges, layout::text_seed(&map.text)), "graph")
            }
        };
        json!({
            "nodes": pos.iter().map(|&(x, y)| [x.round(), y.round()]).collect::<Vec<_>>(),
            "radius": (layout::node_radius(&pos)).round().min(SPACING / 3.0),
            "edges": m.edges,
            "flies": m.flies,
            "layout": kind,
        })
    }

    fn state(game: &SpidersGame) -> Value {
        json!({
            "removed": game.removed.iter().map(|&r| u8::from(r)).collect::<Vec<_>>(),
            "spiders": game.spiders,
            "last_cut": game.last_cut.map(|(a, b)| [a, b]),
            "round": game.round,
        })
    }

    fn events(
        before: &SpidersGame,
        after: &SpidersGame,
        _seat: Seat,
        action: &SpiderAction,
    ) -> Vec<Event> {
        let mut events = vec![match action {
            SpiderAction::Cut(a, b) => Event::new("cut", format!("defender removes {a}–{b}")),
            SpiderAction::Pass => Event::new("cut", "defender passes"),
            SpiderAction::Moves(moves) if moves.is_empty() => {
                Event::new("move", "the spiders wait")
            }
            SpiderAction::Moves(moves) => {
                let steps: Vec<String> = moves
                    .iter()
                    .map(|&(i, to)| format!("spider {i} {} → {to}", before.spiders[i]))
                    .collect();
                Event::new("move", steps.join(", "))
            }
        }];
        if let (None, Some(outcome)) = (&before.over, &after.over) {
            events.push(Event::new("end", outcome.reason.clone()));
        }
        events
    }
}

/// A path in path order, left to right, folded into rows of [`PATH_ROW`] that run alternately
/// right and left, so a long path stays readable and consecutive vertices stay side by side.
fn path_layout(order: &[u32]) -> Vec<Point> {
    let mut pos = vec![(0.0, 0.0); order.len()];
    let fold = order.len() > PATH_ROW + PATH_ROW / 2;
    for (i, &v) in order.iter().enumerate() {
        let (row, col) = if fold { (i / PATH_ROW, i % PATH_ROW) } else { (0, i) };
        let col = if row % 2 == 1 { PATH_ROW - 1 - col } else { col };
        pos[v as usize] = (col as f64 * SPACING, row as f64 * SPACING * 1.2);
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folded_path_keeps_neighbours_side_by_side() {
        let order: Vec<u32> = (0..50).collect();
        let pos = path_layout(&order);
        for w in order.windows(2) {
            let (p, q) = (pos[w[0] as usize], pos[w[1] as usize]);
            let d = (p.0 - q.0).hypot(p.1 - q.1);
            assert!(d <= SPACING * 1.2 + 1e-9, "{w:?}: {d}");
        }
        let short = path_layout(&[2, 0, 1]);
        assert_eq!(short, vec![(SPACING, 0.0), (2.0 * SPACING, 0.0), (0.0, 0.0)]);
    }
}
