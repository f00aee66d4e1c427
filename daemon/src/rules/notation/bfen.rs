//! BFEN: the position of both boards, `<board A> | <board B>`.
//!
//! Each board is a FEN-like record: placement with `~` after promoted pieces, then the
//! holdings (`/QRbnp` as a ninth "rank", omitted with its slash when empty; `[QRbnp]` as in
//! crazyhouse FEN is read too, and so is a bare trailing `/`), then the side to move,
//! castling, en passant, White's time and Black's time in seconds.
//!
//! The WBN document is inconsistent about field order (`rules.md` §8): writers emit side
//! to move first (as FEN and the BPGN standard's own example); readers accept both
//! `side castling ep` and `castling ep side`. The two numbers at the end are read as clock
//! times; they may be missing, and FEN's halfmove/fullmove counters are read the same way
//! (the caller knows which it has).

use std::fmt;

use crate::rules::{
    Bitboard, Board, ByBoard, ByColor, Color, File, Pockets, Position, Rank, Role, Ruleset, Square,
    holdings_string, parse_holdings,
};

/// One board of a BFEN: the position and the two clock fields, if given.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardFen {
    /// The position.
    pub position: Position,
    /// White's and Black's remaining seconds, if the record has them.
    pub times: Option<ByColor<f64>>,
}

/// A BFEN that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseBfenError {
    /// Byte offset of the problem in the text.
    pub offset: usize,
    /// What was expected there.
    pub expected: String,
}

impl fmt::Display for ParseBfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad BFEN at byte {}: expected {}",
            self.offset, self.expected
        )
    }
}

impl std::error::Error for ParseBfenError {}

fn err(offset: usize, expected: impl Into<String>) -> ParseBfenError {
    ParseBfenError {
        offset,
        expected: expected.into(),
    }
}

/// Reads both boards of a BFEN (`A | B`).
///
/// # Errors
///
/// [`ParseBfenError`] with the byte offset in `text`.
pub fn parse_bfen(text: &str, rules: Ruleset) -> Result<ByBoard<BoardFen>, ParseBfenError> {
    let Some(bar) = text.find('|') else {
        return Err(err(text.len(), "'|' between board A and board B"));
    };
    let a = parse_board_fen(&text[..bar], rules).map_err(|e| shift(e, 0))?;
    let b = parse_board_fen(&text[bar + 1..], rules).map_err(|e| shift(e, bar + 1))?;
    Ok(ByBoard { a, b })
}

fn shift(mut e: ParseBfenError, by: usize) -> ParseBfenError {
    e.offset += by;
    e
}

/// Splits on ASCII whitespace, keeping each field's byte offset.
fn fields(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_ascii_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &text[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

/// Reads one board's record (also a crazyhouse FEN with `[holdings]`).
///
/// # Errors
///
/// [`ParseBfenError`] with the byte offset in `text`.
pub fn parse_board_fen(text: &str, rules: Ruleset) -> Result<BoardFen, ParseBfenError> {
    let fields = fields(text);
    let Some(&(p_off, placement_field)) = fields.first() else {
        return Err(err(text.len(), "a piece placement"));
    };
    let (board, promoted, pockets) =
        parse_placement_and_holdings(placement_field).map_err(|e| shift(e, p_off))?;

    let rest = &fields[1..];
    let is_side = |f: Option<&(usize, &str)>| f.is_some_and(|(_, f)| *f == "w" || *f == "b");
    let side_first = is_side(rest.first()) || !is_side(rest.get(2));
    let (side, castling, ep, times_at) = if side_first {
        (rest.first(), rest.get(1), rest.get(2), 3)
    } else {
        (rest.get(2), rest.first(), rest.get(1), 3)
    };
    let turn = match side {
        None => Color::White,
        Some(&(off, f)) => match f {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err(err(off, "the side to move, 'w' or 'b'")),
        },
    };
    let castling = match castling {
        None => Bitboard::EMPTY,
        Some(&(off, f)) => parse_castling(f, &board).ok_or_else(|| {
            err(
                off,
                "castling rights: '-', letters of KQkq or rook files A-H/a-h (Chess960)",
            )
        })?,
    };
    let ep_square = match ep {
        None | Some((_, "-")) => None,
        Some(&(off, f)) => Some(
            f.parse::<Square>()
                .map_err(|_| err(off, "an en passant square or '-'"))?,
        ),
    };
    let times = match (rest.get(times_at), rest.get(times_at + 1)) {
        // FEN's move counters (`0 1`, as chess.com, pychess and bughouse.pro write), not
        // clocks: a game cannot start with White's time at 0.
        (Some(&(_, w)), Some(&(_, b))) if is_move_counters(w, b) => None,
        (Some(&(wo, w)), Some(&(bo, b))) => {
            let w: f64 = w.parse().map_err(|_| err(wo, "White's time in seconds"))?;
            let b: f64 = b.parse().map_err(|_| err(bo, "Black's time in seconds"))?;
            if !w.is_finite() || !b.is_finite() {
                return Err(err(wo, "finite clock times"));
            }
            Some(ByColor { white: w, black: b })
        }
        (Some(&(off, _)), None) => return Err(err(off, "two clock fields (White's, Black's)")),
        _ => None,
    };
    if let Some(&(off, _)) = rest.get(times_at + 2) {
        return Err(err(off, "the end of the board record"));
    }
    let position = Position::from_parts(board, pockets, promoted, turn, castling, ep_square, rules);
    Ok(BoardFen { position, times })
}

/// Whether the two fields after the en passant square are FEN's halfmove clock and move
/// number rather than BFEN clocks: both whole numbers, the first 0, the second at least 1.
fn is_move_counters(first: &str, second: &str) -> bool {
    let whole = |f: &str| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit());
    whole(first)
        && whole(second)
        && first.parse::<u64>() == Ok(0)
        && second.parse::<u64>().is_ok_and(|n| n >= 1)
}

#[cfg(test)]
mod counters_tests {
    use super::*;

    #[test]
    fn fen_move_counters_are_not_clocks() {
        let rules = Ruleset::default();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let both = parse_bfen(&format!("{start} | {start}"), rules).unwrap();
        assert_eq!(both.a.times, None);
        assert_eq!(both.b.times, None);
        let clocks = parse_board_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 142 164",
            rules,
        )
        .unwrap();
        assert_eq!(
            clocks.times.map(|t| (t.white, t.black)),
            Some((142.0, 164.0))
        );
        let e = parse_board_fen("8/8/8/8/8/8/8/4K2R w KX - 0 1", rules).unwrap_err();
        assert!(e.expected.contains("Chess960"), "{e}");
    }
}

/// Castling rights as FEN (`KQkq`), Shredder-FEN (`HAha`: the rooks' files) or X-FEN (both
/// mixed) write them: `K`/`Q` name the outermost rook of that side of the king on its home
/// rank (the corner rook in standard chess), a file letter the rook on that file. A right
/// whose rook is not there is dropped by [`Position::from_parts`].
fn parse_castling(f: &str, board: &Board) -> Option<Bitboard> {
    if f == "-" {
        return Some(Bitboard::EMPTY);
    }
    let mut rights = Bitboard::EMPTY;
    for c in f.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let home = Rank::First.relative_to(color);
        let square = match c.to_ascii_lowercase() {
            'k' => home_king(board, color)
                .and_then(|king| outermost_rook(board, color, king, true))
                .unwrap_or(Square::from_coords(File::H, home)),
            'q' => home_king(board, color)
                .and_then(|king| outermost_rook(board, color, king, false))
                .unwrap_or(Square::from_coords(File::A, home)),
            'a'..='h' => Square::from_coords(File::from_char(c.to_ascii_lowercase())?, home),
            _ => return None,
        };
        rights.add(square);
    }
    Some(rights)
}

/// The king of `color` that castles: on its home rank, the e-file one when Koedem gives the
/// colour two there.
fn home_king(board: &Board, color: Color) -> Option<Square> {
    let home = Rank::First.relative_to(color);
    let kings = board.kings(color) & Bitboard::from_rank(home);
    let e = Square::from_coords(File::E, home);
    if kings.contains(e) {
        Some(e)
    } else {
        kings.single()
    }
}

/// The rook of `color` on its home rank furthest from `king` on the h-side (`king_side`) or
/// the a-side: what X-FEN's `K`/`Q` name.
fn outermost_rook(board: &Board, color: Color, king: Square, king_side: bool) -> Option<Square> {
    let home = Bitboard::from_rank(Rank::First.relative_to(color));
    let mut rooks = (board.by_piece(Role::Rook.of(color)) & home)
        .into_iter()
        .filter(|&r| (r > king) == king_side);
    if king_side {
        rooks.last()
    } else {
        rooks.next()
    }
}

/// Placement with `~` marks, then holdings in any of the accepted forms.
fn parse_placement_and_holdings(field: &str) -> Result<(Board, Bitboard, Pockets), ParseBfenError> {
    // Split off `[holdings]`.
    let (field, bracket) = match field.find('[') {
        Some(i) => {
            let close = field[i..]
                .find(']')
                .ok_or_else(|| err(field.len(), "']' closing the holdings"))?;
            if i + close + 1 != field.len() {
                return Err(err(i + close + 1, "nothing after ']'"));
            }
            (&field[..i], Some((i + 1, &field[i + 1..i + close])))
        }
        None => (field, None),
    };
    // The ninth slash-separated part is the holdings.
    let mut slashes = field.match_indices('/').map(|(i, _)| i);
    let ninth = slashes.nth(7);
    let (placement, holdings) = match (ninth, bracket) {
        (Some(i), None) => (&field[..i], Some((i + 1, &field[i + 1..]))),
        (Some(i), Some(_)) => {
            return Err(err(
                i,
                "holdings either after a ninth '/' or in [], not both",
            ));
        }
        (None, b) => (field, b),
    };
    let mut clean = String::with_capacity(placement.len());
    let mut promoted_at = Vec::new();
    for (i, c) in placement.char_indices() {
        if c == '~' {
            if !clean
                .chars()
                .last()
                .is_some_and(|p| p.is_ascii_alphabetic())
            {
                return Err(err(i, "'~' only after a piece letter"));
            }
            promoted_at.push(clean.len() - 1);
        } else {
            clean.push(c);
        }
    }
    let board = Board::from_placement(&clean).map_err(|e| {
        // Map the offset in the cleaned text back to the original.
        let tildes_before = promoted_at.iter().filter(|&&p| p < e.offset).count();
        err(e.offset + tildes_before, e.what)
    })?;
    let mut promoted = Bitboard::EMPTY;
    if !promoted_at.is_empty() {
        // Walk the placement again to find the squares of the marked letters.
        let mut rank = 7u8;
        let mut file = 0u8;
        for (i, c) in clean.char_indices() {
            match c {
                '/' => {
                    rank = rank.saturating_sub(1);
                    file = 0;
                }
                '1'..='8' => file += c as u8 - b'0',
                _ => {
                    if promoted_at.contains(&i)
                        && let (Some(f), Some(r)) = (File::new(file), Rank::new(rank))
                    {
                        promoted.add(Square::from_coords(f, r));
                    }
                    file += 1;
                }
            }
        }
    }
    let pockets = match holdings {
        Some((off, h)) => {
            parse_holdings(h).map_err(|i| err(off + i, "a piece letter in the holdings"))?
        }
        None => Pockets::default(),
    };
    Ok((board, promoted, pockets))
}

/// Castling rights as X-FEN writes them: `KQkq` for the outermost rook on each side of
/// the king (always so in standard chess), the rook's file (`B`, `h`) for a Chess960 rook
/// with another rook of its colour beyond it; `-` for none.
#[must_use]
pub fn castling_string(position: &Position) -> String {
    let mut s = String::new();
    for color in [Color::White, Color::Black] {
        for king_side in [true, false] {
            let Some(rook) = position.castling_rook(color, king_side) else {
                continue;
            };
            let king = position.castling_king(color);
            let outermost = outermost_rook(position.board(), color, king, king_side);
            let letter = if outermost == Some(rook) {
                if king_side { 'k' } else { 'q' }
            } else {
                rook.file().char()
            };
            s.push(match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            });
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

/// Writes a clock time: whole seconds without decimals, otherwise up to three decimals
/// with trailing zeros dropped.
#[must_use]
pub fn format_seconds(t: f64) -> String {
    let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
    let ms = (t * 1000.0).round() as u64;
    if ms.is_multiple_of(1000) {
        format!("{}", ms / 1000)
    } else {
        let s = format!("{}.{:03}", ms / 1000, ms % 1000);
        s.trim_end_matches('0').to_owned()
    }
}

/// Writes one board's record: placement with `~`, `/holdings` when not empty, side to move,
/// castling, en passant, and the two times when given.
#[must_use]
pub fn write_board_fen(position: &Position, times: Option<ByColor<f64>>) -> String {
    let mut s = position.board().placement_with(position.promoted());
    let holdings = holdings_string(position.pockets());
    if !holdings.is_empty() {
        s.push('/');
        s.push_str(&holdings);
    }
    s.push(' ');
    s.push(position.turn().char());
    s.push(' ');
    s.push_str(&castling_string(position));
    s.push(' ');
    match position.capturable_ep_square() {
        Some(ep) => s.push_str(&ep.to_string()),
        None => s.push('-'),
    }
    if let Some(t) = times {
        s.push(' ');
        s.push_str(&format_seconds(t.white));
        s.push(' ');
        s.push_str(&format_seconds(t.black));
    }
    s
}

/// Writes a BFEN: `<board A> | <board B>`.
#[must_use]
pub fn write_bfen(positions: ByBoard<&Position>, times: ByBoard<Option<ByColor<f64>>>) -> String {
    format!(
        "{} | {}",
        write_board_fen(positions.a, times.a),
        write_board_fen(positions.b, times.b)
    )
}

/// The role letters of holdings, for tests and display.
#[must_use]
pub fn pocket_letters(position: &Position, color: Color) -> String {
    position.pockets()[color]
        .roles()
        .flat_map(|r| {
            std::iter::repeat_n(
                r.of(color).char(),
                position.pockets()[color].count(r) as usize,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Role;

    const STANDARD_EXAMPLE: &str = "r2k1r2/pbppNppp/1p2p1nb/1P5N/3N4/4Pn1q/PPP1QP1P/2KR2R1/BrpBBqppN w - - 45 56 | Q~4rk1/8/8/8/8/8/8/R3K2R w KQ - 45 60";
    const VAMPIRE: &str = "r1b1k1nr/ppp1qpPp/2n5/1B1p1n1N/3P4/2P5/P1P1QPnP/R1BK2NR/PPBpp b kq - 142 164 | 2Nrkb1r/pPpbqppp/2p5/8/3N4/2P1B3/P1P1QPpP/R3K2R/Ppb w KQk - 142 163";

    fn rules() -> Ruleset {
        Ruleset::default()
    }

    #[test]
    fn reads_the_standard_example() {
        let both = parse_bfen(STANDARD_EXAMPLE, rules()).unwrap();
        assert_eq!(both.a.position.pockets().white.count(Role::Bishop), 3);
        assert_eq!(both.a.position.pockets().black.count(Role::Pawn), 3);
        assert_eq!(
            both.a.times,
            Some(ByColor {
                white: 45.0,
                black: 56.0
            })
        );
        assert!(both.b.position.promoted().contains("a8".parse().unwrap()));
        assert_eq!(castling_string(&both.b.position), "KQ");
    }

    #[test]
    fn reads_both_field_orders_alike() {
        let side_first = "8/8/8/8/8/8/8/4K2k/Qn b - - 10 20 | 8/8/8/8/8/8/8/4K2k w - - 1 2";
        let side_last = "8/8/8/8/8/8/8/4K2k/Qn - - b 10 20 | 8/8/8/8/8/8/8/4K2k - - w 1 2";
        let a = parse_bfen(side_first, rules()).unwrap();
        let b = parse_bfen(side_last, rules()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.a.position.turn(), Color::Black);
    }

    #[test]
    fn written_bfen_round_trips() {
        for text in [STANDARD_EXAMPLE, VAMPIRE] {
            let both = parse_bfen(text, rules()).unwrap();
            let written = write_bfen(
                ByBoard {
                    a: &both.a.position,
                    b: &both.b.position,
                },
                ByBoard {
                    a: both.a.times,
                    b: both.b.times,
                },
            );
            let again = parse_bfen(&written, rules()).unwrap();
            assert_eq!(both, again, "{written}");
            let rewritten = write_bfen(
                ByBoard {
                    a: &again.a.position,
                    b: &again.b.position,
                },
                ByBoard {
                    a: again.a.times,
                    b: again.b.times,
                },
            );
            assert_eq!(written, rewritten);
        }
    }

    #[test]
    fn reads_bracket_and_trailing_slash_holdings() {
        let fen = "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1";
        let b = parse_board_fen(fen, rules()).unwrap();
        assert_eq!(b.position.pockets().white.total(), 5);
        let empty = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1";
        let e = parse_board_fen(empty, rules()).unwrap();
        assert!(e.position.pockets().white.is_empty());
        assert_eq!(castling_string(&e.position), "KQkq");
    }

    #[test]
    fn errors_name_the_byte() {
        let e = parse_bfen("8/8/8/8/8/8/8/8 w - - 1 2", rules()).unwrap_err();
        assert!(e.expected.contains('|'));
        let e = parse_bfen("8/8/8/8/8/8/8/8 x - - 1 2 | 8/8/8/8/8/8/8/8 w", rules()).unwrap_err();
        assert_eq!(e.offset, 16);
        let e =
            parse_bfen("8/8/8/8/8/8/8/8 w - - 1 2 | 8/8/8/8/8/8/8/8/Qx w", rules()).unwrap_err();
        assert_eq!(e.offset, 45); // the 'x'
        let e = parse_board_fen("8/8/8/8/8/8/8/8 w - - 1 z", rules()).unwrap_err();
        assert_eq!(e.offset, 24);
        assert!(parse_board_fen("8/8/8/8/8/8/8/8 w - - 1 2 3", rules()).is_err());
        assert!(parse_board_fen("~8/8/8/8/8/8/8/8 w", rules()).is_err());
        assert!(parse_board_fen("", rules()).is_err());
    }

    #[test]
    fn seconds_are_written_as_the_exports_do() {
        assert_eq!(format_seconds(178.0), "178");
        assert_eq!(format_seconds(119.5), "119.5");
        assert_eq!(format_seconds(0.019), "0.019");
        assert_eq!(format_seconds(-3.0), "0");
    }
}
