//! The harness's own errors: bad input from users (arena files, maps, replays, command lines) and
//! failures of the machine (I/O). A bot's misbehaviour is never one of these; it is a match result.
//!
//! Every error has an [`ErrorKind`], and the kind decides the process's exit code (the table is
//! in the README), so scripts can tell "fix your input" from "the harness could not do its work,
//! try again".
//!
//! A leaf of the crate: it names no other module, so every module can return its errors. The
//! errors that come from elsewhere (a game's set-up, an arena file, a sandbox the machine cannot
//! give) are carried boxed, and their modules convert them (`From` impls beside their types).

use std::path::PathBuf;

/// An error of another module, kept whole for its message and its source chain.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command line that cannot be carried out as written.
    #[error("{0}")]
    Usage(String),
    #[error("failed to read `{}`: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("failed to write `{}`: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    /// A game that cannot be set up as asked (`game::SetupError`): a map, an option.
    #[error(transparent)]
    Setup(Cause),
    #[error("bot `{spec}` for seat {seat} ({role}): {message}")]
    Bot { spec: String, seat: usize, role: String, message: String },
    #[error("replay `{}`, line {line}: {message}", path.display())]
    Replay { path: PathBuf, line: usize, message: String },
    #[error("replay `{}` does not verify: {message}", path.display())]
    ReplayMismatch { path: PathBuf, message: String },
    /// An arena file that cannot be used (`tournament::config::ArenaError`: the file, the key
    /// and what is wrong there).
    #[error(transparent)]
    Arena(Cause),
    /// A results folder whose files do not say what arena wrote (edited, truncated, mixed).
    #[error("results `{}`{}: {message}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Results { path: PathBuf, line: Option<usize>, message: String },
    /// A results folder whose rows were played by other bots than this run's (a file a bot's
    /// spec names changed since): the user's input changed, and resuming would mix two bots.
    #[error("results `{}` {message}; rerun with --fresh to discard them, or write this run elsewhere with --out", path.display())]
    StaleBots { path: PathBuf, message: String },
    /// Another run holds what this one needs (a results folder's lock).
    #[error("{0}")]
    Busy(String),
    /// A tournament's match that could not be set up (its game, map or bots); the kind is the
    /// cause's.
    #[error("match {id} could not be set up: {source}")]
    MatchSetup { id: u64, source: Box<Error> },
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
    /// `sandbox = "require"` on a machine without every layer of the sandbox
    /// (`bot::external::SandboxUnavailable`). An input error: the same machine will refuse
    /// again; the fix is another machine or another mode.
    #[error(transparent)]
    Sandbox(Cause),
    /// The bots' supervisor was stopped (Ctrl-C) while a match was played: it has no result.
    #[error("interrupted: the external bots were stopped")]
    Interrupted,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure an error is, for the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is wrong (command line, arena file, map, replay, bot spec): fix it, retrying
    /// will not help. Exit code 2.
    Input,
    /// A check ran and said no (a replay that does not verify). Exit code 1.
    Check,
    /// The harness could not do its work (I/O, a corrupt or busy results folder): retrying,
    /// maybe after freeing disk or waiting for the other run, may help. Exit code 4.
    Harness,
}

/// The exit codes, documented in the README's table.
pub mod exit {
    /// Success (and `arena sprt`: H1 accepted).
    pub const OK: i32 = 0;
    /// A check said no: `arena sprt` accepted H0, `replay --verify` found a mismatch, `arena diff`
    /// found a change.
    pub const CHECK_FAILED: i32 = 1;
    /// A usage or input error.
    pub const INPUT: i32 = 2;
    /// `arena sprt` stopped without a verdict; `arena solve spiders` ran out of time.
    pub const UNDECIDED: i32 = 3;
    /// The harness could not do its work; a retry may help.
    pub const HARNESS: i32 = 4;
    /// `--strict`: a match ended by a bot's fault.
    pub const FAULTS: i32 = 5;
    /// `arena sprt --decide`: the pairs played so far decide nothing yet; play more.
    pub const MORE_PAIRS: i32 = 6;
}

impl Error {
    pub fn read(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Read { path: path.into(), source }
    }

    pub fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Write { path: path.into(), source }
    }

    /// A failed write to stdout (the one helper for every command's report).
    pub fn stdout(source: std::io::Error) -> Error {
        Error::Io { context: "failed to write to stdout".into(), source }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Usage(_)
            | Error::Setup(_)
            | Error::Bot { .. }
            | Error::Replay { .. }
            | Error::Arena(_)
            | Error::Sandbox(_)
            | Error::StaleBots { .. } => ErrorKind::Input,
            // A file the user named that cannot be read is an input to fix; a read that fails
            // for other reasons (the disk, permissions mid-run) may pass on a retry.
            Error::Read { source, .. } => match source.kind() {
                std::io::ErrorKind::NotFound
                | std::io::ErrorKind::IsADirectory
                | std::io::ErrorKind::InvalidData
                | std::io::ErrorKind::PermissionDenied => ErrorKind::Input,
                _ => ErrorKind::Harness,
            },
            Error::ReplayMismatch { .. } => ErrorKind::Check,
            Error::Write { .. }
            | Error::Results { .. }
            | Error::Busy(_)
            | Error::Io { .. }
            | Error::Interrupted => ErrorKind::Harness,
            Error::MatchSetup { source, .. } => source.kind(),
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self.kind() {
            ErrorKind::Input => exit::INPUT,
            ErrorKind::Check => exit::CHECK_FAILED,
            ErrorKind::Harness => exit::HARNESS,
        }
    }

    /// Whether this is a write to a pipe whose reader has gone.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Write { source, .. } | Error::Io { source, .. } => {
                source.kind() == std::io::ErrorKind::BrokenPipe
            }
            _ => false,
        }
    }
}

/// A TOML error as one line, `line L, key `K`: what is wrong`, like every other input error (the
/// toml crate renders a block of several lines with a caret). The key is read from the text: the
/// table headers above the line (`[[bots]]` counted as `bots[i]`) and the keys left of the error.
pub fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let mut message = e.message().trim().replace('\n', "; ");
    if message == "wanted string or table" {
        // toml's words for a non-string where a name is expected: every such key in arena takes
        // one of a few names, never a table.
        message = "expected one of this key's names, as a quoted string".to_string();
    }
    let Some(span) = e.span() else { return message };
    let start = span.start.min(text.len());
    let line_no = text[..start].matches('\n').count() + 1;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let mut prefix: Vec<String> = Vec::new();
    let mut arrays: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for header in text[..line_start].lines().map(str::trim) {
        if let Some(name) = header.strip_prefix("[[").and_then(|h| h.split("]]").next()) {
            let name = name.trim().to_string();
            let i = arrays.entry(name.clone()).and_modify(|i| *i += 1).or_insert(0);
            prefix = vec![format!("{name}[{i}]")];
        } else if let Some(name) = header.strip_prefix('[').and_then(|h| h.split(']').next()) {
            prefix = vec![name.trim().to_string()];
        }
    }
    let before = &text[line_start..start];
    let mut keys = prefix;
    if message.starts_with("missing field") {
        // The span is the table that lacks the key: the key is in the message.
        return if keys.is_empty() {
            format!("line {line_no}: {message}")
        } else {
            format!("line {line_no}, table `{}`: {message}", keys.join("."))
        };
    }
    let segments: Vec<&str> = before.split('=').collect();
    let last_word = |s: &str| {
        s.rsplit(|c: char| c.is_whitespace() || "{,[".contains(c))
            .find(|w| !w.is_empty())
            .map(|w| w.trim_matches('"').to_string())
    };
    if segments.len() > 1 {
        for (i, seg) in segments[..segments.len() - 1].iter().enumerate() {
            let rest: String = segments[i + 1..].join("=");
            let open = rest.matches('{').count() > rest.matches('}').count();
            if (open || i + 2 == segments.len())
                && let Some(k) = last_word(seg)
            {
                keys.push(k);
            }
        }
    } else {
        let word: String = text[start..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || "_-\"".contains(*c))
            .collect();
        let word = word.trim_matches('"');
        if !word.is_empty() && !before.trim_start().starts_with('[') {
            keys.push(word.to_string());
        }
    }
    if keys.is_empty() {
        format!("line {line_no}: {message}")
    } else {
        format!("line {line_no}, key `{}`: {message}", keys.join("."))
    }
}
