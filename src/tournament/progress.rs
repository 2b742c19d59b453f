//! Progress of a run or a test on stderr, opt-in (`-q` turns it off): a bar on a terminal, a
//! plain line every few seconds in logs, CI and batch jobs.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Progress on stderr: a bar with the count, the rate and the time left on a terminal, a plain
/// line every few seconds otherwise (logs, CI, Slurm).
pub(crate) struct Progress {
    bar: Option<indicatif::ProgressBar>,
    plain: Option<Mutex<PlainProgress>>,
}

struct PlainProgress {
    total: u64,
    done: u64,
    started: Instant,
    last: Instant,
}

impl Progress {
    pub(crate) fn new(total: u64, enabled: bool) -> Progress {
        if !enabled || total == 0 {
            return Progress { bar: None, plain: None };
        }
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40.cyan/blue} {pos}/{len} matches  {rate}  ETA {eta}",
                )
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
            Progress { bar: Some(bar), plain: None }
        } else {
            let now = Instant::now();
            Progress {
                bar: None,
                plain: Some(Mutex::new(PlainProgress { total, done: 0, started: now, last: now })),
            }
        }
    }

    pub(crate) fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let Some(plain) = &self.plain {
            let mut p = plain.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            p.done += 1;
            if p.last.elapsed() >= Duration::from_secs(5) || p.done == p.total {
                p.last = Instant::now();
                let secs = p.started.elapsed().as_secs_f64().max(1e-9);
                let rate = p.done as f64 / secs;
                let eta = (p.total - p.done) as f64 / rate.max(1e-9);
                eprintln!(
                    "progress: {}/{} matches, {:.1}/s, ETA {:.0}s",
                    p.done, p.total, rate, eta
                );
            }
        }
    }

    /// Clears the bar, so the tables printed next start on a line of their own.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
