//! The sandbox of external bots: what keeps a hostile bot from forging results, reading other
//! bots' files, killing its opponent, using the network, fork-bombing the machine or outliving
//! its match (`docs/security.md` has the threat model and why each layer is there).
//!
//! A sandboxed bot runs in a private, fresh directory; Landlock lets it read the system and its
//! own files and write only its private directory, and keeps it from signalling or connecting to
//! abstract sockets outside its own domain; it has no network (a network namespace, or Landlock's
//! TCP rules); a seccomp filter closes what those leave open (unix sockets reached by path,
//! io_uring, keyrings, System V IPC); a pids cgroup (or `RLIMIT_NPROC` in a user namespace) caps
//! its processes; it has no capabilities, and an IPC namespace without the machine's objects
//! (its spawner's, which the filter keeps empty, or its own); and it runs in a PID namespace
//! of its own whose init is a tiny supervisor (started through arena's `spawner`, a small process
//! that saves copying arena for each bot), so every process it starts dies with it, and with
//! arena (`child` describes the three processes).
//!
//! Each layer is used where the machine offers it: [`preflight`] says what is missing, `auto`
//! bots then run with the rest, `require` bots refuse to start.
//!
//! The parent prepares everything that allocates or opens files (`prepare`): the child side only
//! makes system calls on what was prepared (`child`).

#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
mod cpu;
#[cfg(target_os = "linux")]
mod fd_passing;
#[cfg(target_os = "linux")]
mod landlock_rules;
#[cfg(target_os = "linux")]
mod memory;
mod paths;
mod private_dirs;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(target_os = "linux")]
mod slots;
#[cfg(target_os = "linux")]
pub(super) mod spawner;
#[cfg(target_os = "linux")]
mod support;

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::options::ExternalOptions;
pub use super::options::SandboxMode;
use super::spawn_error::SpawnError;

#[cfg(target_os = "linux")]
pub(super) use child::{BotUser as ChildUser, Plan as ChildPlan};

/// A layer of the sandbox this machine cannot provide, and what a bot may then do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Missing {
    /// The feature (`PID namespace`).
    pub feature: &'static str,
    /// Why it is missing, as the system said.
    pub reason: String,
    /// What a bot can do without it.
    pub consequence: &'static str,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}: {})", self.feature, self.reason, self.consequence)
    }
}

/// `sandbox = "require"` on a machine that lacks a layer of the sandbox.
///
/// An input error, not a harness failure: retrying on the same machine cannot help; the fix is
/// to run where the kernel offers the features, or to choose `auto` or `off`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the sandbox is required (`sandbox = \"require\"`) but this machine lacks: {}; run on a Linux kernel that has them (see docs/security.md), or choose `auto` or `off`",
    list(.missing)
)]
pub struct SandboxUnavailable {
    /// What is missing.
    pub missing: Vec<Missing>,
}

impl From<SandboxUnavailable> for crate::error::Error {
    fn from(e: SandboxUnavailable) -> crate::error::Error {
        crate::error::Error::Sandbox(Box::new(e))
    }
}

fn list(missing: &[Missing]) -> String {
    missing.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// What this machine's sandbox lacks for a bot with these options (nothing for `off`, which
/// asks for nothing).
#[must_use]
pub fn missing(options: &ExternalOptions) -> Vec<Missing> {
    if options.sandbox_mode() == SandboxMode::Off {
        return Vec::new();
    }
    #[cfg(target_os = "linux")]
    {
        support::support().missing(options.network)
    }
    #[cfg(not(target_os = "linux"))]
    {
        vec![Missing {
            feature: "Linux",
            reason: "the sandbox uses Linux's Landlock and namespaces".into(),
            consequence: "bots run unsandboxed".into(),
        }]
    }
}

/// Checks the sandbox settings of every external bot of a run before anything starts: an error
/// for a `require` bot this machine cannot sandbox fully, else the one warning to show for the
/// `auto` bots that will run with less (`None`: nothing is missing).
///
/// # Errors
///
/// [`SandboxUnavailable`] for the first `require` bot that cannot have every layer.
pub fn preflight<'a>(
    bots: impl IntoIterator<Item = &'a ExternalOptions>,
) -> Result<Option<String>, SandboxUnavailable> {
    let mut weaker: Vec<Missing> = Vec::new();
    for options in bots {
        let missing = missing(options);
        match options.sandbox_mode() {
            SandboxMode::Require if !missing.is_empty() => {
                return Err(SandboxUnavailable { missing });
            }
            SandboxMode::Auto => {
                for m in missing {
                    if !weaker.contains(&m) {
                        weaker.push(m);
                    }
                }
            }
            SandboxMode::Require | SandboxMode::Off => {}
        }
    }
    Ok((!weaker.is_empty()).then(|| {
        format!(
            "the bots' sandbox is incomplete on this machine, they run without: {} (docs/security.md; `sandbox = \"require\"` refuses to run like this)",
            list(&weaker)
        )
    }))
}

/// Everything a sandboxed bot's spawn needs that the parent prepares: the command with absolute
/// paths, the private directory, the cgroup, the Landlock ruleset, and the child's plan.
pub(super) struct Prepared {
    /// The command line, its paths made absolute.
    pub(super) command: Vec<String>,
    /// The bot's private working directory, as the bot sees it (`/tmp` in its own view).
    pub(super) dir: PathBuf,
    #[cfg(target_os = "linux")]
    pub(super) plan: ChildPlan,
    /// What must live until the spawn returns (the child has then used it).
    #[cfg(target_os = "linux")]
    _until_spawned: Vec<std::os::fd::OwnedFd>,
    confinement: Confinement,
}

impl Prepared {
    /// Gives the bot its program, arguments (`command`) and environment to run itself, as it does
    /// in its namespaces (`child`).
    ///
    /// # Errors
    ///
    /// A NUL byte in one of them.
    pub(super) fn set_image(
        &mut self,
        env: &[(std::ffi::OsString, std::ffi::OsString)],
    ) -> Result<(), SpawnError> {
        #[cfg(target_os = "linux")]
        {
            let argv: Vec<&std::ffi::OsStr> =
                self.command.iter().map(std::ffi::OsStr::new).collect();
            let image = child::Image::new(argv[0], &argv, env).ok_or_else(|| {
                SpawnError::Sandbox("a NUL byte in its command line or environment".into())
            })?;
            self.plan.image = Some(std::sync::Arc::new(image));
        }
        #[cfg(not(target_os = "linux"))]
        let _ = env;
        Ok(())
    }

    /// The spawner of the bot's slot (an unprivileged arena's), which starts its relay.
    #[cfg(target_os = "linux")]
    pub(super) fn slot_spawner(&self) -> Option<&spawner::Spawner> {
        self.confinement.slot.as_ref()?.spawner.as_ref()?.1.as_ref()
    }

    /// Forgets what only the spawn needed; keeps what must live as long as the bot. Call once
    /// the spawn returned (the relay has then mounted the bot's tmpfs and sent it).
    pub(super) fn into_confinement(self) -> Confinement {
        #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
        let mut confinement = self.confinement;
        #[cfg(target_os = "linux")]
        if let Some(report) = confinement.tmpfs_report.take() {
            confinement.tmpfs_root = received_tmpfs(&report);
        }
        confinement
    }
}

/// The longest arena waits for a bot's init to acknowledge a stop or a continue: microseconds
/// on a quiet machine, more on a loaded one, where a stop not yet done would be its opponent's
/// time stolen. (The wait is nobody's turn; a bot that is gone ends it at once.)
#[cfg(target_os = "linux")]
const PAUSE_ACK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What a sandboxed bot holds while it runs, and releases when its match ends: the private
/// directory (removed, whatever the bot left in it) or a job's workspace (given back to arena's
/// user), its slot (its cgroups, network namespace and uid, for the next bot).
pub(super) struct Confinement {
    dir: PrivateDir,
    /// The bot's own uid, which owns what it wrote.
    #[cfg(target_os = "linux")]
    uid: Option<u32>,
    /// What Landlock lets it read besides the system and its private directory (`None`: no
    /// Landlock, it reads what its user may).
    readable: Option<Vec<PathBuf>>,
    /// The read end of the startup pipe, and the program it names.
    #[cfg(target_os = "linux")]
    startup: Option<(std::fs::File, String)>,
    #[cfg(target_os = "linux")]
    slot: Option<slots::Slot>,
    /// The write end of the bot's control pipe, when a relay and an init stand between arena
    /// and the bot (namespaces): they stop and continue the bot's processes between its turns.
    #[cfg(target_os = "linux")]
    control: Option<std::fs::File>,
    /// The read end of the init's acknowledgements of stops and continues.
    #[cfg(target_os = "linux")]
    pause_ack: Option<std::fs::File>,
    /// Until the spawn returns, arena's end of the socket on which the relay sends a
    /// descriptor of the bot's tmpfs (when no `memory` cgroup charges its pages to the bot).
    #[cfg(target_os = "linux")]
    tmpfs_report: Option<std::os::fd::OwnedFd>,
    /// That descriptor: what the bot holds in its tmpfs counts in its memory.
    #[cfg(target_os = "linux")]
    tmpfs_root: Option<std::os::fd::OwnedFd>,
}

impl Confinement {
    /// What the bot may read besides the system and its private directory, when the sandbox
    /// limits its reads.
    pub(super) fn readable(&self) -> Option<&[PathBuf]> {
        self.readable.as_deref()
    }

    /// The bot's own cgroup, when its slot has one.
    #[cfg(target_os = "linux")]
    fn cgroup(&self) -> Option<&cgroup::BotCgroup> {
        self.slot.as_ref()?.cgroup.as_ref()
    }

    /// A clock of the CPU time the bot's processes used, when a cgroup counts it.
    pub(super) fn cgroup_clock(&self) -> Option<CpuClock> {
        #[cfg(target_os = "linux")]
        return self.cgroup().and_then(cgroup::BotCgroup::cpu_clock);
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Whether the kernel caps the memory of the bot's processes together (a `memory` cgroup).
    pub(super) fn caps_memory(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.cgroup().is_some_and(cgroup::BotCgroup::caps_memory);
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Asks the bot's init to stop (`paused`) or continue every process of the bot; after a
    /// stop, waits (at most [`PAUSE_ACK_WAIT`]) until its init says every process is stopped (a
    /// stop done late is the opponent's CPU stolen). A continue is not waited for: until it lands
    /// the bot only loses time of its own turn, whose clock started before the request.
    /// `false` when it has no relay (arena then stops its process group itself).
    pub(super) fn request_pause(&self, paused: bool) -> bool {
        #[cfg(target_os = "linux")]
        if let (Some(control), Some(ack)) = (&self.control, &self.pause_ack) {
            use std::io::{Read, Write};
            use std::os::fd::AsFd;
            // Acknowledgements of requests not waited for (continues) are not this one's.
            let mut received = [0u8; 64];
            while (&*ack).read(&mut received).is_ok_and(|n| n > 0) {}
            let request = if paused { child::PAUSE } else { child::RESUME };
            // A relay already gone has nothing left to stop: the error is not one.
            if (&*control).write(&[request]).is_ok() && paused {
                let until = std::time::Instant::now() + PAUSE_ACK_WAIT;
                loop {
                    // Woken by an acknowledgement, or by the end of file once the init is gone.
                    let left = until.saturating_duration_since(std::time::Instant::now());
                    let mut fd =
                        [nix::poll::PollFd::new(ack.as_fd(), nix::poll::PollFlags::POLLIN)];
                    let limit = nix::poll::PollTimeout::try_from(left.as_millis() as i32)
                        .unwrap_or(nix::poll::PollTimeout::MAX);
                    if !nix::poll::poll(&mut fd, limit).is_ok_and(|n| n > 0) {
                        break;
                    }
                    // The continue's acknowledgement may come first; the stop's ends the wait.
                    match (&*ack).read(&mut received) {
                        Ok(0) => break,
                        Ok(n) if received[..n].contains(&child::PAUSE) => break,
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(_) => break,
                    }
                }
            }
            return true;
        }
        let _ = paused;
        false
    }

    /// The bot's processes as its cgroup lists them (`None`: it has none, or the list cannot be
    /// read).
    pub(super) fn cgroup_processes(&self) -> Option<Vec<i32>> {
        #[cfg(target_os = "linux")]
        return self.cgroup().and_then(cgroup::BotCgroup::processes);
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// How many generations of the bot's process tree, from the process arena started down,
    /// are arena's own: the relay and the init of its PID namespace, when it has them.
    pub(super) fn arenas_own(&self) -> usize {
        #[cfg(target_os = "linux")]
        if self.control.is_some() {
            return 2;
        }
        0
    }

    /// The bytes the bot holds in its private tmpfs when nothing charges them to it (its
    /// pages belong to no process: `/proc` shows none of them); 0 otherwise.
    pub(super) fn tmpfs_bytes(&self) -> u64 {
        #[cfg(target_os = "linux")]
        if let Some(root) = &self.tmpfs_root {
            return nix::sys::statfs::fstatfs(root).map_or(0, |fs| {
                let used = fs.blocks().saturating_sub(fs.blocks_free());
                used.saturating_mul(u64::try_from(fs.block_size()).unwrap_or(0))
            });
        }
        0
    }

    /// Closes arena's descriptor of the bot's tmpfs (no more [`Confinement::tmpfs_bytes`]),
    /// once nothing more is counted, before the bot is stopped: while its mount namespace
    /// still holds the tmpfs, the close is not the last reference, so freeing the tmpfs (its
    /// superblock, its pages) falls to the namespace's end instead of arena's thread (about
    /// 2 % of that thread's time in back-to-back starts of unprivileged bots).
    pub(super) fn close_tmpfs(&mut self) {
        #[cfg(target_os = "linux")]
        drop(self.tmpfs_root.take());
    }

    /// Whether the bot ran out of the memory of its `memory` cgroup.
    pub(super) fn hit_memory_cap(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.cgroup().is_some_and(cgroup::BotCgroup::ran_out_of_memory);
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Why the bot's program did not start, once the bot is gone (`None`: it did start, or its
    /// relay has not said yet).
    #[cfg(target_os = "linux")]
    pub(super) fn startup_failure(&self) -> Option<String> {
        use std::io::Read;
        let (pipe, program) = self.startup.as_ref()?;
        let mut fd = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(pipe),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, no wait.
        #[allow(unsafe_code)]
        if unsafe { libc::poll(&mut fd, 1, 0) } != 1 {
            return None;
        }
        let mut errno = [0u8; 4];
        (&*pipe).read_exact(&mut errno).ok()?;
        let error = std::io::Error::from_raw_os_error(i32::from_ne_bytes(errno));
        Some(format!("cannot run `{program}`: {error}"))
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn startup_failure(&self) -> Option<String> {
        None
    }

    /// Removes the private directory (a tmpfs is gone with the bot's mount namespace and the
    /// descriptor arena may hold of it, closed here; a job's workspace is given back to arena's
    /// user) and gives the slot back; call once the bot's processes are gone (`gone`: arena saw
    /// its whole process group, the init included, end; else the slot is not reused). Nothing a
    /// bot did to its own files (a folder of mode 000, files it no longer lets anyone read)
    /// stops this.
    pub(super) fn release(self, gone: bool) {
        #[cfg(target_os = "linux")]
        if let Some(slot) = self.slot {
            support::support().slots.give_back(slot, gone);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = gone;
        match self.dir {
            // Removed in the background, whatever the bot left in it.
            PrivateDir::Fresh(dir) => drop(dir),
            // Gone with the bot's mount namespace (where arena counts it, `tmpfs_root` was
            // closed before: `close_tmpfs`).
            PrivateDir::Tmpfs(_) => {}
            PrivateDir::Workspace(dir) => {
                #[cfg(target_os = "linux")]
                if self.uid.is_some() {
                    give_back_tree(&dir);
                }
                #[cfg(not(target_os = "linux"))]
                let _ = dir;
            }
        }
    }
}

/// Gives a job's workspace and what the job wrote in it back to arena's user (as root, a job
/// runs as a user of its own).
#[cfg(target_os = "linux")]
fn give_back_tree(path: &std::path::Path) {
    let (uid, gid) = (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw());
    let _ = std::os::unix::fs::lchown(path, Some(uid), Some(gid));
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
            give_back_tree(&entry.path());
        }
    }
}

#[cfg(target_os = "linux")]
pub(super) use cpu::CpuClock;
#[cfg(target_os = "linux")]
pub(super) use memory::tree_memory;

/// The memory of a process tree is not read off Linux.
#[cfg(not(target_os = "linux"))]
pub(super) fn tree_memory(_pids: &[i32]) -> u64 {
    0
}

/// Whether the arena of this process id no longer runs, so what it left (named after its pid)
/// is nobody's: the sweeps of private directories and cgroups ask it.
#[cfg(target_os = "linux")]
fn arena_gone(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) == Err(nix::errno::Errno::ESRCH)
}

/// Prepares the sandbox of a bot about to start: resolves its command, creates its private
/// directory (or takes `workspace`, an existing folder the caller keeps) and cgroup and builds
/// its Landlock ruleset.
#[cfg(target_os = "linux")]
pub(super) fn prepare(
    command: &[String],
    options: &ExternalOptions,
    workspace: Option<&std::path::Path>,
) -> Result<Prepared, SpawnError> {
    use std::os::fd::AsRawFd;

    let support = support::support();
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(private_dirs::sweep);
    let mode = options.sandbox_mode();
    if mode == SandboxMode::Require {
        let missing = support.missing(options.network);
        if !missing.is_empty() {
            return Err(SpawnError::Sandbox(SandboxUnavailable { missing }.to_string()));
        }
    }
    let setup = |what: &str, e: std::io::Error| SpawnError::Sandbox(format!("{what}: {e}"));
    let resolved = paths::resolve(command, options)?;

    let mut slot = support
        .slots
        .take(support.cgroups())
        .map_err(|e| setup("cannot make its slot (cgroups, network namespace)", e))?;
    if let Some(cgroup) = &mut slot.cgroup {
        let memory = options.memory_mb.map(|mb| mb.saturating_mul(1024 * 1024));
        cgroup
            .reset(options.max_processes, memory)
            .map_err(|e| setup("cannot set up its cgroups", e))?;
    }
    // As root, a user of its own, which owns its private directory.
    let user = support.root.then(|| {
        let uid = slot.uid();
        let read_search = !resolved.own.iter().all(|p| paths::reachable_by_others(p));
        ChildUser { uid, gid: uid, read_search }
    });
    // A tmpfs in its own mount namespace, as large as its memory limit. Its pages are the
    // bot's memory: where a `memory` cgroup of its own (as root) charges them to it, the kernel
    // counts them; else its relay sends arena a descriptor of it (`tmpfs_report`), by which
    // arena adds its used blocks to what the bot's processes hold after each turn. A job's
    // workspace (which arena reads afterwards) is a folder on disk.
    let charged = slot.cgroup.as_ref().is_some_and(cgroup::BotCgroup::charges_memory);
    let mut tmpfs_report = None;
    let dir = if workspace.is_none() && support.private_tmpfs() {
        if !charged {
            tmpfs_report = Some(
                spawner::socket_pair().map_err(|e| setup("cannot create its tmpfs's socket", e))?,
            );
        }
        let mb = options.memory_mb.unwrap_or(DEFAULT_TMPFS_MB);
        let size = mb.saturating_mul(1024 * 1024);
        let (uid, gid) = match user {
            Some(user) => (user.uid, user.gid),
            None => (nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw()),
        };
        PrivateDir::Tmpfs(format!("size={size},mode=700,uid={uid},gid={gid}"))
    } else {
        private_dir(workspace).map_err(|e| setup("cannot create its private directory", e))?
    };
    let (tmpfs_ours, tmpfs_theirs) = tmpfs_report.unzip();
    if let (Some(user), Some(folder)) = (&user, dir.folder()) {
        std::os::unix::fs::chown(folder, Some(user.uid), Some(user.gid))
            .map_err(|e| setup("cannot give its private directory to its user", e))?;
    }
    let (view, visible) = if support.has_view() {
        let access = landlock_rules::private_access(support.landlock_abi);
        let (view, at) = view_of(&dir, &resolved.readable, access)
            .map_err(|e| setup("cannot make its view", e))?;
        (Some(view), at)
    } else {
        (None, dir.path().to_path_buf())
    };
    let ruleset = if support.landlock_abi >= 1 {
        let read_search = user.is_some_and(|u| u.read_search);
        // A tmpfs's rule the bot adds itself, in its view.
        let (folders, own, private) = (resolved.path_folders(), &resolved.own, dir.folder());
        let system = &support.system;
        landlock_rules::ruleset(folders, own, private, options.network, read_search, system)
            .map_err(|e| setup("cannot build its Landlock rules", e))?
    } else {
        None
    };
    let limits_reads = ruleset.is_some();
    let (startup_r, startup_w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| setup("cannot create its startup pipe", e.into()))?;
    let (control_r, control_w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| setup("cannot create its control pipe", e.into()))?;
    let (ack_r, ack_w) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)
            .map_err(|e| setup("cannot create its acknowledgement pipe", e.into()))?;
    // Without its slot's network namespace, the network it is allowed is arena's.
    let (userns, netns) = support
        .slot_namespaces(&mut slot, options.network)
        .map_err(|e| setup("cannot make its slot's namespaces", e))?;
    let namespaces = support.child_namespaces(userns, netns);
    // In its slot's network namespace, where its next bots read the counters, it makes no IP
    // socket (`seccomp.rs`).
    let no_network = netns.and_then(|_| seccomp::no_network_program().ok());
    // An unprivileged arena's relays are started by their slot's spawner, in the slot's user
    // namespace, which then counts it as one of the bot's processes (`RLIMIT_NPROC`), as it
    // counts the relay and the init.
    let slot_spawner =
        userns.is_some_and(|userns| slot.spawner(userns, no_network.is_some()).is_some());
    let cgroup = slot.cgroup.as_ref();
    // A relay and an init stand between arena and the bot when it has namespaces.
    let relayed = namespaces.is_some();
    let plan = ChildPlan {
        namespaces,
        lifeline: support::lifeline(),
        startup: startup_w.as_raw_fd(),
        cgroup_tasks: cgroup.iter().flat_map(|c| c.tasks_fds()).collect(),
        ruleset: ruleset.as_ref().map(AsRawFd::as_raw_fd),
        oom_event: cgroup.and_then(cgroup::BotCgroup::oom_event),
        control: relayed.then(|| control_r.as_raw_fd()),
        pause_ack: relayed.then(|| ack_w.as_raw_fd()),
        tmpfs_report: tmpfs_theirs.as_ref().map(AsRawFd::as_raw_fd),
        proc_access: landlock_rules::proc_access(),
        seccomp: seccomp::program().ok(),
        no_network,
        max_processes: (support.nproc_limits_the_bot() && cgroup.is_none())
            .then(|| u64::from(options.max_processes).saturating_add(2 + u64::from(slot_spawner))),
        drop_capabilities: true,
        root: support.root,
        image: None,
        view,
        user,
        shared: None,
        bounding_set_emptied: false,
        signals_default: false,
    };
    let control = plan.control.is_some().then(|| std::fs::File::from(control_w));
    let pause_ack = plan.pause_ack.is_some().then(|| std::fs::File::from(ack_r));
    Ok(Prepared {
        command: resolved.command,
        dir: visible,
        plan,
        _until_spawned: ruleset
            .into_iter()
            .chain([startup_w, control_r, ack_w])
            .chain(tmpfs_theirs)
            .collect(),
        confinement: Confinement {
            dir,
            uid: user.map(|u| u.uid),
            readable: limits_reads.then_some(resolved.readable),
            startup: Some((startup_r.into(), command[0].clone())),
            slot: Some(slot),
            control,
            pause_ack,
            tmpfs_report: tmpfs_ours,
            tmpfs_root: None,
        },
    })
}

/// The view of a bot whose private directory is `dir` and who may read `readable`, and where it
/// sees its private directory: a job at its workspace's own path, a bot at `/tmp` (with what it
/// may read of the machine's `/tmp` bound at the same paths, onto mount points made in the
/// private directory, whatever its depth: a `TMPDIR` of `/tmp/run`, where the private
/// directory is too, still shows the bot `/tmp/run/test/shared.txt`). A tmpfs gets its rule
/// from the bot, allowing `access`; its mount points are the relay's to make.
#[cfg(target_os = "linux")]
fn view_of(
    dir: &PrivateDir,
    readable: &[PathBuf],
    access: u64,
) -> std::io::Result<(child::View, PathBuf)> {
    use std::path::Path;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
            .map_err(|_| std::io::Error::other("a NUL byte in a path"))
    };
    let tmp = Path::new("/tmp");
    let mut keep = Vec::new();
    let mut tmpfs = None;
    let at = match dir {
        PrivateDir::Workspace(path) => path.clone(),
        PrivateDir::Fresh(private) => {
            for entry in kept_of_tmp(readable, Some(private)) {
                let Ok(meta) = std::fs::metadata(entry) else { continue };
                let Ok(inside) = entry.strip_prefix(tmp) else { continue };
                let mount_point = private.as_path().join(inside);
                if let Some(parent) = mount_point.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                if meta.is_dir() {
                    std::fs::create_dir(&mount_point)?;
                } else {
                    std::fs::File::create(&mount_point)?;
                }
                keep.push((c(entry)?, c(&mount_point)?));
            }
            tmp.to_path_buf()
        }
        PrivateDir::Tmpfs(options) => {
            // Folders first, then what they hold (a path sorts after its folders).
            let mut make = std::collections::BTreeMap::new();
            for entry in kept_of_tmp(readable, None) {
                let Ok(meta) = std::fs::metadata(entry) else { continue };
                let Ok(inside) = entry.strip_prefix(tmp) else { continue };
                for folder in inside.ancestors().skip(1).filter(|f| !f.as_os_str().is_empty()) {
                    make.insert(tmp.join(folder), true);
                }
                let mount_point = tmp.join(inside);
                make.insert(mount_point.clone(), meta.is_dir());
                // Named from the machine's `/tmp`, the relay's working directory under the tmpfs.
                keep.push((c(inside)?, c(&mount_point)?));
            }
            let make = make
                .into_iter()
                .map(|(path, folder)| Ok((c(&path)?, folder)))
                .collect::<std::io::Result<_>>()?;
            let options = std::ffi::CString::new(options.as_str())
                .map_err(|_| std::io::Error::other("a NUL byte in the tmpfs options"))?;
            tmpfs = Some(child::Tmpfs { options, access, make });
            tmp.to_path_buf()
        }
    };
    let view = child::View {
        private: c(dir.path())?,
        at: c(&at)?,
        cwd: c(&at)?,
        hide_cgroups: child::hides_cgroups(),
        keep,
        tmpfs,
        from_template: false,
    };
    Ok((view, at))
}

/// What of `readable` is under `/tmp`, neither the private directory's nor holding it, and not
/// under another such path (bound with it).
#[cfg(target_os = "linux")]
fn kept_of_tmp<'a>(readable: &'a [PathBuf], private: Option<&std::path::Path>) -> Vec<&'a PathBuf> {
    let tmp = std::path::Path::new("/tmp");
    let mut entries: Vec<&PathBuf> = readable
        .iter()
        .filter(|p| p.starts_with(tmp) && p.as_path() != tmp)
        .filter(|p| {
            private.is_none_or(|private| !private.starts_with(p) && !p.starts_with(private))
        })
        .collect();
    entries.sort();
    entries.dedup();
    let mut kept: Vec<&PathBuf> = Vec::new();
    for entry in entries {
        if !kept.last().is_some_and(|k| entry.starts_with(k)) {
            kept.push(entry);
        }
    }
    kept
}

/// The descriptor of a bot's tmpfs its relay sent on `report` (`None`: none came; it comes
/// before the spawn returns, so a wait is for a relay that failed).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn received_tmpfs(report: &std::os::fd::OwnedFd) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::{AsFd, AsRawFd, FromRawFd};
    let mut fd = [nix::poll::PollFd::new(report.as_fd(), nix::poll::PollFlags::POLLIN)];
    if !nix::poll::poll(&mut fd, nix::poll::PollTimeout::from(1000u16)).is_ok_and(|n| n > 0) {
        return None;
    }
    let mut byte = [0u8; 1];
    let mut fds = [-1; fd_passing::MAX_FDS];
    let (_, n) = fd_passing::receive(report.as_raw_fd(), &mut byte, &mut fds).ok()?;
    // SAFETY: descriptors this process just received and owns.
    let mut received = fds[..n].iter().map(|&fd| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) });
    received.next()
}

/// The size of a bot's private tmpfs when it has no `memory_mb` (with one, the tmpfs is as
/// large as its limit).
#[cfg(target_os = "linux")]
const DEFAULT_TMPFS_MB: u64 = 512;

/// A sandboxed process's private directory: `workspace` (the caller's, kept), a fresh one
/// (removed with the confinement), or a tmpfs its relay mounts in its mount namespace (these
/// options), gone with its namespace.
enum PrivateDir {
    Fresh(private_dirs::Fresh),
    Workspace(PathBuf),
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Tmpfs(String),
}

impl PrivateDir {
    /// Where it is: for a tmpfs, where the bot sees it (it is nowhere else).
    fn path(&self) -> &std::path::Path {
        match self {
            PrivateDir::Fresh(dir) => dir.as_path(),
            PrivateDir::Workspace(dir) => dir,
            PrivateDir::Tmpfs(_) => std::path::Path::new("/tmp"),
        }
    }

    /// The folder on disk it is (`None`: a tmpfs, which exists only in the bot's view).
    fn folder(&self) -> Option<&std::path::Path> {
        (!matches!(self, PrivateDir::Tmpfs(_))).then(|| self.path())
    }
}

fn private_dir(workspace: Option<&std::path::Path>) -> std::io::Result<PrivateDir> {
    Ok(match workspace {
        Some(dir) => PrivateDir::Workspace(dir.to_path_buf()),
        None => PrivateDir::Fresh(private_dirs::take()?),
    })
}

/// Off Linux there is no sandbox to prepare: `auto` runs the bot as `off` would (the preflight
/// said so), `require` refuses.
#[cfg(not(target_os = "linux"))]
pub(super) fn prepare(
    command: &[String],
    options: &ExternalOptions,
    workspace: Option<&std::path::Path>,
) -> Result<Prepared, SpawnError> {
    let missing = missing(options);
    if options.sandbox_mode() == SandboxMode::Require {
        return Err(SpawnError::Sandbox(SandboxUnavailable { missing }.to_string()));
    }
    let resolved = paths::resolve(command, options)?;
    let dir = private_dir(workspace)
        .map_err(|e| SpawnError::Sandbox(format!("cannot create its private directory: {e}")))?;
    Ok(Prepared {
        command: resolved.command,
        dir: dir.path().to_path_buf(),
        confinement: Confinement { dir, readable: None },
    })
}

/// The CPU time of a process tree, for bots without a cgroup (not Linux: never known).
#[cfg(not(target_os = "linux"))]
pub(super) struct CpuClock;

#[cfg(not(target_os = "linux"))]
impl CpuClock {
    pub(super) fn tree(_leader: i32) -> CpuClock {
        CpuClock
    }

    pub(super) fn read(&self) -> Option<std::time::Duration> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_lacks_nothing_and_a_preflight_of_off_bots_says_nothing() {
        let off = ExternalOptions { sandbox: Some(SandboxMode::Off), ..Default::default() };
        assert!(missing(&off).is_empty());
        assert_eq!(preflight([&off, &off]), Ok(None));
    }

    #[test]
    fn a_preflight_refuses_require_exactly_when_something_is_missing() {
        let require = ExternalOptions { sandbox: Some(SandboxMode::Require), ..Default::default() };
        let auto = ExternalOptions::default();
        let lacking = missing(&require);
        match preflight([&auto, &require]) {
            Ok(warning) => {
                assert!(lacking.is_empty(), "require accepted without {lacking:?}");
                assert_eq!(warning, None);
            }
            Err(e) => {
                assert_eq!(e.missing, lacking);
                assert!(e.to_string().contains(lacking[0].feature), "{e}");
            }
        }
        let warning = preflight([&auto]).expect("auto never refuses");
        assert_eq!(warning.is_some(), !missing(&auto).is_empty());
    }
}
