//! Greedy Spiders through the real binary: matches, replays, the solver command, maps, options.

use crate::support::{Arena, root};

fn map(name: &str) -> String {
    root().join("arenas/maps/spiders").join(name).to_string_lossy().into_owned()
}

#[test]
fn solve_reports_the_papers_examples() {
    let lost =
        Arena::new().args(["solve", "spiders", "--map", &map("paper_lost.txt")]).run().success();
    assert!(lost.stdout().contains("spiders win"), "{}", lost.stdout());
    let won = Arena::new()
        .args(["solve", "spiders", "--path", "F B S B S B F", "--spiders", "greedy"])
        .run()
        .success();
    assert!(won.stdout().contains("defender wins against greedy spiders"), "{}", won.stdout());
    assert!(won.stdout().contains("winning first move: "), "{}", won.stdout());
    let worked = Arena::new()
        .args(["solve", "spiders", "--map", &map("paper_example.txt"), "--spiders", "greedy"])
        .run()
        .success();
    assert!(worked.stdout().contains("spiders win"), "{}", worked.stdout());
}

#[test]
fn the_solvers_winning_move_wins_a_match() {
    // The solver defender beats the exact-search spiders on a map the solver calls won.
    let run = Arena::new()
        .args(["play", "spiders", "--map", &map("small_graph.txt")])
        .args(["--bot", "defender=solver", "--bot", "spiders=adversary", "--replay", "r.jsonl"])
        .run()
        .success();
    assert!(run.stdout().contains("defender wins"), "{}", run.stdout());
    let replay = run.dir.join("r.jsonl");
    Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
}

#[test]
fn paths_beats_greedy_on_the_papers_won_example_and_loses_the_worked_one() {
    let won = Arena::new()
        .args(["play", "spiders", "--map", &map("paper_won.txt")])
        .args(["--bot", "defender=paths", "--bot", "spiders=greedy"])
        .run()
        .success();
    assert!(won.stdout().contains("defender wins"), "{}", won.stdout());
    let lost = Arena::new()
        .args(["play", "spiders", "--bot", "defender=paths", "--bot", "spiders=greedy"])
        .run()
        .success();
    assert!(lost.stdout().contains("spiders wins"), "{}", lost.stdout());
}

#[test]
fn generated_maps_play_with_options() {
    let generated = Arena::new()
        .args([
            "gen",
            "spiders",
            "--seed",
            "5",
            "--kind",
            "graph",
            "--nodes",
            "20",
            "--spiders",
            "3",
        ])
        .run()
        .success();
    assert!(generated.stdout().contains("nodes 20"), "{}", generated.stdout());
    let run = Arena::new()
        .args(["play", "spiders", "--gen", "kind=graph,nodes=20,spiders=3", "--seed", "5"])
        .args(["--bot", "defender=random", "--bot", "spiders=random"])
        .args(["--opt", "all_must_move=true", "--opt", "defender_may_pass=true"])
        .run()
        .success();
    assert!(run.stdout().contains("wins after"), "{}", run.stdout());
    let path = Arena::new().args(["gen", "spiders", "--seed", "2", "--nodes", "9"]).run().success();
    assert!(
        path.stdout().lines().any(|l| !l.starts_with('#') && l.contains('F')),
        "{}",
        path.stdout()
    );
}

#[test]
fn bad_maps_and_options_are_refused_with_their_place() {
    let arena = Arena::new();
    std::fs::write(
        arena.dir().join("bad.txt"),
        "nodes 3\nedge 0 1\nedge 1 3\nspiders 0\nflies 2\n",
    )
    .unwrap();
    let run = arena
        .args(["play", "spiders", "--map", "bad.txt", "--bot", "defender=paths"])
        .args(["--bot", "spiders=greedy"])
        .run()
        .failure();
    assert!(
        run.stderr().contains("bad.txt") && run.stderr().contains("line 3"),
        "{}",
        run.stderr()
    );
    let run = Arena::new()
        .args(["play", "spiders", "--bot", "defender=paths", "--bot", "spiders=greedy"])
        .args(["--opt", "spiders_fly=true"])
        .run()
        .failure();
    assert!(run.stderr().contains("spiders_fly"), "{}", run.stderr());
    let run = Arena::new().args(["solve", "spiders", "--map", "missing.txt"]).run().failure();
    assert!(run.stderr().contains("missing.txt"), "{}", run.stderr());
}

#[test]
fn solve_answers_in_json_and_an_unfinished_search_exits_3() {
    let help = Arena::new().args(["solve", "spiders", "--help"]).run().success();
    for text in ["--map", "--path", "--spiders", "--opt", "--time-ms", "--json"] {
        assert!(help.stdout().contains(text), "{text}: {}", help.stdout());
    }
    let run = Arena::new()
        .args(["solve", "spiders", "--path", "F B S B S B F", "--spiders", "greedy", "--json"])
        .run()
        .success();
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(v["against"], "greedy");
    assert!(v["verdict"]["defender_wins"]["first_move"].is_array(), "{v}");
    // No time at all on a map that takes thousands of positions: the search cannot finish;
    // `unknown`, exit code 3 (as an undecided sprt).
    let arena = Arena::new();
    let generated = Arena::new()
        .args([
            "gen",
            "spiders",
            "--kind",
            "graph",
            "--nodes",
            "52",
            "--spiders",
            "4",
            "--seed",
            "2",
        ])
        .run()
        .success();
    std::fs::write(arena.dir().join("g.txt"), generated.stdout()).unwrap();
    let run = arena.args(["solve", "spiders", "--map", "g.txt", "--time-ms", "0"]).run();
    assert_eq!(run.output.status.code(), Some(3), "{}", run.stdout());
    assert!(run.stdout().starts_with("unknown"), "{}", run.stdout());
    // The aliases of the spiders' play are kept.
    Arena::new()
        .args(["solve", "spiders", "--path", "F S S F", "--spiders", "adversary"])
        .run()
        .success();
}
