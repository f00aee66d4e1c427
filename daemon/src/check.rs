//! `bugbridge check`: validate BPGN files with the rules core.
//!
//! Output (as the README describes it), on `out`:
//!
//! - without `--positions`, one line per game, games numbered from 1 in file order:
//!   `ok <file> #<n>: <plies> plies, <result>` or
//!   `illegal <file> #<n>: <move token> <san>: <reason>`. `<plies>` counts the moves
//!   played; the one export artifact that is skipped (a 2010 FICS export's final move
//!   repeated at a time forfeit) is not counted, and the line then ends in
//!   ` (repeated final move skipped)`; any other repeated move is `illegal` with
//!   `repeated-move`. `<result>` is the *team* result (`1-0`: WhiteA's team won): as written
//!   in bugbridge's own files (`[Recorder "bugbridge …"]`), worked out from the board where
//!   the game ended for other files (FICS exports write the result of that board);
//! - with `--positions`, one line per move played:
//!   `<file> #<n>\t<move token>\t<san as written>\t<BFEN after the move>`; an illegal game
//!   stops after its illegal move, and its `illegal ...` line goes to `err` instead; a
//!   skipped repeated final move has no line.
//!
//! `<file>` is the path as given. Unreadable text gives `<file>:<line>:<column>: expected
//! ..., found ...` on `err`, after the lines of the games before it.
//!
//! Files are read as a stream, one game at a time, each game's line written as soon as it
//! is checked: memory stays bounded whatever the size of the file (a whole database export
//! on a Raspberry Pi), and a game too long to be real (`MAX_GAME_CHARS`, `MAX_GAME_MOVES`)
//! is refused with an error naming where it starts.
//!
//! The ruleset is the one given; without one, each game's `[Variant "Bughouse Koedem"]`
//! tag picks Koedem, and any other game is checked under `fide`. A Koedem game promotes by
//! grab unless `--koedem-promotion announce` is given or the game is tagged
//! `[Promotion "announce"]` (an unknown `Promotion` value makes the game fail, named).
//!
//! Exit status: 0 every game legal; 1 a game is illegal, a file cannot be read as BPGN or
//! holds no game; 2 a file cannot be opened (missing, unreadable: a usage error). Every file
//! is checked either way, and the highest status wins.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use crate::rules::notation::bpgn::{BpgnGame, BpgnReader, ResultRule, replay::replay};
use crate::rules::notation::variant::{
    PROMOTION_TAG, VARIANT_TAG, promotion_by_grab_of, rules_with_promotion, ruleset_of_variant,
};
use crate::rules::{BoardId, MatchResult, RulesetName};

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
    run_with_promotion(paths, ruleset, None, positions, out, err)
}

/// As [`run_with`], with Koedem's promotion rule given (`Some(true)` grab, `Some(false)`
/// announce) or, for `None`, read from each game's `Promotion` tag (default grab).
pub fn run_with_promotion(
    paths: &[PathBuf],
    ruleset: Option<RulesetName>,
    promotion_by_grab: Option<bool>,
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let mut status = 0u8;
    for path in paths {
        let file = path.display().to_string();
        let opened = std::fs::File::open(path).and_then(|f| {
            if f.metadata()?.is_dir() {
                return Err(std::io::Error::other("is a directory"));
            }
            Ok(f)
        });
        let input = match opened {
            Ok(f) => BufReader::new(f),
            Err(e) => {
                let _ = writeln!(err, "{file}: cannot read: {e}");
                status = status.max(2);
                continue;
            }
        };
        status = status.max(check_stream(
            &file,
            input,
            (ruleset, promotion_by_grab),
            positions,
            out,
            err,
        ));
    }
    status
}

/// Checks one file's games as they are read, one at a time, the report of each written
/// (and flushed) before the next is read; returns its status (0 or 1).
fn check_stream(
    file: &str,
    input: impl BufRead,
    (ruleset, promotion_by_grab): (Option<RulesetName>, Option<bool>),
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let mut status = 0;
    let mut n = 0;
    for game in BpgnReader::new(input) {
        let game = match game {
            Ok(g) => g,
            Err(e) => {
                let _ = out.flush();
                let _ = writeln!(
                    err,
                    "{file}:{}:{}: expected {}, found {}",
                    e.line, e.column, e.expected, e.found
                );
                return 1;
            }
        };
        n += 1;
        let ruleset = ruleset
            .or_else(|| game.tag(VARIANT_TAG).and_then(ruleset_of_variant))
            .unwrap_or_default();
        let tagged = match game.tag(PROMOTION_TAG) {
            Some(value) if ruleset == RulesetName::Koedem && promotion_by_grab.is_none() => {
                let Some(grab) = promotion_by_grab_of(value) else {
                    let _ = writeln!(
                        err,
                        "{file} #{n}: unknown [{PROMOTION_TAG} {value:?}]: grab (Steal) or announce (Upgrade); --koedem-promotion overrides it"
                    );
                    status = 1;
                    continue;
                };
                Some(grab)
            }
            _ => None,
        };
        let rules = rules_with_promotion(ruleset, promotion_by_grab.or(tagged));
        status = status.max(check_game(file, n, &game, rules, positions, out, err));
        let _ = out.flush();
    }
    if n == 0 {
        let _ = writeln!(err, "{file}:1:1: expected a BPGN game, found none");
        return 1;
    }
    status
}

fn check_game(
    file: &str,
    n: usize,
    game: &BpgnGame,
    rules: crate::rules::Ruleset,
    positions: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let replayed = match replay(game, rules) {
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
                let skipped = if replayed.skipped.is_empty() {
                    ""
                } else {
                    " (repeated final move skipped)"
                };
                let _ = writeln!(
                    out,
                    "ok {file} #{n}: {} plies, {}{skipped}",
                    replayed.moves.len(),
                    game.team_result()
                );
                if let Some(note) = result_note(game) {
                    let _ = writeln!(err, "note {file} #{n}: {note}");
                }
            }
            0
        }
    }
}

/// When the written result and the moves could be read two ways (the `[Result]` tag and the
/// terminator differ, or a decisive game's last move is on board B with no player named in
/// the end comment, where a FICS export states board B's result), which rule gave it.
fn result_note(game: &BpgnGame) -> Option<String> {
    let rule = game.result_rule();
    let tag = game.tag("Result").and_then(MatchResult::from_str_opt);
    let two_results = game.result.is_some() && tag.is_some() && game.result != tag;
    let ended_on_b = matches!(game.raw_result(), MatchResult::Won(_))
        && game
            .moves
            .last()
            .is_some_and(|m| m.token.board == BoardId::B)
        && matches!(rule, ResultRule::Standard | ResultRule::FicsBoard(_));
    ((two_results || ended_on_b) && rule != ResultRule::AsWritten).then(|| {
        format!(
            "result {} read by rule: {rule} (written: [Result {:?}], terminator {})",
            game.team_result(),
            game.tag("Result").unwrap_or("none"),
            game.result.map_or("none", MatchResult::as_str),
        )
    })
}
