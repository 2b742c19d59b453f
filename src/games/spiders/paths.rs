//! The paper's polynomial defence on paths (Kulkarni and Pusalkar, "Greedy Spiders", §3.3–3.4),
//! against greedy spiders.
//!
//! Every spider that sees a fly is a threat with a value: its distance to that fly, i.e. how many
//! rounds the defender has left to cut it off. A spider that sees a fly on one side only is in the
//! M array (mono-focused); a spider between two flies is in the D array with its nearer distance,
//! and its farther distance goes to the D' array (once cut off from the nearer fly it turns to the
//! farther one and joins M). Spiders that see no fly are ignored (the paper's "X").
//!
//! Each turn: if the merged M ∪ D array has an index above its value the game is lost (the defender
//! then cuts the most urgent threat anyway). Otherwise, if the D array has an emergency (its first
//! index `n` with `D[n] = n`), the defender cuts the near side of one of `D[1..n]`, chosen by the
//! paper's grid with the flattened capacity of `M - n`; without an emergency it cuts the smallest
//! M threat. Where the paper is silent (see `docs/spiders.md`): with M empty and no emergency the
//! defender cuts the near side of the dual spider with the largest D' value; and a grid cell may
//! only be chosen if the spider is cut before it reaches its nearer fly (row ≤ `D[j]`), which the
//! paper's grid leaves out.

use super::map::SpiderMap;
use super::rules::SpidersGame;

/// One spider's threat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threat {
    /// Distance to the (nearer) fly the spider heads for.
    pub value: u32,
    /// The edge to remove to stop it: the spider's edge towards that fly.
    pub near_edge: u32,
    /// For a dual spider: the distance to the other fly and the spider's edge towards it.
    pub far: Option<(u32, u32)>,
    /// The spider's position along the path.
    pub pos: usize,
}

/// The M and D arrays (D' is `far` of each D entry), sorted as the paper sorts them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrays {
    pub m: Vec<Threat>,
    pub d: Vec<Threat>,
}

/// Why the defender cut what it cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// No spider sees a fly.
    Nothing,
    /// The merged array shows the game is lost; the most urgent threat is cut anyway.
    Lost,
    /// No emergency in D: the smallest M threat.
    MArray,
    /// M empty, no emergency in D: the dual spider with the largest D'.
    Idle,
    /// An emergency of `n` elements in D, handled with the grid.
    DEmergency { n: usize, planned: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub cut: Option<u32>,
    pub why: Why,
    /// How many indices `j` of the D array have `D[j] = j` (the paper's special case: at most one).
    pub d_emergencies: usize,
}

/// The defender for one path map.
#[derive(Clone, Debug)]
pub struct PathsDefender {
    /// `order[i]`: the vertex at position `i`.
    order: Vec<u32>,
    /// `edge_right[i]`: the edge between positions `i` and `i + 1`.
    edge_right: Vec<u32>,
    /// Use the paper's grid exactly as printed, without the deadline on its cells.
    literal_grid: bool,
}

impl PathsDefender {
    /// `None` if the map is not a single path.
    pub fn new(map: &SpiderMap) -> Option<PathsDefender> {
        let order = map.path_order()?;
        let edge_right = order
            .windows(2)
            .map(|w| map.edge_between(w[0], w[1]).expect("consecutive path vertices share an edge"))
            .collect();
        Some(PathsDefender { order, edge_right, literal_grid: false })
    }

    /// The paper's grid exactly as printed: any step may cut any emergency spider, even one that
    /// reaches its nearer fly first. For comparison only.
    pub fn with_literal_grid(mut self) -> PathsDefender {
        self.literal_grid = true;
        self
    }

    /// The M and D arrays of a position, defender to move.
    pub fn arrays(&self, game: &SpidersGame) -> Arrays {
        let len = self.order.len();
        let map = &game.map;
        let mut spider_at = vec![false; len];
        let mut pos_of = vec![0usize; map.nodes];
        for (i, &v) in self.order.iter().enumerate() {
            pos_of[v as usize] = i;
        }
        for &s in &game.spiders {
            spider_at[pos_of[s as usize]] = true;
        }
        let fly_at = |i: usize| map.is_fly[self.order[i] as usize];
        let cut_right = |i: usize| game.removed[self.edge_right[i] as usize];
        // The nearest entity on each side within the spider's segment: (position, is a fly).
        let mut left: Vec<Option<(usize, bool)>> = vec![None; len];
        let mut seen = None;
        for i in 0..len {
            if i > 0 && cut_right(i - 1) {
                seen = None;
            }
            left[i] = seen;
            if fly_at(i) || spider_at[i] {
                seen = Some((i, fly_at(i)));
            }
        }
        let mut right: Vec<Option<(usize, bool)>> = vec![None; len];
        seen = None;
        for i in (0..len).rev() {
            if i + 1 < len && cut_right(i) {
                seen = None;
            }
            right[i] = seen;
            if fly_at(i) || spider_at[i] {
                seen = Some((i, fly_at(i)));
            }
        }
        let mut arrays = Arrays::default();
        for p in (0..len).filter(|&p| spider_at[p]) {
            let l = left[p].filter(|&(_, fly)| fly).map(|(q, _)| (p - q) as u32);
            let r = right[p].filter(|&(_, fly)| fly).map(|(q, _)| (q - p) as u32);
            let towards_left = || self.edge_right[p - 1];
            let towards_right = || self.edge_right[p];
            match (l, r) {
                (Some(dl), Some(dr)) => {
                    // The greedy tie-break: the smaller-numbered neighbour.
                    let go_left = dl < dr || (dl == dr && self.order[p - 1] < self.order[p + 1]);
                    let (near, far) = if go_left {
                        ((dl, towards_left()), (dr, towards_right()))
                    } else {
                        ((dr, towards_right()), (dl, towards_left()))
                    };
                    arrays.d.push(Threat {
                        value: near.0,
                        near_edge: near.1,
                        far: Some(far),
                        pos: p,
                    });
                }
                (Some(dl), None) => arrays.m.push(Threat {
                    value: dl,
                    near_edge: towards_left(),
                    far: None,
                    pos: p,
                }),
                (None, Some(dr)) => arrays.m.push(Threat {
                    value: dr,
                    near_edge: towards_right(),
                    far: None,
                    pos: p,
                }),
                (None, None) => {}
            }
        }
        arrays.m.sort_by_key(|t| (t.value, t.pos));
        arrays.d.sort_by_key(|t| (t.value, t.far.map(|f| f.0), t.pos));
        arrays
    }

    /// The defender's cut in a position (`None` only when no spider sees a fly).
    pub fn choose(&self, game: &SpidersGame) -> Decision {
        let arrays = self.arrays(game);
        let Arrays { m, d } = &arrays;
        let d_emergencies =
            d.iter().enumerate().filter(|&(i, t)| t.value as usize == i + 1).count();
        let decide = |cut: &Threat, why| Decision { cut: Some(cut.near_edge), why, d_emergencies };
        let mut merged: Vec<&Threat> = m.iter().chain(d.iter()).collect();
        if merged.is_empty() {
            return Decision { cut: None, why: Why::Nothing, d_emergencies };
        }
        merged.sort_by_key(|t| (t.value, t.far.is_some(), t.pos));
        if merged.iter().enumerate().any(|(i, t)| (t.value as usize) < i + 1) {
            return decide(merged[0], Why::Lost);
        }
        let emergency = d.iter().enumerate().find(|&(i, t)| t.value as usize == i + 1);
        match emergency {
            None if !m.is_empty() => decide(&m[0], Why::MArray),
            None => {
                let widest = d
                    .iter()
                    .max_by_key(|t| (t.far.map(|f| f.0), std::cmp::Reverse((t.value, t.pos))))
                    .expect("a threat exists");
                decide(widest, Why::Idle)
            }
            Some((last, _)) => {
                let n = last + 1;
                let plan = grid_plan(m, &d[..n], !self.literal_grid);
                match plan[0] {
                    Some(col) => decide(&d[col], Why::DEmergency { n, planned: true }),
                    None => decide(&d[0], Why::DEmergency { n, planned: false }),
                }
            }
        }
    }
}

/// The paper's grid (§3.4): which of the `n` emergency spiders to cut at each of the next `n`
/// steps (`plan[k]` = index into `d` cut at step `k + 1`), inserting the D' values into `M - n`
/// smallest first wherever the flattened capacity allows. Steps left `None` found no cell.
/// With `deadlines`, spider `j` may only be cut at a step no later than its value `D[j]`.
pub fn grid_plan(m: &[Threat], d: &[Threat], deadlines: bool) -> Vec<Option<usize>> {
    let n = d.len();
    let mut arr: Vec<i64> = m.iter().map(|t| i64::from(t.value) - n as i64).collect();
    arr.sort_unstable();
    // Cell (step k, spider j): cut j at step k + 1; by the end of the n steps its spider has
    // walked back towards the far fly: far + k - (n - k).
    let mut cells: Vec<(i64, usize, usize)> = Vec::with_capacity(n * n);
    for (j, t) in d.iter().enumerate() {
        let far = i64::from(t.far.expect("a D entry has a far side").0);
        for k in 0..n {
            // The spider must be cut before it reaches its nearer fly.
            if !deadlines || k < t.value as usize {
                cells.push((far - n as i64 + 2 * k as i64, j, k));
            }
        }
    }
    cells.sort_unstable();
    let mut plan = vec![None; n];
    let mut col_used = vec![false; n];
    let mut chosen = 0;
    for (value, j, k) in cells {
        if chosen == n {
            break;
        }
        if col_used[j] || plan[k].is_some() || !fits(&arr, value) {
            continue;
        }
        let at = arr.partition_point(|&x| x <= value);
        arr.insert(at, value);
        plan[k] = Some(j);
        col_used[j] = true;
        chosen += 1;
    }
    plan
}

/// Whether inserting `value` into the sorted array keeps every value at least its 1-based index:
/// the new element needs capacity `value - index >= 0`, every later one a flattened capacity of
/// at least 1 (each moves up one index).
fn fits(arr: &[i64], value: i64) -> bool {
    let at = arr.partition_point(|&x| x <= value);
    value > at as i64 && arr[at..].iter().enumerate().all(|(i, &x)| x - (at + i + 1) as i64 >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::spiders::map::parse_map;
    use crate::games::spiders::rules::Options;

    fn game(notation: &str) -> (PathsDefender, SpidersGame) {
        let map = parse_map("t", notation).unwrap();
        let d = PathsDefender::new(&map).unwrap();
        (d, SpidersGame::new(map.into_arc(), Options::default()))
    }

    #[test]
    fn arrays_of_the_papers_example() {
        // F B B S1 S2 F B S3 B B F B B S4: S1 sees F0 at 3, S2 sees F5 at 1, S3 is between F5
        // (2) and F10 (3), S4 sees F10 at 3.
        let (d, g) = game("F B B S S F B S B B F B B S");
        let a = d.arrays(&g);
        let values: Vec<u32> = a.m.iter().map(|t| t.value).collect();
        assert_eq!(values, vec![1, 3, 3]);
        assert_eq!(a.d.len(), 1);
        assert_eq!((a.d[0].value, a.d[0].far.unwrap().0), (2, 3));
        assert_eq!(d.choose(&g).why, Why::Lost);
    }

    /// The paper's worked example, step by step: "Step 1: F B S1 B X|F S3 B B B F B S4 B",
    /// "Step 2: F S1 B B X|F|B S3 B B F S4 B B", then two spiders each next to a fly.
    #[test]
    fn the_worked_example_goes_as_the_paper_shows() {
        use crate::game::Game;
        use crate::games::spiders::greedy::greedy_round;
        use crate::games::spiders::rules::{DEFENDER, SPIDERS, SpiderAction};
        let (d, mut g) = game("F B B S S F B S B B F B B S");
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
        let steps = [((4, 5), vec![2, 4, 6, 12]), ((5, 6), vec![1, 4, 7, 11])];
        for (cut, spiders) in steps {
            let e = d.choose(&g).cut.unwrap();
            assert_eq!(g.map.edges[e as usize], cut);
            g.play(DEFENDER, &SpiderAction::Cut(cut.0, cut.1), &mut rng).unwrap();
            let moves = greedy_round(&g.map, &g.removed, &g.spiders, false);
            g.play(SPIDERS, &SpiderAction::Moves(moves), &mut rng).unwrap();
            assert_eq!(g.spiders, spiders);
        }
        assert_eq!(d.choose(&g).why, Why::Lost);
        let e = d.choose(&g).cut.unwrap();
        let (a, b) = g.map.edges[e as usize];
        g.play(DEFENDER, &SpiderAction::Cut(a, b), &mut rng).unwrap();
        let moves = greedy_round(&g.map, &g.removed, &g.spiders, false);
        g.play(SPIDERS, &SpiderAction::Moves(moves), &mut rng).unwrap();
        assert_eq!(g.over.unwrap().winner(), Some(SPIDERS));
    }

    /// The paper's §3.3.5 example 2: M = [300] x 295, D = [3, 3, 3], D' = [100, 200, 300]. Cutting
    /// the largest D' first loses; the grid finds a full plan whose final M array is safe.
    #[test]
    fn the_grid_solves_the_papers_second_counterexample() {
        let m: Vec<Threat> =
            (0..295).map(|i| Threat { value: 300, near_edge: 0, far: None, pos: i }).collect();
        let d: Vec<Threat> = [100, 200, 300]
            .iter()
            .enumerate()
            .map(|(j, &far)| Threat {
                value: 3,
                near_edge: j as u32,
                far: Some((far, 9)),
                pos: 300 + j,
            })
            .collect();
        let plan = grid_plan(&m, &d, true);
        assert!(plan.iter().all(Option::is_some), "{plan:?}");
        let mut fin: Vec<i64> = m.iter().map(|t| i64::from(t.value) - 3).collect();
        for (k, j) in plan.iter().enumerate() {
            fin.push(i64::from(d[j.unwrap()].far.unwrap().0) - 3 + 2 * k as i64);
        }
        fin.sort_unstable();
        assert!(fin.iter().enumerate().all(|(i, &v)| v > i as i64), "the final M array is safe");
        // Largest D' first (300, 200, 100 at steps 1, 2, 3) leaves 297 at index 298.
        let mut bad: Vec<i64> = m.iter().map(|t| i64::from(t.value) - 3).collect();
        bad.extend([297, 199, 101]);
        bad.sort_unstable();
        assert!(bad.iter().enumerate().any(|(i, &v)| v <= i as i64));
    }

    #[test]
    fn a_lone_emergency_is_cut_on_its_near_side() {
        let (d, g) = game("F S B B F");
        let dec = d.choose(&g);
        assert_eq!(dec.why, Why::DEmergency { n: 1, planned: true });
        assert_eq!(g.map.edges[dec.cut.unwrap() as usize], (0, 1));
    }

    #[test]
    fn the_grid_prefers_small_values_that_fit() {
        // M - 2 = [5]; D' = [10, 3]: cutting the D'=3 spider first leaves it at 1, then the
        // other at 10 - 2 + 2 = 10.
        let m = [Threat { value: 7, near_edge: 0, far: None, pos: 0 }];
        let d = [
            Threat { value: 2, near_edge: 1, far: Some((10, 2)), pos: 1 },
            Threat { value: 2, near_edge: 3, far: Some((3, 4)), pos: 2 },
        ];
        assert_eq!(grid_plan(&m, &d, true), vec![Some(1), Some(0)]);
        assert!(fits(&[2, 3], 1) && !fits(&[1, 3], 1) && !fits(&[2, 2], 1));
    }
}

/// The sweep of the issue: the `paths` defender against greedy spiders, compared with the exact
/// solver (defender searching, spiders greedy) on paths in the paper's notation.
#[cfg(test)]
pub(crate) mod sweep {
    use super::*;
    use crate::game::{Game, Status};
    use crate::games::spiders::bots::cut_or_any;
    use crate::games::spiders::greedy::greedy_round;
    use crate::games::spiders::map::parse_notation;
    use crate::games::spiders::rules::{DEFENDER, Options, SPIDERS, SpiderAction};
    use crate::games::spiders::solver::{Policy, Solver};

    /// One path's verdicts.
    pub(crate) struct Verdict {
        pub solver_says_won: bool,
        pub paths_won: bool,
        /// The most D-array emergencies the paths defender met in one position.
        pub most_d_emergencies: usize,
    }

    pub(crate) fn judge(notation: &str, literal_grid: bool) -> Verdict {
        let map = parse_notation("sweep", 1, notation).expect("a valid path");
        let mut solver = Solver::new(&map, Policy::Greedy, false).expect("a small path");
        let solver_says_won = solver
            .defender_wins(crate::games::spiders::solver::Mask::EMPTY, &map.spiders)
            .expect("no deadline");
        let mut defender = PathsDefender::new(&map).expect("a path");
        if literal_grid {
            defender = defender.with_literal_grid();
        }
        let mut game = SpidersGame::new(map.into_arc(), Options::default());
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
        let mut most_d_emergencies = 0;
        let paths_won = loop {
            match game.status() {
                Status::Over(o) => break o.winner() == Some(DEFENDER),
                Status::ToAct(DEFENDER) => {
                    let decision = defender.choose(&game);
                    most_d_emergencies = most_d_emergencies.max(decision.d_emergencies);
                    let cut = decision.cut.map(|e| game.map.edges[e as usize]);
                    let action = cut_or_any(&game, cut);
                    game.play(DEFENDER, &action, &mut rng).expect("a legal cut");
                }
                Status::ToAct(_) => {
                    let moves = greedy_round(&game.map, &game.removed, &game.spiders, false);
                    game.play(SPIDERS, &SpiderAction::Moves(moves), &mut rng).expect("legal steps");
                }
            }
        };
        Verdict { solver_says_won, paths_won, most_d_emergencies }
    }

    /// Every path of `len` vertices with 1..=`spiders` spiders and 1..=`flies` flies, one entity
    /// per vertex, in the paper's notation.
    pub(crate) fn all_paths(len: usize, spiders: usize, flies: usize) -> Vec<String> {
        let mut out = Vec::new();
        let total = 3usize.pow(len as u32);
        for mut code in 0..total {
            let mut letters = Vec::with_capacity(len);
            let (mut s, mut f) = (0, 0);
            for _ in 0..len {
                let c = match code % 3 {
                    0 => 'B',
                    1 => {
                        s += 1;
                        'S'
                    }
                    _ => {
                        f += 1;
                        'F'
                    }
                };
                letters.push(c);
                code /= 3;
            }
            if (1..=spiders).contains(&s) && (1..=flies).contains(&f) {
                out.push(letters.into_iter().collect());
            }
        }
        out
    }
}

#[cfg(test)]
mod sweep_tests {
    use super::sweep::*;

    fn check(paths: impl IntoIterator<Item = String>) -> (usize, usize) {
        let (mut special, mut beyond) = (0, 0);
        for p in paths {
            let v = judge(&p, false);
            assert_eq!(
                v.paths_won,
                v.solver_says_won,
                "{p}: the paths defender {} but the solver says the defender {}",
                if v.paths_won { "won" } else { "lost" },
                if v.solver_says_won { "wins" } else { "loses" }
            );
            if v.most_d_emergencies <= 1 { special += 1 } else { beyond += 1 }
        }
        (special, beyond)
    }

    /// The sweep: every path of up to 12 vertices with up to 4 spiders and 3 flies
    /// (170,885 paths; about 1.5 s of CPU in the dev profile).
    #[test]
    fn paths_defender_matches_the_solver_on_every_path_up_to_12() {
        let (special, beyond) = check((2..=12).flat_map(|len| all_paths(len, 4, 3)));
        // The paper claims its algorithm for at most one emergency in D; paths beyond that claim
        // are checked too, and must exist in the sweep.
        assert!(special > 100_000 && beyond > 1_000, "{special} {beyond}");
    }

    /// The figures docs/spiders.md gives for the sweep: 170,885 paths, 168,361 within the
    /// paper's special case and 2,524 beyond it, and both the corrected and the literal grid
    /// winning exactly the paths the solver calls won. Ignored for time (both grids over every
    /// path); run with `--release -- --ignored --nocapture` to see the counts.
    #[test]
    #[ignore = "the whole sweep twice; run with --release -- --ignored --nocapture"]
    #[allow(clippy::print_stdout)] // a measurement: it prints its figures
    fn sweep_statistics() {
        let started = std::time::Instant::now();
        let mut rows = std::collections::BTreeMap::new();
        let mut paths = 0;
        let (mut special, mut beyond) = (0, 0);
        for len in 2..=12 {
            for p in all_paths(len, 4, 3) {
                paths += 1;
                for literal in [false, true] {
                    let v = judge(&p, literal);
                    assert_eq!(v.paths_won, v.solver_says_won, "{p} (literal grid: {literal})");
                    if !literal {
                        if v.most_d_emergencies <= 1 { special += 1 } else { beyond += 1 }
                    }
                    let key = (literal, v.most_d_emergencies, v.solver_says_won, v.paths_won);
                    rows.entry(key).or_insert((0, p.clone())).0 += 1;
                }
            }
        }
        for (k, (count, example)) in rows {
            println!("{k:?}: {count} e.g. {example}");
        }
        println!("{:?}", started.elapsed());
        assert_eq!((paths, special, beyond), (170_885, 168_361, 2_524));
    }
}
