//! Error types: decoding, sessions, and faults the devices report themselves.

use std::io;

/// Why a decoder dropped bytes while resynchronising. Decoders never fail on input: they
/// drop the offending byte, count it, keep the last reason, and go on (see [`crate::resync`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A byte that cannot start a message (DGT: bit 7 clear; Millennium: not a reply letter).
    #[error("byte {0:#04x} cannot start a message")]
    NotAMessageStart(u8),
    /// A message id this decoder does not know.
    #[error("unknown message id {0:#04x}")]
    UnknownId(u8),
    /// A length that does not fit the message id.
    #[error("message {id:#04x} with impossible length {len}")]
    BadLength {
        /// The message id.
        id: u8,
        /// The announced total length.
        len: usize,
    },
    /// A new message started before this one was complete.
    #[error("message {0:#04x} cut short by the start of another")]
    Truncated(u8),
    /// The frame is well formed but its content is not (e.g. square index 70).
    #[error("bad content in message {id:#04x}: {what}")]
    BadContent {
        /// The message id.
        id: u8,
        /// What is wrong.
        what: &'static str,
    },
    /// A byte with even parity on a 7O1 link.
    #[error("parity error on byte {0:#04x}")]
    Parity(u8),
    /// The block check did not match.
    #[error("block check mismatch: computed {computed:#04x}, received {received:?}")]
    Checksum {
        /// What the payload XORs to.
        computed: u8,
        /// The two characters received.
        received: [u8; 2],
    },
}

/// A session-level failure: the link is considered down and the session reconnects.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A decoder failure that could not be resynchronised (reserved; decoders resync).
    #[error("decode: {0}")]
    Decode(#[from] DecodeError),
    /// The serial port failed: unplugged, broken pipe, end of file, open failure.
    #[error("transport: {0}")]
    Transport(#[from] io::Error),
    /// The device did not answer in time.
    #[error("timeout: {0}")]
    Timeout(&'static str),
}

/// Something the device itself reported as wrong; the link is fine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceFault {
    /// The DGT clock answered a command with an error ack (ack0 `0x40` or `0x20`).
    #[error("clock rejected command {command:#04x} (ack {code:#04x})")]
    ClockNak {
        /// The command id echoed in the ack.
        command: u8,
        /// ack0.
        code: u8,
    },
    /// The board reports "no clock connected" in its clock messages.
    #[error("no clock connected to the board")]
    NoClock,
}

/// An error of the `listen` / `emulate` entry points.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// I/O on the output or on a file.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A trace file could not be read.
    #[error("{path}: {source}")]
    Trace {
        /// The file.
        path: String,
        /// The error, with its line number.
        source: crate::trace::TraceError,
    },
    /// A bad option.
    #[error("{0}")]
    Config(String),
}
