//! A DGT board that keeps its power while its cable is out → at replug the session reads
//! the board's EEPROM log and replays what it missed; the record is the game's.
//!
//! Board B is unplugged right after a move, while its next three plies are played (lift,
//! put, press, each written into the emulated board's log, none heard by the daemon; board
//! A's hands move meanwhile but it presses no clock); then the cable goes back in. The
//! missed field changes and presses come back as the sensor events they were, with the
//! times the board logged at each press, so the moves, their order and their clock times
//! are exactly those of an uninterrupted run: `link-lost`, `link-restored` and no other
//! alert.

use bugbridge_drivers::trace::BoardId;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::{TestGame, movetext};
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::mqtt::{RestartableBroker, Subscriber};
use bugbridge_tests::table::{Step, Table};
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

/// Plies of one board to play while its cable is out.
const GAP_PLIES: usize = 3;

/// The board whose next `GAP_PLIES` presses all come before the other board's next one.
fn gap_board(upcoming: &[Step]) -> Option<BoardId> {
    let mut presses = upcoming.iter().filter(|s| s.press);
    let first = presses.next()?.board;
    presses
        .take(GAP_PLIES - 1)
        .all(|s| s.board == first)
        .then_some(first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_powered_dgt_board_replugged_after_three_plies_is_recovered_from_its_log() {
    let game = TestGame::demo_prefix(60);
    let records = TempDir::new("eeprom");
    let links = TempDir::new("eeprom-links");
    let mut table = Table::start(&game, Some(links.path()));
    let broker = RestartableBroker::start().await;
    let mut sub = Subscriber::start(broker.addr(), "arbiter", &format!("bughouse/{MATCH}/#"));
    sub.subscribed(1).await;
    let daemon = InProcess::start(config(&table, Some(&broker.url()), records.path())).await;
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    table.synced().await;

    // Play on (every move decided) until one board's next three plies come before the
    // other board's next press, with a few moves on both boards already heard.
    let board = loop {
        table
            .play_moves(table.moves_played() + 1, &mut async |n| {
                sse.wait_moves(n).await
            })
            .await;
        if table.moves_played() >= 6
            && let Some(b) = gap_board(table.upcoming())
        {
            break b;
        }
    };

    table.emulator(board).unplug();
    table
        .wait_status(board, "the board unplugged", |s| !s.attached)
        .await;
    sse.until_state(|s| !wire_board(s, board).connected).await;
    let before = table.moves_played();
    while table.moves_played() < before + GAP_PLIES {
        let step = table.step().await.expect("the game goes on");
        assert!(
            !step.press || step.board == board,
            "only the unplugged board presses in the gap"
        );
    }
    // Nothing of the gap was decided while the cable was out.
    assert_eq!(http::state(daemon.http(), MATCH).await.moves.len(), before);

    table
        .emulator_mut(board)
        .replug()
        .expect("a new pty for the board");
    table
        .wait_status(board, "the board replugged and synced", |s| {
            s.attached && s.synced
        })
        .await;
    // Bounded as a whole (the stream's keep-alives and clock states would otherwise keep
    // the per-line bound from ever firing).
    let n = table.moves_played();
    within(
        "the gap's moves decided after the replug",
        sse.wait_moves(n),
    )
    .await;
    sse.until_state(|s| wire_board(s, board).connected).await;

    table
        .play_rest(&mut async |n| sse.wait_moves(n).await)
        .await;
    let state = http::state(daemon.http(), MATCH).await;
    assert_eq!(state.moves.len(), game.moves.len());
    assert_eq!(state.bfen, game.final_bfen);
    // The moves as published: the same SANs, order and clock times as an uninterrupted run.
    let published: Vec<_> = sse
        .events
        .iter()
        .filter(|e| e.kind == bugbridge_broadcast::wire::EventKind::Move)
        .collect();
    assert_eq!(published.len(), game.moves.len());
    for (e, m) in published.iter().zip(&game.moves) {
        assert!(m.matches(e), "{e:?} is not {m:?}");
    }
    let (_, bpgn) = http::get(daemon.http(), &format!("/api/matches/{MATCH}/bpgn")).await;
    assert_eq!(movetext(&bpgn), movetext(&game.bpgn));

    // The arbiter heard of the outage and of its end, and of nothing else.
    sub.until("link-restored on MQTT", |s| {
        s.alerts
            .iter()
            .any(|a| a.code.as_deref() == Some("link-restored"))
    })
    .await;
    let codes: Vec<_> = sub
        .alerts
        .iter()
        .map(|a| (a.code.clone().unwrap_or_default(), a.board))
        .collect();
    let wb = Some(wire_letter(board));
    assert_eq!(
        codes,
        vec![
            ("link-lost".to_owned(), wb),
            ("link-restored".to_owned(), wb)
        ]
    );
    let (_, metrics) = http::get(daemon.http(), "/metrics").await;
    assert!(
        metrics.contains(&format!(
            "bugbridge_link_outages_total{{match=\"{MATCH}\",board=\"{board}\"}} 1"
        )),
        "{metrics}"
    );
    daemon.stop().await;
}

fn wire_letter(b: BoardId) -> bugbridge_broadcast::wire::Board {
    match b {
        BoardId::A => bugbridge_broadcast::wire::Board::A,
        BoardId::B => bugbridge_broadcast::wire::Board::B,
    }
}

fn wire_board(
    s: &bugbridge_broadcast::wire::MatchState,
    b: BoardId,
) -> &bugbridge_broadcast::wire::BoardState {
    match b {
        BoardId::A => &s.boards.A,
        BoardId::B => &s.boards.B,
    }
}
