//! Which matches repeat themselves: built-in bots whose play depends only on the map, and games
//! without chance. An SPRT that cycles a pool of maps with only such bots would count the same
//! pairs again and again as new evidence, so it stops at the end of the pool instead.
//!
//! Each game registers both facts with itself (`BotEntry::deterministic`, `GameDef::CHANCE`); the
//! test here plays every bot registered as deterministic under two seeds and checks that nothing
//! changes (and that a game with chance does change), so a bot that starts using its seed fails a
//! test instead of silently making SPRTs stop early. External bots are assumed to use their seed
//! (or the clock) unless the arena file declares them deterministic.

use crate::games::GameId;
use crate::registry::{GameDef, find_bot};

/// Whether the built-in bot `name` of `game` plays the same way whatever its seed.
pub(crate) fn seedless_builtin(game: GameId, name: &str) -> bool {
    crate::with_game!(game, D => find_bot::<D>(name).is_ok_and(|b| b.deterministic))
}

/// Whether the game's rules draw from the match seed (Risk's deal and dice).
pub(crate) fn game_has_chance(game: GameId) -> bool {
    crate::with_game!(game, D => D::CHANCE)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::bot::{BotSpec, Supervisor};
    use crate::matches::{LimitOverrides, MapSource, MatchSpec, Player, play};

    /// The actions of a match of `game` with `seats` (built-in names, by role) under `seed`.
    fn actions<D: GameDef>(game: GameId, seats: &BTreeMap<String, String>, seed: u64) -> String {
        let players = seats
            .iter()
            .map(|(role, bot)| (role.clone(), Player::new(BotSpec::Builtin(bot.clone()))))
            .collect();
        let variant = D::VARIANTS[0];
        let mut options = BTreeMap::new();
        if game == GameId::Risk {
            options.insert("players".to_string(), "2".to_string());
        }
        let map = match D::generate_map(variant, &BTreeMap::new(), 5) {
            Ok(map) => MapSource::Text(map),
            Err(_) => MapSource::Text(D::default_map(variant)),
        };
        let spec = MatchSpec {
            game,
            variant: Some(variant.to_string()),
            options,
            map,
            players,
            seed,
            // Generous limits: a search must finish, not be cut by a loaded test machine.
            limits: LimitOverrides {
                first_turn_ms: Some(60_000),
                turn_ms: Some(60_000),
                ..LimitOverrides::default()
            },
        };
        let played = play(&spec, &Supervisor::new()).expect("the match plays");
        played.steps.iter().map(|s| format!("{}:{}\n", s.seat, s.action)).collect()
    }

    fn check<D: GameDef>(game: GameId) {
        let seedless: Vec<&str> =
            D::BOTS.iter().filter(|b| b.deterministic).map(|b| b.name).collect();
        let (first_match, _) = D::new_game(&crate::game::Setup {
            variant: D::VARIANTS[0].to_string(),
            options: if game == GameId::Risk {
                [("players".to_string(), "2".to_string())].into()
            } else {
                BTreeMap::new()
            },
            map: D::default_map(D::VARIANTS[0]),
            seed: 1,
        })
        .expect("the default map");
        let roles = crate::game::Game::roles(&first_match);
        for bot in &seedless {
            let info = find_bot::<D>(bot).expect("a listed bot exists");
            for role in info.roles {
                if !roles.iter().any(|r| r == role) {
                    continue;
                }
                // The other seats: seedless bots too, so only this bot and the game could vary.
                let seats: BTreeMap<String, String> = roles
                    .iter()
                    .map(|r| {
                        let who = if r == role {
                            bot.to_string()
                        } else {
                            seedless
                                .iter()
                                .find(|b| {
                                    find_bot::<D>(b).is_ok_and(|i| i.roles.contains(&r.as_str()))
                                })
                                .expect("a seedless bot for every role")
                                .to_string()
                        };
                        (r.clone(), who)
                    })
                    .collect();
                let a = actions::<D>(game, &seats, 11);
                let b = actions::<D>(game, &seats, 12);
                if D::CHANCE {
                    assert_ne!(a, b, "{game}: {seats:?} plays the same under two seeds");
                } else {
                    assert_eq!(a, b, "{game}: `{bot}` as {role} changed with the seed");
                }
            }
        }
    }

    #[test]
    fn seedless_bots_play_the_same_whatever_the_seed() {
        for &game in GameId::ALL.iter().filter(|&&g| !game_has_chance(g)) {
            crate::with_game!(game, D => check::<D>(game));
        }
    }

    #[test]
    fn a_game_with_chance_changes_with_the_seed() {
        let with_chance: Vec<GameId> =
            GameId::ALL.iter().copied().filter(|&g| game_has_chance(g)).collect();
        assert!(!with_chance.is_empty(), "Risk has dice");
        for game in with_chance {
            crate::with_game!(game, D => check::<D>(game));
        }
    }

    #[test]
    fn seeded_bots_are_not_registered_as_deterministic() {
        for &game in GameId::ALL {
            assert!(!seedless_builtin(game, "random"), "{game}: `random` draws from its seed");
            assert!(!seedless_builtin(game, "no-such-bot"), "{game}");
        }
        assert!(!seedless_builtin(GameId::Painters, "search"));
        assert!(seedless_builtin(GameId::Skynet, "solver"));
        assert!(game_has_chance(GameId::Risk) && !game_has_chance(GameId::Skynet));
    }
}
