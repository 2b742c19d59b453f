//! The bot author's debug loop: what each bot wrote to stderr during each decision, kept in the
//! replay for every seat, printed by `arena replay --stderr` and shown by the viewer beside the
//! board; `@metric` lines plotted per turn.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::browser;
use crate::external::{bot, fixture, play_virus};
use crate::support::{Arena, root, run_arena_file};
use crate::viewer::{ONE_BROWSER, open_clean, photograph, view};

/// `cmd:` spec of the chatty wrapper around one of the example Python bots.
fn chatty(program: &str) -> String {
    let program = root().join("bots").join(program).display().to_string();
    format!("cmd:{}", shell_words::join(["python3", &fixture("chatty.py"), "chatty", &program]))
}

/// The files the chatty bots read in the sandbox.
fn chatty_files() -> Vec<String> {
    let fixtures = root().join("tests/fixtures/bots").display().to_string();
    let bots = root().join("bots").display().to_string();
    vec!["--allow-read".into(), fixtures, "--allow-read".into(), bots]
}

/// Plays the default Skynet map between two chatty bots, writing `replay`; extra arguments go to
/// `arena play`.
fn play_chatty(dir: &Path, replay: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(replay);
    Arena::new()
        .args(["play", "skynet", "--first-turn-ms", "5000", "--turn-ms", "1000"])
        .args(["--bot".to_string(), format!("virus={}", chatty("skynet_virus.py"))])
        .args(["--bot".to_string(), format!("agent={}", chatty("skynet_agent.py"))])
        .args(chatty_files())
        .args(["--replay", path.to_str().unwrap()])
        .args(extra)
        .run()
        .success();
    path
}

fn replay_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn every_seat_s_stderr_is_kept_with_each_decision_and_printed_under_its_action() {
    let dir = tempfile::tempdir().unwrap();
    let replay = play_chatty(dir.path(), "chatty.jsonl", &[]);
    let lines = replay_lines(&replay);
    let actions = &lines[1..lines.len() - 1];
    assert!(actions.len() >= 4, "{}", actions.len());
    // Each seat's n-th decision holds exactly what it wrote for its n-th answer; its first also
    // what it wrote while starting.
    let mut turn = [0, 0];
    for a in actions {
        let seat = a["seat"].as_u64().unwrap() as usize;
        let role = a["role"].as_str().unwrap();
        turn[seat] += 1;
        let n = turn[seat];
        let action = a["action"].as_str().unwrap();
        let mut expected = format!(
            "{role} turn {n}: answering {action}\n@metric turn={n} answer_len={}\n",
            action.len()
        );
        if n == 1 {
            expected = format!("{role} starting\n{expected}");
        }
        assert_eq!(a["stderr"].as_str(), Some(expected.as_str()), "{a}");
        assert_eq!(a["metrics"]["turn"], Value::from(n as f64), "{a}");
    }
    assert!(turn[0] >= 2 && turn[1] >= 2, "{turn:?}");

    let run = Arena::new().args(["replay", "--stderr", replay.to_str().unwrap()]).run().success();
    let out = run.stdout();
    let first_agent = actions.iter().position(|a| a["role"] == "agent").unwrap();
    let agent_action = actions[first_agent]["action"].as_str().unwrap();
    let expected = format!(
        "{:>4} agent    {agent_action}\n       | agent starting\n       | agent turn 1: answering \
         {agent_action}\n       | @metric turn=1 answer_len={}\n",
        first_agent + 1,
        agent_action.len()
    );
    assert!(out.contains(&expected), "{expected}\nnot in\n{out}");
    // Without the flag, the actions alone.
    let plain = Arena::new().args(["replay", replay.to_str().unwrap()]).run().success().stdout();
    assert!(!plain.contains("starting"), "{plain}");
    Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
}

#[test]
fn no_stderr_leaves_it_out_of_the_replay_but_keeps_the_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let replay = play_chatty(dir.path(), "quiet.jsonl", &["--no-stderr"]);
    let lines = replay_lines(&replay);
    let actions = &lines[1..lines.len() - 1];
    assert!(actions.iter().all(|a| a.get("stderr").is_none()), "{actions:?}");
    assert!(actions.iter().all(|a| a["metrics"]["turn"].is_number()), "{actions:?}");
}

#[test]
fn the_viewer_shows_each_seat_s_stderr_at_the_step_and_plots_its_metrics() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let replay = play_chatty(dir.path(), "viewed.jsonl", &[]);
    let lines = replay_lines(&replay);
    let actions = &lines[1..lines.len() - 1];
    let page = view(&replay, dir.path());
    open_clean(&mut b, &page);

    // Step 3: the seat that acted there, its own decision.
    b.eval("arenaViewer.goto(3)");
    let shown = b.eval("document.getElementById('stderr-text').innerText");
    assert_eq!(shown.as_str(), actions[2]["stderr"].as_str(), "step 3");
    let which = b.eval("document.getElementById('stderr-which').innerText");
    let role = actions[2]["role"].as_str().unwrap();
    assert!(which.as_str().unwrap().starts_with(&format!("{role} · its decision at this step")));

    // The other seat, pinned: its latest decision before step 3.
    let other = 1 - actions[2]["seat"].as_u64().unwrap();
    b.eval(&format!(
        "document.querySelector('.stderr-tabs button[data-seat=\"{other}\"]').click()"
    ));
    let latest = (0..2).rev().find(|&k| actions[k]["seat"] == other).expect("both seats acted");
    let shown = b.eval("document.getElementById('stderr-text').innerText");
    assert_eq!(shown.as_str(), actions[latest]["stderr"].as_str(), "seat {other} at step 3");

    // Searching finds every decision of the pinned seat that wrote the words, and marks them.
    search(&mut b, "turn 2: answering");
    let hits =
        b.eval("[...document.querySelectorAll('#stderr-hits button')].map(b => +b.innerText)");
    let second = actions.iter().enumerate().filter(|(_, a)| a["seat"] == other).nth(1).unwrap().0;
    assert_eq!(hits, Value::from(vec![second as u64 + 1]));
    b.eval("document.querySelector('#stderr-hits button').click()");
    assert_eq!(b.eval("arenaViewer.index"), Value::from(second as u64 + 1));
    assert_eq!(b.eval("document.querySelectorAll('#stderr-text mark').length"), 1);

    // The metric `turn` (chosen) has one line per seat, through each seat's decisions.
    b.eval(
        "{ const m = document.getElementById('metric-name'); m.value = 'turn'; \
         m.dispatchEvent(new Event('change')) }",
    );
    let series = b.eval(
        "[...document.querySelectorAll('#metric-plot path.series')].map(p => \
         [+p.dataset.seat, p.getAttribute('d').split(/[ML]/).length - 1])",
    );
    let decisions = |seat: u64| actions.iter().filter(|a| a["seat"] == seat).count() as u64;
    assert_eq!(series, serde_json::json!([[0, decisions(0)], [1, decisions(1)]]));
    let values = b.eval("document.getElementById('metric-values').innerText");
    assert!(values.as_str().unwrap().contains("(step"), "{values}");
    search(&mut b, "");
    b.eval("document.querySelector('.stderr-tabs button[data-seat=\"\"]').click()");
    b.eval("arenaViewer.goto(5)");
    assert!(b.problems(0).is_empty(), "{:?}", b.problems(0));
    // Long bot names (absolute paths) must not push the panel off the screen.
    assert_eq!(b.eval("document.documentElement.scrollWidth <= innerWidth"), Value::Bool(true));
    photograph(&mut b, "viewer-stderr", Some("viewer-stderr.png"), None);
}

/// Types `text` into the stderr panel's search box.
fn search(b: &mut browser::Browser, text: &str) {
    b.eval(&format!(
        "{{ const s = document.getElementById('stderr-search'); s.value = {}; \
         s.dispatchEvent(new Event('input')) }}",
        Value::from(text)
    ));
}

#[test]
fn a_bot_that_reads_one_line_too_many_ends_at_once_with_its_own_detail() {
    // Both slip on their second turn: sh reads a byte at a time, Python a buffered block. On
    // the CPU clock the wall-clock cap of that turn is 2.5 s, of the first 11 s.
    let cases = [
        ("sh", "reads_one_line_too_many.sh", "auto"),
        ("sh", "reads_one_line_too_many.sh", "off"),
        ("python3", "reads_one_line_too_many.py", "auto"),
    ];
    for (interpreter, name, sandbox) in cases {
        let dir = tempfile::tempdir().unwrap();
        let replay = dir.path().join("r.jsonl");
        let replay = replay.to_str().unwrap();
        let extra = ["--sandbox", sandbox, "--clock", "cpu", "--first-turn-ms", "5000"];
        let extra = [&extra[..], &["--replay", replay]].concat();
        let o = play_virus(|p| bot(interpreter, name, p, &[]), &extra);
        o.expect("timeout", Some("virus"));
        assert_eq!(o.summary["turns"], 2, "{name} {sandbox}: one cut, one agent move");
        let detail = o.detail();
        assert!(
            detail.starts_with("waiting for input that will never come: it had read all ")
                && detail.contains("(1 this turn)"),
            "{name} {sandbox}: {detail}"
        );
        // Every line sent: the init block and one per turn.
        let lines: u64 = detail["waiting for input that will never come: it had read all ".len()..]
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(lines > 3, "{detail}");
        // The slip is on the second turn, the first may be slow on a loaded machine: what came
        // after the first decision (the agent's move, the second turn, the bot's end) took less
        // than a second, where the second turn's wall-clock cap is 2.5 s.
        let first_ms = replay_lines(Path::new(replay))[1]["micros"].as_f64().unwrap() / 1000.0;
        let after_first = o.summary["duration_ms"].as_f64().unwrap() - first_ms;
        assert!(after_first < 1000.0, "{name} {sandbox}: {after_first} ms after the first turn");
    }
}

#[test]
fn a_tournament_writes_each_seat_s_metrics_and_the_report_shows_each_bot_s_means() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let maps = root().join("arenas/maps/skynet");
    let fixtures = root().join("tests/fixtures/bots").display().to_string();
    let bots = root().join("bots").display().to_string();
    let spec = |program: &str| chatty(program).replace('\\', "\\\\").replace('"', "\\\"");
    let text = format!(
        "name = \"chatty\"\ngame = \"skynet\"\nseed = 3\ngames_per_pairing = 2\n\
         [limits]\nfirst_turn_ms = 5000\nturn_ms = 1000\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_03.txt\"]\n\
         [[bots]]\nname = \"chatty-virus\"\nspec = \"{1}\"\nroles = [\"virus\"]\n\
         external = {{ files = [\"{3}\", \"{4}\"] }}\n\
         [[bots]]\nname = \"chatty-agent\"\nspec = \"{2}\"\nroles = [\"agent\"]\n\
         external = {{ files = [\"{3}\", \"{4}\"] }}\n\
         [[bots]]\nname = \"cg-ep2\"\nroles = [\"agent\"]\n",
        maps.display(),
        spec("skynet_virus.py"),
        spec("skynet_agent.py"),
        fixtures,
        bots
    );
    let results = run_arena_file(dir.path(), "chatty", &text);
    let metrics = std::fs::read_to_string(results.join("metrics.csv")).unwrap();
    let matches = std::fs::read_to_string(results.join("matches.csv")).unwrap();
    let played = matches.lines().count() - 1;
    assert_eq!(played, 4, "{matches}");
    let with_chatty_agent = matches.lines().filter(|l| l.contains(",chatty-agent,")).count();
    let mut lines = metrics.lines();
    assert_eq!(lines.next(), Some("match,seat,role,bot,metric,decisions,last,mean,max"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Every match: the virus reports two metrics; the chatty agent two more where it played.
    let virus_rows = rows.iter().filter(|r| r[3] == "chatty-virus").count();
    let agent_rows = rows.iter().filter(|r| r[3] == "chatty-agent").count();
    assert_eq!((virus_rows, agent_rows), (2 * played, 2 * with_chatty_agent), "{metrics}");
    for r in rows.iter().filter(|r| r[4] == "turn") {
        // `turn` counts a seat's decisions: last = max = decisions, mean = (decisions + 1) / 2.
        let decisions: f64 = r[5].parse().unwrap();
        let [last, mean, max]: [f64; 3] = [6, 7, 8].map(|i| r[i].parse().unwrap());
        assert_eq!((last, max), (decisions, decisions), "{r:?}");
        assert!((mean - (decisions + 1.0) / 2.0).abs() < 1e-6, "{r:?}");
    }
    let mut sorted = rows.clone();
    sorted.sort_by_key(|r| (r[0].parse::<u64>().unwrap(), r[1].to_string(), r[4].to_string()));
    assert_eq!(rows, sorted, "sorted by match, seat and metric");

    // The report: a mean per bot and metric, nothing for the bot that reports none.
    let Some(mut b) = browser::launch() else { return };
    let page = results.join("report.html");
    open_clean(&mut b, &page);
    let table = b.eval(
        "[...document.querySelectorAll('#metric-means tr')].map(r => \
         [...r.children].map(c => c.innerText.split(' ')[0]))",
    );
    let table: Vec<Vec<String>> = serde_json::from_value(table).unwrap();
    assert_eq!(table[0], ["bot", "answer_len", "turn"]);
    let bots: Vec<&str> = table[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(bots, ["chatty-virus", "chatty-agent"]);
    let virus = &table[1];
    let answer_len: f64 = virus[1].parse().unwrap();
    assert!((3.0..=5.0).contains(&answer_len), "a cut is `a b`: {virus:?}");
    b.eval("document.getElementById('metrics').scrollIntoView()");
    photograph(&mut b, "report-metrics", None, None);
}
