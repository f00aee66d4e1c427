//! Why a completed move is illegal.
//!
//! The reasons are the published codes of `docs/events.md` (`"reason"` of an `illegal-move`
//! alert). A move is classified, never refused: the record keeps what was played.

use std::fmt;

/// The answer of [`Position::classify`](super::Position::classify).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Legality {
    /// The move is legal.
    Legal,
    /// The move breaks a rule; it still counts as played once the clock is pressed.
    Illegal(IllegalReason),
}

impl Legality {
    /// Whether the move is legal.
    #[must_use]
    pub const fn is_legal(self) -> bool {
        matches!(self, Legality::Legal)
    }
}

/// The rule a completed move breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The mover's own king is attacked after the move (moved into check, ignored a check,
    /// moved a pinned piece, or a drop that does not parry a check).
    LeavesKingInCheck,
    /// The piece cannot move that way (wrong geometry, jumped over a piece, took its own
    /// piece, a pawn moving backwards, a drop onto an occupied square).
    BadPieceMovement,
    /// A piece was dropped that the player does not hold.
    DropNotInHand,
    /// A pawn was dropped on the first or last rank.
    PawnDropBackRank,
    /// Castling without the right, through pieces, out of or through check.
    CastlingNotAllowed,
    /// The player moved when it was not his turn (moved twice, or moved the opponent's
    /// piece).
    OutOfTurn,
    /// A piece was dropped before the capture that supplies it was completed on the other
    /// board (decided by the inference, which knows the times).
    PrematureDrop,
    /// A pawn was promoted to a piece the ruleset does not allow (e.g. a rook under WBN).
    BadPromotion,
    /// Koedem: a player holding a captured king must drop it as his next move.
    KingNotDropped,
}

impl IllegalReason {
    /// Every reason.
    pub const ALL: [IllegalReason; 9] = [
        IllegalReason::LeavesKingInCheck,
        IllegalReason::BadPieceMovement,
        IllegalReason::DropNotInHand,
        IllegalReason::PawnDropBackRank,
        IllegalReason::CastlingNotAllowed,
        IllegalReason::OutOfTurn,
        IllegalReason::PrematureDrop,
        IllegalReason::BadPromotion,
        IllegalReason::KingNotDropped,
    ];

    /// The published code, e.g. `leaves-king-in-check`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            IllegalReason::LeavesKingInCheck => "leaves-king-in-check",
            IllegalReason::BadPieceMovement => "bad-piece-movement",
            IllegalReason::DropNotInHand => "drop-not-in-hand",
            IllegalReason::PawnDropBackRank => "pawn-drop-back-rank",
            IllegalReason::CastlingNotAllowed => "castling-not-allowed",
            IllegalReason::OutOfTurn => "out-of-turn",
            IllegalReason::PrematureDrop => "premature-drop",
            IllegalReason::BadPromotion => "bad-promotion",
            IllegalReason::KingNotDropped => "king-not-dropped",
        }
    }

    /// The reason of a published code.
    #[must_use]
    pub fn from_code(code: &str) -> Option<IllegalReason> {
        IllegalReason::ALL.into_iter().find(|r| r.code() == code)
    }
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}
