//! Every seed arena derives and every hash it computes, in one place.
//!
//! A tournament's master seed and its results folder's secret [`SeedKey`] become a seed per
//! game; the master seed alone, a seed per generated map; a match's seed becomes the rules' RNG,
//! one seed per bot and (in Risk) the deal. Each derivation has its own function named for its
//! purpose, so that changing how one is made touches this file only. Every value here is part of the reproducibility contract: the same inputs
//! give the same seeds on every machine and every Rust version, which is why no std hasher is
//! used.

#![warn(missing_docs)]

use std::hash::{BuildHasherDefault, Hasher};

use hmac::{Hmac, KeyInit, Mac};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

use crate::game::Seat;

/// The SplitMix64 finaliser (Stafford's "variant 13"): a fast, well-mixed bijection on `u64`.
/// The one word mixer of the crate: seed derivation and the solvers' hash tables use it.
#[inline]
pub fn mix64(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The golden-ratio increment of SplitMix64.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// One SplitMix64 step: [`mix64`] of `x` plus the golden-ratio increment.
#[inline]
fn splitmix64(x: u64) -> u64 {
    mix64(x.wrapping_add(GOLDEN))
}

/// Mixes a 128-bit key and two bytes into a table index (the Painters' Duel solver's tables:
/// a set of rooms and the two painters).
#[inline]
pub fn mix_key(wide: u128, a: u8, b: u8) -> u64 {
    let lo = wide as u64;
    let hi = (wide >> 64) as u64;
    mix64(lo ^ hi.rotate_left(29).wrapping_mul(GOLDEN) ^ ((a as u64) << 48 | (b as u64) << 56))
}

/// The RNG of a match's rules (dice, card draws): ChaCha8 seeded with the match seed.
pub fn rules_rng(match_seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(match_seed)
}

/// The seed a bot at `seat` gets in a match seeded with `match_seed`: distinct per seat, and
/// one-way. It is SHA-256 of a domain tag, the match seed and the seat, cut to 64 bits, so a bot
/// that knows its own seed and this function learns nothing of the match seed, of the rules'
/// RNG (dice, cards) or of another seat's seed. (A SplitMix64 derivation, which arena used
/// before, is a bijection: a hostile bot inverted it and predicted Risk's dice.)
pub fn bot_seed(match_seed: u64, seat: Seat) -> u64 {
    one_way(b"arena/bot-seed/v2", match_seed, seat as u64)
}

/// SHA-256 of `domain`, `key` and `index` (little-endian), its first 8 bytes as a `u64`: a keyed
/// one-way function with domain separation, for every seed handed to a party that must not learn
/// the key.
fn one_way(domain: &[u8], key: u64, index: u64) -> u64 {
    let digest = Sha256::new()
        .chain_update(domain)
        .chain_update(key.to_le_bytes())
        .chain_update(index.to_le_bytes())
        .finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

/// The RNG of a game's setup deal (Risk's random deal of the territories), apart from the rules'
/// RNG so the deal does not shift every later roll.
pub fn deal_rng(match_seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(splitmix64(match_seed ^ 0xDEA1))
}

/// The seed of the `i`-th generated map of an arena whose file asks for a count of maps.
pub fn map_seed(master: u64, i: u64) -> u64 {
    splitmix64(master ^ splitmix64(0x3A95_0000 + i))
}

/// The seed of the map generated for draw `k` of an SPRT (a stream of its own, apart from the
/// arena's `count` maps).
pub fn sprt_map_seed(master: u64, k: u64) -> u64 {
    splitmix64(master ^ splitmix64(0x5917_0000_0000 + k))
}

/// The secret that makes a tournament's match seeds unpredictable: 32 random bytes, made once
/// per results folder from the operating system's RNG and kept in its `seed.key`, where no
/// sandboxed bot can read it (`crate::tournament` keeps the file; docs/security.md says why).
/// Without it a master seed such as 1 or 2026 gives every match seed away: a bot that tries the
/// likely master seeds against its own `ARENA_SEED` finds its match and predicts the dice.
///
/// Its [`Debug`](std::fmt::Debug) shows its [`id`](SeedKey::id) only, so no log or error prints
/// the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct SeedKey([u8; 32]);

impl SeedKey {
    /// The all-zero key, known to everyone: only for schedules asked for their pairings and
    /// totals (an arena's validation, an SPRT's seat configurations, tests), never for the
    /// seeds of matches a bot plays.
    pub const PUBLIC: SeedKey = SeedKey([0; 32]);

    /// A new key from the operating system's RNG (`getrandom(2)` on Linux).
    pub fn generate() -> std::io::Result<SeedKey> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
        Ok(SeedKey(bytes))
    }

    /// The key of these bytes (a `seed.key` read back).
    pub fn from_bytes(bytes: [u8; 32]) -> SeedKey {
        SeedKey(bytes)
    }

    /// The key's bytes, to write it to its file.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key's public name: the first 16 hex digits of SHA-256 of a domain tag and the key.
    /// `meta.json` and the run's fingerprint hold it, so a folder, a shard or a merge can tell
    /// whether two keys are the same without showing either.
    pub fn id(&self) -> String {
        let digest = Sha256::new().chain_update(b"arena/seed-key-id/v1").chain_update(self.0);
        digest.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for SeedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeedKey({})", self.id())
    }
}

/// The seed of game `k` of a tournament whose master seed is `master` and whose results folder
/// holds `key`: HMAC-SHA256 keyed with `key` over a domain tag, `master` and `k` (little-endian),
/// its first 8 bytes as a `u64`. The matches of one game share it, whichever bots play them
/// (common random numbers: bots compared against one opponent meet the same dice and maps). A
/// match's seed is drawn from its identity's game number only, never from the bots' places in
/// the arena file, so adding a bot changes no seed. The one derivation of a tournament's match
/// seeds (`arena run`, `arena league`, `arena sprt`).
///
/// Being a keyed PRF, it hides the key and every other game's seed even from one who knows
/// `master`, `k` and this seed (a published `matches.csv` gives away the games it lists, and
/// nothing else); a bot knows less: its `ARENA_SEED` is a one-way function of the match seed
/// ([`bot_seed`]).
pub fn game_seed(key: &SeedKey, master: u64, k: u64) -> u64 {
    let mut mac = Hmac::<Sha256>::new_from_slice(&key.0).expect("HMAC takes a key of any length");
    mac.update(b"arena/game-seed/v3");
    mac.update(&master.to_le_bytes());
    mac.update(&k.to_le_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&mac.finalize().into_bytes()[..8]);
    u64::from_le_bytes(first)
}

/// The id of a tournament's match, from its identity: the game number and the names of the bots
/// of every seat, in seat order. The first 8 bytes of SHA-256 over a domain tag, the game number
/// and each name with its length (so no two lists of names run together), as a `u64`. A pure
/// function of the match, not of the bot list: adding, removing or reordering bots leaves every
/// other match's id as it was, and two folders of one arena name a match alike. (Ids are drawn
/// from 2^64 values: two of a million matches share one with a chance below 3 in 10^8.)
pub fn match_id(game: u64, seat_bots: &[&str]) -> u64 {
    let mut hash =
        Sha256::new().chain_update(b"arena/match-id/v1").chain_update(game.to_le_bytes());
    for name in seat_bots {
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name.as_bytes());
    }
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.finalize()[..8]);
    u64::from_le_bytes(first)
}

/// FNV-1a, 64 bits, of a byte string: a stable fingerprint of a text (an arena file's canonical
/// form), where std's hasher may change between Rust versions.
pub fn text_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// A [`Hasher`] for the solvers' memo tables of integer keys: each word is folded in with
/// [`mix64`]. The tables are never iterated, so only speed depends on it, never a result.
#[derive(Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = mix64(self.0 ^ x);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`MixHasher`]s, for `HashMap<K, V, MixBuild>`.
pub type MixBuild = BuildHasherDefault<MixHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_seeds_differ_by_seat_and_match() {
        assert_ne!(bot_seed(1, 0), bot_seed(1, 1));
        assert_ne!(bot_seed(1, 0), bot_seed(2, 0));
        assert_eq!(bot_seed(9, 1), bot_seed(9, 1));
    }

    /// The derived values are part of every recorded result: they must never change by accident.
    /// The literals were computed apart from this code (Python's `hashlib` for the bot seeds), from
    /// the formulas documented here.
    #[test]
    fn derived_seeds_are_the_recorded_ones() {
        // SplitMix64's published first output for state 0.
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(bot_seed(7, 0), 0xF531_0B9C_D1AB_5449);
        assert_eq!(bot_seed(7, 1), 0xB8D8_D14B_6F0E_6DBE);
        // Python: hmac.new(bytes(range(32)), b"arena/game-seed/v3" + pack("<Q", 11) + pack("<Q", 3), sha256).
        let key = SeedKey::from_bytes(std::array::from_fn(|i| i as u8));
        assert_eq!(game_seed(&key, 11, 3), 0x86FD_9BAD_F7CE_B245);
        // Python: hashlib.sha256(b"arena/seed-key-id/v1" + bytes(range(32))).hexdigest()[:16].
        assert_eq!(key.id(), "bf4993c32e01464c");
        // Python: hashlib.sha256(b"arena/match-id/v1" + pack("<Q", 3) + pack("<Q", 1) + b"a" + pack("<Q", 2) + b"bc").
        assert_eq!(match_id(3, &["a", "bc"]), 0x6A51_E2DD_D421_F2DE);
        assert_eq!(map_seed(5, 2), 0xAE68_6214_FBB0_52B8);
        assert_eq!(text_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(text_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn game_seeds_depend_on_the_key_and_keys_are_fresh() {
        let (a, b) = (SeedKey::generate().unwrap(), SeedKey::generate().unwrap());
        assert_ne!(a, b, "two keys from the OS RNG");
        assert_ne!(game_seed(&a, 1, 0), game_seed(&b, 1, 0));
        assert_ne!(game_seed(&a, 1, 0), game_seed(&a, 1, 1));
        assert_ne!(game_seed(&a, 1, 0), game_seed(&a, 2, 0));
        assert_eq!(game_seed(&a, 1, 0), game_seed(&a.clone(), 1, 0));
        let shown = format!("{a:?}");
        assert_eq!(shown, format!("SeedKey({})", a.id()), "Debug shows the id, not the key");
    }

    #[test]
    fn match_ids_name_the_game_and_the_seats_in_order() {
        assert_ne!(match_id(3, &["a", "bc"]), match_id(3, &["bc", "a"]));
        assert_ne!(
            match_id(3, &["a", "bc"]),
            match_id(3, &["ab", "c"]),
            "names do not run together"
        );
        assert_ne!(match_id(3, &["a", "bc"]), match_id(4, &["a", "bc"]));
    }

    #[test]
    fn mix_key_separates_its_inputs() {
        let k = mix_key(1 << 70, 3, 4);
        assert_ne!(k, mix_key(1 << 70, 4, 3));
        assert_ne!(k, mix_key(1 << 6, 3, 4));
        assert_eq!(k, mix_key(1 << 70, 3, 4));
    }
}
