//! Millennium ChessLink / Exclusive / Performance / eONE protocol (the ChessLink protocol).
//!
//! * [`frame`]: odd parity in bit 7, the two-hex-character XOR block check, and the
//!   resynchronising framer shared by both directions.
//! * [`reply`]: board → host replies ([`Reply`]) and [`ReplyDecoder`].
//! * [`command`]: host → board commands ([`MillCommand`]) and [`CommandDecoder`] (emulator).
//!
//! Status (`s`) characters are kept in wire order. This module reads index 0 as a8 (the
//! protocol document's order, see [`index_to_square`]); boards that send h1 first (what three
//! implementations report) look like a board turned 180°, which the session's orientation
//! detection undoes.

pub mod command;
pub mod frame;
pub mod reply;

pub use command::{CommandDecoder, MillCommand};
pub use frame::ParityMode;
pub use reply::{Reply, ReplyDecoder};

use crate::trace::{SensorPiece, Square};

/// The square of status index `i` (0 = a8 … 63 = h1, the document's order).
#[must_use]
pub fn index_to_square(i: u8) -> Option<Square> {
    crate::dgt::index_to_square(i)
}

/// The status index of a square (document order).
#[must_use]
pub fn square_to_index(sq: Square) -> u8 {
    crate::dgt::square_to_index(sq)
}

/// The sensor piece for a status character (`.` and anything else = empty).
#[must_use]
pub fn char_to_piece(c: u8) -> Option<SensorPiece> {
    SensorPiece::from_ascii(c)
}

/// The status character for a sensor piece.
#[must_use]
pub fn piece_to_char(p: Option<SensorPiece>) -> u8 {
    p.map_or(b'.', SensorPiece::ascii)
}

/// LED patterns (81 corners, document frame) lighting the corners of `squares` with
/// `pattern` (`0xFF` = steady on). LED number = 9·c + k, c = corner column from the a-file
/// edge, k = corner row from the rank-8 edge.
#[must_use]
pub fn leds_for_squares(squares: &[Square], pattern: u8) -> [u8; 81] {
    let mut leds = [0u8; 81];
    for sq in squares {
        let f = usize::from(sq.file());
        let r = usize::from(sq.rank()) + 1;
        for c in [f, f + 1] {
            for k in [8 - r, 9 - r] {
                leds[9 * c + k] = pattern;
            }
        }
    }
    leds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn led_corners_match_the_document() {
        let a8 = Square::from_name("a8").expect("a8");
        let leds = leds_for_squares(&[a8], 0xFF);
        // LED 1 (index 0) is the a8 corner; a8's corners are 0, 1, 9, 10.
        let lit: Vec<usize> = (0..81).filter(|&i| leds[i] != 0).collect();
        assert_eq!(lit, vec![0, 1, 9, 10]);
        let h1 = Square::from_name("h1").expect("h1");
        let lit: Vec<usize> = (0..81)
            .filter(|&i| leds_for_squares(&[h1], 1)[i] != 0)
            .collect();
        assert_eq!(lit, vec![70, 71, 79, 80]);
    }
}
