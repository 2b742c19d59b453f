//! Stopping external bots: one bot's process group at the end of its match (end of input, grace,
//! `SIGTERM`, grace, `SIGKILL`, reap), and every live group at once when the caller asks or a
//! signal comes (Ctrl-C, `SIGTERM`, a hang-up, `SIGQUIT`).
//!
//! The live groups are known to a [`Supervisor`] the caller owns and hands to every spawn, not to
//! a global: a library user decides what a stop means for the rest of the program, and two
//! supervisors in one process (two independent runs) do not see each other's bots.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::exit::ExitWatch;
use super::runtime::runtime;

/// How long the end of a match waits for a killed group to be gone before giving up on it.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// After a signal to arena, how long the bots have between `SIGTERM` and `SIGKILL`.
const SIGNAL_GRACE: Duration = Duration::from_millis(100);

/// Knows the process group of every external bot it started that is still alive, and can stop
/// them all: what keeps a Ctrl-C from leaving bots behind.
///
/// Cheap to clone (clones share one state). Every external bot is spawned with one, and a match
/// played with a supervisor that has begun to stop returns
/// [`Error::Interrupted`](crate::Error::Interrupted) instead of a result: the failures of bots
/// killed by the stop say nothing about the bots.
///
/// ```
/// use std::time::Duration;
///
/// use arena::bot::Supervisor;
///
/// let supervisor = Supervisor::new();
/// // ... `arena::matches::play(&spec, &supervisor)` on any number of threads ...
/// assert!(!supervisor.is_stopping());
/// // Something decided to give up: TERM every live bot's group, 50 ms, KILL.
/// let stopped = supervisor.stop_all(Duration::from_millis(50));
/// assert_eq!(stopped, 0, "no bot was running");
/// assert!(supervisor.is_stopping(), "no bot starts from now on");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Supervisor {
    inner: Arc<Groups>,
}

#[derive(Debug, Default)]
struct Groups {
    /// The process group ids of the live bots.
    live: Mutex<BTreeSet<i32>>,
    /// Set before the first signal of a stop is sent, and never cleared.
    stopping: AtomicBool,
}

/// A signal that stops arena, and so every bot, when [`Supervisor::install_signal_handlers`]
/// listens for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopSignal {
    /// `SIGINT`: Ctrl-C.
    Interrupt,
    /// `SIGTERM`: `kill`, a batch scheduler's cancel.
    Terminate,
    /// `SIGHUP`: the terminal closed, the ssh session dropped.
    HangUp,
    /// `SIGQUIT`: Ctrl-\.
    Quit,
}

impl StopSignal {
    fn signal(self) -> Signal {
        match self {
            StopSignal::Interrupt => Signal::SIGINT,
            StopSignal::Terminate => Signal::SIGTERM,
            StopSignal::HangUp => Signal::SIGHUP,
            StopSignal::Quit => Signal::SIGQUIT,
        }
    }

    /// The signal's name (`SIGINT`).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.signal().as_str()
    }

    /// The exit status shells give a program this signal ended: 128 plus the signal's number
    /// (130, 143, 129, 131).
    #[must_use]
    pub fn exit_code(self) -> i32 {
        128 + self.signal() as i32
    }
}

/// What a signal handler installed by [`Supervisor::install_signal_handlers`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted {
    /// The signal that came.
    pub signal: StopSignal,
    /// How many bot process groups were stopped.
    pub stopped_groups: usize,
}

impl Supervisor {
    /// A supervisor with no bot yet, and no signal handler.
    #[must_use]
    pub fn new() -> Supervisor {
        Supervisor::default()
    }

    /// Whether a stop has begun: new bots are refused, and matches end without a result.
    #[must_use]
    pub fn is_stopping(&self) -> bool {
        self.inner.stopping.load(Ordering::SeqCst)
    }

    /// Refuses new bots from now on, sends `SIGTERM` to every live bot's group, waits `grace`,
    /// and sends `SIGKILL` to what is left. Returns how many groups it stopped. The matches of
    /// those bots end (their bots crash) and return [`Error::Interrupted`](crate::Error); each
    /// match's own end reaps its processes.
    pub fn stop_all(&self, grace: Duration) -> usize {
        let groups = self.begin_stop();
        signal_groups(&groups, Signal::SIGTERM);
        std::thread::sleep(grace);
        signal_groups(&groups, Signal::SIGKILL);
        groups.len()
    }

    /// Makes `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT` to this process stop every live bot
    /// (as [`stop_all`](Supervisor::stop_all) with a 100 ms grace), then call `on_signal`, on a
    /// thread of the bot runtime. The handlers stay for the life of the process and replace the
    /// signals' default action, which is to end the process: `on_signal` decides what happens
    /// next (the `arena` command reports and exits with [`StopSignal::exit_code`]). The
    /// listeners exist when this returns, so no early signal slips through. Install them once.
    ///
    /// # Errors
    ///
    /// The system refused one of the handlers (it has no reason to, for these four). tokio keeps
    /// the ones registered before it, and their signals are then ignored.
    pub fn install_signal_handlers<F>(&self, mut on_signal: F) -> std::io::Result<()>
    where
        F: FnMut(Interrupted) + Send + 'static,
    {
        use tokio::signal::unix::{SignalKind, signal};
        let rt = runtime();
        let _guard = rt.enter();
        let mut int = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        let mut hup = signal(SignalKind::hangup())?;
        let mut quit = signal(SignalKind::quit())?;
        let supervisor = self.clone();
        rt.spawn(async move {
            loop {
                let signal = tokio::select! {
                    _ = int.recv() => StopSignal::Interrupt,
                    _ = term.recv() => StopSignal::Terminate,
                    _ = hup.recv() => StopSignal::HangUp,
                    _ = quit.recv() => StopSignal::Quit,
                };
                let groups = supervisor.begin_stop();
                signal_groups(&groups, Signal::SIGTERM);
                tokio::time::sleep(SIGNAL_GRACE).await;
                signal_groups(&groups, Signal::SIGKILL);
                on_signal(Interrupted { signal, stopped_groups: groups.len() });
            }
        });
        Ok(())
    }

    /// Sets the flag, then takes the groups under the lock `admit` holds while it spawns: a
    /// group started before is in the list, one started after sees the flag.
    fn begin_stop(&self) -> Vec<Pid> {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.live().iter().map(|&g| Pid::from_raw(g)).collect()
    }

    /// Permission to start one bot, or `None` once a stop has begun. Holds the lock a stop
    /// takes until the group is registered (or the spawn fails), so no bot starts unseen.
    pub(super) fn admit(&self) -> Option<Admission<'_>> {
        let live = self.live();
        if self.is_stopping() {
            return None;
        }
        Some(Admission { supervisor: self, live })
    }

    fn live(&self) -> MutexGuard<'_, BTreeSet<i32>> {
        self.inner.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn signal_groups(groups: &[Pid], signal: Signal) {
    for &g in groups {
        let _ = killpg(g, signal);
    }
}

/// The right to start one bot, from [`Supervisor::admit`].
pub(super) struct Admission<'a> {
    supervisor: &'a Supervisor,
    live: MutexGuard<'a, BTreeSet<i32>>,
}

impl Admission<'_> {
    /// The bot started as the leader of group `pgid`.
    pub(super) fn register(mut self, pgid: Pid) -> ProcessGroup {
        self.live.insert(pgid.as_raw());
        ProcessGroup { pgid, supervisor: self.supervisor.clone() }
    }
}

/// One bot's process group, registered with its supervisor until [`stop`](ProcessGroup::stop)
/// has made sure it is gone.
pub(super) struct ProcessGroup {
    pgid: Pid,
    supervisor: Supervisor,
}

impl ProcessGroup {
    pub(super) fn id(&self) -> Pid {
        self.pgid
    }

    /// `SIGKILL` to the group now, for a bot abandoned without a proper end.
    pub(super) fn kill(&self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
    }

    /// Ends the group of a bot whose input is closed: `grace` for the leader to exit,
    /// `SIGTERM` to the group, `grace`, `SIGKILL`, then reaps the leader and every member
    /// re-parented to arena, and forgets the group. Says how long the leader took to exit by
    /// itself, when it did within the first `grace`, and whether the group is gone.
    pub(super) fn stop(self, exit: &ExitWatch, grace: Duration) -> Stopped {
        let asked = Instant::now();
        let by_itself = exit.wait(grace).then(|| asked.elapsed());
        // Members can outlive the leader, so the group gets the signals either way. (The group
        // id cannot be reused while a member or the unreaped leader exists.)
        if self.exists(exit) {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            self.wait_gone(exit, grace);
        }
        if self.exists(exit) {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
        self.wait_gone(exit, REAP_WAIT);
        // `wait_gone` gives up after `REAP_WAIT`: a process may still be on its way out.
        let gone = !self.exists(exit);
        self.supervisor.live().remove(&self.pgid.as_raw());
        Stopped { by_itself, gone }
    }

    /// Waits up to `limit` for the leader to exit, then up to `limit` more for the rest of the
    /// group (a process can be signalled but not waited for, so this one polls).
    fn wait_gone(&self, exit: &ExitWatch, limit: Duration) {
        exit.wait(limit);
        let until = Instant::now() + limit;
        while self.exists(exit) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Whether a process of the group still exists. Reaps members re-parented to arena first,
    /// but only once tokio, which owns the leader's pid, has reaped the leader.
    fn exists(&self, exit: &ExitWatch) -> bool {
        if exit.exit().is_some() {
            reap_group(self.pgid);
        }
        killpg(self.pgid, None::<Signal>) != Err(Errno::ESRCH)
    }
}

/// How a stopped group ended.
pub(super) struct Stopped {
    /// How long the leader took to exit by itself, when it did within the grace.
    pub(super) by_itself: Option<Duration>,
    /// No process of the group exists any more: what a sandboxed bot's slot waits for before
    /// its next bot (a sandboxed bot's init, whose end the kernel completes only once every
    /// process of the bot's PID namespace is gone, is in the group).
    pub(super) gone: bool,
}

/// Reaps every exited child of arena in group `pgid`, without blocking.
fn reap_group(pgid: Pid) {
    let group = Pid::from_raw(-pgid.as_raw());
    while let Ok(status) = waitpid(group, Some(WaitPidFlag::WNOHANG)) {
        if status == WaitStatus::StillAlive {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_give_the_shells_exit_codes() {
        let codes: Vec<(&str, i32)> =
            [StopSignal::Interrupt, StopSignal::Terminate, StopSignal::HangUp, StopSignal::Quit]
                .into_iter()
                .map(|s| (s.name(), s.exit_code()))
                .collect();
        assert_eq!(codes, [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129), ("SIGQUIT", 131)]);
    }

    #[test]
    fn a_stopped_supervisor_admits_no_bot_and_its_clones_know() {
        let supervisor = Supervisor::new();
        let clone = supervisor.clone();
        assert!(supervisor.admit().is_some());
        assert_eq!(clone.stop_all(Duration::ZERO), 0);
        assert!(supervisor.is_stopping());
        assert!(supervisor.admit().is_none());
        assert!(!Supervisor::new().is_stopping(), "another supervisor is not stopped");
    }

    #[test]
    fn a_stop_sees_every_registered_group_until_it_is_stopped() {
        let supervisor = Supervisor::new();
        // A group id no process has (pid_max is far below): the signals find nothing.
        let group = supervisor.admit().expect("admitted").register(Pid::from_raw(i32::MAX - 7));
        assert_eq!(supervisor.begin_stop(), vec![group.id()]);
        supervisor.live().remove(&group.id().as_raw());
        assert_eq!(supervisor.stop_all(Duration::ZERO), 0);
    }
}
