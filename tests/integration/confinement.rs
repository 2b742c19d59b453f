//! The sandbox against the second round of attacks (docs/security.md): a bot changing what it
//! may only read (modes, times, extended attributes of its opponent's files, the results, the
//! arena file, arena's binary; a setuid copy), seeing beyond itself (other processes, cgroup
//! counters, a nested user namespace, `AF_VSOCK`), two bots talking through what they share
//! (netlink, locks, extended attributes, times), the uids of a root arena's bots, what a bot
//! leaves behind, its CPU on its opponent's time, and a `cg:` source building another file into
//! itself. Each runs as the machine's user runs the tests (root in CI; the same tests pass
//! as an ordinary user), with `--sandbox require`, and where an attack is harmless without the
//! sandbox the same bot runs once with `--sandbox off` to show the test sees it succeed.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::external::{assert_no_process_left, bot, marked_bots, marked_processes, marker_in};
use crate::sandbox::{play_with, report};
use crate::support::root;

const REQUIRE: [&str; 2] = ["--sandbox", "require"];
const OFF: [&str; 2] = ["--sandbox", "off"];

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// `key=value` of a report.
fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in {report}"))
}

/// What a bot could change of a file: its mode, its modification time (`utime` sets it with
/// the access time, which arena's own `exec` of its binary moves), its `user.arena` attribute.
#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    mode: u32,
    modified: i64,
    attribute: Option<Vec<u8>>,
}

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).expect("the target exists");
    Stamp {
        mode: meta.permissions().mode(),
        modified: meta.mtime(),
        attribute: get_attribute(path, "user.arena"),
    }
}

fn get_attribute(path: &Path, name: &str) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let name = std::ffi::CString::new(name).ok()?;
    let mut buf = [0u8; 256];
    // SAFETY: NUL-terminated strings and a buffer of the length given.
    #[allow(unsafe_code)]
    let n =
        unsafe { libc::getxattr(path.as_ptr(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    (n >= 0).then(|| buf[..n as usize].to_vec())
}

/// The files of the world test: an opponent with a program and a data file, a results folder,
/// an arena file, a copy of arena's binary (which plays the match), and a root-owned copy of a
/// program for the setuid attempt.
struct World {
    dir: tempfile::TempDir,
    arena: PathBuf,
    opponent: PathBuf,
    data: PathBuf,
    results: PathBuf,
    matches: PathBuf,
    arena_file: PathBuf,
    setuid_copy: PathBuf,
}

impl World {
    fn new() -> World {
        // Outside the temporary folder, whose content a bot does not see at all: these files
        // are to be seen, and read by those allowed to, as a league's files are.
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let d = dir.path();
        // Everyone may read the folder, as a bot's files are where a league keeps them.
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        let arena = d.join("arena");
        std::fs::copy(env!("CARGO_BIN_EXE_arena"), &arena).unwrap();
        let opponent = d.join("opponent.py");
        std::fs::write(&opponent, "import time  # a secret strategy\ntime.sleep(1000)\n").unwrap();
        let data = d.join("opponent-data.txt");
        std::fs::write(&data, "opening book\n").unwrap();
        let results = d.join("results");
        std::fs::create_dir_all(results.join("t")).unwrap();
        let matches = results.join("t/matches.csv");
        std::fs::write(&matches, "id,seed\n1,77\n").unwrap();
        let arena_file = d.join("t.toml");
        std::fs::write(&arena_file, "name = \"t\"\ngame = \"skynet\"\n").unwrap();
        let setuid_copy = d.join("true-copy");
        std::fs::copy("/bin/true", &setuid_copy).unwrap();
        std::fs::set_permissions(&setuid_copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        World { dir, arena, opponent, data, results, matches, arena_file, setuid_copy }
    }

    fn targets(&self) -> Vec<&Path> {
        vec![
            &self.opponent,
            &self.data,
            &self.results,
            &self.matches,
            &self.arena_file,
            &self.arena,
            &self.setuid_copy,
        ]
    }

    fn stamps(&self) -> Vec<Stamp> {
        self.targets().into_iter().map(stamp).collect()
    }

    /// The hostile bot's spec: the targets, the setuid copy, arena's marker word.
    fn hostile(&self, marker: &str) -> String {
        let mut args: Vec<String> =
            self.targets().iter().map(|t| format!("--target={}", t.display())).collect();
        args.push(format!("--setuid={}", self.setuid_copy.display()));
        args.push(format!("--arena-word={}", self.dir.path().join("arena").display()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        bot("python3", "hostile_world.py", marker, &args)
    }

    fn opponent_spec(&self) -> String {
        format!("cmd:python3 {} {}", self.opponent.display(), self.data.display())
    }
}

#[test]
fn a_bot_changes_nothing_it_may_only_read_and_sees_nothing_beyond_itself() {
    let world = World::new();
    let dir = world.dir.path();
    let marker = marker_in(dir);
    let before = world.stamps();
    let o = play_with(&world.arena, dir, &world.hostile(&marker), &world.opponent_spec(), &REQUIRE);
    o.expect("garbage", Some("virus"));
    let line = report(&o).to_string();
    assert_eq!(world.stamps(), before, "{line}");
    // The files are read-only to the bot; where the checkout (and so the cargo target folder
    // holding them) is itself under /tmp, the bot's private /tmp hides them altogether.
    let (error, refused) = if dir.starts_with("/tmp") {
        ("No_such_file_or_directory", "refused(No")
    } else {
        ("Read-only_file_system", "refused(Read-only")
    };
    assert!(line.starts_with(&format!("REPORT changed=0 of 21 errors={error} ")), "{line}");
    assert_eq!(field(&line, "setuid"), refused, "{line}");
    assert_eq!(field(&line, "userns"), "refused(Operation", "{line}");
    assert_eq!(field(&line, "vsock"), "refused(Operation", "{line}");
    assert_eq!(field(&line, "arena_seen"), "no", "{line}");
    assert_eq!(field(&line, "cgroups"), "0", "{line}");
    // As root not even mounted where it cannot see them: the hierarchies are detached from
    // the view (each bot's mount namespace copies every mount of it, and its end frees them).
    // (An unprivileged arena's view, in a user namespace, may not detach what the machine
    // mounted: they stay covered.)
    if hides_cgroups() && is_root() {
        assert_eq!(field(&line, "cgroup_mounts"), "0", "{line}");
    }
    // Every mount it sees is read-only but its own `/tmp` and `/proc`, and none allows setuid
    // programs (a root arena's bots get copies of the spawner's template view).
    assert_eq!(field(&line, "writable"), "/proc,/tmp", "{line}");
    assert_eq!(field(&line, "suid"), "-", "{line}");
    // Its own namespace: its init, itself and the processes of its interpreter, no more.
    let procs: u32 = field(&line, "procs").parse().unwrap();
    assert!((1..=4).contains(&procs), "{line}");
    if is_root() {
        assert_ne!(field(&line, "uid"), "0", "a root arena's bot runs as a user of its own");
    }
    // No capability in any set, the bounding set included (inheritable, permitted, effective,
    // bounding, ambient), but `CAP_DAC_READ_SEARCH` (bit 2) where a root arena's bot keeps it
    // to reach its own files through folders only root may search (as this test's may be).
    let caps = field(&line, "caps");
    assert!(caps == "0:0:0:0:0" || (is_root() && caps == "4:4:4:4:4"), "{line}");
    assert_no_process_left(&marker);

    // Without the sandbox the same bot changes every one of them: the test sees it happen.
    let o = play_with(&world.arena, dir, &world.hostile(&marker), &world.opponent_spec(), &OFF);
    let line = report(&o).to_string();
    // (As an ordinary user its own chmod 000 of a file then keeps its attribute from being set.)
    assert!(field(&line, "changed").parse::<u32>().unwrap() >= 14, "{line}");
    assert_eq!(field(&line, "setuid"), "done", "{line}");
    if is_root() {
        assert_ne!(field(&line, "caps"), "0:0:0:0:0", "{line}");
    }
    assert!(field(&line, "writable").split(',').any(|m| m == "/"), "{line}");
    assert_eq!(field(&line, "cgroup_mounts"), cgroup_mounts().to_string(), "{line}");
    assert_ne!(world.stamps(), before);
}

/// A bot starts with every signal at its default action, even where arena itself ignores some
/// (started by `nohup`, or in the background of a shell without job control): an ignored signal
/// survives `exec`, and it is not the bot's to inherit (the sandbox's spawner, relay and init
/// pass nothing of the kind on).
#[test]
fn a_bot_ignores_no_signal_that_arena_ignores() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let marker = marker_in(dir.path());
    // arena ignoring SIGUSR2 and SIGALRM (bits 11 and 13), signals it does not handle itself.
    let ignoring = dir.path().join("arena-ignoring");
    let arena = env!("CARGO_BIN_EXE_arena");
    std::fs::write(&ignoring, format!("#!/bin/sh\ntrap '' USR2 ALRM\nexec '{arena}' \"$@\"\n"))
        .unwrap();
    std::fs::set_permissions(&ignoring, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hostile = bot("python3", "hostile_world.py", &marker, &[]);
    let o = play_with(&ignoring, dir.path(), &hostile, "cg-ep2", &REQUIRE);
    o.expect("garbage", Some("virus"));
    let line = report(&o).to_string();
    assert_eq!(field(&line, "sigign"), "0", "{line}");
    assert_no_process_left(&marker);
    // Without the sandbox the bot inherits them: the test sees them. (There the C library's
    // `posix_spawn` also leaves its own signal 32 ignored.)
    let o = play_with(&ignoring, dir.path(), &hostile, "cg-ep2", &OFF);
    let line = report(&o).to_string();
    let ignored = u64::from_str_radix(field(&line, "sigign"), 16).unwrap();
    assert_eq!(ignored & 0x2800, 0x2800, "{line}");
}

/// Whether the sandbox hides the cgroup hierarchies from a bot (as it does where
/// `/sys/fs/cgroup` exists).
fn hides_cgroups() -> bool {
    Path::new("/sys/fs/cgroup").is_dir()
}

/// How many cgroup hierarchies are mounted in this process's view (an unsandboxed bot's).
fn cgroup_mounts() -> usize {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let fstype = |line: &str| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let dash = fields.iter().position(|&f| f == "-")?;
        fields.get(dash + 1).map(|f| f.starts_with("cgroup"))
    };
    mounts.lines().filter(|line| fstype(line) == Some(true)).count()
}

#[test]
fn two_bots_find_no_channel_between_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let marker = marker_in(dir.path());
    let shared = dir.path().join("shared.txt");
    std::fs::write(&shared, "a file both bots may read\n").unwrap();
    let path = shared.display().to_string();
    let spec = |role: &str| bot("python3", "hostile_channel.py", &marker, &[role, &path]);
    let before = stamp(&shared);
    // Both may run between their turns (`--ponder`): stopped, they could not even try at once.
    let o = play_with(
        &PathBuf::from(env!("CARGO_BIN_EXE_arena")),
        dir.path(),
        &spec("recv"),
        &spec("send"),
        &[&REQUIRE[..], &["--ponder"]].concat(),
    );
    o.expect("garbage", Some("virus"));
    let line = report(&o).to_string();
    // Each bot is in its slot's network namespace, where netlink sockets are refused (a socket
    // in flight, named, would outlive the bot).
    let expected = "REPORT netlink=unbound(Operation not permitted) flock=free xattr=none \
                    mtime=other";
    assert_eq!(line, expected, "{}", o.stdout);
    assert_eq!(stamp(&shared), before);
    assert_eq!(get_attribute(&shared, "user.channel"), None);
    assert_no_process_left(&marker);

    // Without the sandbox they talk (netlink too, in the one network namespace of the machine).
    let o = play_with(
        &PathBuf::from(env!("CARGO_BIN_EXE_arena")),
        dir.path(),
        &spec("recv"),
        &spec("send"),
        &[&OFF[..], &["--ponder"]].concat(),
    );
    let line = report(&o).to_string();
    for heard in ["netlink=heard", "flock=held", "xattr=heard", "mtime=heard"] {
        assert!(line.contains(heard), "{line}");
    }
}

/// A tournament of `hostile_leftover.py` (each bot of the slot after the first looks for what
/// the bot before left in the slot's namespaces) against Risk's built-in random bot, six matches
/// on at most two slots at once (so most bots reuse a slot); the leftover bot's reports.
fn leftover_reports(dir: &Path, marker: &str, sandbox: &str) -> Vec<String> {
    let spec = bot("python3", "hostile_leftover.py", marker, &["20"]);
    let map = root().join("arenas/maps/risk/classic.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"risk\"\nseed = 5\ngames_per_pairing = 3\nsandbox = {sandbox:?}\n\
         concurrency = 1\n\
         [options]\nplayers = 2\n[limits]\nfirst_turn_ms = 60000\nturn_ms = 5000\n\
         [maps]\nfiles = [{:?}]\n[[bots]]\nname = \"left\"\nspec = {spec:?}\n\
         roles = [\"player1\", \"player2\"]\n[[bots]]\nname = \"random\"\n",
        map.display().to_string(),
    );
    let results = crate::support::run_arena_file(dir, "t", &toml);
    let reports = reports_in(&results);
    std::fs::remove_dir_all(dir.join("results")).unwrap();
    reports
}

/// The `REPORT ...` line in each match's row of a tournament's `matches.csv`.
fn reports_in(results: &Path) -> Vec<String> {
    let csv = std::fs::read_to_string(results.join("matches.csv")).expect("matches.csv");
    csv.lines()
        .skip(1)
        .map(|row| {
            let at = row.find("REPORT ").unwrap_or_else(|| panic!("no report: {row}"));
            row[at..].split(['"', '\\']).next().unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_bot_finds_nothing_left_by_the_bot_before_it_in_its_slot() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    // One match at a time, so every bot after the first reuses the first one's slot.
    // Sandboxed, a slot's namespaces hold nothing of its last bot: its processes all ended with
    // its PID namespace, the keyrings are closed to it, and it could not count in the network
    // namespace's counters (no IP socket: without that filter the bots after the first read
    // noroutes=5, 10, ...), nor name a socket it leaves in flight (no bind, no netlink socket:
    // without them the bots after the first found inflight=both).
    let reports = leftover_reports(dir.path(), &marker, "require");
    assert_eq!(reports.len(), 6);
    for report in &reports {
        assert_eq!(report, "REPORT netlink=free key=none noroutes=0 inflight=none", "{reports:?}");
    }
    assert_no_process_left(&marker);
    // Without the sandbox the process a bot leaves outlives it and holds the port, and its key
    // stays in its user's keyring: the bots after it see both.
    let reports = leftover_reports(dir.path(), &marker, "off");
    for pid in marked_processes(&marker) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
    }
    assert!(reports.iter().any(|r| r.starts_with("REPORT netlink=held key=held ")), "{reports:?}");
}

/// `hostile_ucounts.py` as player 1 (probing, then reporting) against itself as player 2
/// (filling), sandboxed: the prober's reports.
fn ucounts_reports(dir: &Path, marker: &str) -> Vec<String> {
    let [probe, fill] =
        ["probe", "fill"].map(|role| bot("python3", "hostile_ucounts.py", marker, &[role]));
    let map = root().join("arenas/maps/risk/classic.txt").display().to_string();
    let toml = format!(
        "name = \"t\"\ngame = \"risk\"\nsandbox = \"require\"\n[options]\nplayers = 2\n\
         [limits]\nfirst_turn_ms = 60000\n[maps]\nfiles = [{map:?}]\n\
         [[bots]]\nname = \"probe\"\nspec = {probe:?}\nroles = [\"player1\"]\n\
         [[bots]]\nname = \"fill\"\nspec = {fill:?}\nroles = [\"player2\"]\n",
    );
    reports_in(&crate::support::run_arena_file(dir, "t", &toml))
}

#[test]
fn a_bot_cannot_see_what_a_bot_running_at_the_same_time_takes_of_its_users_limits() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    // The prober counts the message-queue bytes and queued signals it can take, before and
    // while the other bot holds all it can take. All of an unprivileged arena's bots are
    // arena's user, for which the kernel counts both under arena's own limits: without the
    // bots' own limits the prober found mq=800/0 (KiB) and sigpending=96365/0 as nobody.
    let reports = ucounts_reports(dir.path(), &marker);
    assert!(!reports.is_empty());
    for report in &reports {
        for key in ["mq", "sigpending"] {
            let (before, during) = field(report, key).split_once('/').expect(report);
            assert_eq!(before, during, "{key}: {report}");
        }
    }
    assert_no_process_left(&marker);
}

#[test]
fn bots_running_at_the_same_time_run_as_users_of_their_own() {
    if !is_root() {
        eprintln!("skipped: only a root arena gives its bots users of their own");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let sleeper = format!("cmd:sh -c 'read line; sleep 60' {}", shell_words::quote(&marker));
    // Two matches at once, two bots each: four bots alive together.
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"skynet\"\nsandbox = \"require\"\n\
         [limits]\nfirst_turn_ms = 60000\n[maps]\nfiles = [{:?}]\n\
         [[bots]]\nname = \"a\"\nspec = {sleeper:?}\n[[bots]]\nname = \"b\"\nspec = {sleeper:?}\n",
        map.display().to_string()
    );
    std::fs::write(dir.path().join("t.toml"), toml).unwrap();
    let mut arena =
        crate::external::start_arena(dir.path(), &["run", "t.toml", "-q", "-j", "2"], &marker, 4);
    // start_arena saw four marked processes, one of which may be a shell's child about to exec.
    let waiting = Instant::now();
    while marked_bots(&marker).len() < 4 {
        assert!(waiting.elapsed() < Duration::from_secs(30), "the bots never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let uids: Vec<u32> = marked_bots(&marker)
        .into_iter()
        .filter_map(|pid| std::fs::metadata(format!("/proc/{pid}")).ok().map(|m| m.uid()))
        .collect();
    arena.kill().expect("kill -9");
    arena.wait().expect("reaped");
    let started = Instant::now();
    while !marked_processes(&marker).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(uids.len(), 4, "{uids:?}");
    let distinct: std::collections::BTreeSet<u32> = uids.iter().copied().collect();
    assert_eq!(distinct.len(), 4, "four bots, four users: {uids:?}");
    assert!(!distinct.contains(&0), "{uids:?}");
}

#[test]
fn whatever_a_bot_leaves_in_its_private_directory_is_removed_without_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    // The private directories go to a temporary folder of the test's own, to be seen empty.
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let mess = bot("sh", "leaves_a_mess.sh", &marker, &[]);
    write_two_sandboxed_virus_matches(dir.path(), "mess", &mess, "");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "t.toml", "-q", "-j", "2"])
        .current_dir(dir.path())
        .env("TMPDIR", &temp)
        .output()
        .expect("arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("cannot remove"), "{stderr}");
    let matches = std::fs::read_to_string(dir.path().join("results/t/matches.csv")).unwrap();
    assert_eq!(matches.matches(",garbage,mess,virus,").count(), 2, "{matches}");
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");
    assert_no_process_left(&marker);
}

/// Writes `dir/t.toml`: two sandboxed matches of the bot `name` (`spec`, with `settings` as
/// more lines of its table) as the virus against `cg-ep2`, on the first Episode 2 map.
fn write_two_sandboxed_virus_matches(dir: &Path, name: &str, spec: &str, settings: &str) {
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"skynet\"\ngames_per_pairing = 2\nsandbox = \"require\"\n\
         [limits]\nfirst_turn_ms = 30000\n[maps]\nfiles = [{:?}]\n\
         [[bots]]\nname = {name:?}\nspec = {spec:?}\nroles = [\"virus\"]\n{settings}\
         [[bots]]\nname = \"opponent\"\nspec = \"cg-ep2\"\n",
        map.display().to_string()
    );
    std::fs::write(dir.join("t.toml"), toml).unwrap();
}

/// Each bot's mount namespace is its own, also for bots of the same slot one after the other,
/// and no bot can leave anything in its IPC namespace (its spawner's, shared by the bots it
/// starts, or its own): six matches in turn, each bot finding one mount at `/tmp` (its own
/// tmpfs: a mount namespace joined by a second bot would hold the first's too) and no System V
/// message queue, failing to make one and to change the namespace's `msgmni`. (Written for
/// namespaces made ahead of bots, which a build that gave one set to every bot failed; the bots
/// pause 50 ms before answering, so a spawner that made them would be idle between matches. The
/// build before the shared namespace let each bot make a queue, `made=1`.)
#[test]
fn each_bot_has_a_mount_namespace_of_its_own_and_leaves_nothing_in_its_ipc_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let probe = bot("sh", "ns_probe.sh", &marker, &[]);
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"skynet\"\ngames_per_pairing = 6\nsandbox = \"require\"\n\
         [limits]\nfirst_turn_ms = 30000\n[maps]\nfiles = [{:?}]\n\
         [[bots]]\nname = \"probe\"\nspec = {probe:?}\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"opponent\"\nspec = \"cg-ep2\"\n",
        map.display().to_string()
    );
    std::fs::write(dir.path().join("t.toml"), toml).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "t.toml", "-q", "-j", "1"])
        .current_dir(dir.path())
        .output()
        .expect("arena runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let matches = std::fs::read_to_string(dir.path().join("results/t/matches.csv")).unwrap();
    let fresh = "REPORT tmp_mounts=1 queues=0 made=0 sysctl=refused";
    assert_eq!(matches.matches(fresh).count(), 6, "{matches}");
    assert_no_process_left(&marker);
}

/// A bot's private directory is a tmpfs of its own in its mount namespace, as large as its
/// memory limit: two matches one after the other (the same slot, cgroup and user), each bot's
/// `/tmp` fresh; and a bot that fills it ends with its own `memory_limit` (as root its `memory`
/// cgroup counts the tmpfs's pages; as another user arena adds the tmpfs's used blocks to what
/// the bot's processes hold). The bot's OOM score is the highest, and as root its memory cgroup
/// holds its own processes only, not its init (which shares the spawner's memory: the kernel's
/// OOM killer would end every process sharing it); another user's bots have no memory cgroup.
#[test]
fn a_bots_private_directory_is_a_tmpfs_of_its_own_gone_with_its_match() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let probe = bot("python3", "tmp_probe.py", &marker, &["check"]);
    write_two_sandboxed_virus_matches(
        dir.path(),
        "probe",
        &probe,
        "external = { memory_mb = 96 }\n",
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "t.toml", "-q", "-j", "1"])
        .current_dir(dir.path())
        .output()
        .expect("arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let matches = std::fs::read_to_string(dir.path().join("results/t/matches.csv")).unwrap();
    let apart = u8::from(is_root());
    let fresh =
        format!("REPORT fstype=tmpfs size_mb=96 own=1 leftover=0 oom=1000 memcg_apart={apart}");
    assert_eq!(matches.matches(&fresh).count(), 2, "{matches}");
    assert_no_process_left(&marker);

    let o = crate::external::play_virus(
        |m| bot("python3", "tmp_probe.py", m, &["fill"]),
        &["--sandbox", "require", "--memory-mb", "64", "--first-turn-ms", "30000"],
    );
    o.expect("memory_limit", Some("virus"));
    assert!(o.detail().contains("64 MiB"), "{}", o.detail());
}

#[test]
fn a_bots_memory_and_cpu_limits_hold_for_all_its_processes_together() {
    // Four children of 48 MiB each: 192 MiB, over a limit of 128 that each one is far under.
    let o = crate::external::play_virus(
        |m| bot("python3", "spreads_over_children.py", m, &["memory", "4", "48"]),
        &["--memory-mb", "128", "--address-space-mb", "1024", "--first-turn-ms", "30000"],
    );
    o.expect("memory_limit", Some("virus"));
    assert!(o.detail().contains("128 MiB"), "{}", o.detail());

    // Four spinning children: a CPU second for the match is gone in a quarter of one (on four
    // cores; more on fewer), far within the turn's five.
    let o = crate::external::play_virus(
        |m| bot("python3", "spreads_over_children.py", m, &["cpu", "4"]),
        &["--cpu-seconds", "1", "--first-turn-ms", "5000", "--clock", "cpu"],
    );
    o.expect("cpu_limit", Some("virus"));
    assert!(o.detail().contains("1 CPU seconds"), "{}", o.detail());
}

/// The thief's spinning processes: 60 for each core, so that while they run the honest bot gets
/// about a sixtieth of a core (its 60 ms of CPU then take some 3,600 ms, past the 2,500 ms cap),
/// on any machine; while they are stopped it needs a fortieth of a core, which a loaded machine
/// still gives. (The spinners stop themselves as the thief's turns begin: they do not load the
/// machine for the tests beside this one longer than the one match that lets them ponder.)
fn spinners() -> usize {
    60 * std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
}

/// An arena file of `games` Skynet matches of the CPU-theft test: an honest virus that uses
/// 60 ms of CPU a turn (of 100, with a wall-clock cap of 2,500 ms) against an agent whose
/// [`spinners`] run on its opponent's time; `ponder` lets the bots run between their turns.
fn theft_arena(dir: &Path, marker: &str, games: u32, ponder: bool) -> String {
    let spinners = spinners();
    let honest = bot("python3", "thinks_each_turn.py", marker, &["60"]);
    let thief = bot("python3", "cpu_thief.py", marker, &[&spinners.to_string()]);
    let map = root().join("arenas/maps/skynet/ep2_01.txt");
    let toml = format!(
        "name = \"theft\"\ngame = \"skynet\"\ngames_per_pairing = {games}\nsandbox = \"require\"\n\
         [limits]\nclock = \"cpu\"\nfirst_turn_ms = 1000\nturn_ms = 100\nwall_cap_ms = 2500\n\
         [maps]\nfiles = [{map:?}]\n\
         [[bots]]\nname = \"honest\"\nspec = {honest:?}\nroles = [\"virus\"]\n\
         external = {{ ponder = {ponder} }}\n\
         [[bots]]\nname = \"thief\"\nspec = {thief:?}\nroles = [\"agent\"]\n\
         limits = {{ first_turn_ms = 20000, turn_ms = 20000, wall_cap_ms = 60000 }}\n\
         external = {{ ponder = {ponder}, max_processes = {max_processes} }}\n",
        map = map.display().to_string(),
        max_processes = spinners + 20,
    );
    std::fs::write(dir.join("theft.toml"), toml).unwrap();
    "theft.toml".to_string()
}

/// The rows of the matches the honest bot lost by its own fault, in `results/theft/matches.csv`.
fn honest_faults(dir: &Path) -> Vec<String> {
    let matches = std::fs::read_to_string(dir.join("results/theft/matches.csv")).unwrap();
    let mut lines = matches.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let culprit = header.iter().position(|&c| c == "culprit").expect("a culprit column");
    lines.filter(|l| l.split(',').nth(culprit) == Some("honest")).map(str::to_string).collect()
}

/// Heavy (hundreds of spinning processes in one match, and 20 matches of an honest bot using
/// most of its turns): `.ci/run` runs it on its own after the suite, so that it neither slows
/// the tests beside it nor is slowed by them (`cargo test --release -- --ignored`).
#[test]
#[ignore = "heavy: .ci/run runs it alone (cargo test --release -- --ignored)"]
fn a_bot_stealing_cpu_on_its_opponents_time_makes_it_time_out_only_when_bots_may_ponder() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let run = |file: &str| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["run", file, "-q", "-j", "1"])
            .current_dir(dir.path())
            .output()
            .expect("arena runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert_no_process_left(&marker);
    };
    // Its processes stopped between its turns, the honest bot never times out in 20 matches.
    run(&theft_arena(dir.path(), &marker, 20, false));
    let matches = std::fs::read_to_string(dir.path().join("results/theft/matches.csv")).unwrap();
    assert_eq!(matches.lines().count(), 21, "{matches}");
    assert_eq!(honest_faults(dir.path()), Vec::<String>::new(), "{matches}");

    // Allowed to ponder, the thief's spinners take the machine in the honest bot's turns: it
    // hits the wall-clock cap, with little of its CPU time used (the test sees the attack).
    std::fs::remove_dir_all(dir.path().join("results")).unwrap();
    run(&theft_arena(dir.path(), &marker, 1, true));
    let losses = honest_faults(dir.path());
    assert_eq!(losses.len(), 1, "{losses:?}");
    assert!(losses[0].contains(",timeout,honest,virus,"), "{losses:?}");
}

/// `PATH`'s folder holding `program`, if any.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|dir| dir.join(program).is_file()))
}

/// An `arena play` of a `cg:` virus `source` (the cache in `cache`) with `--sandbox require`,
/// and its JSON summary with arena's whole output.
fn play_cg(source: &Path, cache: &Path) -> (serde_json::Value, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["play", "skynet", "--json", "--bot", "agent=random", "--sandbox", "require"])
        .args(["--first-turn-ms", "10000"])
        .arg("--bot")
        .arg(format!("virus=cg:{}", shell_words::quote(&source.display().to_string())))
        .env("ARENA_CACHE_DIR", cache)
        .output()
        .expect("arena runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary = serde_json::from_str(stdout.trim()).expect("a JSON summary");
    (summary, format!("{stdout}\n{stderr}"))
}

/// A `cg:` source that builds a file into itself (`.incbin` in C++, `include_str!` in Rust): the
/// compiler runs in the sandbox, reading the system, itself and its copy of the source, so a
/// file beside the bot (here a secret; in a tournament its opponent's program or `matches.csv`)
/// does not compile into it, while the same source building in its own file compiles and
/// prints it (the test sees the attack work where it is allowed).
#[test]
fn a_cg_source_cannot_build_another_file_into_itself() {
    let folder = tempfile::tempdir().unwrap();
    let secret_text = "the opponent's secret: 7f3a-e2b9";
    let secret = folder.path().join("secret.txt");
    std::fs::write(&secret, secret_text).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let own_line = "// this line is the bot's own";
    let cpp = |included: &str| {
        format!(
            "{own_line}\n#include <cstdio>\n\
             asm(\".section .rodata\\n.global built_in\\nbuilt_in:\\n.incbin \\\"{included}\\\"\\n.byte 0\\n.text\\n\");\n\
             extern \"C\" const char built_in[];\n\
             int main() {{ std::fprintf(stderr, \"built in: %s\\n\", built_in); return 1; }}\n"
        )
    };
    let rust = |included: &str| {
        format!(
            "{own_line}\nfn main() {{\n    eprintln!(\"built in: {{}}\", include_str!({included:?}));\n    \
             std::process::exit(1);\n}}\n"
        )
    };
    let mut languages =
        vec![("g++", "virus.cpp", cpp(&secret.display().to_string()), cpp("virus.cpp"))];
    languages.push(("rustc", "virus.rs", rust(&secret.display().to_string()), rust("virus.rs")));
    for (compiler, name, stealing, honest) in languages {
        if !on_path(compiler) {
            eprintln!("skipped: {name} needs `{compiler}`, not on PATH");
            continue;
        }
        let cache = tempfile::tempdir().unwrap();
        let bots = tempfile::tempdir().unwrap();
        let bot = bots.path().join(name);
        std::fs::write(&bot, &stealing).unwrap();
        let (summary, output) = play_cg(&bot, cache.path());
        assert_eq!(summary["termination"], "startup_failed", "{name}: {summary}");
        let detail = summary["detail"].as_str().unwrap();
        assert!(detail.contains("does not compile"), "{name}: {detail}");
        assert!(!output.contains("7f3a-e2b9"), "{name}: the secret leaked: {output}");

        // Its own file, which the compiler reads: built in, and printed in its first turn.
        std::fs::write(&bot, &honest).unwrap();
        let (summary, output) = play_cg(&bot, cache.path());
        assert_eq!(summary["termination"], "crash", "{name}: {summary}");
        assert!(output.contains(&format!("built in: {own_line}")), "{name}: {output}");
    }
}
