//! From DGT clock readings to `clock` events.
//!
//! Sides are mapped to colours by the side White sits on, which [`SideLearner`] learns from
//! play (or takes from the configuration until play shows otherwise); when that labelling is
//! stated or changes, a `clock_side` event goes out before the first `clock` event labelled
//! by it. A reading is emitted when the running side changes (a press) or the times change
//! (periodic readings). As picochess does, a reading
//! whose time went *up* is not passed on: a rise of more than an hour is thrown away, a
//! smaller one only becomes the new reference. A press is always passed on (an increment
//! makes the mover's time rise), unless the rise exceeds an hour. All-zero, invalid and
//! "no clock" readings never reach this tracker.
//!
//! The running side is the lever bit's ([`ClockTimes::running_side`]), checked against the
//! turn bits (bit3 left, bit4 right) and against the time that falls between consecutive
//! readings. When the turn bits name the other side, or the other side's time falls in two
//! readings in a row with the lever unmoved, that is logged once and the falling time decides from then on (the
//! last decided side stands while no time falls).

use super::clock_side::SideLearner;
use crate::dgt::{ClockSide, ClockTimes, SideTime};
use crate::trace::{BoardId, Side, TraceEvent};

#[derive(Debug, Clone)]
pub(crate) struct ClockTracker {
    board: BoardId,
    side: SideLearner,
    reference: Option<(u32, u32)>,
    /// The running side of the last reading passed on (clock sides, so that a change of
    /// labelling is no press).
    running: Option<Option<ClockSide>>,
    emitted: Option<(u32, u32, Option<Side>)>,
    judge: SideJudge,
}

/// Decides the running side of each reading; see the module documentation.
#[derive(Debug, Clone, Default)]
struct SideJudge {
    /// (left, right) seconds of the previous running reading.
    last: Option<(u32, u32)>,
    /// The side decided for the previous reading.
    last_side: Option<ClockSide>,
    /// The lever of the previous running reading.
    last_lever: Option<ClockSide>,
    /// Consecutive readings where the other side's time fell.
    against: u8,
    /// The lever was caught out: the falling time decides.
    distrust_lever: bool,
    turn_logged: bool,
}

impl SideJudge {
    fn reset(&mut self) {
        self.last = None;
        self.last_side = None;
        self.last_lever = None;
        self.against = 0;
    }

    fn decide(&mut self, board: BoardId, t: &ClockTimes) -> Option<ClockSide> {
        let (left, right) = (t.left.total_seconds(), t.right.total_seconds());
        if !t.running {
            self.reset();
            return None;
        }
        let falling = self
            .last
            .and_then(|(l0, r0)| match (left < l0, right < r0) {
                (true, false) => Some(ClockSide::Left),
                (false, true) => Some(ClockSide::Right),
                _ => None,
            });
        self.last = Some((left, right));
        let lever = t.lever_side();
        if t.turn_disagrees() && !self.turn_logged {
            self.turn_logged = true;
            tracing::warn!(
                %board,
                status = format_args!("{:#04x}", t.status()),
                "clock: the turn bits name one side and the lever the other; the falling time decides"
            );
        }
        // Between two readings the time falls for the side that ran after the first one,
        // then (after a press) for the other: only with the lever unmoved is the other
        // side's falling time a contradiction.
        let unmoved = self.last_lever == Some(lever);
        self.last_lever = Some(lever);
        match falling {
            Some(f) if f != lever && unmoved => self.against = self.against.saturating_add(1),
            Some(_) => self.against = 0,
            None => {}
        }
        if self.against >= 2 && !self.distrust_lever {
            self.distrust_lever = true;
            tracing::warn!(
                %board,
                "clock: the lever contradicts the falling time in consecutive readings; the falling time decides"
            );
        }
        let side = if self.distrust_lever || t.turn_disagrees() {
            falling.or(self.last_side).unwrap_or(lever)
        } else {
            lever
        };
        self.last_side = Some(side);
        Some(side)
    }
}

impl ClockTracker {
    /// A tracker for `board`; `white_side` is the configured side (`None`: auto).
    pub(crate) fn new(board: BoardId, white_side: Option<ClockSide>) -> Self {
        ClockTracker {
            board,
            side: SideLearner::new(board, white_side),
            reference: None,
            running: None,
            emitted: None,
            judge: SideJudge::default(),
        }
    }

    /// Board events the session emitted: the evidence of which colour moves on which side.
    pub(crate) fn sensed(&mut self, events: &[TraceEvent]) {
        for e in events {
            self.side.sensed(e);
        }
    }

    /// Forget the last emitted reading, so the next one is emitted (after a reconnect, or
    /// a clock back after it was missing); the next running reading starts play afresh.
    pub(crate) fn reconnected(&mut self) {
        self.emitted = None;
        self.judge.reset();
        self.side.restart();
    }

    /// Whether a reading has been seen (the times a replayed press needs).
    pub(crate) fn has_reading(&self) -> bool {
        self.reference.is_some()
    }

    /// A press the board logged while nobody listened: `halted` stopped at `seconds`; the
    /// other side shows what it showed at its own last reading (its clock stood since).
    pub(crate) fn replay_press(
        &mut self,
        halted: ClockSide,
        seconds: u32,
        out: &mut Vec<TraceEvent>,
    ) {
        let Some((left, right)) = self.reference else {
            return;
        };
        let (left, right, running) = match halted {
            ClockSide::Left => (seconds, right, ClockSide::Right),
            ClockSide::Right => (left, seconds, ClockSide::Left),
        };
        self.observe(
            &ClockTimes::with_running(
                SideTime::from_seconds(left),
                SideTime::from_seconds(right),
                Some(running),
            ),
            out,
        );
    }

    /// A reading: a `clock_side` event when the labelling is stated or changes, then the
    /// `clock` event, when there is something new to say.
    pub(crate) fn observe(&mut self, t: &ClockTimes, out: &mut Vec<TraceEvent>) {
        // A side whose flag bit is set has no time left, whatever its display shows (a
        // clock in a move-count period keeps counting after the flag): the inference ends
        // the game on a reading at zero.
        let shown = |s: &SideTime| {
            if s.flag_fallen { 0 } else { s.total_seconds() }
        };
        let (left, right) = (shown(&t.left), shown(&t.right));
        let running = self.judge.decide(self.board, t);
        if let Some(d) = self.side.reading(running, t.lever_side()) {
            out.push(TraceEvent::ClockSide {
                board: self.board,
                white_side: d.white_side,
                configured: self.side.configured(),
                evidence: d.evidence,
            });
        }
        let press = self.running != Some(running);
        if let Some((l0, r0)) = self.reference {
            let rise = left.saturating_sub(l0).max(right.saturating_sub(r0));
            if rise > 3600 {
                return;
            }
            if rise > 0 && !press {
                self.reference = Some((left, right));
                return;
            }
        }
        self.reference = Some((left, right));
        self.running = Some(running);
        let white_side = self.side.white_side();
        let (white, black) = if white_side == ClockSide::Left {
            (left, right)
        } else {
            (right, left)
        };
        let running = running.map(|s| {
            if s == white_side {
                Side::White
            } else {
                Side::Black
            }
        });
        if self.emitted == Some((white, black, running)) {
            return;
        }
        self.emitted = Some((white, black, running));
        out.push(TraceEvent::Clock {
            board: self.board,
            white: f64::from(white),
            black: f64::from(black),
            running,
        });
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

    impl ClockTracker {
        /// The `clock` event of a reading, leaving out any `clock_side` statement.
        fn clock(&mut self, t: &ClockTimes) -> Option<TraceEvent> {
            let mut out = Vec::new();
            self.observe(t, &mut out);
            out.into_iter()
                .find(|e| matches!(e, TraceEvent::Clock { .. }))
        }
    }

    #[test]
    fn sides_map_to_colours() {
        let mut c = ClockTracker::new(BoardId::A, Some(ClockSide::Right));
        let ev = c.clock(&reading(170, 180, Some(ClockSide::Right)));
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

    /// The start of a real game (`dgt-recordings/1.inbytes`): statuses 0x08, 0x09, 0x13 as
    /// the board sent them. White sits left: White's time falls first and runs first.
    #[test]
    fn real_readings_give_the_side_whose_time_falls() {
        use crate::dgt::{Bwtime, BwtimeLayout, ClockMessage};
        let raw: [[u8; 7]; 6] = [
            [0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x08],
            [0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x09],
            [0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x09],
            [0x20, 0x03, 0x02, 0x20, 0x02, 0x59, 0x09],
            [0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x13],
            [0x20, 0x03, 0x01, 0x20, 0x03, 0x01, 0x13],
        ];
        let mut c = ClockTracker::new(BoardId::A, Some(ClockSide::Left));
        let running: Vec<Option<Side>> = raw
            .iter()
            .filter_map(|p| match Bwtime(*p).classify(BwtimeLayout::Modern) {
                ClockMessage::Times(t) => c.clock(&t),
                other => panic!("not times: {other:?}"),
            })
            .map(|e| match e {
                TraceEvent::Clock { running, .. } => running,
                other => panic!("not a clock event: {other:?}"),
            })
            .collect();
        let (w, b) = (Some(Side::White), Some(Side::Black));
        assert_eq!(running, vec![None, w, w, w, b, b]);
    }

    #[test]
    fn turn_bits_against_the_lever_let_the_falling_time_decide() {
        let mut c = ClockTracker::new(BoardId::A, Some(ClockSide::Left));
        let mut bad = |l: u32, r: u32| {
            // Lever says right, turn bit says left.
            let mut t = reading(l, r, Some(ClockSide::Right));
            t.right_turn = false;
            t.left_turn = true;
            match c.clock(&t) {
                Some(TraceEvent::Clock { running, .. }) => running,
                other => panic!("{other:?}"),
            }
        };
        bad(180, 180);
        assert_eq!(
            bad(179, 180),
            Some(Side::White),
            "left time fell: White runs"
        );
    }

    #[test]
    fn a_lever_that_keeps_contradicting_the_falling_time_is_overruled() {
        let mut c = ClockTracker::new(BoardId::A, Some(ClockSide::Left));
        let mut last = None;
        // The lever always says left while the right time falls.
        for r in (170..=180).rev() {
            if let Some(TraceEvent::Clock { running, .. }) =
                c.clock(&reading(180, r, Some(ClockSide::Left)))
            {
                last = running;
            }
        }
        assert_eq!(last, Some(Side::Black));
    }

    #[test]
    fn rises_are_not_passed_on_but_presses_are() {
        let mut c = ClockTracker::new(BoardId::A, Some(ClockSide::Left));
        assert!(c.clock(&reading(180, 180, Some(ClockSide::Left))).is_some());
        assert!(c.clock(&reading(179, 180, Some(ClockSide::Left))).is_some());
        assert!(
            c.clock(&reading(179, 180, Some(ClockSide::Left))).is_none(),
            "duplicate"
        );
        assert!(
            c.clock(&reading(185, 180, Some(ClockSide::Left))).is_none(),
            "rise kept as reference"
        );
        assert!(
            c.clock(&reading(184, 180, Some(ClockSide::Left))).is_some(),
            "falls from new reference"
        );
        assert!(
            c.clock(&reading(186, 180, Some(ClockSide::Right)))
                .is_some(),
            "press with increment"
        );
        assert!(
            c.clock(&reading(186 + 7200, 180, Some(ClockSide::Left)))
                .is_none(),
            "big rise dropped even on press"
        );
    }

    #[test]
    fn a_side_whose_flag_bit_is_set_reads_zero() {
        let mut c = ClockTracker::new(BoardId::A, Some(ClockSide::Left));
        let flagged = SideTime {
            flag_fallen: true,
            ..SideTime::from_seconds(12)
        };
        let t =
            ClockTimes::with_running(flagged, SideTime::from_seconds(90), Some(ClockSide::Left));
        assert_eq!(
            c.clock(&t),
            Some(TraceEvent::Clock {
                board: BoardId::A,
                white: 0.0,
                black: 90.0,
                running: Some(Side::White)
            })
        );
    }
}
