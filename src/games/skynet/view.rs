//! What the replay viewer draws of Skynet: the network at the coordinates of CodinGame's
//! `LOCKED` format when the map file has them (else a seeded force-directed layout), the links cut
//! so far, the agent and its path.

use serde_json::{Value, json};

use super::rules::{Skynet, SkynetAction};
use crate::game::MapText;
use crate::game::Seat;
use crate::registry::{Drawing, Event};
use crate::view::layout::{self, Point};

/// How the viewer draws Skynet Revolution ([`Drawing`]).
pub struct SkynetDrawing;

impl Drawing<Skynet> for SkynetDrawing {
    fn board(game: &Skynet, map: &MapText) -> Value {
        let m = &game.map;
        let (pos, source) = match locked_coordinates(&map.text, m.nodes) {
            Some(pos) => (pos, "the map's coordinates"),
            None => (
                layout::force_layout(m.nodes, &m.links, layout::text_seed(&map.text)),
                "force-directed layout",
            ),
        };
        json!({
            "nodes": pos.iter().map(|&(x, y)| [round(x), round(y)]).collect::<Vec<_>>(),
            "radius": round(layout::node_radius(&pos)),
            "links": m.links,
            "gateways": m.gateways,
            "start": m.agent_start,
            "layout": source,
            "episode": format!("{:?}", game.episode),
        })
    }

    fn state(game: &Skynet) -> Value {
        json!({
            "agent": game.agent,
            "cut": game.cut.iter().map(|&c| u8::from(c)).collect::<Vec<_>>(),
            "last_cut": game.last_cut.map(|(a, b)| [a, b]),
            "turn": game.turn,
        })
    }

    fn events(before: &Skynet, after: &Skynet, _seat: Seat, action: &SkynetAction) -> Vec<Event> {
        let mut events = vec![match *action {
            SkynetAction::Cut(a, b) => Event::new("cut", format!("virus cuts {a}–{b}")),
            SkynetAction::Move(to) => {
                Event::new("move", format!("agent moves {} → {to}", before.agent))
            }
        }];
        if let (None, Some(outcome)) = (&before.over, &after.over) {
            events.push(Event::new("end", outcome.reason.clone()));
        }
        events
    }
}

fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// The node coordinates of a map in CodinGame's `LOCKED` format (`LOCKED`, `N`, then N lines
/// `x y`), screen-style (y down). `None` for the protocol format or anything unexpected; the map
/// itself has been read and checked by [`super::map::parse_map`] already.
pub(crate) fn locked_coordinates(text: &str, nodes: usize) -> Option<Vec<Point>> {
    let mut words = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split_whitespace());
    if words.next()? != "LOCKED" || words.next()?.parse::<usize>().ok()? != nodes {
        return None;
    }
    (0..nodes)
        .map(|_| Some((words.next()?.parse::<f64>().ok()?, words.next()?.parse::<f64>().ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::GameDef;

    #[test]
    fn locked_maps_keep_their_coordinates() {
        let text = include_str!("../../../arenas/maps/skynet/ep2_01_from_forum_with_coords.cg.txt");
        let pos = locked_coordinates(text, 8).unwrap();
        assert_eq!(pos[0], (159.0, 361.0));
        assert_eq!(pos[7], (540.0, 277.0));
        assert_eq!(locked_coordinates(text, 9), None);
        let protocol = include_str!("../../../arenas/maps/skynet/ep2_01.txt");
        assert_eq!(locked_coordinates(protocol, 8), None);
    }

    #[test]
    fn the_board_has_every_node_and_link() {
        let map = Skynet::default_map("ep2");
        let setup = crate::game::Setup {
            variant: "ep2".into(),
            options: Default::default(),
            map: map.clone(),
            seed: 1,
        };
        let (game, _) = Skynet::new_game(&setup).unwrap();
        let board = SkynetDrawing::board(&game, &map);
        assert_eq!(board["nodes"].as_array().unwrap().len(), game.map.nodes);
        assert_eq!(board["links"].as_array().unwrap().len(), game.map.links.len());
        assert_eq!(board["layout"], "force-directed layout");
        assert_eq!(board, SkynetDrawing::board(&game, &map), "the layout is deterministic");
    }
}
