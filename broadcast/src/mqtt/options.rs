//! Options of the MQTT publisher and how the `[mqtt]` URL is read.
//!
//! Accepted URLs: `mqtt://host[:port]` (TCP, port 1883 by default), `mqtts://host[:port]`
//! (TLS with rustls, port 8883 by default, server checked against the platform's root
//! certificates or [`PublisherOptions::ca_pem`]), and `embedded` (run a broker in the
//! process, listening on [`PublisherOptions::embedded_listen`]). A user name and password can
//! be given in the URL (`mqtt://user:pass@host`) or in the options.

use std::net::SocketAddr;
use std::time::Duration;

use crate::error::MqttOptionsError;

/// Where the broker is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerUrl {
    /// Plain TCP.
    Tcp {
        /// Host name or address.
        host: String,
        /// Port.
        port: u16,
    },
    /// TLS over TCP.
    Tls {
        /// Host name (checked against the certificate).
        host: String,
        /// Port.
        port: u16,
    },
    /// A broker inside this process (feature `embedded-broker`).
    Embedded,
}

/// Options of [`Publisher::new`](super::Publisher::new).
#[derive(Clone)]
pub struct PublisherOptions {
    /// The broker.
    pub url: BrokerUrl,
    /// Listen address of the embedded broker (`url = "embedded"`); port 1883 by default.
    pub embedded_listen: SocketAddr,
    /// User name for brokers that want one.
    pub username: Option<String>,
    /// Password for brokers that want one.
    pub password: Option<String>,
    /// PEM CA certificate(s) to trust for `mqtts://` instead of the platform roots.
    pub ca_pem: Option<Vec<u8>>,
    /// MQTT client id; must be unique on the broker.
    pub client_id: String,
    /// First topic level (`bughouse`).
    pub topic_prefix: String,
    /// The match whose `status` topic is the connection's last will (MQTT allows one will per
    /// connection). `None`: the first match served when the publisher is created.
    pub will_match: Option<String>,
    /// MQTT keep-alive; a dead broker is noticed within about 1.5 times this.
    pub keep_alive: Duration,
    /// First delay before reconnecting; doubled after each failure.
    pub backoff_min: Duration,
    /// Cap of the reconnect delay.
    pub backoff_max: Duration,
    /// Requests queued towards the connection before the publisher waits (backpressure).
    pub queue: usize,
    /// Subscribe to `<prefix>/<will_match>/operator` and hand the operator actions that
    /// arrive there to the hub's action channel, like the arbiter page's (configuration
    /// key `[mqtt] operator`). Off by default: the broker's ACL must then restrict who may
    /// publish there.
    pub accept_operator: bool,
}

impl std::fmt::Debug for PublisherOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublisherOptions")
            .field("url", &self.url)
            .field("embedded_listen", &self.embedded_listen)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| ".."))
            .field("ca_pem", &self.ca_pem.as_ref().map(Vec::len))
            .field("client_id", &self.client_id)
            .field("topic_prefix", &self.topic_prefix)
            .field("will_match", &self.will_match)
            .field("keep_alive", &self.keep_alive)
            .field("backoff_min", &self.backoff_min)
            .field("backoff_max", &self.backoff_max)
            .field("queue", &self.queue)
            .field("accept_operator", &self.accept_operator)
            .finish()
    }
}

impl PublisherOptions {
    /// Options for `url` with every other option at its default.
    ///
    /// # Errors
    ///
    /// [`MqttOptionsError::BadUrl`] when `url` is none of the accepted forms.
    pub fn from_url(url: &str) -> Result<Self, MqttOptionsError> {
        let bad = |why| MqttOptionsError::BadUrl {
            url: url.to_owned(),
            why,
        };
        let mut username = None;
        let mut password = None;
        let parsed = if url == "embedded" {
            BrokerUrl::Embedded
        } else {
            let (tls, rest) = if let Some(rest) = url.strip_prefix("mqtt://") {
                (false, rest)
            } else if let Some(rest) = url.strip_prefix("mqtts://") {
                (true, rest)
            } else {
                return Err(bad("expected mqtt://, mqtts:// or embedded"));
            };
            let rest = rest.trim_end_matches('/');
            if rest.contains('/') {
                return Err(bad("a path is not allowed"));
            }
            let host_port = match rest.rsplit_once('@') {
                Some((login, host_port)) => {
                    let (user, pass) = login.split_once(':').unwrap_or((login, ""));
                    username = Some(user.to_owned());
                    password = (!pass.is_empty()).then(|| pass.to_owned());
                    host_port
                }
                None => rest,
            };
            let default_port = if tls { 8883 } else { 1883 };
            let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
                let (host, after) = v6.split_once(']').ok_or_else(|| bad("unclosed ["))?;
                let port = match after.strip_prefix(':') {
                    Some(p) => p.parse().map_err(|_| bad("bad port"))?,
                    None if after.is_empty() => default_port,
                    None => return Err(bad("bad port")),
                };
                (host.to_owned(), port)
            } else {
                match host_port.rsplit_once(':') {
                    Some((host, p)) => (host.to_owned(), p.parse().map_err(|_| bad("bad port"))?),
                    None => (host_port.to_owned(), default_port),
                }
            };
            if host.is_empty() {
                return Err(bad("no host"));
            }
            if tls {
                BrokerUrl::Tls { host, port }
            } else {
                BrokerUrl::Tcp { host, port }
            }
        };
        Ok(PublisherOptions {
            url: parsed,
            embedded_listen: SocketAddr::from(([127, 0, 0, 1], 1883)),
            username,
            password,
            ca_pem: None,
            client_id: format!("bugbridge-{}", std::process::id()),
            topic_prefix: "bughouse".to_owned(),
            will_match: None,
            keep_alive: Duration::from_secs(5),
            backoff_min: Duration::from_millis(100),
            backoff_max: Duration::from_secs(10),
            queue: 256,
            accept_operator: false,
        })
    }

    /// Checks the topic prefix.
    ///
    /// # Errors
    ///
    /// [`MqttOptionsError::BadPrefix`] for an empty prefix, wildcards or a leading or
    /// trailing `/`.
    pub fn validate(&self) -> Result<(), MqttOptionsError> {
        let p = &self.topic_prefix;
        if p.is_empty() || p.contains(['+', '#', '\0']) || p.starts_with('/') || p.ends_with('/') {
            return Err(MqttOptionsError::BadPrefix(p.clone()));
        }
        Ok(())
    }
}
