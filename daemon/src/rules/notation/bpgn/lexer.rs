//! BPGN text to tokens, each with its line and column, read from a stream a chunk at a
//! time.
//!
//! Whitespace (spaces, tabs, CR, LF) only separates tokens, so CRLF and LF files, wrapped
//! and one-line movetext and a missing final newline all read alike. A `}` or `]` ends a
//! word, so a token stuck to a comment (`{117.807}3B.`) is still its own token.

use std::collections::VecDeque;
use std::io::BufRead;

use crate::rules::{BoardId, Color, MatchResult};

use super::{MAX_GAME_CHARS, MoveToken, ParseBpgnError};

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TokenKind {
    /// `[Name "value"]`.
    Tag { name: String, value: String },
    /// `12A.`, `3b.`.
    Number(MoveToken),
    /// Any other word: a SAN move, if the parser agrees.
    Word(String),
    /// `{...}`, whitespace runs inside collapsed to one space, trimmed.
    Comment(String),
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `(=)`.
    DrawOffer,
    /// `$n`.
    Nag(u16),
    /// `1-0`, `0-1`, `1/2-1/2`, `*`.
    Result(MatchResult),
}

/// A token and where it starts (1-based line and column, columns in characters).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// How much text is read from the input at a time.
const CHUNK: usize = 64 * 1024;

/// Characters of a stream, read a chunk at a time (never the whole input), with the line
/// and column of the next one.
struct Cursor<R> {
    input: R,
    /// Decoded characters not yet consumed, from `pos` on.
    chars: Vec<char>,
    pos: usize,
    /// Bytes read but not decoded yet: an incomplete UTF-8 sequence at a chunk's end.
    pending: Vec<u8>,
    eof: bool,
    /// A read error, reported at the next token.
    failed: Option<std::io::Error>,
    line: usize,
    column: usize,
    /// Characters consumed so far, and when the current game began.
    consumed: u64,
    game_start: u64,
    game_line: usize,
    game_column: usize,
}

/// The length of the UTF-8 sequence a lead byte starts (1 for anything else).
fn sequence_len(b: u8) -> usize {
    match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

impl<R: BufRead> Cursor<R> {
    /// Reads and decodes the next chunk (invalid UTF-8 becomes U+FFFD, as
    /// `String::from_utf8_lossy` does); `false` at the end of the input.
    fn refill(&mut self) -> bool {
        if self.pos > 0 {
            self.chars.drain(..self.pos);
            self.pos = 0;
        }
        while !self.eof {
            let n = match self.input.fill_buf() {
                Ok(buf) => {
                    let n = buf.len().min(CHUNK);
                    self.pending.extend_from_slice(&buf[..n]);
                    n
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.failed = Some(e);
                    0
                }
            };
            self.input.consume(n);
            self.eof = n == 0;
            // Keep an incomplete sequence at the end for the next chunk.
            let len = self.pending.len();
            let cut = if self.eof {
                len
            } else {
                (len.saturating_sub(3)..len)
                    .find(|&i| sequence_len(self.pending[i]) > len - i)
                    .unwrap_or(len)
            };
            let before = self.chars.len();
            self.chars
                .extend(String::from_utf8_lossy(&self.pending[..cut]).chars());
            self.pending.drain(..cut);
            if self.chars.len() > before {
                return true;
            }
        }
        false
    }

    /// The character `k` places ahead, if any.
    fn peek_at(&mut self, k: usize) -> Option<char> {
        while self.pos + k >= self.chars.len() {
            if !self.refill() {
                return None;
            }
        }
        Some(self.chars[self.pos + k])
    }

    fn peek(&mut self) -> Option<char> {
        self.peek_at(0)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        self.consumed += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, expected: &str, found: Option<char>) -> ParseBpgnError {
        ParseBpgnError {
            line: self.line,
            column: self.column,
            expected: expected.to_owned(),
            found: match found {
                Some(c) => format!("{c:?}"),
                None => "the end of the text".to_owned(),
            },
        }
    }

    /// Refuses a game that has grown past [`MAX_GAME_CHARS`], naming where it began.
    fn check_budget(&self) -> Result<(), ParseBpgnError> {
        if self.consumed - self.game_start <= MAX_GAME_CHARS {
            return Ok(());
        }
        Err(ParseBpgnError {
            line: self.game_line,
            column: self.game_column,
            expected: format!("a game of at most {MAX_GAME_CHARS} characters"),
            found: "a longer one (refused: no real game is that long)".to_owned(),
        })
    }

    fn skip_whitespace(&mut self) -> Result<(), ParseBpgnError> {
        while self
            .peek()
            .is_some_and(|c| c.is_whitespace() || c == '\u{feff}')
        {
            self.bump();
            self.check_budget()?;
        }
        Ok(())
    }
}

fn is_word_end(c: char) -> bool {
    c.is_whitespace() || matches!(c, '{' | '}' | '(' | ')' | '[' | ']')
}

/// Collapses whitespace runs to one space and trims, so that wrapping a comment over
/// several lines does not change it.
pub(crate) fn normalize_space(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// BPGN text to tokens, read from a stream as they are asked for: only the current token
/// and one chunk of text are held, whatever the size of the input.
pub(crate) struct Lexer<R> {
    cur: Cursor<R>,
    /// Tokens of a word already split (`12A.e4` gives two).
    queued: VecDeque<Token>,
}

impl<R> std::fmt::Debug for Lexer<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexer").finish_non_exhaustive()
    }
}

impl<R: BufRead> Lexer<R> {
    /// A lexer over `input`.
    pub(crate) fn new(input: R) -> Self {
        Lexer {
            cur: Cursor {
                input,
                chars: Vec::new(),
                pos: 0,
                pending: Vec::new(),
                eof: false,
                failed: None,
                line: 1,
                column: 1,
                consumed: 0,
                game_start: 0,
                game_line: 1,
                game_column: 1,
            },
            queued: VecDeque::new(),
        }
    }

    /// A new game begins: its size is counted from here.
    pub(crate) fn start_game(&mut self) {
        self.cur.game_start = self.cur.consumed;
        (self.cur.game_line, self.cur.game_column) = (self.cur.line, self.cur.column);
    }

    /// Where the current game's first token is, for the error that refuses a game too long.
    pub(crate) fn set_game_place(&mut self, line: usize, column: usize) {
        (self.cur.game_line, self.cur.game_column) = (line, column);
    }

    /// The next token, `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// [`ParseBpgnError`] for an unterminated comment or tag, a malformed tag, a move
    /// number without its board letter, a game longer than [`MAX_GAME_CHARS`], or a read
    /// error.
    pub(crate) fn next_token(&mut self) -> Result<Option<Token>, ParseBpgnError> {
        if let Some(t) = self.queued.pop_front() {
            return Ok(Some(t));
        }
        let token = self.lex();
        if let Some(e) = self.cur.failed.take() {
            return Err(ParseBpgnError {
                line: self.cur.line,
                column: self.cur.column,
                expected: "readable text".to_owned(),
                found: format!("a read error ({e})"),
            });
        }
        token
    }

    fn lex(&mut self) -> Result<Option<Token>, ParseBpgnError> {
        let cur = &mut self.cur;
        cur.skip_whitespace()?;
        let (line, column) = (cur.line, cur.column);
        let Some(c) = cur.peek() else {
            return Ok(None);
        };
        let kinds = match c {
            '[' => vec![tag(cur)?],
            '{' => {
                cur.bump();
                let mut content = String::new();
                loop {
                    match cur.bump() {
                        Some('}') => break,
                        Some(c) => content.push(c),
                        None => {
                            return Err(ParseBpgnError {
                                line,
                                column,
                                expected: format!(
                                    "'}}' closing the comment opened at line {line}, column {column}"
                                ),
                                found: "the end of the text".to_owned(),
                            });
                        }
                    }
                    cur.check_budget()?;
                }
                vec![TokenKind::Comment(normalize_space(&content))]
            }
            '(' => {
                cur.bump();
                if cur.peek_at(0) == Some('=') && cur.peek_at(1) == Some(')') {
                    cur.bump();
                    cur.bump();
                    vec![TokenKind::DrawOffer]
                } else {
                    vec![TokenKind::Open]
                }
            }
            ')' => {
                cur.bump();
                vec![TokenKind::Close]
            }
            '}' | ']' => {
                return Err(cur.error("a move, a comment, a tag or a result", Some(c)));
            }
            _ => {
                let mut word = String::new();
                while let Some(c) = cur.peek().filter(|&c| !is_word_end(c)) {
                    word.push(c);
                    cur.bump();
                    cur.check_budget()?;
                }
                classify_word(&word).map_err(|expected| ParseBpgnError {
                    line,
                    column,
                    expected: expected.to_owned(),
                    found: format!("{word:?}"),
                })?
            }
        };
        cur.check_budget()?;
        let mut column = column;
        for kind in kinds {
            let width = match &kind {
                TokenKind::Number(t) => t.to_string().chars().count(),
                _ => 0,
            };
            self.queued.push_back(Token { kind, line, column });
            column += width;
        }
        Ok(self.queued.pop_front())
    }
}

/// `12A.`, `12A.e4` (number and move stuck together), a result, a NAG or a word.
fn classify_word(word: &str) -> Result<Vec<TokenKind>, &'static str> {
    if let Some(r) = MatchResult::from_str_opt(word) {
        return Ok(vec![TokenKind::Result(r)]);
    }
    // chess.com writes a knight drop `N@g4` as `$146@g4` (NAG 146 is the novelty sign, N).
    if let Some(square) = word.strip_prefix("$146@") {
        return Ok(vec![TokenKind::Word(format!("N@{square}"))]);
    }
    if let Some(n) = word.strip_prefix('$') {
        return n
            .parse()
            .map(|n| vec![TokenKind::Nag(n)])
            .map_err(|_| "a NAG like $1");
    }
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return Ok(vec![TokenKind::Word(word.to_owned())]);
    }
    let rest = &word[digits..];
    let mut chars = rest.chars();
    let letter = chars.next();
    let dot = chars.next();
    let board = match (letter, dot) {
        (Some(letter), Some('.')) => BoardId::from_char(letter),
        (Some('.'), _) => None,
        // Not a move number (`0-0`, `12`): the parser says what it expected instead.
        _ => return Ok(vec![TokenKind::Word(word.to_owned())]),
    };
    let (Some(board), Some(letter)) = (board, letter) else {
        return Err("a move number with its board letter, like 12A. or 12b.");
    };
    let number: u32 = word[..digits]
        .parse()
        .map_err(|_| "a move number that fits in 32 bits")?;
    let color = if letter.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    let mut out = vec![TokenKind::Number(MoveToken {
        number,
        board,
        color,
    })];
    let after = chars.as_str();
    if !after.is_empty() {
        out.extend(classify_word(after)?);
    }
    Ok(out)
}

fn tag<R: BufRead>(cur: &mut Cursor<R>) -> Result<TokenKind, ParseBpgnError> {
    cur.bump(); // '['
    cur.skip_whitespace()?;
    let mut name = String::new();
    while let Some(c) = cur.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
        name.push(c);
        cur.bump();
        cur.check_budget()?;
    }
    if name.is_empty() {
        let found = cur.peek();
        return Err(cur.error("a tag name after '['", found));
    }
    cur.skip_whitespace()?;
    if cur.peek() != Some('"') {
        let found = cur.peek();
        return Err(cur.error("'\"' opening the tag value", found));
    }
    cur.bump();
    let mut value = String::new();
    loop {
        match cur.bump() {
            Some('"') => break,
            Some('\\') => match cur.bump() {
                Some(c) => value.push(c),
                None => return Err(cur.error("'\"' closing the tag value", None)),
            },
            Some('\n') | None => {
                return Err(cur.error("'\"' closing the tag value", None));
            }
            Some(c) => value.push(c),
        }
        cur.check_budget()?;
    }
    cur.skip_whitespace()?;
    if cur.peek() != Some(']') {
        let found = cur.peek();
        return Err(cur.error("']' closing the tag", found));
    }
    cur.bump();
    Ok(TokenKind::Tag { name, value })
}
