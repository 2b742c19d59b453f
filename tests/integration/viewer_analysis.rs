//! The analysis on the viewer's page (`arena view --analyze`, and a tournament's pages with
//! `analysis = true`), in a real browser: a blunder planted at a known turn is marked there with
//! its label, inaccuracies are marked apart from blunders, positions the solver did not settle are
//! marked unknown (never best), the legend shows, a mark jumps to its turn and says what the
//! decision was worth; the page is the same byte for byte for the same budget in positions; a game
//! without an exact solver is refused with one line; a tournament's pages add up to its
//! `analysis.csv`, and say so where the game has no solver. Screenshots:
//! `target/screenshots/analysis-*.png` (the Painters' one is also `docs/img/analysis.png`).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::browser;
use crate::support::{Arena, root, run_arena_file};
use crate::viewer::{ONE_BROWSER, open_clean, photograph};

/// A position won for the virus that one first cut throws away. Episode 2's virus cuts gateway
/// links only; node 1 is linked to both gateways, node 2 to gateway 3 alone. Cutting `1 3` or
/// `1 4` wins (the agent then never stands next to two gateway links at once); cutting `2 3`
/// leaves node 1 with both links, and the agent steps onto it and wins.
const PLANTED_MAP: &str = "# AGENT_START 0\n5 5 2\n0 1\n1 3\n1 4\n0 2\n2 3\n3\n4\n";

/// The planted match: a scripted virus cuts `2 3` (the blunder) then `1 3`, against the
/// CodinGame agent. Returns the replay.
fn planted_replay(dir: &Path) -> PathBuf {
    let map = dir.join("planted.txt");
    std::fs::write(&map, PLANTED_MAP).unwrap();
    let replay = dir.join("planted.jsonl");
    let script = root().join("tests/fixtures/bots/skynet_cuts.sh");
    Arena::new()
        .args([
            "play".to_string(),
            "skynet".into(),
            "--variant".into(),
            "ep2".into(),
            "--map".into(),
            map.display().to_string(),
            "--bot".into(),
            format!("virus=cmd:sh {} '2 3' '1 3'", script.display()),
            "--bot".into(),
            "agent=cg-ep2".into(),
            "--replay".into(),
            replay.display().to_string(),
        ])
        .run()
        .success();
    replay
}

/// `arena view REPLAY --analyze EXTRA... -o OUT`.
fn view_analyzed(replay: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec!["view".to_string(), replay.display().to_string(), "--analyze".into()];
    args.extend(extra.iter().map(ToString::to_string));
    args.extend(["-o".to_string(), out.display().to_string()]);
    Arena::new().args(args).run().success();
    out.to_path_buf()
}

/// The marks on the timeline: `[step, label, seat, sign]` each, in the page's order.
const MARKS: &str = "[...document.querySelectorAll('#marks .mark')].map(m => \
    [Number(m.dataset.step), m.dataset.label, Number(m.dataset.seat), m.textContent])";

/// What `arena analyze --json` rates other than `best`: `[step, label, seat]`, by step.
fn analyze_marks(replay: &Path, positions: &str) -> Vec<Value> {
    let run = Arena::new()
        .args(["analyze", replay.to_str().unwrap(), "--json", "--positions", positions])
        // Positions decide, never the clock: the same settles as the page's budget.
        .args(["--time-ms", "600000"])
        .run()
        .success();
    let report: Value = serde_json::from_str(&run.stdout()).unwrap();
    report["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["label"] != "best")
        .map(|d| json!([d["step"], d["label"], d["seat"]]))
        .collect()
}

#[test]
fn a_planted_blunder_is_marked_at_its_turn_and_a_mark_jumps_there() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let replay = planted_replay(dir.path());
    let page = view_analyzed(&replay, &dir.path().join("planted.html"), &[]);
    // The same replay and budget in positions: the same page, byte for byte.
    let again = view_analyzed(&replay, &dir.path().join("again.html"), &[]);
    assert!(
        std::fs::read(&page).unwrap() == std::fs::read(&again).unwrap(),
        "two pages of one replay differ"
    );
    let Some(mut b) = browser::launch() else { return };
    open_clean(&mut b, &page);

    // One mark: the virus's first cut, a blunder (`??`); the lost position's later moves and the
    // agent's winning walk are best.
    assert_eq!(b.eval(MARKS), json!([[1, "blunder", 0, "??"]]));
    let legend = b.eval("document.getElementById('marks-legend').innerText");
    assert!(legend.as_str().unwrap().contains("blunder"), "{legend}");
    assert!(b.eval("document.getElementById('marks-legend').offsetHeight").as_u64().unwrap() > 0);
    let seats = b.eval(
        "[...document.querySelectorAll('#analysis table.rated tr[data-seat]')].map(r => \
         [...r.cells].slice(1).map(c => c.textContent))",
    );
    assert_eq!(seats, json!([["virus", "50%", "1", "0", "0"], ["agent", "100%", "0", "0", "0"]]));

    // Selecting the mark from the end jumps to its turn and says what the decision was worth.
    b.eval("arenaViewer.goto(arenaViewer.count)");
    b.eval("document.querySelector('#marks .mark').click()");
    assert_eq!(b.eval("arenaViewer.index"), 1);
    assert_eq!(
        b.eval("document.querySelector('#marks .mark').classList.contains('current')"),
        true
    );
    let rating = b.eval("document.getElementById('rating').innerText");
    let rating = rating.as_str().unwrap();
    for expected in
        ["virus (cmd:", "blunder", "won by virus → won by agent", "played 2 3", "best 1 3, 1 4"]
    {
        assert!(rating.contains(expected), "the rating shows {rating:?}, not {expected:?}");
    }
    assert_eq!(b.eval("document.getElementById('rating').className"), "blunder");
    // Hovering shows the same in a card beside the mark.
    b.eval("document.querySelector('#marks .mark').dispatchEvent(new MouseEvent('mouseenter'))");
    let card = b.eval(
        "[document.getElementById('mark-card').hidden, document.getElementById('mark-card').innerText]",
    );
    assert_eq!(card[0], false);
    assert!(card[1].as_str().unwrap().contains("won by virus → won by agent"), "{card}");
    photograph(&mut b, "analysis-skynet-planted-blunder", None, None);
    b.eval("document.querySelector('#marks .mark').dispatchEvent(new MouseEvent('mouseleave'))");
    assert_eq!(b.eval("document.getElementById('mark-card').hidden"), true);

    // An unmarked step is rated best; the start gives the starting value.
    b.eval("arenaViewer.goto(2)");
    let rating = b.eval("document.getElementById('rating').innerText");
    assert!(rating.as_str().unwrap().contains("best"), "{rating}");
    b.eval("arenaViewer.goto(0)");
    let rating = b.eval("document.getElementById('rating').innerText");
    assert!(rating.as_str().unwrap().contains("at the start: won by virus"), "{rating}");
    // N and P go to the next and previous marked decision.
    for kind in ["keyDown", "keyUp"] {
        b.call("Input.dispatchKeyEvent", json!({"type": kind, "key": "n", "code": "KeyN"}));
    }
    assert_eq!(b.eval("arenaViewer.index"), 1);
    assert!(b.problems(0).is_empty(), "{:#?}", b.problems(0));
}

#[test]
fn inaccuracies_blunders_and_unsettled_positions_are_marked_apart() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    // One-ply greedy Alma against a random Berthe on a small board: both give points away.
    let replay = dir.path().join("painters.jsonl");
    Arena::new()
        .args(["play", "painters", "--gen", "size=5,blocked=0.1", "--seed", "12"])
        .args(["--bot", "alma=greedy", "--bot", "berthe=random", "--replay"])
        .args([replay.to_str().unwrap()])
        .run()
        .success();
    let page =
        view_analyzed(&replay, &dir.path().join("painters.html"), &["--positions", "1000000"]);
    let expected = analyze_marks(&replay, "1000000");
    let labels: Vec<&str> = expected.iter().map(|m| m[1].as_str().unwrap()).collect();
    assert!(
        labels.contains(&"blunder") && labels.contains(&"inaccuracy"),
        "the match has both kinds of mistake: {expected:?}"
    );
    let Some(mut b) = browser::launch() else { return };
    open_clean(&mut b, &page);
    let marks = b.eval(MARKS);
    let shown: Vec<Value> =
        marks.as_array().unwrap().iter().map(|m| json!([m[0], m[1], m[2]])).collect();
    assert_eq!(shown, expected, "the page marks what `arena analyze` rates");
    for m in marks.as_array().unwrap() {
        let sign = if m[1] == "blunder" { "??" } else { "?!" };
        assert_eq!(m[3], sign, "{m}");
    }
    // Two colours: a blunder's mark is not painted like an inaccuracy's.
    let colours = b.eval(
        "['blunder', 'inaccuracy'].map(l => getComputedStyle(document.querySelector('#marks .mark.' + l)).backgroundColor)",
    );
    assert_ne!(colours[0], colours[1], "{colours}");
    let legend =
        b.eval("[...document.querySelectorAll('#marks-legend li')].map(li => li.dataset.label)");
    assert_eq!(legend, json!(["blunder", "inaccuracy", "unknown"]));
    // An inaccuracy says how many points it lost.
    let step = expected.iter().find(|m| m[1] == "inaccuracy").unwrap()[0].as_u64().unwrap();
    b.eval(&format!("document.querySelector('#marks .mark[data-step=\"{step}\"]').click()"));
    assert_eq!(b.eval("arenaViewer.index"), step);
    let rating = b.eval("document.getElementById('rating').innerText");
    assert!(rating.as_str().unwrap().contains("point"), "{rating}");
    assert!(rating.as_str().unwrap().contains("inaccuracy -"), "{rating}");
    photograph(&mut b, "analysis-painters-inaccuracy", Some("analysis.png"), None);

    // A budget of one position settles little: what it does not settle is marked unknown, the
    // same as `arena analyze` says, and never shown as best.
    let starved = view_analyzed(&replay, &dir.path().join("starved.html"), &["--positions", "1"]);
    let expected = analyze_marks(&replay, "1");
    assert!(expected.iter().any(|m| m[1] == "unknown"), "{expected:?}");
    open_clean(&mut b, &starved);
    let marks = b.eval(MARKS);
    let shown: Vec<Value> =
        marks.as_array().unwrap().iter().map(|m| json!([m[0], m[1], m[2]])).collect();
    assert_eq!(shown, expected);
    let step = expected.iter().find(|m| m[1] == "unknown").unwrap()[0].as_u64().unwrap();
    b.eval(&format!("arenaViewer.goto({step})"));
    let rating = b.eval("document.getElementById('rating').innerText");
    let rating = rating.as_str().unwrap();
    assert!(rating.contains("unknown") && rating.contains("not settled"), "{rating}");
    assert!(!rating.to_lowercase().contains("\nbest\n"), "{rating}");
    assert!(b.problems(0).is_empty(), "{:#?}", b.problems(0));
}

#[test]
fn analyze_on_a_game_without_an_exact_solver_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, game) in [("risk-6-players.jsonl", "Risk"), ("skynet-ep1.jsonl", "Skynet Episode 1")]
    {
        let replay = root().join("tests/data/replays").join(name);
        let replay = if replay.exists() {
            replay
        } else {
            let made = dir.path().join(name);
            Arena::new()
                .args(["play", "skynet", "--variant", "ep1", "--seed", "1", "--replay"])
                .args([made.to_str().unwrap()])
                .run()
                .success();
            made
        };
        let out = dir.path().join("page.html");
        let run = Arena::new()
            .args(["view", replay.to_str().unwrap(), "--analyze", "-o", out.to_str().unwrap()])
            .run()
            .failure();
        assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
        let err = run.stderr();
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(&format!("no exact analysis exists for {game}")), "{err}");
        assert!(err.contains(name) && err.contains("without --analyze"), "{err}");
        assert!(!out.exists(), "no page written");
    }
    // --positions and --time-ms belong to --analyze.
    let replay = root().join("tests/data/replays/skynet-generated.jsonl");
    let run =
        Arena::new().args(["view", replay.to_str().unwrap(), "--positions", "5"]).run().failure();
    assert_eq!(run.output.status.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("--analyze"), "{}", run.stderr());
}

/// The page's embedded data, read back from its HTML.
fn embedded(page: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html.find("<script id=\"replay-data\" type=\"application/json\">").unwrap();
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}

#[test]
fn a_tournament_with_analysis_draws_pages_whose_marks_add_up_to_its_analysis_csv() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("planted.txt"), PLANTED_MAP).unwrap();
    let text = format!(
        "name = \"rated\"\ngame = \"skynet\"\nvariant = \"ep2\"\nseed = 5\n\
         games_per_pairing = 12\nanalysis = true\nreplays = \"all\"\n\
         [maps]\nfiles = [\"{}\"]\n\
         [[bots]]\nname = \"blind\"\nspec = \"random\"\nroles = [\"virus\"]\n\
         [[bots]]\nname = \"cg\"\nspec = \"cg-ep2\"\nroles = [\"agent\"]\n",
        dir.path().join("planted.txt").display()
    );
    let results = run_arena_file(dir.path(), "rated", &text);
    Arena::new().args(["report", results.to_str().unwrap(), "--views"]).run().success();
    let csv = std::fs::read_to_string(results.join("analysis.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let mut blunders_seen = 0;
    for line in csv.lines().skip(1) {
        let row: Vec<&str> = line.split(',').collect();
        let page = results.join(format!("replays/{}.html", row[col("match")]));
        let data = embedded(&page);
        let seat: u64 = row[col("seat")].parse().unwrap();
        let decisions =
            data["analysis"]["decisions"].as_array().expect("the page has the analysis");
        let count = |label: &str| {
            decisions
                .iter()
                .filter(|d| d["seat"] == seat && d["label"] == label)
                .count()
                .to_string()
        };
        for (column, label) in [
            ("blunders", "blunder"),
            ("inaccuracies", "inaccuracy"),
            ("unknown", "unknown"),
            ("best", "best"),
        ] {
            assert_eq!(count(label), row[col(column)], "{line}: {column} in {}", page.display());
        }
        blunders_seen += row[col("blunders")].parse::<u32>().unwrap();
    }
    assert!(blunders_seen > 0, "a random virus throws the planted win away at least once:\n{csv}");
}

#[test]
fn a_tournament_page_of_a_game_without_a_solver_says_no_analysis_exists() {
    let _one = ONE_BROWSER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "name = \"risky\"\ngame = \"risk\"\nseed = 1\ngames_per_pairing = 1\nanalysis = true\n\
         replays = \"all\"\n[options]\nplayers = 2\n[maps]\nfiles = [\"{}\"]\n\
         [[bots]]\nname = \"greedy\"\n[[bots]]\nname = \"random\"\n",
        root().join("arenas/maps/risk/classic.txt").display()
    );
    let results = run_arena_file(dir.path(), "risky", &text);
    Arena::new().args(["report", results.to_str().unwrap(), "--views"]).run().success();
    let matches = std::fs::read_to_string(results.join("matches.csv")).unwrap();
    let id = matches.lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    let page = results.join(format!("replays/{id}.html"));
    let Some(mut b) = browser::launch() else { return };
    open_clean(&mut b, &page);
    let shown = b.eval(
        "[document.getElementById('no-analysis').textContent, \
          document.querySelectorAll('#marks, .mark').length]",
    );
    assert!(shown[0].as_str().unwrap().contains("no exact analysis exists for Risk"), "{shown}");
    assert_eq!(shown[1], 0, "no marks without a solver");
    assert!(b.problems(0).is_empty(), "{:#?}", b.problems(0));
}
