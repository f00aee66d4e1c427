//! Perft: the positions and counts of `docs/perft.md` (crazyhouse move generation is
//! bughouse's on one board), to depth 4 here; deeper counts run in the benchmark. Koedem's
//! positions and counts are those of `docs/perft-koedem.md`, checked against a second, slow
//! generator (`slow_perft`) that shares no code with the rules core.

mod slow_perft;

use bugbridge::rules::notation::{parse_board_fen, write_board_fen};
use bugbridge::rules::{Position, Ruleset, RulesetName};
use slow_perft::Slow;

/// (id, FEN, counts from depth 1)
pub const SUITE: &[(&str, &str, &[u64])] = &[
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        &[20, 400, 8902, 197_281, 4_888_832],
    ),
    (
        "zh-all-drop-types",
        "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1",
        &[301, 75_353],
    ),
    (
        "zh-drops",
        "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1",
        &[67, 3083, 88_634, 932_554],
    ),
    (
        "zh-middlegame",
        "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1",
        &[42, 1347, 58_057, 2_083_382],
    ),
    (
        "zh-promoted",
        "4k3/1Q~6/8/8/4b3/8/Kpp5/8/ b - - 0 1",
        &[20, 360, 5445, 132_758],
    ),
    (
        "zh-midgame",
        "2rn1b1r/1pp2n1p/B1PBk1pP/5p1P/P5p1/2P2RP1/RP1QNP2/1NBK4[QPp] w - - 0 1",
        &[99, 3932, 314_782, 10_118_606],
    ),
];

#[test]
fn perft_suite_to_depth_4() {
    for (id, fen, counts) in SUITE {
        let pos = parse_board_fen(fen, Ruleset::default())
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .position;
        for (i, &want) in counts.iter().enumerate().take(4) {
            let depth = i as u32 + 1;
            assert_eq!(pos.perft(depth), want, "{id} depth {depth}");
        }
    }
}

/// The suite is the table of `docs/perft.md`, row for row: the same ids, FENs and counts.
#[test]
fn the_suite_is_the_table_of_the_docs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/perft.md");
    let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rows: Vec<Vec<String>> = doc
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().trim_matches('`').to_owned())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), SUITE.len(), "rows of docs/perft.md: {rows:?}");
    for ((id, fen, counts), row) in SUITE.iter().zip(&rows) {
        assert_eq!((row[0].as_str(), row[1].as_str()), (*id, *fen));
        let documented: Vec<u64> = row[2..]
            .iter()
            .filter(|c| !c.is_empty())
            .map(|c| c.parse().unwrap_or_else(|_| panic!("{id}: count {c:?}")))
            .collect();
        assert_eq!(documented, *counts, "{id}");
    }
}
/// Koedem (id, FEN, counts from depth 1), as in `docs/perft-koedem.md`.
pub const KOEDEM_SUITE: &[(&str, &str, &[u64])] = &[
    (
        "koedem-startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        &[20, 400, 8902, 197_742],
    ),
    (
        "koedem-kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[] w KQkq - 0 1",
        &[48, 2049, 107_668, 5_069_397],
    ),
    (
        "koedem-king-capture",
        "4k3/8/8/8/8/8/3q4/R3K2R[] b KQ - 0 1",
        &[28, 703, 19_864, 537_961],
    ),
    (
        "koedem-king-in-hand",
        "4k3/8/8/8/8/8/8/4K3[Kq] w - - 0 1",
        &[62, 4092, 46_826, 1_343_367],
    ),
    (
        "koedem-two-kings",
        "r3k3/8/8/3n4/8/8/8/2K1K3[Nk] b q - 0 1",
        &[59, 4012, 117_060, 2_683_258],
    ),
    (
        "koedem-kings-only-in-hand",
        "8/8/8/8/8/8/8/8[Kk] w - - 0 1",
        &[64, 4032, 26_460, 170_520],
    ),
    (
        "koedem-ep-promotion",
        "4k3/1P4p1/8/3pP3/8/8/8/R3K3[Qkr] w Q d6 0 1",
        &[79, 4447, 217_592, 15_037_859],
    ),
    (
        "koedem-dropped-rook",
        "r3k2r/8/8/8/8/8/8/R2K3R[R] w kq - 0 1",
        &[82, 2018, 95_569, 2_806_581],
    ),
];

/// The deepest count checked in `cargo test` (the benchmark checks all of them).
const KOEDEM_TEST_MAX_NODES: u64 = 6_000_000;

fn koedem_position(id: &str, fen: &str) -> Position {
    parse_board_fen(fen, RulesetName::Koedem.ruleset())
        .unwrap_or_else(|e| panic!("{id}: {e}"))
        .position
}

#[test]
fn koedem_perft_counts() {
    for (id, fen, counts) in KOEDEM_SUITE {
        let pos = koedem_position(id, fen);
        for (i, &want) in counts.iter().enumerate() {
            if want > KOEDEM_TEST_MAX_NODES {
                continue;
            }
            let depth = i as u32 + 1;
            assert_eq!(pos.perft(depth), want, "{id} depth {depth}");
        }
    }
}

#[test]
fn koedem_counts_agree_with_the_slow_generator() {
    for (id, fen, counts) in KOEDEM_SUITE {
        let slow = Slow::from_fen(fen);
        let pos = koedem_position(id, fen);
        let mut ours: Vec<String> = pos.legal_moves().iter().map(|m| m.uci()).collect();
        ours.sort();
        assert_eq!(ours, slow.uci_moves(), "{id}: root moves");
        for (i, &want) in counts.iter().enumerate() {
            if want > KOEDEM_TEST_MAX_NODES {
                continue;
            }
            let depth = i as u32 + 1;
            assert_eq!(
                slow.perft(depth),
                want,
                "{id} depth {depth} (slow generator)"
            );
        }
    }
}

/// Random walks through Koedem positions (captures kept in hand as perft does): at every
/// node both generators give the same moves.
#[test]
fn koedem_random_walks_agree_with_the_slow_generator() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut king_captures = 0;
    let mut king_drops = 0;
    for (id, fen, _) in KOEDEM_SUITE {
        for _walk in 0..6 {
            let mut pos = koedem_position(id, fen);
            for ply in 0..60 {
                let text = write_board_fen(&pos, None);
                let reread = koedem_position(id, &text);
                let slow = Slow::from_fen(&text);
                let mut ours: Vec<String> = reread.legal_moves().iter().map(|m| m.uci()).collect();
                ours.sort();
                assert_eq!(ours, slow.uci_moves(), "{id} ply {ply}: {text}");
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[next(moves.len())];
                let mover = pos.turn();
                if m.capture() == Some(bugbridge::rules::Role::King) {
                    king_captures += 1;
                }
                if m.is_drop() && m.role() == bugbridge::rules::Role::King {
                    king_drops += 1;
                }
                if let Some(c) = pos.play(&m).captured {
                    pos.pockets_mut()[mover].add(c.handoff_role());
                }
            }
        }
    }
    assert!(
        king_captures > 10 && king_drops > 10,
        "{king_captures} {king_drops}"
    );
}

/// Chess960 starts and castling corners (id, FEN with Shredder castling, depth), crazyhouse
/// counts as `perft` gives them: king and rook on any files, the king already on its target
/// file, king and rook on each other's targets, rooks beside the king, drops among them.
const CHESS960: &[(&str, &str, u32)] = &[
    (
        "bughouse.pro-start",
        "nrbbqnkr/pppppppp/8/8/8/8/PPPPPPPP/NRBBQNKR[] w BHbh - 0 1",
        4,
    ),
    (
        "adjacent-rooks",
        "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN[] w EGeg - 0 1",
        4,
    ),
    (
        "king-on-g-and-b",
        "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR[Nn] w BHbh - 0 1",
        3,
    ),
    (
        "king-b1-rook-a1",
        "rk5r/8/8/3q4/8/8/8/RK5R[Bb] w AHah - 0 1",
        3,
    ),
    (
        "king-c1-rooks-b1-g1",
        "1rk3r1/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/1RK3R1[Qq] w BGbg - 0 1",
        3,
    ),
    ("empty-ranks", "r2k3r/8/8/8/8/8/8/R2K3R[] b KQkq - 0 1", 4),
];

/// The rules core's Chess960 castling against shakmaty's crazyhouse in Chess960 mode: the
/// same number of leaves at every depth.
#[test]
fn chess960_counts_agree_with_shakmaty() {
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::variant::Crazyhouse;
    for (id, fen, depth) in CHESS960 {
        let ours = parse_board_fen(fen, Ruleset::default())
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .position;
        let theirs: Crazyhouse = fen
            .parse::<Fen>()
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .into_position(CastlingMode::Chess960)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        for d in 1..=*depth {
            assert_eq!(ours.perft(d), shakmaty::perft(&theirs, d), "{id} depth {d}");
        }
    }
}
