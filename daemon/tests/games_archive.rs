//! The recorded games the daemon serves (`/api/games`): positions computed from each BPGN
//! file with the rules core, checked against the replay that `check --positions` uses on
//! real games, past illegal moves, from set-up positions.

use std::path::{Path, PathBuf};

use bugbridge::app::archive::game_record;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge::rules::{Ruleset, RulesetName};
use bugbridge_broadcast::wire::{Board, Side};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bpgn")
}

fn rules() -> Ruleset {
    RulesetName::Fide.ruleset()
}

/// Every legal game of the corpus: the same BFEN after every move as the replay of
/// `check --positions`, the same start, every token, SAN and clock.
#[test]
fn positions_agree_with_the_replay_on_every_legal_corpus_game() {
    let mut checked = 0;
    for sub in std::fs::read_dir(data_dir()).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&sub).unwrap() {
            let file = file.unwrap().path();
            let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
            let game = &parse_bpgn(&text).unwrap()[0];
            let replayed = replay(game, rules()).unwrap();
            // Repeated export artefacts and illegal games are the replay's own business.
            if !replayed.is_legal() || !replayed.skipped.is_empty() {
                continue;
            }
            let record = game_record("t", 1, &text, rules()).unwrap();
            let name = file.display();
            assert_eq!(record.start_bfen, replayed.start_bfen, "{name}");
            assert_eq!(record.moves.len(), replayed.moves.len(), "{name}");
            assert_eq!(record.summary.plies as usize, game.moves.len(), "{name}");
            assert_eq!(record.incomplete, None, "{name}");
            for (ply, want) in record.moves.iter().zip(&replayed.moves) {
                let token = format!(
                    "{}{}.",
                    ply.number,
                    match (ply.board, ply.side) {
                        (Board::A, Side::White) => 'A',
                        (Board::A, Side::Black) => 'a',
                        (Board::B, Side::White) => 'B',
                        (Board::B, Side::Black) => 'b',
                    }
                );
                assert_eq!(token, want.token.to_string(), "{name}");
                assert_eq!(ply.san, want.san_text, "{name}");
                assert_eq!(ply.bfen, want.bfen, "{name} {token}");
                assert_eq!(ply.clock, game.moves[want.index].clock, "{name} {token}");
                assert_eq!(ply.to, want.mv.to().to_string(), "{name} {token}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "legal corpus games checked: {checked}");
}

#[test]
fn a_set_up_game_starts_from_its_bfen() {
    let path = data_dir().join("bpgn-standard-samples/VampireGod-Setup-BFEN-2002.bpgn");
    let text = std::fs::read_to_string(path).unwrap();
    let record = game_record("t", 3, &text, rules()).unwrap();
    let game = &parse_bpgn(&text).unwrap()[0];
    assert_eq!(record.start_bfen, replay(game, rules()).unwrap().start_bfen);
    assert!(record.start_bfen.starts_with("r1b1k1nr/ppp1qpPp/"));
    assert_eq!(record.moves[0].san, "Nxe7");
    assert_eq!(record.moves[0].board, Board::B);
    assert_eq!(record.summary.result, "1-0");
    assert_eq!(
        record.summary.players.A.white.as_deref(),
        Some("VampireGod")
    );
    assert_eq!(
        record.summary.players.B.black.as_deref(),
        Some("GuestGuest")
    );
    assert_eq!(record.summary.date.as_deref(), Some("2002.05.25"));
}

/// A completed illegal move stands at the table, so the positions go on past it: the drop
/// of a knight nobody holds is on the board in the next positions, and the game continues.
#[test]
fn positions_go_on_past_an_illegal_move() {
    let text = "[WhiteA \"Ann\"]\n[BlackA \"Bob\"]\n[TimeControl \"180+0\"]\n[Result \"0-1\"]\n\n\
        1A. e4 {179} 1a. e5 {178} 2A. N@f3 {175} 2a. Nc6 {170} 1B. d4 {177} 0-1\n";
    let record = game_record("club", 7, text, rules()).unwrap();
    assert_eq!(record.incomplete, None);
    assert_eq!(record.moves.len(), 5);
    let drop = &record.moves[2];
    assert_eq!(drop.drop.as_deref(), Some("N"));
    assert_eq!(drop.from, None);
    assert_eq!(drop.to, "f3");
    assert!(
        drop.bfen.starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/"),
        "{}",
        drop.bfen
    );
    let after = &record.moves[3];
    assert_eq!(after.from.as_deref(), Some("b8"));
    assert!(
        after.bfen.contains("5N2"),
        "the dropped knight stays: {}",
        after.bfen
    );
    // Times: each side's latest clock comment, the base time before the first.
    assert!(
        record.moves[4].bfen.ends_with(" b KQkq - 177 180"),
        "{}",
        record.moves[4].bfen
    );
    assert_eq!(record.summary.result, "0-1");
    assert_eq!(record.summary.plies, 5);
    assert_eq!(record.summary.number, 7);
    assert_eq!(record.summary.match_id, "club");
}

/// A SAN that names no move on its board ends the positions there, and says so: the list
/// still has the whole record's plies and the BPGN download is the whole file.
#[test]
fn a_move_that_cannot_be_played_ends_the_positions_and_says_where() {
    let text = "[Result \"*\"]\n\n1A. e4 1a. e5 2A. Qh8 2a. Nc6 *\n";
    let record = game_record("t", 1, text, rules()).unwrap();
    assert_eq!(record.moves.len(), 2);
    assert_eq!(record.summary.plies, 4);
    let why = record.incomplete.unwrap();
    assert!(why.contains("2A. Qh8"), "{why}");
}

#[test]
fn text_that_is_not_bpgn_is_refused_with_the_place() {
    let e = game_record("t", 1, "[Result \"*\"\n", rules()).unwrap_err();
    assert!(e.contains("line 2, column 1"), "{e}");
    assert!(game_record("t", 1, "", rules()).is_err());
}
