//! The BPGN of boards without a clock: no comment after their moves, one leading comment
//! that says so, and the file reads back (parser, replay, `check`).

use super::*;
use crate::infer::MoveFlags;
use crate::rules::notation::bpgn::{parse_bpgn, replay};
use crate::rules::{BughouseGame, Color, Legality, Ruleset};

/// The record of `moves` (board, SAN, clock), a move without a clock flagged `no_clock`
/// as the inference flags it.
fn record(moves: &[(BoardId, &str, Option<f64>)]) -> Vec<RecordEntry> {
    let mut game = BughouseGame::new(Ruleset::default());
    let mut numbers = crate::rules::ByBoard::<u32>::default();
    moves
        .iter()
        .enumerate()
        .map(|(i, &(board, san, clock))| {
            let pos = game.board(board);
            let side = pos.turn();
            let parsed: San = san.parse().unwrap_or_else(|e| panic!("{san}: {e}"));
            let mv = parsed.to_move(pos).unwrap_or_else(|e| panic!("{san}: {e}"));
            if side == Color::White {
                numbers[board] += 1;
            }
            let san = crate::rules::notation::san_string(pos, &mv);
            game.play(board, &mv, 0);
            RecordEntry {
                board,
                side,
                number: numbers[board],
                mv,
                san,
                clock,
                t: i as u64 * 1000,
                legality: Legality::Legal,
                flags: MoveFlags {
                    no_clock: clock.is_none(),
                    ..MoveFlags::default()
                },
                handoff: None,
            }
        })
        .collect()
}

fn written(moves: &[RecordEntry]) -> String {
    text(&MatchRecord {
        tags: vec![("Event".into(), "club night".into())],
        moves,
        ..MatchRecord::default()
    })
}

/// The movetext: every line after the blank line that ends the tags, joined.
fn movetext(bpgn: &str) -> String {
    let (_, moves) = bpgn.split_once("\n\n").expect("tags, then the moves");
    moves.split_whitespace().collect::<Vec<_>>().join(" ")
}

const A: BoardId = BoardId::A;
const B: BoardId = BoardId::B;

#[test]
fn a_clockless_board_s_moves_have_no_comment_and_a_clocked_board_keeps_its_times() {
    let moves = record(&[
        (A, "e4", Some(118.0)),
        (B, "d4", None),
        (A, "e5", Some(117.5)),
        (B, "d5", None),
        (A, "Nf3", Some(110.0)),
    ]);
    let text = written(&moves);
    assert_eq!(
        movetext(&text),
        "{C:board B had no clock} 1A. e4 {118} 1B. d4 1a. e5 {117.5} 1b. d5 2A. Nf3 {110} \
         {game unfinished} *",
        "{text}"
    );
}

#[test]
fn the_clockless_board_is_named_once_before_the_moves_and_reads_back() {
    let moves = record(&[
        (B, "e4", None),
        (A, "d4", None),
        (B, "e5", None),
        (A, "Nf6", None),
    ]);
    let text = written(&moves);
    assert_eq!(text.matches("no clock").count(), 1, "{text}");
    let games = parse_bpgn(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let game = &games[0];
    assert_eq!(
        game.preamble,
        [Annotation::Comment("C:boards A and B had no clock".into())]
    );
    assert!(game.moves.iter().all(|m| m.clock.is_none()));
    assert!(game.moves.iter().all(|m| m.annotations.is_empty()));
    let replayed = replay(game, Ruleset::default()).expect("it replays");
    assert_eq!(replayed.moves.len(), 4);
    assert_eq!(replayed.stop, None);
}

#[test]
fn check_reads_a_clockless_record() {
    let moves = record(&[
        (A, "e4", Some(118.0)),
        (B, "e4", None),
        (B, "e5", None),
        (A, "e5", Some(117.0)),
    ]);
    let dir = std::env::temp_dir().join(format!("bugbridge-clockless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("club.bpgn");
    std::fs::write(&path, written(&moves)).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = crate::check::run(
        std::slice::from_ref(&path),
        crate::rules::RulesetName::Fide,
        false,
        &mut out,
        &mut err,
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let out = String::from_utf8_lossy(&out);
    assert_eq!(status, 0, "{out}{}", String::from_utf8_lossy(&err));
    assert!(out.ends_with(": 4 plies, *\n"), "{out}");
}

#[test]
fn a_clock_lost_mid_game_is_said_with_the_first_move_without_it() {
    let moves = record(&[
        (A, "e4", Some(118.0)),
        (A, "e5", Some(119.0)),
        (A, "Nf3", None),
        (A, "Nc6", None),
        (B, "d4", Some(119.0)),
    ]);
    let text = written(&moves);
    assert!(
        movetext(&text)
            .starts_with("{C:board A had no clock at 2 of its 4 moves, from 2A.} 1A. e4 {118}"),
        "{text}"
    );
}

#[test]
fn a_game_with_clocks_has_no_leading_comment() {
    let moves = record(&[(A, "e4", Some(118.0)), (B, "e4", Some(117.0))]);
    assert_eq!(
        movetext(&written(&moves)),
        "1A. e4 {118} 1B. e4 {117} {game unfinished} *"
    );
    assert_eq!(clock_note(&[]), None);
}

#[test]
fn every_file_has_the_roster_a_time_control_a_variant_and_an_end_comment() {
    let moves = record(&[(A, "e4", Some(178.4)), (B, "d4", Some(179.0))]);
    let text = text(&MatchRecord {
        moves: &moves,
        ..MatchRecord::default()
    });
    for tag in [
        "[Event \"Bughouse match\"]",
        "[Site \"?\"]",
        "[Date \"????.??.??\"]",
        "[Round \"?\"]",
        "[WhiteA \"?\"]",
        "[BlackA \"?\"]",
        "[WhiteB \"?\"]",
        "[BlackB \"?\"]",
        "[TimeControl \"180+0\"]",
        "[Variant \"Bughouse\"]",
        "[Result \"*\"]",
    ] {
        assert!(text.contains(tag), "{tag} in {text}");
    }
    assert!(text.ends_with("{game unfinished} *\n"), "{text}");
}

#[test]
fn notes_are_one_c_comment_after_the_clock_and_an_illegal_move_is_marked() {
    let mut moves = record(&[(A, "e4", Some(178.0)), (A, "e5", Some(177.0))]);
    moves[0].flags.gap_inferred = true;
    moves[0].flags.time_estimated = true;
    moves[1].legality = Legality::Illegal(crate::rules::IllegalReason::LeavesKingInCheck);
    let text = written(&moves);
    assert_eq!(
        movetext(&text),
        "1A. e4 {178} {C:reconstructed after a lost connection; time estimated from the \
         clocks} 1a. e5 {177} {C:illegal: leaves-king-in-check; arbiter alerted} \
         {game unfinished} *",
        "{text}"
    );
    // Never a line break inside a comment.
    for line in text.lines() {
        assert_eq!(
            line.matches('{').count(),
            line.matches('}').count(),
            "{line}"
        );
    }
    let game = &parse_bpgn(&text).unwrap()[0];
    assert_eq!(game.moves[0].clock, Some(178.0));
}

#[test]
fn koedem_files_carry_bughouse_pro_s_promotion_tag() {
    let moves = record(&[(A, "e4", Some(178.0))]);
    for (given, want) in [(None, "Steal"), (Some("announce"), "Upgrade")] {
        let mut tags = vec![("Variant".to_owned(), "Bughouse Koedem".to_owned())];
        if let Some(g) = given {
            tags.push(("Promotion".into(), g.into()));
        }
        let text = text(&MatchRecord {
            tags,
            moves: &moves,
            ..MatchRecord::default()
        });
        assert!(text.contains(&format!("[Promotion \"{want}\"]")), "{text}");
    }
}

#[test]
fn a_last_move_without_a_clock_has_no_end_comment() {
    let moves = record(&[(A, "e4", Some(118.0)), (B, "d4", None)]);
    assert_eq!(
        movetext(&written(&moves)),
        "{C:board B had no clock} 1A. e4 {118} 1B. d4 *"
    );
}
