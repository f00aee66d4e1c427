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

    /// The times to take over from a trace reading `(white, black)` with `running`, given the
    /// trace's previous reading `before`, so that the display never goes up, as on a real
    /// clock: only the side that just pressed may rise, and only by what the trace itself
    /// added to it (the increment). Otherwise a side keeps the time it shows now when the
    /// reading would show a higher second (the trace's reading lags the emulated countdown).
    /// Not used for readings of a stopped clock, which is how a clock is set.
    pub(crate) fn without_rise(
        &self,
        (white, black): (f64, f64),
        running: Option<Side>,
        before: (f64, f64),
        now: Instant,
    ) -> (f64, f64) {
        let (w_now, b_now) = self.now(now);
        let pressed = self.running.filter(|&s| running != Some(s));
        let keep = |side: Side, new: f64, old_trace: f64, current: f64| {
            let increment = if pressed == Some(side) {
                (new - old_trace).max(0.0)
            } else {
                0.0
            };
            let cap = current + increment;
            if shown(new) > shown(cap) { cap } else { new }
        };
        (
            keep(Side::White, white, before.0, w_now),
            keep(Side::Black, black, before.1, b_now),
        )
    }

    /// Whole seconds as a clock display shows them: rounded up while a fraction remains,
    /// as a countdown clock does (3:00 until a full second has gone).
    pub(crate) fn display(&self, now: Instant) -> (u32, u32) {
        let (w, b) = self.now(now);
        (shown(w), shown(b))
    }
}

/// The whole seconds a countdown display shows for `secs` remaining.
fn shown(secs: f64) -> u32 {
    (secs - 1e-6).ceil().max(0.0) as u32
}

/// The physical board and clock.
#[derive(Debug, Clone)]
pub(crate) struct Physical {
    pub(crate) placement: Placement,
    pub(crate) clock: Option<ClockState>,
    /// The trace's last clock reading (white, black), to tell increments from lag.
    pub(crate) trace_clock: Option<(f64, f64)>,
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
                let reading = (*white, *black);
                // A stopped clock is how a clock gets set (a new game, an arbiter's
                // correction): its reading is taken as it is.
                let (white, black) = match (self.clock, self.trace_clock) {
                    (Some(c), Some(before)) if running.is_some() => {
                        c.without_rise(reading, *running, before, now)
                    }
                    _ => reading,
                };
                self.trace_clock = Some(reading);
                self.clock = Some(ClockState {
                    white,
                    black,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(white: f64, black: f64, running: Option<Side>, since: Instant) -> ClockState {
        ClockState {
            white,
            black,
            running,
            since,
            speed: 1.0,
        }
    }

    #[test]
    fn a_reading_never_makes_the_display_rise_except_the_pressers_increment() {
        let t0 = Instant::now();
        let later = t0 + std::time::Duration::from_secs(3);
        // White runs from 60 s; 3 s later the emulated display shows 57.
        let c = clock(60.0, 60.0, Some(Side::White), t0);
        let before = (60.0, 60.0);
        // The trace's reading (58.5) lags: the display stays at 57.
        assert_eq!(
            c.without_rise((58.5, 60.0), Some(Side::White), before, later),
            (57.0, 60.0)
        );
        // Same second or lower: the trace's value is taken.
        assert_eq!(
            c.without_rise((56.5, 60.0), Some(Side::White), before, later),
            (56.5, 60.0)
        );
        // White presses with a 2 s increment (trace 58 -> 60): White rises by the increment
        // from what it shows, Black may not rise at all.
        let before = (58.0, 60.0);
        assert_eq!(
            c.without_rise((60.0, 61.0), Some(Side::Black), before, later),
            (59.0, 60.0)
        );
    }

    #[test]
    fn trace_clock_events_do_not_raise_the_emulated_display() {
        let mut p = Physical {
            placement: crate::trace::Placement::start(),
            clock: None,
            trace_clock: None,
        };
        let t0 = Instant::now();
        let ev = |white: f64, black: f64, running| TraceEvent::Clock {
            board: crate::trace::BoardId::A,
            white,
            black,
            running,
        };
        p.apply(&ev(180.0, 180.0, Some(Side::White)), t0, 1.0);
        let later = t0 + std::time::Duration::from_millis(2500);
        p.apply(&ev(178.0, 180.0, Some(Side::White)), later, 1.0);
        let c = p.clock.expect("clock");
        assert_eq!(c.display(later), (178, 180));
        p.apply(&ev(179.0, 180.0, Some(Side::White)), later, 1.0);
        assert_eq!(
            p.clock.expect("clock").display(later),
            (178, 180),
            "no rise"
        );
    }
}
