//! Host → board commands (DGT's `dgtbrd.h`: board, relayed clock and LED commands), their encoding, and a
//! resynchronising decoder for them (the emulated board uses it).
//!
//! Clock commands travel as `2B N 03 <cmd> <payload…> 00`, N counting from `03` to the final
//! `00`. SETNRUN times are sent in **binary** (as picochess and asyncdgt do).

use bytes::{BufMut, BytesMut};

use crate::error::DecodeError;
use crate::resync::ResyncStats;

/// Clock command ids (the byte after `03`).
pub mod clock_id {
    /// 7-segment display (XL).
    pub const DISPLAY: u8 = 0x01;
    /// Icons.
    pub const ICONS: u8 = 0x02;
    /// Back to showing the times.
    pub const END: u8 = 0x03;
    /// Ask for the pressed button.
    pub const BUTTON: u8 = 0x08;
    /// Clock version (in the ack).
    pub const VERSION: u8 = 0x09;
    /// Set the times and run.
    pub const SETNRUN: u8 = 0x0A;
    /// Beep.
    pub const BEEP: u8 = 0x0B;
    /// 8-character text (DGT 3000).
    pub const ASCII: u8 = 0x0C;
    /// 11-character text (Revelation II).
    pub const REV2_ASCII: u8 = 0x0D;
}

/// Hours, minutes, seconds for SETNRUN (binary; OR `0x10` into hours for count-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hms {
    /// Hours (low nibble) and flags.
    pub h: u8,
    /// Minutes.
    pub m: u8,
    /// Seconds.
    pub s: u8,
}

impl Hms {
    /// From a number of seconds (clamped to 9:59:59).
    #[must_use]
    pub fn from_seconds(secs: u32) -> Hms {
        let secs = secs.min(9 * 3600 + 3599);
        Hms {
            h: (secs / 3600) as u8,
            m: (secs / 60 % 60) as u8,
            s: (secs % 60) as u8,
        }
    }
}

/// A command relayed to the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockCommand {
    /// XL 7-segment display: six segment bytes, icon byte, beep byte.
    Display {
        /// Segment bytes for digit positions C, B, A, F, E, D.
        segments: [u8; 6],
        /// Icon bits.
        icons: u8,
        /// Beep byte.
        beep: u8,
    },
    /// Icons: four icon bytes, special byte, three reserved bytes.
    Icons([u8; 8]),
    /// Back to showing the times.
    End,
    /// Which button is pressed.
    Button,
    /// Version (comes back in the ack).
    Version,
    /// Set both times and run mode (left, right, mode bits: `0x01` left counts down,
    /// `0x02` right counts down, `0x04` pause, `0x08` toggle at lever).
    SetAndRun {
        /// Left side.
        left: Hms,
        /// Right side.
        right: Hms,
        /// Mode bits.
        mode: u8,
    },
    /// Beep, duration in 64 ms units.
    Beep(u8),
    /// DGT 3000 text: eight ASCII characters and a beep byte (0 = silent).
    Ascii {
        /// The text.
        text: [u8; 8],
        /// Beep 0–15.
        beep: u8,
    },
    /// Revelation II text: eleven characters and a beep byte.
    Rev2Ascii {
        /// The text.
        text: [u8; 11],
        /// Beep.
        beep: u8,
    },
}

impl ClockCommand {
    /// Text for a DGT 3000 display: padded with spaces or cut to 8 characters; non-ASCII
    /// characters become `?`.
    #[must_use]
    pub fn text(s: &str, beep: u8) -> ClockCommand {
        let mut text = [b' '; 8];
        for (slot, c) in text.iter_mut().zip(s.chars()) {
            *slot = if c.is_ascii() && !c.is_ascii_control() {
                c as u8
            } else {
                b'?'
            };
        }
        ClockCommand::Ascii {
            text,
            beep: beep.min(15),
        }
    }

    /// The clock command id.
    #[must_use]
    pub fn id(&self) -> u8 {
        match self {
            ClockCommand::Display { .. } => clock_id::DISPLAY,
            ClockCommand::Icons(_) => clock_id::ICONS,
            ClockCommand::End => clock_id::END,
            ClockCommand::Button => clock_id::BUTTON,
            ClockCommand::Version => clock_id::VERSION,
            ClockCommand::SetAndRun { .. } => clock_id::SETNRUN,
            ClockCommand::Beep(_) => clock_id::BEEP,
            ClockCommand::Ascii { .. } => clock_id::ASCII,
            ClockCommand::Rev2Ascii { .. } => clock_id::REV2_ASCII,
        }
    }

    fn payload(&self) -> Vec<u8> {
        match self {
            ClockCommand::Display {
                segments,
                icons,
                beep,
            } => {
                let mut v = segments.to_vec();
                v.extend([*icons, *beep]);
                v
            }
            ClockCommand::Icons(b) => b.to_vec(),
            ClockCommand::End | ClockCommand::Button | ClockCommand::Version => vec![],
            ClockCommand::SetAndRun { left, right, mode } => {
                vec![left.h, left.m, left.s, right.h, right.m, right.s, *mode]
            }
            ClockCommand::Beep(d) => vec![*d],
            ClockCommand::Ascii { text, beep } => {
                let mut v = text.to_vec();
                v.push(*beep);
                v
            }
            ClockCommand::Rev2Ascii { text, beep } => {
                let mut v = text.to_vec();
                v.push(*beep);
                v
            }
        }
    }

    fn payload_len(id: u8) -> Option<usize> {
        Some(match id {
            clock_id::DISPLAY | clock_id::ICONS => 8,
            clock_id::END | clock_id::BUTTON | clock_id::VERSION => 0,
            clock_id::SETNRUN => 7,
            clock_id::BEEP => 1,
            clock_id::ASCII => 9,
            clock_id::REV2_ASCII => 12,
            _ => return None,
        })
    }

    fn parse(id: u8, p: &[u8]) -> Option<ClockCommand> {
        Some(match id {
            clock_id::DISPLAY => ClockCommand::Display {
                segments: p[..6].try_into().ok()?,
                icons: p[6],
                beep: p[7],
            },
            clock_id::ICONS => ClockCommand::Icons(p.try_into().ok()?),
            clock_id::END => ClockCommand::End,
            clock_id::BUTTON => ClockCommand::Button,
            clock_id::VERSION => ClockCommand::Version,
            clock_id::SETNRUN => ClockCommand::SetAndRun {
                left: Hms {
                    h: p[0],
                    m: p[1],
                    s: p[2],
                },
                right: Hms {
                    h: p[3],
                    m: p[4],
                    s: p[5],
                },
                mode: p[6],
            },
            clock_id::BEEP => ClockCommand::Beep(p[0]),
            clock_id::ASCII => ClockCommand::Ascii {
                text: p[..8].try_into().ok()?,
                beep: p[8],
            },
            clock_id::REV2_ASCII => ClockCommand::Rev2Ascii {
                text: p[..11].try_into().ok()?,
                beep: p[11],
            },
            _ => return None,
        })
    }
}

/// A host → board command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `0x40`: to IDLE, cancel update mode.
    Reset,
    /// `0x41`: one BWTIME message.
    SendClock,
    /// `0x42`: one board dump.
    SendBoard,
    /// `0x43`: field updates plus clock at least once a second.
    Update,
    /// `0x44`: field updates only.
    UpdateBoard,
    /// `0x45`: serial number.
    SerialNumber,
    /// `0x46`: bus address.
    BusAddress,
    /// `0x47`: trademark.
    Trademark,
    /// `0x49`: EEPROM log.
    EeMoves,
    /// `0x4A`: back to bus mode.
    BusMode,
    /// `0x4B`: field updates plus clock messages when the clock data change.
    UpdateNice,
    /// `0x4C`: battery status.
    Battery,
    /// `0x4D`: version.
    Version,
    /// `0x55`: long serial number.
    LongSerialNumber,
    /// `0x60 04 pattern from to 00`: Revelation II LEDs (squares 0 = a8 … 63 = h1).
    SetLeds {
        /// 0 off, 1 on, 2 flags.
        pattern: u8,
        /// First square (board index) or flag selector.
        from: u8,
        /// Last square (board index) or flag value.
        to: u8,
    },
    /// `0x2B …`: a clock command.
    Clock(ClockCommand),
}

impl Command {
    fn single_byte(&self) -> Option<u8> {
        Some(match self {
            Command::Reset => 0x40,
            Command::SendClock => 0x41,
            Command::SendBoard => 0x42,
            Command::Update => 0x43,
            Command::UpdateBoard => 0x44,
            Command::SerialNumber => 0x45,
            Command::BusAddress => 0x46,
            Command::Trademark => 0x47,
            Command::EeMoves => 0x49,
            Command::BusMode => 0x4A,
            Command::UpdateNice => 0x4B,
            Command::Battery => 0x4C,
            Command::Version => 0x4D,
            Command::LongSerialNumber => 0x55,
            Command::SetLeds { .. } | Command::Clock(_) => return None,
        })
    }

    fn from_single_byte(b: u8) -> Option<Command> {
        Some(match b {
            0x40 => Command::Reset,
            0x41 => Command::SendClock,
            0x42 => Command::SendBoard,
            0x43 => Command::Update,
            0x44 => Command::UpdateBoard,
            0x45 => Command::SerialNumber,
            0x46 => Command::BusAddress,
            0x47 => Command::Trademark,
            0x49 => Command::EeMoves,
            0x4A => Command::BusMode,
            0x4B => Command::UpdateNice,
            0x4C => Command::Battery,
            0x4D => Command::Version,
            0x55 => Command::LongSerialNumber,
            _ => return None,
        })
    }

    /// Appends the wire form to `out`.
    pub fn encode(&self, out: &mut BytesMut) {
        if let Some(b) = self.single_byte() {
            out.put_u8(b);
            return;
        }
        match self {
            Command::SetLeds { pattern, from, to } => {
                out.put_slice(&[0x60, 0x04, *pattern, *from, *to, 0x00]);
            }
            Command::Clock(c) => {
                let payload = c.payload();
                out.put_slice(&[0x2B, (payload.len() + 3) as u8, 0x03, c.id()]);
                out.put_slice(&payload);
                out.put_u8(0x00);
            }
            _ => {}
        }
    }

    /// The wire form as a vector.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = BytesMut::new();
        self.encode(&mut b);
        b.to_vec()
    }
}

/// Resynchronising decoder of host → board commands (the board's side of the link).
#[derive(Debug, Default)]
pub struct CommandDecoder {
    stats: ResyncStats,
}

impl CommandDecoder {
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

    /// The next command in `buf`, or `None` when more bytes are needed.
    pub fn next_command(&mut self, buf: &mut BytesMut) -> Option<Command> {
        loop {
            let &first = buf.first()?;
            if let Some(c) = Command::from_single_byte(first) {
                let _ = buf.split_to(1);
                return Some(c);
            }
            match first {
                0x60 => {
                    if buf.len() < 6 {
                        return None;
                    }
                    if buf[1] != 0x04 || buf[5] != 0x00 {
                        self.stats.drop_bytes(
                            buf,
                            1,
                            DecodeError::BadLength {
                                id: 0x60,
                                len: usize::from(buf[1]),
                            },
                        );
                        continue;
                    }
                    let f = buf.split_to(6);
                    return Some(Command::SetLeds {
                        pattern: f[2],
                        from: f[3],
                        to: f[4],
                    });
                }
                0x2B => {
                    if buf.len() < 4 {
                        return None;
                    }
                    let n = usize::from(buf[1]);
                    let cmd = buf[3];
                    let fits = buf[2] == 0x03
                        && ClockCommand::payload_len(cmd).is_some_and(|p| p + 3 == n);
                    if !fits {
                        self.stats
                            .drop_bytes(buf, 1, DecodeError::BadLength { id: 0x2B, len: n });
                        continue;
                    }
                    if buf.len() < n + 2 {
                        return None;
                    }
                    if buf[n + 1] != 0x00 {
                        self.stats.drop_bytes(
                            buf,
                            1,
                            DecodeError::BadContent {
                                id: 0x2B,
                                what: "clock frame does not end in 00",
                            },
                        );
                        continue;
                    }
                    let f = buf.split_to(n + 2);
                    match ClockCommand::parse(cmd, &f[4..n + 1]) {
                        Some(c) => return Some(Command::Clock(c)),
                        None => {
                            self.stats.drop_bytes(
                                &mut BytesMut::from(&f[..]),
                                n + 2,
                                DecodeError::UnknownId(cmd),
                            );
                        }
                    }
                }
                other => self.stats.drop_bytes(buf, 1, DecodeError::UnknownId(other)),
            }
        }
    }
}

impl tokio_util::codec::Decoder for CommandDecoder {
    type Item = Command;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Command>, std::io::Error> {
        Ok(self.next_command(src))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_text_frame() {
        let bytes = ClockCommand::text("e2e4", 3);
        assert_eq!(
            Command::Clock(bytes).to_bytes(),
            vec![
                0x2B, // CLOCK_MESSAGE
                0x0C, // N = 12: 03, cmd, 8 chars, beep, 00
                0x03, // start
                0x0C, // ASCII
                b'e', b'2', b'e', b'4', b' ', b' ', b' ', b' ', 0x03, // beep
                0x00, // end
            ]
        );
    }

    #[test]
    fn beep_and_setnrun_frames() {
        assert_eq!(
            Command::Clock(ClockCommand::Beep(4)).to_bytes(),
            vec![
                0x2B, // CLOCK_MESSAGE
                0x04, // N = 4
                0x03, // start
                0x0B, // BEEP
                0x04, // 4 * 64 ms
                0x00, // end
            ]
        );
        let run = ClockCommand::SetAndRun {
            left: Hms::from_seconds(180),
            right: Hms::from_seconds(3725),
            mode: 0x01,
        };
        assert_eq!(
            Command::Clock(run).to_bytes(),
            vec![
                0x2B, // CLOCK_MESSAGE
                0x0A, // N = 10
                0x03, // start
                0x0A, // SETNRUN
                0x00, 0x03, 0x00, // left 0:03:00 (binary)
                0x01, 0x02, 0x05, // right 1:02:05
                0x01, // left counts down
                0x00, // end
            ]
        );
    }

    #[test]
    fn led_frame() {
        assert_eq!(
            Command::SetLeds {
                pattern: 0,
                from: 0x40,
                to: 0x40
            }
            .to_bytes(),
            vec![
                0x60, // SET_LEDS
                0x04, // fixed
                0x00, // pattern: off
                0x40, // from: 0x40 = all
                0x40, // to
                0x00, // end
            ]
        );
    }

    #[test]
    fn commands_round_trip_with_garbage_and_splits() {
        let cmds = vec![
            Command::Reset,
            Command::Version,
            Command::UpdateNice,
            Command::SendBoard,
            Command::SendClock,
            Command::SerialNumber,
            Command::LongSerialNumber,
            Command::SetLeds {
                pattern: 1,
                from: 12,
                to: 28,
            },
            Command::Clock(ClockCommand::text("hello", 0)),
            Command::Clock(ClockCommand::End),
            Command::Clock(ClockCommand::Version),
            Command::Clock(ClockCommand::Button),
            Command::Clock(ClockCommand::Beep(1)),
            Command::Clock(ClockCommand::Display {
                segments: [1, 2, 3, 4, 5, 6],
                icons: 7,
                beep: 3,
            }),
            Command::Clock(ClockCommand::Icons([1, 2, 3, 4, 1, 0, 0, 0])),
            Command::Clock(ClockCommand::Rev2Ascii {
                text: *b"hello world",
                beep: 2,
            }),
            Command::Clock(ClockCommand::SetAndRun {
                left: Hms::from_seconds(1),
                right: Hms::from_seconds(2),
                mode: 3,
            }),
        ];
        let mut wire = vec![
            0x00, // garbage
            0x99, // garbage
        ];
        for c in &cmds {
            wire.extend(c.to_bytes());
        }
        let mut d = CommandDecoder::new();
        let mut buf = BytesMut::new();
        let mut got = Vec::new();
        for chunk in wire.chunks(3) {
            buf.extend_from_slice(chunk);
            while let Some(c) = d.next_command(&mut buf) {
                got.push(c);
            }
        }
        assert_eq!(got, cmds);
        assert_eq!(d.stats().dropped_bytes(), 2);
    }

    #[test]
    fn bad_clock_frame_resyncs() {
        let wire = [
            0x2B, // CLOCK_MESSAGE
            0x05, // N = 5: does not fit BEEP
            0x03, 0x0B, 0x01, 0x00, 0x4D, // VERSION
        ];
        let mut d = CommandDecoder::new();
        let mut buf = BytesMut::from(&wire[..]);
        // 0x2B dropped, 05 dropped, 03 dropped, 0B dropped, 01 dropped, 00 dropped, then VERSION.
        assert_eq!(d.next_command(&mut buf), Some(Command::Version));
        assert_eq!(d.stats().dropped_bytes(), 6);
    }
}
