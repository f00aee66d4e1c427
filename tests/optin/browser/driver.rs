//! Headless Chromium driven over WebDriver: Debian's `chromedriver` started by the test on a
//! free loopback port (its own process group, killed on drop), a fresh profile directory,
//! and a [`fantoccini`] session over plain HTTP (no TLS stack: everything is on loopback).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bugbridge_tests::temp::TempDir;
use bugbridge_tests::{LIMIT, within};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// How often a page is polled while waiting for it (a poll interval, not a synchronisation:
/// every wait ends on the page's own state and is bounded by [`LIMIT`]).
const POLL: Duration = Duration::from_millis(50);

/// Chromium as Debian installs it; `BUGBRIDGE_CHROMIUM` overrides.
const CHROMIUM: &str = "/usr/bin/chromium";

/// The first existing file among `env` (if set), `$PATH`'s entries joined with `name`, and
/// `fallback`; a failure naming the Debian packages otherwise (never a skip).
fn program(env: &str, name: &str, fallback: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(env) {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "{env}={} is not a file", p.display());
        return p;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .chain([PathBuf::from(fallback)])
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the opt-in browser tests need Debian's Chromium and its WebDriver: \
                 `apt-get install chromium chromium-driver` (no `{name}` on $PATH or at \
                 {fallback}; or set {env})"
            )
        })
}

/// A port nobody listens on right now (bound, read, released).
///
/// # Panics
///
/// When loopback cannot be bound.
#[must_use]
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// The `chromedriver` child process, in a process group of its own so that the browser it
/// starts goes with it.
#[derive(Debug)]
struct Chromedriver {
    child: Child,
    port: u16,
}

impl Chromedriver {
    /// Starts it and waits until it says it listens.
    async fn start() -> Chromedriver {
        let binary = program(
            "BUGBRIDGE_CHROMEDRIVER",
            "chromedriver",
            "/usr/bin/chromedriver",
        );
        let port = free_port();
        let mut child = Command::new(&binary)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let stdout = child.stdout.take().expect("a piped stdout");
        let (tx, mut rx) = mpsc::unbounded_channel();
        // Reads (and keeps draining) its output, so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let driver = Chromedriver { child, port };
        let mut said = Vec::new();
        within("chromedriver to listen", async {
            loop {
                match rx.recv().await {
                    Some(line) if line.contains("started successfully") => break,
                    Some(line) => said.push(line),
                    None => panic!(
                        "{} exited before it listened; it said: {said:?}",
                        binary.display()
                    ),
                }
            }
        })
        .await;
        driver
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // The whole group: chromedriver and the Chromium it started, if the session was not
        // closed (a failed test).
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium session.
#[derive(Debug)]
pub(crate) struct Browser {
    client: Option<Client>,
    // Dropped after the client: the profile is removed once the browser is gone.
    _driver: Chromedriver,
    _profile: TempDir,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium with a fresh profile.
    ///
    /// # Panics
    ///
    /// When either is missing or does not start.
    pub(crate) async fn start() -> Browser {
        let chromium = program("BUGBRIDGE_CHROMIUM", "chromium", CHROMIUM);
        let profile = TempDir::new("chromium-profile");
        let driver = Chromedriver::start().await;
        let caps = json!({
            "browserName": "chrome",
            // The arbiter page asks `confirm()`: the test answers it itself.
            "unhandledPromptBehavior": "ignore",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    "--window-size=1360,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            },
        });
        let Value::Object(caps) = caps else {
            unreachable!("an object literal")
        };
        let url = format!("http://127.0.0.1:{}", driver.port);
        let client = within(
            "a WebDriver session",
            ClientBuilder::new(HttpConnector::new())
                .capabilities(caps)
                .connect(&url),
        )
        .await
        .unwrap_or_else(|e| {
            panic!(
                "no WebDriver session with {} (is Debian's `chromium` installed?): {e}",
                chromium.display()
            )
        });
        Browser {
            client: Some(client),
            _driver: driver,
            _profile: profile,
        }
    }

    /// The WebDriver session.
    pub(crate) fn client(&self) -> &Client {
        self.client.as_ref().expect("the session is open")
    }

    /// Opens `url` in the current window.
    pub(crate) async fn goto(&self, url: &str) {
        within(&format!("loading {url}"), self.client().goto(url))
            .await
            .unwrap_or_else(|e| panic!("cannot load {url}: {e}"));
    }

    /// Runs `script` (a function body: `return ...;`) in the page with `args`.
    pub(crate) async fn eval(&self, script: &str, args: Vec<Value>) -> Value {
        within("a script in the page", self.client().execute(script, args))
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Polls `script` until it returns something truthy (not `null`, `false`, `0` or `""`),
    /// and returns that; fails after [`LIMIT`] naming `what` and the last value seen.
    pub(crate) async fn wait_for(&self, what: &str, script: &str, args: Vec<Value>) -> Value {
        let deadline = tokio::time::Instant::now() + LIMIT;
        let mut last = Value::Null;
        loop {
            // A failing script (the page navigating, say) counts as not yet.
            if let Ok(v) = self.client().execute(script, args.clone()).await {
                let truthy = match &v {
                    Value::Null => false,
                    Value::Bool(b) => *b,
                    Value::Number(n) => n.as_f64() != Some(0.0),
                    Value::String(s) => !s.is_empty(),
                    Value::Array(_) | Value::Object(_) => true,
                };
                if truthy {
                    return v;
                }
                last = v;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out after {LIMIT:?} waiting for the page: {what} (last value {last})"
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits for the `confirm()`/`alert()` dialog the page opened, checks its text contains
    /// `expected`, and accepts it.
    pub(crate) async fn accept_dialog(&self, expected: &str) {
        let deadline = tokio::time::Instant::now() + LIMIT;
        let text = loop {
            if let Ok(text) = self.client().get_alert_text().await {
                break text;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out after {LIMIT:?} waiting for the page's dialog"
            );
            tokio::time::sleep(POLL).await;
        };
        assert!(
            text.contains(expected),
            "dialog {text:?} does not say {expected:?}"
        );
        within("accepting the dialog", self.client().accept_alert())
            .await
            .expect("the dialog is accepted");
    }

    /// Clicks the element `css`.
    pub(crate) async fn click(&self, css: &str) {
        within(&format!("clicking {css}"), async {
            self.client()
                .find(Locator::Css(css))
                .await
                .unwrap_or_else(|e| panic!("no element {css}: {e}"))
                .click()
                .await
                .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
        })
        .await;
    }

    /// Types `text` into the element `css`.
    pub(crate) async fn type_into(&self, css: &str, text: &str) {
        within(&format!("typing into {css}"), async {
            self.client()
                .find(Locator::Css(css))
                .await
                .unwrap_or_else(|e| panic!("no element {css}: {e}"))
                .send_keys(text)
                .await
                .unwrap_or_else(|e| panic!("cannot type into {css}: {e}"));
        })
        .await;
    }

    /// Saves a PNG of the current window as `<artifacts>/<name>.png`; returns its path.
    pub(crate) async fn screenshot(&self, name: &str) -> PathBuf {
        let png = within("a screenshot", self.client().screenshot())
            .await
            .expect("a screenshot");
        let dir = artifacts();
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    /// Ends the session (Chromium quits), then chromedriver.
    pub(crate) async fn close(mut self) {
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(LIMIT, client.close()).await;
        }
    }
}

/// Where CI artifacts go: `$BUGBRIDGE_ARTIFACTS` (`.ci/run` sets it), else
/// `target/ci-artifacts` under the workspace.
#[must_use]
pub(crate) fn artifacts() -> PathBuf {
    std::env::var_os("BUGBRIDGE_ARTIFACTS").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("the workspace")
                .join("target")
                .join("ci-artifacts")
        },
        PathBuf::from,
    )
}
