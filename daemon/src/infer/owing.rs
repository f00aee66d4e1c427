//! Drops that owe their piece.
//!
//! A drop read before the capture that supplies it (the partner's capture not read yet, or
//! read a moment later) takes a piece the hand does not hold yet: it owes it, and the next
//! capture that hands that kind to its seat settles the debt instead of filling the hand.
//! Without the debt that capture would leave a piece in hand that was dropped already,
//! and a later drop could take it a second time. The record keeps such debts for premature
//! drops (`engine.rs`), and the occupancy feed for every drop it hands on whose piece is
//! not in hand, so that the kinds it fits to its placeholders are those the record's
//! hands hold (`occupancy/feed/owing.rs`).

use crate::rules::{BoardId, BughouseGame, ByBoard, ByColor, Legality, Move, MoveOutcome};

/// What each seat owes, by kind ([`crate::rules::Role::index`]).
pub(crate) type Debts = ByBoard<ByColor<[u8; 6]>>;

/// Plays `mv` on `board` as `legality` says; when `owes`, a drop owes its piece. A capture
/// handing a kind its receiver owes settles one debt: the piece leaves the hand again.
pub(crate) fn play_owing(
    game: &mut BughouseGame,
    debts: &mut Debts,
    (board, mv, t): (BoardId, &Move, u64),
    legality: Legality,
    owes: bool,
) -> MoveOutcome {
    let outcome = game.play_classified(board, mv, legality, t);
    if owes && let Move::Drop { piece, .. } = *mv {
        let d = &mut debts[board][piece.color][piece.role.index()];
        *d = d.saturating_add(1);
    }
    if let Some((seat, role)) = outcome.handoff {
        let d = &mut debts[seat.board][seat.color][role.index()];
        if *d > 0 {
            *d -= 1;
            game.board_mut(seat.board).pockets_mut()[seat.color].take(role);
        }
    }
    outcome
}
