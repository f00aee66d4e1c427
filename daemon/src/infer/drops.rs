//! Drops across the two boards: a piece may be dropped only after the partner's capture
//! that supplies it was completed (`rules.md` §2). The two presses race over the wire, so a
//! drop of a piece not yet in hand waits up to `drop_tolerance_ms` for the other board's
//! press (case 30); the rest of its board's events queue behind it, the other board goes
//! on. Beyond the tolerance it is `premature-drop` when the capture stands on the other
//! board unpressed, `drop-not-in-hand` when nothing supplies it.

use crate::rules::{BoardId, IllegalReason, Legality, Move, Role};

use super::Inferrer;
use super::board_track::DeferredDrop;
use super::engine::Completion;
use super::matcher::Explanation;
use super::output::Inference;

impl Inferrer {
    pub(crate) fn defer_drop(&mut self, board: BoardId, exp: Explanation, done: Completion) {
        let either_clockless = self.clockless(board) || self.clockless(board.other());
        // An occupancy-only board whose moves are not read shows the game as handed on,
        // not a capture under way: a count of its pieces that differs from the record's
        // is a placeholder's kind, and the drop is pending on its moves once the usual
        // tolerance is over (see `unread.rs`). Held for the supply wait instead, the
        // drop kept its board's moves queued behind it while the other board's, read
        // again meanwhile, were recorded first: in another order than the boards were
        // played, its hands short of what its next drops took (random 12 of the clicks).
        let unread = self.unread(board.other(), done.t);
        let tolerance =
            if either_clockless && !unread && self.capture_pending_on_other_board(board, &exp.mv) {
                // The other board already shows the capture that supplies the drop under way
                // (its victim gone) and one of the two completions is not a press: a drop on
                // a board without a clock is complete once that capture is; a capture on a
                // board without a clock is complete when its piece is put down.
                super::clockless::CLOCKLESS_SUPPLY_WAIT_MS
            } else if self.clockless(board) {
                self.config
                    .drop_tolerance_ms
                    .max(super::clockless::CLOCKLESS_DROP_TOLERANCE_MS)
            } else {
                self.config.drop_tolerance_ms
            };
        let deadline = done.t.saturating_add(tolerance);
        self.tracks[board].deferred = Some(DeferredDrop {
            exp,
            done,
            deadline,
        });
    }

    /// The tolerance ran out: the drop is committed as illegal.
    pub(crate) fn expire_deferred(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        let Some(mut d) = self.tracks[board].deferred.take() else {
            return;
        };
        let reason = match self.game.board(board).classify(&d.exp.mv) {
            Legality::Illegal(IllegalReason::DropNotInHand) if self.in_gap(board.other()) => {
                self.commit_pending_on_gap(board, d.exp, d.done, out);
                self.drain_queue(board, out);
                return;
            }
            Legality::Illegal(IllegalReason::DropNotInHand)
                if self.unread(board.other(), d.deadline) =>
            {
                // The other board's moves may supply it (see `unread.rs`).
                d.done.flags.unread_pending = true;
                self.commit_owing(board, d.exp, d.done, out);
                self.drain_queue(board, out);
                return;
            }
            Legality::Illegal(IllegalReason::DropNotInHand)
                if matches!(d.exp.mv, Move::Drop { piece, .. }
                    if self.switch_gap_for_drop(d.done.t, board, piece, out)) =>
            {
                // Another order of a bridged gap puts the piece in hand.
                d.exp.legality = self.game.board(board).classify(&d.exp.mv);
                self.commit(board, d.exp, d.done, out);
                self.drain_queue(board, out);
                return;
            }
            Legality::Illegal(IllegalReason::DropNotInHand) => {
                if self.capture_pending_on_other_board(board, &d.exp.mv) {
                    d.done.flags.premature = true;
                    IllegalReason::PrematureDrop
                } else {
                    IllegalReason::DropNotInHand
                }
            }
            Legality::Illegal(r) => r,
            Legality::Legal => {
                d.exp.legality = Legality::Legal;
                self.commit(board, d.exp, d.done, out);
                self.drain_queue(board, out);
                return;
            }
        };
        d.exp.legality = Legality::Illegal(reason);
        self.commit(board, d.exp, d.done, out);
        self.drain_queue(board, out);
    }

    /// After a commit: a deferred drop whose piece is now in hand is legal.
    pub(crate) fn after_handoff(&mut self, out: &mut Vec<Inference>) {
        for board in BoardId::ALL {
            let ready = self.tracks[board].deferred.as_ref().is_some_and(|d| {
                self.game.board(board).classify(&d.exp.mv)
                    != Legality::Illegal(IllegalReason::DropNotInHand)
            });
            if ready && let Some(mut d) = self.tracks[board].deferred.take() {
                d.exp.legality = self.game.board(board).classify(&d.exp.mv);
                self.commit(board, d.exp, d.done, out);
                self.drain_queue(board, out);
            }
        }
    }

    /// Handles the events that queued behind a deferred drop.
    fn drain_queue(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        if self.clockless(board) && !self.tracks[board].queue.is_empty() {
            // The event that made the drop final (the next ply beginning) is on the board
            // already and was not judged while the drop waited: it is judged before the
            // events that queued after it.
            let t = self.tracks[board].last_change;
            self.clockless_explain(t, board, out);
            if self.tracks[board].deferred.is_some() {
                return;
            }
        }
        let queue = std::mem::take(&mut self.tracks[board].queue);
        let mut next = 0;
        while let Some((t, ev)) = queue.get(next) {
            self.settle_queued(board, next, out);
            if self.clockless(board) {
                // Live, the board's timer ran between these events: a move it showed still
                // long enough was final before the next began (and a drop among them is
                // judged alone, as it was made, not as part of a longer sequence).
                self.clockless_timer(t.saturating_sub(1), board, out);
                if self.tracks[board].deferred.is_some() {
                    break;
                }
            }
            self.handle(*t, ev, out);
            next += 1;
            if self.tracks[board].deferred.is_some() {
                break;
            }
        }
        let remaining: Vec<_> = queue[next..].to_vec();
        for s in &mut self.tracks[board].settles {
            s.at = s.at.saturating_sub(next);
        }
        if !remaining.is_empty() {
            let q = &mut self.tracks[board].queue;
            let mut merged = remaining;
            merged.append(q);
            *q = merged;
        } else if self.clockless(board) {
            // The board was not judged while the drop waited: it is now.
            let t = self.tracks[board].last_change;
            self.clockless_explain(t, board, out);
        }
        if self.tracks[board].deferred.is_none() && self.tracks[board].queue.is_empty() {
            self.settle_queued(board, usize::MAX, out);
        }
    }

    /// Settles the kinds an occupancy-only board settled while its events queued, those
    /// that came before queued event `next` (after the moves before them are final, as
    /// when they came).
    fn settle_queued(&mut self, board: BoardId, next: usize, out: &mut Vec<Inference>) {
        while let Some(s) = self.tracks[board]
            .settles
            .first()
            .copied()
            .filter(|s| s.at <= next)
        {
            self.tracks[board].settles.remove(0);
            if self.clockless(board) {
                self.clockless_timer(s.t, board, out);
            }
            let settled = self.settle_kind(s.t, board, s.ply, s.mv, s.open);
            out.extend(settled);
            if self.tracks[board].deferred.is_some() {
                return;
            }
        }
    }

    /// Whether the other board shows, unpressed, the capture that would supply the drop:
    /// a piece of the dropped kind and colour is missing there against its committed
    /// position.
    pub(crate) fn capture_pending_on_other_board(&self, board: BoardId, m: &Move) -> bool {
        let Move::Drop { piece, .. } = *m else {
            return false;
        };
        let other = board.other();
        let pos = self.game.board(other);
        let phys = &self.tracks[other].physical;
        let ours = pos.board().by_color(piece.color);
        let committed = if piece.role == Role::Pawn {
            (pos.board().by_role(Role::Pawn) & ours).count() + (pos.promoted() & ours).count()
        } else {
            (pos.board().by_role(piece.role) & (ours - pos.promoted())).count()
        };
        committed > phys.count(piece)
    }
}
