//! A board unplugged and replugged mid-game → the daemon raises `link-lost` (alerts
//! topic) and shows the board disconnected; board A plays on, board B's next move is made
//! while its cable is out; once replugged, the session reopens the board at the same path
//! (a symlink, as `/dev/serial/by-path/…`), the move is found from the dump and the clock
//! by the gap search (the board is powered through its cable, so its EEPROM log restarts
//! at replug and holds nothing of the outage), and the match goes on to the full record.

use bugbridge_drivers::trace::BoardId;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::{TestGame, movetext};
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::mqtt::{RestartableBroker, Subscriber};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_unplugged_and_replugged_mid_game_goes_on() {
    let game = TestGame::demo_prefix(30);
    let records = TempDir::new("unplug");
    let links = TempDir::new("unplug-links");
    // Symlinks, as `/dev/serial/by-path/…`: the board comes back at the same path.
    let mut table = Table::start(&game, Some(links.path()));
    let broker = RestartableBroker::start().await;
    let mut sub = Subscriber::start(broker.addr(), "arbiter", &format!("bughouse/{MATCH}/#"));
    sub.subscribed(1).await;
    let daemon = InProcess::start(config(&table, Some(&broker.url()), records.path())).await;
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    table.synced().await;

    table
        .play_moves(12, &mut async |n| sse.wait_moves(n).await)
        .await;

    // Pull board B's cable (its power with it: no log of the outage to replay).
    table.emulator(BoardId::B).power_loss();
    table
        .wait_status(BoardId::B, "board B unplugged", |s| !s.attached)
        .await;
    sub.until("a link-lost alert", |s| {
        s.alerts
            .iter()
            .any(|a| a.code.as_deref() == Some("link-lost"))
    })
    .await;
    let alert = sub
        .alerts
        .iter()
        .find(|a| a.code.as_deref() == Some("link-lost"))
        .expect("the alert");
    assert_eq!(
        alert.board,
        Some(bugbridge_broadcast::wire::Board::B),
        "{alert:?}"
    );
    // The published state says so too.
    sse.until_state(|s| !s.boards.B.connected).await;

    // The game goes on while the cable is out: board A's moves are decided live; board B's
    // next move is made (lift, put, press) with nobody listening.
    let unplugged_at = table.moves_played();
    loop {
        let step = table.step().await.expect("the game goes on");
        if step.press {
            if step.board == BoardId::B {
                break;
            }
            sse.wait_moves(table.moves_played()).await;
        }
    }
    assert!(table.moves_played() > unplugged_at);

    // Put it back: the session finds it at the same path and resynchronises.
    table
        .emulator_mut(BoardId::B)
        .replug()
        .expect("a new pty for board B");
    table
        .wait_status(BoardId::B, "board B replugged and synced", |s| {
            s.attached && s.synced
        })
        .await;
    sse.until_state(|s| s.boards.B.connected).await;
    // Board B's move made while unplugged is found from the dump and the clock.
    sse.wait_moves(table.moves_played()).await;

    table
        .play_rest(&mut async |n| sse.wait_moves(n).await)
        .await;
    let state = http::state(daemon.http(), MATCH).await;
    assert_eq!(state.moves.len(), game.moves.len());
    assert_eq!(state.bfen, game.final_bfen);
    let (_, bpgn) = http::get(daemon.http(), &format!("/api/matches/{MATCH}/bpgn")).await;
    // Board B's move made while unplugged is marked as reconstructed in the record.
    let got = movetext(&bpgn);
    let mark = " {C:reconstructed after a lost connection}";
    assert!(got.contains(mark), "{got}");
    assert_eq!(got.replace(mark, ""), movetext(&game.bpgn));
    daemon.stop().await;
}
