//! The tournament tier end to end: a real table (emulated boards on ptys, the daemon
//! in-process) publishes to a real broker; a relay mirrors it. The relay's viewer stream
//! follows every move, its BPGN equals the table's, an arbiter's action posted on the relay
//! travels over MQTT to the table, which journals it, applies it and confirms it; a table
//! that stops shows offline. The round's BPGN exported for a reader (`?for=`) is each
//! game's export.

use std::time::Duration;

use bugbridge::cli::export::export_text;
use bugbridge_broadcast::wire::EventKind;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::{TestGame, movetext};
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::mqtt::RestartableBroker;
use bugbridge_tests::relay::{RunningRelay, post};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_through_the_broker_and_a_relay_with_an_operator_action_back() {
    let game = TestGame::demo_prefix(16);
    let records = TempDir::new("relay");
    let mut table = Table::start(&game, None);
    let broker = RestartableBroker::start().await;
    let relay = RunningRelay::start(&broker.url(), "e2e-relay", Duration::ZERO).await;
    let mut cfg = config(&table, Some(&broker.url()), records.path());
    cfg.tags.insert("Round".into(), "1".into());
    cfg.tags.insert("Table".into(), "7".into());
    if let Some(mqtt) = cfg.mqtt.as_mut() {
        mqtt.operator = true;
    }
    let daemon = InProcess::start(cfg).await;
    relay
        .until("the relay to see the table", |r| {
            r.public().online(MATCH) == Some(true) && r.public().hub().state(MATCH).is_some()
        })
        .await;
    let mut sse = Sse::open(relay.http, MATCH).await;
    table.synced().await;

    // Every move reaches the relay's viewers.
    table
        .play_rest(&mut async |n| sse.wait_moves(n).await)
        .await;
    let at_table = http::state(daemon.http(), MATCH).await;
    relay
        .until("the relay to hold the last state", |r| {
            r.public()
                .hub()
                .state(MATCH)
                .is_some_and(|s| s.seq == at_table.seq)
        })
        .await;
    let at_relay = http::state(relay.http, MATCH).await;
    assert_eq!(
        at_relay, at_table,
        "the relay serves exactly the table's state"
    );
    assert_eq!(at_relay.tags["Table"], "7");
    let (_, table_bpgn) = http::get(daemon.http(), &format!("/api/matches/{MATCH}/bpgn")).await;
    relay
        .until("the relay's BPGN", |r| {
            r.public().hub().bpgn(MATCH).as_deref() == Some(table_bpgn.as_str())
        })
        .await;
    assert_eq!(movetext(&table_bpgn), movetext(&game.bpgn));
    let (status, round) = http::get(relay.http, "/api/tournament/bpgn?round=1").await;
    assert_eq!(status, 200);
    assert_eq!(round.trim_end(), table_bpgn.trim_end());
    // `for=` on the round: each game exported for that reader by the daemon's exporter, as
    // the `bugbridge` binary installs it; an unknown reader is refused.
    bugbridge_broadcast::http::set_bpgn_exporter(export_text);
    for reader in ["bughouse.pro", "pychess"] {
        let (want, _) = export_text(&table_bpgn, reader).expect("the table's game exports");
        let (status, round) = http::get(
            relay.http,
            &format!("/api/tournament/bpgn?round=1&for={reader}"),
        )
        .await;
        assert_eq!(status, 200, "{reader}: {round}");
        assert_eq!(round.trim_end(), want.trim_end(), "{reader}");
    }
    let (_, headers, for_bpro) =
        http::get_with_headers(relay.http, "/api/tournament/bpgn?round=1&for=bughouse.pro").await;
    assert!(
        for_bpro.contains("[UTCDate ") && !for_bpro.trim_end().ends_with('*'),
        "bughouse.pro's export: its date tags, no terminator: {for_bpro}"
    );
    // What it changed, per game, as `bugbridge export` says it on stderr.
    let (_, changes) = export_text(&table_bpgn, "bughouse.pro").expect("exports");
    let said: Vec<String> = headers
        .iter()
        .filter(|(n, _)| n == bugbridge_broadcast::http::CHANGED_HEADER)
        .map(|(_, v)| v.clone())
        .collect();
    let want: Vec<String> = changes.iter().map(|c| format!("{MATCH} {c}")).collect();
    assert!(!want.is_empty() && said == want, "{headers:?}");
    let (status, refused) = http::get(relay.http, "/api/tournament/bpgn?round=1&for=lichess").await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused.contains("lichess"), "{refused}");

    // The arbiter records a resignation on the relay: it reaches the table over MQTT, is
    // journaled and applied there, confirmed, and the relay's viewers get the result.
    let (status, reply) = post(
        relay.http,
        &format!("/api/matches/{MATCH}/arbiter/actions"),
        r#"{"action":"result","result":"0-1","reason":"resignation"}"#,
    )
    .await;
    assert_eq!(status, 202, "{reply}");
    let reply: serde_json::Value = serde_json::from_str(&reply).expect("JSON");
    let id = reply["id"].as_str().expect("an action id").to_owned();
    sse.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "0-1"))
        .await;
    let confirmed = |sse: &Sse| {
        sse.events
            .iter()
            .any(|e| e.kind == EventKind::Action && e.action.as_deref() == Some(id.as_str()))
    };
    while !confirmed(&sse) {
        within("the confirmation", sse.next())
            .await
            .expect("the stream goes on");
    }
    let journals: String = std::fs::read_dir(records.path())
        .expect("the record directory")
        .filter_map(Result::ok)
        .filter(|e| e.path().to_string_lossy().ends_with(".trace.jsonl"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(
        journals.contains("resignation"),
        "the action is in the table's journal"
    );

    // The table stops: the relay shows it offline.
    daemon.stop().await;
    relay
        .until("offline at the relay", |r| {
            r.public().online(MATCH) == Some(false)
        })
        .await;
    relay.stop().await;
}
