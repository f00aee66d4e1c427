//! The match as the daemon runs it: the inference plus what the published state and the
//! record need around it (tags, the latest clock readings, the device links, the end).
//!
//! Pure like the inference: time comes in with every call (trace time for the record, wall
//! time only for the clock timestamp that viewers tick from).

mod runner;

pub use runner::{End, LIVE_TICK_MS, Match};
