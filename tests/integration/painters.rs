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
    for text in ["--size", "2 to 11", "--blocked"] {
        assert!(help.stdout().contains(text), "{text}: {}", help.stdout());
    }
}
