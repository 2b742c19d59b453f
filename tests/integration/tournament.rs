//! `arena run`, `arena merge` and `arena sprt` end to end, on the real binary in temp folders.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::root;

/// A temp folder with an arena file whose maps are the shipped Skynet Episode 2 maps.
struct Folder {
    dir: tempfile::TempDir,
}

const BOTS: &str = r#"
[[bots]]
name = "alpha"
spec = "random"
[[bots]]
name = "beta"
spec = "random"
[[bots]]
name = "gamma"
spec = "random"
roles = ["virus"]
"#;

impl Folder {
    fn new(games: u32) -> Folder {
        let folder = Folder { dir: tempfile::tempdir().expect("a temp dir") };
        folder.write_arena("t", games, "");
        folder
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write_arena(&self, name: &str, games: u32, extra: &str) {
        let maps = root().join("arenas/maps/skynet");
        let text = format!(
            "name = \"{name}\"\ngame = \"skynet\"\nseed = 5\ngames_per_pairing = {games}\n{extra}\n\
             [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\", \"{0}/ep2_03.txt\"]\n{BOTS}",
            maps.display()
        );
        std::fs::write(self.path().join(format!("{name}.toml")), text).expect("write the arena");
    }

    fn arena(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            .current_dir(self.path())
            .output()
            .expect("arena runs")
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.arena(args);
        assert!(
            out.status.success(),
            "arena {args:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Starts `arena run t.toml -j JOBS` and returns once its matches.csv holds `bytes` bytes
    /// (or after 20 s), with the run still going.
    fn run_in_background(&self, jobs: &str, bytes: u64) -> std::process::Child {
        let child = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["run", "t.toml", "-j", jobs, "-q"])
            .current_dir(self.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("arena starts");
        let csv: PathBuf = self.path().join("results/t/matches.csv");
        let started = std::time::Instant::now();
        while std::fs::metadata(&csv).map(|m| m.len()).unwrap_or(0) < bytes
            && started.elapsed() < std::time::Duration::from_secs(20)
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
}

/// The reproducible content of a matches.csv: rows sorted by id, without the timing columns.
fn reproducible(csv: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let timing = header.iter().position(|c| *c == "duration_ms").expect("a duration column");
    let mut rows: Vec<(u64, String)> = lines
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            // No test field holds a comma, so splitting is safe here.
            (fields[0].parse().expect("an id"), fields[..timing].join(","))
        })
        .collect();
    rows.sort();
    rows.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn a_run_writes_rows_summaries_and_a_table() {
    let f = Folder::new(4);
    let stdout = f.ok(&["run", "t.toml", "-j", "2"]);
    assert!(stdout.contains("head to head") && stdout.contains("alpha"), "{stdout}");
    // Pairings: alpha-beta both ways, alpha-gamma and beta-gamma one way each: 4 per game.
    let rows = reproducible(&f.read("results/t/matches.csv"));
    assert_eq!(rows.len(), 16);
    let ids: std::collections::BTreeSet<u64> =
        rows.iter().map(|r| r.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(ids.len(), 16, "16 matches, each its own id");
    let summary = f.read("results/t/summary.csv");
    assert!(summary.starts_with("rank,bot,games,wins,draws,losses,mean_score,win_rate,"));
    assert_eq!(summary.lines().count(), 4);
    let pairwise = f.read("results/t/pairwise.csv");
    assert!(pairwise.contains("alpha,beta,8,") && !pairwise.contains("alpha,alpha"), "{pairwise}");
    // The report is drawn from the same files, at the end of every run.
    let report = f.read("results/t/report.html");
    assert!(report.contains("<svg") && report.contains("alpha") && report.contains("beta"));
}

#[test]
fn concurrency_does_not_change_the_results() {
    let f = Folder::new(30);
    f.ok(&["run", "t.toml", "-j", "1", "--out", "one"]);
    // Folders of one arena share its key (`results/t/seed.key`): the same results.
    f.ok(&["run", "t.toml", "-j", "4", "--out", "four"]);
    assert_eq!(reproducible(&f.read("one/matches.csv")), reproducible(&f.read("four/matches.csv")));
    assert_eq!(f.read("one/summary.csv"), f.read("four/summary.csv"));
    assert_eq!(f.read("one/pairwise.csv"), f.read("four/pairwise.csv"));
    assert_eq!(f.read("one/seed.key"), f.read("results/t/seed.key"));
    assert_eq!(f.read("four/seed.key"), f.read("results/t/seed.key"));

    // Another machine (another folder, no key given): the same master seed, other match seeds.
    let elsewhere = Folder::new(30);
    elsewhere.ok(&["run", "t.toml", "-j", "3", "--out", "other"]);
    let seeds = |f: &Folder, dir: &str| -> Vec<String> {
        let csv = f.read(&format!("{dir}/matches.csv"));
        let mut seeds: Vec<String> =
            csv.lines().skip(1).map(|l| l.split(',').nth(4).unwrap().to_string()).collect();
        seeds.sort();
        seeds
    };
    assert_ne!(f.read("one/seed.key"), elsewhere.read("other/seed.key"));
    let (one, other) = (seeds(&f, "one"), seeds(&elsewhere, "other"));
    assert!(one.iter().all(|s| !other.contains(s)), "no match seed in common: {one:?} {other:?}");
    // ... and with the first machine's seed.key, the first machine's results, byte for byte.
    let key = f.path().join("one/seed.key").display().to_string();
    elsewhere.ok(&["run", "t.toml", "-j", "2", "--out", "replayed", "--seed-key", &key]);
    let (ours, theirs) = (f.read("one/matches.csv"), elsewhere.read("replayed/matches.csv"));
    assert_eq!(reproducible(&ours), reproducible(&theirs));
    assert_eq!(f.read("one/summary.csv"), elsewhere.read("replayed/summary.csv"));
}

#[test]
fn a_torn_write_is_dropped_and_the_run_resumes() {
    let f = Folder::new(10);
    f.ok(&["run", "t.toml", "--out", "full"]);
    let full = f.read("full/matches.csv");
    // A killed run: the header, 13 rows, and half of the 14th.
    let lines: Vec<&str> = full.lines().collect();
    let mut torn: String = lines[..14].iter().map(|l| format!("{l}\n")).collect();
    torn.push_str(&lines[14][..lines[14].len() / 2]);
    std::fs::create_dir_all(f.path().join("part")).unwrap();
    std::fs::write(f.path().join("part/matches.csv"), torn).unwrap();
    std::fs::copy(f.path().join("full/meta.json"), f.path().join("part/meta.json")).unwrap();
    // The key travels with the rows (docs/tournaments.md, "Reproducing a run elsewhere").
    std::fs::copy(f.path().join("full/seed.key"), f.path().join("part/seed.key")).unwrap();

    let out = f.arena(&["run", "t.toml", "--out", "part"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("torn"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("played 27 matches (13 resumed)"));
    assert_eq!(reproducible(&f.read("part/matches.csv")), reproducible(&full));
    assert_eq!(f.read("part/summary.csv"), f.read("full/summary.csv"));

    // Running a finished arena again plays nothing.
    let again = f.ok(&["run", "t.toml", "--out", "part"]);
    assert!(again.contains("played 0 matches (40 resumed)"), "{again}");
}

/// The folder's `seed.key`: private, kept by a resume and by `--fresh` (a rerun replays the same
/// matches), and a resume refuses rows played with another key, naming the files.
#[test]
fn the_seed_key_is_private_kept_and_checked() {
    use std::os::unix::fs::PermissionsExt;
    let f = Folder::new(6);
    f.ok(&["run", "t.toml"]);
    let key = f.read("results/t/seed.key");
    let mode = std::fs::metadata(f.path().join("results/t/seed.key")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(key.len(), 65, "64 hex digits and a newline: {key:?}");
    // meta.json names the key by its id only.
    let meta = f.read("results/t/meta.json");
    let id =
        serde_json::from_str::<serde_json::Value>(&meta).unwrap()["inputs"]["plan"]["seed_key"]
            .as_str()
            .expect("the key's id")
            .to_string();
    assert_eq!(id.len(), 16);
    assert!(!meta.contains(key.trim()), "the key itself is in no other file");
    let first = f.read("results/t/matches.csv");
    // --fresh: the same key, so the same matches again.
    f.ok(&["run", "t.toml", "--fresh"]);
    assert_eq!(f.read("results/t/seed.key"), key);
    assert_eq!(reproducible(&f.read("results/t/matches.csv")), reproducible(&first));
    // A resume of a finished folder: nothing played, nothing rewritten.
    let again = f.ok(&["run", "t.toml"]);
    assert!(again.contains("played 0 matches (24 resumed)"), "{again}");
    assert_eq!(f.read("results/t/seed.key"), key);

    // The key replaced (another machine's): the rows are not this key's, so refused.
    std::fs::write(f.path().join("results/t/seed.key"), format!("{}\n", "5a".repeat(32))).unwrap();
    let out = f.arena(&["run", "t.toml"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("results/t/seed.key")
            && stderr.contains("results/t/meta.json")
            && stderr.contains(&id)
            && stderr.contains("--fresh"),
        "{stderr}"
    );
    // Not a key at all.
    std::fs::write(f.path().join("results/t/seed.key"), "1234\n").unwrap();
    let out = f.arena(&["run", "t.toml"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("seed.key") && stderr.contains("not a seed key"), "{stderr}");
}

#[test]
fn a_changed_config_is_refused_unless_fresh() {
    let f = Folder::new(2);
    f.ok(&["run", "t.toml"]);
    // One more game per pairing only adds matches: the folder grows.
    f.write_arena("t", 3, "");
    let more = f.ok(&["run", "t.toml"]);
    assert!(more.contains("played 4 matches (8 resumed)"), "{more}");
    // Another master seed changes every match: refused.
    let text = f.read("t.toml").replace("seed = 5", "seed = 6");
    std::fs::write(f.path().join("t.toml"), text).unwrap();
    let out = f.arena(&["run", "t.toml"]);
    assert_eq!(out.status.code(), Some(4), "results of another config");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("different config") && err.contains("--fresh"), "{err}");
    f.ok(&["run", "t.toml", "--fresh"]);
    assert_eq!(reproducible(&f.read("results/t/matches.csv")).len(), 12);
}

#[test]
fn resume_and_merge_refuse_an_edited_row_with_the_same_message() {
    let f = Folder::new(2);
    f.ok(&["run", "t.toml", "-q"]);
    // Swap the two seats' bots of one row: a well-formed row, but not the match its id plans.
    let text = f.read("results/t/matches.csv");
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[3].split(',').map(String::from).collect();
    fields.swap(6, 10);
    let id = fields[0].clone();
    lines[3] = fields.join(",");
    std::fs::write(f.path().join("results/t/matches.csv"), lines.join("\n") + "\n").unwrap();

    let resumed = f.arena(&["run", "t.toml", "-q"]);
    let merged = f.arena(&["merge", "results/t", "--out", "merged"]);
    for out in [&resumed, &merged] {
        assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let message = |out: &Output| {
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        err.split_once("line 4: ").map(|(_, m)| m.to_string()).unwrap_or(err)
    };
    let said = message(&resumed);
    // The swapped seats are another match of the plan, or none (a pairing of one seat order).
    assert!(
        said.starts_with(&format!("match {id} is recorded with game"))
            && said.contains("its id plans")
            || said.starts_with(&format!("match {id} is not in the schedule")),
        "{said}"
    );
    assert_eq!(message(&merged), said, "merge says what resume says");
    assert!(!f.path().join("merged/summary.csv").exists(), "nothing merged from a bad row");
}

#[test]
fn three_merged_shards_give_the_summaries_of_one_run() {
    let f = Folder::new(12);
    for k in ["1/3", "2/3", "3/3"] {
        let stdout =
            f.ok(&["run", "t.toml", "--shard", k, "--out", &format!("shards/{}", &k[..1])]);
        assert!(stdout.contains(&format!("shard {k} only")), "{stdout}");
    }
    // The shards took one key, the arena's, made by the first.
    let key = f.read("results/t/seed.key");
    for k in 1..=3 {
        assert_eq!(f.read(&format!("shards/{k}/seed.key")), key);
    }
    f.ok(&["run", "t.toml"]);
    // A shard of another key (another machine that was not given the arena's seed.key):
    // refused, naming both files.
    std::fs::write(f.path().join("other.key"), format!("{}\n", "5a".repeat(32))).unwrap();
    f.ok(&["run", "t.toml", "--shard", "3/3", "--out", "elsewhere/3", "--seed-key", "other.key"]);
    let out = f.arena(&["merge", "shards/1", "shards/2", "elsewhere/3", "--out", "mixed"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("elsewhere/3/seed.key")
            && stderr.contains("shards/1/seed.key")
            && stderr.contains("share one seed.key"),
        "{stderr}"
    );
    // An incomplete set is refused.
    let out = f.arena(&["merge", "shards/1", "shards/2", "--out", "merged"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));
    // A shard given twice is refused.
    let out = f.arena(&["merge", "shards/1", "shards/2", "shards/3", "shards/3", "--out", "m"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than once"));

    let stdout = f.ok(&["merge", "shards/1", "shards/2", "shards/3", "--out", "merged"]);
    assert!(stdout.contains("merged 3 folders, 48 matches"), "{stdout}");
    // The same merge as JSON: the report of the merged folder, which one run also reports.
    let json = f.ok(&["merge", "shards/1", "shards/2", "shards/3", "--out", "merged2", "--json"]);
    let merged: serde_json::Value = serde_json::from_str(&json).expect("one JSON document");
    assert_eq!((merged["folders"].as_u64(), merged["matches"].as_u64()), (Some(3), Some(48)));
    let whole: serde_json::Value =
        serde_json::from_str(&f.ok(&["run", "t.toml", "-q", "--json"])).expect("JSON");
    assert_eq!(merged["standings"], whole["standings"]);
    assert!(f.read("merged/report.html").contains("<svg"), "merge writes the report too");
    for file in ["summary.csv", "pairwise.csv"] {
        assert_eq!(
            f.read(&format!("merged/{file}")),
            f.read(&format!("results/t/{file}")),
            "{file}"
        );
    }
    assert_eq!(
        reproducible(&f.read("merged/matches.csv")),
        reproducible(&f.read("results/t/matches.csv"))
    );
}

#[test]
fn a_killed_run_completes_every_match_exactly_once() {
    let f = Folder::new(4000);
    let mut child = f.run_in_background("2", 20_000);
    // SIGKILL: no chance to clean up.
    child.kill().expect("kill -9");
    child.wait().expect("reaped");
    let before = f.read("results/t/matches.csv").lines().count();
    assert!(before > 1 && before < 16_001, "the kill must land mid-run ({before} lines)");
    f.ok(&["run", "t.toml", "-q"]);
    let rows = reproducible(&f.read("results/t/matches.csv"));
    let ids: std::collections::BTreeSet<u64> =
        rows.iter().map(|r| r.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!((rows.len(), ids.len()), (16_000, 16_000), "every match exactly once");
}

#[test]
fn a_second_run_on_a_folder_in_use_is_refused() {
    let f = Folder::new(4000);
    let mut first = f.run_in_background("1", 2_000);
    // Both would play the same missing matches: duplicate rows a later resume must refuse.
    let second = f.arena(&["run", "t.toml", "-q"]);
    let still_running = first.try_wait().expect("status").is_none();
    first.kill().expect("kill");
    first.wait().expect("reaped");
    assert!(still_running, "the first run must still be running for this test to mean anything");
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "a second run on a folder in use must fail");
    assert_eq!(second.status.code(), Some(4), "a busy folder: the harness could not work");
    assert!(stderr.contains("results/t") && stderr.contains("in use"), "{stderr}");
    // The first run's rows are intact: a later run completes them.
    f.ok(&["run", "t.toml", "-q"]);
    let rows = reproducible(&f.read("results/t/matches.csv"));
    assert_eq!(rows.len(), 16_000);
}

#[test]
fn arena_errors_name_the_file_and_the_key() {
    let f = Folder::new(1);
    std::fs::write(f.path().join("bad.toml"), "name = \"x\"\ngame = \"skynet\"\nplayers = 3\n")
        .unwrap();
    let out = f.arena(&["run", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("failed to parse arena `bad.toml`") && err.contains("players"), "{err}");

    f.write_arena("dup", 1, "");
    let text = f.read("dup.toml").replace("name = \"beta\"", "name = \"alpha\"");
    std::fs::write(f.path().join("dup.toml"), text).unwrap();
    let err = String::from_utf8_lossy(&f.arena(&["run", "dup.toml"]).stderr).into_owned();
    assert!(err.contains("dup.toml") && err.contains("bots[1].name"), "{err}");
}

#[test]
fn sprt_decides_and_says_so_in_its_exit_code() {
    let f = Folder::new(1);
    // Two copies of one random bot: equal strength, so H0 (no gain of 100 Elo) is accepted.
    f.write_arena("s", 1, "");
    let text = f.read("s.toml")
        + "\n[sprt]\ncandidate = \"alpha\"\nbaseline = \"beta\"\nelo0 = 0\nelo1 = 100\nmax_pairs = 5000\n";
    std::fs::write(f.path().join("s.toml"), text).unwrap();
    let out = f.arena(&["sprt", "s.toml", "-j", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("H0 accepted") && stdout.contains("LLR"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&f.read("results/s/sprt/sprt.json")).expect("sprt.json");
    assert_eq!(json["verdict"], "h0");
    let pairs = json["pairs"].as_u64().unwrap();
    let corrected =
        json["lower_bound"].as_f64().unwrap() + json["overshoot_lower"].as_f64().unwrap();
    assert!(json["llr"].as_f64().unwrap() < corrected, "{json}");

    // The stopping point does not depend on the concurrency.
    let one = f.arena(&["sprt", "s.toml", "-j", "1"]);
    assert_eq!(one.status.code(), Some(1));
    let json: serde_json::Value =
        serde_json::from_str(&f.read("results/s/sprt/sprt.json")).expect("sprt.json");
    assert_eq!(json["pairs"].as_u64().unwrap(), pairs);

    // A bot that cannot play both roles cannot be tested in role-swapped pairs.
    let out = f.arena(&["sprt", "s.toml", "--baseline", "gamma"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sprt.baseline"));

    // Two random bots draw every pair (the virus side always wins on these maps): with elo0 and
    // elo1 symmetric about 0 the LLR stays at 0 and the test runs out of pairs undecided.
    // (A negative number after a flag is its value, not another flag.)
    let undecided =
        f.arena(&["sprt", "s.toml", "-q", "--elo0", "-10", "--elo1", "10", "--max-pairs", "20"]);
    assert_eq!(undecided.status.code(), Some(3), "{}", String::from_utf8_lossy(&undecided.stderr));
    assert!(String::from_utf8_lossy(&undecided.stdout).contains("no decision after 20 pairs"));

    // The perfect player against a random one: a clear gain, H1, exit 0; --json prints sprt.json.
    let text = f.read("s.toml").replacen(
        "name = \"alpha\"\nspec = \"random\"",
        "name = \"alpha\"\nspec = \"perfect\"",
        1,
    );
    std::fs::write(f.path().join("h1.toml"), text.replace("name = \"s\"", "name = \"h1\""))
        .unwrap();
    let out = f.arena(&["sprt", "h1.toml", "-q", "--elo1", "50", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON document");
    let file: serde_json::Value =
        serde_json::from_str(&f.read("results/h1/sprt/sprt.json")).expect("sprt.json");
    assert_eq!(printed, file);
    assert_eq!(printed["verdict"], "h1");
    assert_eq!(
        (printed["candidate"].as_str(), printed["elo1"].as_f64()),
        (Some("alpha"), Some(50.0))
    );
    let corrected =
        printed["upper_bound"].as_f64().unwrap() - printed["overshoot_upper"].as_f64().unwrap();
    assert!(printed["llr"].as_f64().unwrap() > corrected, "{printed}");
    let penta: u64 =
        printed["pentanomial"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(penta, printed["pairs"].as_u64().unwrap());
}

#[test]
fn sprt_help_describes_every_argument() {
    let f = Folder::new(1);
    let out = f.arena(&["sprt", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "<ARENA>",
        "--candidate <BOT>",
        "--baseline <BOT>",
        "--elo0 <ELO>",
        "--elo1 <ELO>",
        "--alpha <P>",
        "--beta <P>",
        "--max-pairs <PAIRS>",
        "--concurrency <CONCURRENCY>",
        "--out <OUT>",
        "--quiet",
        "--json",
    ] {
        // The argument's own line: `  FLAG  text` or `  -x, FLAG  text` (not the usage line).
        let line = help
            .lines()
            .map(str::trim_start)
            .find(|l| l.starts_with(flag) || l.get(4..).is_some_and(|rest| rest.starts_with(flag)))
            .unwrap_or_else(|| panic!("{flag}: {help}"));
        let described = line.split_once(flag).map(|(_, rest)| rest.trim()).unwrap_or_default();
        assert!(!described.is_empty(), "`{flag}` has no description: {help}");
    }
}

#[test]
fn a_run_reports_as_json_and_strict_fails_on_faults() {
    let f = Folder::new(2);
    let out = f.arena(&["run", "t.toml", "-q", "--json", "--strict"]);
    assert_eq!(out.status.code(), Some(0), "no faults: --strict passes");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(report["arena"], "t");
    assert_eq!((report["planned"].as_u64(), report["played"].as_u64()), (Some(8), Some(8)));
    assert!(report.get("shard").is_none(), "{report}");
    let standings = &report["standings"];
    assert_eq!(standings["matches"], 8);
    assert_eq!(standings["endings"]["normal"], 8);
    // The bots in the order and with the figures of summary.csv.
    let summary = f.read("results/t/summary.csv");
    for (bot, line) in standings["bots"].as_array().unwrap().iter().zip(summary.lines().skip(1)) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(bot["rank"].to_string(), fields[0]);
        assert_eq!(bot["bot"].as_str(), Some(fields[1]));
        assert_eq!(bot["games"].to_string(), fields[2]);
        let elo = bot["elo"].as_f64().unwrap();
        assert!((elo - fields[10].parse::<f64>().unwrap()).abs() <= 0.05, "{elo} vs {line}");
    }
    let pairs = standings["head_to_head"].as_array().unwrap();
    assert_eq!(pairs.len() + 1, f.read("results/t/pairwise.csv").lines().count());
    assert!(standings["by_role"].as_array().unwrap().iter().all(|r| r["games"].as_u64() > Some(0)));

    // A bot that dies at once: every match it plays ends by its fault. The run succeeds and
    // writes everything; with --strict it exits 5.
    let maps = root().join("arenas/maps/skynet");
    let text = format!(
        "name = \"faulty\"\ngame = \"skynet\"\ngames_per_pairing = 1\n\
         [maps]\nfiles = [\"{}/ep2_01.txt\"]\n\
         [[bots]]\nname = \"dies\"\nspec = \"cmd:false\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n",
        maps.display()
    );
    std::fs::write(f.path().join("faulty.toml"), text).unwrap();
    let lenient = f.arena(&["run", "faulty.toml", "-q"]);
    assert_eq!(lenient.status.code(), Some(0), "{}", String::from_utf8_lossy(&lenient.stderr));
    let strict = f.arena(&["run", "faulty.toml", "-q", "--strict"]);
    assert_eq!(strict.status.code(), Some(5), "{}", String::from_utf8_lossy(&strict.stderr));
    assert!(String::from_utf8_lossy(&strict.stdout).contains("played 0 matches (1 resumed)"));
    let summary = f.read("results/faulty/summary.csv");
    assert!(
        // A virus-only bot and an agent-only bot: each first of its role.
        summary.lines().any(|l| l.starts_with("1,dies,1,0,0,1,") && l.ends_with(",1,0,1,0,,virus")),
        "{summary}"
    );
}

#[test]
fn corrupt_results_stop_a_resume_with_code_4() {
    let f = Folder::new(2);
    f.ok(&["run", "t.toml", "-q"]);
    let csv = f.read("results/t/matches.csv");
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    // A row whose score is not a number, in the middle of the file.
    let fields: Vec<&str> = lines[3].split(',').collect();
    let mut broken: Vec<String> = fields.iter().map(std::string::ToString::to_string).collect();
    broken[7] = "lots".into();
    lines[3] = broken.join(",");
    std::fs::write(f.path().join("results/t/matches.csv"), lines.join("\n") + "\n").unwrap();
    let out = f.arena(&["run", "t.toml", "-q"]);
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("matches.csv") && err.contains("line 4") && err.contains("lots"), "{err}");

    // A meta file that is not one.
    f.ok(&["run", "t.toml", "-q", "--fresh"]);
    std::fs::write(f.path().join("results/t/meta.json"), "{ not json").unwrap();
    let out = f.arena(&["run", "t.toml", "-q"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("meta.json"));
}

#[test]
fn the_default_arena_runs_from_an_empty_folder() {
    let f = Folder::new(1);
    let stdout = f.ok(&["run", "-q"]);
    for bot in ["cg-ep2", "solver", "greedy", "random"] {
        assert!(stdout.contains(bot), "{bot} missing:\n{stdout}");
    }
    assert!(stdout.contains("300 matches; endings:"), "{stdout}");
    assert!(f.path().join("results/default/summary.csv").exists());
}

#[test]
fn external_options_of_an_arena_bot_apply_to_its_process() {
    let f = Folder::new(1);
    let sub = f.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(root().join("bots/skynet_virus.py"), sub.join("virus.py")).unwrap();
    let maps = root().join("arenas/maps/skynet");
    let arena = |name: &str, external: &str| {
        format!(
            "name = \"{name}\"\ngame = \"skynet\"\ngames_per_pairing = 1\n\
             [limits]\nfirst_turn_ms = 5000\nturn_ms = 2000\n\
             [maps]\nfiles = [\"{}/ep2_01.txt\"]\n\
             [[bots]]\nname = \"py\"\nspec = \"cmd:python3 virus.py\"\nroles = [\"virus\"]\n{external}\n\
             [[bots]]\nname = \"cg-ep2\"\n",
            maps.display()
        )
    };
    // The script is found only in the working directory the arena file gives the bot.
    std::fs::write(
        f.path().join("in_sub.toml"),
        arena("in_sub", "external = { workdir = \"sub\" }"),
    )
    .unwrap();
    f.ok(&["run", "in_sub.toml", "-q"]);
    let rows = f.read("results/in_sub/matches.csv");
    assert!(rows.contains(",normal,") && !rows.contains(",crash,"), "{rows}");
    std::fs::write(f.path().join("here.toml"), arena("here", "")).unwrap();
    f.ok(&["run", "here.toml", "-q"]);
    let rows = f.read("results/here/matches.csv");
    assert!(rows.contains(",crash,"), "without the workdir python finds no script: {rows}");

    let bad = arena("bad", "external = { workdir = \"sub\", bogus = 1 }");
    std::fs::write(f.path().join("bad.toml"), bad).unwrap();
    let err = String::from_utf8_lossy(&f.arena(&["run", "bad.toml"]).stderr).into_owned();
    assert!(err.contains("bad.toml") && err.contains("bogus"), "{err}");
}

/// An arena of a Python virus (`virus.py` in the folder) against the built-in agent, on one map.
fn python_arena(f: &Folder, name: &str, extra: &str) {
    let maps = root().join("arenas/maps/skynet");
    let text = format!(
        "name = \"{name}\"\ngame = \"skynet\"\ngames_per_pairing = 1\n{extra}\n\
         [limits]\nfirst_turn_ms = 5000\nturn_ms = 2000\n\
         [maps]\nfiles = [\"{}/ep2_01.txt\"]\n\
         [[bots]]\nname = \"py\"\nspec = \"cmd:python3 virus.py\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n",
        maps.display()
    );
    std::fs::write(f.path().join(format!("{name}.toml")), text).unwrap();
}

#[test]
fn a_rerun_after_a_bot_changed_is_refused_naming_the_bot_and_the_file() {
    let f = Folder::new(1);
    std::fs::copy(root().join("bots/skynet_virus.py"), f.path().join("virus.py")).unwrap();
    python_arena(&f, "py", "");
    f.ok(&["run", "py.toml", "-q"]);
    // Unchanged: resumes and plays nothing.
    let again = f.ok(&["run", "py.toml", "-q"]);
    assert!(again.contains("played 0 matches (1 resumed)"), "{again}");
    let meta: serde_json::Value =
        serde_json::from_str(&f.read("results/py/meta.json")).expect("meta.json");
    let files = &meta["inputs"]["bots"][0]["files"];
    assert_eq!(files[1]["file"], "virus.py", "{meta}");
    let builtin = &meta["inputs"]["bots"][1];
    assert_eq!(builtin["arena_version"], env!("CARGO_PKG_VERSION"), "{meta}");
    f.ok(&["run", "py.toml", "-q", "--shard", "1/2", "--out", "s1"]);

    // The bot is edited: the old rows are another bot's, archived, and its match is played
    // again (tests/integration/league.rs tries every kind of edit).
    let source = f.read("virus.py") + "\n# tuned\n";
    std::fs::write(f.path().join("virus.py"), source).unwrap();
    let edited = f.ok(&["run", "py.toml", "-q"]);
    assert!(edited.contains("played 1 matches (0 resumed)"), "{edited}");
    assert!(f.read("results/py/archive/001/matches.csv").lines().count() == 2);
    // Shards of two builds do not merge either. (Shard 2/2 of one match plays none: its
    // summary's figures are empty, and its report must still read them.)
    f.ok(&["run", "py.toml", "-q", "--shard", "2/2", "--out", "s2"]);
    let out = f.arena(&["merge", "s1", "s2", "--out", "m"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("another config") && err.contains("`virus.py` changed"), "{err}");
    // Either way forward works: another folder, or starting over.
    let elsewhere = f.ok(&["run", "py.toml", "-q", "--out", "after"]);
    assert!(elsewhere.contains("played 1 matches (0 resumed)"), "{elsewhere}");
    let fresh = f.ok(&["run", "py.toml", "-q", "--fresh"]);
    assert!(fresh.contains("played 1 matches (0 resumed)"), "{fresh}");
    assert!(f.ok(&["run", "py.toml", "-q"]).contains("played 0 matches (1 resumed)"));

    // A folder of an earlier results format (before the inputs were recorded, when the
    // fingerprint hashed the whole config) is not resumed: it cannot say what played.
    let meta = f.read("results/py/meta.json");
    let mut old: serde_json::Value = serde_json::from_str(&meta).unwrap();
    old["arena_results"] = 2.into();
    old.as_object_mut().unwrap().remove("inputs");
    std::fs::write(f.path().join("results/py/meta.json"), old.to_string()).unwrap();
    // Its match ids were the matches' positions in the plan then.
    let rows = f.read("results/py/matches.csv");
    let mut positional: Vec<String> = rows.lines().take(1).map(String::from).collect();
    for (k, row) in rows.lines().skip(1).enumerate() {
        positional.push(format!("{k},{}", row.split_once(',').unwrap().1));
    }
    std::fs::write(f.path().join("results/py/matches.csv"), positional.join("\n") + "\n").unwrap();
    let out = f.arena(&["run", "py.toml", "-q"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains("another version of arena (results format 2") && err.contains("--fresh"),
        "{err}"
    );
    // It still merges, with a warning that its rows are checked for ids only.
    let out = f.arena(&["merge", "results/py", "--out", "old-merged"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: ") && err.contains("not checked against their plan"), "{err}");
}

/// The ids of the rows of a matches.csv, sorted.
fn row_ids(csv: &str) -> Vec<u64> {
    let mut ids: Vec<u64> =
        csv.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    ids.sort();
    ids
}

/// The ids of a results folder's kept replays, sorted.
fn replay_ids(dir: &Path) -> Vec<u64> {
    let mut ids: Vec<u64> = match std::fs::read_dir(dir.join("replays")) {
        Ok(entries) => entries
            .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".jsonl").and_then(|id| id.parse().ok()))
            .collect(),
        Err(_) => Vec::new(),
    };
    ids.sort();
    ids
}

/// The ids of the rows of a matches.csv whose termination is not `normal`, sorted.
fn faulted_ids(csv: &str) -> Vec<u64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = header.iter().position(|c| *c == "termination").expect("a termination column");
    let mut ids: Vec<u64> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[col] != "normal")
        .map(|f| f[0].parse().expect("an id"))
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_tournament_keeps_the_replays_of_its_faults_and_they_verify() {
    let f = Folder::new(1);
    let maps = root().join("arenas/maps/skynet");
    // `dies` faults every match it plays; `random` against the built-in agent plays out normally.
    let text = format!(
        "name = \"faults\"\ngame = \"skynet\"\ngames_per_pairing = 2\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\"]\n\
         [[bots]]\nname = \"dies\"\nspec = \"cmd:false\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"random\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n",
        maps.display()
    );
    std::fs::write(f.path().join("faults.toml"), &text).unwrap();
    f.ok(&["run", "faults.toml", "-q"]);
    let dir = f.path().join("results/faults");
    let faulted = faulted_ids(&f.read("results/faults/matches.csv"));
    assert_eq!(faulted.len(), 2, "dies meets cg-ep2 once per game");
    assert_eq!(replay_ids(&dir), faulted, "exactly the faulted matches keep their replay");
    for id in &faulted {
        let replay = format!("results/faults/replays/{id}.jsonl");
        let out = f.arena(&["replay", "--verify", &replay]);
        assert!(out.status.success(), "{replay}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // The report links them.
    let report = f.read("results/faults/report.html");
    assert!(report.contains("2 replays kept"), "the report counts the kept replays");

    // `all` keeps every match's, `none` none; `--fresh` clears what an earlier run kept.
    f.ok(&["run", "faults.toml", "-q", "--fresh", "--replays", "all"]);
    assert_eq!(replay_ids(&dir), row_ids(&f.read("results/faults/matches.csv")));
    assert_eq!(replay_ids(&dir).len(), 4);
    std::fs::write(f.path().join("faults.toml"), format!("replays = \"none\"\n{text}")).unwrap();
    f.ok(&["run", "faults.toml", "-q", "--fresh"]);
    assert_eq!(replay_ids(&dir), Vec::<u64>::new());
    let bad = text.replace("games_per_pairing = 2", "games_per_pairing = 2\nreplays = \"most\"");
    std::fs::write(f.path().join("bad.toml"), bad).unwrap();
    let out = f.arena(&["run", "bad.toml", "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("key `replays`"));
}

#[test]
fn merge_status_reads_one_runs_shards_and_refuses_a_mix() {
    let f = Folder::new(12);
    for k in ["1/3", "3/3"] {
        f.ok(&["run", "t.toml", "-q", "--shard", k]);
    }
    f.ok(&["run", "t.toml", "-q", "--shard", "1/2"]);
    f.ok(&["run", "t.toml", "-q", "--out", "whole"]);
    let shards = ["results/t/shard-1-of-3", "results/t/shard-3-of-3"];
    let out = f.arena(&[&["merge", "--status", "--json"][..], &shards[..]].concat());
    assert_eq!(out.status.code(), Some(1), "shard 2 is missing");
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!((status["shards"].as_u64(), status["planned"].as_u64()), (Some(3), Some(48)));
    assert_eq!(status["played"].as_u64(), Some(32));
    let states: Vec<&str> = status["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["complete", "missing", "complete"]);
    assert_eq!(status["progress"][1]["folder"], "results/t/shard-2-of-3", "{status}");
    assert_eq!(status["progress"][1]["planned"], 16);
    // Shards of two runs, a whole run's folder, one shard twice: refused, naming the folders.
    for (mix, needle) in [
        (&["results/t/shard-1-of-3", "results/t/shard-1-of-2"][..], "shard-*-of-3"),
        (&["results/t/shard-1-of-3", "whole"][..], "not a shard's folder"),
        (&["results/t/shard-1-of-3", "results/t/shard-1-of-3"][..], "given twice"),
    ] {
        let out = f.arena(&[&["merge", "--status"][..], mix].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(needle), "`{needle}` missing: {err}");
    }
    // Nothing is merged by --status; --out makes no sense with it.
    assert!(!f.path().join("results/t/matches.csv").exists());
    let out = f.arena(&["merge", "--status", "--out", "x", "results/t/shard-1-of-3"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_resume_replaces_replays_without_a_row_and_a_merge_keeps_the_shards_replays() {
    let f = Folder::new(3);
    f.ok(&["run", "t.toml", "-q", "--replays", "all"]);
    let dir = f.path().join("results/t");
    let all = row_ids(&f.read("results/t/matches.csv"));
    assert_eq!((replay_ids(&dir), all.len()), (all.clone(), 12));
    // A kill between a replay and its row: the last two rows are missing, their replays are
    // not (one half-written), and a temporary file is left over.
    let csv = f.read("results/t/matches.csv");
    let lines: Vec<&str> = csv.lines().collect();
    let id_of = |line: &str| line.split(',').next().unwrap().to_string();
    let (torn, lost) = (id_of(lines[11]), id_of(lines[12]));
    std::fs::write(dir.join("matches.csv"), lines[..11].join("\n") + "\n").unwrap();
    std::fs::write(dir.join(format!("replays/{torn}.jsonl")), "{\"arena_replay\":").unwrap();
    std::fs::write(dir.join(format!("replays/{lost}.jsonl.tmp")), "x").unwrap();
    let resumed = f.ok(&["run", "t.toml", "-q", "--replays", "all"]);
    assert!(resumed.contains("played 2 matches (10 resumed)"), "{resumed}");
    assert!(!dir.join(format!("replays/{lost}.jsonl.tmp")).exists());
    let out = f.arena(&["replay", "--verify", &format!("results/t/replays/{torn}.jsonl")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Resumed with `none`: a replay without its row is deleted, not left to contradict the row.
    let csv = f.read("results/t/matches.csv");
    let gone = id_of(csv.lines().nth(3).unwrap());
    let kept: Vec<&str> = csv.lines().filter(|l| id_of(l) != gone).collect();
    std::fs::write(dir.join("matches.csv"), kept.join("\n") + "\n").unwrap();
    f.ok(&["run", "t.toml", "-q", "--replays", "none"]);
    let gone: u64 = gone.parse().unwrap();
    assert_eq!(replay_ids(&dir), all.iter().copied().filter(|&i| i != gone).collect::<Vec<_>>());

    // Shards keep theirs, and the merge gathers them.
    for k in ["1/2", "2/2"] {
        let out = format!("shards/{}", &k[..1]);
        f.ok(&["run", "t.toml", "-q", "--shard", k, "--out", &out, "--replays", "all"]);
    }
    let (one, two) =
        (replay_ids(&f.path().join("shards/1")), replay_ids(&f.path().join("shards/2")));
    assert!(!one.is_empty() && !two.is_empty() && one.iter().all(|id| !two.contains(id)));
    assert_eq!(one.len() + two.len(), 12);
    f.ok(&["merge", "shards/1", "shards/2", "--out", "merged"]);
    assert_eq!(replay_ids(&f.path().join("merged")), all);
    let some = two[0];
    assert_eq!(
        f.read(&format!("merged/replays/{some}.jsonl")),
        f.read(&format!("shards/2/replays/{some}.jsonl"))
    );
    assert!(f.read("merged/report.html").contains("12 replays kept"));
}

#[test]
fn diff_says_whether_anything_changed_and_lists_what_did() {
    let f = Folder::new(1);
    std::fs::copy(root().join("bots/skynet_virus.py"), f.path().join("virus.py")).unwrap();
    let maps = root().join("arenas/maps/skynet");
    let text = format!(
        "name = \"reg\"\ngame = \"skynet\"\ngames_per_pairing = 2\n\
         [limits]\nfirst_turn_ms = 5000\nturn_ms = 2000\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\"]\n\
         [[bots]]\nname = \"py\"\nspec = \"cmd:python3 virus.py\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n\
         [[bots]]\nname = \"random\"\nroles = [\"agent\"]\n",
        maps.display()
    );
    std::fs::write(f.path().join("reg.toml"), text).unwrap();
    f.ok(&["run", "reg.toml", "-q"]);
    // With another key, every seed differs: nothing to compare, and the way out said.
    std::fs::write(f.path().join("other.key"), format!("{}\n", "5a".repeat(32))).unwrap();
    f.ok(&["run", "reg.toml", "-q", "--out", "other", "--seed-key", "other.key"]);
    let out = f.arena(&["diff", "results/reg", "other"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("seed keys") && stdout.contains("--seed-key"), "{stdout}");
    f.ok(&["run", "reg.toml", "-q", "--out", "again"]);
    // Identical results: exit 0, and every bot's change is exactly 0.
    let same = f.arena(&["diff", "results/reg", "again"]);
    let stdout = String::from_utf8_lossy(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&same.stderr));
    assert!(stdout.contains("4 matches in both, 0 changed") && stdout.contains("no change"));

    // The bot breaks: it now dies before its first move.
    let broken = f.read("virus.py").replacen("import sys\n", "import sys\nsys.exit(3)\n", 1);
    std::fs::write(f.path().join("virus.py"), broken).unwrap();
    f.ok(&["run", "reg.toml", "-q", "--out", "after"]);
    let out = f.arena(&["diff", "results/reg", "after"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("4 changed") && stdout.contains("after/replays/"), "{stdout}");
    let json = f.arena(&["diff", "results/reg", "after", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_slice(&json.stdout).expect("one JSON document");
    assert_eq!(report["verdict"], "changed");
    let changed = report["changed"].as_array().unwrap();
    let mut ids: Vec<u64> = changed.iter().map(|m| m["id"].as_u64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, row_ids(&f.read("results/reg/matches.csv")), "{report}");
    for m in changed {
        assert_eq!(m["b"]["termination"], "crash", "{m}");
        assert_eq!(m["b"]["culprit"], "py", "{m}");
        assert!(m["changes"].as_array().unwrap().contains(&"termination".into()), "{m}");
        // The crash is a fault, so B kept its replay; A's normal matches kept none.
        assert!(m["replay_a"].is_null(), "{m}");
        let replay = m["replay_b"].as_str().expect("B's replay");
        assert!(f.path().join(replay).is_file(), "{replay}");
    }
    let py = report["bots"].as_array().unwrap().iter().find(|b| b["bot"] == "py").unwrap();
    let wins_before = f
        .read("results/reg/matches.csv")
        .lines()
        .filter(|l| l.contains(",py,virus,normal,"))
        .count() as u64;
    assert!(
        wins_before > 0,
        "the working virus must win something for this check to mean anything"
    );
    assert_eq!(py["matches"], 4);
    assert_eq!(py["losses"].as_u64(), Some(wins_before), "{py}");
    let mean = py["mean_change"].as_f64().unwrap();
    assert!((mean + wins_before as f64 / 4.0).abs() < 1e-9, "{py}");
    assert!(py["low"].as_f64().unwrap() <= mean && mean <= py["high"].as_f64().unwrap());

    // Folders of different plans: listed, nothing compared, exit 2.
    f.ok(&["run", "t.toml", "-q"]);
    let out = f.arena(&["diff", "results/reg", "results/t"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("bots: A py, cg-ep2, random, B alpha, beta, gamma"), "{stdout}");
    assert!(stdout.contains("no result was compared"), "{stdout}");
    // Not a results folder: an input error naming it.
    let out = f.arena(&["diff", "results/reg", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere"));
}

/// The fixed results folders of `tests/data/ratings/`, merged by the real binary: summary.csv
/// gives the ratings an independent fit gave (see `make_references.py` there), to its printed
/// digits; bots without games are listed apart and groups that never met are said to be.
#[test]
fn merged_reference_folders_print_the_independent_ratings() {
    let f = Folder::new(1);
    let mut cases: Vec<String> = std::fs::read_dir(root().join("tests/data/ratings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("reference.json").exists())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    assert!(cases.len() >= 5, "{cases:?}");
    for case in cases.iter().map(String::as_str) {
        let source = root().join("tests/data/ratings").join(case);
        let input = f.path().join(case);
        std::fs::create_dir_all(&input).unwrap();
        for file in ["meta.json", "matches.csv"] {
            std::fs::copy(source.join(file), input.join(file)).unwrap();
        }
        let out = format!("{case}-merged");
        let stdout = f.ok(&["merge", case, "--out", &out]);
        let reference: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(source.join("reference.json")).unwrap())
                .unwrap();
        let summary = f.read(&format!("{out}/summary.csv"));
        let mut lines = summary.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|c| *c == name).expect(name);
        for line in lines {
            let fields: Vec<&str> = line.split(',').collect();
            let bot = fields[col("bot")];
            let want = &reference["bots"][bot];
            if want.is_null() {
                for empty in ["rank", "elo", "elo_low", "elo_high", "win_rate", "component"] {
                    assert_eq!(fields[col(empty)], "", "{case} {bot} {empty}: {line}");
                }
                assert!(stdout.contains(&format!("no games, not rated: {bot}")), "{stdout}");
                continue;
            }
            for key in ["elo", "elo_low", "elo_high"] {
                let got: f64 = fields[col(key)].parse().unwrap();
                let w = want[key].as_f64().unwrap();
                assert!((got - w).abs() <= 0.051, "{case} {bot} {key}: {got} vs {w}");
            }
            assert_eq!(fields[col("component")], want["component"].to_string(), "{case} {bot}");
        }
        assert_eq!(stdout.contains("groups that never met"), case == "two-components", "{stdout}");
        // The report is drawn from the same summary, bots without games included.
        assert!(f.read(&format!("{out}/report.html")).contains("<svg"), "{case}");
    }
}

/// A row whose id is in the schedule but whose bots, seats, map or seed are not the ones that id
/// plans (edited, or copied from another folder) stops a resume, naming the line.
#[test]
fn a_row_that_is_not_the_match_its_id_plans_stops_a_resume() {
    let f = Folder::new(2);
    f.ok(&["run", "t.toml", "-q"]);
    let original = f.read("results/t/matches.csv");
    let header: Vec<&str> = original.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    type Edit<'a> = Box<dyn Fn(&mut Vec<String>) + 'a>;
    let edits: [(&str, Edit, &str); 4] = [
        (
            "swapped seats",
            Box::new(|r: &mut Vec<String>| r.swap(col("seat0_bot"), col("seat1_bot"))),
            "seat 0",
        ),
        (
            "another bot",
            Box::new(|r: &mut Vec<String>| r[col("seat1_bot")] = "gamma".into()),
            "plan",
        ),
        ("another map", Box::new(|r: &mut Vec<String>| r[col("map")] = "ep2_03.txt".into()), "map"),
        ("another seed", Box::new(|r: &mut Vec<String>| r[col("seed")] = "12345".into()), "seed"),
    ];
    for (what, edit, named) in edits {
        let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
        // Line 4 of the file: a row of the alpha-beta pairing (both play both roles) or another.
        let mut fields: Vec<String> = lines[3].split(',').map(str::to_string).collect();
        let before = fields.clone();
        edit(&mut fields);
        assert_ne!(before, fields, "{what}: the edit must change the row");
        lines[3] = fields.join(",");
        std::fs::write(f.path().join("results/t/matches.csv"), lines.join("\n") + "\n").unwrap();
        let out = f.arena(&["run", "t.toml", "-q"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{what}: {err}");
        assert!(err.contains("matches.csv") && err.contains("line 4"), "{what}: {err}");
        assert!(err.contains(named) && err.contains("--fresh"), "{what}: {err}");
    }
}

#[test]
fn analysis_rates_every_match_and_seat_and_sums_up_per_bot() {
    let f = Folder::new(1);
    let maps = root().join("arenas/maps/skynet/separating");
    let text = format!(
        "name = \"a\"\ngame = \"skynet\"\nvariant = \"ep2\"\nformat = \"gauntlet\"\n\
         candidate = \"cg-ep2\"\nseed = 3\ngames_per_pairing = 2\nanalysis = true\n\
         [maps]\nfiles = [\"{0}/skynet-separating-0001.txt\", \"{0}/skynet-separating-0003.txt\"]\n\
         [[bots]]\nname = \"cg-ep2\"\nroles = [\"agent\"]\n\
         [[bots]]\nname = \"solver\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"greedy\"\nroles = [\"virus\"]\n",
        maps.display()
    );
    std::fs::write(f.path().join("a.toml"), text).unwrap();
    f.ok(&["run", "a.toml", "-j", "1", "-q", "--out", "one"]);
    f.ok(&["run", "a.toml", "-j", "2", "-q", "--out", "two"]);
    let csv = f.read("one/analysis.csv");
    assert_eq!(csv, f.read("two/analysis.csv"), "concurrency changed the analysis");
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    // Two pairings, two games each, two seats a match.
    assert_eq!(rows.len(), 8, "{csv}");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    for row in &rows {
        let blunders: u32 = row[col("blunders")].parse().unwrap();
        match row[col("bot")] {
            // The maps are won for the virus from the start and lost by greedy: greedy throws
            // the win away, the solver never does.
            "greedy" => assert!(blunders >= 1, "{csv}"),
            "solver" => assert_eq!(blunders, 0, "{csv}"),
            _ => {}
        }
        assert_eq!(row[col("unknown")], "0", "{csv}");
    }
    let summary = f.read("one/analysis-summary.csv");
    let greedy = summary.lines().find(|l| l.starts_with("greedy,")).expect(&summary);
    let solver = summary.lines().find(|l| l.starts_with("solver,")).expect(&summary);
    assert!(!greedy.contains(",0.0000,"), "greedy has a blunder rate: {summary}");
    assert!(solver.contains(",0,0.0000,0,0.0000"), "{summary}");
    // A resumed run that plays nothing keeps the rows.
    f.ok(&["run", "a.toml", "-q", "--out", "one"]);
    assert_eq!(csv, f.read("one/analysis.csv"));
}

#[test]
fn frequent_timeouts_and_more_bot_processes_than_cores_are_warned_about_once() {
    let f = Folder::new(1);
    let maps = root().join("arenas/maps/skynet");
    let sleeper = root().join("tests/fixtures/bots/sleeps_forever.sh");
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let n = cores + 1;
    let text = format!(
        "name = \"slow\"\ngame = \"skynet\"\ngames_per_pairing = {n}\n\
         [limits]\nfirst_turn_ms = 100\nturn_ms = 100\nclock = \"cpu\"\nwall_cap_ms = 300\n\
         [maps]\nfiles = [\"{}/ep2_01.txt\"]\n\
         [[bots]]\nname = \"sleeper\"\nspec = \"cmd:sh {}\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n",
        maps.display(),
        sleeper.display()
    );
    std::fs::write(f.path().join("slow.toml"), text).unwrap();
    let j = n.to_string();
    let out = f.arena(&["run", "slow.toml", "-j", &j]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("bot processes on").count(), 1, "{err}");
    let warning = err.lines().find(|l| l.contains("ended in a timeout")).unwrap_or_default();
    let (total, per_seat) =
        (format!("{n} of {n} matches (100%)"), format!("`sleeper` as virus: {n}"));
    for word in [
        total.as_str(),
        per_seat.as_str(),
        "first turn 100 ms",
        "clock cpu, wall cap 300 ms",
        "first_turn_ms",
        "--turn-ms",
        "wall_cap_ms",
        "-j",
    ] {
        assert!(warning.contains(word), "`{word}` missing: {err}");
    }
    let rows = f.read("results/slow/matches.csv");
    assert!(rows.lines().next().unwrap_or_default().ends_with("seat1_max_turn_cpu_ms"), "{rows}");
    assert!(rows.contains("wall-clock cap 300 ms"), "{rows}");
}

#[test]
fn nonsense_settings_are_refused_before_any_match_naming_the_key() {
    let f = Folder::new(1);
    let maps = root().join("arenas/maps/skynet");
    let arena = |limits: &str, extra: &str, bot: &str| {
        format!(
            "name = \"v\"\ngame = \"skynet\"\n{extra}\n[limits]\n{limits}\n\
             [maps]\nfiles = [\"{}/ep2_01.txt\"]\n\
             [[bots]]\nname = \"py\"\nspec = \"cmd:python3 virus.py\"\nroles = [\"virus\"]\n{bot}\n\
             [[bots]]\nname = \"cg-ep2\"\n",
            maps.display()
        )
    };
    let cases = [
        (arena("turn_ms = 0", "", ""), "limits.turn_ms"),
        (arena("first_turn_ms = 700000", "", ""), "limits.first_turn_ms"),
        (arena("wall_cap_ms = 0", "", ""), "limits.wall_cap_ms"),
        (arena("", "", "limits = { bank_ms = 99999999 }"), "bots[0].limits.bank_ms"),
        (arena("", "concurrency = 100000", ""), "concurrency"),
        (arena("", "", "external = { max_line = 0 }"), "bots[0].external.max_line"),
        (
            arena("", "", "").replace("cmd:python3 virus.py", "cmd:no-such-program-xyz"),
            "bot `py`: program `no-such-program-xyz` is not found on PATH",
        ),
    ];
    for (text, key) in cases {
        std::fs::write(f.path().join("v.toml"), &text).unwrap();
        let out = f.arena(&["run", "v.toml", "-q"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{key}: {err}");
        assert!(err.contains(key), "`{key}` missing: {err}");
        assert!(!f.path().join("results/v/matches.csv").exists(), "{key}: a match ran");
    }
    // And on the command line.
    std::fs::write(f.path().join("v.toml"), arena("", "", "")).unwrap();
    let out = f.arena(&["run", "v.toml", "-q", "-j", "5000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-j 5000"));
    for (flag, value) in [("--turn-ms", "0"), ("--first-turn-ms", "0"), ("--max-line", "0")] {
        let out = f.arena(&["play", "skynet", flag, value]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(flag), "{flag}: {err}");
    }
}

#[test]
fn init_writes_an_arena_file_that_runs_as_it_is_for_every_game() {
    for game in ["skynet", "painters", "spiders", "risk"] {
        let folder = Folder { dir: tempfile::tempdir().expect("a temp dir") };
        let file = format!("sub/{game}-init.toml");
        std::fs::create_dir(folder.path().join("sub")).unwrap();
        let said = folder.ok(&["init", game, "--out", &file]);
        assert!(said.contains(&format!("arena run {file}")), "{said}");
        let text = folder.read(&file);
        assert!(text.starts_with("# ") && text.contains("[[bots]]"), "{text}");
        // From another folder than the file's: map paths are relative to the file.
        let run = folder.ok(&["run", &file, "-q"]);
        assert!(run.contains("endings: normal"), "{game}: {run}");
        // Never overwritten.
        let again = folder.arena(&["init", game, "--out", &file]);
        assert!(!again.status.success(), "{game}");
        assert_eq!(folder.read(&file), text);
    }
}
