//! Whole scenarios, written once and run against any broker: the embedded rumqttd in
//! `cargo test` (the `e2e` test) and Debian's mosquitto in the opt-in suite (`optin`).

use std::net::SocketAddr;

use bugbridge::config::{Config, MqttConfig};
use bugbridge_drivers::trace::BoardId;

use crate::daemon::{InProcess, MATCH, config};
use crate::game::{TestGame, movetext};
use crate::http::{self, Sse};
use crate::mqtt::{RestartableBroker, Subscriber, assert_gaps_explained, assert_no_gap};
use crate::table::Table;
use crate::temp::TempDir;

/// An MQTT broker the test runs and can restart on the same port.
pub trait Broker {
    /// Where clients connect.
    fn addr(&self) -> SocketAddr;
    /// Stops the broker: connections cut, the port closed.
    fn stop(&mut self) -> impl Future<Output = ()>;
    /// Starts it again, empty, on the same port.
    fn start_again(&mut self) -> impl Future<Output = ()>;
    /// The daemon's `mqtt.url`.
    fn url(&self) -> String {
        format!("mqtt://{}", self.addr())
    }
    /// Whatever else the daemon needs to reach this broker (credentials, a CA).
    fn configure(&self, _mqtt: &mut MqttConfig) {}
}

/// The daemon's configuration for `table`, publishing to `broker`, recording in `records`.
fn config_for(table: &Table, broker: &impl Broker, records: &std::path::Path) -> Config {
    let mut cfg = config(table, Some(&broker.url()), records);
    if let Some(mqtt) = cfg.mqtt.as_mut() {
        broker.configure(mqtt);
    }
    cfg
}

impl Broker for RestartableBroker {
    fn addr(&self) -> SocketAddr {
        RestartableBroker::addr(self)
    }
    async fn stop(&mut self) {
        RestartableBroker::stop(self).await;
    }
    async fn start_again(&mut self) {
        RestartableBroker::start_again(self).await;
    }
}

/// The BPGN files under `dir` (the daemon's record directory), sorted.
#[must_use]
pub fn bpgn_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|e| e == "bpgn") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// An emulated match → a subscriber receives every move in order, each with the right
/// BFEN; the retained topics, the HTTP API and the BPGN on disk agree with it.
///
/// # Panics
///
/// When any of that does not hold.
pub async fn subscriber_receives_every_move(broker: &impl Broker) {
    let game = TestGame::demo_prefix(40);
    let records = TempDir::new("subscriber");
    let mut table = Table::start(&game, None);
    let mut sub = Subscriber::start(broker.addr(), "watcher", &format!("bughouse/{MATCH}/#"));
    sub.subscribed(1).await;
    let daemon = InProcess::start(config_for(&table, broker, records.path())).await;
    table.synced().await;
    sub.until("the daemon online", |s| s.topic("status") == Some("online"))
        .await;

    table
        .play_rest(&mut async |n| sub.wait_moves(n).await)
        .await;
    assert_eq!(table.moves_played(), game.moves.len());

    // Every move, once, in order, as the game has it.
    let moves = sub.moves();
    assert_eq!(moves.len(), game.moves.len());
    for (i, (got, want)) in moves.iter().zip(&game.moves).enumerate() {
        assert!(
            want.matches(got),
            "move {}: published {got:?}, expected {want:?}",
            i + 1
        );
    }
    // One connection, nothing lost: `seq` from 1 without a gap or a repeat.
    assert_no_gap(&sub.events);
    let seqs: Vec<u64> = sub.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert!(sub.alerts.is_empty(), "alerts: {:?}", sub.alerts);

    // The retained topics catch up with the last event; they agree with the API.
    let last = seqs.last().copied().unwrap_or(0);
    sub.until("the final state", |s| {
        s.state().is_some_and(|st| st.seq == last)
    })
    .await;
    let state = sub.state().expect("a state");
    let api = http::state(daemon.http(), MATCH).await;
    assert_eq!(state, api);
    assert_eq!(state.moves.len(), game.moves.len());
    assert_eq!(sub.topic("bfen"), Some(state.bfen.as_str()));
    assert_eq!(sub.topic("bfen"), Some(game.final_bfen.as_str()));
    let (status, bpgn) = http::get(daemon.http(), &format!("/api/matches/{MATCH}/bpgn")).await;
    assert_eq!(status, 200);
    assert_eq!(movetext(&bpgn), movetext(&game.bpgn));
    assert_eq!(sub.topic("bpgn").map(movetext), Some(movetext(&game.bpgn)));
    assert!(table.emulator(BoardId::A).status().attached);
    daemon.stop().await;

    // The record on disk is the game.
    let files = bpgn_files(records.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let on_disk = std::fs::read_to_string(&files[0]).expect("the BPGN file");
    assert_eq!(movetext(&on_disk), movetext(&game.bpgn));
}

/// The broker restarted mid-game (moves played while it is down) → the new broker's
/// retained `state`/`bfen`/`bpgn`/`status` are the daemon's current truth (`GET
/// /api/matches/<id>`), and the events a persistent subscriber saw have no gap that a
/// `state` it received does not explain.
///
/// # Panics
///
/// When any of that does not hold.
pub async fn broker_restart_mid_game(broker: &mut impl Broker) {
    let game = TestGame::demo_prefix(30);
    let records = TempDir::new("broker-restart");
    let mut table = Table::start(&game, None);
    let filter = format!("bughouse/{MATCH}/#");
    let mut sub = Subscriber::start(broker.addr(), "persistent", &filter);
    sub.subscribed(1).await;
    let daemon = InProcess::start(config_for(&table, broker, records.path())).await;
    // The daemon's own stream is the sync point while the broker is away.
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    table.synced().await;

    table
        .play_moves(10, &mut async |n| {
            sse.wait_moves(n).await;
            sub.wait_moves(n).await;
        })
        .await;

    // The broker goes away; the game goes on.
    broker.stop().await;
    table
        .play_moves(14, &mut async |n| sse.wait_moves(n).await)
        .await;

    // An empty broker on the same port: the subscriber comes back by itself, the daemon
    // (its own back-off) re-publishes what the broker never acknowledged, then the
    // retained topics.
    broker.start_again().await;
    sub.subscribed(2).await;
    let seq_now = http::state(daemon.http(), MATCH).await.seq;
    sub.until("the current state on the new broker", |s| {
        s.state().is_some_and(|st| st.seq >= seq_now)
    })
    .await;

    table
        .play_rest(&mut async |n| {
            sse.wait_moves(n).await;
            sub.wait_moves(n).await;
        })
        .await;
    let truth = http::state(daemon.http(), MATCH).await;
    assert_eq!(truth.moves.len(), game.moves.len());
    sub.until("the final state", |s| {
        s.state().is_some_and(|st| st.seq == truth.seq)
    })
    .await;

    // `seq`: nothing skipped that a state does not account for; every move the subscriber
    // got is the game's, in order; the last event is the state's.
    assert_gaps_explained(&sub.log);
    let moves = sub.moves();
    let mut expected = game.moves.iter();
    for got in &moves {
        assert!(
            expected.any(|want| want.matches(got)),
            "published {got:?} is not one of the game's next moves"
        );
    }
    assert_eq!(sub.events.iter().map(|e| e.seq).max(), Some(truth.seq));
    assert_eq!(sub.state().as_ref(), Some(&truth));

    // A subscriber arriving now gets the retained topics: current and online.
    let mut late = Subscriber::start(broker.addr(), "late", &filter);
    late.until("the retained topics", |s| {
        s.topic("status").is_some()
            && s.topic("bfen").is_some()
            && s.topic("bpgn").is_some()
            && s.state().is_some()
    })
    .await;
    assert_eq!(late.topic("status"), Some("online"));
    assert_eq!(late.state().as_ref(), Some(&truth));
    assert_eq!(late.topic("bfen"), Some(truth.bfen.as_str()));
    assert_eq!(late.topic("bfen"), Some(game.final_bfen.as_str()));
    assert_eq!(late.topic("bpgn").map(movetext), Some(movetext(&game.bpgn)));
    assert!(late.events.is_empty(), "events are not retained");

    daemon.stop().await;
}
