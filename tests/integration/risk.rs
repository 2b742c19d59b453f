//! Risk through the real binary: matches with built-in bots, replays that verify, path questions
//! on board files, and errors that name the file and line or the option.

use crate::support::{Arena, root};

fn board() -> String {
    root().join("arenas/boards/risk/homework_board3.toml").display().to_string()
}

#[test]
fn a_four_player_match_plays_and_its_replay_verifies() {
    let run = Arena::new()
        .args(["play", "risk", "--opt", "players=4", "--bot", "player1=planner"])
        .args(["--bot", "player2=greedy", "--bot", "player3=random", "--bot", "player4=random"])
        .args(["--seed", "7", "--replay", "game.jsonl"])
        .run()
        .success();
    assert!(run.stdout().contains("wins after"), "{}", run.stdout());
    let replay = run.dir.join("game.jsonl");
    let verify =
        Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
    assert!(verify.stdout().contains("verified"), "{}", verify.stdout());
}

#[test]
fn a_two_player_match_with_options_reports_json() {
    let run = Arena::new()
        .args(["play", "risk", "--opt", "players=2", "--opt", "defence=auto"])
        .args(["--opt", "fortify=adjacent", "--opt", "max_rounds=50"])
        .args(["--bot", "player1=random", "--bot", "player2=planner", "--seed", "3", "--json"])
        .run()
        .success();
    let summary: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(summary["termination"], "normal");
    assert_eq!(summary["scores"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_options_and_unknown_seats_are_named() {
    let run = Arena::new()
        .args(["play", "risk", "--opt", "players=9", "--bot", "player1=random"])
        .run()
        .failure();
    assert!(run.stderr().contains("players"), "{}", run.stderr());
    let run = Arena::new()
        .args(["play", "risk", "--opt", "players=3", "--bot", "player1=random"])
        .args(["--bot", "player4=random"])
        .run()
        .failure();
    assert!(run.stderr().contains("player4"), "{}", run.stderr());
    // A seat named by no --bot gets the game's default bot.
    let run = Arena::new()
        .args(["play", "risk", "--opt", "players=3", "--opt", "max_rounds=5"])
        .args(["--bot", "player1=random"])
        .run()
        .success();
    assert!(run.stdout().contains("player2=greedy player3=greedy"), "{}", run.stdout());
}

#[test]
fn a_malformed_map_names_file_and_line() {
    let arena = Arena::new();
    let text = "[continents]\n0 one 2\n[territories]\n0 | A | one\n1 | B | one\n2 | C | two\n";
    std::fs::write(arena.dir().join("bad.txt"), text).unwrap();
    let run = arena
        .args(["play", "risk", "--map", "bad.txt", "--opt", "players=2"])
        .args(["--bot", "player1=random", "--bot", "player2=random"])
        .run()
        .failure();
    assert!(
        run.stderr().contains("bad.txt") && run.stderr().contains("line 6"),
        "{}",
        run.stderr()
    );
}

#[test]
fn paths_answers_the_homework_questions_by_name_or_id() {
    let run = Arena::new()
        .args(["risk", "paths", "--board", &board(), "--from", "Argentina", "--to", "north africa"])
        .run()
        .success();
    let out = run.stdout();
    assert!(out.contains("(cost 31)"), "{out}");
    assert!(out.contains("can fortify: no") && out.contains("can attack: yes"), "{out}");
    let run = Arena::new()
        .args(["risk", "paths", "--board", &board(), "--from", "3", "--to", "24", "--json"])
        .run()
        .success();
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(v["attack_cost"], 31);
    assert_eq!(v["shortest_path"], serde_json::json!([3, 4, 24]));
    assert_eq!(v["can_attack"], true);
}

#[test]
fn paths_on_a_written_board_and_its_errors() {
    let arena = Arena::new();
    // The homework's board5 (owner i % 5, armies i % 5 + 1): Argentina cannot reach Japan.
    let owners: Vec<String> = (0..42).map(|i| (i % 5).to_string()).collect();
    let armies: Vec<String> = (0..42).map(|i| (i % 5 + 1).to_string()).collect();
    let text = format!(
        "map = \"homework82\"\nowners = [{}]\narmies = [{}]\n",
        owners.join(", "),
        armies.join(", ")
    );
    std::fs::write(arena.dir().join("b5.toml"), text).unwrap();
    let run = arena
        .args(["risk", "paths", "--board", "b5.toml", "--from", "3", "--to", "18", "--json"])
        .run()
        .success();
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(v["cheapest_attack_path"], serde_json::Value::Null);
    assert_eq!(v["can_attack"], false);

    let arena = Arena::new();
    std::fs::write(arena.dir().join("short.toml"), "map = \"classic\"\narmies = [1, 2]\n").unwrap();
    let run = arena
        .args(["risk", "paths", "--board", "short.toml", "--from", "1", "--to", "2"])
        .run()
        .failure();
    assert!(
        run.stderr().contains("short.toml") && run.stderr().contains("armies"),
        "{}",
        run.stderr()
    );
}

#[test]
fn only_games_with_a_solver_or_a_generator_are_offered() {
    let help = Arena::new().args(["solve", "--help"]).run().success();
    assert!(!help.stdout().contains("risk"), "{}", help.stdout());
    assert_eq!(Arena::new().args(["solve", "risk"]).run().failure().output.status.code(), Some(2));
    assert_eq!(Arena::new().args(["gen", "risk"]).run().failure().output.status.code(), Some(2));
    let help = Arena::new().args(["risk", "paths", "--help"]).run().success();
    for flag in ["--board", "--from", "--to", "--json"] {
        assert!(help.stdout().contains(flag), "{flag}: {}", help.stdout());
    }
}

#[test]
fn options_keep_their_aliases_and_refuse_bad_values_by_key() {
    Arena::new()
        .args(["play", "risk", "--opt", "players=2", "--opt", "defense=max", "--opt", "turns=3"])
        .args(["--opt", "fortify=1993", "--bot", "player1=random", "--bot", "player2=random"])
        .run()
        .success();
    let run = Arena::new()
        .args(["play", "risk", "--opt", "fortify=sideways", "--bot", "player1=random"])
        .run()
        .failure();
    assert!(
        run.stderr().contains("fortify") && run.stderr().contains("sideways"),
        "{}",
        run.stderr()
    );
    // A built-in bot is checked against its roles in Risk as in every game.
    let run = Arena::new()
        .args(["play", "risk", "--opt", "players=2", "--bot", "player1=cg-ep2"])
        .run()
        .failure();
    assert!(run.stderr().contains("cg-ep2"), "{}", run.stderr());
}

#[test]
fn a_four_player_table_says_how_it_ranks_and_counts_timeouts() {
    let arena = Arena::new();
    let text = format!(
        "name = \"t\"\ngame = \"risk\"\ngames_per_pairing = 2\nseed = 4\n[options]\nplayers = 4\n\
         [maps]\nfiles = [\"{}\"]\n\
         [[bots]]\nname = \"planner\"\n[[bots]]\nname = \"greedy\"\n\
         [[bots]]\nname = \"random-1\"\nspec = \"random\"\n[[bots]]\nname = \"random-2\"\nspec = \"random\"\n",
        root().join("arenas/maps/risk/classic.txt").display()
    );
    std::fs::write(arena.dir().join("t.toml"), text).unwrap();
    let run = arena.args(["run", "t.toml"]).run().success();
    let table = run.stdout();
    let header = table.lines().find(|l| l.contains("rank")).expect("a header");
    assert!(header.contains("faults") && header.trim_end().ends_with("timeouts"), "{table}");
    assert!(table.contains("With 4 seats: wins are first places"), "{table}");
    assert!(table.contains("full finishing order"), "{table}");
}
