//! The pages people look at, timed in a real headless Chromium: `cargo bench --bench viewer`.
//!
//! Figures printed, against the targets of the viewer's design:
//! - stepping through a 1,000-action Risk replay (six players), every step forwards then
//!   backwards with the layout it causes: median, p95 and worst step (target: within a 33 ms
//!   frame);
//! - a tournament report of 10,000 matches: its size (target under 5 MB) and the time until the
//!   page's load event (target under 2 s).
//!
//! The tests check what the pages show; timing lives here, so a busy test machine cannot fail
//! the suite. Needs `chromium` on the PATH.

// The tests' browser driver; the bench uses only part of it.
#[allow(dead_code)]
#[path = "../tests/integration/browser.rs"]
mod browser;

use std::path::{Path, PathBuf};
use std::process::Command;

fn arena(args: &[&str], dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the arena binary runs");
    assert!(out.status.success(), "arena {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn risk_steps(b: &mut browser::Browser, dir: &Path) {
    let replay = root().join("tests/data/replays/risk-6-players.jsonl");
    let page = dir.join("risk.html");
    arena(&["view", replay.to_str().unwrap(), "-o", page.to_str().unwrap()], dir);
    b.open(&page);
    let times = b.eval(
        "arenaViewer.setPov(0); const t = []; \
         const step = (i) => { const a = performance.now(); arenaViewer.goto(i); \
           document.getElementById('side').getBoundingClientRect(); \
           document.body.offsetHeight; t.push(performance.now() - a); }; \
         for (let i = 0; i <= arenaViewer.count; i++) step(i); \
         for (let i = arenaViewer.count; i >= 0; i--) step(i); \
         t.sort((x, y) => x - y); \
         [t.length, t[Math.floor(t.length / 2)], t[Math.floor(t.length * 0.95)], t[t.length - 1]]",
    );
    let [steps, median, p95, max] = [0, 1, 2, 3].map(|i| times[i].as_f64().unwrap());
    let verdict = if p95 < 33.0 { "within" } else { "OVER" };
    println!(
        "risk viewer, {steps} steps: median {median:.2} ms, p95 {p95:.2} ms, max {max:.2} ms \
         ({verdict} the 33 ms frame at p95)"
    );
}

fn big_report(b: &mut browser::Browser, dir: &Path) {
    let maps = root().join("arenas/maps/skynet");
    // Two bots in both roles and a virus-only one: 4 matches per game, 10,000 in all.
    let text = format!(
        "name = \"viewed\"\ngame = \"skynet\"\nseed = 3\ngames_per_pairing = 2500\n\
         [maps]\nfiles = [\"{0}/ep2_01.txt\", \"{0}/ep2_02.txt\", \"{0}/ep2_03.txt\"]\n\
         [[bots]]\nname = \"alpha\"\nspec = \"random\"\n\
         [[bots]]\nname = \"beta\"\nspec = \"random\"\n\
         [[bots]]\nname = \"gamma\"\nspec = \"random\"\nroles = [\"virus\"]\n",
        maps.display()
    );
    std::fs::write(dir.join("viewed.toml"), text).unwrap();
    arena(&["run", "viewed.toml", "-q"], dir);
    let page = dir.join("results/viewed/report.html");
    let size = std::fs::metadata(&page).expect("report.html is written").len();
    b.open(&page);
    let load =
        b.eval("performance.getEntriesByType('navigation')[0].loadEventEnd").as_f64().unwrap();
    let rows = b.eval("window.arenaReport.rows");
    println!(
        "report of {rows} matches: {:.2} MB (target < 5 MB), loaded in {load:.0} ms (target < 2000 ms)",
        size as f64 / 1e6
    );
}

fn main() {
    let Some(mut b) = browser::launch() else { return };
    let dir = tempfile::tempdir().expect("a temporary folder");
    risk_steps(&mut b, dir.path());
    big_report(&mut b, dir.path());
}
