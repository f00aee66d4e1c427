//! `bugbridge check [--ruleset R] [--positions] FILE...`

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::rules::RulesetName;

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The ruleset: fide, tournament, uscf2006, wbn or koedem (default: koedem for games
    /// tagged `[Variant "Bughouse Koedem"]`, fide for the others).
    #[arg(long, value_parser = parse_ruleset)]
    pub ruleset: Option<RulesetName>,
    /// Print every move with the BFEN after it instead of one line per game.
    #[arg(long)]
    pub positions: bool,
    /// BPGN files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Parses a ruleset name for clap (the error lists the valid names).
pub(crate) fn parse_ruleset(s: &str) -> Result<RulesetName, String> {
    s.parse()
        .map_err(|e: crate::rules::UnknownRuleset| e.to_string())
}

pub(super) fn run(args: CheckArgs) -> u8 {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = stderr.lock();
    let status = crate::check::run_with(
        &args.files,
        args.ruleset,
        args.positions,
        &mut out,
        &mut err,
    );
    if out.flush().is_err() {
        return 3;
    }
    status
}
