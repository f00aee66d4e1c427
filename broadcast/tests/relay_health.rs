//! A relay says what the daemon says about its broker: one WARN naming the
//! cause on each change (refused, DNS, not authorised), `/readyz` 503 and `/healthz`
//! `degraded` while the broker is down or refusing, `bugbridge_mqtt_connected` true to the
//! connection, in the live and the delayed view alike. Against real sockets: a port nothing
//! listens on (then a broker appearing there), an unresolvable host, rumqttd refusing a
//! wrong password.

#![cfg(feature = "embedded-broker")]

mod health_support;
use health_support::{Logs, broker_with_password, free_port};

use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use bugbridge_broadcast::HubOptions;
use bugbridge_broadcast::http::HttpOptions;
use bugbridge_broadcast::mqtt::{EmbeddedBroker, Problem, PublisherOptions};
use bugbridge_broadcast::relay::{self, Relay, RelayOptions};
use tower::ServiceExt;

const LIMIT: Duration = Duration::from_secs(20);

struct Running {
    relay: Relay,
    app: axum::Router,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    fn start(mqtt: PublisherOptions, delay: Duration) -> Running {
        let (relay, relay_loop) = Relay::new(RelayOptions {
            mqtt,
            delay,
            hub: HubOptions::default(),
        })
        .unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(relay_loop.run(async {
            let _ = stopped.await;
        }));
        let app = relay::http::router(relay.clone(), HttpOptions::default());
        Running {
            relay,
            app,
            stop,
            task,
        }
    }

    async fn until(&self, f: impl FnMut(&Relay) -> bool) {
        assert!(
            tokio::time::timeout(LIMIT, self.relay.wait_until(f))
                .await
                .expect("the relay's state in time")
        );
    }

    async fn get(&self, uri: &str) -> (StatusCode, String) {
        let r = self
            .app
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = r.status();
        let body = to_bytes(r.into_body(), 1 << 20).await.unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    async fn json(&self, uri: &str) -> (StatusCode, serde_json::Value) {
        let (status, body) = self.get(uri).await;
        (status, serde_json::from_str(&body).unwrap())
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(LIMIT, self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

fn options(url: &str) -> PublisherOptions {
    let mut opts = PublisherOptions::from_url(url).unwrap();
    opts.backoff_min = Duration::from_millis(5);
    opts.backoff_max = Duration::from_millis(20);
    opts.client_id = "relay-health-test".to_owned();
    opts
}

fn metric(text: &str, name: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

#[tokio::test]
async fn a_relay_refused_by_its_broker_is_one_warning_and_503_until_the_broker_appears() {
    let logs = Logs::default();
    let _guard = logs.install();
    let addr = free_port();
    // Delayed: the public view (what a load balancer probes) reports it too.
    let relay = Running::start(options(&format!("mqtt://{addr}")), Duration::from_secs(5));
    relay.until(|r| r.status().failures >= 5).await;
    assert_eq!(relay.relay.status().problem, Some(Problem::Refused));

    let warnings = logs.warnings();
    assert_eq!(
        warnings.len(),
        1,
        "one warning for five failures: {warnings:?}"
    );
    assert!(
        warnings[0].contains("relay: MQTT cannot connect"),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("refused"), "{warnings:?}");
    assert!(warnings[0].contains(&addr.to_string()), "{warnings:?}");

    let (status, body) = relay.json("/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["status"], "degraded");
    assert_eq!(body["down"][0], "mqtt");
    assert_eq!(body["mqtt"]["problem"], "refused");
    assert_eq!(body["mqtt"]["broker"], format!("mqtt://{addr}"));
    let (status, body) = relay.json("/healthz").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "degraded");
    let (_, metrics) = relay.get("/metrics").await;
    assert_eq!(
        metric(&metrics, "bugbridge_mqtt_connected"),
        Some(0),
        "{metrics}"
    );

    // A broker appears at that address: ready, connected in the metrics, said once.
    let broker = EmbeddedBroker::start(addr).unwrap();
    assert_eq!(broker.addr(), addr);
    relay.until(|r| r.status().connected).await;
    let (status, body) = relay.json("/readyz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ok");
    assert_eq!(body["mqtt"]["connected"], true);
    let (_, metrics) = relay.get("/metrics").await;
    assert_eq!(
        metric(&metrics, "bugbridge_mqtt_connected"),
        Some(1),
        "{metrics}"
    );
    assert_eq!(
        metric(&metrics, "bugbridge_mqtt_connections_total"),
        Some(1),
        "{metrics}"
    );
    assert!(
        logs.text().contains("relay: MQTT connected again"),
        "{}",
        logs.text()
    );
    assert_eq!(logs.warnings().len(), 1, "{}", logs.text());
    relay.stop().await;
}

#[tokio::test]
async fn a_relay_whose_broker_host_does_not_resolve_says_so() {
    let logs = Logs::default();
    let _guard = logs.install();
    let relay = Running::start(options("mqtt://no-such-host.invalid:1883"), Duration::ZERO);
    relay
        .until(|r| r.status().problem == Some(Problem::Dns))
        .await;
    let (status, body) = relay.json("/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["mqtt"]["problem"], "dns");
    let warnings = logs.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("does not resolve"), "{warnings:?}");
    relay.stop().await;
}

#[tokio::test]
async fn a_relay_with_a_wrong_password_names_the_url_to_fix() {
    let logs = Logs::default();
    let _guard = logs.install();
    let addr = broker_with_password("relay", "right");
    let relay = Running::start(
        options(&format!("mqtt://relay:wrong@{addr}")),
        Duration::ZERO,
    );
    // The broker may not listen yet at the first attempt: wait for its refusal.
    relay
        .until(|r| r.status().problem == Some(Problem::Closed))
        .await;
    let (status, body) = relay.json("/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let reason = body["mqtt"]["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("password"), "{reason}");
    assert!(reason.contains("--mqtt"), "{reason}");
    let text = logs.text();
    assert!(
        text.lines()
            .any(|l| l.contains("WARN") && l.contains("password") && l.contains("--mqtt")),
        "{text}"
    );
    relay.stop().await;
}
