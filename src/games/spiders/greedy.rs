//! The paper's greedy spiders as a pure function of the position ([`greedy_round`]), so the
//! `greedy` bot plays it and the exact solver can search against it.

use std::collections::VecDeque;

use super::map::{Cuts, SpiderMap};

/// The step the paper's greedy spider `i` takes, or `None` to stay.
///
/// A spider sees along the remaining edges, but not through a vertex held by another spider
/// (on a path it sees the nearest entity on each side, as in the paper's "spider's vision").
/// It heads for the nearest fly it sees, stepping to the smallest-numbered neighbour that starts a
/// shortest path to one; on a path numbered left to right a spider halfway between two flies so
/// goes left. A spider that sees no fly stays (the paper's "X" spiders), unless it must move.
pub fn greedy_step(map: &SpiderMap, cut: &impl Cuts, spiders: &[u32], i: usize) -> Option<u32> {
    Scratch::new(map, spiders).step(map, cut, spiders[i])
}

/// Buffers shared by the spiders of one round, so a round costs the vertices the spiders look
/// at, not one whole-graph allocation per spider.
struct Scratch {
    dist: Vec<u32>,
    good: Vec<bool>,
    /// Spiders on each vertex.
    occupied: Vec<u32>,
    order: Vec<u32>,
    queue: VecDeque<u32>,
}

impl Scratch {
    fn new(map: &SpiderMap, spiders: &[u32]) -> Scratch {
        let mut occupied = vec![0; map.nodes];
        for &s in spiders {
            occupied[s as usize] += 1;
        }
        Scratch {
            dist: vec![u32::MAX; map.nodes],
            good: vec![false; map.nodes],
            occupied,
            order: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    fn step(&mut self, map: &SpiderMap, cut: &impl Cuts, s: u32) -> Option<u32> {
        let answer = self.search(map, cut, s);
        // Leave the buffers clean for the next spider.
        for &v in self.order.iter().chain(self.queue.iter()) {
            self.dist[v as usize] = u32::MAX;
            self.good[v as usize] = false;
        }
        self.order.clear();
        self.queue.clear();
        answer
    }

    fn search(&mut self, map: &SpiderMap, cut: &impl Cuts, s: u32) -> Option<u32> {
        let Scratch { dist, good, occupied, order, queue } = self;
        let blocked = |v: u32| v != s && occupied[v as usize] > 0;
        queue.push_back(s);
        dist[s as usize] = 0;
        let mut best = u32::MAX;
        while let Some(&v) = queue.front() {
            let d = dist[v as usize];
            if d >= best {
                // Flies at distance `best` other than the first one found wait here in the queue.
                break;
            }
            queue.pop_front();
            order.push(v);
            if map.is_fly[v as usize] {
                best = d;
                continue;
            }
            if blocked(v) {
                continue;
            }
            for &(w, e) in &map.adj[v as usize] {
                if !cut.is_cut(e) && dist[w as usize] == u32::MAX {
                    dist[w as usize] = d + 1;
                    queue.push_back(w);
                }
            }
        }
        if best == u32::MAX {
            return None;
        }
        // `good[v]`: v lies on a shortest path from s to a nearest fly.
        for &v in queue.iter().chain(order.iter()) {
            if map.is_fly[v as usize] && dist[v as usize] == best {
                good[v as usize] = true;
            }
        }
        for &v in order.iter().rev() {
            let d = dist[v as usize];
            if good[v as usize] || map.is_fly[v as usize] || blocked(v) || d >= best {
                continue;
            }
            good[v as usize] = map.adj[v as usize]
                .iter()
                .any(|&(w, e)| !cut.is_cut(e) && dist[w as usize] == d + 1 && good[w as usize]);
        }
        map.adj[s as usize]
            .iter()
            .find(|&&(w, e)| !cut.is_cut(e) && dist[w as usize] == 1 && good[w as usize])
            .map(|&(w, _)| w)
    }
}

/// The greedy spiders' whole round. With `must_move`, a spider that sees no fly but has an edge
/// steps to its smallest-numbered neighbour.
pub fn greedy_round(
    map: &SpiderMap,
    cut: &impl Cuts,
    spiders: &[u32],
    must_move: bool,
) -> Vec<(usize, u32)> {
    let mut scratch = Scratch::new(map, spiders);
    let mut moves = Vec::new();
    for (i, &s) in spiders.iter().enumerate() {
        let forced = || map.adj[s as usize].iter().find(|&&(_, e)| !cut.is_cut(e)).map(|&(w, _)| w);
        let step = scratch.step(map, cut, s).or_else(|| if must_move { forced() } else { None });
        if let Some(to) = step {
            moves.push((i, to));
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::spiders::map::parse_map;

    fn step_all(notation: &str, cut: &[bool]) -> Vec<(usize, u32)> {
        let map = parse_map("t", notation).unwrap();
        greedy_round(&map, &cut.to_vec(), &map.spiders.clone(), false)
    }

    #[test]
    fn greedy_spiders_see_up_to_the_nearest_entity() {
        // S0 sees only the left fly (S1 blocks its view right); S1 heads right.
        assert_eq!(step_all("F B B S S B F", &[false; 6]), vec![(0, 2), (1, 5)]);
        // A spider between two flies goes to the nearer one; halfway, to the left.
        assert_eq!(step_all("F B S B B F", &[false; 5]), vec![(0, 1)]);
        assert_eq!(step_all("F B S B F", &[false; 4]), vec![(0, 1)]);
        // Cut off from the nearer fly, it turns to the other one.
        assert_eq!(step_all("F B S B B F", &[false, true, false, false, false]), vec![(0, 3)]);
        // Blind spiders (the paper's X) stay.
        assert_eq!(step_all("S S F", &[false, true]), vec![]);
    }
}
