//! TabuTronic Sentio (and Spectrum) boards: the Certabo framing ([`crate::certabo::frame`])
//! with 8 numbers, one occupancy byte per rank from rank 8, **most significant bit = a-file**
//! (the reverse of the LED bytes, [`crate::certabo::led`]). The board senses only whether a
//! square is occupied, never which piece stands there: the kinds come from the inference.

use crate::certabo::RankBits;
use crate::trace::{Occupancy, Square};

/// The squares a Sentio reading shows occupied.
#[must_use]
pub fn occupancy(bits: RankBits) -> Occupancy {
    let mut occ = Occupancy::EMPTY;
    for sq in Square::all() {
        let byte = bits.0[usize::from(7 - sq.rank())];
        if byte & (0x80 >> sq.file()) != 0 {
            occ.set(sq, true);
        }
    }
    occ
}

/// The Sentio reading of an occupancy (what an emulated board sends).
#[must_use]
pub fn rank_bits(occ: Occupancy) -> RankBits {
    let mut bytes = [0u8; 8];
    for sq in Square::all().filter(|&sq| occ.get(sq)) {
        bytes[usize::from(7 - sq.rank())] |= 0x80 >> sq.file();
    }
    RankBits(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msb_is_the_a_file_rank_8_first() {
        let occ = occupancy(RankBits([255, 255, 0, 0, 0, 0, 255, 254]));
        let a8_first: String = (0..64)
            .map(|i| {
                let sq = crate::certabo::index_to_square(i).expect("square");
                if occ.get(sq) { '1' } else { '0' }
            })
            .collect();
        assert_eq!(
            a8_first,
            "1111111111111111000000000000000000000000000000001111111111111110"
        );
        assert!(!occ.get(Square::from_name("h1").expect("h1")));
        assert!(occ.get(Square::from_name("a1").expect("a1")));
        assert_eq!(rank_bits(occ), RankBits([255, 255, 0, 0, 0, 0, 255, 254]));
        let a1 = Occupancy::EMPTY.with(Square::from_name("a1").expect("a1"), true);
        assert_eq!(rank_bits(a1), RankBits([0, 0, 0, 0, 0, 0, 0, 0x80]));
    }
}
