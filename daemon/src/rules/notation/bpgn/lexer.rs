//! BPGN text to tokens, each with its line and column.
//!
//! Whitespace (spaces, tabs, CR, LF) only separates tokens, so CRLF and LF files, wrapped
//! and one-line movetext and a missing final newline all read alike. A `}` or `]` ends a
//! word, so a token stuck to a comment (`{117.807}3B.`) is still its own token.

use crate::rules::{BoardId, Color, MatchResult};

use super::{MoveToken, ParseBpgnError};

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

struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
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

    fn skip_whitespace(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c.is_whitespace() || c == '\u{feff}')
        {
            self.bump();
        }
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

/// Splits BPGN text into tokens.
///
/// # Errors
///
/// [`ParseBpgnError`] for an unterminated comment or tag, a malformed tag, or a move
/// number without its board letter.
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, ParseBpgnError> {
    let mut cur = Cursor {
        chars: text.chars().peekable(),
        line: 1,
        column: 1,
    };
    let mut tokens = Vec::new();
    loop {
        cur.skip_whitespace();
        let (line, column) = (cur.line, cur.column);
        let Some(c) = cur.peek() else { break };
        let kinds = match c {
            '[' => vec![tag(&mut cur)?],
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
                }
                vec![TokenKind::Comment(normalize_space(&content))]
            }
            '(' => {
                cur.bump();
                let mut ahead = cur.chars.clone();
                if ahead.next() == Some('=') && ahead.next() == Some(')') {
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
                }
                classify_word(&word).map_err(|expected| ParseBpgnError {
                    line,
                    column,
                    expected: expected.to_owned(),
                    found: format!("{word:?}"),
                })?
            }
        };
        let mut column = column;
        for kind in kinds {
            let width = match &kind {
                TokenKind::Number(t) => t.to_string().chars().count(),
                _ => 0,
            };
            tokens.push(Token { kind, line, column });
            column += width;
        }
    }
    Ok(tokens)
}

/// `12A.`, `12A.e4` (number and move stuck together), a result, a NAG or a word.
fn classify_word(word: &str) -> Result<Vec<TokenKind>, &'static str> {
    if let Some(r) = MatchResult::from_str_opt(word) {
        return Ok(vec![TokenKind::Result(r)]);
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

fn tag(cur: &mut Cursor<'_>) -> Result<TokenKind, ParseBpgnError> {
    cur.bump(); // '['
    cur.skip_whitespace();
    let mut name = String::new();
    while let Some(c) = cur.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
        name.push(c);
        cur.bump();
    }
    if name.is_empty() {
        let found = cur.peek();
        return Err(cur.error("a tag name after '['", found));
    }
    cur.skip_whitespace();
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
    }
    cur.skip_whitespace();
    if cur.peek() != Some(']') {
        let found = cur.peek();
        return Err(cur.error("']' closing the tag", found));
    }
    cur.bump();
    Ok(TokenKind::Tag { name, value })
}
