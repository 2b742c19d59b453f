//! The reporter of `arena run` and `arena sprt`: the engine's events drawn on stderr — the start
//! line and a progress bar on a terminal, a plain line every few seconds in logs, CI and batch
//! jobs (opt-out with `-q`), and every warning as it comes (always).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::tournament::{Event, Leaderboard, Reporter, Start, Unit, Update};

/// Draws the events of one run or test on stderr.
pub(super) struct Progress {
    /// Whether to draw the start and the progress (`-q` turns it off; warnings stay).
    show: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    bar: Option<indicatif::ProgressBar>,
    plain: Option<PlainProgress>,
    /// The lines of the league's table drawn last on a terminal (redrawn in place).
    board_lines: usize,
    /// When the league's standings were last written as a plain line.
    board_at: Option<Instant>,
}

struct PlainProgress {
    total: u64,
    unit: Unit,
    started: Instant,
    last: Instant,
}

/// What an edit of the arena changed, in one line: `12 new matches (bot `v7` added), 40 played
/// again (`v6` changed: files), 600 kept; 30 rows of retired bots archived (`v3`) in
/// results/x/archive/001`. `None` when the folder's rows were all carried over unchanged and
/// nothing is new.
pub(super) fn update_line(u: &Update, to_play: u64) -> Option<String> {
    if u.is_empty() {
        return None;
    }
    let quoted = |names: &mut dyn Iterator<Item = &String>| {
        names.map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    };
    let again = u.replaced.min(to_play);
    let mut line = format!("{} new matches", to_play - again);
    if !u.added.is_empty() {
        let s = if u.added.len() == 1 { "" } else { "s" };
        line += &format!(" (bot{s} {} added)", quoted(&mut u.added.iter()));
    }
    if !u.changed.is_empty() {
        let changed: Vec<String> =
            u.changed.iter().map(|c| format!("`{}` {}", c.bot, c.what.join(", "))).collect();
        line += &format!(", {again} played again ({} changed)", changed.join("; "));
    }
    line += &format!(", {} kept", u.kept);
    if !u.retired.is_empty() {
        line += &format!(
            "; {} rows of retired {} archived",
            u.of_retired,
            quoted(&mut u.retired.iter())
        );
    }
    if u.unplanned > 0 {
        line += &format!("; {} rows no longer planned archived", u.unplanned);
    }
    if let Some(archive) = &u.archive {
        line += &format!(" in {}", archive.display());
    }
    Some(line)
}

impl Progress {
    pub(super) fn new(show: bool) -> Progress {
        Progress { show, state: Mutex::new(State::default()) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn start(&self, s: &Start) {
        if let Some(line) = s.update.as_ref().and_then(|u| update_line(u, s.to_play)) {
            eprintln!("{}: {line}", s.arena);
        }
        if s.command == "run" {
            eprintln!(
                "{}: {} matches planned{}, {} already played, {} to play on {} threads -> {}",
                s.arena,
                s.planned,
                s.shard
                    .as_ref()
                    .map(|k| format!(" (shard {k}: {})", s.in_shard))
                    .unwrap_or_default(),
                s.resumed,
                s.to_play,
                s.concurrency,
                s.results.display()
            );
        }
        if s.to_play == 0 {
            return;
        }
        let mut state = self.state();
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(s.to_play);
            let template = format!(
                "{{bar:40.cyan/blue}} {{pos}}/{{len}} {}  {{rate}}  ETA {{eta}}",
                s.unit.plural()
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(&template)
                    .expect("a valid template")
                    // indicatif's own `{per_sec}` prints four decimals (`7,506.7918/s`).
                    .with_key(
                        "rate",
                        |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = write!(w, "{:.1}/s", state.per_sec());
                        },
                    ),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            state.bar = Some(bar);
        } else {
            let now = Instant::now();
            state.plain =
                Some(PlainProgress { total: s.to_play, unit: s.unit, started: now, last: now });
        }
    }

    fn progress(&self, done: u64) {
        let mut state = self.state();
        if let Some(bar) = &state.bar {
            bar.set_position(done);
        }
        if let Some(p) = &mut state.plain
            && (p.last.elapsed() >= Duration::from_secs(5) || done == p.total)
        {
            p.last = Instant::now();
            let secs = p.started.elapsed().as_secs_f64().max(1e-9);
            let rate = done as f64 / secs;
            let eta = p.total.saturating_sub(done) as f64 / rate.max(1e-9);
            eprintln!(
                "progress: {done}/{} {}, {rate:.1}/s, ETA {eta:.0}s",
                p.total,
                p.unit.plural()
            );
        }
    }

    /// Clears the bar, so what is printed next starts on a line of its own.
    fn finish(&self) {
        let mut state = self.state();
        if let Some(bar) = state.bar.take() {
            bar.finish_and_clear();
        }
        state.plain = None;
    }
}

impl Progress {
    /// A running league's standings: on a terminal the table redrawn in place (above the bar),
    /// elsewhere one line every few seconds.
    fn leaderboard(&self, board: &Leaderboard) {
        let mut state = self.state();
        if std::io::stderr().is_terminal() {
            let table: String = super::render::standings(&board.standings)
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(|l| format!("{l}\n"))
                .collect();
            let text = format!("league: {} matches\n{table}", board.matches);
            let up = state.board_lines;
            let draw = || {
                if up > 0 {
                    // Back to the table drawn last, and clear it.
                    eprint!("\x1b[{up}A\x1b[J");
                }
                eprint!("{text}");
            };
            match &state.bar {
                Some(bar) => bar.suspend(draw),
                None => draw(),
            }
            state.board_lines = text.lines().count();
        } else if state.board_at.is_none_or(|t| t.elapsed() >= Duration::from_secs(5)) {
            state.board_at = Some(Instant::now());
            let leaders: Vec<String> = board
                .standings
                .bots
                .iter()
                .filter(|b| b.games > 0)
                .map(|b| {
                    let rating =
                        if b.elo.is_finite() { format!("{:+.0}", b.elo) } else { "?".into() };
                    let margin = if b.elo_margin.is_finite() {
                        format!(" ± {:.0}", b.elo_margin)
                    } else {
                        String::new()
                    };
                    format!("{} {rating}{margin} ({} games)", b.bot, b.games)
                })
                .collect();
            eprintln!("league: {} matches; {}", board.matches, leaders.join(", "));
        }
    }
}

impl Reporter for Progress {
    fn event(&self, event: &Event) {
        match event {
            Event::Leaderboard(board) if self.show => self.leaderboard(board),
            Event::Started(start) if self.show => self.start(start),
            Event::Progress { done, .. } if self.show => self.progress(*done),
            Event::Finished => self.finish(),
            Event::Warning(warning) => {
                // Above the bar, not through it.
                match &self.state().bar {
                    Some(bar) => bar.suspend(|| eprintln!("warning: {warning}")),
                    None => eprintln!("warning: {warning}"),
                }
            }
            _ => {}
        }
    }
}
