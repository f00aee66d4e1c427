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
//!   board's presses or being alerted as missing. A piece from hand put on a candidate's
//!   square (a drop, a king dropped at once) shows the square was empty: the candidate
//!   stays, *covered*, and is preferred;
//! - a promotion committed on one board takes the latest matching candidate of the other
//!   board, or waits for one (a *pending* grab) until the window closes;
//! - a lift alone does not tell a grab from the start of a move of that board's own
//!   player, who may be moving a piece of the same kind at that very moment. So a pairing
//!   is *provisional* until the piece's owner completes a move on that board with the
//!   piece still gone (or a piece from hand covers its square). Before that, the piece
//!   showing up again — put back, put on a square it could reach, or its square taken by a
//!   piece of the board (a capture) — undoes the pairing (a correction) and the promotion
//!   waits for another lift;
//! - once paired, the record's SAN gets the grab square (`b8=Ra1`, a correction when the
//!   move was already published), and the game takes the piece off the other board, gives
//!   the pawn to the player whose piece was grabbed and makes the promoted piece a real one;
//! - a promotion nothing was grabbed for when the window closes stays recorded as played
//!   and is alerted as an illegal move (`bad-promotion`) — unless the other board is in a
//!   link gap: the grab may have been made there unseen, so the promotion waits for the
//!   gap (flagged `grab-pending`, a window again each time it would close) and is alerted
//!   only once the board is seen again without the grab. Likewise while the other board
//!   holds its events back for a drop waiting for its piece (the lift may be among them).
//!
//! With the "announce piece" rule (`promotion_by_grab` off) none of this runs.

use crate::rules::notation::San;
use crate::rules::{
    BoardId, Color, IllegalReason, Legality, Move, Piece, Rank, Role, Square, attacks,
};

use super::engine::Inferrer;
use super::output::{Alert, AlertCode, Correction, CorrectionKind, Inference, RecordEntry};

/// A piece lifted from a board that a grab may have taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidate {
    board: BoardId,
    sq: Square,
    piece: Piece,
    t: u64,
    /// A piece from hand put on the emptied square since (the square was empty).
    covered: Option<Piece>,
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

/// A pairing that the grabbed piece's showing up again would undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Provisional {
    /// The promotion, as when it was pending.
    grab: PendingGrab,
    /// The square of the other board the piece was taken from.
    sq: Square,
    /// When the piece left it.
    lifted: u64,
    /// When the pairing was made.
    t: u64,
    /// A piece of the board's other colour was put on the square soon after the lift
    /// while no other lift could be the grab: a capture of the piece if a piece of the
    /// kind is lifted next, which the grab then takes instead.
    taken: bool,
}

/// A move of the owner re-read as a drop from hand beside a grab, before the grab's
/// window closed: a later lift of the kind undoes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reread {
    /// The promotion paired with the move's origin.
    grab: PendingGrab,
    /// The re-read entry, by identity, and the move first read.
    board: BoardId,
    number: u32,
    side: Color,
    mv: Move,
}

/// The grab bookkeeping of a match.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grabs {
    candidates: Vec<Candidate>,
    pending: Vec<PendingGrab>,
    provisional: Vec<Provisional>,
    reread: Vec<Reread>,
}

/// How many candidates are kept (the oldest go first).
const MAX_CANDIDATES: usize = 16;

/// A piece taken before its capturer is put on its square is put there within this part
/// of the grab window (5 s of the default 15 s); a piece of the other colour put on a
/// lifted piece's square later moved onto an empty square.
const CAPTURE_HOLD_PART: u64 = 3;

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

    /// A square reading on `board` (hook of `on_square`; `was` is what the square showed
    /// before): a lift may be a grab's; a put may show that a piece taken for a grab is
    /// still on the board, or confirm a grab.
    pub(crate) fn grab_square(
        &mut self,
        t: u64,
        board: BoardId,
        sq: Square,
        (was, piece): (Option<Piece>, Option<Piece>),
        out: &mut Vec<Inference>,
    ) {
        if !self.grabs_on() {
            return;
        }
        // A piece read where one of its own colour stood (a misread, a piece adjusted)
        // did not move there.
        if let Some(p) = piece
            && was.is_none_or(|w| w.color != p.color)
        {
            self.grab_put(t, board, sq, p, out);
        }
        let window = self.config.grab_window_ms;
        let committed = *self.game.board(board).board();
        let physical = self.tracks[board].physical;
        let mut covered = false;
        self.grabs.candidates.retain_mut(|c| {
            if c.t + window < t {
                return false;
            }
            if c.board != board {
                return true;
            }
            // The square changed hands in the game since: a stale candidate.
            if committed.piece_at(c.sq) != Some(c.piece) {
                return false;
            }
            if c.sq != sq {
                return true;
            }
            match piece {
                // Lifted again (the piece that covered it): a fresh candidate below.
                None => false,
                // Put back: it was no grab (unless a pawn promotes there).
                Some(p)
                    if p == c.piece
                        && !promoting_to(&committed, &physical, sq, p, false)
                        && !promoting_to(&committed, &physical, sq, p, true) =>
                {
                    false
                }
                // A piece of the board's other colour moved there: a capture of the
                // lifted piece.
                Some(p) if p.color != c.piece.color && captures(&committed, &physical, sq, p) => {
                    false
                }
                // A piece from hand, or one of the same colour: the square was empty.
                Some(p) => {
                    c.covered = Some(p);
                    covered = true;
                    true
                }
            }
        });
        if covered {
            self.retry_pending_grabs(t, out);
            return;
        }
        if piece.is_some()
            || self
                .grabs
                .candidates
                .iter()
                .any(|c| c.board == board && c.sq == sq)
        {
            return;
        }
        let Some(standing) = committed.piece_at(sq) else {
            return;
        };
        if matches!(standing.role, Role::King | Role::Pawn) {
            return;
        }
        let promoting = board.other();
        if self.undo_reread(t, board, sq, standing, out) {
            return;
        }
        // A provisional grab whose square was taken by a capture: this lift is the grab.
        if let Some(i) = self
            .grabs
            .provisional
            .iter()
            .position(|g| g.taken && g.grab.board == promoting && g.grab.piece == standing)
        {
            let g = self.grabs.provisional.remove(i);
            self.unpair(t, g, out);
        }
        // A promotion already committed waits for this piece.
        if let Some(i) = self
            .grabs
            .pending
            .iter()
            .position(|p| p.board == promoting && p.piece == standing)
        {
            let p = self.grabs.pending.remove(i);
            self.pair(t, t, p, sq, out);
            return;
        }
        // A provisional grab may turn out to be another lift: this one.
        let doubted = self
            .grabs
            .provisional
            .iter()
            .any(|g| g.grab.board == promoting && g.grab.piece == standing);
        if doubted || self.may_promote(promoting, standing.color) {
            self.grabs.candidates.push(Candidate {
                board,
                sq,
                piece: standing,
                t,
                covered: None,
            });
            if self.grabs.candidates.len() > MAX_CANDIDATES {
                self.grabs.candidates.remove(0);
            }
            self.tracks[board].missing_ok.add(sq);
        }
    }

    /// `p` put on `sq` of `board`: a provisional grab from that board whose piece this
    /// is (put back, or put where it could have moved) or whose square a piece of the
    /// board's other colour took (a capture, while another lift can be the grab) was no
    /// grab; any other piece on its square confirms it.
    fn grab_put(&mut self, t: u64, board: BoardId, sq: Square, p: Piece, out: &mut Vec<Inference>) {
        let committed = *self.game.board(board).board();
        let physical = self.tracks[board].physical;
        // A piece of the kind in the owner's hand, or on its way there (captured on the
        // other board, the press still to come): the put may be a drop.
        let in_hand = self.game.board(board).pockets()[p.color].has(p.role)
            || self.capture_pending_on_other_board(board, &Move::Drop { piece: p, to: sq });
        let candidates = self.grabs.candidates.clone();
        let hold = self.config.grab_window_ms / CAPTURE_HOLD_PART;
        let mut undone = Vec::new();
        self.grabs.provisional.retain_mut(|g| {
            if g.grab.board != board.other() {
                return true;
            }
            let piece = g.grab.piece;
            // Another lift that can be the grab.
            let other_lift = candidates.iter().any(|c| {
                c.board == board
                    && c.piece == piece
                    && committed.piece_at(c.sq) == Some(piece)
                    && physical.piece_at(c.sq).is_none()
            });
            let refuted = if p == piece {
                // Put where the grabbed one was or could have gone, and nothing else to
                // explain it: no other such piece lifted that could have gone there, no
                // pawn promoting, no drop from hand (on an empty square) unless another
                // lift can be the grab.
                let occupied = committed.occupied();
                let reach = attacks(piece.role, piece.color, g.sq, occupied);
                let lifted = committed.by_piece(p) - physical.by_piece(p);
                // A square lifted on the board (a pawn taken, a piece in the hand) blocks
                // no other piece's path.
                let standing = occupied & physical.occupied();
                let other_origin = Iterator::any(&mut lifted.into_iter(), |from: Square| {
                    from != g.sq && attacks(p.role, p.color, from, standing).contains(sq)
                });
                // The same piece put back where the committed position has it (lifted
                // and put back, a j'adoube) is that piece, not the grabbed one.
                let put_back = sq != g.sq && committed.piece_at(sq) == Some(p);
                (sq == g.sq || reach.contains(sq))
                    && !put_back
                    && !other_origin
                    && !(in_hand && committed.piece_at(sq).is_none() && !other_lift)
                    && !promoting_to(&committed, &physical, sq, p, false)
                    && !promoting_to(&committed, &physical, sq, p, true)
            } else if sq == g.sq {
                // Taken by a piece of the board's other colour soon after the lift: a
                // capture of the piece, when another lift can be the grab (a move onto
                // the emptied square leaves no promotion without its grab). Covered
                // from hand or by a piece of the same colour: the grab stands.
                let capture = p.color != piece.color
                    && t <= g.lifted + hold
                    && captures(&committed, &physical, sq, p);
                if !capture {
                    return false;
                }
                if !other_lift {
                    // The grab may still be lifted: the next lift of the kind decides.
                    g.taken = true;
                    return true;
                }
                true
            } else {
                false
            };
            if refuted {
                undone.push(*g);
            }
            !refuted
        });
        for g in undone {
            self.unpair(t, g, out);
        }
    }

    /// A press on `board` that no legal move explains while a grab from it stands whose
    /// square a piece of the other colour took: if, the grab undone, a legal move (that
    /// capture) explains the board, the grab was none; the promotion waits for another
    /// lift and the capture is returned. Otherwise the grab stays.
    pub(crate) fn capture_of_taken_grab(
        &mut self,
        board: BoardId,
        p: super::board_track::PendingPress,
        out: &mut Vec<Inference>,
    ) -> Option<super::matcher::Explanation> {
        let i = self
            .grabs
            .provisional
            .iter()
            .position(|g| g.taken && g.grab.board == board.other())?;
        let g = self.grabs.provisional[i];
        let index = self.entry_index(g.grab.board, g.grab.number, g.grab.side)?;
        self.pair_quietly(index, None);
        let found = self.explain_press(board, p.by);
        self.pair_quietly(index, Some(g.sq));
        let capture = found.filter(|e| e.legality.is_legal() && e.mv.to() == g.sq)?;
        self.grabs.provisional.remove(i);
        self.unpair(p.t, g, out);
        Some(capture)
    }

    /// The owner of a provisionally grabbed piece completed a move on its board with the
    /// piece still gone: the lift was no move of his, the grab stands.
    fn confirm_grabs(&mut self, board: BoardId, mover: Color) {
        let physical = self.tracks[board].physical;
        self.grabs.provisional.retain(|g| {
            !(g.grab.board == board.other()
                && g.grab.piece.color == mover
                && physical.piece_at(g.sq) != Some(g.grab.piece))
        });
    }

    /// A move was just recorded at `index` (hook of `commit`): a promotion takes its grab.
    /// Returns whether the entry changed.
    pub(crate) fn grab_on_commit(&mut self, index: usize, out: &mut Vec<Inference>) -> bool {
        if !self.grabs_on() {
            return false;
        }
        let Some(entry) = self.record.get(index) else {
            return false;
        };
        let before = entry.san.clone();
        let (board, side, now) = (entry.board, entry.side, entry.t);
        let mv = entry.mv;
        self.confirm_grabs(board, side);
        self.own_move_was_a_drop(index, board, side, mv, out);
        // Any move may settle which lift a waiting grab was.
        self.retry_pending_grabs(now, out);
        let Some(entry) = self.record.get(index) else {
            return false;
        };
        let changed = before != entry.san;
        let Some(role) = entry.mv.promotion() else {
            return changed;
        };
        let (number, t) = (entry.number, entry.t);
        let piece = role.of(side);
        let window = self.config.grab_window_ms;
        // The window counts from the promoted piece's put as well as from the press (a
        // press may reach us late).
        let put = self.tracks[board].last_change.min(t);
        let grab = PendingGrab {
            board,
            number,
            side,
            piece,
            put,
            deadline: t.saturating_add(window),
        };
        match self.take_candidate(board.other(), piece, (put, t), window, false) {
            Some(c) => {
                self.provisional(grab, c.sq, c.t, t, c.covered.is_some());
                self.pair_quietly(index, Some(c.sq));
                true
            }
            None => {
                // The grabbed piece is the one put on the promotion square: when it shows
                // there, its lift is already behind us, and a move of its kind read on the
                // other board may have been that lift and a drop.
                let shown = !self.record[index].flags.promotion_not_shown;
                if shown && self.grab_from_drop_read_as_move(grab, None, true, t, out) {
                    return true;
                }
                self.grabs.pending.push(grab);
                // The other board is silent: the grab may be made there unseen.
                if self.in_gap(board.other()) {
                    self.record[index].flags.grab_pending = true;
                    return true;
                }
                changed
            }
        }
    }

    /// The candidate of `board` for a grab of `piece` put on the promotion square at `since`
    /// and pressed at `until`: the piece still in the committed position and its square
    /// still empty (or covered by a piece from hand, preferred). A lift that looks like the
    /// start of a move (the same piece has appeared on a square it could reach) is taken
    /// only when more such pieces vanished than appeared. Several equally likely lifts give
    /// none (the board's next move decides) unless `force`d: then the latest wins.
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
        let valid: Vec<(usize, bool, bool)> = self
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
                    && physical.piece_at(c.sq) == c.covered
            })
            .map(|(i, c)| {
                let reach = attacks(piece.role, piece.color, c.sq, occupied);
                (i, c.covered.is_some(), (reach & appeared).any())
            })
            .collect();
        if let Some(&(i, ..)) = valid.iter().rev().find(|v| v.1) {
            return Some(self.grabs.candidates.remove(i));
        }
        let still: Vec<usize> = valid.iter().filter(|v| !v.2).map(|&(i, ..)| i).collect();
        let chosen = match still.as_slice() {
            [i] => Some(*i),
            [.., last] if force => Some(*last),
            [] if valid.len() > appeared.count() && (valid.len() == 1 || force) => {
                valid.last().map(|&(i, ..)| i)
            }
            // Several lifts could be the grab: the board's own move will tell.
            _ => None,
        }?;
        Some(self.grabs.candidates.remove(chosen))
    }

    /// Closes the window of the pending grabs (hook of the timers).
    pub(crate) fn expire_grabs(&mut self, t: u64, out: &mut Vec<Inference>) {
        let window = self.config.grab_window_ms;
        self.grabs
            .provisional
            .retain(|g| g.t.saturating_add(window) >= t);
        self.grabs.reread.retain(|r| r.grab.deadline >= t);
        if self.grabs.pending.is_empty() {
            return;
        }
        let (late, keep): (Vec<PendingGrab>, Vec<PendingGrab>) =
            self.grabs.pending.iter().partition(|p| p.deadline < t);
        self.grabs.pending = keep;
        for p in late {
            let Some(index) = self.entry_index(p.board, p.number, p.side) else {
                continue;
            };
            if self.tracks[p.board.other()].deferred.is_some() {
                // The other board holds its events back (a drop waits for its piece,
                // maybe the very pawn this grab hands over): the grabbed piece's lift may
                // be among them. The grab is decided once they are seen.
                self.grabs.pending.push(p);
                continue;
            }
            let pressed = self.record[index].t;
            let span = (pressed.min(p.put), pressed);
            if let Some(c) = self.take_candidate(p.board.other(), p.piece, span, window, true) {
                // The window is closed: this pairing is final.
                self.pair_quietly_corrected(p.deadline, p, c.sq, out);
                continue;
            }
            if self.grab_from_drop_read_as_move(p, None, false, p.deadline, out) {
                continue;
            }
            if self.in_gap(p.board.other()) {
                // The other board is silent (its link down, or back but not bridged): the
                // grab may well have been made there. The promotion waits for its gap, a
                // whole window again from now, and says so; no alert before it is known.
                self.record[index].flags.grab_pending = true;
                self.grabs.pending.push(PendingGrab {
                    deadline: t.saturating_add(window),
                    ..p
                });
                continue;
            }
            self.record[index].flags.grab_pending = false;
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
                choices: Vec::new(),
            }));
        }
    }

    /// A promotion finds no lift of its piece on the other board: the grabbed piece may
    /// have been taken in the same moments as its owner dropped a piece of the same kind
    /// from his hand, and the owner's drop was read as a move of the grabbed piece (its
    /// square emptied, the same kind appearing where it could go). The latest such move
    /// of the owner within the grab window whose reading as a drop (the piece in hand)
    /// plus the grab from its origin replays the whole record legally is corrected into
    /// the drop, and the grab paired with the origin. Returns whether it was.
    fn grab_from_drop_read_as_move(
        &mut self,
        grab: PendingGrab,
        only: Option<usize>,
        provisional: bool,
        t: u64,
        out: &mut Vec<Inference>,
    ) -> bool {
        let other = grab.board.other();
        let window = self.config.grab_window_ms;
        let Some(promo) = self.entry_index(grab.board, grab.number, grab.side) else {
            return false;
        };
        let pressed = self.record[promo].t;
        let since = grab.put.min(pressed).saturating_sub(window);
        let found = (0..self.record.len()).rev().find_map(|i| {
            let e = &self.record[i];
            if only.is_some_and(|o| o != i)
                || e.board != other
                || e.side != grab.piece.color
                || e.t < since
            {
                return None;
            }
            let Move::Normal {
                role,
                from,
                to,
                capture: None,
                promotion: None,
            } = e.mv
            else {
                return None;
            };
            if role != grab.piece.role || !e.legality.is_legal() {
                return None;
            }
            let drop = Move::Drop {
                piece: grab.piece,
                to,
            };
            self.replays_with(i, drop, promo, from)
                .then_some((i, drop, from))
        });
        let Some((i, drop, from)) = found else {
            return false;
        };
        let e = &self.record[i];
        if provisional {
            self.grabs.reread.push(Reread {
                grab,
                board: e.board,
                number: e.number,
                side: e.side,
                mv: e.mv,
            });
        }
        self.replace_entry(t, i, drop, CorrectionKind::Replace, out);
        self.correct_grab(t, grab, Some(from), out);
        true
    }

    /// A piece of a re-read drop's kind is lifted on its board while the promotion's
    /// window is open: that lift is the grab, and the move read first was a move after
    /// all. Both corrections are undone and the grab waits for this lift's pairing.
    fn undo_reread(
        &mut self,
        t: u64,
        board: BoardId,
        sq: Square,
        piece: Piece,
        out: &mut Vec<Inference>,
    ) -> bool {
        let another_promotion = self.may_promote(board.other(), piece.color);
        let Some(k) = self
            .grabs
            .reread
            .iter()
            // The piece on the re-read move's square stands there in both readings: its
            // lift tells only when no other promotion may be grabbing it.
            .position(|r| {
                r.board == board
                    && r.grab.piece == piece
                    && t <= r.grab.deadline
                    && (sq != r.mv.to() || !another_promotion)
            })
        else {
            return false;
        };
        let r = self.grabs.reread.remove(k);
        let Some(i) = self.entry_index(r.board, r.number, r.side) else {
            return false;
        };
        self.replace_entry(t, i, r.mv, CorrectionKind::Replace, out);
        self.correct_grab(t, r.grab, None, out);
        self.pair(t, t, r.grab, sq, out);
        true
    }

    /// The move just recorded at `index` moved a piece of a kind a promotion of the other
    /// board waits for, from a square lifted before that promotion's piece was put down:
    /// the grabbed piece is the one put on the promotion square, so that lift may well
    /// have been the grab, and the piece that appeared a drop from its owner's hand. When
    /// that reading replays, it is taken at once (a correction): the drops of the pawn
    /// the grab hands over are not alerted as premature meanwhile.
    fn own_move_was_a_drop(
        &mut self,
        index: usize,
        board: BoardId,
        side: Color,
        mv: Move,
        out: &mut Vec<Inference>,
    ) {
        let Move::Normal {
            role,
            from,
            capture: None,
            promotion: None,
            ..
        } = mv
        else {
            return;
        };
        let piece = role.of(side);
        let lifted = |put: u64| {
            self.grabs
                .candidates
                .iter()
                .any(|c| c.board == board && c.sq == from && c.piece == piece && c.t <= put)
        };
        let Some(grab) = self
            .grabs
            .pending
            .iter()
            .find(|p| p.board == board.other() && p.piece == piece && lifted(p.put))
            .copied()
        else {
            return;
        };
        let shown = self
            .entry_index(grab.board, grab.number, grab.side)
            .is_some_and(|i| !self.record[i].flags.promotion_not_shown);
        let t = self.record[index].t;
        if shown && self.grab_from_drop_read_as_move(grab, Some(index), true, t, out) {
            self.grabs.pending.retain(|p| *p != grab);
            self.grabs
                .candidates
                .retain(|c| !(c.board == board && c.sq == from));
        }
    }

    /// Whether the record replays with entry `i` played as `mv` and the promotion at
    /// `promo` grabbing from `grab`: those two legal, and every move recorded as legal
    /// still legal.
    fn replays_with(&self, i: usize, mv: Move, promo: usize, grab: Square) -> bool {
        let mut game = self.start.clone();
        for (k, e) in self.record.iter().enumerate() {
            let m = if k == i {
                game.board(e.board).normalize(&mv)
            } else {
                e.mv
            };
            let legality = game.classify(e.board, &m);
            if (k == i || k == promo || e.legality.is_legal()) && !legality.is_legal() {
                return false;
            }
            let sq = if k == promo {
                Some(grab)
            } else {
                grab_of(&e.san)
            };
            match sq {
                Some(sq) if m.promotion().is_some() => {
                    if game.play_grab_promotion(e.board, &m, sq, e.t).is_err() {
                        return false;
                    }
                }
                _ => {
                    game.play(e.board, &m, e.t);
                }
            }
        }
        true
    }

    /// `board` is back from a link gap that no sequence of plies explains: a promotion
    /// of the other board waiting for its grab may have taken its piece from this board
    /// unseen. When exactly one square lost such a piece, the grab is paired there (a
    /// correction), and the gap can be searched again from the position after it.
    pub(crate) fn grab_from_gap(
        &mut self,
        board: BoardId,
        t: u64,
        out: &mut Vec<Inference>,
    ) -> bool {
        let Some((i, sq)) = self.gap_grab_candidate(board) else {
            return false;
        };
        let grab = self.grabs.pending.remove(i);
        self.pair_quietly_corrected(t, grab, sq, out);
        true
    }

    /// The pending grab of the other board (its index) whose piece is gone from exactly
    /// one square of `board` since its last committed position, and that square.
    pub(crate) fn gap_grab_candidate(&self, board: BoardId) -> Option<(usize, Square)> {
        if !self.grabs_on() {
            return None;
        }
        let committed = self.game.board(board).board();
        let physical = self.tracks[board].physical;
        self.grabs
            .pending
            .iter()
            .enumerate()
            .filter(|(_, p)| p.board == board.other())
            .find_map(|(i, p)| {
                (committed.by_piece(p.piece) - physical.by_piece(p.piece))
                    .single()
                    .map(|sq| (i, sq))
            })
    }

    /// Tries the pending grabs again (a move committed may have settled which lift was
    /// the grab).
    fn retry_pending_grabs(&mut self, now: u64, out: &mut Vec<Inference>) {
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
                Some(c) => {
                    let t = now.max(c.t).min(p.deadline);
                    self.pair(t, c.t, p, c.sq, out);
                }
                None => self.grabs.pending.push(p),
            }
        }
    }

    fn entry_index(&self, board: BoardId, number: u32, side: Color) -> Option<usize> {
        self.record
            .iter()
            .rposition(|e| e.board == board && e.number == number && e.side == side)
    }

    /// Remembers a pairing as provisional (unless `sure`).
    fn provisional(&mut self, grab: PendingGrab, sq: Square, lifted: u64, t: u64, sure: bool) {
        if !sure {
            self.grabs.provisional.push(Provisional {
                grab,
                sq,
                lifted,
                t,
                taken: false,
            });
        }
    }

    /// Pairs a published promotion with the grab from `sq` (provisionally): a correction.
    fn pair(
        &mut self,
        t: u64,
        lifted: u64,
        grab: PendingGrab,
        sq: Square,
        out: &mut Vec<Inference>,
    ) {
        let covered = self.physical(grab.board.other()).piece_at(sq).is_some();
        self.provisional(grab, sq, lifted, t, covered);
        self.pair_quietly_corrected(t, grab, sq, out);
    }

    /// Writes the grab from `sq` (or none) into the promotion of `grab` and says so.
    fn pair_quietly_corrected(
        &mut self,
        t: u64,
        grab: PendingGrab,
        sq: Square,
        out: &mut Vec<Inference>,
    ) {
        self.correct_grab(t, grab, Some(sq), out);
    }

    /// A provisional grab turned out to be no grab: the promotion waits again.
    fn unpair(&mut self, t: u64, g: Provisional, out: &mut Vec<Inference>) {
        self.correct_grab(t, g.grab, None, out);
        self.grabs.pending.push(g.grab);
        self.retry_pending_grabs(t, out);
    }

    /// Sets the grab square of a published promotion: a correction.
    fn correct_grab(
        &mut self,
        t: u64,
        grab: PendingGrab,
        sq: Option<Square>,
        out: &mut Vec<Inference>,
    ) {
        let PendingGrab {
            board,
            number,
            side,
            ..
        } = grab;
        let Some(index) = self.entry_index(board, number, side) else {
            return;
        };
        let old_san = self.record[index].san.clone();
        self.pair_quietly(index, sq);
        let new_san = self.record[index].san.clone();
        if old_san == new_san {
            return;
        }
        let mover = if side == Color::White { "." } else { "..." };
        let detail = match sq {
            Some(sq) => format!(
                "board {board}: move {number}{mover} {old_san} grabbed from board {}{sq}: {new_san}",
                board.other()
            ),
            None => format!(
                "board {board}: move {number}{mover} {old_san}: the piece taken for the grab is still on board {}: {new_san}",
                board.other()
            ),
        };
        out.push(Inference::Correction(Correction {
            t,
            board,
            side,
            number,
            index,
            kind: CorrectionKind::Promotion,
            old_san,
            new_san,
            detail,
        }));
        // A piece grabbed (or put back) changes the other board: it may be mated now.
        self.report_replayed_end(t, out);
    }

    /// Writes the grab (or none) into entry `index` and re-plays the record.
    fn pair_quietly(&mut self, index: usize, sq: Option<Square>) {
        let entry = &mut self.record[index];
        if let Ok(san) = entry.san.parse::<San>() {
            entry.san = san.with_grab(sq).to_string();
        }
        if let Some(sq) = sq {
            entry.flags.grab_pending = false;
            self.tracks[entry.board.other()].missing_ok.discard(sq);
        }
        self.replay_record();
    }

    /// Re-plays the whole record from the start (a grab changes both boards).
    pub(crate) fn replay_record(&mut self) {
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

/// Whether `p`, just put on `sq`, may have captured there: such a piece is lifted from a
/// square that attacks `sq`, or a pawn promotes onto it diagonally.
fn captures(
    committed: &crate::rules::Board,
    physical: &crate::rules::Board,
    sq: Square,
    p: Piece,
) -> bool {
    let lifted = committed.by_piece(p) - physical.by_piece(p);
    let occupied = committed.occupied();
    Iterator::any(&mut lifted.into_iter(), |from: Square| {
        attacks(p.role, p.color, from, occupied).contains(sq)
    }) || promoting_to(committed, physical, sq, p, true)
}

/// Whether `p`, just put on `sq`, may be a pawn promoting: `sq` is on its last rank and
/// a pawn of its colour is lifted from a square it could come from (`capture`: diagonally,
/// else straight on).
fn promoting_to(
    committed: &crate::rules::Board,
    physical: &crate::rules::Board,
    sq: Square,
    p: Piece,
    capture: bool,
) -> bool {
    let pawn = Role::Pawn.of(p.color);
    if sq.rank() != Rank::Eighth.relative_to(p.color) || p.role == Role::Pawn {
        return false;
    }
    let lifted = committed.by_piece(pawn) - physical.by_piece(pawn);
    Iterator::any(&mut lifted.into_iter(), |from: Square| {
        let files = (from.file() as i32 - sq.file() as i32).abs();
        let behind = from.rank() == Rank::Seventh.relative_to(p.color);
        behind && files == if capture { 1 } else { 0 }
    })
}

/// The grab square written in a SAN (`b8=Ra1` → a1).
fn grab_of(san: &str) -> Option<Square> {
    san.parse::<San>().ok().and_then(|s| s.grab)
}
