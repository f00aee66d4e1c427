//! The demo shows the arbiter features (one illegal move, then one flag fall, on the
//! alerts topic), and a normal run logs no WARN and no ERROR: the demo from start to its
//! end (`--loops 1`),
//! with an MQTT subscriber that comes and goes (rumqttd logs a client leaving as an ERROR
//! of its router unless filtered) and the clean stop (rumqttd's `router-drop`). Logs into
//! a pipe carry no colour codes.

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use bugbridge_tests::mqtt::Subscriber;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;
use tokio::sync::mpsc;

fn address(line: &str, prefix: &str) -> Option<SocketAddr> {
    let rest = &line[line.find(prefix)? + prefix.len()..];
    rest.split(['/', ' ']).next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_normal_demo_run_logs_no_warning_or_error() {
    let dir = TempDir::new("quiet");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .args(["demo", "--http", "127.0.0.1:0", "--mqtt", "127.0.0.1:0"])
        .args(["--speed", "60", "--loops", "1", "--dir"])
        .arg(dir.path())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the demo starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, mut rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let logs = std::thread::spawn(move || {
        std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let broker = within("the demo's banner", async {
        loop {
            let line = rx.recv().await.expect("the demo exited before its banner");
            if let Some(a) = address(&line, "MQTT     mqtt://") {
                return a;
            }
        }
    })
    .await;

    // A viewer's MQTT client watches a few moves and leaves; the arbiter's stays.
    let mut arbiter = Subscriber::start(broker, "arbiter", "bughouse/demo/alerts");
    let mut sub = Subscriber::start(broker, "comes-and-goes", "bughouse/demo/#");
    sub.wait_moves(2).await;
    drop(sub);
    // The demo's game shows the arbiter features: an illegal move, then a flag fall.
    arbiter
        .until("the showcase's illegal move and flag fall", |s| {
            let codes: Vec<&str> = s.alerts.iter().filter_map(|a| a.code.as_deref()).collect();
            codes.contains(&"illegal-move") && codes.contains(&"flag-fall")
        })
        .await;
    let codes: Vec<&str> = arbiter
        .alerts
        .iter()
        .filter_map(|a| a.code.as_deref())
        .collect();
    assert_eq!(codes, ["illegal-move", "flag-fall"], "{:?}", arbiter.alerts);

    let status = within("the demo to end after its one loop", async {
        tokio::task::spawn_blocking(move || child.wait())
            .await
            .expect("joined")
    })
    .await
    .expect("waited");
    let logs = logs.join().expect("the stderr reader");
    assert!(status.success(), "{status}: {}", logs.join("\n"));
    let bad: Vec<&String> = logs
        .iter()
        .filter(|l| l.contains(" WARN ") || l.contains("ERROR"))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(
        !logs.iter().any(|l| l.contains('\u{1b}')),
        "colour codes in a pipe: {logs:?}"
    );
    assert!(logs.iter().any(|l| l.contains("stopped")), "{logs:?}");
}
