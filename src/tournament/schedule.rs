//! The schedule: which bots meet, in which seats, on which map, with which seed — as a pure
//! function of the validated arena and a match id.
//!
//! Nothing here depends on threads or timing, so a match id names the same match at any
//! concurrency, in every shard, and after a resume. The schedule is never materialised: match `id`
//! is computed on demand, so memory does not grow with the number of matches.
//!
//! Shape: game `k` (`0..games_per_pairing`) of every pairing is played on map `k mod maps` with
//! seed `game_seed(master, k)`, once in each seat order the bots' roles allow. In two-seat games
//! the seat orders are the role swap; with more seats they are the rotations of the group, so every
//! bot sits in every seat once.
//!
//! Shards are dealt from another order of the same matches (see [`Schedule::deal_position`]):
//! seat order by seat order of every pairing, and within one the games map by map, every `N`th to
//! the same shard. So a shard plays every pairing, seat order and map in proportion — each cell
//! of those three `floor` or `ceil` of the whole's count over `N` — and its results are a fair
//! sample of the whole, whatever `N` and the number of pairings share.
//!
//! The schedule sees only what decides the pairings ([`Plan`]), not the arena file: the arena's
//! validation asks the schedule whether anything can be played, so the dependency runs one way,
//! config → schedule.

use serde::Serialize;

use crate::seed::game_seed;

/// How bots are paired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every group of bots (every pair, in two-seat games) plays.
    RoundRobin,
    /// The candidate (a bot index) plays every group of the others; the others never meet.
    Gauntlet { candidate: usize },
}

/// What decides the schedule: the format, the game's roles, the roles each bot plays, the
/// number of games per pairing and of maps, and the master seed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan<'a> {
    pub format: &'a Format,
    /// The game's roles, in seat order.
    pub roles: &'a [String],
    /// The roles each bot plays.
    pub bot_roles: &'a [Vec<String>],
    pub games_per_pairing: u64,
    pub maps: usize,
    pub seed: u64,
}

/// A group of bots that meet, and the seat orders it is played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pairing {
    /// The bots (indices into the arena's bots), in the order the label lists them.
    pub bots: Vec<usize>,
    /// Each seat order: the bot of every seat.
    pub orders: Vec<Vec<usize>>,
}

/// One planned match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Planned {
    /// The stable match id: `0..Schedule::total()`.
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

/// A deterministic slice of the schedule: shard `index` (1-based) of `count` takes every
/// `count`th match of the deal ([`Schedule::deal_position`] `mod count == index - 1`), so every
/// shard plays every pairing, seat order and map in proportion.
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
}

impl Schedule {
    pub(crate) fn new(plan: Plan<'_>) -> Schedule {
        let seats = plan.roles.len();
        let bots = plan.bot_roles.len();
        let groups: Vec<Vec<usize>> = match *plan.format {
            Format::RoundRobin => combinations(&(0..bots).collect::<Vec<_>>(), seats),
            Format::Gauntlet { candidate } => {
                let field: Vec<usize> = (0..bots).filter(|&b| b != candidate).collect();
                combinations(&field, seats.saturating_sub(1))
                    .into_iter()
                    .map(|rest| std::iter::once(candidate).chain(rest).collect())
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
                pairings.push(Pairing { bots: group, orders });
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
        }
    }

    pub(crate) fn pairings(&self) -> &[Pairing] {
        &self.pairings
    }

    /// The number of planned matches.
    pub(crate) fn total(&self) -> u64 {
        self.games * self.per_game
    }

    /// Match `id` (`id < total()`).
    pub(crate) fn get(&self, id: u64) -> Planned {
        assert!(id < self.total(), "match id {id} is beyond the schedule");
        let game = id / self.per_game;
        let within = id % self.per_game;
        let pairing = self.offsets.partition_point(|&o| o <= within) - 1;
        let order = (within - self.offsets[pairing]) as usize;
        Planned {
            id,
            game,
            pairing,
            seats: self.pairings[pairing].orders[order].clone(),
            map: (game % self.maps as u64) as usize,
            seed: game_seed(self.master_seed, game),
        }
    }

    /// Where match `id` stands in the deal the shards are dealt from: the seat orders of every
    /// pairing one after the other (`within`, the match's place in its game), and in each the
    /// games map by map (all the games on map 0, then those on map 1, ...). Shard `K` of `N`
    /// takes the positions `K - 1`, `K - 1 + N`, ...: for every seat order that is every `N`th game
    /// of a run of games grouped by map, so each (pairing, seat order, map) cell is split as
    /// evenly as whole numbers allow. A bijection of `0..total()`.
    pub(crate) fn deal_position(&self, id: u64) -> u64 {
        let (game, within) = (id / self.per_game, id % self.per_game);
        within * self.games + self.game_rank(game)
    }

    /// The match at a position of the deal (the inverse of [`Schedule::deal_position`]).
    pub(crate) fn at_deal_position(&self, position: u64) -> u64 {
        let (within, rank) = (position / self.games, position % self.games);
        self.game_at_rank(rank) * self.per_game + within
    }

    /// Game `game`'s place when the games are listed map by map: map `m` holds the games
    /// `m, m + maps, m + 2 maps, ...`; with `games = q maps + r`, the first `r` maps hold `q + 1`
    /// games each and the others `q`.
    fn game_rank(&self, game: u64) -> u64 {
        let maps = self.maps.max(1) as u64;
        let (q, r) = (self.games / maps, self.games % maps);
        let (map, cycle) = (game % maps, game / maps);
        map * q + map.min(r) + cycle
    }

    fn game_at_rank(&self, rank: u64) -> u64 {
        let maps = self.maps.max(1) as u64;
        let (q, r) = (self.games / maps, self.games % maps);
        let (map, cycle) = if rank < r * (q + 1) {
            (rank / (q + 1), rank % (q + 1))
        } else {
            let rest = rank - r * (q + 1);
            (r + rest / q, rest % q)
        };
        map + cycle * maps
    }

    /// Whether `shard` plays match `id`.
    pub(crate) fn shard_holds(&self, shard: Shard, id: u64) -> bool {
        shard.is_all() || self.deal_position(id) % shard.count == shard.index - 1
    }

    /// The number of matches `shard` plays.
    pub(crate) fn shard_len(&self, shard: Shard) -> u64 {
        // The positions `p < total` with `p mod count == index - 1`.
        (self.total() + shard.count - shard.index) / shard.count
    }

    /// The `j`th match `shard` plays (`j < shard_len`), else `None`. A whole run plays the ids
    /// in order, game by game; a shard its share of the deal in order.
    pub(crate) fn shard_match(&self, shard: Shard, j: u64) -> Option<u64> {
        if shard.is_all() {
            return (j < self.total()).then_some(j);
        }
        let position = j.checked_mul(shard.count)?.checked_add(shard.index - 1)?;
        (position < self.total()).then(|| self.at_deal_position(position))
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
    let schedule = Schedule::new(Plan {
        format: &Format::Gauntlet { candidate },
        roles,
        bot_roles: &bot_roles,
        games_per_pairing: 1,
        maps: 1,
        seed: 0,
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

    /// A schedule of three maps and master seed 11.
    fn schedule(
        format: Format,
        roles: &[String],
        bot_roles: &[Vec<String>],
        games: u64,
    ) -> Schedule {
        Schedule::new(Plan {
            format: &format,
            roles,
            bot_roles,
            games_per_pairing: games,
            maps: 3,
            seed: 11,
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
        assert_eq!(last.seed, game_seed(11, 3));
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
        let s = schedule(Format::Gauntlet { candidate: 0 }, &skynet_roles(), &[g, v.clone(), v], 2);
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

    /// Every shard's matches, by walking `shard_match` as a run does.
    fn shard_ids(s: &Schedule, shard: Shard) -> Vec<u64> {
        let ids: Vec<u64> = (0..).map_while(|j| s.shard_match(shard, j)).collect();
        assert_eq!(ids.len() as u64, s.shard_len(shard), "shard {shard}");
        assert!(ids.iter().all(|&id| s.shard_holds(shard, id)), "shard {shard}");
        ids
    }

    /// The league of `arenas/league.toml`: Skynet, five bots (two viruses only, one agent only,
    /// two both), round robin.
    fn league(games: u64, maps: usize) -> Schedule {
        let (v, a, both) = (roles(&["virus"]), roles(&["agent"]), skynet_roles());
        Schedule::new(Plan {
            format: &Format::RoundRobin,
            roles: &skynet_roles(),
            bot_roles: &[v.clone(), both.clone(), v, both, a],
            games_per_pairing: games,
            maps,
            seed: 7,
        })
    }

    /// Checks that the shards of `s` partition its matches and that each shard holds every
    /// (pairing, seat order, map) cell in proportion: `floor` or `ceil` of the whole's count
    /// over the number of shards; and the shards' sizes differ by at most one.
    fn assert_balanced(s: &Schedule, count: u64) {
        let cell = |id: u64| {
            let m = s.get(id);
            (m.pairing, m.seats.clone(), m.map)
        };
        let mut whole: BTreeMap<_, u64> = BTreeMap::new();
        for id in 0..s.total() {
            *whole.entry(cell(id)).or_default() += 1;
        }
        let mut owner = vec![0u64; s.total() as usize];
        for index in 1..=count {
            let shard = Shard { index, count };
            let ids = shard_ids(s, shard);
            let expected = s.total() / count;
            assert!(ids.len() as u64 == expected || ids.len() as u64 == expected + 1, "{shard}");
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
    fn the_deal_is_a_bijection() {
        for (games, maps) in [(400, 400), (7, 3), (3, 7), (10, 1), (1, 5), (12, 4)] {
            let s = league(games, maps);
            let mut seen = vec![false; s.total() as usize];
            for id in 0..s.total() {
                let p = s.deal_position(id);
                assert_eq!(s.at_deal_position(p), id, "games {games}, maps {maps}");
                assert!(!std::mem::replace(&mut seen[p as usize], true));
            }
        }
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
                if gauntlet { Format::Gauntlet { candidate: 0 } } else { Format::RoundRobin };
            let s = Schedule::new(Plan {
                format: &format,
                roles: &roles,
                bot_roles: &bot_roles,
                games_per_pairing: games,
                maps,
                seed: 3,
            });
            assert_balanced(&s, count);
        }
    }

    #[test]
    fn a_whole_run_plays_the_ids_in_order() {
        let s = league(3, 2);
        let all: Vec<u64> = (0..).map_while(|j| s.shard_match(Shard::all(), j)).collect();
        assert_eq!(all, (0..s.total()).collect::<Vec<_>>());
        assert!(s.shard_match(Shard { index: 16, count: 16 }, u64::MAX).is_none());
    }

    #[test]
    fn shard_syntax() {
        for bad in ["0/3", "4/3", "1/0", "x", "1-3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
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
