//! The relay's HTTP side: the daemon's routes for every match, plus the tournament.
//!
//! | method, path | what |
//! |---|---|
//! | `GET /` | the tournament page: every table live, grouped by `Event`/`Round`, ordered by `Table` |
//! | `GET /api/tournament` | JSON array of [`TableSummary`], one per table, in `Table` order ([`table_order`]) |
//! | `GET /api/tournament/stream` | SSE: `event: tables` (the whole array, in `Table` order), then `event: table` frames, every [`PAGE_FLUSH`](super::view::PAGE_FLUSH) each table changed since, once |
//! | `GET /api/tournament/bpgn?event=E&round=R` | every game of that round (both filters optional) as one BPGN file, in `Table` order; `&for=bughouse.pro\|pychess` exports each game for that reader (what it changed in `X-Bugbridge-Changed`), leaving out (and naming in `X-Bugbridge-Left-Out`) those it cannot take |
//! | `GET /arbiter` | the arbiter console: every table's alerts, newest first (token; a login form without) |
//! | `GET /api/tournament/alerts?table=ID` | JSON array of [`ConsoleAlert`], newest first (token) |
//! | `GET /api/tournament/alerts/stream` | SSE: `alert`, `action` (a table confirmed an operator action), `acks` (token) |
//! | `POST /api/tournament/alerts/{match}/{seq}/ack`, `…/unack` | (un)acknowledge an alert (token, `Authorization: Bearer` only) → `{"acked": [seq, ...]}` |
//! | everything else | as on a daemon ([`crate::http`]), for every match |
//!
//! Requests carrying the arbiter token (header, `?token=` or the cookie the arbiter page
//! sets) are served from the live view, all others from the public (possibly delayed) one.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
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
use super::held;
use super::view::{ConsoleAlert, TableSummary, View};
use crate::http::export::{CHANGED_HEADER, GamesFor, append_lines, games_for};
use crate::http::sse::event_stream;
use crate::http::{ArbiterToken, HttpOptions};

const TOURNAMENT_HTML: &str = include_str!("assets/tournament.html");
const TOURNAMENT_JS: &str = include_str!("assets/tournament.js");
const CONSOLE_HTML: &str = include_str!("assets/console.html");
const CONSOLE_JS: &str = include_str!("assets/console.js");
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
        .route("/assets/tournament.js", get(|| script(TOURNAMENT_JS)))
        .route("/assets/console.js", get(|| script(CONSOLE_JS)))
        .route("/arbiter", get(console_page))
        .route("/api/tournament/alerts", get(console_alerts))
        .route("/api/tournament/alerts/stream", get(console_stream))
        .route(
            "/api/tournament/alerts/{match_id}/{seq}/{verb}",
            axum::routing::post(ack),
        )
        .route("/api/tournament", get(tables))
        .route("/api/tournament/stream", get(stream))
        .route("/api/tournament/bpgn", get(round_bpgn))
        .fallback(dispatch)
        .with_state(state)
}

/// Serves [`router`] on `listener` until `shutdown` completes, then ends the open streams
/// and waits for the requests in flight.
///
/// HTTP/1.1 only (a load balancer in front speaks it to the relays): each open connection,
/// thousands of them SSE viewers, then holds one HTTP/1 connection state and not the
/// HTTP/1-or-2 detection and HTTP/2 state of a general server, which is most of a relay's
/// memory with many viewers.
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
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1.timer(hyper_util::rt::TokioTimer::new());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    // Every connection's task holds a clone; `recv` returning `None` means all have ended.
    let (alive_tx, mut alive_rx) = tokio::sync::mpsc::channel::<()>(1);
    tokio::pin!(shutdown);
    loop {
        let (socket, _peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors or a connection reset before it was taken: the next
                // accept may well succeed, the listener itself is fine.
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "relay HTTP accept failed; retrying");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = socket.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = http1.serve_connection(hyper_util::rt::TokioIo::new(socket), service);
        let mut stop = stop_rx.clone();
        let alive = alive_tx.clone();
        tokio::spawn(async move {
            let _alive = alive;
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                // Only ever set once, to `true`, after this task was spawned.
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    relay.close();
    stop_tx.send_replace(true);
    drop(alive_tx);
    let _ = alive_rx.recv().await;
    Ok(())
}

fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
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
    if !arbiter
        && !app.relay.delay().is_zero()
        && let Some((id, route)) = held_route(request.uri().path())
        && app.relay.public().hub().entry(id).is_none()
        && app.relay.live().hub().entry(id).is_some()
    {
        // A match the live view has and the delayed one not yet (this relay started less
        // than the delay ago): never a 404, which would make a browser give up.
        let id = id.to_owned();
        return match route {
            Held::Page => Html(crate::http::pages::VIEWER_HTML).into_response(),
            Held::Stream => held::stream(app.relay, app.public, app.opts.keep_alive, id, request),
            Held::Json => held::not_yet(&app.relay, &id),
        };
    }
    let router = if arbiter { app.live } else { app.public };
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The per-match routes a delayed view may not have yet.
enum Held {
    Page,
    Stream,
    Json,
}

fn held_route(path: &str) -> Option<(&str, Held)> {
    if let Some(id) = path.strip_prefix("/match/") {
        return Some((id, Held::Page));
    }
    let rest = path.strip_prefix("/api/matches/")?;
    match rest.split_once('/') {
        None => Some((rest, Held::Json)),
        Some((id, "stream")) => Some((id, Held::Stream)),
        Some((id, "bpgn")) => Some((id, Held::Json)),
        Some(_) => None,
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

async fn script(body: &'static str) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
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
    rx: broadcast::Receiver<Bytes>,
    pending: VecDeque<Bytes>,
    closed: tokio::sync::watch::Receiver<bool>,
    keep_alive: tokio::time::Interval,
}

impl TableStream {
    /// `first`, with the frames already waiting queued behind it (the server takes them
    /// all before it writes); a snapshot of every table instead, if the stream fell behind.
    fn batch(&mut self, first: Bytes) -> Bytes {
        loop {
            match self.rx.try_recv() {
                Ok(more) => self.pending.push_back(more),
                Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    self.pending.clear();
                    return frame("tables", &json(&self.view.summaries()));
                }
                Err(_) => break,
            }
        }
        first
    }

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
                    // One flush of the view's changes, shared by every stream; more waiting
                    // (a slow viewer) go in the same write.
                    Ok(frame) => return Some(self.batch(frame)),
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
    event_stream(body)
}

/// Query of the round download.
#[derive(Debug, Default, Deserialize)]
struct RoundQuery {
    event: Option<String>,
    round: Option<String>,
    /// The reader to export each game for, as `?for=` on a match's BPGN.
    #[serde(rename = "for")]
    reader: Option<String>,
}

/// The header naming, one value per game, the games of a round export left out.
const LEFT_OUT: &str = "x-bugbridge-left-out";

/// The order of tables: numeric `Table` tags first by number, then other `Table` tags, then
/// tables without one; the match id breaks ties.
#[must_use]
pub fn table_order(table: &TableSummary) -> (u64, String, String) {
    order_key(table.tags.get("Table").map(String::as_str), &table.id)
}

fn order_key(tag: Option<&str>, id: &str) -> (u64, String, String) {
    let tag = tag.unwrap_or_default().to_owned();
    let number = if tag.is_empty() {
        u64::MAX
    } else {
        tag.trim().parse().unwrap_or(u64::MAX - 1)
    };
    (number, tag, id.to_owned())
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
    let chosen: Vec<TableSummary> = view
        .summaries()
        .into_iter()
        .filter(|t| wanted("Event", &query.event, t) && wanted("Round", &query.round, t))
        .collect();
    let games: Vec<(String, String)> = chosen
        .iter()
        .filter_map(|table| Some((table.id.clone(), view.hub().bpgn(&table.id)?)))
        .filter(|(_, bpgn)| !bpgn.trim().is_empty())
        .collect();
    // With `for=`, each game is exported on its own (the daemon's exporter, as on a match's
    // route), so that a game the reader cannot take leaves the others whole.
    let exported = match query.reader.as_deref().filter(|r| !r.is_empty()) {
        None => GamesFor {
            texts: games.into_iter().map(|(_, t)| t).collect(),
            ..GamesFor::default()
        },
        Some(reader) => {
            let pairs = games.iter().map(|(id, t)| (id.as_str(), t.as_str()));
            match games_for(pairs, reader) {
                Ok(out) => out,
                Err(response) => return *response,
            }
        }
    };
    let mut body = String::new();
    for text in exported.texts.iter().filter(|t| !t.trim().is_empty()) {
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(text.trim_end());
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
    append_lines(h, CHANGED_HEADER, &exported.changed);
    append_lines(h, LEFT_OUT, &exported.left_out);
    response
}

fn unauthorized() -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        axum::Json(serde_json::json!({
            "error": "missing or wrong arbiter token (Authorization: Bearer <token>)"
        })),
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"bugbridge arbiter\""),
    );
    response
}

fn request_is_arbiter(app: &RelayHttp, request: &Request) -> bool {
    is_arbiter(
        app.opts.arbiter_token.as_ref(),
        request.headers(),
        request.uri().query(),
    )
}

const CONSOLE_LOGIN: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arbiter token needed</title><link rel="stylesheet" href="/assets/viewer.css"></head>
<body class="login"><main class="login-box"><h1>Arbiter console</h1>
<p>This console needs the arbiter token.</p>
<form method="get" action="/arbiter"><label>Token <input id="token" name="token" type="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Open</button></form><p><a href="/">Tournament</a></p></main></body></html>"#;

async fn console_page(State(app): State<RelayHttp>, request: Request) -> Response {
    if !request_is_arbiter(&app, &request) {
        let mut response = (StatusCode::UNAUTHORIZED, Html(CONSOLE_LOGIN)).into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"bugbridge arbiter\""),
        );
        return response;
    }
    let mut response = Html(CONSOLE_HTML).into_response();
    let token = request
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|p| p.strip_prefix("token="));
    if let Some(token) = token
        && let Ok(value) =
            HeaderValue::from_str(&format!("{COOKIE}={token}; Path=/; SameSite=Strict"))
    {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// Query of the console's alert list.
#[derive(Debug, Default, Deserialize)]
struct ConsoleQuery {
    table: Option<String>,
}

async fn console_alerts(State(app): State<RelayHttp>, request: Request) -> Response {
    if !request_is_arbiter(&app, &request) {
        return unauthorized();
    }
    let query = Query::<ConsoleQuery>::try_from_uri(request.uri())
        .map(|q| q.0)
        .unwrap_or_default();
    let list: Vec<ConsoleAlert> = app.relay.live().console_alerts(query.table.as_deref());
    axum::Json(list).into_response()
}

async fn console_stream(State(app): State<RelayHttp>, request: Request) -> Response {
    if !request_is_arbiter(&app, &request) {
        return unauthorized();
    }
    let view = app.relay.live().clone();
    let period = app.opts.keep_alive;
    let state = (
        view.console(),
        view.hub().closed_rx(),
        interval_at(Instant::now() + period, period),
        true,
    );
    let body = futures_util::stream::unfold(
        state,
        |(mut rx, mut closed, mut tick, first)| async move {
            if first {
                return Some((
                    Ok::<_, Infallible>(Bytes::from_static(b"retry: 2000\n\n")),
                    (rx, closed, tick, false),
                ));
            }
            loop {
                if *closed.borrow() {
                    return None;
                }
                tokio::select! {
                    // Cancel-safe: broadcast::Receiver::recv loses nothing when dropped.
                    received = rx.recv() => match received {
                        Ok(frame) => return Some((Ok(frame), (rx, closed, tick, false))),
                        // The page re-reads the list when told it missed some.
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            let frame = frame("resync", b"{}");
                            return Some((Ok(frame), (rx, closed, tick, false)));
                        }
                        Err(broadcast::error::RecvError::Closed) => return None,
                    },
                    _ = tick.tick() => {
                        return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), (rx, closed, tick, false)));
                    }
                    changed = closed.changed() => {
                        if changed.is_err() {
                            return None;
                        }
                    }
                }
            }
        },
    );
    event_stream(body)
}

async fn ack(
    State(app): State<RelayHttp>,
    axum::extract::Path((match_id, seq, verb)): axum::extract::Path<(String, u64, String)>,
    headers: HeaderMap,
) -> Response {
    // Like the table's actions: the header only, so a cookie cannot be used across sites.
    let authorized = match (&app.opts.arbiter_token, headers.get(header::AUTHORIZATION)) {
        (Some(token), Some(value)) => value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| token.matches(given.trim())),
        _ => false,
    };
    if !authorized {
        return unauthorized();
    }
    let acked = match verb.as_str() {
        "ack" => true,
        "unack" => false,
        _ => {
            return (
                StatusCode::NOT_FOUND,
                axum::Json(serde_json::json!({ "error": "expected ack or unack" })),
            )
                .into_response();
        }
    };
    if !crate::hub::valid_match_id(&match_id) || !app.relay.live().table_ids().contains(&match_id) {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({ "error": format!("unknown match {match_id:?}") })),
        )
            .into_response();
    }
    let list = app.relay.set_acked(&match_id, seq, acked);
    axum::Json(serde_json::json!({ "acked": list })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_go_by_number_then_other_tags_then_untagged_then_id() {
        let mut list = [
            ("a", None),
            ("b", Some("10")),
            ("c", Some("Top")),
            ("e", Some("2")),
            ("d", Some("2")),
        ];
        list.sort_by_key(|(id, tag)| order_key(*tag, id));
        let ids: Vec<&str> = list.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, ["d", "e", "b", "c", "a"]);
    }
}
