//! The rules abstraction every game implements.
//!
//! A game is data plus pure rules: no I/O, no clocks and no global RNG. The referee asks the
//! rules who must act, hands that seat its [`Game::View`] (what the seat may see, so hidden
//! information stays hidden), and plays the returned action. An illegal action is refused with a
//! reason and leaves the state unchanged, as in shakmaty. Chance comes only from the RNG the
//! referee passes to [`Game::play`], so a replay re-creates every roll.
//!
//! Each game also carries its wire protocol here ([`Game::init_input`], [`Game::turn_input`],
//! [`Game::parse_action`], [`Game::format_action`]), so an in-process bot and an external
//! executable see the same game.

#![warn(missing_docs)]

mod setup;

use std::fmt::Debug;

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

pub use setup::{
    InvalidMap, MapText, Setting, Setup, SetupError, bounded, known_keys, parse_settings,
};

/// A seat at the table: an index into the game's roles, `0..roles().len()`.
pub type Seat = usize;

/// Who must act now, or how the game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// This seat must act.
    ToAct(Seat),
    /// The game is over, with this outcome.
    Over(Outcome),
}

/// How a game ended: a score and a rank for every seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// One score per seat; its meaning is the game's (1/0 for a win, a difference of counts, ...).
    pub scores: Vec<f64>,
    /// One rank per seat; 1 is best, equal ranks are a tie.
    pub ranks: Vec<u32>,
    /// Why the game ended, in words ("the agent reached gateway 4").
    pub reason: String,
}

impl Outcome {
    /// A two-or-more-seat result where `winner` ranks first and everyone else ties for second.
    pub fn win(seats: usize, winner: Seat, reason: impl Into<String>) -> Outcome {
        Outcome {
            scores: (0..seats).map(|s| if s == winner { 1.0 } else { 0.0 }).collect(),
            ranks: (0..seats).map(|s| if s == winner { 1 } else { 2 }).collect(),
            reason: reason.into(),
        }
    }

    /// Everyone ties.
    pub fn draw(seats: usize, reason: impl Into<String>) -> Outcome {
        Outcome { scores: vec![0.5; seats], ranks: vec![1; seats], reason: reason.into() }
    }

    /// The culprit ranks last with score 0; everyone else shares first place with score 1.
    pub fn forfeit(seats: usize, culprit: Seat, reason: impl Into<String>) -> Outcome {
        Outcome {
            scores: (0..seats).map(|s| if s == culprit { 0.0 } else { 1.0 }).collect(),
            ranks: (0..seats).map(|s| if s == culprit { 2 } else { 1 }).collect(),
            reason: reason.into(),
        }
    }

    /// Ranks from scores, higher is better, equal scores tie (standard competition ranking).
    pub fn from_scores(scores: Vec<f64>, reason: impl Into<String>) -> Outcome {
        let ranks =
            scores.iter().map(|&s| 1 + scores.iter().filter(|&&o| o > s).count() as u32).collect();
        Outcome { scores, ranks, reason: reason.into() }
    }

    /// The one seat ranked first alone, if there is one.
    pub fn winner(&self) -> Option<Seat> {
        let firsts: Vec<Seat> = (0..self.ranks.len()).filter(|&s| self.ranks[s] == 1).collect();
        (firsts.len() == 1).then(|| firsts[0])
    }
}

/// An action the rules refuse. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Illegal {
    /// Why, in words (recorded as the match's detail).
    pub reason: String,
}

impl Illegal {
    /// A refusal for `reason`.
    pub fn new(reason: impl Into<String>) -> Illegal {
        Illegal { reason: reason.into() }
    }

    /// The refusal of an action by `seat` when `to_act` must act (`None`: the game is over).
    pub fn unless_turn(to_act: Option<Seat>, seat: Seat) -> Result<(), Illegal> {
        match to_act {
            None => Err(Illegal::new("the game is over")),
            Some(s) if s != seat => Err(Illegal::new(format!("it is not seat {seat}'s turn"))),
            Some(_) => Ok(()),
        }
    }
}

/// A line a bot wrote that is not an action at all (garbage), with the reason in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct BadLine {
    /// Why the line is not an action.
    pub reason: String,
}

impl From<String> for BadLine {
    fn from(reason: String) -> BadLine {
        BadLine { reason }
    }
}

impl From<&str> for BadLine {
    fn from(reason: &str) -> BadLine {
        BadLine { reason: reason.to_string() }
    }
}

/// The rules of one game, and its wire protocol.
///
/// `PartialEq` lets tests check the rule every game keeps: a refused action leaves the state
/// exactly as it was.
///
/// Playing a game by hand, as the referee does (here the first legal action each turn):
///
/// ```
/// use arena::game::{Game, Setup, Status};
/// use arena::games::skynet::Skynet;
/// use arena::registry::GameDef;
///
/// let setup = Setup {
///     variant: "ep1".into(),
///     options: Default::default(),
///     map: Skynet::default_map("ep1"),
///     seed: 3,
/// };
/// let (mut game, _warnings) = Skynet::new_game(&setup)?;
/// assert_eq!(game.roles(), ["virus", "agent"]);
/// let mut rng = arena::seed::rules_rng(setup.seed);
/// let mut turns = 0;
/// let outcome = loop {
///     let seat = match game.status() {
///         Status::ToAct(seat) => seat,
///         Status::Over(outcome) => break outcome,
///     };
///     assert!(game.legal_actions(1 - seat).is_empty(), "only the seat to act has actions");
///     let first = game.legal_actions(seat)[0].clone();
///     // The other seat may not play it, and its refusal changes nothing.
///     let before = game.clone();
///     assert!(game.play(1 - seat, &first, &mut rng).is_err());
///     assert!(game == before);
///     game.play(seat, &first, &mut rng).expect("a listed action is legal");
///     turns += 1;
///     assert!(turns < 10_000, "a game ends");
/// };
/// assert_eq!(outcome.scores.len(), 2);
/// assert!(!outcome.reason.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Game: Clone + PartialEq + Send + Sync + 'static {
    /// One decision of one seat. For the spider side of Greedy Spiders it carries all the
    /// spiders' steps of a round; for Risk it is one step of a multi-step turn.
    type Action: Clone + Debug + PartialEq + Send + Sync + 'static;
    /// What one seat may see when it must act (everything, in perfect-information games).
    type View: Clone + Debug + Send + Sync + 'static;

    /// The role of every seat, in seat order ("virus", "agent"; "player1".."player4").
    fn roles(&self) -> Vec<String>;

    /// Who must act now, or the outcome once the game is over.
    fn status(&self) -> Status;

    /// What `seat` may see now.
    fn view(&self, seat: Seat) -> Self::View;

    /// Plays `action` for `seat`. On `Err` the state is exactly as before.
    fn play(&mut self, seat: Seat, action: &Self::Action, rng: &mut dyn Rng)
    -> Result<(), Illegal>;

    /// Every action the seat of `view` may play now, each once, in a fixed order; empty when it
    /// is not that seat's turn. It is computed from the view alone, as a bot could.
    ///
    /// The contract, checked for every game by one property test: [`Game::play`] accepts an
    /// action exactly when its [`Game::canonical`] spelling is in this list. Where the list is a
    /// product (all of Greedy Spiders' spiders move in one action) or counts armies (Risk), it is
    /// still complete; each game's documentation says how it is ordered.
    fn legal_actions_of(view: &Self::View) -> Vec<Self::Action>;

    /// An action drawn uniformly from [`Game::legal_actions_of`], or `None` when there is none.
    /// A game whose list can be huge overrides it with the same draw made without the list.
    fn random_action_of(view: &Self::View, rng: &mut dyn Rng) -> Option<Self::Action> {
        let actions = Self::legal_actions_of(view);
        (!actions.is_empty()).then(|| actions[rng.random_range(0..actions.len())].clone())
    }

    /// The legal actions of `seat` in this state (see [`Game::legal_actions_of`]).
    fn legal_actions(&self, seat: Seat) -> Vec<Self::Action> {
        match self.status() {
            Status::ToAct(s) if s == seat => Self::legal_actions_of(&self.view(seat)),
            _ => Vec::new(),
        }
    }

    /// The one spelling [`Game::legal_actions_of`] lists of an action that can be written in
    /// several ways with the same effect (the steps of Greedy Spiders' spiders, in any order).
    fn canonical(action: &Self::Action) -> Self::Action {
        action.clone()
    }

    /// The outcome when `culprit` forfeits (illegal move, timeout, crash).
    fn forfeit(&self, culprit: Seat, reason: &str) -> Outcome {
        Outcome::forfeit(self.roles().len(), culprit, reason)
    }

    /// The lines a bot reads once, before its first turn input (may be empty).
    fn init_input(view: &Self::View) -> String;

    /// The lines a bot reads each time it must act.
    fn turn_input(view: &Self::View) -> String;

    /// Reads the one line a bot wrote (without its newline) into an action.
    /// `Err` is a line that does not parse (garbage), with the reason; whether a parsed action is
    /// legal is for [`Game::play`] to say.
    fn parse_action(view: &Self::View, line: &str) -> Result<Self::Action, BadLine>;

    /// The protocol text of an action, as a bot would write it (recorded in replays).
    fn format_action(action: &Self::Action) -> String;
}
