//! How long a search may run: one helper for every solver and search bot.
//!
//! A [`Budget`] is an allowance of time on a [`Clock`] plus a node counter: a search calls
//! [`Budget::tick`] once per position and the clock is read only every `2^k` ticks, because a
//! position costs nanoseconds to microseconds and reading a clock tens of nanoseconds. Running
//! out is a value ([`OutOfTime`]), never a panic, and it is sticky: once out, every later tick
//! says so, so a search unwinds without re-reading the clock.
//!
//! The clock is wall time by default. [`Clock::ThreadCpu`] counts only the CPU time of the
//! searching thread (`CLOCK_THREAD_CPUTIME_ID`), so a search on a busy machine gets the same
//! amount of thinking whatever else runs; choosing it is local to where budgets are made.

#![warn(missing_docs)]

use std::time::{Duration, Instant};

/// The clock a budget reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// Wall time (monotonic).
    #[default]
    Wall,
    /// The CPU time of the thread that ticks the budget.
    ThreadCpu,
}

impl Clock {
    /// The clock's reading now, as a duration since its own origin.
    fn now(self, origin: Instant) -> Duration {
        match self {
            Clock::Wall => origin.elapsed(),
            Clock::ThreadCpu => thread_cpu_time(),
        }
    }
}

/// The CPU time the calling thread has used.
pub(crate) fn thread_cpu_time() -> Duration {
    nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID
        .now()
        .map(Duration::from)
        // The thread's CPU clock exists on every platform arena runs on; without it a search
        // would run unbounded, so fall back to "already out of time" (a zero budget) instead.
        .unwrap_or(Duration::MAX)
}

/// The search ran out of its budget before it knew the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime;

/// An allowance of time for one search, checked every few nodes.
#[derive(Clone, Debug)]
pub struct Budget {
    clock: Clock,
    origin: Instant,
    /// The clock reading at which the budget is spent; `None`: unlimited.
    until: Option<Duration>,
    /// The clock is read when `ticks & mask == 0`.
    mask: u64,
    ticks: u64,
    /// The most ticks allowed, checked at every tick; `None`: no count limit.
    tick_limit: Option<u64>,
    out: bool,
}

impl Budget {
    /// A budget that never runs out.
    pub fn unlimited() -> Budget {
        Budget {
            clock: Clock::Wall,
            origin: Instant::now(),
            until: None,
            mask: 0,
            ticks: 0,
            tick_limit: None,
            out: false,
        }
    }

    /// `allowance` of the default clock, from now.
    pub fn new(allowance: Duration) -> Budget {
        Budget::with_clock(Clock::default(), allowance)
    }

    /// `allowance` of `clock`, from now.
    pub fn with_clock(clock: Clock, allowance: Duration) -> Budget {
        let origin = Instant::now();
        let until = clock.now(origin).saturating_add(allowance);
        Budget {
            clock,
            origin,
            until: Some(until),
            mask: 0,
            ticks: 0,
            tick_limit: None,
            out: false,
        }
    }

    /// A wall-clock budget that runs out at `deadline`.
    pub fn until(deadline: Instant) -> Budget {
        Budget::new(deadline.saturating_duration_since(Instant::now()))
    }

    /// Reads the clock only every `nodes` ticks (rounded up to a power of two).
    pub fn check_every(mut self, nodes: u64) -> Budget {
        self.mask = nodes.max(1).next_power_of_two() - 1;
        self
    }

    /// Also runs out after `ticks` more ticks, whatever the clock says: a budget counted in
    /// positions gives the same answer on any machine and under any load (the analysis of a
    /// tournament's matches must be the same byte for byte at any concurrency).
    pub fn with_tick_limit(mut self, ticks: u64) -> Budget {
        self.tick_limit = Some(self.ticks.saturating_add(ticks));
        self
    }

    /// Counts one node; `Err` once the allowance is spent.
    #[inline]
    pub fn tick(&mut self) -> Result<(), OutOfTime> {
        if self.out {
            return Err(OutOfTime);
        }
        self.ticks += 1;
        if self.tick_limit.is_some_and(|limit| self.ticks > limit) {
            self.out = true;
            return Err(OutOfTime);
        }
        if self.ticks & self.mask == 0
            && let Some(until) = self.until
            && self.clock.now(self.origin) >= until
        {
            self.out = true;
            return Err(OutOfTime);
        }
        Ok(())
    }

    /// Whether the budget has been found spent.
    pub fn is_out(&self) -> bool {
        self.out
    }

    /// The ticks counted so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

/// The share of a turn's remaining time a search may use: `fraction` of it, less `reserve` for
/// answering (and for the scheduling noise of a loaded machine).
pub fn allowance(remaining: Duration, fraction: f64, reserve: Duration) -> Duration {
    remaining.mul_f64(fraction).saturating_sub(reserve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlimited_budget_never_runs_out() {
        let mut b = Budget::unlimited().check_every(1);
        assert!((0..10_000).all(|_| b.tick().is_ok()));
        assert_eq!(b.ticks(), 10_000);
    }

    #[test]
    fn a_spent_budget_says_so_at_the_next_reading_and_stays_spent() {
        let mut b = Budget::new(Duration::ZERO).check_every(4);
        // The clock is read at the 4th tick only.
        assert!((0..3).all(|_| b.tick().is_ok()));
        assert_eq!(b.tick(), Err(OutOfTime));
        assert!(b.is_out());
        assert_eq!(b.tick(), Err(OutOfTime));
        let mut late = Budget::until(Instant::now() - Duration::from_secs(1)).check_every(1);
        assert_eq!(late.tick(), Err(OutOfTime));
    }

    #[test]
    fn a_wall_budget_lasts_its_allowance() {
        let mut b = Budget::new(Duration::from_millis(30)).check_every(1);
        assert!(b.tick().is_ok());
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(b.tick(), Err(OutOfTime));
    }

    #[test]
    fn a_thread_cpu_budget_ignores_time_spent_sleeping_and_counts_work() {
        let mut b = Budget::with_clock(Clock::ThreadCpu, Duration::from_millis(20)).check_every(1);
        // Sleeping uses no CPU: the budget is still there after twice its allowance of sleep.
        std::thread::sleep(Duration::from_millis(40));
        assert!(b.tick().is_ok());
        // Busy work spends it.
        let mut x = 0u64;
        while b.tick().is_ok() {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
        }
        assert!(b.is_out());
    }

    #[test]
    fn a_tick_limit_runs_out_after_that_many_ticks_whatever_the_clock() {
        let mut b = Budget::unlimited().with_tick_limit(5).check_every(1024);
        assert!((0..5).all(|_| b.tick().is_ok()));
        assert_eq!(b.tick(), Err(OutOfTime));
        assert!(b.is_out());
        // A time allowance and a count: whichever runs out first.
        let mut both = Budget::new(Duration::from_secs(3600)).with_tick_limit(2);
        assert!(both.tick().is_ok() && both.tick().is_ok());
        assert_eq!(both.tick(), Err(OutOfTime));
    }

    #[test]
    fn allowance_takes_a_share_less_a_reserve() {
        let ms = Duration::from_millis;
        assert_eq!(allowance(ms(100), 0.5, ms(2)), ms(48));
        assert_eq!(allowance(ms(1), 0.5, ms(2)), Duration::ZERO);
    }
}
