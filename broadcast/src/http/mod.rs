//! The HTTP side: the viewer and arbiter pages, the JSON API, the SSE streams, metrics.
//!
//! | method, path | what |
//! |---|---|
//! | `GET /` | the matches served, each live |
//! | `GET /match/{id}` | live viewer of one match (`?overlay=1`: transparent, minimal chrome) |
//! | `GET /arbiter/{id}` | arbiter view; token as `Authorization: Bearer`, `?token=` or cookie |
//! | `GET /assets/{file}` | the page assets (embedded in the binary) |
//! | `GET /api/matches` | JSON array of [`MatchSummary`](crate::wire::MatchSummary) |
//! | `GET /api/matches/{id}` | JSON [`MatchState`](crate::wire::MatchState) |
//! | `GET /api/matches/{id}/bpgn` | the BPGN, `text/plain`, as an attachment `<id>.bpgn` |
//! | `GET /api/matches/{id}/stream` | SSE: `event: state` catch-up, then events (see [`sse`]) |
//! | `GET /api/matches/{id}/alerts` | JSON array of the alerts kept (token) |
//! | `GET /api/matches/{id}/alerts/stream` | SSE of alerts (token; `?token=` for `EventSource`) |
//! | `POST /api/matches/{id}/arbiter/actions` | an [`ActionKind`](crate::wire::ActionKind) JSON body (token) → 202 `{"accepted":true,"id":..}` |
//! | `GET /api/games` | JSON array of [`GameSummary`](crate::wire::GameSummary): the recorded games |
//! | `GET /api/games/{match}/{n}` | JSON [`GameRecord`](crate::wire::GameRecord): a game with a position per move |
//! | `GET /api/games/{match}/{n}/bpgn` | its BPGN, `text/plain`, as an attachment `<match>-<n>.bpgn` |
//! | `GET /games/{match}/{n}` | a page that steps through the recorded game |
//! | `GET /metrics` | Prometheus text format |
//! | `GET /healthz` | liveness: 200, JSON [`HealthReport`](crate::health::HealthReport) (`status`: `ok` / `degraded`, what is `down`, the MQTT broker's state) |
//! | `GET /readyz` | readiness: the same body; 503 while something configured is down |
//!
//! Errors are JSON `{"error": "..."}` with 400 (malformed body, naming what is wrong), 401
//! (missing or wrong token: nothing is done), 404 (unknown match or path), 413 (body over
//! [`HttpOptions::max_body_bytes`]), 503 (the daemon is not taking actions).

mod api;
mod arbiter;
pub(crate) mod export;
pub use export::{BpgnExporter, CHANGED_HEADER, set_bpgn_exporter};
mod games;
pub(crate) mod pages;
pub mod sse;

use std::fmt;
use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};

use crate::hub::Hub;

/// The arbiter's secret. Its `Debug` does not show it.
#[derive(Clone)]
pub struct ArbiterToken(String);

impl ArbiterToken {
    /// Wraps a token (as read from `arbiter_token_file`; surrounding whitespace is removed).
    /// Returns `None` for an empty token, which would let anyone in.
    #[must_use]
    pub fn new(token: &str) -> Option<Self> {
        let token = token.trim();
        (!token.is_empty()).then(|| ArbiterToken(token.to_owned()))
    }

    /// Compares with `candidate` in time that does not depend on where they differ.
    #[must_use]
    pub fn matches(&self, candidate: &str) -> bool {
        let a = self.0.as_bytes();
        let b = candidate.as_bytes();
        let mut diff = u8::from(a.len() != b.len());
        for i in 0..a.len().max(b.len()) {
            diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
        }
        diff == 0
    }
}

impl fmt::Debug for ArbiterToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ArbiterToken(..)")
    }
}

/// Options of the HTTP side.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The arbiter token; without one every arbiter route answers 401.
    pub arbiter_token: Option<ArbiterToken>,
    /// Largest accepted request body (operator actions), in bytes; larger ones get 413.
    pub max_body_bytes: usize,
    /// Interval of SSE keep-alive comments (proxies close idle connections).
    pub keep_alive: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            arbiter_token: None,
            max_body_bytes: 16 * 1024,
            keep_alive: Duration::from_secs(15),
        }
    }
}

/// What every handler gets.
#[derive(Debug, Clone)]
pub(crate) struct AppState {
    pub(crate) hub: Hub,
    pub(crate) opts: HttpOptions,
}

/// The router with every route of the table above.
pub fn router(hub: Hub, opts: HttpOptions) -> Router {
    let state = AppState { hub, opts };
    Router::new()
        .route("/", get(pages::index))
        .route("/match/{id}", get(pages::viewer))
        .route("/arbiter/{id}", get(arbiter::page))
        .route("/assets/{file}", get(pages::asset))
        .route("/favicon.ico", get(pages::favicon))
        .route("/api/matches", get(api::matches))
        .route("/api/matches/{id}", get(api::state))
        .route("/api/matches/{id}/bpgn", get(api::bpgn))
        .route("/api/matches/{id}/stream", get(sse::public))
        .route("/api/matches/{id}/alerts", get(arbiter::alerts))
        .route("/api/matches/{id}/alerts/stream", get(sse::alerts))
        .route("/api/matches/{id}/arbiter/actions", post(arbiter::action))
        .route("/api/games", get(games::list))
        .route("/api/games/{match}/{n}", get(games::record))
        .route("/api/games/{match}/{n}/bpgn", get(games::bpgn))
        .route("/games/{match}/{n}", get(games::page))
        .route("/metrics", get(api::metrics))
        .route("/healthz", get(api::healthz))
        .route("/readyz", get(api::readyz))
        .fallback(api::not_found)
        .with_state(state)
}

/// Serves [`router`] on `listener` until `shutdown` completes, then closes the hub's streams
/// (so that open SSE connections end) and waits for the requests in flight.
///
/// # Errors
///
/// An I/O error of the listener.
pub async fn serve(
    listener: tokio::net::TcpListener,
    hub: Hub,
    opts: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(hub.clone(), opts);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            hub.close();
        })
        .await
}
