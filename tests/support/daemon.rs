//! The daemon under test: its configuration, and the daemon running in a task of the test.

use std::collections::BTreeMap;
use std::path::Path;

use bugbridge::app::{self, AppError, Endpoints, RunOptions};
use bugbridge::config::{
    BoardConfig, ClockSource, Config, DriverKind, HttpConfig, KoedemOptions, LogFormat, MqttConfig,
    Orientation, Parity, WhiteSide,
};
use bugbridge::rules::{BoardId, RulesetName};
use bugbridge_drivers::trace::BoardId as WireBoard;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::table::Table;
use crate::within;

/// The match id every test uses.
pub const MATCH: &str = "e2e";

/// A configuration as an organiser would write it: both boards `driver = dgt` with a
/// clock on the given table's ptys, HTTP on a free loopback port, MQTT to `mqtt_url` if any,
/// records in `record_dir`.
#[must_use]
pub fn config(table: &Table, mqtt_url: Option<&str>, record_dir: &Path) -> Config {
    let board = |id: BoardId, wire: WireBoard| BoardConfig {
        id,
        driver: DriverKind::Dgt,
        port: Some(table.path(wire).display().to_string()),
        usb_serial: None,
        clock: ClockSource::Board,
        white_side: WhiteSide::Left,
        orientation: Orientation::Auto,
        parity: Parity::Auto,
        trace: None,
        calibration: None,
    };
    Config {
        match_id: MATCH.into(),
        ruleset: RulesetName::Fide,
        time_control: None,
        tags: BTreeMap::from([("Event".to_owned(), "bugbridge end-to-end test".to_owned())]),
        boards: vec![
            board(BoardId::A, WireBoard::A),
            board(BoardId::B, WireBoard::B),
        ],
        mqtt: mqtt_url.map(|url| MqttConfig {
            url: url.to_owned(),
            topic_prefix: "bughouse".into(),
            username: None,
            password_file: None,
            ca_file: None,
            alerts_public: false,
            operator: false,
            embedded_listen: "127.0.0.1:0".parse().expect("an address"),
        }),
        http: Some(HttpConfig {
            listen: "127.0.0.1:0".parse().expect("an address"),
            arbiter_token_file: None,
        }),
        record_dir: record_dir.to_owned(),
        stable_commit_ms: 1500,
        drop_tolerance_ms: 300,
        gap_max_plies: 6,
        koedem: KoedemOptions::default(),
        log_format: LogFormat::Text,
        log_level: "info".into(),
    }
}

/// The daemon running in a task of the test (`app::run` with a oneshot as its shutdown).
#[derive(Debug)]
pub struct InProcess {
    /// Where it listens.
    pub endpoints: Endpoints,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), AppError>>,
}

impl InProcess {
    /// Starts the daemon and waits until it listens.
    ///
    /// # Panics
    ///
    /// When it fails to start.
    pub async fn start(config: Config) -> InProcess {
        let (ready_tx, ready_rx) = oneshot::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let options = RunOptions {
            emulator_speed: 1.0,
            ready: Some(ready_tx),
            ..RunOptions::default()
        };
        let task = tokio::spawn(app::run(config, options, async {
            let _ = stopped.await;
        }));
        let endpoints = match within("the daemon to listen", ready_rx).await {
            Ok(e) => e,
            Err(_) => panic!("the daemon did not start: {:?}", task.await),
        };
        InProcess {
            endpoints,
            stop: Some(stop),
            task,
        }
    }

    /// The HTTP server's address.
    ///
    /// # Panics
    ///
    /// When the daemon serves no HTTP.
    #[must_use]
    pub fn http(&self) -> std::net::SocketAddr {
        self.endpoints.http.expect("the daemon serves HTTP")
    }

    /// Stops the daemon (as Ctrl-C would) and waits until every task has finished.
    ///
    /// # Panics
    ///
    /// When it does not stop in time or stops with an error.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        within("the daemon to stop", &mut self.task)
            .await
            .expect("the daemon task does not panic")
            .expect("the daemon stops cleanly");
    }
}
