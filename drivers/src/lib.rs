//! E-board and clock drivers for bugbridge.
//!
//! Bytes in, sensor events out: this crate knows the serial protocols of the boards and
//! clocks and nothing about chess rules.
//!
//! # Layout
//!
//! * [`trace`]: the sensor vocabulary and the JSONL sensor-trace format.

mod cli;
pub mod dgt;
pub mod emulate;
pub mod error;
pub mod millennium;
pub mod resync;
pub mod serial;
pub mod session;
pub mod trace;

pub use cli::{
    EmulateOptions, PortReport, emulate_file, known_usb_board, listen, ports, probe,
    read_trace_file,
};
pub use error::{DecodeError, DeviceFault, DriverError, SessionError};
