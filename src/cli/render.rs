//! Reports as people read them (the tables of `arena run` and `arena merge`) or as one JSON
//! document (`--json`): the library returns typed reports, and only here do they become text.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::tournament::results::summaries::fmt_f;
use crate::tournament::stats::standings::{Record, Standings};

/// Writes `report` as one pretty-printed JSON document and a newline.
pub(super) fn json<T: Serialize>(report: &T, out: &mut dyn Write) -> Result<()> {
    let mut text = serde_json::to_string_pretty(report).expect("reports serialize");
    text.push('\n');
    out.write_all(text.as_bytes()).map_err(Error::stdout)
}

/// A cell of the head-to-head and by-role tables: the score rate and the games, or `-`.
fn cell(record: Option<&Record>) -> String {
    match record {
        Some(p) if p.games > 0 => format!("{}% ({})", fmt_f(100.0 * p.score_rate, 0), p.games),
        _ => "-".to_string(),
    }
}

/// The tables printed at the end of a run or a merge: the ranking, the head-to-head matrix, the
/// results by role (in games with several roles) and how the matches ended.
pub(super) fn standings(s: &Standings) -> String {
    let mut out = String::new();
    let (rows, idle): (Vec<_>, Vec<_>) = s.bots.iter().partition(|r| r.games > 0);
    let width = rows.iter().map(|r| r.bot.chars().count()).max().unwrap_or(3).max(3);
    let grouped = s.components > 1;
    let group_header = if grouped { "  group" } else { "" };
    // Games stopped at the rules' turn cap are counted apart, in a column shown when there are any.
    let capped = s.endings.contains_key("turn_limit");
    let group_header =
        if capped { format!("  turn_limit{group_header}") } else { group_header.into() };
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>6}  {:>6}  {:>6}  {:>6}  {:>8}  {:>21}  {:>20}  {:>5}  {:>6}  {:>8}{group_header}",
        "rank",
        "bot",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "win rate (95%)",
        "Elo* (95%)",
        "LOS**",
        "faults",
        "timeouts"
    );
    let mut role = None;
    for r in &rows {
        // Rated within a role (viruses apart from agents): a heading per role.
        if r.role.is_some() && r.role != role {
            role = r.role.clone();
            let _ = writeln!(out, "  {}:", r.role.as_deref().unwrap_or_default());
        }
        let rate = format!(
            "{}% [{}, {}]",
            fmt_f(100.0 * r.win_rate.value, 1),
            fmt_f(100.0 * r.win_rate.low, 1),
            fmt_f(100.0 * r.win_rate.high, 1)
        );
        let elo = if r.elo.is_nan() {
            "-".to_string()
        } else {
            format!("{} ± {}", fmt_f(r.elo, 0), fmt_f(r.elo_margin, 0))
        };
        let los = r.los_next.map(|p| format!("{}%", fmt_f(100.0 * p, 0))).unwrap_or_default();
        let mut group = match (grouped, r.component) {
            (true, Some(c)) => format!("  {c:>5}"),
            _ => String::new(),
        };
        if capped {
            group = format!("  {:>10}{group}", r.turn_limit);
        }
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>6}  {:>6}  {:>6}  {:>6}  {:>8}  {:>21}  {:>20}  {:>5}  {:>6}  {:>8}{group}",
            r.rank.map(|k| k.to_string()).unwrap_or_default(),
            r.bot,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            fmt_f(r.mean_score, 3),
            rate,
            elo,
            los,
            r.faults,
            r.timeouts
        );
    }
    let _ = writeln!(
        out,
        "* Bradley-Terry / Plackett-Luce fit, mean 0 per group, with one virtual draw per bot \
         against a 0-Elo anchor:\n  it keeps a bot that wins (or loses) every game finite, and \
         then sets how far its rating goes.\n** LOS: the likelihood that the bot is stronger than the \
         next one below it (from the fit's covariance)."
    );
    if rows.iter().any(|r| r.role.is_some()) {
        let _ = writeln!(
            out,
            "  The bots split by role (each meets only the other role): ranks and LOS are within \
             a role, as ratings compare\n  only bots of one role."
        );
    }
    if s.roles.len() > 2 {
        // With more than two seats a first place is a win, and a bot with more wins may still
        // rank lower: say so, or the table reads as a mistake.
        let _ = writeln!(
            out,
            "  With {} seats: wins are first places (a shared first place is a draw), losses any \
             other place; ranks follow Elo, fit on each\n  match's full finishing order, so \
             second places count too. faults: matches lost by the bot's own failure; timeouts: \
             those lost on time.",
            s.roles.len()
        );
    }
    if grouped {
        let _ = writeln!(
            out,
            "The bots form {} groups that never met (directly or through common opponents): \
             ratings and ranks compare only within a group.",
            s.components
        );
    }
    if !s.ratings_converged {
        let _ = writeln!(out, "warning: the rating fit did not converge; no Elo is given");
    }
    if !idle.is_empty() {
        let names: Vec<&str> = idle.iter().map(|r| r.bot.as_str()).collect();
        let _ = writeln!(out, "no games, not rated: {}", names.join(", "));
    }
    // The head-to-head matrix: the row bot's score rate against the column bot, best first.
    let order: Vec<&str> = rows.iter().map(|r| r.bot.as_str()).collect();
    let pair: BTreeMap<(&str, &str), &Record> =
        s.head_to_head.iter().map(|h| ((h.bot.as_str(), h.opponent.as_str()), &h.record)).collect();
    let col = order.iter().map(|b| b.chars().count()).max().unwrap_or(0).clamp(11, 16);
    // Only pairs that can meet: when every bot plays one role (Skynet's viruses and agents),
    // one role's bots as rows against the other's as columns.
    let plays = |bot: &str, seat: usize| {
        s.roles
            .get(seat)
            .is_some_and(|role| s.by_role.iter().any(|r| r.bot == bot && &r.role == role))
    };
    let seats = |bot: &str| (plays(bot, 0), plays(bot, 1));
    let (row_bots, col_bots) = crate::tournament::stats::standings::sides(&order, &seats)
        .filter(|_| s.roles.len() == 2)
        .unwrap_or_else(|| (order.clone(), order.clone()));
    let _ = writeln!(out, "\nhead to head (row's score rate against column, games in brackets):");
    let _ = write!(out, "{:<width$}", "");
    for b in &col_bots {
        let name: String = b.chars().take(col).collect();
        let _ = write!(out, "  {name:>col$}");
    }
    let _ = writeln!(out);
    for a in &row_bots {
        let _ = write!(out, "{a:<width$}");
        for b in &col_bots {
            let _ = write!(out, "  {:>col$}", cell(pair.get(&(*a, *b)).copied()));
        }
        let _ = writeln!(out);
    }
    // By role: in asymmetric games (Skynet's virus and agent) a bot's strength differs by role.
    if s.roles.len() > 1 {
        let by_role: BTreeMap<(&str, &str), &Record> =
            s.by_role.iter().map(|r| ((r.bot.as_str(), r.role.as_str()), &r.record)).collect();
        let _ = writeln!(out, "\nby role (score rate, games in brackets):");
        let _ = write!(out, "{:<width$}", "");
        for role in &s.roles {
            let _ = write!(out, "  {role:>col$}");
        }
        let _ = writeln!(out);
        for a in &order {
            let _ = write!(out, "{a:<width$}");
            for role in &s.roles {
                let _ = write!(out, "  {:>col$}", cell(by_role.get(&(*a, role.as_str())).copied()));
            }
            let _ = writeln!(out);
        }
    }
    let terms: Vec<String> = s.endings.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let _ = writeln!(out, "\n{} matches; endings: {}", s.matches, terms.join(", "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Termination;
    use crate::tournament::stats::tally::{MatchPlacing, Tally};

    #[test]
    fn the_tables_show_ranks_pairs_roles_and_endings() {
        let mut tally = Tally::new(
            vec!["a".into(), "b".into(), "long-named-bot".into()],
            vec!["first".into(), "second".into()],
        );
        let placing = |bots: Vec<usize>, ranks: Vec<u32>, termination| MatchPlacing {
            bots,
            scores: vec![0.0, 0.0],
            ranks,
            termination,
            culprit: None,
        };
        tally.add(&placing(vec![0, 1], vec![1, 2], Termination::Normal));
        tally.add(&placing(vec![1, 0], vec![2, 1], Termination::Normal));
        tally.add(&placing(vec![2, 0], vec![1, 1], Termination::Timeout));
        let text = standings(&Standings::of(&tally));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("rank  bot") && lines[1].contains("   1  a  "), "{text}");
        assert!(text.contains("by role") && text.contains("first"), "{text}");
        // a against b: two wins; b never met long-named-bot.
        let a_row = lines.iter().find(|l| l.starts_with("a ") && l.contains('%')).unwrap();
        assert!(a_row.contains("100% (2)") && a_row.contains(" -"), "{a_row}");
        assert!(text.ends_with("3 matches; endings: normal 2, timeout 1\n"), "{text}");
    }
}
