//! The bot spec users write: a built-in strategy's name, `cmd:` and a command line, or `cg:` and
//! a CodinGame source file.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which bot plays a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum BotSpec {
    /// A strategy compiled into arena, by name (`arena bots` lists them).
    Builtin(String),
    /// An external executable speaking the game's line protocol: the words of its command line
    /// (split like a POSIX shell would, but no shell runs unless the user writes one).
    Command(Vec<String>),
    /// A CodinGame source file, run the way CodinGame runs its language (compiled first when it
    /// must be; see [`crate::bot::codingame`]).
    CodinGame(PathBuf),
}

/// Why a bot spec cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotSpecError {
    /// Nothing was given.
    #[error("empty bot spec")]
    Empty,
    /// `cmd:` alone.
    #[error("`cmd:` needs a command line after it")]
    EmptyCommand,
    /// A command line with an unclosed quote or a trailing backslash.
    #[error("cannot split the command line {command:?}: {source}")]
    BadCommand {
        /// The command line after `cmd:`.
        command: String,
        /// What the splitter found wrong.
        source: shell_words::ParseError,
    },
    /// `cg:` alone.
    #[error("`cg:` needs the path of a source file after it")]
    EmptySource,
    /// A built-in bot's name with characters no name has.
    #[error(
        "bad bot name {0:?}: a built-in name is letters, digits, `-` and `_` (use `cmd:` for an executable)"
    )]
    BadName(String),
}

impl FromStr for BotSpec {
    type Err = BotSpecError;

    fn from_str(s: &str) -> Result<BotSpec, BotSpecError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(BotSpecError::Empty);
        }
        if let Some(cmd) = s.strip_prefix("cmd:") {
            let words = shell_words::split(cmd)
                .map_err(|source| BotSpecError::BadCommand { command: cmd.to_string(), source })?;
            if words.is_empty() {
                return Err(BotSpecError::EmptyCommand);
            }
            return Ok(BotSpec::Command(words));
        }
        if let Some(path) = s.strip_prefix("cg:") {
            return source_path(path).map(BotSpec::CodinGame);
        }
        if !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(BotSpecError::BadName(s.to_string()));
        }
        Ok(BotSpec::Builtin(s.to_string()))
    }
}

/// The one path after `cg:`: quoted like a shell word (`cg:'my bots/x.py'`), or, when it does
/// not split into one word, taken as written (`cg:my bots/x.py`).
fn source_path(text: &str) -> Result<PathBuf, BotSpecError> {
    let text = text.trim();
    let path = match shell_words::split(text) {
        Ok(words) if words.len() == 1 => words.into_iter().next().unwrap_or_default(),
        _ => text.to_string(),
    };
    if path.is_empty() {
        return Err(BotSpecError::EmptySource);
    }
    Ok(PathBuf::from(path))
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSpec::Builtin(name) => f.write_str(name),
            BotSpec::Command(words) => write!(f, "cmd:{}", shell_words::join(words)),
            BotSpec::CodinGame(path) => {
                write!(f, "cg:{}", shell_words::quote(&path.to_string_lossy()))
            }
        }
    }
}

impl From<BotSpec> for String {
    fn from(spec: BotSpec) -> String {
        spec.to_string()
    }
}

impl TryFrom<String> for BotSpec {
    type Error = BotSpecError;

    fn try_from(s: String) -> Result<BotSpec, BotSpecError> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_builtin_and_command() {
        assert_eq!("solver".parse(), Ok(BotSpec::Builtin("solver".into())));
        assert_eq!(
            "cmd:python3 bots/virus.py --depth '2 3'".parse(),
            Ok(BotSpec::Command(vec![
                "python3".into(),
                "bots/virus.py".into(),
                "--depth".into(),
                "2 3".into()
            ]))
        );
        assert_eq!("cmd:   ".parse::<BotSpec>(), Err(BotSpecError::EmptyCommand));
        assert!(matches!(
            "cmd:sh -c 'oops".parse::<BotSpec>(),
            Err(BotSpecError::BadCommand { .. })
        ));
        assert!(matches!("./my bot".parse::<BotSpec>(), Err(BotSpecError::BadName(_))));
    }

    #[test]
    fn parses_codingame_sources_quoted_or_as_written() {
        let cg = |p: &str| Ok(BotSpec::CodinGame(PathBuf::from(p)));
        assert_eq!("cg:bots/x.cpp".parse(), cg("bots/x.cpp"));
        assert_eq!("cg: 'my bots/x.py' ".parse(), cg("my bots/x.py"));
        assert_eq!("cg:my bots/x.py".parse(), cg("my bots/x.py"));
        assert_eq!("cg:bob's bot.js".parse(), cg("bob's bot.js"));
        assert_eq!("cg:  ".parse::<BotSpec>(), Err(BotSpecError::EmptySource));
        assert_eq!("cg:''".parse::<BotSpec>(), Err(BotSpecError::EmptySource));
        let spaced: BotSpec = "cg:my bots/x.py".parse().unwrap();
        assert_eq!(spaced.to_string(), "cg:'my bots/x.py'");
    }

    #[test]
    fn display_round_trips() {
        for s in ["greedy", "cmd:python3 'a b.py' x", "cg:bots/x.cpp", "cg:'my bots/it'\\''s.py'"] {
            let spec: BotSpec = s.parse().unwrap();
            assert_eq!(spec.to_string().parse::<BotSpec>().unwrap(), spec);
        }
    }
}
