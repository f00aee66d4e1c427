//! bugbridge: over-the-board bughouse from two e-boards to live BPGN/BFEN.
//!
//! # Layout
//!
//! - [`rules`]: the bughouse rules core (pure: no I/O, no clocks read), notation (SAN, BFEN,
//!   BPGN).
//! - [`check`]: `bugbridge check`, BPGN files validated with the rules core.

pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub mod game;
pub mod infer;
pub mod publish;
pub mod record;
pub mod rules;
pub mod sensor;
pub mod simulate;
