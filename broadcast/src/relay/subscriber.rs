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
use crate::mqtt::{BrokerUrl, PublisherOptions};
use crate::wire::topic;

/// What the poller forwards.
enum Polled {
    Connected,
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

fn mqtt_options(opts: &PublisherOptions) -> MqttOptions {
    let (host, port, tls) = match &opts.url {
        BrokerUrl::Tcp { host, port } => (host.clone(), *port, false),
        BrokerUrl::Tls { host, port } => (host.clone(), *port, true),
        // Refused by `Relay::new`.
        BrokerUrl::Embedded => ("127.0.0.1".to_owned(), 1883, false),
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

async fn poll(
    mut eventloop: EventLoop,
    tx: mpsc::UnboundedSender<Polled>,
    backoff: (Duration, Duration),
) {
    let (min, max) = backoff;
    let mut delay = min;
    let mut up = false;
    loop {
        let polled = match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                delay = min;
                up = true;
                Polled::Connected
            }
            Ok(Event::Incoming(Packet::Publish(p))) => Polled::Publish {
                topic: p.topic,
                payload: p.payload,
            },
            // Our own goodbye: the loop is done.
            Ok(Event::Outgoing(Outgoing::Disconnect)) => return,
            Ok(_) => continue,
            Err(e) => {
                if std::mem::replace(&mut up, false) {
                    tracing::warn!(error = %e, "relay: MQTT connection lost");
                    if tx.send(Polled::Disconnected).is_err() {
                        return;
                    }
                } else {
                    tracing::debug!(error = %e, ?delay, "relay: MQTT connect failed");
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
    let poller = tokio::spawn(poll(
        eventloop,
        polled_tx,
        (opts.mqtt.backoff_min, opts.mqtt.backoff_max),
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
                Some(Polled::Connected) => {
                    resyncing.clear();
                    let filters = LEAVES.iter().map(|leaf| {
                        SubscribeFilter::new(format!("{prefix}/+/{leaf}"), QoS::AtLeastOnce)
                    });
                    if let Err(e) = client.try_subscribe_many(filters) {
                        tracing::warn!(error = %e, "relay: cannot subscribe");
                    }
                    tracing::info!(%prefix, "relay: MQTT connected, subscribed");
                    status.send_modify(|s| {
                        s.connected = true;
                        s.connections += 1;
                    });
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
