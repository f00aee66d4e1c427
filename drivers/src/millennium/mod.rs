//! Millennium ChessLink / Exclusive / Performance / eONE protocol (the ChessLink protocol).
//!
//! * [`frame`]: odd parity in bit 7, the two-hex-character XOR block check, and the
//!   resynchronising framer shared by both directions.
//! * [`reply`]: board → host replies ([`Reply`]) and [`ReplyDecoder`].
//! * [`command`]: host → board commands ([`MillCommand`]) and [`CommandDecoder`] (emulator).
//!
//! Status (`s`) characters are kept in wire order. This module reads index 0 as **h1** (h1,
//! g1 … a1, h2 … a8, see [`index_to_square`]): what real boards send and what python-mchess
//! (in its default "cable right" orientation), chesslinkdriver and the DGT Centaur's ChessLink
//! emulation read. The protocol document's a8-first order is the same board turned 180°,
//! which the session's orientation detection undoes. The LED grid turns with it.

pub mod command;
pub mod frame;
pub mod reply;

pub use command::{CommandDecoder, MillCommand};
pub use frame::{ParityMode, apply_parity};
pub use reply::{Reply, ReplyDecoder};

use crate::trace::{SensorPiece, Square};

/// The square of status index `i` (0 = h1, 1 = g1 … 7 = a1, 8 = h2 … 63 = a8).
#[must_use]
pub fn index_to_square(i: u8) -> Option<Square> {
    crate::dgt::index_to_square(i).map(Square::rotated)
}

/// The status index of a square (h1 first).
#[must_use]
pub fn square_to_index(sq: Square) -> u8 {
    crate::dgt::square_to_index(sq.rotated())
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

/// LED patterns (81 corners) lighting the corners of `squares` with `pattern` (`0xFF` =
/// steady on), in the frame of the h1-first status: LED number = 9·c + k, c = corner column
/// from the h-file edge, k = corner row from the rank-1 edge (the document's a8-frame
/// numbering turned 180°, as python-mchess lights them).
#[must_use]
pub fn leds_for_squares(squares: &[Square], pattern: u8) -> [u8; 81] {
    let mut leds = [0u8; 81];
    for sq in squares {
        let sq = sq.rotated();
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
    fn led_corners_match_python_mchess() {
        // python-mchess (cable right) lights square (file x, rank y) at LEDs 9·Y + X with
        // Y in {7-x, 8-x}, X in {y, y+1}: h1 (7, 0) is 0, 1, 9, 10.
        let h1 = Square::from_name("h1").expect("h1");
        let leds = leds_for_squares(&[h1], 0xFF);
        let lit: Vec<usize> = (0..81).filter(|&i| leds[i] != 0).collect();
        assert_eq!(lit, vec![0, 1, 9, 10]);
        let a8 = Square::from_name("a8").expect("a8");
        let lit: Vec<usize> = (0..81)
            .filter(|&i| leds_for_squares(&[a8], 1)[i] != 0)
            .collect();
        assert_eq!(lit, vec![70, 71, 79, 80]);
    }

    #[test]
    fn status_index_zero_is_h1() {
        let name = |i| index_to_square(i).expect("square").to_string();
        assert_eq!(
            [name(0), name(7), name(8), name(63)],
            ["h1", "a1", "h2", "a8"].map(String::from)
        );
        for i in 0..64 {
            assert_eq!(square_to_index(index_to_square(i).expect("square")), i);
        }
    }
}
