//! Why a process arena supervises (a bot, a job) could not be started: its own file, so that
//! the sandbox, which can refuse a start, and the spawn, which uses the sandbox, need not import
//! each other.

use std::path::PathBuf;

/// Why an external bot could not be started. Not an error of the harness: the bot's first turn
/// fails with `startup_failed`, a result of its match.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// No program was named.
    #[error("empty command line")]
    EmptyCommand,
    /// Its supervisor has begun to stop every bot.
    #[error("arena is shutting down")]
    ShuttingDown,
    /// The system could not start the program (no such file, not executable, no such working
    /// directory, too many processes).
    #[error("cannot run `{program}`{}: {source}", in_dir(.workdir.as_ref()))]
    Run {
        /// The program, as the command line names it.
        program: String,
        /// The working directory it was to run in, if not arena's.
        workdir: Option<PathBuf>,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The process was gone before arena could learn its id.
    #[error("the process vanished as it started")]
    Vanished,
    /// The pipes or the socket that connect arena to the bot could not be set up.
    #[error("cannot connect to the bot: {0}")]
    Connect(#[source] std::io::Error),
    /// Its sandbox could not be set up (a `files` entry that does not exist, a full temporary
    /// folder, a machine without the features of `require`).
    #[error("cannot set up its sandbox: {0}")]
    Sandbox(String),
}

fn in_dir(workdir: Option<&PathBuf>) -> String {
    workdir.map(|dir| format!(" in `{}`", dir.display())).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_errors_name_the_program_and_the_directory() {
        let source = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let here = SpawnError::Run { program: "bot".into(), workdir: None, source: source() };
        assert!(here.to_string().starts_with("cannot run `bot`: "), "{here}");
        let there = SpawnError::Run {
            program: "bot".into(),
            workdir: Some(PathBuf::from("/srv/bots")),
            source: source(),
        };
        assert!(there.to_string().starts_with("cannot run `bot` in `/srv/bots`: "), "{there}");
    }
}
