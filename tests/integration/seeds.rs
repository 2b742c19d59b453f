//! Chance no bot can predict: a tournament's match seeds are drawn with its results folder's
//! secret `seed.key` (`arena::seed::game_seed`), so a bot that knows the master seed (1, 2026, or
//! a number on a command line in /proc) and its own `ARENA_SEED` cannot find its match seed, and
//! with it the dice and every other seat's seed. The spy (`tests/fixtures/bots/spy_master_seed.py`)
//! tries the master seeds a person would choose against the derivation arena used before the key;
//! it is shown to find the seed when the derivation is the old one, and finds nothing now.

use std::collections::BTreeSet;
use std::path::Path;

use arena::seed::{SeedKey, bot_seed, game_seed};

use crate::external::{assert_no_process_left, bot, marker_in};
use crate::support::{root, run_arena_file};

/// The match seed of game `k` as arena drew it from the master seed alone, before the key.
fn legacy_game_seed(master: u64, k: u64) -> u64 {
    fn mix64(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let splitmix64 = |x: u64| mix64(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
    splitmix64(master ^ splitmix64(k))
}

/// Writes `t.toml`, a two-player Risk tournament with master seed `seed`, and runs it in `dir`;
/// returns `matches.csv`.
fn risk_tournament(dir: &Path, seed: u64, games: u64, bots: &str, sandbox: &str) -> String {
    let map = root().join("arenas/maps/risk/classic.txt");
    let toml = format!(
        "name = \"t\"\ngame = \"risk\"\nseed = {seed}\ngames_per_pairing = {games}\n\
         sandbox = {sandbox:?}\n[options]\nplayers = 2\n\
         [limits]\nfirst_turn_ms = 60000\nturn_ms = 5000\n[maps]\nfiles = [{:?}]\n{bots}",
        map.display().to_string(),
    );
    let results = run_arena_file(dir, "t", &toml);
    std::fs::read_to_string(results.join("matches.csv")).expect("matches.csv")
}

/// `(game, seed)` of every row.
fn games_and_seeds(csv: &str) -> Vec<(u64, u64)> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).expect(name);
    let (game, seed) = (column("game"), column("seed"));
    lines
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            (fields[game].parse().unwrap(), fields[seed].parse().unwrap())
        })
        .collect()
}

/// The spy's report in each row of `csv` (its garbage answer).
fn reports(csv: &str) -> Vec<String> {
    csv.lines()
        .skip(1)
        .map(|row| {
            assert!(row.contains(",garbage,spy,"), "the spy answers garbage: {row}");
            let at = row.find("REPORT ").unwrap_or_else(|| panic!("no report: {row}"));
            row[at..].split(['"', '\\']).next().unwrap().to_string()
        })
        .collect()
}

const SPY_VS_RANDOM: &str = "[[bots]]\nname = \"spy\"\nspec = SPY\nroles = [\"player1\", \"player2\"]\n\
                             [[bots]]\nname = \"random\"\n";

#[test]
fn a_spy_trying_the_likely_master_seeds_finds_no_match_seed() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let spy = root().join("tests/fixtures/bots/spy_master_seed.py");
    // The spy is competent: against the derivation without a key it finds the match seed.
    for master in [1, 2026] {
        let match_seed = legacy_game_seed(master, 3);
        let mine = bot_seed(match_seed, 1);
        let out = std::process::Command::new("python3")
            .arg(&spy)
            .args(["--search", &mine.to_string()])
            .output()
            .expect("python3 runs");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains(&format!("found={match_seed} master={master} game=3 seat=1")),
            "{said}"
        );
    }
    // A tournament's seeds are the key's: whatever the master seed, it finds nothing.
    for master in [1, 2026] {
        let spec = bot("python3", "spy_master_seed.py", &marker, &[]);
        let bots = SPY_VS_RANDOM.replace("SPY", &format!("{spec:?}"));
        let csv = risk_tournament(dir.path(), master, 2, &bots, "off");
        let reports = reports(&csv);
        assert_eq!(reports.len(), 4, "{csv}");
        for report in reports {
            assert_eq!(report, "REPORT found=none key=unreadable", "master seed {master}: {csv}");
        }
        std::fs::remove_dir_all(dir.path().join("results")).unwrap();
    }
    assert_no_process_left(&marker);
}

#[test]
fn the_master_seed_alone_does_not_give_the_match_seeds_and_the_key_does() {
    let dir = tempfile::tempdir().unwrap();
    let bots = "[[bots]]\nname = \"random\"\n[[bots]]\nname = \"greedy\"\n";
    let csv = risk_tournament(dir.path(), 2026, 3, bots, "off");
    let rows = games_and_seeds(&csv);
    assert_eq!(rows.len(), 6, "{csv}");
    // Every master seed of 0..=10000 and 2026, every game: none is a recorded match seed.
    let recorded: BTreeSet<u64> = rows.iter().map(|&(_, seed)| seed).collect();
    for master in 0..=10_000 {
        for game in 0..3 {
            assert!(!recorded.contains(&legacy_game_seed(master, game)), "master {master}");
        }
    }
    // With the folder's key, the documented derivation gives each row's seed exactly.
    let text = std::fs::read_to_string(dir.path().join("results/t/seed.key")).unwrap();
    let bytes: Vec<u8> =
        (0..32).map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex")).collect();
    let key = SeedKey::from_bytes(bytes.try_into().unwrap());
    for (game, seed) in rows {
        assert_eq!(seed, game_seed(&key, 2026, game), "game {game}");
    }
    let meta = std::fs::read_to_string(dir.path().join("results/t/meta.json")).unwrap();
    assert!(meta.contains(&key.id()) && !meta.contains(text.trim()), "{meta}");
}

/// The key is what keeps the seeds: a sandboxed bot cannot open `<results>/seed.key`. Without
/// the sandbox a bot runs as arena's user and reads it, then finds its match seed (out of
/// scope, as every read of an unsandboxed bot: docs/security.md).
#[test]
fn a_sandboxed_bot_cannot_read_the_seed_key() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker_in(dir.path());
    let key = format!("--key={}", dir.path().join("results/t/seed.key").display());
    let spec = bot("python3", "spy_master_seed.py", &marker, &[&key]);
    let bots = SPY_VS_RANDOM.replace("SPY", &format!("{spec:?}"));

    let csv = risk_tournament(dir.path(), 2026, 1, &bots, "require");
    for report in reports(&csv) {
        assert_eq!(report, "REPORT found=none key=unreadable", "{csv}");
    }
    std::fs::remove_dir_all(dir.path().join("results")).unwrap();

    let csv = risk_tournament(dir.path(), 2026, 1, &bots, "off");
    let seeds: Vec<u64> = games_and_seeds(&csv).iter().map(|&(_, seed)| seed).collect();
    for (report, seed) in reports(&csv).iter().zip(seeds) {
        assert!(report.starts_with(&format!("REPORT found={seed} master=2026 game=0 ")), "{csv}");
        assert!(report.ends_with(" key=read"), "{report}");
    }
    assert_no_process_left(&marker);
}
