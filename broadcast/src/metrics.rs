//! Prometheus metrics of the outbound side, in an explicit `prometheus-client` registry
//! (no global recorder). Served as text by `GET /metrics`.
//!
//! | metric | type | labels | what |
//! |---|---|---|---|
//! | `bugbridge_boards_connected` | gauge | `match` | e-boards whose link is up |
//! | `bugbridge_moves_total` | counter | `match` | `move` events published |
//! | `bugbridge_events_total` | counter | `match` | events published on the events stream |
//! | `bugbridge_alerts_total` | counter | `match`, `code` | arbiter alerts |
//! | `bugbridge_link_outages_total` | counter | `match`, `board` | e-board link outages (`link-lost` alerts) |
//! | `bugbridge_corrections_total` | counter | `match` | moves replaced by the arbiter |
//! | `bugbridge_link_gaps` | gauge | `match`, `outcome` | link gaps by outcome: `outage`, `bridged`, `ambiguous`, `unbridged` |
//! | `bugbridge_mqtt_connected` | gauge | | 1 while the publisher is connected to its broker |
//! | `bugbridge_mqtt_connections_total` | counter | | broker connection acknowledgements |
//! | `bugbridge_mqtt_dropped_total` | counter | | messages the publisher could not hand over |
//! | `bugbridge_viewers` | gauge | `stream` | open SSE streams (`viewer`, `arbiter`) |
//! | `bugbridge_operator_actions_total` | counter | | accepted arbiter actions |

use std::fmt;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;

/// The metrics of one process, with their registry.
pub struct Metrics {
    registry: Registry,
    pub(crate) boards_connected: Family<Labels, Gauge>,
    pub(crate) moves: Family<Labels, Counter>,
    pub(crate) events: Family<Labels, Counter>,
    pub(crate) alerts: Family<Labels, Counter>,
    pub(crate) corrections: Family<Labels, Counter>,
    pub(crate) link_outages: Family<Labels, Counter>,
    pub(crate) mqtt_connected: Gauge,
    pub(crate) mqtt_connections: Counter,
    pub(crate) mqtt_dropped: Counter,
    pub(crate) viewers: Family<Labels, Gauge>,
    pub(crate) operator_actions: Counter,
    pub(crate) link_gaps: Family<Labels, Gauge>,
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh registry with every metric registered (all zero).
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("bugbridge");
        let m = Metrics {
            registry: Registry::default(),
            boards_connected: Family::default(),
            moves: Family::default(),
            events: Family::default(),
            alerts: Family::default(),
            corrections: Family::default(),
            link_outages: Family::default(),
            mqtt_connected: Gauge::default(),
            mqtt_connections: Counter::default(),
            mqtt_dropped: Counter::default(),
            viewers: Family::default(),
            operator_actions: Counter::default(),
            link_gaps: Family::default(),
        };
        registry.register(
            "boards_connected",
            "E-boards whose link is up",
            m.boards_connected.clone(),
        );
        registry.register("moves", "Move events published", m.moves.clone());
        registry.register(
            "events",
            "Events published on the events stream",
            m.events.clone(),
        );
        registry.register("alerts", "Arbiter alerts", m.alerts.clone());
        registry.register(
            "corrections",
            "Moves replaced by the arbiter",
            m.corrections.clone(),
        );
        registry.register(
            "link_outages",
            "E-board link outages",
            m.link_outages.clone(),
        );
        registry.register(
            "mqtt_connected",
            "1 while the MQTT publisher is connected",
            m.mqtt_connected.clone(),
        );
        registry.register(
            "mqtt_connections",
            "MQTT connection acknowledgements received",
            m.mqtt_connections.clone(),
        );
        registry.register(
            "mqtt_dropped",
            "Messages the MQTT publisher could not hand over",
            m.mqtt_dropped.clone(),
        );
        registry.register("viewers", "Open SSE streams", m.viewers.clone());
        registry.register(
            "operator_actions",
            "Accepted arbiter actions",
            m.operator_actions.clone(),
        );
        registry.register(
            "link_gaps",
            "Board link outages (outcome=outage) and how their gaps ended: bridged, ambiguous (bridged with other orders possible), unbridged (alerted as not reconstructable)",
            m.link_gaps.clone(),
        );
        Metrics { registry, ..m }
    }

    /// Sets the link-gap counts of a match, as the inference counts them (`outages`,
    /// `bridged`, `ambiguous`, `unbridged`).
    pub fn set_link_gaps(&self, match_id: &str, counts: [(&str, u64); 4]) {
        for (outcome, n) in counts {
            let mut labels = Self::labels(match_id);
            labels.push(("outcome".to_owned(), outcome.to_owned()));
            self.link_gaps
                .get_or_create(&labels)
                .set(i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// The Prometheus text exposition of every metric.
    #[must_use]
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }

    pub(crate) fn labels(match_id: &str) -> Labels {
        vec![("match".to_owned(), match_id.to_owned())]
    }
}

/// Counts one open stream in `bugbridge_viewers` for as long as it lives.
#[derive(Debug)]
pub(crate) struct ViewerGuard {
    gauge: Gauge,
}

impl ViewerGuard {
    pub(crate) fn new(metrics: &Metrics, stream: &str) -> Self {
        let gauge = metrics
            .viewers
            .get_or_create(&vec![("stream".to_owned(), stream.to_owned())])
            .clone();
        gauge.inc();
        ViewerGuard { gauge }
    }
}

impl Drop for ViewerGuard {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}
