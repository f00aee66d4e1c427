//! The poller task: owns the `rumqttc::EventLoop`, polls it, reconnects with a capped
//! exponential back-off, and tells the feeder (see [`super::publisher`]) what happened.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{AsyncClient, Event, EventLoop, Outgoing, Packet, QoS};
use tokio::sync::{mpsc, watch};

use super::publisher::MqttStatus;
use crate::hub::Hub;

/// Shared by poller and feeder: requests are handed to the client only while `up`, and
/// under this lock, so no request of an old connection can reach a new one.
#[derive(Debug, Default)]
pub(super) struct Gate {
    pub(super) up: bool,
    pub(super) epoch: u64,
}

/// What the poller tells the feeder.
#[derive(Debug)]
pub(super) enum Note {
    Up,
    Down,
    Sent { epoch: u64, pkid: u16 },
    Acked { epoch: u64, pkid: u16 },
}

/// The poller task: see the docs of [`super::publisher`].
pub(super) async fn poll(
    mut eventloop: EventLoop,
    gate: Arc<Mutex<Gate>>,
    notes: mpsc::UnboundedSender<Note>,
    status: watch::Sender<MqttStatus>,
    hub: Hub,
    (min, max): (Duration, Duration),
    operator: Option<(AsyncClient, String)>,
) {
    let metrics = hub.metrics();
    let mut delay = min;
    let mut epoch = 0;
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                {
                    let mut gate = gate.lock().unwrap_or_else(|e| e.into_inner());
                    gate.epoch += 1;
                    gate.up = true;
                    epoch = gate.epoch;
                }
                delay = min;
                metrics.mqtt_connected.set(1);
                metrics.mqtt_connections.inc();
                status.send_modify(|s| {
                    s.connected = true;
                    s.connections += 1;
                });
                tracing::info!(epoch, "MQTT connected");
                if let Some((client, name)) = &operator {
                    // A clean session: subscribe again on every connection.
                    let _ = client.try_subscribe(name.clone(), QoS::AtLeastOnce);
                }
                if notes.send(Note::Up).is_err() {
                    return;
                }
            }
            Ok(Event::Outgoing(Outgoing::Publish(pkid))) => {
                let _ = notes.send(Note::Sent { epoch, pkid });
            }
            Ok(Event::Incoming(Packet::PubAck(ack))) => {
                let _ = notes.send(Note::Acked {
                    epoch,
                    pkid: ack.pkid,
                });
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                if let Some((_, name)) = &operator
                    && p.topic == *name
                {
                    super::operator::take(&hub, name, &p.payload);
                }
            }
            Ok(Event::Outgoing(Outgoing::Disconnect)) => {
                gate.lock().unwrap_or_else(|e| e.into_inner()).up = false;
                metrics.mqtt_connected.set(0);
                status.send_modify(|s| s.connected = false);
                let _ = notes.send(Note::Down);
                return;
            }
            Ok(_) => {}
            Err(e) => {
                let was_up = {
                    let mut gate = gate.lock().unwrap_or_else(|e| e.into_inner());
                    std::mem::replace(&mut gate.up, false)
                };
                // Requests queued after the failure belong to no connection: drop them (the
                // feeder re-sends from the last acknowledged event on the next ConnAck).
                eventloop.clean();
                if was_up {
                    tracing::warn!(error = %e, "MQTT connection lost");
                    metrics.mqtt_connected.set(0);
                    status.send_modify(|s| s.connected = false);
                    if notes.send(Note::Down).is_err() {
                        return;
                    }
                } else {
                    tracing::debug!(error = %e, ?delay, "MQTT connect failed");
                }
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(max);
            }
        }
    }
}
