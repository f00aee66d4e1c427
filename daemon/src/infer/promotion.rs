//! Promotions the sensors cannot see, and corrections of the record.
//!
//! A promoted pawn usually stays a pawn on the board; the record says the declared piece
//! (queen unless told otherwise). When that "pawn" later moves like a knight (or rook, or
//! bishop) and not like the recorded queen, the promotion was that piece: the record is
//! corrected, a `Correction` says so, and the game is re-played from there. An operator
//! may declare the piece, or replace a move, the same way.

use std::str::FromStr;

use crate::rules::notation::{San, san_string};
use crate::rules::{BoardId, Color, IllegalReason, Legality, Move, Role, Square};

use super::Inferrer;
use super::board_track::PendingSettle;
use super::matcher::{self, Explanation};
use super::output::{Correction, CorrectionKind, Inference};

impl Inferrer {
    /// When `exp` moves a promoted piece illegally and another declared piece would make it
    /// legal, corrects that promotion and returns the move explained again.
    pub(crate) fn promotion_correction(
        &mut self,
        board: BoardId,
        t: u64,
        exp: &Explanation,
        out: &mut Vec<Inference>,
    ) -> Option<Explanation> {
        if exp.legality.is_legal() {
            return None;
        }
        let Move::Normal { from, .. } = exp.mv else {
            return None;
        };
        let pos = self.game.board(board);
        if !pos.promoted().contains(from) {
            return None;
        }
        let index = self.promotion_origin(board, from)?;
        let current = self.record[index].mv.promotion()?;
        let rules = self.config.ruleset;
        for role in rules.promotion_pieces.iter() {
            if role == current {
                continue;
            }
            let mut trial = pos.clone();
            trial.set_piece_at(from, role.of(exp.mover));
            let track = &self.tracks[board];
            let again = matcher::explain(
                &trial,
                &track.physical,
                exp.mover,
                &track.lifts,
                &mut self.scratch,
                false,
            );
            if again.is_some_and(|e| {
                e.legality.is_legal() && e.residual.count() <= exp.residual.count()
            }) {
                self.correct_promotion(t, index, role, out);
                let pos = self.game.board(board);
                let track = &self.tracks[board];
                return matcher::explain(
                    pos,
                    &track.physical,
                    exp.mover,
                    &track.lifts,
                    &mut self.scratch,
                    false,
                );
            }
        }
        None
    }

    /// The record index of the promotion that put the piece now on `sq` of `board`,
    /// following it back through its moves.
    fn promotion_origin(&self, board: BoardId, sq: Square) -> Option<usize> {
        let mut sq = sq;
        for (i, e) in self.record.iter().enumerate().rev() {
            if e.board != board || e.mv.to() != sq {
                continue;
            }
            match e.mv {
                Move::Normal {
                    from, promotion, ..
                } => {
                    if promotion.is_some() {
                        return Some(i);
                    }
                    sq = from;
                }
                _ => return None,
            }
        }
        None
    }

    fn correct_promotion(&mut self, t: u64, index: usize, role: Role, out: &mut Vec<Inference>) {
        let Some(entry) = self.record.get(index) else {
            return;
        };
        let Move::Normal {
            role: r,
            from,
            capture,
            to,
            ..
        } = entry.mv
        else {
            return;
        };
        let mv = Move::Normal {
            role: r,
            from,
            capture,
            to,
            promotion: Some(role),
        };
        self.replace_entry(t, index, mv, CorrectionKind::Promotion, out);
    }

    /// The `ply`th move of `board` in the record (0: its first) was `mv`: a drop's or a
    /// promotion's kind an occupancy-only board left open, settled by a later move of the
    /// piece (`open`: shown by the game's legality to be another of its kinds, still
    /// undetermined). Corrected when that entry is the same squares and a drop or a
    /// promotion.
    pub fn settle_kind(
        &mut self,
        t: u64,
        board: BoardId,
        ply: usize,
        mv: Move,
        open: bool,
    ) -> Vec<Inference> {
        let mut out = Vec::new();
        if self.tracks[board].deferred.is_some() {
            // The move may be among the events queued behind a drop that waits for its
            // piece: it is settled once they are recorded.
            let at = self.tracks[board].queue.len();
            self.tracks[board].settles.push(PendingSettle {
                at,
                t,
                ply,
                mv,
                open,
            });
            return out;
        }
        let Some(index) = self
            .record
            .iter()
            .enumerate()
            .filter(|(_, e)| e.board == board)
            .nth(ply)
            .map(|(i, _)| i)
        else {
            return out;
        };
        let e = &self.record[index];
        if e.mv == mv || e.mv.from() != mv.from() || e.mv.to() != mv.to() {
            return out;
        }
        let kind = if open {
            CorrectionKind::Placeholder
        } else if mv.is_drop() {
            CorrectionKind::KindSettled
        } else if mv.promotion().is_some() && e.mv.promotion().is_some() {
            CorrectionKind::Promotion
        } else {
            return out;
        };
        self.replace_entry(t, index, mv, kind, &mut out);
        out
    }

    /// Replaces record entry `index` by `mv` and re-plays the game from the start.
    pub(crate) fn replace_entry(
        &mut self,
        t: u64,
        index: usize,
        mv: Move,
        kind: CorrectionKind,
        out: &mut Vec<Inference>,
    ) {
        let Some(old) = self.record.get(index).cloned() else {
            return;
        };
        let record = std::mem::take(&mut self.record);
        self.game = self.start.clone();
        self.debts = Default::default();
        for b in BoardId::ALL {
            self.tracks[b].history.clear();
        }
        let mut new_san = old.san.clone();
        for (i, mut e) in record.into_iter().enumerate() {
            if i == index {
                let pos = self.game.board(e.board);
                e.mv = pos.normalize(&mv);
                e.san = san_string(pos, &e.mv);
                e.legality = pos.classify(&e.mv);
                if e.flags.unread_pending || e.flags.premature {
                    owe_if_not_in_hand(&mut e);
                }
                new_san = e.san.clone();
            } else if i > index && e.board == old.board {
                // A later move's capture is what the corrected board has on its square
                // (a piece dropped and taken at once may change kind), its piece what
                // stands there (a drop's piece that then moved): its SAN names them.
                let pos = self.game.board(e.board);
                e.mv = pos.normalize(&e.mv);
                e.san = san_string(pos, &e.mv);
            }
            if i > index && kind.is_occupancy_kind() && e.legality.is_legal() {
                // An occupancy-only board's kind corrected can leave a later move (of
                // either board: hands follow kinds) illegal as recorded: the record says
                // so rather than hold a move no reader can play as legal.
                e.legality = self.game.board(e.board).classify(&e.mv);
            }
            e.handoff = self.apply(&e).1;
            self.record.push(e);
        }
        out.push(Inference::Correction(Correction {
            t,
            board: old.board,
            side: old.side,
            number: old.number,
            index,
            kind,
            old_san: old.san.clone(),
            new_san: new_san.clone(),
            detail: format!(
                "board {}: move {}{} corrected from {} to {}",
                old.board,
                old.number,
                if old.side == Color::White { "." } else { "..." },
                old.san,
                new_san
            ),
        }));
        // A pending drop given another kind may now follow a capture that supplies it.
        self.supply_unread(t, out);
        self.report_replayed_end(t, out);
    }

    /// The index in the record of move `number` of `side` on `board`.
    pub(super) fn find_entry(&self, board: BoardId, number: u32, side: Color) -> Option<usize> {
        self.record
            .iter()
            .position(|e| e.board == board && e.number == number && e.side == side)
    }

    pub(crate) fn operator_promotion(
        &mut self,
        t: u64,
        board: BoardId,
        number: u32,
        side: Color,
        piece: Role,
        out: &mut Vec<Inference>,
    ) {
        let Some(index) = self.find_entry(board, number, side) else {
            return;
        };
        if self.record[index]
            .mv
            .promotion()
            .is_some_and(|p| p != piece)
        {
            self.correct_promotion(t, index, piece, out);
        }
    }

    pub(crate) fn operator_replace(
        &mut self,
        t: u64,
        board: BoardId,
        number: u32,
        side: Color,
        san: &str,
        out: &mut Vec<Inference>,
    ) {
        let Some(index) = self.find_entry(board, number, side) else {
            return;
        };
        let Ok(parsed) = San::from_str(san) else {
            return;
        };
        // The position before the entry: re-play the record up to it.
        let mut game = self.start.clone();
        for e in &self.record[..index] {
            game.play_classified(e.board, &e.mv, e.legality, e.t);
        }
        let Ok(mv) = parsed.to_move_for(game.board(board), side) else {
            return;
        };
        if mv != self.record[index].mv {
            self.replace_entry(t, index, mv, CorrectionKind::Replace, out);
        }
    }
}

/// A premature drop (pending on the other board's moves not read yet, or alerted) given
/// another kind: still short of its piece where the record has it, it goes on owing it
/// (pending still, see `unread.rs`), so that the capture that hands its seat that kind
/// settles the debt rather than fill the hand a second time (random 145: a placeholder
/// pawn alerted as premature, then a bishop, counted five bishops); no longer short of
/// it, it waits no more.
fn owe_if_not_in_hand(e: &mut super::output::RecordEntry) {
    if e.legality == Legality::Illegal(IllegalReason::DropNotInHand) {
        e.legality = Legality::Illegal(IllegalReason::PrematureDrop);
    } else if e.legality != Legality::Illegal(IllegalReason::PrematureDrop) {
        e.flags.unread_pending = false;
    }
}
