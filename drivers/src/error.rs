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
    /// Certabo/Sentio: a byte that is neither `:`, a digit, whitespace, a line end nor an
    /// `L`/`D` acknowledgement, inside a reading.
    #[error("unexpected byte {byte:#04x} ({}) after {numbers} numbers of a reading", printable(*byte))]
    UnexpectedByte {
        /// The byte.
        byte: u8,
        /// How many numbers of the reading had arrived.
        numbers: usize,
    },
    /// Certabo/Sentio: a byte between readings that cannot start one.
    #[error("byte {b:#04x} ({p}) before a reading's ':'", b = .0, p = printable(*.0))]
    NotAFrameStart(u8),
    /// Certabo/Sentio: a reading ended with a count that is neither 320 (Certabo) nor 8
    /// (Sentio), or not the count this board sends.
    #[error("reading of {0} numbers: a Certabo reading has 320, a Sentio reading 8")]
    WrongCount(usize),
    /// Certabo/Sentio: more numbers than any reading has.
    #[error("reading of more than 320 numbers ({0})")]
    TooManyNumbers(usize),
    /// Certabo/Sentio: a number that is not a byte.
    #[error("number {value} at position {index} of a reading is above 255")]
    NotAByte {
        /// 0-based position in the reading.
        index: usize,
        /// The value read so far.
        value: u16,
    },
    /// The block check did not match.
    #[error("block check mismatch: computed {computed:#04x}, received {received:?}")]
    Checksum {
        /// What the payload XORs to.
        computed: u8,
        /// The two characters received.
        received: [u8; 2],
    },
}

/// `'x'` for a printable ASCII byte, `"not printable"` otherwise (for error messages).
fn printable(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        "not printable".to_string()
    }
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
