//! The seeded generator of Painters' Duel boards (`arena gen painters`): a museum of a given side
//! with rooms under construction drawn at random.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::map::{Bits, Board, Geometry, MAX_SIZE, Rooms, bit};
use crate::game::{Setting, SetupError, bounded, parse_settings};

/// The generator's settings, as `arena gen painters --help` lists them.
pub const SETTINGS: &[Setting] = &[
    Setting { key: "size", help: "the museum's side", range: "2 to 13", default: "6" },
    Setting {
        key: "blocked",
        help: "the chance that a room (other than the starts) is under construction",
        range: "0 to 1, 1 excluded",
        default: "0",
    },
];

#[derive(serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct GenSettings {
    #[serde(deserialize_with = "bounded::<_, 2, { MAX_SIZE as u64 }>")]
    size: usize,
    #[serde(deserialize_with = "fraction")]
    blocked: f64,
}

impl Default for GenSettings {
    fn default() -> GenSettings {
        GenSettings { size: 6, blocked: 0.0 }
    }
}

/// A fraction in `[0, 1)`.
fn fraction<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let f = <f64 as serde::Deserialize>::deserialize(d)?;
    if (0.0..1.0).contains(&f) {
        Ok(f)
    } else {
        Err(serde::de::Error::custom(format!("`{f}` is not a fraction in [0, 1)")))
    }
}

/// A seeded random board (see [`SETTINGS`]): each room other than the starts under construction
/// with probability `blocked`, starts uniformly among distinct rooms.
pub fn generate(params: &BTreeMap<String, String>, seed: u64) -> Result<Board, SetupError> {
    let settings: GenSettings = parse_settings("generator setting of painters", params)?;
    Ok(random_board(settings.size as u32, settings.blocked, seed))
}

/// The board [`generate`] makes.
pub fn random_board(size: u32, blocked: f64, seed: u64) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let geometry: Geometry = Geometry::new(size);
    let mut all: Vec<u8> = (0..geometry.rooms() as u8).collect();
    all.shuffle(&mut rng);
    let starts = [all[0], all[1]];
    let mut set = Rooms::ZERO;
    for &room in &all[2..] {
        if rng.random_bool(blocked) {
            set |= bit(room);
        }
    }
    Board { geometry, blocked: set, starts }
}

/// The settings of one candidate of the separating-map search (`arena gen painters
/// --separating`): `set` each drawn setting (see [`crate::registry::Separating::draw`]).
pub(crate) fn separating_settings(
    _fixed: &BTreeMap<String, String>,
    rng: &mut ChaCha8Rng,
    set: &mut dyn FnMut(&str, String),
) {
    set("size", rng.random_range(5..=6u32).to_string());
    set("blocked", ["0", "0.1", "0.2"][rng.random_range(0..3usize)].to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_seeded_and_valid() {
        let mut params = BTreeMap::new();
        params.insert("size".to_string(), "8".to_string());
        params.insert("blocked".to_string(), "0.2".to_string());
        let a = generate(&params, 7).unwrap();
        assert_eq!(a, generate(&params, 7).unwrap());
        assert_ne!(a, generate(&params, 8).unwrap());
        assert!(!a.blocked.has(a.starts[0]) && !a.blocked.has(a.starts[1]));
        params.insert("size".to_string(), "12".to_string());
        let wide = generate(&params, 7).unwrap();
        assert_eq!((wide.size(), wide.geometry.rooms()), (12, 144));
        assert!(wide.blocked.count_ones() > 0 && (wide.blocked & !wide.geometry.all).is_empty());
        params.insert("size".to_string(), (MAX_SIZE + 1).to_string());
        let e = generate(&params, 7).unwrap_err().to_string();
        assert!(e.contains("size"), "{e}");
    }
}
