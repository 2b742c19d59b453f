//! Slots: what a bot running now holds, and the next bot reuses once it is gone. A slot's index
//! gives a root arena's bot its own uid (distinct from every bot running at the same time, as
//! `isolate` gives each box one); a slot also keeps a network namespace (making one costs
//! milliseconds, joining one microseconds, and nothing a bot does in it outlives the bot's
//! processes: it has no capability there), an unprivileged arena's slot the user namespace that
//! owns it (made once with its id maps, for the same reasons) and a spawner living in it (whose
//! relays share its memory: a process that shares its memory cannot join a user namespace), and
//! its cgroups.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use super::cgroup::{BotCgroup, Roots};
use super::spawner::Spawner;

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
    /// An unprivileged arena's: the user namespace that owns `netns`, mapping arena's own user
    /// only.
    pub(super) userns: Option<OwnedFd>,
    /// An unprivileged arena's: a spawner living in `userns`, whose relays share its memory
    /// (`None` inside: it could not start), and whether it has the slot filter installed (it
    /// then serves only bots that get it: `spawner::serve`).
    pub(super) spawner: Option<(bool, Option<Spawner>)>,
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

    /// An unprivileged arena's slot's user namespace (with these id maps) and the network
    /// namespace it owns, made the first time a bot of the slot needs them.
    pub(super) fn user_namespaces(
        &mut self,
        uid_map: &[u8],
        gid_map: &[u8],
    ) -> io::Result<(std::os::fd::RawFd, std::os::fd::RawFd)> {
        use std::os::fd::AsRawFd;
        if self.userns.is_none() {
            let (userns, netns) = new_user_and_netns(uid_map, gid_map)?;
            (self.userns, self.netns) = (Some(userns), Some(netns));
        }
        let raw = |fd: &Option<OwnedFd>| fd.as_ref().map(AsRawFd::as_raw_fd).unwrap_or_default();
        Ok((raw(&self.userns), raw(&self.netns)))
    }

    /// The spawner of the slot's user namespace `userns` for a bot with the slot filter
    /// (`no_network`) or without, started the first time a bot of the slot needs it, and again
    /// when the slot's next bot needs the other kind (a slot keeps one, which `RLIMIT_NPROC`
    /// counts among its bot's processes). `None`: it could not start; arena's spawner then
    /// forks the relays.
    pub(super) fn spawner(
        &mut self,
        userns: std::os::fd::RawFd,
        no_network: bool,
    ) -> Option<&Spawner> {
        if self.spawner.as_ref().is_some_and(|(kind, _)| *kind != no_network) {
            // Dropping it ends it (end of file on its socket) and reaps it.
            self.spawner = None;
        }
        let (_, spawner) = self.spawner.get_or_insert_with(|| {
            // One that cannot install the filter does not start: one without does (its bots
            // install it themselves).
            let spawner = Spawner::in_slot(userns, no_network);
            let spawner =
                spawner.or_else(|| no_network.then(|| Spawner::in_slot(userns, false))?);
            (no_network, spawner)
        });
        spawner.as_ref()
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
        Ok(Slot { index, netns: None, userns: None, spawner: None, cgroup })
    }

    /// Gives a slot back once its bot's processes are gone (`gone`: arena saw the bot's whole
    /// process group end, its relay and its init included; the kernel completes the init's end
    /// only once every process of the bot's PID namespace is gone). A slot
    /// whose bot may still have processes is not reused: its namespaces close with it here (the
    /// kernel frees them with their last process), and its cgroup, while it still counts some, is
    /// left to a later arena's sweep, with its index. An unprivileged arena's slot (no uid or
    /// cgroup of its own) comes back without its namespaces instead: the next bot makes new ones.
    pub(super) fn give_back(&self, mut slot: Slot, gone: bool) {
        if !gone && slot.userns.is_some() && slot.cgroup.is_none() {
            (slot.userns, slot.netns, slot.spawner) = (None, None, None);
        } else if !gone || !slot.cgroup.as_ref().is_none_or(BotCgroup::is_empty) {
            return;
        }
        self.free.lock().unwrap_or_else(PoisonError::into_inner).push(slot);
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

/// A user namespace that maps arena's own user only (`uid_map`, `gid_map`: `setgroups` denied)
/// and a network namespace it owns, with only a loopback interface, down: made by a child
/// cloned into both, whose id maps arena writes; kept by open descriptors after the child ends.
pub(super) fn new_user_and_netns(uid_map: &[u8], gid_map: &[u8]) -> io::Result<(OwnedFd, OwnedFd)> {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let (wait_r, wait_w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNET | libc::SIGCHLD;
    // SAFETY: a fork (the child has its own copy of arena's memory) whose child closes every
    // descriptor but its end of the pipe, reads it (end of file once arena has what it needs)
    // and exits: system calls only, no allocation, no lock.
    #[allow(unsafe_code)]
    let pid = unsafe {
        let pid = libc::syscall(libc::SYS_clone, flags as libc::c_ulong, 0usize, 0usize, 0usize);
        if pid == 0 {
            // The child inherits every descriptor arena has open, the write ends of other
            // threads' pipes of this kind included: kept, two such children made at once would
            // each wait for the end of file the other holds off (and every arena thread with
            // them), and one would hold other bots' lifelines and stdin after arena's death.
            super::child::close_all_but([wait_r.as_raw_fd()]);
            let mut byte = 0u8;
            libc::read(wait_r.as_raw_fd(), (&raw mut byte).cast(), 1);
            libc::_exit(0);
        }
        pid
    };
    if pid == -1 {
        return Err(io::Error::last_os_error());
    }
    let pid = pid as libc::pid_t;
    let made = (|| -> io::Result<(OwnedFd, OwnedFd)> {
        // Each file in one write, as the kernel requires; `setgroups` first, or an unprivileged
        // writer may not write `gid_map`.
        for (file, data) in
            [("setgroups", &b"deny"[..]), ("uid_map", uid_map), ("gid_map", gid_map)]
        {
            let mut f =
                std::fs::OpenOptions::new().write(true).open(format!("/proc/{pid}/{file}"))?;
            if f.write(data)? != data.len() {
                return Err(io::Error::other(format!("{file} written in part")));
            }
        }
        let open = |ns: &str| -> io::Result<OwnedFd> {
            Ok(std::fs::File::open(format!("/proc/{pid}/ns/{ns}"))?.into())
        };
        Ok((open("user")?, open("net")?))
    })();
    drop(wait_w);
    let mut status = 0;
    // SAFETY: waiting for the child made above.
    #[allow(unsafe_code)]
    unsafe {
        while libc::waitpid(pid, &mut status, 0) == -1
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tournaments start their matches' bots on many threads at once, so their slots' namespaces
    /// are made at once: each maker's child must not keep another's pipe open.
    #[test]
    fn user_and_network_namespaces_made_on_many_threads_at_once_all_come() {
        let uid = nix::unistd::geteuid().as_raw();
        let gid = nix::unistd::getegid().as_raw();
        let maps = (format!("{uid} {uid} 1\n"), format!("{gid} {gid} 1\n"));
        // Where the kernel refuses a user namespace (arena then runs bots without one), there is
        // nothing to make.
        if new_user_and_netns(maps.0.as_bytes(), maps.1.as_bytes()).is_err() {
            return;
        }
        const THREADS: usize = 8;
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(THREADS));
        let (sender, receiver) = std::sync::mpsc::channel();
        for _ in 0..THREADS {
            let (barrier, sender, maps) = (barrier.clone(), sender.clone(), maps.clone());
            std::thread::spawn(move || {
                for _ in 0..25 {
                    barrier.wait();
                    let made = new_user_and_netns(maps.0.as_bytes(), maps.1.as_bytes());
                    sender.send(made.map(drop).map_err(|e| e.to_string())).unwrap();
                }
            });
        }
        for made in 0..THREADS * 25 {
            // A generous wait: on a deadlock nothing ever comes.
            match receiver.recv_timeout(std::time::Duration::from_secs(60)) {
                Ok(result) => result.unwrap(),
                Err(_) => panic!("only {made} of {} made: the makers wait on each other", {
                    THREADS * 25
                }),
            }
        }
    }
}
