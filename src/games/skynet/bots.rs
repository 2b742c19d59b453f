//! Built-in Skynet bots.

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use super::rules::{Skynet, SkynetAction, SkynetView, VIRUS};
use crate::bot::{Bot, BotFailure, TurnContext};

/// Plays a uniformly random legal action, from its own seeded RNG.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot<Skynet> for RandomBot {
    fn act(&mut self, view: &SkynetView, _ctx: &TurnContext) -> Result<SkynetAction, BotFailure> {
        let g = &view.game;
        if view.seat == VIRUS {
            let cuts = g.legal_cuts();
            let &(a, b) = cuts
                .choose(&mut self.rng)
                .expect("the game goes on only while a gateway link remains");
            Ok(SkynetAction::Cut(a, b))
        } else {
            let moves: Vec<u32> = g.neighbours(g.agent).collect();
            let &to =
                moves.choose(&mut self.rng).expect("an agent that can escape has a neighbour");
            Ok(SkynetAction::Move(to))
        }
    }
}
