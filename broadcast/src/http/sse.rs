//! Server-Sent Events streams.
//!
//! The viewer stream `GET /api/matches/{id}/stream` sends, in order:
//!
//! 1. `retry: 2000` (reconnect after 2 s),
//! 2. `event: state` with the whole [`MatchState`](crate::wire::MatchState) (`id:` its `seq`):
//!    the catch-up, always, so a reconnecting viewer never keeps a stale position,
//! 3. on a relay, `event: status` (`{"online": bool}`: whether the table's daemon is
//!    online), sent again on every change,
//! 4. if the request had `Last-Event-ID: n` (browsers send it on reconnect), the events kept
//!    in history with `seq > n` up to the catch-up's `seq`, for consumers that want the log;
//!    then the events newer than the catch-up already fanned out (a relay's hub between an
//!    event and the state that follows it), so that no event is skipped,
//! 5. then live: each event as an unnamed message (`id:` its `seq`, data the same JSON as
//!    the MQTT `events` topic) followed by `event: state` with the new state,
//! 6. a comment line every keep-alive interval.
//!
//! A stream that falls behind the fan-out channel is resubscribed and gets a fresh catch-up
//! instead of the events it missed. The alert stream `GET /api/matches/{id}/alerts/stream`
//! (arbiter token) has the same shape with `event: alert` messages (their `id:` is the alert
//! `seq`) and state messages without `id:`; without `Last-Event-ID` it replays every alert
//! kept.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::sync::{broadcast, watch};
use tokio::time::{Instant, Interval, interval_at};

use super::AppState;
use super::api::unknown_match;
use super::arbiter::{TokenQuery, get_authorized, unauthorized};
use crate::hub::{Delivery, Item, MatchEntry, sse_frame};
use crate::metrics::ViewerGuard;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Public,
    Alerts,
}

struct Stream {
    kind: Kind,
    entry: Arc<MatchEntry>,
    rx: broadcast::Receiver<Delivery>,
    pending: VecDeque<Bytes>,
    closed: watch::Receiver<bool>,
    keep_alive: Interval,
    _guard: ViewerGuard,
}

fn last_event_id(headers: &HeaderMap) -> Option<u64> {
    headers
        .get("last-event-id")?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn state_frame(kind: Kind, item: &Item) -> Bytes {
    match kind {
        Kind::Public => item.frame.clone(),
        Kind::Alerts => sse_frame(None, Some("state"), &item.json),
    }
}

impl Stream {
    /// (Re)subscribes and queues the catch-up; `last` is the last id the client has.
    fn subscribe(&mut self, last: Option<u64>) {
        match self.kind {
            Kind::Public => {
                let crate::hub::PublicSubscription {
                    rx,
                    state,
                    ahead,
                    status,
                } = self.entry.subscribe_public();
                self.rx = rx;
                self.pending.push_back(state.frame.clone());
                // On a relay: whether the table is online (an offline table's clocks are
                // its last readings, not running).
                if let Some(status) = status {
                    self.pending.push_back(status);
                }
                if let Some(last) = last {
                    for item in self.entry.events_between(last, state.seq) {
                        self.pending.push_back(item.frame);
                    }
                }
                // Events already out but not yet in the state (a relay's hub between an
                // event and its state): sent after the catch-up, so none is skipped.
                for item in ahead {
                    self.pending.push_back(item.frame);
                }
            }
            Kind::Alerts => {
                let (rx, state, alert_seq) = self.entry.subscribe_private();
                self.rx = rx;
                self.pending.push_back(state_frame(Kind::Alerts, &state));
                for item in self.entry.alerts_between(last.unwrap_or(0), alert_seq) {
                    self.pending.push_back(item.frame);
                }
            }
        }
    }

    /// `first`, with the public updates already waiting after it queued behind it: the
    /// server takes them all before it writes, so that an event and the state that follows
    /// it (a relay receives them as two messages), or whatever piled up while the viewer's
    /// connection was busy, go out in one write, and no buffer is copied per viewer.
    fn more(&mut self, first: Bytes) -> Bytes {
        for _ in 0..64 {
            match self.rx.try_recv() {
                Ok(Delivery::Batch(more)) => self.pending.push_back(more),
                Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    // Fell behind: a fresh catch-up follows what was taken so far.
                    self.subscribe(None);
                    break;
                }
                // Nothing more waiting (other deliveries are not on the public channel).
                Ok(_) | Err(_) => break,
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
                    Ok(Delivery::Batch(frames)) if self.kind == Kind::Public => {
                        return Some(self.more(frames));
                    }
                    Ok(Delivery::Batch(frames)) => return Some(frames),
                    Ok(Delivery::State(item)) => return Some(state_frame(self.kind, &item)),
                    Ok(Delivery::Alert(item)) => return Some(item.frame),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        tracing::debug!(id = %self.entry.id, "slow SSE client: fresh catch-up");
                        let last = None;
                        self.subscribe(last);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                // Cancel-safe: a missed tick is simply taken on the next poll.
                _ = self.keep_alive.tick() => return Some(Bytes::from_static(b": keep-alive\n\n")),
                // Cancel-safe: `changed` only marks the value seen; the loop re-checks it.
                changed = self.closed.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
            }
        }
    }
}

fn respond(app: &AppState, entry: Arc<MatchEntry>, kind: Kind, last: Option<u64>) -> Response {
    let period = app.opts.keep_alive;
    let rx = entry.subscribe_public().rx;
    let mut stream = Stream {
        kind,
        rx,
        pending: VecDeque::from([Bytes::from_static(b"retry: 2000\n\n")]),
        closed: app.hub.closed_rx(),
        keep_alive: interval_at(Instant::now() + period, period),
        _guard: ViewerGuard::new(
            app.hub.metrics(),
            match kind {
                Kind::Public => "viewer",
                Kind::Alerts => "arbiter",
            },
        ),
        entry,
    };
    stream.subscribe(last);
    let body = futures_util::stream::unfold(stream, |mut stream| async move {
        let frame = stream.next().await?;
        Some((Ok::<_, Infallible>(frame), stream))
    });
    event_stream(body)
}

/// The response of an event stream: `body` as `text/event-stream`, never cached and never
/// held back by a buffering proxy (`X-Accel-Buffering: no`), so each frame reaches the
/// viewer as it is written.
pub(crate) fn event_stream<S>(body: S) -> Response
where
    S: futures_util::Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
{
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

pub(crate) async fn public(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(entry) = app.hub.entry(&id) else {
        return unknown_match(&id);
    };
    respond(&app, entry, Kind::Public, last_event_id(&headers))
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
    respond(&app, entry, Kind::Alerts, last_event_id(&headers))
}
