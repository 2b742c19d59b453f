use crate::support::{Arena, root};

#[test]
fn play_writes_a_replay_that_verifies() {
    let run = Arena::new()
        .args(["play", "skynet", "--bot", "virus=random", "--bot", "agent=random", "--seed", "3"])
        .args(["--replay", "out.jsonl"])
        .run()
        .success();
    assert!(run.stdout().contains("wins after"), "{}", run.stdout());
    let replay = run.dir.join("out.jsonl");
    let verify =
        Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
    assert!(verify.stdout().contains("verified"), "{}", verify.stdout());
}

#[test]
fn a_malformed_map_names_file_and_line() {
    let arena = Arena::new();
    std::fs::write(arena.dir().join("bad.txt"), "# AGENT_START 0\n3 2 1\n0 1\n1 7\n2\n").unwrap();
    let run = arena
        .args([
            "play",
            "skynet",
            "--map",
            "bad.txt",
            "--bot",
            "virus=random",
            "--bot",
            "agent=random",
        ])
        .run()
        .failure();
    assert!(
        run.stderr().contains("bad.txt") && run.stderr().contains("line 4"),
        "{}",
        run.stderr()
    );
    let _ = root();
}
