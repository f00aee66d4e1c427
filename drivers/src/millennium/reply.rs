//! Board → host replies (the ChessLink protocol description) and their decoder.
//!
//! Replies start with the command's letter in lower case; lengths including the two check
//! characters: `v` 7, `s` 67, `l` 3, `x` 3, `w` 7, `r` 7. Automatic status reports are `s`
//! replies arriving unasked, possibly between a command and its reply, so callers match
//! replies by letter.

use bytes::BytesMut;

use super::frame::{Framer, ParityMode, encode_frame, hex2, is_hex, parse_hex2};
use crate::error::DecodeError;
use crate::resync::ResyncStats;

/// A reply from a Millennium board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `v`: firmware major and minor (major 0 Exclusive, 1 Performance, 2 eONE).
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// `s`: 64 characters `KQRNBPkqrnbp.` in wire order.
    Status([u8; 64]),
    /// `l`: LED pattern accepted.
    Leds,
    /// `x`: LEDs off.
    LedsOff,
    /// `w`: register written (echo).
    RegisterWritten {
        /// Address.
        addr: u8,
        /// Value.
        value: u8,
    },
    /// `r`: register value.
    Register {
        /// Address.
        addr: u8,
        /// Value.
        value: u8,
    },
}

fn reply_len(letter: u8) -> Option<usize> {
    Some(match letter {
        b'v' | b'w' | b'r' => 7,
        b's' => 67,
        b'l' | b'x' => 3,
        _ => return None,
    })
}

fn reply_char_ok(letter: u8, _i: usize, c: u8) -> bool {
    match letter {
        b's' => b"KQRNBPkqrnbp.".contains(&c),
        _ => is_hex(c),
    }
}

impl Reply {
    /// Appends the wire form (parity and block check included).
    pub fn encode(&self, out: &mut BytesMut) {
        let hex4 = |a: u8, b: u8| {
            let (x, y) = (hex2(a), hex2(b));
            [x[0], x[1], y[0], y[1]]
        };
        match self {
            Reply::Version { major, minor } => encode_frame(b'v', &hex4(*major, *minor), out),
            Reply::Status(s) => encode_frame(b's', s, out),
            Reply::Leds => encode_frame(b'l', &[], out),
            Reply::LedsOff => encode_frame(b'x', &[], out),
            Reply::RegisterWritten { addr, value } => encode_frame(b'w', &hex4(*addr, *value), out),
            Reply::Register { addr, value } => encode_frame(b'r', &hex4(*addr, *value), out),
        }
    }

    /// The wire form as a vector.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = BytesMut::new();
        self.encode(&mut b);
        b.to_vec()
    }

    fn parse(body: &[u8]) -> Result<Reply, DecodeError> {
        let letter = body[0];
        let p = &body[1..];
        let pair = |i: usize| {
            parse_hex2([p[i], p[i + 1]]).ok_or(DecodeError::BadContent {
                id: letter,
                what: "not hex",
            })
        };
        Ok(match letter {
            b'v' => Reply::Version {
                major: pair(0)?,
                minor: pair(2)?,
            },
            b's' => {
                let mut s = [0u8; 64];
                s.copy_from_slice(p);
                if !s.iter().all(|c| b"KQRNBPkqrnbp.".contains(c)) {
                    return Err(DecodeError::BadContent {
                        id: letter,
                        what: "not a piece character",
                    });
                }
                Reply::Status(s)
            }
            b'l' => Reply::Leds,
            b'x' => Reply::LedsOff,
            b'w' => Reply::RegisterWritten {
                addr: pair(0)?,
                value: pair(2)?,
            },
            b'r' => Reply::Register {
                addr: pair(0)?,
                value: pair(2)?,
            },
            other => return Err(DecodeError::NotAMessageStart(other)),
        })
    }
}

/// Resynchronising decoder of replies. Never returns an error.
#[derive(Debug, Default)]
pub struct ReplyDecoder {
    framer: Framer,
}

impl ReplyDecoder {
    /// A decoder with the given parity handling.
    #[must_use]
    pub fn new(parity: ParityMode) -> Self {
        ReplyDecoder {
            framer: Framer::new(parity),
        }
    }

    /// What was dropped so far.
    #[must_use]
    pub fn stats(&self) -> &ResyncStats {
        self.framer.stats()
    }

    /// Whether the board sends parity, once a frame has told ([`Framer::detected`]).
    #[must_use]
    pub fn detected_parity(&self) -> Option<ParityMode> {
        self.framer.detected()
    }

    /// The next reply in `buf`, or `None` when more bytes are needed.
    pub fn next_reply(&mut self, buf: &mut BytesMut) -> Option<Reply> {
        loop {
            let body = self.framer.next_frame(buf, reply_len, reply_char_ok)?;
            match Reply::parse(&body) {
                Ok(r) => return Some(r),
                Err(e) => self.framer.reject(body.len() + 2, e),
            }
        }
    }
}

impl tokio_util::codec::Decoder for ReplyDecoder {
    type Item = Reply;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Reply>, std::io::Error> {
        Ok(self.next_reply(src))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::millennium::frame::with_odd_parity;

    fn decode_all(d: &mut ReplyDecoder, bytes: &[u8]) -> Vec<Reply> {
        let mut buf = BytesMut::from(bytes);
        std::iter::from_fn(|| d.next_reply(&mut buf)).collect()
    }

    /// `v` `01` `10` `cc`: version 1.16; check = 'v'^'0'^'1'^'1'^'0' = 0x76 ^ 0x01 ^ 0x01 = 0x76.
    const VERSION_1_16: [u8; 7] = [
        0x76,        // 'v' (five ones: no parity bit)
        0xB0,        // '0' (0x30, two ones) + parity
        0x31,        // '1' (three ones)
        0x31,        // '1'
        0xB0,        // '0' + parity
        0x37,        // '7' (0x37, five ones)
        0x36 | 0x80, // '6' (0x36, four ones) + parity
    ];

    #[test]
    fn version_reply() {
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        assert_eq!(
            decode_all(&mut d, &VERSION_1_16),
            vec![Reply::Version {
                major: 1,
                minor: 16
            }]
        );
        assert_eq!(d.stats().dropped_bytes(), 0);
    }

    #[test]
    fn split_frame_and_two_frames_in_one_read() {
        let mut wire = VERSION_1_16.to_vec();
        wire.extend(Reply::LedsOff.to_bytes());
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        let mut buf = BytesMut::from(&wire[..3]);
        assert_eq!(d.next_reply(&mut buf), None);
        buf.extend_from_slice(&wire[3..]);
        assert_eq!(
            d.next_reply(&mut buf),
            Some(Reply::Version {
                major: 1,
                minor: 16
            })
        );
        assert_eq!(d.next_reply(&mut buf), Some(Reply::LedsOff));
        assert_eq!(d.next_reply(&mut buf), None);
    }

    #[test]
    fn garbage_prefix_is_dropped() {
        let mut wire = vec![
            with_odd_parity(b'Z'), // not a reply letter
            with_odd_parity(b'?'), // not a reply letter
            0x00,                  // even parity: parity error
        ];
        wire.extend(VERSION_1_16);
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        assert_eq!(
            decode_all(&mut d, &wire),
            vec![Reply::Version {
                major: 1,
                minor: 16
            }]
        );
        assert_eq!(d.stats().dropped_bytes(), 3);
    }

    #[test]
    fn bad_checksum_resyncs() {
        let mut wire = VERSION_1_16.to_vec();
        wire[6] = with_odd_parity(b'7'); // check "77" instead of "76"
        wire.extend(Reply::Leds.to_bytes());
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        assert_eq!(decode_all(&mut d, &wire), vec![Reply::Leds]);
        assert!(matches!(
            d.stats().last_error(),
            Some(DecodeError::Checksum { .. } | DecodeError::NotAMessageStart(_))
        ));
        assert_eq!(d.stats().dropped_bytes(), 7);
    }

    #[test]
    fn bad_parity_inside_a_frame_drops_it() {
        let mut wire = VERSION_1_16.to_vec();
        wire[2] = 0x31 | 0x80; // '1' with even parity
        wire.extend(Reply::Leds.to_bytes());
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        assert_eq!(decode_all(&mut d, &wire), vec![Reply::Leds]);
        // Same bytes with parity ignored: the frame is fine.
        let mut lenient = ReplyDecoder::new(ParityMode::Ignore);
        assert_eq!(
            decode_all(&mut lenient, &wire),
            vec![
                Reply::Version {
                    major: 1,
                    minor: 16
                },
                Reply::Leds
            ]
        );
    }

    #[test]
    fn status_round_trip_and_bad_piece() {
        let mut s = [b'.'; 64];
        s[..8].copy_from_slice(b"rnbqkbnr");
        s[56..].copy_from_slice(b"RNBQKBNR");
        let replies = vec![
            Reply::Status(s),
            Reply::Version { major: 2, minor: 3 },
            Reply::Leds,
            Reply::LedsOff,
            Reply::RegisterWritten { addr: 2, value: 3 },
            Reply::Register {
                addr: 1,
                value: 0x14,
            },
        ];
        let wire: Vec<u8> = replies.iter().flat_map(Reply::to_bytes).collect();
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        assert_eq!(decode_all(&mut d, &wire), replies);
        assert_eq!(d.stats().dropped_bytes(), 0);
        let mut bad = s;
        bad[10] = b'x';
        let mut d = ReplyDecoder::new(ParityMode::Odd);
        assert_eq!(decode_all(&mut d, &Reply::Status(bad).to_bytes()), vec![]);
        assert!(d.stats().dropped_bytes() > 0);
    }
}
