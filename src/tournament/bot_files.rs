//! What a bot's results depend on beyond the arena file: the files its command names.
//!
//! A results folder is resumed only by the config that wrote it, and a bot rebuilt or edited
//! since is another config: a before/after regression check that resumes the old rows would pass
//! without playing the new bot once. So each bot's files are hashed (SHA-256) when the arena is
//! loaded, the hashes go into the fingerprint and into `meta.json`, and a rerun whose files
//! differ is refused naming the bot and the file.
//!
//! Which files: for `cmd:`, the program (the path given, or the file `PATH` finds) and every
//! argument that is an existing file (relative to the bot's working directory); for `cg:`, the
//! source. What those files load in turn (imports, shared libraries, data read by a name built at
//! run time) is not followed. A built-in bot is identified by the arena version: it is compiled
//! into arena, and a rebuild of the same version with a changed bot is a developer's concern
//! (`--fresh`), not something a hash of the binary should decide (every build would then
//! invalidate every folder).

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bot::BotSpec;
use crate::bot::external::ExternalOptions;

/// The `PATH` a bot gets when arena itself has none (as the external bots' spawner does).
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The recorded hash of a file that exists but cannot be read (an execute-only program).
const UNREADABLE: &str = "unreadable";

/// One bot's identity beyond its name and spec: what `meta.json` records under `bot_files`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotFingerprint {
    pub bot: String,
    /// The spec as the arena file gives it (`cmd:python3 bots/x.py`), so a changed spec reads as
    /// a changed config and a changed file as a changed bot.
    pub spec: String,
    /// A built-in bot: the arena version it is compiled into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_version: Option<String>,
    /// The files the spec names, in the order it names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<BotFile>,
}

impl BotFingerprint {
    /// What is known of a bot without reading a file: its name and spec, and a built-in bot's
    /// arena version (all there is to it). An external bot's files are hashed by
    /// [`fingerprint_bot`].
    pub(crate) fn unhashed(name: &str, spec: &BotSpec) -> BotFingerprint {
        BotFingerprint {
            bot: name.to_string(),
            spec: spec.to_string(),
            arena_version: match spec {
                BotSpec::Builtin(_) => Some(env!("CARGO_PKG_VERSION").to_string()),
                BotSpec::Command(_) | BotSpec::CodinGame(_) => None,
            },
            files: Vec::new(),
        }
    }
}

/// A file a bot's spec names and the hash of its content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotFile {
    /// The word of the spec that names it (`python3`, `bots/x.py`), not the path it resolved to:
    /// the same bot run from another folder or another `PATH` entry with the same content is the
    /// same bot.
    pub file: String,
    /// SHA-256 of the content, in hex.
    pub sha256: String,
}

/// The fingerprint of one bot of an arena: `external` gives the working directory and the
/// environment (`PATH`) its command runs with.
pub(crate) fn fingerprint_bot(
    name: &str,
    spec: &BotSpec,
    external: &ExternalOptions,
) -> BotFingerprint {
    let mut fingerprint = BotFingerprint::unhashed(name, spec);
    match spec {
        BotSpec::Builtin(_) => {}
        BotSpec::Command(words) => {
            let base = external.workdir.clone().unwrap_or_default();
            let path_var = external
                .env
                .get("PATH")
                .map(Into::into)
                .or_else(|| std::env::var_os("PATH"))
                .unwrap_or_else(|| DEFAULT_PATH.into());
            let (program, args) = words.split_first().expect("a command has a program");
            let program_path = if program.contains('/') {
                Some(base.join(program)).filter(|p| p.is_file())
            } else {
                on_path(program, &path_var)
            };
            let named = std::iter::once((program, program_path))
                .chain(args.iter().map(|a| (a, Some(base.join(a)).filter(|p| p.is_file()))));
            for (word, path) in named {
                if let Some(path) = path {
                    fingerprint.files.push(BotFile { file: word.clone(), sha256: sha256(&path) });
                }
            }
        }
        BotSpec::CodinGame(source) => {
            if source.is_file() {
                fingerprint.files.push(BotFile {
                    file: source.to_string_lossy().into_owned(),
                    sha256: sha256(source),
                });
            }
        }
    }
    fingerprint
}

/// Where `program` is on `path_var`, as `execvp` would find it (absolute folders only: a relative
/// one would depend on the bot's working directory).
fn on_path(program: &str, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The SHA-256 of a file's content, streamed (an interpreter or a model file may be large).
fn sha256(path: &Path) -> String {
    let Ok(mut file) = std::fs::File::open(path) else { return UNREADABLE.into() };
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hash.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return UNREADABLE.into(),
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// How the bots of `new` differ from those of `old` that have the same name and spec, one line
/// per bot (`bot `py`: `bots/x.py` changed (sha256 3f2a9c1d… → 8b0e77a2…)`); empty when none
/// does.
pub(crate) fn changed_bots(old: &[BotFingerprint], new: &[BotFingerprint]) -> Vec<String> {
    let short = |h: &str| h.chars().take(12).collect::<String>();
    let mut lines = Vec::new();
    for n in new {
        let Some(o) = old.iter().find(|o| o.bot == n.bot && o.spec == n.spec) else { continue };
        if o == n {
            continue;
        }
        let mut what = Vec::new();
        if o.arena_version != n.arena_version {
            what.push(format!(
                "built into arena {}, now arena {}",
                o.arena_version.as_deref().unwrap_or("?"),
                n.arena_version.as_deref().unwrap_or("?")
            ));
        }
        for f in &n.files {
            match o.files.iter().find(|g| g.file == f.file) {
                Some(g) if g.sha256 == f.sha256 => {}
                Some(g) => what.push(format!(
                    "`{}` changed (sha256 {} now {})",
                    f.file,
                    short(&g.sha256),
                    short(&f.sha256)
                )),
                None => what.push(format!("`{}` is a file now and was not", f.file)),
            }
        }
        for g in o.files.iter().filter(|g| !n.files.iter().any(|f| f.file == g.file)) {
            what.push(format!("`{}` is gone", g.file));
        }
        lines.push(format!("bot `{}`: {}", n.bot, what.join(", ")));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> BotSpec {
        s.parse().unwrap()
    }

    #[test]
    fn a_command_hashes_its_program_and_its_file_arguments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "abc").unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        let external = ExternalOptions {
            workdir: Some(dir.path().to_path_buf()),
            ..ExternalOptions::default()
        };
        let f = fingerprint_bot("py", &spec("cmd:sh bot.py --depth 3 lib missing.txt"), &external);
        let files: Vec<&str> = f.files.iter().map(|f| f.file.as_str()).collect();
        // `sh` is found on PATH; a folder, a flag, a number and a missing file are not files.
        assert_eq!(files, vec!["sh", "bot.py"]);
        // The SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        assert_eq!(
            f.files[1].sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(f.arena_version, None);

        std::fs::write(dir.path().join("bot.py"), "print('y')\n").unwrap();
        let g = fingerprint_bot("py", &spec("cmd:sh bot.py --depth 3 lib missing.txt"), &external);
        assert_ne!(f, g);
        assert_eq!(f.files[0], g.files[0], "the program did not change");
        let lines = changed_bots(&[f], &[g]);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("bot `py`: `bot.py` changed (sha256 "), "{}", lines[0]);
    }

    #[test]
    fn the_bots_path_finds_the_program_and_a_cg_source_is_hashed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("mybot");
        std::fs::write(&program, "#!/bin/sh\necho 1\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut external = ExternalOptions::default();
        // Not on arena's PATH: found only through the PATH the bot is given.
        assert!(fingerprint_bot("b", &spec("cmd:mybot"), &external).files.is_empty());
        external.env.insert("PATH".into(), dir.path().display().to_string());
        let found = fingerprint_bot("b", &spec("cmd:mybot"), &external);
        assert_eq!(found.files.len(), 1);
        assert_eq!(found.files[0].file, "mybot");

        let source = dir.path().join("x.py");
        std::fs::write(&source, "abc").unwrap();
        let cg = fingerprint_bot("c", &BotSpec::CodinGame(source.clone()), &external);
        assert_eq!(cg.files.len(), 1);
        assert!(cg.files[0].sha256.starts_with("ba7816bf"), "{:?}", cg.files);

        let builtin = fingerprint_bot("r", &spec("random"), &external);
        assert_eq!(builtin.arena_version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
        assert!(builtin.files.is_empty());
    }

    #[test]
    fn changes_are_described_per_bot_and_a_changed_spec_is_not_one() {
        let file = |name: &str, hash: &str| BotFile { file: name.into(), sha256: hash.into() };
        let bot = |spec: &str, version: Option<&str>, files: Vec<BotFile>| BotFingerprint {
            bot: "x".into(),
            spec: spec.into(),
            arena_version: version.map(Into::into),
            files,
        };
        let old = bot("cmd:a b", None, vec![file("a", "11"), file("b", "22")]);
        let new = bot("cmd:a b", None, vec![file("a", "11"), file("c", "33")]);
        let lines = changed_bots(std::slice::from_ref(&old), std::slice::from_ref(&new));
        assert_eq!(lines, vec!["bot `x`: `c` is a file now and was not, `b` is gone".to_string()]);
        let same = std::slice::from_ref(&old);
        assert!(changed_bots(same, same).is_empty());
        let respecced = bot("cmd:a c", None, vec![file("a", "11")]);
        assert!(changed_bots(&[old], &[respecced]).is_empty(), "a config change, not a bot's");
        let upgraded =
            changed_bots(&[bot("r", Some("0.1.0"), vec![])], &[bot("r", Some("0.2.0"), vec![])]);
        assert_eq!(upgraded, vec!["bot `x`: built into arena 0.1.0, now arena 0.2.0".to_string()]);
    }
}
