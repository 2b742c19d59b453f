//! Running a compiler (or asking its version) under a time limit, leaving nothing behind.
//!
//! A compile runs before any match, on the thread that sets the match up, and only its exit
//! status and first lines of output matter. The compiler leads its own process group, so a time
//! limit kills everything it started (`cc1plus`, `as`, `ld`); a Ctrl-C of arena kills the live
//! groups through [`stop_compiles`]; on Linux the compiler dies with arena (`PR_SET_PDEATHSIG`),
//! and a CPU-time limit as long as the time limit ends its helpers too if arena is killed with
//! `kill -9` while they run.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

/// How much of a compiler's output is kept (the first errors are the ones that explain).
const OUTPUT_CAP: usize = 64 * 1024;

/// How long the helpers of a killed compiler may take to be gone and reaped.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// How a tool run ended.
#[derive(Debug)]
pub(super) struct ToolRun {
    /// `None` when the time limit killed it.
    pub status: Option<ExitStatus>,
    /// stdout and stderr, interleaved as they came, cut at [`OUTPUT_CAP`].
    pub output: String,
}

impl ToolRun {
    pub(super) fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// "exited with status 1", "was killed by SIGKILL", ...
    pub(super) fn how_it_ended(&self) -> String {
        match self.status {
            None => "ran out of time".into(),
            Some(s) => match (s.code(), s.signal()) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(signal)) => {
                    let name = Signal::try_from(signal)
                        .map(nix::sys::signal::Signal::as_str)
                        .unwrap_or("a signal");
                    format!("was killed by {name}")
                }
                _ => format!("ended: {s}"),
            },
        }
    }
}

/// The process groups of the compilers running now.
static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
static STOPPING: AtomicBool = AtomicBool::new(false);

fn live() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kills every running compile and refuses new ones: for arena's interrupt handler, which
/// exits right after. A compile cut short this way never becomes a match result.
pub(crate) fn stop_compiles() {
    STOPPING.store(true, Ordering::SeqCst);
    for &group in live().iter() {
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
}

/// Once Ctrl-C has stopped the compiles, their failures are not results: the thread waits here
/// for the interrupt handler to end the process.
fn park_if_stopping() {
    while STOPPING.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Runs `program args` in `cwd` with stdin closed, for at most `limit`, and in at most
/// `address_space` bytes of memory when given.
pub(super) fn run(
    program: &Path,
    args: &[OsString],
    cwd: &Path,
    limit: Duration,
    address_space: Option<u64>,
) -> std::io::Result<ToolRun> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // The soft limit sends SIGXCPU, the hard one SIGKILL: a bound for helpers orphaned by a
    // `kill -9` of arena, never reached by a compile that the wall-clock limit governs.
    let cpu_seconds = limit.as_secs().saturating_add(2);
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec and only makes system calls
    // (prctl, getppid, setrlimit), which are async-signal-safe; it allocates nothing.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(move || {
            #[cfg(target_os = "linux")]
            {
                nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
                // arena died between the fork and the prctl: nobody waits for this compile.
                if nix::unistd::getppid().as_raw() as u32 != parent {
                    return Err(std::io::ErrorKind::Interrupted.into());
                }
            }
            let _ = parent;
            use nix::sys::resource::{Resource, setrlimit};
            setrlimit(Resource::RLIMIT_CPU, cpu_seconds, cpu_seconds.saturating_add(1))?;
            if let Some(bytes) = address_space {
                setrlimit(Resource::RLIMIT_AS, bytes, bytes)?;
            }
            Ok(())
        });
    }

    // Registered under the lock that `stop_compiles` takes, so no compile starts unseen.
    let mut registry = live();
    while STOPPING.load(Ordering::SeqCst) {
        drop(registry);
        park_if_stopping();
        registry = live();
    }
    let mut child = cmd.spawn()?;
    let group = child.id() as i32;
    registry.insert(group);
    drop(registry);

    let output = Arc::new(Mutex::new(Captured::default()));
    let drains: Vec<_> = [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|pipe| {
        let output = Arc::clone(&output);
        std::thread::spawn(move || drain(pipe, &output))
    })
    .collect();

    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let waited = match rx.recv_timeout(limit) {
        Ok(status) => status.map(Some),
        Err(_) => {
            let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
            let _ = rx.recv();
            Ok(None)
        }
    };
    let _ = waiter.join();
    // The leader is reaped: kill and reap what it left in its group (re-parented to arena when
    // arena is a child subreaper; gone to init otherwise).
    let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    let until = Instant::now() + REAP_WAIT;
    while killpg(Pid::from_raw(group), None::<Signal>) != Err(Errno::ESRCH)
        && Instant::now() < until
    {
        while let Ok(s) = waitpid(Pid::from_raw(-group), Some(WaitPidFlag::WNOHANG)) {
            if s == WaitStatus::StillAlive {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for drain in drains {
        let _ = drain.join();
    }
    live().remove(&group);
    park_if_stopping();
    let captured =
        std::mem::take(&mut *output.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    Ok(ToolRun { status: waited?, output: captured.text() })
}

/// A tool's output: the first [`OUTPUT_CAP`] bytes, and how many more were thrown away.
#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    dropped: usize,
}

impl Captured {
    fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!("\n[... {} more bytes of output]\n", self.dropped));
        }
        text
    }
}

/// Reads a pipe to its end, keeping what fits.
fn drain(mut pipe: Box<dyn Read + Send>, output: &Mutex<Captured>) {
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                let mut out = output.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let room = OUTPUT_CAP.saturating_sub(out.bytes.len()).min(n);
                out.bytes.extend_from_slice(&buf[..room]);
                out.dropped += n - room;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limit: Duration) -> ToolRun {
        let args = vec!["-c".into(), script.into()];
        run(Path::new("/bin/sh"), &args, Path::new("/"), limit, None).unwrap()
    }

    #[test]
    fn output_and_status_are_kept() {
        let r = sh("echo out; echo err >&2; exit 3", Duration::from_secs(30));
        assert_eq!(r.how_it_ended(), "exited with status 3");
        assert!(r.output.contains("out") && r.output.contains("err"), "{}", r.output);
        assert!(!r.succeeded());
    }

    #[test]
    fn the_time_limit_kills_the_whole_group() {
        let started = Instant::now();
        // The helper outlives the leader's own end unless the group is killed.
        let r = sh("sleep 30 & echo $! ; wait", Duration::from_millis(300));
        assert!(r.status.is_none(), "{:?}", r.status);
        assert!(started.elapsed() < Duration::from_secs(10));
        let helper: i32 = r.output.trim().parse().unwrap();
        // Gone, or a zombie waiting for whoever adopted it to reap it.
        let stat = std::fs::read_to_string(format!("/proc/{helper}/stat")).unwrap_or_default();
        let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
        assert!(matches!(state, None | Some(Some('Z'))), "the compiler's helper lives: {stat}");
    }

    #[test]
    fn the_memory_limit_applies_to_the_tool_and_its_helpers() {
        let args = vec!["-c".into(), "ulimit -v".into()];
        let r = run(
            Path::new("/bin/sh"),
            &args,
            Path::new("/"),
            Duration::from_secs(30),
            Some(1 << 30),
        )
        .unwrap();
        assert_eq!(r.output.trim(), "1048576", "KiB");
    }

    #[test]
    fn a_flood_of_output_is_cut() {
        let r = sh("head -c 1000000 /dev/zero | tr '\\0' x", Duration::from_secs(30));
        assert!(r.succeeded());
        assert!(r.output.len() < OUTPUT_CAP + 100, "{}", r.output.len());
        assert!(r.output.contains("more bytes of output"));
    }
}
