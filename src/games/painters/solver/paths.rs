//! Longest simple paths in a region of open rooms, and the bounds that cut their search: what a
//! painter can still paint once the painters' regions are apart.

use super::{Solver, Wrong, settled};
use crate::games::painters::map::{Bits, Geometry, rooms};

/// How far above a caller's cut [`Solver::path_bound_to`] still peels dead ends. Peeling
/// whenever the bound misses the cut visits no fewer positions than within 2 on open S = 11
/// boards and costs a third of the search's time in peeling; within 1 spares half as many
/// positions as within 2 (docs/painters.md, "Benchmarks").
const PEEL_MARGIN: i32 = 2;

/// Breadth-first layers from the rooms `start` (the open rooms next to a painter) through
/// `through`, cumulative: writes `layers[k]` = the rooms within `k` moves of the painter
/// (`layers[0]` empty) up to the first step that reaches every room it ever will, and returns
/// those rooms (the painter's region) and how many entries it wrote.
#[inline]
pub(super) fn layers_into<B: Bits>(
    geo: &Geometry<B>,
    layers: &mut [B],
    start: B,
    through: B,
) -> (B, usize) {
    let (mut reached, mut frontier, mut len) = (start, start, 1);
    layers[0] = B::ZERO;
    while !frontier.is_empty() {
        layers[len] = reached;
        len += 1;
        frontier = geo.neighbours_of(frontier) & through & !reached;
        reached |= frontier;
    }
    (reached, len)
}

impl<B: Bits> Solver<B> {
    /// The most rooms a path from a room of colour `from_up` can enter among `region`'s rooms,
    /// counting colours only: the rooms entered alternate colours (the museum graph is
    /// bipartite), starting with the other colour.
    #[inline]
    fn colour_count(&self, from_up: bool, region: B) -> i32 {
        let up = (region & self.geo.up).count_ones() as i32;
        let down = (region & !self.geo.up).count_ones() as i32;
        let (same, opposite) = if from_up { (up, down) } else { (down, up) };
        // Rooms entered alternate opposite, same, opposite, ...
        (same + opposite).min(2 * opposite).min(2 * same + 1)
    }

    /// An upper bound on the rooms a painter at `from` can still paint in `region` (the open
    /// rooms it can reach), by colours: the museum graph is bipartite.
    #[inline]
    pub fn colour_bound(&self, from: u8, region: B) -> i32 {
        self.colour_count(self.geo.up.has(from), region)
    }

    /// [`Solver::colour_bound`] refined by dead ends: a room with one open door (counting
    /// `from`'s) can only be a path's last room, so the path before its last room keeps to the
    /// other rooms, and the colour count applies to them.
    ///
    /// Why: a room the path enters and leaves uses two distinct doors, into the room before it
    /// (`from` or a room of `region`) and into the room after it (in `region`); a room with at
    /// most one door into `region + from` has not two. The first `k - 1` rooms of a path of `k`
    /// then avoid the dead ends and alternate colours from `from`'s opposite, as in the colour
    /// count.
    #[inline]
    pub fn path_bound(&self, from: u8, region: B) -> i32 {
        self.path_bound_to(from, region, i32::MAX)
    }

    /// [`Solver::path_bound`], and when that misses `enough` by at most [`PEEL_MARGIN`], the
    /// dead ends peeled in further layers until the bound is at most `enough` or no room is
    /// left to peel: a room with one door left once the dead ends are gone can only be a path's
    /// last room but one, and so on, so the path's first `k - j` rooms keep to the rooms left
    /// after `j` layers. Peeling looks at the neighbours of each layer, which costs more than
    /// the rest of the bound, so it is done only where a caller has a cut nearly made
    /// (`enough`: a bound at or below it makes the cut; the answer is a true bound either way).
    ///
    /// Why: let `I_0 = region` and `D_j` the rooms of `I_(j-1)` with at most one door into
    /// `I_(j-1) + from`, `I_j = I_(j-1) - D_j`. Claim: in a path `x_1 .. x_k` from `from`, every
    /// `x_i` with `i <= k - j` lies in `I_j`. For `j = 0` it is the region. For `j >= 1`, such
    /// an `x_i` is entered and left: the room before it is `from` or `x_(i-1)` and the room
    /// after it `x_(i+1)`, both in `I_(j-1) + from` (by the claim for `j - 1`, as `i - 1` and
    /// `i + 1` are at most `k - j + 1`), and distinct, so `x_i` has two doors there and is not
    /// in `D_j`. The rooms `x_1 .. x_(k-j)` then alternate colours from `from`'s opposite, as in
    /// the colour count: `k - j <= colour count of I_j`. A room joins `D_(j+1)` only when one of
    /// its doors led into `D_j`, so each layer looks at the neighbours of the last one only.
    #[inline]
    pub(super) fn path_bound_to(&self, from: u8, region: B, enough: i32) -> i32 {
        let from_up = self.geo.up.has(from);
        let by_colour = self.colour_count(from_up, region);
        let doors = if self.wrong(Wrong::DeadEnds) { region } else { region | B::bit(from) };
        let dead_ends = region & self.geo.at_most_one_neighbour_in(doors);
        let slack = i32::from(self.wrong(Wrong::PathBound));
        if dead_ends.is_empty() {
            return by_colour - slack;
        }
        let mut left = region & !dead_ends;
        let mut bound = by_colour.min(self.colour_count(from_up, left) + 1);
        if bound.saturating_sub(enough) > PEEL_MARGIN {
            return bound - slack;
        }
        // The wrong rule counts a later layer's doors without `from`'s.
        let own = if self.wrong(Wrong::PeelDoors) { B::ZERO } else { B::bit(from) };
        let (mut peeled, mut layer) = (dead_ends, 1);
        while bound > enough {
            let mut next = B::ZERO;
            for room in rooms(self.geo.neighbours_of(peeled) & left) {
                if (self.geo.neighbours[room as usize] & (left | own)).count_ones() <= 1 {
                    next |= B::bit(room);
                }
            }
            if next.is_empty() {
                break;
            }
            left &= !next;
            layer += 1;
            bound = bound.min(self.colour_count(from_up, left) + layer);
            peeled = next;
        }
        bound - slack
    }

    /// The longest simple path from `from` into `region` (the open rooms reachable from it),
    /// counted in rooms entered. Exact; memoised on `(region, from)`.
    pub fn longest(&mut self, from: u8, region: B) -> i32 {
        self.longest_within(from, region, -1, i32::from(u8::MAX))
    }

    /// [`Solver::longest`] asked only whether it lies below, inside or above `(low, high)`,
    /// fail-soft like the game search: a result `<= low` is an upper bound, `>= high` a lower
    /// bound, anything between exact. A narrow window stops at the first path long enough, and
    /// skips exits that cannot reach the window. The memo keeps both bounds.
    pub(super) fn longest_within(&mut self, from: u8, region: B, low: i32, high: i32) -> i32 {
        let exits = self.geo.neighbours[from as usize] & region;
        if exits.is_empty() {
            return 0;
        }
        let mut bound = self.path_bound_to(from, region, low.max(1));
        if bound <= 1 || bound <= low {
            return bound;
        }
        self.stats.path_nodes += 1;
        if self.tick() {
            return 0;
        }
        let slot = self.path_slot(region, from);
        let e = self.paths[slot];
        let mut best = 0;
        if e.used && e.open == region && e.from == from {
            let (lower, upper) = (e.lower as i32, e.upper as i32);
            if let Some(v) = settled((lower, upper), (low, high)) {
                return v;
            }
            bound = bound.min(upper);
            best = lower;
        }
        // A greedy walk is a path: if it meets the bound it is a longest one, else it is the
        // length the search has to beat.
        best = best.max(self.walk(from, region));
        if best >= bound || best >= high {
            return best;
        }
        // Each exit's own bound (the rooms still reachable once it is painted) tightens the
        // whole bound, and the most promising exit is searched first.
        let mut children = [(0i32, 0u8, B::ZERO); 3];
        let mut count = 0;
        for next in rooms(exits) {
            let rest = region & !B::bit(next);
            let sub = self.geo.component(rest, self.geo.neighbours[next as usize] & rest);
            children[count] = (self.path_bound(next, sub), next, sub);
            count += 1;
            self.prefetch_path(self.path_slot(sub, next));
        }
        let children = &mut children[..count];
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.0));
        bound = bound.min(1 + children[0].0);
        // `upper`: the most any exit can give, as far as the searches below have proved.
        let mut upper = best;
        for &(child_bound, next, sub) in children.iter() {
            let floor = best.max(low);
            if best >= bound || best >= high {
                break;
            }
            // An exit bounded below the floor gives at most `child_bound + 1 <= floor`; one that
            // ties the floor may still give `floor + 1`, so it is searched.
            if child_bound < floor || (self.wrong(Wrong::ChildSkip) && child_bound == floor) {
                // Exits are sorted by bound: none left can beat the floor.
                upper = upper.max(1 + child_bound);
                break;
            }
            let v = 1 + self.longest_within(next, sub, floor - 1, high - 1);
            if v > floor {
                // Exact or failed high: a path that long exists.
                best = best.max(v);
            }
            upper = upper.max(v);
        }
        let upper = if best >= high { bound } else { upper.min(bound).max(best) };
        if !self.budget.is_out() {
            self.store_path(slot, region, from, best, upper);
        }
        if best >= high { best } else { upper }
    }

    /// A path the painter at `from` can paint whatever the other painter, at `rival`, does: its
    /// `i`-th room is one the rival cannot reach in `i - 1 + rival_first` moves (`rival_first`:
    /// the rival moves before this painter's first move), so this painter gets there first.
    ///
    /// Why the rival cannot take one first: when this painter makes its `i`-th move the rival
    /// has made at most `i - 1 + rival_first` moves, each into an open room next to the last, so
    /// everything it painted is within that many breadth-first steps of its room through the
    /// open rooms (the rooms this painter paints only slow it down). A room beyond them is
    /// still open. And the rival never enters a walk room later: by then it is painted.
    ///
    /// The distances may leave out the rooms walked before (the walk goes on in phases: when
    /// no room is safe, the rival's distances are measured again without the rooms walked so
    /// far, and the walk continues with the same count of the rival's moves). Why: take the
    /// first walk room `wj` the rival ever enters, at its `k`-th move. `wj` is still open, so
    /// this painter has not made its `j`-th move, and `k <= j - 1 + f`. The rooms the rival
    /// entered before are open rooms of `region` and, `wj` being the first, none is a walk
    /// room, so `wj` is within `k` steps of the rival through `region` without the walk's
    /// other rooms, in particular without the rooms walked before `wj`'s phase began: that
    /// phase's distance of `wj` is at most `j - 1 + f`, which the walk ruled out. So the rival
    /// enters no walk room. (Restarting the count in a later phase is wrong, and caught.)
    ///
    /// Which safe room next (any choice keeps the proof): the one the rival reaches soonest
    /// (the front between the painters first, so the walk tends to wall the rival off from the
    /// rooms behind it, which [`Solver::territory_parts`] then denies the rival), then Warnsdorff's
    /// rule (fewest onward safe exits, a room with none last). With the hinterland it walls off,
    /// the benchmark's open S = 10 and S = 11 boards visit 20 to 28 % fewer positions than with
    /// Warnsdorff's rule alone (docs/painters.md, "Benchmarks").
    ///
    /// `first`: the rival's breadth-first layers through `region` when the caller has them
    /// (see [`layers_into`]; the game search measures them anyway as it floods the mover's
    /// region, so the walk's first phase costs no search of its own). Returns the walk's rooms
    /// (in no order), the room it ends in (`from` when empty), and the rooms the rival can
    /// still reach once the walk is painted (its last phase measured them).
    pub fn safe_walk(
        &mut self,
        first: Option<&[B]>,
        from: u8,
        rival: u8,
        region: B,
        rival_first: bool,
    ) -> (B, u8, B) {
        let mut buffer = std::mem::take(&mut self.walk_layers);
        let geo = &self.geo;
        // `within[k]`: the rooms the rival reaches in at most `k` moves through `region` less
        // the walk's rooms so far (the last entry: every room it ever reaches), so `r` is safe
        // as the walk's `i`-th room when it is not in `within[i - 1 + f]`.
        let late = rival_first && !self.wrong(Wrong::SafeWalkLate);
        // The rival's moves before this painter's `i`-th, less one: `i - 1 + f`.
        let mut ahead = usize::from(late);
        let (mut at, mut path) = (from, B::ZERO);
        let mut given = first;
        loop {
            // A phase: the rival's distances around the walk so far, then safe rooms while
            // there are any. The next phase measures again without the rooms walked: they
            // wall the rival off, so rooms next to the walk's end may have become safe.
            let within: &[B] = match given.take() {
                Some(layers) => layers,
                None => {
                    let through = region & !path;
                    let start = geo.neighbours[rival as usize] & through;
                    let (_, len) = layers_into(geo, &mut buffer, start, through);
                    &buffer[..len]
                }
            };
            let last = within.len() - 1;
            let within_at = |k: usize| within[k.min(last)];
            let phase_start = path;
            loop {
                let safe = geo.neighbours[at as usize] & region & !path & !within_at(ahead);
                if safe.is_empty() {
                    break;
                }
                // The safe rooms with no onward safe exit last, then the ones the rival
                // reaches soonest (fewest moves, more than `ahead`; unreached ones after
                // them), then the fewest onward safe exits, then the lowest room.
                let onward = |r: u8| {
                    (geo.neighbours[r as usize] & region & !path & !within_at(ahead + 1))
                        .count_ones()
                };
                let mut group = B::ZERO;
                for r in rooms(safe) {
                    if onward(r) > 0 {
                        group |= B::bit(r);
                    }
                }
                if group.is_empty() {
                    group = safe;
                }
                // The layers are cumulative, so the first that meets `group` holds its rooms
                // nearest the rival.
                let later = &within[(ahead + 1).min(last)..];
                let meets = |w: &B| !(*w & group).is_empty();
                // Mostly the front, one or two steps on: looked at first.
                let nearest = match later.iter().take(2).position(meets) {
                    Some(k) => k,
                    None => later.partition_point(|w| !meets(w)),
                };
                if nearest < later.len() {
                    group &= later[nearest];
                }
                let next = rooms(group).min_by_key(|&r| onward(r)).expect("a safe room");
                path |= B::bit(next);
                at = next;
                ahead += 1;
            }
            if path == phase_start {
                // This phase measured the rival's distances without the whole walk.
                let reach = within[last];
                self.walk_layers = buffer;
                return (path, at, reach);
            }
            if self.wrong(Wrong::SafeWalkRestart) {
                ahead = usize::from(late);
            }
        }
    }

    /// The length of one path from `from` into `region`, by Warnsdorff's rule: always into the
    /// room with the fewest onward exits, so dead ends are taken last. A lower bound on
    /// [`Solver::longest`], often equal to it.
    pub fn walk(&self, from: u8, region: B) -> i32 {
        let (mut at, mut left, mut length) = (from, region, 0);
        loop {
            let exits = self.geo.neighbours[at as usize] & left;
            if exits.is_empty() {
                return length + i32::from(self.wrong(Wrong::Walk) && length > 0);
            }
            let next = rooms(exits)
                .min_by_key(|&r| (self.geo.neighbours[r as usize] & left).count_ones())
                .expect("an exit");
            left &= !B::bit(next);
            at = next;
            length += 1;
        }
    }
}
