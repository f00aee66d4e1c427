//! From DGT clock readings to `clock` events.
//!
//! Sides are mapped to colours by `white_side`. A reading is emitted when the running side
//! changes (a press) or the times change (periodic readings). As picochess does, a reading
//! whose time went *up* is not passed on: a rise of more than an hour is thrown away, a
//! smaller one only becomes the new reference. A press is always passed on (an increment
//! makes the mover's time rise), unless the rise exceeds an hour. All-zero, invalid and
//! "no clock" readings never reach this tracker.

use crate::dgt::{ClockSide, ClockTimes, SideTime};
use crate::trace::{BoardId, Side, TraceEvent};

#[derive(Debug, Clone)]
pub(crate) struct ClockTracker {
    board: BoardId,
    white_side: ClockSide,
    reference: Option<(u32, u32)>,
    running: Option<Option<Side>>,
    emitted: Option<(u32, u32, Option<Side>)>,
}

impl ClockTracker {
    pub(crate) fn new(board: BoardId, white_side: ClockSide) -> Self {
        ClockTracker {
            board,
            white_side,
            reference: None,
            running: None,
            emitted: None,
        }
    }

    /// Forget the last emitted reading, so the next one is emitted (after a reconnect).
    pub(crate) fn reconnected(&mut self) {
        self.emitted = None;
    }

    /// Whether a reading has been seen (the times a replayed press needs).
    pub(crate) fn has_reading(&self) -> bool {
        self.reference.is_some()
    }

    /// A press the board logged while nobody listened: `halted` stopped at `seconds`; the
    /// other side shows what it showed at its own last reading (its clock stood since).
    pub(crate) fn replay_press(&mut self, halted: ClockSide, seconds: u32) -> Option<TraceEvent> {
        let (left, right) = self.reference?;
        let (left, right, running) = match halted {
            ClockSide::Left => (seconds, right, ClockSide::Right),
            ClockSide::Right => (left, seconds, ClockSide::Left),
        };
        self.observe(&ClockTimes::with_running(
            SideTime::from_seconds(left),
            SideTime::from_seconds(right),
            Some(running),
        ))
    }

    fn colour(&self, side: ClockSide) -> Side {
        if side == self.white_side {
            Side::White
        } else {
            Side::Black
        }
    }

    pub(crate) fn observe(&mut self, t: &ClockTimes) -> Option<TraceEvent> {
        let (left, right) = (t.left.total_seconds(), t.right.total_seconds());
        let running = t.running_side().map(|s| self.colour(s));
        let press = self.running != Some(running);
        if let Some((l0, r0)) = self.reference {
            let rise = left.saturating_sub(l0).max(right.saturating_sub(r0));
            if rise > 3600 {
                return None;
            }
            if rise > 0 && !press {
                self.reference = Some((left, right));
                return None;
            }
        }
        self.reference = Some((left, right));
        self.running = Some(running);
        let (white, black) = if self.white_side == ClockSide::Left {
            (left, right)
        } else {
            (right, left)
        };
        if self.emitted == Some((white, black, running)) {
            return None;
        }
        self.emitted = Some((white, black, running));
        Some(TraceEvent::Clock {
            board: self.board,
            white: f64::from(white),
            black: f64::from(black),
            running,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(left: u32, right: u32, side: Option<ClockSide>) -> ClockTimes {
        ClockTimes::with_running(
            SideTime::from_seconds(left),
            SideTime::from_seconds(right),
            side,
        )
    }

    #[test]
    fn sides_map_to_colours() {
        let mut c = ClockTracker::new(BoardId::A, ClockSide::Right);
        let ev = c.observe(&reading(170, 180, Some(ClockSide::Right)));
        assert_eq!(
            ev,
            Some(TraceEvent::Clock {
                board: BoardId::A,
                white: 180.0,
                black: 170.0,
                running: Some(Side::White)
            })
        );
    }

    #[test]
    fn rises_are_not_passed_on_but_presses_are() {
        let mut c = ClockTracker::new(BoardId::A, ClockSide::Left);
        assert!(
            c.observe(&reading(180, 180, Some(ClockSide::Left)))
                .is_some()
        );
        assert!(
            c.observe(&reading(179, 180, Some(ClockSide::Left)))
                .is_some()
        );
        assert!(
            c.observe(&reading(179, 180, Some(ClockSide::Left)))
                .is_none(),
            "duplicate"
        );
        assert!(
            c.observe(&reading(185, 180, Some(ClockSide::Left)))
                .is_none(),
            "rise kept as reference"
        );
        assert!(
            c.observe(&reading(184, 180, Some(ClockSide::Left)))
                .is_some(),
            "falls from new reference"
        );
        assert!(
            c.observe(&reading(186, 180, Some(ClockSide::Right)))
                .is_some(),
            "press with increment"
        );
        assert!(
            c.observe(&reading(186 + 7200, 180, Some(ClockSide::Left)))
                .is_none(),
            "big rise dropped even on press"
        );
    }
}
