//! Keeping a run's results about the bots, not the machine: the default concurrency from the
//! cores and the bot processes a match runs, one warning when a run asks for more processes than
//! there are cores, and one at the end when timeouts are frequent enough to suspect the limits
//! or the load rather than the bots.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::config::Arena;
use crate::bot::{BotSpec, Termination, TimeLimits};
use crate::matches::PlayedMatch;

/// The number of cores, the default concurrency of built-in bots.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map(std::num::NonZero::get).unwrap_or(1)
}

/// Timeouts in more than this share of a run's matches end it with a warning.
pub(crate) const TIMEOUT_WARNING_SHARE: f64 = 0.05;

/// The most external bots (processes of their own) one match of `arena` runs: the seats some
/// external bot may take, at most the number of external bots.
pub(crate) fn external_seats(arena: &Arena) -> usize {
    let external: Vec<_> =
        arena.bots.iter().filter(|b| !matches!(b.spec, BotSpec::Builtin(_))).collect();
    let seats = arena.roles.iter().filter(|r| external.iter().any(|b| b.roles.contains(r))).count();
    seats.min(external.len())
}

/// Matches in flight when neither `-j` nor the arena's `concurrency` says: one per core for
/// built-in bots, and for external bots as many as give each bot process a core.
pub(crate) fn default_concurrency(arena: &Arena) -> usize {
    (cores() / external_seats(arena).max(1)).max(1)
}

/// The warning of a run whose bot processes outnumber the cores, if it is one.
pub(crate) fn oversubscription(arena: &Arena, concurrency: usize) -> Option<String> {
    let seats = external_seats(arena);
    let cores = cores();
    (concurrency * seats > cores).then(|| {
        format!(
            "{concurrency} matches at once x {seats} external bot(s) each = {} bot processes on \
             {cores} cores: on the wall clock their turns also measure the wait for a core (the \
             cpu clock, the default, does not); -j {} gives each a core",
            concurrency * seats,
            (cores / seats).max(1)
        )
    })
}

/// Counts a run's timeouts by culprit, with the limits it had.
#[derive(Default)]
pub(crate) struct TimeoutWatch {
    /// (bot, role) → (timeouts, the limits of its seat).
    by_seat: Mutex<BTreeMap<(String, String), (u64, TimeLimits)>>,
    /// Matches noted.
    played: AtomicU64,
}

impl TimeoutWatch {
    /// Notes a played match (its culprit if it ended in a timeout).
    pub(crate) fn note(&self, played: &PlayedMatch) {
        self.played.fetch_add(1, Ordering::Relaxed);
        let s = &played.summary;
        let (Termination::Timeout, Some(seat)) = (s.termination, s.culprit) else { return };
        let Some(info) = played.header.seats.get(seat) else { return };
        let mut by_seat = self.by_seat.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry =
            by_seat.entry((info.bot.clone(), info.role.clone())).or_insert((0, info.limits));
        entry.0 += 1;
    }

    /// The end-of-run warning, when timeouts ended more than 5% of the matches noted.
    pub(crate) fn warning(&self) -> Option<String> {
        let played = self.played.load(Ordering::Relaxed);
        let by_seat = self.by_seat.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let timeouts: u64 = by_seat.values().map(|(n, _)| n).sum();
        if played == 0 || (timeouts as f64) <= TIMEOUT_WARNING_SHARE * played as f64 {
            return None;
        }
        let seats: Vec<String> = by_seat
            .iter()
            .map(|((bot, role), (n, l))| {
                let cap = match l.clock {
                    crate::bot::TurnClock::Wall => String::new(),
                    crate::bot::TurnClock::Cpu => {
                        format!(", wall cap {} ms", l.wall_cap_of(l.per_turn).as_millis())
                    }
                };
                format!(
                    "`{bot}` as {role}: {n} (first turn {} ms, per turn {} ms, grace {} ms, bank \
                     {} ms, clock {}{cap})",
                    l.first_turn.as_millis(),
                    l.per_turn.as_millis(),
                    l.grace.as_millis(),
                    l.bank.as_millis(),
                    l.clock
                )
            })
            .collect();
        Some(format!(
            "{timeouts} of {played} matches ({:.0}%) ended in a timeout: {}. If the bots are not \
             at fault, raise the limits ([limits] or a bot's `limits`: first_turn_ms, turn_ms, \
             grace_ms, bank_ms, wall_cap_ms; `arena play`: --first-turn-ms, --turn-ms, \
             --grace-ms, --bank-ms, --wall-cap-ms), measure on the cpu clock (clock = \"cpu\", \
             --clock cpu), or run fewer matches at once (-j, concurrency)",
            100.0 * timeouts as f64 / played as f64,
            seats.join("; ")
        ))
    }
}
