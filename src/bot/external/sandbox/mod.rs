//! The sandbox of external bots: what keeps a hostile bot from forging results, reading other
//! bots' files, killing its opponent, using the network, fork-bombing the machine or outliving
//! its match (`docs/security.md` has the threat model and why each layer is there).
//!
//! A sandboxed bot runs in a private, fresh directory; Landlock lets it read the system and its
//! own files and write only its private directory, and keeps it from signalling or connecting to
//! abstract sockets outside its own domain; it has no network (a network namespace, or Landlock's
//! TCP rules); a seccomp filter closes what those leave open (unix sockets reached by path,
//! io_uring, keyrings); a pids cgroup (or `RLIMIT_NPROC` in a user namespace) caps its
//! processes; it has no capabilities, and its own IPC namespace; and it runs in a PID namespace
//! of its own whose init is a tiny supervisor forked from arena, so every process it starts dies
//! with it, and with arena (`child` describes the three processes).
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
mod landlock_rules;
mod paths;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(target_os = "linux")]
mod support;

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::options::ExternalOptions;
pub use super::options::SandboxMode;
use super::spawn_error::SpawnError;

#[cfg(target_os = "linux")]
pub(super) use child::Plan as ChildPlan;

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
    /// The bot's private working directory.
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

    /// Forgets what only the spawn needed; keeps what must live as long as the bot.
    pub(super) fn into_confinement(self) -> Confinement {
        self.confinement
    }
}

/// What a sandboxed bot holds while it runs, and releases when its match ends: the private
/// directory (removed) and the cgroup (removed once empty).
pub(super) struct Confinement {
    dir: Option<tempfile::TempDir>,
    /// The read end of the startup pipe, and the program it names.
    #[cfg(target_os = "linux")]
    startup: Option<(std::fs::File, String)>,
    #[cfg(target_os = "linux")]
    cgroup: Option<cgroup::BotCgroup>,
}

impl Confinement {
    /// A clock of the CPU time the bot's processes used, when a cgroup counts it.
    pub(super) fn cgroup_clock(&self) -> Option<CpuClock> {
        #[cfg(target_os = "linux")]
        return self.cgroup.as_ref().and_then(cgroup::BotCgroup::cpu_clock);
        #[cfg(not(target_os = "linux"))]
        None
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

    /// Removes the private directory and the cgroup; call once the bot's processes are gone.
    pub(super) fn release(mut self) {
        #[cfg(target_os = "linux")]
        if let (Some(cgroup), Some(roots)) = (self.cgroup.take(), support::support().cgroups()) {
            cgroup.give_back(roots);
        }
        if let Some(dir) = self.dir.take() {
            if let Err(e) = dir.close() {
                tracing::warn!("cannot remove a bot's private directory: {e}");
            }
        }
    }
}

#[cfg(target_os = "linux")]
pub(super) use cpu::CpuClock;

/// The start of the names of this arena's private directories: `arena-bot-<pid>-`.
fn private_prefix() -> String {
    format!("arena-bot-{}-", std::process::id())
}

/// Removes the private directories that arenas which no longer run left in the temporary
/// folder (a `kill -9` gives an arena no time to remove them; its bots died with it).
#[cfg(target_os = "linux")]
fn sweep_private_directories() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("arena-bot-")) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            == Err(nix::errno::Errno::ESRCH);
        if gone && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
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
    SWEEP.call_once(sweep_private_directories);
    let mode = options.sandbox_mode();
    if mode == SandboxMode::Require {
        let missing = support.missing(options.network);
        if !missing.is_empty() {
            return Err(SpawnError::Sandbox(SandboxUnavailable { missing }.to_string()));
        }
    }
    let setup = |what: &str, e: std::io::Error| SpawnError::Sandbox(format!("{what}: {e}"));
    let resolved = paths::resolve(command, options)?;
    let dir =
        private_dir(workspace).map_err(|e| setup("cannot create its private directory", e))?;

    let cgroup = match support.cgroups() {
        Some(roots) => Some(
            cgroup::BotCgroup::take(roots, options.max_processes.saturating_add(2))
                .map_err(|e| setup("cannot create its cgroup", e))?,
        ),
        None => None,
    };
    let ruleset = if support.landlock_abi >= 1 {
        landlock_rules::ruleset(&resolved.readable, dir.path(), options.network, &support.system)
            .map_err(|e| setup("cannot build its Landlock rules", e))?
    } else {
        None
    };
    let (startup_r, startup_w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| setup("cannot create its startup pipe", e.into()))?;
    let mut namespaces = support.child_namespaces();
    if let (true, Some(ns)) = (options.network, &mut namespaces) {
        // The network it is allowed is arena's.
        ns.join_netns = None;
        ns.unshare &= !libc::CLONE_NEWNET;
    }
    let plan = ChildPlan {
        namespaces,
        lifeline: support::lifeline(),
        startup: startup_w.as_raw_fd(),
        cgroup_procs: cgroup.iter().flat_map(cgroup::BotCgroup::procs_fds).collect(),
        rulesets: [
            ruleset.as_ref().map(AsRawFd::as_raw_fd),
            ruleset.as_ref().and(support.system.secrets_layer.as_ref()).map(AsRawFd::as_raw_fd),
        ],
        seccomp: seccomp::filter().ok().map(Vec::as_slice),
        max_processes: (support.nproc_limits_the_bot() && cgroup.is_none())
            .then(|| u64::from(options.max_processes).saturating_add(2)),
        drop_capabilities: true,
        root: support.root,
        image: None,
    };
    Ok(Prepared {
        command: resolved.command,
        dir: dir.path().to_path_buf(),
        plan,
        _until_spawned: ruleset.into_iter().chain([startup_w]).collect(),
        confinement: Confinement {
            dir: dir.into_owned(),
            startup: Some((startup_r.into(), command[0].clone())),
            cgroup,
        },
    })
}

/// A sandboxed process's private directory: `workspace` (the caller's, kept), or a fresh one
/// (removed with the confinement).
enum PrivateDir {
    Fresh(tempfile::TempDir),
    Workspace(PathBuf),
}

impl PrivateDir {
    fn path(&self) -> &std::path::Path {
        match self {
            PrivateDir::Fresh(dir) => dir.path(),
            PrivateDir::Workspace(dir) => dir,
        }
    }

    /// What the confinement removes at the end.
    fn into_owned(self) -> Option<tempfile::TempDir> {
        match self {
            PrivateDir::Fresh(dir) => Some(dir),
            PrivateDir::Workspace(_) => None,
        }
    }
}

fn private_dir(workspace: Option<&std::path::Path>) -> std::io::Result<PrivateDir> {
    Ok(match workspace {
        Some(dir) => PrivateDir::Workspace(dir.to_path_buf()),
        None => PrivateDir::Fresh(tempfile::Builder::new().prefix(&private_prefix()).tempdir()?),
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
        confinement: Confinement { dir: dir.into_owned() },
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
