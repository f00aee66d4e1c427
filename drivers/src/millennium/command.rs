//! Host → board commands (the ChessLink protocol description) and a decoder for them (the emulated
//! board uses it). Lengths including the check: `V` `S` `X` `T` 3, `W` 7, `R` 5, `L` 167.

use bytes::BytesMut;

use super::frame::{Framer, ParityMode, encode_frame, hex2, is_hex, parse_hex2};
use crate::error::DecodeError;
use crate::resync::ResyncStats;

/// A command to a Millennium board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MillCommand {
    /// `V`: firmware version.
    Version,
    /// `S`: status (all 64 squares).
    Status,
    /// `L tt` + 81 patterns: LEDs; `slot_time` in 4.096 ms units, patterns MSB first.
    Leds {
        /// Slot time.
        slot_time: u8,
        /// One 8-bit pattern per LED (document frame, see [`super::leds_for_squares`]).
        patterns: Box<[u8; 81]>,
    },
    /// `X`: all LEDs off.
    LedsOff,
    /// `T`: hardware reset (no reply).
    Reset,
    /// `W aa dd`: write a register.
    WriteRegister {
        /// Address.
        addr: u8,
        /// Value.
        value: u8,
    },
    /// `R aa`: read a register.
    ReadRegister {
        /// Address.
        addr: u8,
    },
}

fn command_len(letter: u8) -> Option<usize> {
    Some(match letter {
        b'V' | b'S' | b'X' | b'T' => 3,
        b'W' => 7,
        b'R' => 5,
        b'L' => 167,
        _ => return None,
    })
}

impl MillCommand {
    /// Appends the wire form (parity and block check included).
    pub fn encode(&self, out: &mut BytesMut) {
        match self {
            MillCommand::Version => encode_frame(b'V', &[], out),
            MillCommand::Status => encode_frame(b'S', &[], out),
            MillCommand::LedsOff => encode_frame(b'X', &[], out),
            MillCommand::Reset => encode_frame(b'T', &[], out),
            MillCommand::WriteRegister { addr, value } => {
                let (a, v) = (hex2(*addr), hex2(*value));
                encode_frame(b'W', &[a[0], a[1], v[0], v[1]], out);
            }
            MillCommand::ReadRegister { addr } => encode_frame(b'R', &hex2(*addr), out),
            MillCommand::Leds {
                slot_time,
                patterns,
            } => {
                let mut p = Vec::with_capacity(164);
                p.extend(hex2(*slot_time));
                for &led in patterns.iter() {
                    p.extend(hex2(led));
                }
                encode_frame(b'L', &p, out);
            }
        }
    }

    /// The wire form as a vector.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = BytesMut::new();
        self.encode(&mut b);
        b.to_vec()
    }

    fn parse(body: &[u8]) -> Result<MillCommand, DecodeError> {
        let letter = body[0];
        let p = &body[1..];
        let pair = |i: usize| {
            parse_hex2([p[i], p[i + 1]]).ok_or(DecodeError::BadContent {
                id: letter,
                what: "not hex",
            })
        };
        Ok(match letter {
            b'V' => MillCommand::Version,
            b'S' => MillCommand::Status,
            b'X' => MillCommand::LedsOff,
            b'T' => MillCommand::Reset,
            b'W' => MillCommand::WriteRegister {
                addr: pair(0)?,
                value: pair(2)?,
            },
            b'R' => MillCommand::ReadRegister { addr: pair(0)? },
            b'L' => {
                let slot_time = pair(0)?;
                let mut patterns = Box::new([0u8; 81]);
                for (i, led) in patterns.iter_mut().enumerate() {
                    *led = pair(2 + 2 * i)?;
                }
                MillCommand::Leds {
                    slot_time,
                    patterns,
                }
            }
            other => return Err(DecodeError::NotAMessageStart(other)),
        })
    }
}

/// Resynchronising decoder of commands (the board's side of the link).
#[derive(Debug, Default)]
pub struct CommandDecoder {
    framer: Framer,
}

impl CommandDecoder {
    /// A decoder with the given parity handling.
    #[must_use]
    pub fn new(parity: ParityMode) -> Self {
        CommandDecoder {
            framer: Framer::new(parity),
        }
    }

    /// What was dropped so far.
    #[must_use]
    pub fn stats(&self) -> &ResyncStats {
        self.framer.stats()
    }

    /// Whether the host sends parity, once a frame has told ([`Framer::detected`]).
    #[must_use]
    pub fn detected_parity(&self) -> Option<ParityMode> {
        self.framer.detected()
    }

    /// The next command in `buf`, or `None` when more bytes are needed.
    pub fn next_command(&mut self, buf: &mut BytesMut) -> Option<MillCommand> {
        loop {
            let body = self
                .framer
                .next_frame(buf, command_len, |_, _, c| is_hex(c))?;
            match MillCommand::parse(&body) {
                Ok(c) => return Some(c),
                Err(e) => self.framer.reject(body.len() + 2, e),
            }
        }
    }
}

impl tokio_util::codec::Decoder for CommandDecoder {
    type Item = MillCommand;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<MillCommand>, std::io::Error> {
        Ok(self.next_command(src))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_command_bytes() {
        assert_eq!(
            MillCommand::Status.to_bytes(),
            vec![
                0xD3, // 'S' (0x53, four ones) + parity
                0xB5, // '5' + parity: check 0x53 -> "53"
                0xB3, // '3' (0x33, four ones) + parity
            ]
        );
    }

    #[test]
    fn write_register_bytes() {
        // W 02 03: check = 'W'^'0'^'2'^'0'^'3' = 0x57 ^ 0x02 ^ 0x03 = 0x56.
        assert_eq!(
            MillCommand::WriteRegister { addr: 2, value: 3 }.to_bytes(),
            vec![
                0x57, // 'W' (0x57, five ones): no parity bit
                0xB0, // '0' (two ones) + parity
                0x32, // '2' (three ones)
                0xB0, // '0' + parity
                0xB3, // '3' (four ones) + parity
                0xB5, // '5' (four ones) + parity: check 0x56 -> "56"
                0xB6, // '6' (four ones) + parity
            ]
        );
    }

    #[test]
    fn commands_round_trip_byte_by_byte() {
        let mut patterns = Box::new([0u8; 81]);
        patterns[0] = 0xFF;
        patterns[80] = 0xC4;
        let cmds = vec![
            MillCommand::Version,
            MillCommand::WriteRegister { addr: 2, value: 3 },
            MillCommand::ReadRegister { addr: 0x11 },
            MillCommand::Status,
            MillCommand::Leds {
                slot_time: 0x20,
                patterns,
            },
            MillCommand::LedsOff,
            MillCommand::Reset,
        ];
        let wire: Vec<u8> = cmds.iter().flat_map(MillCommand::to_bytes).collect();
        let mut d = CommandDecoder::new(ParityMode::Odd);
        let mut buf = BytesMut::new();
        let mut got = Vec::new();
        for &b in &wire {
            buf.extend_from_slice(&[b]);
            while let Some(c) = d.next_command(&mut buf) {
                got.push(c);
            }
        }
        assert_eq!(got, cmds);
        assert_eq!(d.stats().dropped_bytes(), 0);
    }
}
