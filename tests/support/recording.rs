//! A real DGT board's recording (`../shared/data/dgt-recordings/1.inbytes`, one base64 read
//! per line, and the game played, `1.uci`), played as the board into `bugbridge listen` over
//! a pseudo-terminal. The recording is read from `../shared` (its licence differs from the
//! project's), never copied in; a missing file is a failure, not a skip.

use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use bugbridge_drivers::dgt::{BoardMessage, BwtimeLayout, ClockMessage, ClockTimes, DgtDecoder};
use bugbridge_drivers::serial::{Port, pty_pair};
use bugbridge_drivers::trace::{Placement, TraceEvent, parse_line};

use crate::within;

/// The shared material: `$BUGBRIDGE_SHARED`, else `shared/` next to the repository.
#[must_use]
pub fn shared() -> PathBuf {
    std::env::var_os("BUGBRIDGE_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    )
}

/// The directory of the recording.
///
/// # Panics
///
/// When it is missing, saying where it was looked for.
#[must_use]
pub fn dir() -> PathBuf {
    let dir = shared().join("data/dgt-recordings");
    assert!(
        dir.join("1.inbytes").is_file() && dir.join("1.uci").is_file(),
        "the DGT recording (1.inbytes, 1.uci) is needed at {} or in $BUGBRIDGE_SHARED",
        dir.display()
    );
    dir
}

/// The standard base64 alphabet, `=` padding (what the recording uses).
///
/// # Panics
///
/// On a character outside the alphabet.
#[must_use]
pub fn base64(line: &str) -> Vec<u8> {
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

/// The recording's reads, in order.
///
/// # Panics
///
/// When the file is missing or not base64.
#[must_use]
pub fn reads() -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(dir().join("1.inbytes")).expect("1.inbytes");
    text.lines().filter(|l| !l.is_empty()).map(base64).collect()
}

/// The game played, long algebraic, one entry per ply.
///
/// # Panics
///
/// When the file is missing.
#[must_use]
pub fn uci() -> Vec<String> {
    std::fs::read_to_string(dir().join("1.uci"))
        .expect("1.uci")
        .split_whitespace()
        .filter(|t| t.len() >= 4 && t.as_bytes()[0].is_ascii_lowercase())
        .map(str::to_owned)
        .collect()
}

/// The same recording with the clock turned round: in every BWTIME message the two
/// halves of the times (p0..p2 and p3..p5, flag bits included) change places, and so do
/// the turn bits 3 and 4 of the status p6, whose lever bit 1 is inverted. White, who sat
/// on the clock's left, now sits on its right. The reads keep their lengths, so a message
/// split across reads stays split where it was.
///
/// # Panics
///
/// When the recording does not decode as whole DGT messages.
#[must_use]
pub fn with_clock_turned(reads: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut all: Vec<u8> = reads.concat();
    let mut i = 0;
    while i < all.len() {
        assert!(all[i] & 0x80 != 0, "a message starts at byte {i}");
        assert!(i + 3 <= all.len(), "a whole header at byte {i}");
        let len = (usize::from(all[i + 1]) << 7) | usize::from(all[i + 2]);
        assert!(
            len >= 3 && i + len <= all.len(),
            "a whole message at byte {i}"
        );
        if all[i] == 0x8D && len == 10 {
            let p = &mut all[i + 3..i + 10];
            for k in 0..3 {
                p.swap(k, k + 3);
            }
            let s = p[6];
            p[6] = (s & !0x1A) | ((s & 0x08) << 1) | ((s & 0x10) >> 1) | (!s & 0x02);
        }
        i += len;
    }
    let mut out = Vec::with_capacity(reads.len());
    let mut at = 0;
    for r in reads {
        out.push(all[at..at + r.len()].to_vec());
        at += r.len();
    }
    out
}

/// What the recording shows at its end: the board, and the last clock-times reading.
///
/// # Panics
///
/// When the bytes do not decode cleanly.
#[must_use]
pub fn last_state(reads: &[Vec<u8>]) -> (Placement, ClockTimes) {
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
    (board, last_times.expect("clock readings"))
}

/// The board side of the link: answers the host's version request, sends the recording's
/// first read (its board dump) when asked for the board, then the other reads one by one.
///
/// The recording has no timestamps, so the reads are paced evenly, 20 ms apart (a real board
/// sends a clock reading every second or so; the clock messages carry the real times). The
/// pacing is the board's own, not a wait for the host: nothing is synchronised by it.
///
/// # Panics
///
/// When the pty fails.
pub fn play_board(mut master: Port, reads: Vec<Vec<u8>>) {
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

/// What `listen` printed: the lines as text, and parsed.
#[derive(Debug, Default)]
pub struct Listened {
    /// The trace, as printed.
    pub text: String,
    /// Its events, in order.
    pub events: Vec<TraceEvent>,
}

/// Plays `reads` as the board into `bin listen --driver dgt <args> --port <pty>`, and reads
/// what it prints until `done(events so far)` holds; then stops it.
///
/// # Panics
///
/// When listen does not start, prints a line that is not a trace line, or `done` does not
/// come within [`crate::LIMIT`].
pub async fn listen(
    bin: &str,
    reads: Vec<Vec<u8>>,
    args: &[&str],
    raw: Option<&Path>,
    mut done: impl FnMut(&[TraceEvent]) -> bool,
) -> Listened {
    let pair = pty_pair(Duration::from_millis(10)).expect("a pty");
    let mut cmd = Command::new(bin);
    cmd.args(["listen", "--driver", "dgt"])
        .args(args)
        .arg("--port")
        .arg(&pair.slave_path);
    if let Some(raw) = raw {
        cmd.arg("--raw").arg(raw);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("listen starts");
    let stdout = child.stdout.take().expect("piped");
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
    let board = std::thread::spawn(move || play_board(master, reads));
    let mut got = Listened::default();
    within("listen to report the whole recording", async {
        while !done(&got.events) {
            let line = rx.recv().await.expect("listen runs");
            let ev = parse_line(&line, false)
                .unwrap_or_else(|e| panic!("{e}: {line}"))
                .event;
            got.text.push_str(&line);
            got.text.push('\n');
            got.events.push(ev);
        }
    })
    .await;
    board.join().expect("the board thread");
    crate::child::terminate(child, "listen").await;
    got
}

/// The placement after the `board` and `square` events of `events`.
#[must_use]
pub fn placement(events: &[TraceEvent]) -> Placement {
    let mut p = Placement::empty();
    for e in events {
        match e {
            TraceEvent::Board { placement, .. } => p = *placement,
            TraceEvent::Square { sq, piece, .. } => p.set(*sq, *piece),
            _ => {}
        }
    }
    p
}

/// `bin replay --events <file> <trace>`: the BPGN, and the decisions as JSON values.
///
/// # Panics
///
/// When replay fails.
#[must_use]
pub fn replay(bin: &str, dir: &Path, trace: &str) -> (String, Vec<serde_json::Value>) {
    let trace_path = dir.join("listen.jsonl");
    let events_path = dir.join("events.jsonl");
    std::fs::write(&trace_path, trace).expect("write the trace");
    let out = Command::new(bin)
        .arg("replay")
        .arg("--events")
        .arg(&events_path)
        .arg(&trace_path)
        .output()
        .expect("replay runs");
    assert!(
        out.status.success(),
        "replay: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = std::fs::read_to_string(&events_path)
        .expect("the decisions")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (String::from_utf8(out.stdout).expect("UTF-8"), events)
}
