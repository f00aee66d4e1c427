//! A capturer set straight onto its victim, and the opponent's reply made before the board
//! was still long enough to judge it (see `judge_held`).
//!
//! At bughouse pace the opponent often answers within a second: the board then shows the
//! mover's piece lifted and never put down, followed by the opponent's move, and no single
//! move explains it. The piece that vanished must stand on a square that was occupied: it
//! took the piece there. Each capture it may have made is tried with the squares lifted
//! after it as the opponent's: when exactly one victim lets a legal reply explain the board,
//! the capture is final and the reply is the open move. The reply often tells the victim by
//! itself (it takes the capturer, or moves a piece from a square the capturer would stand
//! on). Two victims that both fit, and nothing is decided: the next readings may tell.
//!
//! The board may show the capturer gone and only a drop after it (no square the reply
//! lifted), or a second piece lifted and not put down (the reply a capturer set onto its
//! own victim). A drop does not say whose it is: the mover may have dropped a piece while
//! his lifted one was still in his hand. So these are read only once the board has been
//! still for `HELD_MS`, as a single piece held still is (see `judge_held`): a hand does not
//! hold a piece that long while it works.
//!
//! With pieces of open kind on the board, their placeholders may make a reply illegal that
//! their kinds allow, so a reply that does not fit rules out no victim: a reply that lifts
//! a piece is read only for a capturer of known kind whose victims by shape are its legal
//! ones, and only when every victim's reading fits; a still board is not read at all.

use crate::rules::{Bitboard, BoardId, Move, Square};

use super::{OccupancyInference, OccupancyMove, by_victim, capture_made, captures_from};

impl OccupancyInference {
    /// Nothing matches `occ` on `board`: when the first square lifted since the last final
    /// move is the mover's and still empty, and exactly one of the captures its piece may
    /// have made, followed by a reply, explains the board, both are taken (the capture final,
    /// the reply open).
    pub(super) fn held_then_reply(
        &mut self,
        board: BoardId,
        t: u64,
        occ: u64,
        out: &mut Vec<OccupancyMove>,
    ) {
        self.read_held_reply(board, t, occ, out, false);
    }

    /// The board has been still for `HELD_MS` showing what no move explains: a capturer
    /// set onto its victim, and a reply that is a drop or another capturer held still, are
    /// read as [`OccupancyInference::held_then_reply`] reads a reply that lifts a piece.
    /// Tried once for each state of the board; the capture is handed on with the next
    /// snapshot, as a withheld move is.
    pub(super) fn held_then_reply_still(&mut self, board: BoardId, t: u64) {
        let w = &self.watch[board];
        if w.still_read == Some(w.changed_at)
            || !self.unsettled(&self.game, board)
            || self.in_fork.is_some()
            || self.speculation.is_some()
            || !w.held_several.is_empty()
        {
            // Side-by-side readings are refuted by falling behind: one must not get ahead
            // by a reading the others do not make.
            return;
        }
        self.watch[board].still_read = Some(self.watch[board].changed_at);
        let Some(occ) = self.watch[board].last else {
            return;
        };
        let mut out = Vec::new();
        self.read_held_reply(board, t, occ, &mut out, true);
        self.released.append(&mut out);
    }

    fn read_held_reply(
        &mut self,
        board: BoardId,
        t: u64,
        occ: u64,
        out: &mut Vec<OccupancyMove>,
        still: bool,
    ) {
        let w = &self.watch[board];
        if self.trying || w.open.is_some() || w.held.is_some() || (still && !w.assumed.is_empty()) {
            // Pieces of open kind may check, pin or free what their placeholders do not.
            return;
        }
        let Some(&from) = w.lifted.first() else {
            return;
        };
        // With pieces of open kind about, a reply their placeholders make illegal rules
        // out no victim: the capturer must be of known kind, its victims by shape the
        // legal ones, and every victim must fit.
        let open_kinds = !w.assumed.is_empty();
        if open_kinds
            && self
                .capture_targets(board, from, &captures_from(self.game.board(board), from))
                .1
        {
            if self.movers_piece_on(board, from) {
                // A capture may have been made that this reading cannot read: it waits in
                // doubt.
                *self.doubt.get_mut(board) = true;
            }
            return;
        }
        if still && (w.lifted.len() > 2 || (self.base(board) ^ occ).count_ones() > 2) {
            // More squares than a capture and one reply touch: more plies may explain them.
            return;
        }
        if occ & (1u64 << from.index()) != 0 || (w.lifted.len() < 2 && !still) {
            return;
        }
        if !self.movers_piece_on(board, from) {
            return;
        }
        // The capturer must vanish before anything else changed: a square filled since
        // the last final move was filled after it left.
        let lifted_at = w.changes.emptied[from.index()];
        for sq in Bitboard(w.appeared) {
            if w.changes.filled[sq.index()] < lifted_at {
                return;
            }
        }
        let after: Vec<Square> = w.lifted[1..].to_vec();
        let appeared = w.appeared;
        let victims = by_victim(&captures_from(self.game.board(board), from));
        let mut fits: Vec<(OccupancyInference, Vec<OccupancyMove>)> = Vec::new();
        for (to, captures) in victims {
            if w.lifted.contains(&to) && w.changes.emptied[to.index()] <= lifted_at {
                // Emptied before the capturer left: taking it shows as a capture of a victim
                // lifted first, not as a capturer set onto it.
                continue;
            }
            let (mut trial, mut trial_out) =
                capture_made(self.clone(), board, self.held_capture(&captures), lifted_at);
            trial.trying = true;
            trial.watch[board].since_open.clone_from(&after);
            // What was put down and taken away since the capturer's lift must still be
            // explained by the reply (a slide's way), as for any move.
            trial.watch[board].appeared |= appeared & !trial.base(board);
            trial.after_commit(board, t, occ, &mut trial_out);
            if still && trial.watch[board].open.is_none() && trial.stalled[board].is_none() {
                // The reply's piece held still: a capturer set onto its own victim.
                trial.judge_held(board, t);
            }
            if trial.stalled[board].is_none()
                && trial.watch[board]
                    .open
                    .as_ref()
                    .is_some_and(|(reply, _, _)| after.iter().all(|sq| reply_touches(reply, *sq)))
                && !trial.unsettled(&trial.game, board)
            {
                fits.push((trial, trial_out));
            } else if (still && !trial.refutes_reply(board, occ))
                || trial.capturer_moved_again(board, &after)
                || trial.reply_set_onto_a_victim(board, &after, appeared)
                || open_kinds
                || trial.doubt[board]
            {
                // This victim is not ruled out: nothing is taken.
                *self.doubt.get_mut(board) = true;
                return;
            }
        }
        if fits.len() > 1 {
            // Several victims fit: the next readings may tell; each is followed beside the
            // main reading, which waits.
            self.fork(board, t, fits);
            return;
        }
        let Some((mut trial, trial_out)) = fits.pop() else {
            return;
        };
        trial.trying = false;
        *self = trial;
        out.extend(trial_out);
    }
}

impl OccupancyInference {
    /// Whether this trial (a capture made final) shows a piece of the capturer's side among
    /// the squares lifted `after` it, while the opponent may drop: it moved again, after
    /// his drop perhaps, and more plies than one reply may explain the board.
    fn capturer_moved_again(&self, board: BoardId, after: &[Square]) -> bool {
        let opponent = self.turn(board);
        let placement = self.game.board(board).board();
        self.may_drop(board, opponent)
            && after
                .iter()
                .any(|&sq| placement.piece_at(sq).is_some_and(|p| p.color != opponent))
    }

    /// Whether this trial (a capture made final) may explain the board by more plies than
    /// one reply: a piece of the opponent lifted `after` the capture may have been set
    /// straight onto a piece it takes in turn (its victim's square shows no change), and a
    /// square filled since (`appeared`) be the capturer's side's drop. A recapture set
    /// straight and a drop read as a quiet reply elsewhere, or as none at all.
    fn reply_set_onto_a_victim(&self, board: BoardId, after: &[Square], appeared: u64) -> bool {
        let opponent = self.turn(board);
        let pos = self.game.board(board);
        appeared != 0
            && self.may_drop(board, opponent.other())
            && after.iter().any(|&sq| {
                pos.board()
                    .piece_at(sq)
                    .is_some_and(|p| p.color == opponent)
                    && !captures_from(pos, sq).is_empty()
            })
    }

    /// Whether this trial (a capture made final) shows that no reply explains `occ`: no
    /// move matched, nothing stalled or waits on a piece held still with several victims,
    /// and no drop from a hand nobody knows could (the trial does not read those).
    fn refutes_reply(&self, board: BoardId, occ: u64) -> bool {
        let w = &self.watch[board];
        let base = self.base(board);
        let one_drop = base & !occ == 0 && (occ & !base).count_ones() == 1;
        self.stalled[board].is_none()
            && w.open.is_none()
            && w.held_several.is_empty()
            && !(one_drop && self.hand_unknown(board, self.turn(board)))
    }
}

/// Whether the reply `m` lifts the piece on `sq` (its own, its victim's, castling's rook): a
/// square lifted after the capturer that the reply does not explain may be a move of its
/// own (away and a drop onto it: one ply more), so no reading is taken.
fn reply_touches(m: &Move, sq: Square) -> bool {
    match *m {
        Move::Normal { from, to, .. } => sq == from || sq == to,
        Move::EnPassant { from, to } => {
            sq == from || sq == Square::from_coords(to.file(), from.rank())
        }
        Move::Castle { king, rook } => sq == king || sq == rook,
        Move::Drop { .. } => false,
    }
}
