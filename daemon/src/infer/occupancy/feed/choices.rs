//! The `kind-undetermined` alert names its move and offers the arbiter each kind in one
//! click.
//!
//! A drop or a promotion whose kind the board could not tell is recorded with a
//! placeholder; the alert says which move it is (`number`, `side`, `san`, as the record
//! numbers it) and carries one choice per kind it may be: a `replace` of the drop by that
//! kind's drop, or the `promotion` of that piece. A move of a piece of open kind offers the
//! same choices for the drop or promotion that put the piece down (the one move whose
//! kind the arbiter corrects; the piece's later moves follow it in the record).

use crate::infer::{Alert, AlertChoice, AlertCode, Inference, OperatorAction};
use crate::rules::notation::san_string;
use crate::rules::{BoardId, BughouseGame, ByBoard, Color, Move, Role, Square};

use super::consistent::{HandedMove, KindOf};
use super::{OccupancyFeed, OccupancyMove, with_role};

/// Which handed-on drop or promotion put the piece of open kind standing on each square
/// (its index among the moves handed on).
#[derive(Debug, Clone)]
pub(super) struct Origins(ByBoard<[Option<usize>; 64]>);

impl Default for Origins {
    fn default() -> Self {
        Origins(ByBoard::new_with(|_| [None; 64]))
    }
}

impl Origins {
    /// The move handed on as index `i` was played: its piece, if of open kind, is
    /// followed to its square.
    pub(super) fn played(&mut self, i: usize, h: &HandedMove) {
        let squares = &mut self.0[h.board];
        match h.mv {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } => {
                squares[to.index()] = squares[from.index()].take();
            }
            Move::Castle { king, rook } => {
                squares[king.index()] = None;
                squares[rook.index()] = None;
            }
            Move::Drop { to, .. } => squares[to.index()] = None,
        }
        if !h.kinds.is_empty() {
            squares[h.mv.to().index()] = Some(i);
        }
    }

    /// The drop or promotion that put the piece of open kind on `sq` of `board`.
    fn of(&self, board: BoardId, sq: Square) -> Option<usize> {
        self.0[board][sq.index()]
    }
}

impl OccupancyFeed {
    /// The `kind-undetermined` alert of `m`, about to be handed on as move `index` (the
    /// game as handed on is the one before it), with `detail`.
    pub(super) fn kind_alert(
        &self,
        m: &OccupancyMove,
        index: usize,
        t: u64,
        detail: String,
    ) -> Inference {
        let pos = self.shown.board(m.board);
        let side = pos.mover(&m.mv);
        let mut alert = Alert::about_board(t, m.board, AlertCode::KindUndetermined, detail);
        alert.side = Some(side);
        alert.number = Some(self.number(index, m.board, side));
        alert.san = Some(san_string(pos, &m.mv));
        let kinds = HandedMove::open_kinds(m, &self.start);
        let own = self.choices_at(&self.shown, m.board, &m.mv, side, index, &kinds, false);
        // A move of a piece of open kind (or a pawn's promotion the record has as that
        // piece's move): the choices correct the move that put it down, for the kinds its
        // move leaves (those other than a pawn promoting, when the record has the move as
        // a promotion: its own choices are those).
        let named = note_kinds(m);
        let origin = (kinds.is_empty() || named.iter().any(|&k| k != Role::Pawn))
            .then(|| m.mv.from().and_then(|from| self.origins.of(m.board, from)))
            .flatten()
            .filter(|_| kinds.is_empty() || !named.is_empty());
        let theirs = origin
            .map(|i| {
                let open = &self.handed[i].kinds;
                // A piece a promotion made "may be a pawn": a pawn that promoted, to any
                // of the promotion's kinds that make the move.
                let promoted = !self.handed[i].mv.is_drop() && named.contains(&Role::Pawn);
                let mut wanted: Vec<Role> = open
                    .iter()
                    .copied()
                    .filter(|k| named.contains(k) && (kinds.is_empty() || *k != Role::Pawn))
                    .collect();
                if kinds.is_empty() && (promoted || wanted.is_empty()) {
                    wanted.clone_from(open);
                }
                self.choices_for(i, &wanted, true)
            })
            .unwrap_or_default();
        alert.choices = own.into_iter().chain(theirs).collect();
        Inference::Alert(alert)
    }

    /// The choices correcting handed-on move `i` to each of `kinds`.
    fn choices_for(&self, i: usize, kinds: &[Role], numbered: bool) -> Vec<AlertChoice> {
        let mut before = self.start.clone();
        for h in &self.handed[..i] {
            before.play(h.board, &h.mv, h.t);
        }
        let h = &self.handed[i];
        let side = before.board(h.board).mover(&h.mv);
        self.choices_at(&before, h.board, &h.mv, side, i, kinds, numbered)
    }

    /// The choices making `mv` (handed on as move `index`, played by `side` on `board`
    /// after `before`) each of `kinds`: labelled by the move they record, with its number
    /// when `numbered` (another move than the alert's).
    #[allow(clippy::too_many_arguments)]
    fn choices_at(
        &self,
        before: &BughouseGame,
        board: BoardId,
        mv: &Move,
        side: Color,
        index: usize,
        kinds: &[Role],
        numbered: bool,
    ) -> Vec<AlertChoice> {
        let number = self.number(index, board, side);
        kinds
            .iter()
            .filter_map(|&role| {
                let chosen = with_role(mv, role)?;
                let san = san_string(before.board(board), &chosen);
                let label = if numbered {
                    numbered_san(number, side, &san)
                } else {
                    san.clone()
                };
                let action = match mv {
                    Move::Drop { .. } => OperatorAction::Replace {
                        board,
                        number,
                        side,
                        san,
                    },
                    _ => OperatorAction::Promotion {
                        board,
                        number,
                        side,
                        piece: chosen.role_of_kind()?,
                    },
                };
                Some(AlertChoice { label, action })
            })
            .collect()
    }

    /// The record's move number of handed-on move `index` of `side` on `board`.
    pub(super) fn number(&self, index: usize, board: BoardId, side: Color) -> u32 {
        let before = self.handed[..index.min(self.handed.len())]
            .iter()
            .filter(|h| h.board == board && h.side == side)
            .count();
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }
}

/// `san` as the record numbers it: `12. Nf3` for White's twelfth move, `12... Nf6` for
/// Black's.
pub(super) fn numbered_san(number: u32, side: Color, san: &str) -> String {
    let dots = if side == Color::White { "." } else { "..." };
    format!("{number}{dots} {san}")
}

/// The kinds a move's note names for its piece.
fn note_kinds(m: &OccupancyMove) -> Vec<Role> {
    use super::KindNote;
    match &m.note {
        KindNote::Exact => Vec::new(),
        KindNote::PromotionAssumed { choices }
        | KindNote::DropUndetermined { choices }
        | KindNote::PieceOpen { choices } => choices.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{Board, DROP_ON_E3_THEN_TO_E5, feed_with};
    use super::*;

    /// What a `kind-undetermined` alert names: number, side, SAN, choices' labels.
    type Said = (Option<u32>, Option<Color>, Option<String>, Vec<String>);

    /// The `kind-undetermined` alerts in `alerts`, as they name their move and choices.
    fn said(alerts: &[Inference]) -> Vec<Said> {
        alerts
            .iter()
            .filter_map(|a| match a {
                Inference::Alert(a) if a.code == AlertCode::KindUndetermined => Some((
                    a.number,
                    a.side,
                    a.san.clone(),
                    a.choices.iter().map(|c| c.label.clone()).collect(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_undetermined_drop_offers_each_kind_and_a_move_of_its_piece_the_drop_again() {
        // White holds a rook and a queen; R/Q@e3 e6, then the piece goes to e5 (either).
        let mut feed = feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/RQ w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        );
        let (_, alerts) = Board::of(&feed).play(&mut feed, &DROP_ON_E3_THEN_TO_E5);
        let said = said(&alerts);
        assert_eq!(said.len(), 2, "{alerts:?}");
        let (number, side, san, labels) = &said[0];
        assert_eq!((*number, *side), (Some(1), Some(Color::White)));
        let placeholder = san.clone().expect("the drop's SAN");
        assert!(labels.contains(&placeholder), "{labels:?}");
        assert_eq!(labels.len(), 2, "{labels:?}");
        assert!(labels.iter().all(|l| l.ends_with("@e3")), "{labels:?}");
        // The piece's move names the drop: one click corrects the drop, numbered.
        let (number, _, san, labels) = &said[1];
        assert_eq!(*number, Some(2));
        assert!(san.as_deref().is_some_and(|s| s.ends_with("e5")), "{san:?}");
        assert_eq!(labels, &["1. R@e3".to_owned(), "1. Q@e3".to_owned()]);
        let Some(Inference::Alert(a)) = alerts
            .iter()
            .rev()
            .find(|a| matches!(a, Inference::Alert(a) if a.code == AlertCode::KindUndetermined))
        else {
            unreachable!("said above");
        };
        assert_eq!(
            a.choices[1].action,
            OperatorAction::Replace {
                board: BoardId::A,
                number: 1,
                side: Color::White,
                san: "Q@e3".to_owned(),
            }
        );
    }
}
