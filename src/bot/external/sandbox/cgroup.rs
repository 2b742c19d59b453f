//! Per-bot cgroups (cgroup v1, where root may create them): `pids` caps the processes and
//! threads of a bot, which `RLIMIT_NPROC` cannot do for root; `cpuacct`, when mounted, counts
//! the CPU time of all of them, exited ones included, in one read.
//!
//! Each arena process makes `arena-<pid>` under its own cgroup of each hierarchy, and `bot-<n>`
//! folders in it, one per bot running at a time: a bot's folders are empty once its processes
//! are gone, and the next bot reuses them (creating and removing cgroup folders is not free).
//! Folders left by an arena that ended or was killed are removed by the next one (a cgroup can
//! only be removed once empty, so a folder in use is never touched).
//!
//! Joining a v1 cgroup waits for an RCU grace period when no process joined one just before
//! (milliseconds on a busy machine); the second join, right after the first, does not.
//! cgroup v2 is not used: arena's own cgroup there holds arena itself, and the kernel refuses
//! controllers in the children of a cgroup with processes, unless arena were started in a
//! delegated, empty cgroup of its own.

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::cpu::CpuClock;

fn open(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new().read(true).write(true).open(path)
}

/// This arena's folders in the `pids` (and `cpuacct`) hierarchy, and the bot folders free for
/// reuse.
pub(super) struct Roots {
    pids: PathBuf,
    cpuacct: Option<PathBuf>,
    free: Mutex<Vec<BotCgroup>>,
}

impl Roots {
    /// Finds the v1 `pids` and `cpuacct` hierarchies and creates this arena's folders.
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
        Ok(Roots { pids, cpuacct, free: Mutex::new(Vec::new()) })
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
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            != Err(nix::errno::Errno::ESRCH);
        if alive {
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

/// One bot's cgroups.
pub(super) struct BotCgroup {
    dir: PathBuf,
    /// `cgroup.procs` of each, for the bot's relay to join.
    procs: Vec<OwnedFd>,
    /// `cpuacct.usage`, open for reading and resetting.
    usage: Option<File>,
    /// The cap it was made with.
    max_pids: u32,
}

impl BotCgroup {
    /// A cgroup capped at `max_pids` processes and threads: a free one, or a new one.
    pub(super) fn take(roots: &Roots, max_pids: u32) -> std::io::Result<BotCgroup> {
        let free = roots.free.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mut cgroup = match free {
            Some(cgroup) => cgroup,
            None => {
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let name = format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed));
                let dir = roots.pids.join(&name);
                std::fs::create_dir(&dir)?;
                let procs = vec![open(&dir.join("cgroup.procs"))?.into()];
                let mut cgroup = BotCgroup { procs, dir, usage: None, max_pids: 0 };
                if let Some(cpuacct) = &roots.cpuacct {
                    let dir = cpuacct.join(&name);
                    if std::fs::create_dir(&dir).is_ok() {
                        cgroup.procs.push(open(&dir.join("cgroup.procs"))?.into());
                        cgroup.usage = Some(open(&dir.join("cpuacct.usage"))?);
                    }
                }
                cgroup
            }
        };
        if cgroup.max_pids != max_pids {
            std::fs::write(cgroup.dir.join("pids.max"), max_pids.to_string())?;
            cgroup.max_pids = max_pids;
        }
        if let Some(usage) = &cgroup.usage {
            // A reused cgroup counts from zero again.
            usage.write_at(b"0", 0)?;
        }
        Ok(cgroup)
    }

    /// The descriptors the relay writes itself into.
    pub(super) fn procs_fds(&self) -> impl Iterator<Item = RawFd> + '_ {
        self.procs.iter().map(AsRawFd::as_raw_fd)
    }

    /// A clock of the CPU time of everything in the cgroup, if `cpuacct` counts it.
    pub(super) fn cpu_clock(&self) -> Option<CpuClock> {
        Some(CpuClock::Cgroup(self.usage.as_ref()?.try_clone().ok()?))
    }

    /// Gives the cgroup back for the next bot once its processes are gone (one that still
    /// counts some is left for a later arena's sweep).
    pub(super) fn give_back(self, roots: &Roots) {
        let current = std::fs::read_to_string(self.dir.join("pids.current"));
        if current.is_ok_and(|n| n.trim() == "0") {
            roots.free.lock().unwrap_or_else(PoisonError::into_inner).push(self);
        }
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
