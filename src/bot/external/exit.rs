//! The exit of a bot's leader process, as the runtime's reaper sees it, made visible to the match
//! thread's `poll(2)`: the runtime waits for the exit, stores the status and closes one end of a
//! socket pair, so the other end becomes readable. A turn's wait wakes on an exit as it wakes on
//! output, and the end of a match can wait for an exit without a polling loop.

use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nix::poll::PollFlags;
use nix::sys::signal::Signal;

use super::io::{EXIT_STATUS_WAIT, wait_fd};
use super::runtime::runtime;
use crate::bot::BotFailure;

/// A started process's leader, as arena waits for it.
pub(super) enum Leader {
    /// Started by the standard library (tokio reaps it).
    Child(tokio::process::Child),
    /// A sandbox's relay started by the spawner (`sandbox::spawner`): arena's child all the
    /// same, reaped through its pid.
    Relay(libc::pid_t),
}

/// How the leader ended.
#[derive(Clone, Copy, Debug)]
pub(super) enum Exit {
    Status(ExitStatus),
    /// Waiting failed (the status was taken by someone else); it has exited all the same.
    Unknown,
}

/// Where the leader's exit shows.
pub(super) struct ExitWatch {
    /// Readable (end of file) once the leader has exited and `exit` holds its status.
    signal: UnixStream,
    exit: Arc<Mutex<Option<Exit>>>,
}

/// The socket pair made before the spawn, so that nothing can fail between starting a process
/// and watching it.
pub(super) struct ExitSocket {
    signal: UnixStream,
    peer: UnixStream,
}

impl ExitSocket {
    pub(super) fn new() -> std::io::Result<ExitSocket> {
        let (signal, peer) = UnixStream::pair()?;
        Ok(ExitSocket { signal, peer })
    }

    /// Waits for `leader`'s exit on the runtime from now on.
    pub(super) fn watch(self, leader: Leader) -> ExitWatch {
        let ExitSocket { signal, peer } = self;
        let exit = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&exit);
        runtime().spawn(async move {
            let status = match leader {
                Leader::Child(mut child) => child.wait().await,
                Leader::Relay(pid) => wait_for_relay(pid).await,
            };
            *slot.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(status.map_or(Exit::Unknown, Exit::Status));
            // Closing the peer wakes every poll on `signal`.
            drop(peer);
        });
        ExitWatch { signal, exit }
    }
}

/// Waits for the exit of arena's child `pid`, which tokio does not know (a relay the spawner
/// started), and reaps it: woken by its pidfd, or, without one, by a blocking wait.
#[allow(unsafe_code)]
async fn wait_for_relay(pid: libc::pid_t) -> std::io::Result<ExitStatus> {
    let reap = move |flags| {
        let mut status = 0;
        loop {
            // SAFETY: waiting for arena's own child, which only this task reaps.
            match unsafe { libc::waitpid(pid, &mut status, flags) } {
                r if r == pid => return Ok(Some(ExitStatus::from_raw(status))),
                0 => return Ok(None),
                _ => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    };
    // SAFETY: pidfd_open of arena's own child.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if let Ok(fd @ 0..) = std::os::fd::RawFd::try_from(pidfd) {
        // SAFETY: a fresh descriptor this process owns.
        let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        let interest = tokio::io::Interest::READABLE;
        // SAFETY: the descriptor is owned by the AsyncFd, which outlives its registration.
        if let Ok(exited) =
            unsafe { tokio::io::unix::AsyncFd::register_with_interest(fd, interest) }
        {
            loop {
                let Ok(mut ready) = exited.readable().await else { break };
                if let Some(status) = reap(libc::WNOHANG)? {
                    return Ok(status);
                }
                ready.clear_ready();
            }
        }
    }
    tokio::task::spawn_blocking(move || reap(0))
        .await
        .map_err(std::io::Error::other)?
        .and_then(|status| status.ok_or_else(|| std::io::Error::other("no status")))
}

impl ExitWatch {
    /// The exit, once the leader has exited (and been reaped).
    pub(super) fn exit(&self) -> Option<Exit> {
        *self.exit.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What a turn's `poll` watches to wake on the exit.
    pub(super) fn signal(&self) -> BorrowedFd<'_> {
        self.signal.as_fd()
    }

    /// Whether the leader has exited, killed by `signal`.
    pub(super) fn killed_by(&self, signal: Signal) -> bool {
        matches!(self.exit(), Some(Exit::Status(s)) if s.signal() == Some(signal as i32))
    }

    /// Waits up to `limit` for the leader to exit; whether it has.
    pub(super) fn wait(&self, limit: Duration) -> bool {
        if self.exit().is_some() {
            return true;
        }
        let until = Instant::now() + limit;
        let _ = wait_fd(self.signal.as_fd(), PollFlags::POLLIN, None, until);
        self.exit().is_some()
    }

    /// The failure of a bot whose output closed or whose input broke: `crash` if it exited with
    /// a non-zero code or a signal, `eof` if it exited with code 0 or still runs by the time
    /// the turn allows (never past `deadline`).
    pub(super) fn failure(&self, deadline: Instant) -> BotFailure {
        self.wait(EXIT_STATUS_WAIT.min(deadline.saturating_duration_since(Instant::now())));
        match self.exit() {
            Some(Exit::Status(status)) => exit_failure(status),
            Some(Exit::Unknown) => BotFailure::Crash("exited (status unknown)".into()),
            None => BotFailure::Eof,
        }
    }
}

/// The failure of a bot that exited before answering.
fn exit_failure(status: ExitStatus) -> BotFailure {
    if let Some(signal) = status.signal() {
        let name = Signal::try_from(signal).map_or("unknown signal", Signal::as_str);
        return BotFailure::Crash(format!("killed by signal {signal} ({name})"));
    }
    match status.code() {
        Some(0) => BotFailure::Eof,
        Some(code) => BotFailure::Crash(format!("exit code {code}")),
        None => BotFailure::Crash(format!("exited: {status}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_map_to_failures() {
        assert_eq!(exit_failure(ExitStatus::from_raw(0)), BotFailure::Eof);
        assert_eq!(
            exit_failure(ExitStatus::from_raw(3 << 8)),
            BotFailure::Crash("exit code 3".into())
        );
        assert_eq!(
            exit_failure(ExitStatus::from_raw(11)),
            BotFailure::Crash("killed by signal 11 (SIGSEGV)".into())
        );
    }
}
