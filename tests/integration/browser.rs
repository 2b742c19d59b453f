//! A headless Chromium driven over the DevTools protocol, for the tests of the HTML pages.
//!
//! The protocol runs over `--remote-debugging-pipe` (NUL-terminated JSON on file descriptors 3 and
//! 4), so no port is opened and no websocket or driver crate is needed. Every console message,
//! uncaught exception, log entry and network request of the page is recorded, so a test can
//! assert that a page loads cleanly and fetches nothing.
//!
//! Without a `chromium` on the PATH the browser tests fail with the install command, unless
//! `ARENA_SKIP_BROWSER=1` says to skip them.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The laptop screen the pages are checked and photographed on.
pub(crate) const WIDTH: u32 = 1366;
pub(crate) const HEIGHT: u32 = 768;

const TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) struct Browser {
    child: Child,
    to_browser: std::fs::File,
    from_browser: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Every event received, in order.
    pub events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// The browser the tests use, or `None` when it is missing and `ARENA_SKIP_BROWSER=1`.
pub(crate) fn launch() -> Option<Browser> {
    let chromium = ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|name| {
        Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success())
    });
    let Some(chromium) = chromium else {
        if std::env::var("ARENA_SKIP_BROWSER").as_deref() == Ok("1") {
            eprintln!("skipping a browser test: no chromium (ARENA_SKIP_BROWSER=1)");
            return None;
        }
        panic!(
            "the viewer tests need a headless Chromium: install it with \
             `apt-get install -y chromium` (Debian/Ubuntu) or `brew install --cask chromium`, \
             or set ARENA_SKIP_BROWSER=1 to skip these tests"
        );
    };
    Some(Browser::start(chromium))
}

impl Browser {
    fn start(program: &str) -> Browser {
        let profile = tempfile::tempdir().expect("a profile folder");
        // Close-on-exec, so no other process the tests start inherits them.
        let pipe = || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("a pipe");
        let (from_us, to_browser) = pipe();
        let (from_browser, to_us) = pipe();
        let (to_browser, mut from_browser) =
            (std::fs::File::from(to_browser), std::fs::File::from(from_browser));
        use std::os::fd::AsRawFd;
        let (read_fd, write_fd) = (from_us.as_raw_fd(), to_us.as_raw_fd());
        let mut command = Command::new(program);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            // Chromium puts its singleton socket in a folder of its own under the temporary
            // folder and removes it only when it exits cleanly; the drop below kills it, so
            // that folder goes inside the profile, which the drop removes.
            .env("TMPDIR", profile.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group, so the drop below ends the renderers too.
            .process_group(0);
        // SAFETY: between fork and exec only async-signal-safe calls (fcntl, dup2, close). The
        // pipe ends go through spare descriptors first, so a pipe end that already is 3 or 4
        // is not closed by the other's dup2.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(move || {
                let spare_read = libc::fcntl(read_fd, libc::F_DUPFD, 10);
                let spare_write = libc::fcntl(write_fd, libc::F_DUPFD, 10);
                if spare_read < 0
                    || spare_write < 0
                    || libc::dup2(spare_read, 3) < 0
                    || libc::dup2(spare_write, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(spare_read);
                libc::close(spare_write);
                Ok(())
            });
        }
        let child = command.spawn().expect("chromium starts");
        drop((from_us, to_us));
        let (sender, receiver) = channel();
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                let n = match from_browser.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&chunk[..n]);
                while let Some(end) = pending.iter().position(|&b| b == 0) {
                    let message: Vec<u8> = pending.drain(..=end).collect();
                    let value: Value = serde_json::from_slice(&message[..end]).expect("JSON");
                    if sender.send(value).is_err() {
                        return;
                    }
                }
            }
        });
        let mut browser = Browser {
            child,
            to_browser,
            from_browser: receiver,
            next_id: 0,
            session: String::new(),
            events: Vec::new(),
            _profile: profile,
        };
        let target = browser.call_browser("Target.createTarget", json!({"url": "about:blank"}));
        let target_id = target["targetId"].as_str().expect("a target id").to_string();
        let attached = browser
            .call_browser("Target.attachToTarget", json!({"targetId": target_id, "flatten": true}));
        browser.session = attached["sessionId"].as_str().expect("a session").to_string();
        for domain in ["Page.enable", "Runtime.enable", "Network.enable", "Log.enable"] {
            browser.call(domain, json!({}));
        }
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": false}),
        );
        browser
    }

    fn send(&mut self, method: &str, params: Value, session: bool) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if session {
            message["sessionId"] = Value::String(self.session.clone());
        }
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        self.to_browser.write_all(&bytes).expect("chromium reads its pipe");
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from_browser.recv_timeout(left) {
                Ok(reply) if reply["id"] == id => {
                    if let Some(error) = reply.get("error") {
                        panic!("{method} failed: {error}");
                    }
                    return reply["result"].clone();
                }
                Ok(event) => self.events.push(event),
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {method} in {TIMEOUT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium went away during {method}"),
            }
        }
    }

    fn call_browser(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, false)
    }

    /// A command to the page.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, true)
    }

    /// Waits for an event of the page (one received earlier counts), returning its parameters.
    fn wait_for(&mut self, method: &str, since: usize) -> Value {
        if let Some(e) = self.events[since..].iter().find(|e| e["method"] == method) {
            return e["params"].clone();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from_browser.recv_timeout(left) {
                Ok(event) => {
                    let found = event["method"] == method;
                    self.events.push(event);
                    if found {
                        return self.events.last().expect("just pushed")["params"].clone();
                    }
                }
                Err(_) => panic!("no {method} within {TIMEOUT:?}"),
            }
        }
    }

    /// Opens a file and waits for its load event. Returns the events recorded from then on.
    pub(crate) fn open(&mut self, file: &Path) -> usize {
        let since = self.events.len();
        let url = format!("file://{}", file.canonicalize().expect("the page exists").display());
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for("Page.loadEventFired", since);
        since
    }

    /// Evaluates JavaScript in the page (promises awaited) and returns its value.
    pub(crate) fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(e) = result.get("exceptionDetails") {
            panic!("{expression}\nthrew: {e}");
        }
        result["result"]["value"].clone()
    }

    /// Console errors and warnings, uncaught exceptions and error log entries since `since`.
    pub(crate) fn problems(&self, since: usize) -> Vec<String> {
        self.events[since..]
            .iter()
            .filter_map(|e| {
                let p = &e["params"];
                match e["method"].as_str()? {
                    "Runtime.consoleAPICalled"
                        if matches!(p["type"].as_str(), Some("error" | "warning" | "assert")) =>
                    {
                        Some(format!("console.{}: {}", p["type"], p["args"]))
                    }
                    "Runtime.exceptionThrown" => {
                        Some(format!("exception: {}", p["exceptionDetails"]))
                    }
                    "Log.entryAdded" if p["entry"]["level"] != "verbose" => {
                        Some(format!("log {}: {}", p["entry"]["level"], p["entry"]["text"]))
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// The URLs the page requested since `since`.
    pub(crate) fn requests(&self, since: usize) -> Vec<String> {
        self.events[since..]
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .map(|e| e["params"]["request"]["url"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// A PNG of the viewport, or with `page_height` of the page from its top, that many pixels at
    /// most.
    pub(crate) fn screenshot(&mut self, path: &Path, page_height: Option<u32>) {
        use base64::Engine as _;
        let mut params = json!({"format": "png"});
        if let Some(most) = page_height {
            let height = self.eval("document.documentElement.scrollHeight").as_u64().unwrap_or(0);
            let height = (height as u32).clamp(HEIGHT, most);
            params["captureBeyondViewport"] = true.into();
            params["clip"] = json!({"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1});
        }
        let shot = self.call("Page.captureScreenshot", params);
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("image data"))
            .expect("base64");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the screenshot folder");
        }
        std::fs::write(path, png).expect("the screenshot is written");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The whole process group: the browser and its renderer, GPU and zygote processes.
        let pgid = self.child.id() as i32;
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pgid),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.child.wait();
    }
}
