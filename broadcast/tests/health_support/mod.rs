//! What the health tests share (`mod`-included by `health.rs` and `relay_health.rs`): a
//! free loopback port, rumqttd with a password, and the log lines a test wrote.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// A loopback address nobody listens on (yet).
pub(crate) fn free_port() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// rumqttd with a password, on a free port; it closes the connection of a client whose
/// password is wrong (it sends no CONNACK code).
pub(crate) fn broker_with_password(user: &str, password: &str) -> SocketAddr {
    use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};
    let addr = free_port();
    let server = ServerSettings {
        name: "password-test".to_owned(),
        listen: addr,
        tls: None,
        next_connection_delay_ms: 0,
        connections: ConnectionSettings {
            connection_timeout_ms: 10_000,
            max_payload_size: 1 << 20,
            max_inflight_count: 100,
            auth: Some(HashMap::from([(user.to_owned(), password.to_owned())])),
            external_auth: None,
            dynamic_filters: true,
        },
    };
    let config = Config {
        id: 0,
        router: RouterConfig {
            max_connections: 100,
            max_outgoing_packet_count: 200,
            max_segment_size: 1 << 20,
            max_segment_count: 4,
            ..RouterConfig::default()
        },
        v4: Some(HashMap::from([("1".to_owned(), server)])),
        ..Config::default()
    };
    let mut broker = Broker::new(config);
    std::thread::spawn(move || {
        let _ = broker.start();
    });
    addr
}

/// Log lines written during a test (current-thread runtime: `set_default` sees every task).
#[derive(Clone, Default)]
pub(crate) struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.text()
            .lines()
            .filter(|l| l.contains("WARN"))
            .map(str::to_owned)
            .collect()
    }
    /// At the relay's default level, INFO.
    pub(crate) fn install(&self) -> tracing::subscriber::DefaultGuard {
        let logs = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || logs.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        tracing::subscriber::set_default(subscriber)
    }
}
