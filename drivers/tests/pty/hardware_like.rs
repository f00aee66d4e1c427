//! The emulators behave like real boards where client programs written for real boards can
//! tell: the DGT clock's status byte, field updates after an update mode chosen after the
//! dump, the Millennium status h1 first, and Millennium devices without parity.

use std::io::{ErrorKind, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bugbridge_drivers::dgt::{BoardMessage, ClockMessage, Command, DgtDecoder};
use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, Pace};
use bugbridge_drivers::millennium::{MillCommand, ParityMode, Reply, ReplyDecoder};
use bugbridge_drivers::serial::{LineSettings, Port};
use bugbridge_drivers::session::{
    Direction, DriverKind, PortSpec, RawLog, SessionConfig, parse_raw_line, spawn_session,
};
use bugbridge_drivers::trace::{BoardId, TraceEvent, parse_trace};
use bytes::BytesMut;

use crate::common::*;

/// A host talking raw bytes to an emulated board.
struct Host {
    port: Port,
    buf: BytesMut,
}

impl Host {
    fn open(path: &std::path::Path, settings: LineSettings) -> Host {
        Host {
            port: Port::open(path, settings, Duration::from_millis(20)).expect("open pty"),
            buf: BytesMut::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.port.write_all(bytes).expect("write");
    }

    /// Reads until `f` returns something from the bytes so far, within [`WAIT`].
    fn until<T>(&mut self, what: &str, mut f: impl FnMut(&mut BytesMut) -> Option<T>) -> T {
        let end = Instant::now() + WAIT;
        let mut chunk = [0u8; 512];
        loop {
            if let Some(t) = f(&mut self.buf) {
                return t;
            }
            assert!(Instant::now() < end, "never got {what}");
            match self.port.read(&mut chunk) {
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::TimedOut => {}
                Err(e) => panic!("read: {e}"),
            }
        }
    }
}

fn dgt_message(host: &mut Host, dec: &mut DgtDecoder, what: &str) -> BoardMessage {
    host.until(what, |b| dec.next_message(b))
}

const STOPPED_AT_THE_END: &str = r#"{"t":0,"board":"A","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":0,"board":"A","ev":"clock","white":180,"black":180,"running":null}
{"t":100,"board":"A","ev":"clock","white":180,"black":180,"running":"white"}
{"t":1450,"board":"A","ev":"square","sq":"e2","piece":null}
{"t":1610,"board":"A","ev":"square","sq":"e4","piece":"P"}
{"t":1790,"board":"A","ev":"clock","white":178,"black":180,"running":"black"}
{"t":2300,"board":"A","ev":"clock","white":178,"black":177,"running":"white"}
{"t":2400,"board":"A","ev":"clock","white":177,"black":177,"running":"black"}
{"t":2500,"board":"A","ev":"clock","white":177,"black":0,"running":null}
"#;

#[test]
fn the_emulated_clock_sends_the_status_values_of_a_real_clock() {
    let lines = parse_trace(STOPPED_AT_THE_END).expect("trace");
    for (white_side, want) in [
        // White left: stopped with the lever left 0x08, White runs 0x09, Black 0x13, and
        // stopped after Black ran: lever right 0x12.
        (
            bugbridge_drivers::dgt::ClockSide::Left,
            [0x08, 0x09, 0x13, 0x09, 0x13, 0x12],
        ),
        (
            bugbridge_drivers::dgt::ClockSide::Right,
            [0x12, 0x13, 0x09, 0x13, 0x09, 0x08],
        ),
    ] {
        let mut ec = EmulatorConfig::new(DriverKind::Dgt);
        ec.pace = Pace::Asap;
        ec.white_side = white_side;
        let emu = Emulator::start(ec, &lines).expect("emulator");
        let mut host = Host::open(&emu.path(), LineSettings::DGT);
        let mut dec = DgtDecoder::new();
        host.send(&[0x4B, 0x42]);
        let mut statuses = Vec::new();
        let mut last = None;
        while statuses.len() < want.len() {
            if let BoardMessage::Bwtime(b) = dgt_message(&mut host, &mut dec, "clock readings") {
                statuses.push(b.0[6]);
                last = Some(b);
            }
        }
        assert_eq!(statuses, want, "white on the {white_side:?}");
        // The flag bits of the side at zero (Black) are set, the other's are not.
        let ClockMessage::Times(t) = last
            .expect("a reading")
            .classify(bugbridge_drivers::dgt::BwtimeLayout::Modern)
        else {
            panic!("not times")
        };
        let (black, white) = if white_side == bugbridge_drivers::dgt::ClockSide::Left {
            (t.right, t.left)
        } else {
            (t.left, t.right)
        };
        assert!(black.flag_fallen && black.flag_shown, "{t:?}");
        assert!(!white.flag_fallen && !white.flag_shown, "{t:?}");
    }
}

#[test]
fn a_dump_asked_before_the_update_mode_still_gets_field_updates() {
    let lines = game();
    let emu = Emulator::start(EmulatorConfig::new(DriverKind::Dgt), &lines).expect("emulator");
    let mut host = Host::open(&emu.path(), LineSettings::DGT);
    let mut dec = DgtDecoder::new();
    // As asyncdgt's `get_board` or a program that reads the position first: dump, then
    // choose the update mode.
    host.send(&Command::SendBoard.to_bytes());
    assert!(matches!(
        dgt_message(&mut host, &mut dec, "the dump"),
        BoardMessage::BoardDump(_)
    ));
    host.send(&Command::UpdateBoard.to_bytes());
    let mut updates = Vec::new();
    while updates.len() < 2 {
        if let BoardMessage::FieldUpdate { index, code } =
            dgt_message(&mut host, &mut dec, "field updates")
        {
            updates.push((index, code));
        }
    }
    // e2 (index 52) empties, a white pawn (code 1) lands on e4 (index 36).
    assert_eq!(updates, vec![(52, 0), (36, 1)]);
}

fn millennium_status(host: &mut Host, dec: &mut ReplyDecoder) -> [u8; 64] {
    host.send(&MillCommand::Status.to_bytes());
    host.until("a status", |b| {
        while let Some(r) = dec.next_reply(b) {
            if let Reply::Status(s) = r {
                return Some(s);
            }
        }
        None
    })
}

#[test]
fn the_millennium_status_goes_h1_first_and_a8_first_when_rotated() {
    let lines = game();
    for (rotated, first_rank) in [(false, b"RNBKQBNR"), (true, b"rnbqkbnr")] {
        let mut ec = EmulatorConfig::new(DriverKind::Millennium);
        ec.rotated = rotated;
        let emu = Emulator::start(ec, &lines).expect("emulator");
        let mut host = Host::open(&emu.path(), LineSettings::MILLENNIUM);
        let s = millennium_status(&mut host, &mut ReplyDecoder::new(ParityMode::Odd));
        assert_eq!(&s[..8], first_rank, "rotated: {rotated}");
    }
}

#[test]
fn a_millennium_device_without_parity_sends_7_bit_characters() {
    let lines = game();
    let mut ec = EmulatorConfig::new(DriverKind::Millennium);
    ec.parity = ParityMode::Ignore;
    let emu = Emulator::start(ec, &lines).expect("emulator");
    let mut host = Host::open(&emu.path(), LineSettings::MILLENNIUM);
    host.send(&MillCommand::Version.to_bytes());
    let raw = host.until("a version reply", |b| (b.len() >= 7).then(|| b.split_to(7)));
    assert_eq!(raw[0], b'v', "no parity bit on 'v'");
    assert!(raw.iter().all(|&b| b < 0x80), "{raw:?}");
    // Strict odd parity loses the reply; auto and none read it.
    for (mode, ok) in [
        (ParityMode::Odd, false),
        (ParityMode::Auto, true),
        (ParityMode::Ignore, true),
    ] {
        let mut d = ReplyDecoder::new(mode);
        let got = d.next_reply(&mut BytesMut::from(&raw[..]));
        assert_eq!(got.is_some(), ok, "{mode:?}");
    }
}

#[tokio::test]
async fn a_session_in_auto_parity_syncs_with_a_device_without_parity() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, false);
    let mut ec = EmulatorConfig::new(DriverKind::Millennium);
    ec.parity = ParityMode::Ignore;
    let emu = Emulator::start(ec, &lines).expect("emulator");
    let sc = SessionConfig::new(
        DriverKind::Millennium,
        PortSpec::Path(emu.path()),
        BoardId::A,
    );
    assert_eq!(sc.millennium.parity, ParityMode::Auto, "the default");
    let (_session, mut rx) = spawn_session(sc).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
    assert_eq!(take(&mut rx, events.len()).await, events);
    assert_eq!(emu.status().device.dropped_bytes, 0);
}

/// Collects what a [`RawLog`] writes.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_raw_capture_holds_both_directions_in_order() {
    let lines = game();
    let emu = Emulator::start(EmulatorConfig::new(DriverKind::Dgt), &lines).expect("emulator");
    let sink = Shared::default();
    let mut sc = SessionConfig::new(DriverKind::Dgt, PortSpec::Path(emu.path()), BoardId::A);
    sc.raw = Some(RawLog::new(Box::new(sink.clone())));
    let (session, mut rx) = spawn_session(sc).expect("session");
    let (_, events) = expected(&lines, BoardId::A, true);
    take(&mut rx, 2 + events.len()).await;
    session.stop();
    let text = String::from_utf8(sink.0.lock().expect("lock").clone()).expect("utf8");
    let parsed: Vec<_> = text
        .lines()
        .map(|l| parse_raw_line(l).unwrap_or_else(|| panic!("bad line {l:?}")))
        .collect();
    assert!(
        parsed.windows(2).all(|w| w[0].0 <= w[1].0),
        "times in order"
    );
    let out: Vec<u8> = parsed
        .iter()
        .filter(|(_, d, _)| *d == Direction::Out)
        .flat_map(|(_, _, b)| b.clone())
        .collect();
    assert_eq!(&out[..2], &[0x40, 0x4D], "reset, version first");
    // Everything the board sent decodes to the messages the session reported: its field
    // updates are the trace's squares.
    let mut inb: BytesMut = parsed
        .iter()
        .filter(|(_, d, _)| *d == Direction::In)
        .flat_map(|(_, _, b)| b.clone())
        .collect();
    let mut dec = DgtDecoder::new();
    let mut updates = 0;
    while let Some(m) = dec.next_message(&mut inb) {
        if matches!(m, BoardMessage::FieldUpdate { .. }) {
            updates += 1;
        }
    }
    let squares = events
        .iter()
        .filter(|e| matches!(e, TraceEvent::Square { .. }))
        .count();
    assert_eq!(updates, squares);
    assert_eq!(dec.stats().dropped_bytes(), 0);
}
