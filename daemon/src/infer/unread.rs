//! Drops pending on the other board's moves not read yet.
//!
//! An occupancy-only board (Sentio) that stalls, or shows what no move explains, hands on
//! no moves until it is read again (the arbiter's `fill`, or its next move explained): a
//! capture it made meanwhile may have supplied the partner board's drops. Such a drop is
//! not known to be illegal: it is recorded owing its piece, flagged `pending-on-unread`,
//! without an alert. Once the board's moves are read, the capture that supplied it puts
//! the drop after it in the record (the two boards' moves merged so that each pending drop
//! follows its supplier, each board's own order kept, no move made illegal) and the drop
//! is legal, a `correction`; once they are final and none supplied it, it is alerted as a
//! premature drop. Read alone, a board that stalls for good leaves the drops pending,
//! flagged, rather than hundreds of false `illegal-move` alerts (819 over 300 simulated
//! games before, 10 since: `occupancy_stall_clicks`).

use std::collections::VecDeque;

use crate::rules::{BoardId, ByBoard, Color, IllegalReason, Legality};

use super::Inferrer;
use super::clockless::CLOCKLESS_DROP_TOLERANCE_MS;
use super::engine::play_entry;
use super::output::{Alert, Correction, CorrectionKind, Inference, RecordEntry};

/// A board's record entries not merged yet, each with its index in the record before.
type Queue = VecDeque<(usize, RecordEntry)>;

impl Inferrer {
    /// Whether `board` (occupancy-only) is read now, said at `t`: unread while it is
    /// stalled or shows what no move explains; read again from the time of the last move
    /// handed on once it is not.
    pub fn set_unread(&mut self, board: BoardId, unread: bool, t: u64) {
        let track = &mut self.tracks[board];
        if unread {
            track.unread = true;
        } else if track.unread {
            track.unread = false;
            track.read_again_at = t;
        }
    }

    /// Whether a capture of `board` not recorded yet may supply a drop at `t`: its moves
    /// are not read, or were read again so recently that the last of them is not final
    /// (a board without a clock makes a move final once still long enough).
    pub(crate) fn unread(&self, board: BoardId, t: u64) -> bool {
        let track = &self.tracks[board];
        let final_after = self.config.stable_commit_ms + CLOCKLESS_DROP_TOLERANCE_MS;
        track.unread || (track.read_again_at > 0 && t < track.read_again_at + final_after)
    }

    /// After a capture was recorded: the record's pending drops it (or another capture
    /// read with it) supplies are put after their supplier and made legal. Nothing
    /// changes unless one is, and no recorded move is made illegal by the new order.
    pub(crate) fn supply_unread(&mut self, t: u64, out: &mut Vec<Inference>) {
        let Some(first) = self.record.iter().position(|e| e.flags.unread_pending) else {
            return;
        };
        let saved = (
            self.record.clone(),
            self.game.clone(),
            self.debts,
            self.ended_by,
            self.unsure_mates.clone(),
            self.unsure_end,
        );
        let record = std::mem::take(&mut self.record);
        self.game = self.start.clone();
        self.debts = ByBoard::default();
        let mut tail: ByBoard<Queue> = ByBoard::default();
        for (i, mut e) in record.into_iter().enumerate() {
            if i < first {
                e.handoff = self.apply(&e).1;
                self.record.push(e);
            } else {
                tail[e.board].push_back((i, e));
            }
        }
        let mut supplied = Vec::new();
        let mut broken = false;
        loop {
            let next = match (tail[BoardId::A].front(), tail[BoardId::B].front()) {
                (None, None) => break,
                (Some(a), Some(b)) if b.0 < a.0 => BoardId::B,
                (Some(_), _) => BoardId::A,
                (None, Some(_)) => BoardId::B,
            };
            let waiting = tail[next]
                .front()
                .filter(|(_, e)| self.waits_unread(e))
                .and_then(|(_, e)| self.supplied_within(&tail[next.other()], e));
            let (from, count) = match waiting {
                Some(n) => (next.other(), n),
                None => (next, 1),
            };
            for _ in 0..count {
                let Some((_, mut e)) = tail[from].pop_front() else {
                    break;
                };
                let now = self.game.board(e.board).classify(&e.mv);
                if e.flags.unread_pending && now.is_legal() {
                    e.legality = now;
                    e.flags.unread_pending = false;
                    supplied.push(self.record.len());
                } else if e.legality.is_legal() && !now.is_legal() {
                    broken = true;
                }
                e.handoff = self.apply(&e).1;
                self.record.push(e);
            }
        }
        if supplied.is_empty() || broken {
            (
                self.record,
                self.game,
                self.debts,
                self.ended_by,
                self.unsure_mates,
                self.unsure_end,
            ) = saved;
            return;
        }
        for b in BoardId::ALL {
            self.tracks[b].history.clear();
        }
        for i in supplied {
            out.push(Inference::Correction(self.supplied_correction(t, i)));
        }
        self.report_replayed_end(t, out);
    }

    /// Whether `e` is a pending drop whose piece is not in hand at this point of the merge.
    fn waits_unread(&self, e: &RecordEntry) -> bool {
        e.flags.unread_pending
            && self.game.board(e.board).classify(&e.mv)
                == Legality::Illegal(IllegalReason::DropNotInHand)
    }

    /// How many of the other board's entries `queue` must come first for the pending drop
    /// `drop` to be in hand, none of them made illegal by coming earlier.
    fn supplied_within(&self, queue: &Queue, drop: &RecordEntry) -> Option<usize> {
        let mut game = self.game.clone();
        let mut debts = self.debts;
        for (k, (_, e)) in queue.iter().enumerate() {
            if e.legality.is_legal() && !game.board(e.board).classify(&e.mv).is_legal() {
                return None;
            }
            play_entry(&mut game, &mut debts, e);
            if game.board(drop.board).classify(&drop.mv).is_legal() {
                return Some(k + 1);
            }
        }
        None
    }

    /// The correction of record entry `i`, a pending drop now legal after its supplier.
    fn supplied_correction(&self, t: u64, i: usize) -> Correction {
        let e = &self.record[i];
        let role = match e.mv {
            crate::rules::Move::Drop { piece, .. } => Some(piece.role),
            _ => None,
        };
        let supplier = self.record[..i]
            .iter()
            .rev()
            .find(|s| s.board != e.board && s.side != e.side && s.handoff == role)
            .map_or_else(String::new, |s| {
                format!(" ({}{} {})", s.number, dots(s.side), s.san)
            });
        Correction {
            t,
            board: e.board,
            side: e.side,
            number: e.number,
            index: i,
            kind: CorrectionKind::Supplied,
            old_san: e.san.clone(),
            new_san: e.san.clone(),
            detail: format!(
                "board {}: {}{} {} now follows the capture on board {} that supplied it{}, read after the drop: legal",
                e.board,
                e.number,
                dots(e.side),
                e.san,
                e.board.other(),
                supplier
            ),
        }
    }

    /// The pending drops whose other board is read again, its moves final, and none of
    /// them supplied: premature, alerted (the debt stays until a capture settles it).
    pub(crate) fn expire_unread(&mut self, t: u64, out: &mut Vec<Inference>) {
        // Only a board that was ever unread (an occupancy-only one) leaves drops pending: a
        // table of other boards is not scanned at every tick.
        if BoardId::ALL
            .iter()
            .all(|&b| !self.tracks[b].unread && self.tracks[b].read_again_at == 0)
        {
            return;
        }
        for board in BoardId::ALL {
            if self.unread(board.other(), t) {
                continue;
            }
            for e in &mut self.record {
                if e.board != board || !e.flags.unread_pending {
                    continue;
                }
                e.flags.unread_pending = false;
                e.flags.premature = true;
                let why = format!(
                    "board {}'s moves, read after the drop, did not supply",
                    board.other()
                );
                out.push(Inference::Alert(Alert::premature_drop(t, e, &why)));
            }
        }
    }
}

fn dots(side: Color) -> &'static str {
    if side == Color::White { "." } else { "..." }
}
