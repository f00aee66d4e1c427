//! `bugbridge-e2e`: the `bugbridge` binary's `main`, built inside the end-to-end test crate
//! so that its tests and benchmarks can run the daemon (and the demo) as a process of its
//! own through `env!("CARGO_BIN_EXE_bugbridge-e2e")` (Cargo gives that path only to targets
//! of the package that builds the binary). Same library, same command line.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    ExitCode::from(bugbridge::cli::Cli::parse().run())
}
