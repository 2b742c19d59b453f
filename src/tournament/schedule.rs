//! The schedule: which bots meet, in which seats, on which map, with which seed — as a pure
//! function of the validated arena and a match id.
//!
//! Nothing here depends on threads or timing, so a match id names the same match at any
//! concurrency, in every shard, and after a resume. The schedule is never materialised: match `id`
//! is computed on demand, so memory does not grow with the number of matches.
//!
//! Shape: game `k` (`0..games_per_pairing`) of every pairing is played on map `k mod maps` with
//! seed `game_seed(key, master, k)` (the results folder's secret key), once in each seat order the bots' roles allow. In two-seat games
//! the seat orders are the role swap; with more seats they are the rotations of the group, so every
//! bot sits in every seat once.
//!
//! A match's identity is its game number and the bots of its seats, by name; its id
//! ([`match_id`]), map and seed are drawn from that identity alone, never from a bot's place in
//! the list, so adding, removing or reordering bots leaves every other match as it was (what lets
//! a results folder grow with its arena: `super::update`). The schedule numbers its matches
//! `0..total()` for the run's own bookkeeping (an *index*, one bit each in memory); the index is
//! never written anywhere.
//!
//! Shards are dealt by identity too ([`Schedule::shard_holds`]): a seat order's games, listed map
//! by map, go round the shards from an offset drawn from the seat order's names, so each shard
//! plays every seat order of every pairing, on every map, in proportion, and a bot added later
//! leaves every match in the shard it was in.
//!
//! The schedule sees only what decides the pairings ([`Plan`]), not the arena file: the arena's
//! validation asks the schedule whether anything can be played, so the dependency runs one way,
//! config → schedule.

use serde::Serialize;

use crate::seed::{SeedKey, game_seed, match_id, mix64};

/// How bots are paired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every group of bots (every pair, in two-seat games) plays.
    RoundRobin,
    /// Each candidate (a bot index, in increasing order) plays every group of the others; the
    /// others never meet, nor do the candidates (fastchess's `-seeds`, cutechess's gauntlet of
    /// several engines).
    Gauntlet { candidates: Vec<usize> },
}

/// What decides the schedule: the format, the game's roles, the roles each bot plays, the
/// number of games per pairing and of maps, the master seed and the key the seeds are drawn with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan<'a> {
    pub format: &'a Format,
    /// The bots' names: a match's id is drawn from them.
    pub names: &'a [String],
    /// The game's roles, in seat order.
    pub roles: &'a [String],
    /// The roles each bot plays.
    pub bot_roles: &'a [Vec<String>],
    pub games_per_pairing: u64,
    pub maps: usize,
    pub seed: u64,
    pub key: &'a SeedKey,
}

/// A group of bots that meet, and the seat orders it is played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pairing {
    /// The bots (indices into the arena's bots), in the order the label lists them.
    pub bots: Vec<usize>,
    /// Each seat order: the bot of every seat.
    pub orders: Vec<Vec<usize>>,
    /// Each seat order's offset in the deal of the shards, drawn from its bots' names.
    deal: Vec<u64>,
}

/// One planned match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Planned {
    /// The match id: [`match_id`] of its game and seats' names (a tournament's), or the
    /// test's own numbering (an SPRT's).
    pub id: u64,
    /// The game number `k`: the matches of one game share the map and the seed.
    pub game: u64,
    pub pairing: usize,
    /// The bot of each seat.
    pub seats: Vec<usize>,
    /// An index into the arena's maps.
    pub map: usize,
    pub seed: u64,
}

/// A deterministic slice of the schedule: shard `index` (1-based) of `count`; which matches it
/// takes is [`Schedule::shard_holds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub fn all() -> Shard {
        Shard { index: 1, count: 1 }
    }

    pub fn is_all(&self) -> bool {
        self.count == 1
    }
}

/// A shard that is not `K/N` with `1 <= K <= N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("shard `{0}` is not K/N with 1 <= K <= N")]
pub struct BadShard(pub String);

impl std::str::FromStr for Shard {
    type Err = BadShard;

    fn from_str(s: &str) -> Result<Shard, BadShard> {
        let bad = || BadShard(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The arena's whole schedule, computed match by match.
#[derive(Clone, Debug)]
pub(crate) struct Schedule {
    pairings: Vec<Pairing>,
    /// `offsets[p]`: the number of matches of one game before pairing `p`'s.
    offsets: Vec<u64>,
    per_game: u64,
    games: u64,
    maps: usize,
    master_seed: u64,
    key: SeedKey,
    names: Vec<String>,
    /// A gauntlet's candidates: one first in each of its pairings.
    candidates: Vec<usize>,
}

impl Schedule {
    pub(crate) fn new(plan: Plan<'_>) -> Schedule {
        let seats = plan.roles.len();
        let bots = plan.bot_roles.len();
        let groups: Vec<Vec<usize>> = match plan.format {
            Format::RoundRobin => combinations(&(0..bots).collect::<Vec<_>>(), seats),
            Format::Gauntlet { candidates } => {
                let field: Vec<usize> = (0..bots).filter(|b| !candidates.contains(b)).collect();
                let rests = combinations(&field, seats.saturating_sub(1));
                candidates
                    .iter()
                    .flat_map(|&c| rests.iter().map(move |rest| [&[c][..], rest].concat()))
                    .collect()
            }
        };
        let plays = |bot: usize, seat: usize| plan.bot_roles[bot].contains(&plan.roles[seat]);
        let mut pairings = Vec::new();
        for group in groups {
            let orders: Vec<Vec<usize>> = (0..group.len())
                .map(|r| (0..seats).map(|s| group[(s + r) % group.len()]).collect::<Vec<usize>>())
                .filter(|order| order.iter().enumerate().all(|(seat, &bot)| plays(bot, seat)))
                .collect();
            if !orders.is_empty() {
                let deal = orders
                    .iter()
                    .map(|order| {
                        let names: Vec<&str> =
                            order.iter().map(|&b| plan.names[b].as_str()).collect();
                        mix64(match_id(0, &names))
                    })
                    .collect();
                pairings.push(Pairing { bots: group, orders, deal });
            }
        }
        let mut offsets = Vec::with_capacity(pairings.len());
        let mut per_game = 0u64;
        for p in &pairings {
            offsets.push(per_game);
            per_game += p.orders.len() as u64;
        }
        Schedule {
            pairings,
            offsets,
            per_game,
            games: plan.games_per_pairing,
            maps: plan.maps,
            master_seed: plan.seed,
            key: plan.key.clone(),
            names: plan.names.to_vec(),
            candidates: match plan.format {
                Format::RoundRobin => Vec::new(),
                Format::Gauntlet { candidates } => candidates.clone(),
            },
        }
    }

    pub(crate) fn pairings(&self) -> &[Pairing] {
        &self.pairings
    }

    /// The number of planned matches.
    pub(crate) fn total(&self) -> u64 {
        self.games * self.per_game
    }

    /// The game, pairing and seat order of the match at `index`.
    fn place(&self, index: u64) -> (u64, usize, usize) {
        assert!(index < self.total(), "match index {index} is beyond the schedule");
        let game = index / self.per_game;
        let within = index % self.per_game;
        let pairing = self.offsets.partition_point(|&o| o <= within) - 1;
        (game, pairing, (within - self.offsets[pairing]) as usize)
    }

    /// The match at `index` (`index < total()`).
    pub(crate) fn get(&self, index: u64) -> Planned {
        let (game, pairing, order) = self.place(index);
        let seats = self.pairings[pairing].orders[order].clone();
        let names: Vec<&str> = seats.iter().map(|&b| self.names[b].as_str()).collect();
        Planned {
            id: match_id(game, &names),
            game,
            pairing,
            map: (game % self.maps as u64) as usize,
            seed: game_seed(&self.key, self.master_seed, game),
            seats,
        }
    }

    /// The index of the match of game `game` with these bots in its seats (by name), if the
    /// schedule plans it.
    pub(crate) fn find(&self, game: u64, seat_bots: &[&str]) -> Option<u64> {
        if game >= self.games {
            return None;
        }
        let seats: Vec<usize> = seat_bots
            .iter()
            .map(|name| self.names.iter().position(|n| n == name))
            .collect::<Option<_>>()?;
        // Pairings are listed in lexicographic order of their bots (a gauntlet's candidate
        // first, then the others in order), so the group's place is found by bisection.
        let mut group = seats.clone();
        group.sort_unstable();
        if !self.candidates.is_empty() {
            let at = group.iter().position(|b| self.candidates.contains(b))?;
            let candidate = group.remove(at);
            group.insert(0, candidate);
        }
        let pairing = self.pairings.binary_search_by(|p| p.bots.cmp(&group)).ok()?;
        let order = self.pairings[pairing].orders.iter().position(|o| *o == seats)?;
        Some(game * self.per_game + self.offsets[pairing] + order as u64)
    }

    /// Whether `shard` plays the match at `index`. Each seat order's games, listed map by map
    /// (its games on map 0, then those on map 1, ...: [`Schedule::game_rank`]), are dealt to
    /// the shards in turn from an offset drawn from the seat order's names:
    /// `(offset + rank) mod count`. So a shard plays every seat order and every (seat order,
    /// map) in proportion, each `floor` or `ceil` of the whole's count over the shards, and a
    /// match's shard depends on no other seat order: adding a bot moves none. (A change of
    /// `games_per_pairing` or of the maps deals again.)
    pub(crate) fn shard_holds(&self, shard: Shard, index: u64) -> bool {
        if shard.is_all() {
            return true;
        }
        let (game, pairing, order) = self.place(index);
        let offset = self.pairings[pairing].deal[order] % shard.count;
        (offset + self.game_rank(game) % shard.count) % shard.count == shard.index - 1
    }

    /// Game `game`'s place when a seat order's games are listed map by map: map `m` holds the
    /// games `m, m + maps, m + 2 maps, ...`; with `games = q maps + r`, the first `r` maps hold
    /// `q + 1` games each and the others `q`.
    fn game_rank(&self, game: u64) -> u64 {
        let maps = self.maps.max(1) as u64;
        let (q, r) = (self.games / maps, self.games % maps);
        let (map, cycle) = (game % maps, game / maps);
        map * q + map.min(r) + cycle
    }

    /// The number of matches `shard` plays.
    pub(crate) fn shard_len(&self, shard: Shard) -> u64 {
        if shard.is_all() {
            return self.total();
        }
        let n = shard.count;
        let mut len = 0;
        for pairing in &self.pairings {
            for &offset in &pairing.deal {
                // The ranks `r < games` with `(offset + r) mod n == index - 1`.
                let first = (shard.index - 1 + n - offset % n) % n;
                if first < self.games {
                    len += (self.games - 1 - first) / n + 1;
                }
            }
        }
        len
    }

    /// The label of a pairing: its bots' names (`names[bot]`) joined by ` vs `.
    pub(crate) fn label(&self, names: &[String], pairing: usize) -> String {
        let names: Vec<&str> =
            self.pairings[pairing].bots.iter().map(|&b| names[b].as_str()).collect();
        names.join(" vs ")
    }
}

/// All `k`-element subsets of `items`, in lexicographic order of positions.
fn combinations(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(k);
    fn go(
        items: &[usize],
        k: usize,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            if items.len() - i < k - cur.len() {
                break;
            }
            cur.push(items[i]);
            go(items, k, i + 1, cur, out);
            cur.pop();
        }
    }
    go(items, k, 0, &mut current, &mut out);
    out
}

/// Every seat assignment of the candidate and the opponents that a paired test plays: the
/// rotations of every group of opponents the candidate's and their roles allow (`bot_roles`: the
/// roles of every bot), as a gauntlet of the candidate would play them.
pub(crate) fn paired_configs(
    candidate: usize,
    opponents: &[usize],
    bot_roles: &[Vec<String>],
    roles: &[String],
) -> Vec<Vec<usize>> {
    let bot_roles: Vec<Vec<String>> = bot_roles
        .iter()
        .enumerate()
        .map(|(i, r)| if i == candidate || opponents.contains(&i) { r.clone() } else { Vec::new() })
        .collect();
    let names: Vec<String> = (0..bot_roles.len()).map(|b| b.to_string()).collect();
    let schedule = Schedule::new(Plan {
        format: &Format::Gauntlet { candidates: vec![candidate] },
        names: &names,
        roles,
        bot_roles: &bot_roles,
        games_per_pairing: 1,
        maps: 1,
        seed: 0,
        // Only the seat orders are asked.
        key: &SeedKey::PUBLIC,
    });
    schedule.pairings().iter().flat_map(|p| p.orders.iter().cloned()).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A two-seat game's roles, as Skynet's.
    fn skynet_roles() -> Vec<String> {
        vec!["virus".into(), "agent".into()]
    }

    fn roles(names: &[&str]) -> Vec<String> {
        names.iter().map(std::string::ToString::to_string).collect()
    }

    /// Bots named `b0`, `b1`, ...
    fn names(n: usize) -> Vec<String> {
        (0..n).map(|b| format!("b{b}")).collect()
    }

    /// A schedule of three maps and master seed 11.
    fn schedule(
        format: Format,
        roles: &[String],
        bot_roles: &[Vec<String>],
        games: u64,
    ) -> Schedule {
        Schedule::new(Plan {
            format: &format,
            names: &names(bot_roles.len()),
            roles,
            bot_roles,
            games_per_pairing: games,
            maps: 3,
            seed: 11,
            key: &SeedKey::PUBLIC,
        })
    }

    #[test]
    fn round_robin_swaps_roles_on_the_same_map_and_seed() {
        let both = skynet_roles();
        let s = schedule(Format::RoundRobin, &both, &[both.clone(), both.clone(), both.clone()], 4);
        assert_eq!(s.pairings().len(), 3);
        assert_eq!(s.total(), 4 * 3 * 2);
        let m0 = s.get(0);
        let m1 = s.get(1);
        assert_eq!((m0.pairing, m1.pairing), (0, 0));
        assert_eq!(m0.seats, vec![0, 1]);
        assert_eq!(m1.seats, vec![1, 0]);
        assert_eq!((m0.seed, m0.map), (m1.seed, m1.map));
        let last = s.get(s.total() - 1);
        assert_eq!((last.game, last.map), (3, 0));
        assert_eq!(last.seed, game_seed(&SeedKey::PUBLIC, 11, 3));
        // Every bot plays every role equally often.
        let mut seat_count = [[0; 2]; 3];
        for id in 0..s.total() {
            for (seat, &b) in s.get(id).seats.iter().enumerate() {
                seat_count[b][seat] += 1;
            }
        }
        assert!(seat_count.iter().all(|c| c[0] == 8 && c[1] == 8), "{seat_count:?}");
    }

    #[test]
    fn one_role_bots_meet_only_where_the_roles_fit() {
        let (v, g) = (roles(&["virus"]), roles(&["agent"]));
        let s = schedule(
            Format::Gauntlet { candidates: vec![0] },
            &skynet_roles(),
            &[g, v.clone(), v],
            2,
        );
        assert_eq!(s.pairings().len(), 2);
        assert!(s.pairings().iter().all(|p| p.orders.len() == 1 && p.bots[0] == 0));
        assert_eq!(s.total(), 4);
        for id in 0..s.total() {
            assert_eq!(s.get(id).seats[1], 0, "the agent-only bot always sits in the agent seat");
        }
        assert_eq!(s.label(&roles(&["agent", "v1", "v2"]), 1), "agent vs v2");
    }

    #[test]
    fn seeds_depend_only_on_the_master_seed_and_the_game() {
        let both = skynet_roles();
        let s = schedule(Format::RoundRobin, &both, &[both.clone(), both.clone()], 3);
        let b = schedule(Format::RoundRobin, &both, &[both.clone(), both.clone(), both.clone()], 3);
        assert_eq!(s.get(2).seed, b.get(6).seed, "game 1 has one seed whatever the field");
        assert_ne!(s.get(0).seed, s.get(2).seed);
    }

    #[test]
    fn a_gauntlet_of_several_candidates_pits_each_against_the_field_only() {
        // Candidates b1 and b3 of five bots, all playing both roles: each meets b0, b2 and b4
        // in both seat orders, and never the other candidate.
        let both = skynet_roles();
        let s =
            schedule(Format::Gauntlet { candidates: vec![1, 3] }, &both, &vec![both.clone(); 5], 2);
        let groups: Vec<Vec<usize>> = s.pairings().iter().map(|p| p.bots.clone()).collect();
        assert_eq!(
            groups,
            [[1, 0], [1, 2], [1, 4], [3, 0], [3, 2], [3, 4]].map(|g| g.to_vec()).to_vec()
        );
        assert_eq!(s.total(), 2 * 6 * 2);
        for id in 0..s.total() {
            let m = s.get(id);
            let names: Vec<String> = m.seats.iter().map(|&b| format!("b{b}")).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            assert_eq!(s.find(m.game, &names), Some(id), "the match is found by its bots");
        }
        assert_eq!(s.find(0, &["b1", "b3"]), None, "candidates never meet");
    }

    #[test]
    fn with_three_seats_every_bot_sits_in_every_seat() {
        // A made-up three-seat game with four bots: the schedule only needs roles and bots.
        let three = roles(&["p1", "p2", "p3"]);
        let s = schedule(Format::RoundRobin, &three, &vec![three.clone(); 4], 2);
        assert_eq!(s.pairings().len(), 4, "C(4, 3) groups");
        assert_eq!(s.total(), 2 * 4 * 3, "3 rotations per group");
        let mut seat_count = [[0; 3]; 4];
        for id in 0..s.total() {
            let m = s.get(id);
            let mut sorted = m.seats.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 3, "three different bots");
            for (seat, &b) in m.seats.iter().enumerate() {
                seat_count[b][seat] += 1;
            }
        }
        assert!(seat_count.iter().all(|c| *c == [6, 6, 6]), "{seat_count:?}");
    }

    /// A Skynet round robin of `bots` bots (two viruses only, one agent only, the rest both).
    fn pool(bots: usize, games: u64, maps: usize) -> Schedule {
        let (v, a, both) = (roles(&["virus"]), roles(&["agent"]), skynet_roles());
        let mut bot_roles = vec![v.clone(), both.clone(), v, a];
        bot_roles.extend(std::iter::repeat_n(both, bots.saturating_sub(4)));
        bot_roles.truncate(bots);
        Schedule::new(Plan {
            format: &Format::RoundRobin,
            names: &names(bots),
            roles: &skynet_roles(),
            bot_roles: &bot_roles,
            games_per_pairing: games,
            maps,
            seed: 7,
            key: &SeedKey::PUBLIC,
        })
    }

    /// The league of `arenas/league.toml`: Skynet, five bots (two viruses only, one agent only,
    /// two both), round robin.
    fn league(games: u64, maps: usize) -> Schedule {
        let (v, a, both) = (roles(&["virus"]), roles(&["agent"]), skynet_roles());
        Schedule::new(Plan {
            format: &Format::RoundRobin,
            names: &names(5),
            roles: &skynet_roles(),
            bot_roles: &[v.clone(), both.clone(), v, both, a],
            games_per_pairing: games,
            maps,
            seed: 7,
            key: &SeedKey::PUBLIC,
        })
    }

    /// Every shard's matches (schedule indices).
    fn shard_ids(s: &Schedule, shard: Shard) -> Vec<u64> {
        let ids: Vec<u64> = (0..s.total()).filter(|&i| s.shard_holds(shard, i)).collect();
        assert_eq!(ids.len() as u64, s.shard_len(shard), "shard {shard}");
        ids
    }

    /// Checks that the shards of `s` partition its matches and that each shard holds every
    /// (pairing, seat order, map) cell in proportion: `floor` or `ceil` of the whole's count
    /// over the number of shards; and a shard's size is within one match per seat order of its
    /// share (the deal starts per seat order at an offset drawn from its names, so that adding a
    /// bot moves no match to another shard).
    fn assert_balanced(s: &Schedule, count: u64) {
        let cell = |id: u64| {
            let m = s.get(id);
            (m.pairing, m.seats.clone(), m.map)
        };
        let mut whole: BTreeMap<_, u64> = BTreeMap::new();
        for id in 0..s.total() {
            *whole.entry(cell(id)).or_default() += 1;
        }
        let orders: u64 = s.pairings().iter().map(|p| p.orders.len() as u64).sum();
        let mut owner = vec![0u64; s.total() as usize];
        for index in 1..=count {
            let shard = Shard { index, count };
            let ids = shard_ids(s, shard);
            let share = s.total() as f64 / count as f64;
            assert!((ids.len() as f64 - share).abs() <= orders as f64, "{shard}: {}", ids.len());
            let mut cells: BTreeMap<_, u64> = BTreeMap::new();
            for &id in &ids {
                owner[id as usize] += 1;
                *cells.entry(cell(id)).or_default() += 1;
            }
            for (key, &n) in &whole {
                let got = cells.get(key).copied().unwrap_or(0);
                assert!(
                    got == n / count || got == n.div_ceil(count),
                    "shard {shard}: cell {key:?} has {got} of {n} matches"
                );
            }
        }
        assert!(owner.iter().all(|&n| n == 1), "every match in exactly one shard");
    }

    #[test]
    fn every_shard_of_the_league_plays_every_pairing_seat_order_and_map_in_proportion() {
        // The case that went wrong when shard K took the ids `id mod 16 = K - 1`: ten matches per
        // game, so shard 1 only ever played the even ones (no `solver` vs `random`).
        let s = league(400, 400);
        assert_eq!((s.total(), s.pairings().len()), (4000, 9));
        assert_balanced(&s, 16);
        for index in 1..=16 {
            let ids = shard_ids(&s, Shard { index, count: 16 });
            let mut orders: Vec<(usize, Vec<usize>)> =
                ids.iter().map(|&id| (s.get(id).pairing, s.get(id).seats)).collect();
            orders.sort();
            orders.dedup();
            assert_eq!(orders.len(), 10, "shard {index}/16 plays all 10 seat orders");
        }
        // Fewer maps than shards and a number of games the shards do not divide.
        assert_balanced(&league(10, 4), 16);
        assert_balanced(&league(7, 3), 2);
        assert_balanced(&pool(6, 30, 5), 4);
        assert_balanced(&pool(6, 1, 1), 3);
    }

    proptest::proptest! {
        #[test]
        fn shards_are_balanced_whatever_the_shape(
            bots in 2usize..6,
            seats in 2usize..4,
            games in 1u64..30,
            maps in 1usize..9,
            count in 1u64..20,
            gauntlet: bool,
        ) {
            let roles: Vec<String> = (0..seats).map(|i| format!("p{i}")).collect();
            let bot_roles = vec![roles.clone(); bots.max(seats)];
            let format =
                if gauntlet { Format::Gauntlet { candidates: vec![0] } } else { Format::RoundRobin };
            let s = Schedule::new(Plan {
                format: &format,
                names: &names(bot_roles.len()),
                roles: &roles,
                bot_roles: &bot_roles,
                games_per_pairing: games,
                maps,
                seed: 3,
                key: &SeedKey::PUBLIC,
            });
            assert_balanced(&s, count);
        }
    }

    #[test]
    fn shard_syntax() {
        for bad in ["0/3", "4/3", "1/0", "x", "1-3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
    }

    #[test]
    fn a_bot_added_leaves_every_other_match_its_id_seed_map_and_shard() {
        let (before, after) = (pool(5, 6, 4), pool(6, 6, 4));
        assert!(after.total() > before.total());
        let shard = Shard { index: 2, count: 3 };
        for i in 0..before.total() {
            let m = before.get(i);
            let names: Vec<String> = m.seats.iter().map(|&b| format!("b{b}")).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            assert_eq!(before.find(m.game, &names), Some(i), "the schedule finds its own match");
            let j = after.find(m.game, &names).expect("still planned");
            let n = after.get(j);
            assert_eq!((n.id, n.seed, n.map, n.game), (m.id, m.seed, m.map, m.game));
            assert_eq!(after.shard_holds(shard, j), before.shard_holds(shard, i));
        }
        assert_eq!(before.find(0, &["b0", "b5"]), None, "a bot the plan does not know");
        assert_eq!(before.find(6, &["b1", "b0"]), None, "a game beyond the plan");
        let ids: std::collections::BTreeSet<u64> =
            (0..after.total()).map(|i| after.get(i).id).collect();
        assert_eq!(ids.len() as u64, after.total(), "ids are distinct");
    }

    #[test]
    fn a_gauntlet_finds_its_matches() {
        let both = skynet_roles();
        let s =
            schedule(Format::Gauntlet { candidates: vec![2] }, &both, &vec![both.clone(); 4], 3);
        for i in 0..s.total() {
            let m = s.get(i);
            let names: Vec<String> = m.seats.iter().map(|&b| format!("b{b}")).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            assert_eq!(s.find(m.game, &names), Some(i));
        }
        assert_eq!(s.find(0, &["b0", "b1"]), None, "the others never meet");
    }

    #[test]
    fn combinations_are_complete() {
        assert_eq!(combinations(&[0, 1, 2, 3], 2).len(), 6);
        assert_eq!(
            combinations(&[0, 1, 2, 3], 3),
            vec![vec![0, 1, 2], vec![0, 1, 3], vec![0, 2, 3], vec![1, 2, 3]]
        );
        assert_eq!(combinations(&[5], 0), vec![Vec::<usize>::new()]);
    }
}
