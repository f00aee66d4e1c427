//! The `bugbridge` binary: parse the command line, run the subcommand, exit with its status.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = bugbridge::cli::Cli::parse();
    ExitCode::from(cli.run())
}
