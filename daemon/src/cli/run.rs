//! `bugbridge run --config FILE`: the daemon for a real table.

use std::path::PathBuf;

use clap::Args;

use crate::app::{self, RunOptions};
use crate::config::Config;

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The configuration file (TOML; see `config/` for commented examples).
    #[arg(long)]
    pub config: PathBuf,
    /// Log as JSON lines (overrides the configuration's `[log] format`).
    #[arg(long)]
    pub json_logs: bool,
}

pub(super) fn run(args: RunArgs) -> u8 {
    let config = match Config::load(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let json = args.json_logs || config.log_format == crate::config::LogFormat::Json;
    super::init_logging(&config.log_level, json);
    super::runtime(async move {
        let options = RunOptions {
            config_file: Some(args.config.clone()),
            ..RunOptions::default()
        };
        match app::run(config, options, super::signals::terminated()).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                e.exit_status()
            }
        }
    })
}
