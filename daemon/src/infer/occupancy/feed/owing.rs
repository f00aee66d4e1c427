//! The game as handed on, with the debts of drops handed on before their piece was in hand.
//!
//! The reading often hands on a drop before the capture that supplied it (the partner
//! board was stalled, or read again later, by the arbiter's fill or a click); the record
//! keeps such a drop owing its piece and settles the debt with that capture
//! (`infer/owing.rs`). Played without the debt, the game as handed on would have the
//! capture fill the hand again: a piece the record's hand does not hold, which a later
//! drop's placeholder could take (random 23 of the clicks: a rook dropped on d3 read as a
//! pawn, the pawn a premature drop had taken still in hand here, so the placeholder fit
//! nothing, and the record alerted a premature pawn drop that was a legal rook's).

use std::ops::Deref;

use crate::infer::owing::{Debts, play_owing};
use crate::rules::{
    BoardId, BughouseGame, Color, IllegalReason, Legality, Move, MoveOutcome, Seat,
};

/// A game whose drops not in hand owe their piece.
#[derive(Debug, Clone)]
pub(in crate::infer::occupancy) struct Owing {
    game: BughouseGame,
    debts: Debts,
}

impl Owing {
    /// From `game`, nothing owed.
    pub(in crate::infer::occupancy) fn new(game: BughouseGame) -> Owing {
        Owing {
            game,
            debts: Debts::default(),
        }
    }

    /// Plays `mv` on `board` at `t`: a drop whose piece is not in hand owes it. Returns
    /// what the move did (its capture's handoff).
    pub(in crate::infer::occupancy) fn play(
        &mut self,
        board: BoardId,
        mv: &Move,
        t: u64,
    ) -> MoveOutcome {
        let legality = self.game.classify(board, mv);
        let owes = legality == Legality::Illegal(IllegalReason::DropNotInHand);
        play_owing(
            &mut self.game,
            &mut self.debts,
            (board, mv, t),
            legality,
            owes,
        )
    }

    /// How many pieces `seat` owes.
    pub(in crate::infer::occupancy) fn owes(&self, seat: Seat) -> usize {
        self.debts[seat.board][seat.color]
            .iter()
            .map(|&d| usize::from(d))
            .sum()
    }

    /// How many pieces the seats owe in all.
    pub(in crate::infer::occupancy) fn owed(&self) -> usize {
        BoardId::ALL
            .into_iter()
            .flat_map(|board| Color::ALL.map(|color| Seat { board, color }))
            .map(|seat| self.owes(seat))
            .sum()
    }
}

impl Deref for Owing {
    type Target = BughouseGame;

    fn deref(&self) -> &BughouseGame {
        &self.game
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Piece, Role, Ruleset, Square};

    fn sq(s: &str) -> Square {
        s.parse().expect("square")
    }

    /// The legal move of `board` from `from` to `to` in `game`.
    fn step(game: &BughouseGame, board: BoardId, from: &str, to: &str) -> Move {
        game.board(board)
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(sq(from)) && m.to() == sq(to))
            .expect("a legal move")
    }

    #[test]
    fn the_capture_that_supplies_a_drop_handed_on_before_it_settles_its_debt() {
        let mut owing = Owing::new(BughouseGame::new(Ruleset::default()));
        let mut plain = BughouseGame::new(Ruleset::default());
        // White on B drops a pawn its hand does not hold yet; then black on A takes a
        // pawn, which goes to white on B.
        let pawn = Move::Drop {
            piece: Piece {
                color: Color::White,
                role: Role::Pawn,
            },
            to: sq("e4"),
        };
        owing.play(BoardId::B, &pawn, 0);
        plain.play(BoardId::B, &pawn, 0);
        for (from, to) in [("e2", "e4"), ("d7", "d5"), ("a2", "a3"), ("d5", "e4")] {
            let mv = step(&owing, BoardId::A, from, to);
            owing.play(BoardId::A, &mv, 0);
            plain.play(BoardId::A, &mv, 0);
        }
        let hand = |g: &BughouseGame| g.board(BoardId::B).pockets()[Color::White].count(Role::Pawn);
        assert_eq!(
            hand(&plain),
            1,
            "without the debt the pawn is in hand twice over"
        );
        assert_eq!(hand(&owing), 0);
        // Settled: the next pawn taken fills the hand.
        for (from, to) in [("b2", "b3"), ("e4", "e3"), ("f2", "e3")] {
            let mv = step(&owing, BoardId::A, from, to);
            owing.play(BoardId::A, &mv, 0);
        }
        assert_eq!(hand(&owing), 0, "white's capture goes to black on B");
        let mv = step(&owing, BoardId::A, "c7", "c5");
        owing.play(BoardId::A, &mv, 0);
        let mv = step(&owing, BoardId::A, "b3", "b4");
        owing.play(BoardId::A, &mv, 0);
        let mv = step(&owing, BoardId::A, "c5", "b4");
        owing.play(BoardId::A, &mv, 0);
        assert_eq!(hand(&owing), 1);
    }
}
