//! The reporter of `arena run` and `arena sprt`: the engine's events drawn on stderr — the start
//! line and a progress bar on a terminal, a plain line every few seconds in logs, CI and batch
//! jobs (opt-out with `-q`), and every warning as it comes (always).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::tournament::{Event, Reporter, Start, Unit};

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
}

struct PlainProgress {
    total: u64,
    unit: Unit,
    started: Instant,
    last: Instant,
}

impl Progress {
    pub(super) fn new(show: bool) -> Progress {
        Progress { show, state: Mutex::new(State::default()) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn start(&self, s: &Start) {
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

impl Reporter for Progress {
    fn event(&self, event: &Event) {
        match event {
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
