//! White's side of the clock learnt from play, on a real recording: the DGT recording of
//! `../shared/data/dgt-recordings` (White on the clock's left) and the same recording with
//! its clock turned round (White on the right; every BWTIME's two halves and its turn and
//! lever bits swapped), played as the board into `bugbridge listen` over a pty, then
//! `bugbridge replay`ed. With White on the right and the old default `left`,
//! every move was alerted out of turn and nothing said why.

use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge_drivers::dgt::ClockSide;
use bugbridge_drivers::trace::{BoardId, Side, TraceEvent};
use bugbridge_tests::recording;
use bugbridge_tests::temp::TempDir;

/// What listen and replay made of a recording.
struct Outcome {
    events: Vec<TraceEvent>,
    moves: Vec<String>,
    alerts: Vec<String>,
    bpgn: String,
}

/// Plays `reads` (White on `white`) through `listen <args>` and `replay`.
async fn through_listen_and_replay(
    name: &str,
    reads: Vec<Vec<u8>>,
    white: ClockSide,
    args: &[&str],
) -> Outcome {
    let (board, last) = recording::last_state(&reads);
    let (white_time, black_time) = match white {
        ClockSide::Left => (last.left, last.right),
        ClockSide::Right => (last.right, last.left),
    };
    let last_clock = TraceEvent::Clock {
        board: BoardId::A,
        white: f64::from(white_time.total_seconds()),
        black: f64::from(black_time.total_seconds()),
        running: last
            .running_side()
            .map(|s| if s == white { Side::White } else { Side::Black }),
    };
    let bin = env!("CARGO_BIN_EXE_bugbridge-e2e");
    let listened = recording::listen(bin, reads, args, None, |events| {
        recording::placement(events) == board && events.last() == Some(&last_clock)
    })
    .await;
    let tmp = TempDir::new(name);
    let (bpgn, decisions) = recording::replay(bin, tmp.path(), &listened.text);
    let games = parse_bpgn(&bpgn).unwrap_or_else(|e| panic!("{e}\n{bpgn}"));
    let played = replay(&games[0], RulesetName::Fide.ruleset()).expect("the game replays");
    assert!(played.is_legal(), "{bpgn}");
    let alerts = decisions
        .iter()
        .filter(|d| d["kind"] == "alert")
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect();
    Outcome {
        events: listened.events,
        moves: played.moves.iter().map(|m| m.mv.uci()).collect(),
        alerts,
        bpgn,
    }
}

/// The `clock_side` lines listen printed: (white side, configured).
fn stated(events: &[TraceEvent]) -> Vec<(ClockSide, Option<ClockSide>)> {
    events
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ClockSide {
                white_side,
                configured,
                ..
            } => Some((*white_side, *configured)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_with_white_on_the_clocks_right_gives_its_game_with_no_configuration() {
    let reads = recording::with_clock_turned(&recording::reads());
    let got = through_listen_and_replay("turned-auto", reads, ClockSide::Right, &[]).await;
    assert_eq!(got.moves, recording::uci(), "{}", got.bpgn);
    assert!(got.alerts.is_empty(), "{:?}\n{}", got.alerts, got.bpgn);
    // The right side's time runs first from the start position: White's, from the first
    // clock line on, and play confirms it.
    let right = (ClockSide::Right, None);
    assert_eq!(stated(&got.events)[..2], [right, right]);
    let first_clock = got
        .events
        .iter()
        .position(|e| matches!(e, TraceEvent::Clock { .. }));
    let first_side = got
        .events
        .iter()
        .position(|e| matches!(e, TraceEvent::ClockSide { .. }));
    assert!(
        first_side < first_clock,
        "stated before the first clock line"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_with_white_on_the_right_configured_left_gives_its_game_and_one_alert() {
    let reads = recording::with_clock_turned(&recording::reads());
    let got = through_listen_and_replay(
        "turned-left",
        reads,
        ClockSide::Right,
        &["--white-side", "left"],
    )
    .await;
    assert_eq!(got.moves, recording::uci(), "{}", got.bpgn);
    assert_eq!(got.alerts, ["clock-side"], "{}", got.bpgn);
    let left = Some(ClockSide::Left);
    assert_eq!(
        stated(&got.events),
        [(ClockSide::Left, left), (ClockSide::Right, left)],
        "the configured side, then play's, once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recording_as_it_was_gives_its_game_with_no_configuration() {
    let got =
        through_listen_and_replay("as-recorded-auto", recording::reads(), ClockSide::Left, &[])
            .await;
    assert_eq!(got.moves, recording::uci(), "{}", got.bpgn);
    assert!(got.alerts.is_empty(), "{:?}\n{}", got.alerts, got.bpgn);
    assert!(
        stated(&got.events)
            .iter()
            .all(|s| *s == (ClockSide::Left, None))
    );
}
