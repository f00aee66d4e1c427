//! The arbiter answers a stalled occupancy-only board in one click (see
//! `support/stall_clicks.rs`): noisy random games, each stall alert that offers the board's
//! true next move clicked. Printed: the stall alerts, how many offered the truth, and the
//! boards whole before and after the clicks. The outside traces are clicked the same way in
//! `outside_occupancy.rs`.
//!
//! `cargo test` runs 12 games and three that once went wrong; `BUGBRIDGE_FULL=N cargo test
//! --release -p bugbridge --test occupancy_stall_clicks -- --nocapture` runs N. `CLICK_DEBUG="random N"` writes that
//! game's trace, with its clicks, to `/tmp/click-debug.trace.jsonl`.

// Shared with the round trips, which use more of them.
#[path = "support/occupancy.rs"]
#[allow(dead_code)]
mod occupancy;
#[path = "support/occupancy_judge.rs"]
#[allow(dead_code)]
mod occupancy_judge;
#[path = "support/stall_clicks.rs"]
mod stall_clicks;

use bugbridge::rules::{BoardId, ByBoard, Move, Ruleset};
use bugbridge::simulate::{Profile, random_game};
use occupancy::occupancy_snapshots;
use occupancy_judge::occupancy_trace;
use stall_clicks::Clicks;

#[test]
fn one_click_on_the_true_reading_of_a_stalled_board_takes_it_up_again() {
    // Random 146: a knight set straight onto its victim and the opponent's drop after
    // it, read once the board held still; the daemon's timer then made the drop final
    // before it handed the capture on (the drop recorded out of turn). Random 288: a
    // piece dropped in doubt long before (a rook, its placeholder a pawn) took backwards
    // after the arbiter's click; the placeholder, with a dozen after it, was not mended and
    // the capture was recorded as the opponent's move. Random 19: a pawn dropped in doubt
    // (a bishop or a pawn) promoted to a bishop; the click naming the bishop settled the
    // drop a bishop (the judge checks every kind the record settled). Random 39: a drop
    // handed on right after a move its placeholders made illegal (a queen's check that
    // was a bishop's move) was read with it and the move after in the order that made them
    // legal, the drop after that move (the feed now leaves the piece inference the time it
    // takes to make an illegal move final).
    let seeds: Vec<u64> = match std::env::var("BUGBRIDGE_FULL")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
    {
        Some(n) => (0..n).collect(),
        None => (0..12).chain([19, 39, 146, 288]).collect(),
    };
    let mut clicks = Clicks::default();
    for seed in seeds {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        let trace = occupancy_trace(
            ByBoard::new_with(|b| g.start.board(b).board().occupied().0),
            occupancy_snapshots(&g, Profile::Noisy, 7000 + seed),
        );
        let moves: Vec<(BoardId, Move)> = g.moves.iter().map(|m| (m.board, m.mv)).collect();
        clicks.play(&format!("random {seed}"), &g.start, &moves, trace, None);
    }
    clicks.check("random, noisy");
    // The games are legal: a drop read before the capture on a stalled board that supplied
    // it waits for that board's moves (`infer/unread.rs`) instead of an `illegal-move`
    // alert (before: 819 alerts over 300 games read alone, 10 since).
    assert!(
        clicks.illegal_alone * 20 <= clicks.boards,
        "{} illegal-move alerts over {} boards read alone",
        clicks.illegal_alone,
        clicks.boards
    );
    assert!(
        clicks.offered * 2 >= clicks.stalls,
        "{} of {} stall alerts offered the board's next move",
        clicks.offered,
        clicks.stalls
    );
}

/// Each move with its board, in the order made.
type Moves = Vec<(BoardId, Move)>;

/// Random game `seed`, noisy, played and clicked (see `Clicks::play`): the game's moves
/// and what the clicks did.
fn play(seed: u64) -> (Moves, Clicks) {
    let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
    let trace = occupancy_trace(
        ByBoard::new_with(|b| g.start.board(b).board().occupied().0),
        occupancy_snapshots(&g, Profile::Noisy, 7000 + seed),
    );
    let moves: Vec<(BoardId, Move)> = g.moves.iter().map(|m| (m.board, m.mv)).collect();
    let mut clicks = Clicks::default();
    clicks.play(&format!("random {seed}"), &g.start, &moves, trace, None);
    (moves, clicks)
}

/// The moves of `board` among `moves`, in order.
fn of_board(moves: &[(BoardId, Move)], board: BoardId) -> Vec<Move> {
    moves
        .iter()
        .filter(|(b, _)| *b == board)
        .map(|(_, m)| *m)
        .collect()
}

/// Random game `seed`, noisy, clicked, no record wrong: what the clicks did.
fn clicked(seed: u64) -> Clicks {
    let (_, mut clicks) = play(seed);
    clicks.check(&format!("random {seed}, noisy"));
    clicks
}

/// Random game `seed`, noisy, clicked: the label `clicked` must be among the choices
/// clicked, and no record wrong. Returns the game's moves and the record after the clicks.
fn clicked_in(seed: u64, clicked: &str) -> (Moves, Moves) {
    let (moves, mut clicks) = play(seed);
    assert!(
        clicks.clicked_labels.iter().any(|l| l == clicked),
        "{:?}\n{:#?}",
        clicks.clicked_labels,
        clicks.missed
    );
    clicks.check(&format!("random {seed}, noisy"));
    (moves, clicks.record)
}

#[test]
fn a_dropped_pawn_set_straight_onto_its_promotion_square_is_one_click_stating_its_kind() {
    // Random 23: White's piece on a7 (dropped in doubt, a pawn; the record's placeholder
    // another kind) is set straight onto the knight on b8: `25. axb8=N`, which no move of
    // the placeholder makes. The stall offers it as `25. axb8=N (a7 a pawn)`.
    clicked_in(23, "25. axb8=N (a7 a pawn)");
}

#[test]
fn a_drop_read_before_its_supply_takes_the_kind_the_records_hand_holds() {
    // Random 23: White on B drops a rook on d3 (read in doubt, the partner board stalled);
    // the record holds a rook in White's hand, and a pawn only in the feed's game, which
    // had let a pawn dropped earlier before its supply (B's `11. P@c5`) in the hand again
    // when board A's `10... Qxc4` was read. The placeholder took that pawn, and the record,
    // whose hand had no pawn, alerted `14. P@d3` as a premature drop.
    let g = random_game(23, 60 + (23 % 5) * 20, Ruleset::default());
    let trace = occupancy_trace(
        ByBoard::new_with(|b| g.start.board(b).board().occupied().0),
        occupancy_snapshots(&g, Profile::Noisy, 7023),
    );
    let moves: Vec<(BoardId, Move)> = g.moves.iter().map(|m| (m.board, m.mv)).collect();
    let mut clicks = Clicks::default();
    clicks.play("random 23", &g.start, &moves, trace, None);
    clicks.check("random 23, noisy");
    assert!(
        !clicks
            .illegal_details
            .iter()
            .any(|d| d.contains("premature-drop")),
        "{:#?}",
        clicks.illegal_details
    );
}

#[test]
fn drops_read_before_the_partner_boards_captures_are_legal_once_those_are_read() {
    // Random 0: Black on A drops on b4 and g4 while board B is stalled (the hand empty:
    // any kind, pawns the placeholders); B, taken up again, captures a knight and a rook
    // for him. The placeholders now take the kinds supplied instead of owing pawns for
    // good (two premature-drop alerts before). Random 12: White on B drops on a5 while
    // board A is stalled; the drop waited a minute for a capture the record's board A
    // seemed to show (its count of knights, a placeholder's kind), B's moves queued behind
    // it, and A's, read again meanwhile, went first: B's captures came after the drops
    // they had supplied (four alerts before).
    for seed in [0, 12] {
        let clicks = clicked(seed);
        assert_eq!(
            (clicks.illegal_alone, clicks.illegal_after),
            (0, 0),
            "random {seed}: {:#?}",
            clicks.illegal_details
        );
        assert_eq!(clicks.whole_after, 2, "random {seed}");
    }
}

#[test]
fn a_mate_found_among_pieces_of_open_kind_is_left_to_the_arbiter() {
    // Random 14 and 64: a move mates as the record's placeholders stand, and the players
    // go on (64: `34. Bxd7#` on A; random 484 showed it first, `21. Bxc6#`: the game ended
    // there, its result published, and the record of board B went wrong after it, its
    // moves no longer made final by stillness; its clicks now take another path, which
    // has no such mate). Random 20: `12... Bxf2#` mates, the game's end, but among pieces
    // whose kinds the board could not tell. Each is an `end-undetermined` alert offering
    // the result in one click, the game not ended.
    let mut unsure = Vec::new();
    for seed in [14, 64, 20] {
        let clicks = clicked(seed);
        assert_eq!(clicks.ends_true, 0, "random {seed}");
        unsure.push((clicks.ends_unsure, clicks.ends_unsure_true));
    }
    assert_eq!(unsure, [(1, 0), (1, 0), (1, 1)]);
}

#[test]
fn a_drop_of_a_kind_the_records_hand_lacks_is_one_click() {
    // Random 144: White on B drops a rook on a6 (in doubt: a knight or a rook; the record
    // carries the knight) and Black takes it, giving White on A the rook, who drops it on
    // c7 while that capture is not final, Black answering b7-b6 at once (with a knight on
    // c7 he would ignore a check). Only the hand's knight was offered: nothing fitted. Now
    // every kind that hand may hold is, and the click fits B's placeholder to the rook.
    let (game, record) = clicked_in(144, "7. R@c7");
    // Board A's 13th ply, `7. R@c7`, exactly.
    assert_eq!(
        of_board(&record, BoardId::A).get(12),
        of_board(&game, BoardId::A).get(12)
    );
}

#[test]
fn a_drop_entered_from_a_hand_in_doubt_leaves_only_the_capture_that_supplied_it() {
    // Random 625: White's knight on A is set straight onto d7 (a pawn) or a8 (a rook), and
    // board A is read side by side, one reading per victim. The arbiter enters B's
    // `10... P@c2`, a pawn the record's hand lacks (A's capture is not read). Each reading
    // took the drop from any kind, so the one of `Nxa8` lived on and was taken: board A's
    // record went wrong. A side-by-side reading takes it only from its own hand: `Nxa8`
    // gave a rook, and is dropped.
    let (game, record) = clicked_in(625, "10... P@c2");
    // Board A's 15th ply, `8. Nxd7`.
    assert_eq!(
        of_board(&record, BoardId::A).get(14),
        of_board(&game, BoardId::A).get(14)
    );
}

#[test]
fn a_dropped_pawn_promoting_on_a_look_alike_square_is_one_click_stating_its_kind() {
    // Random 163: White's piece on h7 (dropped in doubt, a pawn; the record's placeholder
    // a knight) is pushed to h8 and promotes to a bishop, a quiet move that reads like a
    // capture and Black's drop on h8: withheld, and said with the pawn's promotions.
    clicked_in(163, "30. h8=B (h7 a pawn)");
}

#[test]
fn a_look_alike_that_settled_its_pieces_kind_is_offered_as_that_kind() {
    // Random 124: White's piece on b3 (a drop in doubt, a bishop in the record) goes along
    // the file to b5, which settles it a queen in the reading; withheld as a look-alike, it
    // was offered only as the placeholder's impossible `Bb3b5`.
    clicked_in(124, "17. Qbb5 (b3 a queen)");
}

#[test]
fn a_dropped_pawn_that_promoted_to_what_its_drop_could_not_be_is_one_click_and_two_corrections() {
    // Random 14: White drops a pawn on g7 (in doubt: White holds a queen, a bishop and a
    // pawn; the record came to carry a bishop) and takes on h8, promoting to a rook: the
    // record's `Bxh8`. The rook then takes on g8, set straight onto its victim. Its kind
    // was offered only as the drop's kinds (a bishop, a queen): a rook only a promotion
    // makes. The click on `Rxg8 (h8 a rook)` settles the drop a pawn and the promotion a
    // rook.
    let (game, record) = clicked_in(14, "18. Rxg8 (h8 a rook)");
    let (game, record) = (of_board(&game, BoardId::B), of_board(&record, BoardId::B));
    // Board B's 31st and 33rd plies: `P@g7` and `gxh8=R`, exactly (kinds and all).
    for ply in [30, 32] {
        assert_eq!(record.get(ply), game.get(ply), "board B ply {ply}");
    }
}
