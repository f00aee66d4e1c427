//! `bugbridge check [--ruleset R] [--koedem-promotion grab|announce] [--positions] FILE...`

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::config::KoedemPromotion;
use crate::rules::RulesetName;

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The ruleset: fide, tournament, uscf2006, wbn or koedem (default: koedem for games
    /// tagged `[Variant "Bughouse Koedem"]`, fide for the others).
    #[arg(long, value_parser = parse_ruleset)]
    pub ruleset: Option<RulesetName>,
    /// How Koedem games promote: grab or announce (default: the game's `[Promotion]` tag,
    /// else grab).
    #[arg(long, value_name = "grab|announce", value_parser = parse_koedem_promotion)]
    pub koedem_promotion: Option<KoedemPromotion>,
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

/// Parses a Koedem promotion rule for clap.
pub(crate) fn parse_koedem_promotion(s: &str) -> Result<KoedemPromotion, String> {
    match crate::rules::notation::variant::promotion_by_grab_of(s) {
        Some(true) => Ok(KoedemPromotion::Grab),
        Some(false) => Ok(KoedemPromotion::Announce),
        None => Err(format!("unknown promotion {s:?}: grab or announce")),
    }
}

pub(super) fn run(args: CheckArgs) -> u8 {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = stderr.lock();
    let status = crate::check::run_with_promotion(
        &args.files,
        args.ruleset,
        args.koedem_promotion.map(|p| p == KoedemPromotion::Grab),
        args.positions,
        &mut out,
        &mut err,
    );
    if out.flush().is_err() {
        return 3;
    }
    status
}
