//! The daemon as a child process (`bugbridge run --config FILE --json-logs`), for the
//! tests and benchmarks that need a process of its own: `kill -9`, memory and CPU.
//!
//! The daemon binds port 0 for HTTP (and for an embedded broker) and logs the addresses
//! it got in its `running` line; [`ChildDaemon::start`] reads them from its JSON logs.

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::within;

/// A running daemon process; killed when dropped (a failing test leaves nothing behind).
#[derive(Debug)]
pub struct ChildDaemon {
    child: Option<Child>,
    /// The HTTP server's address.
    pub http: Option<SocketAddr>,
    /// The embedded MQTT broker's address, when `mqtt.url = "embedded"`.
    pub mqtt_broker: Option<SocketAddr>,
    log: Arc<Mutex<Vec<String>>>,
    /// Its log lines not yet looked at by [`ChildDaemon::until_log`].
    lines: mpsc::UnboundedReceiver<String>,
}

impl ChildDaemon {
    /// Runs `bugbridge run --config CONFIG --json-logs` (the test binary `program`) with
    /// its embedded broker, and a subscriber to `bughouse/<id>/#` on it once the daemon
    /// says it is online.
    ///
    /// # Panics
    ///
    /// When the daemon does not start, has no embedded broker, or never comes online.
    pub async fn run_with_subscriber(
        program: &str,
        config: &std::path::Path,
        id: &str,
        name: &str,
    ) -> (ChildDaemon, crate::mqtt::Subscriber) {
        let mut cmd = Command::new(program);
        cmd.arg("run")
            .arg("--config")
            .arg(config)
            .arg("--json-logs");
        let daemon = ChildDaemon::start(cmd).await;
        let broker = daemon.mqtt_broker.expect("the embedded broker's address");
        let mut sub = crate::mqtt::Subscriber::start(broker, name, &format!("bughouse/{id}/#"));
        sub.subscribed(1).await;
        sub.until("the daemon online", |s| s.topic("status") == Some("online"))
            .await;
        (daemon, sub)
    }

    /// Spawns `command` (a `bugbridge run --config FILE --json-logs`, however the program
    /// is found) and waits for its `running` log line.
    ///
    /// # Panics
    ///
    /// When it cannot be spawned or exits before it runs.
    pub async fn start(mut command: Command) -> ChildDaemon {
        let mut child = command
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the daemon starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::unbounded_channel();
        let kept = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                kept.lock().expect("not poisoned").push(line.clone());
                let _ = tx.send(line);
            }
        });
        let mut daemon = ChildDaemon {
            child: Some(child),
            http: None,
            mqtt_broker: None,
            log,
            lines: rx,
        };
        let fields = within("the daemon's `running` log line", async {
            loop {
                let Some(line) = daemon.lines.recv().await else {
                    panic!("the daemon exited:\n{}", daemon.log_text());
                };
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                if v["fields"]["message"] == "running" {
                    break v["fields"].clone();
                }
            }
        })
        .await;
        let addr = |k: &str| fields[k].as_str().and_then(|s| s.parse().ok());
        daemon.http = addr("http");
        daemon.mqtt_broker = addr("mqtt_broker");
        daemon
    }

    /// Waits for a log line `wanted` accepts (lines before it are passed over), within
    /// [`within`]'s limit; `what` names it in the failure message.
    ///
    /// # Panics
    ///
    /// When the daemon exits or the limit passes first.
    pub async fn until_log(&mut self, what: &str, wanted: impl Fn(&str) -> bool) {
        let lines = &mut self.lines;
        let log = Arc::clone(&self.log);
        within(what, async {
            loop {
                let Some(line) = lines.recv().await else {
                    panic!(
                        "the daemon exited before {what}:\n{}",
                        log.lock().expect("not poisoned").join("\n")
                    );
                };
                if wanted(&line) {
                    break;
                }
            }
        })
        .await;
    }

    /// Everything it logged so far.
    #[must_use]
    pub fn log_text(&self) -> String {
        self.log.lock().expect("not poisoned").join("\n")
    }

    /// Its process id.
    ///
    /// # Panics
    ///
    /// When it was already stopped.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// `kill -9`, and reap it.
    pub fn kill_9(mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL");
            let _ = child.wait();
        }
    }

    /// SIGTERM (what a service manager sends), then waits for a clean exit.
    ///
    /// # Panics
    ///
    /// When it does not exit in time or exits with a failure.
    pub async fn terminate(mut self) {
        let child = self.child.take().expect("running");
        let exit = terminate(child, "the daemon").await;
        assert!(exit.success(), "{exit}:\n{}", self.log_text());
    }
}

/// Sends SIGTERM to `child` (what a service manager sends) and waits, at most as long as
/// [`within`] allows, for it to exit; `what` names it in the failure message.
///
/// # Panics
///
/// When `kill(1)` fails or the process does not exit in time.
pub async fn terminate(mut child: Child, what: &str) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill(1) runs");
    assert!(status.success());
    within(
        &format!("{what} to exit on SIGTERM"),
        tokio::task::spawn_blocking(move || child.wait()),
    )
    .await
    .expect("the waiting thread")
    .expect("the exit status")
}

impl Drop for ChildDaemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
