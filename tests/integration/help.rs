//! Help, completions and manual pages: generated from the parser's own definitions, so every
//! command a user can type is described, and a typo exits 2.

use crate::support::Arena;

#[test]
fn completions_are_printed_for_every_supported_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = Arena::new().args(["completions", shell]).run().success();
        let script = run.stdout();
        assert!(script.contains("arena"), "{shell}: {script}");
        // Every subcommand is completed, so the script is built from the real parser.
        for command in ["play", "run", "sprt", "merge", "replay", "solve", "gen", "bots"] {
            assert!(script.contains(command), "{shell} completion lacks `{command}`");
        }
    }
    let bad = Arena::new().args(["completions", "tcsh"]).run();
    assert_eq!(bad.output.status.code(), Some(2), "{}", bad.stderr());
}

#[test]
fn the_manual_page_describes_every_command() {
    let run = Arena::new().args(["man"]).run().success();
    let page = run.stdout();
    assert!(page.starts_with(".ie") || page.contains(".TH arena 1"), "{page}");
    for command in ["play", "run", "sprt", "merge", "replay", "solve", "gen", "bots"] {
        assert!(page.contains(command), "the page lacks `{command}`");
    }
    let arena = Arena::new();
    let run = arena.args(["man", "--dir", "pages"]).run().success();
    for page in ["arena.1", "arena-play.1", "arena-run.1", "arena-sprt.1"] {
        let text = std::fs::read_to_string(run.dir.join("pages").join(page)).unwrap();
        assert!(text.contains(".TH"), "{page} is not a manual page");
    }
}

#[test]
fn help_exits_zero_and_a_typo_exits_two() {
    let run = Arena::new().args(["--help"]).run();
    assert_eq!(run.output.status.code(), Some(0));
    assert!(run.stdout().contains("Usage"), "{}", run.stdout());
    let run = Arena::new().args(["plya", "skynet"]).run();
    assert_eq!(run.output.status.code(), Some(2));
    assert!(run.stderr().contains("plya"), "{}", run.stderr());
}
