//! The relay against a real broker (the embedded rumqttd): tables publish with the real
//! publisher, relays mirror them; every wait is on a channel, bounded by a timeout.

#![cfg(feature = "embedded-broker")]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use bugbridge_broadcast::http::{ArbiterToken, HttpOptions};
use bugbridge_broadcast::mqtt::{EmbeddedBroker, Publisher, PublisherOptions};
use bugbridge_broadcast::relay::{self, Relay, RelayOptions, TableSummary};
use bugbridge_broadcast::wire::{ActionKind, OperatorAction};
use bugbridge_broadcast::{Hub, HubOptions, Update};
use futures_util::StreamExt;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tower::ServiceExt;

const LIMIT: Duration = Duration::from_secs(20);

struct Running {
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl Running {
    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(LIMIT, self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

fn url(addr: SocketAddr) -> String {
    format!("mqtt://{addr}")
}

/// A table's daemon side: a hub and its publisher to `broker`.
fn table(broker: SocketAddr, id: &str) -> (Hub, Running) {
    let (hub, _actions, running) = operated_table(broker, id, false);
    (hub, running)
}

/// A table whose publisher takes operator actions from MQTT if `operator`; they arrive on
/// the returned channel, as the daemon would receive them.
fn operated_table(
    broker: SocketAddr,
    id: &str,
    operator: bool,
) -> (Hub, mpsc::Receiver<OperatorAction>, Running) {
    let (hub, actions) = Hub::new(HubOptions::default());
    let mut opts = PublisherOptions::from_url(&url(broker)).unwrap();
    opts.accept_operator = operator;
    opts.client_id = format!("table-{id}");
    opts.will_match = Some(id.to_owned());
    opts.backoff_min = Duration::from_millis(10);
    opts.backoff_max = Duration::from_millis(200);
    let (_handle, publisher) = Publisher::new(hub.clone(), opts).unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(publisher.run(async {
        let _ = stopped.await;
    }));
    (
        hub,
        actions,
        Running {
            stop: Some(stop),
            task,
        },
    )
}

fn relay(broker: SocketAddr, name: &str, delay: Duration) -> (Relay, Running) {
    let mut mqtt = PublisherOptions::from_url(&url(broker)).unwrap();
    mqtt.client_id = name.to_owned();
    mqtt.backoff_min = Duration::from_millis(10);
    mqtt.backoff_max = Duration::from_millis(200);
    let (relay, relay_loop) = Relay::new(RelayOptions {
        mqtt,
        delay,
        hub: HubOptions::default(),
    })
    .unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(relay_loop.run(async {
        let _ = stopped.await;
    }));
    (
        relay,
        Running {
            stop: Some(stop),
            task,
        },
    )
}

fn tagged(plies: u32, table: &str, round: &str) -> Update {
    let mut update = common::move_update(plies);
    let tags = &mut update.state.tags;
    tags.insert("Event".into(), "Open".into());
    tags.insert("Round".into(), round.into());
    tags.insert("Table".into(), table.into());
    update.bpgn = format!("[Event \"Open\"]\n[Table \"{table}\"]\n\n{plies} plies on {table}\n");
    update
}

async fn settled(relay: &Relay, mut f: impl FnMut(&Relay) -> bool) {
    assert!(
        tokio::time::timeout(LIMIT, relay.wait_until(&mut f))
            .await
            .expect("relay not settled in time")
    );
}

fn seq_of(relay: &Relay, id: &str) -> u64 {
    relay.public().hub().state(id).map_or(0, |s| s.seq)
}

fn broker() -> SocketAddr {
    EmbeddedBroker::start("127.0.0.1:0".parse().unwrap())
        .unwrap()
        .addr()
}

async fn get(router: &axum::Router, path: &str) -> (StatusCode, String) {
    let response = router
        .clone()
        .oneshot(Request::get(path).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = to_bytes(response.into_body(), 1 << 24).await.unwrap();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relays_mirror_every_table_exactly_and_a_late_relay_is_complete_from_retained() {
    let broker = broker();
    let (early, early_loop) = relay(broker, "relay-early", Duration::ZERO);
    settled(&early, |r| r.status().connected).await;
    let ids = ["t1", "t2", "t3"];
    let mut tables = Vec::new();
    for id in ids {
        tables.push(table(broker, id));
    }
    const N: u32 = 40;
    for plies in 1..=N {
        for (i, (hub, _)) in tables.iter().enumerate() {
            let mut update = tagged(plies, &(3 - i).to_string(), "1");
            if plies == 20 {
                update.events.push(common::alert(7));
            }
            hub.publish(ids[i], update).unwrap();
        }
    }
    settled(&early, |r| {
        ids.iter().all(|id| seq_of(r, id) == u64::from(N))
    })
    .await;

    // A relay started now is complete from the retained topics alone.
    let (late, late_loop) = relay(broker, "relay-late", Duration::ZERO);
    settled(&late, |r| {
        ids.iter().all(|id| seq_of(r, id) == u64::from(N))
    })
    .await;
    for relay in [&early, &late] {
        for ((hub, _), id) in tables.iter().zip(ids) {
            // Everything equal: state (moves, clocks, tags, seq) and BPGN.
            assert_eq!(relay.public().hub().state(id), hub.state(id), "{id}");
            settled(relay, |r| r.public().hub().bpgn(id) == hub.bpgn(id)).await;
            settled(relay, |r| r.public().online(id) == Some(true)).await;
        }
    }
    // The early relay saw every event in order (its history), the alert on its own stream.
    let router = relay::http::router(early.clone(), HttpOptions::default());
    let (status, body) = get(&router, "/api/matches/t1").await;
    assert_eq!(status, StatusCode::OK);
    let state: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(state["seq"], u64::from(N));
    assert_eq!(early.live().hub().alerts("t1").len(), 1);

    // The tournament API: every table, with tags and status, in Table order as on the page
    // and in the round's BPGN (t3 is table 1), not in id order.
    let (_, body) = get(&router, "/api/tournament").await;
    let list: Vec<TableSummary> = serde_json::from_str(&body).unwrap();
    assert_eq!(
        list.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["t3", "t2", "t1"]
    );
    assert!(
        list.iter()
            .all(|t| t.status == "online" && t.plies == N as usize)
    );
    assert_eq!(list[0].tags["Table"], "1");

    // The round as one BPGN, in Table order (t3 is table 1).
    let (status, body) = get(&router, "/api/tournament/bpgn?event=Open&round=1").await;
    assert_eq!(status, StatusCode::OK);
    let at = |s: &str| body.find(s).unwrap();
    assert!(
        at("on 1\n") < at("on 2\n") && at("on 2\n") < at("on 3\n"),
        "{body}"
    );
    let (_, other) = get(&router, "/api/tournament/bpgn?event=Open&round=2").await;
    assert!(other.is_empty());
    let (status, page) = get(&router, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("tournament.js"));

    // A table shutting down shows offline at once.
    let (_, t1_loop) = tables.remove(0);
    t1_loop.stop().await;
    settled(&early, |r| r.public().online("t1") == Some(false)).await;
    settled(&late, |r| r.public().online("t1") == Some(false)).await;

    for (_, running) in tables {
        running.stop().await;
    }
    early_loop.stop().await;
    late_loop.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewers_of_the_relay_receive_the_tables_events_live() {
    let broker = broker();
    let (relay_view, relay_loop) = relay(broker, "relay-sse", Duration::ZERO);
    let (hub, table_loop) = table(broker, "live");
    hub.publish("live", tagged(1, "1", "1")).unwrap();
    settled(&relay_view, |r| seq_of(r, "live") == 1).await;

    let router = relay::http::router(relay_view.clone(), HttpOptions::default());
    let response = router
        .clone()
        .oneshot(
            Request::get("/api/matches/live/stream")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let mut body = response.into_body().into_data_stream();
    let mut text = String::new();
    for plies in 2..=5 {
        hub.publish("live", tagged(plies, "1", "1")).unwrap();
    }
    while !(text.contains("id: 5\ndata:") && text.contains("id: 5\nevent: state")) {
        let chunk = tokio::time::timeout(LIMIT, body.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    // After the catch-up state, events 2..=5 in order, each once, with their own ids.
    let frames: Vec<&str> = text.split("\n\n").collect();
    assert!(frames[1].starts_with("id: 1\nevent: state"), "{text}");
    let events: Vec<u64> = frames
        .iter()
        .filter(|f| !f.contains("event:"))
        .filter_map(|f| f.strip_prefix("id: "))
        .map(|f| f.split('\n').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(events, vec![2, 3, 4, 5], "{text}");

    table_loop.stop().await;
    relay_loop.stop().await;
}

/// A raw MQTT client, for publishing what a table would (or would not).
async fn raw(
    broker: SocketAddr,
    id: &str,
) -> (AsyncClient, mpsc::UnboundedReceiver<(String, String)>) {
    let mut opts = MqttOptions::new(id, broker.ip().to_string(), broker.port());
    opts.set_max_packet_size(1 << 22, 1 << 22);
    let (client, mut eventloop) = AsyncClient::new(opts, 64);
    let (tx, rx) = mpsc::unbounded_channel();
    let (up_tx, up_rx) = oneshot::channel();
    let mut up_tx = Some(up_tx);
    tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    if let Some(up) = up_tx.take() {
                        let _ = up.send(());
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let payload = String::from_utf8_lossy(&p.payload).into_owned();
                    if tx.send((p.topic.clone(), payload)).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    if tx.is_closed() {
                        return;
                    }
                    // Reconnect back-off of the test client; not a synchronisation point.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    });
    tokio::time::timeout(LIMIT, up_rx).await.unwrap().unwrap();
    (client, rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seq_gap_makes_the_relay_re_read_the_retained_state_and_stale_states_are_ignored() {
    let broker = broker();
    let (relay_view, relay_loop) = relay(broker, "relay-gap", Duration::ZERO);
    settled(&relay_view, |r| r.status().connected).await;
    let (client, _rx) = raw(broker, "fake-table").await;
    let publish = |leaf: &str, retain: bool, json: String| {
        client
            .try_publish(
                format!("bughouse/gap/{leaf}"),
                QoS::AtLeastOnce,
                retain,
                json,
            )
            .unwrap();
    };
    let state = |plies: u32| {
        let mut s = common::state(plies);
        s.id = "gap".into();
        s.seq = u64::from(plies);
        s.v = 1;
        serde_json::to_string(&s).unwrap()
    };
    let event = |plies: u32| {
        let mut e = common::move_event(plies);
        e.seq = u64::from(plies);
        serde_json::to_string(&e).unwrap()
    };
    publish("events", false, event(1));
    publish("state", true, state(1));
    settled(&relay_view, |r| seq_of(r, "gap") == 1).await;
    // An older state (a late repeat) changes nothing.
    publish("state", false, state(0));
    // Event 3 without event 2: the relay re-reads the retained state (still seq 1 here, so
    // the position shown is the last one known to be right, never a guess).
    publish("events", false, event(3));
    settled(&relay_view, |r| {
        r.status().gaps == 1 && r.status().rereads == 1
    })
    .await;
    assert_eq!(
        relay_view.public().hub().state("gap").unwrap().moves.len(),
        1
    );
    // Malformed messages are ignored; the table's next state is the truth.
    publish("state", false, "{not json".into());
    publish("events", false, event(3));
    publish("state", true, state(3));
    settled(&relay_view, |r| {
        r.public()
            .hub()
            .state("gap")
            .is_some_and(|s| s.moves.len() == 3 && s.seq == 3)
    })
    .await;
    assert_eq!(relay_view.status().gaps, 1, "a repeat is not a gap");
    relay_loop.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_view_lags_by_the_delay_and_the_arbiter_token_sees_live() {
    let broker = broker();
    let delay = Duration::from_millis(1500);
    let (relay_view, relay_loop) = relay(broker, "relay-delay", delay);
    settled(&relay_view, |r| r.status().connected).await;
    let (hub, table_loop) = table(broker, "d");
    // Clocks read now: the public view cannot know the match as it stood the delay ago.
    hub.publish("d", fresh(tagged(1, "1", "1"))).unwrap();
    settled(&relay_view, |r| {
        r.live().hub().state("d").is_some_and(|s| s.seq == 1)
    })
    .await;
    let seen_live = std::time::Instant::now();
    assert!(
        relay_view
            .public()
            .hub()
            .state("d")
            .is_none_or(|s| s.seq == 0)
    );

    let opts = HttpOptions {
        arbiter_token: ArbiterToken::new("sesame"),
        ..HttpOptions::default()
    };
    let router = relay::http::router(relay_view.clone(), opts);
    let (status, _) = get(&router, "/api/matches/d").await;
    assert_eq!(
        status,
        StatusCode::SERVICE_UNAVAILABLE,
        "the public has not seen it yet, but the match is known: no 404"
    );
    let (status, body) = get(&router, "/api/matches/d?token=sesame").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("\"seq\":1"));

    settled(&relay_view, |r| seq_of(r, "d") == 1).await;
    let lag = seen_live.elapsed();
    assert!(
        lag >= delay - Duration::from_millis(100),
        "public view after {lag:?}"
    );
    // The clocks' reading time moves with the delay, so the running clock reads as then.
    let live = relay_view.live().hub().state("d").unwrap();
    let public = relay_view.public().hub().state("d").unwrap();
    assert_eq!(public.clocks.at, live.clocks.at + 1500);
    assert_eq!(public.moves, live.moves);

    table_loop.stop().await;
    relay_loop.stop().await;
}

/// `update` with its clocks read now.
fn fresh(mut update: Update) -> Update {
    update.state.clocks.at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        .try_into()
        .unwrap();
    update
}

/// Reads `body` until `text` has arrived.
async fn body_until(body: &mut axum::body::BodyDataStream, text: &str) -> String {
    let mut got = String::new();
    tokio::time::timeout(LIMIT, async {
        while !got.contains(text) {
            let chunk = body.next().await.expect("the stream ended").unwrap();
            got.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{text:?} not received; got {got:?}"));
    got
}

/// A delayed relay just (re)started serves its public routes at once: a match
/// whose retained state is older than the delay from that state, one with fresh clocks
/// from a stream held open until its delayed copy is there; never a 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_delayed_relay_serves_known_matches_at_once_or_holds_their_streams() {
    let broker = broker();
    let (old_hub, old_loop) = table(broker, "old");
    // The common state's clocks were read months ago: still the state of a delay ago.
    old_hub.publish("old", tagged(3, "1", "1")).unwrap();
    let (new_hub, new_loop) = table(broker, "new");
    new_hub.publish("new", fresh(tagged(2, "2", "1"))).unwrap();
    let (watcher, mut retained) = raw(broker, "delay-restart-watcher").await;
    watcher
        .subscribe("bughouse/+/state", QoS::AtLeastOnce)
        .await
        .unwrap();
    let mut seen = std::collections::BTreeSet::new();
    tokio::time::timeout(LIMIT, async {
        while seen.len() < 2 {
            seen.insert(retained.recv().await.unwrap().0);
        }
    })
    .await
    .expect("both states retained");

    let delay = Duration::from_millis(1500);
    let (relay_view, relay_loop) = relay(broker, "relay-delay-restart", delay);
    let started = std::time::Instant::now();
    settled(&relay_view, |r| {
        r.live().hub().state("new").is_some_and(|s| s.seq == 1)
            && r.live().hub().state("old").is_some_and(|s| s.seq == 1)
    })
    .await;
    let router = relay::http::router(relay_view.clone(), HttpOptions::default());
    // Known as it stood the delay ago: served at once, clocks moved by the delay.
    let (status, body) = get(&router, "/api/matches/old").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("\"seq\":1"), "{body}");
    let (status, _) = get(&router, "/match/old").await;
    assert_eq!(status, StatusCode::OK);
    assert!(started.elapsed() < delay, "checked within the delay");
    // Fresh: the page is served, the JSON says "not yet" (503), the stream is held open.
    let (status, _) = get(&router, "/match/new").await;
    assert_eq!(status, StatusCode::OK);
    let response = router
        .clone()
        .oneshot(
            Request::get("/api/matches/new")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(response.headers().contains_key("retry-after"));
    let response = router
        .clone()
        .oneshot(
            Request::get("/api/matches/new/stream")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(started.elapsed() < delay, "answered within the delay");
    let mut body = response.into_body().into_data_stream();
    let got = body_until(&mut body, "retry:").await;
    assert!(!got.contains("\"seq\""), "{got}");
    // Then the match as it was the delay ago, on the same connection.
    let got = body_until(&mut body, "\"seq\":1").await;
    assert!(
        started.elapsed() >= delay - Duration::from_millis(200),
        "{got}"
    );
    // An unknown match is still unknown.
    let (status, _) = get(&router, "/api/matches/nowhere/stream").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    for running in [old_loop, new_loop, relay_loop] {
        running.stop().await;
    }
}

fn token_opts() -> HttpOptions {
    HttpOptions {
        arbiter_token: ArbiterToken::new("sesame"),
        ..HttpOptions::default()
    }
}

async fn send(router: &axum::Router, request: Request<Body>) -> (StatusCode, String) {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = to_bytes(response.into_body(), 1 << 24).await.unwrap();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_action_from_the_relay_reaches_its_table_which_confirms_it_on_the_console() {
    let broker = broker();
    let (relay_view, relay_loop) = relay(broker, "relay-ops", Duration::ZERO);
    let (hub, mut actions, table_loop) = operated_table(broker, "ops", true);
    let (other, mut other_actions, other_loop) = operated_table(broker, "other", true);
    hub.publish("ops", tagged(1, "1", "1")).unwrap();
    other.publish("other", tagged(1, "2", "1")).unwrap();
    settled(&relay_view, |r| {
        seq_of(r, "ops") == 1 && seq_of(r, "other") == 1
    })
    .await;
    let router = relay::http::router(relay_view.clone(), token_opts());
    let body = r#"{"action":"result","result":"1-0","reason":"resignation"}"#;
    let post = |token: &str| {
        Request::post("/api/matches/ops/arbiter/actions")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body(Body::from(body))
            .unwrap()
    };
    let (status, _) = send(&router, post("wrong")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The console's feed, open before the action.
    let response = router
        .clone()
        .oneshot(
            Request::get("/api/tournament/alerts/stream?token=sesame")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut feed = response.into_body().into_data_stream();

    // The table's operator subscription may still be on its way; the action is QoS 1 but
    // not retained, so post until the table hears one.
    let mut ids = Vec::new();
    let action = loop {
        let (status, reply) = send(&router, post("sesame")).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
        ids.push(reply["id"].as_str().unwrap().to_owned());
        if let Ok(Some(action)) =
            tokio::time::timeout(Duration::from_millis(500), actions.recv()).await
        {
            break action;
        }
    };
    assert_eq!(action.match_id, "ops");
    assert!(
        ids.contains(action.id.as_ref().unwrap()),
        "the id the relay answered"
    );
    assert_eq!(
        action.kind,
        ActionKind::Result {
            result: "1-0".into(),
            reason: "resignation".into(),
            correct: false,
        }
    );
    // Only its own table heard it.
    assert!(other_actions.try_recv().is_err());

    // The table confirms (as the daemon does once it journaled and applied the action).
    let mut update = tagged(1, "1", "1");
    let mut confirm =
        bugbridge_broadcast::wire::Event::new(bugbridge_broadcast::wire::EventKind::Action, 5000);
    confirm.action = action.id.clone();
    confirm.code = Some("result".into());
    update.events = vec![confirm];
    hub.publish("ops", update).unwrap();
    let mut text = String::new();
    let wanted = format!("\"action\":\"{}\"", action.id.clone().unwrap());
    while !text.contains(&wanted) {
        let chunk = tokio::time::timeout(LIMIT, feed.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains("event: action"), "{text}");
    assert!(text.contains("\"match\":\"ops\""), "{text}");

    table_loop.stop().await;
    other_loop.stop().await;
    relay_loop.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_lists_every_tables_alerts_newest_first_and_acks_are_shared_by_relays() {
    let broker = broker();
    let (first, first_loop) = relay(broker, "relay-c1", Duration::ZERO);
    let (second, second_loop) = relay(broker, "relay-c2", Duration::ZERO);
    let (a, a_loop) = table(broker, "ta");
    let (b, b_loop) = table(broker, "tb");
    settled(&first, |r| r.status().connected).await;
    settled(&second, |r| r.status().connected).await;
    let with_alert = |plies: u32, t: u64| {
        let mut u = tagged(plies, "1", "1");
        u.events.push(common::alert(t));
        u
    };
    a.publish("ta", with_alert(1, 10)).unwrap();
    settled(&first, |r| r.live().console_alerts(None).len() == 1).await;
    b.publish("tb", with_alert(1, 20)).unwrap();
    settled(&first, |r| r.live().console_alerts(None).len() == 2).await;
    a.publish("ta", with_alert(2, 30)).unwrap();
    settled(&first, |r| r.live().console_alerts(None).len() == 3).await;
    settled(&second, |r| r.live().console_alerts(None).len() == 3).await;

    let router = relay::http::router(first.clone(), token_opts());
    let (status, _) = get(&router, "/api/tournament/alerts").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = get(&router, "/arbiter").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, page) = get(&router, "/arbiter?token=sesame").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("console.js"));
    let (status, body) = get(&router, "/api/tournament/alerts?token=sesame").await;
    assert_eq!(status, StatusCode::OK);
    let list: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    let order: Vec<(String, u64)> = list
        .iter()
        .map(|a| {
            (
                a["match"].as_str().unwrap().to_owned(),
                a["seq"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("ta".to_owned(), 2),
            ("tb".to_owned(), 1),
            ("ta".to_owned(), 1)
        ],
        "newest first"
    );
    let (_, body) = get(&router, "/api/tournament/alerts?token=sesame&table=tb").await;
    let only: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["code"], "illegal-move");

    // Acknowledge on the first relay; the second follows through the broker.
    let ack = |path: &str, token: &str| {
        Request::post(path)
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap()
    };
    let (status, _) = send(&router, ack("/api/tournament/alerts/ta/1/ack", "wrong")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = send(&router, ack("/api/tournament/alerts/ta/1/ack", "sesame")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, r#"{"acked":[1]}"#);
    settled(&second, |r| r.live().is_acked("ta", 1)).await;
    assert!(!second.live().is_acked("ta", 2));
    // A relay started now learns the acknowledgements from the retained list.
    let (third, third_loop) = relay(broker, "relay-c3", Duration::ZERO);
    settled(&third, |r| r.live().is_acked("ta", 1)).await;
    let (_, body) = send(&router, ack("/api/tournament/alerts/ta/1/unack", "sesame")).await;
    assert_eq!(body, r#"{"acked":[]}"#);
    settled(&second, |r| !r.live().is_acked("ta", 1)).await;
    let (status, _) = send(&router, ack("/api/tournament/alerts/nope/1/ack", "sesame")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    for running in [a_loop, b_loop, first_loop, second_loop, third_loop] {
        running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_back_online_after_offline_is_counted_afresh() {
    let broker = broker();
    let (relay_view, relay_loop) = relay(broker, "relay-restart", Duration::ZERO);
    settled(&relay_view, |r| r.status().connected).await;
    let (client, _rx) = raw(broker, "restarting-table").await;
    let publish = |leaf: &str, json: String| {
        client
            .try_publish(
                format!("bughouse/back/{leaf}"),
                QoS::AtLeastOnce,
                true,
                json,
            )
            .unwrap();
    };
    let state = |plies: u32, seq: u64| {
        let mut s = common::state(plies);
        s.seq = seq;
        serde_json::to_string(&s).unwrap()
    };
    publish("status", "online".into());
    publish("state", state(8, 8));
    settled(&relay_view, |r| seq_of(r, "back") == 8).await;
    // The daemon restarts: offline, online, and its new process counts from 1 again. (The
    // waits keep the order: a broker orders messages within a topic only.)
    publish("status", "offline".into());
    settled(&relay_view, |r| r.public().online("back") == Some(false)).await;
    publish("status", "online".into());
    settled(&relay_view, |r| r.public().online("back") == Some(true)).await;
    let mut event = common::move_event(9);
    event.seq = 1;
    publish("events", serde_json::to_string(&event).unwrap());
    publish("state", state(9, 1));
    settled(&relay_view, |r| {
        r.public()
            .hub()
            .state("back")
            .is_some_and(|s| s.seq == 1 && s.moves.len() == 9)
    })
    .await;
    assert_eq!(relay_view.status().gaps, 0);
    relay_loop.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consoles_alerts_survive_every_relay_restarting_through_the_retained_alert_log() {
    let broker = broker();
    let (first, first_loop) = relay(broker, "relay-l1", Duration::ZERO);
    let (a, a_loop) = table(broker, "la");
    let (b, b_loop) = table(broker, "lb");
    settled(&first, |r| r.status().connected).await;
    let (watcher, mut logs) = raw(broker, "alert-log-watcher").await;
    watcher
        .subscribe("bughouse/+/alertlog", QoS::AtLeastOnce)
        .await
        .unwrap();
    let with_alert = |plies: u32, t: u64| {
        let mut u = tagged(plies, "1", "1");
        u.events.push(common::alert(t));
        u
    };
    a.publish("la", with_alert(1, 10)).unwrap();
    settled(&first, |r| r.live().console_alerts(None).len() == 1).await;
    b.publish("lb", with_alert(1, 20)).unwrap();
    settled(&first, |r| r.live().console_alerts(None).len() == 2).await;
    a.publish("la", with_alert(2, 30)).unwrap();
    settled(&first, |r| r.live().console_alerts(None).len() == 3).await;
    // The relay keeps each match's log retained on the broker.
    let mut latest = std::collections::BTreeMap::new();
    tokio::time::timeout(LIMIT, async {
        while latest
            .get("bughouse/la/alertlog")
            .map(|l: &serde_json::Value| l["alerts"].as_array().map_or(0, Vec::len))
            != Some(2)
            || !latest.contains_key("bughouse/lb/alertlog")
        {
            let (topic, payload) = logs.recv().await.unwrap();
            latest.insert(topic, serde_json::from_str(&payload).unwrap());
        }
    })
    .await
    .expect("the alert logs published");
    let before = first.live().console_alerts(None);
    let seqs = |list: &[relay::view::ConsoleAlert]| -> Vec<(String, u64, u64)> {
        list.iter()
            .map(|a| (a.match_id.clone(), a.alert.seq, a.alert.t))
            .collect()
    };
    assert_eq!(
        seqs(&before),
        [
            ("la".to_owned(), 2, 30),
            ("lb".to_owned(), 1, 20),
            ("la".to_owned(), 1, 10)
        ]
    );

    // No relay left running: the alerts are only on the broker now.
    first_loop.stop().await;
    let (again, again_loop) = relay(broker, "relay-l1", Duration::ZERO);
    settled(&again, |r| r.live().console_alerts(None).len() == 3).await;
    assert_eq!(
        again.live().console_alerts(None),
        before,
        "the same alerts, in the same order, at the same times"
    );
    // The table's arbiter view has them too, and a new alert follows in order.
    assert_eq!(again.live().hub().alerts("la").len(), 2);
    a.publish("la", with_alert(3, 40)).unwrap();
    settled(&again, |r| r.live().console_alerts(None).len() == 4).await;
    assert_eq!(
        seqs(&again.live().console_alerts(Some("la"))),
        [
            ("la".to_owned(), 3, 40),
            ("la".to_owned(), 2, 30),
            ("la".to_owned(), 1, 10)
        ]
    );
    assert_eq!(again.live().hub().alerts("la").len(), 3);

    for running in [a_loop, b_loop, again_loop] {
        running.stop().await;
    }
}

/// Reads from `socket` until `text` has arrived (or the peer closed), returning all read.
async fn read_until(socket: &mut tokio::net::TcpStream, text: &str) -> String {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(text) {
        let n = tokio::time::timeout(LIMIT, socket.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relay_server_streams_over_tcp_and_its_shutdown_ends_open_streams() {
    use tokio::io::AsyncWriteExt;
    let broker = broker();
    let (relay_view, relay_loop) = relay(broker, "relay-tcp", Duration::ZERO);
    let (hub, table_loop) = table(broker, "tcp");
    hub.publish("tcp", tagged(1, "1", "1")).unwrap();
    settled(&relay_view, |r| seq_of(r, "tcp") == 1).await;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(relay::http::serve(
        listener,
        relay_view.clone(),
        HttpOptions::default(),
        async {
            let _ = stopped.await;
        },
    ));

    let mut viewer = tokio::net::TcpStream::connect(addr).await.unwrap();
    viewer
        .write_all(b"GET /api/matches/tcp/stream HTTP/1.1\r\nHost: relay\r\n\r\n")
        .await
        .unwrap();
    let head = read_until(&mut viewer, "id: 1\nevent: state").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("text/event-stream"), "{head}");
    hub.publish("tcp", tagged(2, "1", "1")).unwrap();
    let live = read_until(&mut viewer, "id: 2\ndata:").await;
    assert!(live.contains("id: 2\ndata:"), "{live}");

    // A plain request on a second connection is answered while the stream stays open.
    let mut other = tokio::net::TcpStream::connect(addr).await.unwrap();
    other
        .write_all(b"GET /api/matches HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let listing = read_until(&mut other, "\"tcp\"").await;
    assert!(listing.starts_with("HTTP/1.1 200"), "{listing}");

    // Shutdown ends the open stream (the chunked body's last chunk, then the close) and
    // the server returns.
    stop.send(()).unwrap();
    let rest = read_until(&mut viewer, "\r\n0\r\n\r\n").await;
    assert!(rest.ends_with("0\r\n\r\n"), "{rest:?}");
    tokio::time::timeout(LIMIT, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();

    table_loop.stop().await;
    relay_loop.stop().await;
}

/// A table known only by its `online` status (no state yet) has no clock reading: its
/// summary says the clocks are unread, so the tournament page shows none (not 0:00).
#[test]
fn a_table_known_only_by_its_status_has_unread_clocks() {
    let view = relay::View::with_options(HubOptions::default());
    view.apply("t9", relay::Message::Status(true));
    let summary = view.summary("t9");
    assert_eq!(summary.status, "online");
    assert!(
        summary.clocks.A.unread && summary.clocks.B.unread,
        "{summary:?}"
    );
    let json = serde_json::to_value(&summary).expect("JSON");
    assert_eq!(json["clocks"]["A"]["unread"], true, "{json}");
}

/// A relay receives a match's event and its new state as two messages. A viewer whose
/// stream opens between them gets the state before the event (its catch-up), then that
/// event, then the new state: its `seq`s run on without a gap.
#[tokio::test]
async fn a_viewer_opening_between_an_event_and_its_state_gets_that_event() {
    let (relay_view, _loop) = Relay::new(RelayOptions {
        mqtt: PublisherOptions::from_url("mqtt://127.0.0.1:1").unwrap(),
        delay: Duration::ZERO,
        hub: HubOptions::default(),
    })
    .unwrap();
    let live = relay_view.live();
    let mut two = common::state(2);
    two.seq = 2;
    live.apply("t1", relay::Message::State(Box::new(two)));
    for plies in 1..=3 {
        let mut event = common::move_event(plies);
        event.seq = u64::from(plies);
        live.apply("t1", relay::Message::Event(event));
    }
    let router = relay::http::router(relay_view.clone(), HttpOptions::default());
    let response = router
        .clone()
        .oneshot(
            Request::get("/api/matches/t1/stream")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body().into_data_stream();
    let got = body_until(&mut body, "id: 3\n").await;
    let mut three = common::state(3);
    three.seq = 3;
    live.apply("t1", relay::Message::State(Box::new(three)));
    let got = got + &body_until(&mut body, "id: 3\nevent: state").await;
    // The frames' ids in order: the catch-up state (2), the event (3), the state (3).
    let ids: Vec<&str> = got
        .split("\n\n")
        .filter_map(|f| f.lines().find_map(|l| l.strip_prefix("id: ")))
        .collect();
    assert_eq!(ids, ["2", "3", "3"], "{got}");
}

/// A relay's viewers are told whether the table's daemon is online: after the catch-up
/// (so a viewer arriving at an offline table knows at once) and on every change.
#[tokio::test]
async fn the_relays_viewers_are_told_the_tables_status_after_the_catch_up_and_on_change() {
    let (relay_view, _loop) = Relay::new(RelayOptions {
        mqtt: PublisherOptions::from_url("mqtt://127.0.0.1:1").unwrap(),
        delay: Duration::ZERO,
        hub: HubOptions::default(),
    })
    .unwrap();
    let live = relay_view.live();
    // The status first, then the match's first state.
    live.apply("t1", relay::Message::Status(false));
    live.apply("t1", relay::Message::State(Box::new(common::state(2))));
    let router = relay::http::router(relay_view.clone(), HttpOptions::default());
    let response = router
        .clone()
        .oneshot(
            Request::get("/api/matches/t1/stream")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let mut body = response.into_body().into_data_stream();
    let got = body_until(&mut body, "event: status\ndata: {\"online\":false}\n\n").await;
    assert!(
        got.find("event: state").expect("the catch-up") < got.find("event: status").unwrap(),
        "the status follows the catch-up: {got}"
    );
    live.apply("t1", relay::Message::Status(true));
    body_until(&mut body, "event: status\ndata: {\"online\":true}\n\n").await;
}
