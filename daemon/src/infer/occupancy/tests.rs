use super::*;
use crate::rules::notation::parse_bfen;
use crate::rules::{Piece, RulesetName};

fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

/// A table of two occupancy boards driven square by square, as hands move pieces.
struct Hands {
    inf: OccupancyInference,
    occ: ByBoard<u64>,
    t: u64,
    out: Vec<OccupancyMove>,
}

impl Hands {
    fn new() -> Hands {
        Hands::from_bfen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        )
    }

    fn from_bfen(bfen: &str) -> Hands {
        let rules = RulesetName::Fide.ruleset();
        let boards = parse_bfen(bfen, rules).expect("bfen");
        let game = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
        let occ = ByBoard {
            a: game.board(BoardId::A).board().occupied().0,
            b: game.board(BoardId::B).board().occupied().0,
        };
        Hands {
            inf: OccupancyInference::from_game(game, rules),
            occ,
            t: 0,
            out: Vec::new(),
        }
    }

    fn set(&mut self, b: BoardId, s: &str, on: bool) -> &mut Self {
        let bit = 1u64 << sq(s).index();
        if on {
            self.occ[b] |= bit;
        } else {
            self.occ[b] &= !bit;
        }
        self.t += 100;
        let moves = self.inf.feed(b, self.t, self.occ[b]);
        self.out.extend(moves);
        self
    }

    fn lift(&mut self, b: BoardId, s: &str) -> &mut Self {
        self.set(b, s, false)
    }

    fn put(&mut self, b: BoardId, s: &str) -> &mut Self {
        self.set(b, s, true)
    }

    fn mv(&mut self, b: BoardId, from: &str, to: &str) -> &mut Self {
        self.lift(b, from).put(b, to)
    }

    /// `ms` pass with the boards unchanged.
    fn wait(&mut self, ms: u64) -> &mut Self {
        self.t += ms;
        self.inf.tick(self.t);
        self
    }

    fn done(&mut self) -> Vec<(BoardId, String, KindNote)> {
        let rest = self.inf.finish();
        self.out.extend(rest);
        self.out
            .iter()
            .map(|m| (m.board, format!("{:?}", m.mv), m.note.clone()))
            .collect()
    }
}

const A: BoardId = BoardId::A;
const B: BoardId = BoardId::B;

fn normal(role: Role, from: &str, to: &str, capture: Option<Role>) -> String {
    format!(
        "{:?}",
        Move::Normal {
            role,
            from: sq(from),
            capture,
            to: sq(to),
            promotion: None,
        }
    )
}

#[test]
fn moves_and_replies_become_final_when_the_next_one_begins() {
    let mut h = Hands::new();
    h.mv(A, "e2", "e4").mv(A, "e7", "e5");
    // A piece lifted and put back is no move.
    h.lift(A, "g1").put(A, "g1");
    h.mv(A, "g1", "f3");
    assert_eq!(
        h.done(),
        vec![
            (A, normal(Role::Pawn, "e2", "e4", None), KindNote::Exact),
            (A, normal(Role::Pawn, "e7", "e5", None), KindNote::Exact),
            (A, normal(Role::Knight, "g1", "f3", None), KindNote::Exact),
        ]
    );
}

#[test]
fn the_lifted_square_tells_the_victim_in_either_order() {
    // The knight on f3 may take e5 or g5: the square seen empty says which.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    for victim_first in [true, false] {
        for target in ["e5", "g5"] {
            let mut h = Hands::from_bfen(bfen);
            if victim_first {
                h.lift(A, target).lift(A, "f3").put(A, target);
            } else {
                h.lift(A, "f3").lift(A, target).put(A, target);
            }
            assert_eq!(
                h.done(),
                vec![(
                    A,
                    normal(Role::Knight, "f3", target, Some(Role::Pawn)),
                    KindNote::Exact
                )],
                "{target}, victim first: {victim_first}"
            );
        }
    }
}

#[test]
fn castling_king_first_or_rook_first_and_en_passant() {
    let bfen = "4k3/8/8/3pP3/8/8/8/4K2R w K d6 | 4k3/8/8/8/8/8/8/4K3 w - -";
    for king_first in [true, false] {
        let mut h = Hands::from_bfen(bfen);
        if king_first {
            h.mv(A, "e1", "g1").mv(A, "h1", "f1");
        } else {
            h.mv(A, "h1", "f1").mv(A, "e1", "g1");
        }
        let got = h.done();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            got[0].1,
            format!(
                "{:?}",
                Move::Castle {
                    king: sq("e1"),
                    rook: sq("h1")
                }
            )
        );
    }
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "e5").lift(A, "d5").put(A, "d6");
    let got = h.done();
    assert_eq!(
        got[0].1,
        format!(
            "{:?}",
            Move::EnPassant {
                from: sq("e5"),
                to: sq("d6")
            }
        )
    );
}

#[test]
fn a_slid_piece_is_one_move() {
    let bfen = "4k3/8/8/8/8/8/8/R3K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "a1")
        .put(A, "a2")
        .lift(A, "a2")
        .put(A, "a3")
        .lift(A, "a3")
        .put(A, "a4");
    assert_eq!(
        h.done(),
        vec![(A, normal(Role::Rook, "a1", "a4", None), KindNote::Exact)]
    );
}

#[test]
fn a_promotion_takes_the_queen_and_is_flagged() {
    let bfen = "4k3/1P6/8/8/8/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.mv(A, "b7", "b8");
    let got = h.done();
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].1,
        format!(
            "{:?}",
            Move::Normal {
                role: Role::Pawn,
                from: sq("b7"),
                capture: None,
                to: sq("b8"),
                promotion: Some(Role::Queen)
            }
        )
    );
    assert_eq!(
        got[0].2,
        KindNote::PromotionAssumed {
            choices: vec![Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        }
    );
}

fn drop(color: Color, role: Role, to: &str) -> String {
    format!(
        "{:?}",
        Move::Drop {
            piece: Piece { color, role },
            to: sq(to)
        }
    )
}

#[test]
fn a_drop_takes_its_kind_from_the_hand_or_the_square_or_says_it_cannot() {
    // One kind in hand: known.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/4K3/N w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "e4");
    assert_eq!(
        h.done(),
        vec![(A, drop(Color::White, Role::Knight, "e4"), KindNote::Exact)]
    );
    // A pawn and a knight, dropped on the last rank: only the knight may stand there.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/4K3/NP w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "a8");
    assert_eq!(
        h.done(),
        vec![(A, drop(Color::White, Role::Knight, "a8"), KindNote::Exact)]
    );
    // A knight and a bishop on e4: undetermined, both offered, nothing invented.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/4K3/NB w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "e4");
    let got = h.done();
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].2,
        KindNote::DropUndetermined {
            choices: vec![Role::Knight, Role::Bishop]
        }
    );
}

/// Both `exd5` on board A and the pawn it gave dropped on d6 on board B are in `got`.
fn assert_exd5_supplies_d6(got: &[(BoardId, String, KindNote)]) {
    assert!(
        got.contains(&(B, drop(Color::Black, Role::Pawn, "d6"), KindNote::Exact)),
        "{got:#?}"
    );
    assert!(got.contains(&(
        A,
        normal(Role::Pawn, "e4", "d5", Some(Role::Pawn)),
        KindNote::Exact
    )));
}

#[test]
fn a_capture_on_one_board_supplies_a_drop_on_the_other() {
    let mut h = Hands::new();
    // Board B: White plays e4, Black to move with an empty hand.
    h.mv(B, "e2", "e4");
    // Board A: 1. e4 d5 2. exd5: White A takes a pawn, which goes to Black on B.
    h.mv(A, "e2", "e4").mv(A, "d7", "d5");
    h.lift(A, "d5").lift(A, "e4").put(A, "d5");
    // Black on B drops it on d6 while A's capture is still open.
    h.put(B, "d6");
    assert_exd5_supplies_d6(&h.done());
}

/// A table of two Sentio boards in front of a whole match (the daemon's path): `bfen` the
/// start, `steps` (board, square, occupied after) one snapshot each, 500 ms apart.
fn sentio_match(
    bfen: &str,
    steps: &[(BoardId, &str, bool)],
) -> (crate::game::Match, Vec<crate::infer::Inference>) {
    use crate::infer::InferConfig;
    use crate::sensor::Decoded;
    let config = InferConfig {
        clock: ByBoard { a: false, b: false },
        ruleset: RulesetName::Fide.ruleset(),
        ..InferConfig::default()
    };
    let mut m =
        crate::game::Match::from_setup("t", Default::default(), config, bfen).expect("bfen");
    let boards = parse_bfen(bfen, config.ruleset).expect("bfen");
    let mut occ = ByBoard {
        a: boards.a.position.board().occupied().0,
        b: boards.b.position.board().occupied().0,
    };
    let mut out = Vec::new();
    let mut t = 0;
    for b in BoardId::ALL {
        out.extend(m.feed_decoded(
            t,
            &Decoded::Occupancy {
                board: b,
                occupied: occ[b],
            },
            t,
        ));
    }
    for &(b, s, on) in steps {
        t += 500;
        let bit = 1u64 << sq(s).index();
        occ[b] = if on { occ[b] | bit } else { occ[b] & !bit };
        out.extend(m.feed_decoded(
            t,
            &Decoded::Occupancy {
                board: b,
                occupied: occ[b],
            },
            t,
        ));
    }
    // Time passes (a piece held still is judged), the trace ends (open moves are final),
    // and the piece inference takes them.
    out.extend(m.tick(t + 60_000));
    out.extend(m.finish_occupancy(t + 60_500, t + 60_500));
    out.extend(m.tick(t + 120_000));
    (m, out)
}

/// `out` holds one correction, a kind settled that makes the drop `new_san`, and the
/// record of `m` reads `sans`.
fn assert_one_kind_settled(
    m: &crate::game::Match,
    out: &[crate::infer::Inference],
    new_san: &str,
    sans: &[&str],
) {
    use crate::infer::{CorrectionKind, Inference};
    let corrections: Vec<_> = out
        .iter()
        .filter_map(|i| match i {
            Inference::Correction(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(corrections.len(), 1, "{out:#?}");
    assert_eq!(corrections[0].kind, CorrectionKind::KindSettled);
    assert_eq!(corrections[0].new_san, new_san);
    let record: Vec<&str> = m.record().iter().map(|e| e.san.as_str()).collect();
    assert_eq!(record, sans);
}

#[test]
fn a_drop_kind_settled_by_the_pieces_own_move_is_a_correction_of_the_record() {
    // White holds a bishop and a rook: the piece put on e4 is either. It then goes e4-e6,
    // which only a rook does: the drop was the rook's, and the record says so.
    let bfen = "4k3/8/8/8/8/8/8/4K3/BR w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let (m, out) = sentio_match(
        bfen,
        &[
            (A, "e4", true),
            (A, "e8", false),
            (A, "d8", true),
            (A, "e4", false),
            (A, "e6", true),
            (A, "d8", false),
            (A, "c7", true),
        ],
    );
    assert_one_kind_settled(&m, &out, "R@e4+", &["R@e4+", "Kd8", "Re6", "Kc7"]);
}

#[test]
fn a_board_still_showing_what_no_move_explains_is_alerted_once() {
    use crate::infer::{AlertCode, Inference};
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let stalled = |out: &[Inference]| -> Vec<String> {
        out.iter()
            .filter_map(|i| match i {
                Inference::Alert(a) if a.code == AlertCode::OccupancyStalled => {
                    Some(a.detail.clone())
                }
                _ => None,
            })
            .collect()
    };
    // Two white pieces lifted and never put down: no move explains it.
    let (_, out) = sentio_match(start, &[(A, "e2", false), (A, "d2", false)]);
    let said = stalled(&out);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("board A") && said[0].contains("d2 e2"),
        "{}",
        said[0]
    );
    // A move the board then shows ends the wait: nothing is said for an ordinary game.
    let (m, out) = sentio_match(
        start,
        &[
            (A, "e2", false),
            (A, "e4", true),
            (A, "e7", false),
            (A, "e5", true),
        ],
    );
    assert!(stalled(&out).is_empty(), "{out:#?}");
    assert_eq!(m.record().len(), 2);
}

#[test]
fn a_piece_held_still_after_its_lift_is_its_only_capture() {
    use crate::infer::{AlertCode, Inference};
    // Only f3 reads empty, and stays so: the knight was set onto e5 (its only capture),
    // the pawn pushed off. Time alone makes it the move (final when the trace ends, or
    // the next move begins), and nothing is alerted.
    let bfen = "4k3/8/8/4p3/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let (m, out) = sentio_match(bfen, &[(A, "f3", false)]);
    let sans: Vec<&str> = m.record().iter().map(|e| e.san.as_str()).collect();
    assert_eq!(sans, ["Nxe5"], "{out:#?}");
    assert!(
        !out.iter()
            .any(|i| matches!(i, Inference::Alert(a) if a.code == AlertCode::OccupancyStalled)),
        "{out:#?}"
    );
    // Two captures possible: the board cannot tell, waits for the reply to tell, and says
    // so when none comes.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let (m, out) = sentio_match(bfen, &[(A, "f3", false)]);
    assert!(m.record().is_empty());
    assert!(
        out.iter().any(|i| matches!(i, Inference::Alert(a) if a.code == AlertCode::OccupancyStalled && a.detail.contains("e5 or g5"))),
        "{out:#?}"
    );
}

#[test]
fn a_knight_dropped_as_a_placeholder_pawn_then_taking_as_a_knight_settles_its_kind() {
    use crate::infer::{AlertCode, Inference};
    // White holds a pawn and a knight: the piece put on g5 is either, carried as a pawn. It
    // then takes on e6, which only a knight does: no illegal pawn move, the drop is the
    // knight's and the record says so.
    let bfen = "4k3/8/4p3/8/8/8/8/4K3/NP w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let (m, out) = sentio_match(
        bfen,
        &[
            (A, "g5", true),
            (A, "e8", false),
            (A, "d7", true),
            (A, "e6", false),
            (A, "g5", false),
            (A, "e6", true),
            (A, "d7", false),
            (A, "c8", true),
        ],
    );
    assert!(
        !out.iter()
            .any(|i| matches!(i, Inference::Alert(a) if a.code == AlertCode::IllegalMove)),
        "{out:#?}"
    );
    assert_one_kind_settled(&m, &out, "N@g5", &["N@g5", "Kd7", "Nxe6", "Kc8"]);
}

#[test]
fn a_piece_held_still_then_put_back_or_down_elsewhere_is_that_or_the_board_stalls() {
    let quiet = |hand: &str, back: bool| {
        let mut h = Hands::from_bfen(&format!(
            "4k3/8/8/4p3/8/5N2/8/4K3/{hand} w - - | 4k3/8/8/8/8/8/8/4K3 w - -"
        ));
        // The knight is held long enough to be taken as set onto e5 ...
        h.lift(A, "f3").wait(2_000);
        // ... then put back and moved, or put down on d4.
        if back {
            h.put(A, "f3").mv(A, "f3", "g5");
        } else {
            h.put(A, "d4");
        }
        let stalled = h.inf.stalled(A).is_some();
        (h.done(), stalled)
    };
    // Black has nothing to drop: the capture was not made.
    let (got, stalled) = quiet("", true);
    assert_eq!(
        got,
        vec![(A, normal(Role::Knight, "f3", "g5", None), KindNote::Exact)]
    );
    assert!(!stalled);
    let (got, stalled) = quiet("", false);
    assert_eq!(
        got,
        vec![(A, normal(Role::Knight, "f3", "d4", None), KindNote::Exact)]
    );
    assert!(!stalled);
    // Black holds a pawn: Nxe5 and a pawn dropped on f3 (or d4) read the same. Neither is
    // taken: the board stalls.
    for back in [true, false] {
        let (got, stalled) = quiet("p", back);
        assert!(got.is_empty(), "{got:?}");
        assert!(stalled);
    }
}

#[test]
fn a_square_filled_before_the_piece_left_its_own_is_not_that_piece_s_move() {
    // a4 fills while the rook still stands on a1 (White has nothing to drop, as far as
    // the board knows), then a1 empties: Ra4 would show the same squares, but a piece
    // cannot land before it leaves. Nothing is taken.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/R3K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "a4").lift(A, "a1");
    assert!(h.done().is_empty());
    // In the right order it is the rook's move.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/R3K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "a1").put(A, "a4");
    assert_eq!(
        h.done(),
        vec![(A, normal(Role::Rook, "a1", "a4", None), KindNote::Exact)]
    );
}

#[test]
fn a_step_of_a_piece_that_may_be_a_pawn_onto_the_en_passant_square_stalls() {
    // A pawn or a bishop put on c5, then d7-d5: c5 emptying and d6 filling is the bishop's
    // step, or the pawn taking en passant with d5 still to be lifted; lifting d5 next is
    // the capture's end, or Black's next move. The board stalls, nothing settled.
    let mut h = Hands::from_bfen("4k3/3p4/8/8/8/8/8/4K3/BP w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "c5")
        .mv(A, "d7", "d5")
        .mv(A, "c5", "d6")
        .lift(A, "d5");
    assert!(h.inf.stalled(A).is_some());
    assert!(h.inf.take_resolutions().is_empty());
    let got = h.done();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        got[1],
        (A, normal(Role::Pawn, "d7", "d5", None), KindNote::Exact)
    );
}

#[test]
fn a_piece_set_on_a_square_and_taken_back_to_its_own_is_no_move() {
    let mut h = Hands::new();
    // g1-f3, and back to g1 before the hand lets go for good: no move, the board goes on.
    h.mv(A, "g1", "f3").mv(A, "f3", "g1");
    h.mv(A, "e2", "e4");
    assert_eq!(
        h.done(),
        vec![(A, normal(Role::Pawn, "e2", "e4", None), KindNote::Exact)]
    );
    assert!(h.inf.stalled(A).is_none());
}

#[test]
fn a_quiet_move_that_reads_as_a_capture_and_a_drop_waits_for_the_next_move() {
    // The knight on f3 may take e5 (set straight onto it, no change there) and Black hold a
    // pawn to drop on g5: f3 emptying and g5 filling is Ng5, or Nxe5 and a pawn on g5.
    let bfen = "4k3/8/8/4p3/8/5N2/8/4K3/p w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    // The board shows Black's next move (his king): Ng5 was made, and it is handed on.
    let mut h = Hands::from_bfen(bfen);
    h.mv(A, "f3", "g5").lift(A, "e8");
    assert!(h.out.is_empty(), "{:?}", h.out);
    h.put(A, "d8");
    assert_eq!(
        h.out
            .iter()
            .map(|m| format!("{:?}", m.mv))
            .collect::<Vec<_>>(),
        vec![normal(Role::Knight, "f3", "g5", None)]
    );
    // The input ends with the board at rest after it: the board confirms it.
    let mut h = Hands::from_bfen(bfen);
    h.mv(A, "f3", "g5");
    assert_eq!(
        h.done(),
        vec![(A, normal(Role::Knight, "f3", "g5", None), KindNote::Exact)]
    );
    // The input ends with the board showing what follows it half made: nothing confirms
    // Ng5, and it is not handed on.
    let mut h = Hands::from_bfen(bfen);
    h.mv(A, "f3", "g5").lift(A, "e8");
    assert!(h.done().is_empty());
    // Without a piece in Black's hand there is nothing to mistake it for: handed on at
    // once.
    let mut h = Hands::from_bfen("4k3/8/8/4p3/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.mv(A, "f3", "g5").lift(A, "e8");
    assert_eq!(h.out.len(), 1);
}

/// White's knight from the hand set on e4 as `place` does, then Black's king steps to d8:
/// the two moves, nothing stalled.
fn knight_on_e4_then_king_d8(place: impl FnOnce(&mut Hands)) {
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/4K3/N w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    place(&mut h);
    h.mv(A, "e8", "d8");
    assert_eq!(
        h.done(),
        vec![
            (A, drop(Color::White, Role::Knight, "e4"), KindNote::Exact),
            (A, normal(Role::King, "e8", "d8", None), KindNote::Exact),
        ]
    );
    assert!(h.inf.stalled(A).is_none());
}

#[test]
fn a_drop_read_lost_and_read_again_is_one_drop() {
    // The piece is read, lost for a scan as the hand lets go, and read again: one drop.
    knight_on_e4_then_king_d8(|h| {
        h.put(A, "e4").lift(A, "e4").put(A, "e4");
    });
    // Dropped, then its victim lifted before the capturer lands (a capture under way):
    // the drop stands and the capture follows.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/2n5/8/4K3/N w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "b1").lift(A, "b1").lift(A, "c3").put(A, "b1");
    assert_eq!(
        h.done(),
        vec![
            (A, drop(Color::White, Role::Knight, "b1"), KindNote::Exact),
            (
                A,
                normal(Role::Knight, "c3", "b1", Some(Role::Knight)),
                KindNote::Exact
            ),
        ]
    );
}

#[test]
fn a_piece_read_again_before_the_capturer_left_is_no_victim() {
    // White's knight is dropped on c1 (read, lost, read again); then Black's bishop on b2
    // is lifted and held: it may have been set onto a1 or c1. c1 was empty a moment, but
    // filled again before the bishop left: it is no victim, and nothing is taken for one.
    // The board waits, both captures said.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/1b6/R3K3/N w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "c1")
        .lift(A, "c1")
        .put(A, "c1")
        .lift(A, "b2")
        .wait(2_000);
    let got = h.done();
    assert_eq!(
        got,
        vec![(A, drop(Color::White, Role::Knight, "c1"), KindNote::Exact)]
    );
    assert_eq!(
        h.inf.held_choices(A),
        Some((sq("b2"), vec![sq("a1"), sq("c1")]))
    );
}

/// On board A, the knight on f3 lifted, then g5 lifted, and the knight set on g5 1.4 s
/// after its lift: slow enough to stall the board when e5 could be taken too.
fn slow_capture_on_a(bfen: &str) -> Hands {
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3")
        .wait(700)
        .lift(A, "g5")
        .wait(700)
        .put(A, "g5");
    h
}

#[test]
fn a_slow_capture_of_a_piece_lifted_after_the_capturer_stalls() {
    // The knight on f3 may take e5 or g5. It is lifted, then g5 is lifted and the knight
    // lands there: quick, it is Nxg5; slow (1.5 s), the knight may have been set onto e5
    // and Black lifted and put back his g5 pawn: the board cannot tell.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3").lift(A, "g5").put(A, "g5");
    assert_eq!(
        h.done(),
        vec![(
            A,
            normal(Role::Knight, "f3", "g5", Some(Role::Pawn)),
            KindNote::Exact
        )]
    );
    let mut h = slow_capture_on_a(bfen);
    assert!(h.done().is_empty());
    assert!(h.inf.stalled(A).is_some());
}

#[test]
fn a_drop_made_before_the_capture_that_supplies_it_lands_is_read_once_it_does() {
    let mut h = Hands::new();
    h.mv(B, "e2", "e4");
    h.mv(A, "e2", "e4").mv(A, "d7", "d5");
    // White on A takes d5: the victim is off and handed over, the capturer still in the
    // air, when Black on B drops the pawn on d6 (his hand held nothing before).
    h.lift(A, "d5").lift(A, "e4");
    h.put(B, "d6");
    assert!(!h.out.iter().any(|m| m.mv.is_drop()), "{:?}", h.out);
    // The capturer lands: the capture is seen, and with it the drop.
    h.put(A, "d5");
    assert_exd5_supplies_d6(&h.done());
}

#[test]
fn a_capturer_set_onto_its_victim_is_read_from_the_reply_that_follows_at_once() {
    // White's g4 pawn is set straight onto h5 (the pawn there pushed off: its square never
    // reads empty), and Black's rook takes it back before the board was still long enough
    // to judge the lift: g4xh5 then Rxh5.
    let mut h = Hands::from_bfen("4k2r/8/8/7p/6P1/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "g4").lift(A, "h8").lift(A, "h5").put(A, "h5");
    assert_eq!(h.done(), gxh5_rxh5());
}

/// The moves of `a_capturer_set_onto_its_victim_is_read_from_the_reply_that_follows_at_once`.
fn gxh5_rxh5() -> Vec<(BoardId, String, KindNote)> {
    vec![
        (
            A,
            normal(Role::Pawn, "g4", "h5", Some(Role::Pawn)),
            KindNote::Exact,
        ),
        (
            A,
            normal(Role::Rook, "h8", "h5", Some(Role::Pawn)),
            KindNote::Exact,
        ),
    ]
}

#[test]
fn the_reply_tells_which_of_several_pieces_a_capturer_held_still_took() {
    // The knight on f3 may have been set onto e5 or g5. Black then moves his e5 pawn: it
    // still stands, so the knight took g5.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3").wait(2_000);
    assert_eq!(
        h.inf.held_choices(A),
        Some((sq("f3"), vec![sq("e5"), sq("g5")]))
    );
    assert!(h.inf.stalled(A).is_none());
    h.mv(A, "e5", "e4");
    assert_eq!(
        h.done(),
        vec![
            (
                A,
                normal(Role::Knight, "f3", "g5", Some(Role::Pawn)),
                KindNote::Exact
            ),
            (A, normal(Role::Pawn, "e5", "e4", None), KindNote::Exact),
        ]
    );
    // A king's step fits after either capture: nothing is taken, the board waits.
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3").wait(2_000).mv(A, "e8", "d8");
    assert!(h.done().is_empty());
    assert!(h.inf.waiting(A).is_some());
}

#[test]
fn a_piece_held_still_put_back_while_a_piece_was_dropped_stalls() {
    // The knight on f3 may have been set onto e5 or g5; then d4 fills and f3 fills again.
    // The knight put back and a drop on d4 by White, or a capture followed by Black's drop
    // on d4 and White's on f3: the board cannot tell.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3/PPpp w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3").wait(2_000).put(A, "d4").put(A, "f3");
    assert!(h.done().is_empty());
    assert!(h.inf.stalled(A).is_some());
}

/// White's drop on e4 of board B, recorded with every kind (a pawn as the placeholder).
fn white_drop_of_every_kind_on_b_e4() -> Vec<(BoardId, String, KindNote)> {
    let choices = vec![
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ];
    vec![(
        B,
        drop(Color::White, Role::Pawn, "e4"),
        KindNote::DropUndetermined { choices },
    )]
}

#[test]
fn a_drop_while_the_other_board_is_stalled_names_every_kind_the_square_allows() {
    // Board A stalls (a slow capture, see above); White on B then sets a piece on e4 with
    // nothing in his hand as far as the game knows: A's captures, which fill it, are not
    // known. The drop is recorded with every kind, never left unread.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = slow_capture_on_a(bfen);
    assert!(h.inf.stalled(A).is_some());
    h.put(B, "e4");
    assert_eq!(h.done(), white_drop_of_every_kind_on_b_e4());
}

#[test]
fn a_piece_held_still_while_two_pieces_went_off_at_once_and_back_stalls() {
    // The knight on f3 is lifted and not put down (its one capture: e5); meanwhile two of
    // Black's pieces are off at once and back. A capture by Black and a drop where his
    // capturer stood read the same as both put back: nothing is taken for the knight.
    let bfen = "4k3/pp6/8/4p3/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    let off_and_back = [("a7", false), ("b7", false), ("a7", true), ("b7", true)];
    h.lift(A, "f3");
    for (square, on) in off_and_back {
        h.set(A, square, on);
    }
    h.wait(2_000);
    assert!(h.done().is_empty());
    assert!(h.inf.stalled(A).is_some());
}

#[test]
fn a_drop_while_the_other_board_waits_still_is_read_with_every_kind() {
    // White on A sets a piece on d4 with nothing in his hand: no move explains it, and A
    // waits. A drop on B soon after waits too (A's reading may yet supply it); once A has
    // been still 1.5 s, a drop on B is read with every kind.
    let bfen = "4k3/8/8/8/8/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.put(A, "d4").put(B, "e4");
    assert!(h.out.is_empty(), "{:?}", h.out);
    let mut h = Hands::from_bfen(bfen);
    h.put(A, "d4").wait(1_500).put(B, "e4");
    assert_eq!(h.done(), white_drop_of_every_kind_on_b_e4());
}

#[test]
fn a_reply_that_leaves_a_lifted_square_unexplained_tells_no_capture() {
    // Black's knight on b4 is set onto a2 or c2. White's king then leaves e1 for e2 and
    // e1 fills: Nxc2+ Ke2 and a drop on e1, or Nxa2, the king lifted and put back, and a
    // pawn dropped on e2. The reply does not explain e1: no capture is taken.
    let bfen = "4k3/8/8/8/1n6/8/P1P5/4K3/Pb b - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "b4").lift(A, "e1").put(A, "e2").put(A, "e1");
    assert!(h.done().is_empty());
}

/// Board A stalled (a slow capture), then White drops on e4 of board B (`b_fen`, White to
/// move): a piece of every kind, the pawn its placeholder. Black answers with his king.
fn open_kind_piece_on_b_e4(b_fen: &str, king_from: &str, king_to: &str) -> Hands {
    let bfen = format!("4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | {b_fen}");
    let mut h = slow_capture_on_a(&bfen);
    h.put(B, "e4").mv(B, king_from, king_to);
    h
}

#[test]
fn a_piece_of_open_kind_lifted_again_and_set_further_stalls() {
    // The piece on e4 (a pawn as far as the game knows) goes to e5, is lifted again and
    // set on e6: a pawn's step and the next move begun, or a rook or queen sliding on.
    let mut h = open_kind_piece_on_b_e4("4k3/8/8/8/8/8/8/K7 w - -", "e8", "d8");
    h.lift(B, "e4").put(B, "e5").lift(B, "e5").put(B, "e6");
    assert!(h.inf.stalled(B).is_some());
    let got = h.done();
    assert!(
        got.iter()
            .all(|(b, mv, _)| *b == A || !mv.contains("from: e4")),
        "{got:?}"
    );
}

#[test]
fn a_slow_capture_by_a_piece_of_open_kind_stalls() {
    // The piece on e4 takes e7 as a rook would, landing 1.4 s after its lift with its
    // victim lifted after it: as a bishop it may have been set straight onto b7, and Black
    // have lifted and put back his e7 pawn. Its kind is not settled from that.
    let mut h = open_kind_piece_on_b_e4("4k3/1p2p3/8/8/8/8/8/K7 w - -", "e8", "f8");
    h.lift(B, "e4")
        .wait(700)
        .lift(B, "e7")
        .wait(700)
        .put(B, "e7");
    assert!(h.inf.stalled(B).is_some());
    assert!(h.inf.take_resolutions().is_empty());
}

#[test]
fn a_piece_set_beside_its_square_first_is_one_move() {
    // A drop set on e5 first, then moved over to e4, later lifted and set down again as
    // the hand lets go; then the king's reply: one drop, one king move.
    knight_on_e4_then_king_d8(|h| {
        h.put(A, "e5")
            .lift(A, "e5")
            .put(A, "e4")
            .lift(A, "e4")
            .put(A, "e4");
    });
    // A knight aimed at e3, beside its square f3.
    let mut h = Hands::new();
    h.lift(A, "g1").put(A, "e3").lift(A, "e3").put(A, "f3");
    h.mv(A, "e7", "e5");
    assert_eq!(
        h.done(),
        vec![
            (A, normal(Role::Knight, "g1", "f3", None), KindNote::Exact),
            (A, normal(Role::Pawn, "e7", "e5", None), KindNote::Exact),
        ]
    );
}

#[test]
fn a_drop_answered_beside_it_then_lifted_is_not_one_drop() {
    // White drops a queen on f6 that board B's capture gives him only later; Black answers
    // with a knight on e6 beside it; White lifts his queen to move it on. Once board B's
    // capture lands, the board reads like a White queen dropped on e6 after being set
    // beside it first, but f6 emptied after e6 filled: it is not one drop.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/8/4K3/n w - - | r3k3/8/8/8/8/8/8/Q3K3 b - -");
    h.put(A, "f6").put(A, "e6").lift(A, "f6").wait(300);
    h.lift(B, "a1").lift(B, "a8").put(B, "a1").wait(2_000);
    let got = h.done();
    let on_a: Vec<&String> = got.iter().filter(|m| m.0 == A).map(|m| &m.1).collect();
    assert!(
        on_a.first()
            .is_none_or(|m| **m == drop(Color::White, Role::Queen, "f6")),
        "{got:?}"
    );
}

#[test]
fn later_moves_tell_which_of_several_pieces_a_capturer_held_still_took() {
    // The knight on f3 may have been set onto e5 or g5. Black's king step fits after
    // either, made at once (a reply) or after the knight was held still for 2 s; so does
    // Black's drop after the knight was held still. The knight then leaves g5 (it stands
    // there: it took g5) and the game goes on: once one reading is two moves ahead of
    // the other, it is the game.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3/p w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    for (held_ms, drops) in [(0, false), (2_000, false), (2_000, true)] {
        let mut h = Hands::from_bfen(bfen);
        h.lift(A, "f3").wait(held_ms);
        let mut game = knight_took_g5();
        if drops {
            h.put(A, "a6");
            game[1] = (A, drop(Color::Black, Role::Pawn, "a6"), KindNote::Exact);
            game[3] = (A, normal(Role::King, "e8", "d7", None), KindNote::Exact);
        } else {
            h.mv(A, "e8", "d8");
        }
        assert!(h.out.is_empty(), "both captures fit so far: {:?}", h.out);
        let (king, to) = if drops { ("e8", "d7") } else { ("d8", "c7") };
        h.mv(A, "g5", "f7").mv(A, king, to).mv(A, "e1", "d1");
        assert_eq!(h.done(), game, "held {held_ms} ms, a drop: {drops}");
    }
}

/// The game of `later_moves_tell_which_of_several_pieces_a_capturer_held_still_took`.
fn knight_took_g5() -> Vec<(BoardId, String, KindNote)> {
    vec![
        (
            A,
            normal(Role::Knight, "f3", "g5", Some(Role::Pawn)),
            KindNote::Exact,
        ),
        (A, normal(Role::King, "e8", "d8", None), KindNote::Exact),
        (A, normal(Role::Knight, "g5", "f7", None), KindNote::Exact),
        (A, normal(Role::King, "d8", "c7", None), KindNote::Exact),
        (A, normal(Role::King, "e1", "d1", None), KindNote::Exact),
    ]
}

/// [`knight_took_g5`], played on `board`.
fn knight_took_g5_on(board: BoardId) -> Vec<(BoardId, String, KindNote)> {
    knight_took_g5()
        .into_iter()
        .map(|(_, mv, note)| (board, mv, note))
        .collect()
}

#[test]
fn later_moves_tell_what_a_piece_of_open_kind_held_still_took() {
    // A knight or a bishop dropped on e4 is lifted and held still: as a knight it may have
    // taken f6, as a bishop b7. The board stalls, but says so only if the moves after do
    // not tell: the piece then leaves f6 as a knight (f6-g8), so it took f6 as a knight,
    // and the drop's kind is settled.
    let mut h = Hands::from_bfen("4k3/1p6/5p2/8/8/8/8/4K3/NB w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "e4").mv(A, "e8", "f8").lift(A, "e4").wait(2_000);
    assert!(
        h.inf.stalled(A).is_none(),
        "the stall waits on the readings"
    );
    h.mv(A, "f8", "e7")
        .mv(A, "f6", "g8")
        .mv(A, "e7", "d6")
        .mv(A, "e1", "d1");
    let got = h.done();
    assert!(h.inf.stalled(A).is_none());
    assert_eq!(
        got[2],
        (
            A,
            normal(Role::Knight, "e4", "f6", Some(Role::Pawn)),
            KindNote::Exact
        ),
        "{got:?}"
    );
    assert_eq!(got.len(), 7, "{got:?}");
    let settled = h.inf.take_resolutions();
    assert!(
        settled
            .iter()
            .any(|r| r.board == A && r.role == Role::Knight),
        "{settled:?}"
    );
}

#[test]
fn a_capturer_set_onto_its_victim_and_a_drop_after_it_are_read_once_the_board_is_still() {
    // White's g4 pawn is set straight onto h5 and Black drops his knight on e5 within a
    // second: nothing is read while hands may still be at work (Black could be dropping
    // with White's pawn still in hand); once the board has been still, g4xh5 and N@e5.
    let mut h = Hands::from_bfen("4k3/8/8/7p/6P1/8/8/4K3/n w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "g4").wait(600).put(A, "e5");
    assert!(h.out.is_empty());
    assert!(h.inf.waiting(A).is_some());
    h.wait(1_000);
    assert!(
        h.inf.waiting(A).is_some(),
        "read before the board was still"
    );
    h.wait(1_000);
    assert!(h.inf.waiting(A).is_none());
    assert!(h.inf.stalled(A).is_none());
    let drop = Move::Drop {
        piece: Piece {
            color: Color::Black,
            role: Role::Knight,
        },
        to: sq("e5"),
    };
    assert_eq!(
        h.done(),
        vec![
            (
                A,
                normal(Role::Pawn, "g4", "h5", Some(Role::Pawn)),
                KindNote::Exact
            ),
            (A, format!("{drop:?}"), KindNote::Exact),
        ]
    );
}

#[test]
fn two_capturers_set_onto_their_victims_in_turn_are_read_once_the_board_is_still() {
    // White's bishop is set onto a6, and Black's rook onto the bishop half a second later:
    // the board shows two pieces lifted and nothing put down. Still, it reads Bxa6 Rxa6.
    let mut h = Hands::from_bfen("r3k3/8/p7/8/8/8/8/4KB2 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "f1").wait(500).lift(A, "a8").wait(2_000);
    assert!(h.inf.stalled(A).is_none());
    assert_eq!(
        h.done(),
        vec![
            (
                A,
                normal(Role::Bishop, "f1", "a6", Some(Role::Pawn)),
                KindNote::Exact
            ),
            (
                A,
                normal(Role::Rook, "a8", "a6", Some(Role::Bishop)),
                KindNote::Exact
            ),
        ]
    );
}

#[test]
fn a_capture_and_a_reply_are_not_read_where_a_victim_is_not_ruled_out() {
    // White's rook on c5 may have been set onto c2 or b5. Black drops a pawn on b2, then
    // c2 empties and b2 is lifted and filled again: Rxb5 and Black's rook c2-b2 (one
    // reply), or Rxc2, the drop, and Rxb2 (the rook moving again). The rook lifted from c2
    // after the capture does not rule the second out: nothing is read.
    let bfen = "4k3/8/8/1nR5/8/8/2r5/4K3/p w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    nothing_read_at_once_or_still(bfen, |h| {
        h.lift(A, "c5").wait(1_000).put(A, "b2").wait(600);
        h.lift(A, "c2").lift(A, "b2").put(A, "b2");
    });
}

/// `play` on `bfen` reads no move: at once, nor once the board has been still 3 s.
fn nothing_read_at_once_or_still(bfen: &str, play: impl Fn(&mut Hands)) {
    for still in [false, true] {
        let mut h = Hands::from_bfen(bfen);
        play(&mut h);
        if still {
            h.wait(3_000);
        }
        h.inf.finish();
        assert!(h.out.is_empty(), "still: {still}: {:?}", h.out);
    }
}

#[test]
fn a_capture_whose_reply_may_be_a_recapture_set_straight_and_a_drop_is_not_read() {
    // White's rook on f4 may have been set onto f6 (check) or g4. Then g7 empties and g6
    // fills: Rxg4 and g7-g6, or Rxf6+, gxf6 set straight onto the rook, and White's pawn
    // dropped on g6. After Rxf6+ no one reply explains the board, which does not rule the
    // capture out: nothing is read, at once or once the board is still.
    let bfen = "8/6p1/3k1p2/8/5Rp1/8/8/4K3/P w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    nothing_read_at_once_or_still(bfen, |h| {
        h.lift(A, "f4")
            .wait(300)
            .lift(A, "g7")
            .wait(300)
            .put(A, "g6");
    });
}

#[test]
fn a_victim_lifted_long_after_its_capturer_may_be_noise_after_a_capture_set_straight() {
    // The knight on f3 may take e5 or g5. It is lifted and not seen put down; 700 ms later
    // g5 reads empty and full again: Nxg5 with the pawn pulled out from under it, or Nxe5
    // set straight and then a flicker on g5 (40 ms) or Black's j'adoube of it (400 ms).
    // Nothing is handed on until later moves tell: the knight leaves e5, so it took e5.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    for empty_ms in [40, 400] {
        let mut h = Hands::from_bfen(bfen);
        h.lift(A, "f3").wait(600).lift(A, "g5");
        h.t = h.t + empty_ms - 100;
        h.put(A, "g5").wait(300);
        assert!(h.inf.stalled(A).is_none(), "the stall is deferred");
        h.mv(A, "e8", "d8").wait(300);
        assert!(h.out.is_empty(), "{empty_ms} ms: {:?}", h.out);
        h.mv(A, "e5", "c6").mv(A, "d8", "c7").mv(A, "e1", "d1");
        let knight_took_e5 = vec![
            (
                A,
                normal(Role::Knight, "f3", "e5", Some(Role::Pawn)),
                KindNote::Exact,
            ),
            (A, normal(Role::King, "e8", "d8", None), KindNote::Exact),
            (A, normal(Role::Knight, "e5", "c6", None), KindNote::Exact),
            (A, normal(Role::King, "d8", "c7", None), KindNote::Exact),
            (A, normal(Role::King, "e1", "d1", None), KindNote::Exact),
        ];
        assert_eq!(h.done(), knight_took_e5, "{empty_ms} ms");
    }
}

/// White's knight on f3 could take the pawn on e5; Black holds a pawn to drop.
const KNIGHT_AND_PAWN: &str = "7k/8/8/4p3/8/5N2/8/K7/p w - - | 7k/8/8/8/8/8/8/K7 w - -";

/// The game on `KNIGHT_AND_PAWN` when the knight went f3-d4 (a quiet move, or put back
/// first) and play went on.
fn knight_went_to_d4() -> Vec<(BoardId, String, KindNote)> {
    vec![
        (A, normal(Role::Knight, "f3", "d4", None), KindNote::Exact),
        (A, normal(Role::Pawn, "e5", "e4", None), KindNote::Exact),
        (A, normal(Role::Knight, "d4", "f5", None), KindNote::Exact),
        (A, normal(Role::King, "h8", "g8", None), KindNote::Exact),
    ]
}

/// The game on `KNIGHT_AND_PAWN` when the knight took e5 set straight, Black dropped his
/// pawn on `dropped` and later stepped it to `stepped`.
fn knight_took_e5(dropped: &str, stepped: &str) -> Vec<(BoardId, String, KindNote)> {
    vec![
        (
            A,
            normal(Role::Knight, "f3", "e5", Some(Role::Pawn)),
            KindNote::Exact,
        ),
        (A, pawn_drop(dropped), KindNote::Exact),
        (A, normal(Role::Knight, "e5", "c6", None), KindNote::Exact),
        (
            A,
            normal(Role::Pawn, dropped, stepped, None),
            KindNote::Exact,
        ),
        (A, normal(Role::Knight, "c6", "d8", None), KindNote::Exact),
        (A, normal(Role::King, "h8", "g7", None), KindNote::Exact),
    ]
}

fn pawn_drop(to: &str) -> String {
    format!(
        "{:?}",
        Move::Drop {
            piece: Piece {
                color: Color::Black,
                role: Role::Pawn,
            },
            to: sq(to),
        }
    )
}

#[test]
fn a_piece_put_back_that_could_have_taken_waits_for_later_moves_put_back() {
    // The knight lifted and put back: a j'adoube, or Nxe5 set straight and Black's pawn
    // dropped on f3. Nothing is handed on until later moves tell: here the knight moves
    // from f3 and the e5 pawn steps, so it was put back.
    let mut h = Hands::from_bfen(KNIGHT_AND_PAWN);
    h.lift(A, "f3").wait(400).put(A, "f3").wait(300);
    assert!(h.out.is_empty());
    assert!(h.inf.stalled(A).is_none(), "the stall is deferred");
    h.mv(A, "f3", "d4").wait(300);
    assert!(
        h.out.is_empty(),
        "handed on before the readings were told apart"
    );
    h.mv(A, "e5", "e4").wait(300);
    h.mv(A, "d4", "f5").wait(300).mv(A, "h8", "g8");
    assert_eq!(h.done(), knight_went_to_d4());
}

#[test]
fn a_piece_put_back_that_could_have_taken_waits_for_later_moves_taken() {
    // The same lift and fill, then the piece on e5 moves as a knight and the one on f3 as
    // Black's pawn: Nxe5 and P@f3 were made.
    let mut h = Hands::from_bfen(KNIGHT_AND_PAWN);
    h.lift(A, "f3").wait(400).put(A, "f3").wait(300);
    h.mv(A, "e5", "c6").wait(300).mv(A, "f3", "f2").wait(300);
    h.mv(A, "c6", "d8").wait(300).mv(A, "h8", "g7");
    assert_eq!(h.done(), knight_took_e5("f3", "f2"));
}

#[test]
fn a_slow_quiet_move_that_reads_as_a_capture_and_a_drop_waits_for_later_moves() {
    // The knight lifted from f3 and d4 filled a second later: Nd4, or Nxe5 set straight
    // and Black's pawn dropped on d4. The e5 pawn then steps: Nd4 it was.
    let mut h = Hands::from_bfen(KNIGHT_AND_PAWN);
    h.lift(A, "f3").wait(1_000).put(A, "d4").wait(300);
    h.mv(A, "e5", "e4").wait(300);
    assert!(
        h.out.is_empty(),
        "handed on before the readings were told apart"
    );
    h.mv(A, "d4", "f5").wait(300).mv(A, "h8", "g8");
    assert_eq!(h.done(), knight_went_to_d4());
    // The same, and the piece on e5 moves as the knight: Nxe5 and P@d4.
    let mut h = Hands::from_bfen(KNIGHT_AND_PAWN);
    h.lift(A, "f3").wait(1_000).put(A, "d4").wait(300);
    h.mv(A, "e5", "c6").wait(300).mv(A, "d4", "d3").wait(300);
    h.mv(A, "c6", "d8").wait(300).mv(A, "h8", "g7");
    assert_eq!(h.done(), knight_took_e5("d4", "d3"));
}

#[test]
fn a_drop_is_read_from_a_hand_nobody_knows_once_the_partners_board_has_long_shown_what_no_move_explains()
 {
    // Board B shows what no move explains (a knight on g4) and goes on changing (a pawn
    // adjusted every 1.1 s, so it is never still for 1.5 s): what its captures gave board
    // A's hands is not known. Black's drop on board A is not read at once (a capture there
    // may be under way and tell its kind), but once board B has shown what no move
    // explains for 4 s, with every kind it may be.
    let mut h = Hands::new();
    h.mv(A, "e2", "e4").wait(500);
    h.lift(B, "g1").put(B, "g4");
    let unexplained_at = h.t;
    h.wait(900).put(A, "e5");
    while h.t < unexplained_at + 6_000 {
        let read = h.inf.waiting(A).is_none();
        assert_eq!(read, h.t >= unexplained_at + UNEXPLAINED_MS, "at {}", h.t);
        h.wait(900).lift(B, "h2").put(B, "h2");
    }
    let moves = h.done();
    let (_, _, note) = moves
        .iter()
        .find(|(b, mv, _)| *b == A && mv.contains('@'))
        .expect("the drop");
    assert_eq!(
        *note,
        KindNote::DropUndetermined {
            choices: vec![
                Role::Pawn,
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen
            ]
        }
    );
}

/// White drops a knight or a bishop (its kind open) on b1, Black's king steps.
fn open_kind_on_b1(a_fen: &str) -> Hands {
    let mut h = Hands::from_bfen(&format!("{a_fen} | 4k3/8/8/8/8/8/8/4K3 w - -"));
    h.put(A, "b1").mv(A, "e8", "d8");
    h
}

#[test]
fn a_capturer_set_onto_its_victim_is_read_from_the_reply_with_pieces_of_open_kind_about() {
    // A piece of open kind stands on b1. White's g4 pawn is set straight onto h5 and
    // Black's rook takes it back at once: its one victim, and a reply that fits.
    let mut h = open_kind_on_b1("4k2r/8/8/7p/6P1/8/8/4K3/NB w - -");
    h.lift(A, "g4").lift(A, "h8").lift(A, "h5").put(A, "h5");
    let got = h.done();
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[2..], gxh5_rxh5());
}

#[test]
fn with_pieces_of_open_kind_about_a_reply_that_does_not_fit_rules_out_no_victim() {
    // The g4 pawn may have taken f5 or h5; the rook's reply fits only gxh5. With no piece
    // of open kind on the board that rules f5 out; with one, a placeholder could be what
    // makes the reply illegal after gxf5: nothing is read.
    let mut h = Hands::from_bfen("3k3r/8/8/5p1p/6P1/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "g4").lift(A, "h8").lift(A, "h5").put(A, "h5");
    assert_eq!(h.done().len(), 2);
    let mut h = open_kind_on_b1("4k2r/8/8/5p1p/6P1/8/8/4K3/NB w - -");
    h.lift(A, "g4").lift(A, "h8").lift(A, "h5").put(A, "h5");
    assert_eq!(h.done().len(), 2, "only the drop and the king's step");
}

/// White's knight on f3 of board A could take the pawn on e5 (Black holds a pawn to
/// drop); on board B, White's knight on f3 is held still with two victims, so readings of
/// board B run side by side.
fn knight_and_pawn_while_b_is_read_side_by_side() -> Hands {
    let mut h = Hands::from_bfen("7k/8/8/4p3/8/5N2/8/K7/p w - - | 4k3/8/8/4p1p1/8/5N2/8/4K3 w - -");
    h.lift(B, "f3").wait(2_000);
    assert!(h.inf.held_choices(B).is_some());
    h
}

#[test]
fn a_put_back_that_may_be_a_capture_and_a_drop_stalls_while_the_other_board_is_read_side_by_side() {
    // Only one board's readings run side by side: the put-back on A cannot be followed
    // beside them, and it is not taken for sure.
    let mut h = knight_and_pawn_while_b_is_read_side_by_side();
    h.lift(A, "f3").wait(400).put(A, "f3").wait(300);
    let why = h.inf.stalled(A).expect("stalled");
    assert!(why.contains("put back, or set straight onto"), "{why}");
}

#[test]
fn a_late_quiet_move_that_may_be_a_capture_and_a_drop_stalls_while_the_other_board_is_read_side_by_side()
 {
    let mut h = knight_and_pawn_while_b_is_read_side_by_side();
    h.lift(A, "f3").wait(1_000).put(A, "d4").wait(300);
    let why = h.inf.stalled(A).expect("stalled");
    assert!(
        why.contains("went to d4, or was set straight onto"),
        "{why}"
    );
}

#[test]
fn a_late_quiet_move_stalls_in_the_other_board_s_readings_too() {
    // B's knight is held still (it took e5 or g5: read side by side) when A's knight lands
    // late on d4 (or took e5 and Black dropped on d4): A stalls. B's reading that took g5
    // is then told by its moves and taken, with A still stalled: that reading must not
    // have read A's quiet move for sure meanwhile.
    let mut h = knight_and_pawn_while_b_is_read_side_by_side();
    h.lift(A, "f3").wait(1_000).put(A, "d4").wait(300);
    assert!(h.inf.stalled(A).is_some());
    h.mv(B, "e8", "d8")
        .mv(B, "g5", "f7")
        .mv(B, "d8", "c7")
        .mv(B, "e1", "d1");
    let got = h.done();
    let why = h.inf.stalled(A).expect("A still stalled");
    assert!(
        why.contains("went to d4, or was set straight onto"),
        "{why}"
    );
    assert!(got.iter().all(|(b, _, _)| *b == B), "{got:?}");
    assert_eq!(got, knight_took_g5_on(B));
}

#[test]
fn a_piece_of_open_kind_held_still_then_put_back_or_down_where_it_goes_stalls() {
    // The knight or bishop dropped on e4 is held still (as a knight it may have taken f6,
    // as a bishop b7), then put back, or down on d5: it was in the hand all along, or it
    // took and Black dropped there. The board cannot tell, and says so.
    for square in ["e4", "d5"] {
        let mut h =
            Hands::from_bfen("4k3/1p6/5p2/8/8/8/8/4K3/NBp w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        h.put(A, "e4").mv(A, "e8", "f8").lift(A, "e4").wait(2_000);
        assert!(
            h.inf.stalled(A).is_none(),
            "the stall waits on the readings"
        );
        h.put(A, square).wait(300);
        assert!(h.inf.stalled(A).is_some(), "{square}");
        h.mv(A, "f8", "e7").mv(A, "e1", "d1");
        assert_eq!(
            h.done().len(),
            2,
            "{square}: only the drop and the king's step"
        );
    }
}

#[test]
fn later_moves_tell_what_a_piece_of_open_kind_held_still_took_among_others_of_open_kind() {
    // As `later_moves_tell_what_a_piece_of_open_kind_held_still_took`, with a second piece
    // of open kind dropped on h1 before: the victims are found by the held piece's shapes.
    let mut h = Hands::from_bfen("4k3/1p6/5p2/8/8/8/8/4K3/NBNB w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "e4")
        .mv(A, "e8", "f8")
        .put(A, "h1")
        .mv(A, "f8", "e8");
    h.lift(A, "e4").wait(2_000);
    assert!(
        h.inf.stalled(A).is_none(),
        "the stall waits on the readings"
    );
    h.mv(A, "e8", "d8")
        .mv(A, "f6", "g8")
        .mv(A, "d8", "c7")
        .mv(A, "e1", "d1");
    let got = h.done();
    assert!(h.inf.stalled(A).is_none());
    assert!(
        got.contains(&(
            A,
            normal(Role::Knight, "e4", "f6", Some(Role::Pawn)),
            KindNote::Exact
        )),
        "{got:?}"
    );
    assert_eq!(got.len(), 9, "{got:?}");
}

#[test]
fn later_moves_tell_what_a_capturer_held_still_took_while_the_other_board_stalls() {
    // As `later_moves_tell_which_of_several_pieces_a_capturer_held_still_took`, while board
    // B stalls (two pieces off at once and back) the same way in every reading: the
    // readings of A go on.
    let bfen = "4k3/8/8/4p1p1/8/5N2/8/4K3/p w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3").wait(2_000);
    h.lift(B, "e1").lift(B, "e8").put(B, "e8").put(B, "e1");
    assert!(h.inf.stalled(B).is_some());
    h.mv(A, "e8", "d8")
        .mv(A, "g5", "f7")
        .mv(A, "d8", "c7")
        .mv(A, "e1", "d1");
    assert_eq!(h.done(), knight_took_g5());
}

#[test]
fn later_moves_tell_whether_a_piece_of_open_kind_held_still_took_as_a_pawn_promoting() {
    // A pawn or a bishop dropped on g7 is held still: as a pawn it took f8 and promoted,
    // as a bishop it took f8. Each is a reading; the piece on f8 then goes down the file,
    // as only the promoted queen can.
    let mut h = Hands::from_bfen("k4n2/8/8/8/8/8/8/K7/PB w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.put(A, "g7").mv(A, "a8", "a7").lift(A, "g7").wait(2_000);
    assert!(
        h.inf.stalled(A).is_none(),
        "the stall waits on the readings"
    );
    h.mv(A, "a7", "a6")
        .mv(A, "f8", "f4")
        .mv(A, "a6", "a5")
        .mv(A, "a1", "b1")
        .mv(A, "a5", "b5");
    let got = h.done();
    assert!(h.inf.stalled(A).is_none(), "{got:?}");
    assert_eq!(got.len(), 8, "{got:?}");
    assert_eq!(
        got[2],
        (
            A,
            format!(
                "{:?}",
                Move::Normal {
                    role: Role::Pawn,
                    from: sq("g7"),
                    capture: Some(Role::Knight),
                    to: sq("f8"),
                    promotion: Some(Role::Queen),
                }
            ),
            KindNote::PromotionAssumed {
                choices: vec![Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            }
        ),
        "{got:?}"
    );
}

#[test]
fn a_capture_by_a_piece_of_open_kind_as_another_kind_whose_victim_flickered_stalls() {
    // A knight or a rook dropped on d4 (the knight its placeholder) is lifted, and d7
    // reads empty and full again: as a rook it took d7 (pulled out from under it), or as a
    // knight it was set straight onto e6 and d7 flickered. Only 40 ms empty, the board
    // cannot tell; 300 ms is a hand's pull, and Rxd7 is read.
    for (empty_ms, read) in [(40, false), (300, true)] {
        let mut h = Hands::from_bfen("4k3/3p4/4p3/8/8/8/8/K7/NR w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        h.put(A, "d4").mv(A, "e8", "f8").lift(A, "d4").lift(A, "d7");
        h.t = h.t + empty_ms - 100;
        h.put(A, "d7").wait(300).mv(A, "f8", "g8");
        let got = h.done();
        let rook_took = got
            .iter()
            .any(|(_, mv, _)| *mv == normal(Role::Rook, "d4", "d7", Some(Role::Pawn)));
        assert_eq!(rook_took, read, "{empty_ms} ms: {got:?}");
        assert_eq!(h.inf.stalled(A).is_some(), !read, "{empty_ms} ms");
    }
}

#[test]
fn a_victim_lifted_half_a_second_after_its_capturer_with_pieces_of_open_kind_about_is_taken() {
    // Black drops a knight or a rook on e1 (open kind: the knight its placeholder, which
    // would guard d3), beside White's king on d2, which may take c3, d3 or e1. The king is
    // lifted and `gap_ms` later d3 reads empty for `empty_ms`: a player holding his king
    // half a second before he takes (an outside generator's captures: a quarter of them)
    // is Kxd3, the dropped piece a rook. A flicker-short empty square, or a lift later
    // than a hand holding the king reaches, may be Kxc3 or Kxe1 set straight and noise on
    // d3: with a piece of open kind among the victims, the readings cannot run side by
    // side, and the board stalls.
    for (gap_ms, empty_ms, read) in [(514, 205, true), (514, 40, false), (1_700, 205, false)] {
        let mut h = Hands::from_bfen("7k/8/8/8/8/2np4/3K4/8/nr b - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        h.put(A, "e1").wait(300).lift(A, "d2");
        // Each reading takes 100 ms itself.
        h.t = h.t + gap_ms - 100;
        h.lift(A, "d3");
        h.t = h.t + empty_ms - 100;
        h.put(A, "d3").wait(300).mv(A, "h8", "g8");
        let got = h.done();
        let king_took = got
            .iter()
            .any(|(_, mv, _)| *mv == normal(Role::King, "d2", "d3", Some(Role::Pawn)));
        assert_eq!(king_took, read, "{gap_ms} ms, {empty_ms} ms: {got:?}");
        assert_eq!(
            h.inf.stalled(A).is_some(),
            !read,
            "{gap_ms} ms, {empty_ms} ms"
        );
    }
}

#[test]
fn a_dropped_piece_that_moves_as_only_a_promoted_pawn_can_was_a_pawn_and_goes_back_as_one() {
    // A pawn or a bishop dropped on g7 takes the rook on h8 (as a pawn promoting, as a
    // bishop plainly), then jumps to g6 as only a knight can: a promoted knight, so the
    // drop was a pawn, and the rook on g2 taking it gives White's partner a pawn.
    for placeholder_first in [true, false] {
        let hand = if placeholder_first { "PB" } else { "BP" };
        let bfen = format!("k6r/8/8/8/8/8/6r1/K7/{hand} w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut h = Hands::from_bfen(&bfen);
        h.put(A, "g7").mv(A, "a8", "a7");
        h.lift(A, "h8").mv(A, "g7", "h8").mv(A, "a7", "a6");
        h.mv(A, "h8", "g6").lift(A, "g6").mv(A, "g2", "g6");
        h.mv(A, "a1", "b1");
        let got = h.done();
        assert!(h.inf.stalled(A).is_none(), "{hand}: {got:?}");
        assert_eq!(got.len(), 7, "{hand}: {got:?}");
        assert_eq!(
            (got[4].1.as_str(), &got[4].2),
            (
                normal(Role::Knight, "h8", "g6", None).as_str(),
                &KindNote::Exact
            ),
            "{hand}: {got:?}"
        );
        let settled = h.inf.take_resolutions();
        let drop_kinds: Vec<Role> = match &got[0].2 {
            KindNote::DropUndetermined { choices } => choices.clone(),
            _ => Vec::new(),
        };
        assert!(
            settled.iter().any(|r| r.board == A && r.role == Role::Pawn)
                || drop_kinds.contains(&Role::Pawn),
            "{hand}: the drop is settled as a pawn or left open with it: {got:?} {settled:?}"
        );
        assert!(
            !settled
                .iter()
                .any(|r| r.board == A && r.t == 100 && r.role != Role::Pawn),
            "{hand}: the drop is settled as nothing else: {settled:?}"
        );
        let white_b = h.inf.game().board(B).pockets().white;
        assert!(white_b.count(Role::Pawn) == 1, "{hand}: {white_b:?}");
        assert!(white_b.count(Role::Knight) == 0, "{hand}: {white_b:?}");
    }
}

#[test]
fn a_promoted_piece_whose_kind_is_told_later_stays_promoted() {
    // White's pawn takes on h8 and promotes (its piece flagged); as a queen or a rook it
    // would hold the eighth rank, so the king stepping from a8 to b8 tells it is neither.
    // The rook on h2 takes it: it goes back to White's partner as a pawn.
    let mut h = Hands::from_bfen("k6n/6P1/8/8/8/8/7r/K7 w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "h8").mv(A, "g7", "h8");
    h.mv(A, "a8", "b8").mv(A, "a1", "b1");
    h.lift(A, "h8").mv(A, "h2", "h8").mv(A, "b1", "c1");
    let got = h.done();
    assert!(h.inf.stalled(A).is_none(), "{got:?}");
    assert_eq!(got.len(), 5, "{got:?}");
    let white_b = h.inf.game().board(B).pockets().white;
    assert!(white_b.count(Role::Pawn) == 1, "{white_b:?}");
}

#[test]
fn a_piece_of_open_kind_is_settled_by_its_own_move_s_shape() {
    // A knight or a bishop dropped on e4 (the board cannot tell) goes to f6: only a
    // knight's shape does that, so the drop is settled as a knight even where the
    // placeholder could have made the move.
    for hand in ["NB", "BN"] {
        let bfen = format!("k7/8/8/8/8/8/8/K7/{hand} w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut h = Hands::from_bfen(&bfen);
        h.put(A, "e4")
            .mv(A, "a8", "b8")
            .mv(A, "e4", "f6")
            .mv(A, "b8", "a8");
        let got = h.done();
        assert_eq!(got.len(), 4, "{hand}: {got:?}");
        let settled = h.inf.take_resolutions();
        assert!(
            settled
                .iter()
                .any(|r| r.board == A && r.role == Role::Knight),
            "{hand}: {got:?} {settled:?}"
        );
    }
}

#[test]
fn a_drop_while_a_piece_was_lifted_and_put_back_that_could_have_taken_stalls() {
    // Black's queen is lifted from d2, a piece lands on e4 (where the queen cannot go),
    // and d2 fills again: Black dropped on e4 while holding his queen, or the queen was
    // set straight onto the knight on c2, White dropped on e4 and Black dropped on d2.
    // The board cannot tell.
    let mut h = Hands::from_bfen("4k3/8/8/8/8/8/2Nq4/7K/Pp b - - | 4k3/8/8/8/8/8/8/4K3 w - -");
    h.lift(A, "d2")
        .wait(1_000)
        .put(A, "e4")
        .wait(500)
        .put(A, "d2");
    h.wait(300);
    let why = h.inf.stalled(A).expect("stalled");
    assert!(
        why.contains("was lifted and put back, or that piece was set straight onto"),
        "{why}"
    );
    assert!(h.done().is_empty());
}

#[test]
fn a_piece_held_still_while_the_opponent_lifted_and_put_back_a_piece_that_could_take_stalls() {
    // White's knight leaves f3 and is not seen again: set straight onto e5, its one
    // victim. Meanwhile Black's rook on b3 is lifted and put back: a j'adoube, or the rook
    // set straight onto b2 and White dropping his pawn on b3. The board cannot tell.
    let bfen = "7k/8/8/4p3/8/1r3N2/1P6/K7/P w - - | 4k3/8/8/8/8/8/8/4K3 w - -";
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3")
        .wait(500)
        .lift(A, "b3")
        .wait(400)
        .put(A, "b3")
        .wait(2_000);
    let why = h.inf.stalled(A).expect("stalled");
    assert!(
        why.contains("then the piece on b3 was lifted and put back, or set straight onto"),
        "{why}"
    );
    // A flicker of the rook's square is no lift: the capture is read.
    let mut h = Hands::from_bfen(bfen);
    h.lift(A, "f3").wait(500).lift(A, "b3");
    h.t += 40;
    h.put(A, "b3").wait(2_000);
    assert!(h.inf.stalled(A).is_none());
    h.mv(A, "h8", "g8");
    assert_eq!(
        h.done().first(),
        Some(&(
            A,
            normal(Role::Knight, "f3", "e5", Some(Role::Pawn)),
            KindNote::Exact
        ))
    );
}

#[test]
fn a_board_resting_on_its_open_move_makes_it_final_the_last_move_of_a_game_too() {
    let mut h = Hands::new();
    h.mv(A, "e2", "e4");
    // Not yet: a hand may still be at work.
    h.t += 1_000;
    assert!(h.inf.commit_at_rest(h.t).is_empty());
    h.t += 2_500;
    let rested = h.inf.commit_at_rest(h.t);
    assert_eq!(rested.len(), 1, "{rested:?}");
    assert_eq!(
        format!("{:?}", rested[0].mv),
        normal(Role::Pawn, "e2", "e4", None)
    );
    // Made final once: the next move goes on from it.
    h.mv(A, "e7", "e5");
    assert_eq!(h.done().len(), 1);
    // A capture taken for a piece held still is not made final by resting: the piece may
    // yet be put back.
    let mut h = Hands::from_bfen(KNIGHT_AND_PAWN);
    h.lift(A, "f3").wait(2_000);
    h.t += 10_000;
    h.inf.tick(h.t);
    assert!(h.inf.commit_at_rest(h.t).is_empty());
    h.put(A, "f3");
    assert!(h.done().is_empty());
}

#[test]
fn a_board_resting_on_its_move_while_the_other_board_is_read_side_by_side_makes_it_final_once() {
    // B's knight is held still (it took e5 or g5: read side by side); A's king steps and the
    // board rests: the step is final at once, in every reading, and handed on once when
    // B's reading is taken.
    let mut h = knight_and_pawn_while_b_is_read_side_by_side();
    h.mv(A, "a1", "b1");
    h.t += 3_500;
    let rested = h.inf.commit_at_rest(h.t);
    assert_eq!(
        rested
            .iter()
            .map(|m| format!("{:?}", m.mv))
            .collect::<Vec<_>>(),
        vec![normal(Role::King, "a1", "b1", None)]
    );
    h.mv(B, "e8", "d8")
        .mv(B, "g5", "f7")
        .mv(B, "d8", "c7")
        .mv(B, "e1", "d1");
    let got = h.done();
    assert!(got.iter().all(|(b, _, _)| *b == B), "{got:?}");
    assert_eq!(got, knight_took_g5_on(B));
}

#[test]
fn a_drop_read_late_with_two_pieces_lifted_at_once_and_back_since_stalls() {
    // Board B: Black to move, holding nothing yet; White's bishop on g6 may take f7.
    // Board A: White's knight on f3 may take e5 (that gives Black on B a pawn).
    let mut h = Hands::from_bfen(
        "rnbqkbnr/pppp1ppp/8/4p3/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - | rn1qkbnr/ppp1ppp1/6B1/8/8/8/PPPPPPPP/RNBQK1NR b KQkq -",
    );
    // Black drops on d3 before the capture that supplies him is seen: the board waits.
    h.put(B, "d3").wait(300);
    // White's bishop takes f7 (the pawn lifted after it, the bishop set down there)...
    h.lift(B, "g6").lift(B, "f7").put(B, "f7").wait(300);
    // ...the capture on A is seen now...
    h.lift(A, "f3").lift(A, "e5").put(A, "e5").wait(300);
    // ...and Black drops a piece where the bishop stood. Only d3 is new on B: the drop
    // alone, or the drop, the capture and a drop on g6; the board cannot tell.
    h.put(B, "g6").wait(300);
    let got = h.done();
    assert!(
        !got.iter().any(|(b, _, _)| *b == B),
        "board B took {got:?} from what it cannot tell"
    );
    assert!(h.inf.stalled(B).is_some(), "{got:?}");
}

#[test]
fn a_quiet_move_onto_a_square_another_piece_stood_on_before_it_left_stalls() {
    // Board A: Black to move; his rook on a7 may take a2; White holds two pawns.
    let mut h = Hands::from_bfen(
        "1nbqkbnr/rpppp1pp/5p2/5p2/1p6/3Pp2N/PPPPBPPP/RNBQK2R/PP b KQk - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
    );
    // The rook is set straight onto a2 (that square never reads empty)...
    h.lift(A, "a7").wait(1_200);
    // ...White drops a pawn on f7 with check...
    h.put(A, "f7").wait(850);
    // ...the king takes it...
    h.lift(A, "e8")
        .wait(160)
        .lift(A, "f7")
        .wait(50)
        .put(A, "f7");
    h.wait(3_400);
    // ...and White drops a pawn where the rook stood. The board shows the king's step to
    // f7 alone, but a piece stood on f7 before the king left: more happened (random 4270,
    // wrong with the arbiter).
    h.put(A, "a7").wait(4_000);
    let got = h.done();
    assert!(
        !got.iter().any(|(b, _, _)| *b == A),
        "board A took {got:?} from what it cannot tell"
    );
    assert!(h.inf.stalled(A).is_some(), "{got:?}");
}

#[test]
fn a_late_quiet_move_of_a_piece_of_open_kind_that_could_have_taken_as_another_kind_is_not_taken() {
    // Board A: White holds a bishop and a rook, Black a pawn.
    let mut h = Hands::from_bfen(
        "4k3/3p3p/8/8/8/8/8/4K3/BRp w - - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
    );
    // White drops one of them on d4 (the board cannot tell which: a bishop stands for
    // it); Black answers.
    h.put(A, "d4").wait(1_000);
    h.mv(A, "h7", "h6").wait(1_000);
    // The piece on d4 is lifted and b6 fills 1.3 s later: the bishop's step to b6, or the
    // rook set straight onto d7 (that square never reads empty) and Black's pawn dropped
    // on b6. As a bishop the piece takes nothing (random 3114, wrong with the arbiter:
    // no capture was looked for).
    h.lift(A, "d4").wait(1_200).put(A, "b6").wait(4_000);
    let got = h.done();
    assert!(
        !got.iter().any(|(b, mv, _)| *b == A && mv.contains("d4b6")),
        "board A took the quiet move for sure: {got:?}"
    );
    assert!(h.inf.stalled(A).is_some(), "{got:?}");
}
