//! Painters' Duel through the real binary: the solver on the official data, matches, maps.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::{Arena, root};

const OFFICIAL: [&str; 3] = ["sample", "test_set_1", "test_set_2"];

fn data(name: &str) -> String {
    root().join("tests/data/painters").join(name).display().to_string()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("official data")
}

/// `arena solve painters -` with `input` on stdin.
fn solve_stdin(input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["solve", "painters", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena starts");
    child.stdin.take().expect("a stdin").write_all(input.as_bytes()).expect("input written");
    let output = child.wait_with_output().expect("arena ends");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8 answers")
}

#[test]
fn solve_reproduces_every_official_answer_file() {
    for name in OFFICIAL {
        let expected = read(&format!("{name}.ans"));
        let run =
            Arena::new().args(["solve", "painters", &data(&format!("{name}.in"))]).run().success();
        assert_eq!(run.stdout(), expected, "{name} from a file");
        assert_eq!(solve_stdin(&read(&format!("{name}.in"))), expected, "{name} from stdin");
    }
}

#[test]
fn solve_names_the_line_of_a_bad_input() {
    let arena = Arena::new();
    std::fs::write(arena.dir().join("bad.in"), "2\n2 1 1 2 1 0\n2 1 1 9 9 0\n").unwrap();
    let run = arena.args(["solve", "painters", "bad.in"]).run().failure();
    assert!(run.stderr().contains("bad.in") && run.stderr().contains("line 3"), "{}", run.stderr());
}

/// `arena gen painters` writes arena's board file; `arena solve painters` reads it as one case
/// and answers what it answers for the same board as a Kick Start input.
#[test]
fn solve_reads_the_generators_board_file() {
    let arena = Arena::new();
    for seed in ["3", "8"] {
        let generated = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["gen", "painters", "--seed", seed, "--size", "6", "--blocked", "0.15"])
            .output()
            .expect("arena gen runs");
        assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
        let text = String::from_utf8(generated.stdout).expect("utf-8 board");
        assert!(text.starts_with('#') && text.contains("size 6"), "{text}");
        let board = arena::games::painters::map::parse_board_file("gen", &text).unwrap();
        std::fs::write(arena.dir().join("board.txt"), &text).unwrap();
        let run = Arena::new()
            .args(["solve", "painters", arena.dir().join("board.txt").to_str().unwrap()])
            .run()
            .success();
        let kickstart = solve_stdin(&format!("1\n{}", board.kickstart_case()));
        assert!(kickstart.starts_with("Case #1: "), "{kickstart}");
        assert_eq!(run.stdout(), kickstart, "seed {seed}: the board file and the Kick Start case");
        assert_eq!(solve_stdin(&text), kickstart, "seed {seed}: the board file from stdin");
    }
    // A bad board file names its line; an empty one says so.
    std::fs::write(arena.dir().join("bad.txt"), "# a board\nsize 4\nalma 1 1\nberth 4 7\n")
        .unwrap();
    let run = arena.args(["solve", "painters", "bad.txt"]).run().failure();
    let err = run.stderr();
    assert!(err.contains("bad.txt") && err.contains("line 4") && err.contains("`berth`"), "{err}");
    let arena = Arena::new();
    std::fs::write(arena.dir().join("empty.txt"), "# nothing but a comment\n").unwrap();
    let run = arena.args(["solve", "painters", "empty.txt"]).run().failure();
    assert!(
        run.stderr().contains("empty.txt") && run.stderr().contains("empty"),
        "{}",
        run.stderr()
    );
}

/// Alma's score in the `scores: alma=X berthe=Y` line of `arena play`.
fn alma_score(stdout: &str) -> i32 {
    let line = stdout.lines().find(|l| l.starts_with("scores:")).expect("a scores line");
    let alma = line.split_whitespace().find_map(|w| w.strip_prefix("alma=")).expect("alma's score");
    alma.parse::<f64>().expect("a number") as i32
}

#[test]
fn perfect_alma_secures_the_solved_value_against_greedy() {
    let run = Arena::new()
        .args(["play", "painters", "--bot", "alma=perfect", "--bot", "berthe=greedy"])
        .args(["--replay", "out.jsonl"])
        .run()
        .success();
    // The default board is Test Set 2's first case.
    let value: i32 = read("test_set_2.ans")
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("Case #1: "))
        .and_then(|v| v.parse().ok())
        .expect("case 1's answer");
    let score = alma_score(&run.stdout());
    assert!(score >= value, "perfect Alma scored {score} < {value}:\n{}", run.stdout());
    let replay = run.dir.join("out.jsonl");
    let verify =
        Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
    assert!(verify.stdout().contains("verified"), "{}", verify.stdout());
}

#[test]
fn generated_and_kickstart_boards_play() {
    let arena = Arena::new();
    let generated = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["gen", "painters", "--seed", "4", "--size", "7", "--blocked", "0.1"])
        .output()
        .expect("arena gen runs");
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    std::fs::write(arena.dir().join("board.txt"), &generated.stdout).unwrap();
    std::fs::write(arena.dir().join("cases.in"), read("test_set_2.in")).unwrap();
    let dir = arena.dir().to_path_buf();
    let run = arena
        .args(["play", "painters", "--map", "board.txt", "--bot", "alma=search"])
        .args(["--bot", "berthe=random", "--seed", "9"])
        .run()
        .success();
    assert!(run.stdout().contains("neither painter can move"), "{}", run.stdout());
    let run = Arena::new()
        .args(["play", "painters", "--map", dir.join("cases.in").to_str().unwrap()])
        .args(["--opt", "case=7", "--bot", "alma=greedy", "--bot", "berthe=perfect"])
        .run()
        .success();
    assert!(run.stdout().contains("scores:"), "{}", run.stdout());
}

#[test]
fn a_malformed_board_names_file_and_line() {
    let arena = Arena::new();
    std::fs::write(arena.dir().join("bad.txt"), "size 4\nalma 1 1\nberthe 4 7\nblocked 2 4\n")
        .unwrap();
    let run = arena
        .args(["play", "painters", "--map", "bad.txt", "--bot", "alma=random"])
        .args(["--bot", "berthe=random"])
        .run()
        .failure();
    assert!(
        run.stderr().contains("bad.txt") && run.stderr().contains("line 4"),
        "{}",
        run.stderr()
    );
}

#[test]
fn solve_describes_its_arguments_and_answers_in_json() {
    let help = Arena::new().args(["solve", "painters", "--help"]).run().success();
    for text in ["--stats", "--json", "[FILE]"] {
        assert!(help.stdout().contains(text), "{text}: {}", help.stdout());
    }
    let run =
        Arena::new().args(["solve", "painters", &data("sample.in"), "--json"]).run().success();
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    let values: Vec<i64> =
        v["cases"].as_array().unwrap().iter().map(|c| c["value"].as_i64().unwrap()).collect();
    assert_eq!(values, vec![2, 0]);
    let help = Arena::new().args(["gen", "painters", "--help"]).run().success();
    for text in ["--size", "2 to 13", "--blocked"] {
        assert!(help.stdout().contains(text), "{text}: {}", help.stdout());
    }
}

/// `arena gen painters --size S` for a side a `u128` cannot hold.
fn generate(size: u32, blocked: &str, seed: u32) -> String {
    let generated = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["gen", "painters", "--seed", &seed.to_string(), "--size", &size.to_string()])
        .args(["--blocked", blocked])
        .output()
        .expect("arena gen runs");
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    String::from_utf8(generated.stdout).expect("utf-8 board")
}

/// Sides 12 and 13 (144 and 169 rooms, past a `u128`) through the binary: generated, solved
/// from the board file and as a Kick Start case alike, and played by every bot; side 14 is
/// refused naming the setting, the file and the line.
#[test]
fn sides_12_and_13_generate_solve_and_play() {
    let arena = Arena::new();
    let mut cases = Vec::new();
    for (size, seed) in [(12, 1), (12, 2), (13, 3)] {
        // Most rooms under construction: small regions, solved at once.
        let text = generate(size, "0.55", seed);
        assert!(text.contains(&format!("size {size}")), "{text}");
        let board = arena::games::painters::map::parse_board_file("gen", &text).unwrap();
        assert_eq!(board.size(), size);
        let file = arena.dir().join(format!("board{seed}.txt"));
        std::fs::write(&file, &text).unwrap();
        let run = Arena::new().args(["solve", "painters", file.to_str().unwrap()]).run().success();
        let kickstart = solve_stdin(&format!("1\n{}", board.kickstart_case()));
        assert!(kickstart.starts_with("Case #1: "), "{kickstart}");
        assert_eq!(run.stdout(), kickstart, "side {size}: the board file and the Kick Start case");
        cases.push(board.kickstart_case());
    }
    // The three cases in one Kick Start input, next to a small one: one answer each, in order.
    let small = "2 1 1 2 1 0\n";
    let input = format!("4\n{small}{}", cases.concat());
    let answers = solve_stdin(&input);
    assert_eq!(answers.lines().count(), 4, "{answers}");
    assert!(answers.starts_with("Case #1: 2\n"), "{answers}");

    // A match on a side-12 board with each bot on each side.
    let dir = arena.dir().to_path_buf();
    let board = dir.join("board1.txt");
    for (alma, berthe) in [("perfect", "search"), ("greedy", "perfect"), ("search", "random")] {
        let run = Arena::new()
            .args(["play", "painters", "--map", board.to_str().unwrap()])
            .args(["--bot", &format!("alma={alma}"), "--bot", &format!("berthe={berthe}")])
            .args(["--seed", "5"])
            .run()
            .success();
        assert!(run.stdout().contains("neither painter can move"), "{}", run.stdout());
    }
    // A replay of a side-12 match verifies, and `arena analyze` rates every decision with the
    // wide solver (regions this small are settled at once: no `unknown`).
    let run = Arena::new()
        .args(["play", "painters", "--map", board.to_str().unwrap(), "--seed", "3"])
        .args(["--bot", "alma=perfect", "--bot", "berthe=greedy", "--replay", "side12.jsonl"])
        .run()
        .success();
    let replay = run.dir.join("side12.jsonl");
    let verify =
        Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
    assert!(verify.stdout().contains("verified"), "{}", verify.stdout());
    let analysed = Arena::new().args(["analyze", replay.to_str().unwrap()]).run().success();
    let out = analysed.stdout();
    assert!(out.contains("alma (perfect)") && out.contains(" 0 unknown"), "{out}");
    assert!(!out.contains(" 1 unknown") && out.contains("blunder"), "{out}");

    // Beyond side 13: the generator names its setting, the readers the file and line.
    let refused = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["gen", "painters", "--size", "14"])
        .output()
        .expect("arena gen runs");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && err.contains("size"), "{err}");
    std::fs::write(dir.join("big.in"), "1\n14 1 1 2 1 0\n").unwrap();
    let run = Arena::new().args(["solve", "painters", dir.join("big.in").to_str().unwrap()]);
    let run = run.run().failure();
    assert!(run.stderr().contains("big.in") && run.stderr().contains("line 2"), "{}", run.stderr());
}
