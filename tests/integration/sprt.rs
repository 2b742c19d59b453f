//! `arena sprt` end to end: paired tests for bots that play one role, the deterministic-pool stop,
//! every game, the settings of the `[sprt]` table, and a test spread over machines (`--pairs`,
//! `--decide`) against the same test on one.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::root;

/// Runs `arena ARGS` in `dir`.
fn arena(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("arena runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A Skynet Episode 2 arena of `solver`, `greedy` and `random` viruses and the `cg-ep2` agent
/// on generated 30-node maps with two gateways, and an `[sprt]` section of `sprt` lines.
fn skynet_virus_arena(dir: &Path, name: &str, maps: &str, sprt: &str) {
    let text = format!(
        "name = \"{name}\"\ngame = \"skynet\"\nvariant = \"ep2\"\nseed = 9\n[maps]\n{maps}\n\
         [[bots]]\nname = \"solver\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"greedy\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"random\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n\
         [sprt]\nopponents = [\"cg-ep2\"]\nelo0 = 0\nelo1 = 10\n{sprt}\n"
    );
    std::fs::write(dir.join(format!("{name}.toml")), text).unwrap();
}

const GENERATED: &str = "generate = { count = 3, params = { nodes = 30, gateways = 2 } }";

fn sprt_json(dir: &Path, name: &str) -> serde_json::Value {
    let path = dir.join(format!("results/{name}/sprt/sprt.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("sprt.json")).expect("JSON")
}

#[test]
fn a_paired_test_tells_a_better_virus_from_a_worse_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    skynet_virus_arena(d, "v", GENERATED, "candidate = \"solver\"\nbaseline = \"random\"");
    // Clearly better: H1, exit 0.
    let out = arena(d, &["sprt", "v.toml", "-q", "-j", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("H1 accepted") && stdout.contains("paired, against cg-ep2"),
        "{stdout}"
    );
    let json = sprt_json(d, "v");
    assert_eq!((json["kind"].as_str(), json["verdict"].as_str()), (Some("paired"), Some("h1")));
    assert_eq!(json["elo_model"], "normalized");
    assert_eq!(json["maps"], "generate");
    let penta: Vec<u64> =
        json["pentanomial"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect();
    assert_eq!(penta.iter().sum::<u64>(), json["pairs"].as_u64().unwrap());
    // Skynet has no draws: a pair is one better, both equal, or one worse.
    assert_eq!((penta[1], penta[3]), (0, 0), "{penta:?}");
    assert!(json["elo_low"].as_f64().unwrap() > 10.0, "{json}");
    // Each pair is the same map, seed, seat and opponent for both viruses.
    let rows = std::fs::read_to_string(d.join("results/v/sprt/matches.csv")).unwrap();
    let rows: Vec<Vec<&str>> = rows.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let by_id: std::collections::BTreeMap<u64, &Vec<&str>> =
        rows.iter().map(|r| (r[0].parse().unwrap(), r)).collect();
    for (id, row) in &by_id {
        if id % 2 == 0 {
            if let Some(other) = by_id.get(&(id + 1)) {
                assert_eq!((row[3], row[4], row[10]), (other[3], other[4], other[10]));
                assert_eq!((row[6], other[6]), ("solver", "random"));
            }
        }
    }

    // Clearly worse: H0, exit 1.
    let out = arena(d, &["sprt", "v.toml", "-q", "--candidate", "random", "--baseline", "solver"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(sprt_json(d, "v")["verdict"], "h0");
    // Out of pairs: exit 3.
    let out = arena(d, &["sprt", "v.toml", "-q", "--max-pairs", "3"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no decision after 3 pairs"));
    assert_eq!(sprt_json(d, "v")["stopped"], "max_pairs");
}

#[test]
fn deterministic_bots_on_a_cycling_pool_stop_with_no_more_information() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let maps = root().join("arenas/maps/skynet");
    let files = format!(
        "files = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\", \"{0}/ep2_03.txt\"]",
        maps.display()
    );
    skynet_virus_arena(
        d,
        "pool",
        &files,
        "candidate = \"solver\"\nbaseline = \"greedy\"\nmaps = \"cycle\"",
    );
    let out = arena(d, &["sprt", "pool.toml", "-q"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("deterministic").count(), 1, "said once: {stdout}");
    assert!(stdout.contains("no more information after 3 pairs"), "{stdout}");
    let json = sprt_json(d, "pool");
    assert_eq!(
        (json["stopped"].as_str(), json["repeats_after"].as_u64()),
        (Some("no_more_information"), Some(3))
    );
    assert_eq!(json["maps"], "cycle");
    // A seeded random bot changes with every pair's seed: the pool does not run dry.
    let out = arena(d, &["sprt", "pool.toml", "-q", "--baseline", "random", "--max-pairs", "5"]);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    let json = sprt_json(d, "pool");
    assert!(json["repeats_after"].is_null(), "{json}");
    assert_ne!(json["stopped"], "no_more_information");
    // An external bot is assumed to vary unless the arena says it does not.
    let virus = root().join("bots/skynet_virus.py");
    let declared = |deterministic: &str| {
        let text = std::fs::read_to_string(d.join("pool.toml")).unwrap().replace(
            "name = \"greedy\"\nroles = [\"virus\"]",
            &format!(
                "name = \"greedy\"\nspec = \"cmd:python3 {}\"\nroles = [\"virus\"]\n{deterministic}\nlimits = {{ first_turn_ms = 10000, turn_ms = 5000 }}",
                virus.display()
            ),
        );
        std::fs::write(d.join("ext.toml"), text.replace("name = \"pool\"", "name = \"ext\""))
            .unwrap();
        arena(d, &["sprt", "ext.toml", "-q", "-j", "1", "--max-pairs", "4"])
    };
    let out = declared("");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(sprt_json(d, "ext")["repeats_after"].is_null());
    let out = declared("deterministic = true");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert_eq!(sprt_json(d, "ext")["repeats_after"], 3);
    assert_eq!(sprt_json(d, "ext")["pairs"], 3);
}

#[test]
fn paired_tests_play_every_game_and_its_seats() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let arenas = root().join("arenas");
    let cases = [
        // Skynet agents: the candidate and the baseline each face the same virus.
        (
            "agents",
            format!(
                "game = \"skynet\"\nvariant = \"ep2\"\n[maps]\n{GENERATED}\n\
                 [[bots]]\nname = \"perfect\"\nroles = [\"agent\"]\n[[bots]]\nname = \"cg-ep2\"\n\
                 [[bots]]\nname = \"greedy\"\n\
                 [sprt]\ncandidate = \"perfect\"\nbaseline = \"cg-ep2\"\nopponents = [\"greedy\"]\n"
            ),
            5,
        ),
        // Spiders defenders against the same spiders.
        (
            "defenders",
            "game = \"spiders\"\n[maps]\ngenerate = { count = 2, params = { nodes = 10 } }\n\
             [[bots]]\nname = \"paths\"\n[[bots]]\nname = \"emergency\"\n[[bots]]\nname = \"greedy\"\n\
             [sprt]\ncandidate = \"paths\"\nbaseline = \"emergency\"\nopponents = [\"greedy\"]\n"
                .to_string(),
            5,
        ),
        // Painters' Duel: both seats, against the same opponent.
        (
            "painters",
            "game = \"painters\"\n[maps]\ngenerate = { count = 2, params = { size = 5 } }\n\
             [[bots]]\nname = \"greedy\"\n[[bots]]\nname = \"random\"\n[[bots]]\nname = \"opponent\"\nspec = \"greedy\"\n\
             [sprt]\ncandidate = \"greedy\"\nbaseline = \"random\"\nkind = \"paired\"\nopponents = [\"opponent\"]\n"
                .to_string(),
            5,
        ),
        // Risk, three players: the candidate's finishing position against the baseline's in the
        // same seat against the same two opponents (a trinomial).
        (
            "risk",
            format!(
                "game = \"risk\"\n[options]\nplayers = 3\n[maps]\nfiles = [\"{}/maps/risk/classic.txt\"]\n\
                 [[bots]]\nname = \"greedy\"\n[[bots]]\nname = \"random\"\n\
                 [[bots]]\nname = \"g2\"\nspec = \"greedy\"\n[[bots]]\nname = \"g3\"\nspec = \"greedy\"\n\
                 [sprt]\ncandidate = \"greedy\"\nbaseline = \"random\"\nopponents = [\"g2\", \"g3\"]\n",
                arenas.display()
            ),
            3,
        ),
    ];
    for (name, body, pairs) in cases {
        let file = format!(
            "name = \"{name}\"\nseed = 4\n{body}elo0 = -1000\nelo1 = 1000\nmax_pairs = {pairs}\n"
        );
        std::fs::write(d.join(format!("{name}.toml")), file).unwrap();
        let out = arena(d, &["sprt", &format!("{name}.toml"), "-q", "-j", "2"]);
        assert_eq!(out.status.code(), Some(3), "{name}: {}", text(&out));
        let json = sprt_json(d, name);
        assert_eq!((json["kind"].as_str(), json["pairs"].as_u64()), (Some("paired"), Some(pairs)));
        let counts = if name == "risk" { &json["trinomial"] } else { &json["pentanomial"] };
        let total: u64 = counts.as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum();
        assert_eq!(total, pairs, "{name}: {json}");
        // Every seat the candidate plays comes in turn: two games per pair, the baseline in the
        // candidate's seat in the second.
        let rows =
            std::fs::read_to_string(d.join(format!("results/{name}/sprt/matches.csv"))).unwrap();
        assert!(rows.lines().count() > 2 * pairs as usize, "{name}: {rows}");
    }
    // Risk has no generator: its pairs cycle the map pool, with fresh seeds (dice).
    assert_eq!(sprt_json(d, "risk")["maps"], "cycle");
    assert!(sprt_json(d, "risk")["repeats_after"].is_null());
}

#[test]
fn the_sprt_table_is_checked_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (sprt, key) in [
        ("candidate = \"solver\"\nbaseline = \"cg-ep2\"", "sprt.opponents"),
        ("candidate = \"solver\"\nbaseline = \"greedy\"\nelo_model = \"bayes\"", "sprt.elo_model"),
        ("candidate = \"solver\"\nbaseline = \"greedy\"\nmaps = \"shuffle\"", "sprt.maps"),
        (
            "candidate = \"solver\"\nbaseline = \"greedy\"\nkind = \"head-to-head\"",
            "sprt.opponents",
        ),
        ("candidate = \"solver\"\nbaseline = \"greedy\"\nelo1 = 5000", "sprt.elo1"),
    ] {
        skynet_virus_arena(d, "bad", GENERATED, sprt);
        let text_of = std::fs::read_to_string(d.join("bad.toml")).unwrap();
        // `elo1` given twice is a TOML error; keep the last one.
        let text_of =
            if sprt.contains("elo1") { text_of.replacen("elo1 = 10\n", "", 1) } else { text_of };
        std::fs::write(d.join("bad.toml"), text_of).unwrap();
        let out = arena(d, &["sprt", "bad.toml", "-q"]);
        assert_eq!(out.status.code(), Some(2), "{sprt}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.toml") && err.contains(key), "{sprt}: {err}");
    }
    // A head-to-head test of viruses, which never meet: refused with the way forward.
    skynet_virus_arena(d, "h2h", GENERATED, "candidate = \"solver\"\nbaseline = \"greedy\"");
    let text_of = std::fs::read_to_string(d.join("h2h.toml")).unwrap();
    std::fs::write(d.join("h2h.toml"), text_of.replace("opponents = [\"cg-ep2\"]\n", "")).unwrap();
    let out = arena(d, &["sprt", "h2h.toml", "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kind = \"paired\""), "{}", text(&out));
    // Risk has no map generator to ask for.
    let risk = format!(
        "name = \"r\"\ngame = \"risk\"\n[options]\nplayers = 2\n[maps]\nfiles = [\"{}/maps/risk/classic.txt\"]\n\
         [[bots]]\nname = \"greedy\"\n[[bots]]\nname = \"random\"\n\
         [sprt]\ncandidate = \"greedy\"\nbaseline = \"random\"\nelo0 = 0\nelo1 = 5\nmaps = \"generate\"\n",
        root().join("arenas").display()
    );
    std::fs::write(d.join("r.toml"), risk).unwrap();
    let out = arena(d, &["sprt", "r.toml", "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sprt.maps"), "{}", text(&out));
}

#[test]
fn the_shipped_example_decides_for_the_solver() {
    let dir = tempfile::tempdir().unwrap();
    let example = root().join("arenas/sprt-skynet-virus.toml");
    let out = arena(dir.path(), &["sprt", example.to_str().unwrap(), "-q", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(
        (json["candidate"].as_str(), json["verdict"].as_str()),
        (Some("solver"), Some("h1"))
    );
}

/// `sprt.json` without what names the folder or tells how it was played: what one machine and a
/// cluster must agree on.
fn verdict_of(dir: &Path, name: &str) -> serde_json::Value {
    let mut json = sprt_json(dir, name);
    let map = json.as_object_mut().unwrap();
    map.remove("results");
    map.remove("warnings");
    json
}

/// The rows of `matches.csv` as a machine plays them, without their timings (the columns from
/// `duration_ms` on), by id, ids below `below` only.
fn played_rows(path: &Path, below: u64) -> std::collections::BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let timed = header.iter().position(|c| *c == "duration_ms").expect("duration_ms");
    text.lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[0].parse().unwrap(), cells[..timed].join(","))
        })
        .filter(|(id, _)| *id < below)
        .collect()
}

#[test]
fn a_test_spread_over_machines_reaches_the_verdict_and_pair_count_of_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    skynet_virus_arena(d, "v", GENERATED, "candidate = \"solver\"\nbaseline = \"random\"");
    for (case, flags, code) in [
        ("h1", vec![], 0),
        ("h0", vec!["--candidate", "random", "--baseline", "solver"], 1),
        ("max_pairs", vec!["--max-pairs", "9"], 3),
    ] {
        let one = |extra: &[&str]| {
            let mut args = vec!["sprt", "v.toml", "-q"];
            args.extend(&flags);
            args.extend(extra);
            arena(d, &args)
        };
        let out = one(&["-j", "2"]);
        assert_eq!(out.status.code(), Some(code), "{case}: {}", text(&out));
        let alone = verdict_of(d, "v");
        let pairs = alone["pairs"].as_u64().unwrap();
        let rows_alone = played_rows(&d.join("results/v/sprt/matches.csv"), 2 * pairs);
        assert_eq!(rows_alone.len() as u64, 2 * pairs, "{case}");

        // Ranges of 4 pairs played in the order 1, 0, 3, 2, 5, 4, ...; a decision after each.
        let cluster = d.join(format!("cluster-{case}"));
        let mut folders: Vec<String> = Vec::new();
        let mut decided = None;
        for task in (0..40u64).map(|t| t ^ 1) {
            let range = format!("{}..{}", 4 * task, 4 * task + 4);
            let folder = cluster.join(format!("{task}")).display().to_string();
            let out = one(&["--pairs", &range, "-j", "1", "--out", &folder]);
            assert_eq!(out.status.code(), Some(0), "{case} {range}: {}", text(&out));
            folders.push(folder);
            let mut decide = vec!["--decide"];
            decide.extend(folders.iter().map(String::as_str));
            let out = one(&decide);
            let said = text(&out);
            match out.status.code() {
                Some(6) => {
                    let counted = verdict_of(d, "v")["pairs"].as_u64().unwrap();
                    assert_eq!(counted % 8, 0, "{case}: the pairs of the ranges in a row");
                    assert!(said.contains(&format!("play more (from pair {counted})")), "{said}");
                    // Range 0 is played second, 2 fourth...: a gap behind later pairs is named
                    // (none beyond max_pairs is played).
                    if task % 2 == 1 && (case != "max_pairs" || 4 * task < 9) {
                        assert!(said.contains(&format!("pair {counted} is missing")), "{said}");
                    }
                    assert_eq!(verdict_of(d, "v")["stopped"], "needs_more_pairs");
                }
                other => {
                    decided = other;
                    break;
                }
            }
        }
        assert_eq!(decided, Some(code), "{case}");
        assert_eq!(verdict_of(d, "v"), alone, "{case}: the same verdict, pairs, LLR and counts");
        // The decision's folder holds the counted pairs' games, the very games one machine played.
        let rows = played_rows(&d.join("results/v/sprt/matches.csv"), u64::MAX);
        assert_eq!(rows, rows_alone, "{case}");
    }
}

#[test]
fn a_range_of_pairs_resumes_and_a_decision_checks_its_folders() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    skynet_virus_arena(d, "v", GENERATED, "candidate = \"solver\"\nbaseline = \"random\"");
    let sprt = |args: &[&str]| {
        let mut all = vec!["sprt", "v.toml", "-q"];
        all.extend(args);
        arena(d, &all)
    };
    let out = sprt(&["--pairs", "0..5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("pairs 0..5: 10 games played, 0 already there"), "{said}");
    assert!(said.contains("results in results/v/sprt-pairs/0-5"), "{said}");
    // Played again: nothing to play.
    let out = sprt(&["--pairs", "0..5"]);
    assert!(text(&out).contains("0 games played, 10 already there"), "{}", text(&out));
    // A task killed while writing its last row: the torn line is dropped and its game replayed.
    let csv = d.join("results/v/sprt-pairs/0-5/matches.csv");
    let rows = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, &rows[..rows.len() - 20]).unwrap();
    let out = sprt(&["--pairs", "0..5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("1 games played, 9 already there"), "{}", text(&out));
    assert!(text(&out).contains("torn last line"), "{}", text(&out));
    // Pairs past max_pairs are not played.
    let out = sprt(&["--pairs", "5..20", "--max-pairs", "8"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("counts no pair from 8 on"), "{}", text(&out));

    // A task stopped before it wrote anything leaves an empty folder: nothing played there.
    std::fs::create_dir_all(d.join("results/v/sprt-pairs/5-10")).unwrap();
    let out = sprt(&["--decide", "results/v/sprt-pairs/0-5", "results/v/sprt-pairs/5-10"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out));
    assert!(text(&out).contains("after 5 pairs"), "{}", text(&out));
    // Two folders holding one pair.
    let out = sprt(&["--pairs", "4..6", "--out", "overlap"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = sprt(&["--decide", "results/v/sprt-pairs/0-5", "overlap"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(text(&out).contains("is also in `results/v/sprt-pairs/0-5`"), "{}", text(&out));
    // A folder of another arena (another seed): refused, naming what changed.
    let other =
        std::fs::read_to_string(d.join("v.toml")).unwrap().replace("seed = 9\n", "seed = 10\n");
    std::fs::write(d.join("other.toml"), other).unwrap();
    let out = arena(d, &["sprt", "other.toml", "-q", "--pairs", "5..10"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = sprt(&["--decide", "results/v/sprt-pairs/0-5", "results/v/sprt-pairs/5-10"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let err = text(&out);
    assert!(err.contains("5-10") && err.contains("different config"), "{err}");
    assert!(err.contains("seed") && err.contains("--pairs FROM..TO --fresh"), "{err}");
    // ... and into its folder too, unless told to start it afresh.
    let out = sprt(&["--pairs", "5..10"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let out = sprt(&["--pairs", "5..10", "--fresh"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("10 games played, 0 already there"), "{}", text(&out));
    // The games of another test of the same arena (another baseline): each row is checked.
    let out = sprt(&["--pairs", "10..12", "--baseline", "greedy"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = sprt(&["--decide", "results/v/sprt-pairs/10-12"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let err = text(&out);
    assert!(err.contains("10-12/matches.csv") && err.contains("plans `random`"), "{err}");
    // An edited row: the baseline's game recorded as the candidate's.
    let rows = std::fs::read_to_string(&csv).unwrap();
    let edited = rows.replacen(",virus,random,", ",virus,solver,", 1);
    assert_ne!(edited, rows);
    std::fs::write(&csv, edited).unwrap();
    let out = sprt(&["--decide", "results/v/sprt-pairs/0-5", "results/v/sprt-pairs/5-10"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let err = text(&out);
    assert!(err.contains("0-5/matches.csv") && err.contains("line "), "{err}");
    assert!(err.contains("solver"), "{err}");
    let out = sprt(&["--pairs", "0..5"]);
    assert_eq!(out.status.code(), Some(4), "resume refuses it too: {}", text(&out));

    // Nonsense on the command line.
    for args in [
        vec!["--pairs", "5..5"],
        vec!["--pairs", "9..3"],
        vec!["--pairs", "a..b"],
        vec!["--fresh"],
        vec!["--pairs", "0..5", "--decide", "overlap"],
        vec!["--decide", "overlap", "--out", "overlap"],
    ] {
        let out = sprt(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    }
}
