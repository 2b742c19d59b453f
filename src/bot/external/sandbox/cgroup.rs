//! Per-bot cgroups (cgroup v1, where root may create them): `pids` caps the processes and
//! threads of a bot, which `RLIMIT_NPROC` cannot do for root; `cpuacct` counts the CPU time of
//! all of its processes, those that exited included.
//!
//! Each arena process makes `arena-<pid>` under its own cgroup of each hierarchy while it has
//! sandboxed bots, and one `bot-<n>` in it per bot, removed once the bot is gone (and the
//! `arena-<pid>` folder with its last bot). Folders left by an arena that was killed are removed
//! by the next one (a cgroup can only be removed once empty, so a folder still in use is never
//! touched).
//!
//! cgroup v2 is not used: arena's own cgroup there holds arena itself, and the kernel refuses
//! controllers in the children of a cgroup with processes, unless arena were started in a
//! delegated, empty cgroup of its own.

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::cpu::CpuClock;

/// This arena's cgroup folders, one per hierarchy (`pids`, and `cpuacct` when it is mounted).
pub(super) struct Roots {
    pids: PathBuf,
    cpuacct: Option<PathBuf>,
}

impl Roots {
    /// Finds the v1 `pids` and `cpuacct` hierarchies and creates this arena's folders.
    pub(super) fn create() -> Result<Roots, String> {
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let base = |controller: &str| -> Option<PathBuf> {
            let (mount_root, mount_point) = v1_mount(&mounts, controller)?;
            let own = own_cgroup(&own, controller)?;
            let relative = own.strip_prefix(mount_root.as_str()).unwrap_or(&own);
            Some(Path::new(&mount_point).join(relative.trim_start_matches('/')))
        };
        let name = format!("arena-{}", std::process::id());
        let make = |base: PathBuf| -> std::io::Result<PathBuf> {
            sweep_stale(&base);
            let dir = base.join(&name);
            create_dir(&dir)?;
            Ok(dir)
        };
        let pids = base("pids").ok_or("no cgroup v1 `pids` hierarchy")?;
        let pids = make(pids.clone())
            .map_err(|e| format!("cannot create a cgroup in {}: {e}", pids.display()))?;
        let cpuacct = base("cpuacct").and_then(|b| make(b).ok());
        Ok(Roots { pids, cpuacct })
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

/// Creates `dir`; that it exists already is fine.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// Creates the bot folder `name` in `root`, and `root` if the last bot removed it meanwhile.
fn create_bot_dir(root: &Path, name: &str) -> std::io::Result<PathBuf> {
    let dir = root.join(name);
    let mut tries = 0;
    loop {
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < 10 => {
                tries += 1;
                create_dir(root)?;
            }
            result => return result.map(|()| dir),
        }
    }
}

/// One bot's cgroups.
pub(super) struct BotCgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each, for the bot's relay to join.
    procs: Vec<OwnedFd>,
    /// `cpuacct.usage`.
    usage: Option<PathBuf>,
}

impl BotCgroup {
    /// A new cgroup in each hierarchy, capped at `max_pids` processes and threads.
    pub(super) fn create(roots: &Roots, max_pids: u32) -> std::io::Result<BotCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let mut cgroup = BotCgroup { dirs: Vec::new(), procs: Vec::new(), usage: None };
        let pids = create_bot_dir(&roots.pids, &name)?;
        cgroup.dirs.push(pids.clone());
        std::fs::write(pids.join("pids.max"), max_pids.to_string())?;
        cgroup.procs.push(open_procs(&pids)?);
        if let Some(root) = &roots.cpuacct {
            if let Ok(cpu) = create_bot_dir(root, &name) {
                cgroup.dirs.push(cpu.clone());
                cgroup.procs.push(open_procs(&cpu)?);
                cgroup.usage = Some(cpu.join("cpuacct.usage"));
            }
        }
        Ok(cgroup)
    }

    /// The descriptors the relay writes itself into.
    pub(super) fn procs_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// A clock of the CPU time of everything in the cgroup.
    pub(super) fn cpu_clock(&self) -> Option<CpuClock> {
        let file = File::open(self.usage.as_ref()?).ok()?;
        Some(CpuClock::Cgroup(file))
    }

    /// Removes the cgroups; they must be empty by now (a moment after the last process is
    /// reaped the kernel may still count it, hence the few retries).
    pub(super) fn remove(self) {
        drop(self.procs);
        for dir in &self.dirs {
            let mut tries = 0;
            while let Err(e) = std::fs::remove_dir(dir) {
                tries += 1;
                if tries > 50 {
                    tracing::warn!("cannot remove the bot cgroup {}: {e}", dir.display());
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            // This arena's folder goes with its last bot (while another bot has a folder in it,
            // the kernel refuses).
            if let Some(parent) = dir.parent() {
                let _ = std::fs::remove_dir(parent);
            }
        }
    }
}

fn open_procs(dir: &Path) -> std::io::Result<OwnedFd> {
    Ok(std::fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?.into())
}

/// Reads a counter file of a few digits (`cpuacct.usage`) at offset 0, without reopening it.
pub(super) fn read_counter(file: &File) -> Option<u64> {
    let mut buf = [0u8; 32];
    let n = file.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()
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
