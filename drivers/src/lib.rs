//! E-board and clock drivers for bugbridge.
//!
//! Bytes in, sensor events out: this crate knows the serial protocols of the boards and
//! clocks and nothing about chess rules.
//!
//! # Layout
//!
//! To be filled as the protocols land.
