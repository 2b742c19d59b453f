//! The line protocol of Greedy Spiders, both roles: the graph, the flies and the options once,
//! then each turn the edge just removed and where the spiders stand. The defender answers `U V`
//! (or `PASS`), the spiders `WAIT` or `SPIDER:VERTEX ...`.

use super::rules::{DEFENDER, SpiderAction, SpidersView};
use crate::game::BadLine;

pub(crate) fn init_input(view: &SpidersView) -> String {
    let m = &view.game.map;
    let mut s = format!("{} {} {} {}\n", m.nodes, m.edges.len(), m.spiders.len(), m.flies.len());
    for (a, b) in &m.edges {
        s.push_str(&format!("{a} {b}\n"));
    }
    let flies: Vec<String> = m.flies.iter().map(u32::to_string).collect();
    s.push_str(&flies.join(" "));
    s.push('\n');
    // Whether `WAIT`/`PASS` are legal depends on the options: a bot must be told them.
    let o = view.game.options;
    s.push_str(&format!(
        "options all_must_move={} defender_may_pass={}\n",
        o.all_must_move, o.defender_may_pass
    ));
    s
}

pub(crate) fn turn_input(view: &SpidersView) -> String {
    let g = &view.game;
    let cut = match g.last_cut {
        Some((a, b)) => format!("{a} {b}"),
        None => "-1 -1".to_string(),
    };
    let spiders: Vec<String> = g.spiders.iter().map(u32::to_string).collect();
    format!("{cut}\n{}\n", spiders.join(" "))
}

pub(crate) fn parse_action(view: &SpidersView, line: &str) -> Result<SpiderAction, BadLine> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let int = |w: &str| w.parse::<u32>().map_err(|_| format!("`{w}` is not a vertex"));
    if view.seat == DEFENDER {
        match words.as_slice() {
            ["PASS"] => Ok(SpiderAction::Pass),
            [a, b] => Ok(SpiderAction::Cut(int(a)?, int(b)?)),
            _ => Err("expected `U V` (the edge to remove) or `PASS`".into()),
        }
    } else {
        match words.as_slice() {
            ["WAIT"] => Ok(SpiderAction::Moves(Vec::new())),
            [] => Err("expected `WAIT` or `SPIDER:VERTEX ...`".into()),
            moves => moves
                .iter()
                .map(|m| {
                    let (i, v) =
                        m.split_once(':').ok_or_else(|| format!("`{m}` is not `SPIDER:VERTEX`"))?;
                    let i =
                        i.parse::<usize>().map_err(|_| format!("`{i}` is not a spider index"))?;
                    Ok((i, int(v)?))
                })
                .collect::<Result<Vec<_>, String>>()
                .map(SpiderAction::Moves)
                .map_err(BadLine::from),
        }
    }
}

pub(crate) fn format_action(action: &SpiderAction) -> String {
    match action {
        SpiderAction::Cut(a, b) => format!("{a} {b}"),
        SpiderAction::Pass => "PASS".to_string(),
        SpiderAction::Moves(m) if m.is_empty() => "WAIT".to_string(),
        SpiderAction::Moves(m) => {
            m.iter().map(|(i, v)| format!("{i}:{v}")).collect::<Vec<_>>().join(" ")
        }
    }
}
