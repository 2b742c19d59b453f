//! A bot's processes stopped between its turns, so that it uses no CPU on its opponents' time:
//! it cannot think while they do, nor load the machine to make them time out (60 spinning
//! processes, paused in its own turns, did). In the sandbox arena writes the request on the
//! bot's control pipe, and the kernel signals the init of its PID namespace (`O_ASYNC`), which
//! reads it and stops or continues every other process in it (a bot cannot leave its
//! namespace); without the sandbox arena stops the bot's process group (which a process that
//! calls `setsid` leaves). `ponder = true` lets a bot run between its turns; the CPU it then
//! uses counts in its `cpu_seconds`.
//!
//! A stopped bot uses no CPU, so its CPU time read as it answered is its CPU time until it is
//! continued: the referee's reads after a turn and before the next, and the next turn's start,
//! are that one reading, and a turn costs one read of the clock instead of four. Whatever runs
//! after that reading (the bot's last instructions before the stop lands, or a process of it
//! that left its group) is charged to its next turn, never to nobody.
//!
//! Stopped processes still end with the match: `SIGKILL` reaches them, and the end of a match
//! continues the bot before it closes its input.

use std::time::Duration;

use nix::sys::signal::{Signal, killpg};

use super::sandbox::Confinement;
use super::spawn::Process;
use super::supervision::ProcessGroup;

/// Whether a bot's processes are stopped, and its CPU time as they were stopped.
#[derive(Default)]
pub(super) struct Paused {
    /// `Some`: stopped, with the CPU time read just before (`None` inside: it could not be read).
    stopped: Option<Option<Duration>>,
}

impl Paused {
    /// The CPU time of a stopped bot, as read when it was stopped; `None` if it runs.
    pub(super) fn cpu_time(&self) -> Option<Option<Duration>> {
        self.stopped
    }

    pub(super) fn is_stopped(&self) -> bool {
        self.stopped.is_some()
    }
}

impl Process {
    /// Stops every process of the bot (until [`Process::resume`]), whose CPU time was just read
    /// as `cpu`; in the sandbox returns once they are stopped.
    pub(super) fn pause(&mut self, cpu: Option<Duration>) {
        if !self.paused.is_stopped() {
            signal(&self.group, self.confinement.as_ref(), true);
            self.paused.stopped = Some(cpu);
        }
    }

    /// Continues the bot's processes, if they were stopped.
    pub(super) fn resume(&mut self) {
        resume(&self.group, self.confinement.as_ref(), &mut self.paused);
    }
}

/// Continues the processes of the bot of `group` (and `confinement`), if `paused` says they
/// are stopped: [`Process::resume`] on the parts of a process a turn has borrowed apart.
pub(super) fn resume(group: &ProcessGroup, confinement: Option<&Confinement>, paused: &mut Paused) {
    if paused.stopped.take().is_some() {
        signal(group, confinement, false);
    }
}

fn signal(group: &ProcessGroup, confinement: Option<&Confinement>, paused: bool) {
    let relayed = confinement.is_some_and(|c| c.request_pause(paused));
    if !relayed {
        // A bot already gone has nothing to stop: the error is not one.
        let signal = if paused { Signal::SIGSTOP } else { Signal::SIGCONT };
        let _ = killpg(group.id(), signal);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::{BotIdentity, ExternalBot, ExternalOptions, SandboxMode, State, Supervisor};
    use crate::bot::{Bot, TurnContext};
    use crate::game::{Game, Setup};
    use crate::games::skynet::Skynet;
    use crate::registry::GameDef;

    /// The CPU a bot uses after it answered is charged to its next turn, as the referee measures
    /// a turn (its CPU time before and after `act`): a process of the bot that left its group
    /// (`setsid`, which the stop of an unsandboxed bot's group does not reach) spins on between
    /// the turns, and the next turn counts it.
    #[test]
    fn cpu_used_after_an_answer_counts_in_the_next_turn() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("spinner");
        let script = "read n l e; k=$((l+e)); while [ $k -gt 0 ]; do read x; k=$((k-1)); done; \
                      read t; setsid sh -c 'echo $$ > \"$0\"; i=0; \
                      while [ $i -lt 100000000 ]; do i=$((i+1)); done' \"$1\" & \
                      while [ ! -s \"$1\" ]; do :; done; echo 0 1; read t; echo 0 1; read t";
        let command =
            ["sh", "-c", script, "bot", pid_file.to_str().unwrap()].map(String::from).to_vec();
        let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
        let options = ExternalOptions { sandbox: Some(SandboxMode::Off), ..Default::default() };
        let supervisor = Supervisor::new();
        let mut bot = ExternalBot::<Skynet>::spawn(&command, &identity, options, &supervisor);
        let setup = Setup {
            variant: "ep2".into(),
            options: Default::default(),
            map: Skynet::default_map("ep2"),
            seed: 1,
        };
        let view = Skynet::new_game(&setup).unwrap().0.view(0);
        let ctx = |decision| TurnContext {
            decision,
            ..TurnContext::wall(Instant::now(), Duration::from_secs(60))
        };
        let _ = bot.act(&view, &ctx(0));
        let answered = Bot::cpu_time(&bot).expect("it runs");
        let State::Running(process) = &bot.state else { panic!("it runs") };
        // The spinner runs on while the bot is stopped.
        let until = Instant::now() + Duration::from_secs(60);
        while process.cpu.read().expect("it runs") < answered + Duration::from_millis(50) {
            assert!(Instant::now() < until, "the spinner never ran");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(Bot::cpu_time(&bot), Some(answered), "stopped: its reading at its answer");
        let before = Bot::cpu_time(&bot).unwrap();
        let _ = bot.act(&view, &ctx(1));
        let after = Bot::cpu_time(&bot).unwrap();
        if let Ok(pid) = std::fs::read_to_string(&pid_file) {
            let pid = nix::unistd::Pid::from_raw(pid.trim().parse().unwrap());
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
        bot.finish();
        assert!(after - before >= Duration::from_millis(50), "{:?}", after - before);
    }
}
