//! A relay in a task of the test, serving HTTP on a free loopback port, and the arbiter's
//! POST.

use std::net::SocketAddr;
use std::time::Duration;

use bugbridge_broadcast::HubOptions;
use bugbridge_broadcast::http::{ArbiterToken, HttpOptions};
use bugbridge_broadcast::mqtt::PublisherOptions;
use bugbridge_broadcast::relay::{self, Relay, RelayOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::within;

/// The arbiter token of the test relays.
pub const TOKEN: &str = "relay-arbiter";

/// A relay running in tasks of the test.
#[derive(Debug)]
pub struct RunningRelay {
    /// Its views.
    pub relay: Relay,
    /// Where it serves HTTP.
    pub http: SocketAddr,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningRelay {
    /// Starts a relay on `broker` (`mqtt://[user:pass@]host:port`) with client id `name`.
    ///
    /// # Panics
    ///
    /// When the options are refused or no port can be bound.
    pub async fn start(broker: &str, name: &str, delay: Duration) -> RunningRelay {
        let mut mqtt = PublisherOptions::from_url(broker).expect("a broker URL");
        mqtt.client_id = name.to_owned();
        mqtt.backoff_min = Duration::from_millis(10);
        mqtt.backoff_max = Duration::from_millis(200);
        let (relay, relay_loop) = Relay::new(RelayOptions {
            mqtt,
            delay,
            hub: HubOptions::default(),
        })
        .expect("relay options");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let http = listener.local_addr().expect("an address");
        let (stop, stopped) = watch::channel(false);
        let mut mqtt_stop = stopped.clone();
        let mqtt_task = tokio::spawn(relay_loop.run(async move {
            let _ = mqtt_stop.wait_for(|s| *s).await;
        }));
        let opts = HttpOptions {
            arbiter_token: ArbiterToken::new(TOKEN),
            ..HttpOptions::default()
        };
        let mut http_stop = stopped;
        let http_relay = relay.clone();
        let http_task = tokio::spawn(async move {
            let _ = relay::http::serve(listener, http_relay, opts, async move {
                let _ = http_stop.wait_for(|s| *s).await;
            })
            .await;
        });
        RunningRelay {
            relay,
            http,
            stop,
            tasks: vec![mqtt_task, http_task],
        }
    }

    /// Waits until `f` holds for the relay.
    ///
    /// # Panics
    ///
    /// When it does not within [`crate::LIMIT`].
    pub async fn until(&self, what: &str, f: impl FnMut(&Relay) -> bool) {
        assert!(within(what, self.relay.wait_until(f)).await, "{what}");
    }

    /// Stops it (MQTT disconnected, HTTP closed) and waits for its tasks.
    ///
    /// # Panics
    ///
    /// When it does not stop in time.
    pub async fn stop(self) {
        self.stop.send_replace(true);
        for task in self.tasks {
            within("the relay to stop", task)
                .await
                .expect("the relay's task does not panic");
        }
    }
}

/// `POST path` with the arbiter token and a JSON body: the status code and the body.
///
/// # Panics
///
/// When the server cannot be reached or does not answer HTTP.
pub async fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    within(&format!("POST {path}"), async {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connect");
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("read");
        let code = answer
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("an HTTP status");
        let body = answer
            .split("\r\n\r\n")
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        (code, body)
    })
    .await
}
