//! The BWTIME (`0x8D`) payload: clock times or a clock ack (DGT's `dgtbrd.h`).
//!
//! Two readings of the side order exist: the 2011+ header and every implementation put the
//! **right** side in p0..p2 ([`BwtimeLayout::Modern`], the default); the v1.03 header puts the
//! left side there ([`BwtimeLayout::V103`]). They cannot be told apart from the bytes, so the
//! layout is a setting. Acks are recognised by a low nibble of `0x0A` in p0 or p3, which no
//! hours digit can have; an all-zero payload is [`ClockMessage::Empty`] and must be ignored.

/// A side of the clock as the clock sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockSide {
    /// The left side.
    Left,
    /// The right side.
    Right,
}

impl ClockSide {
    /// The other side.
    #[must_use]
    pub const fn other(self) -> ClockSide {
        match self {
            ClockSide::Left => ClockSide::Right,
            ClockSide::Right => ClockSide::Left,
        }
    }

    /// `"left"` or `"right"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ClockSide::Left => "left",
            ClockSide::Right => "right",
        }
    }
}

/// Which side is in p0..p2 of a BWTIME message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BwtimeLayout {
    /// Right side in p0..p2, left in p3..p5 (2011+ header, picochess, asyncdgt).
    #[default]
    Modern,
    /// Left side in p0..p2, right in p3..p5 (v1.03 header, 1998).
    V103,
}

/// One side's display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SideTime {
    /// Hours, 0–9.
    pub hours: u8,
    /// Minutes, 0–59.
    pub minutes: u8,
    /// Seconds, 0–59.
    pub seconds: u8,
    /// Flag fallen, clock blocked at 0.
    pub flag_fallen: bool,
    /// Time-per-move (increment/delay) indicator.
    pub time_per_move: bool,
    /// Flag shown on the display (the clock may still run).
    pub flag_shown: bool,
}

impl SideTime {
    /// A side showing `secs` seconds (clamped to 9:59:59), no flags.
    #[must_use]
    pub fn from_seconds(secs: u32) -> SideTime {
        let secs = secs.min(9 * 3600 + 59 * 60 + 59);
        SideTime {
            hours: (secs / 3600) as u8,
            minutes: (secs / 60 % 60) as u8,
            seconds: (secs % 60) as u8,
            ..SideTime::default()
        }
    }

    /// The remaining time in seconds.
    #[must_use]
    pub fn total_seconds(&self) -> u32 {
        u32::from(self.hours) * 3600 + u32::from(self.minutes) * 60 + u32::from(self.seconds)
    }

    fn decode(h: u8, m: u8, s: u8) -> Option<SideTime> {
        let hours = h & 0x0F;
        let minutes = from_bcd(m)?;
        let seconds = from_bcd(s)?;
        if hours > 9 || minutes > 59 || seconds > 59 {
            return None;
        }
        Some(SideTime {
            hours,
            minutes,
            seconds,
            flag_fallen: h & 0x10 != 0,
            time_per_move: h & 0x20 != 0,
            flag_shown: h & 0x40 != 0,
        })
    }

    fn encode(&self) -> [u8; 3] {
        let mut h = self.hours.min(9);
        if self.flag_fallen {
            h |= 0x10;
        }
        if self.time_per_move {
            h |= 0x20;
        }
        if self.flag_shown {
            h |= 0x40;
        }
        [
            h,
            to_bcd(self.minutes.min(59)),
            to_bcd(self.seconds.min(59)),
        ]
    }
}

fn from_bcd(b: u8) -> Option<u8> {
    let (hi, lo) = (b >> 4, b & 0x0F);
    if hi > 9 || lo > 9 {
        None
    } else {
        Some(hi * 10 + lo)
    }
}

fn to_bcd(v: u8) -> u8 {
    ((v / 10) << 4) | (v % 10)
}

/// A clock-times reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockTimes {
    /// The left side's display.
    pub left: SideTime,
    /// The right side's display.
    pub right: SideTime,
    /// p6 bit0: the clock runs (0 = stopped with start/stop).
    pub running: bool,
    /// p6 bit1: the lever's right side is up.
    pub lever_right_up: bool,
    /// p6 bit2: battery low.
    pub battery_low: bool,
    /// p6 bit3: the left player's turn (what real clocks send; the 2015 header edit says
    /// the opposite, see `docs/eboards.md`, "The DGT clock's running side").
    pub left_turn: bool,
    /// p6 bit4: the right player's turn.
    pub right_turn: bool,
    /// p6 bit5: no clock connected, reading invalid.
    pub no_clock: bool,
}

impl ClockTimes {
    /// The side whose time runs, or `None` when the clock is stopped.
    ///
    /// The lever bit decides: real clocks set bit1 exactly while the right time falls (1,549
    /// of 1,549 readings of three recorded games). The turn bits are a cross-check
    /// ([`ClockTimes::turn_side`], [`ClockTimes::turn_disagrees`]); the session settles a
    /// disagreement by the falling time.
    #[must_use]
    pub fn running_side(&self) -> Option<ClockSide> {
        self.running.then_some(self.lever_side())
    }

    /// The side the lever bit points at (whose time runs while the clock runs).
    #[must_use]
    pub fn lever_side(&self) -> ClockSide {
        if self.lever_right_up {
            ClockSide::Right
        } else {
            ClockSide::Left
        }
    }

    /// The side the turn bits name, when exactly one of them is set.
    #[must_use]
    pub fn turn_side(&self) -> Option<ClockSide> {
        match (self.left_turn, self.right_turn) {
            (true, false) => Some(ClockSide::Left),
            (false, true) => Some(ClockSide::Right),
            _ => None,
        }
    }

    /// True when the turn bits name one side and the lever the other.
    #[must_use]
    pub fn turn_disagrees(&self) -> bool {
        self.turn_side().is_some_and(|t| t != self.lever_side())
    }

    /// A reading where `side` runs, with lever and turn bits as a real clock sends them:
    /// status `0x09` (left runs) or `0x13` (right runs).
    #[must_use]
    pub fn running(left: SideTime, right: SideTime, side: ClockSide) -> ClockTimes {
        ClockTimes {
            running: true,
            ..ClockTimes::stopped(left, right, side)
        }
    }

    /// A stopped reading with the lever towards `lever` (the side that runs when the clock
    /// is started): status `0x08` (left) or `0x12` (right), as a real clock sends it.
    #[must_use]
    pub fn stopped(left: SideTime, right: SideTime, lever: ClockSide) -> ClockTimes {
        ClockTimes {
            left,
            right,
            running: false,
            lever_right_up: lever == ClockSide::Right,
            battery_low: false,
            left_turn: lever == ClockSide::Left,
            right_turn: lever == ClockSide::Right,
            no_clock: false,
        }
    }

    /// [`ClockTimes::running`] for `Some(side)`, [`ClockTimes::stopped`] with the lever on
    /// the left for `None`.
    #[must_use]
    pub fn with_running(left: SideTime, right: SideTime, side: Option<ClockSide>) -> ClockTimes {
        match side {
            Some(s) => ClockTimes::running(left, right, s),
            None => ClockTimes::stopped(left, right, ClockSide::Left),
        }
    }

    /// The status byte p6.
    #[must_use]
    pub fn status(&self) -> u8 {
        u8::from(self.running)
            | u8::from(self.lever_right_up) << 1
            | u8::from(self.battery_low) << 2
            | u8::from(self.left_turn) << 3
            | u8::from(self.right_turn) << 4
            | u8::from(self.no_clock) << 5
    }
}

/// A clock ack, rebuilt from the payload (§1.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockAck(pub [u8; 4]);

impl ClockAck {
    /// ack0 = `0x10`: a normal ack.
    pub const OK: u8 = 0x10;
    /// ack1 of an unsolicited "button pressed" ack.
    pub const BUTTON: u8 = 0x88;
    /// ack1 of an unsolicited "clock ready" ack.
    pub const READY: u8 = 0x81;

    /// A normal ack for clock command `cmd`.
    #[must_use]
    pub fn ok(cmd: u8) -> ClockAck {
        ClockAck([Self::OK, cmd, 0, 0])
    }

    /// True when the clock reports an error (ack0 `0x40`, or `0x20` as seen on an XL).
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.0[0] == 0x40 || self.0[0] == 0x20
    }

    /// The echoed command id, for solicited acks (ack1 < 0x80).
    #[must_use]
    pub fn command(&self) -> Option<u8> {
        (self.0[1] < 0x80).then_some(self.0[1])
    }

    /// The clock's version `(major, minor)` when this acks a VERSION command.
    #[must_use]
    pub fn version(&self) -> Option<(u8, u8)> {
        (self.0[1] == 0x09).then_some((self.0[2] >> 4, self.0[2] & 0x0F))
    }
}

/// What a BWTIME message says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMessage {
    /// All-zero payload (seen right after clock commands): ignore it.
    Empty,
    /// A clock ack.
    Ack(ClockAck),
    /// A times reading.
    Times(ClockTimes),
    /// A times reading with an impossible value (hours > 9, minutes or seconds > 59, bad BCD).
    Invalid,
}

/// The raw seven payload bytes of a BWTIME message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bwtime(pub [u8; 7]);

impl Bwtime {
    /// Tells times from ack and decodes either.
    #[must_use]
    pub fn classify(&self, layout: BwtimeLayout) -> ClockMessage {
        let p = self.0;
        if p == [0; 7] {
            return ClockMessage::Empty;
        }
        if p[0] & 0x0F == 0x0A || p[3] & 0x0F == 0x0A {
            return ClockMessage::Ack(ClockAck([
                (p[1] & 0x7F) | ((p[3] << 3) & 0x80),
                (p[2] & 0x7F) | ((p[3] << 2) & 0x80),
                (p[4] & 0x7F) | ((p[0] << 3) & 0x80),
                (p[5] & 0x7F) | ((p[0] << 2) & 0x80),
            ]));
        }
        let (Some(first), Some(second)) = (
            SideTime::decode(p[0], p[1], p[2]),
            SideTime::decode(p[3], p[4], p[5]),
        ) else {
            return ClockMessage::Invalid;
        };
        let (left, right) = match layout {
            BwtimeLayout::Modern => (second, first),
            BwtimeLayout::V103 => (first, second),
        };
        let s = p[6];
        ClockMessage::Times(ClockTimes {
            left,
            right,
            running: s & 0x01 != 0,
            lever_right_up: s & 0x02 != 0,
            battery_low: s & 0x04 != 0,
            left_turn: s & 0x08 != 0,
            right_turn: s & 0x10 != 0,
            no_clock: s & 0x20 != 0,
        })
    }

    /// The payload of a times reading in `layout`.
    #[must_use]
    pub fn from_times(t: &ClockTimes, layout: BwtimeLayout) -> Bwtime {
        let (first, second) = match layout {
            BwtimeLayout::Modern => (t.right.encode(), t.left.encode()),
            BwtimeLayout::V103 => (t.left.encode(), t.right.encode()),
        };
        Bwtime([
            first[0],
            first[1],
            first[2],
            second[0],
            second[1],
            second[2],
            t.status(),
        ])
    }

    /// The payload of an ack (the inverse of the rebuild in §1.7).
    #[must_use]
    pub fn from_ack(a: &ClockAck) -> Bwtime {
        let [a0, a1, a2, a3] = a.0;
        let p0 = 0x0A | ((a2 & 0x80) >> 3) | ((a3 & 0x80) >> 2);
        let p3 = 0x0A | ((a0 & 0x80) >> 3) | ((a1 & 0x80) >> 2);
        Bwtime([p0, a0 & 0x7F, a1 & 0x7F, p3, a2 & 0x7F, a3 & 0x7F, 0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(msg: ClockMessage) -> ClockTimes {
        match msg {
            ClockMessage::Times(t) => t,
            other => panic!("not times: {other:?}"),
        }
    }

    #[test]
    fn modern_layout_puts_right_first() {
        let p = Bwtime([
            0x00, // p0: right hours 0, no flags
            0x02, // p1: right minutes 02 (BCD)
            0x59, // p2: right seconds 59 (BCD)
            0x01, // p3: left hours 1
            0x30, // p4: left minutes 30
            0x05, // p5: left seconds 05
            0x19, // p6: bit0 running, bit3 and bit4 both set (turn bits ambiguous)
        ]);
        let t = times(p.classify(BwtimeLayout::Modern));
        assert_eq!(t.right.total_seconds(), 179);
        assert_eq!(t.left.total_seconds(), 3600 + 30 * 60 + 5);
        assert!(t.running);
        let v = times(p.classify(BwtimeLayout::V103));
        assert_eq!(v.left.total_seconds(), 179);
        assert_eq!(v.right.total_seconds(), 5405);
    }

    #[test]
    fn running_side_follows_the_lever_and_turn_bits_cross_check() {
        let mut t = ClockTimes::with_running(
            SideTime::from_seconds(1),
            SideTime::from_seconds(2),
            Some(ClockSide::Right),
        );
        assert_eq!(t.running_side(), Some(ClockSide::Right));
        assert!(!t.turn_disagrees());
        t.right_turn = false;
        t.left_turn = true;
        assert_eq!(t.running_side(), Some(ClockSide::Right), "lever decides");
        assert!(t.turn_disagrees());
        t.left_turn = false;
        assert!(!t.turn_disagrees(), "no turn bit: nothing to disagree with");
        t.lever_right_up = false;
        assert_eq!(t.running_side(), Some(ClockSide::Left));
        t.running = false;
        assert_eq!(t.running_side(), None);
    }

    /// Readings copied byte for byte from a real DGT board with a DGT clock
    /// (`dgt-recordings/1.inbytes`, a 3 min + 2 s game): p6 is only ever 0x08, 0x09, 0x12 or
    /// 0x13, the left time falls under 0x09 and the right under 0x13.
    #[test]
    fn real_clock_readings_run_the_side_whose_time_falls() {
        let left_falls = [
            Bwtime([0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x09]), // left 3:01, right 3:02
            Bwtime([0x20, 0x03, 0x02, 0x20, 0x03, 0x00, 0x09]), // left 3:00
        ];
        let right_falls = [
            Bwtime([0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x13]), // right 3:02, left 3:01
            Bwtime([0x20, 0x03, 0x01, 0x20, 0x03, 0x01, 0x13]), // right 3:01
        ];
        for (pair, side) in [
            (left_falls, ClockSide::Left),
            (right_falls, ClockSide::Right),
        ] {
            let a = times(pair[0].classify(BwtimeLayout::Modern));
            let b = times(pair[1].classify(BwtimeLayout::Modern));
            let fell = if b.left.total_seconds() < a.left.total_seconds() {
                ClockSide::Left
            } else {
                ClockSide::Right
            };
            assert_eq!(fell, side);
            for t in [a, b] {
                assert_eq!(t.running_side(), Some(side), "{t:?}");
                assert_eq!(t.turn_side(), Some(side), "{t:?}");
                assert!(t.right.time_per_move && t.left.time_per_move);
            }
        }
        // Stopped before the first press: lever left, left's turn (0x08); stopped with the
        // lever right (0x12).
        let stopped = times(
            Bwtime([0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x08]).classify(BwtimeLayout::Modern),
        );
        assert_eq!(stopped.running_side(), None);
        assert_eq!(stopped.turn_side(), Some(ClockSide::Left));
        let stopped_right = times(
            Bwtime([0x20, 0x01, 0x46, 0x20, 0x01, 0x49, 0x12]).classify(BwtimeLayout::Modern),
        );
        assert_eq!(stopped_right.turn_side(), Some(ClockSide::Right));
        assert!(!stopped_right.turn_disagrees());
    }

    #[test]
    fn readings_built_for_a_side_carry_the_real_status_values() {
        let (l, r) = (SideTime::from_seconds(61), SideTime::from_seconds(62));
        assert_eq!(ClockTimes::running(l, r, ClockSide::Left).status(), 0x09);
        assert_eq!(ClockTimes::running(l, r, ClockSide::Right).status(), 0x13);
        assert_eq!(ClockTimes::stopped(l, r, ClockSide::Left).status(), 0x08);
        assert_eq!(ClockTimes::stopped(l, r, ClockSide::Right).status(), 0x12);
    }

    #[test]
    fn ack_is_told_apart_from_times() {
        // The real log of picochess issue #108: ack (16, 9, 32, 0), DGT 3000 version 2.0.
        let p = Bwtime([
            0x0A, // p0: low nibble 0x0A marks an ack; bits 4/5 = top bits of ack2/ack3 (0)
            0x10, // p1: ack0 = 0x10 (normal ack)
            0x09, // p2: ack1 = 0x09 (VERSION echoed)
            0x0A, // p3: low nibble 0x0A; bits 4/5 = top bits of ack0/ack1 (0)
            0x20, // p4: ack2 = 0x20: version 2.0
            0x00, // p5: ack3
            0x00, // p6
        ]);
        let ClockMessage::Ack(ack) = p.classify(BwtimeLayout::Modern) else {
            panic!("not an ack");
        };
        assert_eq!(ack.0, [0x10, 0x09, 0x20, 0x00]);
        assert_eq!(ack.version(), Some((2, 0)));
        assert!(!ack.is_error());
        // Ack recognised through p3 alone too.
        let q = Bwtime([0x00, 0x40, 0x0A, 0x0A, 0x00, 0x00, 0x00]);
        let ClockMessage::Ack(nak) = q.classify(BwtimeLayout::V103) else {
            panic!("not an ack")
        };
        assert!(nak.is_error());
        assert_eq!(nak.command(), Some(0x0A));
    }

    #[test]
    fn ack_top_bits_round_trip() {
        for ack in [
            ClockAck([0x10, 0x88, 0x45, 0x35]),
            ClockAck([0x90, 0x81, 0xC5, 0xB1]),
            ClockAck::ok(0x0C),
        ] {
            assert_eq!(
                Bwtime::from_ack(&ack).classify(BwtimeLayout::Modern),
                ClockMessage::Ack(ack)
            );
        }
    }

    #[test]
    fn all_zero_is_empty_and_bad_bcd_is_invalid() {
        assert_eq!(
            Bwtime([0; 7]).classify(BwtimeLayout::Modern),
            ClockMessage::Empty
        );
        let bad_minutes = Bwtime([
            0x00, // p0
            0x60, // p1: minutes 60: impossible
            0x00, 0x00, 0x00, 0x00, 0x01,
        ]);
        assert_eq!(
            bad_minutes.classify(BwtimeLayout::Modern),
            ClockMessage::Invalid
        );
        let bad_bcd = Bwtime([0x00, 0x0F, 0x00, 0x00, 0x00, 0x00, 0x01]);
        assert_eq!(
            bad_bcd.classify(BwtimeLayout::Modern),
            ClockMessage::Invalid
        );
    }

    #[test]
    fn times_round_trip_in_both_layouts() {
        let mut t = ClockTimes::with_running(
            SideTime::from_seconds(9 * 3600 + 3599),
            SideTime::from_seconds(61),
            Some(ClockSide::Left),
        );
        t.right.flag_shown = true;
        t.battery_low = true;
        for layout in [BwtimeLayout::Modern, BwtimeLayout::V103] {
            assert_eq!(
                Bwtime::from_times(&t, layout).classify(layout),
                ClockMessage::Times(t)
            );
        }
    }
}
