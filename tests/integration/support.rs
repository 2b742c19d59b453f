//! A small builder that runs the real `arena` binary in a temporary folder and checks its output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The project's root, for maps and bots the tests use.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) struct Arena {
    dir: tempfile::TempDir,
    args: Vec<String>,
    envs: Vec<(String, String)>,
}

/// A finished run; it keeps the temporary folder alive for the checks that follow.
pub(crate) struct Run {
    pub output: Output,
    pub dir: PathBuf,
    _temp: tempfile::TempDir,
}

impl Arena {
    pub(crate) fn new() -> Arena {
        Arena { dir: tempfile::tempdir().expect("a temp dir"), args: Vec::new(), envs: Vec::new() }
    }

    pub(crate) fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Arena
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args.extend(args.into_iter().map(|s| s.as_ref().to_string()));
        self
    }

    /// Sets an environment variable for arena.
    pub(crate) fn env(mut self, key: &str, value: impl AsRef<str>) -> Arena {
        self.envs.push((key.to_string(), value.as_ref().to_string()));
        self
    }

    /// The command `run` runs, for a test that starts arena in the background.
    pub(crate) fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
        cmd.args(&self.args).current_dir(self.dir.path());
        cmd.envs(self.envs.iter().map(|(k, v)| (k, v)));
        cmd
    }

    pub(crate) fn run(self) -> Run {
        let output = self.command().output().expect("arena runs");
        Run { output, dir: self.dir.path().to_path_buf(), _temp: self.dir }
    }
}

/// Writes `text` as `NAME.toml` in `dir`, runs `arena run NAME.toml -q` there and fails the test
/// unless it succeeds; returns the results folder, `dir/results/NAME`.
pub(crate) fn run_arena_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = format!("{name}.toml");
    std::fs::write(dir.join(&file), text).expect("the arena file is written");
    let run = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", &file, "-q"])
        .current_dir(dir)
        .output()
        .expect("arena runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    dir.join("results").join(name)
}

impl Run {
    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub(crate) fn success(self) -> Run {
        assert!(
            self.output.status.success(),
            "arena failed ({}):\nstdout:\n{}\nstderr:\n{}",
            self.output.status,
            self.stdout(),
            self.stderr()
        );
        self
    }

    pub(crate) fn failure(self) -> Run {
        assert!(!self.output.status.success(), "arena succeeded unexpectedly:\n{}", self.stdout());
        self
    }
}
