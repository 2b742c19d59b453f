//! A results folder that grows with its arena (issue 23): a bot added plays only its pairings, a
//! bot whose file changed has only its matches played again (the old rows archived), a bot
//! removed leaves the tables; every other row stays byte for byte.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::root;

/// A temp folder with an arena of the shipped Skynet maps and the bots given.
struct Pool {
    dir: tempfile::TempDir,
}

impl Pool {
    fn new() -> Pool {
        let pool = Pool { dir: tempfile::tempdir().expect("a temp dir") };
        // A Python virus bot whose file the tests edit.
        std::fs::copy(root().join("bots/skynet_virus.py"), pool.path().join("v.py"))
            .expect("copy the virus bot");
        pool
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn results(&self) -> PathBuf {
        self.path().join("results/grow")
    }

    /// Writes `grow.toml` with these `[[bots]]` tables.
    fn arena(&self, bots: &str) {
        let maps = root().join("arenas/maps/skynet");
        let text = format!(
            "name = \"grow\"\ngame = \"skynet\"\nseed = 3\ngames_per_pairing = 2\n\
             [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\"]\n{bots}",
            maps.display()
        );
        std::fs::write(self.path().join("grow.toml"), text).expect("write the arena");
    }

    fn run(&self, extra: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["run", "grow.toml", "-j", "2", "--json"])
            .args(extra)
            .current_dir(self.path())
            .output()
            .expect("arena runs")
    }

    /// Runs and returns the JSON report and stderr, failing the test unless it succeeds.
    fn ok(&self) -> (serde_json::Value, String) {
        let out = self.run(&[]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        (serde_json::from_slice(&out.stdout).expect("JSON"), stderr)
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.results().join(file)).unwrap_or_default()
    }
}

const ALPHA_BETA: &str = "[[bots]]\nname = \"alpha\"\nspec = \"random\"\n\
                          [[bots]]\nname = \"beta\"\nspec = \"greedy\"\nroles = [\"virus\"]\n\
                          [[bots]]\nname = \"gamma\"\nspec = \"cg-ep2\"\nroles = [\"agent\"]\n";
const PY: &str = "[[bots]]\nname = \"py\"\nspec = \"cmd:python3 v.py\"\nroles = [\"virus\"]\n";

/// The data rows of a `matches.csv`.
fn rows(text: &str) -> Vec<&str> {
    text.lines().skip(1).collect()
}

fn involves(row: &str, bot: &str) -> bool {
    row.split(',').any(|field| field == bot)
}

#[test]
fn a_bot_added_to_a_finished_run_plays_only_its_pairings_and_the_old_rows_stay_as_they_were() {
    let pool = Pool::new();
    pool.arena(ALPHA_BETA);
    let (first, _) = pool.ok();
    let before = pool.read("matches.csv");
    // alpha-beta (alpha as agent), alpha-gamma (alpha as virus), beta-gamma: 2 games each.
    assert_eq!((first["played"].as_u64(), rows(&before).len()), (Some(6), 6), "{first}");

    // `delta` plays both roles: one order against beta and gamma, two against alpha.
    pool.arena(&format!("{ALPHA_BETA}[[bots]]\nname = \"delta\"\nspec = \"random\"\n"));
    let (second, stderr) = pool.ok();
    assert!(
        stderr.contains("grow: 8 new matches (bot `delta` added), 6 kept"),
        "the run says what it will do first:\n{stderr}"
    );
    assert_eq!(second["played"].as_u64(), Some(8), "{second}");
    assert_eq!(second["update"]["added"], serde_json::json!(["delta"]), "{second}");
    let after = pool.read("matches.csv");
    assert!(after.starts_with(&before), "the old rows, byte for byte, first:\n{after}");
    let new = &rows(&after)[6..];
    assert!(new.iter().all(|r| involves(r, "delta")), "{new:#?}");
    assert!(!pool.results().join("archive").exists(), "nothing archived");
    assert!(pool.read("summary.csv").contains(",delta,"));

    // Once more: nothing is left to play.
    let (third, stderr) = pool.ok();
    assert_eq!(third["played"].as_u64(), Some(0), "{third}\n{stderr}");
    assert_eq!(pool.read("matches.csv"), after);
}

#[test]
fn a_bot_whose_file_changed_has_only_its_matches_played_again_and_its_old_rows_archived() {
    let pool = Pool::new();
    pool.arena(&format!("{ALPHA_BETA}{PY}"));
    pool.ok();
    let before = pool.read("matches.csv");
    let (of_py, others): (Vec<&str>, Vec<&str>) =
        rows(&before).into_iter().partition(|r| involves(r, "py"));
    // py plays the virus side against alpha and gamma.
    assert_eq!((of_py.len(), others.len()), (4, 6), "{before}");

    let script = pool.path().join("v.py");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(&script, format!("{text}\n# version 2\n")).unwrap();
    let (report, stderr) = pool.ok();
    assert!(
        stderr.contains("grow: 0 new matches, 4 played again (`py` files changed), 6 kept"),
        "{stderr}"
    );
    assert_eq!(report["played"].as_u64(), Some(4), "{report}");
    assert_eq!(report["update"]["changed"][0]["bot"], "py", "{report}");
    let after = pool.read("matches.csv");
    let kept = rows(&after);
    assert_eq!(&kept[..6], &others[..], "the other rows, byte for byte, in their order");
    assert!(kept[6..].iter().all(|r| involves(r, "py")), "{after}");
    // The old rows are in the archive, a results folder of the inputs they were played with.
    let archive = pool.results().join("archive/001");
    let archived = std::fs::read_to_string(archive.join("matches.csv")).expect("archived rows");
    assert_eq!(rows(&archived), of_py, "{archived}");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(archive.join("meta.json")).unwrap()).unwrap();
    let py = meta["inputs"]["bots"].as_array().unwrap().iter().find(|b| b["name"] == "py");
    let files = py.expect("py in the archive's inputs")["files"].to_string();
    let now: serde_json::Value = serde_json::from_str(&pool.read("meta.json")).unwrap();
    assert_ne!(
        files,
        now["inputs"]["bots"][3]["files"].to_string(),
        "the archive keeps the old file's hash"
    );
    // The same ids were played again: the matches are the same matches.
    let ids = |rows: &[&str]| {
        let mut ids: Vec<String> =
            rows.iter().map(|r| r.split(',').next().unwrap().into()).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&kept[6..]), ids(&of_py));
}

#[test]
fn a_bot_removed_leaves_the_tables_and_its_rows_stay_on_disk() {
    let pool = Pool::new();
    pool.arena(&format!("{ALPHA_BETA}[[bots]]\nname = \"delta\"\nspec = \"random\"\n"));
    pool.ok();
    let before = pool.read("matches.csv");
    pool.arena(ALPHA_BETA);
    let (report, stderr) = pool.ok();
    assert_eq!(report["played"].as_u64(), Some(0), "{report}");
    assert!(stderr.contains("8 rows of retired `delta` archived"), "{stderr}");
    let bots: Vec<&str> = report["standings"]["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bot"].as_str().unwrap())
        .collect();
    assert!(!bots.contains(&"delta") && bots.len() == 3, "{bots:?}");
    assert!(!pool.read("summary.csv").contains("delta"));
    let after = pool.read("matches.csv");
    let others: Vec<&str> = rows(&before).into_iter().filter(|r| !involves(r, "delta")).collect();
    assert_eq!(rows(&after), others);
    let archived = std::fs::read_to_string(pool.results().join("archive/001/matches.csv")).unwrap();
    assert_eq!(rows(&archived).len(), 8);
    assert!(rows(&archived).iter().all(|r| involves(r, "delta")));

    // The retired bot is shown on request, its archived rows counted again.
    let out = pool.run(&["--retired"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let delta = shown["standings"]["bots"].as_array().unwrap().iter().find(|b| b["bot"] == "delta");
    assert_eq!(delta.expect("delta shown")["games"].as_u64(), Some(8), "{shown}");

    // Back in the file, unchanged: it plays its matches again (its archived rows stay where
    // they are).
    pool.arena(&format!("{ALPHA_BETA}[[bots]]\nname = \"delta\"\nspec = \"random\"\n"));
    let (back, _) = pool.ok();
    assert_eq!(back["played"].as_u64(), Some(8), "{back}");
}

#[test]
fn a_settings_change_that_touches_every_match_is_still_refused() {
    let pool = Pool::new();
    pool.arena(ALPHA_BETA);
    pool.ok();
    let text = std::fs::read_to_string(pool.path().join("grow.toml")).unwrap();
    std::fs::write(pool.path().join("grow.toml"), text.replace("seed = 3", "seed = 4")).unwrap();
    let out = pool.run(&[]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`seed` changed") && stderr.contains("--fresh"), "{stderr}");
}

/// A league of a Python virus (deterministic, and slow enough to be killed mid-run), the
/// CodinGame agent, `random` (both roles) and `greedy` (virus), at most `min_games` first.
fn league_arena(pool: &Pool, name: &str) {
    let maps = root().join("arenas/maps/skynet");
    let text = format!(
        "name = \"{name}\"\ngame = \"skynet\"\nseed = 9\nformat = \"league\"\n\
         [league]\nmin_games = 3\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\", \"{0}/ep2_03.txt\"]\n\
         {PY}[[bots]]\nname = \"cg\"\nspec = \"cg-ep2\"\nroles = [\"agent\"]\n\
         [[bots]]\nname = \"rnd\"\nspec = \"random\"\n\
         [[bots]]\nname = \"greedy\"\nspec = \"greedy\"\nroles = [\"virus\"]\n",
        maps.display()
    );
    std::fs::write(pool.path().join(format!("{name}.toml")), text).expect("write the league");
}

fn league(pool: &Pool, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
    cmd.arg("league").args(args).current_dir(pool.path());
    cmd
}

/// The reproducible part of each row (before `duration_ms`), sorted.
fn reproducible(matches: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(matches).expect("matches.csv");
    let mut rows: Vec<String> =
        text.lines().skip(1).map(|l| l.split(',').take(20).collect::<Vec<_>>().join(",")).collect();
    rows.sort();
    rows
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0)
}

/// Waits (up to a minute) until `done` holds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(start.elapsed().as_secs() < 60, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_league_killed_with_kill_9_resumes_to_the_same_rows_as_one_that_was_not() {
    let pool = Pool::new();
    league_arena(&pool, "l");
    let whole =
        league(&pool, &["run", "l.toml", "--matches", "30", "-j", "1", "--out", "whole", "-q"])
            .output()
            .expect("arena runs");
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let reference = reproducible(&pool.path().join("whole/matches.csv"));
    assert_eq!(reference.len(), 30);
    // Every bot got its first games, and the bots met in every seat order they can.
    for bot in ["py", "cg", "rnd", "greedy"] {
        let games = reference.iter().filter(|r| involves(r, bot)).count();
        assert!(games >= 3, "{bot}: {games} games\n{reference:#?}");
    }

    let killed = pool.path().join("killed/matches.csv");
    let mut child =
        league(&pool, &["run", "l.toml", "--matches", "30", "-j", "1", "--out", "killed", "-q"])
            .spawn()
            .expect("arena starts");
    wait_for("a dozen rows", || lines(&killed) > 12);
    child.kill().expect("kill -9");
    child.wait().expect("reaped");
    let before = lines(&killed) - 1;
    assert!(before < 30, "the kill must land mid-run ({before} rows)");
    let resumed = league(
        &pool,
        &["run", "l.toml", "--matches", "30", "-j", "1", "--out", "killed", "--json"],
    )
    .output()
    .expect("arena runs");
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let report: serde_json::Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(report["matches"].as_u64(), Some(30), "{report}");
    assert_eq!(reproducible(&killed), reference, "no match lost or doubled, the same matches");

    // Run again: the budget is reached, nothing is played.
    let again = league(&pool, &["run", "l.toml", "--matches", "30", "--out", "killed", "--json"])
        .output()
        .expect("arena runs");
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["played"].as_u64(), Some(0), "{report}");
}

/// The Python bot's processes started from this pool, if any are left.
fn bots_alive(pool: &Pool) -> Vec<String> {
    // Its command line names the program by its absolute path (sandboxed bots run in a
    // private directory elsewhere).
    let program = pool.path().join("v.py").display().to_string();
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(&program) {
            alive.push(text);
        }
    }
    alive
}

#[test]
fn a_league_stops_at_its_minutes_and_on_ctrl_c_keeping_every_row_and_leaving_no_bot() {
    let pool = Pool::new();
    league_arena(&pool, "l");
    // --minutes: a budget of matches it cannot reach, a time it can.
    let timed = league(
        &pool,
        &["run", "l.toml", "--matches", "100000", "--minutes", "0.02", "--out", "t", "--json"],
    )
    .output()
    .expect("arena runs");
    assert!(timed.status.success(), "{}", String::from_utf8_lossy(&timed.stderr));
    let report: serde_json::Value = serde_json::from_slice(&timed.stdout).unwrap();
    let played = lines(&pool.path().join("t/matches.csv")) - 1;
    assert!(played > 0 && played < 100_000, "{played} rows");
    assert_eq!(report["matches"].as_u64(), Some(played as u64), "{report}");

    // Ctrl-C: exit 130, every row whole, the bots gone; a rerun picks up where it stopped.
    let matches = pool.path().join("c/matches.csv");
    let child =
        league(&pool, &["run", "l.toml", "--matches", "100000", "-j", "2", "--out", "c", "-q"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("arena starts");
    wait_for("a few rows", || lines(&matches) > 4);
    wait_for("the Python bot running", || !bots_alive(&pool).is_empty());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    let out = child.wait_with_output().expect("reaped");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(bots_alive(&pool), Vec::<String>::new(), "no bot outlives Ctrl-C");
    let kept = lines(&matches) - 1;
    let budget = (kept + 3).to_string();
    let rerun = league(&pool, &["run", "l.toml", "--matches", &budget, "--out", "c", "--json"])
        .output()
        .expect("arena runs");
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    let report: serde_json::Value = serde_json::from_slice(&rerun.stdout).unwrap();
    assert_eq!(report["played"].as_u64(), Some(3), "{report}");
    assert_eq!(lines(&matches) - 1, kept + 3, "the rows kept at Ctrl-C all count");
}

#[test]
fn a_bot_added_to_a_running_league_plays_at_once_and_a_retired_one_stops() {
    let pool = Pool::new();
    league_arena(&pool, "l");
    let matches = pool.path().join("results/l/matches.csv");
    let mut child = league(&pool, &["run", "l.toml", "--matches", "100000", "-j", "1", "-q"])
        .spawn()
        .expect("arena starts");
    wait_for("the first rows", || lines(&matches) > 4);
    let add = league(&pool, &["add", "l.toml", "newbie", "random"]).output().expect("arena runs");
    assert!(add.status.success(), "{}", String::from_utf8_lossy(&add.stderr));
    let rows_with = |bot: &str| {
        std::fs::read_to_string(&matches)
            .unwrap_or_default()
            .lines()
            .filter(|r| involves(r, bot))
            .count()
    };
    wait_for("newbie's first games", || rows_with("newbie") >= 3);
    // New first: its first three games come one after another.
    let text = std::fs::read_to_string(&matches).unwrap();
    let first = text.lines().position(|r| involves(r, "newbie")).unwrap();
    assert!(text.lines().skip(first).take(3).all(|r| involves(r, "newbie")), "{text}");

    let retire = league(&pool, &["retire", "l.toml", "greedy"]).output().expect("arena runs");
    assert!(retire.status.success(), "{}", String::from_utf8_lossy(&retire.stderr));
    assert!(!std::fs::read_to_string(pool.path().join("l.toml")).unwrap().contains("greedy"));
    wait_for("greedy's rows archived", || rows_with("greedy") == 0 && lines(&matches) > 1);
    let after = lines(&matches);
    wait_for("more games", || lines(&matches) > after + 5);
    assert_eq!(rows_with("greedy"), 0, "a retired bot plays no more");
    child.kill().expect("kill");
    child.wait().expect("reaped");
    let journal = std::fs::read_to_string(pool.path().join("results/l/league.jsonl")).unwrap();
    assert!(journal.contains(r#"{"join":{"bot":"newbie""#), "{journal}");
    assert!(journal.contains(r#"{"leave":{"bot":"greedy""#), "{journal}");
    let archived = pool.path().join("results/l/archive");
    assert!(archived.is_dir(), "greedy's rows are on disk");
}

/// The live report of a running league: rewritten as it plays, it reloads itself in an open
/// browser and shows every bot's rating, interval and games, and their history as lines.
#[test]
fn the_live_report_of_a_running_league_reloads_itself_in_a_browser() {
    let Some(mut b) = crate::browser::launch() else { return };
    let pool = Pool::new();
    league_arena(&pool, "l");
    let report = pool.path().join("results/l/report.html");
    let mut child =
        league(&pool, &["run", "l.toml", "-j", "1", "-q"]).spawn().expect("arena starts");
    wait_for("the live report", || report.exists());
    let since = b.open(&report);
    let shown = |b: &mut crate::browser::Browser| {
        let text = b.eval("document.querySelector('p.meta').textContent");
        text.as_str().unwrap().split(' ').next().unwrap().parse::<u64>().unwrap()
    };
    let first = shown(&mut b);
    let loads = |b: &crate::browser::Browser| {
        b.events[since..].iter().filter(|e| e["method"] == "Page.loadEventFired").count()
    };
    let start = std::time::Instant::now();
    while loads(&b) < 2 {
        assert!(start.elapsed().as_secs() < 60, "the page did not reload itself");
        std::thread::sleep(std::time::Duration::from_millis(300));
        b.call("Page.getFrameTree", serde_json::json!({}));
    }
    // Past the reload: the page's own figures grew.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let later = shown(&mut b);
    assert!(later > first, "the reloaded page shows more matches ({first} then {later})");
    let lines = b.eval("document.querySelectorAll('#rating-history polyline').length");
    assert!(lines.as_u64().unwrap() >= 4, "a line per bot: {lines}");
    let rated = b.eval("document.querySelector('#ratings').textContent");
    assert!(rated.as_str().unwrap().contains("greedy"), "{rated}");
    assert!(b.problems(since).is_empty(), "{:?}", b.problems(since));
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("screenshots");
    b.screenshot(&shots.join("league-live-report.png"), Some(2400));
    child.kill().expect("kill");
    child.wait().expect("reaped");
}

/// A Risk league of five bots, three to a game: every match seats three different bots, every
/// bot plays its first games and sits in every seat, and the ratings cover all five.
#[test]
fn a_risk_league_seats_three_bots_of_five_per_game_balanced() {
    let pool = Pool::new();
    let map = root().join("arenas/maps/risk/classic.txt");
    let mut text = format!(
        "name = \"risk\"\ngame = \"risk\"\nseed = 2\nformat = \"league\"\n\
         [options]\nplayers = 3\n[league]\nmin_games = 4\n[maps]\nfiles = [\"{}\"]\n",
        map.display()
    );
    for (name, spec) in
        [("r1", "random"), ("r2", "random"), ("g1", "greedy"), ("g2", "greedy"), ("pl", "planner")]
    {
        text.push_str(&format!("[[bots]]\nname = \"{name}\"\nspec = \"{spec}\"\n"));
    }
    std::fs::write(pool.path().join("risk.toml"), text).unwrap();
    let out = league(&pool, &["run", "risk.toml", "--matches", "30", "-j", "2", "--json"])
        .output()
        .expect("arena runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["played"].as_u64(), Some(30), "{report}");
    let matches = std::fs::read_to_string(pool.path().join("results/risk/matches.csv")).unwrap();
    let names = ["r1", "r2", "g1", "g2", "pl"];
    let mut seats = std::collections::BTreeMap::<(&str, usize), u32>::new();
    for row in rows(&matches) {
        let f: Vec<&str> = row.split(',').collect();
        let bots: Vec<&str> = (0..3).map(|s| f[5 + 4 * s + 1]).collect();
        let mut distinct = bots.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "three different bots a game: {row}");
        for (s, b) in bots.into_iter().enumerate() {
            let name = names.iter().find(|n| **n == b).expect("a bot of the pool");
            *seats.entry((name, s)).or_default() += 1;
        }
    }
    for name in names {
        let games: u32 = (0..3).map(|s| seats.get(&(name, s)).copied().unwrap_or(0)).sum();
        assert!(games >= 4, "{name} played its first games: {seats:?}");
        assert!((0..3).all(|s| seats.contains_key(&(name, s))), "{name} in every seat: {seats:?}");
    }
    let summary = std::fs::read_to_string(pool.path().join("results/risk/summary.csv")).unwrap();
    for name in names {
        assert!(summary.contains(&format!(",{name},")), "{name} rated:\n{summary}");
    }
}

/// A gauntlet of two candidates: each plays the field, the candidates never meet, and the
/// tables give the likelihood of superiority between neighbours.
#[test]
fn a_gauntlet_of_two_candidates_plays_each_against_the_field_only() {
    let pool = Pool::new();
    // The arena with these top-level lines (before its `[maps]` table).
    let gauntlet = |head: &str, bots: &str| {
        pool.arena(bots);
        let path = pool.path().join("grow.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("[maps]", &format!("{head}[maps]"), 1)).unwrap();
    };
    let delta = format!("{ALPHA_BETA}[[bots]]\nname = \"delta\"\nspec = \"random\"\n");
    gauntlet("format = \"gauntlet\"\ncandidate = \"alpha\"\n", &delta);
    let (first, _) = pool.ok();
    // alpha against beta (as agent), gamma (as virus) and delta (both ways), 2 games each.
    assert_eq!(first["played"].as_u64(), Some(8), "{first}");
    let before = pool.read("matches.csv");
    // delta becomes a candidate too: it plays beta and gamma; its games with alpha leave the plan.
    gauntlet("format = \"gauntlet\"\ncandidates = [\"delta\", \"alpha\"]\n", &delta);
    let (report, stderr) = pool.ok();
    assert_eq!(report["played"].as_u64(), Some(4), "{report}\n{stderr}");
    let matches = pool.read("matches.csv");
    let kept: Vec<&str> = rows(&before)
        .into_iter()
        .filter(|r| !(involves(r, "alpha") && involves(r, "delta")))
        .collect();
    assert!(rows(&matches).starts_with(&kept), "alpha's rows as they were:\n{matches}");
    for candidate in ["alpha", "delta"] {
        for opponent in ["beta", "gamma"] {
            let games = rows(&matches)
                .iter()
                .filter(|r| involves(r, candidate) && involves(r, opponent))
                .count();
            assert_eq!(games, 2, "{candidate} against {opponent}:\n{matches}");
        }
    }
    assert!(
        !rows(&matches).iter().any(|r| involves(r, "alpha") && involves(r, "delta")),
        "the candidates never meet:\n{matches}"
    );
    let summary = pool.read("summary.csv");
    assert!(summary.lines().next().unwrap().contains(",los_next,"), "{summary}");
    let bots = report["standings"]["bots"].as_array().expect("bots");
    assert!(bots.iter().any(|b| b["los_next"].is_number()), "{report}");

    // Both candidates named twice, or every bot a candidate: refused, naming the key.
    gauntlet("format = \"gauntlet\"\ncandidates = [\"alpha\", \"alpha\"]\n", ALPHA_BETA);
    let out = pool.run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("key `candidates`: `alpha` is named twice")
    );
}
