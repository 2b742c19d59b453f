//! Painters' Duel boards: the triangular museum's geometry as bitboards, and the two text formats
//! a board comes in (arena's own keyword file and the Kick Start input).
//!
//! Room `(r, p)` (row `r` from 1, position `p` from 1 to `2r - 1`) is bit `(r - 1)^2 + p - 1` of a
//! bit set ([`Bits`]), so every set operation of the rules and the solver is a handful of
//! instructions. The rules keep their sets as [`Wide`] (192 bits, sides up to [`MAX_SIZE`] = 13);
//! the solver works on a `u128` up to side 11 and on [`Wide`] beyond.

use std::fmt::Write as _;

pub use super::bits::{Bits, Popcnt, Wide};
use crate::game::{InvalidMap, SetupError};

/// The largest side a board may have: 13 * 13 = 169 rooms fit a [`Wide`] set.
pub const MAX_SIZE: u32 = Wide::MAX_SIDE;
/// The largest side of the original problem (Test Set 2).
pub const KICKSTART_MAX_SIZE: u32 = 6;

/// A set of rooms as the rules keep it, one bit per room.
pub type Rooms = Wide;

/// The bit of one room.
#[inline(always)]
pub fn bit<B: Bits>(room: u8) -> B {
    B::bit(room)
}

/// Iterates the rooms of a set, lowest index first.
#[inline]
pub fn rooms<B: Bits>(mut set: B) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if set.is_empty() {
            return None;
        }
        let room = set.trailing_zeros() as u8;
        set = set.without_lowest();
        Some(room)
    })
}

/// The shape of a museum of side `size`: adjacency and colour masks, shared by rules and solver,
/// in the bit sets `B` (the rules' [`Wide`], or the solver's `u128` for sides up to 11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry<B: Bits = Rooms> {
    pub size: u32,
    /// Every room of the museum.
    pub all: B,
    /// The rooms pointing up (odd position); every door joins an up room to a down room, so the
    /// graph is bipartite and a path alternates colours.
    pub up: B,
    /// `neighbours[room]`: the rooms sharing a side with `room`.
    pub neighbours: Vec<B>,
    /// Rooms with a left neighbour (position > 1) and with a right one (not the row's last).
    has_left: B,
    has_right: B,
    /// Per row `r` (entry `r - 1`): its up rooms, whose down neighbour is `2r` bits further;
    /// empty for the last row and beyond. A fixed array of the most rows any set type holds, so
    /// [`Geometry::at_most_one_neighbour_in`] shifts by constants (a shift of a two- or
    /// three-word set by a count known only at run time costs a test and conditional moves per
    /// word; `perf` on S = 11 showed those as the path bound's hottest instructions).
    vertical: [B; VERTICAL_ROWS],
}

/// The most rows with a door down: a museum of side 13, the largest any set type holds, has 12.
const VERTICAL_ROWS: usize = 12;

impl<B: Bits> Geometry<B> {
    pub fn new(size: u32) -> Geometry<B> {
        let max = B::MAX_SIDE;
        assert!((1..=max).contains(&size), "museum side {size} outside 1..={max}");
        debug_assert!(max as usize <= VERTICAL_ROWS + 1, "a set type larger than the rows kept");
        let cells = (size * size) as usize;
        let mut neighbours = vec![B::ZERO; cells];
        let mut up = B::ZERO;
        for r in 1..=size {
            for p in 1..=2 * r - 1 {
                let room = index(r, p);
                let mut set = B::ZERO;
                if p > 1 {
                    set |= bit(index(r, p - 1));
                }
                if p < 2 * r - 1 {
                    set |= bit(index(r, p + 1));
                }
                if p % 2 == 1 {
                    up |= bit(room);
                    if r < size {
                        set |= bit(index(r + 1, p + 1));
                    }
                } else {
                    set |= bit(index(r - 1, p - 1));
                }
                neighbours[room as usize] = set;
            }
        }
        let all = B::first(cells);
        let (mut has_left, mut has_right) = (B::ZERO, B::ZERO);
        let mut vertical = [B::ZERO; VERTICAL_ROWS];
        for r in 1..=size {
            let mut row_up = B::ZERO;
            for p in 1..2 * r {
                let b: B = bit(index(r, p));
                if p > 1 {
                    has_left |= b;
                }
                if p < 2 * r - 1 {
                    has_right |= b;
                }
                if p % 2 == 1 {
                    row_up |= b;
                }
            }
            if r < size {
                vertical[r as usize - 1] = row_up;
            }
        }
        Geometry { size, all, up, neighbours, has_left, has_right, vertical }
    }

    /// The rooms with at most one neighbour in `set`, by word operations rather than room by
    /// room: one set per door direction, then "not in two of them".
    #[inline]
    pub fn at_most_one_neighbour_in(&self, set: B) -> B {
        let left = (set << 1) & self.has_left;
        let right = (set >> 1) & self.has_right;
        let mut vertical = B::ZERO;
        // Unrolled by hand, one constant shift per row.
        macro_rules! rows {
            ($($r:literal)*) => {$({
                let row_up = self.vertical[$r - 1];
                vertical |= ((set >> (2 * $r)) & row_up) | ((set & row_up) << (2 * $r));
            })*};
        }
        rows!(1 2 3 4 5 6 7 8 9 10 11 12);
        !((left & right) | (left & vertical) | (right & vertical))
    }

    pub fn rooms(&self) -> usize {
        (self.size * self.size) as usize
    }

    /// Whether `(r, p)` is a room of this museum.
    pub fn contains(&self, r: u32, p: u32) -> bool {
        (1..=self.size).contains(&r) && (1..2 * r).contains(&p)
    }

    /// Every room next to a room of `set`: one breadth-first step.
    #[inline]
    pub fn neighbours_of(&self, set: B) -> B {
        let mut next = B::ZERO;
        for room in rooms(set) {
            next |= self.neighbours[room as usize];
        }
        next
    }

    /// The rooms of `open` reachable from `from` (included when open) through open rooms.
    #[inline]
    pub fn component(&self, open: B, from: B) -> B {
        let mut reached = from & open;
        let mut frontier = reached;
        while !frontier.is_empty() {
            frontier = self.neighbours_of(frontier) & open & !reached;
            reached |= frontier;
        }
        reached
    }
}

/// The bit index of room `(r, p)`.
#[inline]
pub fn index(r: u32, p: u32) -> u8 {
    ((r - 1) * (r - 1) + p - 1) as u8
}

/// The `(row, position)` of a bit index.
pub fn coords(room: u8) -> (u32, u32) {
    let room = room as u32;
    let r = room.isqrt() + 1;
    (r, room - (r - 1) * (r - 1) + 1)
}

/// One museum: its side, the rooms under construction and where the painters start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub geometry: Geometry,
    /// Rooms under construction: never entered.
    pub blocked: Rooms,
    /// Alma's and Berthe's starting rooms.
    pub starts: [u8; 2],
}

impl Board {
    /// Checks a board; `Err` says what is wrong in words.
    pub fn new(
        size: u32,
        alma: (u32, u32),
        berthe: (u32, u32),
        blocked: &[(u32, u32)],
    ) -> Result<Board, InvalidMap> {
        Board::build(size, alma, berthe, blocked).map_err(InvalidMap)
    }

    fn build(
        size: u32,
        alma: (u32, u32),
        berthe: (u32, u32),
        blocked: &[(u32, u32)],
    ) -> Result<Board, String> {
        if !(1..=MAX_SIZE).contains(&size) {
            return Err(format!("side {size} outside 1..={MAX_SIZE}"));
        }
        let geometry: Geometry = Geometry::new(size);
        let room = |what: &str, (r, p): (u32, u32)| {
            if geometry.contains(r, p) {
                Ok(index(r, p))
            } else {
                Err(format!("{what} room ({r}, {p}) is not in a museum of side {size}"))
            }
        };
        let a = room("Alma's", alma)?;
        let b = room("Berthe's", berthe)?;
        if a == b {
            return Err(format!("both painters start in room ({}, {})", alma.0, alma.1));
        }
        let mut set = Rooms::ZERO;
        for &rp in blocked {
            let x = room("the blocked", rp)?;
            if x == a || x == b {
                return Err(format!("room ({}, {}) is a start and under construction", rp.0, rp.1));
            }
            set |= bit(x);
        }
        Ok(Board { geometry, blocked: set, starts: [a, b] })
    }

    pub fn size(&self) -> u32 {
        self.geometry.size
    }

    /// The rooms under construction as `(r, p)`, in row-major order.
    pub fn blocked_coords(&self) -> Vec<(u32, u32)> {
        rooms(self.blocked).map(coords).collect()
    }

    /// The board in Kick Start input form (one case, without the `T` line).
    pub fn kickstart_case(&self) -> String {
        let (ra, pa) = coords(self.starts[0]);
        let (rb, pb) = coords(self.starts[1]);
        let blocked = self.blocked_coords();
        let mut s = format!("{} {ra} {pa} {rb} {pb} {}\n", self.size(), blocked.len());
        for (r, p) in blocked {
            let _ = writeln!(s, "{r} {p}");
        }
        s
    }

    /// The board in arena's board-file format.
    pub fn to_board_file(&self, comment: &str) -> String {
        let mut s = String::new();
        for line in comment.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let (ra, pa) = coords(self.starts[0]);
        let (rb, pb) = coords(self.starts[1]);
        let _ = writeln!(s, "size {}\nalma {ra} {pa}\nberthe {rb} {pb}", self.size());
        for (r, p) in self.blocked_coords() {
            let _ = writeln!(s, "blocked {r} {p}");
        }
        s
    }
}

/// The two formats a board comes in, told apart by the first word outside `#` comments:
/// arena's board file starts with a keyword (`size`), a Kick Start input with a number.
/// A first word that is neither gets an error naming both formats.
fn is_kickstart(name: &str, text: &str) -> Result<bool, SetupError> {
    let (line, first) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| {
            l.split('#').next().unwrap_or("").split_whitespace().next().map(|w| (i + 1, w))
        })
        .ok_or_else(|| SetupError::map(name, None, "the board is empty"))?;
    if first.starts_with(|c: char| c.is_ascii_digit()) {
        Ok(true)
    } else if ["size", "alma", "berthe", "blocked"].contains(&first) {
        Ok(false)
    } else {
        Err(SetupError::map(
            name,
            Some(line),
            format!(
                "`{first}` starts neither a Kick Start input (the number of cases T) nor a board \
                 file (size, alma, berthe, blocked)"
            ),
        ))
    }
}

/// Reads a board from either format: arena's board file (first word `size`) or the Kick Start
/// input (first word a number), whose case `case` (1-based) is taken.
pub fn parse_board(name: &str, text: &str, case: usize) -> Result<Board, SetupError> {
    if is_kickstart(name, text)? {
        let cases = parse_kickstart(name, text)?;
        let count = cases.len();
        cases.into_iter().nth(case.wrapping_sub(1)).ok_or_else(|| {
            SetupError::map(name, None, format!("no case {case} (the file has {count})"))
        })
    } else {
        parse_board_file(name, text)
    }
}

/// Reads every board of a file in either format: the one board of arena's board file (what
/// `arena gen painters` writes) or every case of a Kick Start input.
pub fn parse_boards(name: &str, text: &str) -> Result<Vec<Board>, SetupError> {
    if is_kickstart(name, text)? {
        parse_kickstart(name, text)
    } else {
        Ok(vec![parse_board_file(name, text)?])
    }
}

/// Reads arena's board file: `#` comments, then `size S`, `alma R P`, `berthe R P` and any number
/// of `blocked R P` lines, in any order.
pub fn parse_board_file(name: &str, text: &str) -> Result<Board, SetupError> {
    let mut size = None;
    let mut alma = None;
    let mut berthe = None;
    let mut blocked = Vec::new();
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let err = |m: String| SetupError::map(name, Some(line_no), m);
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        last_line = line_no;
        let words: Vec<&str> = line.split_whitespace().collect();
        let nums = |n: usize| -> Result<Vec<u32>, SetupError> {
            if words.len() != n + 1 {
                return Err(err(format!("`{}` takes {n} number(s), found `{line}`", words[0])));
            }
            words[1..]
                .iter()
                .map(|w| w.parse::<u32>().map_err(|_| err(format!("`{w}` is not a number"))))
                .collect()
        };
        let once = |taken: bool, what: &str| {
            if taken { Err(err(format!("a second `{what}` line"))) } else { Ok(()) }
        };
        match words[0] {
            "size" => {
                once(size.is_some(), "size")?;
                let s = nums(1)?[0];
                if !(1..=MAX_SIZE).contains(&s) {
                    return Err(err(format!("side {s} outside 1..={MAX_SIZE}")));
                }
                size = Some(s);
            }
            "alma" | "berthe" => {
                let v = nums(2)?;
                let slot = if words[0] == "alma" { &mut alma } else { &mut berthe };
                once(slot.is_some(), words[0])?;
                *slot = Some(((v[0], v[1]), line_no));
            }
            "blocked" => {
                let v = nums(2)?;
                if blocked.iter().any(|&(rp, _)| rp == (v[0], v[1])) {
                    return Err(err(format!("room ({}, {}) is listed twice", v[0], v[1])));
                }
                blocked.push(((v[0], v[1]), line_no));
            }
            w => {
                return Err(err(format!("unknown keyword `{w}` (size, alma, berthe, blocked)")));
            }
        }
    }
    let missing = |what: &str| SetupError::map(name, None, format!("no `{what}` line"));
    let size = size.ok_or_else(|| missing("size"))?;
    let (alma, alma_line) = alma.ok_or_else(|| missing("alma"))?;
    let (berthe, berthe_line) = berthe.ok_or_else(|| missing("berthe"))?;
    // Check room by room first, so an error names the line at fault.
    let geometry: Geometry = Geometry::new(size);
    for &((r, p), line) in [(alma, alma_line), (berthe, berthe_line)].iter().chain(blocked.iter()) {
        if !geometry.contains(r, p) {
            return Err(SetupError::map(
                name,
                Some(line),
                format!("room ({r}, {p}) is not in a museum of side {size}"),
            ));
        }
    }
    let coords: Vec<(u32, u32)> = blocked.iter().map(|&(rp, _)| rp).collect();
    Board::new(size, alma, berthe, &coords).map_err(|m| SetupError::map(name, Some(last_line), m))
}

/// Reads a Kick Start input: `T`, then per case `S RA PA RB PB C` and `C` lines `R P`.
pub fn parse_kickstart(name: &str, text: &str) -> Result<Vec<Board>, SetupError> {
    let mut tokens = text
        .lines()
        .enumerate()
        .flat_map(|(i, l)| l.split_whitespace().map(move |w| (i + 1, w)))
        .peekable();
    let mut last = 1;
    let mut next = |what: &str| -> Result<(u32, usize), SetupError> {
        match tokens.next() {
            Some((line, w)) => {
                last = line;
                w.parse::<u32>().map(|v| (v, line)).map_err(|_| {
                    SetupError::map(name, Some(line), format!("{what}: `{w}` is not a number"))
                })
            }
            None => Err(SetupError::map(
                name,
                Some(last),
                format!("the input ends where {what} was expected"),
            )),
        }
    };
    let (t, _) = next("the number of cases T")?;
    let mut boards = Vec::with_capacity(t.min(1000) as usize);
    for case in 1..=t {
        let what = |w: &str| format!("case {case}: {w}");
        let (s, line) = next(&what("S"))?;
        let ra = next(&what("RA"))?.0;
        let pa = next(&what("PA"))?.0;
        let rb = next(&what("RB"))?.0;
        let pb = next(&what("PB"))?.0;
        let c = next(&what("C"))?.0;
        let mut blocked = Vec::with_capacity(c.min(128) as usize);
        for i in 1..=c {
            let r = next(&what(&format!("row of construction room {i}")))?.0;
            let p = next(&what(&format!("position of construction room {i}")))?.0;
            blocked.push((r, p));
        }
        let board = Board::new(s, (ra, pa), (rb, pb), &blocked)
            .map_err(|m| SetupError::map(name, Some(line), format!("case {case}: {m}")))?;
        boards.push(board);
    }
    Ok(boards)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    #[test]
    fn indices_and_coordinates_round_trip() {
        let g: Geometry = Geometry::new(MAX_SIZE);
        for r in 1..=MAX_SIZE {
            for p in 1..2 * r {
                assert_eq!(coords(index(r, p)), (r, p));
            }
        }
        assert_eq!(g.rooms(), 169);
        assert_eq!(g.all.count_ones(), 169);
    }

    #[test]
    fn adjacency_matches_the_statement_and_is_symmetric() {
        let g: Geometry = Geometry::new(3);
        let n = |r, p| -> Vec<(u32, u32)> {
            rooms(g.neighbours[index(r, p) as usize]).map(coords).collect()
        };
        assert_eq!(n(2, 2), vec![(1, 1), (2, 1), (2, 3)]);
        assert_eq!(n(1, 1), vec![(2, 2)]);
        assert_eq!(n(2, 1), vec![(2, 2), (3, 2)]);
        assert_eq!(n(3, 3), vec![(3, 2), (3, 4)]);
        assert_eq!(n(3, 4), vec![(2, 3), (3, 3), (3, 5)]);
        assert_eq!(n(3, 5), vec![(3, 4)]);
        for a in 0..g.rooms() as u8 {
            for b in rooms(g.neighbours[a as usize]) {
                assert!(g.neighbours[b as usize].has(a));
                assert_ne!(g.up.has(a), g.up.has(b), "doors join opposite colours");
            }
        }
    }

    /// The geometry in either kind of bit set is the same museum, and the word operations of
    /// the dead-end count agree with counting doors room by room on the widest museum, whose
    /// rows straddle the words of a [`Wide`] set.
    #[test]
    fn the_geometry_is_one_museum_in_every_width() {
        for size in 1..=u128::MAX_SIDE {
            let (narrow, wide) = (Geometry::<u128>::new(size), Geometry::<Wide>::new(size));
            assert_eq!(narrow.all.to_wide(), wide.all);
            assert_eq!(narrow.up.to_wide(), wide.up);
            let n: Vec<Wide> = narrow.neighbours.iter().map(|s| s.to_wide()).collect();
            assert_eq!(n, wide.neighbours);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for size in [12, MAX_SIZE] {
            let g: Geometry = Geometry::new(size);
            assert!(rooms(g.all).eq(0..(size * size) as u8));
        }
        // Every side in both widths: the count unrolls one shift per row, so a row left out
        // (or shifted by the wrong amount) shows on the sides that have it.
        for size in 1..=MAX_SIZE {
            dead_ends_agree_room_by_room(&Geometry::<Wide>::new(size), &mut rng, Wide);
            if size <= u128::MAX_SIDE {
                let narrow = |w: [u64; 3]| u128::from(w[0]) | u128::from(w[1]) << 64;
                dead_ends_agree_room_by_room(&Geometry::<u128>::new(size), &mut rng, narrow);
            }
        }
    }

    fn dead_ends_agree_room_by_room<B: Bits>(
        g: &Geometry<B>,
        rng: &mut ChaCha8Rng,
        from_words: impl Fn([u64; 3]) -> B,
    ) {
        for _ in 0..200 {
            let set = from_words(rng.random()) & g.all;
            let slow = rooms(g.all)
                .filter(|&r| (g.neighbours[r as usize] & set).count_ones() <= 1)
                .fold(B::ZERO, |acc, r| acc | B::bit(r));
            assert_eq!(g.all & g.at_most_one_neighbour_in(set), slow, "side {}", g.size);
        }
    }

    #[test]
    fn both_formats_read_the_same_board() {
        let ks = "1\n3 1 1 3 5 2\n2 2\n3 3\n";
        let file = "# a test\nsize 3\nalma 1 1\nberthe 3 5\nblocked 2 2\nblocked 3 3\n";
        let a = parse_board("ks", ks, 1).unwrap();
        let b = parse_board("file", file, 1).unwrap();
        assert_eq!(a, b);
        assert_eq!(parse_board("again", &a.to_board_file("x"), 1).unwrap(), a);
        assert_eq!(a.kickstart_case(), "3 1 1 3 5 2\n2 2\n3 3\n");
    }

    #[test]
    fn errors_name_the_line() {
        let bad = "size 3\nalma 1 1\nberthe 3 5\nblocked 4 1\n";
        let e = parse_board("bad.txt", bad, 1).unwrap_err().to_string();
        assert!(e.contains("bad.txt") && e.contains("line 4"), "{e}");
        let e = parse_board("x", "size 3\nalma 1 one\n", 1).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("`one`"), "{e}");
        let e = parse_board("ks", "2\n2 1 1 2 1 0\n2 1 1 2 1 1\n", 1).unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        let e = parse_board("ks", "1\n2 1 1 1 1 0\n", 1).unwrap_err().to_string();
        assert!(e.contains("both painters"), "{e}");
        // Beyond the largest side, in either format.
        let e = parse_board("big.txt", "size 14\nalma 1 1\nberthe 2 1\n", 1).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("big.txt") && e.contains("line 1") && e.contains("1..=13"), "{e}");
        let e = parse_board("big.in", "1\n14 1 1 2 1 0\n", 1).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("side 14"), "{e}");
        // Side 13 is read.
        let b = parse_board("b", "1\n13 1 1 13 25 1\n12 23\n", 1).unwrap();
        assert_eq!((b.size(), b.blocked_coords()), (13, vec![(12, 23)]));
    }
}
