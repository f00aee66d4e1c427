//! The poller task: owns the `rumqttc::EventLoop`, polls it, reconnects with a capped
//! exponential back-off, and tells the feeder (see [`super::publisher`]) what happened.
//!
//! Failures are said in the log at WARN on the first one and whenever their kind changes
//! (refused, not authorised, TLS, DNS...), with the reason in words; the same failure
//! repeated every few seconds is a debug line. The state also goes to the hub's
//! [`Health`](crate::health::Health) for `/healthz`, `/readyz` and the pages' header.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{AsyncClient, Event, EventLoop, Outgoing, Packet, QoS};
use tokio::sync::{mpsc, watch};

use super::failure::{Problem, classify};
use super::publisher::MqttStatus;
use crate::health::MqttHealth;
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

/// The broker the poller talks to, and what it takes from it.
pub(super) struct Peer {
    /// The broker's address, for the logs and the health report.
    pub(super) broker: String,
    /// The client and the topic to take operator actions from, when the configuration
    /// accepts them.
    pub(super) operator: Option<(AsyncClient, String)>,
}

/// The poller task: see the docs of [`super::publisher`].
pub(super) async fn poll(
    mut eventloop: EventLoop,
    gate: Arc<Mutex<Gate>>,
    notes: mpsc::UnboundedSender<Note>,
    status: watch::Sender<MqttStatus>,
    hub: Hub,
    (min, max): (Duration, Duration),
    Peer { broker, operator }: Peer,
) {
    let metrics = hub.metrics();
    let mut delay = min;
    let mut epoch = 0;
    // The last failure said in the log: the same failure again is only a debug line, a new
    // kind of failure (or a recovery) is said again.
    let mut said: Option<Problem> = None;
    let mut failures = 0u64;
    let health = |connected: bool, problem: Option<(Problem, String)>, failures: u64| {
        hub.health().set_mqtt(MqttHealth {
            broker: broker.clone(),
            connected,
            problem: problem.as_ref().map(|(p, _)| p.code()),
            reason: problem.map(|(_, r)| r),
            failures,
        });
    };
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
                // Health and log first: whoever waits on the status then finds both.
                health(true, None, 0);
                if said.take().is_some() {
                    tracing::info!(epoch, %broker, failures, "MQTT connected again");
                } else {
                    tracing::info!(epoch, %broker, "MQTT connected");
                }
                failures = 0;
                status.send_modify(|s| {
                    s.connected = true;
                    s.connections += 1;
                    s.problem = None;
                    s.failures = 0;
                });
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
                hub.health().set_mqtt(MqttHealth {
                    broker: broker.clone(),
                    connected: false,
                    problem: Some("stopped"),
                    reason: Some("the daemon is stopping".to_owned()),
                    failures: 0,
                });
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
                let (problem, reason) = classify(&e, was_up);
                failures += 1;
                health(false, Some((problem, reason.clone())), failures);
                if was_up {
                    tracing::warn!(%broker, problem = problem.code(), "MQTT connection lost: {reason}");
                    metrics.mqtt_connected.set(0);
                } else if said != Some(problem) {
                    tracing::warn!(%broker, problem = problem.code(), "MQTT cannot connect: {reason}; retrying");
                } else {
                    tracing::debug!(error = %e, ?delay, failures, "MQTT connect failed again");
                }
                said = Some(problem);
                status.send_modify(|s| {
                    s.connected = false;
                    s.problem = Some(problem);
                    s.failures = failures;
                });
                if was_up && notes.send(Note::Down).is_err() {
                    return;
                }
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(max);
            }
        }
    }
}
