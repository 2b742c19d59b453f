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
    assert_eq!(verify.output.status.code(), Some(0));
}

#[test]
fn play_strict_fails_on_a_bot_fault_after_writing_everything() {
    let play = |virus: &str, strict: bool| {
        let mut args = vec!["play", "skynet", "--bot", virus, "--bot", "agent=random"];
        args.extend(["--seed", "2", "--replay", "r.jsonl", "--json"]);
        if strict {
            args.push("--strict");
        }
        Arena::new().args(args).run()
    };
    for strict in [false, true] {
        let fine = play("virus=random", strict);
        assert_eq!(fine.output.status.code(), Some(0), "{}", fine.stderr());
    }
    let lenient = play("virus=cmd:false", false);
    assert_eq!(lenient.output.status.code(), Some(0), "{}", lenient.stderr());
    let strict = play("virus=cmd:false", true);
    assert_eq!(strict.output.status.code(), Some(5), "{}", strict.stderr());
    // The result and the replay are written all the same.
    let result: serde_json::Value = serde_json::from_str(&strict.stdout()).expect("JSON");
    assert_eq!(result["culprit_role"], "virus");
    assert_ne!(result["termination"], "normal");
    let replay = strict.dir.join("r.jsonl");
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

#[test]
fn a_tampered_replay_does_not_verify() {
    let run = Arena::new()
        .args(["play", "skynet", "--bot", "virus=random", "--bot", "agent=random", "--seed", "5"])
        .args(["--replay", "out.jsonl"])
        .run()
        .success();
    let path = run.dir.join("out.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();

    // Another winner in the result line.
    let flipped = text
        .replace("\"winner\":\"virus\"", "\"winner\":\"agent\"")
        .replace("\"scores\":[1.0,0.0],\"ranks\":[1,2]", "\"scores\":[0.0,1.0],\"ranks\":[2,1]");
    // The agent's first step sent somewhere it cannot go.
    let moved =
        text.replacen(&format!("\"action\":\"{}\"", action_of(lines[2])), "\"action\":\"11\"", 1);
    // A truncated replay.
    let truncated = lines[..lines.len() - 1].join("\n");
    // A replay the rules contradict fails the check (1); one that is not a whole replay is bad
    // input (2).
    for (name, bad, code) in
        [("flipped", flipped, 1), ("moved", moved, 1), ("truncated", truncated, 2)]
    {
        assert_ne!(bad, text, "{name} should change the replay");
        let bad_path = run.dir.join(format!("{name}.jsonl"));
        std::fs::write(&bad_path, bad).unwrap();
        let verify =
            Arena::new().args(["replay", "--verify", bad_path.to_str().unwrap()]).run().failure();
        assert!(verify.stderr().contains(&format!("{name}.jsonl")), "{}", verify.stderr());
        assert_eq!(verify.output.status.code(), Some(code), "{name}: {}", verify.stderr());
    }
}

#[test]
fn a_replay_with_a_false_winner_or_turn_count_does_not_verify() {
    let run = Arena::new()
        .args(["play", "skynet", "--bot", "virus=random", "--bot", "agent=random", "--seed", "5"])
        .args(["--replay", "out.jsonl"])
        .run()
        .success();
    let text = std::fs::read_to_string(run.dir.join("out.jsonl")).unwrap();
    let (head, last) = text.trim_end().rsplit_once('\n').unwrap();
    let result: serde_json::Value = serde_json::from_str(last).unwrap();
    let tampered = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut r = result.clone();
        edit(&mut r["result"]);
        format!("{head}\n{r}\n")
    };
    // Scores and ranks left as the rules give them: only the summary's own fields lie.
    let winner = result["result"]["winner"].as_str().map(str::to_string);
    let liar = if winner.as_deref() == Some("virus") { "agent" } else { "virus" };
    let false_winner = tampered(&|r| r["winner"] = serde_json::json!(liar));
    let turns = result["result"]["turns"].as_u64().unwrap();
    let false_turns = tampered(&|r| r["turns"] = serde_json::json!(turns + 7));
    for (name, bad) in [("winner", false_winner), ("turns", false_turns)] {
        let bad_path = run.dir.join(format!("{name}.jsonl"));
        std::fs::write(&bad_path, bad).unwrap();
        let verify =
            Arena::new().args(["replay", "--verify", bad_path.to_str().unwrap()]).run().failure();
        assert!(verify.stderr().contains(&format!("{name}.jsonl")), "{}", verify.stderr());
        assert_eq!(verify.output.status.code(), Some(1), "{name}: {}", verify.stderr());
    }
}

fn action_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["action"].as_str().unwrap().to_string()
}

#[test]
fn the_same_seed_gives_the_same_replay() {
    let replay = |seed: &str| {
        let run = Arena::new()
            .args(["play", "skynet", "--bot", "virus=random", "--bot", "agent=random"])
            .args(["--seed", seed, "--replay", "r.jsonl"])
            .run()
            .success();
        let text = std::fs::read_to_string(run.dir.join("r.jsonl")).unwrap();
        // Timings differ from run to run; everything else must not.
        text.lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                if let Some(o) = v.as_object_mut() {
                    o.remove("micros");
                    o.remove("cpu_micros");
                }
                if let Some(r) = v.get_mut("result").and_then(|r| r.as_object_mut()) {
                    r.remove("duration_ms");
                    r.remove("max_turn_micros");
                    r.remove("max_turn_cpu_micros");
                }
                v.to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(replay("11"), replay("11"));
    assert_ne!(replay("11"), replay("12"));
}

#[test]
fn a_reader_that_goes_away_is_no_error() {
    // `arena gen ... | head -1`: the reader is gone before arena writes (here, before it starts).
    let (read, write) = nix::unistd::pipe().expect("a pipe");
    drop(read);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["gen", "skynet", "--nodes", "300"])
        .stdout(std::process::Stdio::from(write))
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("arena runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn replays_of_an_earlier_version_still_print_and_verify() {
    let dir = root().join("tests/data/replays/earlier");
    for (file, first_line) in [
        ("skynet_ep2.jsonl", "skynet ep2 on "),
        ("skynet_fault.jsonl", "skynet ep2 on ep2_03.txt (seed 2)"),
        ("painters.jsonl", "painters "),
        ("spiders.jsonl", "spiders "),
    ] {
        let path = dir.join(file);
        let path = path.to_str().unwrap();
        let verify = Arena::new().args(["replay", "--verify", path]).run().success();
        assert!(verify.stdout().contains(": verified, "), "{}", verify.stdout());
        let shown = Arena::new().args(["replay", path]).run().success();
        assert!(shown.stdout().starts_with(first_line), "{file}: {}", shown.stdout());
    }
    let fault = Arena::new()
        .args(["replay", dir.join("skynet_fault.jsonl").to_str().unwrap()])
        .run()
        .success();
    assert!(
        fault.stdout().ends_with("agent (crash): the bot crashed: exit code 1\n"),
        "{}",
        fault.stdout()
    );
}

#[test]
fn bots_lists_every_game_as_text_or_one_json_document() {
    let run = Arena::new().args(["bots", "--json"]).run().success();
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    let games: Vec<&str> =
        v["games"].as_array().unwrap().iter().map(|g| g["game"].as_str().unwrap()).collect();
    assert_eq!(games, vec!["skynet", "painters", "spiders", "risk"]);
    for g in v["games"].as_array().unwrap() {
        let bots = g["bots"].as_array().unwrap();
        assert!(bots.iter().any(|b| b["name"] == "random"), "{g}");
        assert!(bots.iter().all(|b| !b["roles"].as_array().unwrap().is_empty()), "{g}");
    }
    let text = Arena::new().args(["bots"]).run().success();
    assert!(text.stdout().starts_with("skynet (ep2, ep1): "), "{}", text.stdout());
}
