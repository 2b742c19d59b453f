//! The one random bot every game offers as `random`: a uniform draw from the legal actions of
//! its view ([`Game::random_action_of`]), from its own seeded RNG.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::bot::{Bot, BotFailure, TurnContext};
use crate::game::Game;

/// Plays a uniformly random legal action.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot drawing from its own seeded RNG.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl<G: Game> Bot<G> for RandomBot {
    fn act(&mut self, view: &G::View, _ctx: &TurnContext) -> Result<G::Action, BotFailure> {
        G::random_action_of(view, &mut self.rng)
            .ok_or_else(|| BotFailure::Crash("asked to act with no legal action".to_string()))
    }
}
