//! The viewer and arbiter pages in headless Chromium (Debian's `chromium` driven by its
//! `chromedriver` through [`fantoccini`]), against the daemon in-process with two emulated
//! DGT boards with clocks playing a real corpus game (`1934301`) one event at a time.
//!
//! * [`the_viewer_shows_the_daemons_squares_holdings_and_clocks`]: at several points of
//!   the game (the last after a capture and a drop, with pieces in hand) every square,
//!   holding and clock the page shows is the daemon's (`GET /api/matches/<id>`).
//! * [`the_viewer_shows_a_koedem_king_in_hand_to_be_dropped`]: a Koedem game up to a
//!   king taken and not yet dropped: the page shows it in hand, with "must drop the king".
//! * [`the_viewer_catches_up_after_a_daemon_restart_without_a_reload`]: the daemon stopped
//!   and started again on the same port (recovering its journal); the open page reconnects
//!   and follows the game on.
//! * [`the_arbiter_view_needs_the_token_and_its_actions_reach_the_daemon`]: 401 and the
//!   login form without the token; with it the alert feed (`link-lost` and
//!   `link-restored` from a pulled cable put back) and a result recorded through the
//!   page's form, which the daemon applies and the public viewer shows; the same action
//!   without the token is refused and changes nothing.
//! * [`the_header_shows_the_brokers_state_in_the_viewer_and_the_arbiter_view`]: a broker
//!   that cannot be reached shows as `MQTT down (refused)` in both pages' header.
//!
//! * [`arbiter`]: the arbiter view's result (teams named, the ruleset's end reasons, a
//!   correction), promotion and replace forms change the record.
//! * [`gaps`]: a board cut off (marked), a move reconstructed after its replug (marked),
//!   and a board nothing explains after a replug, drawn as it stands and "not recorded".
//! * [`pages`]: the move lists scrolled to the current move (live on load, and while a
//!   recorded game is stepped through), and a one-board table.
//! * [`tournament`]: the relay's tournament page, and its public delay.
//!
//! Screenshots of the pages go to `$BUGBRIDGE_ARTIFACTS` (default `target/ci-artifacts`).
//! Waits are on the page's own state (`window.bugbridge`), the emulators' status or the
//! daemon's API, each bounded by [`LIMIT`](bugbridge_tests::LIMIT); no fixed sleeps, no
//! fixed ports.

#[path = "browser/arbiter.rs"]
mod arbiter;
#[path = "browser/driver.rs"]
mod driver;
#[path = "browser/games.rs"]
mod games;
#[path = "browser/gaps.rs"]
mod gaps;
#[path = "browser/layout.rs"]
mod layout;
#[path = "browser/page.rs"]
mod page;
#[path = "browser/pages.rs"]
mod pages;
#[path = "browser/tournament.rs"]
mod tournament;

use std::net::SocketAddr;

use bugbridge::rules::notation::bfen::parse_bfen;
use bugbridge::rules::{RulesetName, holdings_string};
use bugbridge_broadcast::wire::MatchResult;
use bugbridge_drivers::trace::BoardId;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http;
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use fantoccini::Locator;
use serde_json::Value;

use driver::{Browser, free_port};
use page::{assert_shows, caught_up, post, wait_moves};

/// Whether either board has pieces in hand in `bfen`.
fn has_holdings(bfen: &str) -> bool {
    let boards = parse_bfen(bfen, RulesetName::Fide.ruleset()).expect("the game's BFEN");
    !holdings_string(boards.a.position.pockets()).is_empty()
        || !holdings_string(boards.b.position.pockets()).is_empty()
}

/// The move counts at which the page is compared: early, the first time pieces are in hand
/// after a capture and a drop, and the end of `game`.
fn checkpoints(game: &TestGame) -> Vec<usize> {
    let capture = game
        .moves
        .iter()
        .position(|m| m.san.contains('x'))
        .expect("the game has a capture");
    let drop = game
        .moves
        .iter()
        .position(|m| m.san.contains('@'))
        .expect("the game has a drop");
    assert!(capture < drop, "a drop needs a capture first");
    let held = (drop + 1..=game.moves.len())
        .find(|&n| has_holdings(&game.moves[n - 1].bfen))
        .expect("pieces in hand after the first drop");
    let mut out = vec![6, held, game.moves.len()];
    out.dedup();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_shows_the_daemons_squares_holdings_and_clocks() {
    let game = TestGame::demo_prefix(30);
    let records = TempDir::new("browser-viewer");
    let mut table = Table::start(&game, None);
    let daemon = InProcess::start(config(&table, None, records.path())).await;
    let addr = daemon.http();
    let browser = Browser::start().await;
    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    table.synced().await;

    let (truth, shown) = caught_up(&browser, addr, MATCH).await;
    assert!(truth.moves.is_empty());
    assert_shows(&shown, &truth, "before the first move");

    for n in checkpoints(&game) {
        // The page is the sync point: each move is waited for until the page has it.
        table
            .play_moves(n, &mut async |k| wait_moves(&browser, k).await)
            .await;
        let (truth, shown) = caught_up(&browser, addr, MATCH).await;
        assert_eq!(truth.moves.len(), n);
        assert_eq!(
            truth.bfen,
            game.moves[n - 1].bfen,
            "the daemon after move {n}"
        );
        assert_shows(&shown, &truth, &format!("after move {n}"));
    }
    let (truth, _) = caught_up(&browser, addr, MATCH).await;
    assert!(has_holdings(&truth.bfen), "pieces in hand at the end");
    let png = browser.screenshot("browser-viewer").await;
    assert!(png.is_file());

    browser.close().await;
    daemon.stop().await;
}

/// Whether a king is in hand on either board of `bfen` (Koedem).
fn king_in_hand(bfen: &str) -> bool {
    let boards = parse_bfen(bfen, RulesetName::Koedem.ruleset()).expect("the game's BFEN");
    [&boards.a.position, &boards.b.position]
        .iter()
        .any(|p| holdings_string(p.pockets()).contains(['K', 'k']))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_shows_a_koedem_king_in_hand_to_be_dropped() {
    let game = TestGame::koedem(21);
    let records = TempDir::new("browser-koedem");
    let mut table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    cfg.ruleset = RulesetName::Koedem;
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let browser = Browser::start().await;
    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    table.synced().await;
    let n = (1..=game.moves.len())
        .find(|&n| king_in_hand(&game.moves[n - 1].bfen))
        .expect("the game has a king taken and not yet dropped");
    table
        .play_moves(n, &mut async |k| wait_moves(&browser, k).await)
        .await;
    let (truth, shown) = caught_up(&browser, addr, MATCH).await;
    assert!(king_in_hand(&truth.bfen));
    // Every square and holding as the daemon has it: the king among the pieces in hand.
    assert_shows(&shown, &truth, &format!("after move {n}"));
    let note = browser
        .eval(
            "return [...document.querySelectorAll('.must-drop')].map(e => e.textContent);",
            vec![],
        )
        .await;
    assert_eq!(note, serde_json::json!(["must drop the king"]));
    let png = browser.screenshot("browser-koedem").await;
    assert!(png.is_file());
    browser.close().await;
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_catches_up_after_a_daemon_restart_without_a_reload() {
    let game = TestGame::demo_prefix(30);
    let records = TempDir::new("browser-restart");
    let links = TempDir::new("browser-restart-links");
    // Symlinks to the boards' ptys: the restarted daemon opens the same paths.
    let mut table = Table::start(&game, Some(links.path()));
    let mut cfg = config(&table, None, records.path());
    // The same port after the restart, so that the page's EventSource finds it again.
    let listen = SocketAddr::from(([127, 0, 0, 1], free_port()));
    cfg.http.as_mut().expect("HTTP is on").listen = listen;
    let daemon = InProcess::start(cfg.clone()).await;
    assert_eq!(daemon.http(), listen);
    let browser = Browser::start().await;
    browser
        .goto(&format!("http://{listen}/match/{MATCH}"))
        .await;
    table.synced().await;

    table
        .play_moves(12, &mut async |k| wait_moves(&browser, k).await)
        .await;
    let (truth, shown) = caught_up(&browser, listen, MATCH).await;
    assert_shows(&shown, &truth, "after move 12, before the restart");
    // Marks this page load: a reload would lose it.
    browser
        .eval(
            "window.bugbridgeTestMark = 'loaded once'; return true;",
            vec![],
        )
        .await;

    // Stop the daemon: its streams end, the page says so.
    let commands = [BoardId::A, BoardId::B].map(|b| table.emulator(b).status().device.commands);
    daemon.stop().await;
    browser
        .wait_for(
            "the page to see the daemon gone",
            "return !window.bugbridge.connected && \
             document.getElementById('conn').dataset.state !== 'live';",
            vec![],
        )
        .await;
    let states_before = page::snapshot(&browser).await.state_count;

    // Start it again: same configuration, record directory and port; it recovers its journal
    // and reopens the boards (a fresh handshake).
    let daemon = InProcess::start(cfg).await;
    assert_eq!(daemon.http(), listen);
    for (b, before) in [BoardId::A, BoardId::B].into_iter().zip(commands) {
        table
            .wait_status(b, "the restarted daemon's handshake", |s| {
                s.synced && s.device.commands >= before + 4
            })
            .await;
    }
    // The page reconnects by itself and gets the catch-up state.
    browser
        .wait_for(
            "the page live again with a fresh state",
            "return window.bugbridge.connected && window.bugbridge.stateCount > arguments[0];",
            vec![states_before.into()],
        )
        .await;
    let (truth, shown) = caught_up(&browser, listen, MATCH).await;
    assert_eq!(truth.moves.len(), 12, "moves recovered from the journal");
    assert_shows(&shown, &truth, "after the restart");

    // The game goes on; the same page follows it.
    table
        .play_moves(game.moves.len(), &mut async |k| {
            wait_moves(&browser, k).await;
        })
        .await;
    let (truth, shown) = caught_up(&browser, listen, MATCH).await;
    assert_eq!(truth.moves.len(), game.moves.len());
    assert_eq!(truth.bfen, game.final_bfen);
    assert_shows(&shown, &truth, "at the end, after the restart");
    assert_eq!(
        browser
            .eval("return window.bugbridgeTestMark || null;", vec![])
            .await,
        Value::from("loaded once"),
        "the page was reloaded"
    );
    browser.screenshot("browser-viewer-after-restart").await;

    browser.close().await;
    daemon.stop().await;
}

/// A result action as the arbiter page posts it.
fn result_action(result: &str) -> String {
    format!(r#"{{"action":"result","result":"{result}","reason":"resignation"}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arbiter_view_needs_the_token_and_its_actions_reach_the_daemon() {
    let game = TestGame::demo_prefix(12);
    let records = TempDir::new("browser-arbiter");
    let links = TempDir::new("browser-arbiter-links");
    let secrets = TempDir::new("browser-arbiter-token");
    let token = format!("arbiter-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, format!("{token}\n")).expect("the token file");
    let mut table = Table::start(&game, Some(links.path()));
    let mut cfg = config(&table, None, records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let arbiter = format!("/arbiter/{MATCH}");
    let actions = format!("/api/matches/{MATCH}/arbiter/actions");

    // Without the token (or with a wrong one): 401 and a login form.
    for path in [arbiter.clone(), format!("{arbiter}?token=wrong")] {
        let (status, body) = http::get(addr, &path).await;
        assert_eq!(status, 401, "GET {path}: {body}");
        assert!(
            body.contains(r#"id="token""#),
            "GET {path}: no login form: {body}"
        );
    }
    let (status, _) = http::get(addr, &format!("/api/matches/{MATCH}/alerts")).await;
    assert_eq!(status, 401);

    let browser = Browser::start().await;
    browser.goto(&format!("http://{addr}{arbiter}")).await;
    browser
        .wait_for(
            "the login form, and no arbiter view",
            "return document.body.classList.contains('login') && \
             !!document.getElementById('token') && !document.getElementById('alerts') && \
             !window.bugbridge;",
            vec![],
        )
        .await;
    browser.screenshot("browser-arbiter-login").await;

    // The token through the form (→ `?token=`): the arbiter view, the token out of the URL.
    browser.type_into("#token", &token).await;
    browser.click("form button[type=submit]").await;
    browser
        .wait_for(
            "the arbiter view",
            "return document.body.dataset.page === 'arbiter' && !!window.bugbridge && \
             window.bugbridge.connected && !!window.bugbridge.state && \
             !!document.getElementById('alerts');",
            vec![],
        )
        .await;
    let url = browser.client().current_url().await.expect("the URL");
    assert_eq!(url.path(), arbiter);
    assert!(
        url.query().is_none(),
        "the token stays in the address bar: {url}"
    );
    table.synced().await;
    table
        .play_moves(6, &mut async |k| wait_moves(&browser, k).await)
        .await;
    let (truth, shown) = caught_up(&browser, addr, MATCH).await;
    assert_shows(&shown, &truth, "the arbiter view after move 6");

    // An alert in the feed: board B's cable pulled, then put back.
    table.emulator(BoardId::B).unplug();
    let alert = browser
        .wait_for(
            "a link-lost alert in the feed",
            "const li = document.querySelector('#alerts li[data-code=\"link-lost\"]'); \
             return li ? li.textContent : null;",
            vec![],
        )
        .await;
    assert!(
        alert.as_str().is_some_and(|t| t.contains("board B")),
        "{alert}"
    );
    // It shows the game's number and the time of day it was raised (`game`, `wall`).
    let shown = browser
        .eval(
            "const li = document.querySelector('#alerts li[data-code=\"link-lost\"]'); \
             const a = window.bugbridge.alerts.find(x => x.code === 'link-lost'); \
             return [li.querySelector('.game').textContent, li.querySelector('.when').textContent, a.game, a.wall, Date.now()];",
            vec![],
        )
        .await;
    assert_eq!(shown[0], "game 1", "{shown}");
    assert!(
        shown[1]
            .as_str()
            .is_some_and(|t| t.len() == 8 && t.matches(':').count() == 2),
        "a time of day hh:mm:ss: {shown}"
    );
    assert_eq!(shown[2], 1, "{shown}");
    let (wall, now) = (shown[3].as_u64(), shown[4].as_u64());
    assert!(
        wall.zip(now)
            .is_some_and(|(w, n)| w <= n + 5_000 && n - w < 600_000),
        "the alert's wall time is now: {shown}"
    );
    table
        .emulator_mut(BoardId::B)
        .replug()
        .expect("a new pty for board B");
    table
        .wait_status(BoardId::B, "board B replugged and synced", |s| {
            s.attached && s.synced
        })
        .await;
    browser
        .wait_for(
            "board B connected again on the page",
            "const s = window.bugbridge.state; return !!s && s.boards.B.connected;",
            vec![],
        )
        .await;
    let restored = browser
        .wait_for(
            "a link-restored alert in the feed",
            "const li = document.querySelector('#alerts li[data-code=\"link-restored\"]'); \
             return li ? li.textContent : null;",
            vec![],
        )
        .await;
    assert!(
        restored.as_str().is_some_and(|t| t.contains("board B")),
        "{restored}"
    );

    // The public viewer, live, in a second window.
    let client = browser.client();
    let arbiter_window = client.window().await.expect("the window");
    let viewer_window = client.new_window(false).await.expect("a new window").handle;
    client
        .switch_to_window(viewer_window.clone())
        .await
        .expect("the viewer window");
    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    let (truth, shown) = caught_up(&browser, addr, MATCH).await;
    assert_shows(&shown, &truth, "the public viewer before the action");
    client
        .switch_to_window(arbiter_window.clone())
        .await
        .expect("the arbiter window");

    // The action without the token, with a wrong one, or with only the page's cookie: 401,
    // and nothing changes.
    let before = http::state(addr, MATCH).await;
    let cookie = format!("bugbridge_arbiter={token}");
    let wrong = [
        vec![],
        vec![("Authorization", "Bearer wrong")],
        vec![("Cookie", cookie.as_str())],
    ];
    for headers in &wrong {
        let (status, body) = post(addr, &actions, headers, &result_action("0-1")).await;
        assert_eq!(status, 401, "POST with {headers:?}: {body}");
    }
    let after = http::state(addr, MATCH).await;
    assert_eq!(after.result, None);
    assert_eq!((after.seq, &after.moves), (before.seq, &before.moves));

    // The action through the page: record 1-0 by resignation (the page asks to confirm).
    let form = client
        .find(Locator::Css("#act-result"))
        .await
        .expect("the result form");
    for (name, value) in [("result", "1-0"), ("reason", "resignation")] {
        form.find(Locator::Css(&format!("select[name={name}]")))
            .await
            .expect("a select")
            .select_by_value(value)
            .await
            .expect("an option");
    }
    browser.click("#act-result button[type=submit]").await;
    browser.accept_dialog("Record 1-0 (resignation)").await;
    let results = browser
        .wait_for(
            "the page's answer to the action",
            "const r = window.bugbridge.actionResults; return r.length ? r : null;",
            vec![],
        )
        .await;
    assert_eq!(results[0]["status"], 202, "{results}");
    browser
        .wait_for(
            "the result on the arbiter page",
            "return !document.getElementById('result').hidden;",
            vec![],
        )
        .await;
    let (truth, shown) = caught_up(&browser, addr, MATCH).await;
    let want = |r: &Option<MatchResult>| {
        r.as_ref()
            .is_some_and(|r| r.result == "1-0" && r.reason == "resignation")
    };
    assert!(
        want(&truth.result),
        "the daemon's result: {:?}",
        truth.result
    );
    assert_shows(&shown, &truth, "the arbiter view after the result");
    let banner = shown.result.clone().unwrap_or_default();
    assert!(
        banner.starts_with("1-0") && banner.contains("resignation"),
        "{banner:?}"
    );
    // The arbiter view is laid out for a full-HD screen (at narrower widths its panel goes
    // under the boards).
    browser
        .client()
        .set_window_size(1920, 1080)
        .await
        .expect("a resize");
    browser
        .eval("window.scrollTo(0, 0); return true;", vec![])
        .await;
    browser.screenshot("browser-arbiter").await;

    // The public viewer shows it too, without a reload.
    client
        .switch_to_window(viewer_window)
        .await
        .expect("the viewer window");
    browser
        .wait_for(
            "the result on the public viewer",
            "return !document.getElementById('result').hidden;",
            vec![],
        )
        .await;
    let (truth, shown) = caught_up(&browser, addr, MATCH).await;
    assert_shows(&shown, &truth, "the public viewer after the result");
    assert_eq!(shown.result.as_deref(), Some(banner.as_str()));
    assert!(
        browser
            .eval("return !document.getElementById('alerts');", vec![])
            .await
            .as_bool()
            .unwrap_or(false),
        "the public viewer has no alert feed"
    );
    browser.screenshot("browser-viewer-result").await;

    // Without the token once more: refused, the result stays.
    let (status, _) = post(addr, &actions, &[], &result_action("0-1")).await;
    assert_eq!(status, 401);
    assert!(want(&http::state(addr, MATCH).await.result));

    browser.close().await;
    daemon.stop().await;
}

/// The text of the broker badge in the page's header once it says `expected`.
async fn broker_badge(browser: &Browser, expected: &str) -> String {
    let v = browser
        .wait_for(
            &format!("the header's broker badge to say {expected:?}"),
            "const el = document.getElementById('broker');\
             return el && !el.hidden && el.textContent.includes(arguments[0]) \
                 ? el.textContent + ' | ' + el.title : null;",
            vec![Value::from(expected)],
        )
        .await;
    v.as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_header_shows_the_brokers_state_in_the_viewer_and_the_arbiter_view() {
    let game = TestGame::demo_prefix(6);
    let records = TempDir::new("browser-broker");
    let secrets = TempDir::new("browser-broker-token");
    let token = format!("broker-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, format!("{token}\n")).expect("the token file");
    // Nothing listens at the broker's address: the header says MQTT is down, and why.
    let nowhere = format!("mqtt://127.0.0.1:{}", free_port());
    let table = Table::start(&game, None);
    let mut cfg = config(&table, Some(&nowhere), records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let browser = Browser::start().await;

    browser.goto(&format!("http://{addr}/match/{MATCH}")).await;
    let badge = broker_badge(&browser, "MQTT down").await;
    assert!(badge.contains("refused"), "{badge}");
    assert!(badge.contains(&nowhere.replace("mqtt://", "")), "{badge}");

    browser
        .goto(&format!("http://{addr}/arbiter/{MATCH}?token={token}"))
        .await;
    let badge = broker_badge(&browser, "MQTT down").await;
    assert!(badge.contains("refused"), "{badge}");
    let png = browser.screenshot("browser-broker-down").await;
    assert!(png.is_file());

    browser.close().await;
    daemon.stop().await;
    drop(table);
}
