//! The relay's HTTP side: the daemon's routes for every match, plus the tournament.
//!
//! | method, path | what |
//! |---|---|
//! | `GET /` | the tournament page: every table live, grouped by `Event`/`Round`, ordered by `Table` |
//! | `GET /api/tournament` | JSON array of [`TableSummary`], one per table |
//! | `GET /api/tournament/stream` | SSE: `event: tables` (the whole array), then `event: table` per change |
//! | `GET /api/tournament/bpgn?event=E&round=R` | every game of that round (both filters optional) as one BPGN file, in `Table` order |
//! | everything else | as on a daemon ([`crate::http`]), for every match |
//!
//! Requests carrying the arbiter token (header, `?token=` or the cookie the arbiter page
//! sets) are served from the live view, all others from the public (possibly delayed) one.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use serde::Deserialize;
use tokio::sync::broadcast;
use tokio::time::{Instant, interval_at};
use tower::ServiceExt;

use super::Relay;
use super::view::{TableSummary, View};
use crate::http::{ArbiterToken, HttpOptions};

const TOURNAMENT_HTML: &str = include_str!("assets/tournament.html");
const TOURNAMENT_JS: &str = include_str!("assets/tournament.js");
const COOKIE: &str = "bugbridge_arbiter";

#[derive(Debug, Clone)]
struct RelayHttp {
    relay: Relay,
    opts: HttpOptions,
    live: Router,
    public: Router,
}

/// The relay's router: the table above.
pub fn router(relay: Relay, opts: HttpOptions) -> Router {
    let live = crate::http::router(relay.live().hub().clone(), opts.clone());
    let public = if relay.delay().is_zero() {
        live.clone()
    } else {
        crate::http::router(relay.public().hub().clone(), opts.clone())
    };
    let state = RelayHttp {
        relay,
        opts,
        live,
        public,
    };
    Router::new()
        .route("/", get(page))
        .route("/assets/tournament.js", get(script))
        .route("/api/tournament", get(tables))
        .route("/api/tournament/stream", get(stream))
        .route("/api/tournament/bpgn", get(round_bpgn))
        .fallback(dispatch)
        .with_state(state)
}

/// Serves [`router`] on `listener` until `shutdown` completes, then ends the open streams
/// and waits for the requests in flight.
///
/// # Errors
///
/// An I/O error of the listener.
pub async fn serve(
    listener: tokio::net::TcpListener,
    relay: Relay,
    opts: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(relay.clone(), opts);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            relay.close();
        })
        .await
}

fn given_tokens<'a>(headers: &'a HeaderMap, query: Option<&'a str>) -> Vec<&'a str> {
    let mut out = Vec::new();
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        out.push(v.trim());
    }
    for pair in query.unwrap_or("").split('&') {
        if let Some(v) = pair.strip_prefix("token=") {
            out.push(v);
        }
    }
    for kv in headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
    {
        if let Some((COOKIE, v)) = kv.trim().split_once('=') {
            out.push(v);
        }
    }
    out
}

/// Whether the request carries the arbiter token anywhere a GET may carry it.
fn is_arbiter(token: Option<&ArbiterToken>, headers: &HeaderMap, query: Option<&str>) -> bool {
    token.is_some_and(|t| given_tokens(headers, query).iter().any(|g| t.matches(g)))
}

async fn dispatch(State(app): State<RelayHttp>, request: Request) -> Response {
    let arbiter = is_arbiter(
        app.opts.arbiter_token.as_ref(),
        request.headers(),
        request.uri().query(),
    );
    let router = if arbiter { app.live } else { app.public };
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

fn view(app: &RelayHttp, headers: &HeaderMap, query: Option<&str>) -> View {
    if is_arbiter(app.opts.arbiter_token.as_ref(), headers, query) {
        app.relay.live().clone()
    } else {
        app.relay.public().clone()
    }
}

async fn page() -> Html<&'static str> {
    Html(TOURNAMENT_HTML)
}

async fn script() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        TOURNAMENT_JS,
    )
        .into_response()
}

async fn tables(State(app): State<RelayHttp>, request: Request) -> Response {
    let view = view(&app, request.headers(), request.uri().query());
    axum::Json(view.summaries()).into_response()
}

fn frame(event: &str, json: &[u8]) -> Bytes {
    crate::hub::sse_frame(None, Some(event), json)
}

fn json<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

struct TableStream {
    view: View,
    rx: broadcast::Receiver<String>,
    pending: VecDeque<Bytes>,
    closed: tokio::sync::watch::Receiver<bool>,
    keep_alive: tokio::time::Interval,
}

impl TableStream {
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if *self.closed.borrow() {
                return None;
            }
            if let Some(frame) = self.pending.pop_front() {
                return Some(frame);
            }
            tokio::select! {
                // Cancel-safe: broadcast::Receiver::recv loses nothing when dropped.
                received = self.rx.recv() => match received {
                    Ok(id) => return Some(frame("table", &json(&self.view.summary(&id)))),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        return Some(frame("tables", &json(&self.view.summaries())));
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                _ = self.keep_alive.tick() => return Some(Bytes::from_static(b": keep-alive\n\n")),
                changed = self.closed.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
            }
        }
    }
}

async fn stream(State(app): State<RelayHttp>, request: Request) -> Response {
    let view = view(&app, request.headers(), request.uri().query());
    let period = app.opts.keep_alive;
    // Subscribe before the snapshot: a change in between is sent twice, never lost.
    let rx = view.changes();
    let snapshot = frame("tables", &json(&view.summaries()));
    let stream = TableStream {
        closed: view.hub().closed_rx(),
        rx,
        pending: VecDeque::from([Bytes::from_static(b"retry: 2000\n\n"), snapshot]),
        keep_alive: interval_at(Instant::now() + period, period),
        view,
    };
    let body = futures_util::stream::unfold(stream, |mut stream| async move {
        let frame = stream.next().await?;
        Some((Ok::<_, Infallible>(frame), stream))
    });
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::HeaderName::from_static("x-accel-buffering"),
                HeaderValue::from_static("no"),
            ),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// Query of the round download.
#[derive(Debug, Default, Deserialize)]
struct RoundQuery {
    event: Option<String>,
    round: Option<String>,
}

/// The order of tables: numeric `Table` tags first by number, then other `Table` tags, then
/// tables without one; the match id breaks ties.
#[must_use]
pub fn table_order(table: &TableSummary) -> (u64, String, String) {
    let tag = table.tags.get("Table").cloned().unwrap_or_default();
    let number = if tag.is_empty() {
        u64::MAX
    } else {
        tag.trim().parse().unwrap_or(u64::MAX - 1)
    };
    (number, tag, table.id.clone())
}

fn file_part(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

async fn round_bpgn(State(app): State<RelayHttp>, request: Request) -> Response {
    let query = Query::<RoundQuery>::try_from_uri(request.uri())
        .map(|q| q.0)
        .unwrap_or_default();
    let view = view(&app, request.headers(), request.uri().query());
    let wanted = |key: &str, value: &Option<String>, table: &TableSummary| {
        value
            .as_ref()
            .is_none_or(|v| table.tags.get(key).map(String::as_str) == Some(v.as_str()))
    };
    let mut chosen: Vec<TableSummary> = view
        .summaries()
        .into_iter()
        .filter(|t| wanted("Event", &query.event, t) && wanted("Round", &query.round, t))
        .collect();
    chosen.sort_by_key(table_order);
    let mut body = String::new();
    for table in &chosen {
        let Some(bpgn) = view.hub().bpgn(&table.id) else {
            continue;
        };
        if bpgn.trim().is_empty() {
            continue;
        }
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(bpgn.trim_end());
        body.push('\n');
    }
    let name = match (&query.event, &query.round) {
        (Some(e), Some(r)) => format!("{}-round-{}", file_part(e), file_part(r)),
        (Some(e), None) => file_part(e),
        (None, Some(r)) => format!("round-{}", file_part(r)),
        (None, None) => "tournament".to_owned(),
    };
    let mut response = (StatusCode::OK, body).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}.bpgn\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    response
}
