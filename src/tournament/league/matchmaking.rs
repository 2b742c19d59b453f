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
    /// The game's roles, in seat order (two seats).
    roles: Vec<String>,
    members: Vec<Member>,
    min_games: u64,
    seed: u64,
    /// Per member, the matches decided since it (re)joined.
    games: Vec<u64>,
    /// Per unordered pair of members (lower index first), its meetings decided since both were in.
    meetings: BTreeMap<(usize, usize), u64>,
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
        self.meetings.retain(|&(a, b), _| a != i && b != i);
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

    /// The seat orders two members can meet in (each a bot per seat), in a fixed order: the
    /// lower index first in seat 0, then the swap.
    pub(crate) fn orders(&self, a: usize, b: usize) -> Vec<Vec<usize>> {
        let (lo, hi) = (a.min(b), a.max(b));
        let plays = |bot: usize, seat: usize| self.members[bot].roles.contains(&self.roles[seat]);
        [vec![lo, hi], vec![hi, lo]]
            .into_iter()
            .filter(|order| order.iter().enumerate().all(|(seat, &bot)| plays(bot, seat)))
            .collect()
    }

    /// Counts a decided match (its meeting and each bot's game).
    pub(crate) fn decided(&mut self, seats: &[usize]) {
        let (a, b) = (seats[0].min(seats[1]), seats[0].max(seats[1]));
        *self.meetings.entry((a, b)).or_default() += 1;
        for &s in seats {
            self.games[s] += 1;
        }
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

    /// The `n`-th match of the league, or `None` when no two bots of the pool can meet.
    pub(crate) fn next(&mut self, n: u64) -> Option<Pick> {
        let active: Vec<usize> =
            (0..self.members.len()).filter(|&i| self.members[i].active).collect();
        let can_meet = |a: usize, b: usize| a != b && !self.orders(a, b).is_empty();
        let meetings =
            |a: usize, b: usize| self.meetings.get(&(a.min(b), a.max(b))).copied().unwrap_or(0);
        // A bot short of games first, against the opponent it has met least.
        let newcomer = active
            .iter()
            .copied()
            .filter(|&i| self.games[i] < self.min_games)
            .filter(|&i| active.iter().any(|&j| can_meet(i, j)))
            .min_by_key(|&i| (self.games[i], i));
        let pair = match newcomer {
            Some(i) => {
                let j = active
                    .iter()
                    .copied()
                    .filter(|&j| can_meet(i, j))
                    .min_by_key(|&j| (meetings(i, j), self.games[j], j))?;
                Some((i, j))
            }
            None => None,
        };
        let pair = match pair {
            Some(pair) => pair,
            None => self.uncertain_neighbours(&active, n)?,
        };
        let meetings =
            |a: usize, b: usize| self.meetings.get(&(a.min(b), a.max(b))).copied().unwrap_or(0);
        let orders = self.orders(pair.0, pair.1);
        let m = meetings(pair.0, pair.1);
        let k = orders.len() as u64;
        Some(Pick { seats: orders[(m % k) as usize].clone(), game: m / k })
    }

    /// Each active bot with the next one below it in the ranking that it can meet, one drawn
    /// with the weight of how uncertain their order is.
    fn uncertain_neighbours(&mut self, active: &[usize], n: u64) -> Option<(usize, usize)> {
        let orders: BTreeMap<(usize, usize), bool> = active
            .iter()
            .flat_map(|&a| active.iter().map(move |&b| (a, b)))
            .filter(|&(a, b)| a < b)
            .map(|(a, b)| ((a, b), !self.orders(a, b).is_empty()))
            .collect();
        let can_meet =
            |a: usize, b: usize| orders.get(&(a.min(b), a.max(b))).copied().unwrap_or(false);
        let standings = self.standings().clone();
        let rating = |i: usize| {
            let s = standings.bots.iter().find(|b| b.bot == self.members[i].name);
            let elo = s.map(|s| s.elo).filter(|e| e.is_finite()).unwrap_or(0.0);
            let se = s.map(|s| s.elo_margin / 1.96).filter(|e| e.is_finite()).unwrap_or(400.0);
            (elo, se)
        };
        let mut ranked: Vec<usize> = active.to_vec();
        ranked.sort_by(|&a, &b| rating(b).0.total_cmp(&rating(a).0).then(a.cmp(&b)));
        let mut candidates: Vec<((usize, usize), f64)> = Vec::new();
        for (at, &a) in ranked.iter().enumerate() {
            if let Some(&b) = ranked[at + 1..].iter().find(|&&b| can_meet(a, b)) {
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
        for (pair, w) in &candidates {
            if x < *w {
                return Some(*pair);
            }
            x -= w;
        }
        candidates.last().map(|c| c.0)
    }
}
