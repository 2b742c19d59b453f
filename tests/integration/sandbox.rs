//! The sandbox against hostile bots (`tests/fixtures/bots/hostile_*.py`): each attack fails, the
//! match ends with the hostile seat at fault (its report is its garbage answer), the other bot
//! plays on, and no process of the bot is left. They run with `--sandbox require`: on a machine
//! that lacks a layer of the sandbox they refuse to start (and fail here) rather than let an
//! attack loose on the machine. Where an attack is harmless without the sandbox, the same bot
//! runs once with `--sandbox off` too, to show that the test sees the attack when it succeeds.

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::external::{
    Outcome, assert_no_process_left, bot, marked_processes, marker_in, play_virus, start_arena,
    stat_fields, str_refs,
};
use crate::support::{Arena, root};

const REQUIRE: [&str; 2] = ["--sandbox", "require"];
const OFF: [&str; 2] = ["--sandbox", "off"];
/// Python bots on a loaded machine (a limit that is never reached costs nothing).
const ROOMY: [&str; 4] = ["--first-turn-ms", "30000", "--turn-ms", "5000"];

/// The hostile bot's report: its garbage line.
pub(crate) fn report(o: &Outcome) -> &str {
    let detail = o.detail();
    let start = detail.find("REPORT").unwrap_or_else(|| panic!("no report: {}", o.stdout));
    let rest = &detail[start..];
    rest.split_once("\": ").map_or(rest, |(line, _)| line)
}

/// Plays the default Skynet map with `virus` against `agent` (specs made from the marker), with
/// `extra` flags; checks that no process with the marker is left.
fn play(dir: &Path, virus: &str, agent: &str, extra: &[&str]) -> Outcome {
    let outcome = play_with(Path::new(env!("CARGO_BIN_EXE_arena")), dir, virus, agent, extra);
    assert_no_process_left(&marker_in(dir));
    outcome
}

/// Plays the default Skynet map with `virus` against `agent` by the arena binary `arena`, in
/// `dir`, with roomy limits and `extra` flags.
pub(crate) fn play_with(
    arena: &Path,
    dir: &Path,
    virus: &str,
    agent: &str,
    extra: &[&str],
) -> Outcome {
    let output = std::process::Command::new(arena)
        .args(["play", "skynet", "--json", "--bot", &format!("virus={virus}")])
        .args(["--bot", &format!("agent={agent}")])
        .args(ROOMY)
        .args(extra)
        .current_dir(dir)
        .output()
        .expect("arena runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "arena failed ({}): {stdout}\n{stderr}", output.status);
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("a JSON summary ({e}): {stdout}\n{stderr}"));
    Outcome::new(summary, stdout)
}

/// `cmd:python3 bots/skynet_virus.py`, a well-behaved external opponent.
fn python_virus() -> String {
    let virus = root().join("bots/skynet_virus.py").display().to_string();
    format!("cmd:{}", shell_words::join(["python3", &virus]))
}

#[test]
fn a_bot_cannot_read_the_results_arena_files_or_its_opponents_program() {
    let arena = Arena::new();
    let dir = arena.dir().to_path_buf();
    let marker = marker_in(&dir);
    std::fs::create_dir_all(dir.join("results/t")).unwrap();
    std::fs::write(dir.join("results/t/matches.csv"), "id,seed\n1,SECRET-SEED\n").unwrap();
    std::fs::write(dir.join("arena-notes.txt"), "SECRET of the organiser\n").unwrap();
    // The opponent: a program of its own whose text holds a secret (it never gets a turn).
    let opponent = dir.join("opponent.py");
    std::fs::write(&opponent, "import time  # SECRET strategy\ntime.sleep(1000)\n").unwrap();
    let agent = format!("cmd:python3 {} {}", opponent.display(), shell_words::quote(&marker));
    let victims = [
        format!("--victim={}", dir.join("results").display()),
        format!("--victim={}", dir.join("results/t").display()),
        format!("--victim={}", dir.join("arena-notes.txt").display()),
    ];
    let reader = bot("python3", "hostile_reader.py", &marker, &str_refs(&victims));

    let o = play(&dir, &reader, &agent, &REQUIRE);
    o.expect("garbage", Some("virus"));
    assert!(report(&o).starts_with("REPORT secrets=0 "), "{}", report(&o));

    let o = play(&dir, &reader, &agent, &OFF);
    o.expect("garbage", Some("virus"));
    let seen = report(&o);
    for secret in ["results/t/matches.csv", "arena-notes.txt", "opponent.py"] {
        assert!(seen.contains(secret), "without the sandbox the reader sees {secret}: {seen}");
    }
    drop(arena);
}

/// Where the writer would leave `forged-TOKEN` files.
fn forged_files(token: &str, dirs: &[&Path]) -> Vec<String> {
    let mut folders: Vec<std::path::PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    for dir in ["/tmp", "/var/tmp", "/dev/shm", "/etc", "/"] {
        folders.push(dir.into());
    }
    folders.extend(std::env::var_os("HOME").map(Into::into));
    folders.push(root().join("tests/fixtures/bots"));
    folders.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let mut found = Vec::new();
    for folder in folders {
        let path = folder.join(format!("forged-{token}"));
        if path.exists() {
            // Never leave one behind, whatever the test finds.
            let _ = std::fs::remove_file(&path);
            found.push(path.display().to_string());
        }
    }
    found
}

#[test]
fn a_bot_cannot_write_outside_its_private_directory() {
    let arena = Arena::new();
    let dir = arena.dir().to_path_buf();
    let marker = marker_in(&dir);
    let token = marker.replace('/', "_");
    std::fs::create_dir_all(dir.join("results/t")).unwrap();
    let targets = [
        format!("--target={}", dir.display()),
        format!("--target={}", dir.join("results/t").display()),
    ];
    let writer = bot("python3", "hostile_writer.py", &marker, &str_refs(&targets));

    let o = play_virus(|_| writer.clone(), &[&REQUIRE[..], &ROOMY].concat());
    o.expect("garbage", Some("virus"));
    let found = forged_files(&token, &[&dir, &dir.join("results/t")]);
    // Its `/tmp` is its private directory: what it wrote there, it wrote to itself. When the
    // test's folders are under the machine's `/tmp` (a checkout there), the folders that hold
    // what the bot may read of it are made in its private directory too, and an unprivileged
    // arena's bot owns them, so it may also write `/tmp/<checkout>/tests/fixtures/bots/forged-*`:
    // its own copy of that folder, which `found` (the real one included) shows untouched.
    let line = report(&o);
    let wrote: Vec<&str> = line.split_whitespace().skip(2).collect();
    assert!(line.starts_with("REPORT wrote="), "{line}");
    assert!(wrote.iter().all(|p| p.starts_with("/tmp/")), "{line}; files: {found:?}");
    let escaped: Vec<_> = wrote.iter().filter(|p| Path::new(p).exists()).collect();
    assert!(escaped.is_empty(), "the writer wrote {escaped:?} on the machine");
    assert!(found.is_empty(), "the writer wrote {found:?}");

    // Without the sandbox (and trying the test's folders only), the same writer succeeds.
    let only = bot(
        "python3",
        "hostile_writer.py",
        &marker,
        &[&str_refs(&targets)[..], &["--only-targets"]].concat(),
    );
    let o = play_virus(|_| only.clone(), &[&OFF[..], &ROOMY].concat());
    o.expect("garbage", Some("virus"));
    assert!(report(&o).starts_with("REPORT wrote=2 "), "{}", report(&o));
    assert_eq!(forged_files(&token, &[&dir, &dir.join("results/t")]).len(), 2);
    drop(arena);
}

#[test]
fn a_bot_killing_everything_it_sees_kills_nothing_and_its_opponent_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let killer = bot("python3", "hostile_killer.py", &marker, &[]);
    let o = play(dir.path(), &python_virus(), &killer, &REQUIRE);
    // Not `crash by virus`: the opponent answered its turn, and the killer is at fault.
    o.expect("garbage", Some("agent"));
    let report = report(&o);
    let (killed, tried) = report
        .strip_prefix("REPORT killed=")
        .and_then(|r| r.split_once(" of "))
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(killed, "0", "{report}");
    // It sees its own processes only: its init, itself and its interpreter's.
    let tried: u32 = tried.trim().parse().unwrap_or(0);
    assert!((1..=4).contains(&tried), "{report}");
}

#[test]
fn a_bot_has_no_network_unless_its_settings_allow_it_and_no_unix_socket_ever() {
    let tcp = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = tcp.local_addr().unwrap().port();
    let udp = UdpSocket::bind(("127.0.0.1", port)).expect("a UDP socket on the same port");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("service.sock");
    let unix = UnixListener::bind(&path).expect("a unix socket");
    tcp.set_nonblocking(true).unwrap();
    udp.set_nonblocking(true).unwrap();
    unix.set_nonblocking(true).unwrap();
    let port = port.to_string();
    let path = path.display().to_string();
    let spec = |marker: &str| bot("python3", "hostile_network.py", marker, &[&port, &path]);

    let o = play_virus(spec, &[&REQUIRE[..], &ROOMY].concat());
    o.expect("garbage", Some("virus"));
    let line = report(&o).to_string();
    for refused in ["tcp=error", "udp=error", "unix=error(Operation not permitted)"] {
        assert!(line.contains(refused), "{line}");
    }
    assert!(tcp.accept().is_err(), "a connection reached the listener");
    assert!(udp.recv(&mut [0; 64]).is_err(), "a datagram reached the socket");
    assert!(unix.accept().is_err(), "a connection reached the unix socket");

    let o = play_virus(spec, &[&REQUIRE[..], &ROOMY, &["--network"]].concat());
    o.expect("garbage", Some("virus"));
    let line = report(&o).to_string();
    assert!(line.contains("tcp=connected udp=sent unix=error"), "{line}");
    let (mut stream, _) = tcp.accept().expect("the allowed connection arrived");
    stream.set_nonblocking(false).unwrap();
    let mut hello = String::new();
    stream.read_to_string(&mut hello).unwrap();
    assert_eq!(hello, "hello from the bot\n");

    // Without the sandbox the unix socket is reached: the test sees it when it happens.
    let o = play_virus(spec, &[&OFF[..], &ROOMY].concat());
    assert!(report(&o).contains("unix=connected"), "{}", report(&o));
    assert!(unix.accept().is_ok(), "the connection arrived");
}

#[test]
fn a_sleeper_that_left_the_bots_session_ends_with_its_match() {
    let o = play_virus(
        |m| bot("python3", "hostile_escape.py", m, &[]),
        &[&REQUIRE[..], &ROOMY].concat(),
    );
    o.expect("garbage", Some("virus"));
    // The sleeper was running when the bot answered; `play_virus` checked none is left.
    assert!(report(&o).starts_with("REPORT sleeper "), "{}", report(&o));
}

#[test]
fn a_fork_bomb_fails_inside_the_sandbox_and_its_opponent_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let bomb = bot("python3", "hostile_fork_bomb.py", &marker, &[]);
    let o = play(
        dir.path(),
        &python_virus(),
        &bomb,
        &[&REQUIRE[..], &["--max-processes", "40"]].concat(),
    );
    o.expect("garbage", Some("agent"));
    let report = report(&o);
    let forked: u32 = report
        .strip_prefix("REPORT forked=")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{report}"));
    assert!((1..=40).contains(&forked), "{report}");
    assert!(report.contains("error=Resource temporarily unavailable"), "{report}");
    // The machine can still start processes.
    assert!(std::process::Command::new("true").status().expect("a process starts").success());
}

/// Polls until no process with `marker` is left, for at most `limit`; what is left.
fn wait_gone(marker: &str, limit: Duration) -> Vec<i32> {
    let started = Instant::now();
    loop {
        let left = marked_processes(marker);
        if left.is_empty() || started.elapsed() > limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An arena of two bots that ignore the end of their input and leave double-forked sleepers.
fn immortal_arena(dir: &Path, marker: &str) {
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let immortal = bot("python3", "immortal.py", marker, &[]);
    let toml = format!(
        "name = \"t\"\ngame = \"skynet\"\n\
         [limits]\nfirst_turn_ms = 60000\n[maps]\nfiles = [{:?}]\n\
         [[bots]]\nname = \"a\"\nspec = {immortal:?}\n\
         [[bots]]\nname = \"b\"\nspec = {immortal:?}\n",
        map.display().to_string(),
    );
    std::fs::write(dir.join("t.toml"), toml).expect("the arena file is written");
}

#[test]
fn kill_9_of_arena_leaves_no_bot_process() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    immortal_arena(dir.path(), &marker);
    // Two matches at once, two bots each, a leader and a sleeper per bot.
    let args = ["run", "t.toml", "-q", "-j", "2", "--sandbox", "require"];
    let mut arena = start_arena(dir.path(), &args, &marker, 8);
    // Its spawners (arena's, and as another user than root each slot's) and the bots' relays:
    // arena's own program started again, unmarked, so found as its children.
    let helpers = children_running_arena(arena.id());
    assert!(!helpers.is_empty(), "arena started no spawner and no relay");
    arena.kill().expect("kill -9");
    arena.wait().expect("reaped");
    let left = wait_gone(&marker, Duration::from_secs(10));
    assert!(left.is_empty(), "processes outlived arena: {left:?}");
    let started = Instant::now();
    let alive = |helpers: &[(i32, u64)]| -> Vec<(i32, u64)> {
        helpers.iter().filter(|&&(pid, start)| started_at(pid) == Some(start)).copied().collect()
    };
    while !alive(&helpers).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(alive(&helpers).is_empty(), "arena's helpers outlived it: {:?}", alive(&helpers));
}

/// The children of `arena` that run arena's program again (`/proc/self/exe`: its spawners and
/// its bots' relays), each with its start time, so a pid reused later is not mistaken for it.
fn children_running_arena(arena: u32) -> Vec<(i32, u64)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc is readable").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let parent = stat_fields(pid).and_then(|f| f.get(1).and_then(|p| p.parse::<u32>().ok()));
        if cmdline == b"/proc/self/exe\0" && parent == Some(arena) {
            found.extend(started_at(pid).map(|start| (pid, start)));
        }
    }
    found
}

/// When process `pid` started (clock ticks after boot), while it lives and is no zombie.
fn started_at(pid: i32) -> Option<u64> {
    let fields = stat_fields(pid)?;
    // The 22nd field of the whole line, the 20th after `pid (comm) `.
    (fields.first()? != "Z").then(|| fields.get(19)?.parse().ok()).flatten()
}

#[test]
fn kill_9_of_arena_without_the_sandbox_leaves_the_bots_behind() {
    // What `off` gives up, and proof that the test above can see survivors.
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    immortal_arena(dir.path(), &marker);
    let args = ["run", "t.toml", "-q", "-j", "2", "--sandbox", "off"];
    let mut arena = start_arena(dir.path(), &args, &marker, 8);
    arena.kill().expect("kill -9");
    arena.wait().expect("reaped");
    std::thread::sleep(Duration::from_millis(500));
    let left = marked_processes(&marker);
    // Clean up: whatever has the marker, until nothing has (a bot may be forking meanwhile).
    let started = Instant::now();
    while !marked_processes(&marker).is_empty() && started.elapsed() < Duration::from_secs(10) {
        for pid in marked_processes(&marker) {
            let pid = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!left.is_empty(), "without the sandbox the bots survive a kill -9 of arena");
    assert_no_process_left(&marker);
}

/// Runs a tournament in `dir` of `hostile` (a bot spec, playing `role`) against `opponent`, and
/// returns the rows of `matches.csv` and `summary.csv`.
fn tournament(dir: &Path, hostile: &str, role: &str, opponent: &str) -> (String, String) {
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"skynet\"\ngames_per_pairing = 4\nsandbox = \"require\"\n\
         [limits]\nfirst_turn_ms = 30000\nturn_ms = 5000\n[maps]\nfiles = [{:?}]\n\
         [[bots]]\nname = \"hostile\"\nspec = {hostile:?}\nroles = [{role:?}]\n\
         [[bots]]\nname = \"opponent\"\nspec = {opponent:?}\n",
        map.display().to_string(),
    );
    std::fs::write(dir.join("t.toml"), toml).expect("the arena file is written");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "t.toml", "-q", "-j", "2"])
        .current_dir(dir)
        .output()
        .expect("arena runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let read = |name: &str| std::fs::read_to_string(dir.join("results/t").join(name)).unwrap();
    (read("matches.csv"), read("summary.csv"))
}

#[test]
fn a_bot_that_rewrites_matches_csv_cannot_forge_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let forge = format!("--forge={}", dir.path().join("results/t").display());
    let forger = bot("python3", "hostile_writer.py", &marker, &[&forge]);
    let (matches, summary) = tournament(dir.path(), &forger, "virus", "cg-ep2");
    assert!(!matches.contains("FORGED"), "{matches}");
    let rows: Vec<&str> = matches.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{matches}");
    for row in rows {
        assert!(row.contains(",garbage,hostile,virus,"), "{row}");
    }
    let forger_row = summary.lines().find(|l| l.contains(",hostile,")).expect("a summary row");
    let wins = forger_row.split(',').nth(3).expect("a wins column");
    assert_eq!(wins, "0", "{summary}");
    assert_no_process_left(&marker);
}

#[test]
fn a_bot_killing_its_siblings_cannot_make_its_opponent_lose() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let killer = bot("python3", "hostile_killer.py", &marker, &[]);
    // Two matches at once: the killer's siblings include the other match's bots.
    let (matches, _) = tournament(dir.path(), &killer, "agent", &python_virus());
    let rows: Vec<&str> = matches.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{matches}");
    for row in rows {
        assert!(row.contains(",garbage,hostile,agent,"), "{row}");
    }
    assert_no_process_left(&marker);
}

/// The seed derivation of arena's first releases, kept here only to show that the spy below
/// would have broken it.
fn legacy_bot_seed(match_seed: u64, seat: u64) -> u64 {
    fn mix64(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let splitmix64 = |x: u64| mix64(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
    splitmix64(match_seed ^ splitmix64(0xB07_5EED + seat))
}

#[test]
fn a_spy_that_inverts_seeds_learns_nothing_of_the_match_seed() {
    let spy = root().join("tests/fixtures/bots/spy_seed.py");
    // The spy is competent: against the old, invertible derivation it recovers the match seed.
    for (match_seed, seat) in [(424_242_u64, 0_u64), (u64::MAX - 5, 1), (7, 5)] {
        let old = legacy_bot_seed(match_seed, seat);
        let out = std::process::Command::new("python3")
            .arg(&spy)
            .args(["--invert", &old.to_string(), &seat.to_string()])
            .output()
            .expect("python3 runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), match_seed.to_string());
    }
    // Against the seed a bot gets now, none of its guesses (one per seat) is the match seed.
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    for match_seed in [424_242_u64, 9_000_000_001] {
        let seed = match_seed.to_string();
        let spy_bot = bot("python3", "spy_seed.py", &marker, &[]);
        let o = play(dir.path(), &spy_bot, "cg-ep2", &["--seed", &seed, "--sandbox", "off"]);
        let detail = o.detail();
        let guesses: Vec<&str> = detail
            .split_once("GUESS ")
            .unwrap_or_else(|| panic!("the spy's guesses: {}", o.stdout))
            .1
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .take(6)
            .collect();
        assert_eq!(guesses.len(), 6, "{detail}");
        assert!(!guesses.contains(&seed.as_str()), "the spy found seed {seed}: {detail}");
    }
}
