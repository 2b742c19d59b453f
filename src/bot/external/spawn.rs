//! Starting an external bot: the command line, a cleared environment with the `ARENA_`
//! variables, a process group of its own, the resource limits set in the child before it runs,
//! the sandbox (`super::sandbox`), and the hand-over of its pipes to the turns, its stderr to
//! the drain and its exit to the watch. Everything a bot is allowed to see and do is decided
//! here, in three steps: [`command`] (what the parent sets up: environment, working directory),
//! [`confine`] (what the child does to itself between `fork` and `exec`: resource limits, or the
//! sandbox's child side) and [`spawn`] (starting it under the supervisor, which must know every
//! group it may have to stop).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Stdio;
use std::sync::Arc;

use nix::unistd::Pid;
use tokio::process::Command;

use super::exit::{ExitSocket, ExitWatch, Leader};
use super::io::Pipes;
use super::options::{DEFAULT_PATH, ExternalOptions, Rlimits, SandboxMode};
use super::parent_only;
use super::runtime::runtime;
use super::sandbox::{self, Confinement, CpuClock, Prepared};
pub use super::spawn_error::SpawnError;
use super::stderr::{CaptureLimits, StderrLog};
use super::supervision::{ProcessGroup, Supervisor};

/// The variables a bot inherits from arena's environment, when arena has them. Everything else
/// is cleared, so a bot behaves the same whoever runs the tournament.
pub const ENV_ALLOW_LIST: &[&str] =
    &["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"];

/// Who the bot is, as its `ARENA_` environment variables tell it.
#[derive(Clone, Debug)]
pub struct BotIdentity<'a> {
    /// `ARENA_GAME`: the game's name (`skynet`).
    pub game: &'a str,
    /// `ARENA_ROLE`: the role the bot plays (`virus`).
    pub role: &'a str,
    /// `ARENA_SEED`: the bot's own seed, to seed itself reproducibly.
    pub seed: u64,
}

/// A running bot, as [`spawn`] leaves it.
pub(super) struct Process {
    /// Its group, registered with the supervisor.
    pub(super) group: ProcessGroup,
    pub(super) pipes: Pipes,
    pub(super) exit: ExitWatch,
    pub(super) stderr: Arc<StderrLog>,
    /// The CPU time of all its processes.
    pub(super) cpu: CpuClock,
    /// Its sandbox's private directory and cgroup, released once its processes are gone.
    pub(super) confinement: Option<Confinement>,
    /// Whether its processes are stopped (between its turns: `super::pause`).
    pub(super) paused: super::pause::Paused,
}

/// Starts `command` (program and arguments) as a bot: the leader of a new process group, its
/// stdin and stdout the turns' pipes, its stderr drained.
pub(super) fn spawn(
    command: &[String],
    identity: &BotIdentity<'_>,
    options: &ExternalOptions,
    supervisor: &Supervisor,
) -> Result<Process, SpawnError> {
    let launch = Launch {
        command,
        options,
        environment: Environment::Bot(identity),
        workspace: None,
        stdio: [ChildIo::Piped, ChildIo::Piped, ChildIo::Piped],
    };
    // Made before the start, so that nothing can fail between starting a process and watching it.
    let exit_socket = ExitSocket::new().map_err(SpawnError::Connect)?;
    let Started { leader, stdio, group, confinement, cpu } = start(launch, supervisor)?;
    let [Some(stdin), Some(stdout), Some(stderr)] = stdio else {
        unreachable!("all three pipes were requested");
    };
    let exit = exit_socket.watch(leader);
    let limits = CaptureLimits {
        turn_bytes: options.stderr_turn_bytes,
        match_bytes: options.stderr_match_bytes,
    };
    let connected = Pipes::new(stdin, stdout).and_then(|pipes| {
        let stderr = StderrLog::drain(stderr, options.stderr_lines, limits)?;
        Ok((pipes, stderr))
    });
    match connected {
        Ok((pipes, stderr)) => {
            Ok(Process { group, pipes, exit, stderr, cpu, confinement, paused: Default::default() })
        }
        // It runs and cannot be talked to: it must not outlive this call.
        Err(e) => {
            group.kill();
            let stopped = group.stop(&exit, std::time::Duration::ZERO);
            if let Some(confinement) = confinement {
                confinement.release(stopped.gone);
            }
            Err(SpawnError::Connect(e))
        }
    }
}

/// What a process is started with: a bot's, or a job's (`super::job`: a `cg:` compile).
pub(super) struct Launch<'a> {
    pub(super) command: &'a [String],
    pub(super) options: &'a ExternalOptions,
    pub(super) environment: Environment<'a>,
    /// In the sandbox, an existing folder to use as the private directory (kept at the end);
    /// `None`: a fresh one, removed at the end.
    pub(super) workspace: Option<&'a std::path::Path>,
    /// stdin, stdout, stderr.
    pub(super) stdio: [ChildIo; 3],
}

/// One of a process's standard streams.
pub(super) enum ChildIo {
    /// A new pipe, whose other end [`Started`] holds.
    Piped,
    /// `/dev/null`.
    Null,
    /// This file.
    Fd(OwnedFd),
}

impl ChildIo {
    fn stdio(self) -> Stdio {
        match self {
            ChildIo::Piped => Stdio::piped(),
            ChildIo::Null => Stdio::null(),
            ChildIo::Fd(fd) => Stdio::from(fd),
        }
    }
}

/// The environment a process starts with.
pub(super) enum Environment<'a> {
    /// A bot's: the allow-list, its settings' `env`, its `ARENA_` variables.
    Bot(&'a BotIdentity<'a>),
    /// arena's own (a compiler finds its toolchain through it: `RUSTUP_HOME`, `JAVA_HOME`).
    Inherited,
}

/// A process [`start`] started.
pub(super) struct Started {
    pub(super) leader: Leader,
    /// The parent's ends of the streams asked for as [`ChildIo::Piped`].
    pub(super) stdio: [Option<OwnedFd>; 3],
    /// Its group, registered with the supervisor.
    pub(super) group: ProcessGroup,
    /// Its sandbox's private directory and cgroup, released once its processes are gone.
    pub(super) confinement: Option<Confinement>,
    /// The CPU time of all its processes.
    pub(super) cpu: CpuClock,
}

/// The one way arena starts a process it supervises, bot or job: the sandbox prepared, the
/// environment set, the child confined between `fork` and `exec`, the group registered with
/// `supervisor` before anyone can miss it.
pub(super) fn start(launch: Launch<'_>, supervisor: &Supervisor) -> Result<Started, SpawnError> {
    let Launch { command, options, environment, workspace, stdio } = launch;
    if command.is_empty() {
        return Err(SpawnError::EmptyCommand);
    }
    let mut sandbox = match options.sandbox_mode() {
        SandboxMode::Off => None,
        SandboxMode::Auto | SandboxMode::Require => {
            Some(sandbox::prepare(command, options, workspace)?)
        }
    };
    let command = sandbox.as_ref().map_or_else(|| command.to_vec(), |s| s.command.clone());
    let (program, args) = command.split_first().ok_or(SpawnError::EmptyCommand)?;
    let env = match environment {
        Environment::Bot(identity) => self::environment(identity, options, sandbox.as_ref()),
        Environment::Inherited => inherited_environment(options, sandbox.as_ref()),
    };
    if let Some(prepared) = &mut sandbox {
        prepared.set_image(&env)?;
    }
    let run_error = |source| SpawnError::Run {
        program: program.clone(),
        workdir: options.workdir.clone(),
        source,
    };
    let limits = Rlimits::from(options);
    let _enter = runtime().enter();
    let admission = supervisor.admit().ok_or(SpawnError::ShuttingDown)?;
    // A sandbox's relay through the spawner when there is one, else the standard library's spawn.
    #[cfg(target_os = "linux")]
    let relayed = match sandbox.as_ref() {
        Some(prepared) if prepared.plan.namespaces.is_some() => {
            start_relay(prepared, &limits, stdio).map_err(run_error)?
        }
        _ => Err(stdio),
    };
    #[cfg(not(target_os = "linux"))]
    let relayed: Result<Relayed, [ChildIo; 3]> = Err(stdio);
    let (pid, leader, ours) = match relayed {
        Ok((pid, ours)) => (pid, Leader::Relay(pid), ours),
        Err(stdio) => {
            let mut cmd = self::command(program, args, &env, options, sandbox.as_ref());
            let [stdin, stdout, stderr] = stdio.map(ChildIo::stdio);
            cmd.stdin(stdin).stdout(stdout).stderr(stderr);
            let die_with_arena = matches!(environment, Environment::Inherited);
            confine(&mut cmd, limits, sandbox.as_ref(), die_with_arena);
            let mut child = cmd.spawn().map_err(run_error)?;
            let pid =
                child.id().and_then(|id| i32::try_from(id).ok()).ok_or(SpawnError::Vanished)?;
            let ours = [
                child.stdin.take().and_then(|s| s.into_owned_fd().ok()),
                child.stdout.take().and_then(|s| s.into_owned_fd().ok()),
                child.stderr.take().and_then(|s| s.into_owned_fd().ok()),
            ];
            (pid, Leader::Child(child), ours)
        }
    };
    let group = admission.register(Pid::from_raw(pid));
    // What only the child needed (the rulesets, the cgroups' `tasks`, the startup pipe's
    // write end) it holds by now: the spawn returns once the sandbox's init runs.
    let confinement = sandbox.map(Prepared::into_confinement);
    let cgroup_clock = confinement.as_ref().and_then(Confinement::cgroup_clock);
    let arenas_own = confinement.as_ref().map_or(0, Confinement::arenas_own);
    let cpu = cgroup_clock.unwrap_or_else(|| CpuClock::tree(pid, arenas_own));
    Ok(Started { leader, stdio: ours, group, confinement, cpu })
}

/// A relay's pid and the parent's ends of its piped streams.
type Relayed = (i32, [Option<OwnedFd>; 3]);

/// Starts a sandboxed process's relay through the spawner (`sandbox::spawner`), which saves
/// copying arena: `Ok(Err(stdio))` gives the streams back when there is no spawner (the caller
/// forks the relay itself); `Ok(Ok(..))` is the relay's pid and the parent's ends of its piped
/// streams.
#[cfg(target_os = "linux")]
fn start_relay(
    prepared: &Prepared,
    limits: &Rlimits,
    stdio: [ChildIo; 3],
) -> std::io::Result<Result<Relayed, [ChildIo; 3]>> {
    let mut theirs = Vec::with_capacity(3);
    let mut ours: [Option<OwnedFd>; 3] = [None, None, None];
    for (k, io) in stdio.into_iter().enumerate() {
        let fd = match io {
            ChildIo::Piped => {
                let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
                let (child, parent) = if k == 0 { (read, write) } else { (write, read) };
                ours[k] = Some(parent);
                child
            }
            ChildIo::Null => {
                std::fs::File::options().read(true).write(true).open("/dev/null")?.into()
            }
            ChildIo::Fd(fd) => fd,
        };
        theirs.push(fd);
    }
    let raw = [theirs[0].as_raw_fd(), theirs[1].as_raw_fd(), theirs[2].as_raw_fd()];
    let via = prepared.slot_spawner();
    match sandbox::spawner::start_relay(&prepared.plan, limits, raw, &prepared.dir, via)? {
        Some(pid) => Ok(Ok((pid, ours))),
        None => {
            // Back to what the standard library makes of them.
            let back: Vec<ChildIo> = theirs
                .into_iter()
                .zip(ours)
                .map(|(theirs, ours)| match ours {
                    Some(_) => ChildIo::Piped,
                    None => ChildIo::Fd(theirs),
                })
                .collect();
            let stdio = <[ChildIo; 3]>::try_from(back).unwrap_or_else(|_| unreachable!("three"));
            Ok(Err(stdio))
        }
    }
}

/// The bot's environment: the allow-list from arena's, the settings' `env`, the `ARENA_`
/// variables, and in the sandbox `TMPDIR` in its private directory.
fn environment(
    identity: &BotIdentity<'_>,
    options: &ExternalOptions,
    sandbox: Option<&Prepared>,
) -> Vec<(OsString, OsString)> {
    let mut env: BTreeMap<OsString, OsString> = BTreeMap::new();
    for &name in ENV_ALLOW_LIST {
        if let Some(value) = std::env::var_os(name) {
            env.insert(name.into(), value);
        }
    }
    env.entry("PATH".into()).or_insert_with(|| DEFAULT_PATH.into());
    env.extend(options.env.iter().map(|(k, v)| (k.into(), v.into())));
    env.insert("ARENA_GAME".into(), identity.game.into());
    env.insert("ARENA_ROLE".into(), identity.role.into());
    env.insert("ARENA_SEED".into(), identity.seed.to_string().into());
    if let Some(prepared) = sandbox {
        env.insert("TMPDIR".into(), prepared.dir.clone().into());
    }
    env.into_iter().collect()
}

/// arena's environment and the settings' `env`, with `TMPDIR` in the private directory in the
/// sandbox.
fn inherited_environment(
    options: &ExternalOptions,
    sandbox: Option<&Prepared>,
) -> Vec<(OsString, OsString)> {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    env.extend(options.env.iter().map(|(k, v)| (k.into(), v.into())));
    if let Some(prepared) = sandbox {
        env.insert("TMPDIR".into(), prepared.dir.clone().into());
    }
    env.into_iter().collect()
}

/// The command line with the bot's environment and working directory (its private directory in
/// the sandbox).
fn command(
    program: &str,
    args: &[String],
    env: &[(OsString, OsString)],
    options: &ExternalOptions,
    sandbox: Option<&Prepared>,
) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args).env_clear().envs(env.iter().map(|(k, v)| (k, v))).process_group(0);
    match sandbox {
        Some(prepared) => {
            cmd.current_dir(&prepared.dir);
        }
        None => {
            if let Some(dir) = &options.workdir {
                cmd.current_dir(dir);
            }
        }
    }
    cmd
}

/// What the child does to itself after `fork`, before `exec`: the one place that runs code in
/// the child, so every restriction a bot runs under that must be set from inside goes here.
/// Unsandboxed, the resource limits (and for a job, whose caller waits for it, death with arena:
/// `PR_SET_PDEATHSIG`, which the sandbox's lifeline replaces), or nothing when the limits are
/// arena's own ([`Rlimits::inheritable`]); sandboxed, the sandbox's child side (which sets them
/// too).
#[allow(unsafe_code)]
fn confine(cmd: &mut Command, limits: Rlimits, sandbox: Option<&Prepared>, die_with_arena: bool) {
    #[cfg(target_os = "linux")]
    if let Some(prepared) = sandbox {
        let plan = prepared.plan.clone();
        // SAFETY: the closure runs in the forked child before exec; `Plan::run` only makes
        // system calls on what the parent prepared, and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                parent_only::close_in_child();
                plan.run(&limits)
            });
        }
        return;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = sandbox;
    if !die_with_arena && limits.inheritable() {
        // Nothing for the child to do: the standard library then starts it with `posix_spawn`
        // (a `vfork`) instead of a `fork`, which copies arena's page tables (a pair of bots
        // from a 50 MB process: 4 ms against 21 ms).
        return;
    }
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec; it only makes prctl, getppid and
    // setrlimit system calls (async-signal-safe) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            parent_only::close_in_child();
            #[cfg(target_os = "linux")]
            if die_with_arena {
                nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)?;
                // arena died between the fork and the prctl: nobody waits for this job.
                if nix::unistd::getppid().as_raw() as u32 != parent {
                    return Err(std::io::ErrorKind::Interrupted.into());
                }
            }
            let _ = (die_with_arena, parent);
            limits.apply()
        });
    }
}

/// Why `command` cannot start, if its program is missing: a path (with a `/`, relative to
/// `options.workdir`) that is not an executable file, or a name found in no folder of the `PATH`
/// it runs with (its `env`'s, else arena's). Checked before any match, so a typo is an error
/// naming the bot rather than a tournament of `startup_failed` results.
#[must_use]
pub fn program_problem(command: &[String], options: &ExternalOptions) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let program = command.first()?;
    let executable = |path: &std::path::Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let path = options.workdir.clone().unwrap_or_default().join(program);
        return match std::fs::metadata(&path) {
            Err(e) => Some(format!("program `{}`: {e}", path.display())),
            Ok(_) if !executable(&path) => {
                Some(format!("program `{}` is not an executable file", path.display()))
            }
            Ok(_) => None,
        };
    }
    let path_var: std::ffi::OsString = options
        .env
        .get("PATH")
        .map(Into::into)
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_else(|| DEFAULT_PATH.into());
    let found = std::env::split_paths(&path_var).any(|dir| executable(&dir.join(program)));
    (!found).then(|| {
        format!("program `{program}` is not found on PATH ({})", path_var.to_string_lossy())
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::io::TurnTimer;
    use super::*;

    /// Seconds from a `times` figure (`0m1.23s`).
    fn seconds(figure: &str) -> f64 {
        let (minutes, rest) = figure.split_once('m').expect("minutes");
        let seconds = rest.trim_end_matches('s');
        minutes.parse::<f64>().unwrap() * 60.0 + seconds.parse::<f64>().unwrap()
    }

    #[test]
    fn the_cpu_time_counts_a_child_that_burned_cpu_and_exited() {
        for mode in [SandboxMode::Auto, SandboxMode::Off] {
            let supervisor = Supervisor::new();
            let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
            let options = ExternalOptions { sandbox: Some(mode), ..ExternalOptions::default() };
            // A child burns CPU, writes its own CPU time as `times` prints it (`0m1.23s
            // 0m0.01s`, user and system) and exits; once it is reaped the bot answers with it.
            let script = "read go; f=${TMPDIR:-/tmp}/times.$$; \
                          sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; times >\"$1\"' \
                          child \"$f\"; head -n 1 \"$f\"; rm -f \"$f\"; read end";
            let command = ["sh", "-c", script].map(String::from);
            let mut process = spawn(&command, &identity, &options, &supervisor).expect("started");
            let timer = TurnTimer::wall(Instant::now() + Duration::from_secs(300));
            let answer = process.pipes.exchange(b"go\n", process.exit.signal(), &timer, 100);
            let line = answer.expect("the bot answers");
            let children: f64 = line.split_whitespace().map(seconds).sum();
            let measured = process.cpu.read().expect("the bot runs").as_secs_f64();
            super::super::stop(process, Duration::ZERO, 0);
            assert!(children >= 0.05, "{mode}: the child burned too little to tell: {line}");
            // `times` counts in clock ticks; the clock is at least as exact.
            assert!(measured >= children - 0.02, "{mode}: {measured} s < the child's {line}");
        }
    }

    #[test]
    fn a_missing_or_non_executable_program_is_named_before_any_match() {
        let options = ExternalOptions::default();
        let words = |w: &[&str]| w.iter().map(std::string::ToString::to_string).collect::<Vec<_>>();
        assert_eq!(program_problem(&words(&["sh", "-c", "true"]), &options), None);
        let missing = program_problem(&words(&["no-such-bot-xyz"]), &options).unwrap();
        assert!(missing.contains("`no-such-bot-xyz` is not found on PATH"), "{missing}");
        let absent = program_problem(&words(&["/nonexistent/virus"]), &options).unwrap();
        assert!(absent.contains("/nonexistent/virus"), "{absent}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "print(1)").unwrap();
        let in_dir = ExternalOptions { workdir: Some(dir.path().into()), ..options };
        let plain = program_problem(&words(&["./bot.py"]), &in_dir).unwrap();
        assert!(plain.contains("not an executable file"), "{plain}");
    }

    /// An unsandboxed bot started without code of its own in the child (`posix_spawn`) still
    /// gets no core files, and one allowed them gets arena's limit from before.
    #[test]
    fn an_unsandboxed_bot_gets_its_core_file_limit_either_way() {
        let supervisor = Supervisor::new();
        let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
        let limit_of = |core_dumps: bool| {
            let options = ExternalOptions {
                sandbox: Some(SandboxMode::Off),
                core_dumps,
                ..Default::default()
            };
            assert_eq!(Rlimits::from(&options).inheritable(), !core_dumps);
            let command = ["sh", "-c", "read go; ulimit -c"].map(String::from);
            let mut process = spawn(&command, &identity, &options, &supervisor).expect("started");
            let timer = TurnTimer::wall(Instant::now() + Duration::from_secs(60));
            let answer = process.pipes.exchange(b"go\n", process.exit.signal(), &timer, 100);
            super::super::stop(process, Duration::ZERO, 0);
            answer.expect("the bot answers")
        };
        assert_eq!(limit_of(false), "0");
        // `ulimit -c` counts in blocks of 512 or 1024 bytes, depending on the shell.
        let allowed = limit_of(true);
        match super::super::options::arena_core_limit().expect("lowered") {
            (0, _) => assert_eq!(allowed, "0", "arena's own limit from before"),
            (u64::MAX, _) => assert_eq!(allowed, "unlimited", "arena's own limit from before"),
            (_, _) => assert_ne!(allowed, "0", "arena's own limit from before"),
        }
    }
}
