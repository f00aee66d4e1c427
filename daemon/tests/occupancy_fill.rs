//! The arbiter takes up an occupancy-only board (Sentio) that stalled, through the whole
//! pipeline: a journal (an occupancy trace with the arbiter's `fill` line in it) replayed
//! into the record, as a restarted daemon replays it.
//!
//! On board A, White's knight takes on d5 with its victim lifted first and Black drops a
//! pawn where it stood: the board is back as it was, which also reads as both pieces put
//! back, so the board stalls. White plays on (Nf3) while the arbiter walks over and enters
//! `Nxd5 P@c3`; the board's readings since are read again (Nf3), and Black's next move
//! (e5) is taken as any.

#[path = "support/sentio_journal.rs"]
mod sentio_journal;

use bugbridge::cli::replay::replay_text;
use bugbridge::infer::{AlertCode, Inference};
use bugbridge::rules::{BoardId, Color};
use sentio_journal::{A_STALLS, Change, FILL_AT, assert_a_taken_up, journal, sans};

/// After A stalled: the arbiter's entry comes at 25 s; A: 3... e5 after it, and B: 3. Nc3.
const AFTER: [Change; 4] = [
    (30_000, BoardId::A, "e7", false),
    (30_300, BoardId::A, "e5", true),
    (31_000, BoardId::B, "b1", false),
    (31_300, BoardId::B, "c3", true),
];

fn trace() -> String {
    journal(A_STALLS.into_iter().chain(AFTER), true)
}

#[test]
fn the_arbiters_fill_takes_a_stalled_sentio_board_up_again_in_the_record() {
    let replayed = replay_text(&trace(), None).expect("the trace replays");
    assert_a_taken_up(&replayed);
    assert_eq!(
        sans(&replayed, BoardId::B),
        ["e4", "d5", "exd5", "Qxd5", "Nc3"]
    );
    // The stall is said once, and once again with the reading White's play since offers
    // (put back, then Nf3): nothing more while the arbiter walks over.
    let stalls: Vec<Vec<&str>> = replayed
        .decisions
        .iter()
        .filter_map(|d| match d {
            Inference::Alert(a) if a.code == AlertCode::OccupancyStalled => {
                Some(a.choices.iter().map(|c| c.label.as_str()).collect())
            }
            _ => None,
        })
        .collect();
    assert_eq!(stalls.len(), 2, "{:#?}", replayed.decisions);
    assert!(
        !stalls[0].contains(&"2. Nf3") && stalls[1].contains(&"2. Nf3"),
        "{stalls:?}"
    );
    // What other programs read of it is the game.
    let bpgn = replayed.game.bpgn();
    let parsed = bugbridge::rules::notation::bpgn::parse_bpgn(&bpgn)
        .unwrap_or_else(|e| panic!("{e}:\n{bpgn}"));
    assert_eq!(parsed[0].moves.len(), 11, "{bpgn}");
}

#[test]
fn without_the_arbiters_fill_the_stalled_board_records_nothing_more() {
    let text: String = trace()
        .lines()
        .filter(|l| !l.contains(r#""ev":"operator""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let replayed = replay_text(&text, None).expect("the trace replays");
    assert_eq!(sans(&replayed, BoardId::A), ["Nc3", "d5"]);
}

#[test]
fn a_fill_that_does_not_fit_is_refused_and_the_board_stays_stalled() {
    // The queen cannot pass the pawn on d2.
    let text = trace().replace(r#"["Nxd5","P@c3"]"#, r#"["Qxd5"]"#);
    let replayed = replay_text(&text, None).expect("the trace replays");
    assert_eq!(sans(&replayed, BoardId::A), ["Nc3", "d5"]);
}

#[test]
fn the_arbiters_fill_is_checked_against_the_boards_reading_before_it_is_journaled() {
    use bugbridge::infer::OperatorAction;
    let before: String = trace()
        .lines()
        .take_while(|l| !l.contains(r#""ev":"operator""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let replayed = replay_text(&before, None).expect("the trace replays");
    let fill = |board, moves: &[&str]| OperatorAction::Fill {
        board,
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        first: None,
    };
    let game = &replayed.game;
    assert_eq!(
        game.check_action(FILL_AT, &fill(BoardId::A, &["Nxd5", "P@c3"])),
        Ok(())
    );
    // Named as the move the record waits for, the same moves are taken; named as another
    // (an alert's choice clicked after the board moved on), they are refused.
    let named = |first| OperatorAction::Fill {
        board: BoardId::A,
        moves: vec!["Nxd5".to_owned(), "P@c3".to_owned()],
        first: Some(first),
    };
    let next = replayed
        .game
        .record()
        .iter()
        .rfind(|e| e.board == BoardId::A)
        .map_or((1, Color::White), |e| match e.side {
            Color::White => (e.number, Color::Black),
            Color::Black => (e.number + 1, Color::White),
        });
    assert_eq!(game.check_action(FILL_AT, &named(next)), Ok(()));
    let stale = game
        .check_action(FILL_AT, &named((next.0 - 1, next.1)))
        .expect_err("not the next move");
    assert_eq!(stale.field, "number", "{}", stale.message);
    let refused = game
        .check_action(FILL_AT, &fill(BoardId::A, &["Qxd5"]))
        .expect_err("the queen cannot pass d2");
    assert_eq!(refused.field, "moves");
    let refused = game
        .check_action(FILL_AT, &fill(BoardId::B, &["Nc3"]))
        .expect_err("board B needs nothing");
    assert!(
        refused.message.contains("all recorded"),
        "{}",
        refused.message
    );
    // Checking changed nothing: the board is still stalled and the record as it was.
    assert_eq!(sans(&replayed, BoardId::A), ["Nc3", "d5"]);
}
