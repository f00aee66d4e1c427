//! A delayed relay's public routes for a match it has only in its live view yet: it
//! started less than the delay ago, and the match's delayed copy is still on its way. The
//! stream is held open (comments keep it alive) and continues as the public stream once the
//! public view has the match; the JSON routes answer 503 with `Retry-After`, never 404.

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tower::ServiceExt;

use super::Relay;
use crate::http::sse::event_stream;

/// The public stream of `id`, once the public view has it; keep-alive comments until then.
pub(super) fn stream(
    relay: Relay,
    public: Router,
    keep_alive: Duration,
    id: String,
    request: Request,
) -> Response {
    // The request again, to hand to the public router when the match is there.
    let mut again = Request::get(request.uri().clone());
    if let Some(last) = request.headers().get("last-event-id") {
        again = again.header("last-event-id", last.clone());
    }
    let again = again.body(axum::body::Body::empty());
    let (tx, mut rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        if tx
            .send(Bytes::from_static(b"retry: 2000\n\n"))
            .await
            .is_err()
        {
            return;
        }
        let mut closed = relay.public().hub().closed_rx();
        let mut tick =
            tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
        let ready = relay.wait_until(|r| r.public().hub().entry(&id).is_some());
        tokio::pin!(ready);
        loop {
            tokio::select! {
                // The relay stopped (false) or the match is there.
                shown = &mut ready => {
                    if !shown {
                        return;
                    }
                    break;
                }
                _ = tick.tick() => {
                    if tx.send(Bytes::from_static(b": waiting for the delayed view\n\n")).await.is_err() {
                        return;
                    }
                }
                // Closed on shutdown: the stream ends.
                changed = closed.changed() => {
                    if changed.is_err() || *closed.borrow() {
                        return;
                    }
                }
            }
        }
        let Ok(again) = again else { return };
        let Ok(response) = public.oneshot(again).await;
        if response.status() != StatusCode::OK {
            return;
        }
        let mut body = response.into_body().into_data_stream();
        while let Some(Ok(chunk)) = body.next().await {
            if tx.send(chunk).await.is_err() {
                return;
            }
        }
    });
    let body = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|chunk| chunk.map(Ok::<_, Infallible>))
    });
    event_stream(body)
}

/// 503 with `Retry-After`: the match is known, its delayed copy is not there yet.
pub(super) fn not_yet(relay: &Relay, id: &str) -> Response {
    let retry = relay.delay().as_secs().max(1);
    let mut response = (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(serde_json::json!({
            "error": format!("match {id:?} is shown {} s behind and this relay started less than that ago", relay.delay().as_secs()),
        })),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&retry.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}
