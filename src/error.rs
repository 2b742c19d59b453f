//! The harness's own errors: bad input from users (arena files, maps, replays, command lines) and
//! failures of the machine (I/O). A bot's misbehaviour is never one of these; it is a match result.

use std::path::PathBuf;

use crate::games::SetupError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("failed to read `{}`: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("failed to write `{}`: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("bot `{spec}` for seat {seat} ({role}): {message}")]
    Bot { spec: String, seat: usize, role: String, message: String },
    #[error("replay `{}`, line {line}: {message}", path.display())]
    Replay { path: PathBuf, line: usize, message: String },
    #[error("replay `{}` does not verify: {message}", path.display())]
    ReplayMismatch { path: PathBuf, message: String },
    #[error("failed to parse arena `{}`: {message}", path.display())]
    Arena { path: PathBuf, message: String },
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn read(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Read { path: path.into(), source }
    }

    pub fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Write { path: path.into(), source }
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
