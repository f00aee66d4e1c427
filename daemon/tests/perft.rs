//! Perft: the positions and counts of `docs/perft.md` (crazyhouse move generation is
//! bughouse's on one board), to depth 4 here; deeper counts run in the benchmark.

use bugbridge::rules::Ruleset;
use bugbridge::rules::notation::parse_board_fen;

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
