//! `bugbridge completions <shell>` and `bugbridge man`: shell completions and the manual
//! page, both generated from the command-line definition itself, so they always list the
//! flags that exist.
//!
//! ```sh
//! bugbridge completions bash > /etc/bash_completion.d/bugbridge
//! bugbridge completions zsh  > "${fpath[1]}/_bugbridge"
//! bugbridge man > /usr/local/share/man/man1/bugbridge.1
//! bugbridge man run > /usr/local/share/man/man1/bugbridge-run.1
//! ```

use std::io::Write;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub(super) fn run_completions(args: CompletionsArgs) -> u8 {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "bugbridge", &mut out);
    write_stdout(&out)
}

/// Arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The page of this subcommand (`bugbridge-run(1)`...) instead of `bugbridge(1)`.
    pub command: Option<String>,
}

/// The manual page of `bugbridge` (`None`) or of one of its subcommands, in roff.
///
/// # Errors
///
/// A message naming an unknown subcommand.
pub fn man_page(command: Option<&str>) -> Result<Vec<u8>, String> {
    let cli = Cli::command();
    let cmd = match command {
        None => cli,
        Some(name) => {
            let sub = cli
                .get_subcommands()
                .find(|s| s.get_name() == name)
                .ok_or_else(|| format!("no subcommand {name:?}"))?
                .clone();
            // clap names are `&'static str` without its `string` feature; this runs once
            // per process.
            let full: &'static str = Box::leak(format!("bugbridge-{name}").into_boxed_str());
            sub.name(full).bin_name(format!("bugbridge {name}"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

pub(super) fn run_man(args: ManArgs) -> u8 {
    match man_page(args.command.as_deref()) {
        Ok(page) => write_stdout(&page),
        Err(e) => {
            eprintln!("man: {e}");
            2
        }
    }
}

fn write_stdout(bytes: &[u8]) -> u8 {
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return 3;
    }
    0
}
