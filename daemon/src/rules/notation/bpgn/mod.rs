//! BPGN: bughouse games as PGN-like text (the BPGN standard, and document 003 of
//! `docs/rules.md`); the conventions bugbridge follows are in `docs/bpgn.md`.
//!
//! # What the reader accepts
//!
//! Everything seen in the real exports of `tests/data/bpgn/SOURCES.md`, and the standard's own
//! additions:
//!
//! - CRLF or LF line ends, a missing final newline, trailing spaces, a byte-order mark;
//! - tags several per line (`[WhiteA "x"][WhiteAElo "1"]`), all kept in their order, with
//!   `\"` and `\\` escapes in values;
//! - movetext wrapped or on one line; move tokens `12A.`, `12a.`, `3B.`, `3b.`, also stuck
//!   to the previous comment (`{117.807}3B.`) or to their move (`12A.e4`);
//! - clock comments `{298}`, `{119.521}`, `{119.9}` (the first all-number comment right
//!   after a move), with or without a space before;
//! - other comments (`{C:..}`, `{C: ..}`, `{R:..}`, `{A:..}`, `{D:}`, kibitzes), `(...)`
//!   variations (nested, kept as text and never part of the main line), `(=)` draw offers and
//!   `$n` NAGs, all kept in order after the move they follow;
//! - the end comment and the result (`{BugBug checkmated} 1-0`, `*`);
//! - `[Setup "1"]`/`[SetUp "1"]` with `[FEN "A | B"]` starting positions;
//! - games without moves and several games per text.
//!
//! Whitespace inside comments is collapsed to single spaces (so a writer may wrap them).
//! Nothing panics on any input: malformed text gives a [`ParseBpgnError`] naming the line,
//! the column and what was expected.
//!
//! # Results
//!
//! The BPGN standard states `[Result]` for WhiteA's team, and so do bughouse.pro, pychess,
//! the chess.com viewer and bugbridge (whose files say so with a `[Recorder "bugbridge …"]`
//! tag, [`RECORDER_TAG`]). Real FICS exports write instead the result of the *board where
//! the game ended*, from that board's White (`foo.bpgn`: `{YScorpion checkmated} 0-1` with
//! YScorpion White on B, a win of WhiteA's team). [`BpgnGame::result`] keeps what was
//! written; [`BpgnGame::team_result`] gives the result of the match (`1-0`: WhiteA's team
//! won) by the rule [`BpgnGame::result_rule`] names: an end comment naming the winner
//! (`X won by checkmate`) or the loser (`X checkmated`) decides; otherwise the board-local
//! rule applies only to files with FICS markers ([`BpgnGame::is_fics_export`]), the
//! standard's team result to all others. A decisive `[Result]` wins over a `*` terminator.
//!
//! # Layout
//!
//! - `lexer`: text to tokens with line and column;
//! - `parser`: tokens to [`BpgnGame`]s ([`parse_bpgn`]);
//! - `result`: which board ended, the team result;
//! - `export`: files for readers that depart from the standard (bughouse.pro, pychess);
//! - `writer`: the canonical text ([`write_bpgn`]);
//! - `replay`: a game played through [`BughouseGame`](crate::rules::BughouseGame)
//!   ([`replay`](replay::replay)).

use std::fmt;

use crate::rules::{BoardId, ByBoard, Color, MatchResult, Ruleset};

use super::San;
use super::bfen::{BoardFen, ParseBfenError, parse_bfen};

pub mod export;
mod lexer;
mod parser;
pub mod replay;
mod result;
mod writer;

pub use parser::{BpgnReader, parse_bpgn};
pub use replay::{Replay, ReplayError, ReplayStop, ReplayedMove, SkippedMove, replay};
pub use result::{RECORDER, RECORDER_TAG, ResultRule, recorder_value};
pub use writer::{canonical_tags, write_bpgn, write_bpgn_games};

/// The most characters a game may have (tags, movetext, comments): a few hundred times
/// the longest real games (a few KB), so that a damaged or hostile file cannot make a
/// reader hold gigabytes.
pub const MAX_GAME_CHARS: u64 = 4 << 20;

/// The most moves a game may have (real games have a few hundred).
pub const MAX_GAME_MOVES: usize = 10_000;

/// A move token: `12A.` (White on A), `12a.` (Black on A), `3B.`, `3b.`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveToken {
    /// The move number on its board.
    pub number: u32,
    /// The board.
    pub board: BoardId,
    /// Who moves: upper-case letter White, lower-case Black.
    pub color: Color,
}

impl fmt::Display for MoveToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = match self.color {
            Color::White => self.board.char(),
            Color::Black => self.board.char().to_ascii_lowercase(),
        };
        write!(f, "{}{letter}.", self.number)
    }
}

/// Something written after a move (or before the first one), kept in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Annotation {
    /// `{...}`: the text inside the braces, whitespace collapsed (`C: kibitz`, `A:!`).
    Comment(String),
    /// `( ... )`: a variation, kept as its canonical text without the outer parentheses.
    Variation(String),
    /// `(=)`: a draw offer.
    DrawOffer,
    /// `$n`: a numeric annotation glyph.
    Nag(u16),
}

/// One move of the main line.
#[derive(Debug, Clone, PartialEq)]
pub struct BpgnMove {
    /// `12A.` and so on.
    pub token: MoveToken,
    /// The SAN as written (`P@e4`, `Nhxf6+`).
    pub san_text: String,
    /// The SAN read (syntax only; [`replay`](replay::replay) resolves it).
    pub san: San,
    /// The mover's remaining seconds from the clock comment, as written (`{119.521}`).
    pub clock: Option<f64>,
    /// Comments, variations, draw offers after the move.
    pub annotations: Vec<Annotation>,
}

/// One BPGN game.
#[derive(Debug, Clone, PartialEq)]
pub struct BpgnGame {
    /// All tags, in the order written.
    pub tags: Vec<(String, String)>,
    /// The starting BFEN when `[Setup "1"]`/`[SetUp "1"]` (or a lone `[FEN]`) is given.
    pub setup: Option<String>,
    /// Comments before the first move (`{C:This is game number 534 ...}`).
    pub preamble: Vec<Annotation>,
    /// The main line, in file order (both boards interleaved).
    pub moves: Vec<BpgnMove>,
    /// The comment just before the result (`YScorpion checkmated`).
    pub end_comment: Option<String>,
    /// The result as written after the moves (board-local in FICS exports; see
    /// [`BpgnGame::team_result`]); `None` when the text stops without one.
    pub result: Option<MatchResult>,
}

/// BPGN text that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseBpgnError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was expected there.
    pub expected: String,
    /// What was found instead.
    pub found: String,
}

impl fmt::Display for ParseBpgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: expected {}, found {}",
            self.line, self.column, self.expected, self.found
        )
    }
}

impl std::error::Error for ParseBpgnError {}

impl BpgnGame {
    /// The value of the first tag named `name` (exact case).
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The starting seconds of the `TimeControl` tag (`120` of `"120+0"`), if readable.
    #[must_use]
    pub fn base_time(&self) -> Option<f64> {
        let tc = self.tag("TimeControl")?;
        let base = tc.split('+').next()?.trim();
        base.parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t >= 0.0)
    }

    /// The positions (and clock fields) the game starts from: the `Setup` BFEN, or both
    /// boards in the start position without times.
    ///
    /// # Errors
    ///
    /// [`ParseBfenError`] when the `FEN` tag is not a BFEN.
    pub fn start_positions(&self, rules: Ruleset) -> Result<ByBoard<BoardFen>, ParseBfenError> {
        match &self.setup {
            Some(fen) => parse_bfen(fen, rules),
            None => Ok(ByBoard::new_with(|_| BoardFen {
                position: crate::rules::Position::new(rules),
                times: None,
            })),
        }
    }
}

#[cfg(test)]
mod tests;
