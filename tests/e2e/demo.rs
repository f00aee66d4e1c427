//! `bugbridge demo` needs nothing else: two emulated boards on ptys, the embedded broker
//! and the viewer come up on free ports, moves reach an MQTT subscriber and the API, and
//! SIGTERM stops it cleanly. (The process is this crate's copy of the `bugbridge` binary,
//! `bugbridge-e2e`, the same `main` over the same library.)

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use bugbridge_tests::mqtt::Subscriber;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::{http, within};
use tokio::sync::mpsc;

/// Kills the demo if the test fails half-way.
struct Running(Option<Child>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The address after `prefix` in a banner line like `  viewer   http://127.0.0.1:1234/…`.
fn address(line: &str, prefix: &str) -> Option<SocketAddr> {
    let rest = &line[line.find(prefix)? + prefix.len()..];
    rest.split(['/', ' ']).next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_runs_with_nothing_else_installed() {
    let dir = TempDir::new("demo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .args(["demo", "--http", "127.0.0.1:0", "--mqtt", "127.0.0.1:0"])
        .args(["--speed", "20", "--loops", "1", "--dir"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the demo starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut running = Running(Some(child));
    let (tx, mut rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let (mut viewer, mut broker) = (None, None);
    within("the demo's banner", async {
        while viewer.is_none() || broker.is_none() {
            let line = rx.recv().await.expect("the demo exited before its banner");
            viewer = viewer.or_else(|| address(&line, "viewer   http://"));
            broker = broker.or_else(|| address(&line, "MQTT     mqtt://"));
        }
    })
    .await;
    let (viewer, broker) = (viewer.expect("viewer"), broker.expect("broker"));

    let mut sub = Subscriber::start(broker, "demo-watcher", "bughouse/demo/#");
    sub.wait_moves(3).await;
    assert!(
        sub.moves()
            .iter()
            .all(|m| m.bfen.is_some() && m.san.is_some()),
        "{:?}",
        sub.events
    );
    let (status, page) = http::get(viewer, "/match/demo").await;
    assert_eq!(status, 200);
    assert!(page.contains("<html") || page.contains("<!DOCTYPE") || page.contains("<!doctype"));
    let state = http::state(viewer, "demo").await;
    assert!(state.moves.len() >= 3, "{state:?}");

    let child = running.0.take().expect("running");
    let exit = bugbridge_tests::child::terminate(child, "the demo").await;
    assert!(exit.success(), "{exit}");
}
