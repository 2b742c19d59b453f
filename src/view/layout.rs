//! Where to draw the nodes of a graph that comes without coordinates: a force-directed layout
//! (Fruchterman and Reingold, "Graph Drawing by Force-directed Placement", 1991, with their grid
//! for the repulsive forces), seeded from the map's text so the same file always gives the same
//! picture.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A point of a drawing.
pub(crate) type Point = (f64, f64);

/// The distance the layout aims for between linked nodes, in drawing units.
pub(crate) const SPACING: f64 = 100.0;

/// FNV-1a, 64 bits: a stable seed from a map's text (std's hashers may change between releases).
pub(crate) fn text_seed(text: &str) -> u64 {
    text.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Positions for `nodes` nodes joined by `edges`, `SPACING` apart on average, deterministic in
/// `seed`. Unlinked parts are pulled together by a weak gravity so none drifts away.
pub(crate) fn force_layout(nodes: usize, edges: &[(u32, u32)], seed: u64) -> Vec<Point> {
    if nodes == 0 {
        return Vec::new();
    }
    let k = SPACING;
    let side = k * (nodes as f64).sqrt();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos: Vec<Point> =
        (0..nodes).map(|_| (rng.random_range(0.0..side), rng.random_range(0.0..side))).collect();
    if nodes == 1 {
        return vec![(0.0, 0.0)];
    }
    // Fewer rounds for big graphs: each costs about n times the nodes within reach.
    let rounds = if nodes <= 300 {
        400
    } else if nodes <= 3000 {
        200
    } else {
        60
    };
    let mut temperature = side / 8.0;
    let cooling = (0.01f64).powf(1.0 / rounds as f64);
    let reach = 2.0 * k;
    let mut shift = vec![(0.0, 0.0); nodes];
    for _ in 0..rounds {
        shift.iter_mut().for_each(|d| *d = (0.0, 0.0));
        repel(&pos, reach, k, &mut shift);
        for &(a, b) in edges {
            let (a, b) = (a as usize, b as usize);
            let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
            let d = (dx * dx + dy * dy).sqrt().max(0.01);
            let f = d / k;
            shift[a].0 -= dx * f;
            shift[a].1 -= dy * f;
            shift[b].0 += dx * f;
            shift[b].1 += dy * f;
        }
        let (cx, cy) = centre(&pos);
        for (p, d) in pos.iter_mut().zip(&mut shift) {
            d.0 -= (p.0 - cx) * 0.02;
            d.1 -= (p.1 - cy) * 0.02;
            let len = (d.0 * d.0 + d.1 * d.1).sqrt();
            if len > 0.0 {
                let step = len.min(temperature);
                p.0 += d.0 / len * step;
                p.1 += d.1 / len * step;
            }
        }
        temperature *= cooling;
    }
    let (cx, cy) = centre(&pos);
    pos.iter().map(|&(x, y)| (x - cx, y - cy)).collect()
}

fn centre(pos: &[Point]) -> Point {
    let n = pos.len() as f64;
    let (sx, sy) = pos.iter().fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    (sx / n, sy / n)
}

/// Repulsion `k² / d` between nodes closer than `reach`, found through a grid of `reach`-sized
/// cells (cells in a `BTreeMap`, so the sums are added in the same order every time).
fn repel(pos: &[Point], reach: f64, k: f64, shift: &mut [Point]) {
    let cell = |p: Point| ((p.0 / reach).floor() as i64, (p.1 / reach).floor() as i64);
    let mut grid: std::collections::BTreeMap<(i64, i64), Vec<usize>> = Default::default();
    for (i, &p) in pos.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    for (i, &p) in pos.iter().enumerate() {
        let (cx, cy) = cell(p);
        for gx in cx - 1..=cx + 1 {
            for gy in cy - 1..=cy + 1 {
                let Some(members) = grid.get(&(gx, gy)) else { continue };
                for &j in members {
                    if j == i {
                        continue;
                    }
                    let (mut dx, mut dy) = (p.0 - pos[j].0, p.1 - pos[j].1);
                    let mut d2 = dx * dx + dy * dy;
                    if d2 < 1e-6 {
                        // Two nodes on one spot: part them the same way every time.
                        dx = if i < j { 0.1 } else { -0.1 };
                        dy = 0.05;
                        d2 = dx * dx + dy * dy;
                    }
                    if d2 > reach * reach {
                        continue;
                    }
                    let f = k * k / d2;
                    shift[i].0 += dx * f;
                    shift[i].1 += dy * f;
                }
            }
        }
    }
}

/// A node radius that keeps neighbouring nodes apart: a quarter of the typical distance from a
/// node to its nearest neighbour (the median; sampled on big graphs).
pub(crate) fn node_radius(pos: &[Point]) -> f64 {
    if pos.len() < 2 {
        return SPACING / 4.0;
    }
    let sample: Vec<usize> = (0..pos.len()).step_by(pos.len().div_ceil(400)).collect();
    let mut nearest: Vec<f64> = sample
        .iter()
        .map(|&i| {
            (0..pos.len())
                .filter(|&j| j != i)
                .map(|j| (pos[i].0 - pos[j].0).hypot(pos[i].1 - pos[j].1))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    nearest.sort_by(f64::total_cmp);
    let median = nearest[nearest.len() / 2];
    (median / 4.0).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: u32) -> Vec<(u32, u32)> {
        (0..n).map(|i| (i, (i + 1) % n)).collect()
    }

    #[test]
    fn the_same_graph_and_seed_give_the_same_layout() {
        let a = force_layout(30, &ring(30), 7);
        assert_eq!(a, force_layout(30, &ring(30), 7));
        assert_ne!(a, force_layout(30, &ring(30), 8));
    }

    #[test]
    fn linked_nodes_end_near_the_spacing_and_nobody_overlaps() {
        let edges = ring(24);
        let pos = force_layout(24, &edges, 1);
        for &(a, b) in &edges {
            let (p, q) = (pos[a as usize], pos[b as usize]);
            let d = (p.0 - q.0).hypot(p.1 - q.1);
            assert!(d > SPACING * 0.3 && d < SPACING * 3.0, "edge {a}-{b}: {d}");
        }
        let r = node_radius(&pos);
        for i in 0..pos.len() {
            for j in 0..i {
                let d = (pos[i].0 - pos[j].0).hypot(pos[i].1 - pos[j].1);
                assert!(d >= 2.0 * r, "nodes {i} and {j} overlap: {d} < 2 x {r}");
            }
        }
    }

    #[test]
    fn parts_without_links_stay_in_view() {
        let pos = force_layout(40, &[(0, 1)], 3);
        let spread = pos.iter().map(|p| p.0.abs().max(p.1.abs())).fold(0.0, f64::max);
        assert!(spread < SPACING * 40.0, "{spread}");
    }

    #[test]
    fn text_seed_is_fnv1a() {
        assert_eq!(text_seed(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(text_seed("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
