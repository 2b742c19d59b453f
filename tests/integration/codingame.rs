//! `cg:` bots through the real `arena` binary: a CodinGame-style Skynet virus in each language
//! this machine and CI have plays an Episode 1 map to a win; a source that does not compile, or
//! compiles forever, is a `startup_failed` result; the cache compiles a source once; bad specs
//! and missing compilers are errors before any match; Ctrl-C and `kill -9` during a compile
//! leave no compiler behind.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Arena, Run, root};

/// Limits roomy enough for a JVM starting on a loaded 2-core machine.
pub(crate) const ROOMY: [&str; 4] = ["--first-turn-ms", "10000", "--turn-ms", "2000"];

pub(crate) fn source(name: &str) -> PathBuf {
    root().join("tests/fixtures/bots/codingame").join(name)
}

fn ladder_map() -> String {
    root().join("tests/fixtures/maps/skynet_ep1_ladder.txt").display().to_string()
}

/// `cg:PATH`, quoted for the spec's word splitting.
pub(crate) fn cg(path: &Path) -> String {
    format!("cg:{}", shell_words::quote(&path.display().to_string()))
}

/// An `arena play` of the ladder map (Skynet Episode 1) with `virus` against `cg-ep1`, with
/// the cache in `cache`.
pub(crate) fn play(virus: &str, cache: &Path, setup: impl FnOnce(Arena) -> Arena) -> Run {
    let arena = Arena::new()
        .env("ARENA_CACHE_DIR", cache.display().to_string())
        .args(["play", "skynet", "--variant", "ep1", "--map", &ladder_map(), "--json"])
        .args(["--bot", &format!("virus={virus}"), "--bot", "agent=cg-ep1"]);
    setup(arena).run()
}

pub(crate) fn summary(run: &Run) -> Value {
    let stdout = run.stdout();
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("a JSON summary ({e}): {stdout}\nstderr:\n{}", run.stderr()))
}

/// Plays `name` under `cg:` and checks that the virus wins the whole game.
fn wins(name: &str) {
    let cache = tempfile::tempdir().unwrap();
    let run = play(&cg(&source(name)), cache.path(), |a| a.args(ROOMY)).success();
    let s = summary(&run);
    assert_eq!(s["termination"], "normal", "{s}");
    assert_eq!(s["winner"], "virus", "{s}");
    // Five gateway links cut, four agent moves: the whole game, every answer a right one.
    assert_eq!(s["turns"], 9, "{s}");
}

/// Like [`wins`], for the languages CI may not have: skipped, saying so, without `tools`.
fn wins_if_installed(name: &str, tools: &[&str]) {
    if tools.iter().all(|tool| installed(name, tool)) {
        wins(name);
    }
}

#[test]
fn go_plays_to_a_win_where_go_is_installed() {
    wins_if_installed("virus.go", &["go"]);
}

#[test]
fn kotlin_plays_to_a_win_where_kotlinc_is_installed() {
    wins_if_installed("virus.kt", &["kotlinc", "java"]);
}

#[test]
fn csharp_plays_to_a_win_where_mono_is_installed() {
    wins_if_installed("virus.cs", &["mcs", "mono"]);
}

/// A public CodinGame C# bot names a lambda's parameter after a local of the method, which C# 8
/// allows and Mono's `mcs` (C# 7) refuses with CS0136: the match is `startup_failed`, and its
/// detail says why and what to do.
#[test]
fn csharp_8_that_mcs_refuses_is_startup_failed_with_a_note_on_the_csharp_version() {
    if !installed("shadowing.cs", "mcs") || !installed("shadowing.cs", "mono") {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let virus = std::fs::read_to_string(source("virus.cs")).unwrap();
    // `SI` is a local of `Main`; the lambda's `k` becomes `SI` too.
    let shadowing = virus.replace(
        "links.First(k => gateways.Contains(k[0]) || gateways.Contains(k[1]))",
        "links.First(SI => gateways.Contains(SI[0]) || gateways.Contains(SI[1]))",
    );
    assert_ne!(shadowing, virus, "the fixture changed: the replacement no longer applies");
    let bot = folder.path().join("shadowing.cs");
    std::fs::write(&bot, shadowing).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let s = summary(&play(&cg(&bot), cache.path(), |a| a.args(ROOMY)).success());
    assert_eq!(s["termination"], "startup_failed", "{s}");
    let detail = s["detail"].as_str().unwrap();
    assert!(detail.contains("does not compile (mcs exited with"), "{detail}");
    assert!(detail.contains("error CS0136"), "{detail}");
    assert!(detail.contains("; C# 8, which CodinGame's .NET compiles, lets a lambda"), "{detail}");
    assert!(detail.contains("mcs (Mono) knows C# 7 and refuses it: rename one"), "{detail}");
    // The compiler names the user's file, not arena's copy of it in the cache.
    assert!(detail.contains(&format!("{}(41,", bot.display())), "{detail}");
    assert!(!detail.contains(".tmp-"), "{detail}");
}

/// Whether `program` is on `PATH`; when not, says the test `name` is skipped and why.
pub(crate) fn installed(name: &str, program: &str) -> bool {
    if on_path(program).is_some() {
        return true;
    }
    eprintln!("skipped: {name} needs `{program}`, not on PATH");
    false
}

/// Plays `name` under `cg:` with `--sandbox auto` and `--sandbox off`: the virus wins the whole
/// game, the replay verifies, and it keeps the bot's debug line of its first turn.
fn wins_sandboxed_and_not(name: &str) {
    for sandbox in ["auto", "off"] {
        let cache = tempfile::tempdir().unwrap();
        let run = play(&cg(&source(name)), cache.path(), |a| {
            a.args(ROOMY).args(["--sandbox", sandbox, "--replay", "r.jsonl"])
        })
        .success();
        let s = summary(&run);
        assert_eq!(
            (&s["termination"], &s["winner"], &s["turns"]),
            (&"normal".into(), &"virus".into(), &9.into()),
            "{name}, sandbox {sandbox}: {s}"
        );
        let replay = run.dir.join("r.jsonl");
        let verify =
            Arena::new().args(["replay", "--verify", replay.to_str().unwrap()]).run().success();
        assert!(verify.stdout().contains("verified, 9 actions"), "{}", verify.stdout());
        let text = std::fs::read_to_string(&replay).unwrap();
        assert!(text.contains(r#""stderr":"agent on 0, cutting 5 9\n""#), "{name}: {text}");
    }
}

#[test]
fn php_plays_to_a_win_sandboxed_and_not() {
    if installed("virus.php", "php") {
        wins_sandboxed_and_not("virus.php");
    }
}

#[test]
fn ruby_plays_to_a_win_sandboxed_and_not() {
    if installed("virus.rb", "ruby") {
        wins_sandboxed_and_not("virus.rb");
    }
}

/// A PHP or Ruby bot split in two files, its main file loading the other from its folder: the
/// sandbox lets it read only its main file, so it fails in its first turn with the start-up hint,
/// and plays once its folder is allowed.
#[test]
fn a_php_or_ruby_bot_that_loads_a_file_beside_it_is_told_how_to_allow_its_folder() {
    let bots = [
        ("php", "main.php", "helpers.php", "<?php\nrequire __DIR__ . '/helpers.php';\n"),
        ("ruby", "main.rb", "helpers.rb", "require_relative 'helpers'\n"),
    ];
    for (program, main, helpers, loader) in bots {
        if !installed(main, program) {
            continue;
        }
        let folder = tempfile::tempdir().unwrap();
        let virus = std::fs::read_to_string(source(&format!("virus.{}", &main[5..]))).unwrap();
        std::fs::write(folder.path().join(helpers), virus).unwrap();
        std::fs::write(folder.path().join(main), loader).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let bot = cg(&folder.path().join(main));
        let s = summary(&play(&bot, cache.path(), |a| a.args(ROOMY)).success());
        if s["termination"] == "normal" {
            eprintln!("skipped: this machine's sandbox does not limit reads (no Landlock)");
            return;
        }
        assert_eq!(s["termination"], "crash", "{main}: {s}");
        let detail = s["detail"].as_str().unwrap();
        assert!(detail.contains("its stderr names a missing or denied file"), "{main}: {detail}");
        assert!(detail.contains(&format!("`{}`", folder.path().join(main).display())), "{detail}");
        assert!(detail.contains("--allow-read DIR"), "{detail}");
        let allow = ["--allow-read", folder.path().to_str().unwrap()];
        let s = summary(&play(&bot, cache.path(), |a| a.args(ROOMY).args(allow)).success());
        assert_eq!((&s["termination"], &s["winner"]), (&"normal".into(), &"virus".into()), "{s}");
    }
}

#[test]
fn python_plays_to_a_win() {
    wins("virus.py");
}

#[test]
fn javascript_with_codingame_globals_plays_to_a_win() {
    wins("virus.js");
}

#[test]
fn cpp_plays_to_a_win() {
    wins("virus.cpp");
}

#[test]
fn c_plays_to_a_win() {
    wins("virus.c");
}

#[test]
fn java_with_a_non_public_player_class_in_a_file_of_another_name_plays_to_a_win() {
    wins("virus.java");
}

#[test]
fn rust_plays_to_a_win() {
    wins("virus.rs");
}

#[test]
fn the_example_cpp_virus_beats_the_episode_2_agent() {
    let cache = tempfile::tempdir().unwrap();
    let map = root().join("arenas/maps/skynet/ep2_03.txt").display().to_string();
    let run = Arena::new()
        .env("ARENA_CACHE_DIR", cache.path().display().to_string())
        .args(["play", "skynet", "--map", &map, "--json", "--bot", "agent=cg-ep2"])
        .args(["--bot", &format!("virus={}", cg(&root().join("bots/skynet_virus.cpp")))])
        .args(ROOMY)
        .run()
        .success();
    let s = summary(&run);
    assert_eq!((&s["termination"], &s["winner"]), (&"normal".into(), &"virus".into()), "{s}");
}

#[test]
fn python_runs_unbuffered_so_a_bot_that_never_flushes_plays() {
    let cache = tempfile::tempdir().unwrap();
    let bot = source("virus_readline_no_flush.py");
    let s = summary(&play(&cg(&bot), cache.path(), |a| a.args(ROOMY)).success());
    assert_eq!((&s["termination"], &s["winner"]), (&"normal".into(), &"virus".into()), "{s}");
    // The same bot under a plain `python3` keeps its answer in its buffer: the test means
    // something only if that fails.
    let plain = format!("cmd:python3 {}", shell_words::quote(&bot.display().to_string()));
    let fast = ["--first-turn-ms", "1500", "--turn-ms", "300", "--clock", "wall"];
    let s = summary(&play(&plain, cache.path(), |a| a.args(fast)).success());
    assert_eq!(s["termination"], "timeout", "{s}");
}

#[test]
fn a_compile_error_is_startup_failed_with_the_compilers_message() {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path().join("my bots");
    std::fs::create_dir(&dir).unwrap();
    let broken = dir.join("broken virus.cpp");
    std::fs::write(&broken, "int main() {\n    int x = \n}\n").unwrap();
    // Unquoted, a path with spaces is taken as written.
    let spec = format!("cg:{}", broken.display());
    let run = play(&spec, cache.path(), |a| a).success();
    let s = summary(&run);
    assert_eq!(s["termination"], "startup_failed", "{s}");
    assert_eq!(s["culprit_role"], "virus", "{s}");
    assert_eq!(s["winner"], "agent", "{s}");
    let detail = s["detail"].as_str().unwrap();
    assert!(detail.contains("does not compile") && detail.contains("g++"), "{detail}");
    assert!(detail.contains("broken virus.cpp:3"), "the first error, where it is: {detail}");
    let tail: Vec<&str> = s["reports"][0]["stderr_tail"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert!(tail.iter().any(|l| l.contains("error:")), "{tail:?}");

    // Java: a compile error, and a source without `main`.
    let java = dir.join("Bad.java");
    std::fs::write(&java, "class Player { public static void main(String[] a) { int x = } }")
        .unwrap();
    let s = summary(&play(&cg(&java), cache.path(), |a| a).success());
    assert_eq!(s["termination"], "startup_failed", "{s}");
    assert!(s["detail"].as_str().unwrap().contains("javac"), "{s}");
    std::fs::write(&java, "class Player { void main(String[] a) {} }").unwrap();
    let s = summary(&play(&cg(&java), cache.path(), |a| a).success());
    assert_eq!(s["termination"], "startup_failed", "{s}");
    assert!(s["detail"].as_str().unwrap().contains("static void main"), "{s}");
}

#[test]
fn a_source_that_makes_its_compiler_read_forever_is_startup_failed() {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let bomb = folder.path().join("zero.cpp");
    std::fs::write(&bomb, "#include \"/dev/zero\"\nint main() {}\n").unwrap();
    let s = summary(&play(&cg(&bomb), cache.path(), |a| a).success());
    assert_eq!(s["termination"], "startup_failed", "{s}");
    assert!(s["detail"].as_str().unwrap().contains("memory"), "{s}");
}

/// The build folders in a cache (not the JavaScript preload, not temporary folders).
pub(crate) fn builds(cache: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(cache.join("cg"))
        .map(|entries| {
            entries
                .flatten()
                // Not the temporary folders, nor the compiler versions' folder.
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter(|e| e.file_name() != "versions")
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn a_source_is_compiled_once_and_again_when_it_changes() {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let bot = folder.path().join("virus.cpp");
    std::fs::copy(source("virus.cpp"), &bot).unwrap();
    let logged = |a: Arena| a.env("ARENA_LOG", "info");

    let first = play(&cg(&bot), cache.path(), logged).success();
    assert_eq!(summary(&first)["winner"], "virus");
    assert!(first.stderr().contains("compiling"), "{}", first.stderr());
    let entries = builds(cache.path());
    assert_eq!(entries.len(), 1, "{entries:?}");
    let binary = entries[0].join("bot");
    let mtime = std::fs::metadata(&binary).unwrap().modified().unwrap();

    let second = play(&cg(&bot), cache.path(), logged).success();
    assert_eq!(summary(&second)["winner"], "virus");
    assert!(!second.stderr().contains("compiling"), "compiled again: {}", second.stderr());
    assert_eq!(builds(cache.path()), entries);
    assert_eq!(std::fs::metadata(&binary).unwrap().modified().unwrap(), mtime);

    // A changed source is another build; the first stays for whoever still uses it.
    let mut text = std::fs::read_to_string(&bot).unwrap();
    text.push_str("// changed\n");
    std::fs::write(&bot, text).unwrap();
    let third = play(&cg(&bot), cache.path(), logged).success();
    assert!(third.stderr().contains("compiling"), "{}", third.stderr());
    assert_eq!(builds(cache.path()).len(), 2);
}

/// Where `program` is on `PATH`.
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file())
}

#[test]
fn a_cached_java_bot_starts_no_compiler_process() {
    let Some(real_javac) = on_path("javac") else {
        eprintln!("skipped: needs javac on PATH");
        return;
    };
    // A fake `javac` first on PATH: it counts its calls in `calls` (where the sandbox lets it
    // write) and runs the real one, unless the file `refuse` exists: then it fails, so any call
    // while it exists fails the run (the count needs no write).
    let tools = tempfile::tempdir().unwrap();
    let bin = tools.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("javac");
    let script = format!(
        "#!/bin/sh\nhere=$(dirname \"$0\")/..\n\
         if [ -e \"$here/refuse\" ]; then echo 'fake javac: called' >&2; exit 3; fi\n\
         echo \"$*\" >> \"$here/calls\" 2>/dev/null\n\
         exec {} \"$@\"\n",
        shell_words::quote(&real_javac.display().to_string())
    );
    std::fs::write(&fake, script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let cache = tempfile::tempdir().unwrap();
    let bot = cg(&source("virus.java"));
    let run = |path: &str| {
        let run =
            play(&bot, cache.path(), |a| a.env("PATH", path).env("ARENA_LOG", "info").args(ROOMY))
                .success();
        assert_eq!(summary(&run)["winner"], "virus", "{}", run.stderr());
        run.stderr()
    };
    let asked = |log: &str| log.matches("its version").count();
    let compiled = |log: &str| log.matches("compiling").count();
    let calls = || std::fs::read_to_string(tools.path().join("calls")).unwrap_or_default();

    // The first run asks the fake its version and compiles with it.
    let first = run(&path);
    assert!(first.contains(&format!("asking `{}` its version", fake.display())), "{first}");
    assert_eq!((asked(&first), compiled(&first)), (1, 1), "{first}");
    let counted = calls();
    assert!(counted.is_empty() || counted.lines().count() == 2, "{counted}");

    // The second, in a new process, starts no compiler: a call would fail it.
    std::fs::write(tools.path().join("refuse"), "").unwrap();
    let second = run(&path);
    assert_eq!((asked(&second), compiled(&second)), (0, 0), "{second}");
    assert_eq!(calls(), counted, "no call");

    // A compiler changed in place (another modification time) is asked again; its answer is
    // the same, so the build in the cache still serves.
    std::fs::remove_file(tools.path().join("refuse")).unwrap();
    let later = std::time::SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options().write(true).open(&fake).unwrap().set_modified(later).unwrap();
    let third = run(&path);
    assert_eq!((asked(&third), compiled(&third)), (1, 0), "{third}");
}

#[test]
fn concurrent_runs_compile_one_source_without_racing() {
    let cache = tempfile::tempdir().unwrap();
    let arenas: Vec<Arena> = (0..3)
        .map(|_| {
            Arena::new()
                .env("ARENA_CACHE_DIR", cache.path().display().to_string())
                .args(["play", "skynet", "--variant", "ep1", "--map", &ladder_map(), "--json"])
                .args(["--bot", &format!("virus={}", cg(&source("virus.c")))])
                .args(["--bot", "agent=cg-ep1"])
                .args(ROOMY)
        })
        .collect();
    let children: Vec<_> = arenas.iter().map(|a| a.command().output_in_background()).collect();
    for child in children {
        let out = child.join().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("\"winner\":\"virus\""), "{stdout}");
    }
    let builds = builds(cache.path());
    assert_eq!(builds.len(), 1, "{builds:?}");
    let names: Vec<String> = std::fs::read_dir(cache.path().join("cg"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with(".tmp")), "a temporary folder is left: {names:?}");
}

trait InBackground {
    fn output_in_background(self) -> std::thread::JoinHandle<std::process::Output>;
}

impl InBackground for std::process::Command {
    fn output_in_background(mut self) -> std::thread::JoinHandle<std::process::Output> {
        std::thread::spawn(move || self.output().expect("arena runs"))
    }
}

/// A copy of the slow source under a name no other test uses, to find its compiler by.
fn slow_source(folder: &Path, name: &str) -> PathBuf {
    let path = folder.join(name);
    std::fs::copy(source("slow_to_compile.cpp"), &path).unwrap();
    path
}

/// The live (not zombie) processes but arena whose command line mentions `marker`: the
/// compilers of a source named `marker`.
fn processes_mentioning(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains(marker) || comm.trim() == "arena" {
            continue;
        }
        let zombie = crate::external::stat_fields(pid).is_some_and(|stat| stat[0] == "Z");
        if !zombie {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `limit` for `check` to hold.
fn eventually(limit: Duration, check: impl Fn() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

#[test]
fn a_compile_that_never_ends_is_cut_by_the_time_limit() {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let slow = slow_source(folder.path(), "slow_limit.cpp");
    let started = Instant::now();
    let run = play(&cg(&slow), cache.path(), |a| a.env("ARENA_COMPILE_TIMEOUT", "2")).success();
    let s = summary(&run);
    assert_eq!(s["termination"], "startup_failed", "{s}");
    assert!(s["detail"].as_str().unwrap().contains("did not compile within 2 s"), "{s}");
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert_eq!(processes_mentioning("slow_limit.cpp"), Vec::<i32>::new(), "compilers left");
    assert!(builds(cache.path()).is_empty(), "nothing is cached for a compile that failed");

    let run = play(&cg(&slow), cache.path(), |a| a.env("ARENA_COMPILE_TIMEOUT", "soon"));
    assert_eq!(run.output.status.code(), Some(2));
    assert!(run.stderr().contains("ARENA_COMPILE_TIMEOUT"), "{}", run.stderr());
}

/// Starts a match whose virus compiles forever, and waits until its compiler runs.
fn start_slow_compile(
    marker: &str,
    timeout_s: &str,
) -> (std::process::Child, tempfile::TempDir, tempfile::TempDir) {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let slow = slow_source(folder.path(), marker);
    let arena = Arena::new()
        .env("ARENA_CACHE_DIR", cache.path().display().to_string())
        .env("ARENA_COMPILE_TIMEOUT", timeout_s)
        .args(["play", "skynet", "--bot", &format!("virus={}", cg(&slow))]);
    let mut cmd = arena.command();
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    let child = cmd.spawn().unwrap();
    assert!(
        eventually(Duration::from_secs(20), || !processes_mentioning(marker).is_empty()),
        "the compiler never started"
    );
    (child, cache, folder)
}

#[test]
fn ctrl_c_during_a_compile_stops_the_compiler() {
    let marker = "slow_sigint.cpp";
    let (mut child, _cache, _folder) = start_slow_compile(marker, "60");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status}");
    assert!(
        eventually(Duration::from_secs(2), || processes_mentioning(marker).is_empty()),
        "compilers left: {:?}",
        processes_mentioning(marker)
    );
}

#[test]
fn kill_9_during_a_compile_leaves_no_compiler_for_long() {
    let marker = "slow_kill9.cpp";
    let (mut child, _cache, _folder) = start_slow_compile(marker, "2");
    assert!(child.try_wait().unwrap().is_none(), "arena must still be compiling");
    child.kill().unwrap();
    child.wait().unwrap();
    // The driver dies with arena; its helper at the latest when its CPU time runs out (the
    // time limit plus 2 s: 4 s of CPU, which a loaded machine may spread over much longer).
    assert!(
        eventually(Duration::from_secs(90), || processes_mentioning(marker).is_empty()),
        "compilers left: {:?}",
        processes_mentioning(marker)
    );
}

#[test]
fn bad_sources_are_errors_before_any_match() {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let expect_error = |spec: &str, setup: &dyn Fn(Arena) -> Arena, words: &[&str]| {
        let run = play(spec, cache.path(), setup);
        assert_eq!(run.output.status.code(), Some(2), "{spec}: {}", run.stderr());
        assert!(run.stdout().is_empty(), "no match is played: {}", run.stdout());
        for w in words {
            assert!(run.stderr().contains(w), "{spec}: `{w}` not in {}", run.stderr());
        }
    };
    let none = |a: Arena| a;
    expect_error("cg:no/such/virus.py", &none, &["no/such/virus.py", "does not exist"]);
    let perl = folder.path().join("virus.pl");
    std::fs::write(&perl, "print 1").unwrap();
    expect_error(&cg(&perl), &none, &["unknown extension", ".py", ".cpp", ".rb (Ruby)", ".php"]);
    expect_error(&cg(folder.path()), &none, &["not a regular file"]);
    let huge = folder.path().join("huge.py");
    std::fs::File::create(&huge).unwrap().set_len(64 << 20).unwrap();
    expect_error(&cg(&huge), &none, &["huge.py", "bytes"]);
    // No compiler on the PATH: named, with how to install it.
    let empty = tempfile::tempdir().unwrap();
    let no_path = |a: Arena| a.env("PATH", empty.path().display().to_string());
    expect_error(&cg(&source("virus.cpp")), &no_path, &["g++", "not installed", "apt-get"]);
    expect_error(&cg(&source("virus.js")), &no_path, &["node", "not installed"]);
    expect_error(&cg(&source("virus.php")), &no_path, &["php", "apt-get install php-cli"]);
    expect_error(&cg(&source("virus.rb")), &no_path, &["ruby", "apt-get install ruby"]);
}

/// A tournament arena file with a `cg:` virus against the CodinGame agent.
fn write_arena(folder: &Path, virus_spec: &str) -> PathBuf {
    let map = ladder_map();
    let text = format!(
        "name = \"cg\"\ngame = \"skynet\"\nvariant = \"ep1\"\ngames_per_pairing = 3\n\
         [maps]\nfiles = [{map:?}]\n\
         [limits]\nfirst_turn_ms = 10000\nturn_ms = 2000\n\
         [[bots]]\nname = \"mine\"\nspec = {virus_spec:?}\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"agent\"\nspec = \"cg-ep1\"\nroles = [\"agent\"]\n"
    );
    let path = folder.join("cg.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_tournament_compiles_before_its_first_match() {
    let cache = tempfile::tempdir().unwrap();
    let arena = Arena::new();
    // A path relative to the folder arena runs in, as for `cmd:`.
    std::fs::create_dir(arena.dir().join("bots")).unwrap();
    std::fs::copy(source("virus.cpp"), arena.dir().join("bots/virus.cpp")).unwrap();
    write_arena(arena.dir(), "cg:bots/virus.cpp");
    let run = arena
        .env("ARENA_CACHE_DIR", cache.path().display().to_string())
        .args(["run", "cg.toml", "-q", "-j", "2"])
        .run()
        .success();
    let csv = std::fs::read_to_string(run.dir.join("results/cg/matches.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    // Won by `mine` as the virus, with a normal ending.
    assert!(rows.iter().all(|r| r.contains(",mine,virus,normal,")), "{csv}");
    assert_eq!(builds(cache.path()).len(), 1);
}

#[test]
fn a_tournament_bot_that_does_not_compile_loses_its_matches() {
    let cache = tempfile::tempdir().unwrap();
    let arena = Arena::new();
    std::fs::write(arena.dir().join("broken.c"), "int main( {").unwrap();
    write_arena(arena.dir(), "cg:broken.c");
    let run = arena
        .env("ARENA_CACHE_DIR", cache.path().display().to_string())
        .env("ARENA_LOG", "info")
        .args(["run", "cg.toml", "-q"])
        .run()
        .success();
    let csv = std::fs::read_to_string(run.dir.join("results/cg/matches.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(rows.iter().all(|r| r.contains("startup_failed")), "{csv}");
    assert_eq!(run.stderr().matches("compiling").count(), 1, "{}", run.stderr());
}

#[test]
fn a_tournament_with_a_missing_compiler_stops_before_any_match() {
    let arena = Arena::new();
    write_arena(arena.dir(), &cg(&source("virus.cpp")));
    let empty = tempfile::tempdir().unwrap();
    let run =
        arena.env("PATH", empty.path().display().to_string()).args(["run", "cg.toml", "-q"]).run();
    assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
    assert!(
        run.stderr().contains("bots[0].spec") && run.stderr().contains("g++"),
        "{}",
        run.stderr()
    );
    assert!(!run.dir.join("results/cg/matches.csv").exists());
}
