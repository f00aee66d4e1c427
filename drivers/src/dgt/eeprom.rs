//! The board's own event log: the payload of `EE_MOVES` (0x8F), the answer to
//! `SEND_EE_MOVES` (0x49) (`docs/eboards.md`, "The DGT board's event log").
//!
//! A DGT board writes every field change, every lever press (the halted side's time) and a
//! few tags into a ring buffer of [`RING_SIZE`] bytes in its EEPROM, powered or not by a
//! host. That makes it the one exact record of what happened on a board while its link
//! was down. The stream runs from the oldest entry to the newest and ends with `EE_EOF`
//! (0x6B), which the board keeps at its write position; a ring that has gone round once is
//! therefore sent whole, [`RING_SIZE`] bytes, and its oldest entry may have lost its first
//! bytes to the newest.
//!
//! [`parse`] is pure and strict: every byte must belong to an entry, a bad byte is an error
//! naming its offset. Only the head of a wrapped ring is read leniently (see [`parse`]).

use std::fmt;

/// Size of the EEPROM ring buffer, and the longest `EE_MOVES` payload.
pub const RING_SIZE: usize = 0x1F00;

/// The one-byte tags.
pub mod tag {
    /// The board was switched on.
    pub const POWER_UP: u8 = 0x6A;
    /// End of the stream (the ring's write position).
    pub const EOF: u8 = 0x6B;
    /// Four rows of pieces that are not the start position.
    pub const FOUR_ROWS: u8 = 0x6C;
    /// The board became empty.
    pub const EMPTY_BOARD: u8 = 0x6D;
    /// The log was downloaded.
    pub const DOWNLOADED: u8 = 0x6E;
    /// The start position was set up.
    pub const START_POSITION: u8 = 0x6F;
    /// The start position was set up with the board turned.
    pub const START_ROTATED: u8 = 0x7A;
    /// A start tag.
    pub const START_TAG: u8 = 0x7B;
    /// The board's watchdog reset it.
    pub const WATCHDOG_RESET: u8 = 0x7C;
    /// Reserved.
    pub const RESERVED_7D: u8 = 0x7D;
    /// Reserved.
    pub const RESERVED_7E: u8 = 0x7E;
    /// No operation.
    pub const NOP: u8 = 0x7F;
    /// No operation (the erased value).
    pub const NOP2: u8 = 0x00;
}

/// One entry of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EeEntry {
    /// A square's reading changed (board index 0 = a8 … 63 = h1, the board's own frame).
    Piece {
        /// Board index 0..63.
        index: u8,
        /// The new piece code (0 = empty), as in a field update.
        code: u8,
        /// Less than about 250 ms after the previous change.
        quick: bool,
    },
    /// The lever moved: the time of the side it halted.
    Time {
        /// The left display's time (else the right one's).
        left: bool,
        /// Hours (0..9).
        hours: u8,
        /// Minutes (0..59).
        minutes: u8,
        /// Seconds (0..59).
        seconds: u8,
    },
    /// A one-byte tag ([`tag`]), `EOF` excepted.
    Tag(u8),
}

impl EeEntry {
    /// A time entry from whole seconds (hours above 9 are cut to 9:59:59).
    #[must_use]
    pub fn time(left: bool, total_seconds: u32) -> EeEntry {
        let t = total_seconds.min(9 * 3600 + 59 * 60 + 59);
        EeEntry::Time {
            left,
            hours: (t / 3600) as u8,
            minutes: (t / 60 % 60) as u8,
            seconds: (t % 60) as u8,
        }
    }

    /// The seconds of a time entry.
    #[must_use]
    pub fn total_seconds(&self) -> Option<u32> {
        match *self {
            EeEntry::Time {
                hours,
                minutes,
                seconds,
                ..
            } => Some(u32::from(hours) * 3600 + u32::from(minutes) * 60 + u32::from(seconds)),
            _ => None,
        }
    }

    /// Appends the entry's bytes as the board writes them.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            EeEntry::Piece { index, code, quick } => {
                out.push(0x40 | if quick { 0x10 } else { 0 } | (code & 0x0F));
                out.push(index & 0x3F);
            }
            EeEntry::Time {
                left,
                hours,
                minutes,
                seconds,
            } => {
                out.push(0x60 | if left { 0x10 } else { 0 } | (hours.min(9)));
                out.push(bcd(minutes));
                out.push(bcd(seconds));
            }
            EeEntry::Tag(t) => out.push(t),
        }
    }
}

fn bcd(v: u8) -> u8 {
    let v = v.min(59);
    (v / 10) << 4 | (v % 10)
}

fn from_bcd(b: u8) -> Option<u8> {
    let (hi, lo) = (b >> 4, b & 0x0F);
    (hi <= 5 && lo <= 9).then_some(hi * 10 + lo)
}

/// Whether `b` is a one-byte tag other than EOF.
fn is_tag(b: u8) -> bool {
    matches!(b, 0x00 | 0x6A | 0x6C..=0x6F | 0x7A..=0x7F)
}

/// A parsed log.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EeLog {
    /// The entries, oldest first.
    pub entries: Vec<EeEntry>,
    /// The ring had gone round: the oldest entries were overwritten.
    pub wrapped: bool,
    /// Bytes at the head of a wrapped ring left out (the remains of overwritten entries).
    pub skipped: usize,
}

/// Why a log could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EeLogError {
    /// A byte that does not fit where it stands.
    #[error("EEPROM log byte {offset} ({byte:#04x}): {what}")]
    BadByte {
        /// Offset in the payload.
        offset: usize,
        /// The byte.
        byte: u8,
        /// What is wrong.
        what: &'static str,
    },
    /// The stream stops in the middle of an entry.
    #[error("EEPROM log ends inside the entry that starts at byte {offset}")]
    Truncated {
        /// Offset of the entry's first byte.
        offset: usize,
    },
    /// No `EE_EOF` at the end.
    #[error("EEPROM log of {len} bytes has no end marker (0x6B)")]
    NoEof {
        /// The payload length.
        len: usize,
    },
    /// Bytes after `EE_EOF`.
    #[error("EEPROM log has {extra} bytes after its end marker at byte {offset}")]
    AfterEof {
        /// Offset of the end marker.
        offset: usize,
        /// Bytes after it.
        extra: usize,
    },
    /// Longer than the ring.
    #[error("EEPROM log of {0} bytes is longer than the ring ({RING_SIZE})")]
    TooLong(usize),
}

/// Parses an `EE_MOVES` payload.
///
/// A payload of exactly [`RING_SIZE`] bytes is a ring that has gone round: its first bytes
/// may be the tail of an overwritten entry, so parsing starts at the first of the offsets
/// 0, 1, 2 from which the whole stream reads, and the entries that start in the first three
/// bytes are left out (they may be such remains read as entries). They are the oldest of
/// some four thousand changes, never the ones a recovery needs.
///
/// # Errors
/// [`EeLogError`], naming the offset of the first byte that does not fit.
pub fn parse(payload: &[u8]) -> Result<EeLog, EeLogError> {
    if payload.len() > RING_SIZE {
        return Err(EeLogError::TooLong(payload.len()));
    }
    if payload.len() < RING_SIZE {
        let entries = parse_from(payload, 0)?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        return Ok(EeLog {
            entries,
            wrapped: false,
            skipped: 0,
        });
    }
    let mut first_err = None;
    for start in 0..3 {
        match parse_from(payload, start) {
            Ok(list) => {
                let entries: Vec<EeEntry> = list
                    .iter()
                    .filter(|(at, _)| *at >= 3)
                    .map(|(_, e)| *e)
                    .collect();
                let skipped = list
                    .iter()
                    .find(|(at, _)| *at >= 3)
                    .map_or(payload.len() - 1, |(at, _)| *at);
                return Ok(EeLog {
                    entries,
                    wrapped: true,
                    skipped,
                });
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or(EeLogError::NoEof { len: payload.len() }))
}

/// The entries from `start` to the end marker, each with its offset.
fn parse_from(p: &[u8], start: usize) -> Result<Vec<(usize, EeEntry)>, EeLogError> {
    let mut out = Vec::with_capacity(p.len() / 2);
    let mut i = start;
    while i < p.len() {
        let b = p[i];
        let bad = |offset: usize, what| EeLogError::BadByte {
            offset,
            byte: p[offset],
            what,
        };
        match b {
            tag::EOF => {
                let extra = p.len() - i - 1;
                if extra > 0 {
                    return Err(EeLogError::AfterEof { offset: i, extra });
                }
                return Ok(out);
            }
            0x40..=0x5F => {
                let &sq = p.get(i + 1).ok_or(EeLogError::Truncated { offset: i })?;
                if sq >= 64 {
                    return Err(bad(i + 1, "square index above 63"));
                }
                out.push((
                    i,
                    EeEntry::Piece {
                        index: sq,
                        code: b & 0x0F,
                        quick: b & 0x10 != 0,
                    },
                ));
                i += 2;
            }
            0x60..=0x69 | 0x70..=0x79 => {
                if p.len() < i + 3 {
                    return Err(EeLogError::Truncated { offset: i });
                }
                let minutes =
                    from_bcd(p[i + 1]).ok_or_else(|| bad(i + 1, "minutes not BCD 00..59"))?;
                let seconds =
                    from_bcd(p[i + 2]).ok_or_else(|| bad(i + 2, "seconds not BCD 00..59"))?;
                out.push((
                    i,
                    EeEntry::Time {
                        left: b & 0x10 != 0,
                        hours: b & 0x0F,
                        minutes,
                        seconds,
                    },
                ));
                i += 3;
            }
            _ if is_tag(b) => {
                out.push((i, EeEntry::Tag(b)));
                i += 1;
            }
            _ => return Err(bad(i, "no entry starts with this byte")),
        }
    }
    Err(EeLogError::NoEof { len: p.len() })
}

impl fmt::Display for EeEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EeEntry::Piece { index, code, .. } => write!(f, "square {index} = code {code}"),
            EeEntry::Time {
                left,
                hours,
                minutes,
                seconds,
            } => write!(
                f,
                "{} clock halted at {hours}:{minutes:02}:{seconds:02}",
                if left { "left" } else { "right" }
            ),
            EeEntry::Tag(t) => write!(f, "tag {t:#04x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_all(entries: &[EeEntry]) -> Vec<u8> {
        let mut out = Vec::new();
        for e in entries {
            e.encode(&mut out);
        }
        out.push(tag::EOF);
        out
    }

    #[test]
    fn every_tag_and_entry_kind_reads_back() {
        let payload = [
            0x6A, //             power-up
            0x6F, //             start position
            0x40, 0x34, //       e2 (index 52) empty
            0x51, 0x24, //       e4 (index 36) white pawn, within 250 ms
            0x70, 0x02, 0x58, // left clock halted at 0:02:58
            0x61, 0x15, 0x07, // right clock halted at 1:15:07
            0x6C, 0x6D, 0x6E, // four rows, empty board, downloaded
            0x7A, 0x7B, 0x7C, // start rotated, start tag, watchdog reset
            0x7D, 0x7E, //       reserved
            0x7F, 0x00, //       NOP, NOP2
            0x6B, //             EOF
        ];
        let log = parse(&payload).expect("a valid log");
        assert!(!log.wrapped);
        assert_eq!(
            log.entries,
            vec![
                EeEntry::Tag(tag::POWER_UP),
                EeEntry::Tag(tag::START_POSITION),
                EeEntry::Piece {
                    index: 52,
                    code: 0,
                    quick: false
                },
                EeEntry::Piece {
                    index: 36,
                    code: 1,
                    quick: true
                },
                EeEntry::time(true, 178),
                EeEntry::time(false, 3600 + 15 * 60 + 7),
                EeEntry::Tag(tag::FOUR_ROWS),
                EeEntry::Tag(tag::EMPTY_BOARD),
                EeEntry::Tag(tag::DOWNLOADED),
                EeEntry::Tag(tag::START_ROTATED),
                EeEntry::Tag(tag::START_TAG),
                EeEntry::Tag(tag::WATCHDOG_RESET),
                EeEntry::Tag(tag::RESERVED_7D),
                EeEntry::Tag(tag::RESERVED_7E),
                EeEntry::Tag(tag::NOP),
                EeEntry::Tag(tag::NOP2),
            ]
        );
        assert_eq!(encode_all(&log.entries), payload);
        assert_eq!(log.entries[5].total_seconds(), Some(4507));
    }

    #[test]
    fn bad_bytes_are_named_by_offset() {
        assert_eq!(
            parse(&[0x40, 0x41, 0x6B]),
            Err(EeLogError::BadByte {
                offset: 1,
                byte: 0x41,
                what: "square index above 63"
            })
        );
        assert_eq!(
            parse(&[0x6A, 0x60, 0x61, 0x00, 0x6B]),
            Err(EeLogError::BadByte {
                offset: 2,
                byte: 0x61,
                what: "minutes not BCD 00..59"
            })
        );
        assert_eq!(
            parse(&[0x6A, 0x20, 0x6B]),
            Err(EeLogError::BadByte {
                offset: 1,
                byte: 0x20,
                what: "no entry starts with this byte"
            })
        );
        assert_eq!(
            parse(&[0x6A, 0x45]),
            Err(EeLogError::Truncated { offset: 1 })
        );
        assert_eq!(parse(&[0x6A]), Err(EeLogError::NoEof { len: 1 }));
        assert_eq!(parse(&[]), Err(EeLogError::NoEof { len: 0 }));
        assert_eq!(
            parse(&[0x6B, 0x6A]),
            Err(EeLogError::AfterEof {
                offset: 0,
                extra: 1
            })
        );
        assert_eq!(
            parse(&vec![0x7F; RING_SIZE + 1]),
            Err(EeLogError::TooLong(RING_SIZE + 1))
        );
    }

    /// A ring that went round: the oldest entry lost its first byte (the log starts with
    /// the rest of a time entry, `0x45 0x30`, which reads like a piece change), the rest
    /// reads from there and ends at the write position.
    #[test]
    fn a_wrapped_ring_leaves_out_the_overwritten_head() {
        let mut payload = vec![0x45, 0x30]; // minutes 45, seconds 30 of an overwritten entry
        // 2 + 2n + 3 + 1 bytes fill the ring exactly.
        let n = (RING_SIZE - 6) / 2;
        let body: Vec<EeEntry> = (0..n)
            .map(|i| EeEntry::Piece {
                index: (i % 64) as u8,
                code: (i % 13) as u8,
                quick: i % 2 == 0,
            })
            .collect();
        for e in &body {
            e.encode(&mut payload);
        }
        let last = EeEntry::time(false, 61);
        last.encode(&mut payload);
        payload.push(tag::EOF);
        assert_eq!(payload.len(), RING_SIZE);
        let log = parse(&payload).expect("a wrapped ring reads");
        assert!(log.wrapped);
        // Read from offset 0, `0x45 0x30` looks like a piece change on index 48: left out
        // with the next entry, which also starts in the first three bytes.
        assert_eq!(log.skipped, 4);
        assert_eq!(log.entries.last(), Some(&last));
        // Every whole entry after the head is there, in order.
        let pieces: Vec<EeEntry> = log
            .entries
            .iter()
            .copied()
            .filter(|e| matches!(e, EeEntry::Piece { .. }))
            .collect();
        assert_eq!(pieces[..], body[1..]);
    }

    /// The fuzz target's property on a fixed sample of byte strings (the fuzz target runs it
    /// on many more): no panic, and whatever parses re-encodes to the same entries.
    #[test]
    fn arbitrary_bytes_never_panic_and_what_parses_round_trips() {
        let mut x: u32 = 0x2545_F491;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut parsed = 0;
        for round in 0..2000 {
            let len = (next() % 40) as usize;
            // Mostly bytes that can start or continue an entry, so that many inputs parse.
            let mut p: Vec<u8> = (0..len)
                .map(|_| match next() % 4 {
                    0 => 0x40 | (next() % 0x40) as u8,
                    1 => (next() % 0x40) as u8,
                    2 => 0x6A + (next() % 6) as u8,
                    _ => (next() % 0x80) as u8,
                })
                .collect();
            if round % 2 == 0 {
                p.push(tag::EOF);
            }
            if let Ok(log) = parse(&p) {
                parsed += 1;
                assert_eq!(
                    parse(&encode_all(&log.entries)),
                    Ok(log.clone()),
                    "{p:02x?}"
                );
            }
        }
        assert!(parsed > 20, "only {parsed} samples parsed");
    }

    #[test]
    fn a_wrapped_ring_starting_mid_entry_resyncs() {
        // The head is the last byte of a piece change whose square byte is 0x3F, not an
        // entry start: parsing starts one byte later.
        let mut payload = vec![0x3F];
        while payload.len() < RING_SIZE - 1 {
            EeEntry::Tag(tag::NOP).encode(&mut payload);
        }
        payload.push(tag::EOF);
        let log = parse(&payload).expect("resyncs");
        assert!(log.wrapped);
        assert_eq!(log.skipped, 3);
        assert_eq!(log.entries.len(), RING_SIZE - 1 - 3);
    }
}
