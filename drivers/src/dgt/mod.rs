//! DGT e-board protocol, including a DGT XL / 3000 clock relayed through the board
//! (as DGT's `dgtbrd.h` describes it).
//!
//! * [`board_msg`]: board → host messages ([`BoardMessage`]) and their resynchronising
//!   [`DgtDecoder`].
//! * [`clock`]: the BWTIME payload: times vs clock ack, both side layouts ([`Bwtime`]).
//! * [`command`]: host → board commands ([`Command`], [`ClockCommand`]) and a decoder for them
//!   (used by the emulator).
//! * [`eeprom`]: the board's own event log (`EE_MOVES`): [`EeLog`], [`EeEntry`].
//!
//! Square indices here are the board's own (0 = a8 … 63 = h1 in normal orientation); see
//! [`index_to_square`].

pub mod board_msg;
pub mod clock;
pub mod command;
pub mod eeprom;

pub use board_msg::{BoardMessage, DgtDecoder};
pub use clock::{Bwtime, BwtimeLayout, ClockAck, ClockMessage, ClockSide, ClockTimes, SideTime};
pub use command::{ClockCommand, Command, CommandDecoder};
pub use eeprom::{EeEntry, EeLog, EeLogError};

use crate::trace::{SensorPiece, Square};

/// Message ids (board → host), with bit 7 set.
pub mod id {
    /// 64-square board dump.
    pub const BOARD_DUMP: u8 = 0x86;
    /// Clock times or clock ack.
    pub const BWTIME: u8 = 0x8D;
    /// One square changed.
    pub const FIELD_UPDATE: u8 = 0x8E;
    /// EEPROM event log.
    pub const EE_MOVES: u8 = 0x8F;
    /// Bus address.
    pub const BUSADRES: u8 = 0x90;
    /// Serial number (5 digits).
    pub const SERIALNR: u8 = 0x91;
    /// Trademark text.
    pub const TRADEMARK: u8 = 0x92;
    /// Firmware version.
    pub const VERSION: u8 = 0x93;
    /// Draughts 50-square dump (black side).
    pub const BOARD_DUMP_50B: u8 = 0x94;
    /// Draughts 50-square dump (white side).
    pub const BOARD_DUMP_50W: u8 = 0x95;
    /// Battery status (Bluetooth boards).
    pub const BATTERY_STATUS: u8 = 0xA0;
    /// Long serial number (10 digits).
    pub const LONG_SERIALNR: u8 = 0xA2;
}

/// The sensor piece for a DGT piece code (`0x01` white pawn … `0x0C` black queen).
/// Empty (`0`) and the special codes `0x0D..=0x0F` give `None`, as picochess treats them.
#[must_use]
pub fn code_to_piece(code: u8) -> Option<SensorPiece> {
    let letter = match code & 0x0F {
        0x01 => b'P',
        0x02 => b'R',
        0x03 => b'N',
        0x04 => b'B',
        0x05 => b'K',
        0x06 => b'Q',
        0x07 => b'p',
        0x08 => b'r',
        0x09 => b'n',
        0x0A => b'b',
        0x0B => b'k',
        0x0C => b'q',
        _ => return None,
    };
    SensorPiece::from_ascii(letter)
}

/// The DGT piece code for a sensor piece (`None` = empty = `0`).
#[must_use]
pub fn piece_to_code(piece: Option<SensorPiece>) -> u8 {
    match piece.map(SensorPiece::ascii) {
        Some(b'P') => 0x01,
        Some(b'R') => 0x02,
        Some(b'N') => 0x03,
        Some(b'B') => 0x04,
        Some(b'K') => 0x05,
        Some(b'Q') => 0x06,
        Some(b'p') => 0x07,
        Some(b'r') => 0x08,
        Some(b'n') => 0x09,
        Some(b'b') => 0x0A,
        Some(b'k') => 0x0B,
        Some(b'q') => 0x0C,
        _ => 0x00,
    }
}

/// The square of a DGT board index (0 = a8, 7 = h8, 56 = a1, 63 = h1), normal orientation.
#[must_use]
pub fn index_to_square(index: u8) -> Option<Square> {
    if index >= 64 {
        return None;
    }
    Square::from_coords(index % 8, 7 - index / 8)
}

/// The DGT board index of a square (normal orientation).
#[must_use]
pub fn square_to_index(sq: Square) -> u8 {
    (7 - sq.rank()) * 8 + sq.file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_mapping_matches_the_header_table() {
        assert_eq!(index_to_square(0), Square::from_name("a8"));
        assert_eq!(index_to_square(7), Square::from_name("h8"));
        assert_eq!(index_to_square(8), Square::from_name("a7"));
        assert_eq!(index_to_square(56), Square::from_name("a1"));
        assert_eq!(index_to_square(63), Square::from_name("h1"));
        assert_eq!(index_to_square(64), None);
        for sq in Square::all() {
            assert_eq!(index_to_square(square_to_index(sq)), Some(sq));
        }
    }

    #[test]
    fn piece_codes_round_trip() {
        for code in 0..=0x0Cu8 {
            assert_eq!(piece_to_code(code_to_piece(code)), code);
        }
        assert_eq!(code_to_piece(0x0D), None);
        assert_eq!(code_to_piece(0x0F), None);
    }
}
