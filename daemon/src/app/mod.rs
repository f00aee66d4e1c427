//! The daemon: boards and clocks → inference → recording → MQTT + HTTP.
//!
//! [`run`] wires the tasks and stops them at a safe point when `shutdown` completes (the
//! binary passes Ctrl-C/SIGTERM, tests pass a oneshot): the table finishes the event it is
//! handling, syncs its journal and writes its BPGN; MQTT publishes `offline`; HTTP closes its
//! streams; the board sessions stop. Data flows one way: drivers → daemon → broadcast.

mod boards;
mod table;
pub mod time;

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use bugbridge_broadcast::http::{ArbiterToken, HttpOptions};
use bugbridge_broadcast::mqtt::{Publisher, PublisherOptions};
use bugbridge_broadcast::{Hub, HubOptions};
use tokio::sync::watch;
use tracing::{error, info};

use crate::config::Config;
use crate::infer::Inference;

use table::Table;

/// Why the daemon could not run.
#[derive(Debug)]
pub enum AppError {
    /// The configuration refers to something unusable (exit status 2).
    Config(String),
    /// A board could not be started.
    Device(String),
    /// Recording failed (journal, BPGN file).
    Record(String),
    /// MQTT could not be set up.
    Mqtt(String),
    /// HTTP could not be set up.
    Http(String),
}

impl AppError {
    /// The process exit status for this error.
    #[must_use]
    pub const fn exit_status(&self) -> u8 {
        match self {
            AppError::Config(_) => 2,
            _ => 3,
        }
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::Config(m) => write!(f, "configuration: {m}"),
            AppError::Device(m) => write!(f, "device: {m}"),
            AppError::Record(m) => write!(f, "recording: {m}"),
            AppError::Mqtt(m) => write!(f, "mqtt: {m}"),
            AppError::Http(m) => write!(f, "http: {m}"),
        }
    }
}

impl std::error::Error for AppError {}

/// Where the running daemon can be reached (for the demo's banner and for tests).
#[derive(Debug, Clone, Default)]
pub struct Endpoints {
    /// The HTTP server's address, if serving.
    pub http: Option<SocketAddr>,
    /// The embedded MQTT broker's address, if one runs.
    pub mqtt_broker: Option<SocketAddr>,
}

/// Options of [`run`] that are not in the configuration file.
#[derive(Debug)]
pub struct RunOptions {
    /// Pace of emulated boards (1.0 = the trace's own timing).
    pub emulator_speed: f64,
    /// Told the reachable addresses once everything listens.
    pub ready: Option<tokio::sync::oneshot::Sender<Endpoints>>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            emulator_speed: 1.0,
            ready: None,
        }
    }
}

fn read_secret(path: &std::path::Path, what: &str) -> Result<String, AppError> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_owned())
        .map_err(|e| AppError::Config(format!("{what} {}: {e}", path.display())))
}

/// Runs the daemon until `shutdown` completes.
///
/// # Errors
///
/// [`AppError`] when something cannot be started; errors while running are logged and the
/// daemon goes on where it can.
pub async fn run(
    config: Config,
    options: RunOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), AppError> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = move || {
        let mut rx = stop_rx.clone();
        async move {
            // Cancel-safe: waiting on a watch channel loses nothing.
            let _ = rx.wait_for(|s| *s).await;
        }
    };

    let (hub, mut actions) = Hub::new(HubOptions {
        alerts_public: config.mqtt.as_ref().is_some_and(|m| m.alerts_public),
        ..HubOptions::default()
    });
    let mut endpoints = Endpoints::default();
    let mut tasks = Vec::new();

    // The table first: recovering a journal publishes the state the broker and viewers need.
    let mut table = Table::open(&config, Some(hub.clone()))?;

    if let Some(mqtt) = &config.mqtt {
        let mut opts =
            PublisherOptions::from_url(&mqtt.url).map_err(|e| AppError::Mqtt(e.to_string()))?;
        opts.topic_prefix.clone_from(&mqtt.topic_prefix);
        opts.embedded_listen = mqtt.embedded_listen;
        opts.will_match = Some(config.match_id.clone());
        opts.client_id = format!("bugbridge-{}", config.match_id);
        opts.accept_operator = mqtt.operator;
        if let Some(user) = &mqtt.username {
            opts.username = Some(user.clone());
        } else if mqtt.password_file.is_some() {
            // One user per table named as its match (config/mosquitto/acl.conf), so one
            // file with --match-id serves every table.
            opts.username = Some(config.match_id.clone());
        }
        if let Some(path) = &mqtt.password_file {
            opts.password = Some(read_secret(path, "mqtt password file")?);
        }
        if let Some(path) = &mqtt.ca_file {
            opts.ca_pem =
                Some(std::fs::read(path).map_err(|e| {
                    AppError::Config(format!("mqtt ca_file {}: {e}", path.display()))
                })?);
        }
        let (publisher, publisher_loop) =
            Publisher::new(hub.clone(), opts).map_err(|e| AppError::Mqtt(e.to_string()))?;
        endpoints.mqtt_broker = publisher.embedded_broker();
        let stop = stopped();
        tasks.push(tokio::spawn(async move {
            publisher_loop.run(stop).await;
            drop(publisher);
        }));
    }

    if let Some(http) = &config.http {
        let arbiter_token = match &http.arbiter_token_file {
            Some(path) => Some(
                ArbiterToken::new(&read_secret(path, "arbiter token file")?).ok_or_else(|| {
                    AppError::Config(format!("arbiter token file {}: empty", path.display()))
                })?,
            ),
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(http.listen)
            .await
            .map_err(|e| AppError::Http(format!("{}: {e}", http.listen)))?;
        endpoints.http = listener.local_addr().ok();
        let opts = HttpOptions {
            arbiter_token,
            ..HttpOptions::default()
        };
        let hub = hub.clone();
        let stop = stopped();
        tasks.push(tokio::spawn(async move {
            if let Err(e) = bugbridge_broadcast::http::serve(listener, hub, opts, stop).await {
                error!("http server: {e}");
            }
        }));
    }

    let (boards, mut events) = boards::start(&config.boards, options.emulator_speed)?;
    info!(
        match_id = %config.match_id,
        boards = config.boards.len(),
        journal = %table.files().journal.display(),
        http = %endpoints.http.map_or_else(|| "-".to_owned(), |a| a.to_string()),
        mqtt_broker = %endpoints.mqtt_broker.map_or_else(|| "-".to_owned(), |a| a.to_string()),
        "running"
    );
    if let Some(ready) = options.ready {
        let _ = ready.send(endpoints);
    }

    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        let decided = tokio::select! {
            // Cancel-safe: a future that does not complete is dropped without effect.
            () = &mut shutdown => break,
            // Cancel-safe: `recv` loses no event when another branch wins.
            ev = events.recv() => match ev {
                Some(ev) => table.on_sensor(ev.at, ev.event),
                None => break,
            },
            // Cancel-safe as above.
            Some(action) = actions.recv() => table.on_action(&action),
            // Cancel-safe: a missed tick is only delayed.
            now = tick.tick() => table.on_tick(now.into_std()),
        };
        match decided {
            Ok(decided) => light_moves(&boards, &decided),
            Err(e) => error!("{e}"),
        }
    }

    info!("stopping: flushing the record");
    if let Err(e) = table.flush() {
        error!("{e}");
    }
    table.publish();
    stop_tx.send_replace(true);
    boards.stop().await;
    for task in tasks {
        let _ = task.await;
    }
    info!(journal = %table.files().journal.display(), bpgn = %table.files().bpgn.display(), "stopped");
    Ok(())
}

fn light_moves(boards: &boards::Boards, decided: &[Inference]) {
    for d in decided {
        if let Inference::Move { entry, .. } = d {
            boards.show_move(entry.board, table::led_squares(&entry.mv));
        }
    }
}
