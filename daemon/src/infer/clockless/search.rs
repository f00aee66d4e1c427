//! The plies that give exactly what a clockless board shows.
//!
//! From the committed position, sequences of plies that alternate sides, starting with the
//! side to move, are tried shortest first; a sequence counts when the position after it is
//! exactly the board (a promotion may still show its pawn). Every ply is legal, except a
//! drop whose piece is not in hand yet: the partner's capture that supplies it may not be
//! final yet on the other board, and the drop waits for it when it is committed. Only the
//! squares that changed, or were touched since the last commit, can be a ply's squares,
//! which keeps the search small; a node budget bounds it all the same.

use crate::rules::{Bitboard, Board, IllegalReason, Legality, Move, MoveList, Position, Role};

use super::super::Inferrer;
use super::super::matcher::{self, Explanation, LiftOrder};
use crate::rules::BoardId;

/// The most plies one explanation may have (several moves made before any was final: a
/// fast exchange, a board that was not followed for a moment).
const MAX_PLIES: usize = 4;

/// The most positions one search may visit.
const NODE_BUDGET: usize = 4000;

struct Search<'a> {
    /// Drops whose piece is not in hand yet but on its way: the other board shows the
    /// capture that supplies it.
    coming: &'a dyn Fn(&Move) -> bool,
    phys: &'a Board,
    lifts: &'a LiftOrder,
    /// The squares a ply may touch.
    area: Bitboard,
    nodes: usize,
    scratch: MoveList,
}

impl Search<'_> {
    /// A sequence of exactly `depth` plies from `pos` ending on the board, if one exists.
    fn find(&mut self, pos: &Position, depth: usize) -> Option<Vec<Explanation>> {
        self.nodes += 1;
        if self.nodes > NODE_BUDGET {
            return None;
        }
        let turn = pos.turn();
        if depth == 1 {
            let e = matcher::explain(pos, self.phys, turn, self.lifts, &mut self.scratch, true)?;
            let fits = e.mover == turn
                && match e.legality {
                    Legality::Legal => true,
                    Legality::Illegal(IllegalReason::DropNotInHand) => (self.coming)(&e.mv),
                    Legality::Illegal(_) => false,
                };
            return fits.then(|| vec![e]);
        }
        let legal = matcher::candidates(
            pos,
            self.phys,
            turn,
            self.area,
            self.lifts,
            &mut self.scratch,
        );
        let moves: Vec<Move> = self
            .scratch
            .iter()
            .enumerate()
            .filter(|&(i, m)| {
                i < legal
                    || (m.is_drop()
                        && pos.classify(m) == Legality::Illegal(IllegalReason::DropNotInHand)
                        && (self.coming)(m))
            })
            .map(|(_, m)| pos.normalize(m))
            .collect();
        for mv in moves {
            if !self.seen_landing(pos, &mv) {
                continue;
            }
            let mut after = pos.clone();
            after.play(&mv);
            if let Some(mut rest) = self.find(&after, depth - 1) {
                let first = Explanation {
                    mv,
                    mover: turn,
                    legality: pos.classify(&mv),
                    residual: matcher::diff(&after, self.phys),
                    promotion_not_shown: false,
                };
                rest.insert(0, first);
                return Some(rest);
            }
            if self.nodes > NODE_BUDGET {
                return None;
            }
        }
        None
    }
}

impl Search<'_> {
    /// Whether the sensors saw the piece of `mv` arrive on its square since the last
    /// commit: a ply before the last one must have been on the board, not only be a way
    /// to reach what it shows (a piece lifted and held is not "gone out and been
    /// captured").
    fn seen_landing(&self, pos: &Position, mv: &Move) -> bool {
        let color = pos.turn();
        let (sq, roles): (_, &[Role]) = match *mv {
            Move::Normal {
                role,
                to,
                promotion: Some(p),
                ..
            } => (
                to,
                if role == Role::Pawn {
                    &[Role::Pawn, p][..]
                } else {
                    &[]
                },
            ),
            Move::Normal { role, to, .. } => (to, &[role][..]),
            Move::EnPassant { to, .. } => (to, &[Role::Pawn][..]),
            Move::Castle { king, rook } => (
                crate::rules::castle_king_target(king, rook),
                &[Role::King][..],
            ),
            Move::Drop { piece, to } => (to, &[piece.role][..]),
        };
        let promoted_shown_as_pawn = pos.promoted().contains(mv.from().unwrap_or(sq));
        self.lifts.iter().any(|&(s, p)| {
            s == sq
                && p.is_some_and(|p| {
                    p.color == color
                        && (roles.contains(&p.role)
                            || (promoted_shown_as_pawn && p.role == Role::Pawn))
                })
        })
    }
}

impl Inferrer {
    /// Whether the piece of drop `m` on `board`, not in hand, is on its way: the other
    /// board shows the capture that supplies it (provisional, or its victim gone from the
    /// board).
    fn piece_coming(&self, board: BoardId, m: &Move) -> bool {
        let Move::Drop { piece, .. } = *m else {
            return false;
        };
        let other = board.other();
        let provisional = self.tracks[other]
            .provisional
            .is_some_and(|p| self.hands(other, &p.exp) == Some((board, piece)));
        provisional || self.capture_pending_on_other_board(board, m)
    }

    /// The shortest sequence of plies from the committed position that gives exactly what
    /// `board` shows (see the module docs); failing any, one ply however illegal or out of
    /// turn that gives it. Empty when nothing fits (a move in progress).
    pub(crate) fn exact_plies(&mut self, board: BoardId) -> Vec<Explanation> {
        let pos = self.game.board(board).clone();
        let phys = self.tracks[board].physical;
        let lifts = self.tracks[board].lifts.clone();
        let turn = pos.turn();
        let coming = |m: &Move| self.piece_coming(board, m);
        let one = matcher::explain(&pos, &phys, turn, &lifts, &mut MoveList::new(), true);
        if let Some(e) = one
            && e.mover == turn
            && match e.legality {
                Legality::Legal => true,
                Legality::Illegal(IllegalReason::DropNotInHand) => coming(&e.mv),
                Legality::Illegal(_) => false,
            }
        {
            return vec![e];
        }
        let d = matcher::diff(&pos, &phys);
        let mut search = Search {
            coming: &coming,
            phys: &phys,
            lifts: &lifts,
            area: lifts.iter().fold(d, |acc, &(sq, _)| acc.with(sq)),
            nodes: 0,
            scratch: MoveList::new(),
        };
        for depth in 2..=MAX_PLIES {
            if let Some(seq) = search.find(&pos, depth) {
                return seq;
            }
        }
        one.map(|e| vec![e]).unwrap_or_default()
    }
}
