//! Boards without a clock, at bughouse speed.
//!
//! No press says when a move is complete, and a bughouse board is rarely still for a
//! second, so a move cannot wait for the board to settle. Instead every square event is
//! judged as it comes:
//!
//! - The committed position and what the sensors show are compared, and the shortest
//!   sequence of plies that gives **exactly** what the board shows is looked for (one ply,
//!   or a ply and the reply when the opponent already moved; the side to move alternates,
//!   drops need the piece in hand, castling, e.p. and promotions as on clocked boards). A
//!   board that matches no such sequence is a move in progress (a hand in the air, a
//!   victim held, a castling half done): nothing is decided.
//! - The last ply of the sequence is **provisional**: the same side may still be sliding
//!   the piece on, or castling rook first. The plies before it are final: the other side
//!   has moved since.
//! - A provisional move becomes final when the other side's next move begins (one of its
//!   pieces lifted, or put down, away from the squares of the move; or another piece of
//!   the mover lifted: the other side takes it, a victim lifted first) or when the board
//!   has been still for [`stable_commit_ms`](super::InferConfig::stable_commit_ms) with
//!   only that move on it (pieces in hands aside). An illegal or out-of-turn reading, and
//!   a rook move that castling would explain once the king follows (case 7), wait twice
//!   as long.
//! - A move made final by stillness alone may still be the first stop of a slow slide or
//!   the rook half of castling: when its mover goes on with the same piece (or the king)
//!   before the other side moves, the record entry is corrected to the whole move.
//!
//! A final move keeps the time of the placement that completed it, so moves of a clockless
//! board take their place among the other board's by that time, and a drop never before
//! the partner's capture that supplied it (a drop whose piece is not in hand yet waits
//! for that capture, which is made final at once).

use crate::rules::{BoardId, Move, Piece, Position, Role, Square};

mod search;

use super::Inferrer;
use super::engine::Completion;
use super::matcher::{self, Explanation};
use super::output::{CorrectionKind, Inference, MoveFlags};

/// How much longer than a legal move an illegal or out-of-turn reading must stay still to
/// be final.
pub(crate) const ILLEGAL_PATIENCE: u64 = 2;

/// How long (ms) a drop whose piece is not in hand yet may wait for the partner's capture
/// on a clockless board: the partner's hand may put the piece down before the capture's
/// last placement is read on the other board.
pub(crate) const CLOCKLESS_DROP_TOLERANCE_MS: u64 = 1500;

/// A clockless board's last move, made final by stillness alone: its mover may still go
/// on with the piece (a slow slide, castling after its rook).
#[derive(Debug, Clone)]
pub(crate) struct Revisable {
    /// Its side and move number.
    side: crate::rules::Color,
    number: u32,
    /// The board's position before it.
    before: Position,
}

/// How long (ms) a drop on a clockless board waits for the other board's press when that
/// board already shows the capture that supplies it: a player may press late.
pub(crate) const CLOCKLESS_SUPPLY_WAIT_MS: u64 = 60_000;

/// A move seen complete on a clockless board, not final yet.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Provisional {
    /// The move.
    pub(crate) exp: Explanation,
    /// When the placement that completed it was read.
    pub(crate) t: u64,
}

impl Provisional {
    /// A move of the side to move that breaks no rule (a drop whose piece is still on its
    /// way from the other board counts: it waits for it when committed).
    fn sure(&self, pos: &Position) -> bool {
        self.exp.mover == pos.turn()
            && matches!(
                self.exp.legality,
                crate::rules::Legality::Legal
                    | crate::rules::Legality::Illegal(crate::rules::IllegalReason::DropNotInHand)
            )
    }
}

impl Inferrer {
    /// Whether `board` is followed square by square (no clock reports on it).
    pub(crate) fn clockless(&self, board: BoardId) -> bool {
        !self.has_clock(board)
    }

    /// A square of a clockless board changed from `was` to `now` (already applied to the
    /// physical board, in true orientation) at `t`.
    pub(crate) fn clockless_square(
        &mut self,
        t: u64,
        board: BoardId,
        sq: Square,
        (was, now): (Option<Piece>, Option<Piece>),
        out: &mut Vec<Inference>,
    ) {
        self.tracks[board].square_t[sq.index()] = t;
        if !self.clockless_ready(board) {
            return;
        }
        if let Some(p) = self.tracks[board].provisional
            && !matcher::touched(&p.exp.mv).contains(sq)
        {
            let other = p.exp.mover.other();
            let let_go = match (was, now) {
                // The other side's move begins.
                (_, Some(n)) => n.color == other,
                (Some(w), None) if w.color == other => true,
                // Another piece of the mover's colour lifted from where it stands: the
                // other side takes it (a victim lifted first), or touches it; the mover's
                // hand is done with its move, unless the move was a rook's, its king may
                // follow. (A piece lifted from a square it only crossed is still moving.)
                (Some(w), None) => {
                    self.stands_after(board, &p, sq, w) && !self.may_castle_after(board, &p)
                }
                (None, None) => false,
            };
            if let_go {
                self.finalize(board, false, out);
            }
        }
        if let Some(p) = self.tracks[board].provisional
            && was.is_some_and(|w| w.color != p.exp.mover)
            && now.is_none()
        {
            // A lift of the other colour (its move, or a victim of it) ends any slide.
            self.tracks[board].revisable = None;
        }
        self.clockless_explain(t, board, out);
    }

    /// Nothing is judged square by square while a drop waits for the other board, in a link
    /// gap, before the board is seen whole, or once the game has ended (the players set the
    /// pieces up again: a new game, not moves).
    fn clockless_ready(&self, board: BoardId) -> bool {
        let track = &self.tracks[board];
        self.game.end().is_none()
            && track.deferred.is_none()
            && !track.finalizing
            && !track.awaiting_snapshot
            && track.gap.is_none()
            && track.oriented
            && track.pending.is_none()
    }

    /// Looks for the plies that give exactly what the board shows: the earlier ones are
    /// made final, the last one is provisional.
    pub(crate) fn clockless_explain(&mut self, t: u64, board: BoardId, out: &mut Vec<Inference>) {
        if !self.clockless_ready(board) {
            return;
        }
        let pos = self.game.board(board);
        if matcher::diff(pos, &self.tracks[board].physical).is_empty() {
            // Everything put back: no move.
            self.tracks[board].provisional = None;
            return;
        }
        let seq = self.exact_plies(board);
        let Some((last, earlier)) = seq.split_last() else {
            return;
        };
        if seq[0].mover != self.game.board(board).turn() && self.revise(t, board, out) {
            return;
        }
        // A move seen complete before keeps the time it was first complete.
        let mut times = self.ply_times(board, &seq, t);
        if let (Some(o), Some(first)) = (self.tracks[board].provisional, times.first_mut())
            && o.exp.mv == seq[0].mv
        {
            *first = o.t.min(*first);
        }
        let last_t = times.pop().unwrap_or(t);
        for (exp, at) in earlier.iter().zip(times) {
            self.tracks[board].provisional = Some(Provisional { exp: *exp, t: at });
            self.finalize(board, false, out);
            if !self.clockless_ready(board) {
                // A drop waits for its piece: the rest is judged when it is settled.
                return;
            }
        }
        self.tracks[board].provisional = Some(Provisional {
            exp: *last,
            t: last_t,
        });
        self.supply_waiting_drop(board, out);
        let partner = board.other();
        if self.tracks[board]
            .provisional
            .is_some_and(|p| self.hands(board, &p.exp).is_some())
            && self.clockless(partner)
            && self.tracks[partner].provisional.is_none()
        {
            // The partner's board may show a drop of the piece this capture supplies,
            // made before the capture was read here.
            let at = self.tracks[partner].last_change;
            self.clockless_explain(at, partner, out);
        }
    }

    /// When each ply of `seq` was completed: the last reading of a square only it changed
    /// (the later plies may have read the others since), never after the next ply's time.
    fn ply_times(&self, board: BoardId, seq: &[Explanation], now: u64) -> Vec<u64> {
        let track = &self.tracks[board];
        let mut times = vec![now; seq.len()];
        let mut later = crate::rules::Bitboard::EMPTY;
        for i in (0..seq.len()).rev() {
            let own = matcher::touched(&seq[i].mv) - later;
            let at = own
                .into_iter()
                .map(|sq| track.square_t[sq.index()])
                .max()
                .unwrap_or(now);
            let cap = times.get(i + 1).copied().unwrap_or(now);
            times[i] = at.min(cap);
            later |= matcher::touched(&seq[i].mv);
        }
        times
    }

    /// The provisional move of `board` is final: it is committed with the time of the
    /// placement that completed it. `still`: made final by stillness alone (its mover may
    /// still go on with the piece).
    pub(crate) fn finalize(&mut self, board: BoardId, still: bool, out: &mut Vec<Inference>) {
        let Some(p) = self.tracks[board].provisional.take() else {
            return;
        };
        let done = Completion {
            t: p.t,
            readings: None,
            flags: MoveFlags {
                no_clock: true,
                ..MoveFlags::default()
            },
            presser: None,
            held_at_press: false,
        };
        let len = self.record.len();
        // Committing may make the other board's capture final first, which judges this
        // board again: not while its own move is being committed.
        self.tracks[board].finalizing = true;
        self.commit_explained(board, p.exp, done, out);
        self.tracks[board].finalizing = false;
        self.tracks[board].revisable = if still && self.record.len() > len {
            let before = self.tracks[board].history.last().cloned();
            let last = self.record.iter().rev().find(|e| e.board == board);
            last.zip(before).map(|(e, before)| Revisable {
                side: e.side,
                number: e.number,
                before,
            })
        } else {
            None
        };
    }

    /// A drop of `piece` on `to` whose piece is not in hand: when the other board `from`
    /// holds, provisional, the capture that supplies it, that capture is made final first,
    /// so the drop follows it. Returns whether it was.
    pub(crate) fn supply_from(
        &mut self,
        from: BoardId,
        to: BoardId,
        piece: Piece,
        out: &mut Vec<Inference>,
    ) -> bool {
        if !self.clockless(from) {
            return false;
        }
        let Some(p) = self.tracks[from].provisional else {
            return false;
        };
        if self.hands(from, &p.exp) != Some((to, piece)) {
            return false;
        }
        self.finalize(from, false, out);
        self.tracks[from].provisional.is_none()
    }

    /// A drop on the other board waits for the piece the provisional capture of `board`
    /// hands over: that capture is final at once.
    fn supply_waiting_drop(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        let other = board.other();
        let Some(d) = &self.tracks[other].deferred else {
            return;
        };
        let Move::Drop { piece, .. } = d.exp.mv else {
            return;
        };
        let Some(p) = self.tracks[board].provisional else {
            return;
        };
        if self.hands(board, &p.exp) == Some((other, piece)) {
            self.finalize(board, false, out);
        }
    }

    /// Whether `piece` stands on `sq` in the position after the provisional move (it is
    /// not a piece in transit).
    fn stands_after(&self, board: BoardId, p: &Provisional, sq: Square, piece: Piece) -> bool {
        let mut after = self.game.board(board).clone();
        after.play(&p.exp.mv);
        after.board().piece_at(sq) == Some(piece)
    }

    /// Whether the provisional move is a rook's that castling would also explain once its
    /// king follows (castling rook first, case 7): the king still home with the right to
    /// castle on that side, and the rook on the square castling gives it.
    fn may_castle_after(&self, board: BoardId, p: &Provisional) -> bool {
        let Move::Normal {
            role: Role::Rook,
            from,
            to,
            capture: None,
            ..
        } = p.exp.mv
        else {
            return false;
        };
        let pos = self.game.board(board);
        let king = Square::from_coords(
            crate::rules::File::E,
            crate::rules::Rank::First.relative_to(p.exp.mover),
        );
        pos.board().piece_at(king) == Some(Role::King.of(p.exp.mover))
            && pos.castling_rights().contains(from)
            && to == crate::rules::castle_rook_target(king, from)
    }

    /// What a move of `board` hands to the partner: the board and piece received.
    pub(crate) fn hands(&self, board: BoardId, exp: &Explanation) -> Option<(BoardId, Piece)> {
        let pos = self.game.board(board);
        let (victim, sq) = match exp.mv {
            Move::Normal { to, .. } => (pos.board().piece_at(to)?, to),
            Move::EnPassant { from, to } => {
                let sq = Square::from_coords(to.file(), from.rank());
                (pos.board().piece_at(sq)?, sq)
            }
            _ => return None,
        };
        if victim.color == exp.mover {
            return None;
        }
        let role = if pos.promoted().contains(sq) {
            Role::Pawn
        } else {
            victim.role
        };
        // The partner of the mover plays the other colour on the other board.
        Some((board.other(), role.of(exp.mover.other())))
    }

    /// The timers of a clockless board at `t`: a provisional move still for long enough
    /// is final.
    pub(crate) fn clockless_timer(&mut self, t: u64, board: BoardId, out: &mut Vec<Inference>) {
        if !self.clockless_ready(board) {
            return;
        }
        let track = &self.tracks[board];
        let Some(p) = track.provisional else {
            return;
        };
        let pos = self.game.board(board);
        let wait = if p.sure(pos) && !self.may_castle_after(board, &p) {
            self.config.stable_commit_ms
        } else {
            self.config.stable_commit_ms * ILLEGAL_PATIENCE
        };
        if t < track.last_change.saturating_add(wait) {
            return;
        }
        // Only the move on the board, and maybe pieces in hands (a victim held by the
        // other side, a piece about to be placed).
        let mut after = pos.clone();
        after.play(&p.exp.mv);
        let left = matcher::diff(&after, &track.physical);
        // The moved piece in the air again is the hand still moving it (a slow slide).
        let only_lifted = !left.contains(p.exp.mv.to())
            && left
                .into_iter()
                .all(|sq| track.physical.piece_at(sq).is_none());
        if only_lifted {
            self.finalize(board, true, out);
        }
    }

    /// The board shows another move of the side that moved last, before the other side
    /// moved: if the last move was made final by stillness alone and one move of the same
    /// side from before it explains the board (a slide gone on, castling after its rook),
    /// the record is corrected to that move. Returns whether it was.
    fn revise(&mut self, t: u64, board: BoardId, out: &mut Vec<Inference>) -> bool {
        let Some(r) = self.tracks[board].revisable.clone() else {
            return false;
        };
        let Some(index) = self.record.iter().rposition(|e| e.board == board) else {
            return false;
        };
        let entry = self.record[index].clone();
        if (entry.side, entry.number) != (r.side, r.number) {
            return false;
        }
        let before = r.before;
        let track = &self.tracks[board];
        let Some(e) = matcher::explain(
            &before,
            &track.physical,
            entry.side,
            &track.lifts,
            &mut self.scratch,
            true,
        ) else {
            return false;
        };
        if e.mover != entry.side || !e.legality.is_legal() || e.mv == entry.mv {
            return false;
        }
        let continues = match (entry.mv, e.mv) {
            (Move::Normal { from, .. }, Move::Normal { from: f2, .. }) => from == f2,
            (
                Move::Normal {
                    role: Role::Rook,
                    from,
                    ..
                },
                Move::Castle { rook, .. },
            ) => from == rook,
            _ => false,
        };
        if !continues {
            return false;
        }
        self.replace_entry(t, index, e.mv, CorrectionKind::Revised, out);
        self.tracks[board].provisional = None;
        let phys = self.tracks[board].physical;
        let residual = matcher::diff(self.game.board(board), &phys);
        self.tracks[board]
            .lifts
            .retain(|&(sq, _)| residual.contains(sq));
        true
    }

    /// The clock of `board` stopped reporting: its moves are followed square by square
    /// from now on, starting with what it shows.
    pub(crate) fn clock_lost(&mut self, t: u64, board: BoardId, out: &mut Vec<Inference>) {
        self.tracks[board].provisional = None;
        self.tracks[board].revisable = None;
        self.clockless_explain(t, board, out);
    }

    /// The clock of `board` reports again: the move on the board is final, and the press
    /// its mover still owes completes nothing new.
    pub(crate) fn clock_found(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        let mover = self.tracks[board].provisional.map(|p| p.exp.mover);
        self.finalize(board, false, out);
        self.tracks[board].revisable = None;
        if let Some(side) = mover
            && let Some(e) = self.record.iter().rev().find(|e| e.board == board)
            && e.side == side
        {
            let number = e.number;
            self.tracks[board].owed_presses = vec![(side, number)];
        }
    }

    /// Forgets the provisional state of every board (a new game, a replay of the record).
    pub(crate) fn clockless_reset(&mut self, board: BoardId) {
        let track = &mut self.tracks[board];
        track.provisional = None;
        track.revisable = None;
    }
}
