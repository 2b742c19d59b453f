//! The turn clock (`--clock cpu|wall`, docs/external-bots.md): on the CPU clock a bot is charged
//! the CPU time of all its processes, children included, and a bot that sleeps still ends at the
//! wall-clock cap. Functional checks with wide margins, never timings.

use std::time::Duration;

use crate::external::{FAST, bot, play_virus, python_fixture_files, str_refs};

#[test]
fn on_the_cpu_clock_a_sleeping_bot_ends_at_the_wall_cap() {
    for sandbox in ["auto", "off"] {
        let extra = [&FAST[..], &["--sandbox", sandbox, "--clock", "cpu", "--wall-cap-ms", "1500"]]
            .concat();
        let o = play_virus(|p| bot("sh", "sleeps_forever.sh", p, &[]), &extra);
        o.expect("timeout", Some("virus"));
        assert!(o.detail().contains("wall-clock cap 1500 ms"), "{}", o.detail());
        assert!(o.detail().contains("--wall-cap-ms"), "{}", o.detail());
        o.within(Duration::from_millis(1500));
        assert!(o.max_turn(0) >= Duration::from_millis(1500), "{:?}", o.max_turn(0));
    }
}

#[test]
fn on_the_cpu_clock_a_bot_is_charged_for_the_child_that_burns_its_cpu() {
    // The leader sleeps while its child burns CPU: the CPU limit (1 s on the first turn) ends
    // the turn long before the one-minute wall-clock cap.
    let cases = [("auto", "child"), ("off", "child"), ("auto", "orphan")];
    for (sandbox, how) in cases {
        let extra =
            [&FAST[..], &["--sandbox", sandbox, "--clock", "cpu", "--wall-cap-ms", "60000"]]
                .concat();
        let o = play_virus(|p| bot("sh", "cpu_hider.sh", p, &[how]), &extra);
        o.expect("timeout", Some("virus"));
        let detail = o.detail();
        assert!(
            detail.contains("first-turn limit 1000 ms of CPU time"),
            "{sandbox} {how}: {detail}"
        );
        assert!(!detail.contains("wall-clock cap"), "{sandbox} {how}: {detail}");
        // Charged at least its limit, ended far from the cap.
        let cpu = o.summary["max_turn_cpu_micros"][0].as_u64().unwrap_or(0);
        assert!(cpu >= 1_000_000, "{sandbox} {how}: {cpu} us of CPU");
        o.within(Duration::from_secs(20));
    }
}

#[test]
fn a_python_bot_plays_on_the_cpu_clock_and_both_times_are_recorded() {
    let files = python_fixture_files();
    let replay_dir = tempfile::tempdir().unwrap();
    let replay = replay_dir.path().join("r.jsonl");
    let replay_arg = replay.display().to_string();
    let extra = [
        &["--clock", "cpu", "--first-turn-ms", "2000", "--turn-ms", "500"][..],
        &["--replay", &replay_arg],
        &str_refs(&files),
    ]
    .concat();
    let virus = root_bot();
    let o = play_virus(|_| virus.clone(), &extra);
    o.expect("normal", None);
    let text = std::fs::read_to_string(&replay).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["seats"][0]["limits"]["clock"], "cpu", "{header}");
    let actions: Vec<serde_json::Value> = lines
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v.get("action").is_some())
        .collect();
    assert!(!actions.is_empty());
    for a in &actions {
        assert!(a["micros"].is_u64() && a["cpu_micros"].is_u64(), "{a}");
    }
    assert_eq!(o.summary["max_turn_cpu_micros"].as_array().map(Vec::len), Some(2));
}

fn root_bot() -> String {
    let virus = crate::support::root().join("bots/skynet_virus.py");
    format!("cmd:python3 {}", shell_words::quote(&virus.display().to_string()))
}
