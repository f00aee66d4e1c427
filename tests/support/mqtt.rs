//! MQTT on loopback: a subscriber that records what it receives, and a broker that can be
//! stopped and started again on the same port.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bugbridge_broadcast::mqtt::EmbeddedBroker;
use bugbridge_broadcast::wire;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::within;

/// What the subscriber's connection reports.
#[derive(Debug)]
enum Seen {
    Subscribed,
    Message {
        topic: String,
        payload: String,
        at: std::time::Instant,
    },
}

/// A subscriber to one topic filter that reconnects and resubscribes on its own and keeps
/// everything it received: the `events` and `alerts` messages in arrival order and the
/// latest payload of every topic.
#[derive(Debug)]
pub struct Subscriber {
    rx: mpsc::UnboundedReceiver<Seen>,
    /// Every `events` message, in arrival order (repeats after a reconnect included).
    pub events: Vec<wire::Event>,
    /// Every `alerts` message, in arrival order.
    pub alerts: Vec<wire::Event>,
    /// The latest payload of each topic.
    pub latest: BTreeMap<String, String>,
    /// When each `events` message arrived (same indices as [`Subscriber::events`]).
    pub arrivals: Vec<std::time::Instant>,
    /// How many times the subscription was acknowledged (one per connection).
    pub subscriptions: usize,
    /// The `seq` of every `events` and `state` message, in arrival order.
    pub log: Vec<Seq>,
}

/// The `seq` carried by one received message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seq {
    /// An `events` message with this `seq`.
    Event(u64),
    /// A `state` message: the `seq` of the last event published before it.
    State(u64),
}

impl Subscriber {
    /// Connects to the broker at `addr` as `client_id` and subscribes to `filter`.
    #[must_use]
    pub fn start(addr: SocketAddr, client_id: &str, filter: &str) -> Subscriber {
        let mut opts = MqttOptions::new(client_id, addr.ip().to_string(), addr.port());
        opts.set_keep_alive(Duration::from_secs(5));
        opts.set_max_packet_size(1 << 22, 1 << 22);
        let (client, mut eventloop) = AsyncClient::new(opts, 64);
        let (tx, rx) = mpsc::unbounded_channel();
        let filter = filter.to_owned();
        tokio::spawn(async move {
            loop {
                let seen = match eventloop.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        let _ = client.try_subscribe(filter.clone(), QoS::AtLeastOnce);
                        continue;
                    }
                    Ok(Event::Incoming(Packet::SubAck(_))) => Seen::Subscribed,
                    Ok(Event::Incoming(Packet::Publish(p))) => Seen::Message {
                        at: std::time::Instant::now(),
                        topic: p.topic.clone(),
                        payload: String::from_utf8_lossy(&p.payload).into_owned(),
                    },
                    Ok(_) => continue,
                    Err(_) => {
                        if tx.is_closed() {
                            return;
                        }
                        // The test client's own reconnect back-off while the broker is
                        // down or still binding: not a synchronisation point.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                };
                if tx.send(seen).is_err() {
                    return;
                }
            }
        });
        Subscriber {
            rx,
            events: Vec::new(),
            alerts: Vec::new(),
            latest: BTreeMap::new(),
            arrivals: Vec::new(),
            subscriptions: 0,
            log: Vec::new(),
        }
    }

    /// Receives one report and records it.
    async fn receive(&mut self, what: &str) {
        let seen = within(what, self.rx.recv())
            .await
            .expect("the subscriber's connection task runs");
        self.record(seen);
    }

    fn record(&mut self, seen: Seen) {
        match seen {
            Seen::Subscribed => self.subscriptions += 1,
            Seen::Message { topic, payload, at } => {
                if topic.ends_with("/events") || topic.ends_with("/alerts") {
                    let event: wire::Event = serde_json::from_str(&payload)
                        .unwrap_or_else(|e| panic!("{topic}: not an event ({e}): {payload}"));
                    if topic.ends_with("/events") {
                        self.log.push(Seq::Event(event.seq));
                        self.events.push(event);
                        self.arrivals.push(at);
                    } else {
                        self.alerts.push(event);
                    }
                }
                if topic.ends_with("/state") {
                    let state: wire::MatchState = serde_json::from_str(&payload)
                        .unwrap_or_else(|e| panic!("{topic}: not a state ({e}): {payload}"));
                    self.log.push(Seq::State(state.seq));
                }
                self.latest.insert(topic, payload);
            }
        }
    }

    /// Receives until `done` holds for what was recorded.
    ///
    /// # Panics
    ///
    /// When nothing arrives for [`LIMIT`](crate::LIMIT).
    pub async fn until(&mut self, what: &str, mut done: impl FnMut(&Subscriber) -> bool) {
        while !done(self) {
            self.receive(what).await;
        }
    }

    /// Receives until `done` holds, or until `bound` has passed: whether it holds. For the
    /// waits whose failure the test explains itself (what was received instead) rather than
    /// with a timeout's panic.
    pub async fn until_within(
        &mut self,
        bound: std::time::Duration,
        mut done: impl FnMut(&Subscriber) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + bound;
        while !done(self) {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(seen)) => self.record(seen),
                Ok(None) | Err(_) => return false,
            }
        }
        true
    }

    /// Waits until the subscription is acknowledged `n` times in all.
    pub async fn subscribed(&mut self, n: usize) {
        self.until("the subscription", |s| s.subscriptions >= n)
            .await;
    }

    /// The `move` events, each once (repeats after a reconnect dropped), in arrival order.
    #[must_use]
    pub fn moves(&self) -> Vec<&wire::Event> {
        let mut last = 0;
        let mut out = Vec::new();
        for e in &self.events {
            if e.seq > last {
                last = e.seq;
                if e.kind == wire::EventKind::Move {
                    out.push(e);
                }
            }
        }
        out
    }

    /// Waits until `n` distinct moves were received.
    pub async fn wait_moves(&mut self, n: usize) {
        self.until(&format!("move {n} on the events topic"), |s| {
            s.moves().len() >= n
        })
        .await;
    }

    /// The latest `state` payload, parsed.
    #[must_use]
    pub fn state(&self) -> Option<wire::MatchState> {
        self.latest
            .iter()
            .find(|(t, _)| t.ends_with("/state"))
            .map(|(_, p)| serde_json::from_str(p).expect("the state topic holds a state"))
    }

    /// The latest payload of the topic whose name ends with `/<leaf>`.
    #[must_use]
    pub fn topic(&self, leaf: &str) -> Option<&str> {
        let suffix = format!("/{leaf}");
        self.latest
            .iter()
            .find(|(t, _)| t.ends_with(&suffix))
            .map(|(_, p)| p.as_str())
    }
}

/// Asserts that the `seq`s of `events` never skip: a repeat (an event re-sent after a
/// reconnect) is allowed, a jump over a number is not.
///
/// # Panics
///
/// On a gap, naming it.
pub fn assert_no_gap(events: &[wire::Event]) {
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    let mut last = 0;
    for &seq in &seqs {
        assert!(
            seq <= last + 1,
            "events skip from seq {last} to {seq}: {seqs:?}"
        );
        last = last.max(seq);
    }
}

/// Asserts that every gap in the `events` a subscriber received is explained: an event
/// whose `seq` jumps over numbers must come after a `state` whose `seq` covers them (the
/// subscriber was told it missed them, e.g. published while it was not subscribed to the
/// new broker). Repeats (re-sent after a reconnect) are allowed.
///
/// # Panics
///
/// On an unexplained gap, naming it.
pub fn assert_gaps_explained(log: &[Seq]) {
    let (mut last_event, mut known) = (0, 0);
    for entry in log {
        match *entry {
            Seq::State(s) => known = known.max(s),
            Seq::Event(e) => {
                assert!(
                    e <= last_event.max(known) + 1,
                    "event {e} after event {last_event} with no state explaining the gap: {log:?}"
                );
                last_event = last_event.max(e);
                known = known.max(e);
            }
        }
    }
}

/// An MQTT broker on a fixed loopback port that can be stopped and started again.
///
/// The broker behind it is bugbridge's embedded rumqttd, which cannot be stopped inside a
/// process; so the port clients use is a relay owned by the test: [`stop`](Self::stop)
/// closes the listening socket and cuts every connection (clients see a broker gone away,
/// then connections refused), [`start_again`](Self::start_again) binds the same port again
/// in front of a **new, empty** broker (no retained messages, no sessions), which is what a
/// restarted broker without persistence is.
#[derive(Debug)]
pub struct RestartableBroker {
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
    /// How many brokers were started.
    pub generation: usize,
}

impl RestartableBroker {
    /// Starts a broker on a free port.
    ///
    /// # Panics
    ///
    /// When nothing can be bound on loopback.
    pub async fn start() -> RestartableBroker {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let mut broker = RestartableBroker {
            addr: listener.local_addr().expect("a bound address"),
            accept: None,
            conns: Arc::default(),
            generation: 0,
        };
        broker.serve(listener);
        broker
    }

    /// Where clients connect.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `mqtt://127.0.0.1:<port>`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("mqtt://{}", self.addr)
    }

    fn serve(&mut self, listener: TcpListener) {
        let backend = EmbeddedBroker::start("127.0.0.1:0".parse().expect("an address"))
            .expect("the embedded broker starts")
            .addr();
        self.generation += 1;
        let conns = Arc::clone(&self.conns);
        self.accept = Some(tokio::spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                conns
                    .lock()
                    .expect("not poisoned")
                    .push(tokio::spawn(async move {
                        // A broker still binding refuses: the client retries, as with any
                        // broker starting up.
                        if let Ok(mut up) = TcpStream::connect(backend).await {
                            let _ = up.set_nodelay(true);
                            let _ = down.set_nodelay(true);
                            let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                        }
                    }));
            }
        }));
    }

    /// Stops the broker: the port is closed and every connection cut.
    pub async fn stop(&mut self) {
        if let Some(accept) = self.accept.take() {
            accept.abort();
            let _ = accept.await;
        }
        let conns: Vec<JoinHandle<()>> =
            std::mem::take(&mut *self.conns.lock().expect("not poisoned"));
        for c in conns {
            c.abort();
            let _ = c.await;
        }
    }

    /// Starts a new, empty broker on the same port.
    ///
    /// # Panics
    ///
    /// When the port cannot be bound again.
    pub async fn start_again(&mut self) {
        assert!(self.accept.is_none(), "stop the broker first");
        let listener = TcpListener::bind(self.addr)
            .await
            .unwrap_or_else(|e| panic!("cannot bind {} again: {e}", self.addr));
        self.serve(listener);
    }
}

#[cfg(test)]
mod tests {
    use super::{Seq, assert_gaps_explained};

    #[test]
    fn repeats_and_gaps_covered_by_a_state_are_explained() {
        use Seq::{Event as E, State as S};
        assert_gaps_explained(&[S(0), E(1), S(1), E(2), E(1), E(2), E(3), S(3)]);
        // Missed 3..=5 while resubscribing; the retained state (seq 5) said so.
        assert_gaps_explained(&[E(1), E(2), S(5), E(6)]);
    }

    #[test]
    #[should_panic(expected = "no state explaining the gap")]
    fn a_gap_no_state_covers_is_not_explained() {
        assert_gaps_explained(&[Seq::Event(1), Seq::State(2), Seq::Event(4)]);
    }
}
