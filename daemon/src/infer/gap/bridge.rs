//! The inference's side of a link gap: opening it, trying to bridge it at every reading
//! of the board's clock, committing what the search found in its place in the record,
//! settling the other board's drops that waited for it, and the alert of a gap that
//! nothing bridges.

use crate::rules::notation::{san_string, write_board_fen};
use crate::rules::{Board, BoardId, Color, IllegalReason, Legality, Move, Piece, Position, Role};

use super::super::Inferrer;
use super::super::matcher;
use super::super::output::{Alert, AlertCode, Inference, MoveFlags, RecordEntry};
use super::search::{GapQuery, GapSearch, MAX_ALTERNATIVES, search};
use super::timing::{ClockMark, PressTime, clocks_allow, press_times};
use super::{Gap, LastGap};

/// How long (ms) a board back from a gap must have been still before the end of its grace
/// judges it without a press: longer than a hand stops in a slow slide or a hesitation
/// (up to about 1.5 s).
const SETTLE_QUIET_MS: u64 = 2000;

/// How long (ms) a board back from a gap must have been still for a reading without a
/// press to judge it: a hand completes a move in less.
const STILL_MS: u64 = 1000;

/// How many explanations seen during a gap are remembered.
const MAX_SEEN: usize = 16;

/// How a search is asked and how its answer is committed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BridgeAt {
    /// The reading that ends the gap.
    pub(crate) end: ClockMark,
    /// The side whose clock runs at `end`: the side to move the board must show.
    pub(crate) running: Option<Color>,
    /// The reading is a press by this side: the last ply was pressed at `end`.
    pub(crate) pressed: Option<Color>,
    /// Several sequences may be committed (as ambiguous) without a press: the board has
    /// had its grace to show a move in progress completed.
    pub(crate) settle: bool,
}

impl Inferrer {
    /// The link of `board` dropped: its gap opens (or, dropped again before it was
    /// bridged, stays open).
    pub(crate) fn open_gap(&mut self, t: u64, board: BoardId) {
        self.gap_stats.outages += 1;
        let record_len = self.record.len();
        let track = &mut self.tracks[board];
        if let Some(gap) = &mut track.gap {
            gap.up = false;
            gap.tried = None;
            return;
        }
        track.pending = None;
        let shown = shown_unpressed(self.game.board(board), &track.physical);
        let track = &mut self.tracks[board];
        track.gap = Some(Gap {
            before: ClockMark {
                t: track.readings_t,
                readings: track.readings,
            },
            before_running: track.running,
            down_t: t,
            record_len,
            up: false,
            deadline: None,
            alerted: false,
            tried: None,
            seen: Vec::new(),
            shown,
            snapshot: None,
        });
    }

    /// The sequences of up to `max_plies` plies that explain `target` from the committed
    /// position of `board`: those that start with the ply the board showed when the link
    /// went, when any do; else any. Those that continue what the board was seen to show
    /// after the link came back come first, and are kept even when there are more
    /// sequences than are collected (the plies a hand was seen making are the evidence
    /// that picks among them). When none of the shortest continues a sight but sequences
    /// one ply longer do, those are the answer: the board showed their first plies.
    pub(crate) fn search_gap(
        &self,
        board: BoardId,
        target: &Board,
        turn: Option<Color>,
        max_plies: usize,
    ) -> GapSearch {
        let mut found = self.search_gap_from_shown(board, target, turn, max_plies);
        let Some(len) = found.sequences.first().map(Vec::len) else {
            return found;
        };
        let seen: &[Vec<Move>] = self.tracks[board]
            .gap
            .as_ref()
            .map_or(&[], |g| g.seen.as_slice());
        let from = self.game.board(board);
        let mut continuing: Vec<Vec<Move>> = Vec::new();
        // The sights share half a search's budget: the gap is judged in bounded time.
        let mut budget = self.config.gap_node_budget / 2;
        for prefix in seen {
            // One ply more than the shortest; or than the sight, when it showed more plies
            // than the board's shortest explanation has now (a piece seen put down, taken
            // since) and was a clear sight: the same plies in every order that explained
            // it, no piece going out and back.
            let clear = !returns(prefix)
                && seen
                    .iter()
                    .filter(|s| s.len() == prefix.len())
                    .all(|s| same_plies(s, prefix));
            let longest = if clear { len.max(prefix.len()) } else { len } + 1;
            let longest = longest.min(max_plies);
            // A sight that only begins another is a piece in the hand (a capture half
            // done reads as the plies before it): the longer sight is the evidence.
            let superseded = seen
                .iter()
                .any(|s| s.len() > prefix.len() && s.starts_with(prefix));
            if prefix.is_empty() || prefix.len() >= longest || superseded {
                continue;
            }
            let Some(after) = played(from, prefix) else {
                continue;
            };
            if budget == 0 {
                break;
            }
            let rest = search(&GapQuery {
                from: &after,
                target,
                turn,
                max_plies: longest - prefix.len(),
                node_budget: budget,
            });
            budget = budget.saturating_sub(rest.nodes);
            found.nodes += rest.nodes;
            for tail in rest.sequences {
                // Longer than the shortest only when the plies after the sight landed in
                // the order the board saw them land (d7-d6, then e3-e4 seen after d6-d5:
                // the sight was a hand pausing on its way, not a ply).
                if prefix.len() + tail.len() > len && !self.lands_in_order(board, &after, &tail) {
                    continue;
                }
                let mut full = prefix.clone();
                full.extend(tail);
                if full.len() >= len && !continuing.contains(&full) {
                    continuing.push(full);
                }
            }
        }
        let Some(shortest) = continuing.iter().map(Vec::len).min() else {
            return found;
        };
        continuing.retain(|s| s.len() == shortest);
        if shortest == len {
            found.sequences.retain(|s| !continuing.contains(s));
            continuing.append(&mut found.sequences);
        }
        // Else one ply longer: the shortest sequences contradict what the board showed (a
        // piece seen standing that they never put there, captured since); those that
        // continue the sight are the gap, and the clock reads them as it reads any.
        continuing.truncate(MAX_ALTERNATIVES);
        found.sequences = continuing;
        found
    }

    /// [`Self::search_gap`] without what was seen after the link came back: the
    /// sequences that start with the ply shown when the link went, when they are as short
    /// as any, or one ply longer with their later plies landing in the order the board
    /// saw; else the shortest. A shown ply whose piece then went on before the reply
    /// landed (d7-d6, d6-d5, then e3-e4) was a hand pausing on its way.
    fn search_gap_from_shown(
        &self,
        board: BoardId,
        target: &Board,
        turn: Option<Color>,
        max_plies: usize,
    ) -> GapSearch {
        let from = self.game.board(board);
        let any = search(&GapQuery {
            from,
            target,
            turn,
            max_plies,
            node_budget: self.config.gap_node_budget,
        });
        let shown = self.tracks[board].gap.as_ref().and_then(|g| g.shown);
        let Some(first) = shown.filter(|m| max_plies >= 1 && from.classify(m).is_legal()) else {
            return any;
        };
        let shortest = any.sequences.first().map(Vec::len);
        let mut after = from.clone();
        after.play(&first);
        let mut found = search(&GapQuery {
            from: &after,
            target,
            turn,
            max_plies: shortest.map_or(max_plies, |l| (l + 1).min(max_plies)) - 1,
            node_budget: self.config.gap_node_budget,
        });
        found.nodes += any.nodes;
        if let Some(shortest) = shortest {
            found.sequences.retain(|tail| {
                tail.len() + 1 == shortest
                    || (tail.len() == shortest && self.lands_in_order(board, &after, tail))
            });
        }
        if found.sequences.is_empty() {
            return GapSearch {
                nodes: found.nodes,
                ..any
            };
        }
        for s in &mut found.sequences {
            s.insert(0, first);
        }
        found
    }

    /// Whether `board` is in a link gap (down, or back but not bridged yet).
    pub(crate) fn in_gap(&self, board: BoardId) -> bool {
        self.tracks[board].gap.is_some()
    }

    /// A clock reading of a board back from a gap not bridged yet: the board and the
    /// clock may now explain it. `first`: the first reading after the resync snapshot
    /// (it starts the grace).
    pub(crate) fn gap_reading(
        &mut self,
        board: BoardId,
        at: BridgeAt,
        first: bool,
        out: &mut Vec<Inference>,
    ) {
        if !self.try_bridge(board, at, out)
            && first
            && let Some(gap) = &mut self.tracks[board].gap
        {
            gap.deadline
                .get_or_insert(at.end.t.saturating_add(self.config.press_grace_ms));
        }
    }

    /// The grace after the link came back ran out and nothing bridged the gap: unless
    /// the board shows a move in progress (reachable with the other side to move), it is
    /// alerted, once.
    pub(crate) fn gap_timer(&mut self, t: u64, board: BoardId, out: &mut Vec<Inference>) {
        let Some(gap) = &self.tracks[board].gap else {
            return;
        };
        if gap.alerted || gap.deadline.is_none_or(|d| d > t) {
            return;
        }
        let track = &self.tracks[board];
        let quiet = track.last_change.saturating_add(SETTLE_QUIET_MS);
        if quiet > t {
            // A hand is on the board (a piece lifted, a capture half done): what it shows
            // now is no position of the game. Judge it once it has been still a while.
            if let Some(gap) = &mut self.tracks[board].gap {
                gap.deadline = Some(quiet);
            }
            return;
        }
        let at = BridgeAt {
            end: ClockMark {
                t,
                readings: track.readings,
            },
            running: track.running,
            pressed: None,
            settle: true,
        };
        if self.try_bridge(board, at, out) {
            return;
        }
        let physical = self.tracks[board].physical;
        let found = self.search_gap(board, &physical, None, self.config.gap_max_plies);
        let grace = self.config.press_grace_ms;
        let Some(gap) = &mut self.tracks[board].gap else {
            return;
        };
        if !found.sequences.is_empty() {
            // Reachable, only the press is missing: it will come.
            gap.deadline = Some(t.saturating_add(grace));
            return;
        }
        gap.alerted = true;
        self.gap_stats.unbridged += 1;
        let squares: Vec<String> = matcher::diff(self.game.board(board), &physical)
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        let detail = format!(
            "board {board}: after the link came back the board matches no sequence of up to {} plies from the recorded position (squares {}); its moves are not recorded until it matches one or the arbiter fills the gap",
            self.config.gap_max_plies,
            squares.join(" ")
        );
        out.push(Inference::Alert(Alert::about_board(
            t,
            board,
            AlertCode::UnrecognizedPosition,
            detail,
        )));
    }

    /// Searches what explains the board now and commits it; `false` when nothing does.
    ///
    /// The shortest sequences are searched whatever side they leave to move; the clock
    /// then decides. When they leave the side whose clock runs to move, they are the
    /// gap. When they leave the other side to move, the board is one ply off: without a
    /// press, the mover has made his move but not pressed yet (wait for the press); at a
    /// press, the opponent has already made his next move (a premove), which is left to
    /// its own press.
    pub(crate) fn try_bridge(
        &mut self,
        board: BoardId,
        at: BridgeAt,
        out: &mut Vec<Inference>,
    ) -> bool {
        let track = &self.tracks[board];
        let Some(gap) = &track.gap else {
            return false;
        };
        if !gap.up || track.awaiting_snapshot {
            return false;
        }
        let physical = track.physical;
        let key = (physical, at.running);
        if gap.tried == Some(key) {
            return false;
        }
        let moving = at.pressed.is_none()
            && !at.settle
            && at.end.readings.is_some()
            && at.end.t < track.last_change.saturating_add(STILL_MS);
        if !moving && self.gap_grab_candidate(board).is_some() {
            // Koedem: the other board's promotion waits for a grab of a kind gone from
            // this board unseen; the grab explains that piece more simply than plies
            // that move it away to be captured.
            let grabbed = self.grab_from_gap(board, at.end.t, out);
            debug_assert!(grabbed);
        }
        let found = self.search_gap(board, &physical, None, self.config.gap_max_plies);
        if moving {
            // A hand may be on the board (a piece in the air at link-up is missing from
            // the snapshot, a capture half done): what it shows is judged at the next
            // press, or once it has been still. What explains it is remembered (a
            // promoted piece seen before it was taken). A board without a clock has no
            // press to wait for: its snapshot is judged as it comes.
            self.remember_seen(board, &found.sequences);
            return false;
        }
        if found.sequences.is_empty() && self.grab_from_gap(board, at.end.t, out) {
            // Koedem: a grab from this board during its gap explains a piece gone.
            return self.try_bridge(board, at, out);
        }
        let from = self.game.board(board);
        let mut sequences = found.sequences;
        let plies = sequences.first().map_or(0, Vec::len);
        let shows_turn = if plies.is_multiple_of(2) {
            from.turn()
        } else {
            from.turn().other()
        };
        let one_off = at.running.is_some_and(|r| r != shows_turn);
        if one_off {
            match at.pressed {
                Some(x) if plies >= 2 && shows_turn == x => {
                    // Each shortest explanation has a piece going out and coming back
                    // (h3g1 … g1h3): rarely the premove it would have to be. Sequences one
                    // ply longer that leave the running side to move, with no piece
                    // coming back, explain it without one.
                    // The reading of the premove: every ply but the last, the last
                    // pressed now. The clocks may rule it out (a clock that lost time
                    // in the gap ran, so its opponent pressed in it).
                    let popped: Vec<Vec<Move>> = {
                        let mut unique: Vec<Vec<Move>> = Vec::with_capacity(sequences.len());
                        for full in &sequences {
                            let s = full[..full.len() - 1].to_vec();
                            // A premove already on the board at link-up while the move it
                            // answers was still being made after it: no premove.
                            let answered_late = s
                                .last()
                                .is_some_and(|m| self.landed_after_link_up(board, m));
                            let premove_early = full
                                .last()
                                .is_some_and(|m| !self.landed_after_link_up(board, m));
                            let refused = unique.contains(&s) || (answered_late && premove_early);
                            if !refused
                                && self.clocks_allow_seq(board, &s, s.len().saturating_sub(1), at)
                            {
                                unique.push(s);
                            }
                        }
                        // The premove is the ply a hand was seen making after link-up,
                        // when one of them was.
                        let mut late: Vec<Vec<Move>> = Vec::new();
                        for s in &sequences {
                            let head = s[..s.len() - 1].to_vec();
                            if s.last()
                                .is_some_and(|m| self.landed_after_link_up(board, m))
                                && unique.contains(&head)
                                && !late.contains(&head)
                            {
                                late.push(head);
                            }
                        }
                        if late.is_empty() { unique } else { late }
                    };
                    let longer = if (popped.is_empty() || sequences.iter().all(|s| comes_back(s)))
                        && plies < self.config.gap_max_plies
                    {
                        let mut l = self.search_gap(board, &physical, at.running, plies + 1);
                        if l.exhausted || l.sequences.len() >= MAX_ALTERNATIVES {
                            // Not all of them are known: neither reading is safe. No guess;
                            // the next press or the end of the grace decides.
                            self.remember_seen(board, &sequences);
                            return false;
                        }
                        l.sequences.retain(|s| {
                            !comes_back(s) && self.clocks_allow_seq(board, s, s.len() - 1, at)
                        });
                        (!l.sequences.is_empty()).then_some(l.sequences)
                    } else {
                        None
                    };
                    if let Some(longer) = longer {
                        sequences = longer;
                    } else if popped.is_empty() {
                        // Nothing the clocks allow: the next press or the end of the
                        // grace decides.
                        self.remember_seen(board, &sequences);
                        return false;
                    } else {
                        sequences = popped;
                    }
                }
                // After the grace with no press: one ply more, leaving the running side
                // to move, is the gap when it supplies the other board's drops that
                // waited for it and the shorter plies do not (a drop taken at once, say).
                None if at.settle => {
                    let mut forced = self.search_gap(
                        board,
                        &physical,
                        at.running,
                        (plies + 1).min(self.config.gap_max_plies),
                    );
                    forced.sequences.retain(|s| !returns(s));
                    let most = |seqs: &[Vec<Move>]| {
                        seqs.iter()
                            .map(|s| self.supplied(board, s))
                            .max()
                            .unwrap_or(0)
                    };
                    if most(&forced.sequences) > most(&sequences) {
                        sequences = forced.sequences;
                    } else {
                        self.remember_seen(board, &sequences);
                        return false;
                    }
                }
                // A move made, its press still to come.
                _ => {
                    self.remember_seen(board, &sequences);
                    return false;
                }
            }
        }
        if sequences.is_empty() {
            if let Some(gap) = &mut self.tracks[board].gap {
                gap.tried = Some(key);
            }
            return false;
        }
        if at.pressed.is_none()
            && !at.settle
            && (sequences.iter().any(|s| returns(s))
                || (sequences.len() > 1
                    && !sequences.iter().all(|s| same_squares(s, &sequences[0]))))
        {
            // Explanations of a board seen between presses that move different squares
            // are often a move in progress (a piece in the hand) read as plies: the next
            // press or the end of the grace decides. (Orders of the same moves, or drops
            // of different pieces that were then taken, are a real ambiguity.)
            self.remember_seen(board, &sequences);
            return false;
        }
        if sequences.iter().any(Vec::is_empty) {
            // Nothing happened on the board meanwhile.
            self.close_gap(board, at.end, out);
            return true;
        }
        if !at.settle && self.leaves_drops_waiting(board, &sequences) {
            // The other board has drops waiting on this gap that none of these plies
            // supply: the board may be replaying its log of the outage (a DGT board that
            // stayed powered sends its logged changes and presses at link-up), whose
            // later plies supply them. The end of the grace, the board still, decides.
            self.remember_seen(board, &sequences);
            return false;
        }
        let best = self.most_plausible(board, &sequences);
        let chosen = sequences.swap_remove(best);
        let flags = MoveFlags {
            gap_inferred: true,
            gap_ambiguous: !sequences.is_empty(),
            ..MoveFlags::default()
        };
        let alternatives: Vec<Vec<String>> =
            sequences.iter().map(|s| self.sans_from(board, s)).collect();
        // Bridged between presses: the same board may be one ply longer, the running side's
        // move made but not pressed. The presses that follow tell (see `owed`).
        let longer = match at.running {
            Some(running) if at.pressed.is_none() && chosen.len() < self.config.gap_max_plies => {
                let k = chosen.len();
                let mut l = self.search_gap(board, &physical, Some(running.other()), k + 1);
                l.sequences.retain(|s| {
                    s.len() == k + 1 && !comes_back(s) && self.clocks_allow_seq(board, s, k, at)
                });
                l.sequences
            }
            _ => Vec::new(),
        };
        let times = self.gap_times(board, &chosen, at);
        self.commit_gap(board, &chosen, &times, flags, out);
        if at.pressed.is_none() {
            self.owe_last_presses(board);
            let track = &mut self.tracks[board];
            track.gap_longer = longer;
            track.owed_paid = None;
        }
        self.tracks[board].gap_alternatives = sequences;
        if !alternatives.is_empty() {
            self.alert_ambiguous(board, &chosen, &alternatives, at.end.t, out);
        }
        true
    }

    /// Whether `m` lands on a square the board showed otherwise at link-up (its hand was
    /// seen after the link came back).
    fn landed_after_link_up(&self, board: BoardId, m: &Move) -> bool {
        let track = &self.tracks[board];
        track
            .gap
            .as_ref()
            .and_then(|g| g.snapshot)
            .is_some_and(|snap| snap.piece_at(m.to()) != track.physical.piece_at(m.to()))
    }

    /// Whether the clocks allow `seq` from the committed position of `board`, its first
    /// `pressed` plies pressed inside the gap and the rest at its end or not yet.
    pub(crate) fn clocks_allow_seq(
        &self,
        board: BoardId,
        seq: &[Move],
        pressed: usize,
        at: BridgeAt,
    ) -> bool {
        let Some(gap) = &self.tracks[board].gap else {
            return true;
        };
        let movers = movers_of(self.game.board(board), seq);
        clocks_allow(&movers, pressed, gap.before, gap.before_running, at.end)
    }

    /// The press times of a sequence: from the clocks, the last one seen live when the
    /// gap ended with a press; never before the link dropped.
    pub(crate) fn gap_times(&self, board: BoardId, seq: &[Move], at: BridgeAt) -> Vec<PressTime> {
        let Some(gap) = &self.tracks[board].gap else {
            return Vec::new();
        };
        let movers = movers_of(self.game.board(board), seq);
        // Ended by a press, the side whose clock runs has only just started it.
        let running = if at.pressed.is_some() {
            None
        } else {
            at.running
        };
        let mut times = press_times(&movers, gap.before, at.end, running);
        if let (Some(x), Some(last)) = (at.pressed, times.last_mut())
            && movers.last() == Some(&x)
        {
            last.t = at.end.t;
            last.clock = at.end.readings.map(|r| r[x]);
            last.exact = at.end.readings.is_some();
        }
        for p in &mut times {
            p.t = p.t.clamp(gap.down_t.min(at.end.t), at.end.t);
        }
        times
    }

    /// The most plausible sequence: the one that supplies the most of the other board's
    /// pending drops, then one that continues the most of what the board was seen to show
    /// earlier in the gap (a promoted piece seen before it was taken, a move seen before
    /// the reply), then one with the most plies whose piece was seen put down, then the
    /// first found.
    fn most_plausible(&self, board: BoardId, sequences: &[Vec<Move>]) -> usize {
        let seen: &[Vec<Move>] = self.tracks[board]
            .gap
            .as_ref()
            .map_or(&[], |g| g.seen.as_slice());
        let mut best = (0, (0, 0, 0));
        for (i, seq) in sequences.iter().enumerate() {
            // The longest sight it continues: a later sight shows more of the gap's plies.
            let continues = seen
                .iter()
                .filter(|s| !s.is_empty() && seq.starts_with(s))
                .map(Vec::len)
                .max()
                .unwrap_or(0);
            let score = (
                self.supplied(board, seq),
                continues,
                self.sighted(board, seq),
            );
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }

    /// How many plies of `seq` put down a piece that the board was seen to show on that
    /// square since the last commit (a promoted piece read before the opponent's premove
    /// took it, in a replayed log).
    fn sighted(&self, board: BoardId, seq: &[Move]) -> usize {
        let lifts = &self.tracks[board].lifts;
        let mut pos = self.game.board(board).clone();
        seq.iter()
            .filter(|m| {
                pos.play(m);
                let landed = pos.board().piece_at(m.to());
                landed.is_some() && lifts.iter().any(|&(sq, p)| sq == m.to() && p == landed)
            })
            .count()
    }

    /// Whether the other board has drops pending on this gap that none of `sequences`
    /// supplies in full.
    fn leaves_drops_waiting(&self, board: BoardId, sequences: &[Vec<Move>]) -> bool {
        let waiting = self
            .record
            .iter()
            .filter(|e| e.board == board.other() && e.flags.gap_pending && e.mv.is_drop())
            .count();
        waiting > 0
            && sequences
                .iter()
                .map(|s| self.supplied(board, s))
                .max()
                .unwrap_or(0)
                < waiting
    }

    /// How many of the other board's drops pending on this gap `seq` supplies.
    fn supplied(&self, board: BoardId, seq: &[Move]) -> usize {
        let other = board.other();
        let mut need: Vec<Piece> = self
            .record
            .iter()
            .filter(|e| e.board == other && e.flags.gap_pending)
            .filter_map(|e| match e.mv {
                Move::Drop { piece, .. } => Some(piece),
                _ => None,
            })
            .collect();
        let wanted = need.len();
        if wanted == 0 {
            return 0;
        }
        let mut pos = self.game.board(board).clone();
        for m in seq {
            let mover = pos.mover(m);
            if let Some(c) = pos.play(m).captured {
                let got = c.handoff_role().of(mover.other());
                if let Some(k) = need.iter().position(|p| *p == got) {
                    need.swap_remove(k);
                }
            }
        }
        wanted - need.len()
    }

    /// Remembers what explained the board at a reading that did not bridge the gap.
    fn remember_seen(&mut self, board: BoardId, sequences: &[Vec<Move>]) {
        let Some(gap) = &mut self.tracks[board].gap else {
            return;
        };
        for s in sequences {
            if gap.seen.contains(s) {
                continue;
            }
            if gap.seen.len() >= MAX_SEEN {
                // The latest sights show the most of the gap: the oldest go first.
                gap.seen.remove(0);
            }
            gap.seen.push(s.clone());
        }
    }

    /// The SANs of a sequence from the board's committed position.
    pub(crate) fn sans_from(&self, board: BoardId, seq: &[Move]) -> Vec<String> {
        let mut pos = self.game.board(board).clone();
        seq.iter()
            .map(|m| {
                let s = san_string(&pos, m);
                pos.play(m);
                s
            })
            .collect()
    }

    fn alert_ambiguous(
        &mut self,
        board: BoardId,
        chosen: &[Move],
        alternatives: &[Vec<String>],
        t: u64,
        out: &mut Vec<Inference>,
    ) {
        self.gap_stats.ambiguous += 1;
        let Some(last) = self.tracks[board].last_gap else {
            return;
        };
        let recorded: Vec<String> = self
            .gap_entries(board, last)
            .map(|e| e.san.clone())
            .collect();
        let mut others: Vec<String> = alternatives
            .iter()
            .map(|a| format!("[{}]", a.join(" ")))
            .collect();
        if alternatives.len() + 1 >= MAX_ALTERNATIVES {
            // The search stops collecting there: say so rather than imply the list is all.
            others.push(format!(
                "and perhaps more (the search keeps the first {MAX_ALTERNATIVES} orders)"
            ));
        }
        out.push(Inference::Alert(Alert {
            t,
            board: Some(board),
            code: AlertCode::GapAmbiguous,
            reason: None,
            number: Some(last.number),
            side: Some(last.side),
            san: Some(recorded.join(" ")),
            detail: format!(
                "board {board}: the {} plies played while the link was down could have come in other orders; recorded [{}], also possible {}; the arbiter may pick one (fill) or replace a move",
                chosen.len(),
                recorded.join(" "),
                others.join(" ")
            ),
            choices: Vec::new(),
        }));
    }

    /// The record entries of a board's last bridged gap, in record order.
    pub(crate) fn gap_entries(
        &self,
        board: BoardId,
        last: LastGap,
    ) -> impl Iterator<Item = &RecordEntry> + '_ {
        let mut side = last.side;
        let mut number = last.number;
        let mut keys = Vec::with_capacity(last.plies);
        for _ in 0..last.plies {
            keys.push((side, number));
            if side == Color::Black {
                number += 1;
            }
            side = side.other();
        }
        self.record
            .iter()
            .filter(move |e| e.board == board && keys.contains(&(e.side, e.number)))
    }

    /// The snapshot after the link came back shows the board exactly as it was last seen
    /// before the link dropped (a move in progress included): nothing was missed up to
    /// now, so the gap closes at once and what follows is seen live. This is the case of a
    /// board that replays its own log of the outage (DGT boards that stayed powered): its
    /// logged field changes and presses then come as the sensor events they were, with
    /// their times, and need no reconstruction. Not while the other board has drops
    /// pending on this gap: the search settles those with what the board shows.
    pub(crate) fn gap_closes_as_left(&mut self, board: BoardId) -> bool {
        let pending = self
            .record
            .iter()
            .any(|e| e.flags.gap_pending && e.board == board.other());
        if pending {
            return false;
        }
        if matcher::diff(self.game.board(board), &self.tracks[board].physical).any() {
            // The board was left with a move on it, its press still to come: a board that
            // lost its power with the link shows the same after presses it made in the
            // gap, which only the clock and the search can tell.
            return false;
        }
        let track = &mut self.tracks[board];
        track.closed_as_left = track.gap.take();
        track.gap_check = false;
        true
    }

    /// The board shows the committed position again: the gap closes with no move.
    fn close_gap(&mut self, board: BoardId, end: ClockMark, out: &mut Vec<Inference>) {
        self.clockless_reset(board);
        let track = &mut self.tracks[board];
        track.gap = None;
        track.lifts.clear();
        if let Some(r) = end.readings {
            track.readings = Some(r);
        }
        self.settle_pending(board, out);
    }

    /// Commits the plies of a gap at their press times, in their place in the record,
    /// and settles the other board's pending drops.
    pub(crate) fn commit_gap(
        &mut self,
        board: BoardId,
        seq: &[Move],
        times: &[PressTime],
        flags: MoveFlags,
        out: &mut Vec<Inference>,
    ) {
        let gap = self.tracks[board].gap.take();
        let record_len = gap
            .as_ref()
            .map_or(self.record.len(), |g| g.record_len)
            .min(self.record.len());
        let physical = self.tracks[board].physical;
        let mut pos = self.game.board(board).clone();
        let mut entries = Vec::with_capacity(seq.len());
        let mut fens = Vec::with_capacity(seq.len());
        for (m, pt) in seq.iter().zip(times) {
            let mv = pos.normalize(m);
            let side = pos.mover(&mv);
            let track = &mut self.tracks[board];
            track.moves_made[side] = track.moves_made[side].saturating_add(1);
            let number = track.moves_made[side];
            let mut f = flags;
            f.time_estimated = !pt.exact;
            f.promotion_not_shown =
                mv.promotion().is_some() && physical.piece_at(mv.to()) == Some(Role::Pawn.of(side));
            entries.push(RecordEntry {
                board,
                side,
                number,
                mv,
                san: san_string(&pos, &mv),
                clock: pt.clock,
                t: pt.t,
                legality: Legality::Legal,
                flags: f,
                handoff: None,
            });
            pos.play(&mv);
            fens.push((write_board_fen(&pos, None), pt.clock, side));
        }
        self.tracks[board].gap_alternatives.clear();
        self.tracks[board].last_gap = entries.first().map(|e| LastGap {
            side: e.side,
            number: e.number,
            plies: entries.len(),
        });
        let keys: Vec<(Color, u32)> = entries.iter().map(|e| (e.side, e.number)).collect();
        let t_end = times.last().map_or(0, |p| p.t);
        self.merge_into_record(record_len, entries);
        // A Koedem promotion of the gap takes its grab from the other board like any other.
        let promotions: Vec<usize> = self
            .record
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.board == board && e.mv.promotion().is_some() && keys.contains(&(e.side, e.number))
            })
            .map(|(i, _)| i)
            .collect();
        for i in promotions {
            self.grab_on_commit(i, out);
        }
        self.gap_stats.bridged += 1;
        let track = &mut self.tracks[board];
        track.history.clear();
        track.takeback_alerted = false;
        track.pending = None;
        track.residual = matcher::diff(self.game.board(board), &track.physical);
        // What the board shows beyond the gap (a move made, a premove) stays in the log
        // of square readings: a piece put there and since captured by the opponent's
        // premove is still known.
        let residual = track.residual;
        track.lifts.retain(|&(sq, _)| residual.contains(sq));
        track.residual_board = track.physical;
        track.residual_touched = crate::rules::Bitboard::EMPTY;
        track.discrepancy_alerted = false;
        self.tracks[board.other()].history.clear();
        let other_fen = write_board_fen(self.game.board(board.other()), None);
        for (key, (fen, _, _)) in keys.iter().zip(fens) {
            let Some(entry) = self
                .record
                .iter()
                .find(|e| e.board == board && (e.side, e.number) == *key)
                .cloned()
            else {
                continue;
            };
            let bfen = match board {
                BoardId::A => format!("{fen} | {other_fen}"),
                BoardId::B => format!("{other_fen} | {fen}"),
            };
            out.push(Inference::Move { entry, bfen });
        }
        self.settle_pending(board, out);
        if let Some(end) = self.game.end()
            && !self.end_reported
        {
            self.end_reported = true;
            out.push(Inference::End {
                t: t_end,
                board: end.board,
                result: end.result,
                reason: Some(end.reason),
                detail: format!("board {board}: {} during a link gap", end.reason.code()),
            });
        }
        self.audit(t_end, Some(board), out);
        self.after_handoff(out);
    }

    /// Re-plays the record with the gap's plies merged in after `record_len`: by press
    /// time among the other board's moves since the gap opened, except that a drop never
    /// goes before the capture that supplies it. The other board's pending drops that the
    /// merge makes legal are settled.
    fn merge_into_record(&mut self, record_len: usize, gap: Vec<RecordEntry>) {
        let end = self.game.end();
        let mut base = std::mem::take(&mut self.record);
        let tail = base.split_off(record_len);
        self.game = self.start.clone();
        self.debts = Default::default();
        for mut e in base {
            e.handoff = self.apply(&e).1;
            self.record.push(e);
        }
        let mut g = gap.into_iter().peekable();
        let mut o = tail.into_iter().peekable();
        loop {
            let from_gap = match (g.peek(), o.peek()) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(a), Some(b)) => {
                    let by_time = a.t <= b.t;
                    let first = if by_time { a } else { b };
                    if self.waits_for_piece(first) {
                        !by_time
                    } else {
                        by_time
                    }
                }
            };
            let next = if from_gap { g.next() } else { o.next() };
            let Some(mut e) = next else {
                break;
            };
            if e.flags.gap_pending && self.game.board(e.board).classify(&e.mv).is_legal() {
                e.legality = Legality::Legal;
                e.flags.gap_pending = false;
            }
            e.handoff = self.apply(&e).1;
            self.record.push(e);
        }
        if let Some(end) = end
            && self.game.end().is_none()
        {
            self.game.record_end(end);
        }
    }

    /// A drop whose piece is not in hand at this point of the replay.
    fn waits_for_piece(&self, e: &RecordEntry) -> bool {
        e.mv.is_drop()
            && self.game.board(e.board).classify(&e.mv)
                == Legality::Illegal(IllegalReason::DropNotInHand)
    }

    /// After `board`'s gap closed: the other board's drops still pending on it were not
    /// supplied by it: premature (the debt stays until a capture settles it), alerted.
    fn settle_pending(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        for e in self.record.iter_mut() {
            if !e.flags.gap_pending || e.board != board.other() {
                continue;
            }
            e.flags.gap_pending = false;
            e.flags.premature = true;
            out.push(Inference::Alert(Alert::premature_drop(
                e.t,
                e,
                "the other board's gap did not supply",
            )));
        }
    }
}

/// Whether two sequences move the same squares (in any order, any pieces).
fn same_squares(a: &[Move], b: &[Move]) -> bool {
    let key = |s: &[Move]| {
        let mut k: Vec<(u8, u8)> = s
            .iter()
            .map(|m| {
                (
                    m.from().map_or(64, |f| f.index() as u8),
                    m.to().index() as u8,
                )
            })
            .collect();
        k.sort_unstable();
        k
    };
    key(a) == key(b)
}

/// Whether a piece moves back to a square its side's piece left earlier in the sequence
/// (a drop there is a new piece, not one coming back).
fn comes_back(seq: &[Move]) -> bool {
    lands_where_its_side_left(seq, |m| m.from().is_some())
}

/// Whether a piece comes back to a square its side left earlier in the sequence (a
/// piece in the hand at link-up is often explained so: wait for the press).
fn returns(seq: &[Move]) -> bool {
    lands_where_its_side_left(seq, |_| true)
}

/// Whether a later ply of the same side, among those `counts`, lands on a square that side
/// left earlier in `seq`.
fn lands_where_its_side_left(seq: &[Move], counts: impl Fn(&Move) -> bool) -> bool {
    seq.iter().enumerate().any(|(i, a)| {
        a.from().is_some_and(|from| {
            seq.iter()
                .skip(i + 2)
                .step_by(2)
                .any(|b| counts(b) && b.to() == from)
        })
    })
}

/// The ply of the side to move that the board showed when the link went: a move made on
/// the board whose press had not come. Either it alone turns `from` into what the board
/// shows, or it does together with the opponent's next move already made on the board (a
/// premove, played while the press was still to come); when several such pairs explain
/// the board, the ply is taken only if they all start with it.
fn shown_unpressed(from: &Position, shown: &Board) -> Option<Move> {
    if matcher::diff(from, shown).is_empty() {
        return None;
    }
    for (plies, turn) in [(1, from.turn().other()), (2, from.turn())] {
        let found = search(&GapQuery {
            from,
            target: shown,
            turn: Some(turn),
            max_plies: plies,
            node_budget: 10_000,
        });
        if found.exhausted {
            return None;
        }
        let firsts: Vec<Move> = found
            .sequences
            .iter()
            .filter_map(|s| s.first().copied())
            .collect();
        match firsts.split_first() {
            Some((first, rest)) if plies == 1 && rest.is_empty() => return Some(*first),
            Some((first, rest)) if plies == 2 && rest.iter().all(|m| m == first) => {
                return Some(*first);
            }
            Some(_) => return None,
            None => {}
        }
    }
    None
}

impl Inferrer {
    /// Whether the plies of `seq` from `from` that left their piece standing where the
    /// board now shows it were seen to land in their order (by the time each square last
    /// changed).
    fn lands_in_order(&self, board: BoardId, from: &Position, seq: &[Move]) -> bool {
        let track = &self.tracks[board];
        let mut pos = from.clone();
        let mut landed = Vec::with_capacity(seq.len());
        for (i, m) in seq.iter().enumerate() {
            pos.play(m);
            let piece = pos.board().piece_at(m.to());
            let touched_later = seq[i + 1..]
                .iter()
                .any(|n| n.to() == m.to() || n.from() == Some(m.to()));
            if !touched_later && piece.is_some() && track.physical.piece_at(m.to()) == piece {
                landed.push(track.square_t[m.to().index()]);
            }
        }
        landed.is_sorted()
    }
}

/// Whether `a` and `b` are the same plies in some order.
fn same_plies(a: &[Move], b: &[Move]) -> bool {
    a.len() == b.len() && a.iter().all(|m| b.contains(m)) && b.iter().all(|m| a.contains(m))
}

/// The position after `seq` from `from`, when every ply is legal in turn.
fn played(from: &Position, seq: &[Move]) -> Option<Position> {
    let mut pos = from.clone();
    for m in seq {
        if !pos.classify(m).is_legal() {
            return None;
        }
        pos.play(m);
    }
    Some(pos)
}

/// Who makes each ply of `seq` from `from`.
fn movers_of(from: &Position, seq: &[Move]) -> Vec<Color> {
    let mut pos = from.clone();
    seq.iter()
        .map(|m| {
            let c = pos.mover(m);
            pos.play(m);
            c
        })
        .collect()
}
