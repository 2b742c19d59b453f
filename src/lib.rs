//! arena: a referee engine and tournament harness for turn-based graph games.
//!
//! The layout is the architecture: [`game`] is the rules abstraction, [`registry`] what a game
//! registers (bot table, options, generator), [`games`] the list of games and one folder per game,
//! [`seed`] every seed derivation, [`budget`] how long a search may run, [`bot`] the bot
//! interface (in-process and external), [`referee`] plays one match,
//! [`matches`] turns a user's description of a match into a played one, [`replay`] records
//! and verifies matches, [`tournament`] runs many of them and keeps the statistics, and [`view`]
//! draws replays and results as HTML pages; [`analysis`] rates every decision of a match
//! against the exact solvers.

pub mod analysis;
pub mod bot;
pub mod budget;
pub mod cli;
pub mod error;
pub mod game;
pub mod games;
pub mod matches;
pub mod referee;
pub mod registry;
pub mod replay;
pub mod seed;
pub mod tournament;
pub mod view;

pub use error::{Error, Result};
