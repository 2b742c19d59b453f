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

/// `OPTIONS` (words split at spaces) followed by a `--bot` for each bot spec.
fn args(options: &str, bots: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = options.split_whitespace().map(str::to_string).collect();
    for bot in bots {
        out.extend(["--bot".to_string(), bot.to_string()]);
    }
    out
}

/// Plays `arena play GAME ARGS...` with roomy limits and a replay; checks that the match ended by
/// the rules (reporting the culprit and its stderr otherwise) and that the replay verifies.
fn play_clean(game: &str, args: &[String]) -> Clean {
    let run = Arena::new()
        .args(["play", game, "--json", "--replay", "m.jsonl"])
        .args(ROOMY)
        .args(args)
        .run()
        .success();
    let summary: Value = serde_json::from_str(run.stdout().trim())
        .unwrap_or_else(|e| panic!("a JSON summary ({e}):\n{}", run.stdout()));
    // Risk's turn cap is the rules' end too (`turn_limit`), not a bot's fault.
    assert!(
        summary["termination"] == "normal" || summary["termination"] == "turn_limit",
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
    for (options, virus) in [
        ("", "virus=greedy"),
        ("--variant ep1", "virus=random"),
        ("--gen nodes=40,gateways=3 --seed 7", "virus=random"),
        ("--variant ep1 --gen nodes=60,gateways=4 --seed 8", "virus=greedy"),
    ] {
        let clean = play_clean("skynet", &args(options, &[virus, &agent]));
        assert!(!clean.by("agent").is_empty(), "the agent never moved: {options}");
    }
}

#[test]
fn the_python_virus_and_agent_play_each_other() {
    let (virus, agent) = (python("virus", "skynet_virus.py"), python("agent", "skynet_agent.py"));
    for seed in ["3", "4"] {
        let options = format!("--gen nodes=30 --seed {seed}");
        let clean = play_clean("skynet", &args(&options, &[&virus, &agent]));
        assert!(
            !clean.by("virus").is_empty() && !clean.by("agent").is_empty(),
            "{}",
            clean.summary
        );
    }
}

#[test]
fn the_python_painter_plays_both_roles() {
    let (alma, berthe) =
        (python("alma", "painters_random.py"), python("berthe", "painters_random.py"));
    for (options, bots, role) in [
        ("", [alma.as_str(), "berthe=greedy"], "alma"),
        ("--gen size=9,blocked=0.15 --seed 5", ["alma=random", &berthe], "berthe"),
        ("--gen size=11,blocked=0.05 --seed 6", [&alma, &berthe], "alma"),
        ("--gen size=7,blocked=0.3 --seed 9", [&alma, &berthe], "berthe"),
    ] {
        let clean = play_clean("painters", &args(options, &bots));
        let moves = clean.by(role);
        assert!(!moves.is_empty(), "{role} never moved: {options}");
        assert!(moves.iter().all(|m| m.split(' ').count() == 2), "{moves:?}");
    }
}

#[test]
fn the_python_spider_bot_plays_both_roles_under_every_option() {
    let defender = python("defender", "spiders_random.py");
    let spiders = python("spiders", "spiders_random.py");
    let must_and_pass = "--opt all_must_move=true --opt defender_may_pass=true";
    for (options, bots) in [
        (String::new(), [defender.as_str(), "spiders=greedy"]),
        ("--gen kind=graph,nodes=20 --seed 4".into(), [&defender, "spiders=adversary"]),
        (String::new(), ["defender=emergency", &spiders]),
        (
            format!("--gen kind=graph,nodes=20,spiders=3 --seed 9 {must_and_pass}"),
            ["defender=random", &spiders],
        ),
        (
            format!("--gen kind=graph,nodes=30,spiders=3,flies=3 --seed 10 {must_and_pass}"),
            [&defender, &spiders],
        ),
        ("--gen kind=path,nodes=16,spiders=3 --seed 11".into(), [&defender, &spiders]),
    ] {
        let clean = play_clean("spiders", &args(&options, &bots));
        for role in ["defender", "spiders"] {
            let external = bots.iter().any(|b| b.starts_with(&format!("{role}=cmd:")));
            assert!(!external || !clean.by(role).is_empty(), "{role} never acted: {options}");
        }
    }
}

#[test]
fn the_python_risk_bot_answers_every_kind_of_decision() {
    let bot = |k: u32| python(&format!("player{k}"), "risk_random.py");
    let (p1, p2, p3) = (bot(1), bot(2), bot(3));
    let mut verbs = std::collections::BTreeSet::new();
    // Two players (a dealt start, neutral placements, defending the neutral), three (claiming),
    // and four with every other option; short games.
    for (options, bots) in [
        ("--opt players=2 --opt max_rounds=20", vec![p1.as_str(), "player2=greedy"]),
        (
            "--opt players=3 --opt max_rounds=8 --seed 2",
            vec!["player1=greedy", &p2, "player3=random"],
        ),
        (
            "--opt players=4 --opt max_rounds=10 --seed 3 --opt defence=auto --opt fortify=adjacent --opt deal=random",
            vec![&p1, "player2=planner", &p3, "player4=random"],
        ),
    ] {
        let clean = play_clean("risk", &args(options, &bots));
        for (k, spec) in bots.iter().enumerate() {
            if spec.contains("=cmd:") {
                let role = format!("player{}", k + 1);
                let actions = clean.by(&role);
                assert!(actions.len() > 20, "{role} played {actions:?}");
                verbs
                    .extend(actions.iter().filter_map(|a| a.split(' ').next()).map(str::to_string));
            }
        }
    }
    // The seeds are such that every kind of answer comes up; a change of the rules' randomness
    // may need others.
    for verb in ["claim", "place", "trade", "attack", "defend", "move", "fortify", "end"] {
        assert!(verbs.contains(verb), "the Python bot never answered `{verb}`: {verbs:?}");
    }
}

#[test]
fn the_bots_readme_lists_every_example_bot() {
    let readme = std::fs::read_to_string(root().join("bots/README.md")).expect("bots/README.md");
    let dir = std::fs::read_dir(root().join("bots")).expect("the bots folder");
    let mut bots: Vec<String> = dir
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".py"))
        .collect();
    bots.sort();
    assert!(bots.len() >= 5, "{bots:?}");
    for bot in bots {
        assert!(readme.contains(&format!("`{bot}`")), "bots/README.md does not list {bot}");
        assert!(readme.contains(&format!("python3 bots/{bot}")), "no command runs {bot}");
    }
}
