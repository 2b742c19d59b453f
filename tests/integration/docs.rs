//! The docs cannot rot: every fenced shell block of README.md and docs/*.md marked runnable (a
//! `<!-- runnable -->` line right before its opening fence, or `<!-- runnable exit=N -->` for a
//! block whose last command answers N) runs with the built binary in a temporary copy of the
//! files the docs use, and must exit as it says. Only quick commands are marked.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::root;

/// A runnable block: where it is, the exit status it promises, its text.
struct Block {
    origin: String,
    exit: i32,
    script: String,
}

fn runnable_blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).expect("a doc");
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(marker) = line.trim().strip_prefix("<!-- runnable") else { continue };
        let marker = marker.trim_end_matches("-->").trim();
        let exit = match marker.strip_prefix("exit=") {
            Some(n) => n.parse().unwrap_or_else(|_| panic!("{name}:{}: exit={n}?", i + 1)),
            None if marker.is_empty() => 0,
            None => panic!("{name}:{}: unknown marker `{marker}`", i + 1),
        };
        assert_eq!(lines.get(i + 1).map(|l| l.trim()), Some("```sh"), "{name}:{}", i + 1);
        let body: Vec<&str> =
            lines[i + 2..].iter().take_while(|l| l.trim() != "```").copied().collect();
        assert!(i + 2 + body.len() < lines.len(), "{name}:{}: unclosed block", i + 1);
        blocks.push(Block { origin: format!("{name}:{}", i + 2), exit, script: body.join("\n") });
    }
    blocks
}

fn docs() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// A copy of what the docs' commands read (arenas, bots, test data and fixtures), so that what
/// they write lands in a folder thrown away afterwards.
fn project_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for folder in ["arenas", "bots", "tests/data", "tests/fixtures"] {
        let to = dir.path().join(folder);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let status = Command::new("cp")
            .args(["-R", root().join(folder).to_str().unwrap(), to.to_str().unwrap()])
            .status()
            .expect("cp runs");
        assert!(status.success(), "copy {folder}");
    }
    dir
}

#[test]
fn every_runnable_block_of_the_docs_runs() {
    let blocks: Vec<Block> = docs().iter().flat_map(|f| runnable_blocks(f)).collect();
    assert!(blocks.len() >= 5, "only {} runnable blocks", blocks.len());
    let binary = env!("CARGO_BIN_EXE_arena");
    for block in blocks {
        let dir = project_copy();
        // `arena` and `cargo run --release --` both stand for the binary under test; `-x`
        // names the failing command.
        let script = format!(
            "set -euo pipefail -x\narena() {{ {binary:?} \"$@\"; }}\n{}\n",
            block.script.replace("cargo run --release --", "arena")
        );
        let out = Command::new("bash")
            .args(["-c", &script])
            .current_dir(dir.path())
            .output()
            .expect("bash runs");
        assert_eq!(
            out.status.code(),
            Some(block.exit),
            "{}: exit {:?}, promised {}\nstderr:\n{}",
            block.origin,
            out.status,
            block.exit,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_file_a_doc_names_exists() {
    // A path in backquotes that starts with one of the project's folders.
    let folders = ["arenas/", "bots/", "docs/", "examples/", "src/", "tests/", "benches/"];
    // The names the docs use for the user's own files.
    let placeholders = [
        "arenas/x.toml",
        "bots/alice",
        "bots/mine.py",
        "bots/virus.java",
        "bots/virus.py",
        "bots/x.cpp",
        "bots/x.py",
    ];
    let mut missing = Vec::new();
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for word in line.split(['`', ' ', '(', ')', '[', ']', ',', '"', '\'', '=', ':']) {
                let word = word.trim_end_matches(['.', ';']);
                let word = word.split('#').next().unwrap_or(word);
                if !folders.iter().any(|f| word.starts_with(f))
                    || word.contains(['*', '<', '{', '$'])
                    || word.ends_with("...")
                    || placeholders.contains(&word)
                {
                    continue;
                }
                if !root().join(word).exists() {
                    missing.push(format!("{}:{}: {word}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files the docs name but the repository lacks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_doc_points_outside_the_repository() {
    // The development folder beside the project's root, which users do not have (spelt in two
    // pieces so this test does not name it itself).
    let outside = ["..", "shared"].join("/");
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(&outside), "{}", file.display());
    }
}

/// The text of a doc between `<!-- recipe: NAME -->` and `<!-- /recipe -->`.
fn recipe(doc: &str, name: &str) -> String {
    let text = std::fs::read_to_string(root().join(doc)).expect("a doc");
    let start = format!("<!-- recipe: {name} -->\n");
    let from = text.find(&start).unwrap_or_else(|| panic!("{doc} has no recipe `{name}`"));
    let body = &text[from + start.len()..];
    let to = body.find("<!-- /recipe -->").unwrap_or_else(|| panic!("{doc}: `{name}` unclosed"));
    body[..to].to_string()
}

/// The fenced blocks of a recipe, in order.
fn fenced(recipe: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in recipe.lines() {
        match (line.starts_with("```"), current.take()) {
            (true, None) => current = Some(Vec::new()),
            (true, Some(block)) => blocks.push(block.join("\n") + "\n"),
            (false, Some(mut block)) => {
                block.push(line);
                current = Some(block);
            }
            (false, None) => {}
        }
    }
    blocks
}

#[test]
fn the_cluster_recipes_are_the_same_in_the_readme_and_the_guide() {
    for name in ["slurm", "kubernetes"] {
        let readme = recipe("README.md", name);
        assert_eq!(readme, recipe("docs/tournaments.md", name), "recipe `{name}` differs");
        assert!(readme.contains("```"), "{name}");
    }
    // What makes the Slurm recipe fit any cluster: a time limit, the CPUs from Slurm's variable,
    // absolute paths, the job id from --parsable and a merge of this run's shards only.
    let slurm = recipe("README.md", "slurm");
    for needle in [
        "#SBATCH --time=",
        "#SBATCH --chdir=/",
        "-j \"$SLURM_CPUS_PER_TASK\"",
        "sbatch --parsable",
        "--dependency=afterok:$job",
        "shard-*-of-16",
    ] {
        assert!(slurm.contains(needle), "the Slurm recipe lacks `{needle}`");
    }
    assert!(!slurm.contains("shard-*'") && !slurm.contains("shard-* "), "a glob of every count");
}

/// A folder with a copy of the arenas where `league.toml` plays 16 games per pairing instead of
/// 400 (160 matches, 10 per shard), `arena` on the PATH, and one unsharded run of that league
/// in `whole/` to compare with.
fn small_league() -> (tempfile::TempDir, String) {
    let dir = project_copy();
    let league = dir.path().join("arenas/league.toml");
    let text = std::fs::read_to_string(&league).unwrap();
    assert!(text.contains("\ngames_per_pairing = 400\n"), "league.toml changed");
    std::fs::write(
        &league,
        text.replace("\ngames_per_pairing = 400\n", "\ngames_per_pairing = 16\n"),
    )
    .unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_arena"), bin.join("arena")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let whole = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "arenas/league.toml", "-q", "--out", "whole"])
        .current_dir(dir.path())
        .output()
        .expect("arena runs");
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    (dir, path)
}

/// Runs `script` with `sh -c` (or `bash` for a file) in `dir`, failing the test unless it exits
/// with `code`.
fn shell(dir: &Path, path: &str, program: &str, script: &str, envs: &[(&str, String)], code: i32) {
    let out = Command::new(program)
        .args(if program == "sh" { vec!["-c", script] } else { vec![script] })
        .current_dir(dir)
        .env("PATH", path)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("the shell runs");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{script}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn assert_merged_is_whole(dir: &Path) {
    for file in ["summary.csv", "pairwise.csv"] {
        let merged = std::fs::read(dir.join("results/league").join(file)).expect("merged");
        assert_eq!(merged, std::fs::read(dir.join("whole").join(file)).unwrap(), "{file}");
    }
}

#[test]
fn the_slurm_recipe_runs_its_shards_and_merges_them_as_slurm_would() {
    // Slurm's part played by hand: every array task runs the job script with its task id and
    // CPUs in the environment (the #SBATCH lines are comments to bash), in --chdir; then the
    // merge job's --wrap command runs with sh.
    let blocks = fenced(&recipe("README.md", "slurm"));
    let (job_script, submit) = (&blocks[0], &blocks[1]);
    let array = job_script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array=1-"))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("#SBATCH --array=1-N");
    let shards: u64 = array.parse().expect("N");
    let (dir, path) = small_league();
    std::fs::write(dir.path().join("league.sbatch"), job_script).unwrap();
    let wrap = submit.split("--wrap='").nth(1).and_then(|w| w.split('\'').next()).expect("--wrap");
    let task = |task: u64| {
        let envs = [("SLURM_ARRAY_TASK_ID", task.to_string()), ("SLURM_CPUS_PER_TASK", "1".into())];
        shell(dir.path(), &path, "bash", "league.sbatch", &envs, 0);
    };
    // The recovery of docs/tournaments.md: task 5 never ran, task 9 was killed after 3 matches.
    let recovery = fenced(&recipe("docs/tournaments.md", "slurm-recovery"));
    let rerun = recovery[1]
        .split("--array=")
        .nth(1)
        .and_then(|a| a.split_whitespace().next())
        .expect("sbatch --array=K,...");
    assert_eq!(rerun, "5,9", "the recovery reruns the shards its example names");
    (1..=shards).filter(|&t| t != 5).for_each(task);
    let csv = dir.path().join("results/league/shard-9-of-16/matches.csv");
    let rows = std::fs::read_to_string(&csv).unwrap();
    let torn = rows.lines().take(4).collect::<Vec<_>>().join("\n") + "\n" + "17,0,sol";
    std::fs::write(&csv, torn).unwrap();
    let status = Command::new("sh")
        .args(["-c", &recovery[0]])
        .current_dir(dir.path())
        .env("PATH", &path)
        .output()
        .expect("sh runs");
    let said = String::from_utf8_lossy(&status.stdout);
    assert_eq!(status.status.code(), Some(1), "{said}");
    for needle in [
        "complete   14 shards: 1-4,6-8,10-16",
        "partial     1 shard:  9 (3 of 10)",
        "missing     1 shard:  5 (no folder)",
        "--shard 9/16 --out results/league/shard-9-of-16",
        "sbatch --array=5,9 JOB_SCRIPT",
        "arena merge results/league/shard-*-of-16",
    ] {
        assert!(said.contains(needle), "`{needle}` missing:\n{said}");
    }
    // By hand, the merge names what is missing.
    shell(dir.path(), &path, "sh", wrap, &[], 4);
    for t in rerun.split(',') {
        task(t.parse().unwrap());
    }
    shell(dir.path(), &path, "sh", &recovery[0], &[], 0);
    shell(dir.path(), &path, "sh", wrap, &[], 0);
    assert_merged_is_whole(dir.path());
}

#[test]
fn the_kubernetes_recipe_runs_its_shards_and_merges_them_as_kubernetes_would() {
    // Kubernetes' part played by hand: every index runs the container's `sh -c` with
    // JOB_COMPLETION_INDEX and CPUS set; then the merge Job's command (YAML folds its two lines
    // into one).
    let yaml = &fenced(&recipe("README.md", "kubernetes"))[0];
    let run = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("args: ['"))
        .and_then(|a| a.strip_suffix("']"))
        .expect("the shard's args");
    let completions: u64 = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions: "))
        .and_then(|c| c.split_whitespace().next())
        .and_then(|c| c.parse().ok())
        .expect("completions");
    let lines: Vec<&str> = yaml.lines().map(str::trim).collect();
    let at = lines.iter().position(|l| l.starts_with("- until ")).expect("the merge's args");
    let merge = format!("{} {}", &lines[at][2..], lines[at + 1]);
    let (dir, path) = small_league();
    // Before any shard ran, the merge Job waits (--status fails); let it give up at once.
    let waiting = merge.replace("sleep 60", "exit 9");
    shell(dir.path(), &path, "sh", &waiting, &[], 9);
    for index in 0..completions {
        let envs = [("JOB_COMPLETION_INDEX", index.to_string()), ("CPUS", "1".into())];
        shell(dir.path(), &path, "sh", run, &envs, 0);
        if index == 0 {
            // One shard done, fifteen missing: still waiting.
            shell(dir.path(), &path, "sh", &waiting, &[], 9);
        }
    }
    shell(dir.path(), &path, "sh", &merge, &[], 0);
    assert_merged_is_whole(dir.path());
}

/// A fake `sbatch` for the SPRT driver: it records each submission (`ID|ARRAY|EXPORTS|SCRIPT`)
/// in `$QUEUE` and answers as sbatch does; [`run_queue`] then plays Slurm's part.
const FAKE_SBATCH: &str = r#"#!/bin/bash
array= exports=
for a in "$@"; do
    case $a in --array=*) array=${a#--array=} ;; --export=ALL,*) exports=${a#--export=ALL,} ;; esac
done
id=$(( $(cat "$QUEUE" 2>/dev/null | wc -l) + 1 ))
echo "$id|$array|$exports|${*: -1}" >>"$QUEUE"
case " $* " in *" --parsable "*) echo "$id" ;; *) echo "Submitted batch job $id" ;; esac
"#;

/// Runs the submissions of `dir/queue` in order, as Slurm would with each dependency met by the
/// submission before it: a driver with its exports, an array's tasks one by one with
/// `SLURM_ARRAY_TASK_ID` (but those `skip(batch, task)` says failed). The drivers' exit codes,
/// and each batch's `FIRST`.
fn run_queue(dir: &Path, path: &str, skip: impl Fn(usize, u64) -> bool) -> (Vec<i32>, Vec<u64>) {
    let queue = dir.join("queue");
    let (mut drivers, mut batches) = (Vec::new(), Vec::new());
    let mut next = 0;
    loop {
        let text = std::fs::read_to_string(&queue).unwrap_or_default();
        let Some(line) = text.lines().nth(next) else { break };
        next += 1;
        let fields: Vec<&str> = line.split('|').collect();
        let (array, exports, script) = (fields[1], fields[2], fields[3]);
        let mut envs: Vec<(String, String)> = exports
            .split(',')
            .filter(|e| !e.is_empty())
            .map(|e| {
                let (k, v) = e.split_once('=').expect("K=V");
                (k.to_string(), v.to_string())
            })
            .collect();
        envs.push(("QUEUE".into(), queue.display().to_string()));
        let job = |extra: &[(String, String)]| {
            Command::new("bash")
                .arg(script)
                .current_dir(dir)
                .env("PATH", path)
                .envs(envs.iter().chain(extra).map(|(k, v)| (k, v)))
                .output()
                .expect("bash runs")
        };
        if array.is_empty() {
            let out = job(&[]);
            drivers.push(out.status.code().expect("an exit code"));
        } else {
            let last: u64 = array.strip_prefix("0-").and_then(|n| n.parse().ok()).expect("0-N");
            let first = envs.iter().find(|(k, _)| k == "FIRST").expect("FIRST").1.parse().unwrap();
            batches.push(first);
            for task in 0..=last {
                if skip(batches.len(), task) {
                    continue;
                }
                let extra = [
                    ("SLURM_ARRAY_TASK_ID".into(), task.to_string()),
                    ("SLURM_CPUS_PER_TASK".into(), "1".into()),
                ];
                let out = job(&extra);
                assert!(
                    out.status.success(),
                    "task {task}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
    (drivers, batches)
}

#[test]
fn the_slurm_sprt_driver_submits_batches_until_it_decides_as_arena_sprt_does() {
    let blocks = fenced(&recipe("docs/tournaments.md", "slurm-sprt"));
    let (driver, submit) = (&blocks[0], &blocks[1]);
    assert!(submit.starts_with("sbatch /shared/arena/sprt.sbatch\n"), "{submit}");
    let dir = project_copy();
    let d = dir.path();
    // Batches of 3 tasks of 20 pairs: the shipped test decides after about 200 pairs.
    let fitted = driver
        .replace("/shared/arena", &d.display().to_string())
        .replace("\nper_task=100 ", "\nper_task=20 ")
        .replace("\ntasks=8 ", "\ntasks=3 ");
    assert!(fitted.contains("per_task=20 ") && fitted.contains("tasks=3 "), "{driver}");
    std::fs::write(d.join("sprt.sbatch"), &fitted).unwrap();
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_arena"), bin.join("arena")).unwrap();
    std::fs::write(bin.join("sbatch"), FAKE_SBATCH).unwrap();
    std::fs::set_permissions(
        bin.join("sbatch"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let one = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["sprt", "arenas/sprt-skynet-virus.toml", "-q", "--json", "--out", "alone"])
        .current_dir(d)
        .output()
        .expect("arena runs");
    assert_eq!(one.status.code(), Some(0), "{}", String::from_utf8_lossy(&one.stderr));
    let verdict = |json: &[u8]| {
        let mut json: serde_json::Value = serde_json::from_slice(json).expect("JSON");
        json.as_object_mut().unwrap().remove("results");
        json
    };
    let alone = verdict(&one.stdout);
    let pairs = alone["pairs"].as_u64().unwrap();
    assert!(pairs > 120, "the test decides after a few batches: {pairs} pairs");

    // The first task of the second batch fails: the next batch starts at its range again.
    shell(d, &path, "bash", "sprt.sbatch", &[("QUEUE", d.join("queue").display().to_string())], 0);
    let (drivers, batches) = run_queue(d, &path, |batch, task| (batch, task) == (2, 0));
    let mut expected = vec![0, 60, 60, 120];
    expected.extend((180..pairs).step_by(60));
    assert_eq!(batches, expected, "{pairs} pairs");
    assert_eq!(drivers.last(), Some(&0), "the last driver exits as arena sprt: {drivers:?}");
    assert!(drivers[..drivers.len() - 1].iter().all(|&c| c == 0), "{drivers:?}");
    let cluster = std::fs::read(d.join("results/sprt-skynet-virus/sprt/sprt.json")).unwrap();
    assert_eq!(verdict(&cluster), alone, "the same verdict, pairs, LLR and counts");

    // Tasks that never succeed: the driver gives up after three batches (the drivers after the
    // one submitted by hand: two submit again, the third stops).
    std::fs::remove_dir_all(d.join("results")).unwrap();
    std::fs::remove_file(d.join("queue")).unwrap();
    shell(d, &path, "bash", "sprt.sbatch", &[("QUEUE", d.join("queue").display().to_string())], 0);
    let (drivers, batches) = run_queue(d, &path, |_, _| true);
    assert_eq!((drivers, batches), (vec![0, 0, 4], vec![0, 0, 0]));
}
