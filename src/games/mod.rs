//! The list of games: [`GameId`] names them, [`with_game!`](crate::with_game) reaches the one
//! chosen at run time. Everything else about a game is in its own folder, registered through
//! [`crate::registry::GameDef`].
//!
//! Adding a game is its folder and one line in [`__games!`](crate::__games), the list below:
//! the variant of [`GameId`], its place in [`GameId::ALL`] and its arm of `with_game!` are all
//! made from that line.

pub mod painters;
pub mod risk;
pub mod skynet;
pub mod spiders;

use std::fmt;

use serde::{Deserialize, Serialize};

/// The games arena knows, one line each: the [`GameId`] variant and the game's
/// [`GameDef`](crate::registry::GameDef) type (under `crate::games`). Hands the list to the
/// macro `[$callback]` after `$args`; [`GameId`] and [`with_game!`](crate::with_game) are made
/// from it.
#[doc(hidden)]
#[macro_export]
macro_rules! __games {
    ([$($callback:tt)*] $args:tt) => {
        $($callback)*! { $args
            Skynet => skynet::Skynet,
            Painters => painters::Painters,
            Spiders => spiders::Spiders,
            Risk => risk::Risk,
        }
    };
}

/// Makes [`GameId`] from the list of games.
macro_rules! game_id {
    (() $($variant:ident => $($def:ident)::+,)*) => {
        /// The games arena knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum GameId {
            $($variant,)*
        }

        impl GameId {
            /// Every game, in the list's order.
            pub const ALL: &'static [GameId] = &[$(GameId::$variant,)*];
        }
    };
}

crate::__games!([game_id]());

impl GameId {
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
        $crate::__games!([$crate::__with_game]($id, $D, $body))
    };
}

/// The arms of [`with_game!`](crate::with_game), one per game of the list.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_game {
    (($id:expr, $D:ident, $body:expr) $($variant:ident => $($def:ident)::+,)*) => {
        match $id {
            $($crate::games::GameId::$variant => {
                type $D = $crate::games::$($def)::+;
                $body
            })*
        }
    };
}
