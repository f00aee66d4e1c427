//! A piece lifted and put back, or a quiet move landing late, that reads the same as a
//! capture by that piece set straight onto its victim (its square shows no change) and the
//! opponent's drop where the piece stood or landed.
//!
//! At bughouse pace the opponent's drop follows a capture within a second, and a capturer
//! is often set straight onto its victim: the board then shows the mover's piece lifted
//! and its square filled again, or a square filled where the piece could have gone. The
//! plain reading (put back, or the quiet move) and each capture with its drop are followed
//! side by side (see `speculate.rs`) until later moves tell them apart: the piece on the
//! victim's square moves as the capturer, or the dropped piece as the opponent's.

use crate::rules::{BoardId, Move, Square};

use super::{
    KindNote, OccupancyInference, SLOW_LANDING_MS, by_victim, capture_made, captures_from,
    occupancy_after, square_names,
};

/// The shortest time between a piece's lift and its square filling again that may be a
/// capture (the piece set onto its victim) and the opponent's drop there (ms): a sensor's
/// flicker is shorter, and two hands' movements take longer.
const SHORTEST_CAPTURE_AND_DROP_MS: u64 = 150;

impl OccupancyInference {
    /// The board is back as it was after one piece of the side to move was lifted (and
    /// nothing else changed): put back, or set straight onto a piece it took with the
    /// opponent dropping a piece where it stood. When a drop may follow a capture it could
    /// make, both are followed side by side (the put-back reading, and each such capture
    /// with the drop), and the main reading stalls, said only if no reading is left (see
    /// [`OccupancyInference::stalled`]). A lift shorter than [`SHORTEST_CAPTURE_AND_DROP_MS`]
    /// (a sensor's flicker) is no capture and drop, nor is a capture after which no piece
    /// may be dropped where it stood (it gives check there). With pieces of open kind about, the
    /// captures the piece could have made are not known, and the board stalls. Returns
    /// whether the board was left stalled (with the readings, or without): then it is not
    /// read as put back.
    pub(super) fn fork_put_back(&mut self, board: BoardId, t: u64, occ: u64) -> bool {
        let w = &self.watch[board];
        if w.open.is_some()
            || w.held.is_some()
            || !w.held_several.is_empty()
            || w.appeared != 0
            || w.most_gone > 1
        {
            return false;
        }
        let [from] = w.lifted[..] else {
            return false;
        };
        let lifted_at = w.changes.emptied[from.index()];
        if w.changes.filled[from.index()] < lifted_at + SHORTEST_CAPTURE_AND_DROP_MS
            || !self.movers_piece_on(board, from)
        {
            return false;
        }
        let captures = captures_from(self.game.board(board), from);
        let (targets, open_kind) = self.capture_targets(board, from, &captures);
        if targets.is_empty() {
            // Nothing to take: put back.
            return false;
        }
        if open_kind {
            // Pieces of open kind about: the captures it may have made are not known.
            if !self.may_drop(board, self.turn(board).other()) {
                return false;
            }
            let which = format!("{}, pieces of open kind about", square_names(&targets));
            self.stall_in_doubt(board, put_back_doubt(board, from, &which));
            return true;
        }
        let candidates: Vec<(Square, (Move, KindNote))> = by_victim(&captures)
            .into_iter()
            .map(|(victim, of_victim)| (victim, self.held_capture(&of_victim)))
            .filter(|(_, capture)| self.drop_may_follow(board, &capture.0, occ, t))
            .collect();
        if candidates.is_empty() {
            return false;
        }
        if self.in_fork.is_some() || self.trying || self.speculation.is_some() {
            // The readings cannot be followed here (another side-by-side reading runs, or
            // this is one): put back is not taken for sure.
            let victims: Vec<Square> = candidates.iter().map(|(sq, _)| *sq).collect();
            self.stall_in_doubt(board, put_back_doubt(board, from, &square_names(&victims)));
            return true;
        }
        let mut readings = Vec::new();
        let mut victims = Vec::new();
        for (victim, capture) in candidates {
            let (mut trial, mut out) = capture_made(self.clone(), board, capture, lifted_at);
            trial.after_commit(board, t, occ, &mut out);
            trial.open_unknown_hand_drop(board, t, occ);
            if trial.stalled[board].is_some()
                || !trial.watch[board]
                    .open
                    .as_ref()
                    .is_some_and(|(m, _, _)| m.is_drop())
            {
                if trial.stalled[board].is_none()
                    && trial.unknown_hand_drop(&trial.game, board, occ).is_none()
                {
                    // No piece may be dropped there after that capture (random 2669: the
                    // queen set onto g2 checks, and a drop on d5 would leave the king in
                    // check): the rules rule this reading out.
                    continue;
                }
                // The drop is not read there: this reading cannot be followed.
                return false;
            }
            victims.push(victim);
            readings.push((trial, out));
        }
        if readings.is_empty() {
            return false;
        }
        self.put_back(board);
        readings.push((self.clone(), Vec::new()));
        self.fork_from(board, t, readings, true);
        self.defer_stall();
        self.stall_in_doubt(board, put_back_doubt(board, from, &square_names(&victims)));
        true
    }

    /// The open move on `board`, just matched, is a quiet move that reads the same as a
    /// capture by its piece set straight onto its victim and the opponent's drop where it
    /// landed (see `capture_and_drop_lookalike`), and it landed later than
    /// [`SLOW_LANDING_MS`] after its lift (time for a drop): the quiet move and each such
    /// capture with the drop are followed side by side, and the main reading stalls, said
    /// only if no reading is left. In one of those readings (or of a victim, see
    /// `speculate.rs`) it waits in doubt: none of them would follow the capture and the
    /// drop.
    pub(super) fn fork_lookalike(&mut self, board: BoardId, t: u64, occ: u64) {
        let w = &self.watch[board];
        if self.stalled[board].is_some() {
            return;
        }
        let Some((
            quiet @ Move::Normal {
                from,
                to,
                capture: None,
                promotion: None,
                ..
            },
            _,
            at,
        )) = w.open
        else {
            return;
        };
        if at != t
            || w.changes.filled[to.index()] < w.changes.emptied[from.index()] + SLOW_LANDING_MS
            || occupancy_after(&self.game, board, &quiet) != occ
            || !self.capture_and_drop_lookalike(board, &quiet)
        {
            return;
        }
        let captures = captures_from(self.game.board(board), from);
        let (targets, open_kind) = self.capture_targets(board, from, &captures);
        if open_kind {
            // Pieces of open kind about: the captures it may have made are not known.
            let which = format!("{}, pieces of open kind about", square_names(&targets));
            self.stall_in_doubt(board, lookalike_doubt(board, from, to, &which));
            return;
        }
        if self.in_fork.is_some() || self.trying || self.speculation.is_some() {
            // The readings cannot be followed here (other side-by-side readings run, or
            // this is one, of this board too: random 2474, the put-back's reading taken
            // with a queen's late quiet move that had been set straight onto a knight,
            // a pawn dropped where it seemed to land): the quiet move is not taken for
            // sure.
            if !targets.is_empty() {
                self.stall_in_doubt(
                    board,
                    lookalike_doubt(board, from, to, &square_names(&targets)),
                );
            }
            return;
        }
        let lifted_at = w.changes.emptied[from.index()];
        let mut readings = Vec::new();
        let mut victims = Vec::new();
        for (victim, of_victim) in by_victim(&captures) {
            let mut trial = self.clone();
            trial.watch[board].open = None;
            let (mut trial, mut out) =
                capture_made(trial, board, self.held_capture(&of_victim), lifted_at);
            trial.after_commit(board, t, occ, &mut out);
            trial.open_unknown_hand_drop(board, t, occ);
            match &trial.watch[board].open {
                Some((Move::Drop { to: at, .. }, _, _))
                    if *at == to && trial.stalled[board].is_none() =>
                {
                    victims.push(victim);
                    readings.push((trial, out));
                }
                _ => {}
            }
        }
        if readings.is_empty() {
            return;
        }
        readings.push((self.clone(), Vec::new()));
        self.fork_from(board, t, readings, true);
        self.defer_stall();
        self.stall_in_doubt(
            board,
            lookalike_doubt(board, from, to, &square_names(&victims)),
        );
    }

    /// Whether the board stalls instead of taking `capture`, by the piece held still on
    /// `from` set straight onto its victim, because a piece of the opponent was lifted after
    /// it and put back (not a flicker): he may have set that piece straight onto a piece
    /// it took in turn, and the capturer's side dropped where it stood. The board shows
    /// the same either way.
    pub(super) fn stall_held_with_put_back(
        &mut self,
        board: BoardId,
        from: Square,
        capture: &Move,
    ) -> bool {
        let w = &self.watch[board];
        let Some(last) = w.last else {
            return false;
        };
        let lifted_at = w.changes.emptied[from.index()];
        let mover = self.turn(board);
        // The opponent's pieces lifted after the capturer left and put back, not flickered.
        let put_back: Vec<Square> = w
            .lifted
            .iter()
            .copied()
            .filter(|&sq| {
                let (up, back) = (w.changes.emptied[sq.index()], w.changes.filled[sq.index()]);
                sq != from
                    && last & (1u64 << sq.index()) != 0
                    && up > lifted_at
                    && back >= up + SHORTEST_CAPTURE_AND_DROP_MS
            })
            .collect();
        if put_back.is_empty() {
            return false;
        }
        let mut after = self.game.clone();
        after.play(board, capture, lifted_at);
        let pos = after.board(board);
        let Some(sq) = put_back.into_iter().find(|&sq| {
            pos.board().piece_at(sq).is_some_and(|p| p.color != mover)
                && !captures_from(pos, sq).is_empty()
        }) else {
            return false;
        };
        if pos.pockets()[mover].is_empty() && !self.hand_unknown(board, mover) {
            return false;
        }
        self.stalled[board] = Some(format!(
            "board {board}: the piece from {from} was set straight onto a piece it took ({capture:?}), then the piece on {sq} was lifted and put back, or set straight onto a piece it took in turn and a piece was dropped where it stood; the board cannot tell"
        ));
        true
    }

    /// Whether `m`, a drop by the side to move, stalls the board because one of its pieces
    /// was lifted before the dropped piece landed and put back after it (held meanwhile):
    /// the same squares show that piece set straight onto a piece it took, the opponent's
    /// drop, and a drop where the piece stood. Three plies against one, and the hands
    /// cannot tell them apart.
    pub(super) fn stall_drop_around_put_back(&mut self, board: BoardId, m: &Move) -> bool {
        let Move::Drop { to, .. } = *m else {
            return false;
        };
        let w = &self.watch[board];
        let landed = w.changes.filled[to.index()];
        let held = w.lifted.iter().copied().find(|&sq| {
            let (up, back) = (w.changes.emptied[sq.index()], w.changes.filled[sq.index()]);
            sq != to
                && up < landed
                && back > landed
                && back >= up + SHORTEST_CAPTURE_AND_DROP_MS
                && self.movers_piece_on(board, sq)
        });
        let Some(from) = held else {
            return false;
        };
        if self
            .game
            .board(board)
            .legal_moves()
            .iter()
            .any(|m| m.from() == Some(from) && m.to() == to)
        {
            // The piece went there and the opponent dropped where it stood: read so.
            return false;
        }
        let captures = captures_from(self.game.board(board), from);
        let (targets, _) = self.capture_targets(board, from, &captures);
        if targets.is_empty() || !self.may_drop(board, self.turn(board).other()) {
            return false;
        }
        self.stalled[board] = Some(format!(
            "board {board}: a piece was dropped on {to} while the piece from {from} was lifted and put back, or that piece was set straight onto a piece it took ({}), the opponent dropped on {to} and a piece was dropped on {from}; the board cannot tell",
            square_names(&targets)
        ));
        true
    }

    /// A reading with a capture just made whose drop after it is not read (the dropper's
    /// hand is not known, and the other board is not still enough for the main reading
    /// to say so): the drop is read with every kind that may stand there.
    fn open_unknown_hand_drop(&mut self, board: BoardId, t: u64, occ: u64) {
        if self.watch[board].open.is_some()
            || self.stalled[board].is_some()
            || !self.hand_unknown(board, self.turn(board))
        {
            return;
        }
        if let Some((mv, note)) = self.unknown_hand_drop(&self.game, board, occ) {
            self.set_open(board, mv, note, t);
        }
    }
}

impl OccupancyInference {
    /// `board` stalls on a look-alike (`why`): two readings, the board cannot tell. In a
    /// side-by-side reading that waits in doubt: it cannot tell, which refutes nothing, and
    /// falling behind a reading that went on does not refute it either.
    pub(super) fn stall_in_doubt(&mut self, board: BoardId, why: String) {
        self.stalled[board] = Some(why);
        if self.in_fork.is_some() {
            *self.doubt.get_mut(board) = true;
        }
    }
}

/// The stall of a piece lifted and put back that may have been set straight onto a victim
/// (`which`: the victims) with the opponent's drop where it stood.
fn put_back_doubt(board: BoardId, from: Square, which: &str) -> String {
    format!(
        "board {board}: the piece from {from} was lifted and put back, or set straight onto a piece it took ({which}) and a piece was dropped where it stood; the board cannot tell"
    )
}

/// The stall of a quiet move to `to` that may have been a capture set straight onto a
/// victim (`which`: the victims) with the opponent's drop on `to`.
fn lookalike_doubt(board: BoardId, from: Square, to: Square, which: &str) -> String {
    format!(
        "board {board}: the piece from {from} went to {to}, or was set straight onto a piece it took ({which}) and a piece was dropped on {to}; the board cannot tell"
    )
}
