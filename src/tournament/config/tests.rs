//! Arena files through every layer: what is accepted, what is refused and under which key.

use super::*;
use crate::tournament::stats::gsprt::EloModel;

const MAP: &str = "4 4 1\n0 1\n0 2\n1 3\n2 3\n3\n";

fn dir_with_map() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.txt"), format!("# AGENT_START 0\n{MAP}")).unwrap();
    dir
}

fn parse_in(dir: &Path, text: &str) -> Result<Arena> {
    Arena::parse(text, Path::new("t.toml"), &Files::Disk(dir.to_path_buf()))
}

const GOOD: &str = r#"
name = "t"
game = "skynet"
seed = 7
games_per_pairing = 3
[maps]
files = ["m.txt"]
[[bots]]
name = "a"
spec = "random"
[[bots]]
name = "b"
spec = "random"
limits = { turn_ms = 50 }
"#;

#[test]
fn a_good_arena_validates() {
    let dir = dir_with_map();
    let arena = parse_in(dir.path(), GOOD).unwrap();
    assert_eq!(arena.roles, vec!["virus", "agent"]);
    assert_eq!(arena.bots[1].limits.turn_ms, Some(50));
    assert_eq!(arena.bots[0].roles, vec!["virus", "agent"]);
    assert_eq!(arena.maps[0].name, "m.txt");
    assert_eq!(arena.games_per_pairing, 3);
    assert_eq!(arena.format, Format::RoundRobin);
}

fn error_of(text: &str) -> String {
    let dir = dir_with_map();
    parse_in(dir.path(), text).unwrap_err().to_string()
}

#[test]
fn errors_name_the_file_and_the_key() {
    let cases: Vec<(String, &str)> = vec![
        (GOOD.replace("seed = 7", "seed = 7\ncolour = 3"), "colour"),
        (GOOD.replace("\"m.txt\"", "\"missing.txt\""), "maps.files[0]"),
        (GOOD.replace("name = \"b\"", "name = \"a\""), "bots[1].name"),
        (GOOD.replace("games_per_pairing = 3", "games_per_pairing = 0"), "games_per_pairing"),
        (GOOD.replace("spec = \"random\"\nlimits", "spec = \"nobody\"\nlimits"), "bots[1].spec"),
        (GOOD.replace("turn_ms = 50", "turn_msec = 50"), "turn_msec"),
        (GOOD.replace("game = \"skynet\"", "game = \"chess\""), "game"),
        (GOOD.replace("seed = 7", "seed = 7\nformat = \"swiss\""), "format"),
        (GOOD.replace("seed = 7", "seed = 7\nreplays = \"some\""), "replays"),
        (
            GOOD.replace("seed = 7", "seed = 7\nformat = \"gauntlet\"\ncandidate = \"z\""),
            "candidate",
        ),
        (GOOD.replace("limits = { turn_ms = 50 }", "roles = [\"spider\"]"), "bots[1].roles"),
    ];
    for (text, key) in cases {
        let e = error_of(&text);
        assert!(e.starts_with("failed to parse arena `t.toml`: "), "{e}");
        assert!(e.contains(key), "error should name `{key}`: {e}");
    }
}

#[test]
fn a_malformed_map_names_the_key_and_the_line() {
    let dir = dir_with_map();
    std::fs::write(dir.path().join("bad.txt"), "# AGENT_START 0\n3 2 1\n0 1\n1 7\n2\n").unwrap();
    let e = parse_in(dir.path(), &GOOD.replace("\"m.txt\"", "\"bad.txt\"")).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("maps.files[0]") && e.contains("bad.txt") && e.contains("line"), "{e}");
}

#[test]
fn the_fingerprint_follows_results_not_concurrency() {
    let dir = dir_with_map();
    let a = parse_in(dir.path(), GOOD).unwrap();
    let b = parse_in(dir.path(), &GOOD.replace("seed = 7", "seed = 7\nconcurrency = 3")).unwrap();
    let c = parse_in(dir.path(), &GOOD.replace("seed = 7", "seed = 8")).unwrap();
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_ne!(a.fingerprint(), c.fingerprint());
    std::fs::write(dir.path().join("m.txt"), format!("# AGENT_START 1\n{MAP}")).unwrap();
    let d = parse_in(dir.path(), GOOD).unwrap();
    assert_ne!(a.fingerprint(), d.fingerprint(), "a changed map changes the fingerprint");
}

#[test]
fn the_fingerprint_follows_the_files_a_bot_names() {
    let dir = dir_with_map();
    let bot = dir.path().join("bot.sh");
    std::fs::write(&bot, "echo 0\n").unwrap();
    let text = GOOD.replace(
        "name = \"b\"\nspec = \"random\"",
        &format!("name = \"b\"\nspec = \"cmd:sh {}\"", bot.display()),
    );
    let a = parse_in(dir.path(), &text).unwrap();
    assert_eq!(a.bots[0].files.arena_version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
    let named: Vec<&str> = a.bots[1].files.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(named, vec!["sh".to_string(), bot.display().to_string()]);
    assert_eq!(parse_in(dir.path(), &text).unwrap().fingerprint(), a.fingerprint());
    std::fs::write(&bot, "echo 1\n").unwrap();
    let b = parse_in(dir.path(), &text).unwrap();
    assert_ne!(a.fingerprint(), b.fingerprint(), "an edited bot is another config");
    // Which replays are kept changes no result.
    let all = parse_in(dir.path(), &text.replace("seed = 7", "seed = 7\nreplays = \"all\""));
    let all = all.unwrap();
    assert_eq!((all.replays, b.replays), (ReplayPolicy::All, ReplayPolicy::Faults));
    assert_eq!(all.fingerprint(), b.fingerprint());
}

#[test]
fn a_schedule_too_big_to_track_is_an_error_not_a_crash() {
    // 3 bots, 6 matches per game: the total overflows u64 (and no bitmap of it fits memory).
    let text = format!("{GOOD}[[bots]]\nname = \"c\"\nspec = \"random\"\n")
        .replace("games_per_pairing = 3", "games_per_pairing = 9223372036854775807");
    let e = error_of(&text);
    assert!(e.contains("games_per_pairing"), "{e}");
    let e = error_of(&GOOD.replace("games_per_pairing = 3", "games_per_pairing = 1000000000000"));
    assert!(e.contains("games_per_pairing"), "{e}");
}

#[test]
fn a_glob_that_matches_nothing_names_the_folder_searched() {
    let dir = dir_with_map();
    let text = GOOD.replace("files = [\"m.txt\"]", "glob = \"maps/skynet/ep2_*.txt\"");
    let err = parse_in(dir.path(), &text).unwrap_err().to_string();
    let expected = format!(
        "`maps/skynet/ep2_*.txt` matches no file in `{}` (map paths are relative to the \
         arena file's folder)",
        dir.path().display()
    );
    assert!(err.contains(&expected), "{err}");
}

#[test]
fn a_glob_works_in_a_folder_whose_name_looks_like_a_pattern() {
    let top = tempfile::tempdir().unwrap();
    let dir = top.path().join("runs [2026]");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("m.txt"), format!("# AGENT_START 0\n{MAP}")).unwrap();
    let text = GOOD.replace("files = [\"m.txt\"]", "glob = \"*.txt\"");
    let arena = parse_in(&dir, &text).unwrap();
    assert_eq!(arena.maps.len(), 1);
    assert_eq!(arena.maps[0].name, "m.txt");
}

#[test]
fn sprt_needs_bots_of_every_role() {
    let text =
        format!("{GOOD}\n[sprt]\ncandidate = \"a\"\nbaseline = \"b\"\nelo0 = 0\nelo1 = 10\n");
    let dir = dir_with_map();
    let arena = parse_in(dir.path(), &text).unwrap();
    let sprt = arena.sprt.unwrap();
    assert_eq!((sprt.candidate, sprt.baseline, sprt.alpha), (0, 1, 0.05));
    let e = error_of(&text.replace("elo1 = 10", "elo1 = -5"));
    assert!(e.contains("sprt.elo1"), "{e}");
    let e = error_of(&text.replace("elo1 = 10\n", ""));
    assert!(e.contains("sprt.elo1") && e.contains("missing"), "{e}");
}

fn sprt_with(text: &str, overrides: &SprtSettings) -> Result<Arena> {
    let dir = dir_with_map();
    let files = Files::Disk(dir.path().to_path_buf());
    Arena::parse_with(text, Path::new("t.toml"), &files, overrides)
}

#[test]
fn sprt_overrides_replace_the_file_and_pass_the_same_validation() {
    let text =
        format!("{GOOD}\n[sprt]\ncandidate = \"a\"\nbaseline = \"b\"\nelo0 = 0\nelo1 = 10\n");
    let swap = SprtSettings {
        candidate: Some("b".into()),
        baseline: Some("a".into()),
        elo1: Some(25.0),
        beta: Some(0.1),
        max_pairs: Some(7),
        ..SprtSettings::default()
    };
    let test = sprt_with(&text, &swap).unwrap().sprt.unwrap();
    assert_eq!((test.candidate, test.baseline), (1, 0));
    assert_eq!((test.elo0, test.elo1, test.alpha, test.beta), (0.0, 25.0, 0.05, 0.1));
    assert_eq!(test.max_pairs, 7);
    // Without a section in the file, the overrides make one; what is missing is named.
    let all = SprtSettings { elo0: Some(0.0), ..swap.clone() };
    assert_eq!(sprt_with(GOOD, &all).unwrap().sprt.unwrap().elo1, 25.0);
    let e = sprt_with(GOOD, &swap).unwrap_err().to_string();
    assert!(e.contains("t.toml") && e.contains("sprt.elo0") && e.contains("missing"), "{e}");
    assert!(sprt_with(GOOD, &SprtSettings::default()).unwrap().sprt.is_none());
    // Overrides are checked as the file is, with the same messages.
    for (bad, key) in [
        (SprtSettings { alpha: Some(0.7), ..SprtSettings::default() }, "sprt.alpha"),
        (SprtSettings { elo0: Some(50.0), ..SprtSettings::default() }, "sprt.elo1"),
        (SprtSettings { baseline: Some("zed".into()), ..SprtSettings::default() }, "zed"),
        (SprtSettings { max_pairs: Some(0), ..SprtSettings::default() }, "sprt.max_pairs"),
    ] {
        let e = sprt_with(&text, &bad).unwrap_err().to_string();
        assert!(e.starts_with("failed to parse arena `t.toml`: ") && e.contains(key), "{e}");
    }
}

#[test]
fn a_paired_test_and_its_defaults() {
    let text = format!(
        "{GOOD}[[bots]]\nname = \"cg\"\nspec = \"cg-ep2\"\n\
         [[bots]]\nname = \"solver\"\n\
         [sprt]\ncandidate = \"solver\"\nbaseline = \"a\"\nopponents = [\"cg\"]\nelo0 = 0\nelo1 = 5\n"
    );
    let arena = sprt_with(&text, &SprtSettings::default()).unwrap();
    let test = arena.sprt.unwrap();
    assert_eq!(test.kind, SprtKind::Paired { opponents: vec![2] });
    assert_eq!(test.elo_model, EloModel::Normalized);
    // Skynet has a generator: fresh maps by default, with the arena's generator settings.
    assert_eq!(test.maps, PairMaps::Generate { params: BTreeMap::new() });
    assert!(arena.bots[2].deterministic && !arena.bots[0].deterministic);
    // The flags override the table's model and kind.
    let logistic = SprtSettings {
        elo_model: Some(EloModel::Logistic),
        kind: Some(SprtKindName::HeadToHead),
        ..SprtSettings::default()
    };
    let e = sprt_with(&text, &logistic).unwrap_err().to_string();
    assert!(e.contains("sprt.opponents"), "a head-to-head test has no opponents: {e}");
    let cycle = text.replace("elo1 = 5", "elo1 = 5\nmaps = \"cycle\"\nelo_model = \"logistic\"");
    let test = sprt_with(&cycle, &SprtSettings::default()).unwrap().sprt.unwrap();
    assert_eq!((test.maps, test.elo_model), (PairMaps::Cycle, EloModel::Logistic));
    // The baseline must play the seats the candidate plays against these opponents.
    let e = sprt_with(
        &text.replace("baseline = \"a\"", "baseline = \"b\"\nkind = \"paired\"").replace(
            "name = \"b\"\nspec = \"random\"",
            "name = \"b\"\nspec = \"random\"\nroles = [\"agent\"]",
        ),
        &SprtSettings::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sprt.baseline") && e.contains("virus"), "{e}");
    // Only external bots declare determinism.
    let e = error_of(&GOOD.replace("limits = { turn_ms = 50 }", "deterministic = true"));
    assert!(e.contains("bots[1].deterministic") && e.contains("built-in"), "{e}");
}

/// The typed error of a refused arena.
fn refusal(text: &str) -> ArenaError {
    let dir = dir_with_map();
    arena_error(parse_in(dir.path(), text).unwrap_err())
}

fn arena_error(e: Error) -> ArenaError {
    match e {
        Error::Arena(cause) => *cause.downcast::<ArenaError>().expect("an ArenaError"),
        other => panic!("not an arena error: {other}"),
    }
}

#[test]
fn errors_are_typed_by_file_key_and_problem() {
    let sprt =
        format!("{GOOD}\n[sprt]\ncandidate = \"a\"\nbaseline = \"b\"\nelo0 = 0\nelo1 = 10\n");
    type Expected = fn(&Problem) -> bool;
    let cases: Vec<(String, &str, Expected)> = vec![
        (
            GOOD.replace("name = \"t\"", "name = \"../t\""),
            "name",
            |p| matches!(p, Problem::BadArenaName(n) if n == "../t"),
        ),
        (
            GOOD.replace("\"m.txt\"", "\"missing.txt\""),
            "maps.files[0]",
            |p| matches!(p, Problem::CannotRead { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        ),
        (
            GOOD.replace("files = [\"m.txt\"]", "glob = \"*.png\""),
            "maps.glob",
            |p| matches!(p, Problem::GlobMatchesNothing { pattern, folder: Some(_) } if pattern == "*.png"),
        ),
        (
            GOOD.replace("name = \"b\"", "name = \"a\""),
            "bots[1].name",
            |p| matches!(p, Problem::DuplicateBot(n) if n == "a"),
        ),
        (
            GOOD.replace("turn_ms = 50", "turn_ms = 0"),
            "bots[1].limits.turn_ms",
            |p| matches!(p, Problem::Limit(l) if l.key == "turn_ms"),
        ),
        (GOOD.replace("seed = 7", "seed = 7\nformat = \"gauntlet\""), "candidate", |p| {
            matches!(p, Problem::GauntletWithoutCandidate)
        }),
        (format!("{GOOD}[league]\nwindow = 4\n"), "league", |p| {
            matches!(p, Problem::LeagueOutsideLeague)
        }),
        (
            format!("{GOOD}[league]\nwindow = 0\n")
                .replace("seed = 7", "seed = 7\nformat = \"league\""),
            "league.window",
            |p| matches!(p, Problem::LeagueWindow(0)),
        ),
        (GOOD.replace("seed = 7", "seed = 7\nconcurrency = 5000"), "concurrency", |p| {
            matches!(p, Problem::Concurrency(5000))
        }),
        (
            sprt.replace("elo1 = 10", "elo1 = 2000"),
            "sprt.elo1",
            |p| matches!(p, Problem::EloBeyondRange(v) if *v == 2000.0),
        ),
        (
            sprt.replace("elo1 = 10", "elo1 = 10\nopponents = [\"b\"]"),
            "sprt.opponents",
            |p| matches!(p, Problem::OpponentUnderTest(n) if n == "b"),
        ),
        (sprt.replace("elo1 = 10", "elo1 = 10\nkind = \"paired\""), "sprt.opponents", |p| {
            matches!(p, Problem::NoOpponents)
        }),
    ];
    for (text, key, expected) in cases {
        let e = refusal(&text);
        assert_eq!(e.file, Path::new("t.toml"));
        assert_eq!(e.key(), Some(key), "{e}");
        assert!(expected(e.problem().unwrap()), "unexpected problem: {e}");
        assert!(
            e.to_string().starts_with(&format!("failed to parse arena `t.toml`: key `{key}`: "))
        );
    }
    // What the TOML reader refuses has a line and no typed key.
    let e = refusal(&GOOD.replace("seed = 7", "seed = 7\nformat = \"swiss\""));
    assert!(matches!(e.error, FileError::Toml(_)) && e.key().is_none(), "{e}");
    assert!(e.to_string().contains("line 5, key `format`: `swiss` is not"), "{e}");
}

#[test]
fn the_pure_checks_come_before_any_file_is_read_or_program_prepared() {
    // A map that cannot be read, and a `[maps.generate]` table that cannot be right whatever the
    // files hold: the table is refused first.
    let text = GOOD.replace(
        "files = [\"m.txt\"]",
        "files = [\"missing.txt\"]\n[maps.generate]\ncount = 2\nseeds = [1]",
    );
    let e = refusal(&text);
    assert_eq!(e.key(), Some("maps.generate"));
    assert!(matches!(e.problem(), Some(Problem::CountAndSeeds)), "{e}");

    // A `cg:` bot whose source is not there: validation alone accepts it (nothing compiled,
    // nothing hashed), preparing refuses it under its spec's key.
    let dir = dir_with_map();
    let missing = dir.path().join("gone.py");
    let text = GOOD.replace(
        "name = \"b\"\nspec = \"random\"",
        &format!("name = \"b\"\nspec = \"cg:{}\"", missing.display()),
    );
    let files = Files::Disk(dir.path().to_path_buf());
    let unprepared = Arena::parse_unprepared(&text, Path::new("t.toml"), &files).unwrap();
    assert!(unprepared.bots[1].files.files.is_empty());
    assert_eq!(unprepared.bots[0].files.arena_version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
    let e = arena_error(parse_in(dir.path(), &text).unwrap_err());
    assert_eq!(e.key(), Some("bots[1].spec"));
    assert!(matches!(e.problem(), Some(Problem::Compile(_))), "{e}");
    assert!(e.to_string().contains("does not exist"), "{e}");
    // With a second fault that validation sees, that one is named: no compile was tried.
    let e =
        refusal(&text.replace("seed = 7", "seed = 7\nformat = \"gauntlet\"\ncandidate = \"z\""));
    assert_eq!(e.key(), Some("candidate"), "{e}");
}

#[test]
fn sprt_flags_and_the_table_are_one_type() {
    // The `[sprt]` table read by serde and the flags read by clap fill the same struct, and the
    // flags win key by key.
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Flags {
        #[command(flatten)]
        settings: SprtSettings,
    }
    let flags = Flags::try_parse_from([
        "sprt",
        "--opponents",
        "cg,solver",
        "--maps",
        "cycle",
        "--elo1",
        "-3",
        "--kind",
        "paired",
    ])
    .unwrap()
    .settings;
    assert_eq!(flags.opponents, Some(vec!["cg".to_string(), "solver".to_string()]));
    assert_eq!(
        (flags.maps, flags.elo1, flags.kind),
        (Some(PairMapsName::Cycle), Some(-3.0), Some(SprtKindName::Paired))
    );
    let table: SprtSettings = toml::from_str(
        "candidate = \"a\"\nbaseline = \"b\"\nelo0 = -5\nelo1 = 5\nmaps = \"generate\"",
    )
    .unwrap();
    let both = table.or(&flags);
    assert_eq!(
        (both.candidate.as_deref(), both.elo0, both.elo1),
        (Some("a"), Some(-5.0), Some(-3.0))
    );
    assert_eq!(both.maps, Some(PairMapsName::Cycle));

    // `--opponents` and `--maps` over a head-to-head table make a paired test on the arena's
    // maps.
    let text = format!(
        "{GOOD}[[bots]]\nname = \"cg\"\nspec = \"cg-ep2\"\n[[bots]]\nname = \"solver\"\n\
         [sprt]\ncandidate = \"solver\"\nbaseline = \"a\"\nelo0 = 0\nelo1 = 5\n"
    );
    let over = SprtSettings {
        opponents: Some(vec!["cg".into()]),
        maps: Some(PairMapsName::Cycle),
        ..SprtSettings::default()
    };
    let test = sprt_with(&text, &over).unwrap().sprt.unwrap();
    assert_eq!((test.kind, test.maps), (SprtKind::Paired { opponents: vec![2] }, PairMaps::Cycle));
}
