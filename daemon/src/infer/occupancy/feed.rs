//! [`OccupancyFeed`]: an occupancy-only board (Sentio) in front of the piece inference.
//!
//! The occupancy inference decides the moves; each final move is handed on as the square
//! readings a board that senses pieces would have given for it (lifts first, then puts), so
//! that the record, the BPGN, the broadcast and the clockless inference work as for any
//! board. What occupancy cannot tell is said, never hidden: a promotion's piece and a drop's
//! kind taken from several choices are one `kind-undetermined` alert each (the choices in
//! its detail), and a board whose occupancy two readings explain stops with an
//! `occupancy-stalled` alert, said again while it goes on being played only when it shows
//! readings not offered before ([`STALL_RETELL_MS`]); one is said, once, for a board that
//! has shown what no move explains for [`STILL_WAIT_MS`], resting or not. A kind settled
//! later (a dropped piece that then moves as only a knight can) is a [`Handed::Settled`]:
//! the record entry is corrected. The arbiter takes such a board up again by entering its
//! moves (`fill.rs`).

use crate::rules::{BoardId, BughouseGame, ByBoard, Move, Role, Ruleset, Square};

use super::super::event::SensorEvent;
use super::super::output::Inference;
use super::{KindNote, OccupancyInference, OccupancyMove, Resolution, SnapshotLog};

/// How long a board may show what no move explains, resting or not, before the arbiter hears
/// of it (ms): long enough for a hand holding a piece while its player thinks, and for a
/// move's noise to settle.
pub const STILL_WAIT_MS: u64 = 8_000;

/// How often a stalled board that goes on being played may be said again, with the readings
/// it showed since (ms): a piece put back that may have been a capture and a drop stalls
/// the board before its player makes the move he meant, which only the later snapshots
/// offer. The arbiter walking over sees the latest list; a board played on at bughouse pace
/// is not said at every move.
pub(super) const STALL_RETELL_MS: u64 = 3_000;

/// What the feed hands on to the piece inference, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Handed {
    /// A sensor reading at its time.
    Event(u64, SensorEvent),
    /// A move handed on earlier with a placeholder kind was `mv`: later moves settled it
    /// (or, `open`, showed it can only be another of its kinds, still undetermined).
    /// `ply` counts the board's moves handed on before it (0: its first).
    Settled {
        /// When it was settled (ms).
        t: u64,
        /// The board.
        board: BoardId,
        /// Which of the board's moves.
        ply: usize,
        /// The move it was.
        mv: Move,
        /// Its kind is still undetermined: `mv` carries another placeholder.
        open: bool,
    },
}

/// The occupancy inference of a table, turned into sensor events and alerts.
#[derive(Debug, Clone)]
pub struct OccupancyFeed {
    inf: OccupancyInference,
    /// The game as handed on (the placeholders of open kinds included), its drops handed
    /// on before their piece was in hand owing it as the record's do (see `owing.rs`).
    shown: owing::Owing,
    started: ByBoard<bool>,
    stall_told: ByBoard<bool>,
    /// When each stalled board was last said, and the choices said so far.
    stall_said: ByBoard<(u64, Vec<String>)>,
    /// The time of the last event handed on (they never go back).
    last_t: u64,
    /// How long a board must be still before the piece inference takes its move as final
    /// ([`crate::infer::InferConfig::stable_commit_ms`]).
    commit_ms: u64,
    /// The earliest time the next move of each board may be handed on: a move handed on
    /// sooner would be taken as part of the one before (a drop where the last move began
    /// would read as that piece put back).
    next_free: ByBoard<u64>,
    /// The game the moves handed on start from, and the moves, to play them again when a
    /// kind is settled or a placeholder changes (see `consistent.rs`).
    start: BughouseGame,
    handed: Vec<HandedMove>,
    /// Where the pieces of open kind those moves put down stand now.
    origins: Origins,
    /// When each board last changed, and whether its wait was said.
    changed: ByBoard<u64>,
    wait_told: ByBoard<bool>,
    /// The move withheld as a look-alike each board was last said to rest on (its time).
    withheld_told: ByBoard<Option<u64>>,
    /// Each board's snapshots since its last move handed on, read again once the arbiter
    /// enters its moves (see `fill.rs`).
    pub(super) log: SnapshotLog,
}

impl OccupancyFeed {
    /// A table whose boards stand as in `start`, handed on to a piece inference that takes
    /// a move as final once the board has been still `commit_ms`.
    #[must_use]
    pub fn new(start: BughouseGame, rules: Ruleset, commit_ms: u64) -> Self {
        OccupancyFeed {
            inf: OccupancyInference::from_game(start.clone(), rules),
            shown: owing::Owing::new(start.clone()),
            start,
            handed: Vec::new(),
            origins: Origins::default(),
            changed: ByBoard::default(),
            wait_told: ByBoard::default(),
            withheld_told: ByBoard::default(),
            started: ByBoard::default(),
            stall_told: ByBoard::default(),
            stall_said: ByBoard::default(),
            last_t: 0,
            commit_ms,
            next_free: ByBoard::default(),
            log: SnapshotLog::default(),
        }
    }

    /// A snapshot of `board` at `t` (bit = square index, a1 = bit 0): the events to feed
    /// the piece inference with their times, and the alerts. A move is handed on at the time
    /// the board first showed it (it became final later, when the next move began), so the
    /// piece inference sees the moves as far apart as they were made.
    pub fn feed(&mut self, board: BoardId, t: u64, occupied: u64) -> (Vec<Handed>, Vec<Inference>) {
        let mut events = Vec::new();
        if !self.started[board] {
            self.started[board] = true;
            self.last_t = self.last_t.max(t);
            events.push(Handed::Event(
                self.last_t,
                SensorEvent::Snapshot {
                    board,
                    placement: *self.shown.board(board).board(),
                },
            ));
        }
        self.changed[board] = t;
        self.log.push(board, t, occupied);
        let moves = self.inf.feed(board, t, occupied);
        let mut alerts = Vec::new();
        self.hand_on(&moves, t, &mut events, &mut alerts);
        let (more, said) = self.tick(t);
        events.extend(more);
        alerts.extend(said);
        (events, alerts)
    }

    /// Time passes (`t`): a piece lifted and held still long enough is judged (see
    /// [`OccupancyInference::tick`]: its capture is handed on once the next move begins, as
    /// any move); a board resting on its open move makes it final (see
    /// [`OccupancyInference::commit_at_rest`]: a game's last move has no move after it); a
    /// board that stalled is said once; a board that has shown what no move explains for
    /// [`STILL_WAIT_MS`] is alerted, once until it shows something explained.
    pub fn tick(&mut self, t: u64) -> (Vec<Handed>, Vec<Inference>) {
        self.inf.tick(t);
        let mut events = Vec::new();
        let mut alerts = Vec::new();
        // The last move of a game has no move after it: a board resting on it makes it
        // final.
        let rested = self.inf.commit_at_rest(t);
        self.hand_on(&rested, t, &mut events, &mut alerts);
        for b in BoardId::ALL {
            let Some(why) = self.inf.stalled(b).map(str::to_owned) else {
                continue;
            };
            let (said_at, _) = self.stall_said[b];
            if !self.stall_told[b] {
                self.stall_told[b] = true;
                let detail = format!(
                    "{why}; no more moves are taken from this board until the arbiter enters them"
                );
                self.say_stall(t, b, true, detail, &mut alerts);
            } else if self.changed[b] > said_at && t >= said_at + STALL_RETELL_MS {
                let detail = format!(
                    "{why}; said again with what the board showed since; no more moves are taken from this board until the arbiter enters them"
                );
                self.say_stall(t, b, false, detail, &mut alerts);
            }
        }
        for b in BoardId::ALL {
            let Some((emptied, filled)) = self.inf.waiting(b) else {
                self.wait_told[b] = false;
                continue;
            };
            // A board that goes on changing while no move explains it (its reading missed
            // a capture) is said as well as one that rests so.
            let since = self.inf.waiting_since(b).unwrap_or(self.changed[b]);
            if self.wait_told[b] || t < since + STILL_WAIT_MS {
                continue;
            }
            self.wait_told[b] = true;
            let list = |v: &[Square]| {
                if v.is_empty() {
                    "none".to_owned()
                } else {
                    v.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            let held = self
                .inf
                .held_choices(b)
                .map(|(from, to)| {
                    format!(
                        "; the piece from {from} may have been set straight onto a piece it took ({})",
                        to.iter().map(ToString::to_string).collect::<Vec<_>>().join(" or ")
                    )
                })
                .unwrap_or_default();
            let detail = format!(
                "board {b}: for {} s showing what no move explains (emptied: {}; filled: {}){held}; its moves are taken again once it shows one, or once the arbiter enters them (fill)",
                STILL_WAIT_MS / 1000,
                list(&emptied),
                list(&filled)
            );
            alerts.push(self.stall_alert(t, b, detail));
        }
        self.tell_withheld(t, &mut alerts);
        (events, alerts)
    }

    /// Says `board`'s stall at `t` with `detail`, its choices being what the board showed
    /// since its last move recorded: the `first` time, or again when the board showed
    /// readings not offered before (see [`STALL_RETELL_MS`]).
    fn say_stall(
        &mut self,
        t: u64,
        board: BoardId,
        first: bool,
        detail: String,
        alerts: &mut Vec<Inference>,
    ) {
        let alert = self.stall_alert(t, board, detail);
        let (said_at, said) = &mut self.stall_said[board];
        *said_at = t;
        let Inference::Alert(a) = &alert else {
            return;
        };
        let new: Vec<String> = a
            .choices
            .iter()
            .map(|c| c.label.clone())
            .filter(|l| !said.contains(l))
            .collect();
        if first || !new.is_empty() {
            said.extend(new);
            alerts.push(alert);
        }
    }

    /// The end of the input: the moves still open become final.
    pub fn finish(&mut self, t: u64) -> (Vec<Handed>, Vec<Inference>) {
        let moves = self.inf.finish();
        let (mut events, mut alerts) = (Vec::new(), Vec::new());
        self.hand_on(&moves, t, &mut events, &mut alerts);
        (events, alerts)
    }

    /// Whether `board` is read by occupancy and its moves are not read now: it stalled,
    /// shows what no move explains, or holds back a look-alike move. A capture it made
    /// meanwhile may supply the partner board's drops (see [`crate::infer::Inferrer::set_unread`]).
    #[must_use]
    pub fn unread(&self, board: BoardId) -> bool {
        self.started[board] && self.inf.needs_arbiter(board)
    }

    /// The moves handed on of each board that put down a piece of open kind, each counted
    /// from the board's first move, with the kinds its piece may be. A mate found with
    /// such a piece on the board is unsure (see [`crate::infer::Inferrer::set_open_kinds`]).
    #[must_use]
    pub fn open_kinds(&self) -> ByBoard<crate::infer::OpenPlies> {
        let mut plies = ByBoard::<crate::infer::OpenPlies>::default();
        let mut count = ByBoard::new_with(|_| 0usize);
        for h in &self.handed {
            if h.is_open() {
                plies[h.board].push((count[h.board], h.kinds.clone()));
            }
            count[h.board] += 1;
        }
        plies
    }

    /// The time of the last event handed on (ms).
    #[must_use]
    pub const fn handed_until(&self) -> u64 {
        self.last_t
    }

    /// Hands on `moves` the inference decided: the snapshots before each are read no more.
    fn hand_on(
        &mut self,
        moves: &[OccupancyMove],
        t: u64,
        events: &mut Vec<Handed>,
        alerts: &mut Vec<Inference>,
    ) {
        for m in moves {
            self.log.handed_on(m.board, m.t);
        }
        self.hand_on_as_made(moves, t, events, alerts);
    }

    /// Hands on `moves` (decided, or entered by the arbiter) as the sensor events of a
    /// board that senses pieces, with their alerts.
    pub(super) fn hand_on_as_made(
        &mut self,
        moves: &[OccupancyMove],
        t: u64,
        events: &mut Vec<Handed>,
        alerts: &mut Vec<Inference>,
    ) {
        let mut moves = moves.to_vec();
        let mut indebted = Vec::new();
        // A kind settled for a move handed on before is said after the moves handed on now,
        // which are older than now: the piece inference sees times in order.
        let mut handed_before = Vec::new();
        for r in self.inf.take_resolutions() {
            if !settle_pending(&r, &mut moves) {
                handed_before.push(r);
            }
        }
        for m in &mut moves {
            let mut at = self.last_t.max(m.t).max(self.next_free[m.board]);
            // The record stays a game readers can play: the move fits its placeholders.
            events.extend(self.fit(m, &mut at));
            self.last_t = at;
            // The piece inference makes a move final once the board is still for
            // `commit_ms`, an illegal one (a placeholder's check, say) after twice that:
            // the next move handed on sooner would be read with it, in whatever order
            // makes both legal (random 39 of the clicks: a drop and the move after it
            // swapped).
            let patience = if self.shown.classify(m.board, &m.mv).is_legal() {
                1
            } else {
                crate::infer::clockless::ILLEGAL_PATIENCE
            };
            self.next_free[m.board] = at + patience * self.commit_ms + 1;
            if let Some(detail) = undetermined(m) {
                alerts.push(self.kind_alert(m, self.handed.len(), t, detail));
            }
            let before = *self.shown.board(m.board).board();
            let side = self.shown.board(m.board).mover(&m.mv);
            let dropper = crate::rules::Seat {
                board: m.board,
                color: side,
            };
            let owed_before = self.shown.owes(dropper);
            let outcome = self.shown.play(m.board, &m.mv, m.t);
            if let Some((seat, _)) = outcome.handoff
                && self.shown.owes(seat) > 0
                && !indebted.contains(&seat)
            {
                indebted.push(seat);
            }
            // A drop of a kind known (the arbiter's, say) that the hand lacked: an earlier
            // placeholder of that seat may hold its piece, and another kind of its own that
            // a capture supplies frees it (random 262 of the clicks: `B@a2`, a pawn, held
            // the bishop of `7... B@d8`, alerted premature before a later capture's search).
            if matches!(m.note, KindNote::Exact)
                && self.shown.owes(dropper) > owed_before
                && !indebted.contains(&dropper)
            {
                indebted.push(dropper);
            }
            let h = HandedMove {
                board: m.board,
                side,
                mv: m.mv,
                t: m.t,
                at,
                kinds: HandedMove::open_kinds(m, &self.start),
            };
            self.origins.played(self.handed.len(), &h);
            self.handed.push(h);
            let after = *self.shown.board(m.board).board();
            for sq in Square::ALL {
                if before.piece_at(sq).is_some() && after.piece_at(sq).is_none() {
                    events.push(Handed::Event(
                        at,
                        SensorEvent::Square {
                            board: m.board,
                            sq,
                            piece: None,
                        },
                    ));
                }
            }
            for sq in Square::ALL {
                let now = after.piece_at(sq);
                if now.is_some() && now != before.piece_at(sq) {
                    events.push(Handed::Event(
                        at,
                        SensorEvent::Square {
                            board: m.board,
                            sq,
                            piece: now,
                        },
                    ));
                }
            }
        }
        for r in handed_before {
            self.settle(r, t, events);
        }
        // A capture filled the hand of a seat owing a piece: its placeholders may be
        // what it supplied (see `debts.rs`).
        for seat in indebted {
            events.extend(self.settle_debts(seat, t));
        }
    }
}

/// A kind settled for a move still to be handed on (`pending`): corrected in place.
/// Returns whether it was one.
fn settle_pending(r: &Resolution, pending: &mut [OccupancyMove]) -> bool {
    let Some(m) = pending
        .iter_mut()
        .find(|m| m.board == r.board && m.t == r.t)
    else {
        return false;
    };
    if let Some(mv) = with_role(&m.mv, r.role) {
        m.mv = mv;
        m.note = if r.open.is_empty() {
            KindNote::Exact
        } else if mv.is_drop() {
            KindNote::DropUndetermined {
                choices: r.open.clone(),
            }
        } else {
            KindNote::PromotionAssumed {
                choices: r.open.clone(),
            }
        };
    }
    true
}

impl OccupancyFeed {
    /// A kind settled for a move handed on: it is played again with its kind and corrected
    /// in the record.
    fn settle(&mut self, r: Resolution, t: u64, events: &mut Vec<Handed>) {
        let Some(i) = self
            .handed
            .iter()
            .rposition(|h| h.board == r.board && h.t == r.t)
        else {
            return;
        };
        let Some(mv) = with_role(&self.handed[i].mv, r.role) else {
            return;
        };
        self.handed[i].mv = mv;
        self.handed[i].kinds.clone_from(&r.open);
        let ply = self.handed[..i]
            .iter()
            .filter(|h| h.board == r.board)
            .count();
        events.push(Handed::Settled {
            t,
            board: r.board,
            ply,
            mv,
            open: !r.open.is_empty(),
        });
        events.extend(self.replay_handed(t));
        // Another placeholder may have been that kind's (two drops of a pawn and a
        // knight: the knight's settled, the other is the pawn).
        events.extend(self.mend(t));
    }
}

impl OccupancyFeed {
    /// The game as handed on, played again from the start (a move handed on was
    /// corrected): the squares whose piece changed kind are handed on as read again (at
    /// `t` or later), so that what the piece inference sees stays the game it records.
    fn replay_handed(&mut self, t: u64) -> Vec<Handed> {
        let before = self.shown.clone();
        self.shown = consistent::replay(&self.start, &mut self.handed).0;
        let at = self.last_t.max(t);
        self.last_t = at;
        let mut events = Vec::new();
        for board in BoardId::ALL {
            let (old, new) = (before.board(board).board(), self.shown.board(board).board());
            for sq in Square::ALL {
                let piece = new.piece_at(sq);
                if piece != old.piece_at(sq) {
                    events.push(Handed::Event(at, SensorEvent::Square { board, sq, piece }));
                }
            }
        }
        events
    }
}

/// `mv` (a drop or a promotion) with its kind `role`.
fn with_role(mv: &Move, role: Role) -> Option<Move> {
    match *mv {
        Move::Drop { piece, to } => Some(Move::Drop {
            piece: crate::rules::Piece {
                color: piece.color,
                role,
            },
            to,
        }),
        Move::Normal {
            role: r,
            from,
            capture,
            to,
            promotion: Some(_),
        } => Some(Move::Normal {
            role: r,
            from,
            capture,
            to,
            promotion: Some(role),
        }),
        _ => None,
    }
}

fn names(choices: &[Role]) -> String {
    choices
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the arbiter must say about `m`, if anything.
fn undetermined(m: &OccupancyMove) -> Option<String> {
    let b = m.board;
    match (&m.note, m.mv) {
        (KindNote::Exact, _) => None,
        (KindNote::DropUndetermined { choices }, Move::Drop { piece, to }) => Some(format!(
            "board {b}: the piece dropped on {to} may be a {}: the board senses only occupancy \
             (recorded as a {} until the arbiter says)",
            names(choices),
            piece.role
        )),
        (KindNote::PromotionAssumed { choices }, mv) => Some(format!(
            "board {b}: the pawn promoting on {} may have become a {}: recorded as the \
             ruleset's default until the arbiter says",
            mv.to(),
            names(choices)
        )),
        (KindNote::PieceOpen { choices }, mv) => Some(format!(
            "board {b}: the piece moved to {} may be a {}: its kind was never determined",
            mv.to(),
            names(choices)
        )),
        (KindNote::DropUndetermined { choices }, mv) => Some(format!(
            "board {b}: the move to {} may be made by a {}",
            mv.to(),
            names(choices)
        )),
    }
}

mod choices;
mod consistent;
mod debts;
mod fill;
mod kind_statement;
mod owing;
mod stall_choices;
#[cfg(test)]
mod test_support;
mod withheld;

use choices::Origins;
use consistent::HandedMove;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RulesetName;

    #[test]
    fn the_last_move_of_a_game_is_handed_on_once_the_board_rests_on_it() {
        let rules = RulesetName::Fide.ruleset();
        let start = BughouseGame::new(rules);
        let mut feed = OccupancyFeed::new(start.clone(), rules, 800);
        let occupied = |game: &BughouseGame| game.board(BoardId::A).board().occupied().0;
        let e2: Square = "e2".parse().expect("square");
        let e4: Square = "e4".parse().expect("square");
        let lifted = occupied(&start) & !(1u64 << e2.index());
        feed.feed(BoardId::A, 1_000, lifted);
        let (events, _) = feed.feed(BoardId::A, 1_300, lifted | (1u64 << e4.index()));
        let moved = |events: &[Handed]| {
            events.iter().any(|e| {
                matches!(e, Handed::Event(_, SensorEvent::Square { sq, piece: Some(_), .. }) if *sq == e4)
            })
        };
        assert!(!moved(&events), "open until the board goes on or rests");
        let (events, _) = feed.tick(2_000);
        assert!(!moved(&events), "a hand may still be at work");
        let (events, _) = feed.tick(4_500);
        assert!(moved(&events), "{events:?}");
        let (events, _) = feed.tick(9_000);
        assert!(!moved(&events), "handed on once");
    }
}
