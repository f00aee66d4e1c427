//! A table reports only the boards it has: with one board configured (as
//! `config/minimal.toml`), the other is never connected, in the API nor in `/metrics`.
//!
//! The daemon runs in this process (`app::run`) with one emulated DGT board on a
//! pseudo-terminal; the test reads its HTTP API and metrics. Sync point: the SSE stream's
//! `state` message that shows board A connected.

use std::time::Duration;

use bugbridge::app::{self, RunOptions};
use bugbridge::config::Config;

#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/http.rs"]
mod http;
#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/temp.rs"]
mod temp;

use temp::TempDir;

/// The upper bound of every wait (see `bugbridge_tests::LIMIT`).
const LIMIT: Duration = Duration::from_secs(60);

/// Awaits `fut`, failing with `what` after [`LIMIT`].
async fn within<T>(what: &str, fut: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(LIMIT, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {LIMIT:?} waiting for {what}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_that_is_not_configured_is_never_reported_connected() {
    let dir = TempDir::new("one-board");
    let trace = dir.path().join("a.trace.jsonl");
    std::fs::write(
        &trace,
        "{\"t\":0,\"board\":\"A\",\"ev\":\"board\",\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\"}\n",
    )
    .expect("write the trace");
    let config_path = dir.path().join("table.toml");
    std::fs::write(
        &config_path,
        format!(
            "[match]\nid = \"board-1\"\n\n[[board]]\nname = \"A\"\ndriver = \"emulated\"\n\
             trace = \"{}\"\nclock = \"none\"\n\n[http]\nlisten = \"127.0.0.1:0\"\n\n\
             [record]\ndir = \"{}\"\n",
            trace.display(),
            dir.path().join("games").display()
        ),
    )
    .expect("write the configuration");
    let config = Config::load(&config_path).expect("a valid configuration");
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let options = RunOptions {
        ready: Some(ready_tx),
        ..RunOptions::default()
    };
    let daemon = tokio::spawn(app::run(config, options, async move {
        let _ = stop_rx.await;
    }));
    let endpoints = within("the daemon to listen", ready_rx)
        .await
        .expect("the daemon starts");
    let addr = endpoints.http.expect("HTTP");

    let mut sse = http::Sse::open(addr, "board-1").await;
    sse.until_state(|s| s.boards.A.connected).await;
    let state = http::state(addr, "board-1").await;
    assert!(state.boards.A.connected);
    assert!(!state.boards.B.connected, "board B is not configured");
    let (status, metrics) = http::get(addr, "/metrics").await;
    assert_eq!(status, 200);
    assert!(
        metrics
            .lines()
            .any(|l| l == "bugbridge_boards_connected{match=\"board-1\"} 1"),
        "{metrics}"
    );
    drop(sse);
    let _ = stop_tx.send(());
    within("the daemon to stop", daemon)
        .await
        .expect("the daemon task")
        .expect("a clean stop");
}
