//! Koedem's grab promotion seen from both boards: which pieces a promoting player may
//! take from the other board.
//!
//! Seed 004: a pawn reaching the last rank is replaced by a piece of the promoter's colour
//! grabbed from the other board (never a king); the pawn goes to the opposing team. The
//! move itself is a promotion to the grabbed piece's role
//! ([`BughouseGame::play_grab_promotion`]).

use super::{Bitboard, BoardId, BughouseGame, Move, Role};

impl BughouseGame {
    /// The squares of the other board holding a piece that the promotion `m` on `board`
    /// could grab: the mover's colour, the declared role (any role but pawn and king when
    /// `m` declares none). Empty for a move that is not a promotion.
    #[must_use]
    pub fn grab_sources(&self, board: BoardId, m: &Move) -> Bitboard {
        let Some(declared) = m.promotion() else {
            return Bitboard::EMPTY;
        };
        let color = self.board(board).mover(m);
        let other = self.board(board.other()).board();
        let roles = match declared {
            Role::Pawn | Role::King => Bitboard::EMPTY,
            role => other.by_role(role),
        };
        roles & other.by_color(color)
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::notation::parse_bfen;
    use crate::rules::{BoardId, BughouseGame, Move, Role, RulesetName, Square};

    #[test]
    fn grab_sources_are_the_promoters_pieces_of_that_role_on_the_other_board() {
        let rules = RulesetName::Koedem.ruleset();
        let boards = parse_bfen(
            "4k3/1P6/8/8/8/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/RQ2K2r w - -",
            rules,
        )
        .expect("bfen");
        let game = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
        let sq = |s: &str| s.parse::<Square>().expect("square");
        let promote = |role| Move::Normal {
            role: Role::Pawn,
            from: sq("b7"),
            capture: None,
            to: sq("b8"),
            promotion: Some(role),
        };
        let rooks = game.grab_sources(BoardId::A, &promote(Role::Rook));
        assert_eq!(rooks.into_iter().collect::<Vec<_>>(), vec![sq("a1")]);
        let queens = game.grab_sources(BoardId::A, &promote(Role::Queen));
        assert_eq!(queens.into_iter().collect::<Vec<_>>(), vec![sq("b1")]);
        assert!(
            game.grab_sources(BoardId::A, &promote(Role::Knight))
                .is_empty()
        );
        assert!(
            game.grab_sources(BoardId::A, &promote(Role::King))
                .is_empty()
        );
    }
}
