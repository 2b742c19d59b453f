//! Skynet end to end through the real binary: the solver against the CodinGame agent on every
//! shipped map, the exact solver, the generator's round trip, both map formats, map errors.

use crate::support::{Arena, root};

fn shipped_maps() -> Vec<std::path::PathBuf> {
    let mut maps: Vec<_> = std::fs::read_dir(root().join("arenas/maps/skynet"))
        .expect("the shipped maps")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    maps.sort();
    assert!(maps.len() >= 9, "{maps:?}");
    maps
}

#[test]
fn the_solver_beats_cg_ep2_on_every_shipped_map() {
    for map in shipped_maps() {
        let map = map.to_str().unwrap().to_string();
        let run = Arena::new()
            .args(["play", "skynet", "--variant", "ep2", "--map", &map])
            .args(["--bot", "virus=solver", "--bot", "agent=cg-ep2", "--seed", "7"])
            .args(["--replay", "out.jsonl"])
            .run()
            .success();
        assert!(run.stdout().contains("virus wins"), "{map}: {}", run.stdout());
        let replay = run.dir.join("out.jsonl");
        Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
    }
}

#[test]
fn solve_answers_every_shipped_map() {
    for map in shipped_maps() {
        let map = map.to_str().unwrap().to_string();
        let run = Arena::new().args(["solve", "skynet", "--map", &map]).run().success();
        assert!(
            run.stdout().contains("the virus forces a win; winning first cut:"),
            "{}",
            run.stdout()
        );
    }
}

#[test]
fn solve_finds_a_map_the_agent_wins() {
    let arena = Arena::new();
    // Nodes 1 and 4 both touch both gateways, and the agent stands next to both: one cut
    // defuses one of them, the agent steps onto the other.
    let map = "# AGENT_START 0\n5 6 2\n0 1\n0 4\n1 2\n1 3\n4 2\n4 3\n2\n3\n";
    std::fs::write(arena.dir().join("lost.txt"), map).unwrap();
    let run =
        arena.args(["solve", "skynet", "--map", "lost.txt", "--variant", "ep2"]).run().success();
    assert!(run.stdout().contains("the agent wins"), "{}", run.stdout());
}

#[test]
fn solve_refuses_episode_1_and_unknown_flags() {
    let run = Arena::new().args(["solve", "skynet", "--variant", "ep1"]).run().failure();
    assert!(run.stderr().contains("Episode 2 only"), "{}", run.stderr());
    Arena::new().args(["solve", "skynet", "--colour", "red"]).run().failure();
}

#[test]
fn a_generated_map_prints_and_plays_back() {
    let run = Arena::new().args(["gen", "skynet", "--nodes", "50", "--seed", "3"]).run().success();
    let text = run.stdout();
    assert!(text.contains("# AGENT_START"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("50 ")), "{text}");
    let again =
        Arena::new().args(["gen", "skynet", "--nodes", "50", "--seed", "3"]).run().success();
    assert_eq!(again.stdout(), text, "the same seed gives the same map");

    let arena = Arena::new();
    std::fs::write(arena.dir().join("g.txt"), &text).unwrap();
    let run = arena
        .args([
            "play",
            "skynet",
            "--map",
            "g.txt",
            "--bot",
            "virus=solver",
            "--bot",
            "agent=cg-ep2",
        ])
        .run()
        .success();
    assert!(run.stdout().contains("wins after"), "{}", run.stdout());
    assert!(run.stderr().is_empty(), "a generated map is within the limits: {}", run.stderr());
}

#[test]
fn play_on_a_generated_map() {
    let run = Arena::new()
        .args(["play", "skynet", "--gen", "nodes=60,gateways=3", "--seed", "5"])
        .args(["--bot", "virus=greedy", "--bot", "agent=cg-ep2", "--json"])
        .run()
        .success();
    assert!(run.stdout().contains("\"winner\""), "{}", run.stdout());
}

#[test]
fn the_locked_format_plays_like_its_protocol_copy() {
    let play = |map: &str| {
        Arena::new()
            .args(["play", "skynet", "--map", root().join(map).to_str().unwrap()])
            .args(["--bot", "virus=greedy", "--bot", "agent=cg-ep2", "--json"])
            .run()
            .success()
            .stdout()
    };
    let locked = play("arenas/maps/skynet/ep2_01_from_forum_with_coords.cg.txt");
    let protocol = play("arenas/maps/skynet/ep2_01.txt");
    let turns =
        |s: &str| s.split("\"turns\":").nth(1).unwrap().split(',').next().unwrap().to_string();
    assert_eq!(turns(&locked), turns(&protocol));
    assert!(locked.contains("\"winner\":\"virus\""), "{locked}");
}

#[test]
fn a_bad_map_names_file_and_line() {
    let arena = Arena::new();
    std::fs::write(arena.dir().join("loop.txt"), "# AGENT_START 0\n3 2 1\n0 1\n2 2\n2\n").unwrap();
    let run = arena
        .args([
            "play",
            "skynet",
            "--map",
            "loop.txt",
            "--bot",
            "virus=greedy",
            "--bot",
            "agent=cg-ep2",
        ])
        .run()
        .failure();
    assert!(
        run.stderr().contains("loop.txt") && run.stderr().contains("line 4"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("self-loop"), "{}", run.stderr());
}

#[test]
fn duplicate_links_and_crowded_maps_play_with_warnings() {
    let gamma = root().join("arenas/maps/skynet/extra_teaching_gamma.txt");
    let run = Arena::new()
        .args(["play", "skynet", "--map", gamma.to_str().unwrap()])
        .args(["--bot", "virus=solver", "--bot", "agent=cg-ep2"])
        .run()
        .success();
    assert!(run.stderr().contains("11 duplicate link(s) merged"), "{}", run.stderr());
    let crowded = root().join("arenas/maps/skynet/ep2_03.txt");
    let run = Arena::new()
        .args(["play", "skynet", "--variant", "ep1", "--map", crowded.to_str().unwrap()])
        .args(["--bot", "virus=solver", "--bot", "agent=cg-ep1"])
        .run()
        .success();
    assert!(run.stderr().contains("more than 1 gateway"), "{}", run.stderr());
}

#[test]
fn bots_lists_every_skynet_bot() {
    let run = Arena::new().args(["bots"]).run().success();
    for name in ["random", "greedy", "priority", "solver", "cg-ep1", "cg-ep2", "perfect"] {
        assert!(run.stdout().contains(&format!("  {name} ")), "{name}: {}", run.stdout());
    }
}

#[test]
fn the_tiebreak_option_is_checked() {
    Arena::new()
        .args(["play", "skynet", "--opt", "tiebreak=first"])
        .args(["--bot", "virus=solver", "--bot", "agent=cg-ep2"])
        .run()
        .success();
    let run = Arena::new()
        .args(["play", "skynet", "--opt", "tiebreak=middle"])
        .args(["--bot", "virus=solver", "--bot", "agent=cg-ep2"])
        .run()
        .failure();
    assert!(run.stderr().contains("tiebreak"), "{}", run.stderr());
}

#[test]
fn solve_and_gen_describe_their_arguments_and_answer_in_json() {
    let help = Arena::new().args(["solve", "skynet", "--help"]).run().success();
    for flag in ["--map", "--variant", "--json"] {
        assert!(help.stdout().contains(flag), "{flag}: {}", help.stdout());
    }
    // The generator's settings are listed with their ranges and defaults.
    let help = Arena::new().args(["gen", "skynet", "--help"]).run().success();
    for text in ["--nodes", "2 to 2000", "[default: 50]", "--gateways", "--seed", "--variant"] {
        assert!(help.stdout().contains(text), "{text}: {}", help.stdout());
    }
    let map = root().join("arenas/maps/skynet/ep2_custom_forum_12nodes.txt");
    let run = Arena::new()
        .args(["solve", "skynet", "--map", map.to_str().unwrap(), "--json"])
        .run()
        .success();
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(v["answer"]["virus_wins"]["first_cut"], serde_json::json!([2, 6]));
    assert!(v["positions"].as_u64().unwrap() > 0);
    // A setting out of range is refused with its name, as a usage error.
    let run = Arena::new().args(["gen", "skynet", "--nodes", "1"]).run().failure();
    assert_eq!(run.output.status.code(), Some(2));
    assert!(run.stderr().contains("nodes"), "{}", run.stderr());
}

fn separating_maps(folder: &str) -> Vec<std::path::PathBuf> {
    let mut maps: Vec<_> = std::fs::read_dir(root().join("arenas/maps/skynet").join(folder))
        .expect("the separating maps")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    maps.sort();
    maps
}

/// Plays `virus` against `agent` on `map` and says whether the virus won.
fn virus_wins(map: &std::path::Path, virus: &str, agent: &str) -> bool {
    let run = Arena::new()
        .args(["play", "skynet", "--variant", "ep2", "--map", map.to_str().unwrap()])
        .args(["--bot", &format!("virus={virus}"), "--bot", &format!("agent={agent}")])
        .args(["--seed", "7"])
        .run()
        .success();
    let out = run.stdout();
    assert!(out.contains("virus wins") || out.contains("agent wins"), "{out}");
    out.contains("virus wins")
}

/// Through the binary, on three maps of each folder (the small trap-family maps and those of
/// CodinGame's sizes): the `solver` bot wins, the named bots lose, `arena solve` agrees.
#[test]
fn shipped_separating_maps_are_won_by_the_solver_and_lost_by_the_named_bots() {
    let folders = ["separating", "separating-large"];
    let maps: Vec<_> = folders.iter().map(|f| separating_maps(f)).collect();
    assert!(maps.iter().all(|m| m.len() == 50), "{maps:?}");
    for map in maps.iter().flat_map(|m| [&m[0], &m[24], &m[49]]) {
        let text = std::fs::read_to_string(map).unwrap();
        // The bots the map was found against, and their opponent, from its header.
        let named: Vec<(&str, &str)> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# SEPARATING: "))
            .filter_map(|l| l.split_once(" (virus) vs "))
            .map(|(bot, rest)| (bot, rest.split(':').next().unwrap()))
            .collect();
        assert!(!named.is_empty(), "{}: no named bots in\n{text}", map.display());
        let opponent = named[0].1;
        assert!(virus_wins(map, "solver", opponent), "{}: the solver lost", map.display());
        for (bot, agent) in named {
            assert!(!virus_wins(map, bot, agent), "{}: {bot} won against {agent}", map.display());
        }
        let solve = Arena::new().args(["solve", "skynet", "--map", map.to_str().unwrap()]).run();
        assert!(solve.success().stdout().contains("the virus forces a win"), "{}", map.display());
    }
}

#[test]
fn separating_refuses_what_it_cannot_search() {
    let run =
        Arena::new().args(["gen", "skynet", "--variant", "ep1", "--separating"]).run().failure();
    assert!(run.stderr().contains("Episode 2"), "{}", run.stderr());
    let run =
        Arena::new().args(["gen", "skynet", "--separating", "--against", "cg-ep2"]).run().failure();
    assert!(run.stderr().contains("does not play virus"), "{}", run.stderr());
    let run = Arena::new().args(["gen", "skynet", "--separating", "--count", "3"]).run().failure();
    assert!(run.stderr().contains("--out"), "{}", run.stderr());
}

/// `repeats_cut.sh` on the statement's example map (both episodes show it): its first cut `1 3`
/// is legal, its second names the same link again.
fn play_repeated_cut(variant: &str, option: &[&str]) -> serde_json::Value {
    let map = root().join("arenas/maps/skynet/ep1_statement_example.txt");
    let bot = root().join("tests/fixtures/bots/repeats_cut.sh");
    let agent = format!("agent=cg-{variant}");
    let run = Arena::new()
        .args(["play", "skynet", "--variant", variant, "--json", "--map", map.to_str().unwrap()])
        .args(["--bot", &format!("virus=cmd:sh {}", bot.display()), "--bot", &agent])
        .args(option)
        .run()
        .success();
    serde_json::from_str(run.stdout().trim()).expect("a JSON summary")
}

#[test]
fn a_repeated_cut_passes_by_default_in_episode_1_and_loses_in_episode_2() {
    let lost = |summary: serde_json::Value| {
        assert_eq!(summary["termination"], "illegal", "{summary}");
        assert_eq!(summary["culprit_role"], "virus", "{summary}");
    };
    let passed = |summary: serde_json::Value| {
        // The pass lets the agent step from 2 onto the gateway 3: a normal end, the agent wins.
        assert_eq!(summary["termination"], "normal", "{summary}");
        // Four actions: cut, step, pass, step.
        assert_eq!(summary["turns"], 4, "{summary}");
        assert!(summary.to_string().contains("reached gateway 3"), "{summary}");
    };
    passed(play_repeated_cut("ep1", &[]));
    passed(play_repeated_cut("ep1", &["--opt", "invalid_cut=ignore"]));
    lost(play_repeated_cut("ep1", &["--opt", "invalid_cut=lose"]));
    lost(play_repeated_cut("ep2", &[]));
    lost(play_repeated_cut("ep2", &["--opt", "invalid_cut=lose"]));
    passed(play_repeated_cut("ep2", &["--opt", "invalid_cut=ignore"]));
    let run = Arena::new().args(["play", "skynet", "--opt", "invalid_cut=maybe"]).run().failure();
    assert!(run.stderr().contains("invalid_cut"), "{}", run.stderr());
}

#[test]
fn invalid_cut_is_an_arena_file_option() {
    let arena = Arena::new();
    let maps = root().join("arenas/maps/skynet");
    let bot = root().join("tests/fixtures/bots/repeats_cut.sh");
    let text = format!(
        "name = \"t\"\ngame = \"skynet\"\nvariant = \"ep1\"\ngames_per_pairing = 1\n\
         [options]\ninvalid_cut = \"lose\"\n\
         [maps]\nfiles = [\"{}/ep1_statement_example.txt\"]\n\
         [[bots]]\nname = \"repeater\"\nspec = \"cmd:sh {}\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep1\"\nroles = [\"agent\"]\n",
        maps.display(),
        bot.display()
    );
    std::fs::write(arena.dir().join("t.toml"), text).unwrap();
    let run = arena.args(["run", "t.toml", "-q"]).run().success();
    let csv = std::fs::read_to_string(run.dir.join("results/t/matches.csv")).unwrap();
    // Episode 1 would let the repeated cut pass; the file's option makes it a loss.
    assert!(csv.contains("illegal") && !csv.contains("normal"), "{csv}");
}

/// A tournament on maps of the dense-gateway family (`arena gen skynet --gateway-links K
/// --doubles D`, the exact solver's hard cases) with `analysis = true`: every decision is rated,
/// none `unknown` (the budget is 1,000,000 positions a decision), the solver virus never
/// blunders and greedy throws a won map away.
#[test]
fn analysis_rates_every_decision_on_dense_gateway_maps() {
    let arena = Arena::new();
    // (nodes, gateways, gateway links, doubles, seed): greedy loses the first, won for the virus.
    let maps = [(300, 20, 120, 30, 2), (300, 20, 200, 60, 7), (200, 15, 120, 40, 1019)];
    for (nodes, gateways, links, doubles, seed) in maps {
        let run = Arena::new()
            .args(["gen", "skynet", "--nodes", &nodes.to_string()])
            .args(["--gateways", &gateways.to_string(), "--gateway-links", &links.to_string()])
            .args(["--doubles", &doubles.to_string(), "--seed", &seed.to_string()])
            .run()
            .success();
        let name = format!("dense-{nodes}-{links}-{seed}.txt");
        std::fs::write(arena.dir().join(name), run.stdout()).unwrap();
    }
    let text = "name = \"dense\"\ngame = \"skynet\"\nvariant = \"ep2\"\nformat = \"gauntlet\"\n\
                candidate = \"cg-ep2\"\nseed = 1\ngames_per_pairing = 3\nanalysis = true\n\
                [maps]\nglob = \"dense-*.txt\"\n\
                [[bots]]\nname = \"cg-ep2\"\nroles = [\"agent\"]\n\
                [[bots]]\nname = \"solver\"\nroles = [\"virus\"]\n\
                [[bots]]\nname = \"priority\"\nroles = [\"virus\"]\n\
                [[bots]]\nname = \"greedy\"\nroles = [\"virus\"]\n";
    std::fs::write(arena.dir().join("dense.toml"), text).unwrap();
    let run = arena.args(["run", "dense.toml", "-q", "--out", "out"]).run().success();
    let csv = std::fs::read_to_string(run.dir.join("out/analysis.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    // Three viruses, three maps, two seats a match.
    assert_eq!(rows.len(), 18, "{csv}");
    let mut greedy_blunders = 0;
    for row in &rows {
        assert_eq!(row[col("unknown")], "0", "{csv}");
        assert_eq!(row[col("analysed")], row[col("decisions")], "{csv}");
        let blunders: u32 = row[col("blunders")].parse().unwrap();
        match row[col("bot")] {
            "solver" => assert_eq!(blunders, 0, "{csv}"),
            "greedy" => greedy_blunders += blunders,
            _ => {}
        }
    }
    assert!(greedy_blunders >= 1, "{csv}");
}
