//! Built-in Painters' Duel bots: `greedy`, `perfect` (the exact solver) and `search`
//! (iterative-deepening alpha-beta that answers by the deadline); `random` is the registry's.

use std::time::Duration;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::map::{Rooms, rooms};
use super::rules::{Painters, PaintersAction, PaintersView};
use super::solver::BoardSolver;
use crate::bot::{Bot, BotFailure, TurnContext};
use crate::budget::Budget;

/// What every bot reads off its view: the open rooms, its room and the other painter's.
fn position(view: &PaintersView) -> (Rooms, u8, u8) {
    let g = &view.game;
    let open = g.board.geometry.all & !g.closed;
    (open, g.positions[view.seat], g.positions[1 - view.seat])
}

fn no_move() -> BotFailure {
    BotFailure::Crash("asked to move with no open room next to it".to_string())
}

/// A search's budget: the turn's remaining time, less a quarter of the turn (at most 50 ms) kept
/// back for answering and for scheduling noise, which on a loaded machine easily reaches tens of
/// milliseconds.
fn search_budget(ctx: &TurnContext) -> Budget {
    ctx.budget(1.0, (ctx.allowance() / 4).min(Duration::from_millis(50)))
}

/// One ply: the move after which my reachable region most outgrows the other's (see
/// [`Solver::greedy`](super::solver::Solver::greedy)).
pub(crate) struct GreedyBot {
    solver: Option<BoardSolver>,
}

impl GreedyBot {
    pub(crate) fn new() -> GreedyBot {
        GreedyBot { solver: None }
    }
}

impl Default for GreedyBot {
    fn default() -> Self {
        GreedyBot::new()
    }
}

impl Bot<Painters> for GreedyBot {
    fn act(&mut self, view: &PaintersView, _: &TurnContext) -> Result<PaintersAction, BotFailure> {
        let solver = self.solver.get_or_insert_with(|| BoardSolver::new(view.game.board.size(), 1));
        let (open, me, other) = position(view);
        solver.greedy(open, me, other).map(PaintersAction::to_room).ok_or_else(no_move)
    }
}

/// The exact solver: plays a move that secures the game's value. Its table lives for the whole
/// match, so after the first turn it mostly answers from what it already proved. If a turn's
/// deadline comes before the proof, it plays the greedy move instead (and says so on stderr
/// when `ARENA_LOG` asks for it).
pub(crate) struct PerfectBot {
    solver: Option<BoardSolver>,
}

impl PerfectBot {
    pub(crate) fn new() -> PerfectBot {
        PerfectBot { solver: None }
    }
}

impl Default for PerfectBot {
    fn default() -> Self {
        PerfectBot::new()
    }
}

impl Bot<Painters> for PerfectBot {
    fn act(
        &mut self,
        view: &PaintersView,
        ctx: &TurnContext,
    ) -> Result<PaintersAction, BotFailure> {
        let size = view.game.board.size();
        let solver = self.solver.get_or_insert_with(|| {
            // Sized for the board, and allocated at once: growing a table mid-game would pause a
            // short turn. 2^16 entries (4 MiB in all) up to S = 6, 2^18 for S = 7, 2^20 beyond.
            let bits = match size {
                0..=6 => 16,
                7 => 18,
                _ => 20,
            };
            let mut solver = BoardSolver::new(size, bits);
            solver.preallocate();
            solver
        });
        let (open, me, other) = position(view);
        let room = match solver.best_move(open, me, other, search_budget(ctx)) {
            Some((room, _)) => room,
            None => {
                tracing::info!("perfect: no proof by the deadline, playing the greedy move");
                solver.greedy(open, me, other).ok_or_else(no_move)?
            }
        };
        Ok(PaintersAction::to_room(room))
    }
}

/// Iterative-deepening alpha-beta with a territory heuristic at the leaves, answering by the
/// deadline; its seed shuffles the root moves, which breaks ties between equal moves.
pub(crate) struct SearchBot {
    rng: ChaCha8Rng,
    solver: Option<BoardSolver>,
}

impl SearchBot {
    pub(crate) fn new(seed: u64) -> SearchBot {
        SearchBot { rng: ChaCha8Rng::seed_from_u64(seed), solver: None }
    }
}

impl Bot<Painters> for SearchBot {
    fn act(
        &mut self,
        view: &PaintersView,
        ctx: &TurnContext,
    ) -> Result<PaintersAction, BotFailure> {
        let solver =
            self.solver.get_or_insert_with(|| BoardSolver::new(view.game.board.size(), 16));
        let (open, me, other) = position(view);
        let mut order: Vec<u8> = rooms(view.game.moves_of(view.seat)).collect();
        order.shuffle(&mut self.rng);
        let found =
            solver.iterative(open, me, other, order, search_budget(ctx)).ok_or_else(no_move)?;
        tracing::debug!(
            "search: depth {} value {} exact {}",
            found.depth,
            found.value,
            found.exact
        );
        Ok(PaintersAction::to_room(found.room))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use std::time::Instant;

    use super::*;
    use crate::bot::TimeLimits;
    use crate::game::{Game, Status};
    use crate::games::painters::generator::random_board;
    use crate::referee::play_match;

    fn bot(name: &str, seed: u64) -> Box<dyn Bot<Painters>> {
        match name {
            "random" => Box::new(crate::registry::RandomBot::new(seed)),
            "greedy" => Box::new(GreedyBot::new()),
            "perfect" => Box::new(PerfectBot::new()),
            _ => Box::new(SearchBot::new(seed)),
        }
    }

    /// Alma's final score when `alma` plays `berthe` on `game`.
    fn play(game: &Painters, alma: &str, berthe: &str, seed: u64) -> i32 {
        let mut bots = vec![bot(alma, seed), bot(berthe, seed + 1)];
        let limits = [TimeLimits::new(20_000, 20_000); 2];
        let result = play_match(game.clone(), &mut bots, &limits, seed);
        assert_eq!(result.termination, crate::bot::Termination::Normal, "{:?}", result.detail);
        result.outcome.scores[0] as i32
    }

    #[test]
    fn perfect_never_loses_a_point() {
        for seed in 0..40u64 {
            let board =
                random_board(3 + (seed % 3) as u32, [0.0, 0.1, 0.25][(seed % 3) as usize], seed);
            let value = BoardSolver::new(board.size(), 12).solve_board(&board);
            let game = Painters::new(Arc::new(board));
            assert_eq!(play(&game, "perfect", "perfect", seed), value, "seed {seed}");
            for other in ["random", "greedy", "search"] {
                let alma = play(&game, "perfect", other, seed);
                assert!(alma >= value, "seed {seed}: perfect alma got {alma} < {value} vs {other}");
                let berthe = play(&game, other, "perfect", seed);
                assert!(
                    berthe <= value,
                    "seed {seed}: perfect berthe let {berthe} > {value} vs {other}"
                );
            }
        }
    }

    #[test]
    fn every_bot_plays_legal_moves_to_the_end() {
        for seed in 0..10u64 {
            let board = random_board(7, 0.15, seed);
            let game = Painters::new(Arc::new(board));
            for (alma, berthe) in [("random", "greedy"), ("search", "random"), ("greedy", "search")]
            {
                let mut bots = vec![bot(alma, seed), bot(berthe, seed + 1)];
                let limits = [TimeLimits::new(200, 20); 2];
                let result = play_match(game.clone(), &mut bots, &limits, seed);
                assert_eq!(
                    result.termination,
                    crate::bot::Termination::Normal,
                    "{:?}",
                    result.detail
                );
            }
        }
        // The search bot answers within a tight limit even on the largest museum.
        let game = Painters::new(Arc::new(random_board(11, 0.0, 5)));
        let mut search = SearchBot::new(1);
        let started = Instant::now();
        let ctx = TurnContext::wall(started, Duration::from_millis(30));
        let Status::ToAct(seat) = game.status() else { panic!("a fresh game goes on") };
        let action = search.act(&game.view(seat), &ctx).unwrap();
        assert!(
            game.clone()
                .play(seat, &action, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0))
                .is_ok()
        );
    }
}
