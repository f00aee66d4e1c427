//! The framing shared by Certabo and TabuTronic boards: `:` + decimal numbers + line end.
//!
//! A Certabo reading is 320 numbers (64 squares × a 5-byte tag id, a8 first), a Sentio
//! reading 8 numbers (one occupancy byte per rank, rank 8 first). Between readings a board
//! may send `L` (single-colour LEDs) or `D` (RGB LEDs) after an LED command it understood.
//!
//! What the decoder tolerates, because the boards and their test fixtures show it:
//!
//! * readings cut into several reads anywhere, even inside a number;
//! * junk before a `:` (dropped, counted, the last byte named in [`ResyncStats`]);
//! * `CR LF` and bare `LF` line ends, with or without a space before them;
//! * bare `LF` *inside* a reading (64-character lines, as USB packets or logs cut them): such
//!   a break joins what is on either side (`10\n5` is 105), so a bare `LF` ends a reading
//!   only once the reading holds all its numbers, and if it follows a digit only when the
//!   next byte is not a digit;
//! * a reading that does not start with `:` but at the start of a line (the peers' parsers
//!   take the text before the first `:` like any other part);
//! * an `L` / `D` acknowledgement anywhere, even inside a reading.
//!
//! Anything else is garbage: the reading in progress is abandoned with a [`DecodeError`]
//! naming the byte (or the count, or the number) and the decoder waits for the next `:` or
//! line start. The buffer is bounded: at most 320 numbers are kept, and a number above 255
//! ends the reading.

use crate::error::DecodeError;
use crate::resync::ResyncStats;

/// Numbers in a Certabo reading: 64 squares × 5 bytes.
pub const CERTABO_NUMBERS: usize = 320;
/// Numbers in a Sentio reading: one byte per rank.
pub const SENTIO_NUMBERS: usize = 8;

/// An RFID tag id as a Certabo square reports it (`0 0 0 0 0` for nothing read).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TagId(pub [u8; 5]);

impl TagId {
    /// The all-zero id: nothing read on the square.
    pub const NONE: TagId = TagId([0; 5]);

    /// True for `0 0 0 0 0`.
    #[must_use]
    pub fn is_none(self) -> bool {
        self == TagId::NONE
    }

    /// Parses `"3 0 84 252 15"` (five numbers 0–255 separated by whitespace).
    #[must_use]
    pub fn parse(s: &str) -> Option<TagId> {
        let mut id = [0u8; 5];
        let mut it = s.split_whitespace();
        for b in &mut id {
            *b = it.next()?.parse().ok()?;
        }
        it.next().is_none().then_some(TagId(id))
    }
}

impl std::fmt::Display for TagId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c, d, e] = self.0;
        write!(f, "{a} {b} {c} {d} {e}")
    }
}

impl std::fmt::Debug for TagId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TagId({self})")
    }
}

/// The 64 tag ids of a Certabo reading, in wire order (index 0 = a8, 7 = h8, 63 = h1).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TagReading(pub [TagId; 64]);

/// A Sentio reading: one byte per rank, rank 8 first, most significant bit = a-file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RankBits(pub [u8; 8]);

/// Which LEDs the board said it has, by its acknowledgement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LedAck {
    /// `L`: one colour, 8-byte LED commands.
    Classic,
    /// `D`: RGB (TabuTronic Spectrum), 247-byte LED frames.
    Rgb,
}

/// One thing the board said.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Message {
    /// A Certabo reading (320 numbers).
    Tags(Box<TagReading>),
    /// A Sentio reading (8 numbers).
    Ranks(RankBits),
    /// An LED acknowledgement.
    Ack(LedAck),
}

/// Which readings a decoder accepts as complete.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Expect {
    /// Both, the first complete reading tells and the choice sticks (as the peers do).
    #[default]
    Detect,
    /// Certabo readings only: 8 numbers are never a whole reading.
    Tags,
    /// Sentio readings only.
    Ranks,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    Start,
    Space,
    Digit,
    Cr,
}

#[derive(Debug)]
enum State {
    /// Between readings; `line_start` after a line end (or at the very start), `skipping`
    /// the rest of an abandoned reading (dropped without a new reason).
    Idle { line_start: bool, skipping: bool },
    /// Inside a reading.
    Frame,
}

/// The resynchronising decoder; feed it bytes as they arrive.
#[derive(Debug)]
pub struct FrameDecoder {
    expect: Expect,
    state: State,
    numbers: Vec<u8>,
    current: Option<u16>,
    prev: Prev,
    /// A bare LF after a digit completed the count: the next byte decides.
    pending_end: bool,
    /// Bytes of the reading in progress (what abandoning it drops).
    frame_bytes: usize,
    stats: ResyncStats,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder::new(Expect::Detect)
    }
}

impl FrameDecoder {
    /// A decoder at the start of a stream.
    #[must_use]
    pub fn new(expect: Expect) -> Self {
        FrameDecoder {
            expect,
            state: State::Idle {
                line_start: true,
                skipping: false,
            },
            numbers: Vec::with_capacity(CERTABO_NUMBERS),
            current: None,
            prev: Prev::Start,
            pending_end: false,
            frame_bytes: 0,
            stats: ResyncStats::default(),
        }
    }

    /// What the decoder accepts now (after detection: the kind it saw).
    #[must_use]
    pub fn expect(&self) -> Expect {
        self.expect
    }

    /// What was dropped so far, and why last.
    #[must_use]
    pub fn stats(&self) -> &ResyncStats {
        &self.stats
    }

    /// Numbers held of the reading in progress: never more than a Certabo reading's 320,
    /// whatever arrives.
    #[must_use]
    pub fn held(&self) -> usize {
        self.count()
    }

    /// Decodes `bytes`, appending complete messages to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Message>) {
        for &b in bytes {
            self.byte(b, out);
        }
    }

    /// Decodes `bytes` into a new vector.
    #[must_use]
    pub fn decode(&mut self, bytes: &[u8]) -> Vec<Message> {
        let mut out = Vec::new();
        self.feed(bytes, &mut out);
        out
    }

    fn count(&self) -> usize {
        self.numbers.len() + usize::from(self.current.is_some())
    }

    fn complete(&self, n: usize) -> bool {
        match self.expect {
            Expect::Detect => n == CERTABO_NUMBERS || n == SENTIO_NUMBERS,
            Expect::Tags => n == CERTABO_NUMBERS,
            Expect::Ranks => n == SENTIO_NUMBERS,
        }
    }

    fn begin(&mut self) {
        self.state = State::Frame;
        self.numbers.clear();
        self.current = None;
        self.prev = Prev::Start;
        self.pending_end = false;
        self.frame_bytes = 1;
    }

    fn abandon(&mut self, why: DecodeError, line_start: bool) {
        self.stats.note(self.frame_bytes.max(1), why);
        self.numbers.clear();
        self.current = None;
        self.pending_end = false;
        self.state = State::Idle {
            line_start,
            skipping: !line_start,
        };
    }

    /// Ends the number in progress; `false` when the reading overflowed and was abandoned.
    fn end_number(&mut self) -> bool {
        if let Some(v) = self.current.take() {
            if self.numbers.len() == CERTABO_NUMBERS {
                self.abandon(DecodeError::TooManyNumbers(CERTABO_NUMBERS + 1), false);
                return false;
            }
            // Checked when the digit arrived.
            self.numbers.push(v as u8);
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<Message>) {
        if !self.end_number() {
            return;
        }
        let n = self.numbers.len();
        if !self.complete(n) {
            self.abandon(DecodeError::WrongCount(n), true);
            return;
        }
        let msg = if n == CERTABO_NUMBERS {
            let mut ids = [TagId::NONE; 64];
            for (id, chunk) in ids.iter_mut().zip(self.numbers.chunks_exact(5)) {
                id.0.copy_from_slice(chunk);
            }
            self.expect = Expect::Tags;
            Message::Tags(Box::new(TagReading(ids)))
        } else {
            let mut ranks = [0u8; 8];
            ranks.copy_from_slice(&self.numbers);
            self.expect = Expect::Ranks;
            Message::Ranks(RankBits(ranks))
        };
        out.push(msg);
        self.numbers.clear();
        self.state = State::Idle {
            line_start: true,
            skipping: false,
        };
    }

    fn byte(&mut self, b: u8, out: &mut Vec<Message>) {
        if matches!(self.state, State::Frame) && self.pending_end {
            if b.is_ascii_digit() {
                self.pending_end = false;
            } else {
                self.finish(out);
            }
        }
        match self.state {
            State::Idle {
                line_start,
                skipping,
            } => self.idle(b, line_start, skipping, out),
            State::Frame => self.in_frame(b, out),
        }
    }

    fn idle(&mut self, b: u8, line_start: bool, skipping: bool, out: &mut Vec<Message>) {
        match b {
            b':' => self.begin(),
            b'0'..=b'9' if line_start => {
                self.begin();
                self.in_frame(b, out);
            }
            b'\n' => {
                self.state = State::Idle {
                    line_start: true,
                    skipping: false,
                }
            }
            b'\r' | b' ' | b'\t' => {}
            b'L' => out.push(Message::Ack(LedAck::Classic)),
            b'D' => out.push(Message::Ack(LedAck::Rgb)),
            _ if skipping => self.stats.more(1),
            other => {
                self.stats.note(1, DecodeError::NotAFrameStart(other));
                self.state = State::Idle {
                    line_start: false,
                    skipping: false,
                };
            }
        }
    }

    fn in_frame(&mut self, b: u8, out: &mut Vec<Message>) {
        self.frame_bytes += 1;
        match b {
            b'0'..=b'9' => {
                let v = self.current.unwrap_or(0) * 10 + u16::from(b - b'0');
                if v > 255 {
                    let index = self.numbers.len();
                    self.abandon(DecodeError::NotAByte { index, value: v }, false);
                    return;
                }
                if self.current.is_none() && self.numbers.len() == CERTABO_NUMBERS {
                    self.abandon(DecodeError::TooManyNumbers(CERTABO_NUMBERS + 1), false);
                    return;
                }
                self.current = Some(v);
                self.prev = Prev::Digit;
            }
            b' ' | b'\t' => {
                if self.end_number() {
                    self.prev = Prev::Space;
                }
            }
            b'\r' => {
                if self.end_number() {
                    self.prev = Prev::Cr;
                }
            }
            b'\n' => {
                if self.prev == Prev::Cr {
                    self.finish(out);
                } else if self.complete(self.count()) {
                    if self.prev == Prev::Digit {
                        self.pending_end = true;
                    } else {
                        self.finish(out);
                    }
                }
                // Otherwise a break inside the reading: it joins what is on either side.
            }
            b'L' => out.push(Message::Ack(LedAck::Classic)),
            b'D' => out.push(Message::Ack(LedAck::Rgb)),
            b':' => {
                if self.complete(self.count()) {
                    self.finish(out);
                } else {
                    let n = self.count();
                    self.abandon(DecodeError::WrongCount(n), false);
                }
                self.begin();
            }
            other => {
                let numbers = self.count();
                self.abandon(
                    DecodeError::UnexpectedByte {
                        byte: other,
                        numbers,
                    },
                    false,
                );
            }
        }
    }
}

impl Message {
    /// The wire form as a board sends it: `:` + numbers + ` \r\n` (the vendor's simulator's
    /// line end), or `L\r\n` / `D\r\n`.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        fn line(numbers: impl Iterator<Item = u8>) -> Vec<u8> {
            let mut s = String::from(":");
            for (i, n) in numbers.enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                s.push_str(&n.to_string());
            }
            s.push_str(" \r\n");
            s.into_bytes()
        }
        match self {
            Message::Tags(t) => line(t.0.iter().flat_map(|id| id.0)),
            Message::Ranks(r) => line(r.0.into_iter()),
            Message::Ack(LedAck::Classic) => b"L\r\n".to_vec(),
            Message::Ack(LedAck::Rgb) => b"D\r\n".to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(s: &str) -> Vec<Message> {
        FrameDecoder::default().decode(s.as_bytes())
    }

    fn tags_line(end: &str) -> String {
        let mut s = String::from(":");
        for i in 0..320 {
            s.push_str(&format!("{}", i % 256));
            s.push(' ');
        }
        s.pop();
        s + end
    }

    #[test]
    fn both_line_ends_with_and_without_the_space() {
        let r = Message::Ranks(RankBits([255, 255, 0, 0, 0, 0, 255, 254]));
        for text in [
            ":255 255 0 0 0 0 255 254\r\n",
            ":255 255 0 0 0 0 255 254 \r\n",
            ":255 255 0 0 0 0 255 254 \n",
        ] {
            assert_eq!(ranks(text), vec![r.clone()], "{text:?}");
        }
        // A bare LF right after the last digit: the next byte decides (a digit would continue
        // a number cut by the break), here the next reading's ':'.
        let two = ranks(":255 255 0 0 0 0 255 254\n:255 255 0 0 0 0 255 255\n:");
        assert_eq!(two.len(), 2);
        for end in ["\r\n", " \r\n", " \n"] {
            let msgs = FrameDecoder::default().decode(tags_line(end).as_bytes());
            assert!(matches!(&msgs[..], [Message::Tags(_)]), "{end:?}");
        }
    }

    #[test]
    fn encoded_messages_decode_to_themselves() {
        let mut ids = [TagId::NONE; 64];
        ids[0] = TagId([3, 0, 84, 252, 15]);
        ids[63] = TagId([255, 1, 2, 3, 4]);
        for m in [
            Message::Tags(Box::new(TagReading(ids))),
            Message::Ranks(RankBits([1, 2, 3, 4, 5, 6, 7, 255])),
            Message::Ack(LedAck::Classic),
            Message::Ack(LedAck::Rgb),
        ] {
            assert_eq!(
                FrameDecoder::default().decode(&m.to_bytes()),
                vec![m.clone()]
            );
        }
    }

    #[test]
    fn garbage_is_named_and_the_next_reading_is_read() {
        let mut d = FrameDecoder::default();
        let msgs = d.decode(b":255 255 0 0 0 ?0 255 254\r\n:255 255 0 0 0 0 255 254\r\n");
        assert_eq!(msgs.len(), 1);
        assert_eq!(
            d.stats().last_error(),
            Some(&DecodeError::UnexpectedByte {
                byte: b'?',
                numbers: 5
            })
        );
        let mut d = FrameDecoder::default();
        assert!(d.decode(b":255 256 0\r\n").is_empty());
        assert_eq!(
            d.stats().last_error(),
            Some(&DecodeError::NotAByte {
                index: 1,
                value: 256
            })
        );
        let mut d = FrameDecoder::default();
        assert!(d.decode(b":1 2 3\r\n").is_empty());
        assert_eq!(d.stats().last_error(), Some(&DecodeError::WrongCount(3)));
        assert!(
            d.stats()
                .last_error()
                .is_some_and(|e| e.to_string().contains("3 numbers"))
        );
    }

    #[test]
    fn the_buffer_is_bounded() {
        let mut d = FrameDecoder::default();
        let long = ":".to_string() + &"1 ".repeat(5000) + "\r\n";
        assert!(d.decode(long.as_bytes()).is_empty());
        assert_eq!(
            d.stats().last_error(),
            Some(&DecodeError::TooManyNumbers(321))
        );
        assert!(d.numbers.capacity() <= CERTABO_NUMBERS);
        // And it reads the next good reading.
        assert_eq!(d.decode(b":1 2 3 4 5 6 7 8\r\n").len(), 1);
    }

    #[test]
    fn a_certabo_board_is_not_taken_for_a_sentio() {
        let mut d = FrameDecoder::new(Expect::Tags);
        // Eight numbers and a bare LF after a space: a break inside a Certabo reading.
        assert!(d.decode(b":1 2 3 4 5 6 7 8 \n").is_empty());
        let mut d = FrameDecoder::new(Expect::Ranks);
        assert!(d.decode(tags_line("\r\n").as_bytes()).is_empty());
        assert_eq!(d.stats().last_error(), Some(&DecodeError::WrongCount(320)));
    }
}
