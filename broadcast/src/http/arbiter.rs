//! The arbiter routes: the page, the alert list and the operator actions.
//!
//! Authentication: `Authorization: Bearer <token>` everywhere. Because a browser cannot set
//! headers on a page load or an `EventSource`, the GET routes also take `?token=<token>` or
//! the cookie `bugbridge_arbiter` (set by the page when it was opened with `?token=`). The
//! action POST takes only the header, so a cookie alone cannot be used across sites.
//! A request without a valid token gets 401 and changes nothing.

use axum::body::{Body, to_bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::AppState;
use super::api::{error, unknown_match};
use crate::wire::{ActionKind, END_REASONS, OperatorAction};

/// Query string of the GET routes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct TokenQuery {
    token: Option<String>,
}

const COOKIE: &str = "bugbridge_arbiter";

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// Whether the request carries the token in the header only.
pub(crate) fn header_authorized(app: &AppState, headers: &HeaderMap) -> bool {
    match (&app.opts.arbiter_token, bearer(headers)) {
        (Some(token), Some(given)) => token.matches(given),
        _ => false,
    }
}

/// Whether a GET request carries the token (header, query or cookie).
pub(crate) fn get_authorized(app: &AppState, headers: &HeaderMap, query: &TokenQuery) -> bool {
    let Some(token) = &app.opts.arbiter_token else {
        return false;
    };
    [bearer(headers), query.token.as_deref(), cookie(headers)]
        .into_iter()
        .flatten()
        .any(|given| token.matches(given))
}

pub(crate) fn unauthorized() -> Response {
    let mut response = error(
        StatusCode::UNAUTHORIZED,
        "missing or wrong arbiter token (Authorization: Bearer <token>)",
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"bugbridge arbiter\""),
    );
    response
}

pub(crate) async fn page(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<TokenQuery>,
    headers: HeaderMap,
) -> Response {
    if !get_authorized(&app, &headers, &query) {
        let mut response = (
            StatusCode::UNAUTHORIZED,
            Html(super::pages::login_page(&id)),
        )
            .into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"bugbridge arbiter\""),
        );
        return response;
    }
    if app.hub.entry(&id).is_none() {
        return unknown_match(&id);
    }
    let mut response = Html(super::pages::ARBITER_HTML).into_response();
    if let Some(token) = query.token.as_deref()
        && let Ok(value) =
            HeaderValue::from_str(&format!("{COOKIE}={token}; Path=/; SameSite=Strict"))
    {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

pub(crate) async fn alerts(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<TokenQuery>,
    headers: HeaderMap,
) -> Response {
    if !get_authorized(&app, &headers, &query) {
        return unauthorized();
    }
    let Some(entry) = app.hub.entry(&id) else {
        return unknown_match(&id);
    };
    let items = entry.alerts_between(0, u64::MAX);
    let mut body = Vec::from(&b"["[..]);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(&item.json);
    }
    body.push(b']');
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Checks what serde cannot: the values' shapes. The daemon checks them against the game.
fn validate(action: &ActionKind) -> Result<(), String> {
    fn number(n: u32) -> Result<(), String> {
        if (1..=1000).contains(&n) {
            Ok(())
        } else {
            Err(format!("number {n} is out of range 1..=1000"))
        }
    }
    match action {
        ActionKind::Promotion {
            number: n, piece, ..
        } => {
            number(*n)?;
            if !matches!(
                piece.as_str(),
                "q" | "r" | "b" | "n" | "Q" | "R" | "B" | "N"
            ) {
                return Err(format!("piece {piece:?} is not one of q, r, b, n"));
            }
        }
        ActionKind::Result { result, reason, .. } => {
            if !matches!(result.as_str(), "1-0" | "0-1" | "1/2-1/2") {
                return Err(format!("result {result:?} is not 1-0, 0-1 or 1/2-1/2"));
            }
            if !END_REASONS.contains(&reason.as_str()) {
                return Err(format!(
                    "reason {reason:?} is not an end reason: one of {}",
                    END_REASONS.join(", ")
                ));
            }
        }
        ActionKind::Replace { number: n, san, .. } => {
            number(*n)?;
            if san.is_empty() || san.len() > 16 || !san.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(format!("san {san:?} must be 1 to 16 printable characters"));
            }
        }
        ActionKind::Fill {
            moves,
            number: n,
            side,
            ..
        } => {
            match (n, side) {
                (Some(n), Some(_)) => number(*n)?,
                (None, None) => {}
                (Some(_), None) => return Err("number given without side".to_owned()),
                (None, Some(_)) => return Err("side given without number".to_owned()),
            }
            if moves.is_empty() || moves.len() > 12 {
                return Err(format!("moves: {} given, 1 to 12 expected", moves.len()));
            }
            for (i, san) in moves.iter().enumerate() {
                if san.is_empty() || san.len() > 16 || !san.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(format!(
                        "moves[{i}] {san:?} must be 1 to 16 printable characters"
                    ));
                }
            }
        }
    }
    Ok(())
}

pub(crate) async fn action(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if !header_authorized(&app, &headers) {
        return unauthorized();
    }
    if app.hub.entry(&id).is_none() {
        return unknown_match(&id);
    }
    let limit = app.opts.max_body_bytes;
    let too_large = || {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body over {limit} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large();
    }
    let Ok(bytes) = to_bytes(body, limit).await else {
        return too_large();
    };
    let kind: ActionKind = match serde_json::from_slice(&bytes) {
        Ok(kind) => kind,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!(
                    "malformed action: {e} (expected {{\"action\": \"promotion\"|\"result\"|\"replace\", ...}})"
                ),
            );
        }
    };
    if let Err(why) = validate(&kind) {
        return error(StatusCode::BAD_REQUEST, format!("bad action: {why}"));
    }
    let action_id = OperatorAction::new_id();
    let action = OperatorAction {
        id: Some(action_id.clone()),
        match_id: id,
        kind,
    };
    let answer = app.hub.expect_answer(&action_id);
    if app.hub.action_sender().try_send(action).is_err() {
        app.hub.forget_answer(&action_id);
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the daemon is not taking actions right now; retry",
        );
    }
    app.hub.metrics().operator_actions.inc();
    if let Some(answer) = answer {
        // The daemon checks the action against the game before journaling it. A daemon
        // stuck that long is not going to answer: the action may still be applied later.
        match tokio::time::timeout(ANSWER_WAIT, answer).await {
            Ok(Ok(Err(refused))) => {
                return (
                    StatusCode::BAD_REQUEST,
                    axum::Json(serde_json::json!({
                        "error": format!("bad action: {refused}"),
                        "field": refused.field,
                    })),
                )
                    .into_response();
            }
            Ok(Ok(Ok(()))) => {
                return (
                    StatusCode::ACCEPTED,
                    axum::Json(
                        serde_json::json!({ "accepted": true, "applied": true, "id": action_id }),
                    ),
                )
                    .into_response();
            }
            Ok(Err(_)) | Err(_) => app.hub.forget_answer(&action_id),
        }
    }
    (
        StatusCode::ACCEPTED,
        axum::Json(serde_json::json!({ "accepted": true, "id": action_id })),
    )
        .into_response()
}

/// How long an action request waits for the daemon's answer.
const ANSWER_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
