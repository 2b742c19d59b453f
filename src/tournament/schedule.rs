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

use super::config::{Arena, Format};
use crate::seed::game_seed;

/// A group of bots that meet, and the seat orders it is played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The bots (indices into the arena's bots), in the order the label lists them.
    pub bots: Vec<usize>,
    /// Each seat order: the bot of every seat.
    pub orders: Vec<Vec<usize>>,
}

/// One planned match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
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

/// A deterministic slice of the schedule: shard `index` (1-based) of `count` takes the ids
/// `id mod count == index - 1`, which spreads every pairing evenly over the shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub fn all() -> Shard {
        Shard { index: 1, count: 1 }
    }

    pub fn contains(&self, id: u64) -> bool {
        id % self.count == self.index - 1
    }

    pub fn is_all(&self) -> bool {
        self.count == 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("shard `{s}` is not K/N with 1 <= K <= N");
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
pub struct Schedule {
    pairings: Vec<Pairing>,
    /// `offsets[p]`: the number of matches of one game before pairing `p`'s.
    offsets: Vec<u64>,
    per_game: u64,
    games: u64,
    maps: usize,
    master_seed: u64,
}

impl Schedule {
    pub fn new(arena: &Arena) -> Schedule {
        let seats = arena.roles.len();
        let groups: Vec<Vec<usize>> = match arena.format {
            Format::RoundRobin => combinations(&(0..arena.bots.len()).collect::<Vec<_>>(), seats),
            Format::Gauntlet { candidate } => {
                let field: Vec<usize> = (0..arena.bots.len()).filter(|&b| b != candidate).collect();
                combinations(&field, seats.saturating_sub(1))
                    .into_iter()
                    .map(|rest| std::iter::once(candidate).chain(rest).collect())
                    .collect()
            }
        };
        let plays = |bot: usize, seat: usize| arena.bots[bot].roles.contains(&arena.roles[seat]);
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
            games: arena.games_per_pairing,
            maps: arena.maps.len(),
            master_seed: arena.seed,
        }
    }

    pub fn pairings(&self) -> &[Pairing] {
        &self.pairings
    }

    /// The number of planned matches.
    pub fn total(&self) -> u64 {
        self.games * self.per_game
    }

    /// Match `id` (`id < total()`).
    pub fn get(&self, id: u64) -> Planned {
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

    /// The label of a pairing: its bots' names joined by ` vs `.
    pub fn label(&self, arena: &Arena, pairing: usize) -> String {
        let names: Vec<&str> =
            self.pairings[pairing].bots.iter().map(|&b| arena.bots[b].name.as_str()).collect();
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::tournament::config::{ArenaBot, Files};

    fn arena(extra: &str, bots: &str) -> Arena {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.txt"), "# AGENT_START 0\n4 4 1\n0 1\n0 2\n1 3\n2 3\n3\n")
            .unwrap();
        let text = format!(
            "name = \"t\"\ngame = \"skynet\"\nseed = 11\n{extra}\n[maps]\nfiles = [\"m.txt\", \"m.txt\", \"m.txt\"]\n{bots}"
        );
        Arena::parse(&text, Path::new("t.toml"), &Files::Disk(dir.path().to_path_buf())).unwrap()
    }

    fn bot(name: &str, roles: &str) -> String {
        format!("[[bots]]\nname = \"{name}\"\nspec = \"random\"\nroles = {roles}\n")
    }

    #[test]
    fn round_robin_swaps_roles_on_the_same_map_and_seed() {
        let both = "[\"virus\", \"agent\"]";
        let a =
            arena("games_per_pairing = 4", &(bot("a", both) + &bot("b", both) + &bot("c", both)));
        let s = Schedule::new(&a);
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
        let v = "[\"virus\"]";
        let g = "[\"agent\"]";
        let a = arena(
            "format = \"gauntlet\"\ncandidate = \"agent\"\ngames_per_pairing = 2",
            &(bot("agent", g) + &bot("v1", v) + &bot("v2", v)),
        );
        let s = Schedule::new(&a);
        assert_eq!(s.pairings().len(), 2);
        assert!(s.pairings().iter().all(|p| p.orders.len() == 1 && p.bots[0] == 0));
        assert_eq!(s.total(), 4);
        for id in 0..s.total() {
            assert_eq!(s.get(id).seats[1], 0, "the agent-only bot always sits in the agent seat");
        }
        assert_eq!(s.label(&a, 1), "agent vs v2");
    }

    #[test]
    fn seeds_depend_only_on_the_master_seed_and_the_game() {
        let both = "[\"virus\", \"agent\"]";
        let small = arena("games_per_pairing = 3", &(bot("a", both) + &bot("b", both)));
        let big =
            arena("games_per_pairing = 3", &(bot("a", both) + &bot("b", both) + &bot("c", both)));
        let (s, b) = (Schedule::new(&small), Schedule::new(&big));
        assert_eq!(s.get(2).seed, b.get(6).seed, "game 1 has one seed whatever the field");
        assert_ne!(s.get(0).seed, s.get(2).seed);
    }

    #[test]
    fn with_three_seats_every_bot_sits_in_every_seat() {
        let mut a = arena(
            "games_per_pairing = 2",
            &(bot("a", "[\"virus\", \"agent\"]") + &bot("b", "[\"virus\", \"agent\"]")),
        );
        // A made-up three-seat game with four bots: the schedule only needs roles and bots.
        a.roles = vec!["p1".into(), "p2".into(), "p3".into()];
        let template = a.bots[0].clone();
        a.bots = ["w", "x", "y", "z"]
            .iter()
            .map(|n| ArenaBot { name: n.to_string(), roles: a.roles.clone(), ..template.clone() })
            .collect();
        let s = Schedule::new(&a);
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

    #[test]
    fn shards_partition_the_ids() {
        let shards: Vec<Shard> = ["1/3", "2/3", "3/3"].iter().map(|s| s.parse().unwrap()).collect();
        for id in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1);
        }
        for bad in ["0/3", "4/3", "1/0", "x", "1-3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
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
