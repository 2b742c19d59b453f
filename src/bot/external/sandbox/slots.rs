//! Slots: what a bot running now holds, and the next bot reuses once it is gone. A slot's index
//! gives a root arena's bot its own uid (distinct from every bot running at the same time, as
//! `isolate` gives each box one); as root a slot also keeps a network namespace (making one
//! costs milliseconds, joining one microseconds, and nothing a bot does in it outlives the
//! bot's processes: it has no capability there) and its cgroups.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use super::cgroup::{BotCgroup, Roots};

/// How many slots an arena may have at once: the uids of one arena's bots are a range of this
/// size.
const MAX_SLOTS: u32 = 0x1000;

/// The first uid of arenas' bots: far above any account's (and above the ranges `subuid` hands
/// to containers, which start at 100000).
const UID_BASE: u32 = 0x4000_0000;

/// What one running bot holds.
pub(super) struct Slot {
    pub(super) index: u32,
    /// A network namespace with only a loopback interface, down.
    pub(super) netns: Option<OwnedFd>,
    pub(super) cgroup: Option<BotCgroup>,
}

impl Slot {
    /// The slot's network namespace, made the first time a bot of the slot needs it.
    pub(super) fn netns(&mut self) -> io::Result<std::os::fd::RawFd> {
        if self.netns.is_none() {
            self.netns = Some(new_netns()?);
        }
        Ok(self.netns.as_ref().map(std::os::fd::AsRawFd::as_raw_fd).unwrap_or_default())
    }

    /// The uid (and gid) of a root arena's bot in this slot: a range per arena process (by its
    /// pid), an id per slot in it.
    pub(super) fn uid(&self) -> u32 {
        UID_BASE + (std::process::id() & 0xFFFF) * MAX_SLOTS + self.index
    }
}

/// The slots of this arena process, the free ones ready for the next bot.
#[derive(Default)]
pub(super) struct Slots {
    free: Mutex<Vec<Slot>>,
    next: AtomicU32,
}

impl Slots {
    /// A free slot, or a new one (with cgroups under `roots`).
    pub(super) fn take(&self, roots: Option<&Roots>) -> io::Result<Slot> {
        let free = self.free.lock().unwrap_or_else(PoisonError::into_inner).pop();
        if let Some(slot) = free {
            return Ok(slot);
        }
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        if index >= MAX_SLOTS {
            return Err(io::Error::other(format!("more than {MAX_SLOTS} bots at once")));
        }
        let cgroup = roots.map(|roots| BotCgroup::create(roots, index)).transpose()?;
        Ok(Slot { index, netns: None, cgroup })
    }

    /// Gives a slot back once its bot's processes are gone (a slot whose cgroup still counts
    /// some is left to a later arena's sweep, with its index).
    pub(super) fn give_back(&self, slot: Slot) {
        if slot.cgroup.as_ref().is_none_or(BotCgroup::is_empty) {
            self.free.lock().unwrap_or_else(PoisonError::into_inner).push(slot);
        }
    }
}

/// A network namespace with only a loopback interface, down: made by a thread that unshares
/// its own network namespace and exits, kept by an open descriptor.
pub(super) fn new_netns() -> io::Result<OwnedFd> {
    std::thread::spawn(|| -> io::Result<OwnedFd> {
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET)?;
        Ok(std::fs::File::open("/proc/thread-self/ns/net")?.into())
    })
    .join()
    .map_err(|_| io::Error::other("the thread making it panicked"))?
}
