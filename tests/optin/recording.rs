//! A real DGT board with a DGT clock, as recorded during a real game
//! (`../shared/data/dgt-recordings/1.inbytes`, one base64 read per line), played into
//! `bugbridge listen` over a pseudo-terminal; `bugbridge replay` of what `listen` printed
//! must give the game of `1.uci` move for move, and the running side of every clock reading
//! must be the side whose time falls. The recording is read from `../shared` (its licence
//! differs from the project's), never copied in. (The same recording with its clock turned
//! round is played in the normal suite: `tests/e2e/clock_side.rs`.)

use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge_drivers::dgt::ClockSide;
use bugbridge_drivers::session::{Direction, parse_raw_line};
use bugbridge_drivers::trace::{Side, TraceEvent};
use bugbridge_tests::recording;
use bugbridge_tests::temp::TempDir;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_dgt_recording_through_listen_and_replay_gives_its_game_and_clock_sides() {
    let reads = recording::reads();
    let uci = recording::uci();
    assert_eq!(uci.len(), 57);
    let all: Vec<u8> = reads.concat();
    let (board, last) = recording::last_state(&reads);
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
    let listened = recording::listen(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        reads,
        &["--white-side", "left"],
        Some(&raw_path),
        |events| recording::placement(events) == board && events.last() == Some(&last_clock),
    )
    .await;

    // The running side of every reading is the side whose time falls: between two readings
    // with the same running side, only that side's time may fall.
    let clocks: Vec<(f64, f64, Option<Side>)> = listened
        .events
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
    let (bpgn, _) = recording::replay(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        tmp.path(),
        &listened.text,
    );
    let games = parse_bpgn(&bpgn).unwrap_or_else(|e| panic!("{e}\n{bpgn}"));
    let played = replay(&games[0], RulesetName::Fide.ruleset()).expect("the game replays");
    assert!(played.is_legal(), "{bpgn}");
    let moves: Vec<String> = played.moves.iter().map(|m| m.mv.uci()).collect();
    assert_eq!(moves, uci, "{bpgn}");
}
