//! One test per rule of `rules.md` and per ruleset difference.

use bugbridge::rules::notation::parse_board_fen;
use bugbridge::rules::{
    BoardId, BughouseGame, Color, EndReason, GameEnd, IllegalReason, Legality, MatchResult, Move,
    Piece, Position, Problems, Role, Ruleset, RulesetName, Seat, Square, Team,
};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn pos(fen: &str, rules: RulesetName) -> Position {
    parse_board_fen(fen, rules.ruleset())
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .position
}

/// A move from `from` to `to` as the sensors would see it (role from the board).
fn normal(p: &Position, from: &str, to: &str) -> Move {
    Move::Normal {
        role: p.board().role_at(sq(from)).unwrap_or(Role::Pawn),
        from: sq(from),
        capture: None,
        to: sq(to),
        promotion: None,
    }
}

fn promote(from: &str, to: &str, role: Role) -> Move {
    Move::Normal {
        role: Role::Pawn,
        from: sq(from),
        capture: None,
        to: sq(to),
        promotion: Some(role),
    }
}

fn drop(piece: char, to: &str) -> Move {
    Move::Drop {
        piece: Piece::from_char(piece).unwrap(),
        to: sq(to),
    }
}

fn castle(king: &str, rook: &str) -> Move {
    Move::Castle {
        king: sq(king),
        rook: sq(rook),
    }
}

fn illegal(reason: IllegalReason) -> Legality {
    Legality::Illegal(reason)
}

// ---- §2 moves and drops -------------------------------------------------------------------

#[test]
fn capture_goes_to_the_partner_in_the_partners_colour() {
    let mut game = BughouseGame::new(Ruleset::default());
    for (b, m) in [("e2", "e4"), ("d7", "d5")] {
        let mv = normal(game.board(BoardId::A), b, m);
        game.play(BoardId::A, &mv, 0);
    }
    let exd5 = normal(game.board(BoardId::A), "e4", "d5");
    let out = game.play(BoardId::A, &exd5, 0);
    assert_eq!(
        out.handoff,
        Some((Seat::new(BoardId::B, Color::Black), Role::Pawn))
    );
    assert_eq!(game.board(BoardId::B).pockets().black.count(Role::Pawn), 1);
    assert!(game.board(BoardId::A).pockets().white.is_empty());
    assert!(game.material_audit().is_ok());
}

#[test]
fn promoted_piece_captured_goes_to_the_partner_as_a_pawn() {
    // White's queen on b7 is a promoted pawn; Black's king takes it.
    let mut a = pos("1k6/1Q~6/8/8/8/8/8/K7 b - - 60 60", RulesetName::Fide);
    assert!(a.promoted().contains(sq("b7")));
    let b = Position::new(Ruleset::default());
    let mut game = BughouseGame::from_positions(a.clone(), b, Ruleset::default());
    let kxb7 = normal(&a, "b8", "b7");
    let out = game.play(BoardId::A, &kxb7, 0);
    assert_eq!(out.captured.map(|c| c.handoff_role()), Some(Role::Pawn));
    assert_eq!(game.board(BoardId::B).pockets().white.count(Role::Pawn), 1);
    assert_eq!(game.board(BoardId::B).pockets().white.count(Role::Queen), 0);
    // The same capture on the board alone reports the queen as it stood.
    let played = a.play(&kxb7);
    assert_eq!(played.captured.map(|c| c.piece.role), Some(Role::Queen));
}

#[test]
fn drop_from_holdings_on_an_empty_square_is_legal_and_takes_it_from_the_pocket() {
    let mut p = pos("4k3/8/8/8/8/8/8/4K3/N w - - 60 60", RulesetName::Fide);
    assert_eq!(p.classify(&drop('N', "f3")), Legality::Legal);
    p.play(&drop('N', "f3"));
    assert!(p.pockets().white.is_empty());
    assert_eq!(p.board().piece_at(sq("f3")), Piece::from_char('N'));
    assert_eq!(p.turn(), Color::Black);
}

#[test]
fn drop_not_in_hand_is_illegal_but_played() {
    let mut p = pos("4k3/8/8/8/8/8/8/4K3 w - - 60 60", RulesetName::Fide);
    assert_eq!(
        p.classify(&drop('N', "f3")),
        illegal(IllegalReason::DropNotInHand)
    );
    p.play(&drop('N', "f3"));
    assert_eq!(p.board().piece_at(sq("f3")), Piece::from_char('N'));
    assert_eq!(p.problems(), Problems::default());
}

#[test]
fn pawn_drop_on_the_back_rank_is_illegal_and_representable() {
    let mut p = pos("4k3/8/8/8/8/8/8/4K3/P w - - 60 60", RulesetName::Fide);
    assert_eq!(
        p.classify(&drop('P', "a8")),
        illegal(IllegalReason::PawnDropBackRank)
    );
    assert_eq!(
        p.classify(&drop('P', "a1")),
        illegal(IllegalReason::PawnDropBackRank)
    );
    assert_eq!(p.classify(&drop('P', "a7")), Legality::Legal);
    p.play(&drop('P', "a8"));
    assert!(p.problems().contains(Problems::PAWN_ON_BACKRANK));
    // The game goes on from there: Black has moves.
    assert!(!p.legal_moves().is_empty());
}

#[test]
fn drop_that_blocks_a_check_is_legal_elsewhere_leaves_the_king_in_check() {
    let p = pos("4k3/8/8/8/8/8/8/r3K3/B w - - 60 60", RulesetName::Fide);
    assert!(p.is_check());
    assert_eq!(p.classify(&drop('B', "c1")), Legality::Legal);
    assert_eq!(
        p.classify(&drop('B', "c3")),
        illegal(IllegalReason::LeavesKingInCheck)
    );
}

#[test]
fn dropped_pawn_on_its_second_rank_may_double_step_and_be_taken_en_passant() {
    let mut p = pos("4k3/8/8/8/3p4/8/8/4K3/P w - - 60 60", RulesetName::Fide);
    p.play(&drop('P', "e2"));
    p.play(&normal(&p, "e8", "d8"));
    assert_eq!(p.classify(&normal(&p, "e2", "e4")), Legality::Legal);
    p.play(&normal(&p, "e2", "e4"));
    assert_eq!(p.ep_square(), Some(sq("e3")));
    let ep = Move::EnPassant {
        from: sq("d4"),
        to: sq("e3"),
    };
    assert!(p.legal_moves().contains(&ep));
    let played = p.play(&normal(&p, "d4", "e3"));
    assert_eq!(played.captured.map(|c| c.square), Some(sq("e4")));
}

#[test]
fn dropped_rook_may_castle_under_fide_but_not_under_wbn() {
    // The h1 rook was captured earlier (no K right); White's king never moved (Q right kept).
    for (ruleset, may) in [(RulesetName::Fide, true), (RulesetName::Wbn, false)] {
        let mut p = pos("4k3/8/8/8/8/8/8/R3K3/R w Q - 60 60", ruleset);
        p.play(&drop('R', "h1"));
        p.play(&normal(&p, "e8", "d8"));
        let expected = if may {
            Legality::Legal
        } else {
            illegal(IllegalReason::CastlingNotAllowed)
        };
        assert_eq!(p.classify(&castle("e1", "h1")), expected, "{ruleset}");
        assert_eq!(
            p.classify(&castle("e1", "a1")),
            Legality::Legal,
            "{ruleset}"
        );
    }
}

#[test]
fn dropped_rook_does_not_castle_with_a_king_that_moved() {
    let mut p = pos("4k3/8/8/8/8/8/8/4K3/R w - - 60 60", RulesetName::Fide);
    p.play(&drop('R', "h1"));
    p.play(&normal(&p, "e8", "d8"));
    assert_eq!(
        p.classify(&castle("e1", "h1")),
        illegal(IllegalReason::CastlingNotAllowed)
    );
}

#[test]
fn promotion_pieces_follow_the_ruleset() {
    for (ruleset, rook_ok) in [(RulesetName::Fide, true), (RulesetName::Wbn, false)] {
        let p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 60 60", ruleset);
        assert_eq!(
            p.classify(&promote("a7", "a8", Role::Knight)),
            Legality::Legal
        );
        assert_eq!(
            p.classify(&promote("a7", "a8", Role::Queen)),
            Legality::Legal
        );
        let rook = p.classify(&promote("a7", "a8", Role::Rook));
        if rook_ok {
            assert_eq!(rook, Legality::Legal);
        } else {
            assert_eq!(rook, illegal(IllegalReason::BadPromotion));
        }
        let promotions = p
            .legal_moves()
            .iter()
            .filter(|m| m.promotion().is_some())
            .count();
        assert_eq!(promotions, if rook_ok { 4 } else { 2 });
    }
}

#[test]
fn a_pawn_reaching_the_last_rank_without_a_declaration_is_a_queen() {
    let mut p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 60 60", RulesetName::Fide);
    let plain = normal(&p, "a7", "a8");
    assert_eq!(p.classify(&plain), Legality::Legal);
    p.play(&plain);
    assert_eq!(p.board().piece_at(sq("a8")), Piece::from_char('Q'));
    assert!(p.promoted().contains(sq("a8")));
}

// ---- §3 check, mate, stalemate -----------------------------------------------------------

#[test]
fn a_check_blockable_with_a_potential_piece_is_not_mate() {
    // Back-rank "mate" by a rook: in chess it is mate, in bughouse a piece could be dropped.
    let p = pos("R5k1/5ppp/8/8/8/8/8/4K3 b - - 60 60", RulesetName::Fide);
    assert!(p.is_check());
    assert!(p.legal_moves().is_empty());
    assert!(!p.is_checkmate());
    assert!(p.must_wait());
}

#[test]
fn contact_check_with_no_escape_is_mate() {
    let p = pos("6k1/5pQp/5Pp1/8/8/8/8/4K3 b - - 60 60", RulesetName::Fide);
    assert!(p.is_check());
    assert!(p.is_checkmate());
}

#[test]
fn knight_check_cannot_be_blocked_so_it_mates() {
    let p = pos("6rk/5Npp/8/8/8/8/8/4K3 b - - 60 60", RulesetName::Fide);
    assert!(p.is_checkmate());
}

#[test]
fn check_is_mate_when_every_piece_of_the_needed_kind_is_already_on_the_board() {
    // A rook check along the back rank: the blocking squares b8, c8, d8 take only pieces
    // (a pawn may not be dropped there), and Black has all four knights, four bishops,
    // four rooks and both queens of the match's two sets on this board already, none
    // able to help. Nothing can come: mate.
    let all_on_board = "R3k3/3ppp2/8/K7/7q/6rq/4b1rr/bbbnnnnr b - - 60 60";
    let p = pos(all_on_board, RulesetName::Fide);
    assert!(p.is_check());
    assert!(p.legal_moves().is_empty(), "{:?}", p.legal_moves());
    assert!(p.is_checkmate());
    // With one knight fewer on the board, a knight could still come: not mate, he waits.
    let one_knight_missing = "R3k3/3ppp2/8/K7/7q/6rq/4b1rr/bbbnnn1r b - - 60 60";
    let p = pos(one_knight_missing, RulesetName::Fide);
    assert!(p.legal_moves().is_empty(), "{:?}", p.legal_moves());
    assert!(!p.is_checkmate());
    assert!(p.must_wait());
    // The pieces of one set on the board are not all of them: those of the other set may
    // still be captured on the other board and passed. A distance check that a drop
    // could block (the fool's mate) is no mate in bughouse.
    let one_set = "R3k3/3ppp2/8/K7/7q/7b/5bnr/6nr b - - 60 60";
    let p = pos(one_set, RulesetName::Fide);
    assert!(p.legal_moves().is_empty(), "{:?}", p.legal_moves());
    assert!(!p.is_checkmate());
    let fools = pos(
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 60 60",
        RulesetName::Fide,
    );
    assert!(fools.is_check() && !fools.is_checkmate());
}

#[test]
fn no_stalemate_the_player_waits() {
    let p = pos("k7/2Q5/1K6/8/8/8/8/8 b - - 60 60", RulesetName::Fide);
    assert!(!p.is_check());
    assert!(p.legal_moves().is_empty());
    assert!(!p.is_checkmate());
    assert!(p.must_wait());
}

#[test]
fn mate_on_a_board_ends_the_match_for_the_team() {
    let a = pos("6k1/5p1p/5PpQ/8/8/8/8/4K3 w - - 60 60", RulesetName::Fide);
    let mut game =
        BughouseGame::from_positions(a, Position::new(Ruleset::default()), Ruleset::default());
    let qg7 = normal(game.board(BoardId::A), "h6", "g7");
    let out = game.play(BoardId::A, &qg7, 5_000);
    let end = out.end.expect("mate");
    assert_eq!(end.reason, EndReason::Checkmate);
    assert_eq!(end.result, MatchResult::Won(Team::WhiteA));
    assert_eq!(end.loser, Some(Seat::new(BoardId::A, Color::Black)));
    assert_eq!(game.result().as_str(), "1-0");
}

#[test]
fn mate_on_board_b_by_white_is_a_win_for_black_a_team() {
    let b = pos("6k1/5p1p/5PpQ/8/8/8/8/4K3 w - - 60 60", RulesetName::Fide);
    let mut game =
        BughouseGame::from_positions(Position::new(Ruleset::default()), b, Ruleset::default());
    let qg7 = normal(game.board(BoardId::B), "h6", "g7");
    let end = game.play(BoardId::B, &qg7, 0).end.expect("mate");
    assert_eq!(end.result.as_str(), "0-1");
}

// ---- §1 the match: first end decides, simultaneous ends ----------------------------------

fn mate_in_one_both_boards() -> BughouseGame {
    let mate_ready = "6k1/5p1p/5PpQ/8/8/8/8/4K3 w - - 60 60";
    BughouseGame::from_positions(
        pos(mate_ready, RulesetName::Fide),
        pos(mate_ready, RulesetName::Fide),
        Ruleset::default(),
    )
}

#[test]
fn the_first_game_to_end_decides_the_match() {
    let mut game = mate_in_one_both_boards();
    let qg7 = normal(game.board(BoardId::A), "h6", "g7");
    game.play(BoardId::A, &qg7, 1_000);
    let later = game.play(BoardId::B, &qg7, 60_000);
    assert_eq!(later.end, None);
    assert_eq!(game.result(), MatchResult::Won(Team::WhiteA));
    assert_eq!(game.end().map(|e| e.board), Some(Some(BoardId::A)));
}

#[test]
fn simultaneous_ends_by_different_teams_draw_the_match() {
    let mut game = mate_in_one_both_boards();
    let qg7 = normal(game.board(BoardId::A), "h6", "g7");
    game.play(BoardId::A, &qg7, 1_000);
    // White on B belongs to the other team; mate within the window.
    let end = game
        .play(BoardId::B, &qg7, 1_400)
        .end
        .expect("simultaneous");
    assert_eq!(end.reason, EndReason::Simultaneous);
    assert_eq!(end.result, MatchResult::Draw);
}

#[test]
fn simultaneous_ends_won_by_the_same_team_give_that_team_the_match() {
    let mut game = mate_in_one_both_boards();
    let qg7 = normal(game.board(BoardId::A), "h6", "g7");
    game.play(BoardId::A, &qg7, 1_000);
    let flag = game
        .flag(BoardId::B, Color::White, false, 1_200)
        .expect("simultaneous");
    assert_eq!(flag.reason, EndReason::Simultaneous);
    assert_eq!(flag.result, MatchResult::Won(Team::WhiteA));
}

#[test]
fn capture_then_mated_while_partner_mates_with_that_piece_is_a_draw() {
    // 000 §21: on A, White takes a knight (Qxe6) and is mated at once (Nf2#, smothered); on
    // B his partner (Black) drops that very knight to mate (N@f2#). The two ends count as
    // simultaneous: won by different teams, so the match is drawn.
    let a = pos("k7/8/4n3/8/8/3n4/4Q1PP/6RK w - - 60 60", RulesetName::Fide);
    let b = pos("k7/8/8/8/8/8/6PP/6RK b - - 60 60", RulesetName::Fide);
    let mut game = BughouseGame::from_positions(a, b, Ruleset::default());
    let qxe6 = normal(game.board(BoardId::A), "e2", "e6");
    let out = game.play(BoardId::A, &qxe6, 100);
    assert_eq!(
        out.handoff,
        Some((Seat::new(BoardId::B, Color::Black), Role::Knight))
    );
    let mate_b = game.play(BoardId::B, &drop('n', "f2"), 900);
    assert_eq!(mate_b.legality, Legality::Legal);
    assert_eq!(
        mate_b.end.map(|e| e.result),
        Some(MatchResult::Won(Team::WhiteA))
    );
    let nf2 = normal(game.board(BoardId::A), "d3", "f2");
    let end = game
        .play(BoardId::A, &nf2, 1_000)
        .end
        .expect("simultaneous");
    assert_eq!(
        (end.reason, end.result),
        (EndReason::Simultaneous, MatchResult::Draw)
    );
    assert_eq!(game.result(), MatchResult::Draw);
}

#[test]
fn an_end_recorded_by_the_arbiter_after_a_mate_on_the_other_board_is_simultaneous() {
    let mut game = mate_in_one_both_boards();
    let qg7 = normal(game.board(BoardId::A), "h6", "g7");
    game.play(BoardId::A, &qg7, 1_000);
    let end = game.record_end(GameEnd {
        board: Some(BoardId::B),
        result: MatchResult::Won(Team::BlackA),
        reason: EndReason::Resignation,
        loser: Some(Seat::new(BoardId::B, Color::Black)),
        t: Some(1_500),
    });
    assert_eq!(
        end.map(|e| (e.reason, e.result)),
        Some((EndReason::Simultaneous, MatchResult::Draw))
    );
}

#[test]
fn a_flag_fall_loses_and_both_flags_draw_that_game() {
    let mut game = BughouseGame::new(Ruleset::default());
    let end = game.flag(BoardId::B, Color::Black, false, 9_000).unwrap();
    assert_eq!(end.reason, EndReason::FlagFall);
    assert_eq!(end.result.as_str(), "0-1"); // Black on B is WhiteA's partner
    let mut game = BughouseGame::new(Ruleset::default());
    let end = game.flag(BoardId::A, Color::White, true, 9_000).unwrap();
    assert_eq!(
        (end.reason, end.result),
        (EndReason::BothFlags, MatchResult::Draw)
    );
    let mut koedem = BughouseGame::new(RulesetName::Koedem.ruleset());
    assert_eq!(koedem.flag(BoardId::A, Color::White, true, 9_000), None);
}

// ---- §4 repetition ----------------------------------------------------------------------

fn shuffle_knights(game: &mut BughouseGame, times: usize) {
    for _ in 0..times {
        for (f, t) in [("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8")] {
            let m = normal(game.board(BoardId::A), f, t);
            game.play(BoardId::A, &m, 0);
        }
    }
}

#[test]
fn repetition_counts_follow_the_ruleset() {
    // After n shuffles the start position has occurred n + 1 times.
    for (ruleset, needed) in [
        (RulesetName::Fide, 4usize),
        (RulesetName::Tournament, 5),
        (RulesetName::Wbn, 3),
    ] {
        let mut game = BughouseGame::new(ruleset.ruleset());
        shuffle_knights(&mut game, needed - 2);
        assert!(!game.repetition_claim_valid(BoardId::A), "{ruleset}");
        shuffle_knights(&mut game, 1);
        assert_eq!(game.repetitions(BoardId::A), needed);
        assert!(game.repetition_claim_valid(BoardId::A), "{ruleset}");
    }
    for ruleset in [RulesetName::Uscf2006, RulesetName::Koedem] {
        let mut game = BughouseGame::new(ruleset.ruleset());
        shuffle_knights(&mut game, 6);
        assert!(!game.repetition_claim_valid(BoardId::A), "{ruleset}");
    }
}

#[test]
fn a_drop_restarts_the_count_only_under_the_tournament_rules() {
    // D = Black to move, White's knight home on g1, Black's on f6: it occurs once per
    // shuffle. Then White's knight leaves the board (taken on the other side of the table
    // in real play) and is dropped back on g1: D again, but reached by a drop.
    for (ruleset, expected) in [(RulesetName::Tournament, 1), (RulesetName::Fide, 3)] {
        let mut game = BughouseGame::new(ruleset.ruleset());
        shuffle_knights(&mut game, 2);
        for (f, t) in [("g1", "f3"), ("g8", "f6")] {
            let m = normal(game.board(BoardId::A), f, t);
            game.play(BoardId::A, &m, 0);
        }
        game.board_mut(BoardId::A).remove_piece_at(sq("f3"));
        game.board_mut(BoardId::A)
            .pockets_mut()
            .white
            .add(Role::Knight);
        game.play(BoardId::A, &drop('N', "g1"), 0);
        assert_eq!(game.repetitions(BoardId::A), expected, "{ruleset}");
    }
}

#[test]
fn holdings_are_not_part_of_the_repeated_position() {
    let mut game = BughouseGame::new(Ruleset::default());
    shuffle_knights(&mut game, 1);
    game.board_mut(BoardId::A)
        .pockets_mut()
        .white
        .add(Role::Queen);
    shuffle_knights(&mut game, 1);
    assert_eq!(game.repetitions(BoardId::A), 3);
}

// ---- §5 illegal moves: classified, recorded, the game goes on ----------------------------

#[test]
fn every_illegal_reason_is_classified() {
    let start = Position::new(Ruleset::default());
    // out of turn: Black moves first.
    assert_eq!(
        start.classify(&normal(&start, "e7", "e5")),
        illegal(IllegalReason::OutOfTurn)
    );
    // bad piece movement: a knight moving like a bishop; a rook jumping.
    assert_eq!(
        start.classify(&normal(&start, "g1", "e3")),
        illegal(IllegalReason::BadPieceMovement)
    );
    assert_eq!(
        start.classify(&normal(&start, "a1", "a3")),
        illegal(IllegalReason::BadPieceMovement)
    );
    // castling not allowed: through pieces, and without the right.
    assert_eq!(
        start.classify(&castle("e1", "h1")),
        illegal(IllegalReason::CastlingNotAllowed)
    );
    let through_check = pos("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 60 60", RulesetName::Fide);
    assert_eq!(
        through_check.classify(&castle("e1", "h1")),
        illegal(IllegalReason::CastlingNotAllowed)
    );
    assert_eq!(through_check.classify(&castle("e1", "a1")), Legality::Legal);
    // leaves the king in check: a pinned piece moves.
    let pinned = pos("4k3/4r3/8/8/8/8/4N3/4K3 w - - 60 60", RulesetName::Fide);
    assert_eq!(
        pinned.classify(&normal(&pinned, "e2", "c3")),
        illegal(IllegalReason::LeavesKingInCheck)
    );
    // the king walks into check.
    assert_eq!(
        pinned.classify(&normal(&pinned, "e1", "e2")),
        Legality::Illegal(IllegalReason::BadPieceMovement)
    );
    let king_step = pos("4k3/3r4/8/8/8/8/8/4K3 w - - 60 60", RulesetName::Fide);
    assert_eq!(
        king_step.classify(&normal(&king_step, "e1", "d1")),
        illegal(IllegalReason::LeavesKingInCheck)
    );
}

#[test]
fn the_game_goes_on_from_the_position_after_an_illegal_move() {
    let mut game = BughouseGame::new(Ruleset::default());
    let e4 = normal(game.board(BoardId::A), "e2", "e4");
    game.play(BoardId::A, &e4, 0);
    game.play(BoardId::A, &normal(game.board(BoardId::A), "f7", "f6"), 0);
    game.play(BoardId::A, &normal(game.board(BoardId::A), "d1", "h5"), 0);
    // Black ignores the check: g8-h6 leaves the king in check, and is played.
    let nh6 = normal(game.board(BoardId::A), "g8", "h6");
    let out = game.play(BoardId::A, &nh6, 0);
    assert_eq!(out.legality, illegal(IllegalReason::LeavesKingInCheck));
    let a = game.board(BoardId::A);
    assert!(a.problems().contains(Problems::OPPOSITE_CHECK));
    // White may now take the king's side? The king is attacked: the queen can capture on e8.
    assert!(a.legal_moves().iter().any(|m| m.to() == sq("e8")));
}

#[test]
fn more_than_sixteen_pieces_and_two_kings_are_representable() {
    let mut p = pos(
        "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 60 60",
        RulesetName::Fide,
    );
    p.play(&drop('Q', "d4"));
    assert!(p.problems().contains(Problems::TOO_MANY_PIECES));
    let two_kings = pos("4k3/8/8/8/8/8/8/K3K3 w - - 60 60", RulesetName::Fide);
    assert!(two_kings.problems().contains(Problems::TOO_MANY_KINGS));
    let _ = two_kings.legal_moves();
    let no_king = pos("8/8/8/8/8/8/8/4K3 b - - 60 60", RulesetName::Fide);
    assert!(no_king.problems().contains(Problems::MISSING_KING));
    assert!(no_king.legal_moves().is_empty());
}

#[test]
fn material_audit_finds_a_hidden_piece() {
    let mut game = BughouseGame::new(Ruleset::default());
    assert!(game.material_audit().is_ok());
    game.board_mut(BoardId::B).remove_piece_at(sq("d8"));
    let err = game.material_audit().unwrap_err();
    assert_eq!(err.differences, vec![(Color::Black, Role::Queen, 1, 2)]);
    assert!(err.to_string().contains("queen"));
}

// ---- §7 Koedem ---------------------------------------------------------------------------

#[test]
fn koedem_kings_can_be_captured_and_are_passed_to_the_partner() {
    let rules = RulesetName::Koedem.ruleset();
    let a = pos("4k3/8/8/8/8/8/8/4K2r b - - 60 60", RulesetName::Koedem);
    let mut game = BughouseGame::from_positions(a, Position::new(rules), rules);
    // Moving into check is not illegal when kings can be taken.
    let rxe1 = normal(game.board(BoardId::A), "h1", "e1");
    let out = game.play(BoardId::A, &rxe1, 0);
    assert_eq!(out.legality, Legality::Legal);
    assert_eq!(
        out.handoff,
        Some((Seat::new(BoardId::B, Color::White), Role::King))
    );
    // White on A has no pieces at all: he waits.
    assert!(
        game.board(BoardId::A)
            .board()
            .by_color(Color::White)
            .is_empty()
    );
    assert!(game.board(BoardId::A).legal_moves().is_empty());
    // White on B must drop the king as his next move.
    let b = game.board(BoardId::B);
    assert_eq!(
        b.classify(&normal(b, "e2", "e4")),
        illegal(IllegalReason::KingNotDropped)
    );
    assert_eq!(b.classify(&drop('K', "e4")), Legality::Legal);
    assert!(
        b.legal_moves()
            .iter()
            .all(|m| m.is_drop() && m.role() == Role::King)
    );
}

#[test]
fn koedem_ends_when_one_team_holds_all_four_kings() {
    let rules = RulesetName::Koedem.ruleset();
    // Team WhiteA already holds the black king of B in hand; WhiteA takes the black king on A.
    let a = pos("4k3/8/8/8/8/8/8/4K2R w - - 60 60", RulesetName::Koedem);
    let b = pos("8/8/8/8/8/8/8/4K3/k w - - 60 60", RulesetName::Koedem);
    let mut game = BughouseGame::from_positions(a, b, rules);
    // Black on B (WhiteA's partner) holds a king; WhiteA's team: white king on A, black king
    // in B's black pocket. Remaining: black king on A and white king on B.
    let rxe8 = normal(game.board(BoardId::A), "h1", "h8");
    game.play(BoardId::A, &rxe8, 0);
    assert_eq!(game.end(), None);
    let take_king = normal(game.board(BoardId::A), "h8", "e8");
    game.board_mut(BoardId::A).set_turn(Color::White);
    let out = game.play(BoardId::A, &take_king, 0);
    assert_eq!(
        out.end, None,
        "the white king on B is still the other team's"
    );
    // WhiteA's partner captures... give WhiteA's team the white king of B directly.
    game.board_mut(BoardId::B).remove_piece_at(sq("e1"));
    game.board_mut(BoardId::A)
        .pockets_mut()
        .white
        .add(Role::King);
    assert_eq!(game.team_with_all_kings(), Some(Team::WhiteA));
}

#[test]
fn koedem_grab_promotion_takes_a_piece_from_the_other_board() {
    let rules = RulesetName::Koedem.ruleset();
    let a = pos("4k3/P7/8/8/8/8/8/4K3 w - - 60 60", RulesetName::Koedem);
    let mut game = BughouseGame::from_positions(a, Position::new(rules), rules);
    let grab = promote("a7", "a8", Role::Queen);
    // A king cannot be grabbed; a queen of White on B can.
    assert_eq!(
        game.play_grab_promotion(BoardId::A, &promote("a7", "a8", Role::King), sq("e1"), 0)
            .unwrap_err(),
        IllegalReason::BadPromotion
    );
    game.play_grab_promotion(BoardId::A, &grab, sq("d1"), 0)
        .unwrap();
    assert_eq!(
        game.board(BoardId::A).board().piece_at(sq("a8")),
        Piece::from_char('Q')
    );
    assert!(!game.board(BoardId::A).promoted().contains(sq("a8")));
    assert_eq!(game.board(BoardId::B).board().piece_at(sq("d1")), None);
    assert_eq!(game.board(BoardId::B).pockets().white.count(Role::Pawn), 1);
}
