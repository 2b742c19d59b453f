//! Which match a league plays next, as a pure function of what it knows: the pool (who is in,
//! since when), every match decided so far, and the results of those decided at least a window
//! earlier. So the same history gives the same next match at any concurrency, and a league killed
//! and resumed decides exactly as one that was not.
//!
//! The rule, psyleague's in spirit: a bot with fewer than `min_games` games plays first (the one
//! with fewest, against the opponent it has met least); then neighbours in the ranking whose
//! order is least certain — each bot with the next one below it that it can meet, drawn with a
//! weight of how uncertain their order is (`min(LOS, 1 - LOS)`, the likelihood of superiority
//! from the two ratings and their intervals), by a ChaCha8 seeded with the league's seed and the
//! decision's number. A pair meets game after game in every seat order its roles allow and on
//! every map in turn: its `m`-th meeting is game `m / orders` in seat order `m mod orders`, the
//! same match (id, map, seed) a round robin plays as that game.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::seed::mix64;
use crate::tournament::stats::ratings::normal_cdf;
use crate::tournament::stats::standings::Standings;
use crate::tournament::stats::tally::{MatchPlacing, Tally};

/// A bot of the league, as matchmaking sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    pub(crate) name: String,
    /// The roles it plays.
    pub(crate) roles: Vec<String>,
    /// Whether it is in the pool now (a retired bot keeps its results in the ratings).
    pub(crate) active: bool,
}

/// The next match: the bots of its seats (indices into the members) and its game number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pick {
    pub(crate) seats: Vec<usize>,
    pub(crate) game: u64,
}

/// What matchmaking knows.
#[derive(Clone, Debug)]
pub(crate) struct Matchmaking {
    /// The game's roles, in seat order: as many as a match has seats.
    roles: Vec<String>,
    members: Vec<Member>,
    min_games: u64,
    seed: u64,
    /// Per member, the matches decided since it (re)joined.
    games: Vec<u64>,
    /// Per group of members (sorted), its matches decided since all of them were in.
    meetings: BTreeMap<Vec<usize>, u64>,
    /// Per unordered pair of members (lower index first), the matches decided with both.
    pair_meetings: BTreeMap<(usize, usize), u64>,
    /// The results counted (of matches decided at least a window earlier).
    results: Vec<MatchPlacing>,
    /// The standings of `results`, computed when asked after a change.
    standings: Option<Standings>,
}

impl Matchmaking {
    pub(crate) fn new(roles: Vec<String>, min_games: u64, seed: u64) -> Matchmaking {
        Matchmaking {
            roles,
            members: Vec::new(),
            min_games,
            seed,
            games: Vec::new(),
            meetings: BTreeMap::new(),
            pair_meetings: BTreeMap::new(),
            results: Vec::new(),
            standings: None,
        }
    }

    pub(crate) fn members(&self) -> &[Member] {
        &self.members
    }

    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.name == name)
    }

    /// A bot joins (or comes back, or comes back changed): it counts as new, its meetings start
    /// over.
    pub(crate) fn join(&mut self, name: &str, roles: Vec<String>) {
        let i = match self.index(name) {
            Some(i) => i,
            None => {
                self.members.push(Member {
                    name: name.to_string(),
                    roles: Vec::new(),
                    active: false,
                });
                self.games.push(0);
                self.members.len() - 1
            }
        };
        self.members[i].roles = roles;
        self.members[i].active = true;
        self.games[i] = 0;
        self.meetings.retain(|group, _| !group.contains(&i));
        self.pair_meetings.retain(|&(a, b), _| a != i && b != i);
        self.standings = None;
    }

    /// A bot leaves the pool; its results stay in the ratings of the others.
    pub(crate) fn retire(&mut self, name: &str) {
        if let Some(i) = self.index(name) {
            self.members[i].active = false;
        }
    }

    /// A bot whose results are archived (it changed): they leave the ratings too.
    pub(crate) fn forget_results_of(&mut self, name: &str) {
        if let Some(i) = self.index(name) {
            self.results.retain(|r| !r.bots.contains(&i));
            self.standings = None;
        }
    }

    /// The seat orders a group of members can meet in (each a bot per seat), in a fixed order:
    /// the rotations of the group sorted by index (for two seats: the lower index first in seat
    /// 0, then the swap), those its bots' roles allow.
    pub(crate) fn orders(&self, group: &[usize]) -> Vec<Vec<usize>> {
        let mut sorted = group.to_vec();
        sorted.sort_unstable();
        let k = sorted.len();
        let plays = |bot: usize, seat: usize| self.members[bot].roles.contains(&self.roles[seat]);
        (0..k)
            .map(|r| (0..k).map(|s| sorted[(s + r) % k]).collect::<Vec<usize>>())
            .filter(|order| order.iter().enumerate().all(|(seat, &bot)| plays(bot, seat)))
            .collect()
    }

    /// Whether two members can sit at one table: in two-seat games, in a seat order their
    /// roles allow; with more seats, any two (the seats' roles are the players' numbers).
    fn can_meet(&self, a: usize, b: usize) -> bool {
        a != b && (self.roles.len() != 2 || !self.orders(&[a, b]).is_empty())
    }

    fn pair_meetings(&self, a: usize, b: usize) -> u64 {
        self.pair_meetings.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }

    /// Counts a decided match (its group's meeting, each pair's and each bot's game).
    pub(crate) fn decided(&mut self, seats: &[usize]) {
        let mut group = seats.to_vec();
        group.sort_unstable();
        for (k, &a) in group.iter().enumerate() {
            for &b in &group[k + 1..] {
                *self.pair_meetings.entry((a, b)).or_default() += 1;
            }
        }
        *self.meetings.entry(group).or_default() += 1;
        for &s in seats {
            self.games[s] += 1;
        }
    }

    /// `group` filled up to a match's seats with the active bots it has met least (then those
    /// with fewest games), so every bot meets every other about as often; `None` when the pool
    /// is too small or the roles leave no seat order.
    fn fill(&self, active: &[usize], mut group: Vec<usize>) -> Option<Vec<usize>> {
        while group.len() < self.roles.len() {
            let next = active
                .iter()
                .copied()
                .filter(|j| !group.contains(j))
                .filter(|&j| group.iter().all(|&g| self.can_meet(g, j)))
                .min_by_key(|&j| {
                    let met: u64 = group.iter().map(|&g| self.pair_meetings(g, j)).sum();
                    (met, self.games[j], j)
                })?;
            group.push(next);
        }
        (!self.orders(&group).is_empty()).then_some(group)
    }

    /// Counts a result.
    pub(crate) fn result(&mut self, placing: MatchPlacing) {
        self.results.push(placing);
        self.standings = None;
    }

    /// The standings of the results counted, every member in the table.
    pub(crate) fn standings(&mut self) -> &Standings {
        if self.standings.is_none() {
            let names = self.members.iter().map(|m| m.name.clone()).collect();
            let mut tally = Tally::new(names, self.roles.clone());
            for r in &self.results {
                tally.add(r);
            }
            self.standings = Some(Standings::of(&tally));
        }
        self.standings.as_ref().expect("computed")
    }

    /// The standings of the active bots over the results counted and `more` (those not yet
    /// counted): what the league shows while it plays.
    pub(crate) fn standings_with<'a>(
        &'a self,
        more: impl Iterator<Item = &'a MatchPlacing>,
    ) -> Standings {
        let active: Vec<usize> =
            (0..self.members.len()).filter(|&i| self.members[i].active).collect();
        let names = active.iter().map(|&i| self.members[i].name.clone()).collect();
        let mut tally = Tally::new(names, self.roles.clone());
        let at = |b: usize| active.iter().position(|&a| a == b);
        for r in self.results.iter().chain(more) {
            let bots: Option<Vec<usize>> = r.bots.iter().map(|&b| at(b)).collect();
            if let Some(bots) = bots {
                tally.add(&MatchPlacing { bots, culprit: r.culprit.and_then(at), ..r.clone() });
            }
        }
        Standings::of(&tally)
    }

    /// The `n`-th match of the league, or `None` when no bots of the pool can meet.
    pub(crate) fn next(&mut self, n: u64) -> Option<Pick> {
        let active: Vec<usize> =
            (0..self.members.len()).filter(|&i| self.members[i].active).collect();
        // A bot short of games first, with the opponents it has met least.
        let newcomer = active
            .iter()
            .copied()
            .filter(|&i| self.games[i] < self.min_games)
            .filter(|&i| active.iter().any(|&j| self.can_meet(i, j)))
            .min_by_key(|&i| (self.games[i], i));
        let group = match newcomer.and_then(|i| self.fill(&active, vec![i])) {
            Some(group) => group,
            None => {
                let (a, b) = self.uncertain_neighbours(&active, n)?;
                self.fill(&active, vec![a, b])?
            }
        };
        let orders = self.orders(&group);
        let mut key = group;
        key.sort_unstable();
        let m = self.meetings.get(&key).copied().unwrap_or(0);
        let k = orders.len() as u64;
        Some(Pick { seats: orders[(m % k) as usize].clone(), game: m / k })
    }

    /// Each active bot with the next one below it in the ranking (in its role when the bots
    /// split by role, else the next one it can meet), one pair drawn with the weight of how
    /// uncertain their order is. Two bots of one role never meet: the one with fewer games
    /// plays the opponent it has met least, a game that tells the two apart.
    fn uncertain_neighbours(&mut self, active: &[usize], n: u64) -> Option<(usize, usize)> {
        let pairs: BTreeMap<(usize, usize), bool> = active
            .iter()
            .flat_map(|&a| active.iter().map(move |&b| (a, b)))
            .filter(|&(a, b)| a < b)
            .map(|(a, b)| ((a, b), self.can_meet(a, b)))
            .collect();
        let can_meet =
            |a: usize, b: usize| pairs.get(&(a.min(b), a.max(b))).copied().unwrap_or(false);
        let standings = self.standings().clone();
        let standing = |i: usize| standings.bots.iter().find(|b| b.bot == self.members[i].name);
        let rating = |i: usize| {
            let s = standing(i);
            let elo = s.map(|s| s.elo).filter(|e| e.is_finite()).unwrap_or(0.0);
            let se = s.map(|s| s.elo_margin / 1.96).filter(|e| e.is_finite()).unwrap_or(400.0);
            (elo, se)
        };
        let role = |i: usize| standing(i).and_then(|s| s.role.clone());
        let mut ranked: Vec<usize> = active.to_vec();
        ranked.sort_by(|&a, &b| rating(b).0.total_cmp(&rating(a).0).then(a.cmp(&b)));
        let mut candidates: Vec<((usize, usize), f64)> = Vec::new();
        for (at, &a) in ranked.iter().enumerate() {
            let below = &ranked[at + 1..];
            let next = match role(a) {
                Some(r) => below.iter().find(|&&b| role(b).as_ref() == Some(&r)),
                None => below.iter().find(|&&b| can_meet(a, b)),
            };
            if let Some(&b) = next {
                let ((ea, sa), (eb, sb)) = (rating(a), rating(b));
                let los = normal_cdf((ea - eb) / (sa * sa + sb * sb).sqrt().max(1e-9));
                candidates.push(((a, b), los.min(1.0 - los) + 0.01));
            }
        }
        let total: f64 = candidates.iter().map(|c| c.1).sum();
        if candidates.is_empty() || total <= 0.0 {
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(mix64(self.seed ^ mix64(n ^ 0x1EA6_0E00)));
        let mut x = rng.random::<f64>() * total;
        let mut drawn = candidates.last().map(|c| c.0)?;
        for (pair, w) in &candidates {
            if x < *w {
                drawn = *pair;
                break;
            }
            x -= w;
        }
        let (a, b) = drawn;
        if can_meet(a, b) {
            return Some((a, b));
        }
        // The one with fewer games plays the opponent it can meet whose result is least
        // certain (the nearest rating), each earlier meeting counting as 50 Elo further away.
        let player = if self.games[b] < self.games[a] { b } else { a };
        let meetings = |j: usize| self.pair_meetings(player, j) as f64;
        let distance = |j: usize| (rating(j).0 - rating(player).0).abs() + 50.0 * meetings(j);
        let opponent = active
            .iter()
            .copied()
            .filter(|&j| can_meet(player, j))
            .min_by(|&i, &j| distance(i).total_cmp(&distance(j)).then(i.cmp(&j)))?;
        Some((player, opponent))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Termination;

    fn win(winner: usize, loser: usize, virus_first: bool) -> MatchPlacing {
        let (bots, ranks) = if virus_first {
            (vec![winner, loser], vec![1, 2])
        } else {
            (vec![loser, winner], vec![2, 1])
        };
        MatchPlacing {
            bots,
            scores: vec![0.0, 0.0],
            ranks,
            termination: Termination::Normal,
            culprit: None,
        }
    }

    /// Viruses v1, v2 (close: the order uncertain) and v3 (far below), agents a1 and a2 (far
    /// apart): a virus never meets a virus, so the league tells v1 and v2 apart with games
    /// against agents.
    #[test]
    fn bots_of_one_role_are_told_apart_through_common_opponents() {
        let mut m = Matchmaking::new(vec!["virus".into(), "agent".into()], 0, 1);
        for v in ["v1", "v2", "v3"] {
            m.join(v, vec!["virus".into()]);
        }
        for a in ["a1", "a2"] {
            m.join(a, vec!["agent".into()]);
        }
        // Wins of each virus in 8 games against a1 and a2: v1 and v2 alike, v3 far below; a1
        // far above a2.
        for (v, wins) in [(0, [4, 8]), (1, [3, 8]), (2, [0, 3])] {
            for (a, wins) in [(3, wins[0]), (4, wins[1])] {
                for k in 0..8 {
                    let r = if k < wins { win(v, a, true) } else { win(a, v, false) };
                    m.decided(&r.bots);
                    m.result(r);
                }
            }
        }
        let standings = m.standings().clone();
        let role = |b: &str| standings.bots.iter().find(|s| s.bot == b).unwrap().role.clone();
        assert_eq!(role("v1").as_deref(), Some("virus"));
        assert_eq!(role("a2").as_deref(), Some("agent"));
        let mut plays = [0; 5];
        for n in 0..200 {
            let pick = m.next(n).expect("a match");
            assert!(pick.seats[0] < 3 && pick.seats[1] >= 3, "a virus against an agent: {pick:?}");
            plays[pick.seats[0]] += 1;
            m.decided(&pick.seats);
        }
        assert!(plays[0] + plays[1] > 4 * plays[2], "the uncertain viruses play most: {plays:?}");
        assert!(plays[0] > 20 && plays[1] > 20, "both of them: {plays:?}");
    }
}

#[cfg(test)]
mod seats_tests {
    use super::*;

    /// Five bots, three seats (Risk's players): every match seats three different bots, every
    /// bot sits in every seat, and the pairs meet about equally often.
    #[test]
    fn with_three_seats_groups_rotate_and_every_pair_meets() {
        let roles: Vec<String> = (1..=3).map(|p| format!("p{p}")).collect();
        let mut m = Matchmaking::new(roles.clone(), 6, 3);
        for b in 0..5 {
            m.join(&format!("b{b}"), roles.clone());
        }
        let mut seat_counts = [[0u32; 3]; 5];
        for n in 0..60 {
            let pick = m.next(n).expect("a match");
            let mut sorted = pick.seats.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 3, "three different bots: {pick:?}");
            for (seat, &b) in pick.seats.iter().enumerate() {
                seat_counts[b][seat] += 1;
            }
            m.decided(&pick.seats);
        }
        for (b, seats) in seat_counts.iter().enumerate() {
            assert!(seats.iter().all(|&c| c > 0), "b{b} sat in every seat: {seat_counts:?}");
        }
        let met: Vec<u64> = m.pair_meetings.values().copied().collect();
        assert_eq!(met.len(), 10, "every pair met: {met:?}");
        let (lo, hi) = (met.iter().min().unwrap(), met.iter().max().unwrap());
        assert!(2 * (hi - lo) <= *lo, "pairs met about equally often: {met:?}");
    }
}
