//! The embedded broker (`url = "embedded"`): rumqttd in the process, MQTT 3.1.1 over TCP.
//!
//! rumqttd runs its router and its listener on threads of its own and has no way to stop
//! them: the broker lives until the process exits. It binds the listen address itself and
//! cannot report the port it got for port 0, so [`EmbeddedBroker::start`] resolves port 0 to
//! a free port first (bind, read, release) and checks that a fixed port is free.

use std::collections::HashMap;
use std::net::SocketAddr;

use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};

use crate::error::MqttOptionsError;

/// A running embedded broker.
#[derive(Debug, Clone)]
pub struct EmbeddedBroker {
    addr: SocketAddr,
}

impl EmbeddedBroker {
    /// Starts a broker listening on `listen` (port 0: a free port is chosen).
    ///
    /// The listener is bound on the broker's own thread; this waits (up to two seconds) until
    /// it accepts connections, so that the publisher's first attempt is not refused (and
    /// logged as a failure).
    ///
    /// # Errors
    ///
    /// [`MqttOptionsError::EmbeddedBroker`] if the address cannot be bound or a thread cannot
    /// be spawned.
    pub fn start(listen: SocketAddr) -> Result<EmbeddedBroker, MqttOptionsError> {
        let fail = |why: String| MqttOptionsError::EmbeddedBroker { addr: listen, why };
        // Probe: fails now, with a clear error, if the address is taken.
        let probe = std::net::TcpListener::bind(listen).map_err(|e| fail(e.to_string()))?;
        let addr = probe.local_addr().map_err(|e| fail(e.to_string()))?;
        drop(probe);

        let server = ServerSettings {
            name: "bugbridge-embedded".to_owned(),
            listen: addr,
            tls: None,
            next_connection_delay_ms: 0,
            connections: ConnectionSettings {
                connection_timeout_ms: 10_000,
                // A long game's BPGN and state exceed rumqttd's sample 20 KiB.
                max_payload_size: 4 * 1024 * 1024,
                max_inflight_count: 500,
                auth: None,
                external_auth: None,
                dynamic_filters: true,
            },
        };
        let config = Config {
            id: 0,
            router: RouterConfig {
                max_connections: 10_000,
                max_outgoing_packet_count: 200,
                max_segment_size: 16 * 1024 * 1024,
                max_segment_count: 4,
                ..RouterConfig::default()
            },
            v4: Some(HashMap::from([("1".to_owned(), server)])),
            ..Config::default()
        };
        let mut broker = Broker::new(config);
        std::thread::Builder::new()
            .name("mqtt-broker".to_owned())
            .spawn(move || {
                if let Err(e) = broker.start() {
                    tracing::error!(error = %e, "embedded MQTT broker stopped");
                }
            })
            .map_err(|e| fail(e.to_string()))?;
        wait_listening(addr);
        tracing::info!(%addr, "embedded MQTT broker started");
        Ok(EmbeddedBroker { addr })
    }

    /// The address the broker listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// Waits until something accepts connections at `addr`, for up to two seconds.
fn wait_listening(addr: SocketAddr) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let target = match addr.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), addr.port())
        }
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(std::net::Ipv6Addr::LOCALHOST.into(), addr.port())
        }
        _ => addr,
    };
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect_timeout(&target, std::time::Duration::from_millis(100))
            .is_ok()
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
