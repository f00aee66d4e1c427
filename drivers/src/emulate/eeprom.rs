//! The emulated DGT board's EEPROM event log (`docs/eboards.md`, "The DGT board's event log").
//!
//! A ring buffer of [`RING_SIZE`] bytes that the board writes whether or not a host is
//! listening: every square change it reports (with the "less than 250 ms" bit), the
//! halted side's time at every lever press, the power-up tag when it is switched on, and
//! the start-position / empty-board tags with their hysteresis (written again only once
//! more than two pieces have left the tagged position). `EE_EOF` sits at the write
//! position, so [`EepromLog::stream`] reads from just after it round to it: the oldest
//! entry first, as a real board sends it, the first bytes possibly the remains of an
//! overwritten entry once the ring has gone round.

use std::time::{Duration, Instant};

use super::state::{Change, Physical};
use crate::dgt::eeprom::{EeEntry, RING_SIZE, tag};
use crate::dgt::{ClockSide, piece_to_code, square_to_index};
use crate::trace::{Placement, Side};

/// Changes closer together than this get the "quick" bit.
const QUICK: Duration = Duration::from_millis(250);

/// The log of one emulated board.
#[derive(Debug, Clone)]
pub(crate) struct EepromLog {
    ring: Vec<u8>,
    /// Where `EE_EOF` stands: the next byte is written here.
    head: usize,
    wrapped: bool,
    last_change: Option<Instant>,
    /// The position last tagged (start, turned start, empty), until more than two pieces
    /// have left it.
    tagged: Option<Placement>,
    /// The side whose clock runs, as the lever shows it.
    lever: Option<ClockSide>,
}

impl EepromLog {
    /// A blank EEPROM: nothing written yet.
    pub(crate) fn new() -> Self {
        let mut ring = vec![tag::NOP2; RING_SIZE];
        ring[0] = tag::EOF;
        EepromLog {
            ring,
            head: 0,
            wrapped: false,
            last_change: None,
            tagged: None,
            lever: None,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.ring[self.head] = b;
            self.head = (self.head + 1) % RING_SIZE;
            if self.head == 0 {
                self.wrapped = true;
            }
        }
        self.ring[self.head] = tag::EOF;
    }

    fn entry(&mut self, e: EeEntry) {
        let mut bytes = Vec::with_capacity(3);
        e.encode(&mut bytes);
        self.write(&bytes);
    }

    /// The board was switched on with `raw` (its own frame) on it.
    pub(crate) fn power_up(&mut self, raw: &Placement) {
        self.entry(EeEntry::Tag(tag::POWER_UP));
        self.last_change = None;
        self.tagged = None;
        self.position_tags(raw);
    }

    /// A square changed (board index, new code); `raw` is the board after it.
    pub(crate) fn piece(&mut self, index: u8, code: u8, raw: &Placement, now: Instant) {
        let quick = self
            .last_change
            .is_some_and(|t| now.saturating_duration_since(t) < QUICK);
        self.last_change = Some(now);
        self.entry(EeEntry::Piece { index, code, quick });
        self.position_tags(raw);
    }

    /// The clock now runs for `running`, with `halted_seconds` left on the side it stopped:
    /// a lever press writes that side's time.
    pub(crate) fn clock(
        &mut self,
        running: Option<ClockSide>,
        halted_seconds: impl Fn(ClockSide) -> u32,
    ) {
        if let (Some(before), Some(now)) = (self.lever, running)
            && before != now
        {
            let left = before == ClockSide::Left;
            self.entry(EeEntry::time(left, halted_seconds(before)));
        }
        if running.is_some() {
            self.lever = running;
        }
    }

    fn position_tags(&mut self, raw: &Placement) {
        if let Some(t) = self.tagged
            && raw.diff(&t).count() > 2
        {
            self.tagged = None;
        }
        let start = Placement::start();
        let code = if *raw == start {
            tag::START_POSITION
        } else if *raw == start.rotated() {
            tag::START_ROTATED
        } else if *raw == Placement::empty() {
            tag::EMPTY_BOARD
        } else {
            return;
        };
        if self.tagged != Some(*raw) {
            self.tagged = Some(*raw);
            self.entry(EeEntry::Tag(code));
        }
    }

    /// The `EE_MOVES` payload: oldest byte first, `EE_EOF` last.
    pub(crate) fn stream(&self) -> Vec<u8> {
        if !self.wrapped {
            return self.ring[..=self.head].to_vec();
        }
        let mut out = Vec::with_capacity(RING_SIZE);
        out.extend_from_slice(&self.ring[self.head + 1..]);
        out.extend_from_slice(&self.ring[..=self.head]);
        out
    }
}

/// Writes what a change of the physical board or clock leaves in `log` (`rotated`: the
/// board's own frame is turned; `white_side`: where White's clock time shows).
pub(crate) fn record(
    log: &mut EepromLog,
    change: &Change,
    p: &Physical,
    now: Instant,
    rotated: bool,
    white_side: ClockSide,
) {
    match change {
        Change::Squares(list) => {
            let raw = if rotated {
                p.placement.rotated()
            } else {
                p.placement
            };
            for (sq, piece) in list {
                let own = if rotated { sq.rotated() } else { *sq };
                log.piece(square_to_index(own), piece_to_code(*piece), &raw, now);
            }
        }
        // The board sees no lever while the clock's cable is out.
        Change::Clock if p.clock_unplugged => {}
        Change::ClockLink => {}
        Change::Clock => {
            let Some(c) = p.clock else {
                return;
            };
            let side_of = |s: Side| match (s, white_side) {
                (Side::White, w) => w,
                (Side::Black, ClockSide::Left) => ClockSide::Right,
                (Side::Black, ClockSide::Right) => ClockSide::Left,
            };
            let (white, black) = c.display(now);
            log.clock(c.running.map(side_of), |halted| {
                if halted == white_side { white } else { black }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::eeprom::parse;
    use crate::trace::{SensorPiece, Square};

    fn sq(s: &str) -> Square {
        Square::from_name(s).expect("square")
    }

    #[test]
    fn changes_presses_and_tags_are_logged_in_order() {
        let t0 = Instant::now();
        let mut log = EepromLog::new();
        let mut raw = Placement::start();
        log.power_up(&raw);
        log.clock(Some(ClockSide::Left), |_| 0);
        raw.set(sq("e2"), None);
        log.piece(52, 0, &raw, t0);
        raw.set(sq("e4"), SensorPiece::from_char('P'));
        log.piece(36, 1, &raw, t0 + Duration::from_millis(100));
        log.clock(Some(ClockSide::Right), |s| {
            if s == ClockSide::Left { 178 } else { 180 }
        });
        // Back to the start position: tagged again only after more than two pieces left.
        raw.set(sq("e4"), None);
        log.piece(36, 0, &raw, t0 + Duration::from_secs(2));
        raw.set(sq("e2"), SensorPiece::from_char('P'));
        log.piece(52, 1, &raw, t0 + Duration::from_secs(3));
        let parsed = parse(&log.stream()).expect("the emulated log parses");
        assert_eq!(
            parsed.entries,
            vec![
                EeEntry::Tag(tag::POWER_UP),
                EeEntry::Tag(tag::START_POSITION),
                EeEntry::Piece {
                    index: 52,
                    code: 0,
                    quick: false
                },
                EeEntry::Piece {
                    index: 36,
                    code: 1,
                    quick: true
                },
                EeEntry::time(true, 178),
                EeEntry::Piece {
                    index: 36,
                    code: 0,
                    quick: false
                },
                EeEntry::Piece {
                    index: 52,
                    code: 1,
                    quick: false
                },
            ]
        );
    }

    #[test]
    fn the_ring_wraps_and_keeps_the_newest_entries() {
        let t0 = Instant::now();
        let mut log = EepromLog::new();
        let mut raw = Placement::start();
        log.power_up(&raw);
        // Lift and put back a knight many times: more than the ring holds.
        let n = RING_SIZE;
        for i in 0..n {
            let code = if i % 2 == 0 { 0 } else { 3 };
            raw.set(
                sq("b1"),
                (code != 0).then(|| SensorPiece::from_char('N')).flatten(),
            );
            log.piece(57, code, &raw, t0 + Duration::from_secs(i as u64));
        }
        let stream = log.stream();
        assert_eq!(stream.len(), RING_SIZE);
        let parsed = parse(&stream).expect("a wrapped ring parses");
        assert!(parsed.wrapped);
        assert_eq!(
            parsed.entries.last(),
            Some(&EeEntry::Piece {
                index: 57,
                code: 3,
                quick: false
            })
        );
        assert!(!parsed.entries.contains(&EeEntry::Tag(tag::POWER_UP)));
    }
}
