//! Certabo RFID boards (and the framing TabuTronic boards share): Silicon Labs CP210x
//! bridge `10c4:ea60`, 38400 baud 8N1. The host sends nothing to start the data: the board
//! reports a reading every so often on its own.
//!
//! * [`frame`]: the resynchronising decoder of readings and `L`/`D` acknowledgements.
//! * [`led`]: LED commands (8-byte bitmaps, RGB frames).
//! * [`calibration`]: which RFID tag is which piece, learnt from start positions.
//! * [`filter`]: a square changes only after consistent readings (noise on empty squares,
//!   misread tags).
//!
//! Each square of a reading carries the 5-byte id of the tag read there, squares a8, b8 …
//! h8, a7 … h1. Empty squares read `0 0 0 0 0` or random noise; only a calibration turns
//! ids into pieces, and an id the calibration does not know is no piece.

pub mod calibration;
pub mod filter;
pub mod frame;
pub mod led;
pub mod store;

pub use calibration::{Calibration, CalibrationError, Calibrator};
pub use filter::SquareFilter;
pub use frame::{Expect, FrameDecoder, LedAck, Message, RankBits, TagId, TagReading};

use crate::trace::Square;

/// USB vendor id of the CP210x bridge in Certabo and TabuTronic boards.
pub const USB_VID: u16 = 0x10C4;
/// USB product id of the CP210x bridge.
pub const USB_PID: u16 = 0xEA60;
/// Line speed.
pub const BAUD: u32 = 38400;

/// The square of wire position `i` (0 = a8, 7 = h8, 8 = a7 … 63 = h1).
#[must_use]
pub fn index_to_square(i: usize) -> Option<Square> {
    let i = u8::try_from(i).ok().filter(|&i| i < 64)?;
    Square::from_coords(i % 8, 7 - i / 8)
}

/// The wire position of a square (a8 first).
#[must_use]
pub fn square_to_index(sq: Square) -> usize {
    usize::from(7 - sq.rank()) * 8 + usize::from(sq.file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_order_is_a8_first_to_h1() {
        let name = |i| index_to_square(i).expect("square").to_string();
        assert_eq!(
            [name(0), name(7), name(8), name(60), name(63)],
            ["a8", "h8", "a7", "e1", "h1"].map(String::from)
        );
        for i in 0..64 {
            assert_eq!(square_to_index(index_to_square(i).expect("square")), i);
        }
        assert_eq!(index_to_square(64), None);
    }
}
