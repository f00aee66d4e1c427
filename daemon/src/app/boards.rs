//! The table's boards: one driver session per configured board, their events merged into
//! one channel in arrival order, and the handles to light LEDs and stop them.

use std::path::PathBuf;
use std::sync::Arc;

use bugbridge_drivers::certabo::store;
use bugbridge_drivers::dgt::ClockSide;
use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, EmulatorHandle, Pace};
use bugbridge_drivers::millennium::ParityMode;
use bugbridge_drivers::session::{
    self, DriverKind as WireDriver, Orientation as WireOrientation, PortSpec, SessionConfig,
    SessionHandle, SharedCalibration, spawn_session,
};
use bugbridge_drivers::trace::{self, TraceLine};
use tokio::sync::mpsc;

use crate::config::{BoardConfig, ClockSource, DriverKind, Orientation, Parity, WhiteSide};
use crate::rules::{BoardId, ByBoard};
use crate::sensor::wire_board_id;

use super::AppError;
use super::drain::Drain;

/// The running boards.
#[derive(Debug)]
pub(crate) struct Boards {
    /// One session per configured board.
    pub(crate) sessions: ByBoard<Option<SessionHandle>>,
    /// Emulated boards, kept alive for the sessions that read them.
    pub(crate) emulators: Arc<Vec<EmulatorHandle>>,
    /// How the emulated boards' traces end, to tell when all of it has been heard.
    pub(crate) drain: Drain,
}

impl Boards {
    /// Lights a move on a board with LEDs (`None` clears them).
    pub(crate) fn show_move(
        &self,
        board: BoardId,
        mv: Option<(crate::rules::Square, crate::rules::Square)>,
    ) {
        if let Some(s) = self.sessions.get(board) {
            let wire = |sq: crate::rules::Square| trace::Square::new(sq.index() as u8);
            s.show_move(mv.and_then(|(a, b)| Some((wire(a)?, wire(b)?))));
        }
    }

    /// Completes once every emulated board has played its whole trace; never when there
    /// is none (real boards never finish).
    pub(crate) fn all_played(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut watches: Vec<_> = self.emulators.iter().map(EmulatorHandle::watch).collect();
        async move {
            if watches.is_empty() {
                return std::future::pending().await;
            }
            for w in &mut watches {
                // Cancel-safe: a watch keeps the latest status. An emulator that stopped
                // has played all it will.
                let _ = w.wait_for(|s| s.played >= s.total).await;
            }
        }
    }

    /// Stops every session and emulator (blocking joins run off the async threads).
    pub(crate) async fn stop(self) {
        let Boards {
            sessions,
            emulators,
            ..
        } = self;
        let handles: Vec<SessionHandle> = [sessions.a, sessions.b].into_iter().flatten().collect();
        for h in &handles {
            h.stop();
        }
        let _ = tokio::task::spawn_blocking(move || {
            for h in handles {
                h.join();
            }
            drop(emulators);
        })
        .await;
    }
}

fn session_config(b: &BoardConfig, driver: WireDriver, port: PortSpec) -> SessionConfig {
    let mut cfg = SessionConfig::new(driver, port, wire_board_id(b.id));
    cfg.white_side = match b.white_side {
        WhiteSide::Auto => None,
        WhiteSide::Left => Some(ClockSide::Left),
        WhiteSide::Right => Some(ClockSide::Right),
    };
    cfg.clock = b.has_clock();
    cfg.clock_required = b.clock == ClockSource::Board;
    cfg.orientation = match b.orientation {
        Orientation::Auto => WireOrientation::Auto,
        Orientation::Normal => WireOrientation::Normal,
        Orientation::Rotated => WireOrientation::Rotated,
    };
    cfg.millennium.parity = match b.parity {
        Parity::Auto => ParityMode::Auto,
        Parity::Odd => ParityMode::Odd,
        Parity::None => ParityMode::Ignore,
    };
    cfg
}

/// Starts the sessions of `boards`; their events arrive on the returned channel.
///
/// Emulated boards are all created first and held paused until every one of them has
/// finished its start-up with its session, then they play together: the two boards of a
/// match must start at the same moment, as real clocks do.
pub(crate) fn start(
    boards: &[BoardConfig],
    speed: f64,
    emulated: WireDriver,
) -> Result<(Boards, mpsc::Receiver<session::SensorEvent>), AppError> {
    let (tx, rx) = mpsc::channel(1024);
    let mut sessions = ByBoard::<Option<SessionHandle>>::default();
    let mut emulators = Vec::new();
    let mut drain = Drain::default();
    let mut traces: Vec<(PathBuf, Vec<TraceLine>)> = Vec::new();
    let mut ports = Vec::new();
    for b in boards {
        let (driver, port) = match b.driver {
            DriverKind::Dgt => (WireDriver::Dgt, port_spec(b)),
            DriverKind::Millennium => (WireDriver::Millennium, port_spec(b)),
            DriverKind::Certabo => (WireDriver::Certabo, port_spec(b)),
            DriverKind::Sentio => (WireDriver::Sentio, port_spec(b)),
            DriverKind::Emulated => {
                let path = b.trace.clone().unwrap_or_default();
                if !traces.iter().any(|(p, _)| *p == path) {
                    traces.push((path.clone(), read_trace(&path)?));
                }
                let lines = traces
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map(|(_, l)| l.as_slice())
                    .unwrap_or_default();
                let mut cfg = EmulatorConfig::new(emulated);
                cfg.board = wire_board_id(b.id);
                cfg.pace = Pace::Timed { speed };
                cfg.clock = b.has_clock();
                drain.expect(cfg.board, lines, cfg.clock);
                let emu = Emulator::start(cfg, lines)
                    .map_err(|e| AppError::Device(format!("board {}: emulator: {e}", b.id)))?;
                emu.pause();
                let port = PortSpec::Path(emu.path());
                emulators.push(emu);
                (emulated, port)
            }
        };
        ports.push((b, driver, port));
    }
    let mut tables: Vec<(PathBuf, SharedCalibration)> = Vec::new();
    for (b, driver, port) in ports {
        let mut cfg = session_config(b, driver, port);
        if let Some(path) = &b.calibration {
            // Boards naming the same file share one calibration: each knows both sets.
            let shared = match tables.iter().find(|(p, _)| p == path) {
                Some((_, shared)) => shared.clone(),
                None => {
                    let shared = store::load(path)
                        .map_err(|e| AppError::Device(format!("board {}: {e}", b.id)))?;
                    let known = shared.get();
                    if known.is_empty() {
                        tracing::warn!(
                            "board {}: no tag calibration yet ({}): set up both boards in the start position; each learns its set and both boards will know both",
                            b.id,
                            path.display()
                        );
                    } else {
                        tracing::info!(
                            "tag calibration {}: {} tags ({})",
                            path.display(),
                            known.len(),
                            known.summary()
                        );
                    }
                    tokio::spawn(store::keep_saved(shared.clone(), path.clone()));
                    tables.push((path.clone(), shared.clone()));
                    shared
                }
            };
            cfg.certabo.calibration = shared;
        }
        let (handle, mut events) =
            spawn_session(cfg).map_err(|e| AppError::Device(format!("board {}: {e}", b.id)))?;
        sessions[b.id] = Some(handle);
        let tx = tx.clone();
        tokio::spawn(async move {
            // Cancel-safe: `recv` loses nothing when the select around the consumer drops.
            while let Some(ev) = events.recv().await {
                if tx.send(ev).await.is_err() {
                    break;
                }
            }
        });
    }
    let emulators = Arc::new(emulators);
    if !emulators.is_empty() {
        let mut watches: Vec<_> = emulators.iter().map(EmulatorHandle::watch).collect();
        let all = Arc::clone(&emulators);
        tokio::spawn(async move {
            for w in &mut watches {
                // Cancel-safe: a watch keeps the latest status.
                if w.wait_for(|s| s.synced).await.is_err() {
                    return;
                }
            }
            for e in all.iter() {
                e.play();
            }
        });
    }
    Ok((
        Boards {
            sessions,
            emulators,
            drain,
        },
        rx,
    ))
}

fn port_spec(b: &BoardConfig) -> PortSpec {
    match (&b.usb_serial, &b.port) {
        (Some(serial), _) => PortSpec::UsbSerial(serial.clone()),
        (None, Some(path)) => PortSpec::Path(PathBuf::from(path)),
        (None, None) => PortSpec::Path(PathBuf::new()),
    }
}

/// Reads a trace file for an emulated board.
fn read_trace(path: &std::path::Path) -> Result<Vec<TraceLine>, AppError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| AppError::Config(format!("{}: cannot read: {e}", path.display())))?;
    trace::parse_trace(&text).map_err(|e| AppError::Config(format!("{}: {e}", path.display())))
}
