//! A broker that cannot be reached is said, not hidden: one WARN with the reason on the
//! first failure (not one per retry), `/readyz` 503 and `/healthz` `degraded` with the
//! reason in the body, both back to `ok` once connected. Against real sockets: a port
//! nothing listens on, and rumqttd with a password file refusing a wrong password.

#![cfg(feature = "embedded-broker")]

mod health_support;
use health_support::{Logs, broker_with_password, free_port};

use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use bugbridge_broadcast::http::{HttpOptions, router};
use bugbridge_broadcast::mqtt::{MqttStatus, Problem, Publisher, PublisherOptions};
use bugbridge_broadcast::{Hub, HubOptions};
use tower::ServiceExt;

const LIMIT: Duration = Duration::from_secs(20);

async fn get(hub: &Hub, uri: &str) -> (StatusCode, serde_json::Value) {
    let app = router(hub.clone(), HttpOptions::default());
    let r = app
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = r.status();
    let body = to_bytes(r.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&body).unwrap())
}

fn options(url: &str) -> PublisherOptions {
    let mut opts = PublisherOptions::from_url(url).unwrap();
    opts.backoff_min = Duration::from_millis(5);
    opts.backoff_max = Duration::from_millis(20);
    opts.client_id = "health-test".to_owned();
    opts
}

async fn wait(
    handle: &mut bugbridge_broadcast::mqtt::PublisherHandle,
    f: impl FnMut(&MqttStatus) -> bool,
) {
    tokio::time::timeout(LIMIT, handle.wait_for(f))
        .await
        .expect("the publisher's state in time");
}

#[tokio::test]
async fn nothing_listening_is_one_warning_and_a_degraded_health() {
    let logs = Logs::default();
    let _guard = logs.install();
    let (hub, _actions) = Hub::new(HubOptions::default());
    hub.publish("t1", bugbridge_broadcast::Update::default())
        .unwrap();
    let addr = free_port();
    let (mut handle, publisher) =
        Publisher::new(hub.clone(), options(&format!("mqtt://{addr}"))).unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(publisher.run(async {
        let _ = stop_rx.await;
    }));
    wait(&mut handle, |s| s.failures >= 5).await;
    assert_eq!(handle.status().problem, Some(Problem::Refused));

    let text = logs.text();
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "one warning for five failures: {text}");
    assert!(warnings[0].contains("MQTT cannot connect"), "{text}");
    assert!(warnings[0].contains("refused"), "{text}");
    assert!(warnings[0].contains(&addr.to_string()), "{text}");

    let (status, body) = get(&hub, "/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["status"], "degraded");
    assert_eq!(body["down"][0], "mqtt");
    assert_eq!(body["mqtt"]["problem"], "refused");
    assert!(body["mqtt"]["reason"].as_str().unwrap().contains("refused"));
    let (status, body) = get(&hub, "/healthz").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "degraded");

    // A broker appears at that address: connected, healthy again, said once.
    let broker = bugbridge_broadcast::mqtt::EmbeddedBroker::start(addr).unwrap();
    assert_eq!(broker.addr(), addr);
    wait(&mut handle, |s| s.connected).await;
    let (status, body) = get(&hub, "/readyz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ok");
    assert_eq!(body["mqtt"]["connected"], true);
    assert!(
        logs.text().contains("MQTT connected again"),
        "{}",
        logs.text()
    );
    let _ = stop_tx.send(());
    task.await.unwrap();
}

#[tokio::test]
async fn a_wrong_password_is_said_with_the_keys_to_check() {
    let logs = Logs::default();
    let _guard = logs.install();
    let addr = broker_with_password("bugbridge", "right");
    let (hub, _actions) = Hub::new(HubOptions::default());
    hub.publish("t1", bugbridge_broadcast::Update::default())
        .unwrap();
    let mut opts = options(&format!("mqtt://{addr}"));
    opts.username = Some("bugbridge".to_owned());
    opts.password = Some("wrong".to_owned());
    let (mut handle, publisher) = Publisher::new(hub.clone(), opts).unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(publisher.run(async {
        let _ = stop_rx.await;
    }));
    // The broker may not listen yet at the first attempt: wait for its refusal.
    wait(&mut handle, |s| s.problem == Some(Problem::Closed)).await;
    let (status, body) = get(&hub, "/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    let reason = body["mqtt"]["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("password"), "{reason}");
    assert!(reason.contains("mqtt.password_file"), "{reason}");
    let text = logs.text();
    assert!(
        text.lines()
            .any(|l| l.contains("WARN") && l.contains("password")),
        "{text}"
    );
    let _ = stop_tx.send(());
    task.await.unwrap();
}
