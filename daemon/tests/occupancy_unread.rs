//! A drop made while the partner's occupancy-only board (Sentio) is not read, through the
//! whole pipeline (a journal replayed into the record, as a restarted daemon replays it).
//!
//! On board A, White's knight takes the pawn on d5 with its victim lifted first and Black
//! drops a pawn where the knight stood: the board is back as it was, which also reads as
//! both pieces put back, so A stalls, its capture unread. Meanwhile, on board B, Black drops
//! the pawn that capture gave him. Nothing on the record supplies it yet: it is held pending
//! on A's moves, with no `illegal-move` alert (it is not known to be illegal). Once the
//! arbiter enters A's moves (`Nxd5 P@c3`), the drop follows the capture in the record and
//! is legal; a drop that A's moves do not supply is alerted as premature then. Left
//! unread, A leaves the drop pending to the end, flagged.

#[path = "support/sentio_journal.rs"]
mod sentio_journal;

use bugbridge::cli::replay::{Replayed, replay_text};
use bugbridge::infer::{AlertCode, CorrectionKind, Inference};
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge::rules::{BoardId, Ruleset};
use sentio_journal::{A_STALLS, Change, FILL_AT, assert_a_taken_up, journal, sans};

/// After A stalled: B: 3. Nc3, then Black drops on `drop` while A is stalled; after the
/// arbiter's entry (25 s), A: 3... e5 and B: 4. Nf3 (A's 4. Nf6 only ends the trace: a
/// board's last move is final once it has rested, and the trace ends before).
fn after(drop: &'static str) -> [Change; 9] {
    [
        (12_000, BoardId::B, "b1", false),
        (12_300, BoardId::B, "c3", true),
        (13_300, BoardId::B, drop, true),
        (30_000, BoardId::A, "e7", false),
        (30_300, BoardId::A, "e5", true),
        (31_000, BoardId::B, "g1", false),
        (31_300, BoardId::B, "f3", true),
        (40_000, BoardId::A, "g8", false),
        (40_300, BoardId::A, "f6", true),
    ]
}

/// The journal with Black's drop on B on `drop`, and the arbiter's entry when `fill`.
fn trace(drop: &'static str, fill: bool) -> String {
    journal(A_STALLS.into_iter().chain(after(drop)), fill)
}

fn illegal_alerts(replayed: &Replayed) -> Vec<String> {
    replayed
        .decisions
        .iter()
        .filter_map(|d| match d {
            Inference::Alert(a) if a.code == AlertCode::IllegalMove => Some(a.detail.clone()),
            _ => None,
        })
        .collect()
}

/// The record's index of `board`'s move `san`.
fn index_of(replayed: &Replayed, board: BoardId, san: &str) -> usize {
    replayed
        .game
        .record()
        .iter()
        .position(|e| e.board == board && e.san == san)
        .unwrap_or_else(|| panic!("{san} on {board} not recorded"))
}

#[test]
fn a_drop_supplied_by_a_stalled_boards_capture_follows_it_once_the_arbiter_enters_it() {
    let replayed = replay_text(&trace("e5", true), None).expect("the trace replays");
    assert_a_taken_up(&replayed);
    assert_eq!(
        sans(&replayed, BoardId::B),
        ["e4", "d5", "exd5", "Qxd5", "Nc3", "P@e5", "Nf3"]
    );
    assert_eq!(illegal_alerts(&replayed), Vec::<String>::new());
    // Recorded pending while A was not read, then put after the capture that supplied it.
    let pending = replayed.decisions.iter().any(|d| {
        matches!(d, Inference::Move { entry, .. }
            if entry.san == "P@e5" && entry.flags.unread_pending)
    });
    assert!(pending, "{:#?}", replayed.decisions);
    let supplied: Vec<_> = replayed
        .decisions
        .iter()
        .filter_map(|d| match d {
            Inference::Correction(c) if c.kind == CorrectionKind::Supplied => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(supplied.len(), 1, "{:#?}", replayed.decisions);
    assert_eq!(supplied[0].new_san, "P@e5");
    assert!(
        supplied[0].detail.contains("Nxd5"),
        "{}",
        supplied[0].detail
    );
    assert!(
        index_of(&replayed, BoardId::A, "Nxd5") < index_of(&replayed, BoardId::B, "P@e5"),
        "{:#?}",
        replayed.game.record()
    );
    let drop = &replayed.game.record()[index_of(&replayed, BoardId::B, "P@e5")];
    assert!(drop.legality.is_legal() && !drop.flags.unread_pending);
    // No piece counted twice: board B's hands are empty at the end (its one capture's
    // pawn went to A, the pawn A's capture gave Black was dropped).
    let bfen = replayed
        .decisions
        .iter()
        .rev()
        .find_map(|d| match d {
            Inference::Move { bfen, .. } => Some(bfen.clone()),
            _ => None,
        })
        .expect("moves");
    let b = bfen.split(" | ").nth(1).unwrap_or_default();
    let placement = b.split(' ').next().unwrap_or_default();
    assert_eq!(placement.matches('/').count(), 7, "{bfen}");
    // Other programs read the file whole, the drop after its supplier.
    let bpgn = replayed.game.bpgn();
    let parsed = parse_bpgn(&bpgn).unwrap_or_else(|e| panic!("{e}:\n{bpgn}"));
    let read = replay(&parsed[0], Ruleset::default()).expect("replays");
    assert!(read.stop.is_none(), "{:?}\n{bpgn}", read.stop);
    assert_eq!(read.moves.len(), 13, "{bpgn}");
}

#[test]
fn a_drop_the_stalled_boards_moves_do_not_supply_is_alerted_once_they_are_read() {
    // A knight on d8 (no pawn may stand there): A's moves give Black on B a pawn only.
    let replayed = replay_text(&trace("d8", true), None).expect("the trace replays");
    assert_eq!(
        sans(&replayed, BoardId::B),
        ["e4", "d5", "exd5", "Qxd5", "Nc3", "N@d8", "Nf3"],
        "{:#?}",
        replayed.decisions
    );
    let alerts = illegal_alerts(&replayed);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(
        alerts[0].contains("N@d8") && alerts[0].contains("premature-drop"),
        "{}",
        alerts[0]
    );
    // Said once A's moves were read and final, not while A was stalled.
    let said = replayed.decisions.iter().find_map(|d| match d {
        Inference::Alert(a) if a.code == AlertCode::IllegalMove => Some(a.t),
        _ => None,
    });
    assert!(said.is_some_and(|t| t > FILL_AT), "{said:?}");
}

#[test]
fn a_drop_pending_on_a_board_left_stalled_stays_pending_without_an_alert() {
    let replayed = replay_text(&trace("e5", false), None).expect("the trace replays");
    assert_eq!(sans(&replayed, BoardId::A), ["Nc3", "d5"]);
    assert_eq!(
        sans(&replayed, BoardId::B),
        ["e4", "d5", "exd5", "Qxd5", "Nc3", "P@e5", "Nf3"]
    );
    assert_eq!(illegal_alerts(&replayed), Vec::<String>::new());
    let drop = &replayed.game.record()[index_of(&replayed, BoardId::B, "P@e5")];
    assert!(
        drop.flags.names().contains(&"pending-on-unread"),
        "{drop:?}"
    );
}
