//! Koedem's grab promotion across the two boards.
//!
//! On the promoting board the move is an ordinary promotion to the piece shown (the
//! matcher finds it). The grabbed piece leaves the *other* board without a move of its
//! own, before, during or just after the press, possibly while that board's players are in
//! the middle of a move. The two are paired here within
//! [`grab_window_ms`](super::InferConfig::grab_window_ms):
//!
//! - a piece lifted on the other board that a grab could take (the promoter's colour,
//!   neither king nor pawn, while that colour has a pawn on its seventh rank on the
//!   promoting board) is a *candidate*: its square may stay empty without holding up that
//!   board's presses or being alerted as missing;
//! - a promotion committed on one board takes the latest matching candidate of the other
//!   board, or waits for one (a *pending* grab) until the window closes;
//! - once paired, the record's SAN gets the grab square (`b8=Ra1`, a correction when the
//!   move was already published), and the game takes the piece off the other board, gives
//!   the pawn to the player whose piece was grabbed and makes the promoted piece a real one;
//! - a promotion nothing was grabbed for when the window closes stays recorded as played
//!   and is alerted as an illegal move (`bad-promotion`).
//!
//! With the "announce piece" rule (`promotion_by_grab` off) none of this runs.

use crate::rules::notation::San;
use crate::rules::{BoardId, Color, IllegalReason, Legality, Piece, Rank, Role, Square, attacks};

use super::engine::Inferrer;
use super::output::{Alert, AlertCode, Correction, CorrectionKind, Inference, RecordEntry};

/// A piece lifted from a board that a grab may have taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidate {
    board: BoardId,
    sq: Square,
    piece: Piece,
    t: u64,
}

/// A promotion waiting for its grabbed piece to leave the other board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PendingGrab {
    /// The promoting board.
    board: BoardId,
    /// The promotion's record entry, by identity.
    number: u32,
    side: Color,
    /// The piece expected to leave the other board.
    piece: Piece,
    /// When the promoted piece was put down.
    put: u64,
    deadline: u64,
}

/// The grab bookkeeping of a match.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grabs {
    candidates: Vec<Candidate>,
    pending: Vec<PendingGrab>,
}

/// How many candidates are kept (the oldest go first).
const MAX_CANDIDATES: usize = 16;

impl Inferrer {
    fn grabs_on(&self) -> bool {
        self.config.ruleset.promotion_by_grab
    }

    /// Whether `color` could be promoting on `board` now: a pawn of his stands on his
    /// seventh rank in the committed position.
    fn may_promote(&self, board: BoardId, color: Color) -> bool {
        let pos = self.game.board(board);
        let seventh = crate::rules::Bitboard::from_rank(Rank::Seventh.relative_to(color));
        (pos.board().by_piece(Role::Pawn.of(color)) & seventh).any()
    }

    /// A square reading on `board` (hook of `on_square`): a lift may be a grab's.
    pub(crate) fn grab_square(
        &mut self,
        t: u64,
        board: BoardId,
        sq: Square,
        piece: Option<Piece>,
        out: &mut Vec<Inference>,
    ) {
        if !self.grabs_on() {
            return;
        }
        let window = self.config.grab_window_ms;
        self.grabs
            .candidates
            .retain(|c| !(c.board == board && c.sq == sq) && c.t + window >= t);
        if piece.is_some() {
            return;
        }
        let Some(standing) = self.game.board(board).board().piece_at(sq) else {
            return;
        };
        if matches!(standing.role, Role::King | Role::Pawn) {
            return;
        }
        let promoting = board.other();
        // A promotion already committed waits for this piece.
        if let Some(i) = self
            .grabs
            .pending
            .iter()
            .position(|p| p.board == promoting && p.piece == standing)
        {
            let p = self.grabs.pending.remove(i);
            self.pair(t, p.board, p.number, p.side, sq, out);
            return;
        }
        if self.may_promote(promoting, standing.color) {
            self.grabs.candidates.push(Candidate {
                board,
                sq,
                piece: standing,
                t,
            });
            if self.grabs.candidates.len() > MAX_CANDIDATES {
                self.grabs.candidates.remove(0);
            }
            self.tracks[board].missing_ok.add(sq);
        }
    }

    /// A move was just recorded at `index` (hook of `commit`): a promotion takes its grab.
    /// Returns whether the entry changed.
    pub(crate) fn grab_on_commit(&mut self, index: usize, out: &mut Vec<Inference>) -> bool {
        if !self.grabs_on() {
            return false;
        }
        // Any move may settle which lift a waiting grab was.
        let before = self.record.get(index).map(|e| e.san.clone());
        self.retry_pending_grabs(out);
        let Some(entry) = self.record.get(index) else {
            return false;
        };
        let changed = before.as_deref() != Some(entry.san.as_str());
        let Some(role) = entry.mv.promotion() else {
            return changed;
        };
        let (board, side, number, t) = (entry.board, entry.side, entry.number, entry.t);
        let piece = role.of(side);
        let other = board.other();
        let window = self.config.grab_window_ms;
        // The window counts from the promoted piece's put as well as from the press (a
        // press may reach us late).
        let put = self.tracks[board].last_change.min(t);
        let found = self.take_candidate(other, piece, (put, t), window, false);
        match found {
            Some(c) => {
                self.pair_quietly(index, c.sq);
                true
            }
            None => {
                self.grabs.pending.push(PendingGrab {
                    board,
                    number,
                    side,
                    piece,
                    put,
                    deadline: t.saturating_add(window),
                });
                changed
            }
        }
    }

    /// The candidate of `board` for a grab of `piece` put on the promotion square at `since`
    /// and pressed at `until`: the piece still in
    /// the committed position and its square still empty. A lift that looks like the start
    /// of a move (the same piece has appeared on a square it could reach) is taken only when
    /// more such pieces vanished than appeared. Several equally likely lifts give none
    /// (the board's next move decides) unless `force`d: then the latest wins.
    fn take_candidate(
        &mut self,
        board: BoardId,
        piece: Piece,
        (since, until): (u64, u64),
        window: u64,
        force: bool,
    ) -> Option<Candidate> {
        let committed = self.game.board(board).board();
        let physical = &self.tracks[board].physical;
        let appeared = physical.by_piece(piece) - committed.by_piece(piece);
        let occupied = committed.occupied();
        let valid: Vec<(usize, bool)> = self
            .grabs
            .candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.board == board
                    && c.piece == piece
                    && c.t + window >= since
                    && until + window >= c.t
                    && committed.piece_at(c.sq) == Some(piece)
                    && physical.piece_at(c.sq).is_none()
            })
            .map(|(i, c)| {
                let reach = attacks(piece.role, piece.color, c.sq, occupied);
                (i, (reach & appeared).any())
            })
            .collect();
        let still: Vec<usize> = valid
            .iter()
            .filter(|(_, moving)| !moving)
            .map(|&(i, _)| i)
            .collect();
        let chosen = match still.as_slice() {
            [i] => Some(*i),
            [.., last] if force => Some(*last),
            [] if valid.len() > appeared.count() && (valid.len() == 1 || force) => {
                valid.last().map(|&(i, _)| i)
            }
            // Several lifts could be the grab: the board's own move will tell.
            _ => None,
        }?;
        Some(self.grabs.candidates.remove(chosen))
    }

    /// Closes the window of the pending grabs (hook of the timers).
    pub(crate) fn expire_grabs(&mut self, t: u64, out: &mut Vec<Inference>) {
        if self.grabs.pending.is_empty() {
            return;
        }
        let (late, keep): (Vec<PendingGrab>, Vec<PendingGrab>) =
            self.grabs.pending.iter().partition(|p| p.deadline < t);
        self.grabs.pending = keep;
        let window = self.config.grab_window_ms;
        for p in late {
            let Some(index) = self.entry_index(p.board, p.number, p.side) else {
                continue;
            };
            let pressed = self.record[index].t;
            let span = (pressed.min(p.put), pressed);
            if let Some(c) = self.take_candidate(p.board.other(), p.piece, span, window, true) {
                self.pair(p.deadline, p.board, p.number, p.side, c.sq, out);
                continue;
            }
            let reason = IllegalReason::BadPromotion;
            self.record[index].legality = Legality::Illegal(reason);
            let e = &self.record[index];
            out.push(Inference::Alert(Alert {
                t: p.deadline,
                board: Some(p.board),
                code: AlertCode::IllegalMove,
                reason: Some(reason),
                number: Some(e.number),
                side: Some(e.side),
                san: Some(e.san.clone()),
                detail: format!(
                    "board {}: {} promotes but no {} of {} left board {}: no grab seen; recorded as played",
                    p.board,
                    e.san,
                    p.piece.role,
                    p.piece.color,
                    p.board.other()
                ),
            }));
        }
    }

    /// Tries the pending grabs again (a move committed may have settled which lift was
    /// the grab).
    fn retry_pending_grabs(&mut self, out: &mut Vec<Inference>) {
        let window = self.config.grab_window_ms;
        let pending = std::mem::take(&mut self.grabs.pending);
        for p in pending {
            let pressed = self
                .entry_index(p.board, p.number, p.side)
                .map(|i| self.record[i].t);
            let found = pressed.and_then(|t| {
                let span = (t.min(p.put), t);
                self.take_candidate(p.board.other(), p.piece, span, window, false)
            });
            match found {
                Some(c) => self.pair(p.deadline, p.board, p.number, p.side, c.sq, out),
                None => self.grabs.pending.push(p),
            }
        }
    }

    fn entry_index(&self, board: BoardId, number: u32, side: Color) -> Option<usize> {
        self.record
            .iter()
            .rposition(|e| e.board == board && e.number == number && e.side == side)
    }

    /// Pairs a published promotion with the grab from `sq`: a correction.
    fn pair(
        &mut self,
        t: u64,
        board: BoardId,
        number: u32,
        side: Color,
        sq: Square,
        out: &mut Vec<Inference>,
    ) {
        let Some(index) = self.entry_index(board, number, side) else {
            return;
        };
        let old_san = self.record[index].san.clone();
        self.pair_quietly(index, sq);
        let new_san = self.record[index].san.clone();
        out.push(Inference::Correction(Correction {
            t,
            board,
            side,
            number,
            index,
            kind: CorrectionKind::Promotion,
            old_san: old_san.clone(),
            new_san: new_san.clone(),
            detail: format!(
                "board {board}: move {number}{} {old_san} grabbed from board {}{sq}: {new_san}",
                if side == Color::White { "." } else { "..." },
                board.other()
            ),
        }));
    }

    /// Writes the grab into entry `index` and re-plays the record.
    fn pair_quietly(&mut self, index: usize, sq: Square) {
        let entry = &mut self.record[index];
        if let Ok(san) = entry.san.parse::<San>() {
            entry.san = san.with_grab(Some(sq)).to_string();
        }
        self.tracks[entry.board.other()].missing_ok.discard(sq);
        self.replay_record();
    }

    /// Re-plays the whole record from the start (a grab changes both boards).
    fn replay_record(&mut self) {
        let record = std::mem::take(&mut self.record);
        self.game = self.start.clone();
        self.debts = Default::default();
        for b in BoardId::ALL {
            self.tracks[b].history.clear();
        }
        for mut e in record {
            e.handoff = self.apply(&e).1;
            self.record.push(e);
        }
    }

    /// After a record entry is played into the game (hook of `apply`): a grab written in
    /// its SAN takes the piece off the other board and passes the pawn.
    pub(crate) fn apply_grab(&mut self, entry: &RecordEntry) {
        if !self.grabs_on() || entry.mv.promotion().is_none() {
            return;
        }
        let Some(sq) = grab_of(&entry.san) else {
            return;
        };
        let other = entry.board.other();
        let pos = self.game.board_mut(other);
        if pos.board().piece_at(sq) == entry.mv.promotion().map(|r| r.of(entry.side)) {
            pos.remove_piece_at(sq);
            pos.pockets_mut()[entry.side].add(Role::Pawn);
            self.game
                .board_mut(entry.board)
                .set_promoted(entry.mv.to(), false);
        }
    }
}

/// The grab square written in a SAN (`b8=Ra1` → a1).
fn grab_of(san: &str) -> Option<Square> {
    san.parse::<San>().ok().and_then(|s| s.grab)
}
