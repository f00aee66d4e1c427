//! A board's link going down and coming back, as the inference reports it: one `link-lost`
//! per outage, one `link-restored` when it ends (none for the first connection), and the
//! shape a DGT session gives a recovered outage — the board as it was left, then the field
//! changes and presses its EEPROM log kept — decided like live play.

use bugbridge::infer::{AlertCode, InferConfig, Inference, Inferrer, SensorEvent};
use bugbridge::rules::{Board, BoardId, Color, Piece, Square};

const A: BoardId = BoardId::A;

fn codes(out: &[Inference]) -> Vec<AlertCode> {
    out.iter()
        .filter_map(|i| match i {
            Inference::Alert(a) => Some(a.code),
            _ => None,
        })
        .collect()
}

fn square(board: BoardId, s: &str, piece: Option<char>) -> SensorEvent {
    SensorEvent::Square {
        board,
        sq: s.parse::<Square>().expect("square"),
        piece: piece.and_then(Piece::from_char),
    }
}

fn clock(board: BoardId, white: f64, black: f64, running: Color) -> SensorEvent {
    SensorEvent::Clock {
        board,
        white,
        black,
        running: Some(running),
    }
}

#[test]
fn link_lost_and_restored_once_per_outage_and_a_log_replay_is_decided_as_played() {
    let mut inf = Inferrer::new(InferConfig::default(), None);
    let mut out = Vec::new();
    // The first connection is no restoration.
    inf.observe_into(0, &SensorEvent::Link { board: A, up: true }, &mut out);
    inf.observe_into(
        0,
        &SensorEvent::Snapshot {
            board: A,
            placement: Board::start(),
        },
        &mut out,
    );
    inf.observe_into(0, &clock(A, 180.0, 180.0, Color::White), &mut out);
    assert_eq!(codes(&out), []);

    for (t, up) in [(1000, false), (1100, false)] {
        inf.observe_into(t, &SensorEvent::Link { board: A, up }, &mut out);
    }
    assert_eq!(codes(&out), [AlertCode::LinkLost], "one per outage");
    out.clear();

    // Link-up: the board as it was left, then what the log kept (1. e4, 1... e5, each
    // with its press and the halted side's time), all at the same trace time.
    let t = 5000;
    inf.observe_into(t, &SensorEvent::Link { board: A, up: true }, &mut out);
    for ev in [
        SensorEvent::Snapshot {
            board: A,
            placement: Board::start(),
        },
        square(A, "e2", None),
        square(A, "e4", Some('P')),
        clock(A, 178.0, 180.0, Color::Black),
        square(A, "e7", None),
        square(A, "e5", Some('p')),
        clock(A, 178.0, 177.0, Color::White),
    ] {
        inf.observe_into(t, &ev, &mut out);
    }
    assert_eq!(codes(&out), [AlertCode::LinkRestored]);
    let moves: Vec<(String, Option<f64>)> = inf
        .record()
        .iter()
        .map(|e| (e.san.clone(), e.clock))
        .collect();
    assert_eq!(
        moves,
        [
            ("e4".to_owned(), Some(178.0)),
            ("e5".to_owned(), Some(177.0))
        ]
    );
}
