//! A bot's stderr, read all the time (a bot must never block on a full stderr pipe: it would then
//! miss its turns for a reason of arena's making) into two records:
//!
//! - a capped tail of its last lines, which explain a failure in the match's result;
//! - the text of each decision: what it wrote from the end of its previous decision (or its
//!   start) to the end of this one, capped per decision and per match with the cut marked, and
//!   the metrics its `@metric` lines reported ([`crate::bot::log`]).
//!
//! Two readers share the pipe under one lock: the runtime reads whatever arrives, whenever it
//! arrives, and the match thread, when a decision ends (its answer read), reads what is left in
//! the pipe at that instant. So every byte the bot wrote before its answer is that decision's,
//! whichever reader took it, and nothing it writes later is.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

use super::runtime::runtime;
use crate::bot::log::{TurnLog, read_metric_line};

/// The longest stderr line kept in the tail; longer lines are cut, with a marker.
const STDERR_LINE_CAP: usize = 1024;

/// The longest line read as a metric line; a longer one is not one.
const METRIC_LINE_CAP: usize = 4096;

/// How much of a bot's stderr is kept with its decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CaptureLimits {
    /// At most this many bytes per decision.
    pub(super) turn_bytes: usize,
    /// At most this many bytes over the whole match; 0 (or a `turn_bytes` of 0) keeps none.
    pub(super) match_bytes: usize,
}

/// A bot's stderr: its tail and the current decision's text, filled as long as it is open.
#[derive(Debug)]
pub(super) struct StderrLog {
    /// The read end, non-blocking, read under `state`'s lock.
    pipe: File,
    state: Mutex<LogState>,
    closed: Condvar,
}

#[derive(Debug)]
struct LogState {
    tail: TailLines,
    turn: TurnCapture,
    closed: bool,
}

impl StderrLog {
    /// Starts reading `stderr` on the runtime, keeping the last `tail_lines` lines and each
    /// decision's text within `limits`.
    pub(super) fn drain(
        stderr: OwnedFd,
        tail_lines: usize,
        limits: CaptureLimits,
    ) -> std::io::Result<Arc<StderrLog>> {
        let pipe = super::io::nonblocking(stderr)?;
        let _enter = runtime().enter();
        let copy = OwnedFd::from(pipe.try_clone()?);
        // SAFETY: the AsyncFd owns `copy`, which stays open as long as it is registered.
        #[allow(unsafe_code)]
        let watched = unsafe { AsyncFd::register_with_interest(copy, Interest::READABLE)? };
        let log = Arc::new(StderrLog {
            pipe,
            state: Mutex::new(LogState {
                tail: TailLines::new(tail_lines),
                turn: TurnCapture::new(limits),
                closed: false,
            }),
            closed: Condvar::new(),
        });
        runtime().spawn(watch(watched, Arc::clone(&log)));
        Ok(log)
    }

    /// Ends the current decision: reads what the pipe holds now, and returns what the decision
    /// wrote (the next one starts empty).
    pub(super) fn end_decision(&self) -> TurnLog {
        let mut state = self.lock();
        self.pull(&mut state);
        state.turn.take()
    }

    /// The last `n` lines, the unfinished one included.
    pub(super) fn lines(&self, n: usize) -> Vec<String> {
        self.lock().tail.last(n)
    }

    /// Waits up to `limit` for stderr to close (a dead bot's last words to arrive).
    pub(super) fn wait_closed(&self, limit: Duration) {
        let guard = self.lock();
        let _ = self.closed.wait_timeout_while(guard, limit, |s| !s.closed);
    }

    /// Reads until the pipe is empty or closed.
    fn pull(&self, state: &mut LogState) {
        let mut buf = [0u8; 16 * 1024];
        while !state.closed {
            match (&self.pipe).read(&mut buf) {
                Ok(0) => {
                    state.closed = true;
                    self.closed.notify_all();
                }
                Ok(n) => {
                    state.tail.push(&buf[..n]);
                    state.turn.push(&buf[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    state.closed = true;
                    self.closed.notify_all();
                }
            }
        }
    }

    /// The state stays valid even if a holder panicked.
    fn lock(&self) -> MutexGuard<'_, LogState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Reads a bot's stderr whenever it becomes readable, until it closes.
async fn watch(watched: AsyncFd<OwnedFd>, log: Arc<StderrLog>) {
    loop {
        let Ok(mut ready) = watched.readable().await else { break };
        let closed = {
            let mut state = log.lock();
            log.pull(&mut state);
            state.closed
        };
        if closed {
            break;
        }
        // Only the readiness this wake saw is cleared: bytes that arrived since wake it again.
        ready.clear_ready();
    }
}

/// The current decision's stderr, within the caps, and its metrics.
#[derive(Debug)]
struct TurnCapture {
    limits: CaptureLimits,
    kept: Vec<u8>,
    /// Bytes of this decision beyond a cap.
    cut: u64,
    /// Whether the match's cap (rather than the decision's) cut them.
    cut_by_match: bool,
    /// Bytes kept in the whole match.
    match_kept: usize,
    /// The unfinished line, for metrics; `None` once it is too long to be one.
    line: Option<Vec<u8>>,
    metrics: BTreeMap<String, f64>,
}

impl TurnCapture {
    fn new(limits: CaptureLimits) -> TurnCapture {
        TurnCapture {
            limits,
            kept: Vec::new(),
            cut: 0,
            cut_by_match: false,
            match_kept: 0,
            line: Some(Vec::new()),
            metrics: BTreeMap::new(),
        }
    }

    fn keeps_text(&self) -> bool {
        self.limits.turn_bytes > 0 && self.limits.match_bytes > 0
    }

    fn push(&mut self, data: &[u8]) {
        if self.keeps_text() {
            let turn_room = self.limits.turn_bytes.saturating_sub(self.kept.len());
            let match_room = self.limits.match_bytes.saturating_sub(self.match_kept);
            let n = data.len().min(turn_room).min(match_room);
            self.kept.extend_from_slice(&data[..n]);
            self.match_kept += n;
            if n < data.len() {
                self.cut += (data.len() - n) as u64;
                self.cut_by_match |= match_room < turn_room;
            }
        }
        let mut rest = data;
        while !rest.is_empty() {
            let (part, ended) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            if let Some(line) = &mut self.line {
                if line.len() + part.len() > METRIC_LINE_CAP {
                    self.line = None;
                } else {
                    line.extend_from_slice(part);
                }
            }
            let Some(next) = ended else { break };
            if let Some(line) = self.line.replace(Vec::new()) {
                let text = String::from_utf8_lossy(&line);
                read_metric_line(text.trim_end_matches('\r'), &mut self.metrics);
            }
            rest = &rest[next..];
        }
    }

    /// The decision's log; the next decision starts empty (the unfinished line goes on).
    fn take(&mut self) -> TurnLog {
        let metrics = std::mem::take(&mut self.metrics);
        let (kept, cut) = (std::mem::take(&mut self.kept), std::mem::replace(&mut self.cut, 0));
        let by_match = std::mem::replace(&mut self.cut_by_match, false);
        if kept.is_empty() && cut == 0 {
            return TurnLog { stderr: None, metrics };
        }
        let mut text = String::from_utf8_lossy(&kept).into_owned();
        if cut > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            let cap = if by_match {
                format!(
                    "the match's {} bytes (stderr_match_bytes) are used up",
                    self.limits.match_bytes
                )
            } else {
                format!("{} bytes a decision (stderr_turn_bytes)", self.limits.turn_bytes)
            };
            text.push_str(&format!("[arena: {cut} more bytes not kept: {cap}]\n"));
        }
        TurnLog { stderr: Some(text), metrics }
    }
}

#[derive(Debug)]
struct TailLines {
    lines: VecDeque<String>,
    capacity: usize,
    partial: Vec<u8>,
    partial_cut: bool,
}

impl TailLines {
    fn new(capacity: usize) -> TailLines {
        TailLines { lines: VecDeque::new(), capacity, partial: Vec::new(), partial_cut: false }
    }

    fn push(&mut self, mut data: &[u8]) {
        while let Some(i) = data.iter().position(|&b| b == b'\n') {
            self.extend_partial(&data[..i]);
            self.end_line();
            data = &data[i + 1..];
        }
        self.extend_partial(data);
    }

    fn extend_partial(&mut self, data: &[u8]) {
        let room = STDERR_LINE_CAP.saturating_sub(self.partial.len());
        self.partial.extend_from_slice(&data[..data.len().min(room)]);
        self.partial_cut |= data.len() > room;
    }

    fn end_line(&mut self) {
        if self.capacity == 0 {
            self.partial.clear();
            self.partial_cut = false;
            return;
        }
        // Recycle the oldest line's allocation: a chatty bot costs no allocation per line.
        let mut line = if self.lines.len() >= self.capacity {
            self.lines.pop_front().unwrap_or_default()
        } else {
            String::new()
        };
        line.clear();
        let partial = self.partial.strip_suffix(b"\r").unwrap_or(&self.partial);
        line.push_str(&String::from_utf8_lossy(partial));
        if self.partial_cut {
            line.push_str(" [...]");
        }
        self.lines.push_back(line);
        self.partial.clear();
        self.partial_cut = false;
    }

    /// The last `n` lines, the unfinished one included.
    fn last(&self, n: usize) -> Vec<String> {
        let mut lines: Vec<String> = self.lines.iter().cloned().collect();
        if !self.partial.is_empty() {
            lines.push(String::from_utf8_lossy(&self.partial).into_owned());
        }
        let skip = lines.len().saturating_sub(n);
        lines.split_off(skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_lines_and_cuts_long_ones() {
        let mut tail = TailLines::new(3);
        tail.push(b"one\ntwo\nthr");
        tail.push(b"ee\nfour\r\nfi");
        assert_eq!(tail.last(3), vec!["three", "four", "fi"]);
        assert_eq!(tail.last(10), vec!["two", "three", "four", "fi"]);
        let long = vec![b'x'; STDERR_LINE_CAP * 3];
        tail.push(&long);
        tail.push(b"\n");
        let last = tail.last(1).pop().unwrap();
        assert!(last.starts_with("fix") && last.ends_with(" [...]"), "{}", &last[..10]);
        assert!(last.len() < STDERR_LINE_CAP + 10);
    }

    fn capture(turn_bytes: usize, match_bytes: usize) -> TurnCapture {
        TurnCapture::new(CaptureLimits { turn_bytes, match_bytes })
    }

    #[test]
    fn each_decision_gets_what_was_written_since_the_last_one_with_its_metrics() {
        let mut turn = capture(100, 1000);
        turn.push(b"thinking\n@metric depth=3 nodes=");
        turn.push(b"40\n@metric depth=5\r\nhalf a li");
        let first = turn.take();
        assert_eq!(
            first.stderr.as_deref(),
            Some("thinking\n@metric depth=3 nodes=40\n@metric depth=5\r\nhalf a li")
        );
        assert_eq!(first.metrics, BTreeMap::from([("depth".into(), 5.0), ("nodes".into(), 40.0)]));
        // The unfinished line goes on into the next decision; an empty decision has no text.
        turn.push(b"ne\n");
        assert_eq!(turn.take().stderr.as_deref(), Some("ne\n"));
        assert_eq!(turn.take(), TurnLog::default());
    }

    #[test]
    fn the_caps_cut_a_decision_and_the_match_and_say_so() {
        let mut turn = capture(10, 25);
        turn.push(b"0123456789abcdef\n@metric late=1\n");
        let first = turn.take();
        assert_eq!(
            first.stderr.as_deref(),
            Some(
                "0123456789\n[arena: 22 more bytes not kept: 10 bytes a decision (stderr_turn_bytes)]\n"
            )
        );
        assert_eq!(first.metrics["late"], 1.0, "a metric beyond the cap still counts");
        turn.push(b"0123456789");
        assert_eq!(turn.take().stderr.as_deref(), Some("0123456789"));
        turn.push(b"0123456789");
        let third = turn.take().stderr.unwrap();
        assert!(
            third.starts_with("01234\n[arena: 5 more bytes not kept: the match's 25 bytes"),
            "{third}"
        );
        turn.push(b"x");
        assert!(
            turn.take().stderr.unwrap().starts_with("[arena: 1 more bytes not kept: the match's")
        );
    }

    #[test]
    fn a_capture_of_zero_bytes_keeps_no_text_but_the_metrics() {
        for (turn_bytes, match_bytes) in [(0, 1000), (100, 0)] {
            let mut turn = capture(turn_bytes, match_bytes);
            turn.push(b"noise\n@metric depth=2\n");
            let log = turn.take();
            assert_eq!(log.stderr, None);
            assert_eq!(log.metrics["depth"], 2.0);
        }
    }

    #[test]
    fn a_very_long_line_is_no_metric_line() {
        let mut turn = capture(10, 10);
        turn.push(&[b'x'; METRIC_LINE_CAP + 1]);
        turn.push(b"@metric a=1\n@metric b=2\n");
        assert_eq!(turn.take().metrics, BTreeMap::from([("b".into(), 2.0)]));
    }

    #[test]
    fn a_tail_of_zero_lines_keeps_nothing_but_the_unfinished_line() {
        let mut tail = TailLines::new(0);
        tail.push(b"one\ntwo\nthr");
        assert_eq!(tail.last(5), vec!["thr"]);
    }
}
