//! The standings: what a run or a merge found, as one typed, serializable value built from a
//! [`Tally`]. The summary files, the text tables and `--json` are all written from it, so they
//! cannot disagree.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ratings::{Interval, RATING_PRIOR, Z95, fit_ratings, wilson};
use super::tally::{PairTally, Tally};

/// One bot's results and rating (a line of `summary.csv`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotStanding {
    /// 1 is the best rating of its component; `None` (`null`) for a bot without games, which is
    /// not rated.
    pub rank: Option<usize>,
    pub bot: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The mean of the game's own score (NaN, `null` in JSON, for a bot without games).
    pub mean_score: f64,
    /// Points per game (a win 1, a draw 1/2) with its 95% Wilson interval.
    pub win_rate: Interval,
    /// The rating in Elo, its component's mean at 0 (NaN, `null` in JSON, for a bot without
    /// games or when the fit did not converge).
    pub elo: f64,
    /// Half the width of the rating's 95% interval (`null` in JSON when unknown).
    pub elo_margin: f64,
    /// The group of bots connected by games that the rating is comparable within (1-based);
    /// `None` for a bot without games.
    pub component: Option<usize>,
    /// Matches the bot lost by its own failure (any termination but `normal` and `turn_limit`).
    pub faults: u64,
    /// Of those, the ones lost on time.
    pub timeouts: u64,
    /// Matches the rules stopped at their turn cap (`turn_limit`), counted in `wins`, `draws`
    /// and `losses` as the arena scores them, and here apart.
    pub turn_limit: u64,
    /// The likelihood of superiority over the next bot of the table (the one ranked just
    /// below in the same component): the probability that this bot is the stronger, from the
    /// rating fit. `None` (`null`) for the last of a component and an unrated bot.
    pub los_next: Option<f64>,
    /// The role the bot plays when the bots split in two sides that meet only across (Skynet's
    /// virus-only and agent-only bots): its rank and `los_next` are then within that role, as a
    /// virus's rating compares with other viruses', not with agents'. `None` otherwise.
    pub role: Option<String>,
}

/// Results of one bot against another, or in one role.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Record {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points per game: a win is 1, a draw 1/2.
    pub score_rate: f64,
}

impl From<PairTally> for Record {
    fn from(p: PairTally) -> Record {
        Record {
            games: p.games,
            wins: p.wins,
            draws: p.draws,
            losses: p.losses,
            score_rate: p.score_rate(),
        }
    }
}

/// `bot`'s results against `opponent` in the matches both played (in games of more seats: who
/// finished ahead).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeadToHead {
    pub bot: String,
    pub opponent: String,
    #[serde(flatten)]
    pub record: Record,
}

/// `bot`'s results in the seat of `role`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoleRecord {
    pub bot: String,
    pub role: String,
    #[serde(flatten)]
    pub record: Record,
}

/// Everything a run's results say.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standings {
    /// The matches counted.
    pub matches: u64,
    /// The game's roles, in seat order.
    pub roles: Vec<String>,
    /// Every bot: by component, best rating first (ties by name), then the bots without games.
    pub bots: Vec<BotStanding>,
    /// The groups of bots connected by games (1 when everyone is): ratings compare only within
    /// a group.
    pub components: usize,
    /// Whether the rating fit converged; when it did not, every `elo` is `null`.
    pub ratings_converged: bool,
    /// Every ordered pair of bots that met, in the arena's bot order.
    pub head_to_head: Vec<HeadToHead>,
    /// Every bot's results in every role it played, in the arena's bot order and seat order.
    pub by_role: Vec<RoleRecord>,
    /// How the matches ended: termination name → matches.
    pub endings: BTreeMap<String, u64>,
}

/// When every bot plays one seat only (Skynet's virus-only and agent-only bots, who meet only
/// across), the bots of the first seat and those of the second, each in `bots`' order: the rows
/// and the columns of a head-to-head matrix that shows only pairs that can meet, and the roles
/// bots are rated within. `seats` says whether a bot played the first and the second seat; a bot
/// that played neither is left out. `None` when a bot played both, or one side is empty.
pub(crate) fn sides<'a>(
    bots: &[&'a str],
    seats: &dyn Fn(&str) -> (bool, bool),
) -> Option<(Vec<&'a str>, Vec<&'a str>)> {
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    for &b in bots {
        match seats(b) {
            (true, true) => return None,
            (true, false) => rows.push(b),
            (false, true) => cols.push(b),
            (false, false) => {}
        }
    }
    (!rows.is_empty() && !cols.is_empty()).then_some((rows, cols))
}

impl Standings {
    /// The standings of a tally.
    pub(crate) fn of(tally: &Tally) -> Standings {
        let ratings = fit_ratings(tally.bots.len(), &tally.rankings, RATING_PRIOR);
        let mut bots: Vec<BotStanding> = tally
            .bots
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let t = &tally.per_bot[i];
                let points = t.wins as f64 + 0.5 * t.draws as f64;
                BotStanding {
                    rank: None,
                    bot: name.clone(),
                    games: t.games,
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.losses,
                    mean_score: t.mean_score(),
                    win_rate: wilson(points, t.games as f64, Z95),
                    elo: ratings.elo[i],
                    elo_margin: ratings.elo_margin[i],
                    component: ratings.component[i],
                    faults: t.faults,
                    timeouts: t.timeouts,
                    turn_limit: t.turn_limits,
                    los_next: None,
                    role: None,
                }
            })
            .collect();
        // Rated within a role when every bot plays one role only.
        let played: Vec<&str> = tally
            .bots
            .iter()
            .enumerate()
            .filter(|&(i, _)| tally.per_bot[i].games > 0)
            .map(|(_, b)| b.as_str())
            .collect();
        let index = |name: &str| tally.bots.iter().position(|b| b == name).expect("a bot");
        let seats = |b: &str| {
            let seat = |s: usize| tally.by_seat[index(b)].get(s).is_some_and(|p| p.games > 0);
            (seat(0), seat(1))
        };
        if tally.roles.len() == 2
            && let Some((rows, _)) = sides(&played, &seats)
        {
            for b in bots.iter_mut().filter(|b| b.games > 0) {
                let side = usize::from(!rows.contains(&b.bot.as_str()));
                b.role = Some(tally.roles[side].clone());
            }
        }
        let side = |x: &BotStanding| x.role.as_ref().map(|r| r != &tally.roles[0]);
        // By component (and role), best first; the bots without games (no component) last.
        bots.sort_by(|a, b| {
            let group = |x: &BotStanding| x.component.unwrap_or(usize::MAX);
            group(a)
                .cmp(&group(b))
                .then_with(|| side(a).cmp(&side(b)))
                .then_with(|| b.elo.total_cmp(&a.elo))
                .then_with(|| a.bot.cmp(&b.bot))
        });
        let mut previous = None;
        let mut rank = 0;
        for b in &mut bots {
            let group = (b.component, side(b));
            if Some(group) != previous {
                rank = 0;
                previous = Some(group);
            }
            rank += 1;
            b.rank = b.component.map(|_| rank);
        }
        for k in 0..bots.len().saturating_sub(1) {
            if bots[k].component.is_some()
                && bots[k].component == bots[k + 1].component
                && bots[k].role == bots[k + 1].role
            {
                let los = ratings.los(index(&bots[k].bot), index(&bots[k + 1].bot));
                bots[k].los_next = los.is_finite().then_some(los);
            }
        }
        let mut head_to_head = Vec::new();
        for (a, row) in tally.pair.iter().enumerate() {
            for (b, p) in row.iter().enumerate() {
                if p.games > 0 {
                    head_to_head.push(HeadToHead {
                        bot: tally.bots[a].clone(),
                        opponent: tally.bots[b].clone(),
                        record: (*p).into(),
                    });
                }
            }
        }
        let mut by_role = Vec::new();
        for (a, seats) in tally.by_seat.iter().enumerate() {
            for (seat, p) in seats.iter().enumerate() {
                if p.games > 0 {
                    by_role.push(RoleRecord {
                        bot: tally.bots[a].clone(),
                        role: tally.roles[seat].clone(),
                        record: (*p).into(),
                    });
                }
            }
        }
        Standings {
            matches: tally.matches,
            roles: tally.roles.clone(),
            bots,
            components: ratings.component.iter().flatten().max().copied().unwrap_or(0),
            ratings_converged: ratings.converged,
            head_to_head,
            by_role,
            endings: tally.terminations.iter().map(|(t, n)| (t.to_string(), *n)).collect(),
        }
    }

    /// The matches that ended by a bot's fault (any termination but `normal` and `turn_limit`).
    pub fn faulted_matches(&self) -> u64 {
        self.endings
            .iter()
            .filter(|(t, _)| !["normal", "turn_limit"].contains(&t.as_str()))
            .map(|(_, n)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tally::tests::{tally_of, three_matches};
    use super::*;

    /// Viruses v1, v2 and agents a1, a2 (each plays one role): ranked and compared within
    /// their role, the head-to-head split into viruses against agents.
    #[test]
    fn bots_of_one_role_each_are_ranked_within_it() {
        let mut tally = Tally::new(
            ["v1", "v2", "a1", "a2"].map(String::from).to_vec(),
            vec!["virus".into(), "agent".into()],
        );
        let game =
            |virus: usize, agent: usize, virus_wins: bool| super::super::tally::MatchPlacing {
                bots: vec![virus, agent],
                scores: vec![0.0, 0.0],
                ranks: if virus_wins { vec![1, 2] } else { vec![2, 1] },
                termination: crate::bot::Termination::Normal,
                culprit: None,
            };
        for k in 0..8 {
            for (virus, wins) in [(0, 7), (1, 2)] {
                tally.add(&game(virus, 2, k < wins));
                tally.add(&game(virus, 3, k < wins - 1));
            }
        }
        let s = Standings::of(&tally);
        let order: Vec<(&str, Option<&str>, Option<usize>)> =
            s.bots.iter().map(|b| (b.bot.as_str(), b.role.as_deref(), b.rank)).collect();
        assert_eq!(
            order,
            [
                ("v1", Some("virus"), Some(1)),
                ("v2", Some("virus"), Some(2)),
                ("a2", Some("agent"), Some(1)),
                ("a1", Some("agent"), Some(2)),
            ],
            "{s:#?}"
        );
        assert!(s.bots[0].los_next.is_some_and(|p| p > 0.9), "v1 over v2: {s:#?}");
        assert_eq!(s.bots[1].los_next, None, "the last virus: none across roles");
        assert!(s.bots[2].los_next.is_some_and(|p| p > 0.5), "a2 over a1: {s:#?}");
        // With a bot that plays both roles, nobody is split.
        tally.add(&game(2, 0, true));
        assert!(Standings::of(&tally).bots.iter().all(|b| b.role.is_none()));
    }

    #[test]
    fn the_standings_do_not_depend_on_row_order() {
        let forward = Standings::of(&tally_of(three_matches().into_iter()));
        let backward = Standings::of(&tally_of(three_matches().into_iter().rev()));
        assert_eq!(forward, backward);
        assert_eq!(forward.bots[0].bot, "a");
        let ranks: Vec<Option<usize>> = forward.bots.iter().map(|b| b.rank).collect();
        assert_eq!(ranks, vec![Some(1), Some(2), Some(3)]);
        assert_eq!(forward.faulted_matches(), 1);
        let b_vs_c = forward.head_to_head.iter().find(|h| h.bot == "b" && h.opponent == "c");
        assert_eq!(b_vs_c.map(|h| (h.record.games, h.record.draws)), Some((1, 1)));
        assert!(forward.head_to_head.iter().all(|h| h.bot != h.opponent && h.record.games > 0));
        // c sat in seat 1 against b and in seat 0 against a: both roles, in seat order.
        let roles_of_c: Vec<&str> =
            forward.by_role.iter().filter(|r| r.bot == "c").map(|r| r.role.as_str()).collect();
        assert_eq!(roles_of_c, vec!["first", "second"]);
    }

    #[test]
    fn undefined_figures_are_null_in_json() {
        let tally = Tally::new(vec!["idle".into(), "busy".into()], vec!["x".into()]);
        let json = serde_json::to_value(Standings::of(&tally)).expect("standings serialize");
        assert!(json["bots"][0]["mean_score"].is_null(), "{json}");
        assert_eq!(json["matches"], 0);
    }

    /// The folders of `tests/data/ratings/` (matches files made by a seeded simulation) against
    /// the ratings an independent fit gave (a statsmodels Bradley-Terry GLM, a scipy
    /// Plackett-Luce fit; `make_references.py` there made both).
    #[test]
    fn ratings_match_the_independent_references() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ratings");
        let mut cases: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
            .expect("the reference folders")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.join("reference.json").exists())
            .collect();
        cases.sort();
        assert!(cases.len() >= 5, "{cases:?}");
        for dir in cases {
            let case = dir.file_name().expect("a name").to_string_lossy().into_owned();
            let folder = crate::tournament::results::Folder::open(&dir).expect("meta.json");
            let tally = folder.tally().expect("matches.csv");
            let standings = Standings::of(&tally);
            assert!(standings.ratings_converged, "{case}");
            let text = std::fs::read_to_string(dir.join("reference.json")).expect("reference");
            let reference: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            for b in &standings.bots {
                let want = &reference["bots"][&b.bot];
                if want.is_null() {
                    assert_eq!(b.games, 0, "{case} {}", b.bot);
                    assert!(b.elo.is_nan() && b.rank.is_none() && b.component.is_none());
                    continue;
                }
                let close = |got: f64, key: &str, tol: f64| {
                    let w = want[key].as_f64().expect("a number");
                    assert!((got - w).abs() <= tol, "{case} {} {key}: {got} vs {w}", b.bot);
                };
                close(b.elo, "elo", 1e-4);
                close(b.elo - b.elo_margin, "elo_low", 1e-3);
                close(b.elo + b.elo_margin, "elo_high", 1e-3);
                assert_eq!(b.component.map(|c| c as u64), want["component"].as_u64(), "{case}");
            }
        }
    }

    #[test]
    fn groups_are_ranked_apart_and_idle_bots_last() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ratings");
        let of = |case: &str| {
            let dir = root.join(case);
            let folder = crate::tournament::results::Folder::open(&dir).expect("meta.json");
            Standings::of(&folder.tally().expect("matches.csv"))
        };
        let two = of("two-components");
        assert_eq!(two.components, 2);
        let order: Vec<(Option<usize>, Option<usize>)> =
            two.bots.iter().map(|b| (b.component, b.rank)).collect();
        assert_eq!(
            order,
            vec![
                (Some(1), Some(1)),
                (Some(1), Some(2)),
                (Some(2), Some(1)),
                (Some(2), Some(2)),
                (Some(2), Some(3))
            ]
        );
        let idle = of("zero-game-bot");
        let last = idle.bots.last().expect("bots");
        assert_eq!((last.bot.as_str(), last.rank, last.games), ("idle", None, 0));
        assert!(last.win_rate.low.is_nan(), "no [0, 100] interval for a bot without games");
        assert_eq!(idle.components, 1);
    }
}
