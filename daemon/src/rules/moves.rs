//! Moves: normal, castling, en passant, promotion and drop.

use std::fmt;

use super::{Piece, Role, Square};

/// A move on one board, legal or not.
///
/// A normal move's colour is the colour of the piece on `from`; a drop names its piece,
/// because a player may drop out of turn (and that must be recorded, not guessed away).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece moves from one square to another, maybe capturing, maybe promoting.
    Normal {
        /// The role of the moving piece (as the rules see it: a promoted pawn that was
        /// declared a queen moves as a queen).
        role: Role,
        /// Where it starts.
        from: Square,
        /// The role taken on `to`, if any.
        capture: Option<Role>,
        /// Where it lands.
        to: Square,
        /// The declared piece when a pawn reaches the last rank.
        promotion: Option<Role>,
    },
    /// A pawn takes en passant.
    EnPassant {
        /// Where the pawn starts.
        from: Square,
        /// Where it lands (the square the other pawn skipped).
        to: Square,
    },
    /// The king castles with the rook on `rook`.
    Castle {
        /// The king's square before castling.
        king: Square,
        /// The rook's square before castling.
        rook: Square,
    },
    /// A piece from the holdings is put on an empty square.
    Drop {
        /// The piece dropped (its colour is the dropping player's).
        piece: Piece,
        /// Where.
        to: Square,
    },
}

impl Move {
    /// The role of the piece that moves or is dropped.
    #[must_use]
    pub const fn role(&self) -> Role {
        match *self {
            Move::Normal { role, .. } => role,
            Move::EnPassant { .. } => Role::Pawn,
            Move::Castle { .. } => Role::King,
            Move::Drop { piece, .. } => piece.role,
        }
    }

    /// The origin square (the king's for castling; none for a drop).
    #[must_use]
    pub const fn from(&self) -> Option<Square> {
        match *self {
            Move::Normal { from, .. } | Move::EnPassant { from, .. } => Some(from),
            Move::Castle { king, .. } => Some(king),
            Move::Drop { .. } => None,
        }
    }

    /// The destination: where the moving piece lands (the king's square after castling).
    #[must_use]
    pub fn to(&self) -> Square {
        match *self {
            Move::Normal { to, .. } | Move::EnPassant { to, .. } | Move::Drop { to, .. } => to,
            Move::Castle { king, rook } => castle_king_target(king, rook),
        }
    }

    /// Whether it is a capture.
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        matches!(
            *self,
            Move::Normal {
                capture: Some(_),
                ..
            } | Move::EnPassant { .. }
        )
    }

    /// The role taken, if any.
    #[must_use]
    pub const fn capture(&self) -> Option<Role> {
        match *self {
            Move::Normal { capture, .. } => capture,
            Move::EnPassant { .. } => Some(Role::Pawn),
            _ => None,
        }
    }

    /// The declared promotion piece.
    #[must_use]
    pub const fn promotion(&self) -> Option<Role> {
        match *self {
            Move::Normal { promotion, .. } => promotion,
            _ => None,
        }
    }

    /// Whether it is a drop.
    #[must_use]
    pub const fn is_drop(&self) -> bool {
        matches!(self, Move::Drop { .. })
    }

    /// UCI-like text: `e2e4`, `e7e8q`, `e1g1`, `N@f3`. For logs and tests.
    #[must_use]
    pub fn uci(&self) -> String {
        match *self {
            Move::Drop { piece, to } => format!("{}@{}", piece.role.upper_char(), to),
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => match promotion {
                Some(p) => format!("{from}{to}{}", p.char()),
                None => format!("{from}{to}"),
            },
            Move::EnPassant { from, to } => format!("{from}{to}"),
            Move::Castle { king, rook } => format!("{king}{}", castle_king_target(king, rook)),
        }
    }
}

/// Where the king lands when castling with the rook on `rook`: the c- or g-file.
#[must_use]
pub fn castle_king_target(king: Square, rook: Square) -> Square {
    let file = if rook > king { 6 } else { 2 };
    Square::from_index_masked((king.rank().index() * 8 + file) as u32)
}

/// Where the rook lands when castling: the d- or f-file.
#[must_use]
pub fn castle_rook_target(king: Square, rook: Square) -> Square {
    let file = if rook > king { 5 } else { 3 };
    Square::from_index_masked((king.rank().index() * 8 + file) as u32)
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uci())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uci())
    }
}

/// A list of moves; a plain `Vec` keeps the API simple and the generator reuses one.
pub type MoveList = Vec<Move>;
