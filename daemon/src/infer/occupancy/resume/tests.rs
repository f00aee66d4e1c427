//! The arbiter's moves for a board the occupancy inference could not follow.

use super::super::*;
use super::SnapshotLog;
use crate::rules::RulesetName;
use crate::rules::notation::parse_bfen;

fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

/// A table of occupancy boards, each snapshot kept for the arbiter as the feed keeps it.
struct Table {
    inf: OccupancyInference,
    record: BughouseGame,
    occ: ByBoard<u64>,
    log: SnapshotLog,
    t: u64,
    out: Vec<OccupancyMove>,
}

impl Table {
    /// Board A as `a` (FEN with holdings), board B in the start position.
    fn new(a: &str) -> Table {
        let rules = RulesetName::Fide.ruleset();
        let bfen = format!("{a} | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        let boards = parse_bfen(&bfen, rules).expect("bfen");
        let game = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
        Table {
            occ: ByBoard::new_with(|b| game.board(b).board().occupied().0),
            inf: OccupancyInference::from_game(game.clone(), rules),
            record: game,
            log: SnapshotLog::default(),
            t: 0,
            out: Vec::new(),
        }
    }

    fn set(&mut self, s: &str, on: bool) -> &mut Self {
        let bit = 1u64 << sq(s).index();
        if on {
            self.occ.a |= bit;
        } else {
            self.occ.a &= !bit;
        }
        self.t += 300;
        self.log.push(BoardId::A, self.t, self.occ.a);
        let moves = self.inf.feed(BoardId::A, self.t, self.occ.a);
        self.hand_on(moves);
        self
    }

    fn lift(&mut self, s: &str) -> &mut Self {
        self.set(s, false)
    }

    fn put(&mut self, s: &str) -> &mut Self {
        self.set(s, true)
    }

    /// Moves decided are handed on: the record plays them, the log drops what came before.
    fn hand_on(&mut self, moves: Vec<OccupancyMove>) {
        for m in &moves {
            self.record.play(m.board, &m.mv, m.t);
            self.log.handed_on(m.board, m.t);
        }
        self.out.extend(moves);
    }

    /// The arbiter enters `sans` for board A, from the record's position.
    fn enter(&mut self, sans: &[&str]) -> Result<Vec<String>, ResumeRefused> {
        use crate::rules::notation::San;
        use std::str::FromStr;
        let mut pos = self.record.board(BoardId::A).clone();
        let mut moves = Vec::new();
        for text in sans {
            let san = San::from_str(text).expect("san");
            let mv = san.to_move_for(&pos, pos.turn()).expect("fits");
            pos.play(&mv);
            moves.push(mv);
        }
        self.t += 5_000;
        let read = self
            .inf
            .resume(BoardId::A, &self.record, &moves, &mut self.log, self.t)?;
        for mv in &moves {
            self.record.play(BoardId::A, mv, self.t);
        }
        let names = read.iter().map(|m| format!("{:?}", m.mv)).collect();
        self.hand_on(read);
        Ok(names)
    }

    /// The board rests: its open move is final and handed on.
    fn rest(&mut self) {
        self.t += 4_000;
        let rested = self.inf.commit_at_rest(self.t);
        self.hand_on(rested);
    }

    fn fen(&self) -> String {
        crate::rules::notation::bfen::write_board_fen(self.inf.game().board(BoardId::A), None)
    }
}

/// White's knight on c3 may take the pawn on d5; Black holds a pawn to drop.
const KNIGHT_AND_PAWN: &str = "rnbqkbnr/ppp1pppp/8/3p4/8/2N5/PPPPPPPP/R1BQKBNR/p w KQkq -";

/// The knight takes with its victim lifted first, Black drops a pawn where it stood: the
/// board is back as it was, and reads as both pieces put back too.
fn capture_and_drop_where_it_stood(table: &mut Table) {
    table.lift("d5").lift("c3").put("d5").put("c3");
    assert!(
        table.inf.stalled(BoardId::A).is_some(),
        "the board cannot tell"
    );
    assert!(table.inf.needs_arbiter(BoardId::A));
}

#[test]
fn a_stalled_board_goes_on_from_the_arbiters_moves_and_reads_its_moves_since_again() {
    let mut table = Table::new(KNIGHT_AND_PAWN);
    capture_and_drop_where_it_stood(&mut table);
    // The game goes on while the arbiter walks over: White's knight comes out.
    table.lift("g1").put("f3");
    assert!(
        table.out.is_empty(),
        "nothing is taken from a stalled board"
    );
    let read = table.enter(&["Nxd5", "P@c3"]).expect("the moves fit");
    assert_eq!(read, vec!["g1f3".to_owned()], "{}", table.fen());
    assert!(table.inf.stalled(BoardId::A).is_none());
    // And the board is followed from there as any.
    table.lift("e7").put("e5");
    table.rest();
    assert_eq!(
        table
            .out
            .iter()
            .map(|m| format!("{:?}", m.mv))
            .collect::<Vec<_>>(),
        vec!["g1f3", "e7e5"]
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        table.fen(),
        "rnbqkbnr/ppp2ppp/8/3Np3/8/2p2N2/PPPPPPPP/R1BQKB1R w KQkq -"
    );
}

#[test]
fn moves_that_do_not_fit_are_refused_and_change_nothing() {
    let mut table = Table::new(KNIGHT_AND_PAWN);
    capture_and_drop_where_it_stood(&mut table);
    let record = table.record.clone();
    // Black's move first: not White's turn.
    let e5 = Move::Normal {
        role: Role::Pawn,
        from: sq("e7"),
        capture: None,
        to: sq("e5"),
        promotion: None,
    };
    let refused = table
        .inf
        .resume(BoardId::A, &record, &[e5], &mut table.log, 9_000)
        .expect_err("illegal");
    assert!(refused.0.contains("not legal"), "{refused}");
    assert!(table.inf.stalled(BoardId::A).is_some(), "still stalled");
    let none = table
        .inf
        .resume(BoardId::A, &record, &[], &mut table.log, 9_000)
        .expect_err("empty");
    assert!(none.0.contains("no move"), "{none}");
}

#[test]
fn a_position_shown_at_several_moments_with_readings_that_differ_waits_for_moves_up_to_now() {
    // White holds a knight, Black two pawns.
    let mut table = Table::new("rnbqkbnr/ppp1pppp/8/3p4/8/2N5/PPPPPPPP/R1BQKBNR/Npp w KQkq -");
    capture_and_drop_where_it_stood(&mut table);
    // The game goes on: White drops a knight on e5, Black a pawn on b3, and each dropped
    // piece is set straight onto a piece it takes (f7, a2). The board shows the position
    // after the arbiter's moves again: read from the first time, those drops follow; from
    // the second, nothing.
    table.put("e5").put("b3").lift("e5").lift("b3");
    let read = table.enter(&["Nxd5", "P@c3"]).expect("the moves fit");
    assert!(read.is_empty(), "{read:?}");
    let why = table
        .inf
        .stalled(BoardId::A)
        .expect("waits for the arbiter");
    assert!(
        why.contains("up to the position the board shows now"),
        "{why}"
    );
    // Entering them up to now takes it up.
    table
        .enter(&["N@e5", "P@b3", "Nxf7", "bxa2"])
        .expect("the moves fit");
    assert!(table.inf.stalled(BoardId::A).is_none());
    table.lift("g1").put("f3");
    table.rest();
    assert_eq!(
        table.out.last().map(|m| format!("{:?}", m.mv)),
        Some("g1f3".to_owned()),
        "{}",
        table.fen()
    );
}

#[test]
fn the_arbiter_settles_a_kind_the_board_left_open() {
    // White holds a knight and a bishop: a drop on e3 may be either.
    let mut table = Table::new("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/NB w KQkq -");
    table.put("e3").lift("e7").put("e6");
    let drop = table.out.first().expect("the drop").clone();
    assert!(
        matches!(drop.note, KindNote::DropUndetermined { .. }),
        "{drop:?}"
    );
    assert_eq!(table.inf.open_kinds(BoardId::A).len(), 1);
    table
        .inf
        .settle_kind(BoardId::A, drop.t, Role::Bishop)
        .expect("a bishop may be");
    let settled = table.inf.take_resolutions();
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].role, Role::Bishop);
    assert!(table.inf.open_kinds(BoardId::A).is_empty());
    let refused = table.inf.settle_kind(BoardId::A, drop.t, Role::Rook);
    assert!(refused.is_err(), "nothing open is left there");
    // A queen was never among the kinds.
    let mut other = Table::new("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/NB w KQkq -");
    other.put("e3").lift("e7").put("e6");
    let t = other.out[0].t;
    assert!(other.inf.settle_kind(BoardId::A, t, Role::Queen).is_err());
}

#[test]
fn a_piece_the_arbiter_promotes_is_of_open_kind_no_more() {
    // White holds a pawn and a queen: a drop on b7 may be either (recorded as a pawn);
    // the arbiter enters Black's reply and the pawn's promotion to a knight on b8.
    let mut table = Table::new("4k3/8/8/8/8/8/8/4K3/PQ w - -");
    table.put("b7").lift("e8").put("d8");
    let drop = table.out.first().expect("the drop").clone();
    assert_eq!(table.inf.open_kinds(BoardId::A).len(), 1);
    table.enter(&["Kd8", "b8=N"]).expect("entered");
    // The knight stands on b8, of known kind; the drop was a pawn's.
    assert_eq!(table.fen(), "1N~1k4/8/8/8/8/8/8/4K3/Q b - -");
    assert!(table.inf.open_kinds(BoardId::A).is_empty());
    let settled = table.inf.take_resolutions();
    assert!(
        settled
            .iter()
            .any(|r| r.t == drop.t && r.role == Role::Pawn),
        "{settled:?}"
    );
}

#[test]
fn the_arbiters_moves_name_a_piece_of_open_kind_as_the_record_carries_it() {
    // White holds a knight and a bishop: the drop on e3 may be either, and this reading
    // carries a knight there. The record carries a bishop (the feed fits placeholders to
    // the hands as it has them), and the arbiter moves that piece as a bishop.
    let mut table = Table::new("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/NB w KQkq -");
    table.put("e3").lift("e7").put("e6");
    table.rest();
    assert_eq!(
        table
            .inf
            .game()
            .board(BoardId::A)
            .board()
            .piece_at(sq("e3")),
        Some(Role::Knight.of(Color::White)),
        "this reading's first choice"
    );
    table
        .record
        .board_mut(BoardId::A)
        .set_piece_at(sq("e3"), Role::Bishop.of(Color::White));
    table.enter(&["Bxa7"]).expect("the piece the record shows");
    assert_eq!(
        table.fen(),
        "rnbqkbnr/Bppp1ppp/4p3/8/8/8/PPPPPPPP/RNBQKBNR/B b KQkq -",
        "the bishop took on a7 (the hand it came from is left as it was, as unsure)"
    );
}
