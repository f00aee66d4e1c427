//! Perft on the crazyhouse suite of `docs/perft.md` at its deepest published depth: ours
//! and shakmaty's in the same run, so the ratio is measured on the same machine and load.
//!
//! Every count is checked against the published number before it is timed (this is where
//! the depths too slow for `cargo test` are verified).
//!
//! Run: `cargo bench -p bugbridge --bench perft`.

use std::hint::black_box;
use std::time::Duration;

use bugbridge::rules::notation::parse_board_fen;
use bugbridge::rules::{Position, Ruleset};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use shakmaty::CastlingMode;
use shakmaty::fen::Fen;
use shakmaty::variant::Crazyhouse;

/// (id, FEN, depth, count)
const SUITE: &[(&str, &str, u32, u64)] = &[
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        5,
        4_888_832,
    ),
    (
        "zh-all-drop-types",
        "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1",
        2,
        75_353,
    ),
    ("zh-drops", "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", 4, 932_554),
    (
        "zh-middlegame",
        "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1",
        4,
        2_083_382,
    ),
    (
        "zh-promoted",
        "4k3/1Q~6/8/8/4b3/8/Kpp5/8/ b - - 0 1",
        4,
        132_758,
    ),
    (
        "zh-midgame",
        "2rn1b1r/1pp2n1p/B1PBk1pP/5p1P/P5p1/2P2RP1/RP1QNP2/1NBK4[QPp] w - - 0 1",
        4,
        10_118_606,
    ),
];

fn positions(fen: &str) -> (Position, Crazyhouse) {
    let ours = parse_board_fen(fen, Ruleset::default())
        .expect("suite FEN")
        .position;
    let theirs: Crazyhouse = fen
        .parse::<Fen>()
        .expect("suite FEN")
        .into_position(CastlingMode::Standard)
        .expect("suite position");
    (ours, theirs)
}

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    for &(id, fen, depth, count) in SUITE {
        let (ours, theirs) = positions(fen);
        assert_eq!(
            ours.perft(depth),
            count,
            "bugbridge perft {id} depth {depth}"
        );
        assert_eq!(
            shakmaty::perft(&theirs, depth),
            count,
            "shakmaty perft {id} depth {depth}"
        );
        group.bench_with_input(BenchmarkId::new("bugbridge", id), &depth, |b, &d| {
            b.iter(|| black_box(&ours).perft(d));
        });
        group.bench_with_input(BenchmarkId::new("shakmaty", id), &depth, |b, &d| {
            b.iter(|| shakmaty::perft(black_box(&theirs), d));
        });
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
