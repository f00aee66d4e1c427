//! The JSON API, the BPGN download, metrics and liveness.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::export::{CHANGED_HEADER, ForQuery, append_lines, body_for};

/// A JSON error `{"error": msg}` with `status`.
pub(crate) fn error(status: StatusCode, msg: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": msg.into() }))).into_response()
}

pub(crate) fn unknown_match(id: &str) -> Response {
    error(StatusCode::NOT_FOUND, format!("unknown match {id:?}"))
}

pub(crate) async fn matches(State(app): State<AppState>) -> Response {
    Json(app.hub.summaries()).into_response()
}

pub(crate) async fn state(State(app): State<AppState>, Path(id): Path<String>) -> Response {
    let Some(entry) = app.hub.entry(&id) else {
        return unknown_match(&id);
    };
    let json = entry
        .data
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .state_item
        .json
        .clone();
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        json,
    )
        .into_response()
}

pub(crate) async fn bpgn(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ForQuery>,
) -> Response {
    let Some(entry) = app.hub.entry(&id) else {
        return unknown_match(&id);
    };
    let body = entry
        .data
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .bpgn
        .clone();
    let (body, changed) = match body_for(body, &query) {
        Ok(b) => b,
        Err(r) => return *r,
    };
    // Match ids are restricted to A-Za-z0-9._- so they are safe inside the quoted filename.
    let disposition = format!("attachment; filename=\"{id}.bpgn\"");
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

pub(crate) async fn metrics(State(app): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        )],
        app.hub.metrics().encode(),
    )
        .into_response()
}

/// Liveness: 200 while the process serves, with what is up and down in the body
/// ([`HealthReport`](crate::health::HealthReport): `status` is `ok` or `degraded`).
pub(crate) async fn healthz(State(app): State<AppState>) -> Response {
    no_store(Json(app.hub.health().report()).into_response())
}

/// Readiness: the same body, 503 while something configured (the MQTT broker) is down, so
/// that a supervisor or a load balancer can tell.
pub(crate) async fn readyz(State(app): State<AppState>) -> Response {
    let report = app.hub.health().report();
    let status = if report.is_ok() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    no_store((status, Json(report)).into_response())
}

fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

pub(crate) async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "no such path")
}
