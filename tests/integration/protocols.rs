//! The example bots of `bots/` (Python 3, standard library only) play every role of every game
//! through the real `arena` binary. Each one reads nothing but what `docs/protocol.md` says the
//! protocol gives, so a clean match (`normal`, never `garbage`, `illegal` or `timeout`) whose
//! replay verifies shows that the protocol carries everything a bot needs to play legally.

use serde_json::Value;

use crate::support::{Arena, root};

/// Generous limits: CI is a loaded 2-core machine and Python starts slowly.
const ROOMY: [&str; 4] = ["--first-turn-ms", "5000", "--turn-ms", "2000"];

/// `ROLE=cmd:python3 /abs/path/bots/FILE`.
fn python(role: &str, file: &str) -> String {
    let path = root().join("bots").join(file).display().to_string();
    format!("{role}=cmd:python3 {}", shell_words::quote(&path))
}

/// A finished clean match: its JSON summary and the actions of its replay.
struct Clean {
    summary: Value,
    /// `(role, action text)` for every step, in order.
    actions: Vec<(String, String)>,
}

impl Clean {
    /// The actions `role` played.
    fn by(&self, role: &str) -> Vec<&str> {
        self.actions.iter().filter(|(r, _)| r == role).map(|(_, a)| a.as_str()).collect()
    }
}

/// Plays `arena play GAME ARGS...` with roomy limits and a replay; checks that the match ended by
/// the rules (reporting the culprit and its stderr otherwise) and that the replay verifies.
fn play_clean(game: &str, args: &[&str]) -> Clean {
    let run = Arena::new()
        .args(["play", game, "--json", "--replay", "m.jsonl"])
        .args(ROOMY)
        .args(args)
        .run()
        .success();
    let summary: Value = serde_json::from_str(run.stdout().trim())
        .unwrap_or_else(|e| panic!("a JSON summary ({e}):\n{}", run.stdout()));
    assert_eq!(
        summary["termination"],
        "normal",
        "{game} {args:?} did not end by the rules:\n{summary:#}\nstderr:\n{}",
        run.stderr()
    );
    let replay = run.dir.join("m.jsonl");
    let text = std::fs::read_to_string(&replay).expect("the replay is written");
    let actions = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|v| v.get("action").is_some())
        .map(|v| (v["role"].as_str().unwrap_or_default().to_string(), v["action"].to_string()))
        .map(|(role, action)| (role, action.trim_matches('"').to_string()))
        .collect();
    Arena::new().args(["replay", "--verify", &replay.display().to_string()]).run().success();
    Clean { summary, actions }
}

#[test]
fn the_python_agent_walks_legally_in_both_episodes() {
    let agent = python("agent", "skynet_agent.py");
    for args in [
        vec!["--bot", "virus=greedy", "--bot", &agent],
        vec!["--variant", "ep1", "--bot", "virus=random", "--bot", &agent],
        vec![
            "--gen",
            "nodes=40,gateways=3",
            "--seed",
            "7",
            "--bot",
            "virus=random",
            "--bot",
            &agent,
        ],
    ] {
        let clean = play_clean("skynet", &args);
        assert!(!clean.by("agent").is_empty(), "the agent never moved: {args:?}");
    }
}

#[test]
fn the_python_virus_and_agent_play_each_other() {
    let (virus, agent) = (python("virus", "skynet_virus.py"), python("agent", "skynet_agent.py"));
    let clean = play_clean(
        "skynet",
        &["--gen", "nodes=30", "--seed", "3", "--bot", &virus, "--bot", &agent],
    );
    assert!(!clean.by("virus").is_empty() && !clean.by("agent").is_empty(), "{}", clean.summary);
}

#[test]
fn the_python_painter_plays_both_roles() {
    let cases = [
        vec![
            "--bot".to_string(),
            python("alma", "painters_random.py"),
            "--bot".into(),
            "berthe=greedy".into(),
        ],
        vec![
            "--gen".to_string(),
            "size=9,blocked=0.15".into(),
            "--seed".into(),
            "5".into(),
            "--bot".into(),
            "alma=random".into(),
            "--bot".into(),
            python("berthe", "painters_random.py"),
        ],
    ];
    for (case, role) in cases.iter().zip(["alma", "berthe"]) {
        let args: Vec<&str> = case.iter().map(String::as_str).collect();
        let clean = play_clean("painters", &args);
        let moves = clean.by(role);
        assert!(moves.len() >= 2, "{role} moved {moves:?}");
        assert!(moves.iter().all(|m| m.split(' ').count() == 2), "{moves:?}");
    }
}

#[test]
fn the_python_spider_bot_plays_both_roles_under_every_option() {
    let defender = python("defender", "spiders_random.py");
    let spiders = python("spiders", "spiders_random.py");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--bot", &defender, "--bot", "spiders=greedy"], "defender"),
        (
            vec![
                "--gen",
                "kind=graph,nodes=20",
                "--seed",
                "4",
                "--bot",
                &defender,
                "--bot",
                "spiders=greedy",
            ],
            "defender",
        ),
        (vec!["--bot", "defender=emergency", "--bot", &spiders], "spiders"),
        (
            vec![
                "--gen",
                "kind=graph,nodes=20,spiders=3",
                "--seed",
                "9",
                "--opt",
                "all_must_move=true",
                "--opt",
                "defender_may_pass=true",
                "--bot",
                "defender=random",
                "--bot",
                &spiders,
            ],
            "spiders",
        ),
    ];
    for (args, role) in cases {
        let clean = play_clean("spiders", &args);
        assert!(!clean.by(role).is_empty(), "{role} never acted: {args:?}");
    }
}

#[test]
fn the_python_risk_bot_answers_every_kind_of_decision() {
    let mut verbs = std::collections::BTreeSet::new();
    // Two players (dealt, neutral placements, neutral defence) and three (claiming), short games.
    let two = python("player1", "risk_random.py");
    let three = python("player2", "risk_random.py");
    for (args, role) in [
        (
            vec![
                "--opt",
                "players=2",
                "--opt",
                "max_rounds=20",
                "--bot",
                &two,
                "--bot",
                "player2=greedy",
            ],
            "player1",
        ),
        (
            vec![
                "--opt",
                "players=3",
                "--opt",
                "max_rounds=8",
                "--seed",
                "2",
                "--bot",
                "player1=greedy",
                "--bot",
                &three,
                "--bot",
                "player3=random",
            ],
            "player2",
        ),
    ] {
        let clean = play_clean("risk", &args);
        let actions = clean.by(role);
        assert!(actions.len() > 20, "{role} played {actions:?}");
        verbs.extend(actions.iter().filter_map(|a| a.split(' ').next()).map(str::to_string));
    }
    // The seeds are such that every kind of answer comes up; a change of the rules' randomness
    // may need others.
    for verb in ["claim", "place", "trade", "attack", "defend", "move", "fortify", "end"] {
        assert!(verbs.contains(verb), "the Python bot never answered `{verb}`: {verbs:?}");
    }
}
