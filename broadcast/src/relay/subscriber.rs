//! The relay's MQTT side: one subscribing client, its poller task, the delay line.
//!
//! The poller owns the `rumqttc::EventLoop` (polling is not cancel-safe, so it gets a task
//! of its own) and forwards `ConnAck`s and publishes on a channel; the main loop applies
//! them to the live view, queues them for the public one, re-reads a match's retained state
//! after a `seq` gap, and publishes the operator actions arbiters post.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use rumqttc::{AsyncClient, Event, EventLoop, MqttOptions, Outgoing, Packet, QoS, SubscribeFilter};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::delay::DelayBuffer;
use super::message::{Message, split_topic};
use super::view::{Applied, View};
use super::{RelayLoop, RelayStatus};
use crate::health::MqttHealth;
use crate::hub::Hub;
use crate::mqtt::failure::{Problem, classify_with};
use crate::mqtt::{BrokerUrl, PublisherOptions};
use crate::wire::topic;

/// What the poller forwards.
enum Polled {
    Connected {
        /// The broker kept this client's session (its subscriptions and the messages
        /// queued for it while it was away).
        session_present: bool,
    },
    Disconnected,
    Publish {
        topic: String,
        payload: bytes::Bytes,
    },
}

/// The leaves a relay subscribes to under `<prefix>/+/`.
const LEAVES: [&str; 7] = [
    topic::STATUS,
    topic::STATE,
    topic::BPGN,
    topic::EVENTS,
    topic::ALERTS,
    super::message::ACKS,
    super::message::ALERT_LOG,
];

/// `mqtt://host:port` or `mqtts://host:port`, for the logs and the health report.
fn broker_name(opts: &PublisherOptions) -> String {
    match &opts.url {
        BrokerUrl::Tcp { host, port } => format!("mqtt://{host}:{port}"),
        BrokerUrl::Tls { host, port } => format!("mqtts://{host}:{port}"),
        BrokerUrl::Embedded => "embedded".to_owned(),
    }
}

fn mqtt_options(opts: &PublisherOptions) -> MqttOptions {
    let (host, port, tls) = match &opts.url {
        BrokerUrl::Tcp { host, port } => (host.clone(), *port, false),
        BrokerUrl::Tls { host, port } => (host.clone(), *port, true),
        // Refused by `Relay::new`.
        BrokerUrl::Embedded => ("127.0.0.1".to_owned(), 1883, false),
    };
    let mut mqtt = MqttOptions::new(opts.client_id.clone(), host, port);
    mqtt.set_keep_alive(opts.keep_alive.max(Duration::from_secs(1)))
        // The first connection wipes whatever session an earlier relay with this client id
        // left; the poller then reconnects with a persistent one (see `poll`).
        .set_clean_session(true)
        .set_max_packet_size(8 * 1024 * 1024, 8 * 1024 * 1024)
        .set_inflight(100);
    if let Some(user) = &opts.username {
        mqtt.set_credentials(user.clone(), opts.password.clone().unwrap_or_default());
    }
    if tls {
        let transport = match &opts.ca_pem {
            Some(ca) => rumqttc::Transport::tls(ca.clone(), None, None),
            None => match std::panic::catch_unwind(rumqttc::Transport::tls_with_default_config) {
                Ok(t) => t,
                Err(_) => {
                    tracing::error!("cannot load the platform's root certificates");
                    rumqttc::Transport::tls(Vec::new(), None, None)
                }
            },
        };
        mqtt.set_transport(transport);
    }
    mqtt
}

/// Where the relay's credentials come from, named in the reasons of a refusal.
const KEYS: &str = "the user and password in --mqtt";

/// Publishes the connection's state where `/healthz`, `/readyz` and `/metrics` read it: in
/// both views' hubs, since either may answer a request.
#[derive(Clone)]
struct Reporter {
    hubs: Vec<Hub>,
    broker: String,
    status: watch::Sender<RelayStatus>,
}

impl Reporter {
    fn set(&self, connected: bool, problem: Option<(&'static str, String)>, failures: u64) {
        for hub in &self.hubs {
            hub.metrics().mqtt_connected.set(i64::from(connected));
            hub.health().set_mqtt(MqttHealth {
                broker: self.broker.clone(),
                connected,
                problem: problem.as_ref().map(|(p, _)| *p),
                reason: problem.as_ref().map(|(_, r)| r.clone()),
                failures,
            });
        }
    }

    fn connected(&self) {
        for hub in &self.hubs {
            hub.metrics().mqtt_connections.inc();
        }
        self.set(true, None, 0);
    }
}

async fn poll(
    mut eventloop: EventLoop,
    client: AsyncClient,
    tx: mpsc::UnboundedSender<Polled>,
    backoff: (Duration, Duration),
    report: Reporter,
) {
    let (min, max) = backoff;
    let broker = report.broker.clone();
    let mut delay = min;
    let mut up = false;
    // The last failure said in the log: the same one again is a debug line, a new kind of
    // failure (or a recovery) is said again, at WARN.
    let mut said: Option<Problem> = None;
    let mut failures = 0u64;
    // The first connection is a clean one, to drop a stale session (its queue and its
    // subscriptions: a broker need not re-send the retained messages of a subscription it
    // already has); it is closed at once and every later connection asks for a persistent
    // session: while the relay is away (its link dropped, or the broker restarted with
    // `persistence true`), the broker queues the QoS 1 messages of its subscriptions and
    // delivers them, in order, when it is back; no event is missed.
    let mut wiping = eventloop.mqtt_options.clean_session();
    let mut closing_wipe = false;
    loop {
        let polled = match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) if wiping => {
                wiping = false;
                closing_wipe = true;
                eventloop.mqtt_options.set_clean_session(false);
                let _ = client.try_disconnect();
                continue;
            }
            Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                delay = min;
                up = true;
                report.connected();
                if said.take().is_some() {
                    tracing::info!(%broker, failures, "relay: MQTT connected again");
                } else {
                    tracing::info!(%broker, "relay: MQTT connected");
                }
                failures = 0;
                report.status.send_modify(|s| {
                    s.connected = true;
                    s.problem = None;
                    s.failures = 0;
                });
                Polled::Connected {
                    session_present: ack.session_present,
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => Polled::Publish {
                topic: p.topic,
                payload: p.payload,
            },
            Ok(Event::Outgoing(Outgoing::Disconnect)) if closing_wipe => continue,
            // Our own goodbye: the loop is done.
            Ok(Event::Outgoing(Outgoing::Disconnect)) => {
                report.set(
                    false,
                    Some(("stopped", "the relay is stopping".to_owned())),
                    0,
                );
                return;
            }
            Ok(_) => continue,
            Err(_) if closing_wipe => {
                // The end of the wiping connection: connect again at once, persistently.
                closing_wipe = false;
                eventloop.clean();
                continue;
            }
            Err(e) => {
                let was_up = std::mem::replace(&mut up, false);
                let (problem, reason) = classify_with(&e, was_up, KEYS);
                failures += 1;
                report.set(false, Some((problem.code(), reason.clone())), failures);
                if was_up {
                    tracing::warn!(%broker, problem = problem.code(), "relay: MQTT connection lost: {reason}");
                } else if said != Some(problem) {
                    tracing::warn!(%broker, problem = problem.code(), "relay: MQTT cannot connect: {reason}; retrying");
                } else {
                    tracing::debug!(error = %e, ?delay, failures, "relay: MQTT connect failed again");
                }
                said = Some(problem);
                report.status.send_modify(|s| {
                    s.connected = false;
                    s.problem = Some(problem);
                    s.failures = failures;
                });
                if was_up && tx.send(Polled::Disconnected).is_err() {
                    return;
                }
                eventloop.clean();
                // Reconnect back-off, not synchronisation.
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(max);
                continue;
            }
        };
        if tx.send(polled).is_err() {
            return;
        }
    }
}

/// Messages for the public view, each applied at its due time. They wait in a
/// [`DelayBuffer`] (moves and BPGN shared between a match's messages), not in the channel,
/// so that the memory held is what the delay needs.
async fn delay_line(
    mut rx: mpsc::UnboundedReceiver<(Instant, String, Message)>,
    public: View,
    status: watch::Sender<RelayStatus>,
) {
    let mut buffer = DelayBuffer::default();
    loop {
        let due = buffer.next_due();
        tokio::select! {
            received = rx.recv() => match received {
                Some((due, id, message)) => buffer.push(due, &id, message),
                None => break,
            },
            () = sleep_until_due(due) => {
                let ready = buffer.pop_due(Instant::now());
                let n = u64::try_from(ready.len()).unwrap_or(u64::MAX);
                for (id, message) in ready {
                    public.apply(&id, message);
                }
                status.send_modify(|s| s.applied += n);
            }
        }
    }
}

/// Completes at `due`, or never without one.
async fn sleep_until_due(due: Option<Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due).await,
        None => std::future::pending().await,
    }
}

/// Whether `message` goes to the public view at once as well as after the delay: when the
/// public view does not have the match yet (a delayed relay just started) and the message
/// shows the match as it stood `delay` ago. That is known of a retained state whose clocks
/// were read at least `delay` ago (the table has published no newer state since), and of
/// its BPGN once that state is shown; a table's `online`/`offline` status is no secret
/// and is taken at once. Anything else waits for the delay, and the public streams of a
/// match the live view knows are held open until then ([`super::http`]).
fn seeds(public: &View, id: &str, message: &Message, delay: Duration) -> bool {
    let hub = public.hub();
    match message {
        Message::Status(_) => public.online(id).is_none(),
        Message::State(state) => {
            let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            hub.state(id).is_none()
                && state.clocks.at > 0
                && state.clocks.at.saturating_add(delay_ms) <= super::view::now_ms()
        }
        Message::Bpgn(_) => hub.state(id).is_some() && hub.bpgn(id).is_none_or(|b| b.is_empty()),
        _ => false,
    }
}

/// Moves the clocks' reading time by `delay` so that a delayed state's running clock is
/// extrapolated as it was then.
fn delayed(message: Message, delay: Duration) -> Message {
    match message {
        Message::State(mut state) => {
            let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            if state.clocks.at > 0 {
                state.clocks.at = state.clocks.at.saturating_add(ms);
            }
            Message::State(state)
        }
        other => other,
    }
}

pub(super) async fn run(relay: RelayLoop, shutdown: impl Future<Output = ()>) {
    let RelayLoop {
        opts,
        live,
        public,
        mut actions,
        mut outgoing,
        status,
    } = relay;
    let prefix = opts.mqtt.topic_prefix.clone();
    let (client, eventloop) = AsyncClient::new(mqtt_options(&opts.mqtt), 4096);
    let (polled_tx, mut polled) = mpsc::unbounded_channel();
    let report = Reporter {
        hubs: if opts.delay.is_zero() {
            vec![live.hub().clone()]
        } else {
            vec![live.hub().clone(), public.hub().clone()]
        },
        broker: broker_name(&opts.mqtt),
        status: status.clone(),
    };
    report.set(false, Some(("starting", "not connected yet".to_owned())), 0);
    let poller = tokio::spawn(poll(
        eventloop,
        client.clone(),
        polled_tx,
        (opts.mqtt.backoff_min, opts.mqtt.backoff_max),
        report,
    ));
    let delay = opts.delay;
    let (delay_tx, delay_task) = if delay.is_zero() {
        (None, None)
    } else {
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(delay_line(rx, public.clone(), status.clone()));
        (Some(tx), Some(task))
    };
    let mut resyncing: HashSet<String> = HashSet::new();
    let mut page_flush = tokio::time::interval(super::view::PAGE_FLUSH);
    page_flush.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            _ = page_flush.tick() => {
                live.flush_changes();
                public.flush_changes();
            }
            received = polled.recv() => match received {
                None => break,
                Some(Polled::Connected { session_present }) => {
                    resyncing.clear();
                    let first = status.borrow().connections == 0;
                    status.send_modify(|s| s.connections += 1);
                    if session_present && !first {
                        // The broker kept the subscriptions and is delivering what was
                        // queued: subscribing again would only re-send the retained state.
                        tracing::info!(%prefix, "relay: MQTT connected, session resumed");
                        continue;
                    }
                    let filters = LEAVES.iter().map(|leaf| {
                        SubscribeFilter::new(format!("{prefix}/+/{leaf}"), QoS::AtLeastOnce)
                    });
                    if let Err(e) = client.try_subscribe_many(filters) {
                        tracing::warn!(error = %e, "relay: cannot subscribe");
                    }
                    tracing::info!(%prefix, "relay: MQTT connected, subscribed");
                }
                Some(Polled::Disconnected) => status.send_modify(|s| s.connected = false),
                Some(Polled::Publish { topic: name, payload }) => {
                    let Some((id, leaf)) = split_topic(&prefix, &name) else {
                        continue;
                    };
                    let message = match Message::parse(&name, leaf, &payload) {
                        Ok(Some(m)) => m,
                        Ok(None) => continue,
                        Err(e) => {
                            tracing::warn!(error = %e, "relay: message ignored");
                            continue;
                        }
                    };
                    let id = id.to_owned();
                    let is_state = matches!(message, Message::State(_));
                    // The delayed view is the public one: arbiters' messages stay out of it.
                    let arbiters_only = matches!(
                        message,
                        Message::Alert(_) | Message::AlertLog(_) | Message::Acks(_)
                    );
                    let queued = delay_tx
                        .as_ref()
                        .filter(|_| !arbiters_only)
                        .map(|_| message.clone());
                    if let Some(message) = queued.as_ref().filter(|m| seeds(&public, &id, m, delay)) {
                        // A restarted delayed relay: what is already as it stood `delay` ago
                        // is shown at once, not after the delay.
                        public.apply(&id, delayed(message.clone(), delay));
                    }
                    let applied = live.apply(&id, message);
                    if applied == Applied::AlertLog {
                        // Retained, so that a relay started later shows these alerts too.
                        let log = serde_json::to_vec(&live.alert_log(&id)).unwrap_or_default();
                        let name = topic::name(&prefix, &id, topic::ALERT_LOG);
                        if let Err(e) = client.try_publish(name, QoS::AtLeastOnce, true, log) {
                            tracing::warn!(error = %e, %id, "relay: alert log not sent");
                        }
                    }
                    if applied == Applied::Gap && resyncing.insert(id.clone()) {
                        tracing::info!(%id, "relay: seq gap, re-reading the retained state");
                        status.send_modify(|s| s.gaps += 1);
                        let name = topic::name(&prefix, &id, topic::STATE);
                        if client.try_subscribe(name, QoS::AtLeastOnce).is_err() {
                            resyncing.remove(&id);
                        }
                    } else if is_state && resyncing.remove(&id) {
                        let name = topic::name(&prefix, &id, topic::STATE);
                        let _ = client.try_unsubscribe(name);
                        status.send_modify(|s| s.rereads += 1);
                    }
                    match (&delay_tx, queued) {
                        (Some(tx), Some(message)) => {
                            let _ = tx.send((Instant::now() + delay, id, delayed(message, delay)));
                            status.send_modify(|s| s.received += 1);
                        }
                        _ => status.send_modify(|s| {
                            s.received += 1;
                            s.applied += 1;
                        }),
                    }
                }
            },
            Some((name, payload)) = outgoing.recv() => {
                if let Err(e) = client.try_publish(name, QoS::AtLeastOnce, true, payload) {
                    tracing::warn!(error = %e, "relay: acknowledgements not sent");
                }
            }
            Some(action) = actions.recv() => {
                let name = topic::name(&prefix, &action.match_id, topic::OPERATOR);
                match serde_json::to_vec(&action) {
                    Ok(json) => {
                        if let Err(e) = client.try_publish(name, QoS::AtLeastOnce, false, json) {
                            tracing::warn!(error = %e, match_id = %action.match_id, "relay: operator action not sent");
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "relay: operator action not serialisable"),
                }
            }
        }
    }
    let _ = client.try_disconnect();
    // Give the disconnect a moment to go out, then stop the poller.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        while polled.recv().await.is_some() {}
    })
    .await;
    poller.abort();
    if let Some(task) = delay_task {
        task.abort();
    }
}
