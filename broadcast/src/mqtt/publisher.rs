//! The publisher: a handle plus one owned loop, around `rumqttc::{AsyncClient, EventLoop}`.
//!
//! Two tasks run while [`PublisherLoop::run`] runs:
//!
//! - the *poller* owns the `EventLoop` and only polls it: on an error it closes the gate
//!   (below), drops whatever was queued (`EventLoop::clean`; with a clean session it would be
//!   dropped at the next connection anyway), waits a capped exponential back-off and polls
//!   again, which reconnects. It reports `ConnAck`, outgoing publishes and `PubAck`s.
//! - the *feeder* (the `run` future itself) pulls from the [`Hub`]: for each match it hands
//!   the events after the last one handed over, the alerts, and, when the match changed,
//!   the retained `state`, `bfen`, `bpgn` to the client, with `try_publish` so that a slow
//!   broker applies backpressure (it resumes when the connection takes the next request).
//!
//! The *gate* (a mutex held around every hand-over) makes the two agree on connections.
//! On each `ConnAck` the poller opens it under a new epoch; the feeder, seeing a new epoch,
//! first rewinds every match to the last event the broker *acknowledged* (PubAck) and marks
//! `status`/retained topics as unsent. So after any reconnect — including a broker that
//! restarted empty — the broker gets `online`, the events it never acknowledged (in order;
//! a subscriber may see an event twice, never out of order, and dedups by `seq`), and the
//! current retained state. An event that fell out of the hub's history is skipped; the
//! `seq` in the retained `state` explains that gap.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{AsyncClient, EventLoop, LastWill, MqttOptions, QoS};
use tokio::sync::{mpsc, watch};

use super::options::{BrokerUrl, PublisherOptions};
use super::poller::{Gate, Note, Peer, poll};
use crate::error::MqttOptionsError;
use crate::hub::Hub;
use crate::wire::topic;

/// The publisher's connection state, as seen through [`PublisherHandle::status`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MqttStatus {
    /// Whether the connection is up (between a `ConnAck` and the next error).
    pub connected: bool,
    /// How many `ConnAck`s were received so far.
    pub connections: u64,
    /// Why the connection is down (the last failure), `None` while up.
    pub problem: Option<super::Problem>,
    /// Failed connection attempts since the last successful one.
    pub failures: u64,
}

/// A cheap handle on a running publisher.
#[derive(Debug, Clone)]
pub struct PublisherHandle {
    status: watch::Receiver<MqttStatus>,
    broker: Option<std::net::SocketAddr>,
}

impl PublisherHandle {
    /// The current connection state.
    #[must_use]
    pub fn status(&self) -> MqttStatus {
        *self.status.borrow()
    }

    /// Waits until `f` holds for the connection state (e.g. the `n`th connection).
    /// Returns `false` if the publisher has stopped.
    pub async fn wait_for(&mut self, f: impl FnMut(&MqttStatus) -> bool) -> bool {
        self.status.wait_for(f).await.is_ok()
    }

    /// The embedded broker's address, when `url = "embedded"`.
    #[must_use]
    pub fn embedded_broker(&self) -> Option<std::net::SocketAddr> {
        self.broker
    }
}

/// Constructor of the handle/loop pair.
#[derive(Debug)]
pub struct Publisher;

/// The loop to run in its own task: [`PublisherLoop::run`].
pub struct PublisherLoop {
    hub: Hub,
    prefix: String,
    client: AsyncClient,
    eventloop: EventLoop,
    status: watch::Sender<MqttStatus>,
    backoff: (Duration, Duration),
    will_match: Option<String>,
    broker: String,
    operator_topic: Option<String>,
}

impl std::fmt::Debug for PublisherLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublisherLoop")
            .field("prefix", &self.prefix)
            .field("will_match", &self.will_match)
            .finish_non_exhaustive()
    }
}

impl Publisher {
    /// Builds the client for `opts`, starting the embedded broker first if `url` is
    /// `embedded`. Nothing is sent until [`PublisherLoop::run`] runs.
    ///
    /// # Errors
    ///
    /// A bad topic prefix, `embedded` without the feature, an embedded broker that cannot
    /// start, or TLS without usable root certificates.
    // Named after rumqttc's `AsyncClient::new`, which also returns the pair.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        hub: Hub,
        opts: PublisherOptions,
    ) -> Result<(PublisherHandle, PublisherLoop), MqttOptionsError> {
        opts.validate()?;
        let mut broker = None;
        let (host, port, tls) = match &opts.url {
            BrokerUrl::Tcp { host, port } => (host.clone(), *port, false),
            BrokerUrl::Tls { host, port } => (host.clone(), *port, true),
            BrokerUrl::Embedded => {
                let addr = start_embedded(opts.embedded_listen)?;
                broker = Some(addr);
                (addr.ip().to_string(), addr.port(), false)
            }
        };
        let broker_name = match (&opts.url, tls) {
            (BrokerUrl::Embedded, _) => format!("embedded {host}:{port}"),
            (_, true) => format!("mqtts://{host}:{port}"),
            (_, false) => format!("mqtt://{host}:{port}"),
        };
        let mut mqtt = MqttOptions::new(opts.client_id.clone(), host, port);
        mqtt.set_keep_alive(opts.keep_alive.max(Duration::from_secs(1)))
            .set_clean_session(true)
            .set_max_packet_size(8 * 1024 * 1024, 8 * 1024 * 1024)
            .set_inflight(100);
        if let Some(user) = &opts.username {
            mqtt.set_credentials(user.clone(), opts.password.clone().unwrap_or_default());
        }
        if tls {
            let transport = match &opts.ca_pem {
                Some(ca) => rumqttc::Transport::tls(ca.clone(), None, None),
                // rumqttc panics when the platform's certificates cannot be read: turn that
                // into an error instead of taking the process down.
                None => std::panic::catch_unwind(rumqttc::Transport::tls_with_default_config)
                    .map_err(|_| {
                        MqttOptionsError::Tls(
                            "cannot load the platform's root certificates; set a CA file"
                                .to_owned(),
                        )
                    })?,
            };
            mqtt.set_transport(transport);
        }
        let will_match = opts
            .will_match
            .clone()
            .or_else(|| hub.match_ids().into_iter().next());
        if let Some(id) = &will_match {
            mqtt.set_last_will(LastWill::new(
                topic::name(&opts.topic_prefix, id, topic::STATUS),
                "offline",
                QoS::AtLeastOnce,
                true,
            ));
        }
        let operator_topic = will_match
            .as_ref()
            .filter(|_| opts.accept_operator)
            .map(|id| topic::name(&opts.topic_prefix, id, topic::OPERATOR));
        let (client, eventloop) = AsyncClient::new(mqtt, opts.queue.max(8));
        let (status, status_rx) = watch::channel(MqttStatus::default());
        Ok((
            PublisherHandle {
                status: status_rx,
                broker,
            },
            PublisherLoop {
                hub,
                prefix: opts.topic_prefix,
                client,
                eventloop,
                status,
                backoff: (opts.backoff_min, opts.backoff_max),
                will_match,
                broker: broker_name,
                operator_topic,
            },
        ))
    }
}

#[cfg(feature = "embedded-broker")]
fn start_embedded(listen: std::net::SocketAddr) -> Result<std::net::SocketAddr, MqttOptionsError> {
    Ok(super::broker::EmbeddedBroker::start(listen)?.addr())
}

#[cfg(not(feature = "embedded-broker"))]
fn start_embedded(_: std::net::SocketAddr) -> Result<std::net::SocketAddr, MqttOptionsError> {
    Err(MqttOptionsError::NoEmbeddedBroker)
}

/// What a handed-over request was, to credit its `PubAck`.
#[derive(Debug, Clone, Copy)]
enum Tag {
    Event(usize, u64),
    Alert(usize, u64),
    Other,
}

/// Per-match progress of the feeder.
#[derive(Debug, Default, Clone)]
struct Cursor {
    id: String,
    sent: u64,
    acked: u64,
    sent_alert: u64,
    acked_alert: u64,
    version: u64,
    online: bool,
}

struct Feeder {
    hub: Hub,
    prefix: String,
    client: AsyncClient,
    gate: Arc<Mutex<Gate>>,
    epoch: u64,
    cursors: Vec<Cursor>,
    queue: VecDeque<Tag>,
    inflight: HashMap<u16, Tag>,
}

impl Feeder {
    fn cursor_index(&mut self, id: &str) -> usize {
        match self.cursors.iter().position(|c| c.id == id) {
            Some(i) => i,
            None => {
                self.cursors.push(Cursor {
                    id: id.to_owned(),
                    ..Cursor::default()
                });
                self.cursors.len() - 1
            }
        }
    }

    fn note(&mut self, note: Note) {
        match note {
            Note::Up | Note::Down => {}
            Note::Sent { epoch, pkid } if epoch == self.epoch => {
                if let Some(tag) = self.queue.pop_front() {
                    self.inflight.insert(pkid, tag);
                }
            }
            Note::Acked { epoch, pkid } if epoch == self.epoch => {
                match self.inflight.remove(&pkid) {
                    Some(Tag::Event(i, seq)) => {
                        let c = &mut self.cursors[i];
                        c.acked = c.acked.max(seq);
                    }
                    Some(Tag::Alert(i, seq)) => {
                        let c = &mut self.cursors[i];
                        c.acked_alert = c.acked_alert.max(seq);
                    }
                    Some(Tag::Other) | None => {}
                }
            }
            Note::Sent { .. } | Note::Acked { .. } => {}
        }
    }

    /// Hands everything not yet handed over to the client, as far as it takes it.
    fn pump(&mut self) {
        let gate = Arc::clone(&self.gate);
        let gate = gate.lock().unwrap_or_else(|e| e.into_inner());
        if !gate.up {
            return;
        }
        if gate.epoch != self.epoch {
            // A new connection: rebuild the broker's view from our truth.
            self.epoch = gate.epoch;
            self.queue.clear();
            self.inflight.clear();
            for c in &mut self.cursors {
                c.sent = c.acked;
                c.sent_alert = c.acked_alert;
                c.version = 0;
                c.online = false;
            }
        }
        for entry in self.hub.entries() {
            let i = self.cursor_index(&entry.id);
            if !self.pump_match(i, &entry) {
                // The client's queue is full: resume when the connection takes a request.
                return;
            }
        }
    }

    fn send(&mut self, topic: String, retain: bool, payload: Vec<u8>, tag: Tag) -> bool {
        match self
            .client
            .try_publish(topic, QoS::AtLeastOnce, retain, payload)
        {
            Ok(()) => {
                self.queue.push_back(tag);
                true
            }
            Err(_) => false,
        }
    }

    fn pump_match(&mut self, i: usize, entry: &crate::hub::MatchEntry) -> bool {
        let id = entry.id.clone();
        let name = |leaf| topic::name(&self.prefix, &id, leaf);
        let (status_t, events_t, alerts_t) = (
            name(topic::STATUS),
            name(topic::EVENTS),
            name(topic::ALERTS),
        );
        let (state_t, bfen_t, bpgn_t) = (name(topic::STATE), name(topic::BFEN), name(topic::BPGN));
        if !self.cursors[i].online {
            if !self.send(status_t, true, b"online".to_vec(), Tag::Other) {
                return false;
            }
            self.cursors[i].online = true;
        }
        // The state is read before the events: every event it counts is then in the list
        // read below and goes out first, so no subscriber sees a state ahead of its events.
        let (version, state, bfen, bpgn) = {
            let data = entry.data.read().unwrap_or_else(|e| e.into_inner());
            (
                data.version,
                data.state_item.json.to_vec(),
                data.state.bfen.clone().into_bytes(),
                data.bpgn.to_vec(),
            )
        };
        for item in entry.events_between(self.cursors[i].sent, u64::MAX) {
            if !self.send(
                events_t.clone(),
                false,
                item.json.to_vec(),
                Tag::Event(i, item.seq),
            ) {
                return false;
            }
            self.cursors[i].sent = item.seq;
        }
        for item in entry.alerts_between(self.cursors[i].sent_alert, u64::MAX) {
            if !self.send(
                alerts_t.clone(),
                false,
                item.json.to_vec(),
                Tag::Alert(i, item.seq),
            ) {
                return false;
            }
            self.cursors[i].sent_alert = item.seq;
        }
        if version != self.cursors[i].version {
            // If the queue fills in the middle, `version` stays behind and the whole set is
            // sent again on the next pump: retained topics tolerate repeats.
            if !(self.send(bfen_t, true, bfen, Tag::Other)
                && self.send(bpgn_t, true, bpgn, Tag::Other)
                && self.send(state_t, true, state, Tag::Other))
            {
                return false;
            }
            self.cursors[i].version = version;
        }
        true
    }

    /// Publishes `offline` for every match and disconnects, if connected.
    fn farewell(&mut self) -> bool {
        let gate = Arc::clone(&self.gate);
        let gate = gate.lock().unwrap_or_else(|e| e.into_inner());
        if !gate.up {
            return false;
        }
        for id in self.hub.match_ids() {
            let t = topic::name(&self.prefix, &id, topic::STATUS);
            let _ = self.send(t, true, b"offline".to_vec(), Tag::Other);
        }
        self.client.try_disconnect().is_ok()
    }
}

impl PublisherLoop {
    /// Runs until `shutdown` completes, then publishes `offline` (retained) for every match,
    /// disconnects and returns. Reconnects on its own; never fails.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let PublisherLoop {
            hub,
            prefix,
            client,
            eventloop,
            status,
            backoff,
            will_match: _,
            broker,
            operator_topic,
        } = self;
        hub.health().set_mqtt(crate::health::MqttHealth {
            broker: broker.clone(),
            connected: false,
            problem: Some("starting"),
            reason: Some("not connected yet".to_owned()),
            failures: 0,
        });
        let gate = Arc::new(Mutex::new(Gate::default()));
        let (notes_tx, mut notes_rx) = mpsc::unbounded_channel();
        let poller = tokio::spawn(poll(
            eventloop,
            Arc::clone(&gate),
            notes_tx,
            status,
            hub.clone(),
            backoff,
            Peer {
                broker,
                operator: operator_topic.map(|t| (client.clone(), t)),
            },
        ));
        let mut generation = hub.generation_rx();
        let mut feeder = Feeder {
            hub,
            prefix,
            client,
            gate,
            epoch: 0,
            cursors: Vec::new(),
            queue: VecDeque::new(),
            inflight: HashMap::new(),
        };
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                // Cancel-safe: the shutdown future is pinned and polled again only if
                // another arm won.
                () = &mut shutdown => break,
                // Cancel-safe: `changed` only marks the generation seen; pump reads the hub.
                changed = generation.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
                // Cancel-safe: mpsc::UnboundedReceiver::recv loses nothing when dropped.
                note = notes_rx.recv() => match note {
                    Some(note) => {
                        feeder.note(note);
                        while let Ok(note) = notes_rx.try_recv() {
                            feeder.note(note);
                        }
                    }
                    None => break,
                },
            }
            feeder.pump();
        }
        let said_goodbye = feeder.farewell();
        if said_goodbye {
            // The poller ends when it has written the DISCONNECT (or the link fails).
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                &mut Box::pin(async {
                    while let Some(note) = notes_rx.recv().await {
                        if matches!(note, Note::Down) {
                            break;
                        }
                    }
                }),
            )
            .await;
        }
        poller.abort();
        let _ = poller.await;
    }
}
