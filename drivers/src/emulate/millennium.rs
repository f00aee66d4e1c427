//! The emulated Millennium board: answers `V S W R L X T`, auto-reports changes.

use std::time::Instant;

use bytes::BytesMut;

use super::device::{Device, DeviceStatus};
use super::state::{Change, Physical};
use crate::millennium::{
    CommandDecoder, MillCommand, ParityMode, Reply, apply_parity, index_to_square,
    leds_for_squares, piece_to_char,
};
use crate::trace::Square;

#[derive(Debug)]
pub(crate) struct MillenniumDevice {
    decoder: CommandDecoder,
    buf: BytesMut,
    registers: [u8; 256],
    synced: bool,
    rotated: bool,
    parity: ParityMode,
    status: DeviceStatus,
}

fn default_registers() -> [u8; 256] {
    let mut r = [0u8; 256];
    r[1] = 20;
    r
}

impl MillenniumDevice {
    /// `rotated`: the status goes a8 first (a board turned 180°; by default h1 first, as
    /// real boards send it). `parity`: `Odd` sends and demands the parity bit, `Ignore`
    /// sends 7-bit characters without it and accepts anything, `Auto` accepts anything
    /// and answers as the host sends.
    pub(crate) fn new(rotated: bool, parity: ParityMode) -> Self {
        MillenniumDevice {
            parity,
            decoder: CommandDecoder::new(parity),
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
        let from = out.len();
        self.on_commands(bytes, p, out);
        self.parity_out(&mut out[from..]);
    }

    fn render(&mut self, change: &Change, p: &Physical, _now: Instant, out: &mut BytesMut) {
        // Register 02 = 001 turns automatic reports off; every other mode reports changes
        // (the emulator does not repeat unchanged scans).
        if matches!(change, Change::Squares(_)) && self.registers[2] & 0x07 != 1 {
            let from = out.len();
            self.status_reply(p).encode(out);
            self.parity_out(&mut out[from..]);
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

impl MillenniumDevice {
    /// Re-encodes replies for a device without parity (or, in `Auto`, a host without it).
    fn parity_out(&self, bytes: &mut [u8]) {
        let mode = match self.parity {
            ParityMode::Auto => self.decoder.detected_parity().unwrap_or(ParityMode::Odd),
            other => other,
        };
        apply_parity(bytes, mode);
    }

    fn on_commands(&mut self, bytes: &[u8], p: &mut Physical, out: &mut BytesMut) {
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
}
