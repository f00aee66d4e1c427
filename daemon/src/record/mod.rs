//! Crash-safe recording.
//!
//! - [`journal`]: the match's sensor trace, appended *before* it is interpreted and synced
//!   to disk at each clock press, so `kill -9` at any moment loses no completed move: a
//!   restart re-infers the journal and carries on.
//! - [`atomic`]: files rewritten whole (the BPGN after each move) through a temporary file
//!   and a rename, so a reader never sees half a file.
//! - [`bpgn`]: the BPGN of the record, with the match's tags and result.
//! - [`store`]: where a match's files live and which game of the match is current.

pub mod atomic;
pub mod bpgn;
pub mod journal;
pub mod store;

pub use atomic::write_atomic;
pub use journal::{Journal, JournalError, Recovered};
pub use store::{GameFiles, Store};
