//! The bot spec users write: a built-in strategy's name, or `cmd:` and a command line.

use std::fmt;
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
        if !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(BotSpecError::BadName(s.to_string()));
        }
        Ok(BotSpec::Builtin(s.to_string()))
    }
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSpec::Builtin(name) => f.write_str(name),
            BotSpec::Command(words) => write!(f, "cmd:{}", shell_words::join(words)),
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
    fn display_round_trips() {
        for s in ["greedy", "cmd:python3 'a b.py' x"] {
            let spec: BotSpec = s.parse().unwrap();
            assert_eq!(spec.to_string().parse::<BotSpec>().unwrap(), spec);
        }
    }
}
