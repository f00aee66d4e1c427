//! A DGT board's clock unplugged mid-game and plugged back: the board says "no
//! clock connected" and would wait for presses that never come. Through the daemon (two
//! emulated DGT boards, `clock = "auto"` and `white_side = "auto"`, the defaults): the
//! session reports the clock missing, the daemon raises `clock-lost` and takes board A's
//! moves from the board alone while the cable is out, then `clock-restored` once the clock
//! reports, and the record is the whole game, in order, with no other alert.

use bugbridge::config::{ClockSource, WhiteSide};
use bugbridge_broadcast::wire;
use bugbridge_drivers::trace::{BoardId, TraceEvent, TraceLine};
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::mqtt::{RestartableBroker, Subscriber};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

/// The game with board A's clock cable out right after A's `out`-th press and back in
/// right after its `back`-th (the presses between are made on a clock the board cannot
/// hear).
fn with_clock_out(mut game: TestGame, out: usize, back: usize) -> TestGame {
    let mut presses = 0;
    let mut running = None;
    let mut at = Vec::new();
    for (i, l) in game.lines.iter().enumerate() {
        if let TraceEvent::Clock {
            board: BoardId::A,
            running: r,
            ..
        } = &l.event
        {
            if matches!((running, r), (Some(Some(x)), Some(y)) if x != *y) {
                presses += 1;
                if presses == out || presses == back {
                    at.push((i + 1, l.t, presses == back));
                }
            }
            running = Some(*r);
        }
    }
    assert_eq!(at.len(), 2, "board A presses {back} times");
    for (i, t, up) in at.into_iter().rev() {
        game.lines.insert(
            i,
            TraceLine {
                t,
                event: TraceEvent::ClockLink {
                    board: BoardId::A,
                    up,
                },
            },
        );
    }
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_unplugged_mid_game_and_plugged_back_leaves_the_record_whole() {
    let game = with_clock_out(TestGame::demo_prefix(30), 4, 7);
    let records = TempDir::new("clock-unplug");
    let mut table = Table::start(&game, None);
    let broker = RestartableBroker::start().await;
    let mut sub = Subscriber::start(broker.addr(), "arbiter", &format!("bughouse/{MATCH}/#"));
    sub.subscribed(1).await;
    let mut cfg = config(&table, Some(&broker.url()), records.path());
    for b in &mut cfg.boards {
        b.clock = ClockSource::Auto;
        b.white_side = WhiteSide::Auto;
    }
    let daemon = InProcess::start(cfg).await;
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    table.synced().await;

    let alerted = |code: &'static str| {
        move |s: &Subscriber| s.alerts.iter().any(|a| a.code.as_deref() == Some(code))
    };
    while let Some(step) = table.step().await {
        if step.press {
            let n = table.moves_played();
            within(&format!("move {n} decided"), sse.wait_moves(n)).await;
        }
        match step.clock_link {
            Some(false) => sub.until("clock-lost", alerted("clock-lost")).await,
            Some(true) => sub.until("clock-restored", alerted("clock-restored")).await,
            None => {}
        }
    }
    // Each board's moves, in order. (Across boards, a move made while its clock was out is
    // placed when its board settled, not at a press nobody heard: the interleaving of the
    // two boards in that window may differ from the presses'.)
    let state = http::state(daemon.http(), MATCH).await;
    for board in [wire::Board::A, wire::Board::B] {
        let got: Vec<(wire::Side, u32, &str)> = state
            .moves
            .iter()
            .filter(|m| m.board == board)
            .map(|m| (m.side, m.number, m.san.as_str()))
            .collect();
        let want: Vec<(wire::Side, u32, &str)> = game
            .moves
            .iter()
            .filter(|m| m.board == board)
            .map(|m| (m.side, m.number, m.san.as_str()))
            .collect();
        assert_eq!(got, want, "board {board:?}: the whole game, in order");
    }
    assert_eq!(state.moves.len(), game.moves.len());
    let alerts: Vec<(String, Option<wire::Board>)> = sub
        .alerts
        .iter()
        .map(|a| (a.code.clone().unwrap_or_default(), a.board))
        .collect();
    assert_eq!(
        alerts,
        [
            ("clock-lost".to_owned(), Some(wire::Board::A)),
            ("clock-restored".to_owned(), Some(wire::Board::A)),
        ],
        "no other alert"
    );
    daemon.stop().await;
}
