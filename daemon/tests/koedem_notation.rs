//! Koedem in notation and record: king captures (`Bxd6`), king drops (`K@e4`), grab
//! promotion as bughouse.pro writes it (`b8=Ra1`), the `Variant` tag, BFEN with kings in
//! hand and boards without a king, and `check` picking koedem from the tag.

use std::path::{Path, PathBuf};

use bugbridge::check;
use bugbridge::rules::notation::bfen::{parse_bfen, parse_board_fen, write_bfen};
use bugbridge::rules::notation::bpgn::{ReplayStop, parse_bpgn, replay, write_bpgn};
use bugbridge::rules::notation::{San, san_string};
use bugbridge::rules::{
    BoardId, ByBoard, Color, EndReason, IllegalReason, Legality, MatchResult, Move, Role, Ruleset,
    RulesetName, Square, Team,
};

fn koedem() -> Ruleset {
    RulesetName::Koedem.ruleset()
}

fn sample_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/koedem/all_cases.bpgn")
}

fn sample_text() -> String {
    std::fs::read_to_string(sample_path()).expect("sample file")
}

fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

#[test]
fn king_capture_is_written_and_read_like_any_capture() {
    let p = parse_board_fen("8/8/8/8/1B6/8/3k4/4K3 w - - 0 1", koedem())
        .expect("fen")
        .position;
    let bxd2: San = "Bxd2".parse().expect("san");
    let m = bxd2.to_move(&p).expect("king capture resolves");
    assert_eq!(m.capture(), Some(Role::King));
    assert!(p.is_legal(&m));
    assert_eq!(san_string(&p, &m), "Bxd2");
    // Moving into check is legal: the king may step next to the other king.
    let kd1 = "Kd1".parse::<San>().expect("san").to_move(&p).expect("ok");
    assert!(p.is_legal(&kd1));
}

#[test]
fn king_drop_is_forced_and_written_k_at() {
    let p = parse_board_fen("4k3/8/8/8/8/8/8/4K3/Kq w - - 0 1", koedem())
        .expect("fen")
        .position;
    let moves = p.legal_moves();
    assert!(!moves.is_empty());
    assert!(
        moves
            .iter()
            .all(|m| matches!(m, Move::Drop { piece, .. } if piece.role == Role::King)),
        "a player holding a king may only drop it"
    );
    let k_at_e4: San = "K@e4".parse().expect("san");
    let m = k_at_e4.to_move(&p).expect("resolves");
    assert_eq!(san_string(&p, &m), "K@e4");
    let step = "Kd1"
        .parse::<San>()
        .expect("san")
        .to_move(&p)
        .expect("physically possible");
    assert_eq!(
        p.classify(&step),
        Legality::Illegal(IllegalReason::KingNotDropped)
    );
}

#[test]
fn two_kings_of_one_colour_are_disambiguated() {
    // Two white kings that both reach d2.
    let p = parse_board_fen("4k3/8/8/8/8/8/8/2K1K3 w - - 0 1", koedem())
        .expect("fen")
        .position;
    let m = p
        .legal_moves()
        .into_iter()
        .find(|m| m.uci() == "c1d2")
        .expect("king step");
    assert_eq!(san_string(&p, &m), "Kcd2");
    let back = "Kcd2".parse::<San>().expect("san").to_move(&p).expect("ok");
    assert_eq!(back, m);
    assert_eq!(
        "Kd2".parse::<San>().expect("san").to_move(&p),
        Err(bugbridge::rules::notation::SanError::Ambiguous)
    );
}

#[test]
fn only_the_original_king_castles() {
    // The original king is taken on e1; a king dropped there later may not castle.
    let p = parse_board_fen("4k3/8/8/8/8/8/3q4/R3K2R b KQ - 0 1", koedem())
        .expect("fen")
        .position;
    let mut after = p.clone();
    let take = "Qxe1".parse::<San>().expect("san").to_move(&p).expect("ok");
    after.play(&take);
    assert!(after.castling_rights().is_empty());
    after.pockets_mut()[Color::White].add(Role::King);
    let drop = Move::Drop {
        piece: Role::King.of(Color::White),
        to: sq("e1"),
    };
    after.play(&drop);
    after.set_turn(Color::White);
    assert!(
        !after
            .legal_moves()
            .iter()
            .any(|m| matches!(m, Move::Castle { .. }))
    );
}

/// docs/perft-koedem.md: only the original king castles. A second king, dropped, walks
/// about while the original stays home: the rights stay (`4k3/8/8/8/8/8/8/4K2R/K w K -`:
/// K@d4 Kd8 Kc4 Ke8, then O-O is legal); the original king's own move takes them.
#[test]
fn a_dropped_second_kings_moves_leave_the_original_kings_castling_rights() {
    let mut p = parse_board_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1", koedem())
        .expect("fen")
        .position;
    p.pockets_mut()[Color::White].add(Role::King);
    for san in ["K@d4", "Kd8", "Kc4", "Ke8"] {
        let m = san.parse::<San>().expect("san").to_move(&p).expect(san);
        assert!(p.classify(&m).is_legal(), "{san}");
        p.play(&m);
    }
    assert!(p.castling_rights().contains(sq("h1")));
    let castle = "O-O".parse::<San>().expect("san").to_move(&p).expect("O-O");
    assert_eq!(p.classify(&castle), Legality::Legal);
    // The original king's own move loses them.
    let mut q = p.clone();
    let step = "Kf1".parse::<San>().expect("san").to_move(&q).expect("Kf1");
    q.play(&step);
    assert!(q.castling_rights().is_empty());
}

#[test]
fn grab_san_reads_and_writes_with_the_grabbed_square() {
    for text in ["b8=Ra1", "dxe8=Qd1+", "a1=Nh8"] {
        let san: San = text.parse().expect("grab san");
        assert!(san.grab.is_some(), "{text}");
        assert_eq!(san.to_string(), text);
    }
    let plain: San = "e8=Q".parse().expect("san");
    assert_eq!(plain.grab, None);
    assert_eq!(plain.with_grab(Some(sq("d1"))).to_string(), "e8=Qd1");
}

#[test]
fn bfen_holds_kings_in_hand_and_boards_without_a_king() {
    let text = "1R6/8/3B4/8/8/8/8/4K3/K b - - 176.9 177.2 | 8/8/8/8/8/8/8/8/Pk w - - 175.5 174.2";
    let boards = parse_bfen(text, koedem()).expect("bfen");
    assert_eq!(
        boards.a.position.pockets()[Color::White].count(Role::King),
        1
    );
    assert_eq!(
        boards.b.position.pockets()[Color::Black].count(Role::King),
        1
    );
    assert!(boards.b.position.board().by_role(Role::King).is_empty());
    assert!(boards.a.position.board().kings(Color::Black).is_empty());
    let written = write_bfen(
        ByBoard {
            a: &boards.a.position,
            b: &boards.b.position,
        },
        ByBoard::new_with(|b| boards[b].times),
    );
    assert_eq!(written, text);
    assert_eq!(parse_bfen(&written, koedem()).expect("again"), boards);
}

#[test]
fn koedem_sample_replays_to_the_four_kings_end() {
    let games = parse_bpgn(&sample_text()).expect("sample parses");
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(game.tag("Variant"), Some("Bughouse Koedem"));
    let r = replay(game, koedem()).expect("setup");
    assert!(r.is_legal(), "{:?}", r.stop);
    // Every SAN is what the writer gives (grab square included).
    for m in &r.moves {
        assert_eq!(m.canonical_san, m.san_text, "{}", m.token);
    }
    // The grab: the rook left board B, the promoted rook on A is a real piece, White on B
    // received the pawn.
    let grab = &r.moves[0];
    assert_eq!(grab.mv.promotion(), Some(Role::Rook));
    assert!(
        grab.bfen.ends_with("| 4k3/8/8/8/8/8/8/4K3/P w - - 180 180"),
        "{}",
        grab.bfen
    );
    // The king captures went to the partners' hands.
    let bxd6 = &r.moves[4];
    assert_eq!(
        bxd6.outcome.captured.map(|c| c.piece.role),
        Some(Role::King)
    );
    let (partner, role) = bxd6.outcome.handoff.expect("handoff");
    assert_eq!(
        (partner.board, partner.color, role),
        (BoardId::B, Color::Black, Role::King)
    );
    let last = r.moves.last().expect("moves");
    let end = last.outcome.end.expect("the match ended");
    assert_eq!(end.reason, EndReason::AllKings);
    assert_eq!(end.result, MatchResult::Won(Team::WhiteA));
    assert_eq!(game.team_result(), MatchResult::Won(Team::WhiteA));
    assert_eq!(r.game.team_with_all_kings(), Some(Team::WhiteA));
}

#[test]
fn koedem_sample_reads_writes_reads_identically() {
    let games = parse_bpgn(&sample_text()).expect("sample parses");
    let written = write_bpgn(&games[0]);
    let again = parse_bpgn(&written).expect("written text parses");
    assert_eq!(again, games);
    assert_eq!(write_bpgn(&again[0]), written);
    assert!(written.contains("[Variant \"Bughouse Koedem\"]"));
    assert!(written.contains("1A. b8=Ra1+"));
    assert!(written.contains("K@e4+"));
    let before = replay(&games[0], koedem()).expect("replay");
    let after = replay(&again[0], koedem()).expect("replay");
    let bfens = |r: &bugbridge::rules::notation::bpgn::Replay| {
        r.moves.iter().map(|m| m.bfen.clone()).collect::<Vec<_>>()
    };
    assert_eq!(bfens(&before), bfens(&after));
}

#[test]
fn illegal_grabs_stop_the_replay_with_bad_promotion() {
    let sample = sample_text();
    // A king, an empty square, a piece of the wrong colour (e8 is Black's king on B; h8 is
    // empty; a black rook put on h1 by a changed setup).
    for (grab, setup_b) in [
        ("b8=Re1", "4k3/8/8/8/8/8/8/R3K3 w - - 180 180"),
        ("b8=Rh8", "4k3/8/8/8/8/8/8/R3K3 w - - 180 180"),
        ("b8=Rh1", "4k3/8/8/8/8/8/8/R3K2r w - - 180 180"),
    ] {
        let text = sample
            .replace("b8=Ra1", grab)
            .replace("4k3/8/8/8/8/8/8/R3K3 w - - 180 180", setup_b);
        let games = parse_bpgn(&text).expect("parses");
        let r = replay(&games[0], koedem()).expect("setup");
        match r.stop {
            Some(ReplayStop::Illegal { reason, index, .. }) => {
                assert_eq!(reason, IllegalReason::BadPromotion, "{grab}");
                assert_eq!(index, 0);
            }
            other => panic!("{grab}: {other:?}"),
        }
    }
    // Grabs are Koedem's: under fide the sample's grab is illegal.
    let games = parse_bpgn(&sample).expect("parses");
    let r = replay(&games[0], Ruleset::default()).expect("setup");
    assert_eq!(r.stop.map(|s| s.reason_code()), Some("bad-promotion"));
}

#[test]
fn check_picks_koedem_from_the_variant_tag() {
    let paths = [sample_path()];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(check::run_with(&paths, None, false, &mut out, &mut err), 0);
    let out = String::from_utf8(out).expect("utf-8");
    assert!(
        out.starts_with("ok ") && out.trim_end().ends_with("9 plies, 1-0"),
        "{out}"
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        check::run(&paths, RulesetName::Koedem, false, &mut out, &mut err),
        0
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        check::run(&paths, RulesetName::Fide, false, &mut out, &mut err),
        1
    );
    let out = String::from_utf8(out).expect("utf-8");
    assert!(out.contains("1A. b8=Ra1+: bad-promotion"), "{out}");
}
