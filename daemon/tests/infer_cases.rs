//! The hard cases of OTB e-board play, one test each (named after the case), and
//! one test per illegal-move reason: the alert at the right move, and the game going on.
//!
//! Traces are written with the builder of `support/sensor_table.rs`: `lift(A, "e2")`,
//! `put(A, "e4", 'P')`, `press(A)`, `play(A, "e2e4")` (lift, put, press), each advancing
//! the trace time.

use bugbridge::infer::{AlertCode, InferConfig, Inference, OperatorAction, SensorEvent};
use bugbridge::rules::notation::parse_bfen;
use bugbridge::rules::{
    BoardId, BughouseGame, ByBoard, Color, EndReason, IllegalReason, MatchResult, Move, Role,
    Ruleset, Team,
};

const A: BoardId = BoardId::A;
const B: BoardId = BoardId::B;

#[path = "support/sensor_table.rs"]
mod sensor_table;
use sensor_table::{Table, piece, sq};

impl Table {
    fn from_bfen(bfen: &str) -> Table {
        let fens = parse_bfen(bfen, Ruleset::default()).expect("bfen");
        let game = BughouseGame::from_positions(
            fens.a.position.clone(),
            fens.b.position.clone(),
            Ruleset::default(),
        );
        Table::with(InferConfig::default(), Some(game), ByBoard::default())
    }

    /// The illegal-move alerts: (board, number, side, reason).
    fn illegal(&self) -> Vec<(BoardId, u32, Color, IllegalReason)> {
        self.out
            .iter()
            .filter_map(|i| match i {
                Inference::Alert(a) if a.code == AlertCode::IllegalMove => Some((
                    a.board.expect("board"),
                    a.number.expect("number"),
                    a.side.expect("side"),
                    a.reason.expect("reason"),
                )),
                _ => None,
            })
            .collect()
    }
}

fn castling_ready() -> Table {
    let mut t = Table::new();
    for m in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"] {
        t.play(A, m);
    }
    t
}

// ---- 1–5: slides and captures -------------------------------------------------------

#[test]
fn case_01_slow_slide_is_one_move_and_the_provisional_square_is_revised() {
    let mut t = Table::new();
    t.lift(A, "e2")
        .put(A, "e3", 'P')
        .wait(1000)
        .lift(A, "e3")
        .put(A, "e4", 'P');
    assert!(t.moves().is_empty(), "nothing before the press");
    t.press(A);
    assert_eq!(t.moves(), ["A:e2e4"]);
}

#[test]
fn case_02_capture_capturer_first_gives_the_pawn_to_the_partner() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5");
    t.lift(A, "e4").lift(A, "d5").put(A, "d5", 'P').press(A);
    assert_eq!(t.last_move(), "A:e4d5");
    assert_eq!(
        t.inf.game().board(B).pockets()[Color::Black].count(Role::Pawn),
        1
    );
}

#[test]
fn case_03_capture_victim_first_and_held_emits_nothing_in_the_gap() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5");
    let n = t.out.len();
    t.lift(A, "d5").wait(6000);
    assert!(t.outputs_since(n).is_empty(), "{:?}", t.outputs_since(n));
    t.lift(A, "e4").put(A, "d5", 'P').press(A);
    assert_eq!(t.last_move(), "A:e4d5");
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 0);
}

#[test]
fn case_04_capture_by_placing_over_the_victim_waits_for_the_victim_to_go() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5");
    // The capturer stands on d5 but the sensor still reads the victim; the press comes.
    t.lift(A, "e4").press(A);
    assert_eq!(t.moves().len(), 2, "never 'd5 unchanged + e4 vanished'");
    t.put(A, "d5", 'P');
    assert_eq!(t.last_move(), "A:e4d5");
    let e = t.inf.record().last().expect("entry");
    assert_eq!(e.clock, Some(174.0), "the time of the press");
}

#[test]
fn case_05_of_two_possible_capturers_the_one_lifted_first_is_the_mover() {
    let mut t = Table::new();
    for m in [
        "b1c3", "d7d5", "g1f3", "a7a6", "f3e5", "a6a5", "e5f3", "a5a4",
    ] {
        t.play(A, m);
    }
    // Both knights can take on d5 (c3 and f3 → d4? no: c3 and f3 both reach d5? c3 yes,
    // f3 reaches d4/e5). Touch f3 first but put it back, then c3 takes.
    t.lift(A, "f3")
        .put(A, "f3", 'N')
        .lift(A, "c3")
        .lift(A, "d5")
        .put(A, "d5", 'N')
        .press(A);
    assert_eq!(t.last_move(), "A:c3d5");
}

// ---- 6–8: castling --------------------------------------------------------------------

#[test]
fn case_06_castling_king_first_the_interim_is_not_a_move() {
    let mut t = castling_ready();
    t.lift(A, "e1").put(A, "g1", 'K').wait(1500);
    assert_eq!(t.moves().len(), 6);
    t.lift(A, "h1").put(A, "f1", 'R').press(A);
    assert_eq!(t.last_move(), "A:e1g1");
    assert_eq!(
        t.inf.record().last().map(|e| e.san.clone()),
        Some("O-O".to_owned())
    );
}

#[test]
fn case_07_castling_rook_first_retracts_provisional_rook_move() {
    let mut t = castling_ready();
    t.lift(A, "h1")
        .put(A, "f1", 'R')
        .wait(1500)
        .lift(A, "e1")
        .put(A, "g1", 'K')
        .press(A);
    assert_eq!(t.last_move(), "A:e1g1");
    assert!(matches!(
        t.inf.record().last().map(|e| e.mv),
        Some(Move::Castle { .. })
    ));
}

#[test]
fn case_08_castling_with_both_hands_or_king_onto_the_rook_square() {
    let mut t = castling_ready();
    t.lift(A, "e1")
        .lift(A, "h1")
        .put(A, "g1", 'K')
        .put(A, "f1", 'R')
        .press(A);
    assert_eq!(t.last_move(), "A:e1g1");
    let mut t = castling_ready();
    t.lift(A, "e1").lift(A, "h1").put(A, "h1", 'K').wait(500);
    t.lift(A, "h1").put(A, "g1", 'K').put(A, "f1", 'R').press(A);
    assert_eq!(t.last_move(), "A:e1g1");
}

// ---- 9–10: en passant -----------------------------------------------------------------

fn ep_ready() -> Table {
    let mut t = Table::new();
    for m in ["e2e4", "a7a6", "e4e5", "d7d5"] {
        t.play(A, m);
    }
    t
}

#[test]
fn case_09_en_passant_victim_removed_last_is_not_flagged_in_between() {
    let mut t = ep_ready();
    t.lift(A, "e5").put(A, "d6", 'P').wait(800);
    assert!(t.illegal().is_empty());
    t.lift(A, "d5").press(A);
    assert_eq!(t.last_move(), "A:e5d6");
    assert!(matches!(
        t.inf.record().last().map(|e| e.mv),
        Some(Move::EnPassant { .. })
    ));
    assert!(t.illegal().is_empty());
}

#[test]
fn case_10_en_passant_victim_removed_first() {
    let mut t = ep_ready();
    t.lift(A, "d5").lift(A, "e5").put(A, "d6", 'P').press(A);
    assert!(matches!(
        t.inf.record().last().map(|e| e.mv),
        Some(Move::EnPassant { .. })
    ));
}

// ---- 11–15: promotions ----------------------------------------------------------------

const PROMO: &str = "8/P7/8/7k/8/8/8/4K3 w - - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";

#[test]
fn case_11_promotion_with_the_new_piece_shown() {
    let mut t = Table::from_bfen(PROMO);
    t.lift(A, "a7").put(A, "a8", 'Q').press(A);
    assert_eq!(t.last_move(), "A:a7a8q");
    let mut t = Table::from_bfen(PROMO);
    t.lift(A, "a7").put(A, "a8", 'N').press(A);
    assert_eq!(t.last_move(), "A:a7a8n");
    assert!(!t.inf.record()[0].flags.promotion_not_shown);
}

#[test]
fn case_12_promotion_with_the_pawn_left_standing_is_a_queen_not_shown() {
    let mut t = Table::from_bfen(PROMO);
    t.lift(A, "a7").put(A, "a8", 'P').press(A);
    assert_eq!(t.last_move(), "A:a7a8q");
    assert!(t.inf.record()[0].flags.promotion_not_shown);
    assert!(t.inf.game().promoted(A).contains(sq("a8")));
}

#[test]
fn case_13_the_laid_pawn_moves_later_as_its_declared_piece_or_is_corrected() {
    // Like a queen: accepted as the queen.
    let mut t = Table::from_bfen(PROMO);
    t.lift(A, "a7").put(A, "a8", 'P').press(A).play(A, "h5h4");
    t.lift(A, "a8").put(A, "e4", 'P').press(A);
    assert_eq!(t.last_move(), "A:a8e4");
    assert!(t.illegal().is_empty());
    // Like a knight: the promotion was a knight; corrected, with a correction event.
    let mut t = Table::from_bfen(PROMO);
    t.lift(A, "a7").put(A, "a8", 'P').press(A).play(A, "h5h4");
    t.lift(A, "a8").put(A, "b6", 'P').press(A);
    assert_eq!(t.moves(), ["A:a7a8n", "A:h5h4", "A:a8b6"]);
    assert!(
        t.out
            .iter()
            .any(|i| matches!(i, Inference::Correction(c) if c.new_san.contains("=N")))
    );
    assert!(t.illegal().is_empty());
}

#[test]
fn case_14_capture_of_a_promoted_piece_gives_the_partner_a_pawn() {
    let mut t = Table::from_bfen(
        "7r/P7/8/8/8/8/8/k3K3 w - - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.lift(A, "a7").put(A, "a8", 'P').press(A);
    t.lift(A, "h8").lift(A, "a8").put(A, "a8", 'r').press(A);
    assert_eq!(t.last_move(), "A:h8a8");
    let pocket = t.inf.game().board(B).pockets()[Color::White];
    assert_eq!(
        (pocket.count(Role::Pawn), pocket.count(Role::Queen)),
        (1, 0)
    );
}

#[test]
fn case_15_capture_promotion_in_either_order() {
    let bfen = "1n2k3/P7/8/8/8/8/8/4K3 w - - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";
    let mut t = Table::from_bfen(bfen);
    t.lift(A, "b8").lift(A, "a7").put(A, "b8", 'Q').press(A);
    assert_eq!(t.last_move(), "A:a7b8q");
    let mut t = Table::from_bfen(bfen);
    t.lift(A, "a7").put(A, "b8", 'Q').press(A);
    assert_eq!(t.last_move(), "A:a7b8q");
}

// ---- 16–19: adjustments, knocks, flicker, misreads ----------------------------------

#[test]
fn case_16_adjusted_pieces_are_no_move_and_are_forgotten() {
    let mut t = Table::new();
    t.lift(A, "g1")
        .put(A, "g1", 'N')
        .lift(A, "g1")
        .put(A, "g1", 'N');
    t.lift(A, "e7").put(A, "e7", 'p');
    assert!(t.moves().is_empty());
    t.play(A, "e2e4");
    assert_eq!(t.moves(), ["A:e2e4"]);
}

#[test]
fn case_17_knocked_piece_put_back_is_no_move_left_displaced_is_a_discrepancy() {
    let mut t = Table::new();
    t.play(A, "e2e4");
    // During Black's think White's bishop is knocked, flickers and is put back.
    t.lift(A, "f1")
        .put(A, "e2", 'B')
        .lift(A, "e2")
        .put(A, "f1", 'B');
    t.play(A, "e7e5");
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    // Knocked onto a neighbouring square and left there: not a move of the side not on
    // move; White's next press cannot be explained and is reported.
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.lift(A, "g1").put(A, "h3", 'N');
    t.play(A, "e7e5");
    t.lift(A, "d2").put(A, "d4", 'P').press(A).wait(3000);
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    assert!(t.alerts(AlertCode::UnrecognizedPosition) >= 1);
}

#[test]
fn case_18_sensor_flicker_is_ignored_and_never_a_from_to_same_square_move() {
    let mut t = Table::new();
    t.lift(A, "b8")
        .put(A, "b8", 'n')
        .put(A, "c3", 'p')
        .lift(A, "c3");
    t.play(A, "e2e4");
    assert_eq!(t.moves(), ["A:e2e4"]);
    // A press after a piece was only lifted and put back: no e7e7, a clock-without-move.
    t.lift(A, "e7").put(A, "e7", 'p').press(A).wait(3000);
    assert_eq!(t.moves(), ["A:e2e4"]);
    assert_eq!(t.alerts(AlertCode::ClockWithoutMove), 1);
}

#[test]
fn case_19_a_momentary_misread_is_filtered() {
    let mut t = Table::new();
    t.put(A, "c1", 'N').put(A, "c1", 'B');
    t.play(A, "e2e4");
    // A misread at the very press: the move completes when the reading is right again.
    t.lift(A, "e7").put(A, "e5", 'b').press(A).put(A, "e5", 'p');
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    assert_eq!(t.inf.record()[1].clock, Some(177.0));
}

// ---- 20–24: takebacks, two plies, premoves, both hands -------------------------------

#[test]
fn case_20_takeback_of_the_last_move_is_reported_not_recorded_as_a_move() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5");
    t.lift(A, "e5").put(A, "e7", 'p').press(A).wait(3000);
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    assert!(
        t.out
            .iter()
            .any(|i| matches!(i, Inference::Alert(a) if a.detail.contains("takeback")))
    );
    assert!(t.illegal().is_empty());
}

#[test]
fn case_21_multi_move_takeback_is_reported_not_recorded() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5").play(A, "g1f3");
    t.lift(A, "f3")
        .put(A, "g1", 'N')
        .lift(A, "e5")
        .put(A, "e7", 'p')
        .press(A)
        .wait(3000);
    assert_eq!(t.moves().len(), 3);
    assert!(
        t.out
            .iter()
            .any(|i| matches!(i, Inference::Alert(a) if a.detail.contains("set back 2")))
    );
}

#[test]
fn case_22_two_plies_before_a_settle_are_both_emitted_in_order() {
    // With clocks: the reply is on the board before the first press.
    let mut t = Table::new();
    t.lift(A, "e2")
        .put(A, "e4", 'P')
        .lift(A, "e7")
        .put(A, "e5", 'p')
        .press(A)
        .press(A);
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    // Without a clock: both moves within one stable window.
    let config = InferConfig {
        clock: ByBoard { a: false, b: true },
        ..InferConfig::default()
    };
    let mut t = Table::with(config, None, ByBoard::default());
    t.lift(A, "e2")
        .put(A, "e4", 'P')
        .lift(A, "e7")
        .put(A, "e5", 'p')
        .wait(2000);
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    assert!(
        t.inf
            .record()
            .iter()
            .all(|e| e.flags.no_clock && e.clock.is_none())
    );
}

#[test]
fn case_23_premove_overlap_keeps_both_plies_and_their_times() {
    let mut t = Table::new();
    t.lift(A, "g1")
        .put(A, "f3", 'N')
        .lift(A, "e7")
        .put(A, "e5", 'p')
        .press(A);
    assert_eq!(t.moves(), ["A:g1f3"]);
    t.wait(4000).press(A);
    assert_eq!(t.moves(), ["A:g1f3", "A:e7e5"]);
    let r = t.inf.record();
    assert_eq!((r[0].clock, r[1].clock), (Some(177.0), Some(177.0)));
    assert!(r[1].t > r[0].t);
}

#[test]
fn case_24_both_hands_capture_recapture_sends_victims_to_both_partners() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5");
    t.lift(A, "e4")
        .lift(A, "d5")
        .put(A, "d5", 'P')
        .lift(A, "d8")
        .lift(A, "d5")
        .put(A, "d5", 'q');
    t.press(A).press(A);
    assert_eq!(t.moves(), ["A:e2e4", "A:d7d5", "A:e4d5", "A:d8d5"]);
    let b = t.inf.game().board(B).pockets();
    assert_eq!(
        (
            b[Color::White].count(Role::Pawn),
            b[Color::Black].count(Role::Pawn)
        ),
        (1, 1)
    );
}

// ---- 25–30: drops ----------------------------------------------------------------------

#[test]
fn case_25_drop_from_the_pocket_or_flagged_when_not_held() {
    let mut t = Table::from_bfen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/N w KQkq - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.put(A, "f3", 'N').press(A);
    assert_eq!(t.last_move(), "A:N@f3");
    assert!(t.illegal().is_empty());
    let mut t = Table::new();
    t.put(A, "f3", 'N').press(A).wait(500);
    assert_eq!(t.last_move(), "A:N@f3");
    assert_eq!(
        t.illegal(),
        [(A, 1, Color::White, IllegalReason::DropNotInHand)]
    );
}

#[test]
fn case_26_the_dropped_piece_type_comes_from_the_sensor() {
    // DGT boards report piece identity, so the type is never unknown: the reading is it.
    let mut t = Table::from_bfen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/NB w KQkq - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.put(A, "e4", 'B').press(A);
    assert_eq!(t.last_move(), "A:B@e4");
}

#[test]
fn case_27_pawn_drop_on_the_back_rank_is_recorded_and_flagged_without_a_stall() {
    let mut t = Table::from_bfen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/P w KQkq - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.play(A, "g1f3").play(A, "b8c6");
    t.put(A, "g1", 'P').press(A);
    assert_eq!(t.last_move(), "A:P@g1");
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::White, IllegalReason::PawnDropBackRank)]
    );
    t.play(A, "e7e5");
    assert_eq!(t.last_move(), "A:e7e5");
}

#[test]
fn case_28_drop_that_blocks_check_is_legal_elsewhere_it_is_not() {
    let bfen = "4r2k/8/8/8/8/8/8/4K3/N w - - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";
    let mut t = Table::from_bfen(bfen);
    t.put(A, "e4", 'N').press(A);
    assert_eq!(t.last_move(), "A:N@e4");
    assert!(t.illegal().is_empty());
    let mut t = Table::from_bfen(bfen);
    t.put(A, "a4", 'N').press(A);
    assert_eq!(
        t.illegal(),
        [(A, 1, Color::White, IllegalReason::LeavesKingInCheck)]
    );
}

#[test]
fn case_29_drop_onto_a_just_vacated_square_is_the_side_to_move_s_drop() {
    let mut t = Table::from_bfen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/n w KQkq - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.play(A, "g1f3").play(A, "e7e5").play(A, "f3e5");
    t.put(A, "f3", 'n').press(A);
    assert_eq!(t.last_move(), "A:N@f3");
    assert_eq!(t.inf.record().last().map(|e| e.side), Some(Color::Black));
    assert!(t.illegal().is_empty());
}

fn race_ready() -> Table {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5").play(B, "e2e4");
    // White on A takes on d5 (the pawn goes to Black on B) but has not pressed yet.
    t.lift(A, "e4").lift(A, "d5").put(A, "d5", 'P');
    t
}

#[test]
fn case_30_cross_board_race_drop_seen_before_the_supplying_press() {
    let mut t = race_ready();
    t.put(B, "e5", 'p').press(B);
    t.t += 100;
    t.press(A);
    assert_eq!(t.moves()[3..], ["A:e4d5", "B:P@e5"]);
    assert!(t.illegal().is_empty());
}

// ---- 31–37 ------------------------------------------------------------------------------

#[test]
fn case_31_illegal_move_completed_is_recorded_flagged_and_the_game_goes_on() {
    let mut t = Table::new();
    for m in ["e2e4", "e7e5", "e1e2", "d8g5"] {
        t.play(A, m);
    }
    t.lift(A, "e2").put(A, "e3", 'K').press(A);
    assert_eq!(t.last_move(), "A:e2e3");
    assert_eq!(
        t.illegal(),
        [(A, 3, Color::White, IllegalReason::LeavesKingInCheck)]
    );
    t.play(A, "d7d6");
    assert_eq!(t.last_move(), "A:d7d6");
    // A knight moving like a bishop.
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5");
    t.lift(A, "b1").put(A, "d3", 'N').press(A);
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::White, IllegalReason::BadPieceMovement)]
    );
}

#[test]
fn case_32_move_out_of_turn_is_recorded_and_flagged() {
    // Black moves one of White's pieces.
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.lift(A, "g1").put(A, "f3", 'N').press(A);
    assert_eq!(t.last_move(), "A:g1f3");
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::White, IllegalReason::OutOfTurn)]
    );
    // White moves twice: Black presses with only White's second move on the board.
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.lift(A, "d2").put(A, "d4", 'P').press(A);
    assert_eq!(t.last_move(), "A:d2d4");
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::White, IllegalReason::OutOfTurn)]
    );
}

#[test]
fn case_33_result_gestures_are_not_moves_but_real_king_moves_are() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5");
    t.lift(A, "e1")
        .put(A, "d4", 'K')
        .lift(A, "e8")
        .put(A, "d5", 'k');
    t.running.a = None;
    t.clock_event(A);
    t.lift(B, "e8").wait(4000).put(B, "e8", 'k');
    assert_eq!(t.moves().len(), 2);
    assert!(t.illegal().is_empty());
    t.play(B, "e2e4").play(B, "e7e5").play(B, "e1e2");
    assert_eq!(t.last_move(), "B:e1e2");
}

#[test]
fn case_34_a_board_set_up_rotated_is_read_the_right_way_round() {
    let mut t = Table::with(InferConfig::default(), None, ByBoard { a: true, b: false });
    t.play(A, "e2e4");
    assert_eq!(t.moves(), ["A:e2e4"]);
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 0);
}

#[test]
fn case_35_resync_to_a_non_initial_position_with_holdings() {
    let mut t = Table::from_bfen(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R/Pn w KQkq - 170 171 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 175 175",
    );
    t.play(A, "f1b5").play(B, "e7e5");
    assert_eq!(t.moves(), ["A:f1b5", "B:e7e5"]);
    assert!(t.illegal().is_empty());
}

#[test]
fn case_36_press_with_the_piece_in_hand_or_pressed_twice() {
    let mut t = Table::new();
    t.lift(A, "e2").press(A);
    let pressed_at = t.t;
    t.put(A, "e4", 'P');
    assert_eq!(t.moves(), ["A:e2e4"]);
    assert_eq!(t.inf.record()[0].t, pressed_at);
    // Black's button is pressed without a move: no empty move, a clock-without-move.
    t.press(A).wait(3000);
    assert_eq!(t.moves(), ["A:e2e4"]);
    assert_eq!(t.alerts(AlertCode::ClockWithoutMove), 1);
}

#[test]
fn case_37_new_game_when_both_boards_are_reset_after_the_end() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5");
    t.feed(SensorEvent::Operator(OperatorAction::Result {
        result: MatchResult::Won(Team::WhiteA),
        reason: Some(EndReason::Resignation),
        correct: false,
    }));
    t.lift(A, "e4")
        .put(A, "e2", 'P')
        .lift(A, "e5")
        .put(A, "e7", 'p');
    assert!(t.out.iter().any(|i| matches!(i, Inference::NewGame { .. })));
    assert!(t.illegal().is_empty());
    t.running.a = Some(Color::White);
    t.play(A, "d2d4");
    assert_eq!(t.moves(), ["A:d2d4"]);
    assert_eq!(t.inf.record()[0].number, 1);
}

// ---- one test per illegal-move reason ---------------------------------------------------

#[test]
fn illegal_leaves_king_in_check_is_alerted_at_its_move_and_play_continues() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "f7f6").play(A, "d1h5");
    t.lift(A, "e8").put(A, "f7", 'k').press(A);
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::Black, IllegalReason::LeavesKingInCheck)]
    );
    t.play(A, "h5f7");
    assert_eq!(t.last_move(), "A:h5f7");
}

#[test]
fn illegal_bad_piece_movement_is_alerted_at_its_move_and_play_continues() {
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.lift(A, "f8").put(A, "b4", 'b').press(A);
    assert_eq!(
        t.illegal(),
        [(A, 1, Color::Black, IllegalReason::BadPieceMovement)]
    );
    t.play(A, "g1f3");
    assert_eq!(t.last_move(), "A:g1f3");
}

#[test]
fn illegal_drop_not_in_hand_is_alerted_at_its_move_and_play_continues() {
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.put(A, "e5", 'q').press(A).wait(400);
    assert_eq!(
        t.illegal(),
        [(A, 1, Color::Black, IllegalReason::DropNotInHand)]
    );
    t.play(A, "d2d4");
    assert_eq!(t.last_move(), "A:d2d4");
}

#[test]
fn illegal_pawn_drop_back_rank_is_alerted_at_its_move_and_play_continues() {
    let mut t = Table::from_bfen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/p w KQkq - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.play(A, "e2e4").play(A, "g8f6").play(A, "d2d4");
    t.put(A, "g8", 'p').press(A);
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::Black, IllegalReason::PawnDropBackRank)]
    );
    t.play(A, "c2c4");
    assert_eq!(t.last_move(), "A:c2c4");
}

#[test]
fn illegal_castling_not_allowed_is_alerted_at_its_move_and_play_continues() {
    let mut t = Table::from_bfen(
        "4kr2/8/8/8/8/8/8/4K2R w K - 180 180 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
    );
    t.lift(A, "e1")
        .put(A, "g1", 'K')
        .lift(A, "h1")
        .put(A, "f1", 'R')
        .press(A);
    assert_eq!(t.last_move(), "A:e1g1");
    assert_eq!(
        t.illegal(),
        [(A, 1, Color::White, IllegalReason::CastlingNotAllowed)]
    );
    t.play(A, "e8d7");
    assert_eq!(t.last_move(), "A:e8d7");
}

#[test]
fn illegal_out_of_turn_is_alerted_at_its_move_and_play_continues() {
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.lift(A, "d2").put(A, "d4", 'P').press(A);
    assert_eq!(
        t.illegal(),
        [(A, 2, Color::White, IllegalReason::OutOfTurn)]
    );
    t.play(A, "g1f3");
    assert_eq!(t.last_move(), "A:g1f3");
}

#[test]
fn illegal_premature_drop_is_alerted_at_its_move_and_play_continues() {
    let mut t = race_ready();
    t.put(B, "e5", 'p').press(B).wait(1000);
    assert_eq!(
        t.illegal(),
        [(B, 1, Color::Black, IllegalReason::PrematureDrop)]
    );
    t.press(A);
    assert_eq!(t.last_move(), "A:e4d5");
    // The late capture settles the debt: no piece appears twice.
    assert_eq!(
        t.inf.game().board(B).pockets()[Color::Black].count(Role::Pawn),
        0
    );
    assert_eq!(t.alerts(AlertCode::MaterialMismatch), 0);
    t.play(B, "d2d4");
    assert_eq!(t.last_move(), "B:d2d4");
}

// ---- link loss, audits, clocks, operators ----------------------------------------------

#[test]
fn link_lost_then_a_move_pressed_in_the_gap_is_taken_from_the_snapshot_and_clock() {
    let mut t = Table::new();
    t.feed(SensorEvent::Link {
        board: A,
        up: false,
    });
    assert_eq!(t.alerts(AlertCode::LinkLost), 1);
    // While away: e2e4 and its press happen unseen.
    t.t += 3000;
    t.feed(SensorEvent::Link { board: A, up: true });
    let mut placement = *t.inf.physical(A);
    placement.set_square(sq("e2"), None);
    placement.set_square(sq("e4"), Some(piece('P')));
    t.feed(SensorEvent::Snapshot {
        board: A,
        placement,
    });
    t.clocks.a.white = 171.0;
    t.running.a = Some(Color::Black);
    t.clock_event(A);
    // Judged once the board has been still a second (a hand may be in the air at link-up).
    assert!(t.moves().is_empty());
    t.t += 1000;
    t.clock_event(A);
    assert_eq!(t.moves(), ["A:e2e4"]);
    assert_eq!(t.inf.record()[0].clock, Some(171.0));
}

#[test]
fn link_gap_with_a_move_and_its_reply_is_inferred_when_unambiguous() {
    let mut t = Table::new();
    t.feed(SensorEvent::Link {
        board: A,
        up: false,
    });
    t.t += 9000;
    t.feed(SensorEvent::Link { board: A, up: true });
    let mut placement = *t.inf.physical(A);
    for (s, p) in [
        ("e2", None),
        ("e4", Some('P')),
        ("e7", None),
        ("e5", Some('p')),
    ] {
        placement.set_square(sq(s), p.map(piece));
    }
    t.feed(SensorEvent::Snapshot {
        board: A,
        placement,
    });
    t.clock_event(A);
    t.t += 1000;
    t.clock_event(A);
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
    assert!(t.inf.record().iter().all(|e| e.flags.gap_inferred));
}

#[test]
fn link_gap_that_matches_nothing_is_alerted_and_waits() {
    let mut t = Table::new();
    t.feed(SensorEvent::Link {
        board: A,
        up: false,
    });
    t.feed(SensorEvent::Link { board: A, up: true });
    let mut placement = *t.inf.physical(A);
    // A pawn gone from a2 and one on h5: no sequence of plies does that.
    for (s, p) in [("a2", None), ("h5", Some('P'))] {
        placement.set_square(sq(s), p.map(piece));
    }
    t.feed(SensorEvent::Snapshot {
        board: A,
        placement,
    });
    t.clock_event(A);
    // The board gets the press grace to settle (a piece still in hand at link-up).
    t.wait(3000);
    assert!(t.moves().is_empty());
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 1);
}

#[test]
fn a_piece_taken_off_the_board_is_a_material_mismatch_not_a_move() {
    let mut t = Table::new();
    t.play(A, "e2e4");
    t.lift(A, "a8"); // a black rook disappears during the game
    t.play(A, "e7e5");
    // Black's press waits (the rook might be in the hand that moves), then the grace
    // ends: the move stands and the missing rook is reported.
    t.wait(3000);
    t.play(A, "g1f3").play(A, "d7d6");
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5", "A:g1f3", "A:d7d6"]);
    assert_eq!(t.alerts(AlertCode::MaterialMismatch), 1);
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 0);
}

#[test]
fn a_flag_at_zero_is_alerted_once() {
    let mut t = Table::new();
    t.clocks.a.white = 0.0;
    t.clock_event(A);
    t.clock_event(A);
    assert_eq!(t.alerts(AlertCode::FlagFall), 1);
}

#[test]
fn operator_promotion_and_replace_correct_the_record_and_replay_the_game() {
    let mut t = Table::from_bfen(PROMO);
    t.lift(A, "a7").put(A, "a8", 'P').press(A);
    t.feed(SensorEvent::Operator(OperatorAction::Promotion {
        board: A,
        number: 1,
        side: Color::White,
        piece: Role::Knight,
    }));
    assert_eq!(t.moves(), ["A:a7a8n"]);
    t.play(A, "h5h4");
    t.feed(SensorEvent::Operator(OperatorAction::Replace {
        board: A,
        number: 1,
        side: Color::Black,
        san: "Kg4".to_owned(),
    }));
    assert_eq!(t.moves(), ["A:a7a8n", "A:h5g4"]);
    let corrections = t
        .out
        .iter()
        .filter(|i| matches!(i, Inference::Correction(_)))
        .count();
    assert_eq!(corrections, 2);
}

#[test]
fn a_clockless_board_commits_after_the_stable_window_and_says_so() {
    let config = InferConfig {
        clock: ByBoard { a: true, b: false },
        ..InferConfig::default()
    };
    let mut t = Table::with(config, None, ByBoard::default());
    t.lift(B, "d2").put(B, "d4", 'P').wait(600);
    assert!(t.moves().is_empty(), "not stable long enough yet");
    t.wait(400);
    assert_eq!(t.moves(), ["B:d2d4"]);
    assert!(t.inf.record()[0].flags.no_clock);
}

#[test]
fn move_events_carry_the_bfen_after_the_move_with_the_clock_readings() {
    let mut t = Table::new();
    t.play(A, "e2e4")
        .play(B, "d2d4")
        .play(A, "d7d5")
        .play(A, "e4d5");
    let bfens: Vec<String> = t
        .out
        .iter()
        .filter_map(|i| match i {
            Inference::Move { bfen, .. } => Some(bfen.clone()),
            _ => None,
        })
        .collect();
    let game = t.inf.game();
    let expected = bugbridge::rules::notation::write_bfen(
        ByBoard {
            a: game.board(A),
            b: game.board(B),
        },
        ByBoard {
            a: t.inf.clock(A),
            b: t.inf.clock(B),
        },
    );
    assert_eq!(bfens.len(), 4);
    assert_eq!(bfens[3], expected);
    assert!(
        expected.contains("/p"),
        "the pawn went to Black on B: {expected}"
    );
}

// ---- link gaps bridged by search ---------------------------------------------------------

impl Table {
    /// `b`'s link drops; `ucis` are played on it unseen (and, `knocked`, those squares are
    /// emptied); the link comes back with a snapshot and a clock reading showing `lost`
    /// seconds gone from each side and `running` running.
    fn silent(&mut self, b: BoardId, ucis: &[&str], knocked: &[&str], lost: (f64, f64)) {
        self.feed(SensorEvent::Link {
            board: b,
            up: false,
        });
        let mut pos = self.inf.game().board(b).clone();
        for uci in ucis {
            let m = pos
                .legal_moves()
                .into_iter()
                .find(|m| m.uci() == *uci)
                .unwrap_or_else(|| panic!("{uci} is not legal on {b}"));
            pos.play(&m);
        }
        let mut placement = *pos.board();
        for s in knocked {
            placement.set_square(sq(s), None);
        }
        self.pending_gap = Some((b, placement, pos.turn(), lost));
    }

    /// The link of the silent board comes back.
    fn back(&mut self) {
        let (b, placement, turn, lost) = self.pending_gap.take().expect("a silent board");
        self.t += 100;
        self.feed(SensorEvent::Link { board: b, up: true });
        self.feed(SensorEvent::Snapshot {
            board: b,
            placement,
        });
        self.clocks[b].white -= lost.0;
        self.clocks[b].black -= lost.1;
        self.running[b] = Some(turn);
        self.clock_event(b);
        // A reading without a press judges the board once it has been still a second.
        self.t += 1000;
        self.clock_event(b);
    }

    fn entry(&self, b: BoardId, uci: &str) -> &bugbridge::infer::RecordEntry {
        self.inf
            .record()
            .iter()
            .find(|e| e.board == b && e.mv.uci() == uci)
            .unwrap_or_else(|| panic!("{uci} not recorded on {b}"))
    }
}

#[test]
fn a_drop_pending_on_the_other_boards_gap_is_legal_when_the_gap_supplied_it() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5");
    // A goes silent; White takes on d5 there: Black on B receives a pawn.
    t.silent(A, &["e4d5"], &[], (2.0, 0.0));
    t.t += 500;
    t.play(B, "e2e4");
    // Black on B drops the pawn before A is seen again: no alert, pending.
    t.put(B, "e5", 'p').press(B);
    assert_eq!(t.last_move(), "B:P@e5");
    assert!(t.inf.record().last().expect("move").flags.gap_pending);
    assert!(t.illegal().is_empty());
    t.t += 2000;
    t.back();
    let gap = t.entry(A, "e4d5");
    assert!(gap.flags.gap_inferred && !gap.flags.gap_ambiguous);
    let drop = t.entry(B, "P@e5");
    assert_eq!(drop.legality, bugbridge::rules::Legality::Legal);
    assert!(!drop.flags.gap_pending && !drop.flags.premature);
    // The capture that supplied the drop comes first in the record.
    let pos = |uci| t.moves().iter().position(|m| m.ends_with(uci));
    assert!(pos("e4d5") < pos("P@e5"), "{:?}", t.moves());
    t.wait(5000);
    assert!(t.illegal().is_empty());
    assert_eq!(t.alerts(AlertCode::MaterialMismatch), 0);
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 0);
    t.play(A, "d8d5");
    assert_eq!(t.last_move(), "A:d8d5");
}

#[test]
fn a_drop_pending_on_the_other_boards_gap_is_alerted_when_the_gap_did_not_supply_it() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "d7d5");
    // A goes silent; White plays a quiet move there: nothing reaches B.
    t.silent(A, &["g1f3"], &[], (2.0, 0.0));
    t.t += 500;
    t.play(B, "e2e4");
    t.put(B, "e5", 'p').press(B);
    assert!(t.illegal().is_empty(), "pending while A is silent");
    t.t += 2000;
    t.back();
    // A board that stayed powered could still be replaying its log of the outage, whose
    // later plies might supply the drop: it is judged at the end of the grace.
    assert!(t.illegal().is_empty(), "pending until the end of the grace");
    t.wait(5000);
    assert_eq!(
        t.illegal(),
        [(B, 1, Color::Black, IllegalReason::PrematureDrop)]
    );
    assert!(t.entry(A, "g1f3").flags.gap_inferred);
}

#[test]
fn a_transposed_gap_is_reported_ambiguous_and_the_arbiter_picks_the_order() {
    let mut t = Table::new();
    t.silent(A, &["g1f3", "e7e5", "b1c3"], &[], (4.0, 2.0));
    t.t += 4000;
    t.back();
    assert_eq!(t.inf.record().len(), 3);
    assert!(t.inf.record().iter().all(|e| e.flags.gap_ambiguous));
    assert_eq!(t.alerts(AlertCode::GapAmbiguous), 1);
    let first = t.inf.record()[0].san.clone();
    let other: Vec<String> = if first == "Nf3" {
        vec!["Nc3".into(), "e5".into(), "Nf3".into()]
    } else {
        vec!["Nf3".into(), "e5".into(), "Nc3".into()]
    };
    t.feed(SensorEvent::Operator(OperatorAction::Fill {
        board: A,
        moves: other.clone(),
        first: None,
    }));
    let sans: Vec<&str> = t.inf.record().iter().map(|e| e.san.as_str()).collect();
    assert_eq!(sans, other);
    assert!(t.out.iter().any(|i| matches!(i, Inference::Correction(_))));
    assert!(t.inf.record().iter().all(|e| !e.flags.gap_ambiguous));
    t.play(A, "d7d5");
    assert_eq!(t.last_move(), "A:d7d5");
}

#[test]
fn an_unbridgeable_gap_is_alerted_once_and_the_arbiter_fills_it() {
    let mut t = Table::new();
    // While A is silent: e4 e5, and the a1 rook knocked off the board (no sequence of
    // plies takes it).
    t.silent(A, &["e2e4", "e7e5"], &["a1"], (2.0, 2.0));
    t.t += 3000;
    t.back();
    // B plays on meanwhile.
    t.play(B, "d2d4");
    t.wait(3000);
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 1);
    assert_eq!(t.moves(), ["B:d2d4"]);
    // Presses on A raise nothing more while the gap is open.
    t.lift(A, "g1").put(A, "f3", 'N').press(A);
    t.wait(3000);
    assert_eq!(t.alerts(AlertCode::UnrecognizedPosition), 1);
    assert_eq!(t.alerts(AlertCode::ClockWithoutMove), 0);
    assert!(t.illegal().is_empty());
    // The arbiter fills the gap; the board's own latest move then follows at its press.
    assert_eq!(t.moves(), ["B:d2d4"]);
    // Named as the gap's first ply, the fill fits; named as another, it is refused.
    let named = |first| OperatorAction::Fill {
        board: A,
        moves: vec!["e4".into(), "e5".into()],
        first: Some(first),
    };
    assert_eq!(
        t.inf
            .check_action(t.t, &named((1, Color::White)))
            .map_err(|r| r.field),
        Ok(())
    );
    assert_eq!(
        t.inf
            .check_action(t.t, &named((2, Color::White)))
            .map_err(|r| r.field),
        Err("number")
    );
    t.feed(SensorEvent::Operator(OperatorAction::Fill {
        board: A,
        moves: vec!["e4".into(), "e5".into()],
        first: None,
    }));
    assert!(t.out.iter().any(|i| matches!(i, Inference::Correction(_))));
    assert!(t.entry(A, "e2e4").flags.gap_inferred);
    t.put(A, "a1", 'R');
    t.lift(A, "b8").put(A, "c6", 'n').press(A);
    assert_eq!(
        t.moves(),
        ["B:d2d4", "A:e2e4", "A:e7e5", "A:g1f3", "A:b8c6"]
    );
    assert!(t.illegal().is_empty());
}

#[test]
fn a_two_ply_gap_closed_by_a_press_is_timed_from_the_clocks() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5");
    let t0 = t.t;
    // White's move is pressed unseen; at link-up Black's reply stands on the board but his
    // clock still runs: the gap waits for his press, which is seen.
    t.silent(A, &["g1f3", "b8c6"], &[], (3.0, 1.0));
    t.t += 5000;
    let (b, placement, _, _) = t.pending_gap.take().expect("silent");
    t.feed(SensorEvent::Link { board: b, up: true });
    t.feed(SensorEvent::Snapshot {
        board: b,
        placement,
    });
    t.clocks.a.white -= 3.0;
    t.clocks.a.black -= 1.0;
    t.running.a = Some(Color::Black);
    t.clock_event(A);
    assert_eq!(t.moves().len(), 2, "the reply is not pressed yet");
    t.press(A);
    let pressed = t.t;
    assert_eq!(t.moves().len(), 4);
    let nf3 = t.entry(A, "g1f3");
    // White's clock ran only from the last reading to his press: time and reading exact.
    assert_eq!(nf3.clock, Some(174.0));
    assert_eq!(nf3.t, t0 + 3000);
    assert!(!nf3.flags.time_estimated && nf3.flags.gap_inferred);
    let nc6 = t.entry(A, "b8c6");
    assert_eq!(nc6.clock, Some(t.clocks.a.black));
    assert_eq!(nc6.t, pressed);
    assert!(!nc6.flags.time_estimated);
}

#[test]
fn a_one_ply_gap_is_timed_from_the_clocks() {
    let mut t = Table::new();
    t.play(A, "e2e4").play(A, "e7e5");
    let t0 = t.t;
    t.silent(A, &["g1f3"], &[], (2.0, 0.0));
    t.t += 4000;
    t.back();
    let nf3 = t.entry(A, "g1f3");
    assert_eq!(nf3.clock, Some(175.0));
    assert_eq!(nf3.t, t0 + 2000);
    assert!(!nf3.flags.time_estimated);
}
