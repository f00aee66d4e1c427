//! The arbiter settles a board that occupancy could not follow.
//!
//! A board stalls where two readings explain what it shows, or waits where none does (a
//! capture it missed); a look-alike move waits for the move after it. Nothing more is
//! taken from such a board until someone who saw the game says what happened: the arbiter
//! enters the board's moves since the last one handed on (see
//! [`OccupancyInference::resume`]). The board's reading then starts again from the position
//! after them, and its snapshots since are read again from where the board showed that
//! position, so the moves played while the arbiter walked over are taken as any; where it
//! showed it at several moments whose readings differ, the board stalls until the arbiter
//! enters its moves up to the position it shows.
//!
//! The snapshots are kept from the last move handed on ([`SnapshotLog`]), at most
//! [`HISTORY_MAX`] a board.

use crate::rules::{Bitboard, BoardId, BughouseGame, ByBoard, Move, Piece, Role, Square};

use super::{KindNote, OccupancyInference, OccupancyMove, Watch};

/// The most snapshots of a board kept to read again (about an hour of a board that never
/// settles): the older half is dropped (where the arbiter's moves were shown before that,
/// the board waits for his moves up to now).
pub(super) const HISTORY_MAX: usize = 20_000;

/// The most times the board may have shown the position after the arbiter's moves for its
/// snapshots to be read from each (see `read_again`): more, and it waits for his moves up
/// to now.
const READINGS_MAX: usize = 8;

/// The arbiter's moves for a board: `moves` of `board` from the record's position
/// (`record`, the game as handed on).
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry<'a> {
    pub(super) board: BoardId,
    pub(super) record: &'a BughouseGame,
    pub(super) moves: &'a [Move],
    /// A drop of a kind the record's hand lacks may come from any kind a hand not known in
    /// full may hold (the main reading's, see `open_hand.rs`), or only from the reading's
    /// own hands (a side-by-side reading's: its captures are what tell it from the others).
    pub(super) open_hands: bool,
}

/// Why the arbiter's moves cannot settle a board (for the arbiter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeRefused(pub String);

impl std::fmt::Display for ResumeRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ResumeRefused {}

/// Each board's snapshots since its last move handed on (to the record), kept to be read
/// again once the arbiter settles the board ([`OccupancyInference::resume`]); at most
/// [`HISTORY_MAX`] a board.
#[derive(Debug, Clone, Default)]
pub struct SnapshotLog {
    boards: ByBoard<Vec<(u64, u64)>>,
}

impl SnapshotLog {
    /// `board` showed `occ` at `t`.
    pub fn push(&mut self, board: BoardId, t: u64, occ: u64) {
        let kept = &mut self.boards[board];
        if kept.len() >= HISTORY_MAX {
            kept.drain(..HISTORY_MAX / 2);
        }
        kept.push((t, occ));
    }

    /// The move of `board` that began at `t` was handed on: the snapshots before it are
    /// not read again.
    pub fn handed_on(&mut self, board: BoardId, t: u64) {
        self.boards[board].retain(|&(at, _)| at >= t);
    }

    /// `board`'s snapshots kept, oldest first: `(t, occupied)`.
    #[must_use]
    pub fn of(&self, board: BoardId) -> &[(u64, u64)] {
        &self.boards[board]
    }
}

impl OccupancyInference {
    /// Whether the arbiter has something to settle on `board`: it stalled, shows what no
    /// move explains, or holds a move handed on only once a later one confirms it.
    #[must_use]
    pub fn needs_arbiter(&self, board: BoardId) -> bool {
        self.stalled[board].is_some()
            || self.unsettled(&self.game, board)
            || !self.withheld[board].is_empty()
    }

    /// The arbiter says `board` played `moves` since the last move handed on, `record`
    /// being the game as handed on (both boards), `log` the board's snapshots since. The
    /// board's reading starts again from the position after them: what it had taken since
    /// the record and not handed on (a look-alike, an open move, a stall) is dropped, and
    /// its snapshots since are read again (see `read_again`). Returns the moves that
    /// reading decides, to hand on after the arbiter's; `t` is now.
    ///
    /// # Errors
    ///
    /// [`ResumeRefused`] when no move is given, or the moves are not legal from the
    /// record's position in turn.
    pub fn resume(
        &mut self,
        board: BoardId,
        record: &BughouseGame,
        moves: &[Move],
        log: &mut SnapshotLog,
        t: u64,
    ) -> Result<Vec<OccupancyMove>, ResumeRefused> {
        if moves.is_empty() {
            return Err(ResumeRefused(format!("no move of board {board} entered")));
        }
        let entry = Entry {
            board,
            record,
            moves,
            open_hands: true,
        };
        if self.speculating_on() == Some(board.other()) {
            // Those readings hold the other board's moves until its next moves tell which
            // is right: each takes the arbiter's moves as this reading does.
            return self.resume_beside(&entry, log, t);
        }
        // Readings of this board side by side hold it as it was: the arbiter's moves end
        // them.
        self.speculation = None;
        self.resume_one(&entry, log, t)
    }

    /// [`OccupancyInference::resume`] of this reading alone.
    pub(super) fn resume_one(
        &mut self,
        entry: &Entry<'_>,
        log: &mut SnapshotLog,
        t: u64,
    ) -> Result<Vec<OccupancyMove>, ResumeRefused> {
        let Entry {
            board,
            record,
            moves,
            open_hands,
        } = *entry;
        let other = board.other();
        // The board as the record has it, and the arbiter's moves on it: what they give
        // the other board's hands, what they take from this board's.
        let mut pos = record.board(board).clone();
        self.take_known_kinds(board, &mut pos);
        if !legal_from(&pos, moves) {
            self.adopt_placeholders(board, record.board(board));
            pos = record.board(board).clone();
            self.take_known_kinds(board, &mut pos);
        }
        if !legal_from(&pos, moves) {
            // A drop from a hand the record does not know in full (see `open_hand.rs`).
            pos = if open_hands {
                self.with_open_hands(board, &pos)
            } else {
                self.with_own_hands(board, &pos)
            };
        }
        let mut shown = Vec::with_capacity(moves.len());
        let mut given = Vec::new();
        let mut dropped = Vec::new();
        for (i, mv) in moves.iter().enumerate() {
            if !pos.classify(mv).is_legal() {
                return Err(ResumeRefused(format!(
                    "move {} of board {board}'s entry is not legal there",
                    i + 1
                )));
            }
            if let Move::Drop { piece, .. } = *mv {
                dropped.push(piece);
            }
            if let Some(c) = pos.play(mv).captured {
                given.push((c.piece.color, c.handoff_role()));
            }
            shown.push(pos.board().occupied().0);
        }
        // What this reading took on the board since the record (moves it made final but
        // did not hand on) is undone in the hands: the arbiter's moves replace it.
        let mut was = record.board(board).clone();
        let mut returned = Vec::new();
        let mut given_back = Vec::new();
        for m in self.abandoned[board].iter().chain(&self.withheld[board]) {
            if let Move::Drop { piece, .. } = m.mv {
                returned.push(piece);
            }
            if let Some(c) = was.play(&m.mv).captured {
                given_back.push((c.piece.color, c.handoff_role()));
            }
        }
        // The hands are the reading's own (what it knows of the other board's captures),
        // the other board its own reading.
        *pos.pockets_mut() = *self.game.board(board).pockets();
        for p in returned {
            pos.pockets_mut()[p.color].add(p.role);
        }
        for p in dropped {
            pos.pockets_mut()[p.color].take(p.role);
        }
        *self.game.board_mut(board) = pos;
        let hands = self.game.board_mut(other).pockets_mut();
        for (color, role) in given_back {
            hands[color].take(role);
        }
        for (color, role) in given {
            hands[color].add(role);
        }
        let mut assumed = std::mem::take(&mut self.watch[board].assumed);
        // The pieces of open kind as the record has them: those the moves not handed on
        // put down are not there, those they moved go back (random 259: a drop on e6 read
        // and not handed on left its piece of open kind there, the arbiter's e6-a6 took it
        // along, and the drop read again put a second one on e6 with the same time).
        let unhanded: Vec<&OccupancyMove> = self.abandoned[board]
            .iter()
            .chain(&self.withheld[board])
            .collect();
        let put_down = |m: &OccupancyMove| {
            matches!(
                m.mv,
                Move::Drop { .. }
                    | Move::Normal {
                        promotion: Some(_),
                        ..
                    }
            )
        };
        assumed.retain(|a| !unhanded.iter().any(|m| m.t == a.t && put_down(m)));
        for m in unhanded.iter().rev() {
            if let Move::Normal { from, to, .. } = m.mv {
                for a in assumed.iter_mut().filter(|a| a.sq == to) {
                    a.sq = from;
                }
            }
        }
        for mv in moves {
            // A piece of open kind taken goes on being open in the partner's hand; one
            // moved goes along (the arbiter moved it as its placeholder kind).
            let (taken, kept): (Vec<_>, Vec<_>) =
                assumed.into_iter().partition(|a| a.sq == mv.to());
            assumed = kept;
            for a in taken.into_iter().filter(|a| a.dropped) {
                self.unsure[other][a.color].push(a.choices);
            }
            match *mv {
                Move::Normal {
                    from,
                    promotion: Some(_),
                    ..
                } => {
                    // A promotion: the piece was a pawn, and what stands there now is the
                    // kind the arbiter names (its placeholder put back over it would
                    // leave a pawn on the last rank).
                    let (promoted, kept): (Vec<_>, Vec<_>) =
                        assumed.into_iter().partition(|a| a.sq == from);
                    assumed = kept;
                    for a in promoted {
                        self.resolved
                            .push(super::Resolution::settled(board, a.t, Role::Pawn));
                    }
                }
                Move::Normal { from, to, .. } => {
                    for a in assumed.iter_mut().filter(|a| a.sq == from) {
                        a.sq = to;
                    }
                }
                _ => {}
            }
        }
        self.stalled[board] = None;
        self.withheld[board].clear();
        self.abandoned[board].clear();
        *self.doubt.get_mut(board) = false;
        // The reading's placeholder kinds stand for its pieces of open kind still there.
        let pos = self.game.board_mut(board);
        let kept: Vec<_> = assumed
            .into_iter()
            .filter(|a| {
                let Some(piece) = pos.board().piece_at(a.sq) else {
                    return false;
                };
                if piece.color != a.color {
                    return false;
                }
                pos.set_piece_at(
                    a.sq,
                    crate::rules::Piece {
                        color: a.color,
                        role: a.role,
                    },
                );
                true
            })
            .collect();
        self.watch[board] = Watch {
            assumed: kept,
            ..Watch::default()
        };
        let history = log.of(board).to_vec();
        let (out, from) = self.read_again(board, &shown, &history, t);
        if let Some(at) = from {
            // What the board showed before it reached the arbiter's moves is read no more.
            log.handed_on(board, at);
        }
        Ok(out)
    }

    /// Gives the record's position of `board` (`pos`) the kinds this reading holds for its
    /// pieces (a placeholder the reading settled since, a promoted piece's kind): on every
    /// square where both have a piece of the same colour and no move the reading made
    /// beyond the record went.
    fn take_known_kinds(&self, board: BoardId, pos: &mut crate::rules::Position) {
        let mut touched = 0u64;
        for m in self.abandoned[board].iter().chain(&self.withheld[board]) {
            touched |= 1u64 << m.mv.to().index();
            if let Some(from) = m.mv.from() {
                touched |= 1u64 << from.index();
            }
        }
        let mine = self.game.board(board);
        for sq in Bitboard(pos.board().occupied().0 & !touched) {
            if let (Some(theirs), Some(ours)) =
                (pos.board().piece_at(sq), mine.board().piece_at(sq))
                && theirs.color == ours.color
            {
                pos.set_piece_at(sq, ours);
                pos.set_promoted(sq, mine.promoted().contains(sq));
            }
        }
    }

    /// Reads `board`'s snapshots kept since the record again, from where the board showed,
    /// one after the other, the occupancies `after` the arbiter's moves (see
    /// [`OccupancyInference::resume`]). The board may have shown the last of them more
    /// than once: a capturer set straight onto its victim shows it as soon as it is
    /// lifted, and may be put back and the capture made later; a piece dropped after it
    /// may flicker or be set beside its square first. The snapshots are read from each
    /// time it showed it, and taken only when every reading decides the same moves (a board
    /// that shows it now, and showed it earlier, may have gone through plies that leave the
    /// same squares occupied: two drops each taken by a capturer set onto it); otherwise
    /// (or when it never showed it) the board stalls until the arbiter enters its moves up
    /// to the position it shows.
    fn read_again(
        &mut self,
        board: BoardId,
        after: &[u64],
        history: &[(u64, u64)],
        t: u64,
    ) -> (Vec<OccupancyMove>, Option<u64>) {
        let (last, before) = after.split_last().unwrap_or((&0, &[]));
        let mut from = Some(0);
        for occ in before {
            from = from.and_then(|f| {
                history[f..]
                    .iter()
                    .position(|&(_, o)| o == *occ)
                    .map(|i| f + i)
            });
        }
        let shown: Vec<usize> = from
            .map(|f| {
                (f..history.len())
                    .filter(|&i| history[i].1 == *last)
                    .collect()
            })
            .unwrap_or_default();
        if let [only] = shown[..] {
            return (
                self.read_from(board, history, only, t),
                Some(history[only].0),
            );
        }
        if !shown.is_empty() && shown.len() <= READINGS_MAX {
            let mut readings = shown.iter().map(|&i| {
                let mut reading = self.clone();
                let out = reading.read_from(board, history, i, t);
                (reading, out)
            });
            if let Some((first, out)) = readings.next() {
                let at = history[shown[0]].0;
                let key = |moves: &[OccupancyMove]| -> Vec<(BoardId, Move, KindNote)> {
                    moves
                        .iter()
                        .map(|m| (m.board, m.mv, m.note.clone()))
                        .collect()
                };
                let mine = key(&out);
                if readings.all(|(_, other)| key(&other) == mine) {
                    *self = first;
                    return (out, Some(at));
                }
            }
        }
        // Where the board went on from them is not sure: it waits for the arbiter to enter
        // its moves up to now.
        let w = &mut self.watch[board];
        w.last = history.last().map(|&(_, o)| o);
        w.changed_at = history.last().map_or(t, |&(at, _)| at);
        self.stalled[board] = Some(format!(
            "board {board}: the position after the arbiter's moves was shown at several moments or never, and the readings from them differ: the arbiter must enter the moves up to the position the board shows now"
        ));
        (Vec::new(), None)
    }

    /// Reads `history[from + 1..]` of `board`, the board having shown the position after
    /// the arbiter's moves at `history[from]`; `t` is now.
    fn read_from(
        &mut self,
        board: BoardId,
        history: &[(u64, u64)],
        from: usize,
        t: u64,
    ) -> Vec<OccupancyMove> {
        let (at, occ) = history[from];
        let w = &mut self.watch[board];
        w.last = Some(occ);
        w.changed_at = at;
        // When each square last filled and emptied, as the board showed it before: a
        // piece lands after it leaves, and a square filled before a move's piece left it
        // was filled by another.
        for pair in history[..=from].windows(2) {
            let ((_, before), (when, now)) = (pair[0], pair[1]);
            for sq in Bitboard(before & !now) {
                w.changes.emptied[sq.index()] = when;
            }
            for sq in Bitboard(now & !before) {
                w.changes.filled[sq.index()] = when;
            }
        }
        let mut out = Vec::new();
        self.reading_again = Some(board);
        for &(at, occ) in &history[from + 1..] {
            out.extend(self.commit_at_rest(at.saturating_sub(1)));
            out.extend(self.feed(board, at, occ));
        }
        self.reading_again = None;
        // A drop on the other board that the captures read again here supplied (while
        // readings of this board run side by side, the next snapshot reads it in each).
        if self.speculation.is_none() {
            out.extend(self.read_supplied(board.other(), t));
        }
        // Withheld moves the next move confirmed go with it, in order.
        out.append(&mut self.released);
        out.extend(self.commit_at_rest(t));
        out.sort_by_key(|m| m.t);
        out
    }
}

impl OccupancyInference {
    /// The pieces of open kind on `board`: where each stands, the time of the move that
    /// left its kind open (a drop, a promotion), and the kinds it may be.
    #[must_use]
    pub fn open_kinds(&self, board: BoardId) -> Vec<(Square, u64, Vec<Role>)> {
        self.watch[board]
            .assumed
            .iter()
            .map(|a| (a.sq, a.t, a.choices.clone()))
            .collect()
    }

    /// The arbiter says the piece whose kind the move at `t` on `board` left open (a drop,
    /// a promotion) is a `role`: the reading takes it, and the move is corrected as a kind
    /// settled by a later move is ([`OccupancyInference::take_resolutions`]).
    ///
    /// # Errors
    ///
    /// [`ResumeRefused`] when no piece of open kind on the board came from that move (it
    /// was settled or taken since), or `role` is not among its kinds.
    pub fn settle_kind(&mut self, board: BoardId, t: u64, role: Role) -> Result<(), ResumeRefused> {
        self.adopt_kind(board, t, role)?;
        self.resolved
            .push(super::Resolution::settled(board, t, role));
        Ok(())
    }

    /// As [`OccupancyInference::settle_kind`], said of the piece as it stands now rather
    /// than of the move that left its kind open: the arbiter sees a rook where a piece
    /// dropped in doubt (a rook or a pawn) went to the last rank, not whether a rook was
    /// dropped or a pawn promoted to one. The piece is taken as that kind, and the drop
    /// stays open between that kind and a pawn (the record's placeholder that kind). A kind
    /// the drop may not be, as the reading has it, is what the pawn became: the drop is
    /// settled a pawn, and the promotion that kind.
    ///
    /// # Errors
    ///
    /// As [`OccupancyInference::settle_kind`].
    pub fn settle_kind_now(
        &mut self,
        board: BoardId,
        t: u64,
        role: Role,
    ) -> Result<(), ResumeRefused> {
        let Some(i) = self.watch[board].assumed.iter().rposition(|a| a.t == t) else {
            return self.settle_kind(board, t, role);
        };
        let a = &self.watch[board].assumed[i];
        if !(a.dropped && Self::promotable(a) && role != Role::Pawn) {
            return self.settle_kind(board, t, role);
        }
        if !a.choices.contains(&role) {
            // As the reading has it, only a promoted pawn is that kind: it was dropped as a
            // pawn, and the move that took it to the last rank promoted it to `role` (two
            // corrections: the drop's kind, then the promotion's, which the drop's makes a
            // promotion). Said of the drop itself (`settle_kind`), the arbiter's kind is
            // the drop's: the reading's may be wrong.
            let promotion = a.may_have_promoted.unwrap_or(t);
            self.adopt_kind(board, t, Role::Pawn)?;
            self.resolved
                .push(super::Resolution::settled(board, t, Role::Pawn));
            return self.settle_kind(board, promotion, role);
        }
        // Dropped as that kind, or a pawn that became it.
        let a = &mut self.watch[board].assumed[i];
        a.role = role;
        a.choices = vec![role];
        let sq = a.sq;
        let pos = self.game.board_mut(board);
        if let Some(piece) = pos.board().piece_at(sq) {
            pos.set_piece_at(sq, crate::rules::Piece { role, ..piece });
            pos.set_promoted(sq, false);
        }
        self.resolved.push(super::Resolution {
            board,
            t,
            role,
            open: vec![Role::Pawn, role],
        });
        Ok(())
    }

    /// As [`OccupancyInference::open_kinds`], the kinds each piece may be as it stands now:
    /// a piece dropped in doubt that may be a pawn promoted on the last rank may be any
    /// promotion piece, and of a dropped piece that promoted since only what it became is
    /// listed.
    #[must_use]
    pub fn kinds_now(&self, board: BoardId) -> Vec<(Square, u64, Vec<Role>)> {
        let assumed = &self.watch[board].assumed;
        assumed
            .iter()
            .enumerate()
            .filter(|(i, a)| !assumed[i + 1..].iter().any(|b| b.sq == a.sq))
            .map(|(_, a)| {
                let mut kinds = a.choices.clone();
                if Self::promotable(a) {
                    kinds.retain(|&r| r != Role::Pawn);
                    kinds.extend(self.rules.promotion_pieces.iter());
                    kinds.sort();
                    kinds.dedup();
                }
                (a.sq, a.t, kinds)
            })
            .collect()
    }

    /// Takes the record's placeholders (`pos`, the record's position of `board`) for this
    /// reading's pieces of open kind that still stand where it put them, when the
    /// arbiter's moves, naming the pieces as the record shows them, are not legal with this
    /// reading's own: the record fits its placeholders to the hands as it has them (a drop
    /// made before the capture that supplied it was read), a kind as good as this
    /// reading's first choice. The kinds stay open.
    fn adopt_placeholders(&mut self, board: BoardId, pos: &crate::rules::Position) {
        let assumed = &mut self.watch[board].assumed;
        for i in 0..assumed.len() {
            let a = &assumed[i];
            if assumed[i + 1..].iter().any(|b| b.sq == a.sq) {
                continue;
            }
            let Some(piece) = pos.board().piece_at(a.sq) else {
                continue;
            };
            let mine = Piece {
                color: a.color,
                role: a.role,
            };
            if piece.color != a.color
                || piece.role == a.role
                || !a.choices.contains(&piece.role)
                || self.game.board(board).board().piece_at(a.sq) != Some(mine)
            {
                continue;
            }
            let sq = a.sq;
            assumed[i].role = piece.role;
            self.game.board_mut(board).set_piece_at(sq, piece);
        }
    }

    /// As [`OccupancyInference::settle_kind`], the record being corrected already (the
    /// arbiter replaced the move there): no correction is handed on.
    ///
    /// # Errors
    ///
    /// As [`OccupancyInference::settle_kind`].
    pub fn adopt_kind(&mut self, board: BoardId, t: u64, role: Role) -> Result<(), ResumeRefused> {
        let Some(i) = self.watch[board].assumed.iter().rposition(|a| a.t == t) else {
            return Err(ResumeRefused(format!(
                "board {board}: no piece of open kind comes from that move"
            )));
        };
        let a = self.watch[board].assumed[i].clone();
        let promotable = Self::promotable(&a) && role != Role::King;
        if !(a.choices.contains(&role) || promotable) {
            return Err(ResumeRefused(format!(
                "board {board}: the piece on {} may be a {:?}, not a {role:?}",
                a.sq, a.choices
            )));
        }
        // A pawn that reached the last rank since promoted there.
        let promoted = self.game.board(board).promoted().contains(a.sq)
            || (role == Role::Pawn && a.may_have_promoted.is_some());
        // A piece dropped as a pawn that promoted since stays the promoted piece it is: its
        // kind as promoted is open still, among the promotion pieces.
        let became = (a.dropped && role == Role::Pawn && promoted).then(|| {
            let mut p = a.clone();
            p.dropped = false;
            p.t = a.may_have_promoted.unwrap_or(a.t);
            p.may_have_promoted = None;
            p.choices = self.rules.promotion_pieces.iter().collect();
            p
        });
        let now = if became.is_some() { a.role } else { role };
        // The hand it came from is left as it is: what the drop took from it is as unsure
        // as the kind was (the hand's own open kinds keep later drops from it flagged).
        let pos = self.game.board_mut(board);
        let Some(piece) = pos.board().piece_at(a.sq) else {
            return Err(ResumeRefused(format!(
                "board {board}: no piece on {}",
                a.sq
            )));
        };
        pos.set_piece_at(
            a.sq,
            crate::rules::Piece {
                color: piece.color,
                role: now,
            },
        );
        if became.is_some() {
            pos.set_promoted(a.sq, true);
        }
        self.watch[board].assumed.retain(|b| b.sq != a.sq);
        if let Some(p) = became.filter(|p| p.choices.len() > 1) {
            self.watch[board].assumed.push(p);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

/// Whether `moves` are legal one after the other from `pos`.
fn legal_from(pos: &crate::rules::Position, moves: &[Move]) -> bool {
    let mut pos = pos.clone();
    moves.iter().all(|m| {
        let legal = pos.classify(m).is_legal();
        pos.play(m);
        legal
    })
}
