//! A job: a one-off command arena runs to its end, such as a `cg:` source's compile or a
//! compiler's version probe. It starts and stops the way a bot does (`spawn::start`, the same
//! sandbox, its group registered with the same [`Supervisor`], `ProcessGroup::stop`), so there is
//! one process supervisor in arena; what differs is only its streams: no input, and its output
//! (stdout and stderr interleaved as they came, through one pipe) captured up to a cap while
//! the caller waits for it, with a time limit.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use nix::poll::PollFlags;

use super::exit::{Exit, ExitSocket};
use super::io::{Wake, wait_fd};
use super::options::ExternalOptions;
use super::options::SandboxMode;
use super::spawn::{ChildIo, Environment, Launch, Started, start};
use super::spawn_error::SpawnError;
use super::supervision::Supervisor;

/// How much of a job's output is kept (a compiler's first errors are the ones that explain).
const OUTPUT_CAP: usize = 64 * 1024;

/// What to run.
#[derive(Clone, Debug)]
pub(crate) struct Job<'a> {
    /// The program and its arguments.
    pub(crate) command: Vec<String>,
    /// The folder it runs in, and the only one it may write (in the sandbox: its private
    /// directory, which the caller keeps).
    pub(crate) workspace: &'a Path,
    /// What it may read besides the system and its program (a toolchain's folders).
    pub(crate) readable: Vec<PathBuf>,
    /// Variables set on top of arena's environment.
    pub(crate) env: BTreeMap<String, String>,
    /// Its wall-clock limit: past it, everything it started is killed.
    pub(crate) limit: Duration,
    /// `RLIMIT_AS` of each of its processes, in bytes.
    pub(crate) address_space: Option<u64>,
}

/// How a job ended.
#[derive(Debug)]
pub(crate) struct JobRun {
    /// `None` when the time limit killed it.
    pub(crate) status: Option<ExitStatus>,
    /// stdout and stderr, interleaved as they came, cut at [`OUTPUT_CAP`].
    pub(crate) output: String,
}

impl JobRun {
    pub(crate) fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// "exited with status 1", "was killed by SIGKILL", ...
    pub(crate) fn how_it_ended(&self) -> String {
        match self.status {
            None => "ran out of time".into(),
            Some(s) => match (s.code(), s.signal()) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(signal)) => {
                    let name = nix::sys::signal::Signal::try_from(signal)
                        .map(nix::sys::signal::Signal::as_str)
                        .unwrap_or("a signal");
                    format!("was killed by {name}")
                }
                _ => format!("ended: {s}"),
            },
        }
    }
}

impl Job<'_> {
    /// Runs the job under `supervisor` and waits for its end, or its time limit. Every process
    /// it started is gone when this returns.
    ///
    /// # Errors
    ///
    /// It could not be started ([`SpawnError`]), or `supervisor` began to stop meanwhile
    /// ([`SpawnError::ShuttingDown`]: a job cut short by Ctrl-C has no result).
    pub(crate) fn run(&self, supervisor: &Supervisor) -> Result<JobRun, SpawnError> {
        let options = ExternalOptions {
            sandbox: Some(SandboxMode::Auto),
            workdir: Some(self.workspace.to_path_buf()),
            files: self.readable.clone(),
            env: self.env.clone(),
            address_space_mb: self.address_space.map(|bytes| bytes.div_ceil(1024 * 1024)),
            // A bound for helpers that nothing else would stop, never reached by a job that its
            // wall-clock limit governs.
            cpu_seconds: Some(self.limit.as_secs().saturating_add(2)),
            ..ExternalOptions::default()
        };
        let (reader, writer) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
            .map_err(|e| SpawnError::Connect(e.into()))?;
        let second_writer = writer.try_clone().map_err(SpawnError::Connect)?;
        let exit_socket = ExitSocket::new().map_err(SpawnError::Connect)?;
        let launch = Launch {
            command: &self.command,
            options: &options,
            environment: Environment::Inherited,
            workspace: Some(self.workspace),
            stdio: [ChildIo::Null, ChildIo::Fd(writer), ChildIo::Fd(second_writer)],
        };
        let Started { leader, stdio: _, group, confinement, cpu: _ } = start(launch, supervisor)?;
        let exit = exit_socket.watch(leader);
        let deadline = Instant::now() + self.limit;
        let output = capture(std::fs::File::from(reader), exit.signal(), deadline);
        // Its output closed: its end is near, but may not be seen yet.
        exit.wait(deadline.saturating_duration_since(Instant::now()));
        let status = match exit.exit() {
            Some(Exit::Status(status)) => Some(status),
            Some(Exit::Unknown) => Some(ExitStatus::from_raw(1 << 8)),
            None => None,
        };
        group.kill();
        let stopped = group.stop(&exit, Duration::ZERO);
        if let Some(confinement) = confinement {
            confinement.release(stopped.gone);
        }
        if supervisor.is_stopping() {
            return Err(SpawnError::ShuttingDown);
        }
        Ok(JobRun { status, output: output.text() })
    }
}

/// Reads the job's output until it closes, or its leader has exited and nothing more comes
/// within a moment (a helper may hold the pipe open), or `deadline` passes.
fn capture(
    mut reader: std::fs::File,
    exit_signal: std::os::fd::BorrowedFd<'_>,
    deadline: Instant,
) -> Captured {
    let mut captured = Captured::default();
    let mut buf = [0u8; 8192];
    let mut exited = false;
    loop {
        let until = if exited { deadline.min(Instant::now() + AFTER_EXIT) } else { deadline };
        let signal = (!exited).then_some(exit_signal);
        match wait_fd(reader.as_fd(), PollFlags::POLLIN, signal, until) {
            Ok(Wake::Ready) => match reader.read(&mut buf) {
                Ok(0) => return captured,
                Ok(n) => captured.keep(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return captured,
            },
            Ok(Wake::Exited) => exited = true,
            Ok(Wake::Deadline | Wake::Stalled) | Err(_) => return captured,
        }
    }
}

/// How long the output of a job whose leader exited is still read while helpers hold it open.
const AFTER_EXIT: Duration = Duration::from_millis(200);

/// A job's output: the first [`OUTPUT_CAP`] bytes, and how many more were thrown away.
#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    dropped: usize,
}

impl Captured {
    fn keep(&mut self, chunk: &[u8]) {
        let room = OUTPUT_CAP.saturating_sub(self.bytes.len()).min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..room]);
        self.dropped += chunk.len() - room;
    }

    fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!("\n[... {} more bytes of output]\n", self.dropped));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limit: Duration, address_space: Option<u64>) -> JobRun {
        let dir = tempfile::tempdir().unwrap();
        let job = Job {
            command: vec!["/bin/sh".into(), "-c".into(), script.into()],
            workspace: dir.path(),
            readable: Vec::new(),
            env: BTreeMap::new(),
            limit,
            address_space,
        };
        job.run(&Supervisor::new()).unwrap()
    }

    #[test]
    fn output_and_status_are_kept() {
        let r = sh("echo out; echo err >&2; exit 3", Duration::from_secs(30), None);
        assert_eq!(r.how_it_ended(), "exited with status 3");
        assert!(r.output.contains("out") && r.output.contains("err"), "{}", r.output);
        assert!(!r.succeeded());
    }

    #[test]
    fn the_time_limit_kills_the_whole_group() {
        let started = Instant::now();
        // The helper outlives the leader's own end unless the group is killed.
        let r = sh("sleep 30 & echo $$ $! ; wait", Duration::from_millis(300), None);
        assert!(r.status.is_none(), "{:?}", r.status);
        assert!(started.elapsed() < Duration::from_secs(10));
        // In the sandbox its pids are its namespace's: what shows is that nothing sleeps on.
        let sleeping = std::process::Command::new("pgrep").args(["-f", "^sleep 30$"]).output();
        let left = sleeping.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        assert_eq!(left.unwrap_or_default().trim(), "", "the job's helper lives");
    }

    #[test]
    fn the_memory_limit_applies_to_the_job_and_its_helpers() {
        let r = sh("ulimit -v", Duration::from_secs(30), Some(1 << 30));
        assert_eq!(r.output.trim(), "1048576", "KiB");
    }

    #[test]
    fn a_flood_of_output_is_cut() {
        let r = sh("head -c 1000000 /dev/zero | tr '\\0' x", Duration::from_secs(30), None);
        assert!(r.succeeded(), "{}", r.how_it_ended());
        assert!(r.output.len() < OUTPUT_CAP + 100, "{}", r.output.len());
        assert!(r.output.contains("more bytes of output"));
    }

    #[test]
    fn a_stopped_supervisor_starts_no_job() {
        let dir = tempfile::tempdir().unwrap();
        let supervisor = Supervisor::new();
        supervisor.stop_all(Duration::ZERO);
        let job = Job {
            command: vec!["/bin/true".into()],
            workspace: dir.path(),
            readable: Vec::new(),
            env: BTreeMap::new(),
            limit: Duration::from_secs(5),
            address_space: None,
        };
        assert!(matches!(job.run(&supervisor), Err(SpawnError::ShuttingDown)));
    }
}
