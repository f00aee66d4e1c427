//! What the board shows, and which way round it sits.
//!
//! Raw readings arrive in the board's own frame. [`BoardTracker`] keeps the raw placement,
//! decides the orientation (from configuration, or — with [`Orientation::Auto`] — from the
//! start position, seen either way round, or picochess's half-board piece count), and emits
//! events in the normal frame. Until an automatic decision is made the board is taken as
//! normal; when the decision turns out "rotated", a fresh `board` snapshot is emitted so that
//! everything after it is in the right frame. The decision is kept across reconnects.

use crate::trace::{BoardId, Placement, SensorPiece, Square, TraceEvent};

/// How a board is turned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Orientation {
    /// Detect from the start position (or the half-board count) in the readings.
    #[default]
    Auto,
    /// White at the end the protocol calls rank 1.
    Normal,
    /// The board is turned 180°.
    Rotated,
}

/// Tracks one board's placement and orientation; emits sensor events.
#[derive(Debug, Clone)]
pub(crate) struct BoardTracker {
    board: BoardId,
    rotated: Option<bool>,
    raw: Placement,
    emitted: Option<Placement>,
}

impl BoardTracker {
    pub(crate) fn new(board: BoardId, orientation: Orientation) -> Self {
        let rotated = match orientation {
            Orientation::Auto => None,
            Orientation::Normal => Some(false),
            Orientation::Rotated => Some(true),
        };
        BoardTracker {
            board,
            rotated,
            raw: Placement::empty(),
            emitted: None,
        }
    }

    /// True when the board is (known or taken to be) turned.
    pub(crate) fn is_rotated(&self) -> bool {
        self.rotated == Some(true)
    }

    /// The last reading, in the board's own frame.
    pub(crate) fn raw(&self) -> Placement {
        self.raw
    }

    /// A square between the normal frame and the board's own frame (either way).
    pub(crate) fn flip(&self, sq: Square) -> Square {
        if self.is_rotated() { sq.rotated() } else { sq }
    }

    fn normal(&self) -> Placement {
        if self.is_rotated() {
            self.raw.rotated()
        } else {
            self.raw
        }
    }

    fn decide(&mut self) -> bool {
        if self.rotated.is_some() {
            return false;
        }
        let start = Placement::start();
        let decision = if self.raw == start {
            Some(false)
        } else if self.raw == start.rotated() {
            Some(true)
        } else {
            half_board_guess(&self.raw)
        };
        match decision {
            Some(r) => {
                tracing::info!(board = %self.board, rotated = r, "board orientation decided");
                self.rotated = Some(r);
                r
            }
            None => false,
        }
    }

    /// A full reading. `force` emits a `board` event even when nothing changed (after
    /// (re)connecting); otherwise changes come out as `square` events.
    pub(crate) fn full(&mut self, raw: Placement, force: bool, out: &mut Vec<TraceEvent>) {
        self.full_in_order(raw, force, false, out);
    }

    /// As [`BoardTracker::full`]; with `lifts_first` the changes of one reading come out as
    /// a hand makes them: squares emptied first, then pieces replaced, then pieces put down
    /// (a board that reports seldom shows a whole move in one reading: the mover's square
    /// must not empty after the piece arrived).
    pub(crate) fn full_in_order(
        &mut self,
        raw: Placement,
        force: bool,
        lifts_first: bool,
        out: &mut Vec<TraceEvent>,
    ) {
        self.raw = raw;
        self.decide();
        let now = self.normal();
        match self.emitted {
            Some(prev) if !force => {
                let mut changes: Vec<_> = now.diff(&prev).collect();
                if lifts_first {
                    changes.sort_by_key(|&(sq, piece)| (piece.is_some(), prev.get(sq).is_none()));
                }
                for (sq, piece) in changes {
                    out.push(TraceEvent::Square {
                        board: self.board,
                        sq,
                        piece,
                    });
                }
            }
            _ => out.push(TraceEvent::Board {
                board: self.board,
                placement: now,
            }),
        }
        self.emitted = Some(now);
    }

    /// One square of the board's own frame changed.
    pub(crate) fn update(
        &mut self,
        raw_sq: Square,
        piece: Option<SensorPiece>,
        out: &mut Vec<TraceEvent>,
    ) {
        self.raw.set(raw_sq, piece);
        if self.decide() {
            let now = self.normal();
            out.push(TraceEvent::Board {
                board: self.board,
                placement: now,
            });
            self.emitted = Some(now);
            return;
        }
        let sq = self.flip(raw_sq);
        let Some(emitted) = self.emitted.as_mut() else {
            return;
        };
        if emitted.get(sq) != piece {
            emitted.set(sq, piece);
            out.push(TraceEvent::Square {
                board: self.board,
                sq,
                piece,
            });
        }
    }
}

/// picochess's rule: more than 10 white pieces on ranks 5–8 and more than 10 black ones on
/// ranks 1–4 means turned; the mirror image means normal.
fn half_board_guess(p: &Placement) -> Option<bool> {
    let (mut white_top, mut black_bottom, mut white_bottom, mut black_top) = (0, 0, 0, 0);
    for sq in Square::all() {
        if let Some(piece) = p.get(sq) {
            let top = sq.rank() >= 4;
            match (piece.is_white(), top) {
                (true, true) => white_top += 1,
                (true, false) => white_bottom += 1,
                (false, true) => black_top += 1,
                (false, false) => black_bottom += 1,
            }
        }
    }
    if white_top > 10 && black_bottom > 10 {
        Some(true)
    } else if white_bottom > 10 && black_top > 10 {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::from_name(s).expect("square")
    }

    #[test]
    fn rotated_start_is_recognised_and_updates_are_turned() {
        let mut t = BoardTracker::new(BoardId::A, Orientation::Auto);
        let mut ev = Vec::new();
        t.full(Placement::start().rotated(), true, &mut ev);
        assert_eq!(
            ev,
            vec![TraceEvent::Board {
                board: BoardId::A,
                placement: Placement::start()
            }]
        );
        ev.clear();
        // The board's own e2 lies where the normal frame has d7.
        t.update(sq("d7"), None, &mut ev);
        assert_eq!(
            ev,
            vec![TraceEvent::Square {
                board: BoardId::A,
                sq: sq("e2"),
                piece: None
            }]
        );
    }

    #[test]
    fn undecided_board_is_resent_when_it_turns_out_rotated() {
        let mut t = BoardTracker::new(BoardId::B, Orientation::Auto);
        let mut ev = Vec::new();
        // A turned board with six white pawns lifted: too few pieces to decide.
        let mut raw = Placement::start().rotated();
        let lifted: Vec<Square> = ["a2", "b2", "c2", "d2", "e2", "f2"]
            .iter()
            .map(|s| sq(s).rotated())
            .collect();
        for &l in &lifted {
            raw.set(l, None);
        }
        t.full(raw, true, &mut ev);
        assert_eq!(
            ev,
            vec![TraceEvent::Board {
                board: BoardId::B,
                placement: raw
            }]
        );
        ev.clear();
        // Putting one back makes 11 white pieces on the far half: turned.
        let pawn = SensorPiece::from_char('P');
        t.update(lifted[0], pawn, &mut ev);
        raw.set(lifted[0], pawn);
        assert_eq!(
            ev,
            vec![TraceEvent::Board {
                board: BoardId::B,
                placement: raw.rotated()
            }]
        );
        ev.clear();
        t.update(lifted[1], pawn, &mut ev);
        assert_eq!(
            ev,
            vec![TraceEvent::Square {
                board: BoardId::B,
                sq: sq("b2"),
                piece: pawn
            }]
        );
    }

    #[test]
    fn forced_orientation_is_kept() {
        let mut t = BoardTracker::new(BoardId::A, Orientation::Normal);
        let mut ev = Vec::new();
        t.full(Placement::start().rotated(), true, &mut ev);
        assert_eq!(
            ev,
            vec![TraceEvent::Board {
                board: BoardId::A,
                placement: Placement::start().rotated()
            }]
        );
    }
}
