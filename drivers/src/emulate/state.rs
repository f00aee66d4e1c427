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

    /// The times to take over from a trace reading `(white, black)` with `running`, so that
    /// the display never goes up, as on a real clock, except by the Fischer increment at a
    /// press: the side that just pressed gains `increment` on what it shows now. Otherwise a
    /// side keeps the time it shows now when the reading would show a higher second (the
    /// trace's reading lags the emulated countdown). Not used for readings of a stopped
    /// clock, which is how a clock is set.
    pub(crate) fn without_rise(
        &self,
        (white, black): (f64, f64),
        running: Option<Side>,
        increment: Increment,
        now: Instant,
    ) -> (f64, f64) {
        let (w_now, b_now) = self.now(now);
        let pressed = self.running.filter(|&s| running != Some(s));
        let keep = |side: Side, new: f64, current: f64| {
            let increment = if pressed == Some(side) {
                increment.for_reading(side, new)
            } else {
                0.0
            };
            let cap = current + increment;
            if shown(new) > shown(cap) { cap } else { new }
        };
        (
            keep(Side::White, white, w_now),
            keep(Side::Black, black, b_now),
        )
    }

    /// Whole seconds as a clock display shows them: rounded up while a fraction remains,
    /// as a countdown clock does (3:00 until a full second has gone).
    pub(crate) fn display(&self, now: Instant) -> (u32, u32) {
        let (w, b) = self.now(now);
        (shown(w), shown(b))
    }
}

/// What a press adds to the presser's time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Increment {
    /// The game's Fischer increment in seconds (the trace's `meta` time control).
    Known(f64),
    /// Not known: what the trace itself added at this press, i.e. its reading over what
    /// its previous reading `(white, black)` less the `elapsed` seconds between them would
    /// show (never below zero).
    Estimated { before: (f64, f64), elapsed: f64 },
}

impl Increment {
    fn for_reading(self, side: Side, new: f64) -> f64 {
        match self {
            Increment::Known(inc) => inc,
            Increment::Estimated { before, elapsed } => {
                let old = if side == Side::White {
                    before.0
                } else {
                    before.1
                };
                (new - (old - elapsed)).max(0.0)
            }
        }
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
    /// The trace's last clock reading (white, black) and its trace time (ms), to estimate
    /// the increment when the trace does not say it.
    pub(crate) trace_clock: Option<((f64, f64), u64)>,
    /// The Fischer increment (seconds), when the trace's `meta` gives the time control.
    pub(crate) increment: Option<f64>,
    /// The clock's cable is out of the board (`clock_link` down in the trace): the board
    /// reports "no clock" while the clock itself goes on.
    pub(crate) clock_unplugged: bool,
}

/// One change applied from the trace.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    Squares(Vec<(Square, Option<SensorPiece>)>),
    Clock,
    /// The clock's cable went out or back in.
    ClockLink,
}

impl Physical {
    /// The board showing `placement`, no clock reading yet, the increment of the game if
    /// known.
    pub(crate) fn new(placement: Placement, increment: Option<f64>) -> Physical {
        Physical {
            placement,
            clock: None,
            trace_clock: None,
            increment,
            clock_unplugged: false,
        }
    }

    /// Applies a trace event of trace time `t` (ms); `None` when it changes nothing the
    /// device reports.
    pub(crate) fn apply(
        &mut self,
        ev: &TraceEvent,
        t: u64,
        now: Instant,
        speed: f64,
    ) -> Option<Change> {
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
                    (Some(c), Some((before, t0))) if running.is_some() => {
                        let increment = self.increment.map_or(
                            Increment::Estimated {
                                before,
                                elapsed: t.saturating_sub(t0) as f64 / 1000.0,
                            },
                            Increment::Known,
                        );
                        c.without_rise(reading, *running, increment, now)
                    }
                    _ => reading,
                };
                self.trace_clock = Some((reading, t));
                self.clock = Some(ClockState {
                    white,
                    black,
                    running: *running,
                    since: now,
                    speed,
                });
                Some(Change::Clock)
            }
            TraceEvent::ClockLink { up, .. } => {
                self.clock_unplugged = !up;
                Some(Change::ClockLink)
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
        let inc = Increment::Known(2.0);
        // The trace's reading (58.5) lags: the display stays at 57.
        assert_eq!(
            c.without_rise((58.5, 60.0), Some(Side::White), inc, later),
            (57.0, 60.0)
        );
        // Same second or lower: the trace's value is taken.
        assert_eq!(
            c.without_rise((56.5, 60.0), Some(Side::White), inc, later),
            (56.5, 60.0)
        );
        // White presses after thinking 3 s (longer than the increment): he gains the 2 s
        // increment on what he shows; Black may not rise at all.
        assert_eq!(
            c.without_rise((59.0, 61.0), Some(Side::Black), inc, later),
            (59.0, 60.0)
        );
        // Without a known increment, what the trace added at the press: its 60 s less the
        // 3 s it ran, against its 59 s.
        let est = Increment::Estimated {
            before: (60.0, 60.0),
            elapsed: 3.0,
        };
        assert_eq!(
            c.without_rise((59.0, 60.0), Some(Side::Black), est, later),
            (59.0, 60.0)
        );
    }

    /// The emulated clock lost the increment of every move that took longer than
    /// the increment (0:51/0:52 where a 60+2 trace said 0:57/0:57).
    #[test]
    fn a_60_plus_2_game_shows_what_the_trace_says_after_three_presses_each() {
        let mut p = Physical::new(crate::trace::Placement::start(), Some(2.0));
        let t0 = Instant::now();
        let ev = |white: f64, black: f64, running| TraceEvent::Clock {
            board: crate::trace::BoardId::A,
            white,
            black,
            running,
        };
        let at = |ms: u64| t0 + std::time::Duration::from_millis(ms);
        p.apply(&ev(60.0, 60.0, Some(Side::White)), 0, at(0), 1.0);
        // Each player thinks 3 s a move and gains 2 s at his press: 60, 59, 58, 57.
        let (mut white, mut black, mut ms) = (60.0, 60.0, 0);
        for _ in 0..3 {
            ms += 3000;
            white += -3.0 + 2.0;
            p.apply(&ev(white, black, Some(Side::Black)), ms, at(ms), 1.0);
            ms += 3000;
            black += -3.0 + 2.0;
            p.apply(&ev(white, black, Some(Side::White)), ms, at(ms), 1.0);
        }
        assert_eq!((white, black), (57.0, 57.0), "what the trace says");
        let c = p.clock.expect("clock");
        assert_eq!(c.display(at(ms)), (57, 57));
        // The same without the time control: the increment is read off the trace.
        let mut q = Physical::new(crate::trace::Placement::start(), None);
        q.apply(&ev(60.0, 60.0, Some(Side::White)), 0, at(0), 1.0);
        let (mut white, mut black, mut ms) = (60.0, 60.0, 0);
        for _ in 0..3 {
            ms += 3000;
            white += -1.0;
            q.apply(&ev(white, black, Some(Side::Black)), ms, at(ms), 1.0);
            ms += 3000;
            black += -1.0;
            q.apply(&ev(white, black, Some(Side::White)), ms, at(ms), 1.0);
        }
        assert_eq!(q.clock.expect("clock").display(at(ms)), (57, 57));
    }

    #[test]
    fn trace_clock_events_do_not_raise_the_emulated_display() {
        let mut p = Physical::new(crate::trace::Placement::start(), None);
        let t0 = Instant::now();
        let ev = |white: f64, black: f64, running| TraceEvent::Clock {
            board: crate::trace::BoardId::A,
            white,
            black,
            running,
        };
        p.apply(&ev(180.0, 180.0, Some(Side::White)), 0, t0, 1.0);
        let later = t0 + std::time::Duration::from_millis(2500);
        p.apply(&ev(178.0, 180.0, Some(Side::White)), 2000, later, 1.0);
        let c = p.clock.expect("clock");
        assert_eq!(c.display(later), (178, 180));
        p.apply(&ev(179.0, 180.0, Some(Side::White)), 2100, later, 1.0);
        assert_eq!(
            p.clock.expect("clock").display(later),
            (178, 180),
            "no rise"
        );
    }

    #[test]
    fn a_clock_link_line_unplugs_and_replugs_the_clock() {
        let mut p = Physical::new(crate::trace::Placement::start(), None);
        let link = |up| TraceEvent::ClockLink {
            board: crate::trace::BoardId::A,
            up,
        };
        let now = Instant::now();
        assert_eq!(p.apply(&link(false), 0, now, 1.0), Some(Change::ClockLink));
        assert!(p.clock_unplugged);
        assert_eq!(p.apply(&link(true), 10, now, 1.0), Some(Change::ClockLink));
        assert!(!p.clock_unplugged);
    }
}
