//! The sensor trace: the sensor vocabulary of `sensor-trace.md` and its JSONL format.
//!
//! * [`BoardId`], [`Square`] (a1 = 0 … h8 = 63), [`SensorPiece`], [`Placement`], [`Side`]:
//!   small validated vocabulary types.
//! * [`TraceEvent`] / [`TraceLine`]: one event and its time `t` (ms since the trace began).
//! * [`TraceReader`]: reads and validates a trace, errors name the line number.
//! * [`TraceWriter`]: writes exactly the documented format (field order `t`, `board`, `ev`, …;
//!   clock seconds as integers when whole, else the shortest decimal).
//!
//! Drivers emit these events too (see [`crate::session`]): the vocabulary is the same whether
//! it comes from a file or from a board.

mod error;
mod event;
mod occupancy;
mod piece;
mod read;
mod square;
mod write;

pub use error::{TraceError, TraceErrorKind};
pub use event::{TraceEvent, TraceLine};
pub use occupancy::Occupancy;
pub use piece::{ParseFenError, ParsePieceError, Placement, START_FEN, SensorPiece};
pub use read::{TraceReader, parse_line, parse_trace};
pub use square::{BoardId, ParseBoardIdError, ParseSquareError, Side, Square};
pub use write::{TraceWriter, line_to_string};

#[cfg(test)]
mod tests;
