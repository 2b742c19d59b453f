//! A bot's processes stopped between its turns, so that it uses no CPU on its opponents' time:
//! it cannot think while they do, nor load the machine to make them time out (60 spinning
//! processes, paused in its own turns, did). In the sandbox arena writes the request on the
//! bot's control pipe, and its relay passes it to the init of its PID namespace, which stops or
//! continues every other process in it (a bot cannot leave its namespace); without the sandbox arena stops the bot's process group (which
//! a process that calls `setsid` leaves). `ponder = true` lets a bot run between its turns; the
//! CPU it then uses counts in its `cpu_seconds`.
//!
//! Stopped processes still end with the match: `SIGKILL` reaches them, and the end of a match
//! continues the bot before it closes its input.

use nix::sys::signal::{Signal, killpg};

use super::spawn::Process;

impl Process {
    /// Stops every process of the bot (until [`Process::resume`]), and returns once they are.
    pub(super) fn pause(&mut self) {
        self.set_paused(true);
    }

    /// Continues the bot's processes, if they were stopped, and returns once they are.
    pub(super) fn resume(&mut self) {
        if self.paused {
            self.set_paused(false);
        }
    }

    fn set_paused(&mut self, paused: bool) {
        let relayed = self.confinement.as_ref().is_some_and(|c| c.request_pause(paused));
        if !relayed {
            // A bot already gone has nothing to stop: the error is not one.
            let signal = if paused { Signal::SIGSTOP } else { Signal::SIGCONT };
            let _ = killpg(self.group.id(), signal);
        }
        self.paused = paused;
    }
}
