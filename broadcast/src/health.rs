//! What is up and what is down: the body of `/healthz` and `/readyz` and the broker badge
//! in the pages' header.
//!
//! The MQTT publisher writes its state here on every change; nothing else does yet. A
//! daemon without `[mqtt]` has no `mqtt` entry and is never degraded by it.

use std::sync::RwLock;

use serde::Serialize;

/// The publisher's view of its broker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MqttHealth {
    /// `host:port` of the broker (or `embedded host:port`).
    pub broker: String,
    /// Whether the connection is up.
    pub connected: bool,
    /// Why it is down, as a code: `starting`, `refused`, `not-authorised`, `tls`, `dns`,
    /// `timeout`, `closed`, `lost`, `protocol`, `stopped`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<&'static str>,
    /// Why it is down, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Failed connection attempts since the last successful one.
    pub failures: u64,
}

/// The body of `/healthz` and `/readyz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HealthReport {
    /// `ok`, or `degraded` when something configured is down.
    pub status: &'static str,
    /// What is down (`mqtt`), empty when `ok`.
    pub down: Vec<&'static str>,
    /// The MQTT publisher, when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mqtt: Option<MqttHealth>,
}

impl HealthReport {
    /// Whether nothing configured is down.
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.down.is_empty()
    }
}

/// Shared health state (inside the [`Hub`](crate::Hub)).
#[derive(Debug, Default)]
pub struct Health {
    mqtt: RwLock<Option<MqttHealth>>,
}

impl Health {
    /// Records the publisher's state.
    pub fn set_mqtt(&self, state: MqttHealth) {
        *self.mqtt.write().unwrap_or_else(|e| e.into_inner()) = Some(state);
    }

    /// The publisher's state, if there is a publisher.
    #[must_use]
    pub fn mqtt(&self) -> Option<MqttHealth> {
        self.mqtt.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Everything, for the HTTP endpoints.
    #[must_use]
    pub fn report(&self) -> HealthReport {
        let mqtt = self.mqtt();
        let mut down = Vec::new();
        if mqtt.as_ref().is_some_and(|m| !m.connected) {
            down.push("mqtt");
        }
        HealthReport {
            status: if down.is_empty() { "ok" } else { "degraded" },
            down,
            mqtt,
        }
    }
}
