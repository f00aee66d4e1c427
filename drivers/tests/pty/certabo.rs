//! Certabo and Sentio boards over real ptys: the peers' fixtures written byte for byte into a
//! pty that `listen` (or a session) reads, and emulated boards played through sessions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bugbridge_drivers::certabo::{Expect, FrameDecoder, Message, TagId, square_to_index};
use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, Pace};
use bugbridge_drivers::listen;
use bugbridge_drivers::serial::{PtyPair, pty_pair};
use bugbridge_drivers::session::{
    DriverKind, PortSpec, SensorEvent, SessionConfig, SharedCalibration, spawn_session,
};
use bugbridge_drivers::trace::{
    BoardId, Occupancy, Placement, SensorPiece, Square, TraceEvent, parse_line, parse_trace,
};
use tokio::sync::mpsc;

use crate::common::*;

fn frames() -> PathBuf {
    let shared = std::env::var_os("BUGBRIDGE_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let dir = shared.join("data/certabo/frames");
    assert!(
        dir.is_dir(),
        "the Certabo fixtures are needed at {} or in $BUGBRIDGE_SHARED",
        dir.display()
    );
    dir
}

fn frame(name: &str) -> Vec<u8> {
    let path = frames().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pty() -> PtyPair {
    pty_pair(Duration::from_millis(10)).expect("pty")
}

fn config(kind: DriverKind, path: &Path, agree: u32) -> SessionConfig {
    let mut c = SessionConfig::new(kind, PortSpec::Path(path.to_path_buf()), BoardId::A);
    c.certabo.agree = Some(agree);
    c
}

/// Lines `listen` writes, one by one.
struct Lines(mpsc::UnboundedSender<String>, Vec<u8>);

impl Write for Lines {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.1.extend_from_slice(b);
        while let Some(i) = self.1.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.1.drain(..=i).collect();
            let _ = self
                .0
                .send(String::from_utf8_lossy(&line[..i]).into_owned());
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

async fn next_line(rx: &mut mpsc::UnboundedReceiver<String>) -> TraceEvent {
    let line = tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("a line in time")
        .expect("a line");
    parse_line(&line, false)
        .unwrap_or_else(|e| panic!("{line:?}: {e}"))
        .event
}

#[tokio::test]
async fn sentio_fixtures_through_listen_give_the_asserted_occupancy() {
    let start = Occupancy::of(&Placement::start());
    let h1_empty = start.with(Square::from_name("h1").expect("h1"), false);
    for (name, want) in [
        (
            "picochess/TestParser.test_parse_position_tabutronic_sentio.raw",
            start,
        ),
        (
            "picochess/TestParser.test_tabutronic_sentio_has_no_piece_recognition.raw",
            start,
        ),
        (
            "cer2nut/CertaboParserTest.parsePositionTabutronic.raw",
            start,
        ),
        (
            "picochess/TestParser.test_parse_position_tabutronic_sentio_with_led_ack.raw",
            h1_empty,
        ),
        (
            "cer2nut/CertaboParserTest.parsePositionTabutronicOnePieceMissing.raw",
            h1_empty,
        ),
        (
            "cer2nut/CertaboParserTest.detectSingleColorLedBoard.raw",
            h1_empty,
        ),
        ("cer2nut/CertaboParserTest.detectRgbLedBoard.raw", h1_empty),
    ] {
        let mut pair = pty();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let cfg = config(DriverKind::Sentio, &pair.slave_path, 1);
        let task = tokio::spawn(async move {
            let mut out = Lines(tx, Vec::new());
            listen(cfg, &mut out, async {
                let _ = stop_rx.await;
            })
            .await
        });
        pair.master.write_all(&frame(name)).expect("write");
        assert_eq!(next_line(&mut rx).await, link(BoardId::A, true), "{name}");
        assert_eq!(
            next_line(&mut rx).await,
            TraceEvent::Occupancy {
                board: BoardId::A,
                occupied: want
            },
            "{name}"
        );
        let _ = stop_tx.send(());
        tokio::time::timeout(WAIT, task)
            .await
            .expect("listen stops")
            .expect("task")
            .expect("listen ok");
    }
}

/// The changes from `from` to `to` as a Certabo session reports one reading's changes:
/// squares emptied first, then pieces replaced, then pieces put down (a1 first in each).
fn square_events(from: &Placement, to: &Placement) -> Vec<TraceEvent> {
    let mut changes: Vec<_> = to.diff(from).collect();
    changes.sort_by_key(|&(sq, piece)| (piece.is_some(), from.get(sq).is_none()));
    changes
        .into_iter()
        .map(|(sq, piece)| TraceEvent::Square {
            board: BoardId::A,
            sq,
            piece,
        })
        .collect()
}

#[tokio::test]
async fn certabo_through_listen_learns_its_set_then_reads_positions() {
    let mut pair = pty();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let cfg = config(DriverKind::Certabo, &pair.slave_path, 1);
    let table = cfg.certabo.calibration.clone();
    let task = tokio::spawn(async move {
        let mut out = Lines(tx, Vec::new());
        listen(cfg, &mut out, async {
            let _ = stop_rx.await;
        })
        .await
    });
    // Calibration: the 7 start-position readings of picochess's test_calibration_complete.
    for i in 1..=7 {
        pair.master
            .write_all(&frame(&format!(
                "picochess/TestCalibrator.test_calibration_complete.{i}.raw"
            )))
            .expect("write");
    }
    assert_eq!(next_line(&mut rx).await, link(BoardId::A, true));
    let start = Placement::start();
    assert_eq!(next_line(&mut rx).await, board_event(BoardId::A, start));
    assert_eq!(table.get().len(), 32, "the set is the table's");
    // A corrupted reading gives nothing; the junk-prefixed one gives e2-e4 (the map of the
    // calibration frames, fixtures.md item 10), and nothing else came in between.
    pair.master
        .write_all(&frame("picochess/TestParser.test_parse_invalid.raw"))
        .expect("write");
    pair.master
        .write_all(&frame(
            "picochess/TestParser.test_parse_position_with_junk_in_front.raw",
        ))
        .expect("write");
    let e4: Placement = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
        .parse()
        .expect("fen");
    for want in square_events(&start, &e4) {
        assert_eq!(next_line(&mut rx).await, want);
    }
    // Two readings in one write, with an L between them: both decode to the same position.
    pair.master
        .write_all(&frame(
            "picochess/TestParser.test_parse_two_different_positions_calls_translate_twice.raw",
        ))
        .expect("write");
    let later: Placement = "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P2P/8/PPPP1PP1/RNBQKBNR"
        .parse()
        .expect("fen");
    for want in square_events(&e4, &later) {
        assert_eq!(next_line(&mut rx).await, want);
    }
    // A piece nobody calibrated stands on the empty e3 for four readings: one `unknown_tag`
    // naming e3, no piece, and nothing more after it.
    let last = FrameDecoder::new(Expect::Tags)
        .decode(&frame(
            "picochess/TestParser.test_parse_two_different_positions_calls_translate_twice.raw",
        ))
        .into_iter()
        .rev()
        .find_map(|m| match m {
            Message::Tags(r) => Some(r),
            _ => None,
        })
        .expect("a reading");
    let e3 = Square::from_name("e3").expect("e3");
    // Noise never repeats from one reading to the next: the repeated reading carries none.
    let cal = table.get();
    let mut stray = last.clone();
    for id in &mut stray.0 {
        if cal.piece(*id).is_none() {
            *id = TagId::NONE;
        }
    }
    stray.0[square_to_index(e3)] = TagId([99, 1, 2, 3, 4]);
    for _ in 0..4 {
        pair.master
            .write_all(&Message::Tags(stray.clone()).to_bytes())
            .expect("write");
    }
    assert_eq!(
        next_line(&mut rx).await,
        TraceEvent::UnknownTag {
            board: BoardId::A,
            sq: e3,
            tag: "99 1 2 3 4".into(),
        }
    );
    // The board goes away: the link goes down, and nothing else was said before.
    drop(pair);
    assert_eq!(next_line(&mut rx).await, link(BoardId::A, false));
    let _ = stop_tx.send(());
    tokio::time::timeout(WAIT, task)
        .await
        .expect("listen stops")
        .expect("task")
        .expect("listen ok");
}

/// The events of data1 ×7, data2, data3; the pty is closed once `before_unplug` events are
/// out (anything more the readings gave comes before the `link` down).
async fn board_message_run(agree: u32, before_unplug: usize) -> Vec<TraceEvent> {
    let mut pair = pty();
    let (handle, mut rx) =
        spawn_session(config(DriverKind::Certabo, &pair.slave_path, agree)).expect("session");
    let data = |n| {
        frame(&format!(
            "picochess/TestCertaboBoardMessageParser._board_data.data{n}.raw"
        ))
    };
    for _ in 0..7 {
        pair.master.write_all(&data(1)).expect("write");
    }
    pair.master.write_all(&data(2)).expect("write");
    pair.master.write_all(&data(3)).expect("write");
    let mut got = Vec::new();
    loop {
        let e = next_any(&mut rx).await;
        let done = e == link(BoardId::A, false);
        got.push(e);
        if got.len() == before_unplug {
            let p = std::mem::replace(&mut pair, pty());
            drop(p);
        }
        if done {
            break;
        }
    }
    handle.join();
    got
}

fn gone(squares: &[&str]) -> Vec<TraceEvent> {
    squares
        .iter()
        .map(|s| TraceEvent::Square {
            board: BoardId::A,
            sq: Square::from_name(s).expect("square"),
            piece: None,
        })
        .collect()
}

#[tokio::test]
async fn misread_pieces_are_filtered_out_and_a_real_change_comes_through() {
    let start = Placement::start();
    // Two readings must agree (the default): the start, then h7 gone (picochess low gain).
    let mut want = vec![link(BoardId::A, true), board_event(BoardId::A, start)];
    want.extend(gone(&["h7"]));
    want.push(link(BoardId::A, false));
    assert_eq!(board_message_run(2, want.len() - 1).await, want);
    // Unfiltered (high gain): the misread pieces of the third reading vanish too.
    let mut want = vec![link(BoardId::A, true), board_event(BoardId::A, start)];
    want.extend(gone(&["h7"]));
    want.extend(gone(&["b2", "h2", "d8", "f8", "h8"]));
    want.push(link(BoardId::A, false));
    assert_eq!(board_message_run(1, want.len() - 1).await, want);
}

const PAIR_GAME: &str = r#"{"t":0,"board":"A","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":0,"board":"B","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":100,"board":"A","ev":"square","sq":"e2","piece":null}
{"t":200,"board":"A","ev":"square","sq":"e4","piece":"P"}
{"t":300,"board":"B","ev":"square","sq":"e4","piece":"N"}
"#;

fn emulator(
    kind: DriverKind,
    board: BoardId,
    rgb: bool,
) -> bugbridge_drivers::emulate::EmulatorHandle {
    let mut c = EmulatorConfig::new(kind);
    c.board = board;
    c.pace = Pace::Manual;
    c.certabo.period = Duration::from_millis(20);
    c.certabo.rgb = rgb;
    Emulator::start(c, &parse_trace(PAIR_GAME).expect("trace")).expect("emulator")
}

async fn until(rx: &mut mpsc::Receiver<SensorEvent>, want: &TraceEvent) {
    loop {
        if &next_any(rx).await == want {
            return;
        }
    }
}

#[tokio::test]
async fn a_piece_of_the_partners_set_is_known_on_the_other_board() {
    let table = SharedCalibration::default();
    let emu_a = emulator(DriverKind::Certabo, BoardId::A, false);
    let emu_b = emulator(DriverKind::Certabo, BoardId::B, false);
    let mut sessions = Vec::new();
    for (emu, board) in [(&emu_a, BoardId::A), (&emu_b, BoardId::B)] {
        let mut c = SessionConfig::new(DriverKind::Certabo, PortSpec::Path(emu.path()), board);
        c.certabo.calibration = table.clone();
        sessions.push(spawn_session(c).expect("session"));
    }
    let start = Placement::start();
    for (board, (_, rx)) in [BoardId::A, BoardId::B]
        .into_iter()
        .zip(sessions.iter_mut())
    {
        assert_eq!(next_any(rx).await, link(board, true));
        assert_eq!(next_any(rx).await, board_event(board, start));
    }
    assert_eq!(table.get().len(), 64, "both sets known to both boards");
    // Board B shows a third white knight: its own two stand on b1 and g1, so the emulator
    // reads it with a tag of board A's set, which board B learnt from the table.
    emu_b.advance(1);
    let knight = TraceEvent::Square {
        board: BoardId::B,
        sq: Square::from_name("e4").expect("e4"),
        piece: SensorPiece::from_ascii(b'N'),
    };
    assert_eq!(next_any(&mut sessions[1].1).await, knight);
    // Board A plays e2-e4 as usual.
    emu_a.advance(2);
    let a = &mut sessions[0].1;
    assert_eq!(next_any(a).await, gone_on(BoardId::A, "e2"));
    assert_eq!(
        next_any(a).await,
        TraceEvent::Square {
            board: BoardId::A,
            sq: Square::from_name("e4").expect("e4"),
            piece: SensorPiece::from_ascii(b'P'),
        }
    );
}

fn gone_on(board: BoardId, sq: &str) -> TraceEvent {
    TraceEvent::Square {
        board,
        sq: Square::from_name(sq).expect("square"),
        piece: None,
    }
}

#[tokio::test]
async fn leds_light_the_move_on_both_led_kinds_and_the_link_comes_back() {
    let e2e4 = vec![
        Square::from_name("e2").expect("e2"),
        Square::from_name("e4").expect("e4"),
    ];
    for rgb in [false, true] {
        let mut emu = emulator(DriverKind::Certabo, BoardId::A, rgb);
        let link_path = emu.path();
        let (handle, mut rx) = spawn_session(SessionConfig::new(
            DriverKind::Certabo,
            PortSpec::Path(link_path),
            BoardId::A,
        ))
        .expect("session");
        until(&mut rx, &board_event(BoardId::A, Placement::start())).await;
        handle.show_move(Some((e2e4[0], e2e4[1])));
        wait_status(&emu, "e2 and e4 lit", |s| s.device.leds == e2e4).await;
        // Unplugged and back (at a new path for this emulator; the session reopens by
        // path, so it is given the same one again through a symlink in real use).
        emu.unplug();
        until(&mut rx, &link(BoardId::A, false)).await;
        drop(handle);
        let path = emu.replug().expect("replug");
        let (_h2, mut rx2) = spawn_session(SessionConfig::new(
            DriverKind::Certabo,
            PortSpec::Path(path),
            BoardId::A,
        ))
        .expect("session");
        assert_eq!(next_any(&mut rx2).await, link(BoardId::A, true));
    }
}

#[tokio::test]
async fn a_session_reconnects_by_path_after_an_unplug() {
    let mut c = EmulatorConfig::new(DriverKind::Sentio);
    c.pace = Pace::Manual;
    c.certabo.period = Duration::from_millis(20);
    let link_path = temp_link("sentio");
    c.link_path = Some(link_path.clone());
    let mut emu = Emulator::start(c, &parse_trace(PAIR_GAME).expect("trace")).expect("emulator");
    let (_h, mut rx) = spawn_session(SessionConfig::new(
        DriverKind::Sentio,
        PortSpec::Path(link_path),
        BoardId::A,
    ))
    .expect("session");
    let start = Occupancy::of(&Placement::start());
    let occ = |o| TraceEvent::Occupancy {
        board: BoardId::A,
        occupied: o,
    };
    assert_eq!(next_any(&mut rx).await, link(BoardId::A, true));
    assert_eq!(next_any(&mut rx).await, occ(start));
    emu.unplug();
    assert_eq!(next_any(&mut rx).await, link(BoardId::A, false));
    emu.replug().expect("replug");
    assert_eq!(next_any(&mut rx).await, link(BoardId::A, true));
    assert_eq!(next_any(&mut rx).await, occ(start));
    emu.advance(2);
    let e2 = Square::from_name("e2").expect("e2");
    let e4 = Square::from_name("e4").expect("e4");
    let mut seen = Vec::new();
    while seen.last() != Some(&occ(start.with(e2, false).with(e4, true))) {
        seen.push(next_any(&mut rx).await);
    }
}
