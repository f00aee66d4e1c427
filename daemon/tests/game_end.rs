//! How a game ends, per ruleset (`rules.md` §1, §3, §4, §7): a flag fall, both flags on one
//! board, a checkmate, Koedem's four kings; that nothing is recorded after the end; and the
//! arbiter's actions that the game refuses, each naming the field at fault.

use bugbridge::infer::{AlertCode, InferConfig, Inference, OperatorAction, SensorEvent};
use bugbridge::rules::notation::parse_bfen;
use bugbridge::rules::{
    BoardId, BughouseGame, ByBoard, Color, EndReason, MatchResult, Role, RulesetName, Team,
};

const A: BoardId = BoardId::A;
const B: BoardId = BoardId::B;

#[path = "support/sensor_table.rs"]
mod sensor_table;
use sensor_table::Table;

fn table(ruleset: RulesetName) -> Table {
    let config = InferConfig {
        ruleset: ruleset.ruleset(),
        ..InferConfig::default()
    };
    Table::with(config, None, ByBoard::default())
}

/// The ends reported so far: (result, reason, board).
fn ends(t: &Table) -> Vec<(MatchResult, Option<EndReason>, Option<BoardId>)> {
    t.out
        .iter()
        .filter_map(|i| match i {
            Inference::End {
                result,
                reason,
                board,
                ..
            } => Some((*result, *reason, *board)),
            _ => None,
        })
        .collect()
}

fn end_detail(t: &Table) -> String {
    t.out
        .iter()
        .find_map(|i| match i {
            Inference::End { detail, .. } => Some(detail.clone()),
            _ => None,
        })
        .expect("an end")
}

/// A few moves on both boards, then White on B lets his clock run to zero.
fn white_b_flags(t: &mut Table) {
    t.play(A, "e2e4").play(A, "e7e5");
    t.play(B, "d2d4").play(B, "d7d5");
    // White on B to move: his time runs out.
    t.clocks.b.white = 0.0;
    t.clock_event(B);
}

fn result_action(result: MatchResult, reason: EndReason, correct: bool) -> OperatorAction {
    OperatorAction::Result {
        result,
        reason: Some(reason),
        correct,
    }
}

#[test]
fn a_flag_fall_ends_the_game_where_the_ruleset_says_the_flag_decides() {
    for ruleset in [
        RulesetName::Fide,
        RulesetName::Tournament,
        RulesetName::Koedem,
    ] {
        let mut t = table(ruleset);
        white_b_flags(&mut t);
        // White on B plays for the team of Black on A: that team loses, BPGN 1-0.
        assert_eq!(
            ends(&t),
            [(
                MatchResult::Won(Team::WhiteA),
                Some(EndReason::FlagFall),
                Some(B)
            )],
            "{ruleset}"
        );
        assert!(end_detail(&t).contains("WhiteB lost on time"), "{ruleset}");
        assert_eq!(t.alerts(AlertCode::FlagFall), 1, "{ruleset}");
        // Another reading at zero does not end it again.
        t.clock_event(B);
        assert_eq!(ends(&t).len(), 1, "{ruleset}");
    }
}

#[test]
fn a_flag_fall_where_the_rules_want_a_claim_is_an_alert_to_confirm() {
    for ruleset in [RulesetName::Uscf2006, RulesetName::Wbn] {
        let mut t = table(ruleset);
        white_b_flags(&mut t);
        assert!(
            ends(&t).is_empty(),
            "{ruleset}: the flag alone does not end it"
        );
        let alert = t
            .out
            .iter()
            .find_map(|i| match i {
                Inference::Alert(a) if a.code == AlertCode::FlagFall => Some(a.clone()),
                _ => None,
            })
            .expect("a flag-fall alert");
        assert_eq!((alert.board, alert.side), (Some(B), Some(Color::White)));
        assert!(alert.detail.contains("claim"), "{}", alert.detail);
        // The arbiter confirms the claim: the end the alert proposed.
        let claim = result_action(MatchResult::Won(Team::WhiteA), EndReason::FlagFall, false);
        assert_eq!(t.inf.check_action(t.t, &claim), Ok(()));
        t.feed(SensorEvent::Operator(claim));
        assert_eq!(
            ends(&t),
            [(
                MatchResult::Won(Team::WhiteA),
                Some(EndReason::FlagFall),
                None
            )],
            "{ruleset}"
        );
    }
}

#[test]
fn a_clock_at_zero_whose_side_is_not_running_is_no_flag_fall() {
    let mut t = table(RulesetName::Fide);
    t.play(A, "e2e4").play(A, "e7e5");
    // Black's display on B shows zero while White's time runs: not a fall of Black's flag.
    t.clocks.b.black = 0.0;
    t.clock_event(B);
    assert!(ends(&t).is_empty());
}

#[test]
fn a_clock_stopped_at_zero_after_its_side_ran_is_a_flag_fall() {
    let mut t = table(RulesetName::Fide);
    t.play(A, "e2e4");
    // Black on A runs out and the clock blocks at zero (no side running any more).
    t.clocks.a.black = 0.0;
    t.running.a = None;
    t.clock_event(A);
    assert_eq!(
        ends(&t),
        [(
            MatchResult::Won(Team::WhiteA),
            Some(EndReason::FlagFall),
            Some(A)
        )]
    );
}

#[test]
fn both_flags_on_one_board_draw_except_under_koedem() {
    for ruleset in [RulesetName::Fide, RulesetName::Tournament] {
        let mut t = table(ruleset);
        t.play(A, "e2e4").play(A, "e7e5");
        t.clocks.a.white = 0.0;
        t.clocks.a.black = 0.0;
        t.clock_event(A);
        assert_eq!(
            ends(&t),
            [(MatchResult::Draw, Some(EndReason::BothFlags), Some(A))],
            "{ruleset}"
        );
    }
    // Koedem has no draws: the side whose time is not running reached zero first.
    let mut t = table(RulesetName::Koedem);
    t.play(A, "e2e4").play(A, "e7e5");
    t.clocks.a.white = 0.0;
    t.clocks.a.black = 0.0;
    t.clock_event(A);
    // White on A runs: Black on A, whose clock had stopped at zero, fell first.
    assert_eq!(
        ends(&t),
        [(
            MatchResult::Won(Team::WhiteA),
            Some(EndReason::FlagFall),
            Some(A)
        )]
    );
}

#[test]
fn checkmate_ends_the_game_under_every_ruleset_but_koedem() {
    for ruleset in [
        RulesetName::Fide,
        RulesetName::Tournament,
        RulesetName::Uscf2006,
        RulesetName::Wbn,
    ] {
        let mut t = table(ruleset);
        // Scholar's mate: a contact check, protected, that no drop can parry.
        for m in ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"] {
            t.play(A, m);
        }
        t.lift(A, "h5").lift(A, "f7").put(A, "f7", 'Q').press(A);
        assert_eq!(
            ends(&t),
            [(
                MatchResult::Won(Team::WhiteA),
                Some(EndReason::Checkmate),
                Some(A)
            )],
            "{ruleset}"
        );
    }
}

#[test]
fn four_kings_end_a_koedem_game() {
    let rules = RulesetName::Koedem.ruleset();
    let fens = parse_bfen(
        "8/8/8/8/1B6/8/3k4/K3K3 w - - | 4k3/8/8/8/8/8/8/8 w - -",
        rules,
    )
    .expect("bfen");
    let mut game = BughouseGame::from_positions(fens.a.position, fens.b.position, rules);
    if let Err(m) = game.material_audit() {
        for (color, role, have, want) in m.differences {
            for _ in have..want {
                if role != Role::King {
                    game.board_mut(B).pockets_mut()[color].add(role);
                }
            }
        }
    }
    let config = InferConfig {
        ruleset: rules,
        ..InferConfig::default()
    };
    let mut t = Table::with(config, Some(game), ByBoard::default());
    t.lift(A, "b4").lift(A, "d2").put(A, "d2", 'B').press(A);
    assert_eq!(
        ends(&t),
        [(
            MatchResult::Won(Team::WhiteA),
            Some(EndReason::AllKings),
            Some(A)
        )]
    );
}

#[test]
fn nothing_is_recorded_after_the_end_and_a_new_game_starts_when_both_boards_are_set_up() {
    let mut t = table(RulesetName::Fide);
    white_b_flags(&mut t);
    let recorded = t.moves();
    // Board A plays on after the end: not part of the game, and no alert either.
    let alerts = t.out.len();
    t.lift(A, "g1").put(A, "f3", 'N').press(A);
    t.lift(A, "b8").put(A, "c6", 'n').press(A);
    assert_eq!(t.moves(), recorded);
    assert!(
        !t.out[alerts..]
            .iter()
            .any(|i| matches!(i, Inference::Move { .. } | Inference::Alert(_))),
        "{:?}",
        &t.out[alerts..]
    );
    // Both boards set up again: a new game.
    for (from, to, p) in [("c6", "b8", 'n'), ("f3", "g1", 'N')] {
        t.lift(A, from).put(A, to, p);
    }
    for (from, to, p) in [("e4", "e2", 'P'), ("e5", "e7", 'p')] {
        t.lift(A, from).put(A, to, p);
    }
    for (from, to, p) in [("d4", "d2", 'P'), ("d5", "d7", 'p')] {
        t.lift(B, from).put(B, to, p);
    }
    assert!(t.out.iter().any(|i| matches!(i, Inference::NewGame { .. })));
    assert!(t.inf.record().is_empty());
}

#[test]
fn a_result_for_an_ended_game_needs_correct_and_is_then_a_correction() {
    let mut t = table(RulesetName::Fide);
    white_b_flags(&mut t);
    let second = result_action(
        MatchResult::Won(Team::BlackA),
        EndReason::Resignation,
        false,
    );
    let refused = t.inf.check_action(t.t, &second).unwrap_err();
    assert_eq!(refused.field, "correct");
    // Fed anyway (an old journal): it changes nothing.
    t.feed(SensorEvent::Operator(second));
    assert_eq!(ends(&t).len(), 1);
    let correction = result_action(MatchResult::Won(Team::BlackA), EndReason::Resignation, true);
    assert_eq!(t.inf.check_action(t.t, &correction), Ok(()));
    t.feed(SensorEvent::Operator(correction));
    assert!(t.out.iter().any(|i| matches!(
        i,
        Inference::ResultCorrection {
            result: MatchResult::Won(Team::BlackA),
            reason: Some(EndReason::Resignation),
            ..
        }
    )));
    assert_eq!(ends(&t).len(), 1, "a correction is no second end");
}

#[test]
fn refused_actions_name_the_field_at_fault() {
    let mut t = table(RulesetName::Fide);
    t.play(A, "e2e4").play(A, "e7e5");
    let check = |t: &Table, op: OperatorAction| t.inf.check_action(t.t, &op).map_err(|r| r.field);
    // Reasons that do not exist, or do not fit the result or the ruleset.
    let no_reason = OperatorAction::Result {
        result: MatchResult::Draw,
        reason: None,
        correct: false,
    };
    assert_eq!(check(&t, no_reason), Err("reason"));
    assert_eq!(
        check(
            &t,
            result_action(MatchResult::Draw, EndReason::Resignation, false)
        ),
        Err("result")
    );
    assert_eq!(
        check(
            &t,
            result_action(MatchResult::Won(Team::WhiteA), EndReason::AllKings, false)
        ),
        Err("reason")
    );
    assert_eq!(
        check(
            &t,
            result_action(MatchResult::Unfinished, EndReason::Aborted, false)
        ),
        Err("result")
    );
    // Moves that do not exist.
    let replace = |board, number, side, san: &str| OperatorAction::Replace {
        board,
        number,
        side,
        san: san.to_owned(),
    };
    assert_eq!(check(&t, replace(A, 7, Color::White, "d4")), Err("number"));
    assert_eq!(check(&t, replace(B, 1, Color::White, "d4")), Err("number"));
    assert_eq!(check(&t, replace(A, 1, Color::White, "xx")), Err("san"));
    // A replacement no piece can make, and one that is illegal.
    assert_eq!(check(&t, replace(A, 1, Color::White, "Qh5")), Err("san"));
    assert_eq!(check(&t, replace(A, 1, Color::White, "d4")), Ok(()));
    let promotion = OperatorAction::Promotion {
        board: A,
        number: 1,
        side: Color::White,
        piece: Role::Knight,
    };
    assert_eq!(check(&t, promotion), Err("number"));
    // A fill for a board that had no link gap.
    let fill = OperatorAction::Fill {
        board: B,
        moves: vec!["d4".into()],
        first: None,
    };
    assert_eq!(check(&t, fill), Err("board"));
    // Under Koedem there are no draws.
    let k = table(RulesetName::Koedem);
    assert_eq!(
        check(
            &k,
            result_action(MatchResult::Draw, EndReason::DrawAgreement, false)
        ),
        Err("reason")
    );
    // Refusals change nothing.
    assert_eq!(t.moves(), ["A:e2e4", "A:e7e5"]);
}
