//! A board's link gaps in the viewer: board B loses its power with its cable twice, each
//! time while one of its moves is made.
//!
//! * While the cable is out the board is marked as cut off (`data-link="down"`).
//! * After the first replug the move is worked out from the board and the clock: the move
//!   list marks it, and only it, as reconstructed (`data-reconstructed`).
//! * During the second outage White's king is knocked off board B as well: nothing explains
//!   the board at the replug, so it is drawn as it stands (no king on its square) and
//!   marked "not recorded" (`data-recorded="no"`), with no move invented; the arbiter then
//!   fills the gap from the arbiter view's fill form with the move played, which is recorded.

use bugbridge_drivers::trace::{BoardId, Side, TraceEvent, TraceLine};
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http;
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use serde_json::Value;

use super::driver::Browser;
use super::page::wait_moves;

/// The index in `lines` of the clock line of each press, in order (the `n`th is the press
/// of the game's `n`th move).
fn press_lines(lines: &[TraceLine]) -> Vec<usize> {
    let mut running: [Option<Option<Side>>; 2] = [None, None];
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if let TraceEvent::Clock {
            board, running: r, ..
        } = &l.event
        {
            let k = usize::from(*board == BoardId::B);
            let before = running[k].replace(*r);
            if matches!((before, r), (Some(Some(x)), Some(y)) if x != *y) {
                out.push(i);
            }
        }
    }
    out
}

/// The square of White's king in the board-B half of `bfen`.
fn white_king_on_b(bfen: &str) -> String {
    let half = bfen.split('|').nth(1).expect("board B's half");
    let placement = half.split_whitespace().next().expect("a placement");
    for (r, rank) in placement.split('/').take(8).enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                file += u8::try_from(d).expect("a digit");
            } else if c == '~' {
                continue;
            } else {
                if c == 'K' {
                    return format!("{}{}", char::from(b'a' + file), 8 - r);
                }
                file += 1;
            }
        }
    }
    panic!("no white king on board B: {bfen}")
}

/// The first move of board B at or after `from` whose predecessor is not board B's too.
fn next_b_move(game: &TestGame, from: usize) -> usize {
    (from..game.moves.len())
        .find(|&i| {
            game.moves[i].board == bugbridge_broadcast::wire::Board::B
                && game.moves[i - 1].board == bugbridge_broadcast::wire::Board::A
        })
        .expect("a move of board B")
}

/// Pulls board B's cable (its power with it) right after the move before `target`, plays
/// on until board B's `target` press and, if `extra`, the event after it; then puts the
/// cable back.
async fn outage(table: &mut Table, browser: &Browser, target: usize, extra: bool) {
    table.emulator(BoardId::B).power_loss();
    table
        .wait_status(BoardId::B, "board B unplugged", |s| !s.attached)
        .await;
    let down = browser
        .wait_for(
            "board B marked as cut off",
            "const b = document.getElementById('block-B'); \
             return b.dataset.link === 'down' && b.classList.contains('disconnected') ? b.title : null;",
            vec![],
        )
        .await;
    assert!(
        down.as_str().is_some_and(|t| t.contains("link lost")),
        "{down}"
    );
    while table.moves_played() <= target {
        let step = table.step().await.expect("the game goes on");
        if step.press && step.board == BoardId::A {
            wait_moves(browser, table.moves_played()).await;
        }
    }
    if extra {
        let step = table.step().await.expect("the knocked king");
        assert_eq!((step.board, step.press), (BoardId::B, false));
    }
    table
        .emulator_mut(BoardId::B)
        .replug()
        .expect("a new pty for board B");
    table
        .wait_status(BoardId::B, "board B replugged and synced", |s| {
            s.attached && s.synced
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_marks_a_board_cut_off_its_reconstructed_moves_and_a_board_not_recorded() {
    let mut game = TestGame::demo_prefix(30);
    let first = next_b_move(&game, 6);
    let second = next_b_move(&game, first + 3);
    // White's king knocked off board B right after the press of move `second`.
    let king = white_king_on_b(&game.moves[second].bfen);
    let at = press_lines(&game.lines)[second];
    let t = game.lines[at].t;
    game.lines.insert(
        at + 1,
        TraceLine {
            t,
            event: TraceEvent::Square {
                board: BoardId::B,
                sq: bugbridge_drivers::trace::Square::from_name(&king).expect("a square"),
                piece: None,
            },
        },
    );
    let records = TempDir::new("browser-gaps");
    let links = TempDir::new("browser-gaps-links");
    let secrets = TempDir::new("browser-gaps-token");
    let token = format!("gaps-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, &token).expect("the token file");
    let mut table = Table::start(&game, Some(links.path()));
    let mut cfg = config(&table, None, records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let browser = Browser::start().await;
    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    table.synced().await;

    table
        .play_moves(first, &mut async |k| wait_moves(&browser, k).await)
        .await;
    outage(&mut table, &browser, first, false).await;
    wait_moves(&browser, first + 1).await;
    let marked = browser
        .wait_for(
            "the reconstructed move marked",
            "const li = [...document.querySelectorAll('#moves li[data-reconstructed]')]; \
             return li.length ? li.map(l => [Number(l.dataset.index), l.querySelector('.san').textContent, l.dataset.reconstructed]) : null;",
            vec![],
        )
        .await;
    assert_eq!(
        marked,
        serde_json::json!([[first, game.moves[first].san, "yes"]]),
        "only the move made while the cable was out"
    );
    browser
        .wait_for(
            "board B marked as connected again",
            "const b = document.getElementById('block-B'); \
             return b.dataset.link === 'up' && b.dataset.recorded === 'yes' && !b.classList.contains('disconnected');",
            vec![],
        )
        .await;
    browser.screenshot("browser-gap-reconstructed").await;

    table
        .play_moves(second, &mut async |k| wait_moves(&browser, k).await)
        .await;
    outage(&mut table, &browser, second, true).await;
    let shown = browser
        .wait_for(
            "board B shown as it stands, not recorded",
            "const b = document.getElementById('block-B'); \
             if (b.dataset.recorded !== 'no' || !b.classList.contains('unrecorded')) return null; \
             const sq = document.querySelector('#board-B [data-square=\"' + arguments[0] + '\"]'); \
             return [b.title, !!sq.querySelector('.pc'), getComputedStyle(b.querySelector('.player'), '::after').content];",
            vec![Value::from(king.clone())],
        )
        .await;
    assert!(
        shown[0]
            .as_str()
            .is_some_and(|t| t.contains("not recorded")),
        "{shown}"
    );
    assert_eq!(shown[1], false, "the king's square {king} is drawn empty");
    assert_eq!(shown[2], "\"not recorded\"", "{shown}");
    let state = http::state(addr, MATCH).await;
    assert_eq!(state.moves.len(), second, "no move invented");
    assert!(state.boards.B.physical.is_some());
    browser.screenshot("browser-gap-not-recorded").await;

    // The arbiter fills the gap from the page with the move that was played: it is
    // recorded (the knocked king aside, the board is the game's again).
    browser
        .goto(&format!("http://{addr}/arbiter/{MATCH}?token={token}"))
        .await;
    browser
        .wait_for(
            "the arbiter view",
            "return !!window.bugbridge && !!window.bugbridge.state && !!document.getElementById('act-fill');",
            vec![],
        )
        .await;
    let played = game.moves[second].san.clone();
    browser
        .eval(
            "const f = document.getElementById('act-fill'); \
             f.querySelector('[name=board]').value = 'B'; \
             f.querySelector('[name=moves]').value = arguments[0]; return true;",
            vec![Value::from(played.clone())],
        )
        .await;
    browser.click("#act-fill button[type=submit]").await;
    let results = browser
        .wait_for(
            "the page's answer to the fill",
            "const r = window.bugbridge.actionResults; return r.length ? r : null;",
            vec![],
        )
        .await;
    assert_eq!(results[0]["status"], 202, "{results}");
    browser
        .wait_for(
            "the filled move on the page",
            "const s = window.bugbridge.state; return !!s && s.moves.length > arguments[0];",
            vec![Value::from(second)],
        )
        .await;
    let state = http::state(addr, MATCH).await;
    assert_eq!(state.moves.len(), second + 1, "{:?}", state.moves);
    assert_eq!(state.moves[second].san, played);
    assert_eq!(
        state.moves[second].board,
        bugbridge_broadcast::wire::Board::B
    );

    browser.close().await;
    daemon.stop().await;
}
