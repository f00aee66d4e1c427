//! The emulated board's physical state and the changes a trace makes to it.

use std::time::Instant;

use crate::trace::{Placement, SensorPiece, Side, Square, TraceEvent};

/// What the emulated clock shows, counting down the running side in real time when `speed`
/// is above zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ClockState {
    pub(crate) white: f64,
    pub(crate) black: f64,
    pub(crate) running: Option<Side>,
    pub(crate) since: Instant,
    pub(crate) speed: f64,
}

impl ClockState {
    /// Remaining (white, black) seconds now.
    pub(crate) fn now(&self, now: Instant) -> (f64, f64) {
        let spent = now.saturating_duration_since(self.since).as_secs_f64() * self.speed;
        match self.running {
            Some(Side::White) => ((self.white - spent).max(0.0), self.black),
            Some(Side::Black) => (self.white, (self.black - spent).max(0.0)),
            None => (self.white, self.black),
        }
    }

    /// Whole seconds as a clock display shows them: rounded up while a fraction remains,
    /// as a countdown clock does (3:00 until a full second has gone).
    pub(crate) fn display(&self, now: Instant) -> (u32, u32) {
        let (w, b) = self.now(now);
        (
            (w - 1e-6).ceil().max(0.0) as u32,
            (b - 1e-6).ceil().max(0.0) as u32,
        )
    }
}

/// The physical board and clock.
#[derive(Debug, Clone)]
pub(crate) struct Physical {
    pub(crate) placement: Placement,
    pub(crate) clock: Option<ClockState>,
}

/// One change applied from the trace.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    Squares(Vec<(Square, Option<SensorPiece>)>),
    Clock,
}

impl Physical {
    /// Applies a trace event; `None` when it changes nothing the device reports.
    pub(crate) fn apply(&mut self, ev: &TraceEvent, now: Instant, speed: f64) -> Option<Change> {
        match ev {
            TraceEvent::Square { sq, piece, .. } => {
                self.placement.set(*sq, *piece);
                Some(Change::Squares(vec![(*sq, *piece)]))
            }
            TraceEvent::Board { placement, .. } => {
                let diff: Vec<_> = placement.diff(&self.placement).collect();
                self.placement = *placement;
                (!diff.is_empty()).then_some(Change::Squares(diff))
            }
            TraceEvent::Clock {
                white,
                black,
                running,
                ..
            } => {
                self.clock = Some(ClockState {
                    white: *white,
                    black: *black,
                    running: *running,
                    since: now,
                    speed,
                });
                Some(Change::Clock)
            }
            _ => None,
        }
    }
}
