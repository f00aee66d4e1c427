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
/// (its index among the moves handed on), and, for a promotion of a piece itself of open
/// kind, the move that put that piece down: a "pawn" dropped in doubt that "promoted" may
/// have been the promoted kind all along, its move then no promotion at all (random 632:
/// a bishop dropped on b7 took on c8, read as a pawn's drop and `bxc8=B`).
#[derive(Debug, Clone)]
pub(super) struct Origins {
    squares: ByBoard<[Option<usize>; 64]>,
    /// `(promotion, origin of its pawn)`, by the promotion's index.
    promoted_from: Vec<(usize, usize)>,
}

impl Default for Origins {
    fn default() -> Self {
        Origins {
            squares: ByBoard::new_with(|_| [None; 64]),
            promoted_from: Vec::new(),
        }
    }
}

impl Origins {
    /// The move handed on as index `i` was played: its piece, if of open kind, is
    /// followed to its square.
    pub(super) fn played(&mut self, i: usize, h: &HandedMove) {
        let squares = &mut self.squares[h.board];
        match h.mv {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => {
                let origin = squares[from.index()].take();
                if let (Some(_), Some(origin)) = (promotion, origin) {
                    self.promoted_from.push((i, origin));
                }
                squares[to.index()] = origin;
            }
            Move::EnPassant { from, to } => {
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
    pub(super) fn of(&self, board: BoardId, sq: Square) -> Option<usize> {
        self.squares[board][sq.index()]
    }

    /// The move that put down the piece of open kind that promoted as handed-on move `i`.
    fn before_promotion(&self, i: usize) -> Option<usize> {
        self.promoted_from
            .iter()
            .find_map(|&(p, origin)| (p == i).then_some(origin))
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
                let mut choices = self.choices_for(i, &wanted, true);
                // The promoting piece of open kind may have been a kind named here since
                // it was put down: that move corrected makes this one no promotion.
                if let Some(j) = self.origins.before_promotion(i) {
                    let before: Vec<Role> = self.handed[j]
                        .kinds
                        .iter()
                        .copied()
                        .filter(|k| *k != Role::Pawn && named.contains(k))
                        .collect();
                    choices.extend(self.choices_for(j, &before, true));
                }
                choices
            })
            .unwrap_or_default();
        alert.choices = own.into_iter().chain(theirs).collect();
        Inference::Alert(alert)
    }

    /// The choices correcting handed-on move `i` to each of `kinds`.
    fn choices_for(&self, i: usize, kinds: &[Role], numbered: bool) -> Vec<AlertChoice> {
        // The hands as the record has them (drops handed on before their piece owe it).
        let mut before = super::owing::Owing::new(self.start.clone());
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

    #[test]
    fn a_move_of_a_piece_a_doubtful_pawn_promoted_to_offers_the_drop_as_that_kind() {
        // White holds a pawn and a bishop and drops on b7; the piece takes on c8 (a pawn
        // promoting, or the bishop) and goes on to a6 (a queen or bishop either way).
        let mut feed = feed_with(
            "2r4k/8/8/8/8/8/8/4K3/PB w - - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        );
        let (_, alerts) = Board::of(&feed).play(
            &mut feed,
            &[
                ("b7", true),
                ("h8", false),
                ("g8", true),
                ("b7", false),
                ("c8", false),
                ("c8", true),
                ("g8", false),
                ("h7", true),
                ("c8", false),
                ("a6", true),
            ],
        );
        let said = said(&alerts);
        let (number, _, san, labels) = said.last().expect("the move to a6 said");
        assert_eq!(
            (*number, san.as_deref()),
            (Some(3), Some("Ba6")),
            "{said:?}"
        );
        // One click says it was the bishop dropped: its capture was no promotion.
        assert!(labels.contains(&"1. B@b7".to_owned()), "{labels:?}");
        assert!(labels.contains(&"2. bxc8=Q+".to_owned()), "{labels:?}");
    }
}
