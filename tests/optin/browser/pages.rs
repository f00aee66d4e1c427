//! The move lists and a one-board table in the pages.
//!
//! * The live viewer opened on a game already long enough for its move list to scroll
//!   shows the current (last) move, once laid out; the recorded game's page keeps the
//!   highlighted move in view while it is stepped through.
//! * A one-board table as `config/minimal.toml` (board A without a clock, board B not
//!   configured) shows no clocks, no flagged clock, and does not draw board B as cut off.

use bugbridge_drivers::trace::BoardId;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http;
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use fantoccini::key::Key;
use serde_json::Value;

use super::driver::Browser;
use super::page::post;

/// Waits until the move `css` of the list (`#moves`) is scrolled into the list's view;
/// asserts the list overflows (else the check says nothing).
async fn in_view(browser: &Browser, what: &str, css: &str) {
    let overflow = browser
        .wait_for(
            what,
            "const list = document.getElementById('moves'); \
             const li = list.querySelector(arguments[0]); \
             if (!li) return null; \
             const b = list.getBoundingClientRect(), r = li.getBoundingClientRect(); \
             const inside = r.top >= b.top - 1 && r.bottom <= b.bottom + 1; \
             return inside ? { overflow: list.scrollHeight > list.clientHeight + 4 } : null;",
            vec![Value::from(css)],
        )
        .await;
    assert_eq!(
        overflow["overflow"], true,
        "{what}: the list does not overflow"
    );
}

async fn press(browser: &Browser, key: Key) {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let actions = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down { value: key.into() })
        .then(KeyAction::Up { value: key.into() });
    bugbridge_tests::within("a key press", browser.client().perform_actions(actions))
        .await
        .expect("the key press");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_lists_show_the_current_move_on_load_and_while_stepping() {
    const PLIES: usize = 60;
    let game = TestGame::demo_prefix(PLIES);
    let records = TempDir::new("browser-lists");
    let secrets = TempDir::new("browser-lists-token");
    let token = format!("lists-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, &token).expect("the token file");
    let mut table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let mut sse = http::Sse::open(addr, MATCH).await;
    table.synced().await;
    table
        .play_moves(PLIES, &mut async |n| sse.wait_moves(n).await)
        .await;

    // The live viewer, opened now (a window where the list is shorter than the game).
    let browser = Browser::start().await;
    browser
        .client()
        .set_window_size(1280, 600)
        .await
        .expect("a resize");
    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    in_view(
        &browser,
        "the live list's last move in view on load",
        &format!("li[data-index='{}'].current", PLIES - 1),
    )
    .await;
    browser.screenshot("browser-list-on-load").await;

    // The game archived (a result), and its page stepped through from the start.
    let bearer = format!("Bearer {token}");
    let (status, body) = post(
        addr,
        &format!("/api/matches/{MATCH}/arbiter/actions"),
        &[("Authorization", bearer.as_str())],
        r#"{"action":"result","result":"0-1","reason":"resignation"}"#,
    )
    .await;
    assert_eq!(status, 202, "{body}");
    sse.until_state(|s| s.result.is_some()).await;
    // The archive is filled right after the end is published: the page reads it once.
    super::games::listed(addr).await;
    browser
        .goto(&format!("http://{addr}/games/{MATCH}/1"))
        .await;
    in_view(
        &browser,
        "the recorded game's last move in view",
        &format!("li[data-index='{}'].current", PLIES - 1),
    )
    .await;
    press(&browser, Key::Home).await;
    browser
        .wait_for("the start", "return window.bugbridge.ply === 0;", vec![])
        .await;
    for ply in 1..=PLIES {
        press(&browser, Key::Right).await;
        in_view(
            &browser,
            &format!("move {ply} in view while stepping"),
            &format!("li[data-index='{}'].current", ply - 1),
        )
        .await;
    }
    press(&browser, Key::Home).await;
    browser.click("#last").await;
    in_view(
        &browser,
        "the last move in view again",
        &format!("li[data-index='{}'].current", PLIES - 1),
    )
    .await;

    browser.close().await;
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_board_table_shows_no_clocks_and_no_lost_link_for_the_other_board() {
    let game = TestGame::demo_prefix(6);
    let records = TempDir::new("browser-one-board");
    let table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    // As config/minimal.toml: board A only, without a clock.
    cfg.boards.retain(|b| b.id == bugbridge::rules::BoardId::A);
    assert_eq!(cfg.boards.len(), 1);
    cfg.boards[0].clock = bugbridge::config::ClockSource::None;
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    table
        .wait_status(BoardId::A, "a host synced with board A", |s| s.synced)
        .await;
    let state = http::state(addr, MATCH).await;
    assert!(
        !state.boards.B.configured,
        "board B published as not configured"
    );
    assert!(state.clocks.B.unread, "{:?}", state.clocks);

    let browser = Browser::start().await;
    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    let shown = browser
        .wait_for(
            "board A connected, board B drawn as not configured",
            "const s = window.bugbridge && window.bugbridge.state; \
             if (!s || !s.boards.A.connected) return null; \
             const b = document.getElementById('block-B'); \
             if (b.dataset.configured !== 'no') return null; \
             const clocks = [...document.querySelectorAll('.clock[data-board]')].map(c => ({ \
               board: c.dataset.board, shown: !c.hidden && c.offsetParent !== null, \
               flagged: c.classList.contains('flagged'), text: c.textContent })); \
             return { link: b.dataset.link, lost: b.classList.contains('disconnected'), \
                      title: b.title, clocks };",
            vec![],
        )
        .await;
    assert_eq!(shown["link"], "up", "{shown}");
    assert_eq!(shown["lost"], false, "{shown}");
    assert!(
        !shown["title"].as_str().unwrap_or("").contains("link lost"),
        "{shown}"
    );
    let clocks = shown["clocks"].as_array().expect("the clocks");
    assert_eq!(clocks.len(), 4, "{shown}");
    for c in clocks {
        // Board A has no clock either (none configured): nothing to show, no red 0.0.
        assert_eq!(c["shown"], false, "no clock is shown: {shown}");
        assert_eq!(c["flagged"], false, "no flagged clock: {shown}");
    }
    browser.screenshot("browser-one-board").await;

    browser.close().await;
    daemon.stop().await;
}
