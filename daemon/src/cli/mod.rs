//! The command line: one binary, `bugbridge`, with the subcommands of the README.
//!
//! Parsing is clap's; each subcommand has its own file with a `run` function that returns
//! the process exit status (0 success, 1 the input was read but is wrong, 2 usage or
//! configuration error, 3 and above runtime failures).

pub mod calibrate;
pub mod check;
pub mod demo;
pub mod docs;
pub mod export;
pub mod hardware;
pub mod logging;
pub mod relay;
pub mod replay;
pub mod run;
mod showcase;
mod signals;
pub mod simulate;

use std::future::Future;

use clap::{Parser, Subcommand};

use logging::init_logging;

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
    /// The daemon: boards and clocks → inference → recording → MQTT + HTTP.
    Run(run::RunArgs),
    /// No hardware needed: two emulated boards replay a real game through the whole daemon.
    Demo(demo::DemoArgs),
    /// Validate BPGN files with the rules core.
    Check(check::CheckArgs),
    /// A BPGN file rewritten for a reader that departs from the standard (bughouse.pro,
    /// pychess), on stdout; what was changed on stderr.
    Export(export::ExportArgs),
    /// Re-infer a sensor trace into BPGN, printed on stdout.
    Replay(replay::ReplayArgs),
    /// The sensor trace that real boards would produce for a BPGN game, on stdout.
    Simulate(simulate::SimulateArgs),
    /// Serial ports present, with the board type recognised where it can tell.
    Ports(hardware::PortsArgs),
    /// Read one board and print what it reports as sensor-trace lines (as board A).
    Listen(hardware::ListenArgs),
    /// Learn the piece sets of the table's Certabo boards from their start positions and
    /// save them where `run` reads them.
    Calibrate(calibrate::CalibrateArgs),
    /// An emulated board on a pseudo-terminal playing a trace; prints the device path.
    Emulate(hardware::EmulateArgs),
    /// Shell completions for bash, zsh, fish, elvish or powershell, on stdout.
    Completions(docs::CompletionsArgs),
    /// The manual page (roff) of bugbridge or of one subcommand, on stdout.
    Man(docs::ManArgs),
    /// A tournament's web tier: every match under the broker's prefix, one page for all.
    Relay(relay::RelayArgs),
}

impl Cli {
    /// Runs the chosen subcommand; returns the exit status.
    pub fn run(self) -> u8 {
        // `?for=` on the BPGN routes of the HTTP server.
        bugbridge_broadcast::http::set_bpgn_exporter(export::export_text);
        match self.command {
            Command::Run(args) => run::run(args),
            Command::Demo(args) => demo::run(args),
            Command::Check(args) => check::run(args),
            Command::Export(args) => export::run(args),
            Command::Replay(args) => replay::run(args),
            Command::Simulate(args) => simulate::run(args),
            Command::Ports(args) => hardware::run_ports(args),
            Command::Listen(args) => hardware::run_listen(args),
            Command::Calibrate(args) => calibrate::run(args),
            Command::Emulate(args) => hardware::run_emulate(args),
            Command::Completions(args) => docs::run_completions(args),
            Command::Man(args) => docs::run_man(args),
            Command::Relay(args) => relay::run(args),
        }
    }
}

/// Runs `fut` on a multi-threaded tokio runtime (exit status 3 if none can be built).
fn runtime(fut: impl Future<Output = u8>) -> u8 {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(fut),
        Err(e) => {
            eprintln!("cannot start the async runtime: {e}");
            3
        }
    }
}
