//! E-board and clock drivers for bugbridge.
//!
//! Bytes in, sensor events out: this crate knows the serial protocols of the boards and
//! clocks and nothing about chess rules. Its output vocabulary is the sensor trace of
//! `sensor-trace.md` ([`trace`]), the same whether it comes from a board, an emulator or a
//! file.
//!
//! # Layout
//!
//! * [`trace`]: vocabulary types ([`trace::BoardId`], [`trace::Square`],
//!   [`trace::SensorPiece`], [`trace::Placement`], [`trace::Side`]), [`trace::TraceEvent`] /
//!   [`trace::TraceLine`], [`trace::TraceReader`] (errors name the line),
//!   [`trace::TraceWriter`] (the exact documented format).
//! * [`dgt`], [`millennium`], [`certabo`] (Certabo and, with [`sentio`], TabuTronic boards):
//!   pure codecs, bytes ↔ messages, no I/O. Decoders resynchronise on garbage ([`resync`])
//!   and never panic or fail. [`certabo`] also holds the RFID tag calibration and the noise
//!   filter.
//! * [`serial`]: the only module that touches `serialport` (open, list, pty pairs).
//! * [`session`]: one blocking thread per device, handshake, reconnect, orientation, clock
//!   mapping; events into a bounded tokio channel.
//! * [`emulate`]: DGT (with clock), Millennium, Certabo and Sentio boards on pseudo-terminals
//!   playing a trace.
//! * [`listen`], [`ports`], [`emulate_file`], [`survey_start_position`]: what the CLI
//!   subcommands call.
//! * [`error`]: [`DecodeError`], [`SessionError`], [`DeviceFault`], [`DriverError`].
//!
//! # Running a board (the daemon's `run`)
//!
//! ```no_run
//! use bugbridge_drivers::session::{DriverKind, PortSpec, SessionConfig, spawn_session};
//! use bugbridge_drivers::trace::BoardId;
//! # async fn f() -> std::io::Result<()> {
//! let mut cfg = SessionConfig::new(DriverKind::Dgt, PortSpec::Path("/dev/ttyUSB0".into()), BoardId::A);
//! cfg.white_side = Some(bugbridge_drivers::dgt::ClockSide::Left); // config `white_side` (None: auto)
//! let (handle, mut events) = spawn_session(cfg)?;
//! while let Some(ev) = events.recv().await {
//!     // ev.at: Instant the bytes were read; ev.event: TraceEvent stamped with board A.
//!     // Turn ev.at into trace ms against the match's origin and journal it.
//! }
//! handle.show_move(None); // LEDs, where the board has them
//! # Ok(()) }
//! ```
//!
//! Time and ordering: a session emits events in the order the device reported them, each
//! with the [`std::time::Instant`] its bytes were read; the **session stamps the configured
//! board id**, the consumer stamps trace time. After every `link` up the next event is a
//! `board` snapshot. See [`session`] for the clock rules.
//!
//! # CLI wiring (daemon/src/cli)
//!
//! * `bugbridge listen --driver dgt|millennium|certabo|sentio --port PATH [--white-side auto|left|right]
//!   [--parity auto|odd|none] [--raw FILE]`: build `SessionConfig::new(kind,
//!   PortSpec::Path(path), BoardId::A)`, set `white_side`, `millennium.parity` and `raw`
//!   ([`session::RawLog`]), then `listen(cfg, &mut std::io::stdout(), async { let _ = tokio::signal::ctrl_c().await; }).await`.
//!   [`session::DriverKind::from_name`] parses the driver name.
//! * `bugbridge ports [--probe]`: `for p in ports(None) { println!("{p}") }` (one line per
//!   port: path, kind, USB vid:pid and strings, board guess); `ports(Some(Duration::from_millis(500)))`
//!   also asks each port for a DGT or Millennium version.
//! * `bugbridge emulate --driver dgt|millennium --trace FILE [--board A|B] [--speed X] [--link PATH]`:
//!   `emulate_file(EmulateOptions { .. }, &mut stdout, ctrl_c).await` prints the device path
//!   (first line of stdout) and runs until interrupted. [`DriverError::Trace`] means a bad
//!   trace (exit 1), [`DriverError::Config`] a bad option (exit 2).
//! * `bugbridge demo`: per board, `emulate::Emulator::start(EmulatorConfig { pace:
//!   Pace::Timed { speed }, board, .. }, &trace_lines)` then `spawn_session` on
//!   `handle.path()`; keep the [`emulate::EmulatorHandle`] alive for the demo's lifetime.

pub mod certabo;
pub mod dgt;
pub mod emulate;
pub mod error;
pub mod millennium;
pub mod resync;
pub mod sentio;
pub mod serial;
pub mod session;
pub mod trace;

mod cli;

pub use cli::{
    EmulateOptions, PORTS_HEADER, PortReport, SurveyLimits, emulate_file, known_usb_board, listen,
    ports, probe, probe_certabo, read_trace_file, stable_names, survey_start_position, try_probe,
};
pub use error::{DecodeError, DeviceFault, DriverError, SessionError};
