//! A journal of a table of occupancy-only boards (Sentio) whose board A stalls, for the
//! tests that replay it through the whole pipeline (`#[path]`-included).
//!
//! B: 1. e4 d5 2. exd5 (the pawn goes to Black on A); A: 1. Nc3 d5, then 2. Nxd5 (its
//! victim lifted first) and P@c3 where the knight stood: the board is back as it was, which
//! also reads as both pieces put back, so A stalls. White plays on (3. Nf3) while the
//! arbiter walks over, and B goes on: 2... Qxd5 (victim first).

use bugbridge::rules::{BoardId, BughouseGame, ByBoard, Ruleset, Square};
use bugbridge::sensor::wire_board_id;
use bugbridge_drivers::trace::{Occupancy, TraceEvent, TraceLine, line_to_string};

/// One square's reading: (t, board, square, occupied after).
pub(crate) type Change = (u64, BoardId, &'static str, bool);

/// The play up to B's 2... Qxd5 (11.4 s), A stalled since its 2. Nxd5 P@c3 (8 s).
pub(crate) const A_STALLS: [Change; 20] = [
    // B: 1. e4 d5 2. exd5
    (1_000, BoardId::B, "e2", false),
    (1_300, BoardId::B, "e4", true),
    (2_000, BoardId::B, "d7", false),
    (2_300, BoardId::B, "d5", true),
    (3_000, BoardId::B, "d5", false),
    (3_200, BoardId::B, "e4", false),
    (3_400, BoardId::B, "d5", true),
    // A: 1. Nc3 d5
    (4_000, BoardId::A, "b1", false),
    (4_300, BoardId::A, "c3", true),
    (5_000, BoardId::A, "d7", false),
    (5_300, BoardId::A, "d5", true),
    // A: 2. Nxd5 (victim first) P@c3: the board is back as it was.
    (7_000, BoardId::A, "d5", false),
    (7_200, BoardId::A, "c3", false),
    (7_400, BoardId::A, "d5", true),
    (8_000, BoardId::A, "c3", true),
    // A: 3. Nf3, while the arbiter walks over.
    (10_000, BoardId::A, "g1", false),
    (10_300, BoardId::A, "f3", true),
    // B goes on: 2... Qxd5 (victim first).
    (11_000, BoardId::B, "d5", false),
    (11_200, BoardId::B, "d8", false),
    (11_400, BoardId::B, "d5", true),
];

/// When the arbiter enters A's moves, `Nxd5 P@c3`.
pub(crate) const FILL_AT: u64 = 25_000;

/// The journal of `changes` from the start position, with the arbiter's entry of A's moves
/// at [`FILL_AT`] when `fill`.
pub(crate) fn journal(changes: impl IntoIterator<Item = Change>, fill: bool) -> String {
    let start = BughouseGame::new(Ruleset::default());
    let mut occ: ByBoard<u64> = ByBoard::new_with(|b| start.board(b).board().occupied().0);
    let line = |t: u64, board: BoardId, occ: u64| {
        line_to_string(&TraceLine {
            t,
            event: TraceEvent::Occupancy {
                board: wire_board_id(board),
                occupied: Occupancy(occ),
            },
        })
    };
    let mut lines: Vec<String> = BoardId::ALL.map(|b| line(0, b, occ[b])).to_vec();
    let mut filled = !fill;
    for (t, board, sq, on) in changes {
        if t > FILL_AT && !filled {
            filled = true;
            lines.push(format!(
                r#"{{"t":{FILL_AT},"ev":"operator","board":"A","action":"fill","moves":["Nxd5","P@c3"]}}"#
            ));
        }
        let bit = 1u64 << sq.parse::<Square>().expect("square").index();
        occ[board] = if on {
            occ[board] | bit
        } else {
            occ[board] & !bit
        };
        lines.push(line(t, board, occ[board]));
    }
    lines.join("\n") + "\n"
}

/// The SANs `replayed` recorded on `board`, in order.
pub(crate) fn sans(replayed: &bugbridge::cli::replay::Replayed, board: BoardId) -> Vec<String> {
    replayed
        .game
        .record()
        .iter()
        .filter(|e| e.board == board)
        .map(|e| e.san.clone())
        .collect()
}

/// Board A's record is its moves once the arbiter's entry took it up again, its 3... e5
/// after it.
pub(crate) fn assert_a_taken_up(replayed: &bugbridge::cli::replay::Replayed) {
    assert_eq!(
        sans(replayed, BoardId::A),
        ["Nc3", "d5", "Nxd5", "P@c3", "Nf3", "e5"],
        "{:#?}",
        replayed.decisions
    );
}
