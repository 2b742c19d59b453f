//! The settings of an external bot, as a user or a tournament file gives them. One type for all
//! of them, though each is used by a different stage (spawning, the turns, the end of a match),
//! because users write them in one place: `arena play` flags or a bot's `external` table.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The default cap on a sandboxed bot's processes and threads: room for a JVM's or a Go
/// runtime's threads, nothing a machine notices.
pub const DEFAULT_MAX_PROCESSES: u32 = 256;

/// The stderr a decision keeps by default: 8 KiB, a screenful of debug output.
pub const DEFAULT_STDERR_TURN_BYTES: usize = 8 * 1024;

/// The stderr a match keeps by default, per seat: 1 MiB (a long Risk game of chatty bots stays
/// a few megabytes).
pub const DEFAULT_STDERR_MATCH_BYTES: usize = 1024 * 1024;

/// The largest `max_line` accepted: 64 MiB (a line is held in memory whole).
pub const MAX_LINE: usize = 64 * 1024 * 1024;

fn is_default_max_processes(n: &u32) -> bool {
    *n == DEFAULT_MAX_PROCESSES
}

/// How an external bot is run, beyond its command line. Every field has a default; a tournament
/// sets them per bot (TOML keys are the field names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    default,
    deny_unknown_fields,
    expecting = "a table of external-bot options (max_line, workdir, sandbox, ...)"
)]
pub struct ExternalOptions {
    /// The longest line a bot may write, in bytes, without its newline (`output_limit` beyond).
    pub max_line: usize,
    /// How many of the last stderr lines are kept for the result.
    pub stderr_lines: usize,
    /// The most stderr bytes kept with one decision (in the replay); 0 keeps none. Not part of
    /// the serialized form (the fingerprint): what is kept changes no result.
    #[serde(skip_serializing)]
    pub stderr_turn_bytes: usize,
    /// The most stderr bytes kept with the decisions of one match; 0 keeps none.
    #[serde(skip_serializing)]
    pub stderr_match_bytes: usize,
    /// Without the sandbox, the bot's working directory; `None` runs it where arena runs, so
    /// relative paths in the command line mean what they mean to the user who typed them. With
    /// the sandbox, the bot runs in a private directory and this is the directory relative paths
    /// in the command line and in `files` are resolved against (readable by the bot).
    pub workdir: Option<PathBuf>,
    /// Whether the bot runs in the sandbox (`docs/security.md`); `None` takes the arena's
    /// setting, and without one `auto`. (Like the other sandbox settings, left out of the
    /// serialized form while it has its default, so fingerprints of arenas that do not use
    /// them stay what they were.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// In the sandbox, files and directories the bot may read besides the system, its program
    /// and the arguments that name existing files (relative paths resolve like the command's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<PathBuf>,
    /// In the sandbox, whether the bot may use the network (it has none by default).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
    /// In the sandbox, how many processes and threads the bot may have at once (a fork bomb
    /// fails beyond it).
    #[serde(skip_serializing_if = "is_default_max_processes")]
    pub max_processes: u32,
    /// The grace period of the end of a match, in ms: after the end of input, before `SIGTERM`,
    /// and again after `SIGTERM`, before `SIGKILL`.
    pub kill_grace_ms: u64,
    /// `RLIMIT_AS`: the address space of each of the bot's processes, in MiB.
    pub address_space_mb: Option<u64>,
    /// The memory of all the bot's processes together, in MiB (resident and swapped): past it
    /// the bot ends with `memory_limit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// `RLIMIT_CPU`: the CPU seconds the bot may use in the whole match.
    pub cpu_seconds: Option<u64>,
    /// Let the bot run between its turns (pondering); by default its processes are stopped from
    /// its answer to its next turn. What it uses then counts in its `cpu_seconds`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ponder: bool,
    /// Allow core dumps (`RLIMIT_CORE` is 0 unless this is set).
    pub core_dumps: bool,
    /// Extra environment variables, on top of the allow-list and the `ARENA_` variables.
    pub env: BTreeMap<String, String>,
}

impl ExternalOptions {
    /// The same settings, keeping no stderr with the decisions (`stderr = false`, `--no-stderr`).
    #[must_use]
    pub fn without_stderr(self) -> ExternalOptions {
        ExternalOptions { stderr_turn_bytes: 0, stderr_match_bytes: 0, ..self }
    }

    /// Settings that would make every match of the bot fail: a line cap out of range, a zero
    /// resource limit. `Err` names the setting (`max_line`, ...) and says what is allowed.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(1..=MAX_LINE).contains(&self.max_line) {
            return Err((
                "max_line",
                format!("{} must be from 1 to {MAX_LINE} bytes", self.max_line),
            ));
        }
        let zero = [
            ("address_space_mb", self.address_space_mb == Some(0), "MiB"),
            ("memory_mb", self.memory_mb == Some(0), "MiB"),
            ("cpu_seconds", self.cpu_seconds == Some(0), "second"),
            ("max_processes", self.max_processes == 0, "process"),
        ];
        for (key, is_zero, unit) in zero {
            if is_zero {
                return Err((key, format!("0 must be at least 1 {unit} (no bot could run)")));
            }
        }
        Ok(())
    }
}

impl Default for ExternalOptions {
    fn default() -> ExternalOptions {
        ExternalOptions {
            max_line: 64 * 1024,
            stderr_lines: 20,
            stderr_turn_bytes: DEFAULT_STDERR_TURN_BYTES,
            stderr_match_bytes: DEFAULT_STDERR_MATCH_BYTES,
            workdir: None,
            sandbox: None,
            files: Vec::new(),
            network: false,
            max_processes: DEFAULT_MAX_PROCESSES,
            kill_grace_ms: 100,
            address_space_mb: None,
            memory_mb: None,
            ponder: false,
            cpu_seconds: None,
            core_dumps: false,
            env: BTreeMap::new(),
        }
    }
}

impl ExternalOptions {
    pub(super) fn kill_grace(&self) -> Duration {
        Duration::from_millis(self.kill_grace_ms)
    }

    /// The sandbox mode in force: the bot's own, else `auto`.
    #[must_use]
    pub fn sandbox_mode(&self) -> SandboxMode {
        self.sandbox.unwrap_or_default()
    }
}

/// Whether an external bot runs in the sandbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Every layer this machine offers; what is missing is named in one warning.
    #[default]
    Auto,
    /// Every layer, or the bot does not start (a clear error before any match).
    Require,
    /// No sandbox: the bot runs as arena's user, where arena runs (a bot you trust).
    Off,
}

impl SandboxMode {
    /// The mode as users write it (`auto`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Auto => "auto",
            SandboxMode::Require => "require",
            SandboxMode::Off => "off",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sandbox mode that is not `auto`, `require` or `off`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a sandbox mode (auto, require, off)")]
pub struct BadSandboxMode(String);

impl FromStr for SandboxMode {
    type Err = BadSandboxMode;

    fn from_str(s: &str) -> Result<SandboxMode, BadSandboxMode> {
        match s {
            "auto" => Ok(SandboxMode::Auto),
            "require" => Ok(SandboxMode::Require),
            "off" => Ok(SandboxMode::Off),
            other => Err(BadSandboxMode(other.to_string())),
        }
    }
}

/// The `PATH` a bot gets when arena itself has none.
pub(super) const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The resource limits set in the child before it runs the bot.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rlimits {
    address_space: Option<u64>,
    cpu_seconds: Option<u64>,
    core_dumps: bool,
}

impl From<&ExternalOptions> for Rlimits {
    fn from(o: &ExternalOptions) -> Rlimits {
        Rlimits {
            address_space: o.address_space_mb.map(|mb| mb.saturating_mul(1024 * 1024)),
            cpu_seconds: o.cpu_seconds,
            core_dumps: o.core_dumps,
        }
    }
}

/// arena's own core-file limit (soft, hard) before [`Rlimits::inheritable`] lowered the soft one
/// to 0; `None` if it could not.
static ARENA_CORE_LIMIT: std::sync::OnceLock<Option<(u64, u64)>> = std::sync::OnceLock::new();

impl Rlimits {
    /// Whether a child that runs no code of its own between `fork` and `exec` gets these limits
    /// by inheriting arena's: when none is set but "no core files", and arena's own soft
    /// core-file limit is 0, which this makes it, once (most shells give it 0 already; arena
    /// then writes no core file of its own either). Such a child is started by `posix_spawn`,
    /// whose cost does not grow with arena's memory as a `fork`'s does.
    pub(super) fn inheritable(&self) -> bool {
        self.address_space.is_none()
            && self.cpu_seconds.is_none()
            && !self.core_dumps
            && arena_core_limit().is_some()
    }

    /// How many numbers [`Rlimits::to_wire`] gives.
    pub(super) const WIRE: usize = 8;

    /// The limits as numbers, with arena's own core-file limit from before it lowered it (for
    /// a bot allowed core files), for a process that is not a copy of arena
    /// (`sandbox::spawner`).
    pub(super) fn to_wire(self) -> [u64; Rlimits::WIRE] {
        let flag = |b: bool| u64::from(b);
        let core = ARENA_CORE_LIMIT.get().copied().flatten();
        [
            flag(self.address_space.is_some()),
            self.address_space.unwrap_or(0),
            flag(self.cpu_seconds.is_some()),
            self.cpu_seconds.unwrap_or(0),
            flag(self.core_dumps),
            flag(core.is_some()),
            core.map_or(0, |c| c.0),
            core.map_or(0, |c| c.1),
        ]
    }

    /// The limits [`Rlimits::to_wire`] gave, in a process of its own: arena's core-file limit
    /// becomes this process's record of it.
    pub(super) fn from_wire(wire: [u64; Rlimits::WIRE]) -> Rlimits {
        let [has_as, address_space, has_cpu, cpu_seconds, core_dumps, has_core, soft, hard] = wire;
        if has_core != 0 {
            let _ = ARENA_CORE_LIMIT.set(Some((soft, hard)));
        }
        Rlimits {
            address_space: (has_as != 0).then_some(address_space),
            cpu_seconds: (has_cpu != 0).then_some(cpu_seconds),
            core_dumps: core_dumps != 0,
        }
    }

    pub(super) fn apply(&self) -> std::io::Result<()> {
        use nix::sys::resource::{Resource, setrlimit};
        let set = |resource, soft: u64, hard: u64| {
            setrlimit(resource, soft, hard).map_err(|e| std::io::Error::from_raw_os_error(e as i32))
        };
        // A bot allowed core files gets arena's limit as it was before arena lowered its own.
        if self.core_dumps
            && let Some(Some((soft, hard))) = ARENA_CORE_LIMIT.get().copied()
        {
            set(Resource::RLIMIT_CORE, soft, hard)?;
        }
        if let Some(bytes) = self.address_space {
            set(Resource::RLIMIT_AS, bytes, bytes)?;
        }
        if let Some(seconds) = self.cpu_seconds {
            // A backstop per process: arena ends a bot whose processes together used its
            // seconds first. The soft limit sends SIGXCPU, the hard one a second later SIGKILL.
            set(Resource::RLIMIT_CPU, seconds.saturating_add(1), seconds.saturating_add(2))?;
        }
        if !self.core_dumps {
            set(Resource::RLIMIT_CORE, 0, 0)?;
        }
        Ok(())
    }
}

/// Lowers arena's own soft core-file limit to 0 the first time it is asked; its limits from
/// before, if it is 0 now.
pub(super) fn arena_core_limit() -> Option<(u64, u64)> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    *ARENA_CORE_LIMIT.get_or_init(|| {
        let (soft, hard) = getrlimit(Resource::RLIMIT_CORE).ok()?;
        if soft != 0 {
            setrlimit(Resource::RLIMIT_CORE, 0, hard).ok()?;
        }
        Some((soft, hard))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print_as_users_write_them() {
        for mode in [SandboxMode::Auto, SandboxMode::Require, SandboxMode::Off] {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
        }
        assert!("on".parse::<SandboxMode>().unwrap_err().to_string().contains("auto, require"));
    }

    #[test]
    fn options_read_from_toml_with_defaults() {
        let o: ExternalOptions = toml::from_str("max_line = 100\ncpu_seconds = 5").unwrap();
        assert_eq!(o.max_line, 100);
        assert_eq!(o.cpu_seconds, Some(5));
        assert_eq!(o.kill_grace_ms, ExternalOptions::default().kill_grace_ms);
        assert!(toml::from_str::<ExternalOptions>("max_lines = 1").is_err());
        let o: ExternalOptions =
            toml::from_str("sandbox = \"require\"\nnetwork = true\nfiles = [\"bots\"]").unwrap();
        assert_eq!(o.sandbox, Some(SandboxMode::Require));
        assert!(o.network);
        assert_eq!(o.files, vec![PathBuf::from("bots")]);
        assert!(toml::from_str::<ExternalOptions>("sandbox = \"on\"").is_err());
        assert_eq!(ExternalOptions::default().sandbox_mode(), SandboxMode::Auto);
    }
}
