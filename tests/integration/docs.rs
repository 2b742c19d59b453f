//! The docs cannot rot: every fenced shell block of README.md and docs/*.md marked runnable (a
//! `<!-- runnable -->` line right before its opening fence, or `<!-- runnable exit=N -->` for a
//! block whose last command answers N) runs with the built binary in a temporary copy of the
//! files the docs use, and must exit as it says. Only quick commands are marked.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::root;

/// A runnable block: where it is, the exit status it promises, its text.
struct Block {
    origin: String,
    exit: i32,
    script: String,
}

fn runnable_blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).expect("a doc");
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(marker) = line.trim().strip_prefix("<!-- runnable") else { continue };
        let marker = marker.trim_end_matches("-->").trim();
        let exit = match marker.strip_prefix("exit=") {
            Some(n) => n.parse().unwrap_or_else(|_| panic!("{name}:{}: exit={n}?", i + 1)),
            None if marker.is_empty() => 0,
            None => panic!("{name}:{}: unknown marker `{marker}`", i + 1),
        };
        assert_eq!(lines.get(i + 1).map(|l| l.trim()), Some("```sh"), "{name}:{}", i + 1);
        let body: Vec<&str> =
            lines[i + 2..].iter().take_while(|l| l.trim() != "```").copied().collect();
        assert!(i + 2 + body.len() < lines.len(), "{name}:{}: unclosed block", i + 1);
        blocks.push(Block { origin: format!("{name}:{}", i + 2), exit, script: body.join("\n") });
    }
    blocks
}

fn docs() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// A copy of what the docs' commands read (arenas, bots, test data and fixtures), so that what
/// they write lands in a folder thrown away afterwards.
fn project_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for folder in ["arenas", "bots", "tests/data", "tests/fixtures"] {
        let to = dir.path().join(folder);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let status = Command::new("cp")
            .args(["-R", root().join(folder).to_str().unwrap(), to.to_str().unwrap()])
            .status()
            .expect("cp runs");
        assert!(status.success(), "copy {folder}");
    }
    dir
}

#[test]
fn every_runnable_block_of_the_docs_runs() {
    let blocks: Vec<Block> = docs().iter().flat_map(|f| runnable_blocks(f)).collect();
    assert!(blocks.len() >= 5, "only {} runnable blocks", blocks.len());
    let binary = env!("CARGO_BIN_EXE_arena");
    for block in blocks {
        let dir = project_copy();
        // `arena` and `cargo run --release --` both stand for the binary under test; `-x`
        // names the failing command.
        let script = format!(
            "set -euo pipefail -x\narena() {{ {binary:?} \"$@\"; }}\n{}\n",
            block.script.replace("cargo run --release --", "arena")
        );
        let out = Command::new("bash")
            .args(["-c", &script])
            .current_dir(dir.path())
            .output()
            .expect("bash runs");
        assert_eq!(
            out.status.code(),
            Some(block.exit),
            "{}: exit {:?}, promised {}\nstderr:\n{}",
            block.origin,
            out.status,
            block.exit,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_file_a_doc_names_exists() {
    // A path in backquotes that starts with one of the project's folders.
    let folders = ["arenas/", "bots/", "docs/", "examples/", "src/", "tests/", "benches/"];
    // The names the docs use for the user's own files.
    let placeholders = [
        "arenas/x.toml",
        "bots/alice",
        "bots/mine.py",
        "bots/virus.java",
        "bots/virus.py",
        "bots/x.cpp",
        "bots/x.py",
    ];
    let mut missing = Vec::new();
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for word in line.split(['`', ' ', '(', ')', '[', ']', ',', '"', '\'', '=', ':']) {
                let word = word.trim_end_matches(['.', ';']);
                let word = word.split('#').next().unwrap_or(word);
                if !folders.iter().any(|f| word.starts_with(f))
                    || word.contains(['*', '<', '{', '$'])
                    || word.ends_with("...")
                    || placeholders.contains(&word)
                {
                    continue;
                }
                if !root().join(word).exists() {
                    missing.push(format!("{}:{}: {word}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files the docs name but the repository lacks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_doc_points_outside_the_repository() {
    // The development folder beside the project's root, which users do not have (spelt in two
    // pieces so this test does not name it itself).
    let outside = ["..", "shared"].join("/");
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(&outside), "{}", file.display());
    }
}
