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
        let w = &self.watch[board];
        if self.trying || w.open.is_some() || w.held.is_some() || !w.assumed.is_empty() {
            return;
        }
        let Some(&from) = w.lifted.first() else {
            return;
        };
        if occ & (1u64 << from.index()) != 0 || w.lifted.len() < 2 {
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
            if trial.stalled[board].is_none()
                && trial.watch[board]
                    .open
                    .as_ref()
                    .is_some_and(|(reply, _, _)| after.iter().all(|sq| reply_touches(reply, *sq)))
                && !trial.unsettled(&trial.game, board)
            {
                fits.push((trial, trial_out));
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
