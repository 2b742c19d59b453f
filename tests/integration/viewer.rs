//! `arena view` and `arena report` in a real browser: each page loads with no console error and no
//! network request, draws as many nodes and edges as its map has, shows at its last step the
//! result its replay records, keeps Risk hands to their seat's point of view, and steps through a
//! long Risk replay and opens a 10,000-match report (their timing is measured by
//! `cargo bench --bench viewer`, not here). Screenshots go to `target/screenshots/`; with
//! `ARENA_UPDATE_DOC_IMAGES=1` the README's images in `docs/img/` are made again too.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arena::games::GameId;
use arena::replay::Replay;
use serde_json::Value;

use crate::browser::{self, Browser};
use crate::support::{Arena, root, run_arena_file};

/// One browser at a time: two Chromiums on two cores starve each other's pages.
pub(crate) static ONE_BROWSER: Mutex<()> = Mutex::new(());

fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/").join("screenshots")
}

/// Saves a screenshot under `target/screenshots/`, and as `docs/img/<doc_name>` when asked to.
pub(crate) fn photograph(
    b: &mut Browser,
    name: &str,
    doc_name: Option<&str>,
    page_height: Option<u32>,
) {
    let path = screenshots().join(format!("{name}.png"));
    b.screenshot(&path, page_height);
    if let Some(doc) = doc_name
        && std::env::var("ARENA_UPDATE_DOC_IMAGES").as_deref() == Ok("1")
    {
        let target = root().join("docs/img").join(doc);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&path, &target).expect("the doc image is written");
    }
}

fn shipped(name: &str) -> PathBuf {
    root().join("tests/data/replays").join(name)
}

/// `arena view REPLAY -o DIR/NAME.html`, returning the page's path.
pub(crate) fn view(replay: &Path, dir: &Path) -> PathBuf {
    let out = dir.join(replay.file_stem().unwrap()).with_extension("html");
    let run = Arena::new()
        .args(
            ["view".as_ref(), replay.as_os_str(), "-o".as_ref(), out.as_os_str()]
                .map(|s| s.to_str().unwrap().to_string()),
        )
        .run()
        .success();
    assert_eq!(run.stdout().trim(), out.display().to_string());
    out
}

/// Opens a page and checks that it loaded cleanly and fetched nothing but itself.
pub(crate) fn open_clean(b: &mut Browser, page: &Path) {
    let since = b.open(page);
    let problems = b.problems(since);
    assert!(problems.is_empty(), "{}: {problems:#?}", page.display());
    let requests = b.requests(since);
    let own = format!("file://{}", page.canonicalize().unwrap().display());
    assert_eq!(requests, vec![own], "{}: requests other than the page itself", page.display());
}

/// The nodes and edges (and for Painters' Duel, the rooms under construction) of a replay's map,
/// by the game's own parser.
fn map_counts(replay: &Replay) -> (usize, usize, usize) {
    let map = &replay.header.map;
    match replay.header.game {
        GameId::Skynet => {
            let episode = if replay.header.variant == "ep1" {
                arena::games::skynet::Episode::Ep1
            } else {
                arena::games::skynet::Episode::Ep2
            };
            let m =
                arena::games::skynet::map::parse_map(&map.name, &map.text, episode).unwrap().map;
            (m.nodes, m.links.len(), 0)
        }
        GameId::Spiders => {
            let m = arena::games::spiders::map::parse_map(&map.name, &map.text).unwrap();
            (m.nodes, m.edges.len(), 0)
        }
        GameId::Painters => {
            let b = arena::games::painters::map::parse_board(&map.name, &map.text, 1).unwrap();
            (b.geometry.rooms(), 0, b.blocked.count_ones() as usize)
        }
        GameId::Risk => {
            let m = arena::games::risk::map::parse(&map.name, &map.text).unwrap();
            (m.len(), m.borders.len(), 0)
        }
    }
}

/// The page draws as many nodes, edges and rooms under construction as the replay's map has.
fn assert_draws_its_map(b: &mut Browser, replay: &Replay, name: &str) {
    let (nodes, edges, blocked) = map_counts(replay);
    let drawn = b.eval(
        "[document.querySelectorAll('#board [data-kind=node]').length, \
          document.querySelectorAll('#board [data-kind=edge]').length, \
          document.querySelectorAll('#board .room.blocked').length]",
    );
    assert_eq!(drawn, serde_json::json!([nodes, edges, blocked]), "{name}: nodes, edges, blocked");
}

/// `(replay, screenshot step as a fraction of the match, doc image)`.
const SHIPPED: &[(&str, f64, Option<&str>)] = &[
    ("skynet-locked-map.jsonl", 0.6, None),
    ("skynet-generated.jsonl", 0.75, Some("skynet.png")),
    ("painters-generated.jsonl", 0.6, Some("painters.png")),
    ("spiders-path.jsonl", 0.5, None),
    ("spiders-graph.jsonl", 0.7, Some("spiders.png")),
    ("risk-6-players.jsonl", 0.45, Some("risk.png")),
];

#[test]
fn every_shipped_replay_draws_its_map_and_ends_with_its_recorded_result() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    for &(name, at, doc) in SHIPPED {
        let replay_path = shipped(name);
        let replay = arena::replay::read(&replay_path).unwrap();
        let page = view(&replay_path, dir.path());
        open_clean(&mut b, &page);

        assert_draws_its_map(&mut b, &replay, name);

        let count = b.eval("arenaViewer.count");
        assert_eq!(count, replay.actions.len(), "{name}");
        assert_eq!(
            b.eval("document.getElementById('overlay').hidden"),
            true,
            "{name}: no result yet"
        );
        b.eval(&format!("arenaViewer.goto(Math.round(arenaViewer.count * {at}))"));
        if replay.header.game == GameId::Risk {
            b.eval("arenaViewer.setPov(0)");
        }
        photograph(&mut b, name.trim_end_matches(".jsonl"), doc, None);

        b.eval("arenaViewer.goto(arenaViewer.count)");
        let shown = b.eval(
            "[document.getElementById('result').innerText, \
              document.getElementById('overlay').hidden, \
              document.getElementById('result').classList.contains('final')]",
        );
        let text = shown[0].as_str().unwrap();
        let r = &replay.result;
        let winner =
            r.winner.as_ref().map_or("no single winner".to_string(), |w| format!("{w} wins"));
        for expected in [winner.as_str(), &r.reason, r.termination.as_str()] {
            assert!(text.contains(expected), "{name}: the result shows {text:?}, not {expected:?}");
        }
        assert_eq!(shown[1], false, "{name}: the overlay shows the result");
        assert_eq!(shown[2], true, "{name}");
        let problems = b.problems(0);
        assert!(problems.is_empty(), "{name}: {problems:#?}");
    }
}

#[test]
fn a_side_12_painters_match_draws_all_144_rooms() {
    // Side 12 is past the 121 rooms of one `u128`: the replay comes from the wide room sets.
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let replay_path = dir.path().join("painters-side-12.jsonl");
    Arena::new()
        .args(["play", "painters", "--gen", "size=12,blocked=0.3", "--seed", "5"])
        .args(["--bot", "alma=greedy", "--bot", "berthe=random", "--replay"])
        .args([replay_path.to_str().unwrap()])
        .run()
        .success();
    let replay = arena::replay::read(&replay_path).unwrap();
    assert_eq!(map_counts(&replay).0, 144);
    let page = view(&replay_path, dir.path());
    open_clean(&mut b, &page);
    assert_draws_its_map(&mut b, &replay, "side 12");
    b.eval("arenaViewer.goto(arenaViewer.count)");
    let drawn = b.eval(
        "['.room.painted.s0', '.room.painted.s1', '.room.open', '.room.blocked'] \
           .map((c) => document.querySelectorAll('#board ' + c).length)",
    );
    let counts: Vec<i64> = drawn.as_array().unwrap().iter().map(|n| n.as_i64().unwrap()).collect();
    assert_eq!(counts.iter().sum::<i64>(), 144, "every room drawn in one state: {counts:?}");
    assert_eq!(
        (counts[0] - counts[1]) as f64,
        replay.result.scores[0],
        "Alma's rooms less Berthe's are the recorded score: {counts:?}"
    );
    assert!(counts[0] + counts[1] > 2, "the painters moved: {counts:?}");
    photograph(&mut b, "painters-side-12", None, None);
    let problems = b.problems(0);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_keys_and_buttons_move_through_the_replay() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = view(&shipped("painters-generated.jsonl"), dir.path());
    open_clean(&mut b, &page);
    let count = b.eval("arenaViewer.count").as_u64().unwrap();
    let key = |b: &mut Browser, key: &str, code: i64| {
        for kind in ["keyDown", "keyUp"] {
            b.call(
                "Input.dispatchKeyEvent",
                serde_json::json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code}),
            );
        }
        b.eval("arenaViewer.index").as_u64().unwrap()
    };
    assert_eq!(key(&mut b, "ArrowRight", 39), 1);
    assert_eq!(key(&mut b, "ArrowRight", 39), 2);
    assert_eq!(key(&mut b, "ArrowLeft", 37), 1);
    assert_eq!(key(&mut b, "End", 35), count);
    assert_eq!(key(&mut b, "ArrowRight", 39), count, "no step past the end");
    assert_eq!(key(&mut b, "Home", 36), 0);
    assert_eq!(key(&mut b, "ArrowLeft", 37), 0, "no step before the start");
    // Space plays: at the fastest speed the replay reaches its end by itself.
    b.eval("document.getElementById('speed').value = '16'");
    let started = key(&mut b, " ", 32);
    assert!(started <= 1, "{started}");
    let end = b.eval(
        "new Promise(done => { const t = setInterval(() => { \
           if (arenaViewer.index === arenaViewer.count) { clearInterval(t); done(arenaViewer.index); } \
         }, 20); })",
    );
    assert_eq!(end, count);
    assert_eq!(
        b.eval("document.getElementById('play').textContent"),
        "▶ play",
        "paused at the end"
    );
    // The slider and the buttons.
    b.eval(
        "const s = document.getElementById('slider'); s.value = 5; \
         s.dispatchEvent(new Event('input'))",
    );
    assert_eq!(b.eval("arenaViewer.index"), 5);
    b.eval("document.getElementById('forward').click()");
    assert_eq!(b.eval("arenaViewer.index"), 6);
    b.eval("document.getElementById('back').click(); document.getElementById('back').click()");
    assert_eq!(b.eval("arenaViewer.index"), 4);
    b.eval("document.getElementById('last').click()");
    assert_eq!(b.eval("arenaViewer.index"), count);
    b.eval("document.getElementById('first').click()");
    assert_eq!(b.eval("arenaViewer.index"), 0);
    // The step panel names the seat, the protocol text and the time.
    b.eval("arenaViewer.goto(3)");
    let replay = arena::replay::read(&shipped("painters-generated.jsonl")).unwrap();
    let now = b.eval("document.getElementById('now').innerText");
    let now = now.as_str().unwrap();
    let step = &replay.actions[2];
    assert!(now.contains(&step.role) && now.contains(&step.action), "{now}");
    assert!(now.contains("took") && now.contains("ms of"), "{now}");
    let input = b.eval("document.getElementById('input').textContent");
    assert!(input.as_str().unwrap().ends_with(&format!("> {}", step.action)), "{input}");
    assert!(b.problems(0).is_empty(), "{:#?}", b.problems(0));
}

/// Everything the page shows of one seat's cards, checked at every step from one point of view.
const HAND_CHECK: &str = r#"
(pov) => {
  arenaViewer.setPov(pov);
  const steps = JSON.parse(document.getElementById('replay-data').textContent).steps;
  const seen = { ownCards: 0, ownInputs: 0, otherCards: [], otherInputs: [], otherPrivate: [] };
  for (let i = 0; i <= arenaViewer.count; i++) {
    arenaViewer.goto(i);
    for (const c of document.querySelectorAll('.card')) {
      if (Number(c.dataset.owner) === pov) seen.ownCards++;
      else seen.otherCards.push([i, c.dataset.owner]);
    }
    const hand = /^hand /m.test(document.getElementById('input').textContent);
    if (i > 0 && hand && steps[i - 1].seat !== pov) seen.otherInputs.push(i);
    if (i > 0 && hand && steps[i - 1].seat === pov) seen.ownInputs++;
    const text = document.getElementById('side').innerText;
    for (let s = 0; s < 6; s++) {
      if (s !== pov && text.includes('player' + (s + 1) + ' receives')) seen.otherPrivate.push([i, s]);
    }
  }
  return seen;
}
"#;

#[test]
fn a_risk_seat_sees_its_own_cards_and_never_another_seats() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = view(&shipped("risk-6-players.jsonl"), dir.path());
    open_clean(&mut b, &page);
    for pov in [0, 1] {
        let seen = b.eval(&format!("({HAND_CHECK})({pov})"));
        assert_eq!(seen["otherCards"], Value::Array(vec![]), "seat {pov} saw others' cards");
        assert_eq!(seen["otherInputs"], Value::Array(vec![]), "seat {pov} saw others' input");
        assert_eq!(seen["otherPrivate"], Value::Array(vec![]), "seat {pov} saw others' draws");
        assert!(seen["ownCards"].as_u64().unwrap() > 0, "seat {pov} never saw its own cards");
        assert!(seen["ownInputs"].as_u64().unwrap() > 0, "seat {pov} never saw its own input");
    }
    // The spectator sees no hand at all.
    b.eval("arenaViewer.setPov(null); arenaViewer.goto(800)");
    assert_eq!(b.eval("document.querySelectorAll('.card').length"), 0);
    assert!(b.problems(0).is_empty(), "{:#?}", b.problems(0));
}

#[test]
fn a_long_risk_replay_steps_forwards_and_back_to_the_same_pages() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = view(&shipped("risk-6-players.jsonl"), dir.path());
    open_clean(&mut b, &page);
    // Every step forwards then back: the side panel at each step is the same both ways.
    let result = b.eval(
        "arenaViewer.setPov(0); const seen = []; \
         for (let i = 0; i <= arenaViewer.count; i++) { arenaViewer.goto(i); \
           seen.push(document.getElementById('side').textContent); } \
         let same = 0; \
         for (let i = arenaViewer.count; i >= 0; i--) { arenaViewer.goto(i); \
           if (document.getElementById('side').textContent === seen[i]) same++; } \
         [arenaViewer.count, same]",
    );
    let [count, same] = [0, 1].map(|i| result[i].as_u64().unwrap());
    assert!(count >= 1000, "a long replay: {count} steps");
    assert_eq!(same, count + 1, "stepping back shows what stepping forwards showed");
}

#[test]
fn a_crashed_bot_shows_as_the_culprit_with_its_stderr() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("crash.jsonl");
    let bot = root().join("tests/fixtures/bots/crash_signal.sh");
    let pids = dir.path().join("pids");
    Arena::new()
        .args([
            "play".to_string(),
            "skynet".to_string(),
            "--bot".to_string(),
            format!("virus=cmd:sh {} {}", bot.display(), pids.display()),
            "--replay".to_string(),
            replay.display().to_string(),
        ])
        .run()
        .success();
    let page = view(&replay, dir.path());
    open_clean(&mut b, &page);
    b.eval("arenaViewer.goto(arenaViewer.count)");
    let text = b.eval("document.getElementById('result').innerText");
    let text = text.as_str().unwrap();
    for expected in ["agent wins", "crash", "virus (cmd:", "about to crash"] {
        assert!(text.contains(expected), "the result shows {text:?}, not {expected:?}");
    }
    assert!(b.eval("document.getElementById('overlay').className") == "fault");
}

#[test]
fn names_from_a_replay_are_text_never_markup() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A bot's name is its command line, which a stranger writes; so is its stderr.
    let hostile = "</script><script>window.pwned = 1</script><!-- <b>bold</b>";
    let text = std::fs::read_to_string(shipped("spiders-path.jsonl")).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines[0]["seats"][0]["bot"] = hostile.into();
    lines[0]["map"]["name"] = hostile.into();
    let last = lines.len() - 1;
    lines[last]["result"]["reports"] = serde_json::json!([{"stderr_tail": [hostile]}, {}]);
    let replay = dir.path().join("hostile.jsonl");
    let body: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&replay, body.join("\n") + "\n").unwrap();
    let page = view(&replay, dir.path());
    open_clean(&mut b, &page);
    b.eval("arenaViewer.goto(arenaViewer.count)");
    assert_eq!(b.eval("typeof window.pwned"), "undefined");
    assert_eq!(b.eval("document.querySelectorAll('b').length"), 1, "only the map name's own <b>");
    let shown = b.eval("document.body.innerText");
    assert!(shown.as_str().unwrap().matches(hostile).count() >= 3, "{shown}");
}

/// An arena of three random Skynet bots on the shipped Episode 2 maps.
fn tournament(dir: &Path, games: u32) -> PathBuf {
    let maps = root().join("arenas/maps/skynet");
    let text = format!(
        "name = \"viewed\"\ngame = \"skynet\"\nseed = 3\ngames_per_pairing = {games}\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\", \"{0}/ep2_03.txt\", \
         \"{0}/ep2_01_from_forum_with_coords.cg.txt\"]\n\
         [[bots]]\nname = \"alpha\"\nspec = \"random\"\n\
         [[bots]]\nname = \"beta\"\nspec = \"random\"\n\
         [[bots]]\nname = \"gamma\"\nspec = \"random\"\nroles = [\"virus\"]\n",
        maps.display()
    );
    run_arena_file(dir, "viewed", &text)
}

fn report(results: &Path, views: bool) -> PathBuf {
    let mut args = vec!["report".to_string(), results.display().to_string()];
    if views {
        args.push("--views".to_string());
    }
    let run = Arena::new().args(args).run().success();
    let page = results.join("report.html");
    assert!(run.stdout().trim().ends_with(&page.display().to_string()), "{}", run.stdout());
    page
}

#[test]
fn the_report_draws_every_bot_and_pair_and_links_the_kept_replays() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    let results = tournament(dir.path(), 6);
    // Keep two replays as a run would (`replays/<id>.jsonl`), its seats named after its bots:
    // those of the first and the fourth match by id.
    std::fs::create_dir_all(results.join("replays")).unwrap();
    let mut ids: Vec<u64> = std::fs::read_to_string(results.join("matches.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    ids.sort();
    let (first, fourth) = (ids[0], ids[3]);
    for (id, name) in [(first, "skynet-locked-map.jsonl"), (fourth, "skynet-generated.jsonl")] {
        let text = std::fs::read_to_string(shipped(name)).unwrap();
        let (header, rest) = text.split_once('\n').unwrap();
        let mut header: Value = serde_json::from_str(header).unwrap();
        header["seats"][0]["bot"] = "gamma".into();
        header["seats"][1]["bot"] = "alpha".into();
        let kept = format!("{header}\n{rest}");
        std::fs::write(results.join(format!("replays/{id}.jsonl")), kept).unwrap();
    }
    let page = report(&results, true);
    let (first_page, fourth_page) =
        (format!("replays/{first}.html"), format!("replays/{fourth}.html"));
    assert!(results.join(&first_page).exists() && results.join(&fourth_page).exists());
    open_clean(&mut b, &page);
    let summary = std::fs::read_to_string(results.join("summary.csv")).unwrap();
    let bots = summary.lines().count() - 1;
    let pairs = std::fs::read_to_string(results.join("pairwise.csv")).unwrap().lines().count() - 1;
    let matches = std::fs::read_to_string(results.join("matches.csv")).unwrap().lines().count() - 1;
    let drawn = b.eval(
        "[document.querySelectorAll('#ratings .rating').length, \
          document.querySelectorAll('#head-to-head .cell').length, \
          document.querySelectorAll('#endings svg text.label').length, \
          document.querySelectorAll('#times svg text.label').length, \
          window.arenaReport.rows, \
          [...document.querySelectorAll('#match-table a.replay')].map(a => a.getAttribute('href'))]",
    );
    assert_eq!(drawn[0], bots);
    assert_eq!(drawn[1], pairs);
    assert_eq!(drawn[2], bots);
    assert_eq!(drawn[3], bots);
    assert_eq!(drawn[4], matches);
    assert_eq!(drawn[5], serde_json::json!([first_page, fourth_page]));
    // The decision-time plot draws the limits the kept replays' headers record.
    assert!(b.eval("document.querySelectorAll('#times .limit').length").as_u64().unwrap() > 0);
    // A link opens the replay's page, which loads cleanly too.
    photograph(&mut b, "report", Some("report.png"), Some(1900));
    open_clean(&mut b, &results.join(&first_page));
}

#[test]
fn a_report_of_ten_thousand_matches_is_small_and_opens() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Two bots in both roles and a virus-only one: 4 matches per game.
    let results = tournament(dir.path(), 2500);
    let page = report(&results, false);
    let rows = std::fs::read_to_string(results.join("matches.csv")).unwrap().lines().count() - 1;
    assert!(rows >= 10_000, "{rows} matches");
    let size = std::fs::metadata(&page).unwrap().len();
    eprintln!("report of {rows} matches: {} KiB", size / 1024);
    assert!(size < 5 * 1024 * 1024, "{size} bytes");
    open_clean(&mut b, &page);
    // Every match counted, a bounded page of them listed (no bot faults here: the first 5,000 by
    // id), and the page names `matches.csv` as the full list.
    assert_eq!(b.eval("window.arenaReport.total"), rows);
    assert_eq!(b.eval("window.arenaReport.rows"), 5000);
    assert!(
        b.eval("document.querySelector('#matches .note').textContent")
            .as_str()
            .is_some_and(|t| t.contains("first 5000") && t.contains("matches.csv")),
        "{}",
        b.eval("document.querySelector('#matches .note').textContent")
    );
    assert_eq!(b.eval("document.querySelectorAll('#match-table tbody tr').length"), 100);
}

#[test]
fn a_replay_the_rules_refuse_or_a_missing_one_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let run = Arena::new().args(["view", missing.to_str().unwrap()]).run().failure();
    assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("missing.jsonl"), "{}", run.stderr());

    // The virus's second cut replaced by a link that touches no gateway (illegal in Episode 2).
    let text = std::fs::read_to_string(shipped("skynet-locked-map.jsonl")).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines[3]["action"] = "0 1".into();
    let tampered = dir.path().join("tampered.jsonl");
    let body: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&tampered, body.join("\n") + "\n").unwrap();
    let run = Arena::new().args(["view", tampered.to_str().unwrap()]).run().failure();
    assert_eq!(run.output.status.code(), Some(1), "{}", run.stderr());
    assert!(
        run.stderr().contains("tampered.jsonl") && run.stderr().contains("action 3"),
        "{}",
        run.stderr()
    );
    assert!(
        !dir.path().join("tampered.html").exists(),
        "no page for a replay that does not verify"
    );
}

#[test]
fn a_results_folder_with_a_bad_row_is_an_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let results = tournament(dir.path(), 2);
    let matches = results.join("matches.csv");
    let text = std::fs::read_to_string(&matches).unwrap();
    // A torn last line (a run killed mid-write) is left out, as a resume would.
    std::fs::write(&matches, format!("{text}17,3,alpha vs")).unwrap();
    report(&results, false);
    // A bad line anywhere else is named.
    let mut lines: Vec<&str> = text.lines().collect();
    let broken = lines[2].replacen(',', ",x", 1);
    lines[2] = &broken;
    std::fs::write(&matches, lines.join("\n") + "\n").unwrap();
    let run = Arena::new().args(["report", results.to_str().unwrap()]).run().failure();
    assert_eq!(run.output.status.code(), Some(4), "{}", run.stderr());
    assert!(
        run.stderr().contains("matches.csv") && run.stderr().contains("line 3"),
        "{}",
        run.stderr()
    );
    // A folder that is no results folder.
    let run = Arena::new().args(["report", dir.path().to_str().unwrap()]).run().failure();
    assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("meta.json"), "{}", run.stderr());
}
