//! Tournament throughput and memory: `cargo bench --bench tournament`.
//!
//! Every measurement runs in a fresh child process (this binary re-executed), so each peak
//! memory figure (`ru_maxrss`) is that run's alone. Figures printed:
//! - matches per second of an in-process tournament at concurrency 1 and 2, and the speedup, for
//!   two workloads: `tiny` (the built-in bot `BENCH_BOTS`, default `random`, on both sides of
//!   four small shipped maps: matches of a few microseconds, so the per-match overhead of the
//!   harness dominates) and `planning` (the `solver` and `greedy` viruses against `cg-ep2` on
//!   generated 100-node maps: matches that do real work, as tournaments do);
//! - peak memory of 1,000 and of 10,000 matches (`tiny`), and their ratio;
//! - peak memory of the `arena` command's `run`, `report` and `merge` of 10,000 and of 100,000
//!   matches (`tiny`), and their ratios: none may grow with the number of matches.
//!
//! Options (environment): `BENCH_MATCHES` (default 20000) for the `tiny` throughput runs,
//! `BENCH_BOTS` for its bot.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use arena::tournament::{Arena, RunOptions, run};

fn arena_text(games: u64, bot: &str) -> String {
    if bot == "planning" {
        // Two viruses and one agent: every game is two matches, one per virus.
        return format!(
            "name = \"bench\"\ngame = \"skynet\"\nseed = 1\ngames_per_pairing = {games}\n\
             [maps]\ngenerate = {{ count = 50, params = {{ nodes = 100 }} }}\n\
             [[bots]]\nname = \"solver\"\n[[bots]]\nname = \"greedy\"\n\
             [[bots]]\nname = \"cg-ep2\"\n"
        );
    }
    let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/maps/skynet");
    // Two bots playing both roles: every game is a role-swapped pair of matches.
    format!(
        "name = \"bench\"\ngame = \"skynet\"\nseed = 1\ngames_per_pairing = {games}\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\", \"{0}/ep2_03.txt\", \
         \"{0}/ep2_custom_forum_12nodes.txt\"]\n\
         [[bots]]\nname = \"a\"\nspec = \"{bot}\"\n[[bots]]\nname = \"b\"\nspec = \"{bot}\"\n",
        maps.display()
    )
}

/// The child: runs `matches` matches at `concurrency`, prints `seconds maxrss_kb`.
fn child(matches: u64, concurrency: usize, bot: &str) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("bench.toml");
    std::fs::write(&path, arena_text(matches / 2, bot)).expect("write the arena");
    let arena = Arena::load(&path).expect("a valid arena");
    let opts = RunOptions {
        concurrency: Some(concurrency),
        out: Some(dir.path().join("out")),
        ..RunOptions::default()
    };
    let start = Instant::now();
    let outcome = run(&arena, &opts).expect("the run succeeds");
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(outcome.played, matches);
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
        .expect("getrusage");
    let cpu = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    let cpu_seconds = cpu(usage.user_time()) + cpu(usage.system_time());
    println!("{seconds} {} {cpu_seconds}", usage.max_rss());
}

/// Wall seconds, peak RSS in KiB, and CPU seconds (user + system) of one child run.
fn measure(matches: u64, concurrency: usize, bot: &str) -> (f64, i64, f64) {
    let out = Command::new(std::env::current_exe().expect("this binary"))
        .env("ARENA_BENCH_CHILD", format!("{matches} {concurrency} {bot}"))
        .output()
        .expect("the child runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let seconds: f64 = words.next().and_then(|w| w.parse().ok()).expect("seconds");
    let rss: i64 = words.next().and_then(|w| w.parse().ok()).expect("maxrss");
    let cpu: f64 = words.next().and_then(|w| w.parse().ok()).expect("cpu seconds");
    (seconds, rss, cpu)
}

/// The child: runs the `arena` command with `args` and prints its peak RSS in KiB (the only
/// process this child waits for, so `RUSAGE_CHILDREN` is its alone).
fn child_command(args: &[String]) {
    let status = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("arena runs");
    assert!(status.success(), "arena {args:?} failed");
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    println!("{}", usage.max_rss());
}

/// The peak RSS in KiB of `arena ARGS`.
fn command_peak(args: &[String]) -> i64 {
    let out = Command::new(std::env::current_exe().expect("this binary"))
        .env("ARENA_BENCH_COMMAND", args.join("\u{1f}"))
        .output()
        .expect("the child runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("maxrss")
}

/// Peak memory of `arena run`, `report` and `merge` of `matches` matches, in KiB.
fn command_peaks(dir: &Path, matches: u64, bot: &str) -> [i64; 3] {
    let arena = dir.join(format!("bench-{matches}.toml"));
    std::fs::write(&arena, arena_text(matches / 2, bot)).expect("write the arena");
    let out = dir.join(format!("run-{matches}"));
    let merged = dir.join(format!("merged-{matches}"));
    let text = |p: &Path| p.display().to_string();
    let run = command_peak(&["run".into(), text(&arena), "--out".into(), text(&out), "-j2".into()]);
    let report = command_peak(&["report".into(), text(&out)]);
    let merge = command_peak(&["merge".into(), text(&out), "--out".into(), text(&merged)]);
    [run, report, merge]
}

fn main() {
    if let Ok(args) = std::env::var("ARENA_BENCH_COMMAND") {
        child_command(&args.split('\u{1f}').map(String::from).collect::<Vec<_>>());
        return;
    }
    if let Ok(spec) = std::env::var("ARENA_BENCH_CHILD") {
        let words: Vec<&str> = spec.split_whitespace().collect();
        child(words[0].parse().expect("matches"), words[1].parse().expect("concurrency"), words[2]);
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let matches: u64 =
        std::env::var("BENCH_MATCHES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let bot = std::env::var("BENCH_BOTS").unwrap_or_else(|_| "random".into());
    // Other work on the machine skews the speedup: say how busy it was.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "tournament bench: {} cores, load average {}; rows flushed per match",
        std::thread::available_parallelism().map(std::num::NonZero::get).unwrap_or(1),
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    let workloads = [
        (format!("tiny: skynet ep2, {bot} vs {bot}, 4 shipped maps"), matches, bot.as_str()),
        (
            "planning: solver and greedy vs cg-ep2, 50 generated 100-node maps".into(),
            4_000,
            "planning",
        ),
    ];
    for (title, matches, bot) in workloads {
        println!("{title}");
        let (t1, _, c1) = measure(matches, 1, bot);
        let (t2, _, c2) = measure(matches, 2, bot);
        for (j, t, c) in [(1, t1, c1), (2, t2, c2)] {
            println!(
                "  {matches} matches, concurrency {j}: {t:.3} s wall, {:.0} matches/s, {c:.3} s CPU ({:.1} us CPU per match)",
                matches as f64 / t,
                c * 1e6 / matches as f64
            );
        }
        println!(
            "  speedup 1 -> 2: {:.2}x wall; CPU cost of the second thread: {:+.1}%",
            t1 / t2,
            100.0 * (c2 / c1 - 1.0)
        );
    }
    let (_, small, _) = measure(1_000, 2, &bot);
    let (_, big, _) = measure(10_000, 2, &bot);
    println!(
        "peak memory: 1,000 matches {small} KiB, 10,000 matches {big} KiB, ratio {:.3}",
        big as f64 / small as f64
    );
    let dir = tempfile::tempdir().expect("a temp dir");
    let small = command_peaks(dir.path(), 10_000, &bot);
    let big = command_peaks(dir.path(), 100_000, &bot);
    for (i, command) in ["run", "report", "merge"].into_iter().enumerate() {
        println!(
            "arena {command:<6} peak memory: 10,000 matches {} KiB, 100,000 matches {} KiB, ratio {:.3}",
            small[i],
            big[i],
            big[i] as f64 / small[i] as f64
        );
    }
}
