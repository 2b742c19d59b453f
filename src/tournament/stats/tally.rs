//! Counters of a tournament's results, fed one match at a time.
//!
//! A [`Tally`] keeps only counters whose size depends on the number of bots, never on the number
//! of matches, so summaries of a million matches take the memory of ten. Every counter is an
//! integer (scores in fixed point), so the tally — and every figure derived from it — is the same
//! whatever order the matches arrive in: one run, a resumed run and merged shards print the same
//! summaries byte for byte.

use std::collections::BTreeMap;

use crate::bot::Termination;

/// Scores are summed in units of 1e-9, exactly.
const SCORE_UNIT: f64 = 1e9;

/// One match as the counters see it: who sat where, as bot indices, and how it ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MatchPlacing {
    /// The bot of each seat (an index into the tally's bots).
    pub(crate) bots: Vec<usize>,
    pub(crate) scores: Vec<f64>,
    /// 1 is best; equal ranks tie.
    pub(crate) ranks: Vec<u32>,
    pub(crate) termination: Termination,
    /// The bot whose failure ended the match.
    pub(crate) culprit: Option<usize>,
}

/// One bot's counters over all its matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BotTally {
    pub(crate) games: u64,
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
    score_units: i128,
    /// Matches this bot lost by its own failure (timeout, crash, illegal action, ...).
    pub(crate) faults: u64,
    pub(crate) timeouts: u64,
    /// Matches of this bot the rules stopped at their turn cap (`turn_limit`), whatever they
    /// scored: a win by the cap's ranking is not a win like the others.
    pub(crate) turn_limits: u64,
}

impl BotTally {
    /// The mean of the game's own score over the bot's matches (NaN without matches).
    pub(crate) fn mean_score(&self) -> f64 {
        if self.games == 0 {
            f64::NAN
        } else {
            self.score_units as f64 / SCORE_UNIT / self.games as f64
        }
    }
}

/// Results of one bot against another (or in one seat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PairTally {
    pub(crate) games: u64,
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
}

impl PairTally {
    /// Points per game: a win is 1, a draw 1/2.
    pub(crate) fn score_rate(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games as f64
    }
}

/// Counters of every result seen.
#[derive(Clone, Debug)]
pub(crate) struct Tally {
    pub(crate) bots: Vec<String>,
    pub(crate) per_bot: Vec<BotTally>,
    /// `pair[a][b]`: `a`'s results against `b` in the matches both played.
    pub(crate) pair: Vec<Vec<PairTally>>,
    /// Each distinct finishing order (groups of tied bots, best first) and how often it happened.
    pub(crate) rankings: BTreeMap<Vec<Vec<usize>>, u64>,
    /// How matches ended, by the termination's name (so they print in name order).
    pub(crate) terminations: BTreeMap<&'static str, u64>,
    pub(crate) matches: u64,
    /// The roles, in seat order, and `by_seat[bot][seat]`: that bot's results in that seat.
    pub(crate) roles: Vec<String>,
    pub(crate) by_seat: Vec<Vec<PairTally>>,
}

impl Tally {
    pub(crate) fn new(bots: Vec<String>, roles: Vec<String>) -> Tally {
        let n = bots.len();
        Tally {
            by_seat: vec![vec![PairTally::default(); roles.len()]; n],
            roles,
            bots,
            per_bot: vec![BotTally::default(); n],
            pair: vec![vec![PairTally::default(); n]; n],
            rankings: BTreeMap::new(),
            terminations: BTreeMap::new(),
            matches: 0,
        }
    }

    pub(crate) fn add(&mut self, row: &MatchPlacing) {
        self.matches += 1;
        *self.terminations.entry(row.termination.as_str()).or_default() += 1;
        let firsts = row.ranks.iter().filter(|&&r| r == 1).count();
        for (seat, &bot) in row.bots.iter().enumerate() {
            let t = &mut self.per_bot[bot];
            t.games += 1;
            t.score_units += (row.scores[seat] * SCORE_UNIT).round() as i128;
            let r = &mut self.by_seat[bot][seat];
            r.games += 1;
            match (row.ranks[seat], firsts) {
                (1, 1) => {
                    t.wins += 1;
                    r.wins += 1;
                }
                (1, _) => {
                    t.draws += 1;
                    r.draws += 1;
                }
                _ => {
                    t.losses += 1;
                    r.losses += 1;
                }
            }
            for (other_seat, &other) in row.bots.iter().enumerate() {
                if other_seat == seat {
                    continue;
                }
                let p = &mut self.pair[bot][other];
                p.games += 1;
                match row.ranks[seat].cmp(&row.ranks[other_seat]) {
                    std::cmp::Ordering::Less => p.wins += 1,
                    std::cmp::Ordering::Equal => p.draws += 1,
                    std::cmp::Ordering::Greater => p.losses += 1,
                }
            }
        }
        if row.termination == Termination::TurnLimit {
            for &bot in &row.bots {
                self.per_bot[bot].turn_limits += 1;
            }
        }
        if let Some(c) = row.culprit {
            self.per_bot[c].faults += 1;
            if row.termination == Termination::Timeout {
                self.per_bot[c].timeouts += 1;
            }
        }
        let mut order: Vec<usize> = (0..row.bots.len()).collect();
        order.sort_by_key(|&s| (row.ranks[s], row.bots[s]));
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut last_rank = None;
        for s in order {
            if last_rank == Some(row.ranks[s]) {
                groups.last_mut().expect("a group").push(row.bots[s]);
            } else {
                groups.push(vec![row.bots[s]]);
            }
            last_rank = Some(row.ranks[s]);
        }
        *self.rankings.entry(groups).or_default() += 1;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Three matches of bots a, b, c in two seats: a win, a draw, and a timeout.
    pub(crate) fn three_matches() -> Vec<MatchPlacing> {
        vec![
            MatchPlacing {
                bots: vec![0, 1],
                scores: vec![1.0, 0.0],
                ranks: vec![1, 2],
                termination: Termination::Normal,
                culprit: None,
            },
            MatchPlacing {
                bots: vec![1, 2],
                scores: vec![0.1, 0.2],
                ranks: vec![1, 1],
                termination: Termination::Normal,
                culprit: None,
            },
            MatchPlacing {
                bots: vec![2, 0],
                scores: vec![0.0, 1.0],
                ranks: vec![2, 1],
                termination: Termination::Timeout,
                culprit: Some(2),
            },
        ]
    }

    /// The tally of [`three_matches`], added in the given order.
    pub(crate) fn tally_of(rows: impl Iterator<Item = MatchPlacing>) -> Tally {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let mut tally = Tally::new(names, vec!["first".to_string(), "second".to_string()]);
        rows.for_each(|r| tally.add(&r));
        tally
    }

    #[test]
    fn the_counters_count_wins_draws_faults_and_seats() {
        let t = tally_of(three_matches().into_iter());
        assert_eq!((t.per_bot[0].wins, t.per_bot[1].draws, t.per_bot[2].timeouts), (2, 1, 1));
        assert_eq!(t.pair[1][2], PairTally { games: 1, wins: 0, draws: 1, losses: 0 });
        // Bot a won in seat 0 (against b) and in seat 1 (against c).
        assert_eq!(t.by_seat[0][0], PairTally { games: 1, wins: 1, draws: 0, losses: 0 });
        assert_eq!(t.by_seat[0][1], PairTally { games: 1, wins: 1, draws: 0, losses: 0 });
        assert_eq!(t.by_seat[2][0].losses, 1);
        assert_eq!(t.terminations.get("timeout"), Some(&1));
        assert!((t.per_bot[1].mean_score() - 0.05).abs() < 1e-12);
    }
}
