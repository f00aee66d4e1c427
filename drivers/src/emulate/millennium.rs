//! The emulated Millennium board: answers `V S W R L X T`, auto-reports changes.

use std::time::Instant;

use bytes::BytesMut;

use super::device::{Device, DeviceStatus};
use super::state::{Change, Physical};
use crate::millennium::{
    CommandDecoder, MillCommand, ParityMode, Reply, index_to_square, leds_for_squares,
    piece_to_char,
};
use crate::trace::Square;

#[derive(Debug)]
pub(crate) struct MillenniumDevice {
    decoder: CommandDecoder,
    buf: BytesMut,
    registers: [u8; 256],
    synced: bool,
    rotated: bool,
    status: DeviceStatus,
}

fn default_registers() -> [u8; 256] {
    let mut r = [0u8; 256];
    r[1] = 20;
    r
}

impl MillenniumDevice {
    pub(crate) fn new(rotated: bool) -> Self {
        MillenniumDevice {
            decoder: CommandDecoder::new(ParityMode::Odd),
            buf: BytesMut::new(),
            registers: default_registers(),
            synced: false,
            rotated,
            status: DeviceStatus::default(),
        }
    }

    fn raw(&self, sq: Square) -> Square {
        if self.rotated { sq.rotated() } else { sq }
    }

    fn status_reply(&self, p: &Physical) -> Reply {
        let mut s = [b'.'; 64];
        for (i, c) in s.iter_mut().enumerate() {
            if let Some(raw) = index_to_square(i as u8) {
                *c = piece_to_char(p.placement.get(self.raw(raw)));
            }
        }
        Reply::Status(s)
    }

    fn lit_squares(&self, patterns: &[u8; 81]) -> Vec<Square> {
        Square::all()
            .filter(|&sq| {
                let corners = leds_for_squares(&[self.raw(sq)], 1);
                corners
                    .iter()
                    .zip(patterns.iter())
                    .all(|(&c, &p)| c == 0 || p != 0)
            })
            .collect()
    }
}

impl Device for MillenniumDevice {
    fn on_bytes(&mut self, bytes: &[u8], p: &mut Physical, _now: Instant, out: &mut BytesMut) {
        self.buf.extend_from_slice(bytes);
        while let Some(cmd) = self.decoder.next_command(&mut self.buf) {
            self.status.commands += 1;
            match cmd {
                MillCommand::Version => Reply::Version {
                    major: 1,
                    minor: 0x10,
                }
                .encode(out),
                MillCommand::Status => {
                    self.status_reply(p).encode(out);
                    self.synced = true;
                }
                MillCommand::WriteRegister { addr, value } => {
                    self.registers[usize::from(addr)] = value;
                    Reply::RegisterWritten { addr, value }.encode(out);
                }
                MillCommand::ReadRegister { addr } => {
                    Reply::Register {
                        addr,
                        value: self.registers[usize::from(addr)],
                    }
                    .encode(out);
                }
                MillCommand::Leds { patterns, .. } => {
                    self.status.leds = self.lit_squares(&patterns);
                    Reply::Leds.encode(out);
                }
                MillCommand::LedsOff => {
                    self.status.leds.clear();
                    Reply::LedsOff.encode(out);
                }
                MillCommand::Reset => {
                    self.registers = default_registers();
                    self.status.leds.clear();
                    self.synced = false;
                }
            }
        }
    }

    fn render(&mut self, change: &Change, p: &Physical, _now: Instant, out: &mut BytesMut) {
        // Register 02 = 001 turns automatic reports off; every other mode reports changes
        // (the emulator does not repeat unchanged scans).
        if matches!(change, Change::Squares(_)) && self.registers[2] & 0x07 != 1 {
            self.status_reply(p).encode(out);
        }
    }

    fn tick(&mut self, _p: &Physical, _now: Instant, _out: &mut BytesMut) {}

    fn synced(&self) -> bool {
        self.synced
    }

    fn unplugged(&mut self) {
        self.synced = false;
        self.buf.clear();
    }

    fn status(&self) -> DeviceStatus {
        let mut s = self.status.clone();
        s.dropped_bytes = self.decoder.stats().dropped_bytes();
        s
    }
}
