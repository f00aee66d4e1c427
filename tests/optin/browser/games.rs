//! A recorded game in the browser: the daemon plays twelve moves of a real game through two
//! emulated DGT boards, the arbiter records a resignation, and the game is then listed by
//! `/api/games` and opened at `/games/<match>/1`, where the buttons, the keys and a click on
//! the move list step through it. At every step each square and holding the page shows is
//! the position the daemon computed for that move (read with the daemon's own BFEN reader),
//! and the last position is the one the live match ended with.
//!
//! Then every page of the daemon (the past game, the front page, the viewer, the arbiter view
//! and its token form) is judged by what renders at each of
//! [`WIDTHS`](super::layout::WIDTHS).

use std::net::SocketAddr;

use bugbridge::rules::notation::bfen::parse_bfen;
use bugbridge::rules::{BoardId, RulesetName, Square, holdings_string};
use bugbridge_broadcast::wire::{self, GameRecord, GameSummary};
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http;
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::{LIMIT, within};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use serde_json::Value;

use super::driver::Browser;
use super::page::{post, snapshot};

const PLIES: usize = 12;

/// Waits until `/api/games` lists a game (the archive is filled right after the end is
/// published, so it may lag the stream by a moment).
pub(super) async fn listed(addr: SocketAddr) -> Vec<GameSummary> {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let (status, body) = http::get(addr, "/api/games").await;
        assert_eq!(status, 200, "GET /api/games: {body}");
        let games: Vec<GameSummary> =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        if !games.is_empty() {
            return games;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {LIMIT:?}: no recorded game listed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The placement and holdings of each board of a BFEN: what a position looks like, without
/// the clock times (the live BFEN has the clocks' latest readings, the record the BPGN's).
fn boards_of(bfen: &str) -> Vec<String> {
    bfen.split('|')
        .map(|half| half.split_whitespace().next().unwrap_or("").to_owned())
        .collect()
}

/// Asserts that the page shows ply `ply` of `game`: the counter, every square's piece, the
/// holdings, and the last move of each board highlighted.
async fn assert_shows_ply(browser: &Browser, game: &GameRecord, ply: usize) {
    let shown = browser
        .wait_for(
            &format!("the page at ply {ply}"),
            "return window.bugbridge.ply === arguments[0] && \
             document.getElementById('ply').textContent;",
            vec![Value::from(ply)],
        )
        .await;
    assert_eq!(shown, Value::from(format!("{ply} / {}", game.moves.len())));
    let bfen = if ply == 0 {
        &game.start_bfen
    } else {
        &game.moves[ply - 1].bfen
    };
    let boards = parse_bfen(bfen, RulesetName::Fide.ruleset()).expect("the daemon's BFEN");
    let raw = snapshot(browser).await.raw;
    let squares = raw["squares"].as_array().expect("squares");
    assert_eq!(squares.len(), 128, "ply {ply}: 64 squares per board");
    for (id, letter, position) in [
        (BoardId::A, "A", &boards.a.position),
        (BoardId::B, "B", &boards.b.position),
    ] {
        let last = game.moves[..ply].iter().rev().find(|m| {
            m.board
                == if id == BoardId::A {
                    wire::Board::A
                } else {
                    wire::Board::B
                }
        });
        for sq in squares.iter().filter(|s| s["board"] == letter) {
            let name = sq["square"].as_str().expect("data-square");
            let square: Square = name.parse().expect("a square name");
            let want = position
                .board()
                .piece_at(square)
                .map(|p| p.char().to_string())
                .unwrap_or_default();
            assert_eq!(
                sq["pieces"],
                Value::from(want),
                "ply {ply}: board {letter} {name}"
            );
            let from = last.and_then(|m| m.from.as_deref()) == Some(name);
            let to = last.is_some_and(|m| m.to == name);
            assert_eq!(
                sq["from"],
                Value::from(from),
                "ply {ply}: {letter} {name} origin"
            );
            assert_eq!(
                sq["to"],
                Value::from(to),
                "ply {ply}: {letter} {name} target"
            );
        }
        let mut want: Vec<char> = holdings_string(position.pockets()).chars().collect();
        let mut got = Vec::new();
        for h in raw["holdings"].as_array().expect("holdings") {
            if h["board"] == letter {
                let piece = h["piece"].as_str().expect("data-piece");
                for _ in 0..h["count"].as_u64().expect("data-count") {
                    got.extend(piece.chars());
                }
            }
        }
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "ply {ply}: board {letter} holdings");
    }
}

/// Presses `key` as a user would (WebDriver key actions on the focused page).
async fn press(browser: &Browser, key: Key) {
    let actions = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down { value: key.into() })
        .then(KeyAction::Up { value: key.into() });
    within("a key press", browser.client().perform_actions(actions))
        .await
        .expect("the key press");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_game_is_listed_and_steps_through_its_positions() {
    let game = TestGame::demo_prefix(PLIES);
    let records = TempDir::new("browser-games");
    let secrets = TempDir::new("browser-games-token");
    let token = format!("games-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, &token).expect("the token file");
    let mut table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();

    // Twelve moves at the table, then the arbiter records a resignation.
    let mut sse = http::Sse::open(addr, MATCH).await;
    table.synced().await;
    table
        .play_moves(PLIES, &mut async |n| sse.wait_moves(n).await)
        .await;
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
    let live = http::state(addr, MATCH).await;

    // Listed with its result and plies; its record has the live game's moves and position.
    let games = listed(addr).await;
    assert_eq!(games.len(), 1, "{games:?}");
    let g = &games[0];
    assert_eq!((g.match_id.as_str(), g.number), (MATCH, 1));
    assert_eq!((g.result.as_str(), g.plies), ("0-1", 12));
    assert_eq!(g.viewer, format!("/games/{MATCH}/1"));
    let (status, body) = http::get(addr, &g.api).await;
    assert_eq!(status, 200, "{body}");
    let record: GameRecord = serde_json::from_str(&body).expect("a recorded game");
    assert_eq!(record.moves.len(), PLIES);
    assert_eq!(record.incomplete, None);
    for (ply, live_move) in record.moves.iter().zip(&live.moves) {
        assert_eq!(
            (ply.board, ply.side, ply.number, &ply.san),
            (
                live_move.board,
                live_move.side,
                live_move.number,
                &live_move.san
            )
        );
    }
    assert_eq!(
        boards_of(&record.moves[PLIES - 1].bfen),
        boards_of(&live.bfen),
        "the record's last position is the live match's"
    );
    let (status, bpgn) = http::get(addr, &g.bpgn).await;
    assert_eq!(status, 200);
    assert!(bpgn.contains("[Result \"0-1\"]"), "{bpgn}");

    // The list on the front page links to the game.
    let browser = Browser::start().await;
    browser.goto(&format!("http://{addr}/")).await;
    let href = browser
        .wait_for(
            "the recorded game on the front page",
            "const a = document.querySelector('#games-list tr[data-game] a.open'); \
             return a && !document.getElementById('games').hidden ? a.getAttribute('href') : null;",
            vec![],
        )
        .await;
    assert_eq!(href, Value::from(g.viewer.clone()));

    // Opened, it shows the final position; then every way of stepping.
    browser.click("#games-list a.open").await;
    assert_shows_ply(&browser, &record, PLIES).await;
    browser.screenshot("browser-recorded-game").await;
    browser.click("#first").await;
    assert_shows_ply(&browser, &record, 0).await;
    for ply in 1..=3 {
        press(&browser, Key::Right).await;
        assert_shows_ply(&browser, &record, ply).await;
    }
    browser.click("#next").await;
    assert_shows_ply(&browser, &record, 4).await;
    press(&browser, Key::Left).await;
    browser.click("#prev").await;
    assert_shows_ply(&browser, &record, 2).await;
    press(&browser, Key::End).await;
    assert_shows_ply(&browser, &record, PLIES).await;
    press(&browser, Key::Right).await;
    assert_shows_ply(&browser, &record, PLIES).await;
    press(&browser, Key::Home).await;
    assert_shows_ply(&browser, &record, 0).await;
    browser.click("#moves li[data-index='6']").await;
    assert_shows_ply(&browser, &record, 7).await;
    browser.click("#last").await;
    assert_shows_ply(&browser, &record, PLIES).await;

    // Every page of the daemon judged by what renders, at a desktop's, a laptop's and a
    // phone's width: the past game, the front page, the viewer, the arbiter view.
    super::layout::assert_renders(&browser, "past-game", "main, header.chrome").await;
    browser.goto(&format!("http://{addr}/")).await;
    browser
        .wait_for(
            "the match and the recorded game on the front page",
            "return !!document.querySelector('.match-card') && !document.getElementById('games').hidden;",
            vec![],
        )
        .await;
    super::layout::assert_renders(
        &browser,
        "daemon-index",
        "header.chrome, .match-card, #games",
    )
    .await;
    for (page, path) in [
        ("daemon-viewer", format!("/match/{MATCH}")),
        (
            "daemon-arbiter-view",
            format!("/arbiter/{MATCH}?token={token}"),
        ),
    ] {
        browser.goto(&format!("http://{addr}{path}")).await;
        browser
            .wait_for(
                "the page's state",
                "const s = window.bugbridge && window.bugbridge.state; return !!s && !!s.result;",
                vec![],
            )
            .await;
        super::layout::assert_renders(&browser, page, "main, header.chrome").await;
    }
    // The arbiter view without the token: the form asking for it.
    browser
        .client()
        .delete_all_cookies()
        .await
        .expect("cookies cleared");
    browser
        .goto(&format!("http://{addr}/arbiter/{MATCH}"))
        .await;
    browser
        .wait_for(
            "the token form",
            "return !!document.getElementById('token');",
            vec![],
        )
        .await;
    super::layout::assert_renders(&browser, "arbiter-login", "main").await;

    browser.close().await;
    daemon.stop().await;
}
