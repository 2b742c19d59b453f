//! Sets of rooms as fixed-width bit sets. The geometry, the rules' checks and the whole solver
//! are written once over [`Bits`]: a `u128` holds museums up to side 11 (121 rooms) in two
//! machine words, and [`Wide`], three `u64` words, holds sides 12 and 13 (144 and 169 rooms).
//! The solver is built for one of them by side, once, where a board is loaded
//! ([`super::solver::BoardSolver`]), so boards that fit a `u128` pay nothing for the wider ones.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Shl, Shr};

use crate::seed::mix_key;

/// A set of rooms, one bit per room index (see [`super::map::index`]): what the solver needs of
/// a bit set, all of it a few word operations.
pub trait Bits:
    Copy
    + Eq
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// The empty set.
    const ZERO: Self;
    /// The largest museum side whose rooms (side squared) fit.
    const MAX_SIDE: u32;
    /// How many room indices a set has (the stride of per-room tables).
    const CAPACITY: usize;
    /// A table bound meaning "no bound known": beyond every value of a board that fits (a
    /// value is at most the number of rooms).
    const UNBOUNDED: i16;

    /// The set of one room.
    fn bit(room: u8) -> Self;
    /// The rooms `0..n`.
    fn first(n: usize) -> Self;
    fn count_ones(self) -> u32;
    /// The lowest room of the set (`CAPACITY` or more when empty).
    fn trailing_zeros(self) -> u32;
    /// The set without its lowest room.
    fn without_lowest(self) -> Self;
    /// A 64-bit hash of the set and two rooms, for the solver's tables.
    fn key(self, a: u8, b: u8) -> u64;
    /// The same set as the rules' [`Wide`] sets, and back (the set must fit).
    fn to_wide(self) -> Wide;
    fn from_wide(wide: Wide) -> Self;

    #[inline]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }

    /// Whether `room` is in the set.
    #[inline]
    fn has(self, room: u8) -> bool {
        !(self & Self::bit(room)).is_empty()
    }
}

impl Bits for u128 {
    const ZERO: u128 = 0;
    const MAX_SIDE: u32 = 11;
    const CAPACITY: usize = 128;
    // As before the wide sets came: a value of a side-11 board is at most 121.
    const UNBOUNDED: i16 = 127;

    #[inline(always)]
    fn bit(room: u8) -> u128 {
        1u128 << room
    }
    #[inline(always)]
    fn first(n: usize) -> u128 {
        if n >= 128 { u128::MAX } else { (1u128 << n) - 1 }
    }
    #[inline(always)]
    fn count_ones(self) -> u32 {
        u128::count_ones(self)
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        u128::trailing_zeros(self)
    }
    #[inline(always)]
    fn without_lowest(self) -> u128 {
        self & self.wrapping_sub(1)
    }
    #[inline(always)]
    fn key(self, a: u8, b: u8) -> u64 {
        mix_key(self, a, b)
    }
    #[inline]
    fn to_wide(self) -> Wide {
        Wide([self as u64, (self >> 64) as u64, 0])
    }
    #[inline]
    fn from_wide(wide: Wide) -> u128 {
        debug_assert_eq!(wide.0[2], 0, "a set of rooms beyond 128 bits");
        u128::from(wide.0[0]) | u128::from(wide.0[1]) << 64
    }
}

/// A `u128` whose [`Bits::count_ones`] is the `popcnt` instruction. The build targets every
/// `x86_64` processor, so `u128::count_ones` is two dozen shifts and masks there, and the solver
/// counts rooms in every bound: with one instruction per word it runs the same search with about
/// a fifth fewer instructions. [`super::solver::BoardSolver`] picks this type only where the
/// processor has `popcnt` ([`Popcnt::available`]; every `x86_64` one since about 2008), so the
/// binary still runs everywhere.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Popcnt(pub u128);

impl Popcnt {
    /// Whether this processor has `popcnt`: the only place a [`Popcnt`] may be counted.
    pub fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        return std::arch::is_x86_feature_detected!("popcnt");
        #[cfg(not(target_arch = "x86_64"))]
        return false;
    }
}

/// The `u128` operations, word for word, on [`Popcnt`].
macro_rules! popcnt_ops {
    ($($trait:ident $method:ident $assign:ident $assign_method:ident $op:tt),*) => {$(
        impl $trait for Popcnt {
            type Output = Popcnt;
            #[inline(always)]
            fn $method(self, o: Popcnt) -> Popcnt {
                Popcnt(self.0 $op o.0)
            }
        }
        impl $assign for Popcnt {
            #[inline(always)]
            fn $assign_method(&mut self, o: Popcnt) {
                self.0 = self.0 $op o.0;
            }
        }
    )*};
}
popcnt_ops!(BitAnd bitand BitAndAssign bitand_assign &, BitOr bitor BitOrAssign bitor_assign |);

impl Not for Popcnt {
    type Output = Popcnt;
    #[inline(always)]
    fn not(self) -> Popcnt {
        Popcnt(!self.0)
    }
}

impl Shl<u32> for Popcnt {
    type Output = Popcnt;
    #[inline(always)]
    fn shl(self, n: u32) -> Popcnt {
        Popcnt(self.0 << n)
    }
}

impl Shr<u32> for Popcnt {
    type Output = Popcnt;
    #[inline(always)]
    fn shr(self, n: u32) -> Popcnt {
        Popcnt(self.0 >> n)
    }
}

impl Bits for Popcnt {
    const ZERO: Popcnt = Popcnt(0);
    const MAX_SIDE: u32 = u128::MAX_SIDE;
    const CAPACITY: usize = u128::CAPACITY;
    const UNBOUNDED: i16 = u128::UNBOUNDED;

    #[inline(always)]
    fn bit(room: u8) -> Popcnt {
        Popcnt(<u128 as Bits>::bit(room))
    }
    #[inline(always)]
    fn first(n: usize) -> Popcnt {
        Popcnt(<u128 as Bits>::first(n))
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn count_ones(self) -> u32 {
        let (low, high) = (self.0 as u64, (self.0 >> 64) as u64);
        let (a, b): (u64, u64);
        // SAFETY: a `Popcnt` is counted only where the processor has `popcnt` (the solver over
        // it is made only after `Popcnt::available`); the instructions read two registers and
        // write two, and touch no memory or stack.
        #[allow(unsafe_code)]
        unsafe {
            std::arch::asm!(
                "popcnt {a}, {low}",
                "popcnt {b}, {high}",
                low = in(reg) low,
                high = in(reg) high,
                // Written before `high` is read: not a register an input may share.
                a = out(reg) a,
                b = lateout(reg) b,
                options(pure, nomem, nostack),
            );
        }
        (a + b) as u32
    }
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn count_ones(self) -> u32 {
        self.0.count_ones()
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        self.0.trailing_zeros()
    }
    #[inline(always)]
    fn without_lowest(self) -> Popcnt {
        Popcnt(<u128 as Bits>::without_lowest(self.0))
    }
    #[inline(always)]
    fn key(self, a: u8, b: u8) -> u64 {
        mix_key(self.0, a, b)
    }
    #[inline]
    fn to_wide(self) -> Wide {
        self.0.to_wide()
    }
    #[inline]
    fn from_wide(wide: Wide) -> Popcnt {
        Popcnt(u128::from_wide(wide))
    }
}

/// 192 rooms in three `u64` words, lowest room in the lowest bit of the first: a museum of side
/// up to 13. Three words rather than four keep a table entry (set, two rooms, two bounds, the
/// best move) at 32 bytes, as with a `u128`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Wide(pub [u64; 3]);

impl Wide {
    /// The number of rooms in the set (also without [`Bits`] in scope, as for a `u128`).
    #[inline(always)]
    pub fn count_ones(self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones()
    }
}

impl Debug for Wide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}_{:016x}_{:016x}", self.0[2], self.0[1], self.0[0])
    }
}

impl BitAnd for Wide {
    type Output = Wide;
    #[inline(always)]
    fn bitand(self, o: Wide) -> Wide {
        Wide([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2]])
    }
}

impl BitOr for Wide {
    type Output = Wide;
    #[inline(always)]
    fn bitor(self, o: Wide) -> Wide {
        Wide([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2]])
    }
}

impl Not for Wide {
    type Output = Wide;
    #[inline(always)]
    fn not(self) -> Wide {
        Wide([!self.0[0], !self.0[1], !self.0[2]])
    }
}

impl BitAndAssign for Wide {
    #[inline(always)]
    fn bitand_assign(&mut self, o: Wide) {
        *self = *self & o;
    }
}

impl BitOrAssign for Wide {
    #[inline(always)]
    fn bitor_assign(&mut self, o: Wide) {
        *self = *self | o;
    }
}

impl Shl<u32> for Wide {
    type Output = Wide;
    /// Towards higher rooms; bits shifted past the last word are lost, as with an integer.
    #[inline(always)]
    fn shl(self, n: u32) -> Wide {
        let [a, b, c] = self.0;
        match n {
            0 => self,
            1..64 => Wide([a << n, b << n | a >> (64 - n), c << n | b >> (64 - n)]),
            64..192 => Wide([0, a, b]) << (n - 64),
            _ => Wide::ZERO,
        }
    }
}

impl Shr<u32> for Wide {
    type Output = Wide;
    #[inline(always)]
    fn shr(self, n: u32) -> Wide {
        let [a, b, c] = self.0;
        match n {
            0 => self,
            1..64 => Wide([a >> n | b << (64 - n), b >> n | c << (64 - n), c >> n]),
            64..192 => Wide([b, c, 0]) >> (n - 64),
            _ => Wide::ZERO,
        }
    }
}

impl Bits for Wide {
    const ZERO: Wide = Wide([0; 3]);
    const MAX_SIDE: u32 = 13;
    const CAPACITY: usize = 192;
    const UNBOUNDED: i16 = 1000;

    #[inline(always)]
    fn bit(room: u8) -> Wide {
        let mut w = [0; 3];
        w[room as usize / 64] = 1 << (room % 64);
        Wide(w)
    }
    #[inline]
    fn first(n: usize) -> Wide {
        let word = |i: usize| match n.saturating_sub(64 * i) {
            0 => 0,
            k if k >= 64 => u64::MAX,
            k => (1u64 << k) - 1,
        };
        Wide([word(0), word(1), word(2)])
    }
    #[inline(always)]
    fn count_ones(self) -> u32 {
        Wide::count_ones(self)
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        let [a, b, c] = self.0;
        if a != 0 {
            a.trailing_zeros()
        } else if b != 0 {
            64 + b.trailing_zeros()
        } else {
            128 + c.trailing_zeros()
        }
    }
    #[inline(always)]
    fn without_lowest(self) -> Wide {
        let [a, b, c] = self.0;
        if a != 0 {
            Wide([a & (a - 1), b, c])
        } else if b != 0 {
            Wide([a, b & (b - 1), c])
        } else {
            Wide([a, b, c & c.wrapping_sub(1)])
        }
    }
    #[inline(always)]
    fn key(self, a: u8, b: u8) -> u64 {
        let [x, y, z] = self.0;
        let high = y ^ z.rotate_left(23).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        mix_key(u128::from(x) | u128::from(high) << 64, a, b)
    }
    #[inline(always)]
    fn to_wide(self) -> Wide {
        self
    }
    #[inline(always)]
    fn from_wide(wide: Wide) -> Wide {
        wide
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A `Wide` as a `u128` pair (low, high), to check its operations against integer ones.
    fn parts(w: Wide) -> (u128, u128) {
        (u128::from(w.0[0]) | u128::from(w.0[1]) << 64, u128::from(w.0[2]))
    }

    proptest! {
        #[test]
        fn a_popcnt_set_counts_and_operates_as_its_u128(x in any::<u128>(), y in any::<u128>(), n in 0u32..128) {
            if Popcnt::available() {
                prop_assert_eq!(Popcnt(x).count_ones(), x.count_ones());
            }
            let (a, b) = (Popcnt(x), Popcnt(y));
            prop_assert_eq!(((a & b).0, (a | b).0, (!a).0), (x & y, x | y, !x));
            prop_assert_eq!(((a << n).0, (a >> n).0), (x << n, x >> n));
            prop_assert_eq!(a.without_lowest().0, x & x.wrapping_sub(1));
            prop_assert_eq!(a.key(3, 7), x.key(3, 7));
        }

        #[test]
        fn wide_operations_agree_with_integer_ones(a in any::<[u64; 3]>(), b in any::<[u64; 3]>(), n in 0u32..200) {
            let (x, y) = (Wide(a), Wide(b));
            // Through a 192-bit integer made of a u128 and a u64 word, computed with u128s.
            let ((x0, x1), (y0, y1)) = (parts(x), parts(y));
            prop_assert_eq!(parts(x & y), (x0 & y0, x1 & y1));
            prop_assert_eq!(parts(x | y), (x0 | y0, x1 | y1));
            prop_assert_eq!(parts(!x), (!x0, !x1 & u128::from(u64::MAX)));
            prop_assert_eq!(x.count_ones(), a.iter().map(|w| w.count_ones()).sum::<u32>());
            // Shifts, bit by bit.
            let bits: Vec<u8> = super::super::map::rooms(x).collect();
            let shifted_left: Vec<u8> = bits.iter().filter_map(|&r| {
                let t = r as u32 + n;
                (t < 192).then_some(t as u8)
            }).collect();
            prop_assert_eq!(super::super::map::rooms(x << n).collect::<Vec<u8>>(), shifted_left);
            let shifted_right: Vec<u8> =
                bits.iter().filter_map(|&r| (r as u32).checked_sub(n).map(|t| t as u8)).collect();
            prop_assert_eq!(super::super::map::rooms(x >> n).collect::<Vec<u8>>(), shifted_right);
            // Rooms iterate in order and rebuild the set.
            let rebuilt = bits.iter().fold(Wide::ZERO, |acc, &r| acc | Wide::bit(r));
            prop_assert_eq!(rebuilt, x);
            prop_assert!(bits.windows(2).all(|w| w[0] < w[1]));
            prop_assert_eq!(bits.len() as u32, x.count_ones());
        }

        #[test]
        fn sets_that_fit_a_u128_convert_both_ways(x in any::<u128>(), n in 0usize..=192) {
            prop_assert_eq!(u128::from_wide(x.to_wide()), x);
            let w = x.to_wide();
            prop_assert_eq!(parts(w), (x, 0));
            prop_assert_eq!(Wide::first(n).count_ones() as usize, n);
            if n <= 128 {
                prop_assert_eq!(u128::first(n).to_wide(), Wide::first(n));
            }
        }
    }
}
