//! Sessions and emulators over real pseudo-terminals: one test binary.
//!
//! Nothing here sleeps to synchronise: tests wait for the driver's events or the emulator's
//! status, with timeouts only as upper bounds.

mod certabo;
mod common;
mod dgt;
mod hardware_like;
mod listen;
mod millennium;
mod tools;
