//! `arena check`: the example Python virus passes every check on the shipped Episode 2 maps;
//! a bot that breaks one check fails that one, with the exchange that failed ("sent / expected
//! / got") and exit code 1; `--json` says the same; a bad role is a usage error (exit 2).

use serde_json::Value;

use crate::support::{Arena, Run, root};

/// `cmd:python3 tests/fixtures/bots/check_breaks.py ARGS` (see that file for the modes).
fn breaks(args: &str) -> String {
    let fixture = root().join("tests/fixtures/bots/check_breaks.py");
    format!("cmd:python3 {} {args}", shell_words::quote(&fixture.display().to_string()))
}

/// The default Episode 2 map, as `--map` names it.
fn one_map() -> String {
    root().join("arenas/maps/skynet/ep2_03.txt").display().to_string()
}

/// `arena check SPEC --game skynet` on [`one_map`] alone, with `extra`.
fn check_one_map(spec: &str, extra: &[&str]) -> Run {
    Arena::new().args(["check", spec, "--game", "skynet", "--map", &one_map()]).args(extra).run()
}

/// The checklist's line of `title`, and whether the run exited 1.
fn verdict_line(run: &Run, title: &str) -> String {
    let out = run.stdout();
    out.lines()
        .find(|l| l.contains(&format!("] {title}:")))
        .unwrap_or_else(|| panic!("no line for {title:?} in\n{out}"))
        .to_string()
}

/// The block from "first failure" to the blank line after it.
fn exchange(run: &Run) -> String {
    let out = run.stdout();
    let start = out.find("first failure").unwrap_or_else(|| panic!("no failure in\n{out}"));
    let block = &out[start..];
    block[..block.find("\n\n").map_or(block.len(), |i| i + 1)].to_string()
}

fn exit_code(run: &Run) -> Option<i32> {
    run.output.status.code()
}

/// The lines arena sends the virus on `ep2_03.txt` for its first decision: the map's block
/// and the agent's node.
fn first_input() -> String {
    let text = std::fs::read_to_string(root().join("arenas/maps/skynet/ep2_03.txt")).unwrap();
    let agent = text
        .lines()
        .find_map(|l| l.strip_prefix("# AGENT_START "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the map names the agent's start")
        .to_string();
    let block: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    block.iter().chain([&agent.as_str()]).map(|l| format!("    | {l}\n")).collect()
}

#[test]
fn the_example_virus_passes_every_check_on_the_shipped_maps() {
    let bot = root().join("bots/skynet_virus.py");
    let spec = format!("cmd:python3 {}", bot.display());
    let run = Arena::new().args(["check", &spec, "--game", "skynet"]).run().success();
    let out = run.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("arena check {spec} as virus in skynet ep2"));
    assert_eq!(
        lines[1],
        "on ep2_01.txt, ep2_02.txt, ep2_03.txt, ep2_custom_forum_12nodes.txt, each played twice \
         with seed 1, against agent=cg-ep2"
    );
    let checklist: Vec<&str> = lines.iter().filter(|l| l.starts_with("  [")).copied().collect();
    assert_eq!(checklist.len(), 7, "{out}");
    assert!(checklist.iter().all(|l| l.starts_with("  [ok  ] ")), "{out}");
    assert!(
        out.contains(
            "answers every turn with a legal action: 22 decisions on 4 maps, all legal; won 4 of 4"
        ),
        "{out}"
    );
    assert!(out.contains("exits cleanly (exit code 0): exit code 0 in 8 of 8 matches"), "{out}");
    assert!(out.ends_with("\nevery check passed\n"), "{out}");

    let json = Arena::new().args(["check", &spec, "--game", "skynet", "--json"]).run().success();
    let report: Value = serde_json::from_str(json.stdout().trim()).unwrap();
    assert_eq!(report["passed"], true);
    let ids: Vec<&str> =
        report["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["starts", "answers", "stops", "exits", "deterministic", "cpu", "memory"]);
    assert!(report["checks"].as_array().unwrap().iter().all(|c| c["verdict"] == "pass"));
    assert_eq!(report["first_failure"], Value::Null);
    assert_eq!(report["opponents"]["agent"], "cg-ep2");
}

#[test]
fn a_bot_that_does_not_start_fails_the_first_check_with_its_first_input_and_stderr() {
    let run = check_one_map("cmd:sh -c 'echo cannot load my model >&2; exit 3'", &[]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    assert!(
        verdict_line(&run, "starts and answers its first turn within the first-turn limit")
            .starts_with("  [FAIL] ")
    );
    assert!(
        verdict_line(&run, "answers every turn with a legal action")
            .ends_with("not checked: it did not start")
    );
    assert_eq!(
        exchange(&run),
        format!(
            "first failure (starts) on {map}, its decision 1:\n  sent:\n{}  expected: one \
             line the game reads as an action, within 1000 ms\n  got: crash: the bot crashed: \
             exit code 3\n  its last stderr lines:\n    | cannot load my model\n",
            first_input(),
            map = one_map()
        )
    );
    assert!(run.stdout().ends_with("\n1 of 7 checks failed\n"), "{}", run.stdout());
}

#[test]
fn an_illegal_cut_shows_what_was_sent_what_was_legal_and_what_came() {
    let bot = root().join("tests/fixtures/bots/repeats_cut.sh");
    let run = check_one_map(&format!("cmd:sh {}", bot.display()), &[]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    let map = one_map();
    assert_eq!(
        verdict_line(&run, "answers every turn with a legal action"),
        format!("  [FAIL] answers every turn with a legal action: on {map}, decision 1: illegal")
    );
    assert_eq!(
        exchange(&run),
        format!(
            "first failure (answers) on {map}, its decision 1:\n  sent:\n{}  expected: a legal \
             action (for example `0 1`, `0 2`, `0 3`)\n  got: `1 3`: illegal action \"1 3\": link \
             1 3 does not exist (the map has no link between 1 and 3)\n",
            first_input()
        )
    );
}

#[test]
fn a_bot_that_ignores_the_end_of_its_input_fails_stops() {
    let map = one_map();
    let run = check_one_map(&breaks("ignores_eof"), &["--kill-grace-ms", "300"]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    assert_eq!(
        verdict_line(&run, "stops when its input ends"),
        format!(
            "  [FAIL] stops when its input ends: on {map}: still running 300 ms after its input \
             ended"
        )
    );
    assert_eq!(
        verdict_line(&run, "exits cleanly (exit code 0)"),
        "  [ -  ] exits cleanly (exit code 0): not checked: it did not exit by itself"
    );
    assert_eq!(
        exchange(&run),
        format!(
            "first failure (stops) on {map}, after its last decision:\n  sent:\n    | (end of \
             input: its standard input closes after the match)\n  expected: it exits within 300 \
             ms (the kill grace)\n  got: still running 300 ms later: arena stopped it (SIGTERM, \
             then SIGKILL)\n"
        )
    );
}

#[test]
fn a_bot_that_exits_with_a_failure_fails_exits_with_its_last_words() {
    let map = one_map();
    let run = check_one_map(&breaks("exit3"), &[]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    assert!(verdict_line(&run, "stops when its input ends").starts_with("  [ok  ] "));
    assert_eq!(
        verdict_line(&run, "exits cleanly (exit code 0)"),
        format!("  [FAIL] exits cleanly (exit code 0): on {map}: exit code 3")
    );
    assert_eq!(
        exchange(&run),
        format!(
            "first failure (exits) on {map}, after its last decision:\n  sent:\n    | (end of \
             input: its standard input closes after the match)\n  expected: exit code 0\n  got: \
             exit code 3\n  its last stderr lines:\n    | check_breaks: exiting with code 3 on \
             purpose\n"
        )
    );
}

#[test]
fn a_bot_that_plays_otherwise_under_the_same_seed_fails_deterministic() {
    let state = tempfile::tempdir().unwrap();
    let counter = state.path().join("runs");
    let spec = breaks(&format!("flip {}", shell_words::quote(&counter.display().to_string())));
    // The counter is written outside the sandbox's private folder.
    let map = one_map();
    let run = check_one_map(&spec, &["--sandbox", "off"]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    let line = verdict_line(&run, "plays the same with the same ARENA_SEED");
    let failed = format!("  [FAIL] plays the same with the same ARENA_SEED: on {map}, decision ");
    assert!(line.starts_with(&failed), "{line}");
    let shown = exchange(&run);
    let first = format!("first failure (deterministic) on {map}, its decision ");
    assert!(shown.starts_with(&first), "{shown}");
    assert!(
        shown.contains("  expected: `") && shown.contains("`, its answer the first time\n  got: `"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "2", "played twice");
}

#[test]
fn a_bot_over_its_turn_limit_fails_cpu_and_one_over_its_memory_fails_memory() {
    // The second decision uses 0.6 s of CPU time against 0.1 s; the bank keeps it from timing
    // out, so only the check sees it.
    let map = one_map();
    let run = check_one_map(&breaks("spin"), &["--turn-ms", "100", "--bank-ms", "20000"]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    let line = verdict_line(&run, "time per turn within the limits");
    let failed = format!("  [FAIL] time per turn within the limits: on {map}, decision 2: ");
    assert!(line.starts_with(&failed), "{line}");
    assert!(line.ends_with(" of 100 ms"), "{line}");
    let shown = exchange(&run);
    let first = format!("first failure (cpu) on {map}, its decision 2:\n  sent:\n    | ");
    assert!(shown.starts_with(&first), "{shown}");
    assert!(shown.contains("  expected: an answer within 100 ms of CPU time\n  got: `"), "{shown}");
    assert!(shown.contains("(over the limit; the grace or the time bank let it pass)"), "{shown}");

    let run = check_one_map(&breaks("memory"), &["--memory-mb", "48"]);
    assert_eq!(exit_code(&run), Some(1), "{}", run.stdout());
    let line = verdict_line(&run, "memory peak within the limit");
    assert!(line.starts_with("  [FAIL] memory peak within the limit: resident peak "), "{line}");
    assert!(line.ends_with(" MiB, over the 48 MiB limit"), "{line}");
    // The same bot within a roomier limit passes.
    let run = check_one_map(&breaks("memory"), &["--memory-mb", "512"]);
    assert_eq!(exit_code(&run), Some(0), "{}", run.stdout());
}

#[test]
fn the_memory_peak_counts_every_process_of_the_bot() {
    // Four children of 40 MiB each, forked before the bot answers and alive at its end: the
    // peak is the sum over its processes (found through its cgroup as root in the sandbox, else
    // through its process tree), not the parent's few MiB.
    let dir = tempfile::tempdir().unwrap();
    let marker = crate::external::marker_in(dir.path());
    let spec = crate::external::bot(
        "python3",
        "spreads_over_children.py",
        &marker,
        &["memory", "4", "40"],
    );
    for sandbox in ["auto", "off"] {
        let run = check_one_map(
            &spec,
            &["--sandbox", sandbox, "--memory-mb", "1024", "--first-turn-ms", "30000"],
        );
        let line = verdict_line(&run, "memory peak within the limit");
        let mib: f64 = line
            .split("resident peak ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no peak in {line}"));
        assert!(mib >= 160.0, "sandbox {sandbox}: {line}");
        crate::external::assert_no_process_left(&marker);
    }
}

#[test]
fn a_role_the_game_does_not_have_is_a_usage_error() {
    let run = Arena::new().args(["check", "random", "--game", "skynet", "--role", "spy"]).run();
    assert_eq!(exit_code(&run), Some(2));
    assert_eq!(
        run.stderr().trim(),
        "error: --role `spy`: skynet has no such role (roles: virus, agent)"
    );
    // A built-in bot checks too (what it cannot show, such as its exit, is skipped), in any game.
    let run = Arena::new().args(["check", "greedy", "--game", "spiders", "--json"]).run().success();
    // It plays the spiders: the first role a built-in bot plays.
    let report: Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(report["passed"], true, "{report}");
    assert_eq!(report["role"], "spiders", "{report}");
    assert_eq!(report["checks"][2]["verdict"], "skip", "{report}");
}

#[test]
fn a_sandboxed_bot_missing_a_module_beside_it_is_told_what_it_could_read() {
    // A virus split in two files: `main.py` imports `helpers.py` from its folder.
    let folder = tempfile::tempdir().unwrap();
    let virus = root().join("bots/skynet_virus.py");
    std::fs::write(folder.path().join("helpers.py"), std::fs::read_to_string(&virus).unwrap())
        .unwrap();
    std::fs::write(folder.path().join("main.py"), "import helpers\n").unwrap();
    let spec = format!("virus=cmd:python3 {}", folder.path().join("main.py").display());
    let play = |extra: &[&str]| {
        let run = Arena::new()
            .args(["play", "skynet", "--json", "--bot", &spec, "--first-turn-ms", "5000"])
            .args(extra)
            .run()
            .success();
        serde_json::from_str::<Value>(run.stdout().trim()).unwrap()
    };
    let summary = play(&[]);
    if summary["termination"] != "crash" {
        eprintln!("skipped: this machine's sandbox does not limit reads (no Landlock)");
        return;
    }
    let detail = summary["detail"].as_str().unwrap();
    assert!(detail.contains("its stderr names a missing or denied file: the sandbox let it read only the system, its private folder and "), "{detail}");
    assert!(detail.contains(&format!("`{}`", folder.path().join("main.py").display())), "{detail}");
    assert!(detail.contains("add its folder with `--allow-read DIR`"), "{detail}");
    // Its folder added, it plays.
    let summary = play(&["--allow-read", folder.path().to_str().unwrap()]);
    assert_eq!(summary["termination"], "normal", "{summary}");
}
