//! Every HTTP route through `tower::ServiceExt::oneshot` (no socket), bad input included,
//! plus `serve` on a real listener (port 0) for graceful shutdown with open streams.

mod common;

use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::http::{Request, StatusCode, header};
use bugbridge_broadcast::http::{ArbiterToken, HttpOptions, router, serve};
use bugbridge_broadcast::wire::{ActionKind, Board, OperatorAction, Side};
use bugbridge_broadcast::{Hub, HubOptions, Update};
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tower::ServiceExt;

const TOKEN: &str = "s3cret-token";
const LIMIT: Duration = Duration::from_secs(10);

fn setup(hub_opts: HubOptions) -> (Hub, mpsc::Receiver<OperatorAction>, Router) {
    let (hub, actions) = Hub::new(hub_opts);
    hub.publish("table-1", common::move_update(1)).unwrap();
    let opts = HttpOptions {
        arbiter_token: ArbiterToken::new(TOKEN),
        max_body_bytes: 1024,
        ..HttpOptions::default()
    };
    let app = router(hub.clone(), opts);
    (hub, actions, app)
}

async fn get(app: &Router, uri: &str) -> axum::response::Response {
    app.clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap()
}

async fn body_text(response: axum::response::Response) -> String {
    let bytes = to_bytes(response.into_body(), 1 << 24).await.unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn content_type(response: &axum::response::Response) -> String {
    response.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn healthz_and_unknown_paths() {
    let (_hub, _a, app) = setup(HubOptions::default());
    let r = get(&app, "/healthz").await;
    assert_eq!(r.status(), StatusCode::OK);
    let health: serde_json::Value = serde_json::from_str(&body_text(r).await).unwrap();
    assert_eq!(health["status"], "ok");
    let r = get(&app, "/readyz").await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = get(&app, "/no/such/path").await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(body_text(r).await.contains("error"));
}

#[tokio::test]
async fn pages_and_assets() {
    let (_hub, _a, app) = setup(HubOptions::default());
    let r = get(&app, "/").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(content_type(&r).starts_with("text/html"));
    assert!(body_text(r).await.contains("/assets/index.js"));

    let r = get(&app, "/match/table-1").await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = body_text(r).await;
    assert!(html.contains("/assets/viewer.js"));
    let r = get(&app, "/match/table-1?overlay=1").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        get(&app, "/match/nope").await.status(),
        StatusCode::NOT_FOUND
    );

    for (asset, kind) in [
        ("viewer.js", "text/javascript"),
        ("board.js", "text/javascript"),
        ("pieces.js", "text/javascript"),
        ("index.js", "text/javascript"),
        ("arbiter.js", "text/javascript"),
        ("viewer.css", "text/css"),
    ] {
        let r = get(&app, &format!("/assets/{asset}")).await;
        assert_eq!(r.status(), StatusCode::OK, "{asset}");
        assert!(content_type(&r).starts_with(kind), "{asset}");
        assert!(body_text(r).await.len() > 100, "{asset} is empty");
    }
    let r = get(&app, "/favicon.ico").await;
    assert_eq!(r.status(), StatusCode::OK, "the icon browsers ask for");
    assert_eq!(content_type(&r), "image/x-icon");
    let icon = axum::body::to_bytes(r.into_body(), usize::MAX)
        .await
        .expect("the icon");
    assert_eq!(&icon[..4], b"\0\0\x01\0", "an ICO file");
    assert_eq!(
        get(&app, "/assets/../Cargo.toml").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&app, "/assets/secret.js").await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn match_list_and_state() {
    let (hub, _a, app) = setup(HubOptions::default());
    hub.publish("table-2", Update::default()).unwrap();
    let r = get(&app, "/api/matches").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(content_type(&r).starts_with("application/json"));
    let list: serde_json::Value = serde_json::from_str(&body_text(r).await).unwrap();
    assert_eq!(list[0]["id"], "table-1");
    assert_eq!(list[0]["seq"], 1);
    assert_eq!(list[0]["viewer"], "/match/table-1");
    assert_eq!(list[1]["id"], "table-2");

    let r = get(&app, "/api/matches/table-1").await;
    assert_eq!(r.status(), StatusCode::OK);
    let state: serde_json::Value = serde_json::from_str(&body_text(r).await).unwrap();
    assert_eq!(state["seq"], 1);
    assert_eq!(state["boards"]["A"]["white"], "Ann");
    assert!(state["bfen"].as_str().unwrap().contains(" | "));

    let r = get(&app, "/api/matches/nope").await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(body_text(r).await.contains("unknown match"));
    // Not a valid id at all: still a plain 404.
    assert_eq!(
        get(&app, "/api/matches/%00%2F").await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn bpgn_download() {
    let (_hub, _a, app) = setup(HubOptions::default());
    let r = get(&app, "/api/matches/table-1/bpgn").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(content_type(&r).starts_with("text/plain"));
    assert_eq!(
        r.headers()[header::CONTENT_DISPOSITION],
        "attachment; filename=\"table-1.bpgn\""
    );
    assert!(body_text(r).await.starts_with("[Event \"Test\"]"));
    assert_eq!(
        get(&app, "/api/matches/nope/bpgn").await.status(),
        StatusCode::NOT_FOUND
    );
}

/// Reads SSE frames (separated by a blank line) from a streaming body.
struct Frames {
    body: axum::body::BodyDataStream,
    buf: String,
}

impl Frames {
    fn new(response: axum::response::Response) -> Self {
        Frames {
            body: response.into_body().into_data_stream(),
            buf: String::new(),
        }
    }

    async fn next(&mut self) -> String {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let frame = self.buf[..end].to_owned();
                self.buf.drain(..end + 2);
                return frame;
            }
            let chunk: Bytes = tokio::time::timeout(LIMIT, self.body.next())
                .await
                .expect("no SSE frame in time")
                .expect("stream ended")
                .unwrap();
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next frame that is not a keep-alive comment.
    async fn next_message(&mut self) -> String {
        loop {
            let frame = self.next().await;
            if !frame.starts_with(':') {
                return frame;
            }
        }
    }
}

fn data(frame: &str) -> serde_json::Value {
    let line = frame
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap();
    serde_json::from_str(line).unwrap()
}

#[tokio::test]
async fn stream_sends_catch_up_then_events_then_state() {
    let (hub, _a, app) = setup(HubOptions::default());
    let r = get(&app, "/api/matches/table-1/stream").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(content_type(&r), "text/event-stream");
    let mut frames = Frames::new(r);
    assert_eq!(frames.next().await, "retry: 2000");
    let catch_up = frames.next_message().await;
    assert!(catch_up.starts_with("id: 1\nevent: state\n"), "{catch_up}");
    assert_eq!(data(&catch_up)["seq"], 1);

    hub.publish("table-1", common::move_update(2)).unwrap();
    let event = frames.next_message().await;
    assert!(event.starts_with("id: 2\ndata: "), "{event}");
    let event = data(&event);
    assert_eq!(event["seq"], 2);
    assert_eq!(event["kind"], "move");
    assert_eq!(event["side"], "black");
    let state = frames.next_message().await;
    assert!(state.starts_with("id: 2\nevent: state\n"));
    assert_eq!(data(&state)["moves"].as_array().unwrap().len(), 2);

    assert_eq!(
        get(&app, "/api/matches/nope/stream").await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn stream_honours_last_event_id_after_the_catch_up() {
    let (hub, _a, app) = setup(HubOptions::default());
    for plies in 2..=5 {
        hub.publish("table-1", common::move_update(plies)).unwrap();
    }
    let request = Request::get("/api/matches/table-1/stream")
        .header("Last-Event-ID", "2")
        .body(Body::empty())
        .unwrap();
    let mut frames = Frames::new(app.clone().oneshot(request).await.unwrap());
    frames.next().await; // retry
    assert_eq!(data(&frames.next_message().await)["seq"], 5);
    for seq in 3..=5 {
        let frame = frames.next_message().await;
        assert!(frame.starts_with(&format!("id: {seq}\ndata: ")), "{frame}");
    }
}

#[tokio::test]
async fn slow_stream_gets_a_fresh_catch_up() {
    let (hub, _a, app) = setup(HubOptions {
        fanout_capacity: 4,
        ..HubOptions::default()
    });
    let mut frames = Frames::new(get(&app, "/api/matches/table-1/stream").await);
    frames.next().await; // retry
    frames.next_message().await; // catch-up at seq 1
    for plies in 2..=40 {
        hub.publish("table-1", common::move_update(plies)).unwrap();
    }
    // The stream lagged: it resubscribes and sends the state at seq 40.
    let frame = frames.next_message().await;
    assert!(frame.contains("event: state"), "{frame}");
    assert_eq!(data(&frame)["seq"], 40);
}

#[tokio::test]
async fn metrics_count_moves_alerts_viewers() {
    let (hub, _a, app) = setup(HubOptions::default());
    let mut update = common::move_update(2);
    update.events.push(common::alert(2500));
    let mut lost = common::alert(2600);
    lost.code = Some("link-lost".to_owned());
    lost.reason = None;
    update.events.push(lost.clone());
    hub.publish("table-1", update).unwrap();
    let stream = get(&app, "/api/matches/table-1/stream").await;
    let r = get(&app, "/metrics").await;
    assert_eq!(r.status(), StatusCode::OK);
    let text = body_text(r).await;
    assert!(
        text.contains("bugbridge_moves_total{match=\"table-1\"} 2"),
        "{text}"
    );
    assert!(
        text.contains("bugbridge_alerts_total{match=\"table-1\",code=\"illegal-move\"} 1"),
        "{text}"
    );
    assert!(text.contains("bugbridge_boards_connected{match=\"table-1\"} 2"));
    assert!(
        text.contains("bugbridge_link_outages_total{match=\"table-1\",board=\"B\"} 1"),
        "{text}"
    );
    assert!(!text.contains("bugbridge_link_outages_total{match=\"table-1\",board=\"A\"}"));
    assert!(
        text.contains("bugbridge_viewers{stream=\"viewer\"} 1"),
        "{text}"
    );
    assert!(text.contains("bugbridge_mqtt_connected 0"));
    drop(stream);
    let text = body_text(get(&app, "/metrics").await).await;
    assert!(
        text.contains("bugbridge_viewers{stream=\"viewer\"} 0"),
        "{text}"
    );
}

fn action_request(token: Option<&str>, id: &str, body: impl Into<Body>) -> Request<Body> {
    let mut request = Request::post(format!("/api/matches/{id}/arbiter/actions"))
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    request.body(body.into()).unwrap()
}

async fn post(app: &Router, request: Request<Body>) -> (StatusCode, String) {
    let r = app.clone().oneshot(request).await.unwrap();
    let status = r.status();
    (status, body_text(r).await)
}

const PROMOTION: &str =
    r#"{"action":"promotion","board":"A","number":23,"side":"white","piece":"n"}"#;

/// A daemon that answers actions: the request waits for its answer, and a refusal is a 400
/// naming the field; an unknown end reason never reaches the daemon.
#[tokio::test]
async fn a_daemon_that_answers_turns_a_refusal_into_a_400_naming_the_field() {
    let (hub, mut actions, app) = setup(HubOptions::default());
    hub.answer_actions();
    let daemon = {
        let hub = hub.clone();
        tokio::spawn(async move {
            let mut seen = Vec::new();
            while let Some(action) = actions.recv().await {
                let id = action.id.clone().expect("an id");
                let outcome = match &action.kind {
                    ActionKind::Result { correct: false, .. } => {
                        Err(bugbridge_broadcast::ActionRefusal {
                            field: "correct".into(),
                            message: "the game has already ended".into(),
                        })
                    }
                    _ => Ok(()),
                };
                hub.answer(&id, outcome);
                seen.push(action.kind);
                if seen.len() == 2 {
                    return seen;
                }
            }
            seen
        })
    };
    let second = r#"{"action":"result","result":"1-0","reason":"resignation"}"#;
    let (status, body) = post(&app, action_request(Some(TOKEN), "table-1", second)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("\"field\":\"correct\""), "{body}");
    let banana = r#"{"action":"result","result":"0-1","reason":"banana"}"#;
    let (status, body) = post(&app, action_request(Some(TOKEN), "table-1", banana)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("reason"), "{body}");
    let correction = r#"{"action":"result","result":"1-0","reason":"flag-fall","correct":true}"#;
    let (status, body) = post(&app, action_request(Some(TOKEN), "table-1", correction)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert!(body.contains("\"applied\":true"), "{body}");
    let seen = tokio::time::timeout(LIMIT, daemon)
        .await
        .expect("in time")
        .expect("joined");
    assert_eq!(seen.len(), 2, "the banana never reached the daemon");
}

#[tokio::test]
async fn valid_actions_reach_the_daemon() {
    let (_hub, mut actions, app) = setup(HubOptions::default());
    let (status, _) = post(&app, action_request(Some(TOKEN), "table-1", PROMOTION)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let received = actions.try_recv().unwrap();
    assert!(received.id.is_some(), "every action gets an id");
    assert_eq!(
        received,
        OperatorAction {
            id: received.id.clone(),
            match_id: "table-1".into(),
            kind: ActionKind::Promotion {
                board: Board::A,
                number: 23,
                side: Side::White,
                piece: "n".into()
            }
        }
    );
    let result = r#"{"action":"result","result":"0-1","reason":"resignation"}"#;
    let replace = r#"{"action":"replace","board":"B","number":4,"side":"black","san":"Nxe4"}"#;
    for body in [result, replace] {
        let (status, _) = post(&app, action_request(Some(TOKEN), "table-1", body)).await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
    assert!(matches!(
        actions.try_recv().unwrap().kind,
        ActionKind::Result { .. }
    ));
    assert!(matches!(
        actions.try_recv().unwrap().kind,
        ActionKind::Replace { .. }
    ));
}

#[tokio::test]
async fn actions_without_the_token_change_nothing() {
    let (_hub, mut actions, app) = setup(HubOptions::default());
    for token in [None, Some("wrong"), Some(""), Some("s3cret-token-and-more")] {
        let (status, body) = post(&app, action_request(token, "table-1", PROMOTION)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}");
        assert!(body.contains("token"));
    }
    // Token in the query string or cookie is not enough for a POST.
    let request = Request::post(format!(
        "/api/matches/table-1/arbiter/actions?token={TOKEN}"
    ))
    .header(header::COOKIE, format!("bugbridge_arbiter={TOKEN}"))
    .body(Body::from(PROMOTION))
    .unwrap();
    assert_eq!(post(&app, request).await.0, StatusCode::UNAUTHORIZED);
    assert!(actions.try_recv().is_err());

    // No token configured: nobody gets in.
    let (hub, mut actions) = Hub::new(HubOptions::default());
    hub.publish("table-1", Update::default()).unwrap();
    let app = router(hub, HttpOptions::default());
    let (status, _) = post(&app, action_request(Some(TOKEN), "table-1", PROMOTION)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(actions.try_recv().is_err());
}

#[tokio::test]
async fn bad_actions_are_refused_with_a_reason() {
    let (_hub, mut actions, app) = setup(HubOptions::default());
    let (status, body) = post(&app, action_request(Some(TOKEN), "nope", PROMOTION)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("unknown match"));

    let cases = [
        ("{not json", "malformed action"),
        (r#"{"action":"resign"}"#, "unknown variant `resign`"),
        (
            r#"{"action":"promotion","board":"C","number":1,"side":"white","piece":"q"}"#,
            "unknown variant `C`",
        ),
        (
            r#"{"action":"promotion","board":"A","number":1,"side":"white"}"#,
            "missing field `piece`",
        ),
        (
            r#"{"action":"promotion","board":"A","number":1,"side":"white","piece":"k"}"#,
            "piece \\\"k\\\"",
        ),
        (
            r#"{"action":"promotion","board":"A","number":0,"side":"white","piece":"q"}"#,
            "number 0",
        ),
        (
            r#"{"action":"result","result":"2-0","reason":"resignation"}"#,
            "result \\\"2-0\\\"",
        ),
        (
            r#"{"action":"result","result":"1-0","reason":""}"#,
            "reason",
        ),
        (
            r#"{"action":"replace","board":"A","number":3,"side":"white","san":""}"#,
            "san",
        ),
        (
            r#"{"action":"result","result":"1-0","reason":"resignation","extra":1}"#,
            "unknown field `extra`",
        ),
        ("", "malformed action"),
    ];
    for (body, why) in cases {
        let (status, text) = post(&app, action_request(Some(TOKEN), "table-1", body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(text.contains(why), "{body}: {text}");
    }

    let huge = format!(
        r#"{{"action":"result","result":"1-0","reason":"{}"}}"#,
        "a".repeat(5000)
    );
    let (status, _) = post(&app, action_request(Some(TOKEN), "table-1", huge.clone())).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    // Without a Content-Length (streamed body), the limit holds as well.
    let chunks = futures_util::stream::iter(
        huge.into_bytes()
            .chunks(100)
            .map(|c| Ok::<_, std::io::Error>(Bytes::copy_from_slice(c)))
            .collect::<Vec<_>>(),
    );
    let (status, _) = post(
        &app,
        action_request(Some(TOKEN), "table-1", Body::from_stream(chunks)),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(actions.try_recv().is_err());
}

#[tokio::test]
async fn full_action_channel_is_503() {
    let (_hub, _actions, app) = setup(HubOptions {
        action_capacity: 1,
        ..HubOptions::default()
    });
    let (status, _) = post(&app, action_request(Some(TOKEN), "table-1", PROMOTION)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, _) = post(&app, action_request(Some(TOKEN), "table-1", PROMOTION)).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn arbiter_page_needs_the_token() {
    let (_hub, _a, app) = setup(HubOptions::default());
    let r = get(&app, "/arbiter/table-1").await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert!(r.headers().contains_key(header::WWW_AUTHENTICATE));
    assert!(body_text(r).await.contains("<form"));
    assert_eq!(
        get(&app, "/arbiter/table-1?token=wrong").await.status(),
        StatusCode::UNAUTHORIZED
    );
    // The login page escapes what it echoes.
    let text = body_text(get(&app, "/arbiter/%3Cscript%3E").await).await;
    assert!(!text.contains("<script>") && text.contains("&lt;script&gt;"));

    let r = get(&app, &format!("/arbiter/table-1?token={TOKEN}")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()[header::SET_COOKIE]
            .to_str()
            .unwrap()
            .starts_with("bugbridge_arbiter=")
    );
    assert!(body_text(r).await.contains("/assets/arbiter.js"));
    let request = Request::get("/arbiter/table-1")
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        app.clone().oneshot(request).await.unwrap().status(),
        StatusCode::OK
    );
    let request = Request::get("/arbiter/table-1")
        .header(header::COOKIE, format!("a=b; bugbridge_arbiter={TOKEN}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        app.clone().oneshot(request).await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        get(&app, &format!("/arbiter/nope?token={TOKEN}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn alerts_are_private_unless_public() {
    let (hub, _a, app) = setup(HubOptions::default());
    let mut public = Frames::new(get(&app, "/api/matches/table-1/stream").await);
    public.next().await;
    public.next_message().await;
    let mut update = common::move_update(2);
    update.events.insert(0, common::alert(1500));
    hub.publish("table-1", update).unwrap();
    // The public stream sees the move (seq 2: the alert took no public number), then state.
    let event = data(&public.next_message().await);
    assert_eq!(
        (event["kind"].as_str(), event["seq"].as_u64()),
        (Some("move"), Some(2))
    );

    assert_eq!(
        get(&app, "/api/matches/table-1/alerts").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        get(&app, "/api/matches/table-1/alerts/stream")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    let r = get(&app, &format!("/api/matches/table-1/alerts?token={TOKEN}")).await;
    assert_eq!(r.status(), StatusCode::OK);
    let list: serde_json::Value = serde_json::from_str(&body_text(r).await).unwrap();
    assert_eq!(list[0]["code"], "illegal-move");
    assert_eq!(list[0]["seq"], 1);

    let r = get(
        &app,
        &format!("/api/matches/table-1/alerts/stream?token={TOKEN}"),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let mut alerts = Frames::new(r);
    alerts.next().await; // retry
    assert!(alerts.next_message().await.starts_with("event: state"));
    let replayed = alerts.next_message().await;
    assert!(replayed.starts_with("id: 1\nevent: alert\n"), "{replayed}");
    hub.publish(
        "table-1",
        Update {
            events: vec![common::alert(3000)],
            ..common::move_update(2)
        },
    )
    .unwrap();
    let live = alerts.next_message().await;
    assert!(live.starts_with("id: 2\nevent: alert\n"), "{live}");
    assert_eq!(
        get(
            &app,
            &format!("/api/matches/nope/alerts/stream?token={TOKEN}")
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );

    // alerts_public: the alert takes a public seq too.
    let (hub, _a, app) = setup(HubOptions {
        alerts_public: true,
        ..HubOptions::default()
    });
    let mut public = Frames::new(get(&app, "/api/matches/table-1/stream").await);
    public.next().await;
    public.next_message().await;
    hub.publish(
        "table-1",
        Update {
            events: vec![common::alert(3000)],
            ..common::move_update(1)
        },
    )
    .unwrap();
    let event = data(&public.next_message().await);
    assert_eq!(
        (event["kind"].as_str(), event["seq"].as_u64()),
        (Some("alert"), Some(2))
    );
}

#[tokio::test]
async fn serve_shuts_down_with_streams_open() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (hub, _actions) = Hub::new(HubOptions::default());
    hub.publish("table-1", common::move_update(1)).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(
        listener,
        hub.clone(),
        HttpOptions::default(),
        async {
            let _ = stop_rx.await;
        },
    ));
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    socket
        .write_all(b"GET /api/matches/table-1/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = vec![0; 4096];
    let mut got = String::new();
    while !got.contains("event: state") {
        let n = tokio::time::timeout(LIMIT, socket.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0);
        got.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(got.starts_with("HTTP/1.1 200"));
    stop_tx.send(()).unwrap();
    tokio::time::timeout(LIMIT, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(hub.is_closed());
}
