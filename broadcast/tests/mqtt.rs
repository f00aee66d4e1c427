//! The MQTT publisher against a real broker (the embedded rumqttd): events in order with a
//! gap-free `seq`, retained state for late subscribers, a broker restart mid-game, the last
//! will and the goodbye on shutdown. No fixed ports, no sleeps to synchronise: every wait is
//! on a channel, bounded by a timeout.

#![cfg(feature = "embedded-broker")]

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bugbridge_broadcast::mqtt::{
    EmbeddedBroker, MqttStatus, Publisher, PublisherHandle, PublisherOptions,
};
use bugbridge_broadcast::{Hub, HubOptions};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

const LIMIT: Duration = Duration::from_secs(20);

/// What a test subscriber sees.
#[derive(Debug)]
enum Seen {
    Subscribed,
    Message { topic: String, payload: String },
}

/// A subscriber to `bughouse/#` that reconnects and resubscribes on its own.
fn subscriber(addr: SocketAddr, id: &str) -> mpsc::UnboundedReceiver<Seen> {
    let mut opts = MqttOptions::new(id, addr.ip().to_string(), addr.port());
    opts.set_keep_alive(Duration::from_secs(5));
    opts.set_max_packet_size(1 << 22, 1 << 22);
    let (client, mut eventloop) = AsyncClient::new(opts, 64);
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    client
                        .try_subscribe("bughouse/#", QoS::AtLeastOnce)
                        .unwrap();
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    if tx.send(Seen::Subscribed).is_err() {
                        return;
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let seen = Seen::Message {
                        topic: p.topic.clone(),
                        payload: String::from_utf8_lossy(&p.payload).into_owned(),
                    };
                    if tx.send(seen).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    if tx.is_closed() {
                        return;
                    }
                    // Reconnect back-off of the test client (the broker may still be
                    // binding its port); not a synchronisation point.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    });
    rx
}

async fn next(rx: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    tokio::time::timeout(LIMIT, rx.recv())
        .await
        .expect("nothing from the broker in time")
        .expect("subscriber stopped")
}

async fn subscribed(rx: &mut mpsc::UnboundedReceiver<Seen>) {
    while !matches!(next(rx).await, Seen::Subscribed) {}
}

/// Receives until a message on `topic` satisfies `f`; returns the event seqs seen meanwhile.
async fn until(
    rx: &mut mpsc::UnboundedReceiver<Seen>,
    seqs: &mut Vec<u64>,
    leaf: &str,
    mut f: impl FnMut(&str) -> bool,
) {
    loop {
        if let Seen::Message { topic, payload } = next(rx).await {
            if topic.ends_with("/events") {
                let event: serde_json::Value = serde_json::from_str(&payload).unwrap();
                seqs.push(event["seq"].as_u64().unwrap());
            }
            if topic.ends_with(&format!("/{leaf}")) && f(&payload) {
                return;
            }
        }
    }
}

fn state_seq(payload: &str) -> u64 {
    let state: serde_json::Value = serde_json::from_str(payload).unwrap();
    state["seq"].as_u64().unwrap()
}

/// Events may repeat after a reconnect (re-sent because unacknowledged) but never skip and
/// never go backwards past a repeat: after dropping repeats they are exactly `1..=n`.
fn assert_gap_free(seqs: &[u64], n: u64) {
    let mut last = 0;
    for &seq in seqs {
        assert!(seq <= last + 1, "gap before {seq} (after {last}): {seqs:?}");
        last = last.max(seq);
    }
    assert_eq!(last, n, "{seqs:?}");
}

fn opts(url: &str) -> PublisherOptions {
    let mut opts = PublisherOptions::from_url(url).unwrap();
    opts.embedded_listen = "127.0.0.1:0".parse().unwrap();
    opts.backoff_min = Duration::from_millis(10);
    opts.backoff_max = Duration::from_millis(200);
    opts.will_match = Some("table-1".into());
    opts
}

fn run(
    hub: &Hub,
    opts: PublisherOptions,
) -> (PublisherHandle, oneshot::Sender<()>, JoinHandle<()>) {
    let (handle, publisher) = Publisher::new(hub.clone(), opts).unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(publisher.run(async {
        let _ = stopped.await;
    }));
    (handle, stop, task)
}

async fn wait(handle: &mut PublisherHandle, f: impl FnMut(&MqttStatus) -> bool) {
    assert!(
        tokio::time::timeout(LIMIT, handle.wait_for(f))
            .await
            .unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriber_receives_every_event_in_order_and_late_ones_the_retained_state() {
    let (hub, _actions) = Hub::new(HubOptions::default());
    // A tiny request queue: the publisher must wait for the connection (backpressure)
    // rather than drop anything.
    let mut small = opts("embedded");
    small.queue = 8;
    let (mut handle, stop, task) = run(&hub, small);
    let broker = handle.embedded_broker().unwrap();
    let mut sub = subscriber(broker, "early");
    subscribed(&mut sub).await;
    wait(&mut handle, |s| s.connected).await;

    const N: u32 = 200;
    for plies in 1..=N {
        let mut update = common::move_update(plies);
        if plies % 50 == 0 {
            update.events.push(common::alert(u64::from(plies)));
        }
        hub.publish("table-1", update).unwrap();
    }
    let mut seqs = Vec::new();
    until(&mut sub, &mut seqs, "state", |p| {
        state_seq(p) == u64::from(N)
    })
    .await;
    // One connection, nothing lost: exactly 1..=N, no repeats.
    assert_eq!(seqs, (1..=u64::from(N)).collect::<Vec<_>>());

    // A late subscriber gets the retained topics, current.
    let mut late = subscriber(broker, "late");
    let mut retained = std::collections::BTreeMap::new();
    while retained.len() < 4 {
        if let Seen::Message { topic, payload } = next(&mut late).await {
            retained.insert(topic, payload);
        }
    }
    assert_eq!(retained["bughouse/table-1/status"], "online");
    assert_eq!(state_seq(&retained["bughouse/table-1/state"]), u64::from(N));
    assert!(retained["bughouse/table-1/bfen"].ends_with(&format!("#{N}")));
    assert!(retained["bughouse/table-1/bpgn"].contains(&format!("{N} plies")));

    // Alerts went to the alerts topic only, with their own sequence.
    let mut alerts = Vec::new();
    let mut sub2 = subscriber(broker, "alerts");
    subscribed(&mut sub2).await;
    hub.publish("table-1", {
        let mut u = common::move_update(N + 1);
        u.events.push(common::alert(9));
        u
    })
    .unwrap();
    loop {
        if let Seen::Message { topic, payload } = next(&mut sub2).await {
            let v: serde_json::Value = serde_json::from_str(&payload).unwrap_or_default();
            if topic.ends_with("/alerts") {
                alerts.push(v["seq"].as_u64().unwrap());
            }
            if topic.ends_with("/events") {
                assert_eq!(v["kind"], "move");
            }
            if topic.ends_with("/state") && state_seq(&payload) == u64::from(N + 1) {
                break;
            }
        }
    }
    assert_eq!(alerts, vec![5]);

    // Graceful shutdown: `offline`, retained.
    stop.send(()).unwrap();
    tokio::time::timeout(LIMIT, task).await.unwrap().unwrap();
    let mut after = subscriber(broker, "after");
    loop {
        if let Seen::Message { topic, payload } = next(&mut after).await
            && topic == "bughouse/table-1/status"
        {
            assert_eq!(payload, "offline");
            break;
        }
    }
}

/// A TCP relay whose backend can be switched (or cut), killing the relayed connections:
/// with a fresh broker behind it, that is a broker restart as the client sees it.
struct Relay {
    addr: SocketAddr,
    backend: Arc<Mutex<Option<SocketAddr>>>,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Relay {
    async fn start(backend: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = Relay {
            addr: listener.local_addr().unwrap(),
            backend: Arc::new(Mutex::new(Some(backend))),
            conns: Arc::default(),
        };
        let (backend, conns) = (relay.backend.clone(), relay.conns.clone());
        tokio::spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                let Some(target) = *backend.lock().unwrap() else {
                    continue; // cut: refuse by closing
                };
                conns.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut up) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                    }
                }));
            }
        });
        relay
    }

    fn switch(&self, backend: Option<SocketAddr>) {
        *self.backend.lock().unwrap() = backend;
        for conn in self.conns.lock().unwrap().drain(..) {
            conn.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broker_restart_mid_game_leaves_current_retained_state_and_no_gap() {
    let first = EmbeddedBroker::start("127.0.0.1:0".parse().unwrap()).unwrap();
    let pub_relay = Relay::start(first.addr()).await;
    let sub_relay = Relay::start(first.addr()).await;
    let (hub, _actions) = Hub::new(HubOptions::default());
    let (mut handle, stop, task) = run(&hub, opts(&format!("mqtt://{}", pub_relay.addr)));
    let mut sub = subscriber(sub_relay.addr, "watcher");
    subscribed(&mut sub).await;
    wait(&mut handle, |s| s.connected).await;

    let mut seqs = Vec::new();
    for plies in 1..=3 {
        hub.publish("table-1", common::move_update(plies)).unwrap();
    }
    until(&mut sub, &mut seqs, "state", |p| state_seq(p) == 3).await;

    // A burst, and the broker goes away in the middle of it (some events unacknowledged,
    // some perhaps not even sent): the will says `offline`.
    for plies in 4..=20 {
        hub.publish("table-1", common::move_update(plies)).unwrap();
    }
    pub_relay.switch(None);
    wait(&mut handle, |s| !s.connected).await;
    until(&mut sub, &mut seqs, "status", |p| p == "offline").await;

    // The game goes on while the broker is down.
    for plies in 21..=23 {
        hub.publish("table-1", common::move_update(plies)).unwrap();
    }

    // A new, empty broker comes up where the old one was.
    let second = EmbeddedBroker::start("127.0.0.1:0".parse().unwrap()).unwrap();
    sub_relay.switch(Some(second.addr()));
    subscribed(&mut sub).await;
    pub_relay.switch(Some(second.addr()));
    wait(&mut handle, |s| s.connected && s.connections >= 2).await;

    // Everything the broker never acknowledged is published again, then the state.
    until(&mut sub, &mut seqs, "state", |p| state_seq(p) == 23).await;
    for plies in 24..=25 {
        hub.publish("table-1", common::move_update(plies)).unwrap();
    }
    until(&mut sub, &mut seqs, "state", |p| state_seq(p) == 25).await;
    assert_gap_free(&seqs, 25);

    // The new broker's retained topics are current.
    let mut late = subscriber(second.addr(), "late");
    let mut retained = std::collections::BTreeMap::new();
    while retained.len() < 4 {
        if let Seen::Message { topic, payload } = next(&mut late).await {
            retained.insert(topic, payload);
        }
    }
    assert_eq!(retained["bughouse/table-1/status"], "online");
    assert_eq!(state_seq(&retained["bughouse/table-1/state"]), 25);
    assert!(retained["bughouse/table-1/bfen"].ends_with("#25"));

    stop.send(()).unwrap();
    tokio::time::timeout(LIMIT, task).await.unwrap().unwrap();
}

#[tokio::test]
async fn urls() {
    use bugbridge_broadcast::mqtt::BrokerUrl;
    let o = PublisherOptions::from_url("mqtt://broker.local").unwrap();
    assert_eq!(
        o.url,
        BrokerUrl::Tcp {
            host: "broker.local".into(),
            port: 1883
        }
    );
    let o = PublisherOptions::from_url("mqtts://ann:pw@broker.example:9999/").unwrap();
    assert_eq!(
        o.url,
        BrokerUrl::Tls {
            host: "broker.example".into(),
            port: 9999
        }
    );
    assert_eq!(o.username.as_deref(), Some("ann"));
    assert_eq!(o.password.as_deref(), Some("pw"));
    assert!(!format!("{o:?}").contains("pw\""));
    let o = PublisherOptions::from_url("mqtt://[::1]:1884").unwrap();
    assert_eq!(
        o.url,
        BrokerUrl::Tcp {
            host: "::1".into(),
            port: 1884
        }
    );
    assert_eq!(
        PublisherOptions::from_url("embedded").unwrap().url,
        BrokerUrl::Embedded
    );
    for bad in [
        "http://x",
        "mqtt://",
        "mqtt://x:notaport",
        "mqtt://x/path",
        "x:1883",
    ] {
        assert!(PublisherOptions::from_url(bad).is_err(), "{bad}");
    }
    let (hub, _a) = Hub::new(HubOptions::default());
    // TLS and credentials are set up without connecting.
    assert!(Publisher::new(hub.clone(), opts("mqtts://u:p@localhost:8883")).is_ok());
    let mut o = PublisherOptions::from_url("mqtt://x").unwrap();
    o.topic_prefix = "a/#".into();
    assert!(Publisher::new(hub, o).is_err());
}
