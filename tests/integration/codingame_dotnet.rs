//! `cg:` C# through `dotnet`, arena's side of it: with a stand-in `dotnet` on `PATH`
//! (`tests/fixtures/dotnet-stand-in.sh`, which checks the project arena writes and compiles with
//! Mono's `mcs`), a `.cs` source is built by `dotnet build` once and run as `dotnet bot.dll` in
//! the sandbox, reading the installation it was found through a symlink to; a cached bot asks
//! `dotnet` nothing; a compile error names the user's file; `ARENA_CSHARP` picks `mcs` or
//! `dotnet`, and a `dotnet` without an SDK leaves C# to `mcs`. No real .NET SDK is tested here.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use crate::codingame::{ROOMY, builds, cg, installed, on_path, play, source, summary};
use crate::support::{Arena, Run, root};

/// A stand-in .NET installation in a home of its own, laid out as Microsoft's install script
/// lays it out (`~/.dotnet/dotnet`, `~/.dotnet/sdk`, `~/.dotnet/shared`), its `dotnet` reached
/// through `~/bin/dotnet`, a symlink. Neither folder above is readable in the sandbox (the home
/// is not): only the installation, which arena finds through the symlink.
struct StandIn {
    _dir: tempfile::TempDir,
    home: PathBuf,
    install: PathBuf,
    cache: tempfile::TempDir,
}

impl StandIn {
    /// `None`, saying so, where `mcs` or `mono` is missing (CI installs both).
    fn new(test: &str) -> Option<StandIn> {
        if !installed(test, "mcs") || !installed(test, "mono") {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let install = home.join(".dotnet");
        std::fs::create_dir_all(install.join("sdk/8.0.100")).unwrap();
        std::fs::write(install.join("sdk/version"), "8.0.100\n").unwrap();
        let runtime = install.join("shared/Microsoft.NETCore.App/8.0.0");
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::write(runtime.join("marker"), "").unwrap();
        let program = install.join("dotnet");
        std::fs::copy(root().join("tests/fixtures/dotnet-stand-in.sh"), &program).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(home.join("bin")).unwrap();
        std::os::unix::fs::symlink("../.dotnet/dotnet", home.join("bin/dotnet")).unwrap();
        let cache = tempfile::tempdir().unwrap();
        Some(StandIn { _dir: dir, home, install, cache })
    }

    /// The `dotnet` on `PATH`.
    fn program(&self) -> PathBuf {
        self.home.join("bin/dotnet")
    }

    /// `arena play` of `virus` with the stand-in first on `PATH`, its home as `HOME`, and
    /// compiles and version questions logged.
    fn play(&self, virus: &Path, setup: impl FnOnce(Arena) -> Arena) -> Run {
        let path =
            format!("{}:{}", self.home.join("bin").display(), std::env::var("PATH").unwrap());
        play(&cg(virus), self.cache.path(), |a| {
            setup(
                a.env("PATH", path)
                    .env("HOME", self.home.display().to_string())
                    .env("ARENA_LOG", "info")
                    .args(ROOMY),
            )
        })
    }

    /// Makes any call but running a program fail (`refuse`), or `--version` answer as a
    /// `dotnet` without an SDK does (`no-sdk`).
    fn set(&self, flag: &str, on: bool) {
        let file = self.install.join(flag);
        if on {
            std::fs::write(file, "").unwrap();
        } else {
            let _ = std::fs::remove_file(file);
        }
    }
}

fn asked(log: &str) -> usize {
    log.matches("its version").count()
}

fn compiled_with(log: &str, compiler: &str) -> usize {
    log.matches(&format!("` with {compiler}")).count()
}

#[test]
fn csharp_is_built_by_dotnet_when_it_is_on_path_and_a_cached_bot_asks_it_nothing() {
    let Some(dotnet) = StandIn::new("csharp through dotnet") else { return };
    let virus = source("virus.cs");

    // The first run asks `dotnet` its version, builds the bot with it, and plays it to a win
    // in the sandbox; the replay verifies.
    let first = dotnet.play(&virus, |a| a.args(["--replay", "r.jsonl"])).success();
    let log = first.stderr();
    let s = summary(&first);
    assert_eq!(
        (&s["termination"], &s["winner"], &s["turns"]),
        (&"normal".into(), &"virus".into(), &9.into()),
        "{s}\n{log}"
    );
    assert!(log.contains(&format!("asking `{}` its version", dotnet.program().display())), "{log}");
    assert_eq!((asked(&log), compiled_with(&log, "dotnet")), (1, 1), "{log}");
    let verify = Arena::new()
        .args(["replay", "--verify", first.dir.join("r.jsonl").to_str().unwrap()])
        .run()
        .success();
    assert!(verify.stdout().contains("verified, 9 actions"), "{}", verify.stdout());
    // The build keeps the program and its project, not the SDK's scratch and intermediates.
    let entries = builds(dotnet.cache.path());
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    assert!(entry.join("out/bot.dll").is_file() && entry.join("bot.csproj").is_file(), "{entry:?}");
    assert!(!entry.join("obj").exists() && !entry.join(".scratch").exists(), "{entry:?}");

    // The second, in a new process, starts `dotnet` only to run the bot: a version question or
    // a build would fail it.
    dotnet.set("refuse", true);
    let second = dotnet.play(&virus, |a| a).success();
    let log = second.stderr();
    assert_eq!(summary(&second)["winner"], "virus", "{log}");
    assert_eq!((asked(&log), compiled_with(&log, "dotnet")), (0, 0), "{log}");

    // `ARENA_CSHARP=mcs` compiles with Mono's mcs and runs with mono, `dotnet` or not.
    let mono = dotnet.play(&virus, |a| a.env("ARENA_CSHARP", "mcs")).success();
    let log = mono.stderr();
    assert_eq!(summary(&mono)["winner"], "virus", "{log}");
    assert_eq!((asked(&log), compiled_with(&log, "mcs")), (1, 1), "{log}");
    assert!(!log.contains(&dotnet.program().display().to_string()), "{log}");

    // Another SDK installed beside `dotnet` (its `sdk` folder changed, the program not) is
    // asked again.
    dotnet.set("refuse", false);
    std::fs::create_dir(dotnet.install.join("sdk/8.0.200")).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    std::fs::File::open(dotnet.install.join("sdk")).unwrap().set_modified(later).unwrap();
    let third = dotnet.play(&virus, |a| a).success();
    let log = third.stderr();
    assert_eq!(summary(&third)["winner"], "virus", "{log}");
    assert_eq!((asked(&log), compiled_with(&log, "dotnet")), (1, 0), "{log}");
}

#[test]
fn a_csharp_compile_error_under_dotnet_names_the_users_file() {
    let Some(dotnet) = StandIn::new("a dotnet compile error") else { return };
    let folder = tempfile::tempdir().unwrap();
    let virus = std::fs::read_to_string(source("virus.cs")).unwrap();
    let typo = virus.replacen("int N = ", "int N = undefinedName + ", 1);
    assert_ne!(typo, virus, "the fixture changed: the replacement no longer applies");
    let bot = folder.path().join("typo.cs");
    std::fs::write(&bot, typo).unwrap();
    let run = dotnet.play(&bot, |a| a).success();
    let s = summary(&run);
    assert_eq!(s["termination"], "startup_failed", "{s}");
    let detail = s["detail"].as_str().unwrap();
    assert!(detail.contains("does not compile (dotnet exited with status 1)"), "{detail}");
    assert!(detail.contains(&format!("{}(", bot.display())), "{detail}");
    assert!(detail.contains("error CS0103"), "{detail}");
    // Not arena's copy, nor its project, nor the note on what mcs lacks.
    assert!(!detail.contains(".tmp-") && !detail.contains("bot.csproj"), "{detail}");
    assert!(!detail.contains("mcs (Mono)"), "{detail}");
    // The report's compiler lines name the user's file too.
    let report = run.stdout() + &run.stderr();
    assert!(!report.contains("bot.csproj"), "{report}");
}

#[test]
fn arena_csharp_picks_the_compiler_and_a_dotnet_without_an_sdk_leaves_csharp_to_mcs() {
    let Some(dotnet) = StandIn::new("ARENA_CSHARP") else { return };
    let virus = source("virus.cs");
    let refused = |run: Run, words: &[&str]| {
        assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
        assert!(run.stdout().is_empty(), "no match is played: {}", run.stdout());
        for w in words {
            assert!(run.stderr().contains(w), "`{w}` not in {}", run.stderr());
        }
    };
    refused(
        dotnet.play(&virus, |a| a.env("ARENA_CSHARP", "roslyn")),
        &["ARENA_CSHARP=\"roslyn\": expected `dotnet`, `mcs` or `auto`"],
    );

    // `dotnet` with runtimes only: C# goes to mcs, unless `dotnet` is asked for.
    dotnet.set("no-sdk", true);
    let fallback = dotnet.play(&virus, |a| a).success();
    let log = fallback.stderr();
    assert_eq!(summary(&fallback)["winner"], "virus", "{log}");
    assert_eq!(compiled_with(&log, "mcs"), 1, "{log}");
    refused(
        dotnet.play(&virus, |a| a.env("ARENA_CSHARP", "dotnet")),
        &["ARENA_CSHARP=dotnet, but `", "No .NET SDKs were found", "or set ARENA_CSHARP=mcs"],
    );

    // No `dotnet` at all.
    if on_path("dotnet").is_none() {
        let run = play(&cg(&virus), dotnet.cache.path(), |a| a.env("ARENA_CSHARP", "dotnet"));
        refused(
            run,
            &[
                "`dotnet` (needed to compile C# sources with ARENA_CSHARP=dotnet) is not installed",
                "https://dotnet.microsoft.com/download",
            ],
        );
    }
}
