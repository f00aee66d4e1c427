//! Koedem's grab promotion in SAN, as bughouse.pro writes it: the promotion, then the
//! grabbed piece's square on the other board (`e8=Qd1`, `dxc1=Nf8+`).
//!
//! The promotion letter is the grabbed piece's role: a grab needs no letter of its own, and
//! a reader that does not know grabs still sees the promotion. The square names where the
//! piece stood on the *other* board, which is what an arbiter needs to check the grab (a
//! piece of the promoting player's colour, never a king).

use crate::rules::Square;

/// Splits a grab square off the end of a SAN body (suffix already removed): `e8=Qd1` gives
/// the length of `e8=Q` and `d1`. `None` when the body does not end in `=<piece><square>`.
#[must_use]
pub fn split_grab(body: &[u8]) -> Option<(usize, Square)> {
    let n = body.len();
    if n < 6 || body[n - 4] != b'=' || !matches!(body[n - 3], b'Q' | b'R' | b'B' | b'N') {
        return None;
    }
    let square = Square::from_ascii(&body[n - 2..]).ok()?;
    Some((n - 2, square))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grab_square_is_split_off_a_promotion() {
        let d1 = Square::from_ascii(b"d1").expect("square");
        assert_eq!(split_grab(b"e8=Qd1"), Some((4, d1)));
        assert_eq!(split_grab(b"dxe8=Qd1"), Some((6, d1)));
        assert_eq!(split_grab(b"e8=Q"), None);
        assert_eq!(split_grab(b"e8=Kd1"), None);
        assert_eq!(split_grab(b"Nbd7"), None);
        assert_eq!(split_grab(b"e8=Qz9"), None);
    }
}
