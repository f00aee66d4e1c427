//! The command line: one binary, `bugbridge`, with the subcommands of `interfaces.md`.
//!
//! Parsing is clap's; each subcommand has its own file with a `run` function that returns
//! the process exit status (0 success, 1 the input was read but is wrong, 2 usage or
//! configuration error, 3 and above runtime failures).

mod check;

use clap::{Parser, Subcommand};

/// Over-the-board bughouse: two e-boards and their clocks to live BPGN/BFEN, MQTT and a live
/// viewer.
#[derive(Debug, Parser)]
#[command(name = "bugbridge", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate BPGN files with the rules core.
    Check(check::CheckArgs),
}

impl Cli {
    /// Runs the chosen subcommand; returns the exit status.
    pub fn run(self) -> u8 {
        match self.command {
            Command::Check(args) => check::run(args),
        }
    }
}
