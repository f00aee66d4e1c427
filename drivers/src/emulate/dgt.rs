//! The emulated DGT board with a DGT 3000 clock: answers commands, reports changes.

use std::time::Instant;

use bytes::BytesMut;

use super::device::{Device, DeviceStatus};
use super::eeprom::EepromLog;
use super::state::{Change, Physical};
use crate::dgt::{
    BoardMessage, Bwtime, BwtimeLayout, ClockAck, ClockCommand, ClockSide, ClockTimes, Command,
    CommandDecoder, SideTime, index_to_square, piece_to_code, square_to_index,
};
use crate::trace::{Side, Square};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Idle,
    Update,
    UpdateNice,
    UpdateBoard,
}

#[derive(Debug)]
pub(crate) struct DgtDevice {
    decoder: CommandDecoder,
    buf: BytesMut,
    mode: Mode,
    /// A board dump was sent since the last reset: with an update mode chosen (in either
    /// order) the host is in step and the trace plays.
    dumped: bool,
    rotated: bool,
    /// Where the lever points while the clock is stopped (the side that runs next).
    lever: ClockSide,
    clock_attached: bool,
    white_side: ClockSide,
    layout: BwtimeLayout,
    last_clock_sent: Option<Bwtime>,
    status: DeviceStatus,
    eeprom: EepromLog,
}

impl DgtDevice {
    pub(crate) fn new(
        rotated: bool,
        clock_attached: bool,
        white_side: ClockSide,
        layout: BwtimeLayout,
    ) -> Self {
        DgtDevice {
            decoder: CommandDecoder::new(),
            buf: BytesMut::new(),
            mode: Mode::Idle,
            dumped: false,
            rotated,
            lever: white_side,
            clock_attached,
            white_side,
            layout,
            last_clock_sent: None,
            status: DeviceStatus::default(),
            eeprom: EepromLog::new(),
        }
    }

    fn raw(&self, sq: Square) -> Square {
        if self.rotated { sq.rotated() } else { sq }
    }

    fn dump(&self, p: &Physical) -> BoardMessage {
        let mut codes = [0u8; 64];
        for (i, c) in codes.iter_mut().enumerate() {
            if let Some(raw) = index_to_square(i as u8) {
                *c = piece_to_code(p.placement.get(self.raw(raw)));
            }
        }
        BoardMessage::BoardDump(codes)
    }

    /// The reading a real clock would send now: status 0x08/0x09/0x12/0x13 (lever and turn
    /// bits together), flag bits on a side that reached zero.
    fn bwtime(&mut self, p: &Physical, now: Instant) -> Bwtime {
        let Some(c) = p
            .clock
            .filter(|_| self.clock_attached && !p.clock_unplugged)
        else {
            let t = ClockTimes {
                no_clock: true,
                ..ClockTimes::default()
            };
            return Bwtime::from_times(&t, self.layout);
        };
        let (w, b) = c.display(now);
        let (left, right) = if self.white_side == ClockSide::Left {
            (w, b)
        } else {
            (b, w)
        };
        let side = c.running.map(|s| {
            let white = s == Side::White;
            match (white, self.white_side) {
                (true, s) => s,
                (false, ClockSide::Left) => ClockSide::Right,
                (false, ClockSide::Right) => ClockSide::Left,
            }
        });
        if let Some(s) = side {
            self.lever = s;
        }
        let display = |secs: u32| SideTime {
            flag_fallen: secs == 0,
            flag_shown: secs == 0,
            ..SideTime::from_seconds(secs)
        };
        let (left, right) = (display(left), display(right));
        let t = match side {
            Some(s) => ClockTimes::running(left, right, s),
            None => ClockTimes::stopped(left, right, self.lever),
        };
        Bwtime::from_times(&t, self.layout)
    }

    fn clock_updates(&self) -> bool {
        matches!(self.mode, Mode::Update | Mode::UpdateNice)
    }

    fn on_clock_command(
        &mut self,
        cmd: ClockCommand,
        p: &mut Physical,
        now: Instant,
        out: &mut BytesMut,
    ) {
        if !self.clock_attached || p.clock_unplugged {
            return;
        }
        let set_times = matches!(cmd, ClockCommand::SetAndRun { .. });
        let ack = match &cmd {
            ClockCommand::Version => ClockAck([ClockAck::OK, cmd.id(), 0x20, 0]),
            _ => ClockAck::ok(cmd.id()),
        };
        match cmd {
            ClockCommand::Ascii { text, .. } => {
                self.status.clock_text = Some(String::from_utf8_lossy(&text).trim_end().to_owned());
            }
            ClockCommand::End => self.status.clock_text = None,
            ClockCommand::SetAndRun { left, right, mode } => {
                let secs = |h: crate::dgt::command::Hms| {
                    f64::from(u32::from(h.h & 0x0F) * 3600 + u32::from(h.m) * 60 + u32::from(h.s))
                };
                let (l, r) = (secs(left), secs(right));
                let (white, black) = if self.white_side == ClockSide::Left {
                    (l, r)
                } else {
                    (r, l)
                };
                let side_of = |cs: ClockSide| {
                    if cs == self.white_side {
                        Side::White
                    } else {
                        Side::Black
                    }
                };
                let running = if mode & 0x04 != 0 {
                    None
                } else if mode & 0x01 != 0 {
                    Some(side_of(ClockSide::Left))
                } else if mode & 0x02 != 0 {
                    Some(side_of(ClockSide::Right))
                } else {
                    None
                };
                let speed = p.clock.map_or(1.0, |c| c.speed);
                p.clock = Some(super::state::ClockState {
                    white,
                    black,
                    running,
                    since: now,
                    speed,
                });
            }
            _ => {}
        }
        // The board acknowledges clock commands only in UPDATE / UPDATE_NICE mode.
        if self.clock_updates() {
            BoardMessage::Bwtime(Bwtime::from_ack(&ack)).encode(out);
            if set_times {
                // The clock shows the new times: report them as a real board does.
                let b = self.bwtime(p, now);
                self.last_clock_sent = Some(b);
                BoardMessage::Bwtime(b).encode(out);
            }
        }
    }
}

impl Device for DgtDevice {
    fn on_bytes(&mut self, bytes: &[u8], p: &mut Physical, now: Instant, out: &mut BytesMut) {
        self.buf.extend_from_slice(bytes);
        while let Some(cmd) = self.decoder.next_command(&mut self.buf) {
            self.status.commands += 1;
            match cmd {
                Command::Reset => {
                    self.mode = Mode::Idle;
                    self.dumped = false;
                }
                Command::SendClock => {
                    let b = self.bwtime(p, now);
                    self.last_clock_sent = Some(b);
                    BoardMessage::Bwtime(b).encode(out);
                }
                Command::SendBoard => {
                    self.dump(p).encode(out);
                    self.dumped = true;
                }
                Command::Update => self.mode = Mode::Update,
                Command::UpdateNice => self.mode = Mode::UpdateNice,
                Command::UpdateBoard => self.mode = Mode::UpdateBoard,
                Command::SerialNumber => BoardMessage::SerialNumber("00042".into()).encode(out),
                Command::LongSerialNumber => {
                    BoardMessage::LongSerialNumber("0000000042".into()).encode(out)
                }
                Command::BusAddress => BoardMessage::BusAddress(42).encode(out),
                Command::Trademark => {
                    BoardMessage::Trademark("bugbridge DGT emulator".into()).encode(out)
                }
                Command::Version => BoardMessage::Version { major: 3, minor: 1 }.encode(out),
                Command::Battery => {
                    BoardMessage::Battery(vec![100, 0x7F, 0x7F, 0, 0, 0, 0, 0, 0]).encode(out)
                }
                Command::EeMoves => BoardMessage::EeMoves(self.eeprom.stream()).encode(out),
                Command::BusMode => {
                    self.mode = Mode::Idle;
                    self.dumped = false;
                }
                Command::SetLeds { pattern, from, to } => {
                    if pattern == 0 && from == 0x40 {
                        self.status.leds.clear();
                    } else if pattern == 1 {
                        for i in [from, to] {
                            if let Some(raw) = index_to_square(i) {
                                let sq = self.raw(raw);
                                if !self.status.leds.contains(&sq) {
                                    self.status.leds.push(sq);
                                }
                            }
                        }
                    }
                }
                Command::Clock(c) => self.on_clock_command(c, p, now, out),
            }
        }
    }

    fn render(&mut self, change: &Change, p: &Physical, now: Instant, out: &mut BytesMut) {
        match change {
            Change::Squares(list) if self.mode != Mode::Idle => {
                for (sq, piece) in list {
                    let index = square_to_index(self.raw(*sq));
                    BoardMessage::FieldUpdate {
                        index,
                        code: piece_to_code(*piece),
                    }
                    .encode(out);
                }
            }
            Change::Clock | Change::ClockLink if self.clock_updates() && self.clock_attached => {
                let b = self.bwtime(p, now);
                self.last_clock_sent = Some(b);
                BoardMessage::Bwtime(b).encode(out);
            }
            _ => {}
        }
    }

    fn record(&mut self, change: &Change, p: &Physical, now: Instant) {
        super::eeprom::record(
            &mut self.eeprom,
            change,
            p,
            now,
            self.rotated,
            self.white_side,
        );
    }

    fn power_up(&mut self, p: &Physical) {
        let raw = if self.rotated {
            p.placement.rotated()
        } else {
            p.placement
        };
        self.eeprom.power_up(&raw);
    }

    fn tick(&mut self, p: &Physical, now: Instant, out: &mut BytesMut) {
        if !(self.clock_updates() && self.clock_attached && p.clock.is_some_and(|c| c.speed > 0.0))
        {
            return;
        }
        let b = self.bwtime(p, now);
        if self.last_clock_sent != Some(b) {
            self.last_clock_sent = Some(b);
            BoardMessage::Bwtime(b).encode(out);
        }
    }

    fn synced(&self) -> bool {
        self.dumped && self.mode != Mode::Idle
    }

    fn unplugged(&mut self) {
        self.mode = Mode::Idle;
        self.dumped = false;
        self.buf.clear();
        self.last_clock_sent = None;
    }

    fn status(&self) -> DeviceStatus {
        let mut s = self.status.clone();
        s.dropped_bytes = self.decoder.stats().dropped_bytes();
        s
    }
}
