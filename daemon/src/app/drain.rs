//! When everything the emulated boards played has been heard.
//!
//! An emulator has "played its trace" once it has written its last bytes to the pty; the
//! session still has to read them and the table to take the events. The daemon that stops
//! when the boards have played (`demo --loops`) stops once each emulated board, as the
//! sessions reported it, shows what its trace ends with: the same placement and the same
//! clock side running. Those events went through the table before the check, so every
//! move they complete has been decided and recorded.

use bugbridge_drivers::trace::{BoardId, Placement, Side, TraceEvent, TraceLine};

/// What a board shows last: its placement and which clock runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Last {
    placement: Option<Placement>,
    running: Option<Option<Side>>,
}

impl Last {
    fn note(&mut self, ev: &TraceEvent) {
        match ev {
            TraceEvent::Board { placement, .. } => self.placement = Some(*placement),
            TraceEvent::Square { sq, piece, .. } => {
                if let Some(p) = &mut self.placement {
                    p.set(*sq, *piece);
                }
            }
            TraceEvent::Clock { running, .. } => self.running = Some(*running),
            _ => {}
        }
    }
}

fn index(b: BoardId) -> usize {
    usize::from(b == BoardId::B)
}

/// The emulated boards' last state against what the sessions reported.
#[derive(Debug, Default)]
pub(crate) struct Drain {
    /// Each emulated board and how its trace ends.
    want: Vec<(BoardId, Last)>,
    /// What the sessions reported, per board.
    seen: [Last; 2],
}

impl Drain {
    /// Expects `board` to end as its events in `trace` do (only the events an emulator
    /// plays: snapshots, squares and, with a clock, clock readings).
    pub(crate) fn expect(&mut self, board: BoardId, trace: &[TraceLine], clock: bool) {
        let mut last = Last::default();
        for line in trace.iter().filter(|l| l.event.board() == Some(board)) {
            if clock || !matches!(line.event, TraceEvent::Clock { .. }) {
                last.note(&line.event);
            }
        }
        self.want.push((board, last));
    }

    /// An event a session reported.
    pub(crate) fn note(&mut self, ev: &TraceEvent) {
        if let Some(b) = ev.board() {
            self.seen[index(b)].note(ev);
        }
    }

    /// Whether every emulated board was last reported as its trace ends.
    pub(crate) fn done(&self) -> bool {
        self.want.iter().all(|(b, want)| {
            let seen = &self.seen[index(*b)];
            seen.placement == want.placement
                && (want.running.is_none() || seen.running == want.running)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bugbridge_drivers::trace::{SensorPiece, Square};

    fn line(t: u64, event: TraceEvent) -> TraceLine {
        TraceLine { t, event }
    }

    #[test]
    fn done_once_each_board_was_reported_as_its_trace_ends() {
        let e2 = Square::from_name("e2").unwrap();
        let e4 = Square::from_name("e4").unwrap();
        let clock = |board, running| TraceEvent::Clock {
            board,
            white: 180.0,
            black: 180.0,
            running,
        };
        let start = |board| TraceEvent::Board {
            board,
            placement: Placement::start(),
        };
        let lift = TraceEvent::Square {
            board: BoardId::A,
            sq: e2,
            piece: None,
        };
        let put = TraceEvent::Square {
            board: BoardId::A,
            sq: e4,
            piece: SensorPiece::from_char('P'),
        };
        let trace = vec![
            line(0, start(BoardId::A)),
            line(0, start(BoardId::B)),
            line(0, clock(BoardId::A, Some(Side::White))),
            line(0, clock(BoardId::B, Some(Side::White))),
            line(900, lift.clone()),
            line(1000, put.clone()),
            line(1100, clock(BoardId::A, Some(Side::Black))),
        ];
        let mut drain = Drain::default();
        drain.expect(BoardId::A, &trace, true);
        drain.expect(BoardId::B, &trace, true);
        assert!(!drain.done(), "nothing heard yet");
        for ev in [
            start(BoardId::A),
            start(BoardId::B),
            clock(BoardId::A, Some(Side::White)),
            clock(BoardId::B, Some(Side::White)),
            lift,
            put,
        ] {
            drain.note(&ev);
            assert!(!drain.done(), "the press is still to come");
        }
        drain.note(&clock(BoardId::A, Some(Side::Black)));
        assert!(drain.done());
        // A later reading that changes the board (a piece knocked) is not the end.
        drain.note(&TraceEvent::Square {
            board: BoardId::B,
            sq: e2,
            piece: None,
        });
        assert!(!drain.done());
    }
}
