//! [`OccupancyFeed`]: an occupancy-only board (Sentio) in front of the piece inference.
//!
//! The occupancy inference decides the moves; each final move is handed on as the square
//! readings a board that senses pieces would have given for it (lifts first, then puts), so
//! that the record, the BPGN, the broadcast and the clockless inference work as for any
//! board. What occupancy cannot tell is said, never hidden: a promotion's piece and a drop's
//! kind taken from several choices are one `kind-undetermined` alert each (the choices in
//! its detail), and a board whose occupancy two readings explain stops with one
//! `occupancy-stalled` alert.

use crate::rules::{BoardId, BughouseGame, ByBoard, Move, Role, Ruleset, Square};

use super::super::event::SensorEvent;
use super::super::output::{Alert, AlertCode, Inference};
use super::{KindNote, OccupancyInference, OccupancyMove};

/// The occupancy inference of a table, turned into sensor events and alerts.
#[derive(Debug, Clone)]
pub struct OccupancyFeed {
    inf: OccupancyInference,
    /// The game as handed on (the placeholders of open kinds included).
    shown: BughouseGame,
    started: ByBoard<bool>,
    stall_told: ByBoard<bool>,
    /// The time of the last event handed on (they never go back).
    last_t: u64,
    /// How long a board must be still before the piece inference takes its move as final
    /// ([`crate::infer::InferConfig::stable_commit_ms`]).
    commit_ms: u64,
    /// The earliest time the next move of each board may be handed on: a move handed on
    /// sooner would be taken as part of the one before (a drop where the last move began
    /// would read as that piece put back).
    next_free: ByBoard<u64>,
}

impl OccupancyFeed {
    /// A table whose boards stand as in `start`, handed on to a piece inference that takes
    /// a move as final once the board has been still `commit_ms`.
    #[must_use]
    pub fn new(start: BughouseGame, rules: Ruleset, commit_ms: u64) -> Self {
        OccupancyFeed {
            inf: OccupancyInference::from_game(start.clone(), rules),
            shown: start,
            started: ByBoard::default(),
            stall_told: ByBoard::default(),
            last_t: 0,
            commit_ms,
            next_free: ByBoard::default(),
        }
    }

    /// A snapshot of `board` at `t` (bit = square index, a1 = bit 0): the events to feed
    /// the piece inference with their times, and the alerts. A move is handed on at the time
    /// the board first showed it (it became final later, when the next move began), so the
    /// piece inference sees the moves as far apart as they were made.
    pub fn feed(
        &mut self,
        board: BoardId,
        t: u64,
        occupied: u64,
    ) -> (Vec<(u64, SensorEvent)>, Vec<Inference>) {
        let mut events = Vec::new();
        if !self.started[board] {
            self.started[board] = true;
            self.last_t = self.last_t.max(t);
            events.push((
                self.last_t,
                SensorEvent::Snapshot {
                    board,
                    placement: *self.shown.board(board).board(),
                },
            ));
        }
        let moves = self.inf.feed(board, t, occupied);
        let mut alerts = Vec::new();
        self.hand_on(&moves, t, &mut events, &mut alerts);
        for b in BoardId::ALL {
            if !self.stall_told[b]
                && let Some(why) = self.inf.stalled(b)
            {
                self.stall_told[b] = true;
                alerts.push(alert(
                    t,
                    b,
                    AlertCode::OccupancyStalled,
                    format!("{why}; no more moves are taken from this board until the arbiter enters them"),
                ));
            }
        }
        (events, alerts)
    }

    /// The end of the input: the moves still open become final.
    pub fn finish(&mut self, t: u64) -> (Vec<(u64, SensorEvent)>, Vec<Inference>) {
        let moves = self.inf.finish();
        let (mut events, mut alerts) = (Vec::new(), Vec::new());
        self.hand_on(&moves, t, &mut events, &mut alerts);
        (events, alerts)
    }

    fn hand_on(
        &mut self,
        moves: &[OccupancyMove],
        t: u64,
        events: &mut Vec<(u64, SensorEvent)>,
        alerts: &mut Vec<Inference>,
    ) {
        for m in moves {
            self.last_t = self.last_t.max(m.t).max(self.next_free[m.board]);
            let at = self.last_t;
            self.next_free[m.board] = at + self.commit_ms + 1;
            let before = *self.shown.board(m.board).board();
            self.shown.play(m.board, &m.mv, m.t);
            let after = *self.shown.board(m.board).board();
            for sq in Square::ALL {
                if before.piece_at(sq).is_some() && after.piece_at(sq).is_none() {
                    events.push((
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
                    events.push((
                        at,
                        SensorEvent::Square {
                            board: m.board,
                            sq,
                            piece: now,
                        },
                    ));
                }
            }
            if let Some(detail) = undetermined(m) {
                alerts.push(alert(t, m.board, AlertCode::KindUndetermined, detail));
            }
        }
    }
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn names(choices: &[Role]) -> String {
    choices
        .iter()
        .map(|&r| role_name(r))
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
            role_name(piece.role)
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

fn alert(t: u64, board: BoardId, code: AlertCode, detail: String) -> Inference {
    Inference::Alert(Alert {
        t,
        board: Some(board),
        code,
        reason: None,
        number: None,
        side: None,
        san: None,
        detail,
    })
}
