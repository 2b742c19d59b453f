//! External bots through the real `arena` binary: every kind of misbehaviour ends the match with
//! the right label and culprit, within the time limit plus a margin, and leaves no process. The
//! bots run in the sandbox (`auto`, the default) unless a test says `--sandbox off`; each gets a
//! unique marker argument, by which the tests find its processes in `/proc`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Arena, root};

/// What loaded CI machines (2 cores, many jobs) may add to a limit: process start-up, the end of
/// match grace periods, scheduling.
const MARGIN: Duration = Duration::from_millis(2500);

/// How far beyond its hard limit a single decision may be measured (event-driven wake-up).
const TURN_MARGIN: Duration = Duration::from_millis(400);

pub(crate) struct Outcome {
    pub(crate) summary: Value,
    elapsed: Duration,
    pub(crate) stdout: String,
}

impl Outcome {
    pub(crate) fn new(summary: Value, stdout: String) -> Outcome {
        Outcome { summary, elapsed: Duration::ZERO, stdout }
    }

    pub(crate) fn termination(&self) -> &str {
        self.summary["termination"].as_str().unwrap_or_default()
    }

    pub(crate) fn culprit(&self) -> Option<&str> {
        self.summary["culprit_role"].as_str()
    }

    pub(crate) fn detail(&self) -> &str {
        self.summary["detail"].as_str().unwrap_or_default()
    }

    pub(crate) fn stderr_tail(&self, seat: usize) -> Vec<String> {
        self.summary["reports"][seat]["stderr_tail"]
            .as_array()
            .map(|a| a.iter().filter_map(|l| l.as_str().map(String::from)).collect())
            .unwrap_or_default()
    }

    pub(crate) fn max_turn(&self, seat: usize) -> Duration {
        Duration::from_micros(self.summary["max_turn_micros"][seat].as_u64().unwrap_or(0))
    }

    pub(crate) fn expect(&self, termination: &str, culprit: Option<&str>) {
        assert_eq!(self.termination(), termination, "{}", self.stdout);
        assert_eq!(self.culprit(), culprit, "{}", self.stdout);
    }

    pub(crate) fn within(&self, limit: Duration) {
        assert!(
            self.elapsed < limit + MARGIN,
            "the match took {:?}, limit {limit:?}: {}",
            self.elapsed,
            self.stdout
        );
    }
}

pub(crate) fn fixture(name: &str) -> String {
    root().join("tests/fixtures/bots").join(name).display().to_string()
}

/// `cmd:` spec of `interpreter fixture marker args...`, quoted for the spec's word splitting.
pub(crate) fn bot(interpreter: &str, name: &str, marker: &str, args: &[&str]) -> String {
    let mut words = vec![interpreter.to_string(), fixture(name), marker.to_string()];
    words.extend(args.iter().map(std::string::ToString::to_string));
    format!("cmd:{}", shell_words::join(words))
}

/// A marker no other test uses: a path inside this test's own temporary folder.
pub(crate) fn marker_in(dir: &Path) -> String {
    dir.join("bot-marker").display().to_string()
}

/// What Python fixtures read besides themselves in the sandbox: `common.py` next to them, and
/// the example virus it runs.
pub(crate) fn python_fixture_files() -> Vec<String> {
    let fixtures = root().join("tests/fixtures/bots").display().to_string();
    let virus = root().join("bots/skynet_virus.py").display().to_string();
    vec!["--allow-read".into(), fixtures, "--allow-read".into(), virus]
}

/// Plays the default Skynet map with `virus` (a spec made from the marker) against the built-in
/// random agent, and checks that no process with the marker is left.
pub(crate) fn play_virus(virus: impl Fn(&str) -> String, extra: &[&str]) -> Outcome {
    let arena = Arena::new();
    let marker = marker_in(arena.dir());
    let spec = virus(&marker);
    let started = Instant::now();
    let run = arena
        .args(["play", "skynet", "--json", "--bot", "agent=random"])
        .args(["--bot", &format!("virus={spec}")])
        .args(extra)
        .run()
        .success();
    let elapsed = started.elapsed();
    let stdout = run.stdout();
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("a JSON summary ({e}): {stdout}\n{}", run.stderr()));
    let outcome = Outcome { summary, elapsed, stdout };
    assert_no_process_left(&marker);
    outcome
}

/// The live processes (zombies are dead: they only wait to be reaped) with `marker` as one of
/// their arguments (arena's own command line only holds it inside a bot spec).
pub(crate) fn marked_processes(marker: &str) -> Vec<i32> {
    let mut live = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc is readable").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if !cmdline.split(|&b| b == 0).any(|arg| arg == marker.as_bytes()) {
            continue;
        }
        let Some(stat) = stat_fields(pid) else { continue };
        if stat[0] != "Z" {
            live.push(pid);
        }
    }
    live
}

/// The fields of `/proc/PID/stat` after `pid (comm) `: state, parent, ... (comm may hold spaces
/// and parentheses).
pub(crate) fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    Some(rest.split(' ').map(str::to_owned).collect())
}

/// The marked processes that are bots themselves: a bot's shell that forks to run a command
/// leaves a child carrying the marker too until that child execs (on a busy machine it is caught
/// there), so a marked process whose parent is marked is not counted.
pub(crate) fn marked_bots(marker: &str) -> Vec<i32> {
    let marked = marked_processes(marker);
    let parent = |pid: i32| -> Option<i32> { stat_fields(pid)?.get(1)?.parse().ok() };
    marked.iter().copied().filter(|&pid| parent(pid).is_none_or(|p| !marked.contains(&p))).collect()
}

pub(crate) fn assert_no_process_left(marker: &str) {
    let left = marked_processes(marker);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

pub(crate) fn str_refs(words: &[String]) -> Vec<&str> {
    words.iter().map(String::as_str).collect()
}

/// Limits that keep the failing matches short, yet leave an interpreter time to start on a
/// loaded machine.
pub(crate) const FAST: [&str; 4] = ["--first-turn-ms", "1000", "--turn-ms", "200"];
/// Limits for bots that must play whole matches on a loaded machine.
const ROOMY: [&str; 4] = ["--first-turn-ms", "3000", "--turn-ms", "1000"];

#[test]
fn a_bot_that_sleeps_forever_times_out() {
    for sandbox in ["auto", "off"] {
        let extra = [&FAST[..], &["--sandbox", sandbox, "--clock", "wall"]].concat();
        let o = play_virus(|p| bot("sh", "sleeps_forever.sh", p, &[]), &extra);
        o.expect("timeout", Some("virus"));
        o.within(Duration::from_millis(1000));
        assert!(o.max_turn(0) < Duration::from_millis(1000) + TURN_MARGIN, "{:?}", o.max_turn(0));
        assert_eq!(o.stderr_tail(0), vec!["thinking very hard"]);
    }
}

#[test]
fn a_bot_killed_by_a_signal_crashes() {
    let o = play_virus(|p| bot("sh", "crash_signal.sh", p, &[]), &FAST);
    o.expect("crash", Some("virus"));
    assert!(o.detail().contains("signal 11 (SIGSEGV)"), "{}", o.detail());
    assert_eq!(o.stderr_tail(0), vec!["about to crash"]);
    o.within(Duration::ZERO);
}

#[test]
fn a_bot_that_exits_early_is_eof_with_code_zero_and_crash_otherwise() {
    let o = play_virus(|p| bot("sh", "exits_early.sh", p, &["0"]), &FAST);
    o.expect("eof", Some("virus"));
    o.within(Duration::ZERO);
    let o = play_virus(|p| bot("sh", "exits_early.sh", p, &["3"]), &FAST);
    o.expect("crash", Some("virus"));
    assert!(o.detail().contains("exit code 3"), "{}", o.detail());
    assert_eq!(o.stderr_tail(0), vec!["leaving with code 3"]);
    o.within(Duration::ZERO);
}

#[test]
fn garbage_is_recorded_with_the_line() {
    let o = play_virus(|p| bot("sh", "garbage.sh", p, &[]), &FAST);
    o.expect("garbage", Some("virus"));
    assert!(o.detail().contains("hello world"), "{}", o.detail());
    o.within(Duration::ZERO);
}

#[test]
fn a_gigabyte_line_hits_the_output_limit_without_being_buffered() {
    let o = play_virus(|p| bot("sh", "huge_line.sh", p, &[]), &FAST);
    o.expect("output_limit", Some("virus"));
    assert!(o.detail().contains("65536"), "{}", o.detail());
    o.within(Duration::from_millis(1000));
}

#[test]
fn the_output_limit_is_configurable() {
    let o = play_virus(|p| bot("sh", "garbage.sh", p, &[]), &["--max-line", "5"]);
    o.expect("output_limit", Some("virus"));
    assert!(o.detail().contains("longer than 5 bytes"), "{}", o.detail());
}

#[test]
fn a_bot_flooding_stdout_is_caught_by_its_extra_lines() {
    let o = play_virus(|p| bot("sh", "flood_stdout.sh", p, &[]), &FAST);
    o.expect("garbage", Some("virus"));
    assert!(o.detail().contains("after its answer to the previous turn"), "{}", o.detail());
    assert_eq!(o.summary["turns"], 2, "the first answer was played");
    o.within(Duration::ZERO);
}

#[test]
fn a_bot_flooding_stderr_still_plays_to_the_end() {
    let files = python_fixture_files();
    let extra = [&ROOMY[..], &str_refs(&files)].concat();
    let o = play_virus(|p| bot("python3", "flood_stderr.py", p, &[]), &extra);
    o.expect("normal", None);
    assert_eq!(o.summary["winner"], "virus", "{}", o.stdout);
    o.within(Duration::from_secs(3));
}

#[test]
fn a_bot_that_closes_stdout_but_runs_is_eof() {
    let o = play_virus(|p| bot("sh", "closes_stdout.sh", p, &[]), &FAST);
    o.expect("eof", Some("virus"));
    o.within(Duration::ZERO);
}

#[test]
fn closing_stdout_on_a_short_later_turn_is_eof_not_timeout() {
    // The turn is shorter than the harness's wait for an exit status: that wait must not turn
    // the bot's closed output into a timeout.
    let o = play_virus(
        |p| bot("sh", "closes_stdout_after_answering.sh", p, &[]),
        &["--first-turn-ms", "3000", "--turn-ms", "50"],
    );
    o.expect("eof", Some("virus"));
    assert_eq!(o.summary["turns"], 2, "the first answer was played");
}

#[test]
fn a_forked_child_ignoring_term_is_killed_and_reaped() {
    // With the sandbox the child dies with the bot's PID namespace; without, with its group.
    for sandbox in ["auto", "off"] {
        let extra = [&ROOMY[..], &["--sandbox", sandbox]].concat();
        let o = play_virus(|p| bot("python3", "fork_ignore_term.py", p, &[]), &extra);
        o.expect("crash", Some("virus"));
        assert!(o.detail().contains("exit code 5"), "{}", o.detail());
        let tail = o.stderr_tail(0);
        assert!(tail.iter().any(|l| l.ends_with("ignores SIGTERM")), "no child: {tail:?}");
        o.within(Duration::from_millis(1000));
    }
}

#[test]
fn an_illegal_move_is_refused() {
    let o = play_virus(|p| bot("sh", "illegal.sh", p, &[]), &FAST);
    o.expect("illegal", Some("virus"));
    assert!(o.detail().contains("\"8 9\""), "{}", o.detail());
    o.within(Duration::ZERO);
}

#[test]
fn a_slow_start_within_the_first_turn_limit_plays_on() {
    let files = python_fixture_files();
    let extra = [&["--first-turn-ms", "2500", "--turn-ms", "1000"][..], &str_refs(&files)].concat();
    let o = play_virus(|p| bot("python3", "slow_start.py", p, &["0.3"]), &extra);
    o.expect("normal", None);
    assert!(o.max_turn(0) >= Duration::from_millis(250), "{:?}", o.max_turn(0));
    o.within(Duration::from_millis(2500));
}

#[test]
fn a_slow_start_beyond_the_first_turn_limit_times_out() {
    let files = python_fixture_files();
    let o = play_virus(
        |p| bot("python3", "slow_start.py", p, &["3"]),
        &[&FAST[..], &["--clock", "wall"], &str_refs(&files)].concat(),
    );
    o.expect("timeout", Some("virus"));
    assert_eq!(o.summary["turns"], 0);
    o.within(Duration::from_millis(1000));
}

#[test]
fn two_lines_in_one_turn_are_garbage_at_the_next_turn() {
    let o = play_virus(|p| bot("sh", "two_lines.sh", p, &[]), &FAST);
    o.expect("garbage", Some("virus"));
    assert!(o.detail().contains("\"1 0\""), "{}", o.detail());
    assert_eq!(o.summary["turns"], 2, "the first line was played");
    o.within(Duration::ZERO);
}

#[test]
fn a_program_that_is_not_there_is_refused_before_the_match_naming_the_bot() {
    for spec in ["cmd:/nonexistent/virus --fast", "cmd:no-such-virus-program"] {
        let run = Arena::new()
            .args(["play", "skynet", "--json", "--bot", "agent=random"])
            .args(["--bot", &format!("virus={spec}")])
            .run()
            .failure();
        assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
        let err = run.stderr();
        assert!(err.contains("virus") && err.contains(&spec[4..spec.len().min(20)]), "{err}");
        assert!(run.stdout().is_empty(), "no match was played: {}", run.stdout());
    }
}

#[test]
fn a_command_that_cannot_start_is_startup_failed() {
    // The program is there and executable, but its interpreter is not: only running it tells.
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("virus");
    std::fs::write(&program, "#!/nonexistent/interpreter\n").unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let run = Arena::new()
        .args(["play", "skynet", "--json", "--bot", "agent=random"])
        .args(["--bot", &format!("virus=cmd:{} --fast", program.display())])
        .run()
        .success();
    let summary: Value = serde_json::from_str(run.stdout().trim()).expect("a JSON summary");
    assert_eq!(summary["termination"], "startup_failed");
    assert_eq!(summary["culprit_role"], "virus");
}

#[test]
fn the_environment_is_cleared_but_for_the_allow_list_and_arena_variables() {
    // The bot answers with its environment on one line (garbage), `|` between the variables.
    let script = "read -r header; env | tr '\\n' '|'; echo";
    let o = play_virus(
        |marker| format!("cmd:{}", shell_words::join(["sh", "-c", script, marker])),
        &["--seed", "7"],
    );
    o.expect("garbage", Some("virus"));
    let detail = o.detail();
    let line = detail.split_once('"').and_then(|(_, rest)| rest.split_once("\": ")).map(|(l, _)| l);
    let env: String = line.expect("the line in the detail").replace('|', "\n");
    let names: Vec<&str> = env.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
    assert!(env.contains("ARENA_GAME=skynet\n"), "{env}");
    assert!(env.contains("ARENA_ROLE=virus\n"), "{env}");
    let seed = arena::seed::bot_seed(7, 0);
    assert!(env.contains(&format!("ARENA_SEED={seed}\n")), "{env}");
    assert!(!names.contains(&"CARGO_MANIFEST_DIR"), "{env}");
    let allowed = arena::bot::external::ENV_ALLOW_LIST;
    for name in names {
        assert!(
            name.starts_with("ARENA_")
                || allowed.contains(&name)
                || ["PWD", "SHLVL", "_"].contains(&name),
            "{name} leaked into the bot's environment"
        );
    }
}

#[test]
fn the_codingame_style_python_virus_plays_a_full_match_that_replays() {
    let arena = Arena::new();
    let virus = format!(
        "virus=cmd:python3 {}",
        shell_words::quote(&root().join("bots/skynet_virus.py").display().to_string())
    );
    let run = arena
        .args(["play", "skynet", "--json", "--bot", "agent=random", "--bot", &virus])
        .args(ROOMY)
        .args(["--replay", "m.jsonl"])
        .run()
        .success();
    let summary: Value = serde_json::from_str(run.stdout().trim()).expect("a JSON summary");
    assert_eq!(summary["termination"], "normal", "{summary}");
    assert_eq!(summary["winner"], "virus", "{summary}");
    assert!(summary["turns"].as_u64().unwrap_or(0) >= 3, "{summary}");
    let replay = run.dir.join("m.jsonl").display().to_string();
    Arena::new().args(["replay", "--verify", &replay]).run().success();
}

#[test]
fn ctrl_c_stops_every_bot_and_exits() {
    a_signal_stops_every_bot_and_exits(nix::sys::signal::Signal::SIGINT, 130);
}

#[test]
fn a_hangup_stops_every_bot_and_exits() {
    // A closed terminal or a dropped ssh session must not leave bots behind either.
    a_signal_stops_every_bot_and_exits(nix::sys::signal::Signal::SIGHUP, 129);
}

#[test]
fn a_quit_stops_every_bot_and_exits() {
    // Ctrl-\ is the other key a terminal user stops a program with.
    a_signal_stops_every_bot_and_exits(nix::sys::signal::Signal::SIGQUIT, 131);
}

#[test]
fn a_term_signal_stops_every_bot_and_exits() {
    // What `kill`, `timeout`, Slurm's `scancel` and Kubernetes send first.
    a_signal_stops_every_bot_and_exits(nix::sys::signal::Signal::SIGTERM, 143);
}

fn a_signal_stops_every_bot_and_exits(signal: nix::sys::signal::Signal, code: i32) {
    for sandbox in ["auto", "off"] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let marker = marker_in(dir.path());
        let spec = format!("virus={}", bot("sh", "sleeps_forever.sh", &marker, &[]));
        let args = ["play", "skynet", "--bot", "agent=random", "--bot", &spec]
            .into_iter()
            .chain(["--first-turn-ms", "60000", "--sandbox", sandbox])
            .collect::<Vec<_>>();
        let started = Instant::now();
        let (status, stderr) = interrupt_arena(dir.path(), &args, &marker, 1, signal);
        assert_eq!(status.code(), Some(code), "{status}: {stderr}");
        assert!(stderr.contains("interrupted; stopped 1 bot process group(s)"), "{stderr}");
        assert!(started.elapsed() < MARGIN + Duration::from_secs(1), "{:?}", started.elapsed());
        assert_no_process_left(&marker);
    }
}

/// Starts `arena ARGS` in `dir` and waits until `bots` processes with `marker` run.
pub(crate) fn start_arena(
    dir: &Path,
    args: &[&str],
    marker: &str,
    bots: usize,
) -> std::process::Child {
    let arena = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("arena starts");
    let started = Instant::now();
    while marked_processes(marker).len() < bots {
        assert!(started.elapsed() < Duration::from_secs(30), "the bots never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    arena
}

/// Runs `arena ARGS` in `dir`, waits until `bots` processes with `marker` run, sends arena
/// `signal`, and returns how arena ended and what it wrote to stderr.
fn interrupt_arena(
    dir: &Path,
    args: &[&str],
    marker: &str,
    bots: usize,
    signal: nix::sys::signal::Signal,
) -> (std::process::ExitStatus, String) {
    let arena = start_arena(dir, args, marker, bots);
    let pid = nix::unistd::Pid::from_raw(arena.id() as i32);
    nix::sys::signal::kill(pid, signal).expect("arena gets the signal");
    let output = arena.wait_with_output().expect("arena exits");
    (output.status, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn matches_with_external_bots_run_from_many_threads_at_once() {
    use arena::bot::BotSpec;
    use arena::matches::LimitOverrides;

    let virus: BotSpec = format!(
        "cmd:python3 {}",
        shell_words::quote(&root().join("bots/skynet_virus.py").display().to_string())
    )
    .parse()
    .expect("a bot spec");
    let supervisor = arena::bot::Supervisor::new();
    let limits = LimitOverrides {
        first_turn_ms: Some(3000),
        turn_ms: Some(1000),
        ..LimitOverrides::default()
    };
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4u64)
            .map(|seed| {
                let spec = virus_against_random(virus.clone(), seed, limits);
                let supervisor = &supervisor;
                scope.spawn(move || {
                    arena::matches::play(&spec, supervisor).expect("the match is played")
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("no panic")).collect()
    });
    for played in results {
        assert_eq!(played.summary.termination, arena::bot::Termination::Normal);
        assert_eq!(played.summary.winner.as_deref(), Some("virus"));
    }
}

#[test]
fn ctrl_c_during_a_tournament_stops_every_bot_and_records_no_match() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let marker = marker_in(dir.path());
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"skynet\"\ngames_per_pairing = 2\n\
         [limits]\nfirst_turn_ms = 60000\n[maps]\nfiles = [{:?}]\n\
         [[bots]]\nname = \"sleeper\"\nspec = {:?}\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg-ep2\"\n",
        map.display().to_string(),
        bot("sh", "sleeps_forever.sh", &marker, &[]),
    );
    std::fs::write(dir.path().join("t.toml"), toml).expect("the arena file is written");
    let args = ["run", "t.toml", "-q", "-j", "2"];
    let signal = nix::sys::signal::Signal::SIGINT;
    let (status, stderr) = interrupt_arena(dir.path(), &args, &marker, 2, signal);
    assert_eq!(status.code(), Some(130), "{status}: {stderr}");
    assert!(stderr.contains("stopped 2 bot process group(s)"), "{stderr}");
    assert_no_process_left(&marker);
    // A bot the stop killed is not at fault: no row says it crashed.
    let rows =
        std::fs::read_to_string(dir.path().join("results/t/matches.csv")).unwrap_or_default();
    assert!(rows.lines().count() <= 1, "rows written for interrupted matches: {rows}");
}

/// A Skynet match on the default map of `virus` against the built-in random agent, for the
/// library's `matches::play`.
fn virus_against_random(
    virus: arena::bot::BotSpec,
    seed: u64,
    limits: arena::matches::LimitOverrides,
) -> arena::matches::MatchSpec {
    use arena::matches::{MapSource, MatchSpec, Player};
    MatchSpec {
        game: arena::games::GameId::Skynet,
        variant: None,
        options: Default::default(),
        map: MapSource::Default,
        players: [
            ("virus".to_string(), Player::new(virus)),
            ("agent".to_string(), Player::new("random".parse().expect("a bot spec"))),
        ]
        .into_iter()
        .collect(),
        seed,
        limits,
    }
}

/// A match of a bot that never answers, played from Rust with `supervisor`, on a thread.
fn play_sleeper_in_background(
    supervisor: &arena::bot::Supervisor,
    marker: &str,
) -> std::thread::JoinHandle<arena::Result<arena::matches::PlayedMatch>> {
    let virus = bot("sh", "sleeps_forever.sh", marker, &[]).parse().expect("a bot spec");
    let limits =
        arena::matches::LimitOverrides { first_turn_ms: Some(60_000), ..Default::default() };
    let spec = virus_against_random(virus, 1, limits);
    let supervisor = supervisor.clone();
    std::thread::spawn(move || arena::matches::play(&spec, &supervisor))
}

#[test]
fn a_supervisor_stops_a_match_in_progress_which_then_has_no_result() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let marker = marker_in(dir.path());
    let supervisor = arena::bot::Supervisor::new();
    let started = Instant::now();
    let play = play_sleeper_in_background(&supervisor, &marker);
    while marked_processes(&marker).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(10), "the bot never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(supervisor.stop_all(Duration::from_millis(50)), 1);
    let result = play.join().expect("no panic");
    assert!(matches!(result, Err(arena::Error::Interrupted)), "{result:?}");
    assert!(started.elapsed() < MARGIN + Duration::from_secs(1), "{:?}", started.elapsed());
    assert_no_process_left(&marker);
}

#[test]
fn a_stopped_supervisor_starts_no_bot() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let marker = marker_in(dir.path());
    let supervisor = arena::bot::Supervisor::new();
    supervisor.stop_all(Duration::ZERO);
    let result = play_sleeper_in_background(&supervisor, &marker).join().expect("no panic");
    // Not a `startup_failed` result: a tournament would write it down as the bot's fault.
    assert!(matches!(result, Err(arena::Error::Interrupted)), "{result:?}");
    assert_no_process_left(&marker);
}

#[test]
fn the_rust_example_bot_plays_both_roles() {
    // A std-only source: arena compiles it with rustc, as a CodinGame Rust bot.
    let example = root().join("bots/skynet_bot.rs");
    let spec = format!("cg:{}", shell_words::quote(&example.display().to_string()));
    let virus = format!(
        "cmd:python3 {}",
        shell_words::quote(&root().join("bots/skynet_virus.py").display().to_string())
    );
    for (v, a, winner) in [(spec.as_str(), "random", "virus"), ("random", spec.as_str(), "agent")] {
        let run = Arena::new()
            .args(["play", "skynet", "--json"])
            .args(["--bot", &format!("virus={v}"), "--bot", &format!("agent={a}")])
            .args(ROOMY)
            .run()
            .success();
        let summary: Value = serde_json::from_str(run.stdout().trim()).expect("a JSON summary");
        assert_eq!(summary["termination"], "normal", "{summary}");
        assert_eq!(summary["winner"], winner, "{summary}");
    }
    let run = Arena::new()
        .args(["play", "skynet", "--json"])
        .args(["--bot", &format!("virus={virus}"), "--bot", &format!("agent={spec}")])
        .args(ROOMY)
        .run()
        .success();
    let summary: Value = serde_json::from_str(run.stdout().trim()).expect("a JSON summary");
    assert_eq!(summary["termination"], "normal", "{summary}");
}

#[test]
fn a_cpu_limit_kills_a_spinning_bot() {
    let o = play_virus(
        |marker| format!("cmd:{}", shell_words::join(["sh", "-c", "while :; do :; done", marker])),
        &["--cpu-seconds", "1", "--first-turn-ms", "20000"],
    );
    // Its own label: the seconds are the match's, checked on its clock (RLIMIT_CPU, a second
    // later, is only the backstop).
    o.expect("cpu_limit", Some("virus"));
    assert!(o.detail().contains("1 CPU seconds"), "{}", o.detail());
    o.within(Duration::from_secs(8));
}

/// Plays the default Skynet map with the fixture `virus` (a shell script) against `random`,
/// recording the replay in `dir`; returns its path.
fn fault_replay(dir: &Path, virus: &str) -> std::path::PathBuf {
    let replay = dir.join(format!("{virus}.jsonl"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["play", "skynet", "--bot", "agent=random"])
        .args(["--bot", &format!("virus=cmd:sh {}", fixture(virus))])
        .args(["--replay", replay.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    replay
}

/// `arena replay --verify` of `replay` with its result line changed by `edit`: exit code and
/// stdout + stderr.
fn verify_tampered(replay: &Path, edit: impl Fn(&mut Value)) -> (Option<i32>, String) {
    let text = std::fs::read_to_string(replay).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut last: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    edit(&mut last["result"]);
    *lines.last_mut().unwrap() = last.to_string();
    let tampered = replay.with_extension("tampered.jsonl");
    std::fs::write(&tampered, lines.join("\n") + "\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["replay", "--verify", tampered.to_str().unwrap()])
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), said)
}

#[test]
fn verify_rechecks_how_a_forfeit_happened_and_says_what_it_cannot_check() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = fault_replay(dir.path(), "garbage.sh");
    let illegal = fault_replay(dir.path(), "illegal.sh");
    // As recorded: verified, the offending line re-checked.
    for replay in [&garbage, &illegal] {
        let (code, said) = verify_tampered(replay, |_| {});
        assert_eq!(code, Some(0), "{said}");
        assert!(said.contains("verified") && !said.contains("not verifiable"), "{said}");
    }
    // A garbage ending relabelled as a timeout, or as an illegal move.
    let (code, said) = verify_tampered(&garbage, |r| r["termination"] = "timeout".into());
    assert_eq!(code, Some(1), "{said}");
    let (code, said) = verify_tampered(&garbage, |r| r["termination"] = "illegal".into());
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("not even an action"), "{said}");
    // A changed detail; a garbage line replaced by a valid action.
    let (code, said) = verify_tampered(&garbage, |r| r["detail"] = "the bot crashed".into());
    assert_eq!(code, Some(1), "{said}");
    let (code, said) = verify_tampered(&illegal, |r| r["detail"] = "illegal action".into());
    assert_eq!(code, Some(1), "{said}");
    // An illegal move the rules accept: the first link of the default map exists.
    let (code, said) = verify_tampered(&illegal, |r| {
        let d = r["detail"].as_str().unwrap().to_string();
        r["detail"] = d.replace("\"8 9\"", "\"0 1\"").into();
        r["offending"] = "0 1".into();
    });
    assert_eq!(code, Some(1), "{said}");
    // Without its offending line (a timeout, or a replay of an earlier arena), the forfeit's
    // scores are checked and the rest is said to be unverifiable, never called verified alone.
    let (code, said) = verify_tampered(&garbage, |r| {
        r["termination"] = "timeout".into();
        r.as_object_mut().unwrap().remove("offending");
    });
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("not verifiable: a timeout"), "{said}");
    // Seats renumbered in the header.
    let text = std::fs::read_to_string(&garbage).unwrap();
    let swapped = dir.path().join("swapped.jsonl");
    std::fs::write(&swapped, text.replacen("\"seat\":0", "\"seat\":1", 1)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["replay", "--verify", swapped.to_str().unwrap()])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}
