//! The outbound side of bugbridge: the MQTT publisher and the HTTP viewer and API.
//!
//! This crate owns the published schema ([`wire`]) and knows nothing about chess rules: the
//! daemon computes every value and hands it over as an [`Update`]; the viewer's JavaScript
//! only reads BFEN placement and holdings to draw them.
//!
//! # Layout
//!
//! - [`wire`]: serde DTOs of everything published (state, events, operator actions) and the
//!   topic names. The contract; pinned by golden JSON in `tests/wire.rs`.
//! - [`hub`]: [`Hub`], the matches served. [`Hub::publish`] numbers events (`seq`, gap-free),
//!   keeps the latest state and a bounded history, and fans out to the streams and the MQTT
//!   publisher. Operator actions come back on the channel returned by [`Hub::new`].
//! - [`mqtt`]: [`mqtt::Publisher`] → ([`mqtt::PublisherHandle`], [`mqtt::PublisherLoop`]) around
//!   rumqttc; reconnects with capped back-off, re-publishes retained state and the events the
//!   broker did not acknowledge on every connection; optional embedded rumqttd broker
//!   (feature `embedded-broker`, default on).
//! - [`http`]: the axum [`http::router`] (viewer, arbiter view, JSON API, SSE, metrics) and
//!   [`http::serve`] with graceful shutdown; pages and assets embedded from `src/http/assets/`.
//! - [`archive`]: the games recorded by the daemon, served read-only (`/api/games`).
//! - [`health`]: what is up and what is down, for `/healthz`, `/readyz` and the pages.
//! - [`relay`]: [`relay::Relay`], the tournament's web tier: every match under the prefix
//!   mirrored from the broker into hubs ([`Hub::mirror_state`] and friends), served with the
//!   same routes plus the tournament page and the arbiter console ([`relay::http`]).
//! - [`metrics`]: the Prometheus registry (`prometheus-client`, explicit registry).
//! - [`error`]: typed errors; a refused publish returns the unsent update.
//!
//! # MQTT topics
//!
//! Under the prefix (default `bughouse`) and the match id:
//!
//! | topic | retained | QoS | payload |
//! |---|---|---|---|
//! | `bughouse/<match>/status` | yes (also the last will) | 1 | `online` / `offline` |
//! | `bughouse/<match>/bfen` | yes | 1 | the current BFEN |
//! | `bughouse/<match>/bpgn` | yes | 1 | the whole BPGN so far |
//! | `bughouse/<match>/state` | yes | 1 | [`wire::MatchState`] JSON |
//! | `bughouse/<match>/events` | no | 1 | one [`wire::Event`] JSON, `seq` gap-free from 1 |
//! | `bughouse/<match>/alerts` | no | 1 | alerts, same JSON, own `seq`; also on `events` if `alerts_public` |
//! | `bughouse/<match>/operator` | no | 1 | an [`wire::OperatorAction`] for the table (from a relay); taken only if the publisher's `accept_operator` |
//! | `bughouse/<match>/acks` | yes | 1 | `{"acked":[seq,..]}`: alerts acknowledged on a relay's console (written by relays) |
//! | `bughouse/<match>/alertlog` | yes | 1 | `{"alerts":[{"at":ms,..alert}]}`: the match's latest alerts, for relays started later (written by relays) |
//!
//! # Wiring
//!
//! ```no_run
//! # async fn wire() -> Result<(), Box<dyn std::error::Error>> {
//! use bugbridge_broadcast::{Hub, HubOptions, Update, http, mqtt};
//! let (hub, mut actions) = Hub::new(HubOptions::default());
//! let opts = mqtt::PublisherOptions::from_url("embedded")?;
//! let (publisher, publisher_loop) = mqtt::Publisher::new(hub.clone(), opts)?;
//! let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
//! let mut mqtt_stop = stop_rx.clone();
//! let mqtt_task = tokio::spawn(publisher_loop.run(async move {
//!     let _ = mqtt_stop.wait_for(|s| *s).await;
//! }));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let mut http_stop = stop_rx.clone();
//! let http_task = tokio::spawn(http::serve(listener, hub.clone(), http::HttpOptions::default(),
//!     async move { let _ = http_stop.wait_for(|s| *s).await; }));
//! hub.publish("table-1", Update::default())?;
//! while let Some(action) = actions.recv().await { /* journal, apply, publish */ }
//! stop_tx.send_replace(true);
//! mqtt_task.await?; http_task.await??;
//! # drop(publisher); Ok(()) }
//! ```

pub mod archive;
pub mod error;
pub mod health;
pub mod http;
pub mod hub;
pub mod metrics;
pub mod mqtt;
pub mod relay;
pub mod wire;

pub use error::PublishError;
pub use hub::{ActionOutcome, ActionRefusal, Hub, HubOptions, Published, Update};
