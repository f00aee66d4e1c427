//! MQTT: the publisher and the embedded broker.
//!
//! [`Publisher::new`] returns a [`PublisherHandle`] (connection state, cheap to clone) and a
//! [`PublisherLoop`] to run in its own task until shutdown. The loop pulls everything it
//! publishes from the [`Hub`](crate::Hub), so the broker's view can always be rebuilt from
//! the daemon's truth after a reconnect. See [`publisher`] for the reconnect protocol and the
//! crate docs for the topic table.

#[cfg(feature = "embedded-broker")]
pub mod broker;
pub mod failure;
mod operator;
pub mod options;
mod poller;
pub mod publisher;

#[cfg(feature = "embedded-broker")]
pub use broker::EmbeddedBroker;
pub use failure::Problem;
pub use options::{BrokerUrl, PublisherOptions};
pub use publisher::{MqttStatus, Publisher, PublisherHandle, PublisherLoop};
