//! Device sessions: one blocking thread per device, a bounded channel into tokio.
//!
//! [`spawn_session`] starts a thread that opens the port (by path, or by USB serial number),
//! runs the protocol's start-up handshake, and sends [`SensorEvent`]s into a bounded
//! `tokio::sync::mpsc` channel. When the device goes away (`Ok(0)`, broken pipe, any
//! non-timeout error, or no answer to a probe) it emits `link` down, retries with
//! exponential back-off (capped, [`SessionConfig::backoff_max`]), and after reopening sends
//! `link` up followed by a `board` snapshot from a full dump.
//!
//! # Time and ordering
//!
//! Events carry the [`Instant`] at which the bytes that produced them were read (taken in the
//! serial thread right after `read` returned), and come out in the order the device sent
//! them; events from one read share an instant. The session stamps the configured
//! [`BoardId`]; the consumer turns instants into trace milliseconds against its own origin.
//! After `link` up the first event is always a `board` snapshot: nothing may be assumed about
//! squares between a `link` down and that snapshot. Clock events follow the rules of
//! `clock_state` (press or change; time rises not passed on).
//!
//! # The clock (DGT)
//!
//! * Which side of the clock White sits on is learnt from play (`clock_side`): a
//!   `clock_side` event states the side before the first `clock` event labelled by it, and
//!   again whenever play decides or changes it ([`SessionConfig::white_side`] is the prior,
//!   `None` for auto).
//! * Whether a clock reports at all (`clock_presence`): `clock_link` down once the board has
//!   said "no clock connected" for a while, or left a clock request unanswered; `clock_link`
//!   up at the next valid reading. One each way.
//!
//! # Handshakes
//!
//! * DGT: `0x40` reset, `0x4D` version; on the version reply `0x4B` (update-nice, or `0x43`
//!   with [`DgtUpdateMode::EveryClock`]) and `0x42` board dump; on the dump: `link` up +
//!   `board`, then `0x41` for a first clock reading. A silent board is probed with `0x4D`.
//!   On a reconnection, the version is followed first by `0x49` (the EEPROM event log, read
//!   while the board is still idle, so no update is interleaved): when the log holds what
//!   was received before the outage and no power-up since, the `board` snapshot after
//!   `link` up is the board as it was left, and the field changes and presses the log kept
//!   follow as the `square` and `clock` events they were (a press with the halted side's
//!   logged time), then whatever the dump shows beyond them. Otherwise (power lost, log
//!   unreadable or not matching) the snapshot is the dump alone, as on a first connection.
//! * Millennium: `V`, `W02` report mode, `W01` scan time, `S`; on the status: `link` up +
//!   `board`. Later statuses are diffed into `square` events. A silent board is probed with `V`.

mod board_state;
mod certabo;
mod clock_presence;
mod clock_side;
mod clock_state;
mod dgt;
pub mod diagnose;
mod millennium;
mod raw_log;
mod recovery;
mod run;
mod watchdog;

pub use board_state::Orientation;
pub use certabo::{CERTABO_AGREE, CertaboSettings, SENTIO_AGREE, SharedCalibration};
pub use raw_log::{Direction, RawLog, parse_raw_line};

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::dgt::{BwtimeLayout, ClockCommand, ClockSide};
use crate::millennium::ParityMode;
use crate::trace::{BoardId, Square, TraceEvent};

/// Which protocol a device speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DriverKind {
    /// DGT e-board (USB, serial or Bluetooth SPP), optionally with a relayed DGT clock.
    Dgt,
    /// Millennium ChessLink / Exclusive / Performance / eONE.
    Millennium,
    /// Certabo RFID board (a tag id per square).
    Certabo,
    /// TabuTronic Sentio / Spectrum (occupancy only).
    Sentio,
}

impl DriverKind {
    /// `"dgt"`, `"millennium"`, `"certabo"` or `"sentio"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DriverKind::Dgt => "dgt",
            DriverKind::Millennium => "millennium",
            DriverKind::Certabo => "certabo",
            DriverKind::Sentio => "sentio",
        }
    }

    /// Parses `"dgt"`, `"millennium"`, `"certabo"` or `"sentio"`.
    #[must_use]
    pub fn from_name(s: &str) -> Option<DriverKind> {
        match s {
            "dgt" => Some(DriverKind::Dgt),
            "millennium" => Some(DriverKind::Millennium),
            "certabo" => Some(DriverKind::Certabo),
            "sentio" => Some(DriverKind::Sentio),
            _ => None,
        }
    }

    /// True for the boards that report readings unasked on the Certabo framing.
    #[must_use]
    pub const fn is_certabo_family(self) -> bool {
        matches!(self, DriverKind::Certabo | DriverKind::Sentio)
    }
}

/// Where the device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSpec {
    /// A device path (`/dev/ttyUSB0`, `/dev/serial/by-path/…`, a symlink); reopened by path.
    Path(PathBuf),
    /// The USB iSerial string; the path is looked up on every (re)open.
    UsbSerial(String),
}

/// DGT update mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DgtUpdateMode {
    /// `0x4B`: clock messages only when the clock data change.
    #[default]
    Nice,
    /// `0x43`: clock messages at least once a second.
    EveryClock,
}

/// Millennium set-up values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MillenniumSettings {
    /// Parity: `Auto` (default) accepts bytes with and without parity and answers as the
    /// board sends; `Odd` drops bytes with even parity; `Ignore` ("none") for 7-bit devices.
    pub parity: ParityMode,
    /// Register 02: automatic reports (3 = on any change; 4..7 = on change after debounce).
    pub report_mode: u8,
    /// Register 01: scan time in 2.048 ms units (20 = 40.96 ms, the default).
    pub scan_time: u8,
}

impl Default for MillenniumSettings {
    fn default() -> Self {
        MillenniumSettings {
            parity: ParityMode::Auto,
            report_mode: 3,
            scan_time: 20,
        }
    }
}

/// Everything a session needs. Build with [`SessionConfig::new`] and adjust fields.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The protocol.
    pub driver: DriverKind,
    /// Where the device is.
    pub port: PortSpec,
    /// The board id stamped on every event.
    pub board: BoardId,
    /// Which clock side White sits on: `None` (auto, the default) learns it from play;
    /// a side is the prior that play may overrule (see `clock_side`).
    pub white_side: Option<ClockSide>,
    /// BWTIME side layout (DGT).
    pub bwtime_layout: BwtimeLayout,
    /// Whether a clock may be plugged into the (DGT) board; `false` ignores clock messages.
    /// With `true`, the session reports `clock_link` when the clock goes missing or comes
    /// back (see `clock_presence`).
    pub clock: bool,
    /// The configuration says a clock is plugged in (`clock = "board"`): a missing clock is
    /// warned about, not only reported.
    pub clock_required: bool,
    /// How the board is turned.
    pub orientation: Orientation,
    /// Light the last move on boards with LEDs (Millennium; DGT Revelation II only).
    pub leds: bool,
    /// DGT update mode.
    pub dgt_update: DgtUpdateMode,
    /// Millennium set-up.
    pub millennium: MillenniumSettings,
    /// Certabo / Sentio set-up (noise filter, the table's calibration).
    pub certabo: CertaboSettings,
    /// Serial read timeout: the longest a control message (stop, LEDs) waits.
    pub read_timeout: Duration,
    /// First reconnect delay.
    pub backoff_min: Duration,
    /// Longest reconnect delay.
    pub backoff_max: Duration,
    /// Capacity of the event channel.
    pub channel_capacity: usize,
    /// Probe a silent device after this long.
    pub probe_after: Duration,
    /// How long a handshake step or a probe may wait for its answer.
    pub reply_timeout: Duration,
    /// Capture every byte read and written here (`listen --raw`).
    pub raw: Option<RawLog>,
}

impl SessionConfig {
    /// Defaults: White's clock side learnt from play, modern BWTIME layout, a clock looked
    /// for but not required, automatic orientation,
    /// LEDs on for Millennium only, 50 ms read timeout, back-off 100 ms … 2 s, probe after 2 s
    /// of silence, 3 s reply timeout, 256 events of channel.
    #[must_use]
    pub fn new(driver: DriverKind, port: PortSpec, board: BoardId) -> Self {
        SessionConfig {
            driver,
            port,
            board,
            white_side: None,
            bwtime_layout: BwtimeLayout::Modern,
            clock: true,
            clock_required: false,
            orientation: Orientation::Auto,
            leds: driver != DriverKind::Dgt,
            dgt_update: DgtUpdateMode::Nice,
            millennium: MillenniumSettings::default(),
            certabo: CertaboSettings::default(),
            read_timeout: Duration::from_millis(50),
            backoff_min: Duration::from_millis(100),
            backoff_max: Duration::from_secs(2),
            channel_capacity: 256,
            probe_after: Duration::from_secs(2),
            reply_timeout: Duration::from_secs(3),
            raw: None,
        }
    }
}

/// One sensor event from a device, with the instant its bytes were read.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorEvent {
    /// When the bytes that produced the event were read.
    pub at: Instant,
    /// The event, stamped with the session's board id.
    pub event: TraceEvent,
}

/// Requests to a running session.
#[derive(Debug, Clone)]
pub(crate) enum Control {
    ShowMove(Option<(Square, Square)>),
    ShowSquares(Vec<Square>),
    Clock(ClockCommand),
}

/// Controls a running session; dropping it stops the session.
#[derive(Debug)]
pub struct SessionHandle {
    control: std::sync::mpsc::Sender<Control>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl SessionHandle {
    /// Light `from` and `to` on boards with LEDs (normal-frame squares); `None` clears them.
    pub fn show_move(&self, mv: Option<(Square, Square)>) {
        let _ = self.control.send(Control::ShowMove(mv));
    }

    /// Light any squares (Certabo/Sentio: the squares a player must fix); empty clears.
    pub fn show_squares(&self, squares: Vec<Square>) {
        let _ = self.control.send(Control::ShowSquares(squares));
    }

    /// Queue a clock command (DGT clocks; sent one at a time, each waiting for its ack).
    pub fn clock_command(&self, cmd: ClockCommand) {
        let _ = self.control.send(Control::Clock(cmd));
    }

    /// Asks the thread to stop; it does within one read timeout.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Stops and waits for the thread (blocking; call from `spawn_blocking` in async code).
    pub fn join(mut self) {
        self.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SessionHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Starts a session thread. Works without a tokio runtime; the receiver is used from async
/// code. The thread ends when stopped or when the receiver is dropped.
///
/// # Errors
/// Only when the OS cannot start a thread.
pub fn spawn_session(
    config: SessionConfig,
) -> std::io::Result<(SessionHandle, mpsc::Receiver<SensorEvent>)> {
    let (tx, rx) = mpsc::channel(config.channel_capacity.max(1));
    let (ctl_tx, ctl_rx) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let name = format!("bugbridge-{}-{}", config.driver.name(), config.board);
    let thread = std::thread::Builder::new()
        .name(name)
        .spawn(move || run::run(config, ctl_rx, tx, stop2))?;
    Ok((
        SessionHandle {
            control: ctl_tx,
            stop,
            thread: Some(thread),
        },
        rx,
    ))
}
