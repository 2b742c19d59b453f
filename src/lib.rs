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
//!
//! The `arena` command is a thin layer over this library ([`cli`]); everything it does can be done
//! from Rust. Play a match in-process with a bot of your own against a built-in one:
//!
//! ```
//! use arena::bot::{Bot, BotFailure, TimeLimits, TurnContext};
//! use arena::game::{Game, Setup};
//! use arena::games::skynet::{Skynet, SkynetAction, SkynetView};
//! use arena::referee::play_match;
//! use arena::registry::{GameDef, builtin_bot};
//!
//! /// Cuts a link between the agent and a gateway when there is one, else any gateway link.
//! struct MyVirus;
//!
//! impl Bot<Skynet> for MyVirus {
//!     fn act(&mut self, view: &SkynetView, _: &TurnContext) -> Result<SkynetAction, BotFailure> {
//!         let game = &view.game;
//!         let gateway_links = game.legal_cuts().into_iter().filter(|&(a, b)| {
//!             game.map.is_gateway[a as usize] || game.map.is_gateway[b as usize]
//!         });
//!         let mut links: Vec<(u32, u32)> = gateway_links.collect();
//!         // Links at the agent first: those are the ones it can take next.
//!         links.sort_by_key(|&(a, b)| a != game.agent && b != game.agent);
//!         let (a, b) = links.first().copied().or_else(|| game.legal_cuts().first().copied())
//!             .ok_or(BotFailure::Crash("nothing left to cut".into()))?;
//!         Ok(SkynetAction::Cut(a, b))
//!     }
//! }
//!
//! // The embedded default Episode 2 map, set up as `arena play skynet` would.
//! let setup = Setup {
//!     variant: "ep2".into(),
//!     options: Default::default(),
//!     map: Skynet::default_map("ep2"),
//!     seed: 7,
//! };
//! let (game, _warnings) = Skynet::new_game(&setup)?;
//! let agent = builtin_bot::<Skynet>("cg-ep2", 1, "agent", 7, &setup, &game)?;
//! let mut bots: Vec<Box<dyn Bot<Skynet>>> = vec![Box::new(MyVirus), agent];
//! let limits = vec![TimeLimits::new(1000, 150); 2];
//!
//! let result = play_match(game, &mut bots, &limits, setup.seed);
//! println!("{:?} after {} actions: {}", result.termination, result.turns(), result.outcome.reason);
//! assert!(result.culprit.is_none(), "both bots played legal moves to the end");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`matches::play`] does the same from a description (game, map, bot specs, seed, limits), with
//! external bots too, and returns the replay's records; [`tournament::run`] plays an arena file.

// The library reports, it does not print: only `cli` (and `main.rs`) writes for people, so a
// library user decides where words go. Tests too: a measurement run by hand with `--nocapture`
// says `#[allow(clippy::print_stdout)]` where it prints its figures. tests/integration/layers.rs
// checks this line and what the lints do not see (handles to stdout and stderr).
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

pub mod analysis;
pub mod bot;
pub mod budget;
pub mod check;
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
pub(crate) mod view;

pub use error::{Error, Result};
