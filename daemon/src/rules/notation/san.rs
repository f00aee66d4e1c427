//! SAN with drops: `e4`, `Nbd7`, `exd5`, `e8=Q`, `O-O`, `N@f3`, `P@e4`, `@e4`, `Q@c8#`.
//!
//! Three separate steps, three separate errors:
//!
//! - **reading** text into a [`San`] (syntax only) fails with [`ParseSanError`];
//! - **resolving** a [`San`] against a [`Position`] ([`San::to_move`]) fails with
//!   [`SanError::Illegal`] (no move fits) or [`SanError::Ambiguous`] (several do);
//! - **writing** ([`San::from_move`]) never fails.
//!
//! The reader is relaxed: it accepts `p@e4`, `@e4` (a pawn), `0-0`/`0-0-0`, `e8Q` as well as
//! `e8=Q` and `e8(Q)`, `++` for mate, and ignores trailing `!`/`?` annotations. The writer
//! emits one canonical form: `P@e4`, `=Q`, `O-O`, `#`. Koedem's grab promotion adds the
//! grabbed piece's square on the other board after the promotion (`e8=Qd1`, see
//! [`grab`](super::grab)); a king is written like any piece (`Kxe1`, `K@e4`), disambiguated
//! when a player has several.
//!
//! Resolution follows what happened physically: a SAN is first matched against the legal
//! moves; when none fits, against the moves the pieces could *physically* make (a drop of a
//! piece not in hand, a pinned piece moving, a pawn dropped on the back rank, a move out of
//! turn, castling without the right). A completed illegal move in a real game thus resolves
//! to the move that was made, and [`Position::classify`] then says which rule it broke.

use std::fmt;
use std::str::FromStr;

use crate::rules::{
    Bitboard, Color, File, Move, Position, Rank, Role, Square, attacks, pawn_attacks,
};

/// The check suffix of a SAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`.
    Check,
    /// `#` (also read from `++`).
    Mate,
}

impl Suffix {
    /// `+` or `#`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Suffix::Check => "+",
            Suffix::Mate => "#",
        }
    }
}

/// Which way a king castles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// `O-O`, with the rook of the h-file.
    King,
    /// `O-O-O`, with the rook of the a-file.
    Queen,
}

/// What a SAN says was moved, without its check suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanKind {
    /// A piece or pawn moves.
    Normal {
        /// The moving role (`Pawn` when no letter is written).
        role: Role,
        /// The origin file, when written (disambiguation, or a pawn capture's file).
        file: Option<File>,
        /// The origin rank, when written (disambiguation).
        rank: Option<Rank>,
        /// An `x` was written.
        capture: bool,
        /// The destination.
        to: Square,
        /// The declared promotion piece.
        promotion: Option<Role>,
    },
    /// Castling.
    Castle(CastlingSide),
    /// A drop from the holdings.
    Drop {
        /// The dropped role.
        role: Role,
        /// Where.
        to: Square,
    },
}

/// A move in standard algebraic notation with drops (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct San {
    /// The move itself.
    pub kind: SanKind,
    /// `+` or `#`, as written (reading) or as computed (writing).
    pub suffix: Option<Suffix>,
    /// Koedem grab promotion: where the grabbed piece stood on the other board (`e8=Qd1`).
    pub grab: Option<Square>,
}

/// Text that is not SAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSanError {
    /// Byte offset in the text where reading failed.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
}

impl fmt::Display for ParseSanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad SAN at byte {}: expected {}",
            self.offset, self.expected
        )
    }
}

impl std::error::Error for ParseSanError {}

/// A well-formed SAN that does not name exactly one move of the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanError {
    /// No move fits, not even a physically possible illegal one.
    Illegal,
    /// Several moves fit.
    Ambiguous,
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SanError::Illegal => "no move of the position fits the SAN",
            SanError::Ambiguous => "several moves of the position fit the SAN",
        })
    }
}

impl std::error::Error for SanError {}

fn perr(offset: usize, expected: &'static str) -> ParseSanError {
    ParseSanError { offset, expected }
}

/// A piece letter of a normal move (upper case only: `b` is a file).
fn piece_letter(c: u8) -> Option<Role> {
    match c {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        b'P' => Some(Role::Pawn),
        _ => None,
    }
}

/// A promotion letter, either case.
fn promotion_letter(c: u8) -> Option<Role> {
    match c.to_ascii_uppercase() {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        _ => None,
    }
}

impl FromStr for San {
    type Err = ParseSanError;

    fn from_str(text: &str) -> Result<San, ParseSanError> {
        let b = text.as_bytes();
        let mut end = b.len();
        while end > 0 && matches!(b[end - 1], b'!' | b'?') {
            end -= 1;
        }
        let suffix = if end >= 2 && &b[end - 2..end] == b"++" {
            end -= 2;
            Some(Suffix::Mate)
        } else if end >= 1 && b[end - 1] == b'#' {
            end -= 1;
            Some(Suffix::Mate)
        } else if end >= 1 && b[end - 1] == b'+' {
            end -= 1;
            Some(Suffix::Check)
        } else {
            None
        };
        let (body, grab) = match super::grab::split_grab(&b[..end]) {
            Some((n, square)) => (&b[..n], Some(square)),
            None => (&b[..end], None),
        };
        let kind = match body {
            b"" => return Err(perr(0, "a move")),
            b"O-O" | b"0-0" => SanKind::Castle(CastlingSide::King),
            b"O-O-O" | b"0-0-0" => SanKind::Castle(CastlingSide::Queen),
            _ => match body.iter().position(|&c| c == b'@') {
                Some(at) => parse_drop(body, at)?,
                None => parse_normal(body)?,
            },
        };
        Ok(San { kind, suffix, grab })
    }
}

fn parse_drop(body: &[u8], at: usize) -> Result<SanKind, ParseSanError> {
    let role = match &body[..at] {
        [] => Role::Pawn,
        [c] => Role::from_char(*c as char).ok_or_else(|| perr(0, "a piece letter before '@'"))?,
        _ => return Err(perr(1, "'@' after one piece letter")),
    };
    let to = Square::from_ascii(&body[at + 1..]).map_err(|_| perr(at + 1, "a square after '@'"))?;
    Ok(SanKind::Drop { role, to })
}

fn parse_normal(body: &[u8]) -> Result<SanKind, ParseSanError> {
    let mut i = 0;
    let role = match body.first().and_then(|&c| piece_letter(c)) {
        Some(r) => {
            i = 1;
            r
        }
        None => Role::Pawn,
    };
    let mut end = body.len();
    // Promotion: `=Q`, `(Q)` or a bare `Q` after the square.
    let mut promotion = None;
    if end >= 3 && body[end - 1] == b')' && body[end - 3] == b'(' {
        promotion = Some(promotion_letter(body[end - 2]).ok_or_else(|| perr(end - 2, "a piece"))?);
        end -= 3;
    } else if end >= 1 && body[end - 1].is_ascii_alphabetic() {
        let c = body[end - 1];
        if let Some(p) = promotion_letter(c).filter(|_| !(b'a'..=b'h').contains(&c)) {
            promotion = Some(p);
            end -= 1;
            if end >= 1 && body[end - 1] == b'=' {
                end -= 1;
            }
        } else if c != b'b' {
            return Err(perr(end - 1, "a square or a promotion piece"));
        }
    }
    if end < i + 2 {
        return Err(perr(i, "a destination square"));
    }
    let to = Square::from_ascii(&body[end - 2..end])
        .map_err(|_| perr(end - 2, "a destination square"))?;
    let mut rest = &body[i..end - 2];
    let mut capture = false;
    if let [before @ .., b'x' | b':'] = rest {
        capture = true;
        rest = before;
    }
    let (file, rank) = match rest {
        [] => (None, None),
        [c] => match (File::from_char(*c as char), Rank::from_char(*c as char)) {
            (Some(f), _) => (Some(f), None),
            (_, Some(r)) => (None, Some(r)),
            _ => return Err(perr(i, "a file or rank of the origin")),
        },
        [f, r] => match (File::from_char(*f as char), Rank::from_char(*r as char)) {
            (Some(f), Some(r)) => (Some(f), Some(r)),
            _ => return Err(perr(i, "the origin square")),
        },
        _ => return Err(perr(i, "a move like Nbd7, exd5 or e4")),
    };
    if role == Role::Pawn && rank.is_some() && file.is_none() {
        return Err(perr(i, "a pawn's origin file"));
    }
    if promotion.is_some() && role != Role::Pawn {
        return Err(perr(end, "no promotion for a piece"));
    }
    Ok(SanKind::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    })
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            SanKind::Castle(CastlingSide::King) => f.write_str("O-O")?,
            SanKind::Castle(CastlingSide::Queen) => f.write_str("O-O-O")?,
            SanKind::Drop { role, to } => write!(f, "{}@{}", role.upper_char(), to)?,
            SanKind::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                if role != Role::Pawn {
                    write!(f, "{}", role.upper_char())?;
                }
                if let Some(file) = file {
                    write!(f, "{}", file.char())?;
                }
                if let Some(rank) = rank {
                    write!(f, "{}", rank.char())?;
                }
                if capture {
                    f.write_str("x")?;
                }
                write!(f, "{to}")?;
                if let Some(p) = promotion {
                    write!(f, "={}", p.upper_char())?;
                }
            }
        }
        if let Some(grab) = self.grab {
            write!(f, "{grab}")?;
        }
        if let Some(s) = self.suffix {
            f.write_str(s.as_str())?;
        }
        Ok(())
    }
}

impl San {
    /// Whether `m` (a move of `position`, normalized) is what this SAN says, ignoring the
    /// capture flag and the suffix (real files are loose about both).
    fn matches(&self, position: &Position, m: &Move) -> bool {
        match (self.kind, *m) {
            (SanKind::Drop { role, to }, Move::Drop { piece, to: t }) => {
                role == piece.role && to == t
            }
            (SanKind::Castle(side), Move::Castle { king, rook }) => {
                (rook > king) == (side == CastlingSide::King)
            }
            (
                SanKind::Normal {
                    role,
                    file,
                    rank,
                    to,
                    promotion,
                    ..
                },
                Move::Normal { .. } | Move::EnPassant { .. },
            ) => {
                let Some(from) = m.from() else { return false };
                let promotes = m.promotion().is_some();
                let wanted_promotion = match promotion {
                    Some(p) => Some(p),
                    None if promotes => Some(Role::Queen),
                    None => None,
                };
                position.board().role_at(from) == Some(role)
                    && m.role() == role
                    && m.to() == to
                    && file.is_none_or(|f| f == from.file())
                    && rank.is_none_or(|r| r == from.rank())
                    && m.promotion() == wanted_promotion
            }
            _ => false,
        }
    }

    /// Resolves this SAN on `position` for the side to move, then (out of turn) for the
    /// other side. See [`San::to_move_for`].
    ///
    /// # Errors
    ///
    /// [`SanError::Illegal`] when no move fits; [`SanError::Ambiguous`] when several do.
    pub fn to_move(&self, position: &Position) -> Result<Move, SanError> {
        match self.to_move_for(position, position.turn()) {
            Err(SanError::Illegal) => self.to_move_for(position, position.turn().other()),
            other => other,
        }
    }

    /// Resolves this SAN on `position` as a move of `color` (a BPGN token says whose move
    /// it is): among the legal moves first; when none fits (or `color` is not to move),
    /// among the physically possible moves of `color`.
    ///
    /// # Errors
    ///
    /// [`SanError::Illegal`] when no move fits; [`SanError::Ambiguous`] when several do.
    pub fn to_move_for(&self, position: &Position, color: Color) -> Result<Move, SanError> {
        if color == position.turn() {
            let legal: Vec<Move> = position
                .legal_moves()
                .into_iter()
                .filter(|m| self.matches(position, m))
                .collect();
            match legal.as_slice() {
                [m] => return Ok(*m),
                [] => {}
                _ => return Err(SanError::Ambiguous),
            }
        }
        let physical: Vec<Move> = physical_candidates(position, self, color)
            .into_iter()
            .map(|m| position.normalize(&m))
            .filter(|m| self.matches(position, m))
            .collect();
        match physical.as_slice() {
            [m] => Ok(*m),
            [] => Err(SanError::Illegal),
            _ => Err(SanError::Ambiguous),
        }
    }

    /// The SAN of `m` on `position`: disambiguated only against other *legal* moves of the
    /// same role to the same square (by file, then rank, then both), with `+` or `#`
    /// (bughouse mate: a check that a potential piece could block is `+`). A move that is
    /// not legal there and that its short SAN would not name (a reader would take it for
    /// another move, or none) names its origin square in full (`c6e6`).
    #[must_use]
    pub fn from_move(position: &Position, m: &Move) -> San {
        let m = position.normalize(m);
        let kind = match m {
            Move::Drop { piece, to } => SanKind::Drop {
                role: piece.role,
                to,
            },
            Move::Castle { king, rook } => SanKind::Castle(if rook > king {
                CastlingSide::King
            } else {
                CastlingSide::Queen
            }),
            Move::Normal { .. } | Move::EnPassant { .. } => {
                // Only a pawn promotes: a promotion the record holds of another piece (a
                // placeholder kind, illegal) is written as the pawn's, which every reader
                // parses (and finds illegal there) rather than a text none reads.
                let role = if m.promotion().is_some() {
                    Role::Pawn
                } else {
                    m.role()
                };
                let to = m.to();
                let from = m.from().unwrap_or(to);
                let (file, rank) = if role == Role::Pawn {
                    (m.is_capture().then_some(from.file()), None)
                } else {
                    disambiguation(position, role, from, to)
                };
                let short = SanKind::Normal {
                    role,
                    file,
                    rank,
                    capture: m.is_capture(),
                    to,
                    promotion: m.promotion(),
                };
                if position.is_legal(&m) || names(position, short, &m) {
                    short
                } else {
                    // An illegal move whose short SAN a reader would take for another move
                    // (one legal there: a pawn placeholder moving as the rook it is, `e6`,
                    // read as another pawn's step) or for none names its origin in full.
                    let mut full = short;
                    if let SanKind::Normal { file, rank, .. } = &mut full {
                        *file = Some(from.file());
                        *rank = Some(from.rank());
                    }
                    full
                }
            }
        };
        let mut after = position.clone();
        after.play(&m);
        let suffix = if after.is_checkmate() {
            Some(Suffix::Mate)
        } else if after.is_check() {
            Some(Suffix::Check)
        } else {
            None
        };
        San {
            kind,
            suffix,
            grab: None,
        }
    }

    /// The same SAN with a Koedem grab square (`e8=Q` → `e8=Qd1`).
    #[must_use]
    pub const fn with_grab(self, grab: Option<Square>) -> San {
        San { grab, ..self }
    }
}

/// Whether `kind` read on `position` (as a reader resolves it: legal moves first, then
/// the physically possible ones of the mover) is `m`.
fn names(position: &Position, kind: SanKind, m: &Move) -> bool {
    let san = San {
        kind,
        suffix: None,
        grab: None,
    };
    san.to_move_for(position, position.mover(m))
        .is_ok_and(|r| r.from() == m.from() && r.to() == m.to() && r.promotion() == m.promotion())
}

/// File, rank or both, against the other legal moves of `role` to `to`.
fn disambiguation(
    position: &Position,
    role: Role,
    from: Square,
    to: Square,
) -> (Option<File>, Option<Rank>) {
    let others: Vec<Square> = position
        .legal_moves()
        .into_iter()
        .filter(|o| matches!(o, Move::Normal { .. }) && o.role() == role && o.to() == to)
        .filter_map(|o| o.from())
        .filter(|&f| f != from)
        .collect();
    if others.is_empty() {
        (None, None)
    } else if others.iter().all(|o| o.file() != from.file()) {
        (Some(from.file()), None)
    } else if others.iter().all(|o| o.rank() != from.rank()) {
        (None, Some(from.rank()))
    } else {
        (Some(from.file()), Some(from.rank()))
    }
}

/// The moves `color` could physically make that this SAN may describe: any piece of the
/// role whose movement reaches the square (pins and checks ignored), any drop on an empty
/// square (holdings ignored), castling when king and rook stand at home (rights ignored:
/// the rook keeping the right on that side, else the corner's).
fn physical_candidates(position: &Position, san: &San, color: Color) -> Vec<Move> {
    let board = position.board();
    let occupied = board.occupied();
    let ours = board.by_color(color);
    let home = Rank::First.relative_to(color);
    match san.kind {
        SanKind::Drop { role, to } => {
            if occupied.contains(to) {
                Vec::new()
            } else {
                vec![Move::Drop {
                    piece: role.of(color),
                    to,
                }]
            }
        }
        SanKind::Castle(side) => {
            let king = position.castling_king(color);
            let king_side = side == CastlingSide::King;
            let corner = if king_side { File::H } else { File::A };
            let rook = position
                .castling_rook(color, king_side)
                .unwrap_or(Square::from_coords(corner, home));
            if board.piece_at(king) == Some(Role::King.of(color))
                && board.piece_at(rook) == Some(Role::Rook.of(color))
            {
                vec![Move::Castle { king, rook }]
            } else {
                Vec::new()
            }
        }
        SanKind::Normal {
            role,
            to,
            promotion,
            ..
        } => {
            if ours.contains(to) {
                return Vec::new();
            }
            let mut out = Vec::new();
            for from in board.by_piece(role.of(color)) {
                let reaches = if role == Role::Pawn {
                    pawn_reaches(position, color, from, to)
                } else {
                    attacks(role, color, from, occupied).contains(to)
                };
                if reaches {
                    out.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion,
                    });
                }
            }
            out
        }
    }
}

/// A pawn's push, double push from its second rank, capture, or capture en passant.
fn pawn_reaches(position: &Position, color: Color, from: Square, to: Square) -> bool {
    let occupied = position.board().occupied();
    let forward: i8 = color.fold(1, -1);
    if from.file() == to.file() {
        let Some(one) = from.offset(0, forward) else {
            return false;
        };
        if occupied.contains(one) {
            return false;
        }
        if one == to {
            return true;
        }
        let second = Bitboard::from_rank(Rank::Second.relative_to(color));
        return second.contains(from)
            && one.offset(0, forward) == Some(to)
            && !occupied.contains(to);
    }
    pawn_attacks(color, from).contains(to)
        && (position.board().by_color(color.other()).contains(to)
            || position.ep_square() == Some(to))
}

/// The SAN text of `m` on `position` (see [`San::from_move`]).
#[must_use]
pub fn san_string(position: &Position, m: &Move) -> String {
    San::from_move(position, m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::bfen::parse_board_fen;
    use crate::rules::{IllegalReason, Legality, Ruleset};

    fn pos(fen: &str) -> Position {
        parse_board_fen(fen, Ruleset::default())
            .expect("test FEN")
            .position
    }

    fn san(text: &str) -> San {
        text.parse().expect("test SAN")
    }

    fn resolve(fen: &str, text: &str) -> Result<Move, SanError> {
        san(text).to_move(&pos(fen))
    }

    fn write(fen: &str, uci: &str) -> String {
        let p = pos(fen);
        let m = p
            .legal_moves()
            .into_iter()
            .find(|m| m.uci() == uci)
            .expect("a legal move of the test");
        san_string(&p, &m)
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn drops_are_read_in_every_form_and_written_one_way() {
        let want = SanKind::Drop {
            role: Role::Pawn,
            to: "e4".parse().expect("square"),
        };
        for text in ["P@e4", "p@e4", "@e4"] {
            assert_eq!(san(text).kind, want, "{text}");
            assert_eq!(san(text).to_string(), "P@e4");
        }
        assert_eq!(san("N@f3").to_string(), "N@f3");
        assert_eq!(san("n@f3").to_string(), "N@f3");
        assert_eq!(san("Q@c8#").suffix, Some(Suffix::Mate));
    }

    #[test]
    fn promotions_castling_and_suffixes_are_read_loosely() {
        for text in ["e8=Q", "e8Q", "e8(Q)", "e8=q"] {
            assert_eq!(san(text).to_string(), "e8=Q", "{text}");
        }
        assert_eq!(san("fxg8=N+").to_string(), "fxg8=N+");
        for (text, out) in [
            ("O-O", "O-O"),
            ("0-0", "O-O"),
            ("O-O-O", "O-O-O"),
            ("0-0-0+", "O-O-O+"),
        ] {
            assert_eq!(san(text).to_string(), out);
        }
        assert_eq!(san("Qh5++").suffix, Some(Suffix::Mate));
        assert_eq!(san("Qh5#").to_string(), "Qh5#");
        assert_eq!(san("Nf3+!?").to_string(), "Nf3+");
        assert_eq!(san("e4!").to_string(), "e4");
        assert_eq!(san("Nhxf6+").to_string(), "Nhxf6+");
        assert_eq!(san("B8d7").to_string(), "B8d7");
        assert_eq!(san("Ng1f3").to_string(), "Ng1f3");
        assert_eq!(san("bxc3").to_string(), "bxc3");
    }

    #[test]
    fn malformed_san_names_the_place() {
        for (text, offset) in [
            ("", 0),
            ("Z4", 0),
            ("e9", 0),
            ("Nxx", 2),
            ("P@", 2),
            ("PP@e4", 1),
            ("X@e4", 0),
            ("Nabcd4", 1),
            ("Ne4=Q", 3),
            ("+", 0),
        ] {
            let e = text.parse::<San>().expect_err(text);
            assert_eq!(e.offset, offset, "{text}: {e}");
            assert!(!e.expected.is_empty());
        }
    }

    #[test]
    fn resolution_tells_illegal_from_ambiguous() {
        let two_knights = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
        assert_eq!(resolve(two_knights, "Nd2"), Err(SanError::Ambiguous));
        assert_eq!(
            resolve(two_knights, "Nbd2").map(|m| m.uci()),
            Ok("b1d2".into())
        );
        assert_eq!(
            resolve(two_knights, "Nfd2").map(|m| m.uci()),
            Ok("f3d2".into())
        );
        assert_eq!(resolve(START, "Nd5"), Err(SanError::Illegal));
        let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(resolve(castle, "O-O").map(|m| m.uci()), Ok("e1g1".into()));
        assert_eq!(resolve(castle, "0-0-0").map(|m| m.uci()), Ok("e1c1".into()));
        let promote = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(
            resolve(promote, "b8=N").map(|m| m.uci()),
            Ok("b7b8n".into())
        );
        assert_eq!(resolve(promote, "b8").map(|m| m.uci()), Ok("b7b8q".into()));
    }

    #[test]
    fn completed_illegal_moves_resolve_to_what_was_played() {
        let p = pos(START);
        // A drop of a piece not in hand.
        let m = san("N@e4").to_move(&p).expect("physical drop");
        assert_eq!(
            p.classify(&m),
            Legality::Illegal(IllegalReason::DropNotInHand)
        );
        // Out of turn: Black's pawn moves while White is to move.
        let m = san("e5").to_move(&p).expect("black pawn");
        assert_eq!(m.uci(), "e7e5");
        assert_eq!(p.classify(&m), Legality::Illegal(IllegalReason::OutOfTurn));
        // A pinned knight moves.
        let pinned = pos("4k3/8/8/7N/8/6p1/8/4KN1r w - - 0 1");
        let m = san("Nd2").to_move(&pinned).expect("pinned knight");
        assert_eq!(m.uci(), "f1d2");
        assert_eq!(
            pinned.classify(&m),
            Legality::Illegal(IllegalReason::LeavesKingInCheck)
        );
        // A pawn dropped on the back rank.
        let holding = pos("4k3/8/8/8/8/8/8/4K3/P w - - 0 1");
        let m = san("P@a8").to_move(&holding).expect("back-rank drop");
        assert_eq!(
            holding.classify(&m),
            Legality::Illegal(IllegalReason::PawnDropBackRank)
        );
        // Nothing can drop on an occupied square.
        assert_eq!(san("P@e8").to_move(&holding), Err(SanError::Illegal));
    }

    #[test]
    fn writing_disambiguates_by_file_then_rank_then_both() {
        let files = "4k3/8/8/8/8/8/8/4NKN1 w - - 0 1";
        assert_eq!(write(files, "e1f3"), "Nef3");
        assert_eq!(write(files, "g1f3"), "Ngf3");
        let ranks = "4k3/8/8/6N1/8/8/8/4K1N1 w - - 0 1";
        assert_eq!(write(ranks, "g1f3"), "N1f3");
        assert_eq!(write(ranks, "g5f3"), "N5f3");
        let three = "4k3/8/8/6N1/8/8/8/K3N1N1 w - - 0 1";
        assert_eq!(write(three, "g1f3"), "Ng1f3");
        assert_eq!(write(three, "e1f3"), "Nef3");
        assert_eq!(write(three, "g5f3"), "N5f3");
        // The knight on f1 is pinned by the rook on h1: only h5 may take, no disambiguation
        // (34B. Nxg3 of ambiguous_Nx_34B.bpgn).
        let pinned = "4k3/8/8/7N/8/6p1/8/4KN1r w - - 0 1";
        assert_eq!(write(pinned, "h5g3"), "Nxg3");
        // Pawn captures name their file; en passant is a plain capture.
        assert_eq!(write("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6");
    }

    #[test]
    fn writing_promotions_castling_and_drops() {
        let promote = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(write(promote, "b7b8q"), "b8=Q+");
        assert_eq!(write(promote, "b7b8n"), "b8=N");
        let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(write(castle, "e1g1"), "O-O");
        assert_eq!(write(castle, "e1c1"), "O-O-O");
        assert_eq!(write("4k3/8/8/8/8/8/8/4K3/N w - - 0 1", "N@f3"), "N@f3");
    }

    #[test]
    fn mate_is_bughouse_mate() {
        // A back-rank check: in chess mate, in bughouse Black may still get a piece to
        // drop on b8..f8, so it is only check.
        assert_eq!(write("6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1", "a1a8"), "Ra8+");
        // A contact check by a protected queen cannot be blocked: mate.
        assert_eq!(write("7k/8/5P2/8/8/8/8/4K3/Q w - - 0 1", "Q@g7"), "Q@g7#");
    }

    #[test]
    fn san_round_trips_through_text() {
        for text in [
            "e4", "exd5", "Nf3", "Nbd7", "R1e2", "Qh4e1", "e8=Q", "bxa1=N+", "O-O", "O-O-O#",
            "P@e4", "N@f3+", "Q@c8#", "Kxe2",
        ] {
            assert_eq!(san(text).to_string(), text);
            assert_eq!(san(&san(text).to_string()), san(text));
        }
    }

    #[test]
    fn an_illegal_move_names_its_origin_and_reads_as_no_other_move() {
        let sq = |s: &str| s.parse::<Square>().expect("square");
        // A pawn placeholder moving as the rook it is: written `e6`, a reader would take
        // it for the pawn on e5's step.
        let p = pos("4k3/8/2P5/4P3/8/8/8/4K3 w - - 0 1");
        let sideways = Move::Normal {
            role: Role::Pawn,
            from: sq("c6"),
            capture: None,
            to: sq("e6"),
            promotion: None,
        };
        assert_eq!(san_string(&p, &sideways), "c6e6");
        assert!(san("c6e6").to_move(&p).is_err());
        // A piece the record holds as a queen "promoting": written as the pawn's
        // promotion, which parses (a text no reader parses drops the move from the file).
        let p = pos("4k3/8/8/8/8/8/2q5/3RK3 b - - 0 1");
        let promoted = Move::Normal {
            role: Role::Queen,
            from: sq("c2"),
            capture: Some(Role::Rook),
            to: sq("d1"),
            promotion: Some(Role::Queen),
        };
        let text = san_string(&p, &promoted);
        assert!(text.starts_with("c2xd1=Q"), "{text}");
        assert!(text.parse::<San>().is_ok(), "{text}");
        // Legal moves are written as before.
        assert_eq!(write(START, "g1f3"), "Nf3");
    }
}
