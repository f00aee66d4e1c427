//! The daemon: boards and clocks → inference → recording → MQTT + HTTP.
//!
//! [`run`] wires the tasks and stops them at a safe point when `shutdown` completes (the
//! binary passes Ctrl-C/SIGTERM, tests pass a oneshot): the table finishes the event it is
//! handling, syncs its journal and writes its BPGN; MQTT publishes `offline`; HTTP closes its
//! streams; the board sessions stop. Data flows one way: drivers → daemon → broadcast.

pub mod archive;
mod boards;
mod drain;
#[cfg(test)]
mod gap_metrics;
mod preflight;
mod table;
pub mod time;

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use bugbridge_broadcast::http::HttpOptions;
use bugbridge_broadcast::mqtt::Publisher;
use bugbridge_broadcast::{Hub, HubOptions};
use tokio::sync::watch;
use tracing::{error, info, warn};

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
    /// The configuration file, named in the errors about its keys.
    pub config_file: Option<std::path::PathBuf>,
    /// Stop on its own once every emulated board has played its whole trace (the demo's
    /// `--loops`); boards on real devices never finish.
    pub stop_when_played: bool,
    /// What emulated boards are: DGT boards (with their clocks) unless told otherwise
    /// (the demo's `--driver certabo`: Certabo boards, no clock).
    pub emulated_driver: bugbridge_drivers::session::DriverKind,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            emulator_speed: 1.0,
            ready: None,
            config_file: None,
            stop_when_played: false,
            emulated_driver: bugbridge_drivers::session::DriverKind::Dgt,
        }
    }
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
    // A board without a clock has its last move final once it has been still this long:
    // a daemon that stops when the emulators have played waits for it. Boards whose
    // presses complete their moves owe nothing once their last events are heard.
    let clockless = options.emulated_driver != bugbridge_drivers::session::DriverKind::Dgt
        || config.boards.iter().any(|b| !b.has_clock());
    let settle_after = if clockless {
        Duration::from_millis(config.stable_commit_ms + 200)
    } else {
        Duration::ZERO
    };
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
    // The table checks every action before journaling it and answers the page's request.
    hub.answer_actions();
    let mut endpoints = Endpoints::default();
    let mut tasks = Vec::new();

    // Everything that can be refused is checked before the journal is opened.
    let prepared = preflight::check(&config, options.config_file.as_deref())?;

    // The table first: recovering a journal publishes the state the broker and viewers need.
    let mut table = Table::open(&config, Some(hub.clone()))?;

    if let Some(opts) = prepared.mqtt {
        let (publisher, publisher_loop) =
            Publisher::new(hub.clone(), opts).map_err(|e| AppError::Mqtt(e.to_string()))?;
        endpoints.mqtt_broker = publisher.embedded_broker();
        let stop = stopped();
        tasks.push(tokio::spawn(async move {
            publisher_loop.run(stop).await;
            drop(publisher);
        }));
    }

    if let Some(listener) = prepared.http {
        let addr = listener.local_addr().ok();
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| AppError::Http(e.to_string()))?;
        endpoints.http = addr;
        let opts = HttpOptions {
            arbiter_token: prepared.arbiter_token,
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

    let (mut boards, mut events) = boards::start(
        &config.boards,
        options.emulator_speed,
        options.emulated_driver,
    )?;
    let mut drain = std::mem::take(&mut boards.drain);
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

    let mut tick = tokio::time::interval(Duration::from_millis(crate::game::LIVE_TICK_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    let played = boards.all_played();
    let stop_when_played = options.stop_when_played;
    let played = async move {
        if !stop_when_played {
            return std::future::pending().await;
        }
        played.await;
    };
    tokio::pin!(played);
    // Once the emulators have played everything: the bound on hearing the rest of it.
    let mut draining: Option<tokio::time::Instant> = None;
    // Once every emulated board's last events were heard: when the last moves are final.
    let mut settled: Option<tokio::time::Instant> = None;
    loop {
        let decided = tokio::select! {
            // The board's events and the arbiter's actions before the timer: a tick taken
            // while an event stamped before it waits would run the timers ahead of it (a
            // busy host's board "resting" on a move whose next reading is in the queue).
            biased;
            // Cancel-safe: a future that does not complete is dropped without effect.
            () = &mut shutdown => break,
            // Cancel-safe: pinned and polled again only if another branch won; never
            // polled again once complete.
            () = &mut played, if draining.is_none() => {
                // The last events may still be on their way through the ptys and the
                // sessions: stop once they have been taken (below).
                draining = Some(tokio::time::Instant::now() + DRAIN_BOUND);
                Ok(Vec::new())
            }
            // Cancel-safe: a timer made afresh on each turn.
            () = until(draining) => {
                warn!(
                    "the emulated boards' last events were not all heard within {DRAIN_BOUND:?}; stopping"
                );
                break;
            }
            // Cancel-safe: `recv` loses no event when another branch wins.
            ev = events.recv() => match ev {
                Some(ev) => {
                    drain.note(&ev.event);
                    table.on_sensor(ev.at, ev.event)
                }
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
        if draining.is_some() && drain.done() {
            let now = tokio::time::Instant::now();
            let at = *settled.get_or_insert_with(|| {
                info!("every emulated board has played its trace");
                draining = Some(now + settle_after + DRAIN_BOUND);
                now + settle_after
            });
            if now >= at {
                break;
            }
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

/// How long the daemon that stops when the emulated boards have played waits, at most,
/// for their last events to come through the sessions (they take milliseconds; this only
/// keeps a session that lost its board from holding the stop forever).
const DRAIN_BOUND: Duration = Duration::from_secs(5);

/// Completes at `deadline`; never without one.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

fn light_moves(boards: &boards::Boards, decided: &[Inference]) {
    for d in decided {
        if let Inference::Move { entry, .. } = d {
            boards.show_move(entry.board, table::led_squares(&entry.mv));
        }
    }
}
