//! Host → board: LED commands, the only thing a host ever sends these boards.
//!
//! * Classic (one colour): 8 raw bytes, no header, no terminator; byte 0 is rank 8 … byte 7
//!   rank 1; within a byte bit 0 is the a-file, bit 7 the h-file. Note that this is the
//!   reverse of the Sentio occupancy bytes, where the most significant bit is the a-file.
//! * RGB (TabuTronic Spectrum): `FF 55`, 81 × (r, g, b), `0D 0A` (247 bytes). The 81 LEDs
//!   are the corners of the squares, 9 × 9; LED 0 is the h1 corner. A lit square lights its
//!   four corners.

use crate::trace::Square;

/// Length of an RGB LED frame.
pub const RGB_FRAME_LEN: usize = 2 + 81 * 3 + 2;

/// The colour an RGB board lights a square with (blue, quarter brightness, as the peers do).
pub const RGB_DEFAULT: [u8; 3] = [0, 0, 0x40];

/// The 8-byte LED bitmap lighting `squares`.
#[must_use]
pub fn classic(squares: &[Square]) -> [u8; 8] {
    let mut bytes = [0u8; 8];
    for sq in squares {
        bytes[usize::from(7 - sq.rank())] |= 1 << sq.file();
    }
    bytes
}

/// The squares an 8-byte LED bitmap lights (a1 first).
#[must_use]
pub fn classic_squares(bytes: &[u8; 8]) -> Vec<Square> {
    Square::all()
        .filter(|sq| bytes[usize::from(7 - sq.rank())] & (1 << sq.file()) != 0)
        .collect()
}

/// The four corner LEDs of a square (indices 0‥81, LED 0 at the h1 corner).
#[must_use]
pub fn rgb_corners(sq: Square) -> [usize; 4] {
    let row = usize::from(sq.rank());
    let col = 7 - usize::from(sq.file());
    let i = row * 9 + col;
    [i, i + 1, i + 9, i + 10]
}

/// The RGB frame lighting the squares of an 8-byte bitmap in `colour` (r, g, b).
#[must_use]
pub fn rgb(bitmap: &[u8; 8], colour: [u8; 3]) -> [u8; RGB_FRAME_LEN] {
    let mut frame = [0u8; RGB_FRAME_LEN];
    frame[0] = 0xFF;
    frame[1] = 0x55;
    for sq in classic_squares(bitmap) {
        for led in rgb_corners(sq) {
            frame[2 + 3 * led..2 + 3 * led + 3].copy_from_slice(&colour);
        }
    }
    frame[RGB_FRAME_LEN - 2] = 0x0D;
    frame[RGB_FRAME_LEN - 1] = 0x0A;
    frame
}

/// What a host sent, read back by an emulated board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedCommand {
    /// An 8-byte bitmap.
    Classic([u8; 8]),
    /// An RGB frame: the squares whose corners are lit (a square between two lit ones is
    /// not counted).
    Rgb(Vec<Square>),
}

/// Splits host bytes into LED commands (emulators): a frame starting `FF 55` is RGB, any
/// other 8 bytes are a bitmap. Returns the commands and how many bytes were used.
#[must_use]
pub fn parse_commands(bytes: &[u8]) -> (Vec<LedCommand>, usize) {
    let mut cmds = Vec::new();
    let mut at = 0;
    loop {
        let rest = &bytes[at..];
        if rest.len() >= 2 && rest[0] == 0xFF && rest[1] == 0x55 {
            if rest.len() < RGB_FRAME_LEN {
                break;
            }
            let on = |led: usize| rest[2 + 3 * led..2 + 3 * led + 3] != [0, 0, 0];
            let candidates: Vec<Square> = Square::all()
                .filter(|&sq| rgb_corners(sq).iter().all(|&led| on(led)))
                .collect();
            // A square between two lit ones has its four corners lit by them: it counts only
            // when one of its corners is its own.
            let lit = candidates
                .iter()
                .copied()
                .filter(|&sq| {
                    rgb_corners(sq).iter().any(|led| {
                        !candidates
                            .iter()
                            .any(|&o| o != sq && rgb_corners(o).contains(led))
                    })
                })
                .collect();
            cmds.push(LedCommand::Rgb(lit));
            at += RGB_FRAME_LEN;
        } else if rest.len() >= 8 {
            let mut b = [0u8; 8];
            b.copy_from_slice(&rest[..8]);
            cmds.push(LedCommand::Classic(b));
            at += 8;
        } else {
            break;
        }
    }
    (cmds, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: &str) -> Square {
        Square::from_name(n).expect("square")
    }

    #[test]
    fn classic_bitmaps_are_the_ones_the_peers_assert() {
        assert_eq!(classic(&[sq("d2"), sq("d4")]), [0, 0, 0, 0, 8, 0, 8, 0]);
        assert_eq!(
            classic(&[sq("e2"), sq("e4")]),
            [0, 0, 0, 0, 0x10, 0, 0x10, 0]
        );
        assert_eq!(classic(&[sq("a1")]), [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(classic(&[sq("h2")]), [0, 0, 0, 0, 0, 0, 0x80, 0]);
        let start: Vec<Square> = Square::all()
            .filter(|s| [0, 1, 6, 7].contains(&s.rank()))
            .collect();
        assert_eq!(classic(&start), [0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff]);
        // Turned board: d2+d4 lit as the board's own d7+d5 squares.
        assert_eq!(
            classic(&[sq("d2").rotated(), sq("d4").rotated()]),
            [0, 0x10, 0, 0x10, 0, 0, 0, 0]
        );
        assert_eq!(
            classic_squares(&classic(&[sq("e2"), sq("e4")])),
            vec![sq("e2"), sq("e4")]
        );
    }

    #[test]
    fn rgb_e2_e4_lights_the_asserted_bytes() {
        let f = rgb(&classic(&[sq("e2"), sq("e4")]), RGB_DEFAULT);
        assert_eq!(f.len(), 247);
        assert_eq!((f[0], f[1], f[245], f[246]), (0xFF, 0x55, 0x0D, 0x0A));
        let lit: Vec<usize> = (2..245).filter(|&i| f[i] != 0).collect();
        assert_eq!(lit, vec![40, 43, 67, 70, 94, 97, 121, 124]);
        assert!(lit.iter().all(|&i| f[i] == 0x40));
        assert_eq!(rgb_corners(sq("h1")), [0, 1, 9, 10]);
        assert_eq!(rgb_corners(sq("a1")), [7, 8, 16, 17]);
        assert_eq!(rgb_corners(sq("a8")), [70, 71, 79, 80]);
    }

    #[test]
    fn emulators_read_back_both_forms() {
        let mut bytes = classic(&[sq("e2")]).to_vec();
        bytes.extend(rgb(&classic(&[sq("e2"), sq("e4")]), RGB_DEFAULT));
        bytes.extend([1, 2, 3]);
        let (cmds, used) = parse_commands(&bytes);
        assert_eq!(used, 8 + 247);
        assert_eq!(
            cmds,
            vec![
                LedCommand::Classic(classic(&[sq("e2")])),
                LedCommand::Rgb(vec![sq("e2"), sq("e4")])
            ]
        );
    }
}
