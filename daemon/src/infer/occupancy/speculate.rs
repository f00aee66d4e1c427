//! Readings of a capture whose victim the board did not tell, kept side by side until the
//! board's later moves tell it.
//!
//! A capturer set straight onto its victim with several victims in reach leaves the board
//! showing the same occupancy whichever piece was taken: held still (see `judge_held`), or
//! answered at once by a reply that fits them all (see `held_then_reply`), or, for a piece
//! of open kind, as any of its kinds. The main reading waits (or stalls, for the piece of
//! open kind), as it must. Beside it, each capture is followed as a reading of its own (a
//! fork), made final and fed the same snapshots. Later moves
//! tell them apart: the capturer stands on its victim's square in one reading only, and the
//! piece there moves as that reading's piece, or the other readings' pieces cannot make the
//! moves the board shows. A fork that stays without a move while another makes
//! [`LEAD`] moves is taken as refuted. When one fork is left, it becomes the inference and
//! its moves on the board are handed on.
//!
//! The same is done where a piece lifted and put back, or a quiet move landing late, reads
//! the same as a capture by that piece set straight onto its victim and the opponent's drop
//! where it stood or landed (see `lookalike.rs`): the main reading stalls (said only if no
//! reading is left), and the plain reading and each capture with its drop are followed
//! side by side, their moves counted from where they began.
//!
//! Nothing is taken that could be wrong by the forks' own doubt: any fork that stalls ends
//! the side-by-side reading (the main reading goes on waiting), and so does a fork that read
//! the other board otherwise than the main reading did (its other board stalled where the
//! main reading's did not, or on another doubt), a fork still in doubt after
//! [`GIVE_UP_MS`], or the main reading finding a move on the board itself. Readings of a
//! put-back or a quiet move differ in plies: there, a fork that stalls on the board only
//! stops making moves, and is refuted as any fork that falls behind. A fork that waits
//! because it would have begun readings of its own there, or could not rule out a victim,
//! waits in doubt (`doubt`): falling behind does not refute it.
//!
//! A piece of open kind held still is followed as each capture its kinds' shapes allow.
//! When the board's next change puts a piece down where it stood or where one of its kinds
//! goes, the piece may have been in the hand all along (or the opponent dropped there after
//! its capture): the readings end, and the main reading's stall is said.

use crate::rules::{Bitboard, BoardId, Color, Move, Role, Square};

use super::{
    KindNote, OccupancyInference, OccupancyMove, Resolution, by_victim, capture_made,
    captures_from, shape_fits,
};

/// Final moves the leading fork must have made on the board beyond a fork for that fork to
/// count as refuted. A reading that waits for a move it cannot read yet (a drop whose
/// supply is not seen, a piece held still, a victim it cannot rule out) is not refuted by
/// falling behind at all (see `speculate`); one that cannot explain the board is refuted
/// once another has read two moves more (three cost a hundredth of the noisy moves and
/// removed no wrong board at 6 000 games).
const LEAD: usize = 2;

/// How long the forks may run without one being left (ms): then the main reading goes on
/// alone, as it would have.
const GIVE_UP_MS: u64 = 60_000;

/// The side-by-side readings of a board.
#[derive(Debug, Clone)]
pub(super) struct Speculation {
    board: BoardId,
    since: u64,
    /// The main reading stalled when the forks began (a piece of open kind held still):
    /// its stall is said only if the forks end without one left, and the fork left must
    /// have made [`LEAD`] moves.
    main_stalled: bool,
    forks: Vec<Fork>,
    /// The readings differ in how many plies the board showed (see `fork_from`): a reading
    /// that stalls is one that makes no more moves, refuted as any that falls behind, and
    /// not the end of them all.
    from_here: bool,
    /// What the main reading decided on the other board since the forks began.
    other_main: Vec<OccupancyMove>,
    /// See [`HeldOpen`]: until the board next changes.
    held_open: Option<HeldOpen>,
}

/// For the captures of a piece of open kind held still: where it stood, its kinds and
/// colour, and the board's occupancy then, until the board next changes (see
/// [`OccupancyInference::speculate`]).
type HeldOpen = (Square, Vec<Role>, Color, u64);

#[derive(Debug, Clone)]
struct Fork {
    inf: OccupancyInference,
    /// The moves this fork made final, not handed on.
    out: Vec<OccupancyMove>,
    /// The moves on the board it had when it began that are not counted (see
    /// `fork_from`).
    head: usize,
}

impl Fork {
    /// The moves it read on `board`: made final (handed on or withheld as a look-alike)
    /// and open.
    fn moves_on(&self, board: BoardId) -> usize {
        self.out.iter().filter(|m| m.board == board).count()
            + self.inf.withheld[board].len()
            + usize::from(self.inf.watch[board].open.is_some())
    }

    /// [`Fork::moves_on`], less those it began with uncounted.
    fn moves_since(&self, board: BoardId) -> usize {
        self.moves_on(board).saturating_sub(self.head)
    }

    /// The moves it made final on the other board than `board`, by time and squares.
    fn moves_off(&self, board: BoardId) -> Vec<Squares> {
        squares(self.out.iter().filter(|m| m.board != board))
    }
}

/// A move by its time and squares: kinds aside, as a drop read with an unknown hand names
/// every kind and the same drop read with a known one its own.
type Squares = (u64, Option<Square>, Square);

fn squares<'a>(moves: impl Iterator<Item = &'a OccupancyMove>) -> Vec<Squares> {
    moves.map(|m| (m.t, m.mv.from(), m.mv.to())).collect()
}

impl OccupancyInference {
    /// Starts following each of `readings` (a trial inference with the capture final and
    /// the reply open, and the moves it made final) beside the main reading.
    pub(super) fn fork(
        &mut self,
        board: BoardId,
        t: u64,
        readings: Vec<(OccupancyInference, Vec<OccupancyMove>)>,
    ) {
        self.fork_from(board, t, readings, false);
    }

    /// As [`OccupancyInference::fork`]; with `from_here`, each reading's moves are counted
    /// from those it has now (readings that differ in how many plies the board showed).
    pub(super) fn fork_from(
        &mut self,
        board: BoardId,
        t: u64,
        readings: Vec<(OccupancyInference, Vec<OccupancyMove>)>,
        from_here: bool,
    ) {
        if self.may_not_fork(board, readings.len() > 1) || readings.is_empty() {
            return;
        }
        let main_says = &self.resolved;
        let forks = readings
            .into_iter()
            .map(|(mut inf, mut out)| {
                inf.trying = false;
                inf.in_fork = Some(board);
                if !from_here {
                    // A victim's reading may begin on a quiet move that reads as a
                    // capture and a drop (random 5064: the queen lifted, a piece put
                    // down 10 s later where it could have gone): a doubt of its own.
                    let occ = inf.watch[board].last.unwrap_or_else(|| inf.base(board));
                    inf.fork_lookalike(board, t, occ);
                }
                // What the main reading has to say is said by it.
                inf.resolved.retain(|r| !main_says.contains(r));
                out.append(&mut inf.released);
                let mut fork = Fork { inf, out, head: 0 };
                if from_here {
                    fork.head = fork.moves_on(board);
                }
                fork
            })
            .collect();
        self.speculation = Some(Box::new(Speculation {
            board,
            since: t,
            main_stalled: false,
            forks,
            from_here,
            other_main: Vec::new(),
            held_open: None,
        }));
    }

    /// Whether no readings may begin here: others run, or this is one (which then waits in
    /// doubt where it would have begun `several`).
    fn may_not_fork(&mut self, board: BoardId, several: bool) -> bool {
        if self.in_fork.is_some() && several {
            *self.doubt.get_mut(board) = true;
        }
        self.in_fork.is_some() || self.speculation.is_some()
    }

    /// Starts following each capture the piece lifted from `from` and held still may have
    /// made (`captures`, of several victims), made final, beside the main reading, which
    /// waits for the piece to be put down or the reply to tell.
    pub(super) fn fork_held(&mut self, board: BoardId, t: u64, from: Square, captures: &[Move]) {
        if self.may_not_fork(board, true) {
            return;
        }
        let lifted_at = self.watch[board].changes.emptied[from.index()];
        let readings = by_victim(captures)
            .into_iter()
            .map(|(_, of_victim)| {
                capture_made(
                    self.clone(),
                    board,
                    self.held_capture(&of_victim),
                    lifted_at,
                )
            })
            .collect();
        self.fork(board, t, readings);
    }

    /// Starts following each capture a piece of open kind lifted from `from` and held
    /// still may have made, as any of its kinds, beside the main reading, which stalls
    /// (said only if no fork is left, see [`OccupancyInference::stalled`]). Its victims are
    /// found by the shapes of its kinds, not by what the placeholders of other pieces of
    /// open kind allow (they could check or pin what their kinds do not): each victim is
    /// a reading, the piece named by every kind whose shape takes it. When some victim no
    /// kind may legally take as the placeholders stand, no reading could stand for it, and
    /// none is begun.
    pub(super) fn fork_held_open(&mut self, board: BoardId, t: u64, from: Square) {
        if self.in_fork.is_some() || self.speculation.is_some() {
            return;
        }
        let Some(i) = self.watch[board].assumed.iter().rposition(|a| a.sq == from) else {
            return;
        };
        let (choices, color) = {
            let a = &self.watch[board].assumed[i];
            (a.choices.clone(), a.color)
        };
        let Some(readings) = self.open_kind_captures(board, from) else {
            return;
        };
        let occ = self.watch[board].last.unwrap_or_else(|| self.base(board));
        self.fork(board, t, readings);
        if let Some(spec) = self.speculation.as_mut() {
            spec.main_stalled = true;
            spec.held_open = Some((from, choices, color, occ));
        }
    }

    /// The readings in which the piece of open kind on `from`, lifted and not seen put
    /// down, was set straight onto a piece it took: one per victim (two for a victim a
    /// pawn would take promoting), each a trial with the capture made final. Its victims
    /// are found by the shapes of its kinds, not by what the placeholders of other pieces
    /// of open kind allow (they could check or pin what their kinds do not): the piece is
    /// named by every kind whose shape takes the victim. `None` when a victim no kind may
    /// legally take as the placeholders stand: no reading could stand for it.
    fn open_kind_captures(
        &self,
        board: BoardId,
        from: Square,
    ) -> Option<Vec<(OccupancyInference, Vec<OccupancyMove>)>> {
        let w = &self.watch[board];
        let i = w.assumed.iter().rposition(|a| a.sq == from)?;
        let a = w.assumed[i].clone();
        if a.may_have_promoted.is_some() {
            return None;
        }
        let lifted_at = w.changes.emptied[from.index()];
        let placement = self.game.board(board).board();
        let them = a.color.other();
        let occupied = placement.occupied();
        let enemies = placement.by_color(them).0 & !placement.kings(them).0;
        // Each victim, with the kinds whose shape takes it.
        let mut victims: Vec<(Square, Vec<Role>)> = Vec::new();
        for &role in &a.choices {
            for to in Bitboard(enemies) {
                if !shape_fits(role, a.color, from, to, occupied, true) {
                    continue;
                }
                match victims.iter_mut().find(|(sq, _)| *sq == to) {
                    Some((_, kinds)) => kinds.push(role),
                    None => victims.push((to, vec![role])),
                }
            }
        }
        victims.sort_by_key(|(sq, _)| *sq);
        let mut readings = Vec::new();
        for (to, mut kinds) in victims {
            kinds.sort();
            kinds.dedup();
            // As a pawn onto the last rank it promoted, as its other kinds it did not: no
            // one move stands for both, so each is a reading.
            let groups = if kinds.len() > 1
                && kinds.contains(&Role::Pawn)
                && matches!(to.rank().index(), 0 | 7)
            {
                let others: Vec<Role> =
                    kinds.iter().copied().filter(|&r| r != Role::Pawn).collect();
                vec![vec![Role::Pawn], others]
            } else {
                vec![kinds]
            };
            for kinds in groups {
                readings.push(self.open_kind_capture(board, i, to, kinds, lifted_at)?);
            }
        }
        Some(readings)
    }

    /// The reading in which the piece of open kind `assumed[i]` took on `to` as one of
    /// `kinds`: `None` when none of them may legally take there as the placeholders stand,
    /// or when no one move stands for them.
    fn open_kind_capture(
        &self,
        board: BoardId,
        i: usize,
        to: Square,
        kinds: Vec<Role>,
        lifted_at: u64,
    ) -> Option<(OccupancyInference, Vec<OccupancyMove>)> {
        let a = &self.watch[board].assumed[i];
        let from = a.sq;
        // A kind that may take it as the placeholders stand, the placeholder's first.
        let legal = |role: Role| {
            let game = self.with_kind(board, a, role)?;
            let of_victim: Vec<Move> = captures_from(game.board(board), from)
                .into_iter()
                .filter(|m| m.to() == to)
                .collect();
            (!of_victim.is_empty()).then_some((game, of_victim))
        };
        let (game, of_victim) = (kinds.contains(&a.role))
            .then(|| legal(a.role))
            .flatten()
            .or_else(|| kinds.iter().find_map(|&r| legal(r)))?;
        let role = game.board(board).board().piece_at(from)?.role;
        let (mv, mut note) = self.held_capture(&of_victim);
        let mut trial = self.clone();
        trial.game = game;
        if kinds.len() == 1 {
            // The capture settles the piece's kind.
            trial.watch[board].assumed.remove(i);
            trial.resolved.push(Resolution::settled(board, a.t, role));
        } else {
            if note != KindNote::Exact {
                return None;
            }
            let entry = &mut trial.watch[board].assumed[i];
            entry.role = role;
            entry.choices.clone_from(&kinds);
            note = KindNote::PieceOpen { choices: kinds };
        }
        Some(capture_made(trial, board, (mv, note), lifted_at))
    }

    /// The side-by-side readings just begun are of a board whose main reading stalls: its
    /// stall is said only if they end without one left, and the one left must have made
    /// [`LEAD`] moves.
    pub(super) fn defer_stall(&mut self) {
        if let Some(spec) = self.speculation.as_mut() {
            spec.main_stalled = true;
        }
    }

    /// [`OccupancyInference::resume`] of `board` while readings of the other board run
    /// side by side: the main reading and each of them take the arbiter's moves (a reading
    /// that cannot is dropped), and the moves on `board` each reading then decides count
    /// as the main reading's, for telling the readings apart later.
    pub(super) fn resume_beside(
        &mut self,
        entry: &super::resume::Entry<'_>,
        log: &mut super::SnapshotLog,
        t: u64,
    ) -> Result<Vec<OccupancyMove>, super::ResumeRefused> {
        let Some(mut spec) = self.speculation.take() else {
            return self.resume_one(entry, log, t);
        };
        let (board, moves) = (entry.board, entry.moves);
        let kept = log.clone();
        let out = match self.resume_one(entry, log, t) {
            Ok(out) => out,
            Err(e) => {
                self.speculation = Some(spec);
                return Err(e);
            }
        };
        let entered = |m: &Move| OccupancyMove {
            board,
            t,
            mv: *m,
            note: KindNote::Exact,
        };
        spec.other_main.retain(|m| m.board != board);
        spec.other_main.extend(moves.iter().map(entered));
        spec.other_main
            .extend(out.iter().filter(|m| m.board == board).cloned());
        // A reading the arbiter's moves do not fit (its hands or kinds there forbid them)
        // read the game otherwise than it went: it is dropped. Its own hands decide: a
        // drop the main reading takes from a hand it does not know (this board's captures
        // in doubt) is what one capture gave and another did not.
        let strict = super::resume::Entry {
            open_hands: false,
            ..*entry
        };
        spec.forks.retain_mut(|fork| {
            fork.out.retain(|m| m.board != board);
            let mut their_log = kept.clone();
            match fork.inf.resume_one(&strict, &mut their_log, t) {
                Ok(theirs) => {
                    fork.out.extend(moves.iter().map(entered));
                    fork.out.extend(theirs);
                    true
                }
                Err(_) => false,
            }
        });
        // The main reading made a move final there itself: the readings end, as they do
        // when it does so on its own (see `speculate`).
        if spec.forks.is_empty() || out.iter().any(|m| m.board == spec.board) {
            return Ok(out);
        }
        self.speculation = Some(spec);
        Ok(out)
    }

    /// The board whose readings run side by side, if any.
    pub(super) fn speculating_on(&self) -> Option<BoardId> {
        self.speculation.as_ref().map(|s| s.board)
    }

    /// Whether `board`'s stall waits on side-by-side readings begun when it stalled: it is
    /// not said until they end without one left.
    pub(super) fn stall_deferred(&self, board: BoardId) -> bool {
        self.speculation
            .as_ref()
            .is_some_and(|s| s.board == board && s.main_stalled)
    }

    /// Feeds the forks what the main reading was fed (`out`: what it decided), and takes
    /// the fork left, if one is.
    pub(super) fn speculate(
        &mut self,
        board: BoardId,
        t: u64,
        occ: u64,
        out: &mut Vec<OccupancyMove>,
    ) {
        let Some(mut spec) = self.speculation.take() else {
            return;
        };
        let on = spec.board;
        if out.iter().any(|m| m.board == on)
            || (self.stalled[on].is_some() && !spec.main_stalled)
            || t.saturating_sub(spec.since) > GIVE_UP_MS
        {
            return;
        }
        if board == on
            && spec
                .held_open
                .take()
                .is_some_and(|h| put_down_as_held(&h, occ))
        {
            return;
        }
        spec.other_main
            .extend(out.iter().filter(|m| m.board != on).cloned());
        for fork in &mut spec.forks {
            let decided = fork.inf.feed(board, t, occ);
            fork.out.extend(decided);
        }
        let stalled_on = |f: &Fork, b: BoardId| f.inf.stalled[b].is_some();
        // A fork whose other board stalled as the main reading's did reads this board as
        // the main reading would: on.
        let main_other = &self.stalled[on.other()];
        if spec
            .forks
            .iter()
            .any(|f| stalled_on(f, on.other()) && f.inf.stalled[on.other()] != *main_other)
            || (!spec.from_here && spec.forks.iter().any(|f| stalled_on(f, on)))
            || spec.forks.iter().all(|f| stalled_on(f, on))
        {
            return;
        }
        let Some((lead, lead_off)) = spec
            .forks
            .iter()
            .max_by_key(|f| f.moves_since(on))
            .map(|f| (f.moves_since(on), f.moves_off(on)))
        else {
            return;
        };
        // A fork behind is refuted only when its other board went as the leader's did: the
        // victim's kind crosses to the partner, and a fork whose other board waits for
        // a piece its partner never got may wait here for that board's captures.
        spec.forks.retain(|f| {
            f.moves_since(on) + LEAD > lead
                || f.moves_off(on) != lead_off
                || f.inf.unsettled(&f.inf.game, on.other())
                || !f.inf.held_readings(on).is_empty()
                || f.inf.doubt[on]
        });
        if spec.forks.len() > 1
            || (spec.main_stalled && spec.forks.iter().all(|f| f.moves_since(on) < LEAD))
        {
            self.speculation = Some(spec);
            return;
        }
        let Some(fork) = spec.forks.pop() else {
            return;
        };
        if fork.inf.stalled[on].is_some() {
            return;
        }
        if fork.moves_off(on) != squares(spec.other_main.iter()) {
            return;
        }
        let Fork {
            inf, out: decided, ..
        } = fork;
        let mut inf = inf;
        inf.in_fork = None;
        inf.resolved.retain(|r| r.board == on);
        out.extend(decided.into_iter().filter(|m| m.board == on));
        out.sort_by_key(|m| m.t);
        *self = inf;
    }

    /// While readings of one board run side by side, the other board rests on its open
    /// move (see [`OccupancyInference::commit_at_rest`]): it is made final in the main
    /// reading and in every reading alike, so that the one taken later has made it final
    /// too (and it is handed on once), but only when every reading shows the same move
    /// there (their hands may differ, and with them a drop's kinds).
    pub(super) fn commit_at_rest_beside(&mut self, t: u64, out: &mut Vec<OccupancyMove>) {
        let Some(mut spec) = self.speculation.take() else {
            return;
        };
        let b = spec.board.other();
        let open = &self.watch[b].open;
        if self.rests_on_open(b, t)
            && spec
                .forks
                .iter()
                .all(|f| f.inf.rests_on_open(b, t) && f.inf.watch[b].open == *open)
        {
            let mut mine = Vec::new();
            self.withhold(b, &mut mine);
            for fork in &mut spec.forks {
                let mut theirs = Vec::new();
                fork.inf.withhold(b, &mut theirs);
                fork.out.extend(theirs);
            }
            spec.other_main.extend(mine.iter().cloned());
            out.extend(mine);
        }
        self.speculation = Some(spec);
    }

    /// Passes time to the forks; after [`GIVE_UP_MS`] without one left, ends them.
    pub(super) fn tick_forks(&mut self, t: u64) {
        if self
            .speculation
            .as_ref()
            .is_some_and(|s| t.saturating_sub(s.since) > GIVE_UP_MS)
        {
            // A board at rest shows nothing more that could tell the readings apart (the
            // game's last move, say): the main reading goes on alone, its stall said.
            self.speculation = None;
            return;
        }
        if let Some(spec) = self.speculation.as_mut() {
            for fork in &mut spec.forks {
                fork.inf.tick(t);
            }
        }
    }
}

/// Whether the board's first change after a piece of open kind held still was taken as
/// set onto a victim (`held`) puts a piece down where it stood or where one of its kinds
/// goes: it was in the hand all along, or it took and the opponent dropped a piece there.
/// The board cannot tell.
fn put_down_as_held((from, kinds, color, before): &HeldOpen, occ: u64) -> bool {
    let occupied = Bitboard(*before);
    Iterator::any(&mut Bitboard(occ & !before).into_iter(), |sq| {
        sq == *from
            || kinds
                .iter()
                .any(|&r| shape_fits(r, *color, *from, sq, occupied, false))
    })
}
