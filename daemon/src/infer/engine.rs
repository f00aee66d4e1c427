//! The state machine: sensor events in, decisions out.

use crate::rules::notation::{san_string, write_board_fen};
use crate::rules::{
    Board, BoardId, BughouseGame, ByBoard, ByColor, Color, GameEnd, IllegalReason, Legality,
    MatchResult, MaterialMismatch, MoveList, Piece, Position, Role, Square,
};

use super::board_track::{PendingPress, Track};
use super::gap::BridgeAt;
use super::gap::timing::ClockMark;
use super::matcher::{self, Explanation};
use super::output::{Alert, AlertCode, Inference, MoveFlags, RecordEntry};
use super::owing::{Debts, play_owing};
use super::{GapStats, InferConfig, OperatorAction, SensorEvent};

/// How a move was completed: when, the clock then, how it was recognised, whose press.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Completion {
    pub(crate) t: u64,
    pub(crate) readings: Option<ByColor<f64>>,
    pub(crate) flags: MoveFlags,
    /// Whose press completed it (none without a clock).
    pub(crate) presser: Option<Color>,
    /// For a drop: the piece was already in hand at the press.
    pub(crate) held_at_press: bool,
}

fn drop_role(m: &crate::rules::Move) -> Option<Role> {
    match *m {
        crate::rules::Move::Drop { piece, .. } => Some(piece.role),
        _ => None,
    }
}

/// How many events may queue behind a drop waiting for the other board.
const MAX_QUEUE: usize = 4096;

/// How many earlier positions per board a takeback is compared with.
const HISTORY: usize = 8;

/// The move inference of one match (both boards): a pure state machine.
///
/// Feed it every event in arrival order with its trace time ([`Inferrer::observe`]), and
/// call [`Inferrer::tick`] when no event comes (timers: clockless commits, the drop
/// tolerance, the grace of a press whose piece is still in hand). It never reads a clock
/// and never fails: whatever the input, it records what physically happened, alerts when
/// in doubt, and never emits a move it cannot explain.
#[derive(Debug, Clone)]
pub struct Inferrer {
    pub(crate) config: InferConfig,
    pub(crate) start: BughouseGame,
    pub(crate) game: BughouseGame,
    pub(crate) record: Vec<RecordEntry>,
    pub(crate) finished: Vec<Vec<RecordEntry>>,
    pub(crate) tracks: ByBoard<Track>,
    /// Pieces dropped before the capture that supplies them: settled by that capture.
    pub(crate) debts: Debts,
    pub(crate) last_mismatch: Option<MaterialMismatch>,
    pub(crate) scratch: MoveList,
    pub(crate) end_reported: bool,
    /// The start placement (compared on every put: parsed once).
    pub(crate) start_board: Board,
    /// Each board's last BFEN record, with the position and readings it was written for.
    pub(crate) fen_cache: ByBoard<Option<FenCache>>,
    /// Link outages and how their gaps ended.
    pub(crate) gap_stats: GapStats,
    /// Koedem grab promotions being paired across the boards.
    pub(crate) grabs: super::koedem::Grabs,
    /// After the end: until when a board back from a lost link is still resyncing.
    pub(crate) resync_until: ByBoard<u64>,
    /// Which moves of an occupancy-only table put down pieces of open kind (see
    /// `unsure_end.rs`).
    pub(crate) open_kinds: ByBoard<super::unsure_end::OpenPlies>,
    /// A mate those kinds made unsure when first played (the record entry and its end):
    /// not an end, alerted once by whoever played it.
    pub(crate) unsure_end: Option<((BoardId, u32, Color), GameEnd)>,
    /// The record entries (board, number, side) whose mate was unsure when recorded: the
    /// game played again stays unended there (see `unsure_end.rs`).
    pub(crate) unsure_mates: Vec<(BoardId, u32, Color)>,
    /// The record entry (board, number, side) whose move ended the game when last played:
    /// a re-play that ends it where no move did is reported (see `unsure_end.rs`).
    pub(crate) ended_by: Option<(BoardId, u32, Color)>,
}

/// A board's BFEN text and what it was written from.
pub(crate) type FenCache = (Position, Option<ByColor<f64>>, String);

impl Inferrer {
    /// A new inference from `start` (both boards in the start position when `None`).
    #[must_use]
    pub fn new(config: InferConfig, start: Option<BughouseGame>) -> Inferrer {
        let start = start.unwrap_or_else(|| BughouseGame::new(config.ruleset));
        let tracks = ByBoard::new_with(|b| Track::new(*start.board(b).board(), config.clock[b]));
        Inferrer {
            config,
            game: start.clone(),
            start,
            record: Vec::new(),
            finished: Vec::new(),
            tracks,
            debts: ByBoard::default(),
            last_mismatch: None,
            scratch: MoveList::with_capacity(256),
            end_reported: false,
            start_board: Board::start(),
            fen_cache: ByBoard::default(),
            gap_stats: GapStats::default(),
            grabs: Default::default(),
            resync_until: ByBoard::default(),
            open_kinds: Default::default(),
            unsure_end: None,
            unsure_mates: Vec::new(),
            ended_by: None,
        }
    }

    /// The configuration.
    #[must_use]
    pub const fn config(&self) -> &InferConfig {
        &self.config
    }

    /// The game as committed so far.
    #[must_use]
    pub const fn game(&self) -> &BughouseGame {
        &self.game
    }

    /// The committed moves of the current game, in the order they were decided.
    #[must_use]
    pub fn record(&self) -> &[RecordEntry] {
        &self.record
    }

    /// The records of earlier games of this trace (before each new game).
    #[must_use]
    pub fn finished_records(&self) -> &[Vec<RecordEntry>] {
        &self.finished
    }

    /// The latest clock reading of `board` (White's and Black's seconds).
    #[must_use]
    pub fn clock(&self, board: BoardId) -> Option<ByColor<f64>> {
        self.tracks[board].readings
    }

    /// How many link outages there were and how their gaps ended.
    #[must_use]
    pub const fn gap_stats(&self) -> GapStats {
        self.gap_stats
    }

    /// Whether `board`'s link is down, or back with its gap not bridged yet (its moves
    /// are not being recorded).
    #[must_use]
    pub fn link_gap(&self, board: BoardId) -> bool {
        self.in_gap(board)
    }

    /// What the sensors of `board` show now, in true orientation.
    #[must_use]
    pub fn physical(&self, board: BoardId) -> &Board {
        &self.tracks[board].physical
    }

    /// Feeds one event at trace time `t` (ms) and returns what it decided.
    pub fn observe(&mut self, t: u64, ev: &SensorEvent) -> Vec<Inference> {
        let mut out = Vec::new();
        self.observe_into(t, ev, &mut out);
        out
    }

    /// Like [`Inferrer::observe`], appending to `out` (no allocation when nothing is
    /// decided).
    pub fn observe_into(&mut self, t: u64, ev: &SensorEvent, out: &mut Vec<Inference>) {
        self.run_timers(t, out);
        if let Some(board) = ev.board()
            && self.tracks[board].deferred.is_some()
            && !matches!(ev, SensorEvent::Operator(_))
        {
            self.tracks[board].queue.push((t, ev.clone()));
            // Times that never reach the deadline (a clock going backwards) must not
            // hold a board forever.
            if self.tracks[board].queue.len() > MAX_QUEUE {
                self.expire_deferred(board, out);
            }
            return;
        }
        self.handle(t, ev, out);
    }

    /// Runs the timers up to `t` (ms) and returns what they decided.
    pub fn tick(&mut self, t: u64) -> Vec<Inference> {
        let mut out = Vec::new();
        self.run_timers(t, &mut out);
        out
    }

    pub(crate) fn handle(&mut self, t: u64, ev: &SensorEvent, out: &mut Vec<Inference>) {
        if self.end_reported && self.after_end(t, ev, out) {
            return;
        }
        match *ev {
            SensorEvent::Snapshot { board, placement } => {
                self.on_snapshot(t, board, placement, out)
            }
            SensorEvent::Square { board, sq, piece } => self.on_square(t, board, sq, piece, out),
            SensorEvent::Clock {
                board,
                white,
                black,
                running,
            } => self.on_clock(t, board, ByColor { white, black }, running, out),
            SensorEvent::Link { board, up } => self.on_link(t, board, up, out),
            SensorEvent::ClockLink { board, up } => self.on_clock_link(t, board, up, out),
            SensorEvent::ClockSide {
                board,
                white_side,
                configured,
                ref evidence,
            } => self.on_clock_side(t, board, white_side, configured, evidence, out),
            SensorEvent::Operator(ref op) => self.on_operator(t, op, out),
        }
    }

    fn run_timers(&mut self, t: u64, out: &mut Vec<Inference>) {
        self.expire_grabs(t, out);
        self.expire_unread(t, out);
        for board in BoardId::ALL {
            // Draining the events that queued behind a drop may defer the next drop, whose
            // wait may be over already (its events were held that long): each in turn.
            while self.tracks[board]
                .deferred
                .as_ref()
                .is_some_and(|d| d.deadline < t)
            {
                self.expire_deferred(board, out);
            }
            let track = &self.tracks[board];
            if track.pending.is_some_and(|p| !p.alerted && p.deadline <= t) {
                self.alert_pending(board, out);
            }
            self.gap_timer(t, board, out);
            if self.clockless(board) && !self.end_reported {
                self.clockless_timer(t, board, out);
            }
        }
    }

    fn on_snapshot(&mut self, t: u64, board: BoardId, placement: Board, out: &mut Vec<Inference>) {
        let track = &mut self.tracks[board];
        if !track.oriented {
            track.oriented = true;
            let committed = self.game.board(board);
            let straight = matcher::diff(committed, &placement).count();
            let turned = matcher::diff(committed, &placement.rotate_180()).count();
            track.rotated = turned < straight && turned <= 2;
        }
        let placement = if track.rotated {
            placement.rotate_180()
        } else {
            placement
        };
        let as_left = track.physical == placement;
        for sq in Square::ALL {
            if track.physical.piece_at(sq) != placement.piece_at(sq) {
                track.square_t[sq.index()] = t;
            }
        }
        track.physical = placement;
        track.last_change = t;
        if track.awaiting_snapshot {
            track.awaiting_snapshot = false;
            track.gap_check = true;
            if let Some(gap) = &mut track.gap {
                gap.snapshot = Some(placement);
            }
            if as_left && track.gap.is_some() && self.gap_closes_as_left(board) {
                return;
            }
            let clocked = self.has_clock(board);
            let track = &mut self.tracks[board];
            if !clocked && track.gap.is_some() {
                // No clock will tell the side to move: the board alone must do.
                track.gap_check = false;
                let at = BridgeAt {
                    end: ClockMark { t, readings: None },
                    running: None,
                    pressed: None,
                    settle: false,
                };
                self.gap_reading(board, at, true, out);
                return;
            }
        }
        self.retry_pending(board, out);
        if self.clockless(board) {
            self.clockless_explain(t, board, out);
        }
        self.check_new_game(t, out);
    }

    fn on_square(
        &mut self,
        t: u64,
        board: BoardId,
        sq: Square,
        piece: Option<Piece>,
        out: &mut Vec<Inference>,
    ) {
        let track = &mut self.tracks[board];
        if track.awaiting_snapshot {
            return;
        }
        let sq = track.orient(sq);
        track.closed_as_left = None;
        track.note(sq, piece);
        track.missing_ok.discard(sq);
        if track.residual.contains(sq) {
            track.residual_touched.add(sq);
        }
        let was = track.physical.piece_at(sq);
        track.physical.set_square(sq, piece);
        track.last_change = t;
        track.square_t[sq.index()] = t;
        self.grab_square(t, board, sq, (was, piece), out);
        if self.tracks[board].pending.is_some() {
            self.retry_pending(board, out);
        }
        if self.clockless(board) {
            self.clockless_square(t, board, sq, (was, piece), out);
        }
        if piece.is_some() {
            self.check_new_game(t, out);
        }
    }

    fn on_link(&mut self, t: u64, board: BoardId, up: bool, out: &mut Vec<Inference>) {
        let track = &mut self.tracks[board];
        let was_down = std::mem::replace(&mut track.link_down, !up);
        if up {
            track.awaiting_snapshot = true;
            if !was_down {
                return;
            }
            if let Some(gap) = &mut track.gap {
                gap.up = true;
            }
            let detail = format!(
                "board {board}: the device is back; the moves made meanwhile are taken from its own log or worked out from the board and the clock"
            );
            out.push(Inference::Alert(Alert::about_board(
                t,
                board,
                AlertCode::LinkRestored,
                detail,
            )));
            return;
        }
        if !track.oriented {
            // The board never answered (wrong port, unplugged from the start): no
            // connection was lost and nothing it showed is in doubt. The driver's log says
            // why it cannot be used; its coming up is no restoration either.
            track.link_down = false;
            return;
        }
        if !was_down
            && track.gap.as_ref().is_some_and(|g| g.up)
            && !track.awaiting_snapshot
            && track.clock_seen
        {
            // Lost again before the board back from its last gap was judged: what it and
            // its clock showed last is all there will be of that gap.
            let at = BridgeAt {
                end: ClockMark {
                    t: track.readings_t,
                    readings: track.readings,
                },
                running: track.running,
                pressed: None,
                settle: true,
            };
            self.try_bridge(board, at, out);
        }
        let track = &mut self.tracks[board];
        track.awaiting_snapshot = true;
        if was_down {
            return;
        }
        if self.clockless(board) {
            // The move last seen complete stands: the gap starts after it.
            self.tracks[board].awaiting_snapshot = false;
            self.finalize(board, false, out);
            self.tracks[board].revisable = None;
            self.tracks[board].awaiting_snapshot = true;
        }
        self.open_gap(t, board);
        out.push(Inference::Alert(Alert::about_board(
            t,
            board,
            AlertCode::LinkLost,
            format!("board {board}: the device connection dropped"),
        )));
    }

    fn on_clock(
        &mut self,
        t: u64,
        board: BoardId,
        readings: ByColor<f64>,
        running: Option<Color>,
        out: &mut Vec<Inference>,
    ) {
        self.on_flags(t, board, readings, running, out);
        let track = &mut self.tracks[board];
        let previous = track.running;
        let seen = track.clock_seen;
        if track.awaiting_snapshot && track.gap.is_some() {
            // A reading of a board back from a gap before its snapshot: the squares are
            // not known yet, so it cannot end the gap. Whose clock ran before the gap is
            // kept: the first reading after the snapshot must still see a press made in
            // the gap (a board back as it was left then completes that move).
            track.readings = Some(readings);
            track.readings_t = t;
            return;
        }
        if let Some(mut gap) = track.closed_as_left.take()
            && running.is_some()
            && running != previous
        {
            // The board came back as it was left, yet a press was made in the gap: the
            // board was not still when the link came back. The gap is open again, and
            // this is its first reading.
            gap.up = true;
            track.gap = Some(gap);
            track.gap_check = true;
        }
        track.running = running;
        track.clock_seen = true;
        track.readings = Some(readings);
        track.readings_t = t;
        let gap_check = std::mem::replace(&mut track.gap_check, false);
        if let Some(gap) = &track.gap {
            // A board in a gap: its readings end the gap once the board is seen again;
            // nothing else is judged until it is bridged.
            if gap.up && !track.awaiting_snapshot {
                // The first reading after the resync may show presses made in the gap:
                // they are not presses seen now.
                let press = match (previous, running) {
                    (Some(x), Some(y)) if x != y && seen && !gap_check => Some(x),
                    _ => None,
                };
                if press.is_some() {
                    track.last_press_t = t;
                }
                let at = BridgeAt {
                    end: ClockMark {
                        t,
                        readings: Some(readings),
                    },
                    running,
                    pressed: press,
                    settle: false,
                };
                self.gap_reading(board, at, gap_check, out);
            }
            return;
        }
        if self.clockless(board) {
            // Readings of a clock that is not followed (configured without one, or lost):
            // they show the times, they complete no move.
            return;
        }
        match (previous, running) {
            (Some(x), Some(y)) if x != y && seen => self.on_press(t, board, x, Some(readings), out),
            _ if gap_check => self.infer_gap(t, board, out),
            _ => {}
        }
    }

    /// A clock press by `by`: the move of `by` that explains the board is completed.
    fn on_press(
        &mut self,
        t: u64,
        board: BoardId,
        by: Color,
        readings: Option<ByColor<f64>>,
        out: &mut Vec<Inference>,
    ) {
        self.tracks[board].last_press_t = t;
        if self.owed_press(board, by, t, readings, out) {
            return;
        }
        // A second press while the board still matches nothing: the first press is given
        // up (and alerted); the board is judged afresh for this one.
        if let Some(p) = self.tracks[board].pending.take()
            && !self.try_resolve(board, p, true, out)
            && !p.alerted
        {
            self.tracks[board].pending = Some(p);
            self.alert_pending(board, out);
        }
        let press = PendingPress {
            by,
            t,
            readings,
            deadline: t.saturating_add(self.config.press_grace_ms),
            alerted: false,
            pockets: *self.game.board(board).pockets(),
        };
        if self.tracks[board].awaiting_snapshot {
            self.tracks[board].pending = Some(press);
            return;
        }
        if !self.try_resolve(board, press, false, out) {
            // Nothing explains the board yet: the piece may still be in hand (a drop not
            // yet put down shows no difference at all). Wait for the board to settle; the
            // grace timer alerts if it does not.
            self.tracks[board].pending = Some(press);
        }
    }

    /// The best explanation of what `board` shows by a press of `by`, from its committed
    /// position and the order of its square readings ([`matcher::explain_with`]).
    pub(crate) fn explain_press(&mut self, board: BoardId, by: Color) -> Option<Explanation> {
        let track = &self.tracks[board];
        matcher::explain_with(
            self.game.board(board),
            &track.physical,
            by,
            &track.lifts,
            &mut self.scratch,
            false,
            track.missing_ok,
        )
    }

    /// Tries to explain the board for the press `p`; commits and returns `true` when it
    /// can. `late`: the board settled only after the press (the piece was still in hand).
    pub(crate) fn try_resolve(
        &mut self,
        board: BoardId,
        p: PendingPress,
        late: bool,
        out: &mut Vec<Inference>,
    ) -> bool {
        let found = self.explain_press(board, p.by);
        // A drop of a piece not in hand yet is no evidence against the gap's order: the
        // other board's press may still supply it (see `commit_explained`).
        let unexplained = found.is_none_or(|e| {
            !e.legality.is_legal() && e.legality != Legality::Illegal(IllegalReason::DropNotInHand)
        });
        let found = if unexplained {
            self.settle_gap_by_move(board, p, out).or(found)
        } else {
            found
        };
        let found = if found.is_none_or(|e| !e.legality.is_legal()) {
            self.capture_of_taken_grab(board, p, out).or(found)
        } else {
            found
        };
        if found.is_none_or(|e| !e.legality.is_legal()) && self.takeback(board, p.t, out) {
            return false;
        }
        let Some(mut exp) = found else {
            return false;
        };
        if let Some(corrected) = self.promotion_correction(board, p.t, &exp, out) {
            exp = corrected;
        }
        let flags = MoveFlags {
            late_put: late,
            ..MoveFlags::default()
        };
        let held_at_press = match exp.mv {
            crate::rules::Move::Drop { piece, .. } => p.pockets[piece.color].has(piece.role),
            _ => false,
        };
        let done = Completion {
            t: p.t,
            readings: p.readings,
            flags,
            presser: Some(p.by),
            held_at_press,
        };
        self.commit_explained(board, exp, done, out);
        true
    }

    fn retry_pending(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        if self.tracks[board].awaiting_snapshot {
            return;
        }
        if let Some(p) = self.tracks[board].pending.take()
            && !self.try_resolve(board, p, true, out)
        {
            self.tracks[board].pending = Some(p);
        }
    }

    /// Commits an explanation, or defers a drop whose piece is not in hand yet.
    pub(crate) fn commit_explained(
        &mut self,
        board: BoardId,
        exp: Explanation,
        done: Completion,
        out: &mut Vec<Inference>,
    ) {
        let mut exp = exp;
        if exp.legality == Legality::Illegal(IllegalReason::DropNotInHand)
            && let crate::rules::Move::Drop { piece, .. } = exp.mv
            && self.supply_from(board.other(), board, piece, out)
        {
            // The capture that supplies it stood on the other board, not yet final.
            exp.legality = self.game.board(board).classify(&exp.mv);
        }
        // Another order of a bridged gap is taken for the piece only when no capture
        // that supplies it stands on the other board: that press may still come.
        if exp.legality == Legality::Illegal(IllegalReason::DropNotInHand)
            && let crate::rules::Move::Drop { piece, .. } = exp.mv
            && !self.capture_pending_on_other_board(board, &exp.mv)
            && self.switch_gap_for_drop(done.t, board, piece, out)
        {
            exp.legality = self.game.board(board).classify(&exp.mv);
        }
        if exp.legality == Legality::Illegal(IllegalReason::DropNotInHand) {
            if self.in_gap(board.other()) {
                self.commit_pending_on_gap(board, exp, done, out);
            } else {
                self.defer_drop(board, exp, done);
            }
            return;
        }
        self.commit(board, exp, done, out);
    }

    /// A drop of a piece not in hand while the other board is silent: that board may have
    /// captured it meanwhile. It is committed without an alert, owing the piece (like a
    /// premature drop), and settled when the gap is bridged.
    pub(crate) fn commit_pending_on_gap(
        &mut self,
        board: BoardId,
        exp: Explanation,
        mut done: Completion,
        out: &mut Vec<Inference>,
    ) {
        done.flags.gap_pending = true;
        self.commit_owing(board, exp, done, out);
    }

    /// Commits a drop of a piece not in hand as owing it (the capture that hands its seat
    /// that kind settles the debt), without an alert: `done`'s flags say what it waits for.
    pub(crate) fn commit_owing(
        &mut self,
        board: BoardId,
        mut exp: Explanation,
        done: Completion,
        out: &mut Vec<Inference>,
    ) {
        exp.legality = Legality::Illegal(IllegalReason::PrematureDrop);
        self.commit(board, exp, done, out);
    }

    /// Plays a move into the game, records it and says so. `presser`: whose press
    /// completed it; the clock decides who moves next (bughouse is "clock move"), even
    /// after a move of the wrong piece.
    pub(crate) fn commit(
        &mut self,
        board: BoardId,
        exp: Explanation,
        done: Completion,
        out: &mut Vec<Inference>,
    ) {
        let Completion {
            t,
            readings,
            mut flags,
            presser,
            held_at_press,
        } = done;
        flags.promotion_not_shown |= exp.promotion_not_shown;
        if !self.has_clock(board) && readings.is_none() {
            flags.no_clock = true;
        }
        let side = exp.mover;
        let track = &mut self.tracks[board];
        track.owed_presses.clear();
        track.moves_made[side] = track.moves_made[side].saturating_add(1);
        let number = track.moves_made[side];
        if let Some(r) = readings {
            track.readings = Some(r);
        }
        // The move as the record's board has it: its piece and its capture what stand
        // there now (a kind corrected since the move was explained: the partner receives
        // what the record says was taken).
        let mv = self.game.board(board).normalize(&exp.mv);
        let san = san_string(self.game.board(board), &mv);
        let entry = RecordEntry {
            board,
            side,
            number,
            mv,
            san,
            clock: Track::reading(readings, side),
            t,
            legality: exp.legality,
            flags,
            handoff: None,
        };
        let before = self.game.board(board).clone();
        let history = &mut self.tracks[board].history;
        if history.len() >= HISTORY {
            history.remove(0);
        }
        history.push(before);
        self.tracks[board].takeback_alerted = false;
        let mut entry = entry;
        self.unsure_end = None;
        let (outcome, handoff) = self.apply(&entry);
        entry.handoff = handoff;
        if let Some(by) = presser
            && by != side
        {
            self.game.board_mut(board).set_turn(by.other());
        }
        // The record is in press order: a move completed after its press (the piece was
        // still in hand) goes before the presses decided meanwhile. (A drop that waited
        // for its supplier stays after it: that is the order the rules give.)
        let mut at = self.record.len();
        while (flags.late_put || flags.no_clock) && at > 0 && self.record[at - 1].t > entry.t {
            // A drop never goes before the partner's capture that may have supplied it.
            let passed = &self.record[at - 1];
            let supplier = !held_at_press
                && passed.board != board
                && passed.side == side.other()
                && drop_role(&entry.mv).is_some()
                && passed.handoff == drop_role(&entry.mv);
            if supplier {
                break;
            }
            at -= 1;
        }
        self.record.insert(at, entry.clone());
        if self.grab_on_commit(at, out) {
            entry = self.record[at].clone();
        }
        let track = &mut self.tracks[board];
        let residual = matcher::diff(self.game.board(board), &track.physical);
        // What the opponent has already done (a premove) stays in the log.
        track.lifts.retain(|&(sq, _)| residual.contains(sq));
        let bfen = self.bfen();
        out.push(Inference::Move {
            entry: entry.clone(),
            bfen,
        });
        if let Legality::Illegal(reason) = entry.legality
            && !entry.flags.gap_pending
            && !entry.flags.unread_pending
        {
            out.push(Inference::Alert(Alert {
                t,
                board: Some(board),
                code: AlertCode::IllegalMove,
                reason: Some(reason),
                number: Some(number),
                side: Some(side),
                san: Some(entry.san.clone()),
                detail: format!(
                    "board {board}: {number}{} {} is illegal ({reason}); recorded as played, the game goes on from the board",
                    if side == Color::White { "." } else { "..." },
                    entry.san
                ),
                choices: Vec::new(),
            }));
        }
        if let Some((_, end)) = self.unsure_end.take() {
            out.push(Inference::Alert(Self::unsure_end_alert(t, &entry, &end)));
        }
        if let Some(end) = outcome
            && !self.end_reported
        {
            {
                self.end_reported = true;
                out.push(Inference::End {
                    t,
                    board: end.board,
                    result: end.result,
                    reason: Some(end.reason),
                    detail: format!("board {board}: {} after {}", end.reason.code(), entry.san),
                });
            }
            // A move the other board completed before the end, not final yet (a board
            // without a clock), belongs to the game.
            let other = board.other();
            if self.clockless(other) && self.tracks[other].provisional.is_some_and(|p| p.t <= t) {
                self.finalize(other, false, out);
            }
        }
        self.check_discrepancy(board, t, residual, out);
        self.audit(t, Some(board), out);
        self.after_handoff(out);
        if entry.handoff.is_some() {
            self.supply_unread(t, out);
        }
        let partner = board.other();
        if entry.handoff.is_some() && self.clockless(partner) {
            // The piece may be what the partner's board was waiting for (a drop made
            // before the capture was final): it is judged again.
            let at = self.tracks[partner].last_change;
            self.clockless_explain(at, partner, out);
        }
    }

    /// The BFEN of both boards with the latest readings: the same text as
    /// [`write_bfen`](crate::rules::notation::write_bfen), but a board whose position and
    /// readings did not change since the last one reuses its text.
    fn bfen(&mut self) -> String {
        for b in BoardId::ALL {
            let pos = self.game.board(b);
            let readings = self.tracks[b].readings;
            let fresh = self.fen_cache[b]
                .as_ref()
                .is_some_and(|(p, r, _)| p == pos && *r == readings);
            if !fresh {
                let text = write_board_fen(pos, readings);
                self.fen_cache[b] = Some((pos.clone(), readings, text));
            }
        }
        let text = |b: BoardId| {
            self.fen_cache[b]
                .as_ref()
                .map_or("", |(_, _, t)| t.as_str())
        };
        format!("{} | {}", text(BoardId::A), text(BoardId::B))
    }

    /// Plays a record entry into the game (with the debts of premature drops).
    pub(crate) fn apply(&mut self, entry: &RecordEntry) -> (Option<GameEnd>, Option<Role>) {
        let outcome = play_entry(&mut self.game, &mut self.debts, entry);
        self.apply_grab(entry);
        let mut end = outcome.end;
        let key = (entry.board, entry.number, entry.side);
        // Played again (a correction), a mate found unsure stays so: the kinds told since
        // may be a later reading's, and an end nobody was told of would stop both boards
        // being read.
        let known = self.unsure_mates.contains(&key);
        if let Some(e) = end
            && !self.end_reported
            && (known || self.end_unsure(&e, entry))
        {
            self.game.withdraw_end();
            if !known {
                // Alerted once, when first found.
                self.unsure_mates.push(key);
                self.unsure_end = Some((key, e));
            }
            end = None;
        }
        if end.is_some() {
            self.ended_by = Some(key);
        }
        (end, outcome.handoff.map(|(_, role)| role))
    }

    fn on_operator(&mut self, t: u64, op: &OperatorAction, out: &mut Vec<Inference>) {
        match op {
            OperatorAction::Result {
                result,
                reason,
                correct,
            } => self.operator_result(t, *result, *reason, *correct, out),
            OperatorAction::Promotion {
                board,
                number,
                side,
                piece,
            } => self.operator_promotion(t, *board, *number, *side, *piece, out),
            OperatorAction::Replace {
                board,
                number,
                side,
                san,
            } => self.operator_replace(t, *board, *number, *side, san, out),
            OperatorAction::Fill {
                board,
                moves,
                first,
            } => {
                if first.is_none_or(|f| self.fill_starts_at(*board) == Some(f)) {
                    self.operator_fill(t, *board, moves, out);
                }
            }
        }
    }

    /// Both boards in the start position after an end (or after a long idle, clocks
    /// stopped): a new game, not a giant illegal move.
    pub(crate) fn check_new_game(&mut self, t: u64, out: &mut Vec<Inference>) {
        if self.record.is_empty() {
            return;
        }
        let start = self.start_board;
        if self.tracks.a.physical != start || self.tracks.b.physical != start {
            return;
        }
        let stopped = self.tracks.a.running.is_none() && self.tracks.b.running.is_none();
        let idle = BoardId::ALL
            .into_iter()
            .all(|b| t.saturating_sub(self.tracks[b].last_press_t) >= self.config.new_game_idle_ms);
        if !self.end_reported && self.game.end().is_none() && !stopped && !idle {
            return;
        }
        let game = BughouseGame::new(self.config.ruleset);
        self.finished.push(std::mem::take(&mut self.record));
        self.start = game.clone();
        self.game = game;
        self.debts = ByBoard::default();
        self.last_mismatch = None;
        self.end_reported = false;
        self.unsure_mates.clear();
        self.ended_by = None;
        for b in BoardId::ALL {
            let track = &mut self.tracks[b];
            track.moves_made = ByColor::default();
            track.pending = None;
            track.lifts.clear();
            track.flag_alerted = ByColor::default();
            track.residual = crate::rules::Bitboard::EMPTY;
            track.history.clear();
            track.gap = None;
            track.last_gap = None;
            track.owed_presses.clear();
        }
        for b in BoardId::ALL {
            self.clockless_reset(b);
        }
        out.push(Inference::NewGame { t });
    }

    /// The end of the match as decided so far.
    #[must_use]
    pub fn result(&self) -> MatchResult {
        self.game.result()
    }
}

/// Plays a record entry into `game`: a premature drop owes its piece (`debts`), which the
/// next capture handing that kind to its seat settles.
pub(crate) fn play_entry(
    game: &mut BughouseGame,
    debts: &mut Debts,
    entry: &RecordEntry,
) -> crate::rules::MoveOutcome {
    let owes = entry.legality == Legality::Illegal(IllegalReason::PrematureDrop);
    play_owing(
        game,
        debts,
        (entry.board, &entry.mv, entry.t),
        entry.legality,
        owes,
    )
}
