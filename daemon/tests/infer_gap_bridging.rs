//! Link gaps bridged in the situations that used to go wrong: presses that come after the
//! gap was bridged, a clock reading that arrives before the board's snapshot, a hand on
//! the board when the grace runs out, a promoted piece seen before it was taken, a gap
//! whose shortest explanation leaves the wrong side to move, and (outside the gap) a piece
//! adjusted before a drop and a capture by direct replacement.
//!
//! Each scenario is fed event by event with its times, as a board, its clock and the
//! driver's reconnection report them.

use bugbridge::infer::{AlertCode, InferConfig, Inference, Inferrer, SensorEvent};
use bugbridge::rules::notation::parse_bfen;
use bugbridge::rules::{Board, BoardId, BughouseGame, Color, Piece, Ruleset, Square};

const A: BoardId = BoardId::A;
const B: BoardId = BoardId::B;

/// Two boards with clocks, fed at explicit times.
struct Match {
    inf: Inferrer,
    t: u64,
    out: Vec<Inference>,
    /// What each board shows (kept by the test, as the sensors would).
    boards: [Board; 2],
}

fn idx(b: BoardId) -> usize {
    match b {
        BoardId::A => 0,
        BoardId::B => 1,
    }
}

impl Match {
    /// Both boards from a BFEN, both clocks started for the side to move (180 s each).
    fn new(bfen: &str) -> Match {
        let fens = parse_bfen(bfen, Ruleset::default()).expect("bfen");
        let game = BughouseGame::from_positions(
            fens.a.position.clone(),
            fens.b.position.clone(),
            Ruleset::default(),
        );
        let mut m = Match {
            inf: Inferrer::new(InferConfig::default(), Some(game.clone())),
            t: 0,
            out: Vec::new(),
            boards: [*game.board(A).board(), *game.board(B).board()],
        };
        for b in BoardId::ALL {
            m.snapshot(b);
        }
        for b in BoardId::ALL {
            let turn = game.board(b).turn();
            m.clock(b, 180.0, 180.0, Some(turn));
        }
        m
    }

    fn feed(&mut self, ev: SensorEvent) {
        self.inf.observe_into(self.t, &ev, &mut self.out);
    }

    fn at(&mut self, t: u64) -> &mut Match {
        assert!(t >= self.t, "time goes forward");
        self.t = t;
        let out = self.inf.tick(t);
        self.out.extend(out);
        self
    }

    /// A square reading; `visible: false` when the link is down (the board changes but
    /// nothing is reported).
    fn square(&mut self, b: BoardId, s: &str, p: Option<char>, visible: bool) -> &mut Match {
        let sq: Square = s.parse().expect("square");
        let piece = p.and_then(Piece::from_char);
        self.boards[idx(b)].set_square(sq, piece);
        if visible {
            self.feed(SensorEvent::Square {
                board: b,
                sq,
                piece,
            });
        }
        self
    }

    fn clock(&mut self, b: BoardId, white: f64, black: f64, running: Option<Color>) -> &mut Match {
        self.feed(SensorEvent::Clock {
            board: b,
            white,
            black,
            running,
        });
        self
    }

    fn snapshot(&mut self, b: BoardId) -> &mut Match {
        let placement = self.boards[idx(b)];
        self.feed(SensorEvent::Snapshot {
            board: b,
            placement,
        });
        self
    }

    fn link(&mut self, b: BoardId, up: bool) -> &mut Match {
        self.feed(SensorEvent::Link { board: b, up });
        self
    }

    /// The board's moves in the record, as UCI.
    fn moves(&self, b: BoardId) -> Vec<String> {
        self.inf
            .record()
            .iter()
            .filter(|e| e.board == b)
            .map(|e| e.mv.uci())
            .collect()
    }

    fn alerts(&self, code: AlertCode) -> usize {
        self.out
            .iter()
            .filter(|i| matches!(i, Inference::Alert(a) if a.code == code))
            .count()
    }

    /// The recorded reading of a board's move.
    fn clock_of(&self, b: BoardId, uci: &str) -> Option<f64> {
        self.inf
            .record()
            .iter()
            .find(|e| e.board == b && e.mv.uci() == uci)
            .and_then(|e| e.clock)
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";

/// The board back from the gap shows the last two plies on the board but not yet pressed
/// (a move, and the reply made before its press). Their presses then come: each completes
/// its ply (its reading recorded exactly), none is a press without a move, and the game
/// goes on in turn.
#[test]
fn presses_a_bridged_gap_still_owed_complete_its_plies() {
    let mut m = Match::new(&format!("{START} | {START}"));
    // 1. e4, pressed live.
    m.at(1000).square(A, "e2", None, true);
    m.at(1200).square(A, "e4", Some('P'), true);
    m.at(1400).clock(A, 178.0, 180.0, Some(Color::Black));
    m.at(2000).link(A, false);
    // In the gap: 1... d5 pressed; 2. exd5 made, not pressed; 2... Qxd5 made before it.
    m.at(2500).square(A, "d7", None, false);
    m.at(2700).square(A, "d5", Some('p'), false);
    m.at(3000).square(A, "e4", None, false);
    m.at(3100).square(A, "d5", None, false);
    m.at(3300).square(A, "d5", Some('P'), false);
    m.at(3600).square(A, "d8", None, false);
    m.at(3700).square(A, "d5", None, false);
    m.at(3900).square(A, "d5", Some('q'), false);
    m.at(5000).link(A, true);
    m.at(5020).snapshot(A);
    m.at(5030).clock(A, 175.0, 179.0, Some(Color::White));
    // A reading just after the snapshot does not judge it: a hand may be on the board.
    assert_eq!(m.moves(A), ["e2e4"]);
    // White presses for exd5, Black for Qxd5; then 3. Nc3 live.
    m.at(6000).clock(A, 174.0, 179.0, Some(Color::Black));
    m.at(6500).clock(A, 174.0, 178.5, Some(Color::White));
    m.at(7000).square(A, "b1", None, true);
    m.at(7200).square(A, "c3", Some('N'), true);
    m.at(7400).clock(A, 173.0, 178.5, Some(Color::Black));
    m.at(12_000);
    assert_eq!(m.moves(A), ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"]);
    assert_eq!(m.alerts(AlertCode::ClockWithoutMove), 0);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
    assert_eq!(m.clock_of(A, "e4d5"), Some(174.0));
    assert_eq!(m.clock_of(A, "d8d5"), Some(178.5));
}

/// A move made before the link dropped and pressed while it was down; at link-up the
/// clock reports before the board's snapshot, which shows the board as it was left. The
/// press is not lost: the move is completed, and the next move is in turn.
#[test]
fn a_reading_before_the_snapshot_keeps_the_press_made_in_the_gap() {
    let mut m = Match::new(&format!("{START} | {START}"));
    m.at(1000).square(A, "e2", None, true);
    m.at(1200).square(A, "e4", Some('P'), true);
    m.at(1400).clock(A, 178.0, 180.0, Some(Color::Black));
    // 1... e5 on the board, its press in the gap.
    m.at(2000).square(A, "e7", None, true);
    m.at(2200).square(A, "e5", Some('p'), true);
    m.at(2300).link(A, false);
    m.at(4000).link(A, true);
    m.at(4005).clock(A, 178.0, 177.0, Some(Color::White));
    m.at(4020).snapshot(A);
    m.at(4030).clock(A, 178.0, 177.0, Some(Color::White));
    m.at(5000).square(A, "g1", None, true);
    m.at(5200).square(A, "f3", Some('N'), true);
    m.at(5400).clock(A, 177.0, 177.0, Some(Color::Black));
    m.at(10_000);
    assert_eq!(m.moves(A), ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
    assert_eq!(m.clock_of(A, "e7e5"), Some(177.0));
}

/// At link-up the board shows Black's drop made but not pressed. When the grace runs
/// out, White is taking Black's bishop (the victim off the board, his bishop in the
/// hand): a board with a hand on it is not judged; the press then decides, and White's
/// capture is his own next move.
#[test]
fn the_end_of_the_grace_waits_while_a_hand_is_on_the_board() {
    // Black's bishop on c8, its diagonal to White's bishop on h3 open.
    let a = "2b1k3/pp6/8/8/8/7B/PP6/4K1N1[p] b - - 180 180";
    let mut m = Match::new(&format!("{a} | {START}"));
    m.at(1000).link(A, false);
    m.at(2000).square(A, "d3", Some('p'), false);
    m.at(3000).link(A, true);
    m.at(3020).snapshot(A);
    m.at(3030).clock(A, 180.0, 178.0, Some(Color::Black));
    // White's Bxc8 in progress when the grace ends.
    m.at(5300).square(A, "c8", None, true);
    m.at(5500).square(A, "h3", None, true);
    m.at(5600).clock(A, 180.0, 176.0, Some(Color::Black));
    m.at(6000).square(A, "c8", Some('B'), true);
    m.at(6100).clock(A, 180.0, 176.0, Some(Color::White));
    m.at(7000).clock(A, 179.0, 176.0, Some(Color::Black));
    m.at(12_000);
    assert_eq!(m.moves(A), ["P@d3", "h3c8"]);
    assert_eq!(m.alerts(AlertCode::GapAmbiguous), 0);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
}

/// A pawn promoted to a rook in the gap, shown on the board at link-up before its press;
/// the king then takes it before the press comes. Every promotion would explain the final
/// board, but the rook was seen: it is the one recorded.
#[test]
fn a_promoted_piece_seen_before_it_was_taken_decides_the_promotion() {
    let a = "7k/8/8/8/8/8/1p5P/2K5 b - - 180 180";
    let mut m = Match::new(&format!("{a} | {START}"));
    m.at(1000).link(A, false);
    m.at(2000).square(A, "b2", None, false);
    m.at(2300).square(A, "b1", Some('r'), false);
    m.at(3000).link(A, true);
    m.at(3020).snapshot(A);
    m.at(3030).clock(A, 180.0, 177.0, Some(Color::Black));
    // Kxb1 made before Black's press.
    m.at(3500).square(A, "c1", None, true);
    m.at(3700).square(A, "b1", Some('K'), true);
    m.at(3900).clock(A, 180.0, 177.0, Some(Color::White));
    m.at(4500).clock(A, 179.0, 177.0, Some(Color::Black));
    m.at(10_000);
    assert_eq!(m.moves(A), ["b2b1r", "c1b1"]);
}

/// Board B is silent while Black drops a pawn and White takes it (the pawn goes to
/// Black on A, who drops it meanwhile), then Black drops a bishop. The shortest
/// explanation of B (the bishop drop and a queen move) leaves Black to move while
/// White's clock runs; no press comes. After the grace, the three plies that supply A's
/// drop and leave White to move are the gap: A's drop is legal.
#[test]
fn after_the_grace_the_plies_that_supply_the_waiting_drop_bridge_the_gap() {
    let a = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 180 180";
    let b = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR[bp] b KQkq - 180 180";
    let mut m = Match::new(&format!("{a} | {b}"));
    m.at(1000).link(B, false);
    m.at(1500).square(B, "d2", Some('p'), false);
    m.at(2200).square(B, "d1", None, false);
    m.at(2400).square(B, "d2", Some('Q'), false);
    // Black on A drops the pawn White took on B.
    m.at(2600).square(A, "d5", Some('p'), true);
    m.at(2800).clock(A, 180.0, 177.0, Some(Color::White));
    m.at(3200).square(B, "c6", Some('b'), false);
    m.at(4500).link(B, true);
    m.at(4520).snapshot(B);
    m.at(4530).clock(B, 178.0, 177.0, Some(Color::White));
    m.at(12_000);
    assert_eq!(m.moves(B), ["P@d2", "d1d2", "B@c6"]);
    assert_eq!(m.moves(A), ["P@d5"]);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
    assert_eq!(m.alerts(AlertCode::UnrecognizedPosition), 0);
}

/// Black adjusts his bishop on b7, drops a bishop on c8, and White's queen takes on b7
/// by direct replacement before Black presses: b7 never read empty, so the bishop did not
/// leave it; the drop is Black's move and the capture White's.
#[test]
fn an_adjusted_piece_is_not_the_mover_of_a_drop_beside_it() {
    let b = "rn1qkbnr/pbpppppp/1p6/8/8/5Q2/PPPPPPPP/RNB1KBNR[b] b KQkq - 180 180";
    let mut m = Match::new(&format!("{START} | {b}"));
    m.at(1000).square(B, "b7", None, true);
    m.at(1600).square(B, "b7", Some('b'), true);
    m.at(2500).square(B, "c8", Some('b'), true);
    m.at(2800).square(B, "f3", None, true);
    m.at(3100).square(B, "b7", Some('Q'), true);
    m.at(3300).clock(B, 180.0, 177.0, Some(Color::White));
    m.at(4000).clock(B, 179.0, 177.0, Some(Color::Black));
    m.at(8000);
    assert_eq!(m.moves(B), ["B@c8", "f3b7"]);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
}

/// Black's reply and White's next move are both on the board when the link goes, neither
/// pressed; both presses come in the gap, and the board comes back exactly as it was left.
/// The clock shows the presses happened: the gap holds both plies, and Black's next move
/// is in turn (taking the board as unchanged would make every later press out of turn).
#[test]
fn a_board_back_as_it_was_left_still_owes_the_presses_made_in_the_gap() {
    let mut m = Match::new(&format!("{START} | {START}"));
    m.at(1000).square(A, "e2", None, true);
    m.at(1200).square(A, "e4", Some('P'), true);
    m.at(1400).clock(A, 178.0, 180.0, Some(Color::Black));
    // 1... e5 and 2. Nf3 on the board, no press yet.
    m.at(2000).square(A, "e7", None, true);
    m.at(2200).square(A, "e5", Some('p'), true);
    m.at(2400).square(A, "g1", None, true);
    m.at(2600).square(A, "f3", Some('N'), true);
    m.at(3000).link(A, false);
    m.at(6000).link(A, true);
    m.at(6020).snapshot(A);
    // Black's clock ran 1 s and White's 2 s: both pressed meanwhile.
    m.at(6030).clock(A, 176.0, 178.0, Some(Color::Black));
    m.at(7030).clock(A, 176.0, 177.0, Some(Color::Black));
    assert_eq!(m.moves(A), ["e2e4", "e7e5", "g1f3"]);
    m.at(8000).square(A, "b8", None, true);
    m.at(8200).square(A, "c6", Some('n'), true);
    m.at(8400).clock(A, 176.0, 176.0, Some(Color::White));
    m.at(12_000);
    assert_eq!(m.moves(A), ["e2e4", "e7e5", "g1f3", "b8c6"]);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
}

/// The board lost its link while a drop was on it unpressed; in the gap the drop was
/// pressed, the king took the dropped pawn, and Black's a6 is on the board at link-up, not
/// pressed yet. The king's step with a6 pressed (`a6 Kg3`) also explains the board and the
/// clock, but the pawn was seen on g3 before the link went: the gap is the drop, the
/// capture, and a6 once pressed.
#[test]
fn a_move_on_the_board_when_the_link_went_is_the_gaps_first_ply() {
    let a = "4k3/p7/8/8/8/8/6K1/8[p] b - - 180 180";
    let mut m = Match::new(&format!("{a} | {START}"));
    m.at(1000).square(A, "g3", Some('p'), true);
    m.at(1500).link(A, false);
    m.at(2000).square(A, "g2", None, false);
    m.at(2200).square(A, "g3", Some('K'), false);
    m.at(3000).square(A, "a7", None, false);
    m.at(3200).square(A, "a6", Some('p'), false);
    m.at(4000).link(A, true);
    m.at(4020).snapshot(A);
    m.at(4030).clock(A, 179.0, 177.0, Some(Color::Black));
    m.at(5030).clock(A, 179.0, 177.0, Some(Color::Black));
    m.at(5500).clock(A, 179.0, 176.5, Some(Color::White));
    m.at(10_000);
    assert_eq!(m.moves(A), ["P@g3", "g2g3", "a7a6"]);
    assert_eq!(m.alerts(AlertCode::GapAmbiguous), 0);
    assert_eq!(m.alerts(AlertCode::IllegalMove), 0);
}
