//! `summary.csv` and `pairwise.csv`: the standings as files, with fixed float formatting so the
//! same counters always give the same bytes.

use crate::tournament::stats::standings::Standings;

/// Fixed formatting, so the same counters always print the same text: `decimals` places, no
/// `-0`, `inf`/`-inf` for infinities and nothing for NaN.
pub(crate) fn fmt_f(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        String::new()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        let s = format!("{v:.decimals$}");
        // No "-0.0".
        if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            s.trim_start_matches('-').to_string()
        } else {
            s
        }
    }
}

pub(crate) const SUMMARY_COLUMNS: &[&str] = &[
    "rank",
    "bot",
    "games",
    "wins",
    "draws",
    "losses",
    "mean_score",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "elo",
    "elo_low",
    "elo_high",
    "faults",
    "timeouts",
    "component",
];

/// `summary.csv`: one line per bot, by component and best rating first; bots without games last,
/// with no rank, rating or component.
pub(crate) fn summary_csv(standings: &Standings) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(SUMMARY_COLUMNS).expect("writing to memory");
    for r in &standings.bots {
        w.write_record([
            r.rank.map(|k| k.to_string()).unwrap_or_default(),
            r.bot.clone(),
            r.games.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            fmt_f(r.mean_score, 4),
            fmt_f(r.win_rate.value, 4),
            fmt_f(r.win_rate.low, 4),
            fmt_f(r.win_rate.high, 4),
            fmt_f(r.elo, 1),
            fmt_f(r.elo - r.elo_margin, 1),
            fmt_f(r.elo + r.elo_margin, 1),
            r.faults.to_string(),
            r.timeouts.to_string(),
            r.component.map(|c| c.to_string()).unwrap_or_default(),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

pub(crate) const PAIRWISE_COLUMNS: &[&str] =
    &["bot", "opponent", "games", "wins", "draws", "losses", "score_rate"];

/// `pairwise.csv`: one line per ordered pair of bots that met, in the arena's bot order.
pub(crate) fn pairwise_csv(standings: &Standings) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(PAIRWISE_COLUMNS).expect("writing to memory");
    for h in &standings.head_to_head {
        let p = &h.record;
        w.write_record([
            h.bot.clone(),
            h.opponent.clone(),
            p.games.to_string(),
            p.wins.to_string(),
            p.draws.to_string(),
            p.losses.to_string(),
            fmt_f(p.score_rate, 4),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing memory")).expect("UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::stats::tally::tests::{tally_of, three_matches};

    #[test]
    fn fixed_formatting_has_no_negative_zero() {
        assert_eq!(fmt_f(-0.00001, 2), "0.00");
        assert_eq!(fmt_f(1.23456, 2), "1.23");
        assert_eq!(fmt_f(f64::NAN, 2), "");
        assert_eq!(fmt_f(f64::NEG_INFINITY, 1), "-inf");
    }

    #[test]
    fn the_files_do_not_depend_on_row_order() {
        let forward = Standings::of(&tally_of(three_matches().into_iter()));
        let backward = Standings::of(&tally_of(three_matches().into_iter().rev()));
        assert_eq!(summary_csv(&forward), summary_csv(&backward));
        assert_eq!(pairwise_csv(&forward), pairwise_csv(&backward));
        let summary = summary_csv(&forward);
        assert_eq!(summary.lines().count(), 4, "{summary}");
        assert!(summary.lines().nth(1).unwrap().starts_with("1,a,2,2,0,0,1.0000,"), "{summary}");
        // a met b and c, b met a and c, c met b and a: six ordered pairs.
        assert_eq!(pairwise_csv(&forward).lines().count(), 7);
        assert!(pairwise_csv(&forward).contains("\nb,c,1,0,1,0,0.5000\n"));
    }
}
