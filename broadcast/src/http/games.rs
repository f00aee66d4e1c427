//! The recorded games: the list, one game with its positions, its BPGN, and the page that
//! steps through it.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::AppState;
use super::api::error;
use super::export::{CHANGED_HEADER, ForQuery, append_lines, body_for};
use crate::archive::ArchivedGame;

pub(crate) const GAME_HTML: &str = include_str!("assets/game.html");

/// The game named by the path, or the 404 that says which one is missing. The number is
/// taken as text so that `/api/games/x/abc` gets the same JSON 404 as any unknown game.
fn lookup(app: &AppState, match_id: &str, number: &str) -> Result<ArchivedGame, Box<Response>> {
    number
        .parse::<u32>()
        .ok()
        .and_then(|n| app.hub.archive().get(match_id, n))
        .ok_or_else(|| {
            Box::new(error(
                StatusCode::NOT_FOUND,
                format!("no recorded game {number:?} of match {match_id:?}"),
            ))
        })
}

pub(crate) async fn list(State(app): State<AppState>) -> Response {
    Json(app.hub.archive().list()).into_response()
}

pub(crate) async fn record(
    State(app): State<AppState>,
    Path((match_id, number)): Path<(String, String)>,
) -> Response {
    match lookup(&app, &match_id, &number) {
        Ok(game) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            game.json,
        )
            .into_response(),
        Err(r) => *r,
    }
}

pub(crate) async fn bpgn(
    State(app): State<AppState>,
    Path((match_id, number)): Path<(String, String)>,
    Query(query): Query<ForQuery>,
) -> Response {
    let game = match lookup(&app, &match_id, &number) {
        Ok(g) => g,
        Err(r) => return *r,
    };
    let (body, changed) = match body_for(game.bpgn, &query) {
        Ok(b) => b,
        Err(r) => return *r,
    };
    // Match ids are restricted to A-Za-z0-9._- and the number is digits: safe when quoted.
    let disposition = format!(
        "attachment; filename=\"{}-{}.bpgn\"",
        game.summary.match_id, game.summary.number
    );
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    append_lines(headers, CHANGED_HEADER, &changed);
    response
}

pub(crate) async fn page(
    State(app): State<AppState>,
    Path((match_id, number)): Path<(String, String)>,
) -> Response {
    match lookup(&app, &match_id, &number) {
        Ok(_) => Html(GAME_HTML).into_response(),
        Err(r) => *r,
    }
}
