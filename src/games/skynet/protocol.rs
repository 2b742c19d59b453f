//! The line protocol of Skynet Revolution, both roles, as the CodinGame statements give it.
//!
//! The virus reads the network once (`N L E`, L links `a b`, E gateway lines) and each turn the
//! agent's node; it answers `C1 C2`, the link to cut. The agent reads the same network and each
//! turn its node and the link just cut (`-1 -1` for none); it answers the node to step to.

use super::rules::{SkynetAction, SkynetView, VIRUS};
use crate::game::BadLine;

pub(crate) fn init_input(view: &SkynetView) -> String {
    view.game.map.init_block()
}

pub(crate) fn turn_input(view: &SkynetView) -> String {
    let g = &view.game;
    match (view.seat, g.last_cut) {
        (VIRUS, _) => format!("{}\n", g.agent),
        (_, Some((a, b))) => format!("{} {a} {b}\n", g.agent),
        (_, None) => format!("{} -1 -1\n", g.agent),
    }
}

pub(crate) fn parse_action(view: &SkynetView, line: &str) -> Result<SkynetAction, BadLine> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let int = |w: &str| w.parse::<u32>().map_err(|_| format!("`{w}` is not a node index"));
    if view.seat == VIRUS {
        match words.as_slice() {
            [a, b] => Ok(SkynetAction::Cut(int(a)?, int(b)?)),
            _ => Err("expected two node indices `C1 C2`".into()),
        }
    } else {
        match words.as_slice() {
            [n] => Ok(SkynetAction::Move(int(n)?)),
            _ => Err("expected one node index".into()),
        }
    }
}

pub(crate) fn format_action(action: &SkynetAction) -> String {
    match action {
        SkynetAction::Cut(a, b) => format!("{a} {b}"),
        SkynetAction::Move(n) => n.to_string(),
    }
}
