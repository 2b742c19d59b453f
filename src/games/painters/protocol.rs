//! The line protocol of Painters' Duel, both roles: the board once as a Kick Start case, then
//! each turn where the painters stand and the board as a grid; a bot answers the room it moves to.

use std::fmt::Write as _;

use super::map::coords;
use super::rules::{ALMA, BERTHE, PaintersAction, PaintersView, ROLES};
use crate::game::BadLine;

/// `alma` or `berthe`, then the board as one Kick Start case: `S RA PA RB PB C` and `C`
/// lines `R P`.
pub(crate) fn init_input(view: &PaintersView) -> String {
    format!("{}\n{}", ROLES[view.seat], view.game.board.kickstart_case())
}

/// `RA PA RB PB` (where the painters stand now), then `S` lines, one per row, a character per
/// room: `A`/`B` a painter, `a`/`b` painted by that painter, `#` under construction, `.` open.
pub(crate) fn turn_input(view: &PaintersView) -> String {
    let g = &view.game;
    let (ra, pa) = coords(g.positions[ALMA]);
    let (rb, pb) = coords(g.positions[BERTHE]);
    let mut s = String::new();
    let _ = writeln!(s, "{ra} {pa} {rb} {pb}");
    s.push_str(&g.grid());
    s
}

pub(crate) fn parse_action(_view: &PaintersView, line: &str) -> Result<PaintersAction, BadLine> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let int = |w: &str| w.parse::<u32>().map_err(|_| format!("`{w}` is not a number"));
    match words.as_slice() {
        [r, p] => Ok(PaintersAction { row: int(r)?, pos: int(p)? }),
        _ => Err("expected the room to move to: `ROW POSITION`".into()),
    }
}

pub(crate) fn format_action(action: &PaintersAction) -> String {
    format!("{} {}", action.row, action.pos)
}
