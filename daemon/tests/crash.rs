//! `kill -9` of the daemon mid-game, and a restart: the final BPGN is the one an
//! uninterrupted run records.
//!
//! The real binary (`bugbridge run --config FILE`) runs as a child process against two
//! emulated DGT boards with clocks that live in this test, on pseudo-terminals reached
//! through symlinks (so the restarted daemon reopens the same paths, as it would a
//! `/dev/serial/by-path/…` name). The test plays part of a real game, kills the daemon with
//! SIGKILL right after a move was decided, starts it again with the same configuration,
//! plays the rest, stops it with SIGTERM and compares the BPGN file with the offline
//! re-inference of the same trace: the same moves, order and times. The events' `seq` goes
//! on across the restart: on the SSE stream (ids and the state's `seq`) and on MQTT (a
//! broker that lives in the test, so it outlives the daemon), where a subscriber that drops
//! repeated `seq`s still gets every move.
//!
//! Sync points: the daemon's SSE stream (`/api/matches/<id>/stream`, whose `state`
//! messages carry the move list) and the emulators' status. While the daemon is down the
//! boards are not advanced: nothing they report is lost then. No sleeps, no fixed ports
//! (the daemon binds port 0 and logs the address; the test reads it from its JSON logs).
//!
//! The board, game and HTTP helpers are the end-to-end test crate's own
//! (`tests/support/`), compiled into this test too: the daemon's crate cannot depend on
//! that crate, which depends on it.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use bugbridge::cli::replay::replay_text;
use bugbridge::record::Store;
use bugbridge_drivers::trace::BoardId;

#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/child.rs"]
mod child;
#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/game.rs"]
mod game;
#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/http.rs"]
mod http;
#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/mqtt.rs"]
mod mqtt;
#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/table.rs"]
mod table;
#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/temp.rs"]
mod temp;

use child::ChildDaemon;
use game::{TestGame, movetext};
use http::Sse;
use mqtt::{RestartableBroker, Subscriber};
use table::Table;
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

const MATCH: &str = "crash";

/// `bugbridge run --config <config> --json-logs`, the binary this package builds.
fn daemon_command(config: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bugbridge"));
    cmd.arg("run")
        .arg("--config")
        .arg(config)
        .arg("--json-logs");
    cmd
}

fn write_config(path: &Path, table: &Table, records: &Path, mqtt: &str) {
    let text = format!(
        r#"[match]
id = "{MATCH}"
ruleset = "fide"

[[board]]
name = "A"
driver = "dgt"
port = "{a}"
clock = "board"

[[board]]
name = "B"
driver = "dgt"
port = "{b}"
clock = "board"

[http]
listen = "127.0.0.1:0"

[mqtt]
url = "{mqtt}"

[record]
dir = "{records}"
"#,
        a = table.path(BoardId::A).display(),
        b = table.path(BoardId::B).display(),
        records = records.display(),
    );
    std::fs::write(path, text).expect("write the configuration");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_game_and_a_restart_record_the_same_bpgn_as_an_uninterrupted_run() {
    let game = TestGame::demo_prefix(40);
    let dir = TempDir::new("crash");
    let records = dir.path().join("games");
    let config = dir.path().join("table.toml");
    let mut table = Table::start(&game, Some(dir.path()));
    let broker = RestartableBroker::start().await;
    let mut subscriber = Subscriber::start(broker.addr(), "crash-watch", "bughouse/crash/#");
    subscriber.subscribed(1).await;
    write_config(&config, &table, &records, &broker.url());

    let daemon = ChildDaemon::start(daemon_command(&config)).await;
    let http = daemon.http.expect("the daemon serves HTTP");
    table.synced().await;
    let mut sse = Sse::open(http, MATCH).await;
    table
        .play_moves(17, &mut async |n| sse.wait_moves(n).await)
        .await;
    // Move 17 is decided, so its press is in the journal: crash now.
    let seq_before = sse.state.as_ref().map(|s| s.seq).expect("a state");
    assert_eq!(
        sse.events.last().map(|e| e.seq),
        Some(seq_before),
        "the last event's id"
    );
    assert!(seq_before >= 17, "{seq_before}");
    drop(sse);
    daemon.kill_9();

    // The same configuration again: the journal is re-inferred, the boards reopened at
    // their paths (a fresh handshake: reset, version, update mode, dump).
    let commands = [BoardId::A, BoardId::B].map(|b| table.emulator(b).status().device.commands);
    let daemon = ChildDaemon::start(daemon_command(&config)).await;
    let http = daemon.http.expect("the daemon serves HTTP");
    for (b, before) in [BoardId::A, BoardId::B].into_iter().zip(commands) {
        table
            .wait_status(b, "the restarted daemon's handshake", |s| {
                s.synced && s.device.commands >= before + 4
            })
            .await;
    }
    let mut sse = Sse::open(http, MATCH).await;
    sse.until_state(|_| true).await;
    let recovered = sse.state.as_ref().map_or(0, |s| s.moves.len());
    assert_eq!(recovered, 17, "moves recovered from the journal");
    let (status, body) = http::get(http, &format!("/api/matches/{MATCH}")).await;
    assert_eq!(status, 200);
    let api: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        api["seq"], seq_before,
        "/api/matches/{MATCH} goes on: {body}"
    );
    let (_, body) = http::get(http, "/api/matches").await;
    let list: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let summary = list
        .as_array()
        .and_then(|l| l.iter().find(|m| m["id"] == MATCH))
        .unwrap_or_else(|| panic!("{MATCH} in /api/matches: {body}"));
    assert_eq!(summary["seq"], seq_before, "/api/matches goes on: {body}");
    assert_eq!(sse.state.as_ref().map(|s| s.seq), Some(seq_before));

    table
        .play_rest(&mut async |n| sse.wait_moves(n).await)
        .await;
    let state = sse.state.clone().expect("a state");
    assert_eq!(state.moves.len(), game.moves.len());
    assert_eq!(state.bfen, game.final_bfen);
    // The events after the restart number on from where the first run stopped.
    let seqs: Vec<u64> = sse.events.iter().map(|e| e.seq).collect();
    let want: Vec<u64> = (seq_before + 1..).take(seqs.len()).collect();
    assert_eq!(seqs, want, "SSE ids after the restart");
    assert_eq!(state.seq, seq_before + seqs.len() as u64);
    // On MQTT, a subscriber that keeps only increasing `seq`s has every move, in order.
    subscriber.wait_moves(game.moves.len()).await;
    let sans: Vec<&str> = subscriber
        .moves()
        .iter()
        .map(|e| e.san.as_deref().unwrap_or(""))
        .collect();
    let want: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, want, "the moves on MQTT, repeats dropped by seq");
    drop(sse);
    daemon.terminate().await;

    // The BPGN on disk: the moves, order and times of the uninterrupted run.
    let files = Store::open(&records, MATCH).expect("the store").files(1);
    let bpgn = std::fs::read_to_string(&files.bpgn).expect("the BPGN file");
    assert_eq!(movetext(&bpgn), movetext(&game.bpgn));
    // And the journal, both runs' halves, re-infers to the same record.
    let journal = std::fs::read_to_string(&files.journal).expect("the journal");
    let replayed = replay_text(&journal, None).expect("the journal re-infers");
    assert_eq!(movetext(&replayed.game.bpgn()), movetext(&game.bpgn));
    assert!(
        !Store::open(&records, MATCH)
            .expect("the store")
            .files(2)
            .bpgn
            .exists(),
        "the restart continued game 1 instead of starting another"
    );
}
