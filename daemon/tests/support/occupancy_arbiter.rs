//! An arbiter at a table of occupancy-only boards, for the round trips (`#[path]`-included):
//! told as the daemon tells him (a board that stalls at once, a board showing what no move
//! explains once it has done so for `STILL_WAIT_MS`), he walks over and, `ARBITER_DELAY_MS`
//! later, enters the board's moves since its last recorded one up to the alert, as he saw
//! them (the game's moves pressed by then, at least one). The inference then reads the
//! board's snapshots since again ([`OccupancyInference::resume`]).

use bugbridge::infer::occupancy::{
    KindNote, OccupancyInference, OccupancyMove, STILL_WAIT_MS, SnapshotLog,
};
use bugbridge::rules::{BoardId, BughouseGame, ByBoard, Move};

use crate::occupancy_judge::{read_snapshot, same_squares, settle};
use bugbridge::game::LIVE_TICK_MS;

/// How long after the alert the arbiter enters the moves (ms): he walks over, looks, types.
pub(crate) const ARBITER_DELAY_MS: u64 = 15_000;

/// The arbiter of one game.
pub(crate) struct Arbiter {
    start: BughouseGame,
    /// Each board's moves in the game, in order, and when each was pressed.
    truth: ByBoard<Vec<Move>>,
    pressed: ByBoard<Vec<u64>>,
    /// Since when each board has shown what no move explains, as far as the snapshots
    /// tell.
    waiting_since: ByBoard<Option<u64>>,
    /// When each board's alert came, while the arbiter is on his way.
    alerted: ByBoard<Option<u64>>,
    /// The moves he entered, by board and time (each judged as the game's).
    pub(crate) entered: Vec<(BoardId, u64)>,
    /// Entries the inference refused (the record holds a placeholder the game's move does
    /// not fit, say).
    pub(crate) refused: usize,
}

impl Arbiter {
    pub(crate) fn new(
        start: &BughouseGame,
        moves: impl IntoIterator<Item = (BoardId, Move)>,
        pressed: ByBoard<Vec<u64>>,
    ) -> Arbiter {
        let mut truth: ByBoard<Vec<Move>> = ByBoard::new_with(|_| Vec::new());
        for (b, m) in moves {
            truth[b].push(m);
        }
        Arbiter {
            start: start.clone(),
            truth,
            pressed,
            waiting_since: ByBoard::default(),
            alerted: ByBoard::default(),
            entered: Vec::new(),
            refused: 0,
        }
    }

    /// Time `t` has come (before the snapshot at `t` is read): the alerts the daemon
    /// would have given by now are noted, and the arbiter enters the moves of a board whose
    /// alert came `ARBITER_DELAY_MS` ago. `decided` is the record so far; the moves he
    /// enters and those the inference reads again go to it.
    pub(crate) fn at(
        &mut self,
        inf: &mut OccupancyInference,
        log: &mut SnapshotLog,
        t: u64,
        decided: &mut Vec<OccupancyMove>,
        debug: bool,
    ) {
        for b in BoardId::ALL {
            if inf.waiting(b).is_some() {
                self.waiting_since[b].get_or_insert(t);
            } else {
                self.waiting_since[b] = None;
            }
            let alert = inf.stalled(b).is_some()
                || self.waiting_since[b].is_some_and(|since| t >= since + STILL_WAIT_MS)
                || inf
                    .withheld_since(b)
                    .is_some_and(|since| t >= since + STILL_WAIT_MS);
            if alert && self.alerted[b].is_none() {
                self.alerted[b] = Some(t);
            }
            let Some(alerted) = self.alerted[b] else {
                continue;
            };
            if t < alerted + ARBITER_DELAY_MS {
                continue;
            }
            self.alerted[b] = None;
            self.waiting_since[b] = None;
            if !inf.needs_arbiter(b) {
                continue;
            }
            if self.enter(inf, log, b, alerted, t, decided, debug) == Entry::HandShort
                && inf.needs_arbiter(b.other())
            {
                // A drop from a hand the other board's record has not filled yet: he
                // enters that board's moves first.
                self.enter(inf, log, b.other(), t, t, decided, debug);
                self.enter(inf, log, b, alerted, t, decided, debug);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn enter(
        &mut self,
        inf: &mut OccupancyInference,
        log: &mut SnapshotLog,
        b: BoardId,
        alerted: u64,
        t: u64,
        decided: &mut Vec<OccupancyMove>,
        debug: bool,
    ) -> Entry {
        let done = decided.iter().filter(|m| m.board == b).count();
        if debug {
            let mine: Vec<String> = decided
                .iter()
                .filter(|m| m.board == b)
                .map(|m| format!("{}:{:?}", m.t, m.mv))
                .collect();
            println!("    arbiter {b} record: {}", mine.join(" "));
        }
        // He says first what the pieces of open kind on the board were when dropped or
        // promoted.
        if debug {
            println!("    arbiter {b} open kinds {:?}", inf.open_kinds(b));
        }
        let mut told = Vec::new();
        while let Some((_, at, _)) = inf
            .open_kinds(b)
            .into_iter()
            .find(|(_, at, _)| !told.contains(at))
        {
            told.push(at);
            let mine: Vec<&OccupancyMove> = decided.iter().filter(|m| m.board == b).collect();
            let ply = mine.iter().rposition(|m| m.t == at);
            let role = match ply.and_then(|i| self.truth[b].get(i)) {
                Some(Move::Drop { piece, .. }) => piece.role,
                Some(Move::Normal {
                    promotion: Some(p), ..
                }) => *p,
                _ => continue,
            };
            let said = inf.settle_kind(b, at, role);
            if debug {
                println!("    arbiter {b} says the piece of {at} is a {role:?}: {said:?}");
            }
        }
        settle(inf, decided, &mut Vec::new(), debug);
        let mut record = self.start.clone();
        for m in decided.iter() {
            record.play(m.board, &m.mv, m.t);
        }
        let seen = self.pressed[b].iter().filter(|&&p| p <= alerted).count();
        let upto = seen.max(done + 1).min(self.truth[b].len());
        if upto <= done {
            return Entry::Nothing;
        }
        // The moves as the record's position has them (a placeholder kind stays its own).
        let mut pos = record.board(b).clone();
        let mut moves = Vec::new();
        for want in &self.truth[b][done..upto] {
            let Some(mv) = pos
                .legal_moves()
                .into_iter()
                .find(|m| same_squares(m, want))
            else {
                if debug {
                    println!(
                        "    arbiter {b}: {want:?} does not fit the record {}",
                        bugbridge::rules::notation::bfen::write_board_fen(&pos, None)
                    );
                }
                self.refused += 1;
                return if want.is_drop() {
                    Entry::HandShort
                } else {
                    Entry::Refused
                };
            };
            pos.play(&mv);
            moves.push(mv);
        }
        match inf.resume(b, &record, &moves, log, t) {
            Ok(read) => {
                if debug {
                    println!("    arbiter {b} enters {moves:?}, then read again {read:?}");
                }
                for want in &self.truth[b][done..upto] {
                    decided.push(OccupancyMove {
                        board: b,
                        t,
                        mv: *want,
                        note: KindNote::Exact,
                    });
                    self.entered.push((b, t));
                }
                for m in &read {
                    log.handed_on(m.board, m.t);
                }
                decided.extend(read);
                Entry::Done
            }
            Err(why) => {
                if debug {
                    println!("    arbiter {b} refused: {why}");
                }
                self.refused += 1;
                Entry::Refused
            }
        }
    }
}

/// How an entry went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Done,
    Nothing,
    Refused,
    /// A drop of a piece the record's hand does not hold.
    HandShort,
}

/// A game's snapshots read as the daemon reads them, with the arbiter when there is one.
pub(crate) struct Read<'a> {
    pub(crate) inf: &'a mut OccupancyInference,
    /// The moves decided (and entered), in the order they were handed on.
    pub(crate) decided: &'a mut Vec<OccupancyMove>,
    /// The moves whose kind a later move settled (see `settle`).
    pub(crate) settled: &'a mut Vec<(BoardId, u64)>,
    pub(crate) debug: bool,
}

impl Read<'_> {
    /// The daemon's timers at `t`: held pieces judged, a board resting on its open move
    /// made final (as `OccupancyFeed::tick`).
    fn tick(&mut self, t: u64) {
        self.inf.tick(t);
        self.rested(t, "tick");
        settle(self.inf, self.decided, self.settled, self.debug);
    }

    /// The moves of a board resting on its open move at `t`, made final (`how`: why now,
    /// for the debug output).
    fn rested(&mut self, t: u64, how: &str) {
        let rested = self.inf.commit_at_rest(t);
        if self.debug {
            for m in &rested {
                println!(
                    "    => {} {:?} {:?} ({how}) t={} at {t}",
                    m.board, m.mv, m.note, m.t
                );
            }
        }
        self.decided.extend(rested);
    }

    /// Reads `snapshots` (`shown`: each board's occupancy before them): the daemon's clock
    /// ticks between them, and the arbiter, told as the daemon tells him, enters moves;
    /// with `rest_after`, the table rests 40 s after the last (he may come then).
    pub(crate) fn all(
        &mut self,
        mut shown: ByBoard<u64>,
        snapshots: Vec<(u64, BoardId, u64)>,
        mut arbiter: Option<&mut Arbiter>,
        rest_after: bool,
    ) {
        let end = snapshots.last().map_or(0, |s| s.0);
        let rest = rest_after && arbiter.is_some();
        let rests = (1..=4).filter(|_| rest).map(|k| (end + k * 10_000, None));
        // Each board's snapshots since its last move recorded, for the arbiter's entries.
        let mut log = SnapshotLog::default();
        let mut recorded = 0;
        let mut ticked: Option<u64> = None;
        for (t, snapshot) in snapshots.into_iter().map(|s| (s.0, Some(s))).chain(rests) {
            // The daemon's timers run every `LIVE_TICK_MS` between the snapshots, as the
            // live daemon's do: a board read at rest, or a piece held still, is judged
            // then, not only when the next snapshot comes.
            if let Some(last) = ticked {
                let mut at = (last / LIVE_TICK_MS + 1) * LIVE_TICK_MS;
                while at < t {
                    self.tick(at);
                    at += LIVE_TICK_MS;
                }
            }
            ticked = Some(t);
            if let Some(arbiter) = arbiter.as_deref_mut() {
                self.rested(t.saturating_sub(1), "rested before the arbiter");
                for m in &self.decided[recorded..] {
                    log.handed_on(m.board, m.t);
                }
                // What he enters and what is read again keep the log themselves.
                arbiter.at(self.inf, &mut log, t, self.decided, self.debug);
                recorded = self.decided.len();
            }
            if let Some(snapshot) = snapshot {
                log.push(snapshot.1, snapshot.0, snapshot.2);
                read_snapshot(self.inf, &mut shown, snapshot, self.decided, self.debug);
                // The daemon's timers run after each snapshot, as `OccupancyFeed::feed` does.
                self.tick(t);
            }
            settle(self.inf, self.decided, self.settled, self.debug);
            for m in &self.decided[recorded..] {
                log.handed_on(m.board, m.t);
            }
            recorded = self.decided.len();
        }
    }
}
