//! A bot's stderr, drained all the time on the runtime into a capped tail: a bot must never block
//! on a full stderr pipe (it would then miss its turns for a reason of arena's making), and the
//! last lines it wrote explain its failure in the match result, whatever it wrote before.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

use super::runtime::runtime;

/// The longest stderr line kept in the tail; longer lines are cut, with a marker.
const STDERR_LINE_CAP: usize = 1024;

/// The last lines a bot wrote to stderr, filled as long as its stderr is open.
#[derive(Debug)]
pub(super) struct StderrTail {
    lines: Mutex<TailLines>,
    closed: Condvar,
}

impl StderrTail {
    /// Starts draining `stderr` on the runtime, keeping the last `capacity` lines.
    pub(super) fn drain(stderr: ChildStderr, capacity: usize) -> Arc<StderrTail> {
        let tail = Arc::new(StderrTail {
            lines: Mutex::new(TailLines::new(capacity)),
            closed: Condvar::new(),
        });
        runtime().spawn(drain(stderr, Arc::clone(&tail)));
        tail
    }

    /// The last `n` lines, the unfinished one included.
    pub(super) fn lines(&self, n: usize) -> Vec<String> {
        self.lock().last(n)
    }

    /// Waits up to `limit` for stderr to close (a dead bot's last words to arrive).
    pub(super) fn wait_closed(&self, limit: Duration) {
        let guard = self.lock();
        let _ = self.closed.wait_timeout_while(guard, limit, |t| !t.closed);
    }

    /// The lines stay valid even if a holder panicked.
    fn lock(&self) -> MutexGuard<'_, TailLines> {
        self.lines.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Reads a bot's stderr until it closes.
async fn drain(mut stderr: ChildStderr, tail: Arc<StderrTail>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => tail.lock().push(&buf[..n]),
        }
    }
    tail.lock().closed = true;
    tail.closed.notify_all();
}

#[derive(Debug)]
struct TailLines {
    lines: VecDeque<String>,
    capacity: usize,
    partial: Vec<u8>,
    partial_cut: bool,
    closed: bool,
}

impl TailLines {
    fn new(capacity: usize) -> TailLines {
        TailLines {
            lines: VecDeque::new(),
            capacity,
            partial: Vec::new(),
            partial_cut: false,
            closed: false,
        }
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

    #[test]
    fn a_tail_of_zero_lines_keeps_nothing_but_the_unfinished_line() {
        let mut tail = TailLines::new(0);
        tail.push(b"one\ntwo\nthr");
        assert_eq!(tail.last(5), vec!["thr"]);
    }
}
