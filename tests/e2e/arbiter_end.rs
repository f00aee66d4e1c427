//! The arbiter ends a game from the API while two emulated DGT boards play on: the result
//! stands, a move made on the boards after the end is not recorded, a second result is
//! refused (400 naming the field) unless it is an explicit correction, the correction is
//! published as a `correction` and journaled, and a daemon started again on the same
//! journal replays it: the game comes back with the corrected result and the moves up to
//! the end.

use bugbridge_broadcast::wire::EventKind;
use bugbridge_drivers::trace::BoardId;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::relay::{TOKEN, post};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

/// The text of the table's journals.
fn journal(records: &std::path::Path) -> String {
    std::fs::read_dir(records)
        .expect("the record directory")
        .filter_map(Result::ok)
        .filter(|e| e.path().to_string_lossy().ends_with(".trace.jsonl"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_after_the_end_and_a_correction_survive_a_restart() {
    let game = TestGame::demo_prefix(16);
    let records = TempDir::new("arbiter-end");
    let secrets = TempDir::new("arbiter-end-token");
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).expect("the token file");
    let mut table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg.clone()).await;
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    table.synced().await;
    table
        .play_moves(10, &mut async |n| sse.wait_moves(n).await)
        .await;
    let actions = format!("/api/matches/{MATCH}/arbiter/actions");

    // The arbiter records a resignation.
    let (status, reply) = post(
        daemon.http(),
        &actions,
        r#"{"action":"result","result":"0-1","reason":"resignation"}"#,
    )
    .await;
    assert_eq!(status, 202, "{reply}");
    sse.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "0-1"))
        .await;

    // The players go on with one more move: nothing is recorded into the ended game. Its
    // press is still followed (the published clock shows the other side running).
    let running = |s: &bugbridge_broadcast::wire::MatchState, b: BoardId| match b {
        BoardId::A => s.clocks.A.running,
        BoardId::B => s.clocks.B.running,
    };
    let ended = http::state(daemon.http(), MATCH).await;
    let pressed = loop {
        let step = table.step().await.expect("the game goes on");
        if step.press {
            break step.board;
        }
    };
    let before = running(&ended, pressed);
    assert!(before.is_some(), "the clock ran before the press");
    sse.until_state(|s| running(s, pressed) != before).await;

    // A second result is refused, naming the field, and journals nothing.
    let journal_before = journal(records.path());
    let (status, reply) = post(
        daemon.http(),
        &actions,
        r#"{"action":"result","result":"1-0","reason":"resignation"}"#,
    )
    .await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("\"field\""), "{reply}");
    assert_eq!(
        journal(records.path()).matches("\"operator\"").count(),
        journal_before.matches("\"operator\"").count()
    );
    let state = http::state(daemon.http(), MATCH).await;
    assert_eq!(state.moves.len(), 10, "no move after the end");

    // An explicit correction stands, is published as a correction and journaled.
    let (status, reply) = post(
        daemon.http(),
        &actions,
        r#"{"action":"result","result":"1-0","reason":"resignation","correct":true}"#,
    )
    .await;
    assert_eq!(status, 202, "{reply}");
    sse.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "1-0"))
        .await;
    while !sse.events.iter().any(|e| e.kind == EventKind::Correction) {
        within("the correction event", sse.next())
            .await
            .expect("the stream goes on");
    }
    assert!(journal(records.path()).contains("\"correct\":true"));
    daemon.stop().await;

    // Started again on the same journal: the correction is replayed.
    let daemon = InProcess::start(cfg).await;
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    sse.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "1-0"))
        .await;
    let state = http::state(daemon.http(), MATCH).await;
    assert_eq!(state.moves.len(), 10);
    let (_, bpgn) = http::get(daemon.http(), &format!("/api/matches/{MATCH}/bpgn")).await;
    assert!(bpgn.contains("[Result \"1-0\"]"), "{bpgn}");
    daemon.stop().await;
}
