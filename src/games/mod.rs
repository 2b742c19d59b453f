//! The list of games: [`GameId`] names them, [`with_game!`](crate::with_game) reaches the one
//! chosen at run time. Everything else about a game is in its own folder, registered through
//! [`crate::registry::GameDef`].
//!
//! Adding a game touches its own folder, one variant of [`GameId`] (with its line in
//! [`GameId::ALL`]) and one arm of [`with_game!`](crate::with_game).

pub mod painters;
pub mod risk;
pub mod skynet;
pub mod spiders;

use std::fmt;

use serde::{Deserialize, Serialize};

/// The games arena knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameId {
    Skynet,
    Painters,
    Spiders,
    Risk,
}

impl GameId {
    pub const ALL: &'static [GameId] =
        &[GameId::Skynet, GameId::Painters, GameId::Spiders, GameId::Risk];

    pub fn name(self) -> &'static str {
        crate::with_game!(self, D => <D as crate::registry::GameDef>::NAME)
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game name arena does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game `{name}` (known: {})", GameId::ALL.iter().map(|g| g.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownGame {
    pub name: String,
}

impl std::str::FromStr for GameId {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<GameId, UnknownGame> {
        GameId::ALL
            .iter()
            .copied()
            .find(|g| g.name() == s)
            .ok_or_else(|| UnknownGame { name: s.into() })
    }
}

/// Runs `$body` with `$D` bound to the [`GameDef`](crate::registry::GameDef) type of the game
/// `$id`. This is how code that is generic over games (the CLI, replays, tournaments) reaches a
/// game chosen at run time.
#[macro_export]
macro_rules! with_game {
    ($id:expr, $D:ident => $body:expr) => {
        match $id {
            $crate::games::GameId::Skynet => {
                type $D = $crate::games::skynet::Skynet;
                $body
            }
            $crate::games::GameId::Painters => {
                type $D = $crate::games::painters::Painters;
                $body
            }
            $crate::games::GameId::Spiders => {
                type $D = $crate::games::spiders::Spiders;
                $body
            }
            $crate::games::GameId::Risk => {
                type $D = $crate::games::risk::Risk;
                $body
            }
        }
    };
}
