//! Tokens to games, one game at a time.
//!
//! A game is its tags, then its movetext, then a result; a tag after movetext, or any
//! token after a result, starts the next game. A move is a token (`12A.`) followed by a SAN;
//! the first all-number comment right after it is its clock.

use crate::rules::MatchResult;
use crate::rules::notation::bfen::{parse_bfen, parse_board_fen, write_board_fen};
use crate::rules::{Ruleset, notation::San};

use std::io::BufRead;

use super::lexer::{Lexer, Token, TokenKind};
use super::{Annotation, BpgnGame, BpgnMove, MAX_GAME_MOVES, ParseBpgnError};

/// Reads every game of a BPGN text (none for an empty text).
///
/// # Errors
///
/// [`ParseBpgnError`] naming the line, column and what was expected: an unterminated
/// comment, tag or variation, a SAN that is not SAN, a SAN without its move token, a `FEN`
/// tag that is not a BFEN, a game too long to be real (see [`BpgnReader`]).
pub fn parse_bpgn(text: &str) -> Result<Vec<BpgnGame>, ParseBpgnError> {
    BpgnReader::new(text.as_bytes()).collect()
}

/// The games of a BPGN stream, read one at a time: only the game being read is held, so
/// a database export of any size reads in bounded memory. A game longer than
/// [`MAX_GAME_CHARS`](super::MAX_GAME_CHARS) characters or [`MAX_GAME_MOVES`] moves is refused with an error (no
/// real game comes near either). The first error ends the iteration.
#[derive(Debug)]
pub struct BpgnReader<R> {
    lexer: Lexer<R>,
    /// A token read ahead: the tag that starts the next game.
    peeked: Option<Token>,
    done: bool,
}

impl<R: BufRead> BpgnReader<R> {
    /// A reader of the games in `input` (wrap files in a `BufReader`).
    pub fn new(input: R) -> Self {
        BpgnReader {
            lexer: Lexer::new(input),
            peeked: None,
            done: false,
        }
    }

    fn next_token(&mut self) -> Result<Option<Token>, ParseBpgnError> {
        match self.peeked.take() {
            Some(t) => Ok(Some(t)),
            None => self.lexer.next_token(),
        }
    }

    /// Reads the next game; `None` at the end of the input.
    fn read_game(&mut self) -> Result<Option<BpgnGame>, ParseBpgnError> {
        let mut game = empty_game();
        let mut started = false; // the game has tags or movetext
        let mut in_movetext = false;
        let mut first = true;
        if self.peeked.is_none() {
            self.lexer.start_game();
        }
        loop {
            let Some(tok) = self.next_token()? else {
                return Ok(started.then(|| finish(game, None)));
            };
            if first {
                self.lexer.set_game_place(tok.line, tok.column);
                first = false;
            }
            match &tok.kind {
                TokenKind::Tag { name, value } => {
                    if in_movetext {
                        self.peeked = Some(tok);
                        self.lexer.start_game();
                        return Ok(Some(finish(game, None)));
                    }
                    started = true;
                    game.tags.push((name.clone(), value.clone()));
                    check_setup_tag(&mut game, &tok)?;
                }
                TokenKind::Number(token) => {
                    started = true;
                    in_movetext = true;
                    if game.moves.len() >= MAX_GAME_MOVES {
                        return Err(error_at(
                            &tok,
                            &format!("a game of at most {MAX_GAME_MOVES} moves"),
                            "more (refused: no real game is that long)",
                        ));
                    }
                    let Some(next) = self.next_token()? else {
                        return Err(error_at(
                            &tok,
                            "a SAN move after the move number",
                            "the end",
                        ));
                    };
                    let TokenKind::Word(text) = &next.kind else {
                        return Err(error_at(
                            &next,
                            &format!("a SAN move after {token}"),
                            &describe(&next.kind),
                        ));
                    };
                    let san: San =
                        text.parse()
                            .map_err(|e: super::super::ParseSanError| ParseBpgnError {
                                line: next.line,
                                column: next.column
                                    + text
                                        .char_indices()
                                        .take_while(|(i, _)| *i < e.offset)
                                        .count(),
                                expected: format!("a SAN move ({})", e.expected),
                                found: format!("{text:?}"),
                            })?;
                    game.moves.push(BpgnMove {
                        token: *token,
                        san_text: text.clone(),
                        san,
                        clock: None,
                        annotations: Vec::new(),
                    });
                }
                TokenKind::Word(w) => {
                    return Err(error_at(
                        &tok,
                        "a move number like 12A. before the move",
                        &format!("{w:?}"),
                    ));
                }
                TokenKind::Comment(c) => {
                    started = true;
                    in_movetext = true;
                    let clock = clock_value(c);
                    match game.moves.last_mut() {
                        Some(m)
                            if m.clock.is_none() && m.annotations.is_empty() && clock.is_some() =>
                        {
                            m.clock = clock;
                        }
                        Some(m) => m.annotations.push(Annotation::Comment(c.clone())),
                        None => game.preamble.push(Annotation::Comment(c.clone())),
                    }
                }
                TokenKind::Open => {
                    started = true;
                    in_movetext = true;
                    let text = self.variation(&tok)?;
                    push_annotation(&mut game, Annotation::Variation(text));
                }
                TokenKind::DrawOffer => {
                    started = true;
                    in_movetext = true;
                    push_annotation(&mut game, Annotation::DrawOffer);
                }
                TokenKind::Nag(n) => {
                    started = true;
                    in_movetext = true;
                    push_annotation(&mut game, Annotation::Nag(*n));
                }
                TokenKind::Close => {
                    return Err(error_at(&tok, "a move, a comment or a result", "')'"));
                }
                TokenKind::Result(r) => return Ok(Some(finish(game, Some(*r)))),
            }
        }
    }

    /// Reads a variation from just after its `(` to its matching `)`; returns its
    /// canonical text (nested variations included).
    fn variation(&mut self, open: &Token) -> Result<String, ParseBpgnError> {
        let mut depth = 1usize;
        let mut parts: Vec<String> = Vec::new();
        while let Some(tok) = self.next_token()? {
            match &tok.kind {
                TokenKind::Open => {
                    depth += 1;
                    parts.push("(".to_owned());
                }
                TokenKind::Close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(join_variation(&parts));
                    }
                    parts.push(")".to_owned());
                }
                TokenKind::Tag { .. } => {
                    return Err(error_at(
                        &tok,
                        "')' closing the variation",
                        &describe(&tok.kind),
                    ));
                }
                other => parts.push(render(other)),
            }
        }
        Err(ParseBpgnError {
            line: open.line,
            column: open.column,
            expected: "')' closing this variation".to_owned(),
            found: "the end of the text".to_owned(),
        })
    }
}

impl<R: BufRead> Iterator for BpgnReader<R> {
    type Item = Result<BpgnGame, ParseBpgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let game = self.read_game().transpose();
        if !matches!(game, Some(Ok(_))) {
            self.done = true;
        }
        game
    }
}

fn empty_game() -> BpgnGame {
    BpgnGame {
        tags: Vec::new(),
        setup: None,
        preamble: Vec::new(),
        moves: Vec::new(),
        end_comment: None,
        result: None,
    }
}

fn error_at(tok: &Token, expected: &str, found: &str) -> ParseBpgnError {
    ParseBpgnError {
        line: tok.line,
        column: tok.column,
        expected: expected.to_owned(),
        found: found.to_owned(),
    }
}

fn describe(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Tag { name, .. } => format!("the tag {name}"),
        other => render(other),
    }
}

fn push_annotation(game: &mut BpgnGame, a: Annotation) {
    match game.moves.last_mut() {
        Some(m) => m.annotations.push(a),
        None => game.preamble.push(a),
    }
}

/// An all-number comment: the mover's remaining seconds.
fn clock_value(c: &str) -> Option<f64> {
    let digits_and_dot = !c.is_empty()
        && c.chars().all(|ch| ch.is_ascii_digit() || ch == '.')
        && c.chars().filter(|&ch| ch == '.').count() <= 1
        && c.chars().next().is_some_and(|ch| ch.is_ascii_digit());
    if !digits_and_dot {
        return None;
    }
    c.parse::<f64>().ok().filter(|t| t.is_finite())
}

/// A comment that is not `X:`-prefixed: an end reason like `BugBug checkmated`.
fn is_plain(c: &str) -> bool {
    let mut chars = c.chars();
    !matches!((chars.next(), chars.next()), (Some(l), Some(':')) if l.is_ascii_alphabetic())
}

/// Closes a game: the plain comment just before the result is its end comment.
fn finish(mut game: BpgnGame, result: Option<MatchResult>) -> BpgnGame {
    if result.is_some() {
        let last = match game.moves.last_mut() {
            Some(m) => &mut m.annotations,
            None => &mut game.preamble,
        };
        if let Some(Annotation::Comment(c)) = last.last()
            && is_plain(c)
        {
            game.end_comment = Some(c.clone());
            last.pop();
        }
    }
    game.result = result;
    game
}

/// `[Setup "1"]`/`[SetUp "1"]` with `[FEN "..."]` (in any order) gives the start.
fn check_setup_tag(game: &mut BpgnGame, tok: &Token) -> Result<(), ParseBpgnError> {
    let setup_off = game
        .tags
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("setup") && v.trim() == "0");
    let fen = game
        .tags
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("fen"))
        .map(|(_, v)| v.clone());
    game.setup = match fen {
        Some(fen) if !setup_off => {
            // Validate once, when the FEN tag itself is read, so the error points at it.
            if let TokenKind::Tag { name, .. } = &tok.kind
                && name.eq_ignore_ascii_case("fen")
            {
                if !fen.contains('|') {
                    return one_board_fen(game, tok, &fen);
                }
                parse_bfen(&fen, Ruleset::default()).map_err(|e| {
                    error_at(
                        tok,
                        &format!("a BFEN in the FEN tag ({e})"),
                        &format!("{fen:?}"),
                    )
                })?;
            }
            // A one-board FEN passed `one_board_fen`: the start position of both boards.
            fen.contains('|').then_some(fen)
        }
        _ => None,
    };
    Ok(())
}

/// A `FEN` of one board only, as pychess's export writes (`...RNBQKBNR[] w KQkq - 0 1`):
/// the start position is read as both boards at the start (no setup); any other position
/// cannot be played without board B and is refused, saying so.
fn one_board_fen(game: &mut BpgnGame, tok: &Token, fen: &str) -> Result<(), ParseBpgnError> {
    let rules = Ruleset::default();
    let start = write_board_fen(&crate::rules::Position::new(rules), None);
    match parse_board_fen(fen, rules) {
        Ok(board) if write_board_fen(&board.position, None) == start => {
            game.setup = None;
            Ok(())
        }
        Ok(_) => Err(error_at(
            tok,
            "a BFEN of both boards in the FEN tag (this is one board's FEN, as pychess's \
             export writes: board B's position is missing, so the game cannot be set up)",
            &format!("{fen:?}"),
        )),
        Err(e) => Err(error_at(
            tok,
            &format!(
                "a BFEN in the FEN tag (no '|' between board A and board B, and not one \
                 board's FEN either: {e})"
            ),
            &format!("{fen:?}"),
        )),
    }
}

/// The canonical text of a token inside a variation.
fn render(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Tag { name, value } => format!("[{name} {value:?}]"),
        TokenKind::Number(t) => t.to_string(),
        TokenKind::Word(w) => w.clone(),
        TokenKind::Comment(c) => format!("{{{c}}}"),
        TokenKind::Open => "(".to_owned(),
        TokenKind::Close => ")".to_owned(),
        TokenKind::DrawOffer => "(=)".to_owned(),
        TokenKind::Nag(n) => format!("${n}"),
        TokenKind::Result(r) => r.as_str().to_owned(),
    }
}

/// Joins with single spaces, without spaces inside the parentheses: `a (b c) d`.
fn join_variation(parts: &[String]) -> String {
    let mut s = String::new();
    for p in parts {
        if !s.is_empty() && !s.ends_with('(') && p != ")" {
            s.push(' ');
        }
        s.push_str(p);
    }
    s
}
