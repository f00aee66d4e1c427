//! Board → host messages and their decoder (DGT's `dgtbrd.h`).
//!
//! Framing: an id byte with bit 7 set, then the **total** length in two 7-bit bytes, then
//! payload bytes that all have bit 7 clear. The decoder resynchronises on that rule: bytes
//! with bit 7 clear outside a message are dropped; a byte with bit 7 set inside a payload
//! cuts the partial message short (dropped) and parsing restarts at it; unknown ids and
//! lengths that do not fit the id drop one byte. Every dropped byte is counted.

use bytes::{BufMut, BytesMut};
use tokio_util::codec::Decoder;

use super::clock::Bwtime;
use super::id;
use crate::error::DecodeError;
use crate::resync::ResyncStats;

/// Largest EE_MOVES payload (the EEPROM ring buffer).
const EE_MOVES_MAX: usize = 0x1F00;

/// A message from a DGT board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardMessage {
    /// `0x86`: 64 piece codes in board index order (0 = a8 in normal orientation).
    BoardDump([u8; 64]),
    /// `0x8E`: one square changed; `code` 0 = now empty.
    FieldUpdate {
        /// Board index 0..63.
        index: u8,
        /// Piece code 0..15.
        code: u8,
    },
    /// `0x8D`: clock times or clock ack; see [`Bwtime::classify`].
    Bwtime(Bwtime),
    /// `0x93`: firmware version.
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// `0x91`: the 5-digit serial number (v1.03 boards append " 1.0"; kept as sent).
    SerialNumber(String),
    /// `0xA2`: the 10-digit serial number.
    LongSerialNumber(String),
    /// `0x90`: bus address (two 7-bit bytes).
    BusAddress(u16),
    /// `0x92`: trademark text.
    Trademark(String),
    /// `0xA0`: battery status bytes (layout per the header; kept raw).
    Battery(Vec<u8>),
    /// `0x8F`: EEPROM event stream (kept raw).
    EeMoves(Vec<u8>),
    /// Draughts dumps (`0x94`, `0x95`): kept raw.
    Other {
        /// Message id.
        id: u8,
        /// Payload.
        payload: Vec<u8>,
    },
}

impl BoardMessage {
    /// The message id.
    #[must_use]
    pub fn id(&self) -> u8 {
        match self {
            BoardMessage::BoardDump(_) => id::BOARD_DUMP,
            BoardMessage::FieldUpdate { .. } => id::FIELD_UPDATE,
            BoardMessage::Bwtime(_) => id::BWTIME,
            BoardMessage::Version { .. } => id::VERSION,
            BoardMessage::SerialNumber(_) => id::SERIALNR,
            BoardMessage::LongSerialNumber(_) => id::LONG_SERIALNR,
            BoardMessage::BusAddress(_) => id::BUSADRES,
            BoardMessage::Trademark(_) => id::TRADEMARK,
            BoardMessage::Battery(_) => id::BATTERY_STATUS,
            BoardMessage::EeMoves(_) => id::EE_MOVES,
            BoardMessage::Other { id, .. } => *id,
        }
    }

    /// Appends the wire form to `out`. Payload bytes are masked to 7 bits.
    pub fn encode(&self, out: &mut BytesMut) {
        let mut payload: Vec<u8> = match self {
            BoardMessage::BoardDump(codes) => codes.to_vec(),
            BoardMessage::FieldUpdate { index, code } => vec![*index, *code],
            BoardMessage::Bwtime(b) => b.0.to_vec(),
            BoardMessage::Version { major, minor } => vec![*major, *minor],
            BoardMessage::SerialNumber(s)
            | BoardMessage::LongSerialNumber(s)
            | BoardMessage::Trademark(s) => s.as_bytes().to_vec(),
            BoardMessage::BusAddress(a) => vec![(a >> 7) as u8, (a & 0x7F) as u8],
            BoardMessage::Battery(p) | BoardMessage::EeMoves(p) => p.clone(),
            BoardMessage::Other { payload, .. } => payload.clone(),
        };
        payload.iter_mut().for_each(|b| *b &= 0x7F);
        let len = payload.len() + 3;
        out.reserve(len);
        out.put_u8(self.id() | 0x80);
        out.put_u8(((len >> 7) & 0x7F) as u8);
        out.put_u8((len & 0x7F) as u8);
        out.put_slice(&payload);
    }

    /// The wire form as a vector.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = BytesMut::new();
        self.encode(&mut b);
        b.to_vec()
    }
}

fn length_fits(id: u8, len: usize) -> bool {
    match id {
        id::BOARD_DUMP => len == 67,
        id::BWTIME => len == 10,
        id::FIELD_UPDATE | id::VERSION | id::BUSADRES => len == 5,
        id::SERIALNR => len == 8 || len == 12,
        id::LONG_SERIALNR => len == 13,
        id::TRADEMARK => (3..=3 + 64).contains(&len),
        id::BATTERY_STATUS => (3 + 7..=3 + 9).contains(&len),
        id::EE_MOVES => (3..=3 + EE_MOVES_MAX).contains(&len),
        id::BOARD_DUMP_50B | id::BOARD_DUMP_50W => len == 53,
        _ => false,
    }
}

fn known_id(id: u8) -> bool {
    matches!(
        id,
        id::BOARD_DUMP
            | id::BWTIME
            | id::FIELD_UPDATE
            | id::EE_MOVES
            | id::BUSADRES
            | id::SERIALNR
            | id::TRADEMARK
            | id::VERSION
            | id::BOARD_DUMP_50B
            | id::BOARD_DUMP_50W
            | id::BATTERY_STATUS
            | id::LONG_SERIALNR
    )
}

fn parse(id: u8, p: &[u8]) -> Result<BoardMessage, DecodeError> {
    let text = || String::from_utf8_lossy(p).into_owned();
    Ok(match id {
        id::BOARD_DUMP => {
            let mut codes = [0u8; 64];
            codes.copy_from_slice(p);
            BoardMessage::BoardDump(codes)
        }
        id::FIELD_UPDATE => {
            if p[0] >= 64 {
                return Err(DecodeError::BadContent {
                    id,
                    what: "square index above 63",
                });
            }
            if p[1] > 0x0F {
                return Err(DecodeError::BadContent {
                    id,
                    what: "piece code above 15",
                });
            }
            BoardMessage::FieldUpdate {
                index: p[0],
                code: p[1],
            }
        }
        id::BWTIME => {
            let mut b = [0u8; 7];
            b.copy_from_slice(p);
            BoardMessage::Bwtime(Bwtime(b))
        }
        id::VERSION => BoardMessage::Version {
            major: p[0],
            minor: p[1],
        },
        id::SERIALNR => BoardMessage::SerialNumber(text()),
        id::LONG_SERIALNR => BoardMessage::LongSerialNumber(text()),
        id::BUSADRES => BoardMessage::BusAddress(u16::from(p[0]) << 7 | u16::from(p[1])),
        id::TRADEMARK => BoardMessage::Trademark(text()),
        id::BATTERY_STATUS => BoardMessage::Battery(p.to_vec()),
        id::EE_MOVES => BoardMessage::EeMoves(p.to_vec()),
        _ => BoardMessage::Other {
            id,
            payload: p.to_vec(),
        },
    })
}

/// Resynchronising decoder of board → host messages. Never returns an error.
#[derive(Debug, Default)]
pub struct DgtDecoder {
    stats: ResyncStats,
}

impl DgtDecoder {
    /// A fresh decoder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// What was dropped so far.
    #[must_use]
    pub fn stats(&self) -> &ResyncStats {
        &self.stats
    }

    /// Decodes the next message from `buf`, consuming its bytes (and any garbage before it);
    /// `None` when more bytes are needed.
    pub fn next_message(&mut self, buf: &mut BytesMut) -> Option<BoardMessage> {
        loop {
            let start = buf.iter().position(|&b| b & 0x80 != 0);
            match start {
                None => {
                    if let Some(&b) = buf.first() {
                        let n = buf.len();
                        self.stats
                            .drop_bytes(buf, n, DecodeError::NotAMessageStart(b));
                    }
                    return None;
                }
                Some(0) => {}
                Some(k) => {
                    let b = buf[0];
                    self.stats
                        .drop_bytes(buf, k, DecodeError::NotAMessageStart(b));
                }
            }
            let id = buf[0];
            if !known_id(id) {
                self.stats.drop_bytes(buf, 1, DecodeError::UnknownId(id));
                continue;
            }
            // Any later byte with bit 7 set cuts this message short.
            let header_end = buf.len().min(3);
            if let Some(k) = buf[1..header_end].iter().position(|&b| b & 0x80 != 0) {
                self.stats
                    .drop_bytes(buf, k + 1, DecodeError::Truncated(id));
                continue;
            }
            if buf.len() < 3 {
                return None;
            }
            let len = (usize::from(buf[1]) << 7) | usize::from(buf[2]);
            if !length_fits(id, len) {
                self.stats
                    .drop_bytes(buf, 1, DecodeError::BadLength { id, len });
                continue;
            }
            let have = buf.len().min(len);
            if let Some(k) = buf[3..have].iter().position(|&b| b & 0x80 != 0) {
                self.stats
                    .drop_bytes(buf, 3 + k, DecodeError::Truncated(id));
                continue;
            }
            if buf.len() < len {
                return None;
            }
            let frame = buf.split_to(len);
            match parse(id, &frame[3..]) {
                Ok(msg) => return Some(msg),
                Err(e) => {
                    // Count the whole frame as dropped; it was well framed but meaningless.
                    let mut f = frame;
                    let n = f.len();
                    self.stats.drop_bytes(&mut f, n, e);
                }
            }
        }
    }
}

impl Decoder for DgtDecoder {
    type Item = BoardMessage;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BoardMessage>, std::io::Error> {
        Ok(self.next_message(src))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::clock::{BwtimeLayout, ClockMessage};

    fn decode_all(d: &mut DgtDecoder, bytes: &[u8]) -> Vec<BoardMessage> {
        let mut buf = BytesMut::from(bytes);
        std::iter::from_fn(|| d.next_message(&mut buf)).collect()
    }

    const FIELD_E4_WHITE_PAWN: [u8; 5] = [
        0x8E, // FIELD_UPDATE
        0x00, // length bits 13..7
        0x05, // length bits 6..0: total 5
        0x24, // index 36 = e4 (row 4 from the top, file e)
        0x01, // white pawn
    ];

    #[test]
    fn field_update() {
        let mut d = DgtDecoder::new();
        assert_eq!(
            decode_all(&mut d, &FIELD_E4_WHITE_PAWN),
            vec![BoardMessage::FieldUpdate { index: 36, code: 1 }]
        );
        assert_eq!(d.stats().dropped_bytes(), 0);
    }

    #[test]
    fn split_frame_waits_for_the_rest() {
        let mut d = DgtDecoder::new();
        let mut buf = BytesMut::from(&FIELD_E4_WHITE_PAWN[..2]);
        assert_eq!(d.next_message(&mut buf), None);
        buf.extend_from_slice(&FIELD_E4_WHITE_PAWN[2..4]);
        assert_eq!(d.next_message(&mut buf), None);
        buf.extend_from_slice(&FIELD_E4_WHITE_PAWN[4..]);
        assert_eq!(
            d.next_message(&mut buf),
            Some(BoardMessage::FieldUpdate { index: 36, code: 1 })
        );
        assert!(buf.is_empty());
        assert_eq!(d.stats().dropped_bytes(), 0);
    }

    #[test]
    fn two_frames_in_one_read() {
        let bytes = [
            0x8E, 0x00, 0x05, // FIELD_UPDATE, length 5
            0x34, //             index 52 = e2
            0x00, //             empty
            0x93, 0x00, 0x05, // VERSION, length 5
            0x03, //             major 3
            0x0A, //             minor 10 -> "3.10"
        ];
        let mut d = DgtDecoder::new();
        assert_eq!(
            decode_all(&mut d, &bytes),
            vec![
                BoardMessage::FieldUpdate { index: 52, code: 0 },
                BoardMessage::Version {
                    major: 3,
                    minor: 10
                }
            ]
        );
    }

    #[test]
    fn garbage_prefix_is_dropped_and_counted() {
        let bytes = [
            0x12, // garbage, bit 7 clear: not a message start
            0x7F, // garbage
            0xFF, // garbage, bit 7 set but no such id
            0x8E, // FIELD_UPDATE
            0x00, // length hi
            0x05, // length lo
            0x3C, // index 60 = e1
            0x05, // white king
        ];
        let mut d = DgtDecoder::new();
        assert_eq!(
            decode_all(&mut d, &bytes),
            vec![BoardMessage::FieldUpdate { index: 60, code: 5 }]
        );
        assert_eq!(d.stats().dropped_bytes(), 3);
    }

    #[test]
    fn message_cut_short_by_a_new_one_is_dropped() {
        let bytes = [
            0x86, // BOARD_DUMP header...
            0x00, // length hi
            0x43, // length lo: 67
            0x01, // one payload byte, then the board restarts:
            0x8E, 0x00, 0x05, // FIELD_UPDATE
            0x00, //             index 0 = a8
            0x08, //             black rook
        ];
        let mut d = DgtDecoder::new();
        assert_eq!(
            decode_all(&mut d, &bytes),
            vec![BoardMessage::FieldUpdate { index: 0, code: 8 }]
        );
        assert_eq!(d.stats().dropped_bytes(), 4);
        assert_eq!(d.stats().last_error(), Some(&DecodeError::Truncated(0x86)));
    }

    #[test]
    fn wrong_length_and_bad_content_resync() {
        let bytes = [
            0x8E, 0x00, 0x06, // FIELD_UPDATE with length 6: impossible -> drop 0x8E
            0x8E, 0x00, 0x05, // FIELD_UPDATE
            0x50, //             index 80: out of range -> frame dropped
            0x01, //
            0x93, 0x00, 0x05, // VERSION
            0x01, 0x02, //       1.2
        ];
        let mut d = DgtDecoder::new();
        assert_eq!(
            decode_all(&mut d, &bytes),
            vec![BoardMessage::Version { major: 1, minor: 2 }]
        );
        assert_eq!(d.stats().dropped_bytes(), 3 + 5);
    }

    #[test]
    fn bwtime_times_and_ack() {
        let bytes = [
            0x8D, 0x00, 0x0A, // BWTIME, length 10
            0x00, //             p0: right 0 h
            0x03, //             p1: right 03 min
            0x00, //             p2: right 00 s
            0x00, //             p3: left 0 h
            0x02, //             p4: left 02 min
            0x58, //             p5: left 58 s
            0x13, //             p6: running, lever right up, left's turn (bit4)
            0x8D, 0x00, 0x0A, // BWTIME, length 10: an ack
            0x0A, //             p0: ack marker
            0x10, //             ack0: ok
            0x0B, //             ack1: BEEP echoed
            0x0A, //             p3: ack marker
            0x00, 0x00, 0x00,
        ];
        let mut d = DgtDecoder::new();
        let msgs = decode_all(&mut d, &bytes);
        assert_eq!(msgs.len(), 2);
        let BoardMessage::Bwtime(t) = &msgs[0] else {
            panic!("{msgs:?}")
        };
        let ClockMessage::Times(t) = t.classify(BwtimeLayout::Modern) else {
            panic!("times")
        };
        assert_eq!(
            (t.left.total_seconds(), t.right.total_seconds()),
            (178, 180)
        );
        let BoardMessage::Bwtime(a) = &msgs[1] else {
            panic!("{msgs:?}")
        };
        let ClockMessage::Ack(a) = a.classify(BwtimeLayout::Modern) else {
            panic!("ack")
        };
        assert_eq!(a.command(), Some(0x0B));
    }

    #[test]
    fn serial_numbers_both_sizes() {
        let short = [
            0x91, 0x00, 0x08, // SERIALNR, length 8
            b'0', b'1', b'0', b'2', b'5',
        ];
        let v103 = [
            0x91, 0x00, 0x0C, // SERIALNR, length 12 (v1.03)
            b'0', b'1', b'0', b'2', b'5', b' ', b'1', b'.', b'0',
        ];
        let mut d = DgtDecoder::new();
        assert_eq!(
            decode_all(&mut d, &short),
            vec![BoardMessage::SerialNumber("01025".into())]
        );
        assert_eq!(
            decode_all(&mut d, &v103),
            vec![BoardMessage::SerialNumber("01025 1.0".into())]
        );
    }

    #[test]
    fn board_dump_long_serial_and_bus_address() {
        let mut bytes = vec![
            0x86, // BOARD_DUMP
            0x00, // length bits 13..7
            0x43, // length bits 6..0: 67
        ];
        bytes.extend([0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08]); // a8..h8: r n b q k b n r
        bytes.extend([0x07; 8]); // rank 7: black pawns
        bytes.extend([0x00; 32]); // ranks 6..3 empty
        bytes.extend([0x01; 8]); // rank 2: white pawns
        bytes.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]); // a1..h1: R N B Q K B N R
        bytes.extend([
            0xA2, // LONG_SERIALNR
            0x00, // length hi
            0x0D, // length lo: 13
        ]);
        bytes.extend(b"0123456789"); // ten digits
        bytes.extend([
            0x90, // BUSADRES
            0x00, 0x05, // length 5
            0x08, // high 7 bits
            0x01, // low 7 bits: address 0x401 (serial 01025 read as hex)
        ]);
        let mut d = DgtDecoder::new();
        let msgs = decode_all(&mut d, &bytes);
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        let BoardMessage::BoardDump(codes) = &msgs[0] else {
            panic!("{msgs:?}")
        };
        let mut p = crate::trace::Placement::empty();
        for (i, &c) in codes.iter().enumerate() {
            if let Some(sq) = crate::dgt::index_to_square(i as u8) {
                p.set(sq, crate::dgt::code_to_piece(c));
            }
        }
        assert_eq!(p, crate::trace::Placement::start());
        assert_eq!(msgs[1], BoardMessage::LongSerialNumber("0123456789".into()));
        assert_eq!(msgs[2], BoardMessage::BusAddress(0x401));
    }

    #[test]
    fn encode_decode_round_trips() {
        let mut dump = [0u8; 64];
        dump.iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = (i % 13) as u8);
        let msgs = vec![
            BoardMessage::BoardDump(dump),
            BoardMessage::FieldUpdate {
                index: 63,
                code: 12,
            },
            BoardMessage::Bwtime(Bwtime([1, 2, 3, 4, 5, 6, 7])),
            BoardMessage::Version {
                major: 3,
                minor: 10,
            },
            BoardMessage::SerialNumber("12345".into()),
            BoardMessage::LongSerialNumber("1234567890".into()),
            BoardMessage::BusAddress(0x0401),
            BoardMessage::Trademark("Digital Game Technology".into()),
            BoardMessage::Battery(vec![90, 1, 2, 3, 4, 5, 6, 7, 1]),
            BoardMessage::EeMoves(vec![0x6A; 300]),
            BoardMessage::Other {
                id: 0x94,
                payload: vec![0; 50],
            },
        ];
        let mut buf = BytesMut::new();
        for m in &msgs {
            m.encode(&mut buf);
        }
        let mut d = DgtDecoder::new();
        let back: Vec<_> = std::iter::from_fn(|| d.next_message(&mut buf)).collect();
        assert_eq!(back, msgs);
        assert_eq!(d.stats().dropped_bytes(), 0);
    }
}
