//! Two counts that settle most positions of the exact solver without search, one for each side.
//! Both rest on the agent's commitment: once it steps into one part of the network it cannot
//! threaten the others any more, so the virus only has to have prepared, before each step, the
//! part the agent steps into. docs/skynet.md proves each; in short:
//!
//! - *Simple walks.* The agent never needs to step onto a node it has stood on before: it would
//!   stand there again with fewer gateway links around, which never helps it (monotony). If the
//!   virus beats every walk that repeats no node, it beats every walk: when the agent repeats a
//!   node, the virus goes back to the strategy it played when the agent first stood there (with
//!   fewer links now, which only helps it).
//! - *Pre-cuts.* Along a simple walk, a part of the network the agent has not yet entered only
//!   depends on the cuts made in it before the agent enters it. So what matters for a part is how
//!   many cuts the virus placed there beforehand ("pre-cuts", put where they help most), and the
//!   least number that wins, its *need*, composes over a tree: with `S` the sum of the children's
//!   needs, a node of danger 0 needs `S - 1` (clamped at 0: the cut the virus gets when the agent
//!   steps onto it goes to one child), a node of danger 1 needs `S` (that cut is forced there),
//!   and a node of danger k >= 2 needs `k - 1 + S` (it must be brought down to 1 before the agent
//!   gets there).
//!
//! [`ExactSolver::tree_surplus`] (for the agent): the agent restricted to a spanning tree of the
//! network walks down from its node, and the count over that tree is exact for the restricted
//! game. If the virus cannot meet the need, the agent wins the restricted game, hence the real one
//! (its moves there are moves here).
//!
//! [`ExactSolver::block_need`] (for the virus): the network's blocks (biconnected components of
//! the links between non-gateway nodes) form a tree, rooted at the agent's node; a simple walk
//! that leaves a block through a cut node never comes back into it. Inside a block the agent may
//! go anywhere, so the block is judged by the deadline count (every node of danger 2 and every
//! pre-cut that a child block needs, at its free-cut distance from the block's root, as if the
//! agent threatened them all at once), which overestimates its need; across blocks the needs add
//! up as in a tree. If the need is met, the virus wins.

use super::{ExactSolver, Zone, add_to_zone};

/// How many hubs [`ExactSolver::hub_zone`] tries near the root of a search (at most
/// [`HUB_DEPTH`] agent steps below the position asked about), and deeper down, where positions
/// are many and each try costs a survey and a tree count: only with the agent to move on a node
/// of danger 0, and there only the first few (the hub that won last at the same place, then the
/// largest needs and the smallest needs on the shortest walks in turn), but for the positions of
/// [`HUB_BLOCK_NEED`]. On the 500-node maps of the
/// dense-gateway family every hub at every such position took about half the search's time and
/// settled almost no position; the first four settle, on the maps where the search would
/// otherwise refute one wrong cut of the virus for millions of positions, the agent's wins in a
/// few hundred (200/15/120/40 seed 3039, 300/20/120/30 seeds 3046 and 4007), at a few per cent
/// elsewhere; seven, not four, since the near hubs of small need joined the order (300/20/120/30
/// seed 4007 needs the third largest; docs/skynet.md has the figures).
pub(super) const HUBS: usize = 1000;
pub(super) const HUBS_DEEP: usize = 7;
pub(super) const HUB_DEPTH: u32 = 1;
/// Deeper down, every hub is tried after all with the agent to move when the block count asks
/// this many pre-cuts or more of a virus that has none: on the 500-node maps of the family the
/// hub count then wins where the agent walks a corridor to a large block (a few such wins
/// settle maps of 100,000 positions and more), and the tries are few enough elsewhere.
pub(super) const HUB_BLOCK_NEED: u32 = 6;

/// A deliberately wrong rule of this file, switched on by a test (for its own thread) to see the
/// comparison with the plain solver catch it: each would make the counts claim wins they do not
/// have. (And one switch that is no fault: the search without the agent's killer moves.)
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    None,
    /// The tree count forgets the free cut the virus gets when the agent steps onto a node of
    /// danger 0 (false wins for the agent).
    TreeFreeCut,
    /// The hub count forgets the cuts the virus makes while the agent walks to the hub.
    HubWalkCuts,
    /// The block count asks one pre-cut fewer than it must (false wins for the virus).
    BlockShortByOne,
    /// Not a fault: the search without the agent's killer moves, which the search with them
    /// must agree with.
    NoKillers,
    /// Not a fault: the search without the hub tries deeper down ([`HUB_BLOCK_NEED`],
    /// [`HUBS_DEEP`]).
    NoDeepHubs,
    /// Not a fault: the search without the few hub tries deeper down ([`HUBS_DEEP`]), only
    /// those of [`HUB_BLOCK_NEED`].
    OnlyFarHubs,
    /// Not a fault: the search without the hub count's memos (its failures, its last winning
    /// hub).
    NoHubMemo,
}

#[cfg(test)]
thread_local! {
    pub(super) static FAULT: std::cell::Cell<Fault> = const { std::cell::Cell::new(Fault::None) };
}

/// Whether the test in this thread switched on `fault`; never in a build that is not a test.
#[cfg(test)]
pub(super) fn faulty(fault: Fault) -> bool {
    FAULT.with(std::cell::Cell::get) == fault
}

/// The blocks (biconnected components) of the graph of links between non-gateway nodes: fixed
/// for a network, as Episode 2 never cuts those links.
pub(super) struct Blocks {
    /// The nodes of block `b` that can matter to a count: `members[first[b]..first[b + 1]]`,
    /// those with a gateway link or in another block too (a cut node).
    members: Vec<u32>,
    first: Vec<u32>,
    /// The blocks of node `v`: `of_node[of_first[v]..of_first[v + 1]]` (several for a cut node,
    /// none for a node without links to non-gateway nodes).
    of_node: Vec<u32>,
    of_first: Vec<u32>,
}

impl Blocks {
    /// Hopcroft and Tarjan's depth-first search with a stack of edges, without recursion (a
    /// network may be a path of thousands of nodes). `has_slot` says which nodes have a gateway
    /// link.
    pub(super) fn new(adj: &[Vec<u32>], has_slot: impl Fn(u32) -> bool) -> Blocks {
        let n = adj.len();
        const UNSEEN: u32 = u32::MAX;
        let mut disc = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut time = 0u32;
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut blocks: Vec<Vec<u32>> = Vec::new();
        // (node, its DFS parent, the next neighbour to look at)
        let mut stack: Vec<(u32, u32, usize)> = Vec::new();
        for root in 0..n as u32 {
            if disc[root as usize] != UNSEEN || adj[root as usize].is_empty() {
                continue;
            }
            disc[root as usize] = time;
            low[root as usize] = time;
            time += 1;
            stack.push((root, UNSEEN, 0));
            while let Some(top) = stack.last_mut() {
                let (v, parent, next) = *top;
                if let Some(&w) = adj[v as usize].get(next) {
                    top.2 += 1;
                    if disc[w as usize] == UNSEEN {
                        edges.push((v, w));
                        disc[w as usize] = time;
                        low[w as usize] = time;
                        time += 1;
                        stack.push((w, v, 0));
                    } else if w != parent && disc[w as usize] < disc[v as usize] {
                        edges.push((v, w));
                        low[v as usize] = low[v as usize].min(disc[w as usize]);
                    }
                    continue;
                }
                stack.pop();
                let Some(&(u, _, _)) = stack.last() else { continue };
                low[u as usize] = low[u as usize].min(low[v as usize]);
                if low[v as usize] >= disc[u as usize] {
                    // u separates v's subtree: the edges above (u, v) on the stack are a block.
                    let mut block = Vec::new();
                    while let Some((x, y)) = edges.pop() {
                        block.push(x);
                        block.push(y);
                        if (x, y) == (u, v) {
                            break;
                        }
                    }
                    block.sort_unstable();
                    block.dedup();
                    blocks.push(block);
                }
            }
        }
        let mut count = vec![0u32; n + 1];
        for block in &blocks {
            for &v in block {
                count[v as usize] += 1;
            }
        }
        let mut of_first = vec![0u32; n + 1];
        for v in 0..n {
            of_first[v + 1] = of_first[v] + count[v];
        }
        let mut of_node = vec![0u32; of_first[n] as usize];
        let mut fill = of_first.clone();
        for (b, block) in blocks.iter().enumerate() {
            for &v in block {
                of_node[fill[v as usize] as usize] = b as u32;
                fill[v as usize] += 1;
            }
        }
        let mut members = Vec::new();
        let mut first = vec![0u32];
        for block in &blocks {
            members.extend(block.iter().copied().filter(|&v| has_slot(v) || count[v as usize] > 1));
            first.push(members.len() as u32);
        }
        Blocks { members, first, of_node, of_first }
    }

    fn len(&self) -> usize {
        self.first.len() - 1
    }

    fn members(&self, b: u32) -> &[u32] {
        &self.members[self.first[b as usize] as usize..self.first[b as usize + 1] as usize]
    }

    fn of(&self, v: u32) -> &[u32] {
        &self.of_node[self.of_first[v as usize] as usize..self.of_first[v as usize + 1] as usize]
    }
}

/// Scratch for [`ExactSolver::block_need`], sized by the number of blocks.
#[derive(Default)]
pub(super) struct BlockScratch {
    /// The block's root (the cut node towards the agent, or the agent's node), valid for blocks
    /// stamped with the current stamp.
    root: Vec<u32>,
    need: Vec<u32>,
    stamp: Vec<u32>,
    /// Blocks in breadth-first order from the agent's node.
    order: Vec<u32>,
    /// The stamp of the current count (blocks with another are not around the agent).
    counter: u32,
    /// One block's deadlines: (free cuts before the agent can be there, how many, node, whether
    /// they are pre-cuts of the node's child blocks rather than the node's own links).
    units: Vec<(u32, u32, u32, bool)>,
}

/// The need of a part from a node: `sum` of its children's, the node's `danger`.
fn need_at(danger: u32, sum: u32) -> u32 {
    match danger {
        0 => sum.saturating_sub(1),
        1 => sum,
        d => sum.saturating_add(d - 1),
    }
}

impl ExactSolver<'_> {
    /// The agent at `agent` restricted to the tree of the last survey (which must be from
    /// `agent`): the sum of the needs of its children. With the agent to move it wins if that is
    /// positive; with the virus to move, if it exceeds what the virus's cut now covers (1 when the
    /// cut is free, 0 when it is forced under the agent).
    ///
    /// The agent may not step straight back to `prev` (it is not part of the tree then).
    pub(super) fn tree_surplus(&mut self, agent: u32, prev: u32) -> u32 {
        for i in 0..self.order.len() {
            let v = self.order[i] as usize;
            self.tree_acc[v] = 0;
            self.rank[v] = i as u32;
        }
        let stamp = self.stamp;
        for i in (1..self.order.len()).rev() {
            let v = self.order[i];
            // Any cheapest way in will do for a tree; the one whose subtree already asks most
            // shares the most of the walk, which leaves the virus fewer cuts to spread.
            let mut p = self.parent[v as usize];
            {
                let g = self.free[v as usize];
                let net = &self.net;
                for &u in &net.adj[net.plain(v)] {
                    // u was settled by the last survey, before v.
                    if self.done[u as usize] == stamp
                        && self.rank[u as usize] < i as u32
                        && self.free[u as usize]
                            + u32::from(u != agent && self.node_danger[u as usize] == 0)
                            == g
                        && self.tree_acc[u as usize] > self.tree_acc[p as usize]
                    {
                        p = u;
                    }
                }
            }
            self.tree_parent[v as usize] = p;
            let need = if v == prev && p == agent {
                0
            } else {
                let danger = self.danger_of(v);
                #[cfg(test)]
                if faulty(Fault::TreeFreeCut) && danger == 0 {
                    self.tree_need[v as usize] = self.tree_acc[v as usize];
                    let need = self.tree_acc[v as usize];
                    self.tree_acc[p as usize] = self.tree_acc[p as usize].saturating_add(need);
                    continue;
                }
                need_at(danger, self.tree_acc[v as usize])
            };
            self.tree_need[v as usize] = need;
            self.tree_acc[p as usize] = self.tree_acc[p as usize].saturating_add(need);
        }
        self.tree_acc[agent as usize]
    }

    /// A small zone for an agent's win found by [`ExactSolver::tree_surplus`] (`wanted`: the
    /// surplus the win needs at the agent's node). Going down the tree from the agent, each node
    /// asks its children, largest need first, for just enough need to keep its own at what its
    /// parent asked of it; the zone is the nodes asked with a gateway link. Clearing every other
    /// gateway link leaves each node asked with at least the need asked of it (needs only fall
    /// with danger, never below 0, and a node asked keeps its danger), so the restricted
    /// position is still won.
    pub(super) fn tree_zone(&mut self, agent: u32, wanted: u32) -> Zone {
        let mut zone = self.empty_zone();
        // The children with a positive need, grouped by parent, largest need first.
        let mut kids: Vec<(u32, u32, u32)> = self.order[1..]
            .iter()
            .filter(|&&v| self.tree_need[v as usize] > 0)
            .map(|&v| (self.tree_parent[v as usize], u32::MAX - self.tree_need[v as usize], v))
            .collect();
        kids.sort_unstable();
        let mut asked = vec![(agent, wanted)];
        while let Some((v, mut sum)) = asked.pop() {
            let first = kids.partition_point(|&(p, _, _)| p < v);
            for &(p, _, c) in &kids[first..] {
                if p != v || sum == 0 {
                    break;
                }
                let need = self.tree_need[c as usize].min(sum);
                sum -= need;
                let d = self.danger_of(c);
                if d >= 1 {
                    add_to_zone(&mut zone, self.net.slot[c as usize]);
                }
                // The sum of needs c's own need takes from its children.
                let from_kids = match d {
                    0 => need + 1,
                    1 => need,
                    d => need.saturating_sub(d - 1),
                };
                asked.push((c, from_kids));
            }
        }
        zone
    }

    /// The hub count (for the agent), after [`ExactSolver::tree_surplus`] from `agent` found
    /// too little: the agent first walks to a *hub* h on a cheapest walk, whatever the virus
    /// does, then plays the tree count from h (on a tree of its own, which may use links the
    /// tree from `agent` left out). On the way the virus makes at most F cuts away from the walk:
    /// `spare` (its cut now, when free) plus one for each node of danger 0 the agent steps onto
    /// (a node of danger 1 forces the cut there, or gives one back for a cut the virus spent on
    /// it before). Each such cut lowers the tree count from h by at most 1 (every need is at most
    /// 1 more when a danger is 1 more), and every node of the walk has danger 0 by then (or the
    /// agent has already won), so if the count from h with the walk's dangers cleared exceeds F,
    /// the agent wins. Hubs are tried among the nodes of positive need in the tree from
    /// `agent`: the largest needs and the smallest needs on the shortest walks in turn (`first`,
    /// the hub that won last at the same place, before all). Returns a zone for the win: the walk's nodes with gateway links and the tree zone
    /// from h, with h; or, when no hub wins, the best margin (count less F, at most 0) over the
    /// hubs tried. Leaves the survey of the last hub tried.
    pub(super) fn hub_zone(
        &mut self,
        agent: u32,
        spare: u32,
        tries: usize,
        first: u32,
    ) -> Result<(Zone, u32), i64> {
        self.stats.hub_calls += 1;
        // Two orders taken in turn: the largest needs (a hub that asks much of the virus), and
        // the smallest needs on the shortest walks (on 300/20/120/30 seed 4000 the hubs that win
        // ask 1 or 2 at 7 or 8 free cuts, and came 25th of 30 by need alone).
        let mut by_need: Vec<(u32, u32)> = Vec::new();
        let mut by_walk: Vec<(u32, u32, u32)> = Vec::new();
        for &v in &self.order[1..] {
            let need = self.tree_need[v as usize];
            if need > 0 && v != first {
                by_need.push((u32::MAX - need, v));
                let walk = self.free[v as usize] + u32::from(self.danger_of(v) == 0);
                by_walk.push((need, walk, v));
            }
        }
        by_need.sort_unstable();
        by_walk.sort_unstable();
        // `first`, the hub that won last at the same place, heads the largest needs.
        let first = (self.order[1..].contains(&first) && self.tree_need[first as usize] > 0)
            .then_some(first);
        let mut large = first.into_iter().chain(by_need.iter().map(|&(_, v)| v));
        let mut near = by_walk.iter().map(|&(_, _, v)| v);
        let mut hubs: Vec<u32> = Vec::with_capacity(by_need.len() + 1);
        while hubs.len() < tries {
            let next_large = large.find(|h| !hubs.contains(h));
            next_large.into_iter().for_each(|h| hubs.push(h));
            if hubs.len() == tries {
                break;
            }
            let next_near = near.find(|h| !hubs.contains(h));
            next_near.into_iter().for_each(|h| hubs.push(h));
            if next_large.is_none() && next_near.is_none() {
                break;
            }
        }
        // Each hub's walk (from the survey's cheapest walks) and F, before the surveys from
        // the hubs overwrite them.
        let mut walks: Vec<u32> = Vec::new();
        let mut plan: Vec<(u32, usize, usize, u32)> = Vec::new();
        for &h in hubs.iter().take(tries) {
            let start = walks.len();
            let mut at = h;
            loop {
                walks.push(at);
                if at == agent {
                    break;
                }
                at = self.parent[at as usize];
            }
            let cuts = spare + self.free[h as usize] + u32::from(self.danger_of(h) == 0);
            #[cfg(test)]
            let cuts = if faulty(Fault::HubWalkCuts) { spare } else { cuts };
            plan.push((h, start, walks.len(), cuts));
        }
        let mut best = i64::MIN;
        for (h, start, end, cuts) in plan {
            let walk = &walks[start..end];
            let cleared: Vec<(u32, u32)> = walk
                .iter()
                .filter_map(|&v| match self.net.slot[v as usize] {
                    super::NO_SLOT => None,
                    k => Some((k, self.slot_danger(k))),
                })
                .filter(|&(_, d)| d > 0)
                .collect();
            for &(k, d) in &cleared {
                (0..d).for_each(|_| self.change_danger(k, -1));
            }
            self.stats.hub_surveys += 1;
            self.survey(h);
            // The deadlines from h bound the tree count from h (with that many pre-cuts the
            // virus wins the real game, so the tree game too): when they leave too little, the
            // count is not worth its time, and they stand for it in the margin.
            let shortfall = self.shortfall(0);
            let count = if shortfall > i64::from(cuts) {
                i64::from(self.tree_surplus(h, super::NO_NODE))
            } else {
                shortfall
            };
            best = best.max(count - i64::from(cuts));
            let won = count > i64::from(cuts);
            let zone = won.then(|| self.tree_zone(h, cuts + 1));
            for &(k, d) in &cleared {
                (0..d).for_each(|_| self.change_danger(k, 1));
            }
            if let Some(mut zone) = zone {
                cleared.iter().for_each(|&(k, _)| add_to_zone(&mut zone, k));
                return Ok((zone, h));
            }
        }
        Err(best)
    }

    /// The pre-cuts the virus still needs, over the blocks around `agent`, for it to win with
    /// the agent to move at `agent` (after the last survey, from `agent`): if it is 0 the virus
    /// wins with the agent to move, if at most 1 with its free cut to come.
    pub(super) fn block_need(&mut self, agent: u32) -> u32 {
        let blocks = &self.net.blocks;
        let s = &mut self.block_scratch;
        if s.need.len() < blocks.len() {
            s.root.resize(blocks.len(), 0);
            s.need.resize(blocks.len(), 0);
            s.stamp.resize(blocks.len(), 0);
        }
        s.counter = s.counter.wrapping_add(1);
        if s.counter == 0 {
            s.stamp.iter_mut().for_each(|t| *t = 0);
            s.counter = 1;
        }
        let stamp = s.counter;
        s.order.clear();
        for &b in blocks.of(agent) {
            s.stamp[b as usize] = stamp;
            s.root[b as usize] = agent;
            s.order.push(b);
        }
        let mut i = 0;
        while i < s.order.len() {
            let b = s.order[i];
            i += 1;
            for &w in blocks.members(b) {
                if w == s.root[b as usize] {
                    continue;
                }
                for &child in blocks.of(w) {
                    if s.stamp[child as usize] != stamp {
                        s.stamp[child as usize] = stamp;
                        s.root[child as usize] = w;
                        s.order.push(child);
                    }
                }
            }
        }
        for i in (0..self.block_scratch.order.len()).rev() {
            let b = self.block_scratch.order[i];
            self.block_units(agent, b);
            let need = shortfall(&self.block_scratch.units);
            self.block_scratch.need[b as usize] = need;
        }
        let s = &self.block_scratch;
        let need = self
            .net
            .blocks
            .of(agent)
            .iter()
            .map(|&b| s.need[b as usize])
            .fold(0, u32::saturating_add);
        #[cfg(test)]
        if faulty(Fault::BlockShortByOne) {
            return need.saturating_sub(1);
        }
        need
    }

    /// Fills `block_scratch.units` with block `b`'s deadlines, relative to its root, sorted.
    fn block_units(&mut self, agent: u32, b: u32) {
        let mut units = std::mem::take(&mut self.block_scratch.units);
        units.clear();
        let root = self.block_scratch.root[b as usize];
        let offset =
            self.free[root as usize] + u32::from(root != agent && self.danger_of(root) == 0);
        for &w in self.net.blocks.members(b) {
            if w == root {
                continue;
            }
            let d = self.danger_of(w);
            // Every walk from the agent to w passes the root, so this is w's distance from it.
            debug_assert!(self.free[w as usize] >= offset);
            let g = self.free[w as usize].saturating_sub(offset);
            if d >= 2 {
                units.push((g, d - 1, w, false));
            }
            let children: u32 = self
                .net
                .blocks
                .of(w)
                .iter()
                .filter(|&&c| c != b)
                .map(|&c| self.block_scratch.need[c as usize])
                .fold(0, u32::saturating_add);
            if children > 0 {
                units.push((g + u32::from(d == 0), children, w, true));
            }
        }
        units.sort_unstable();
        self.block_scratch.units = units;
    }

    /// The node whose gateway link to cut first, after [`ExactSolver::block_need`] said the virus
    /// wins: the most urgent deadline of a block that needs a cut (of any block when none does),
    /// followed down into the child block it is a pre-cut for. `None` when there is no deadline.
    pub(super) fn block_cut(&mut self, agent: u32) -> Option<u32> {
        let roots: Vec<u32> = self.net.blocks.of(agent).to_vec();
        let mut block = roots
            .iter()
            .copied()
            .find(|&b| self.block_scratch.need[b as usize] > 0)
            .or_else(|| roots.first().copied())?;
        loop {
            self.block_units(agent, block);
            let &(_, _, w, pre_cut) = self.block_scratch.units.first()?;
            if !pre_cut {
                return Some(w);
            }
            block = self
                .net
                .blocks
                .of(w)
                .iter()
                .copied()
                .find(|&c| c != block && self.block_scratch.need[c as usize] > 0)?;
        }
    }
}

/// The deadline count over sorted units: the most units with free-cut distance t or less
/// beyond t, over every t, or 0.
fn shortfall(units: &[(u32, u32, u32, bool)]) -> u32 {
    let mut count = 0u32;
    let mut worst = 0u32;
    for (i, &(g, k, _, _)) in units.iter().enumerate() {
        count = count.saturating_add(k);
        if units.get(i + 1).is_none_or(|next| next.0 != g) {
            worst = worst.max(count.saturating_sub(g));
        }
    }
    worst
}
