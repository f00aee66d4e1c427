//! Typed errors of the outbound side. A failed publish gives back what it could not send.

use crate::hub::Update;

/// A [`Hub::publish`](crate::Hub::publish) that was refused; the update comes back unsent.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The match id cannot be used as an MQTT topic level and URL segment.
    #[error("invalid match id {id:?}: use 1 to 64 of A-Z a-z 0-9 . _ -")]
    InvalidMatchId {
        /// The id as given.
        id: String,
        /// The update, unsent.
        update: Box<Update>,
    },
}

impl PublishError {
    /// The update that was not published, to retry or buffer.
    #[must_use]
    pub fn into_update(self) -> Update {
        match self {
            PublishError::InvalidMatchId { update, .. } => *update,
        }
    }
}

/// Bad MQTT publisher options.
#[derive(Debug, thiserror::Error)]
pub enum MqttOptionsError {
    /// The URL is not `mqtt://host[:port]`, `mqtts://host[:port]` or `embedded`.
    #[error("bad MQTT url {url:?}: {why}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The topic prefix is empty or holds `+`, `#` or a NUL.
    #[error("bad MQTT topic prefix {0:?}")]
    BadPrefix(String),
    /// `url = "embedded"` but the crate was built without the `embedded-broker` feature.
    #[error("this build has no embedded MQTT broker (feature `embedded-broker`)")]
    NoEmbeddedBroker,
    /// TLS cannot be set up.
    #[error("MQTT TLS: {0}")]
    Tls(String),
    /// The embedded broker could not be started.
    #[error("embedded MQTT broker on {addr}: {why}")]
    EmbeddedBroker {
        /// Where it should have listened.
        addr: std::net::SocketAddr,
        /// What went wrong.
        why: String,
    },
}
