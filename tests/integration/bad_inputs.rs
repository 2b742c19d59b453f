//! The golden corpus of bad inputs (`tests/data/bad/`): every case of `cases.toml` runs the real
//! binary on a copy of the folder and must exit with its code and print exactly its message.
//! Every message is also held to the project's standard: one line, starting `error: `.
//!
//! After a deliberate change of a message, `ARENA_BLESS=1 cargo test --test integration
//! bad_inputs` rewrites `cases.toml` with what the binary prints; review the diff.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::support::root;

#[derive(Debug, Deserialize, Serialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize, Serialize)]
struct Case {
    /// What the input is, in a few words.
    name: String,
    /// The arguments of `arena`, run from a copy of `tests/data/bad/`.
    args: Vec<String>,
    /// The expected exit code.
    exit: i32,
    /// The expected standard error, exactly, without its final newline.
    stderr: String,
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("the corpus") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

#[test]
fn every_bad_input_gets_its_exact_one_line_message_and_exit_code() {
    let corpus = root().join("tests/data/bad");
    let index = corpus.join("cases.toml");
    let mut cases: Cases =
        toml::from_str(&std::fs::read_to_string(&index).expect("cases.toml")).expect("the index");
    assert!(cases.case.len() >= 328, "only {} cases", cases.case.len());
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_folder(&corpus, dir.path());
    let bless = std::env::var_os("ARENA_BLESS").is_some();
    let mut failures = Vec::new();
    for case in &mut cases.case {
        let output = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(&case.args)
            .current_dir(dir.path())
            .output()
            .expect("arena runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let code = output.status.code().unwrap_or(-1);
        let message = stderr.strip_suffix('\n').unwrap_or(&stderr).to_string();
        if message.contains('\n') || !message.starts_with("error: ") {
            failures.push(format!("{}: not one `error: ` line:\n{stderr}", case.name));
        }
        if bless {
            (case.exit, case.stderr) = (code, message);
        } else if (code, &message) != (case.exit, &case.stderr) {
            failures.push(format!(
                "{} ({:?}):\n  expected exit {}: {}\n  got exit {code}: {message}",
                case.name, case.args, case.exit, case.stderr
            ));
        }
    }
    if bless {
        std::fs::write(&index, INDEX_HEADER.to_string() + &toml::to_string(&cases).expect("TOML"))
            .expect("cases.toml written");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.case.len(),
        failures.join("\n")
    );
}

const INDEX_HEADER: &str = "\
# The golden corpus of bad inputs: each case runs `arena ARGS...` from a copy of this folder and
# expects exactly this exit code and this one-line message on stderr (tests/integration/bad_inputs.rs).
# Regenerate after a deliberate change: ARENA_BLESS=1 cargo test --test integration bad_inputs

";
