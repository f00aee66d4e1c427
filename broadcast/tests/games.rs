//! The recorded games over HTTP: the list, one game with its positions, its BPGN, the page
//! that steps through it, and the 404s of games that are not there.

use std::collections::BTreeMap;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use bugbridge_broadcast::archive::Archive;
use bugbridge_broadcast::http::{HttpOptions, router};
use bugbridge_broadcast::wire::{Board, ByBoard, GamePly, GameRecord, GameSummary, Players, Side};
use bugbridge_broadcast::{Hub, HubOptions};
use tower::ServiceExt;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P4/8/PPPP1PPP/RNBQKBNR b KQkq - 178 180";

/// Game `number` of `match_id`: 1A. e4 {178} and a result, as the daemon hands it over.
fn record(match_id: &str, number: u32, result: &str) -> GameRecord {
    let mut tags = BTreeMap::new();
    tags.insert("WhiteA".to_owned(), "Ann".to_owned());
    tags.insert("Result".to_owned(), result.to_owned());
    GameRecord {
        summary: GameSummary {
            match_id: match_id.to_owned(),
            number,
            players: ByBoard {
                A: Players {
                    white: Some("Ann".to_owned()),
                    black: Some("Bob".to_owned()),
                },
                B: Players::default(),
            },
            result: result.to_owned(),
            plies: 1,
            date: Some("2026.11.23".to_owned()),
            viewer: "ignored: the hub sets it".to_owned(),
            api: String::new(),
            bpgn: String::new(),
        },
        tags,
        start_bfen: format!("{START} | {START}"),
        moves: vec![GamePly {
            board: Board::A,
            side: Side::White,
            number: 1,
            san: "e4".to_owned(),
            clock: Some(178.0),
            from: Some("e2".to_owned()),
            to: "e4".to_owned(),
            drop: None,
            bfen: format!("{AFTER_E4} | {START}"),
        }],
        incomplete: None,
    }
}

fn bpgn(result: &str) -> String {
    format!("[WhiteA \"Ann\"]\n[Result \"{result}\"]\n\n1A. e4 {{178}} {result}\n")
}

fn setup() -> (Hub, Router) {
    let (hub, _actions) = Hub::new(HubOptions::default());
    hub.archive().add(record("table-1", 2, "0-1"), bpgn("0-1"));
    hub.archive().add(record("table-1", 1, "1-0"), bpgn("1-0"));
    let app = router(hub.clone(), HttpOptions::default());
    (hub, app)
}

async fn get(app: &Router, uri: &str) -> (StatusCode, BTreeMap<String, String>, String) {
    let r = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = r.status();
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let body = to_bytes(r.into_body(), 1 << 24).await.unwrap();
    (status, headers, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test]
async fn the_list_names_every_game_with_its_links() {
    let (_hub, app) = setup();
    let (status, headers, body) = get(&app, "/api/games").await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE.as_str()].starts_with("application/json"));
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    // By match, then number, whatever the order they were added in.
    assert_eq!(list[0]["match"], "table-1");
    assert_eq!(list[0]["number"], 1);
    assert_eq!(list[0]["result"], "1-0");
    assert_eq!(list[0]["plies"], 1);
    assert_eq!(list[0]["players"]["A"]["white"], "Ann");
    assert_eq!(list[0]["players"]["A"]["black"], "Bob");
    assert_eq!(list[0]["date"], "2026.11.23");
    assert_eq!(list[0]["viewer"], "/games/table-1/1");
    assert_eq!(list[0]["api"], "/api/games/table-1/1");
    assert_eq!(list[0]["bpgn"], "/api/games/table-1/1/bpgn");
    assert_eq!(list[1]["number"], 2);
    assert_eq!(list[1]["result"], "0-1");
    // The list carries no positions: those are per game.
    assert!(list[0].get("moves").is_none());
}

#[tokio::test]
async fn one_game_has_its_positions_and_its_bpgn() {
    let (_hub, app) = setup();
    let (status, _, body) = get(&app, "/api/games/table-1/1").await;
    assert_eq!(status, StatusCode::OK);
    let game: GameRecord = serde_json::from_str(&body).unwrap();
    let mut want = record("table-1", 1, "1-0");
    want.summary.viewer = "/games/table-1/1".to_owned();
    want.summary.api = "/api/games/table-1/1".to_owned();
    want.summary.bpgn = "/api/games/table-1/1/bpgn".to_owned();
    assert_eq!(
        game, want,
        "everything round-trips, results and clocks included"
    );

    let (status, headers, body) = get(&app, "/api/games/table-1/2/bpgn").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, bpgn("0-1"));
    assert!(headers[header::CONTENT_TYPE.as_str()].starts_with("text/plain"));
    assert_eq!(
        headers[header::CONTENT_DISPOSITION.as_str()],
        "attachment; filename=\"table-1-2.bpgn\""
    );
}

#[tokio::test]
async fn a_game_that_is_not_recorded_is_a_json_404() {
    let (_hub, app) = setup();
    for uri in [
        "/api/games/table-1/3",
        "/api/games/table-9/1",
        "/api/games/table-1/one",
        "/api/games/table-1/-1",
        "/api/games/table-1/3/bpgn",
        "/games/table-1/3",
        "/games/table-1/x",
    ] {
        let (status, _, body) = get(&app, uri).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        let err: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(
            err["error"].as_str().unwrap().contains("no recorded game"),
            "{uri}: {body}"
        );
    }
}

#[tokio::test]
async fn the_step_through_page_and_its_script_are_served() {
    let (_hub, app) = setup();
    let (status, headers, html) = get(&app, "/games/table-1/1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE.as_str()].starts_with("text/html"));
    assert!(html.contains("/assets/game.js") && html.contains("/assets/board.js"));
    for control in ["id=\"first\"", "id=\"prev\"", "id=\"next\"", "id=\"last\""] {
        assert!(html.contains(control), "{control}");
    }
    let (status, headers, js) = get(&app, "/assets/game.js").await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE.as_str()].starts_with("text/javascript"));
    assert!(js.contains("ArrowLeft") && js.contains("ArrowRight"));
    // The match list links to the recorded games.
    let (_, _, index_js) = get(&app, "/assets/index.js").await;
    assert!(index_js.contains("/api/games"));
}

#[tokio::test]
async fn a_game_added_again_replaces_the_first_one() {
    let (hub, app) = setup();
    let mut corrected = record("table-1", 1, "1/2-1/2");
    corrected.moves[0].san = "e3".to_owned();
    hub.archive().add(corrected, bpgn("1/2-1/2"));
    let (_, _, body) = get(&app, "/api/games").await;
    let list: Vec<GameSummary> = serde_json::from_str(&body).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].result, "1/2-1/2");
    let (_, _, body) = get(&app, "/api/games/table-1/1").await;
    let game: GameRecord = serde_json::from_str(&body).unwrap();
    assert_eq!(game.moves[0].san, "e3");
}

#[test]
fn the_archive_keeps_the_most_recent_games() {
    let archive = Archive::default();
    let total = u32::try_from(Archive::CAPACITY).unwrap() + 5;
    for n in 1..=total {
        archive.add(record("t", n, "1-0"), String::new());
    }
    let list = archive.list();
    assert_eq!(list.len(), Archive::CAPACITY);
    let numbers: Vec<u32> = list.iter().map(|g| g.number).collect();
    assert_eq!(numbers.first(), Some(&6), "the five oldest left first");
    assert_eq!(numbers.last(), Some(&total));
}
