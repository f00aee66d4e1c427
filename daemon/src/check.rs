//! `bugbridge check`: validate BPGN files with the rules core.
//!
//! Output (`interfaces.md`), on `out`:
//!
//! - without `--positions`, one line per game, games numbered from 1 in file order:
//!   `ok <file> #<n>: <plies> plies, <result>` or
//!   `illegal <file> #<n>: <move token> <san>: <reason>`. `<plies>` counts the moves
//!   played (an export's repeated final move is skipped, not counted); `<result>` is the
//!   *team* result (`1-0`: WhiteA's team won), worked out from the board where the game
//!   ended (FICS exports write the result of that board);
//! - with `--positions`, one line per move played:
//!   `<file> #<n>\t<move token>\t<san as written>\t<BFEN after the move>`; an illegal game
//!   stops after its illegal move, and its `illegal ...` line goes to `err` instead; a
//!   skipped repeated final move has no line.
//!
//! `<file>` is the path as given. Unreadable text gives `<file>:<line>:<column>: expected
//! ..., found ...` on `err`.
//!
//! The ruleset is the one given; without one, each game's `[Variant "Bughouse Koedem"]`
//! tag picks koedem, and a game without such a tag is checked under fide.
//!
//! Exit status: 0 every game legal; 1 a game is illegal, a file cannot be read as BPGN or
//! holds no game; 2 a file cannot be opened (missing, unreadable: a usage error). Every file
//! is checked either way, and the highest status wins.

use std::io::Write;
use std::path::PathBuf;

use crate::rules::RulesetName;
use crate::rules::notation::bpgn::{BpgnGame, parse_bpgn, replay::replay};
use crate::rules::notation::variant::{VARIANT_TAG, ruleset_of_variant};

/// Checks the BPGN files at `paths` under `ruleset` and writes the report (see the module
/// docs); returns the exit status.
pub fn run(
    paths: &[PathBuf],
    ruleset: RulesetName,
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    run_with(paths, Some(ruleset), positions, out, err)
}

/// As [`run`]; without a ruleset, each game's `Variant` tag picks it (default fide).
pub fn run_with(
    paths: &[PathBuf],
    ruleset: Option<RulesetName>,
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let mut status = 0u8;
    for path in paths {
        let file = path.display().to_string();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                let _ = writeln!(err, "{file}: cannot read: {e}");
                status = status.max(2);
                continue;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        status = status.max(check_text(&file, &text, ruleset, positions, out, err));
    }
    status
}

/// Checks one file's text; returns its status (0 or 1).
fn check_text(
    file: &str,
    text: &str,
    ruleset: Option<RulesetName>,
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let games = match parse_bpgn(text) {
        Ok(g) => g,
        Err(e) => {
            let _ = writeln!(
                err,
                "{file}:{}:{}: expected {}, found {}",
                e.line, e.column, e.expected, e.found
            );
            return 1;
        }
    };
    if games.is_empty() {
        let _ = writeln!(err, "{file}:1:1: expected a BPGN game, found none");
        return 1;
    }
    let mut status = 0;
    for (i, game) in games.iter().enumerate() {
        let ruleset = ruleset
            .or_else(|| game.tag(VARIANT_TAG).and_then(ruleset_of_variant))
            .unwrap_or_default();
        status = status.max(check_game(file, i + 1, game, ruleset, positions, out, err));
    }
    status
}

fn check_game(
    file: &str,
    n: usize,
    game: &BpgnGame,
    ruleset: RulesetName,
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let replayed = match replay(game, ruleset.ruleset()) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "{file} #{n}: {e}");
            return 1;
        }
    };
    if positions {
        for m in &replayed.moves {
            let _ = writeln!(out, "{file} #{n}\t{}\t{}\t{}", m.token, m.san_text, m.bfen);
        }
    }
    match &replayed.stop {
        Some(stop) => {
            let line = format!("illegal {file} #{n}: {stop}");
            let _ = if positions {
                writeln!(err, "{line}")
            } else {
                writeln!(out, "{line}")
            };
            1
        }
        None => {
            if !positions {
                let _ = writeln!(
                    out,
                    "ok {file} #{n}: {} plies, {}",
                    replayed.moves.len(),
                    game.team_result()
                );
            }
            0
        }
    }
}
