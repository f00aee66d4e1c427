//! Millennium framing: odd parity, the XOR block check as two hex characters, frame lengths
//! by letter, and the resynchronising framer.
//!
//! On the wire every byte is 7 data bits plus odd parity in bit 7 when the port runs 8N1
//! (python-mchess, picochess). Some devices send 7-bit characters **without** parity (the DGT
//! Centaur's ChessLink emulation, the eONE per other drivers). With [`ParityMode::Odd`] a byte
//! whose 8 bits have even parity is dropped and counted; with [`ParityMode::Ignore`] bit 7 is
//! masked off unchecked; with [`ParityMode::Auto`] (the default) bit 7 is masked off too, so
//! neither kind of device loses a frame, and the framer notes from the first complete frames
//! which kind the peer is ([`Framer::detected`]) so the host can answer in kind.

use bytes::{BufMut, BytesMut};

use crate::error::DecodeError;
use crate::resync::ResyncStats;

/// How bit 7 of incoming bytes is treated (configuration `parity = "auto" | "odd" | "none"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParityMode {
    /// Accept both; detect from the first frames whether the peer sends parity.
    #[default]
    Auto,
    /// Bit 7 is odd parity; bytes with even parity are dropped.
    Odd,
    /// No parity: bit 7 is masked off without checking; sent bytes have bit 7 clear.
    Ignore,
}

impl ParityMode {
    /// `"auto"`, `"odd"` or `"none"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ParityMode::Auto => "auto",
            ParityMode::Odd => "odd",
            ParityMode::Ignore => "none",
        }
    }

    /// Parses `"auto"`, `"odd"` or `"none"`.
    #[must_use]
    pub fn from_name(s: &str) -> Option<ParityMode> {
        match s {
            "auto" => Some(ParityMode::Auto),
            "odd" => Some(ParityMode::Odd),
            "none" => Some(ParityMode::Ignore),
            _ => None,
        }
    }

    /// Whether bytes sent in this mode carry the parity bit (`Auto` sends it until the peer
    /// turns out to send none: see [`Framer::detected`]).
    #[must_use]
    pub const fn sends_parity(self) -> bool {
        !matches!(self, ParityMode::Ignore)
    }
}

/// `bytes` as sent in `mode`: with the odd-parity bit, or as plain 7-bit characters.
pub fn apply_parity(bytes: &mut [u8], mode: ParityMode) {
    for b in bytes {
        *b = if mode.sends_parity() {
            with_odd_parity(*b)
        } else {
            *b & 0x7F
        };
    }
}

/// `b` (7 bits) with bit 7 set so the byte has an odd number of ones.
#[must_use]
pub const fn with_odd_parity(b: u8) -> u8 {
    let b = b & 0x7F;
    if b.count_ones().is_multiple_of(2) {
        b | 0x80
    } else {
        b
    }
}

/// True when the 8-bit byte has odd parity.
#[must_use]
pub const fn has_odd_parity(b: u8) -> bool {
    b.count_ones() % 2 == 1
}

/// XOR of the 7-bit characters.
#[must_use]
pub fn block_check(chars: &[u8]) -> u8 {
    chars.iter().fold(0, |acc, &c| acc ^ (c & 0x7F))
}

/// Two upper-case hex characters.
#[must_use]
pub fn hex2(v: u8) -> [u8; 2] {
    const H: &[u8; 16] = b"0123456789ABCDEF";
    [H[usize::from(v >> 4)], H[usize::from(v & 0x0F)]]
}

/// The value of two hex characters (either case).
#[must_use]
pub fn parse_hex2(c: [u8; 2]) -> Option<u8> {
    let d = |x: u8| (x as char).to_digit(16).map(|v| v as u8);
    Some(d(c[0])? << 4 | d(c[1])?)
}

/// True for an upper- or lower-case hex digit.
#[must_use]
pub fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// Appends `letter` + `payload` + block check, each byte with odd parity (see
/// [`apply_parity`] for a peer without parity).
pub fn encode_frame(letter: u8, payload: &[u8], out: &mut BytesMut) {
    let check = block_check(payload) ^ (letter & 0x7F);
    out.reserve(payload.len() + 3);
    out.put_u8(with_odd_parity(letter));
    for &b in payload {
        out.put_u8(with_odd_parity(b));
    }
    for c in hex2(check) {
        out.put_u8(with_odd_parity(c));
    }
}

/// The framer: finds `letter payload cc` frames, checks parity and block check.
#[derive(Debug, Default)]
pub struct Framer {
    /// Parity handling.
    pub parity: ParityMode,
    stats: ResyncStats,
    detected: Option<ParityMode>,
}

impl Framer {
    /// A framer with the given parity handling.
    #[must_use]
    pub fn new(parity: ParityMode) -> Self {
        Framer {
            parity,
            stats: ResyncStats::default(),
            detected: None,
        }
    }

    /// What the peer sends, once a complete frame has told: [`ParityMode::Odd`] (every byte
    /// has odd parity, some with bit 7 set) or [`ParityMode::Ignore`] (some byte has bit 7
    /// clear and even parity: 7-bit characters without parity). `None` until then.
    #[must_use]
    pub fn detected(&self) -> Option<ParityMode> {
        self.detected
    }

    fn detect(&mut self, frame: &[u8]) {
        if self.detected.is_some() {
            return;
        }
        if frame.iter().any(|&b| !has_odd_parity(b)) {
            self.detected = Some(ParityMode::Ignore);
        } else if frame.iter().any(|&b| b & 0x80 != 0) {
            self.detected = Some(ParityMode::Odd);
        }
    }

    /// What was dropped so far.
    #[must_use]
    pub fn stats(&self) -> &ResyncStats {
        &self.stats
    }

    /// The next frame as 7-bit characters, letter and payload (block check removed).
    /// `len_of(letter)` gives the total length including the letter and two check characters,
    /// `None` for a byte that starts no frame.
    ///
    /// `char_ok(letter, i, c)` says whether 7-bit character `c` may stand at position `i`
    /// (1-based after the letter, check characters excluded) of a frame starting with
    /// `letter`; a partial frame with a bad character is abandoned at once instead of
    /// waiting for its full length (garbage that happens to look like a frame start must not
    /// hold back the real frame behind it).
    pub fn next_frame(
        &mut self,
        buf: &mut BytesMut,
        len_of: impl Fn(u8) -> Option<usize>,
        char_ok: impl Fn(u8, usize, u8) -> bool,
    ) -> Option<Vec<u8>> {
        loop {
            let &first = buf.first()?;
            if self.parity == ParityMode::Odd && !has_odd_parity(first) {
                self.stats.drop_bytes(buf, 1, DecodeError::Parity(first));
                continue;
            }
            let letter = first & 0x7F;
            let Some(len) = len_of(letter) else {
                self.stats
                    .drop_bytes(buf, 1, DecodeError::NotAMessageStart(letter));
                continue;
            };
            let have = buf.len().min(len);
            if self.parity == ParityMode::Odd
                && let Some(k) = buf[1..have].iter().position(|&b| !has_odd_parity(b))
            {
                let bad = buf[1 + k];
                self.stats.drop_bytes(buf, k + 2, DecodeError::Parity(bad));
                continue;
            }
            let bad_char = (1..have).find(|&i| {
                let c = buf[i] & 0x7F;
                if i >= len - 2 {
                    // Check characters: hex; the first one is 0..7 (the XOR is 7-bit).
                    (c as char).to_digit(16).is_none() || (i == len - 2 && c > b'7')
                } else {
                    !char_ok(letter, i, c)
                }
            });
            if let Some(i) = bad_char {
                let c = buf[i];
                self.stats.drop_bytes(
                    buf,
                    1,
                    DecodeError::BadContent {
                        id: letter,
                        what: if c == 0 {
                            "NUL in frame"
                        } else {
                            "character not allowed here"
                        },
                    },
                );
                continue;
            }
            if buf.len() < len {
                return None;
            }
            let chars: Vec<u8> = buf[..len].iter().map(|b| b & 0x7F).collect();
            let raw = buf[..len].to_vec();
            let body = &chars[..len - 2];
            let received = [chars[len - 2], chars[len - 1]];
            let computed = block_check(body);
            if parse_hex2(received) != Some(computed) {
                self.stats
                    .drop_bytes(buf, 1, DecodeError::Checksum { computed, received });
                continue;
            }
            let _ = buf.split_to(len);
            self.detect(&raw);
            return Some(body.to_vec());
        }
    }

    /// Records a well-framed but meaningless frame of `len` bytes as dropped.
    pub(crate) fn reject(&mut self, len: usize, why: DecodeError) {
        let mut scratch = BytesMut::zeroed(len.max(1));
        self.stats.drop_bytes(&mut scratch, len.max(1), why);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_bit_makes_ones_odd() {
        assert_eq!(with_odd_parity(b'V'), 0xD6); // 0x56 has four ones: bit 7 set
        assert_eq!(with_odd_parity(b'v'), 0x76); // 0x76 has five ones: bit 7 clear
        for b in 0..=0x7F {
            assert!(has_odd_parity(with_odd_parity(b)));
        }
    }

    #[test]
    fn block_check_is_two_hex_chars_of_the_xor() {
        // "V" alone: check = 0x56 -> "56".
        let mut out = BytesMut::new();
        encode_frame(b'V', &[], &mut out);
        assert_eq!(
            &out[..],
            &[
                0xD6, // 'V' with parity
                0xB5, // '5' (0x35, four ones) with parity
                0xB6, // '6' (0x36, four ones) with parity
            ]
        );
        assert_eq!(parse_hex2([b'5', b'6']), Some(0x56));
        assert_eq!(parse_hex2([b'G', b'0']), None);
        assert_eq!(hex2(0x0A), *b"0A");
    }

    /// A version reply `v0110` as a 7-bit device without parity sends it.
    fn unparitied_version() -> BytesMut {
        let mut out = BytesMut::new();
        encode_frame(b'v', b"0110", &mut out);
        apply_parity(&mut out, ParityMode::Ignore);
        assert!(
            out.iter().any(|&b| !has_odd_parity(b)),
            "some byte has even parity"
        );
        out
    }

    fn frames(parity: ParityMode, mut buf: BytesMut) -> (Option<Vec<u8>>, Framer) {
        let mut f = Framer::new(parity);
        let len = |l: u8| (l == b'v').then_some(7);
        let frame = f.next_frame(&mut buf, len, |_, _, c| is_hex(c));
        (frame, f)
    }

    #[test]
    fn parity_modes_on_frames_with_and_without_parity() {
        let mut odd = BytesMut::new();
        encode_frame(b'v', b"0110", &mut odd);
        // Odd: the parity frame passes, the 7-bit one is dropped.
        assert!(frames(ParityMode::Odd, odd.clone()).0.is_some());
        assert!(frames(ParityMode::Odd, unparitied_version()).0.is_none());
        // None and Auto accept both; Auto says which one the peer sends.
        for mode in [ParityMode::Ignore, ParityMode::Auto] {
            assert_eq!(frames(mode, odd.clone()).0.as_deref(), Some(&b"v0110"[..]));
            assert_eq!(
                frames(mode, unparitied_version()).0.as_deref(),
                Some(&b"v0110"[..])
            );
        }
        assert_eq!(
            frames(ParityMode::Auto, odd).1.detected(),
            Some(ParityMode::Odd)
        );
        assert_eq!(
            frames(ParityMode::Auto, unparitied_version()).1.detected(),
            Some(ParityMode::Ignore)
        );
        for mode in [ParityMode::Auto, ParityMode::Odd, ParityMode::Ignore] {
            assert_eq!(ParityMode::from_name(mode.name()), Some(mode));
        }
        assert_eq!(ParityMode::from_name("even"), None);
    }
}
