//! What a match is set up from (variant, options, map text, seed) and what can be wrong with it.
//!
//! Options and generator settings reach a game as `key = value` strings, from `--opt k=v`,
//! `--gen k=v,...` and the scalars of an arena file alike. [`parse_settings`] reads them into the
//! game's own serde type, so each game declares its options once, as data: unknown keys are
//! refused (`deny_unknown_fields`), numbers and flags are parsed from the strings, aliases are
//! serde aliases, and every error names the key, the bad value and what was expected.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// A map as text in the game's own format, with a name for humans (usually its file name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(expecting = "a map: an object with `name` and `text`")]
pub struct MapText {
    /// The name errors and results show.
    pub name: String,
    /// The map itself.
    pub text: String,
}

/// The largest input file arena reads whole (a map, an arena file, a board): 64 MiB, far above
/// any map within the formats' limits, so a huge or endless file is refused before it is read.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Reads a whole input file, refusing one larger than [`MAX_INPUT_BYTES`] (and reading no more
/// than that from a file that grows, or a pipe).
pub fn read_input(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the file is larger than {} MiB", MAX_INPUT_BYTES >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("line {line}: not UTF-8 text (byte 0x{:02X} at column {column})", bytes[at]),
        )
    })
}

/// Everything a game needs to set up one match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// One of the game's variants (`GameDef::VARIANTS`).
    pub variant: String,
    /// Game options, `key = value`; the game validates keys and values.
    pub options: BTreeMap<String, String>,
    /// The map the match is played on.
    pub map: MapText,
    /// The match's seed.
    pub seed: u64,
}

/// A problem with a match's setup: its map, variant or options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A map that cannot be read or played.
    #[error("map `{map}`{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Map {
        /// The map's name.
        map: String,
        /// The line at fault, when one is.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// An option the game does not know or a value it does not take.
    #[error("option `{key}`: {message}")]
    Option {
        /// The option's key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A variant the game does not have.
    #[error("unknown variant `{0}`")]
    Variant(String),
    /// A file that describes a position (a Risk board file).
    #[error("board `{path}`: {message}")]
    Board {
        /// The board file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Anything else about the setup.
    #[error("{0}")]
    Other(String),
}

impl SetupError {
    /// A [`SetupError::Map`].
    pub fn map(map: &str, line: Option<usize>, message: impl Into<String>) -> SetupError {
        SetupError::Map { map: map.to_string(), line, message: message.into() }
    }

    /// A [`SetupError::Option`].
    pub fn option(key: &str, message: impl Into<String>) -> SetupError {
        SetupError::Option { key: key.to_string(), message: message.into() }
    }
}

impl From<SetupError> for crate::error::Error {
    fn from(e: SetupError) -> crate::error::Error {
        crate::error::Error::Setup(Box::new(e))
    }
}

/// What is wrong with a map's content, said without a place: the reader that met it adds the
/// file and line (it is the message of a [`SetupError::Map`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidMap(pub String);

impl From<InvalidMap> for String {
    fn from(e: InvalidMap) -> String {
        e.0
    }
}

/// A generator setting, as `arena gen GAME --help` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The setting's name (`--set key=value`).
    pub key: &'static str,
    /// What the setting means, in a few words.
    pub help: &'static str,
    /// The values it takes ("2 to 2000", "path or graph").
    pub range: &'static str,
    /// Its value when not given ("50", "nodes / 25, at least 1").
    pub default: &'static str,
}

/// Reads `key = value` strings into `T`, a serde type with `deny_unknown_fields`. `what` names
/// the settings in errors ("option of skynet", "generator setting of painters").
pub fn parse_settings<T: DeserializeOwned>(
    what: &str,
    settings: &BTreeMap<String, String>,
) -> Result<T, SetupError> {
    let access = Entries { entries: settings.iter(), current: None };
    T::deserialize(MapOfStrings(access)).map_err(|e| {
        let key = e.key.unwrap_or_else(|| "?".to_string());
        let message = match e.kind {
            Kind::UnknownKey(known) => format!("unknown {what} (known: {})", known.join(", ")),
            Kind::Message(m) => m,
        };
        SetupError::Option { key, message }
    })
}

/// The keys `T` accepts (aliases included), for listings and for tests that compare them with a settings table.
pub fn known_keys<T: DeserializeOwned>() -> Vec<&'static str> {
    let probe: BTreeMap<String, String> = [("\u{0}".to_string(), String::new())].into();
    let access = Entries { entries: probe.iter(), current: None };
    match T::deserialize(MapOfStrings(access)) {
        Err(StrError { kind: Kind::UnknownKey(known), .. }) => known.to_vec(),
        _ => Vec::new(),
    }
}

#[derive(Debug)]
enum Kind {
    UnknownKey(&'static [&'static str]),
    Message(String),
}

/// The error of the string deserializers: a message and, once known, the key it is about.
#[derive(Debug)]
struct StrError {
    key: Option<String>,
    kind: Kind,
}

impl StrError {
    fn about(mut self, key: &str) -> StrError {
        self.key.get_or_insert_with(|| key.to_string());
        self
    }
}

impl fmt::Display for StrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::UnknownKey(known) => write!(f, "unknown key (known: {})", known.join(", ")),
            Kind::Message(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for StrError {}

impl de::Error for StrError {
    fn custom<M: fmt::Display>(msg: M) -> StrError {
        StrError { key: None, kind: Kind::Message(msg.to_string()) }
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> StrError {
        StrError { key: Some(field.to_string()), kind: Kind::UnknownKey(expected) }
    }
}

/// The whole map, as a deserializer of a struct.
struct MapOfStrings<'a>(Entries<'a>);

impl<'de> de::Deserializer<'de> for MapOfStrings<'_> {
    type Error = StrError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, StrError> {
        visitor.visit_map(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct Entries<'a> {
    entries: std::collections::btree_map::Iter<'a, String, String>,
    current: Option<(&'a str, &'a str)>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = StrError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, StrError> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.current = Some((key, value));
        let de: de::value::StrDeserializer<'_, StrError> = key.as_str().into_deserializer();
        seed.deserialize(de).map(Some).map_err(|e| e.about(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, StrError> {
        let (key, value) = self.current.take().expect("a key before its value");
        seed.deserialize(Value { key, value }).map_err(|e| e.about(key))
    }
}

/// One value: a string read as whatever the field wants.
struct Value<'a> {
    key: &'a str,
    value: &'a str,
}

impl Value<'_> {
    fn bad(&self, expected: &str) -> StrError {
        StrError {
            key: Some(self.key.to_string()),
            kind: Kind::Message(format!("`{}` is not {expected}", self.value)),
        }
    }

    fn number<T: std::str::FromStr>(&self, expected: &str) -> Result<T, StrError> {
        self.value.trim().parse().map_err(|_| self.bad(expected))
    }
}

macro_rules! parse_number {
    ($($method:ident $visit:ident $t:ty, $what:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, StrError> {
            let n: $t = self.number($what)?;
            visitor.$visit(n)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Value<'_> {
    type Error = StrError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, StrError> {
        visitor.visit_str(self.value)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, StrError> {
        match self.value.trim() {
            "true" | "1" | "yes" => visitor.visit_bool(true),
            "false" | "0" | "no" => visitor.visit_bool(false),
            _ => Err(self.bad("true or false")),
        }
    }

    parse_number! {
        deserialize_u8 visit_u8 u8, "a small non-negative integer";
        deserialize_u16 visit_u16 u16, "a non-negative integer";
        deserialize_u32 visit_u32 u32, "a non-negative integer";
        deserialize_u64 visit_u64 u64, "a non-negative integer";
        deserialize_i32 visit_i32 i32, "an integer";
        deserialize_i64 visit_i64 i64, "an integer";
        deserialize_f64 visit_f64 f64, "a number";
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, StrError> {
        visitor.visit_some(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, StrError> {
        let de: de::value::StrDeserializer<'_, StrError> = self.value.trim().into_deserializer();
        visitor.visit_enum(de)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, StrError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i128 u128 f32 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// Deserializes a `usize`, refusing it outside `MIN..=MAX` with a message naming the range.
pub fn bounded<'de, D: de::Deserializer<'de>, const MIN: u64, const MAX: u64>(
    d: D,
) -> Result<usize, D::Error> {
    let v = u64::deserialize(d)?;
    if (MIN..=MAX).contains(&v) {
        Ok(v as usize)
    } else {
        Err(de::Error::custom(format!("`{v}` is out of range ({MIN} to {MAX})")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default, deny_unknown_fields)]
    struct Opts {
        #[serde(alias = "turns")]
        rounds: u32,
        flag: bool,
        mode: Mode,
        #[serde(deserialize_with = "bounded::<_, 2, 6>")]
        players: usize,
        ratio: Option<f64>,
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        #[default]
        Fast,
        #[serde(alias = "careful")]
        Slow,
    }

    fn parse(pairs: &[(&str, &str)]) -> Result<Opts, SetupError> {
        let map = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        parse_settings("option of test", &map)
    }

    fn key_and_message(e: SetupError) -> (String, String) {
        match e {
            SetupError::Option { key, message } => (key, message),
            other => panic!("not an option error: {other}"),
        }
    }

    #[test]
    fn strings_become_typed_values_with_aliases() {
        let o = parse(&[("turns", "7"), ("flag", "yes"), ("mode", "careful"), ("players", "3")])
            .unwrap();
        assert_eq!(o, Opts { rounds: 7, flag: true, mode: Mode::Slow, players: 3, ratio: None });
        assert_eq!(parse(&[("ratio", "0.5")]).unwrap().ratio, Some(0.5));
        assert_eq!(parse(&[]).unwrap(), Opts::default());
    }

    #[test]
    fn every_error_names_its_key_and_value() {
        let (key, m) = key_and_message(parse(&[("rounds", "x")]).unwrap_err());
        assert_eq!(key, "rounds");
        assert!(m.contains("`x`") && m.contains("integer"), "{m}");
        let (key, m) = key_and_message(parse(&[("flag", "maybe")]).unwrap_err());
        assert_eq!(key, "flag");
        assert!(m.contains("`maybe`") && m.contains("true or false"), "{m}");
        let (key, m) = key_and_message(parse(&[("mode", "medium")]).unwrap_err());
        assert_eq!(key, "mode");
        assert!(m.contains("medium") && m.contains("fast"), "{m}");
        let (key, m) = key_and_message(parse(&[("players", "9")]).unwrap_err());
        assert_eq!(key, "players");
        assert!(m.contains('9') && m.contains("2 to 6"), "{m}");
        let (key, m) = key_and_message(parse(&[("colour", "red")]).unwrap_err());
        assert_eq!(key, "colour");
        assert!(m.contains("unknown option of test") && m.contains("rounds, turns, flag"), "{m}");
    }

    #[test]
    fn known_keys_are_the_fields_and_their_aliases() {
        assert_eq!(
            known_keys::<Opts>(),
            vec!["rounds", "turns", "flag", "mode", "players", "ratio"]
        );
    }
}
