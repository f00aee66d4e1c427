//! Whether a DGT board's clock reports: `clock_link` events, one each way.
//!
//! A DGT board relays its clock's readings; unplugged, the clock is still asked for by the
//! board, which then reports "no clock connected" (BWTIME status bit5) — and a host that
//! waits for presses would wait for ever. The evidence, in order of strength:
//!
//! * a valid reading: the clock is there (`clock_link` up, at once, if it was missing);
//! * a "no clock" reading that lasts: [`LOST_AFTER`] after the clock had reported on this
//!   session, [`NO_CLOCK_GRACE`] when it never had (boards say "no clock" while a clock is
//!   being plugged in or switched on, and emulated ones until their first reading);
//! * silence: in update-nice mode a stopped clock sends nothing (its data do not change), so
//!   silence alone proves nothing. The session asks (`SEND_CLK`) after [`POLL_AFTER`]
//!   without any clock message, and a request left unanswered for [`POLL_REPLY`] counts as
//!   "no clock" from when it was sent.
//!
//! The clock is taken to be there at the start (the daemon starts a board with a clock
//! clocked), so only a change is reported; a glitch shorter than the wait is not.

use std::time::{Duration, Instant};

use crate::error::DeviceFault;
use crate::trace::{BoardId, TraceEvent};

/// A clock that reported on this session and now says "no clock" is lost after this long.
pub(crate) const LOST_AFTER: Duration = Duration::from_secs(2);
/// A clock that never reported on this session is missing after this long of "no clock".
pub(crate) const NO_CLOCK_GRACE: Duration = Duration::from_secs(10);
/// Ask the board for a clock reading after this long without any.
pub(crate) const POLL_AFTER: Duration = Duration::from_secs(4);
/// How long a clock request may go unanswered.
pub(crate) const POLL_REPLY: Duration = Duration::from_secs(3);

/// What [`ClockPresence::tick`] wants done.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Tick {
    /// A `clock_link` event to emit.
    pub(crate) event: Option<TraceEvent>,
    /// Send `SEND_CLK`.
    pub(crate) poll: bool,
}

/// One board's clock presence; see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct ClockPresence {
    board: BoardId,
    /// The configuration says a clock is plugged in (`clock = "board"`): missing is a
    /// fault worth a warning, not just news.
    required: bool,
    /// As last reported (starts `true`).
    live: bool,
    /// A valid reading came on this session.
    reported: bool,
    /// Since when the board says (or its silence says) there is no clock.
    missing_since: Option<Instant>,
    /// The last clock message of any kind (times, "no clock", ack).
    heard: Instant,
    /// An unanswered `SEND_CLK`.
    poll: Option<Instant>,
}

impl ClockPresence {
    pub(crate) fn new(board: BoardId, required: bool, now: Instant) -> Self {
        ClockPresence {
            board,
            required,
            live: true,
            reported: false,
            missing_since: None,
            heard: now,
            poll: None,
        }
    }

    /// Whether the clock is taken to be there.
    #[cfg(test)]
    fn is_live(&self) -> bool {
        self.live
    }

    /// The board (re)connected: timers start afresh (what it said before is old news).
    pub(crate) fn linked(&mut self, now: Instant) {
        self.heard = now;
        self.poll = None;
        self.missing_since = None;
    }

    /// A clock message that is neither times nor "no clock" (an ack): the board answers.
    pub(crate) fn heard(&mut self, now: Instant) {
        self.heard = now;
        self.poll = None;
    }

    /// A valid reading: `clock_link` up when the clock was missing.
    pub(crate) fn valid(&mut self, now: Instant) -> Option<TraceEvent> {
        self.heard(now);
        self.reported = true;
        self.missing_since = None;
        if self.live {
            return None;
        }
        self.live = true;
        tracing::info!(board = %self.board, "clock reports again");
        Some(TraceEvent::ClockLink {
            board: self.board,
            up: true,
        })
    }

    /// A "no clock connected" reading.
    pub(crate) fn no_clock(&mut self, now: Instant) {
        self.heard(now);
        self.missing_since.get_or_insert(now);
    }

    /// Time passed: `clock_link` down once "no clock" has lasted, and whether to poll.
    pub(crate) fn tick(&mut self, now: Instant) -> Tick {
        let mut out = Tick::default();
        if let Some(sent) = self.poll
            && now.saturating_duration_since(sent) >= POLL_REPLY
        {
            self.missing_since.get_or_insert(sent);
        }
        let wait = if self.reported {
            LOST_AFTER
        } else {
            NO_CLOCK_GRACE
        };
        if self.live
            && self
                .missing_since
                .is_some_and(|since| now.saturating_duration_since(since) >= wait)
        {
            self.live = false;
            if self.required {
                tracing::warn!(board = %self.board, fault = %DeviceFault::NoClock, "clock missing: moves are taken from the board alone");
            } else {
                tracing::info!(board = %self.board, "no clock reports: moves are taken from the board alone");
            }
            out.event = Some(TraceEvent::ClockLink {
                board: self.board,
                up: false,
            });
        }
        let quiet = now.saturating_duration_since(self.heard) >= POLL_AFTER;
        let asked_long_ago = self
            .poll
            .is_none_or(|sent| now.saturating_duration_since(sent) >= POLL_AFTER);
        if quiet && asked_long_ago {
            self.poll = Some(self.poll.unwrap_or(now));
            out.poll = true;
        }
        out
    }

    /// A poll was sent at `now` (the first of an unanswered run counts for "no reply").
    #[cfg(test)]
    fn polled_at(&self) -> Option<Instant> {
        self.poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down() -> Option<TraceEvent> {
        Some(TraceEvent::ClockLink {
            board: BoardId::A,
            up: false,
        })
    }

    fn up() -> Option<TraceEvent> {
        Some(TraceEvent::ClockLink {
            board: BoardId::A,
            up: true,
        })
    }

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn a_clock_unplugged_mid_game_is_lost_once_and_found_once() {
        let t0 = Instant::now();
        let mut c = ClockPresence::new(BoardId::A, false, t0);
        assert_eq!(c.valid(t0), None, "there from the start: nothing to say");
        c.no_clock(t0 + S);
        assert_eq!(
            c.tick(t0 + S * 2).event,
            None,
            "a short glitch is not a loss"
        );
        c.no_clock(t0 + S * 2);
        assert_eq!(c.tick(t0 + S * 3).event, down());
        c.no_clock(t0 + S * 4);
        assert_eq!(c.tick(t0 + S * 9).event, None, "said once");
        assert!(!c.is_live());
        assert_eq!(c.valid(t0 + S * 10), up());
        assert_eq!(c.valid(t0 + S * 11), None, "said once");
        assert_eq!(c.tick(t0 + S * 12).event, None);
    }

    #[test]
    fn a_glitch_shorter_than_the_wait_is_not_reported() {
        let t0 = Instant::now();
        let mut c = ClockPresence::new(BoardId::A, true, t0);
        c.valid(t0);
        c.no_clock(t0 + S);
        assert_eq!(c.valid(t0 + S + S / 2), None);
        assert_eq!(c.tick(t0 + S * 5).event, None);
        assert!(c.is_live());
    }

    #[test]
    fn a_board_without_a_clock_is_noticed_after_the_grace() {
        let t0 = Instant::now();
        let mut c = ClockPresence::new(BoardId::A, false, t0);
        c.no_clock(t0);
        assert_eq!(
            c.tick(t0 + LOST_AFTER * 2).event,
            None,
            "maybe being plugged in"
        );
        assert_eq!(c.tick(t0 + NO_CLOCK_GRACE).event, down());
    }

    #[test]
    fn a_silent_board_is_asked_and_no_answer_counts_as_no_clock() {
        let t0 = Instant::now();
        let mut c = ClockPresence::new(BoardId::A, false, t0);
        c.valid(t0);
        assert!(!c.tick(t0 + S).poll);
        let asked = c.tick(t0 + POLL_AFTER);
        assert!(asked.poll && asked.event.is_none());
        assert_eq!(c.polled_at(), Some(t0 + POLL_AFTER));
        assert!(!c.tick(t0 + POLL_AFTER + S).poll, "one request at a time");
        // A stopped clock answers: still there, and asked again only after another wait.
        c.valid(t0 + POLL_AFTER + S);
        assert_eq!(c.polled_at(), None);
        let again = t0 + POLL_AFTER * 2 + S;
        assert!(c.tick(again).poll);
        // No answer at all: no clock from when it was asked, said once the reply is overdue.
        assert_eq!(c.tick(again + POLL_REPLY - S / 2).event, None);
        assert_eq!(c.tick(again + POLL_REPLY).event, down());
    }
}
