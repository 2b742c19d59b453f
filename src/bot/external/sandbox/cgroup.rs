//! Per-bot cgroups (cgroup v1, where root may create them): `pids` caps the processes and
//! threads of a bot, which `RLIMIT_NPROC` cannot do for root; `cpuacct`, when mounted, counts
//! the CPU time of all of them, exited ones included, in one read; `memory`, when mounted, caps
//! the memory of all of them together, and its OOM killer then picks among them only.
//!
//! Each arena process makes `arena-<pid>` under its own cgroup of each hierarchy, and one
//! `bot-<n>` folder in it per slot (`super::slots`: a bot running now; the next bot in the slot
//! reuses its folders once its processes are gone, as creating and removing cgroup folders is
//! not free). Folders left by an arena that ended or was killed are removed by the next one (a
//! cgroup can only be removed once empty, so a folder in use is never touched).
//!
//! A bot joins its cgroups itself, before its `exec` (its relay and init stay out of them:
//! `child::Plan::join_cgroups` says why), through their `tasks` files, not `cgroup.procs`: it
//! has one thread, so moving the thread moves the process, and the kernel moves the writer's
//! own thread without the lock that guards every process's set of threads, whose writers wait
//! for an RCU grace period when no process joined a cgroup in the last few milliseconds (6 to
//! 15 ms, measured: every match's first bot would pay it; through `tasks`, 0.3 ms).
//! cgroup v2 is not used: arena's own cgroup there holds arena itself, and the kernel refuses
//! controllers in the children of a cgroup with processes, unless arena were started in a
//! delegated, empty cgroup of its own.

use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::cpu::CpuClock;

fn open(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new().read(true).write(true).open(path)
}

/// This arena's folders in the `pids` (and `cpuacct`, `memory`) hierarchies.
pub(super) struct Roots {
    pids: PathBuf,
    cpuacct: Option<PathBuf>,
    memory: Option<PathBuf>,
}

impl Roots {
    /// Finds the v1 `pids` (`cpuacct`, `memory`) hierarchies and creates this arena's folders.
    pub(super) fn create() -> Result<Roots, String> {
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let folder = |controller: &str| -> Result<PathBuf, String> {
            let (mount_root, mount_point) = v1_mount(&mounts, controller)
                .ok_or_else(|| format!("no cgroup v1 `{controller}` hierarchy"))?;
            let own = own_cgroup(&own, controller)
                .ok_or_else(|| format!("arena is in no `{controller}` cgroup"))?;
            let relative = own.strip_prefix(mount_root.as_str()).unwrap_or(&own);
            let base = Path::new(&mount_point).join(relative.trim_start_matches('/'));
            sweep_stale(&base);
            let dir = base.join(format!("arena-{}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                    Err(format!("cannot create a cgroup in {}: {e}", base.display()))
                }
                _ => Ok(dir),
            }
        };
        let pids = folder("pids")?;
        let cpuacct = folder("cpuacct").ok();
        let memory = folder("memory").ok();
        Ok(Roots { pids, cpuacct, memory })
    }
}

/// The mount root and mount point of the v1 hierarchy that has `controller`.
fn v1_mount(mountinfo: &str, controller: &str) -> Option<(String, String)> {
    mountinfo.lines().find_map(|line| {
        let (fields, fs) = line.split_once(" - ")?;
        let mut fs = fs.split_whitespace();
        if fs.next()? != "cgroup" {
            return None;
        }
        let options = fs.nth(1)?;
        if !options.split(',').any(|o| o == controller) {
            return None;
        }
        let fields: Vec<&str> = fields.split_whitespace().collect();
        Some((fields.get(3)?.to_string(), fields.get(4)?.to_string()))
    })
}

/// This process's cgroup in the v1 hierarchy that has `controller`.
fn own_cgroup(cgroups: &str, controller: &str) -> Option<String> {
    cgroups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == controller).then(|| path.to_string())
    })
}

/// Removes the empty folders of arenas that no longer run.
fn sweep_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("arena-")) else { continue };
        let Ok(pid) = pid.parse::<i32>() else { continue };
        if !super::arena_gone(pid) {
            continue;
        }
        if let Ok(bots) = std::fs::read_dir(entry.path()) {
            for bot in bots.flatten() {
                if bot.file_type().is_ok_and(|t| t.is_dir()) {
                    let _ = std::fs::remove_dir(bot.path());
                }
            }
        }
        let _ = std::fs::remove_dir(entry.path());
    }
}

/// One slot's cgroups.
pub(super) struct BotCgroup {
    dir: PathBuf,
    /// `tasks` of each, for the bot to join (writing `0`: its one thread).
    tasks: Vec<OwnedFd>,
    /// `cpuacct.usage`, open for reading and resetting.
    usage: Option<File>,
    /// `pids.current`, open for reading at each bot's end.
    pids_current: File,
    memory: Option<MemoryCgroup>,
    /// The cap it has now.
    max_pids: u32,
}

/// A bot's `memory` cgroup.
struct MemoryCgroup {
    dir: PathBuf,
    /// `memory.oom_control`, whose `oom_kill` counts the processes its OOM killer killed.
    oom_control: File,
    /// `oom_kill` when the bot started.
    kills_before: u64,
    /// The cap it has now, in bytes.
    limit: Option<u64>,
    /// An eventfd the kernel signals each time the cgroup runs out of memory (`None`: the
    /// kernel would not register it).
    oom_event: Option<OwnedFd>,
}

impl BotCgroup {
    /// The cgroups of slot `index`, made empty and without limits.
    pub(super) fn create(roots: &Roots, index: u32) -> std::io::Result<BotCgroup> {
        let name = format!("bot-{index}");
        let dir = roots.pids.join(&name);
        make_dir(&dir)?;
        let mut cgroup = BotCgroup {
            tasks: vec![open(&dir.join("tasks"))?.into()],
            pids_current: File::open(dir.join("pids.current"))?,
            dir,
            usage: None,
            memory: None,
            max_pids: 0,
        };
        if let Some(cpuacct) = &roots.cpuacct {
            let dir = cpuacct.join(&name);
            if make_dir(&dir).is_ok() {
                cgroup.tasks.push(open(&dir.join("tasks"))?.into());
                cgroup.usage = Some(open(&dir.join("cpuacct.usage"))?);
            }
        }
        if let Some(memory) = &roots.memory {
            let dir = memory.join(&name);
            if make_dir(&dir).is_ok() {
                cgroup.tasks.push(open(&dir.join("tasks"))?.into());
                let oom_control = open(&dir.join("memory.oom_control"))?;
                let oom_event = oom_event(&dir, &oom_control).ok();
                cgroup.memory = Some(MemoryCgroup {
                    dir,
                    oom_control,
                    kills_before: 0,
                    limit: None,
                    oom_event,
                });
            }
        }
        Ok(cgroup)
    }

    /// Sets up the cgroups for the slot's next bot: at most `max_pids` processes and threads,
    /// at most `memory` bytes together (`None`: no cap), its CPU time counted from zero.
    pub(super) fn reset(&mut self, max_pids: u32, memory: Option<u64>) -> std::io::Result<()> {
        if self.max_pids != max_pids {
            std::fs::write(self.dir.join("pids.max"), max_pids.to_string())?;
            self.max_pids = max_pids;
        }
        if let Some(usage) = &self.usage {
            usage.write_at(b"0", 0)?;
        }
        if let Some(cgroup) = &mut self.memory {
            cgroup.set_limit(memory)?;
            cgroup.kills_before = cgroup.kills();
            if let Some(event) = &cgroup.oom_event {
                // What an earlier bot of the slot ran into is not this one's.
                let mut count = [0u8; 8];
                let _ = File::from(event.try_clone()?).read_at(&mut count, 0);
            }
        }
        Ok(())
    }

    /// The eventfd signalled when the bot runs out of memory, while its memory is capped.
    pub(super) fn oom_event(&self) -> Option<RawFd> {
        let memory = self.memory.as_ref().filter(|m| m.limit.is_some())?;
        memory.oom_event.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// The descriptors the bot writes itself into.
    pub(super) fn tasks_fds(&self) -> impl Iterator<Item = RawFd> + '_ {
        self.tasks.iter().map(AsRawFd::as_raw_fd)
    }

    /// A clock of the CPU time of everything in the cgroup, if `cpuacct` counts it.
    pub(super) fn cpu_clock(&self) -> Option<CpuClock> {
        Some(CpuClock::Cgroup(self.usage.as_ref()?.try_clone().ok()?))
    }

    /// Whether the bot has a `memory` cgroup of its own (which counts what it holds, a tmpfs's
    /// pages it wrote included, capped or not).
    pub(super) fn charges_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// Whether the `memory` cgroup caps the bot's memory.
    pub(super) fn caps_memory(&self) -> bool {
        self.memory.as_ref().is_some_and(|m| m.limit.is_some())
    }

    /// Whether the bot ran out of memory: its cgroup's OOM killer killed one of its processes,
    /// or the kernel signalled the event (the relay then ended the bot, maybe before the OOM
    /// killer chose).
    pub(super) fn ran_out_of_memory(&self) -> bool {
        let Some(memory) = &self.memory else { return false };
        let signalled = memory.oom_event.as_ref().is_some_and(|event| {
            let mut fd = [nix::poll::PollFd::new(event.as_fd(), nix::poll::PollFlags::POLLIN)];
            nix::poll::poll(&mut fd, nix::poll::PollTimeout::ZERO).is_ok_and(|n| n > 0)
        });
        signalled || memory.kills() > memory.kills_before
    }

    /// The processes in it: the bot's, all of them (its relay and init stay out, and nothing it
    /// starts can leave), at most 4096; `None` if the list cannot be read. The file is opened
    /// afresh each time: cgroup v1 keeps the list it made for an open file for a second, so a
    /// descriptor kept open could show a list from before.
    pub(super) fn processes(&self) -> Option<Vec<i32>> {
        let list = std::fs::read_to_string(self.dir.join("cgroup.procs")).ok()?;
        Some(list.split_whitespace().filter_map(|p| p.parse().ok()).take(4096).collect())
    }

    /// Whether no process is left in it (the slot can take its next bot).
    pub(super) fn is_empty(&self) -> bool {
        super::cpu::read_counter(&self.pids_current) == Some(0)
    }
}

impl MemoryCgroup {
    /// `oom_kill` of `memory.oom_control` (0 on kernels that do not count).
    fn kills(&self) -> u64 {
        let mut buf = [0u8; 256];
        let n = self.oom_control.read_at(&mut buf, 0).unwrap_or(0);
        let text = String::from_utf8_lossy(&buf[..n]);
        text.lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Caps the memory and memory-plus-swap of the cgroup at `limit` bytes (`None`: no cap),
    /// so that swapping does not take the bot around its cap.
    fn set_limit(&mut self, limit: Option<u64>) -> std::io::Result<()> {
        if self.limit == limit {
            return Ok(());
        }
        let memsw = self.dir.join("memory.memsw.limit_in_bytes");
        let with_swap = memsw.exists();
        let write = |file: &Path, value: &str| std::fs::write(file, value);
        let plain = self.dir.join("memory.limit_in_bytes");
        // memory-plus-swap may never be below memory: lift both, then lower them in order.
        if with_swap {
            write(&memsw, "-1")?;
        }
        write(&plain, "-1")?;
        if let Some(bytes) = limit {
            write(&plain, &bytes.to_string())?;
            if with_swap {
                write(&memsw, &bytes.to_string())?;
            }
        }
        self.limit = limit;
        Ok(())
    }
}

/// An eventfd registered (`cgroup.event_control`) for the OOM notifications of the `memory`
/// cgroup at `dir`.
fn oom_event(dir: &Path, oom_control: &File) -> std::io::Result<OwnedFd> {
    use nix::sys::eventfd::{EfdFlags, EventFd};
    let event = EventFd::from_flags(EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)?;
    let line = format!("{} {}", event.as_fd().as_raw_fd(), oom_control.as_raw_fd());
    std::fs::write(dir.join("cgroup.event_control"), line)?;
    Ok(event.into())
}

/// Creates a cgroup folder, or finds it there (a slot's, left empty by an earlier bot).
fn make_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_v1_hierarchies_and_own_cgroups() {
        let mountinfo = "\
35 25 0:30 / /sys/fs/cgroup/cpu rw,relatime shared:10 - cgroup cgroup rw,cpu
36 25 0:31 / /sys/fs/cgroup/pids rw,relatime shared:11 - cgroup cgroup rw,pids
37 25 0:32 / /sys/fs/cgroup/unified rw,relatime shared:12 - cgroup2 cgroup2 rw
";
        assert_eq!(
            v1_mount(mountinfo, "pids"),
            Some(("/".to_string(), "/sys/fs/cgroup/pids".to_string()))
        );
        assert_eq!(v1_mount(mountinfo, "cpuacct"), None);
        let cgroups = "8:pids:/user.slice\n2:cpu,cpuacct:/\n0::/init.scope\n";
        assert_eq!(own_cgroup(cgroups, "pids").as_deref(), Some("/user.slice"));
        assert_eq!(own_cgroup(cgroups, "cpuacct").as_deref(), Some("/"));
        assert_eq!(own_cgroup(cgroups, "memory"), None);
    }
}
