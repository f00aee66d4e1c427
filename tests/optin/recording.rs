//! A real DGT board with a DGT clock, as recorded during a real game
//! (`../shared/data/dgt-recordings/1.inbytes`, one base64 read per line), played into
//! `bugbridge listen` over a pseudo-terminal; `bugbridge replay` of what `listen` printed
//! must give the game of `1.uci` move for move, and the running side of every clock reading
//! must be the side whose time falls. The recording is read from `../shared` (its licence
//! differs from the project's), never copied in.

use std::io::{ErrorKind, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge_drivers::dgt::{BoardMessage, BwtimeLayout, ClockMessage, ClockSide, DgtDecoder};
use bugbridge_drivers::serial::pty_pair;
use bugbridge_drivers::session::{Direction, parse_raw_line};
use bugbridge_drivers::trace::{Placement, Side, TraceEvent, parse_line};
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

use crate::interop::shared;

/// The standard base64 alphabet, `=` padding (what the recording uses).
fn base64(line: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in line.trim().bytes().take_while(|&c| c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .unwrap_or_else(|| panic!("not base64: {line}")) as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// The board side of the link: answers the host's version request, sends the recording's
/// first read (its board dump) when asked for the board, then the other reads one by one.
///
/// The recording has no timestamps, so the reads are paced evenly, 20 ms apart (a real board
/// sends a clock reading every second or so; the clock messages carry the real times).
fn play_board(mut master: bugbridge_drivers::serial::Port, reads: Vec<Vec<u8>>) {
    let mut seen = Vec::new();
    let mut chunk = [0u8; 64];
    let mut answered_version = false;
    loop {
        match master.read(&mut chunk) {
            Ok(n) => seen.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::TimedOut => {}
            Err(e) => panic!("pty read: {e}"),
        }
        if !answered_version && seen.contains(&0x4D) {
            // Version 3.1 (the recording starts after the handshake).
            master
                .write_all(&[0x93, 0x00, 0x05, 0x03, 0x01])
                .expect("write");
            answered_version = true;
            seen.clear();
        }
        if answered_version && seen.contains(&0x42) {
            break;
        }
    }
    for read in reads {
        master.write_all(&read).expect("write");
        std::thread::sleep(Duration::from_millis(20));
        // Drain what the host sends meanwhile (clock requests).
        while matches!(master.read(&mut chunk), Ok(n) if n > 0) {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_dgt_recording_through_listen_and_replay_gives_its_game_and_clock_sides() {
    let dir = shared().join("data/dgt-recordings");
    let text = std::fs::read_to_string(dir.join("1.inbytes")).expect("1.inbytes");
    let reads: Vec<Vec<u8>> = text.lines().filter(|l| !l.is_empty()).map(base64).collect();
    let uci: Vec<String> = std::fs::read_to_string(dir.join("1.uci"))
        .expect("1.uci")
        .split_whitespace()
        .filter(|t| t.len() >= 4 && t.as_bytes()[0].is_ascii_lowercase())
        .map(str::to_owned)
        .collect();
    assert_eq!(uci.len(), 57);

    // What the recording says at its end: the final position and the last clock reading.
    let all: Vec<u8> = reads.concat();
    let mut buf = bytes::BytesMut::from(&all[..]);
    let mut dec = DgtDecoder::new();
    let mut board = Placement::empty();
    let mut last_times = None;
    while let Some(m) = dec.next_message(&mut buf) {
        match m {
            BoardMessage::BoardDump(codes) => {
                for (i, &c) in codes.iter().enumerate() {
                    let sq = bugbridge_drivers::dgt::index_to_square(i as u8).expect("square");
                    board.set(sq, bugbridge_drivers::dgt::code_to_piece(c));
                }
            }
            BoardMessage::FieldUpdate { index, code } => {
                let sq = bugbridge_drivers::dgt::index_to_square(index).expect("square");
                board.set(sq, bugbridge_drivers::dgt::code_to_piece(code));
            }
            BoardMessage::Bwtime(b) => {
                if let ClockMessage::Times(t) = b.classify(BwtimeLayout::Modern) {
                    last_times = Some(t);
                }
            }
            _ => {}
        }
    }
    assert_eq!(
        dec.stats().dropped_bytes(),
        0,
        "the recording decodes cleanly"
    );
    let last = last_times.expect("clock readings");
    // White sits left (White's time falls first).
    let last_clock = TraceEvent::Clock {
        board: bugbridge_drivers::trace::BoardId::A,
        white: f64::from(last.left.total_seconds()),
        black: f64::from(last.right.total_seconds()),
        running: last.running_side().map(|s| match s {
            ClockSide::Left => Side::White,
            ClockSide::Right => Side::Black,
        }),
    };

    let tmp = TempDir::new("recording");
    let raw_path = tmp.path().join("raw.txt");
    let pair = pty_pair(Duration::from_millis(10)).expect("a pty");
    let mut listen = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .args([
            "listen",
            "--driver",
            "dgt",
            "--white-side",
            "left",
            "--port",
        ])
        .arg(&pair.slave_path)
        .arg("--raw")
        .arg(&raw_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("listen starts");
    let stdout = listen.stdout.take().expect("piped");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let master = pair.master;
    let _keep = pair.slave_keepalive;
    let board_thread = std::thread::spawn(move || play_board(master, reads));

    // Read listen's lines until the recording's last reading (the clock stopped at the end)
    // and the final position have come through.
    let mut trace_text = String::new();
    let mut events = Vec::new();
    let mut placement = Placement::empty();
    within("listen to report the whole recording", async {
        while !(placement == board && events.last() == Some(&last_clock)) {
            let line = rx.recv().await.expect("listen runs");
            let ev = parse_line(&line, false)
                .unwrap_or_else(|e| panic!("{e}: {line}"))
                .event;
            match &ev {
                TraceEvent::Board { placement: p, .. } => placement = *p,
                TraceEvent::Square { sq, piece, .. } => placement.set(*sq, *piece),
                _ => {}
            }
            trace_text.push_str(&line);
            trace_text.push('\n');
            events.push(ev);
        }
    })
    .await;
    board_thread.join().expect("the board thread");
    bugbridge_tests::child::terminate(listen, "listen").await;

    // The running side of every reading is the side whose time falls: between two readings
    // with the same running side, only that side's time may fall.
    let clocks: Vec<(f64, f64, Option<Side>)> = events
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Clock {
                white,
                black,
                running,
                ..
            } => Some((white, black, running)),
            _ => None,
        })
        .collect();
    let (mut agree, mut disagree) = (0, Vec::new());
    for w in clocks.windows(2) {
        let ((w0, b0, r0), (w1, b1, r1)) = (w[0], w[1]);
        if r0 != r1 || r1.is_none() {
            continue;
        }
        let fell = match (w1 < w0, b1 < b0) {
            (true, false) => Some(Side::White),
            (false, true) => Some(Side::Black),
            _ => None,
        };
        match fell {
            Some(s) if Some(s) == r1 => agree += 1,
            Some(_) => disagree.push(w.to_vec()),
            None => {}
        }
    }
    assert!(
        disagree.is_empty(),
        "running side against the falling time: {disagree:?}"
    );
    assert!(agree > 200, "readings where a time fell: {agree}");

    // The raw capture holds exactly what the board sent: the version reply, then the
    // recording byte for byte.
    let raw = std::fs::read_to_string(&raw_path).expect("the raw capture");
    let received: Vec<u8> = raw
        .lines()
        .map(|l| parse_raw_line(l).unwrap_or_else(|| panic!("bad raw line {l:?}")))
        .filter(|(_, d, _)| *d == Direction::In)
        .flat_map(|(_, _, b)| b)
        .collect();
    assert_eq!(&received[..5], &[0x93, 0x00, 0x05, 0x03, 0x01]);
    assert_eq!(received[5..], all[..], "the capture is the recording");

    // `bugbridge replay` of listen's output: the game of 1.uci, move for move.
    let trace_path = tmp.path().join("listen.jsonl");
    std::fs::write(&trace_path, &trace_text).expect("write the trace");
    let out = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .arg("replay")
        .arg(&trace_path)
        .output()
        .expect("replay runs");
    assert!(
        out.status.success(),
        "replay: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bpgn = String::from_utf8(out.stdout).expect("UTF-8");
    let games = parse_bpgn(&bpgn).unwrap_or_else(|e| panic!("{e}\n{bpgn}"));
    let played = replay(&games[0], RulesetName::Fide.ruleset()).expect("the game replays");
    assert!(played.is_legal(), "{bpgn}");
    let moves: Vec<String> = played.moves.iter().map(|m| m.mv.uci()).collect();
    assert_eq!(moves, uci, "{bpgn}");
}
