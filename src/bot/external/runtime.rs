//! The tokio runtime that does external bots' background work: draining stderr, waiting for the
//! leaders' exits, and listening for the signals that stop every bot.
//!
//! It is one per process, created on first use and never dropped, rather than a part of the
//! [`Supervisor`](super::Supervisor): what it serves is process-wide whoever owns it (a signal's
//! disposition, the `SIGCHLD` reaper tokio installs for its children, the child-subreaper flag),
//! one small pool serves any number of supervisors, and a runtime may not be dropped inside its own
//! tasks, which is where the last clone of a supervisor would drop it. It holds no state about
//! bots; that belongs to the supervisor.

use std::sync::OnceLock;

use tokio::runtime::Runtime;

/// The runtime. The first call also registers arena as a child subreaper (Linux), so orphans of
/// a bot's process tree are re-parented to arena, not to init, and can be reaped.
pub(super) fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        #[cfg(target_os = "linux")]
        if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
            tracing::warn!("cannot become a child subreaper: {e}");
        }
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("arena-bot-io")
            .enable_all()
            .build()
            .expect("the bot I/O runtime starts (threads and an epoll instance)")
    })
}
