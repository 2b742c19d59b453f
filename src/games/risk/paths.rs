//! The path algorithms of the seed's homework ("Graph Algorithms for the Risk Board Game",
//! github.com/mikeizbicki/risk), as a library over a board: who owns each territory and how many
//! armies stand on it. The bots plan with them and `arena risk paths` prints them.
//!
//! The meanings are the homework's:
//! - a *path* is a list of territories, each adjacent to the next, none repeated (the empty list
//!   and a single territory are paths);
//! - an *attack path* is a path of at least two territories none of which, after the first, is
//!   owned by the owner of the first;
//! - its *cost* is the sum of the armies on every territory after the first;
//! - `shortest_path` is a breadth-first search that ignores owners;
//! - `can_fortify` asks for a path owned entirely by the source's owner;
//! - `cheapest_attack_path` is Dijkstra's algorithm over enemy territories only, `None` when the
//!   source is the target or no attack path exists; `can_attack` is whether one exists.
//!
//! Neighbours are visited in ascending id order and ties in the priority queue go to the lower
//! id, so every answer is deterministic.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use petgraph::unionfind::UnionFind;
use petgraph::visit::{Bfs, IntoNeighbors, NodeFiltered, VisitMap, Visitable};

use super::map::RiskMap;

/// A board: the owner and the armies of every territory of `map`. Owners are plain numbers
/// (seats in a game; any player ids in a board file).
#[derive(Clone, Copy, Debug)]
pub struct Board<'a> {
    pub map: &'a RiskMap,
    pub owner: &'a [u32],
    pub armies: &'a [u32],
}

impl<'a> Board<'a> {
    pub fn new(map: &'a RiskMap, owner: &'a [u32], armies: &'a [u32]) -> Board<'a> {
        assert_eq!(owner.len(), map.len(), "one owner per territory");
        assert_eq!(armies.len(), map.len(), "one army count per territory");
        Board { map, owner, armies }
    }

    fn in_range(&self, t: usize) -> bool {
        t < self.map.len()
    }

    /// Each territory adjacent to the next, none repeated. `[]` and `[t]` are paths.
    pub fn is_valid_path(&self, path: &[usize]) -> bool {
        if path.iter().any(|&t| !self.in_range(t)) {
            return false;
        }
        let mut seen = vec![false; self.map.len()];
        for &t in path {
            if std::mem::replace(&mut seen[t], true) {
                return false;
            }
        }
        path.windows(2).all(|w| self.map.adjacent(w[0], w[1]))
    }

    /// A valid path of two or more territories, none after the first owned by the first's owner.
    pub fn is_valid_attack_path(&self, path: &[usize]) -> bool {
        path.len() >= 2
            && self.is_valid_path(path)
            && path[1..].iter().all(|&t| self.owner[t] != self.owner[path[0]])
    }

    /// The enemy armies along an attack path: the armies on every territory after the first.
    /// `None` when `path` is not an attack path.
    pub fn cost_of_attack_path(&self, path: &[usize]) -> Option<u64> {
        self.is_valid_attack_path(path)
            .then(|| path[1..].iter().map(|&t| u64::from(self.armies[t])).sum())
    }

    /// A path with the fewest territories from `source` to `target`, owners ignored (BFS).
    /// `[source]` when they are equal; `None` only on a disconnected board or a bad id.
    ///
    /// The bots and the benchmark call it in loops, so it is a hand-written search over the
    /// adjacency lists: petgraph's `Bfs` (used by [`Board::fortify_path`]) measured about a fifth
    /// slower on these 42-node boards, for the very same paths.
    pub fn shortest_path(&self, source: usize, target: usize) -> Option<Vec<usize>> {
        if !self.in_range(source) || !self.in_range(target) {
            return None;
        }
        let mut parent = vec![usize::MAX; self.map.len()];
        parent[source] = source;
        let mut queue = VecDeque::from([source]);
        while let Some(current) = queue.pop_front() {
            if current == target {
                return Some(self.unwind(&parent, source, target));
            }
            for &next in &self.map.adj[current] {
                if parent[next] == usize::MAX {
                    parent[next] = current;
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// Whether armies may move from `source` to `target` along territories all owned by the
    /// source's owner (the target included). A territory can fortify itself.
    pub fn can_fortify(&self, source: usize, target: usize) -> bool {
        if !self.in_range(source) || !self.in_range(target) {
            return false;
        }
        let me = self.owner[source];
        if self.owner[target] != me {
            return false;
        }
        let own = NodeFiltered::from_fn(&self.map.graph, |t: u32| self.owner[t as usize] == me);
        let mut bfs = Bfs::new(&own, source as u32);
        while let Some(t) = bfs.next(&own) {
            if t as usize == target {
                return true;
            }
        }
        false
    }

    /// A component label for every territory of `owner` (territories it can fortify between
    /// share one), `usize::MAX` for the others.
    pub fn components_of(&self, owner: u32) -> Vec<usize> {
        let mut sets = UnionFind::new(self.map.len());
        for &(a, b) in &self.map.borders {
            if self.owner[a] == owner && self.owner[b] == owner {
                sets.union(a, b);
            }
        }
        let label = sets.into_labeling();
        (0..self.map.len())
            .map(|t| if self.owner[t] == owner { label[t] } else { usize::MAX })
            .collect()
    }

    /// The shortest own-territory path `can_fortify` looks for.
    pub fn fortify_path(&self, source: usize, target: usize) -> Option<Vec<usize>> {
        if !self.in_range(source) || !self.in_range(target) {
            return None;
        }
        let me = self.owner[source];
        if self.owner[target] != me {
            return None;
        }
        let own = NodeFiltered::from_fn(&self.map.graph, |t: u32| self.owner[t as usize] == me);
        self.bfs(&own, source, target)
    }

    /// Breadth-first search (petgraph's [`Bfs`]) from `source` to `target` over `graph` (a view of
    /// the borders). Each territory's parent is the one whose expansion discovered it: the
    /// territories [`Bfs::next`] queues while expanding it, so the paths are those of
    /// [`Board::shortest_path`]'s plain search.
    fn bfs<G>(&self, graph: G, source: usize, target: usize) -> Option<Vec<usize>>
    where
        G: IntoNeighbors<NodeId = u32> + Visitable<NodeId = u32>,
    {
        if !self.in_range(source) || !self.in_range(target) {
            return None;
        }
        let mut parent = vec![usize::MAX; self.map.len()];
        parent[source] = source;
        // Bfs::new would start with an empty queue and grow it as the search spreads.
        let mut discovered = graph.visit_map();
        discovered.visit(source as u32);
        let mut stack = VecDeque::with_capacity(self.map.len());
        stack.push_back(source as u32);
        let mut bfs = Bfs { stack, discovered };
        loop {
            let waiting = bfs.stack.len().saturating_sub(1);
            let current = bfs.next(graph)? as usize;
            for &child in bfs.stack.range(waiting..) {
                parent[child as usize] = current;
            }
            if current == target {
                return Some(self.unwind(&parent, source, target));
            }
        }
    }

    fn unwind(&self, parent: &[usize], source: usize, target: usize) -> Vec<usize> {
        let mut path = vec![target];
        let mut t = target;
        while t != source {
            t = parent[t];
            path.push(t);
        }
        path.reverse();
        path
    }

    /// A cheapest attack path from `source` to `target` (Dijkstra; the weight of entering a
    /// territory is its armies; only territories not owned by the source's owner are entered).
    /// `None` when `source == target` or no attack path exists.
    pub fn cheapest_attack_path(&self, source: usize, target: usize) -> Option<Vec<usize>> {
        if source == target || !self.in_range(target) {
            return None;
        }
        let (cost, parent) = self.dijkstra(source, Some(target))?;
        (cost[target] != u64::MAX).then(|| self.unwind(&parent, source, target))
    }

    /// Whether an attack path from `source` to `target` exists.
    pub fn can_attack(&self, source: usize, target: usize) -> bool {
        self.cheapest_attack_path(source, target).is_some()
    }

    /// Dijkstra from `source` over enemy territories: the cost of reaching each territory
    /// (`u64::MAX` when unreachable) and the predecessor tree. The planner uses the whole tree.
    pub fn attack_costs(&self, source: usize) -> Option<(Vec<u64>, Vec<usize>)> {
        self.dijkstra(source, None)
    }

    /// Dijkstra with lazy deletion; stops once `stop_at` is settled (as the homework's loop
    /// returns when it dequeues the target).
    fn dijkstra(&self, source: usize, stop_at: Option<usize>) -> Option<(Vec<u64>, Vec<usize>)> {
        if !self.in_range(source) {
            return None;
        }
        let n = self.map.len();
        let me = self.owner[source];
        let mut cost = vec![u64::MAX; n];
        let mut parent = vec![usize::MAX; n];
        cost[source] = 0;
        parent[source] = source;
        let mut heap = BinaryHeap::from([Reverse((0u64, source))]);
        while let Some(Reverse((c, current))) = heap.pop() {
            if c > cost[current] {
                continue;
            }
            if Some(current) == stop_at {
                break;
            }
            for &next in &self.map.adj[current] {
                if self.owner[next] == me {
                    continue;
                }
                let through = c + u64::from(self.armies[next]);
                if through < cost[next] {
                    cost[next] = through;
                    parent[next] = current;
                    heap.push(Reverse((through, next)));
                }
            }
        }
        Some((cost, parent))
    }
}

#[cfg(test)]
mod tests {
    //! The homework's published tests (its `tests/test_search.py`: 54 test functions, of which 53
    //! run because one name is defined twice), on its 82-border map.
    use super::*;
    use crate::games::risk::map::builtin;

    struct Owned {
        owner: Vec<u32>,
        armies: Vec<u32>,
    }

    impl Owned {
        fn board<'a>(&'a self, map: &'a RiskMap) -> Board<'a> {
            Board::new(map, &self.owner, &self.armies)
        }
    }

    /// board0..board5 exactly as the homework builds them.
    fn boards() -> Vec<Owned> {
        let board0 =
            Owned { owner: vec![1; 42], armies: (0..42).map(|i| (i % 5 + 1) as u32).collect() };
        let mut board1 = Owned { owner: board0.owner.clone(), armies: board0.armies.clone() };
        board1.owner[3] = 0;
        for t in [3, 4, 34, 39, 35] {
            board1.armies[t] = 500;
        }
        let mut board2 = Owned { owner: board1.owner.clone(), armies: board1.armies.clone() };
        for t in [34, 35, 39] {
            board2.owner[t] = 0;
            board2.armies[t] = 1;
        }
        let mut board3 = Owned { owner: board2.owner.clone(), armies: board2.armies.clone() };
        board3.owner[34] = 1;
        let mut board4 = Owned { owner: board2.owner.clone(), armies: board2.armies.clone() };
        board4.owner[4] = 0;
        board4.armies[4] = 1;
        board4.owner[1] = 0;
        let board5 = Owned {
            owner: (0..42).map(|i| (i % 5) as u32).collect(),
            armies: (0..42).map(|i| (i % 5 + 1) as u32).collect(),
        };
        vec![board0, board1, board2, board3, board4, board5]
    }

    #[test]
    fn is_valid_path_as_published() {
        let map = builtin("homework82").unwrap();
        let all = boards();
        let b5 = all[5].board(&map);
        assert!(b5.is_valid_path(&[]));
        assert!(b5.is_valid_path(&[6]));
        assert!(!b5.is_valid_path(&[6, 34]));
        assert!(!b5.is_valid_path(&[6, 31, 6]));
        assert!(b5.is_valid_path(&[5, 37, 4, 24, 39, 34, 35, 36, 0, 6, 31]));
        assert!(!b5.is_valid_path(&[5, 37, 4, 34, 35, 36, 0, 6, 31]));
    }

    #[test]
    fn is_valid_attack_path_and_cost_as_published() {
        let map = builtin("homework82").unwrap();
        let all = boards();
        let (b1, b5) = (all[1].board(&map), all[5].board(&map));
        assert!(!b1.is_valid_attack_path(&[]));
        assert!(!b1.is_valid_attack_path(&[5]));
        assert!(!b1.is_valid_attack_path(&[5, 6]));
        assert!(b1.is_valid_attack_path(&[3, 28]));
        let long = [3, 28, 37, 5, 40, 2, 1, 19, 22, 6, 15, 21, 11, 24];
        assert!(b1.is_valid_attack_path(&long));
        assert!(b5.is_valid_attack_path(&[3, 4, 24, 11, 21, 0, 6]));
        assert!(!b5.is_valid_attack_path(&[3, 4, 24, 8, 21, 0, 6]));
        assert!(!b5.is_valid_attack_path(&[3, 4, 24, 11, 21, 6]));
        assert_eq!(b1.cost_of_attack_path(&[3, 28]), Some(4));
        assert_eq!(b1.cost_of_attack_path(&long), Some(34));
        assert_eq!(b5.cost_of_attack_path(&[3, 4, 24, 11, 21, 0, 6]), Some(17));
        assert_eq!(b5.cost_of_attack_path(&[3, 4, 24, 8, 21, 0, 6]), None);
    }

    #[test]
    fn shortest_path_as_published() {
        let map = builtin("homework82").unwrap();
        let all = boards();
        let len = |b: usize, s, t| {
            let board = all[b].board(&map);
            let p = board.shortest_path(s, t).unwrap();
            assert!(board.is_valid_path(&p) && p[0] == s && p[p.len() - 1] == t);
            p.len()
        };
        assert_eq!(len(1, 3, 3), 1);
        assert_eq!(len(1, 0, 13), 5);
        assert_eq!(len(5, 31, 23), 3);
        assert_eq!(len(5, 3, 32), 8);
        assert_eq!(len(5, 1, 40), 3);
        assert_eq!(len(2, 15, 16), 3);
        assert_eq!(len(3, 15, 16), 3);
        assert_eq!(len(1, 34, 41), 5);
        assert_eq!(len(1, 1, 0), 5);
        assert_eq!(len(1, 14, 38), 8);
    }

    #[test]
    fn the_missing_border_is_what_the_published_results_depend_on() {
        let classic = builtin("classic").unwrap();
        let all = boards();
        let b5 = all[5].board(&classic);
        assert_eq!(b5.shortest_path(3, 32).unwrap().len(), 7);
        let b3 = all[3].board(&classic);
        let p = b3.cheapest_attack_path(3, 24).unwrap();
        assert_ne!(b3.cost_of_attack_path(&p), Some(31));
    }

    #[test]
    fn can_fortify_as_published() {
        let map = builtin("homework82").unwrap();
        let all = boards();
        assert!(!all[1].board(&map).can_fortify(3, 10));
        assert!(!all[2].board(&map).can_fortify(3, 39));
        assert!(all[2].board(&map).can_fortify(39, 35));
        assert!(all[2].board(&map).can_fortify(25, 38));
        assert!(!all[5].board(&map).can_fortify(25, 38));
    }

    #[test]
    fn cheapest_attack_path_and_can_attack_as_published() {
        let map = builtin("homework82").unwrap();
        let all = boards();
        let cost = |b: usize, s, t| {
            let board = all[b].board(&map);
            let path = board.cheapest_attack_path(s, t);
            assert_eq!(board.can_attack(s, t), path.is_some());
            path.map(|p| {
                assert!(p[0] == s && p[p.len() - 1] == t);
                board.cost_of_attack_path(&p).expect("a cheapest attack path is an attack path")
            })
        };
        assert_eq!(cost(1, 3, 24), Some(34));
        assert_eq!(cost(2, 3, 24), Some(34));
        assert_eq!(cost(3, 3, 24), Some(31));
        assert_eq!(cost(4, 3, 24), None);
        assert_eq!(cost(5, 3, 24), Some(10));
        assert_eq!(cost(5, 30, 24), Some(13));
        assert_eq!(cost(5, 3, 6), Some(17));
        assert_eq!(cost(5, 3, 18), None);
        assert_eq!(cost(5, 38, 1), Some(16));
        assert_eq!(cost(5, 3, 2), Some(13));
        assert_eq!(cost(5, 3, 3), None);
    }

    /// The breadth-first search as the homework writes it (a queue, neighbours in ascending id
    /// order, a parent per territory): petgraph's traversal must find the very same paths.
    fn plain_bfs(
        b: &Board,
        s: usize,
        t: usize,
        enter: &dyn Fn(usize) -> bool,
    ) -> Option<Vec<usize>> {
        let mut parent = vec![usize::MAX; b.map.len()];
        parent[s] = s;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(c) = queue.pop_front() {
            if c == t {
                return Some(b.unwind(&parent, s, t));
            }
            for &n in &b.map.adj[c] {
                if parent[n] == usize::MAX && enter(n) {
                    parent[n] = c;
                    queue.push_back(n);
                }
            }
        }
        None
    }

    #[test]
    fn petgraph_searches_find_the_plain_searches_paths() {
        use rand::{RngExt, SeedableRng};
        let map = builtin("classic").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut fortifiable = 0;
        for _ in 0..300 {
            let owner: Vec<u32> = (0..42).map(|_| rng.random_range(0..2)).collect();
            let armies: Vec<u32> = (0..42).map(|_| rng.random_range(1..9)).collect();
            let b = Board::new(&map, &owner, &armies);
            let (s, t) = (rng.random_range(0..42), rng.random_range(0..42));
            assert_eq!(b.shortest_path(s, t), plain_bfs(&b, s, t, &|_| true));
            let own = plain_bfs(&b, s, t, &|n| owner[n] == owner[s]);
            let own = own.filter(|_| owner[t] == owner[s]);
            assert_eq!(b.fortify_path(s, t), own);
            assert_eq!(b.can_fortify(s, t), own.is_some());
            fortifiable += usize::from(own.is_some());
            // Territories share a component label exactly when one can fortify the other.
            let label = b.components_of(owner[s]);
            assert_eq!(label[s] == label[t], own.is_some());
        }
        assert!(fortifiable > 30, "{fortifiable} of 300 pairs could fortify");
    }

    #[test]
    fn dijkstra_agrees_with_exhaustive_search() {
        // Every simple attack path from each source, enumerated depth first, gives each
        // territory's cheapest cost; Dijkstra must find exactly it, and exactly the territories
        // some path reaches. A partial path no cheaper than the best known arrival is cut off: costs
        // are non-negative, so no extension of it can be cheaper (the search stays exact).
        let map = builtin("homework82").unwrap();
        let all = boards();
        fn dfs(b: &Board, path: &mut Vec<usize>, best: &mut Vec<u64>, cost: u64) {
            let last = path[path.len() - 1];
            if cost >= best[last] {
                return;
            }
            best[last] = cost;
            for &n in &b.map.adj[last] {
                if !path.contains(&n) && b.owner[n] != b.owner[path[0]] {
                    path.push(n);
                    dfs(b, path, best, cost + u64::from(b.armies[n]));
                    path.pop();
                }
            }
        }
        let mut compared = 0;
        for owned in &all {
            let b = owned.board(&map);
            for source in 0..42 {
                let mut best = vec![u64::MAX; 42];
                dfs(&b, &mut vec![source], &mut best, 0);
                let (cost, _) = b.attack_costs(source).unwrap();
                assert_eq!(cost, best, "source {source}");
                compared += best.iter().filter(|&&c| c != u64::MAX && c > 0).count();
            }
        }
        assert!(compared > 1000, "only {compared} reachable targets compared");
    }
}
