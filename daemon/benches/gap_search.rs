//! The gap search (`infer::gap::search`) by gap length: for 1 to 6 plies, with pieces in
//! hand (drops among the candidates at every ply) and without, the time of each search
//! (p50/p99/max) and the positions it visited, printed; criterion times the lot.
//!
//! The gaps are cut out of random games: a board's position, the next `n` plies of that
//! board, the placement after them and the side to move. The search runs as the daemon
//! runs it (shortest sequences whatever side they leave to move, default budget).
//!
//! Run: `cargo bench -p bugbridge --bench gap_search`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bugbridge::infer::InferConfig;
use bugbridge::infer::gap::search::{GapQuery, GapSearch, search};
use bugbridge::rules::{Board, Position, Ruleset};
use bugbridge::simulate::random_game;
use criterion::{Criterion, criterion_group, criterion_main};

/// A gap: the position before it and what the board shows after it.
struct Case {
    from: Position,
    target: Board,
    plies: usize,
}

/// Up to `want` gaps of `plies` plies, with pieces in hand at the start (`drops`) or with
/// empty holdings and no drop among the plies.
fn cases(plies: usize, drops: bool, want: usize) -> Vec<Case> {
    let mut out = Vec::new();
    for seed in 0..400u64 {
        let game = random_game(seed, 120, Ruleset::default());
        let mut state = game.start.clone();
        for (i, m) in game.moves.iter().enumerate() {
            let board = m.board;
            let before = state.board(board).clone();
            let next: Vec<_> = game.moves[i..]
                .iter()
                .filter(|n| n.board == board)
                .take(plies)
                .collect();
            let held = !before.pockets().white.is_empty() || !before.pockets().black.is_empty();
            let has_drop = next.iter().any(|n| n.mv.is_drop());
            let fits = next.len() == plies && if drops { held } else { !held && !has_drop };
            if fits && (i + seed as usize).is_multiple_of(7) {
                // A piece dropped in the gap that arrived from the partner meanwhile is
                // in hand from the start (as the daemon sees the holdings at link-up).
                let mut before = before;
                let mut after = before.clone();
                for n in &next {
                    if let bugbridge::rules::Move::Drop { piece, .. } = n.mv
                        && !after.pockets()[piece.color].has(piece.role)
                    {
                        after.pockets_mut()[piece.color].add(piece.role);
                        before.pockets_mut()[piece.color].add(piece.role);
                    }
                    after.play(&n.mv);
                }
                out.push(Case {
                    from: before,
                    target: *after.board(),
                    plies,
                });
                if out.len() >= want {
                    return out;
                }
            }
            state.play(board, &m.mv, i as u64);
        }
    }
    out
}

fn run(case: &Case, config: &InferConfig) -> GapSearch {
    search(&GapQuery {
        from: &case.from,
        target: &case.target,
        turn: None,
        max_plies: config.gap_max_plies,
        node_budget: config.gap_node_budget,
    })
}

fn gap_search(c: &mut Criterion) {
    let config = InferConfig::default();
    let mut group = c.benchmark_group("gap_search");
    group.sample_size(10);
    for drops in [false, true] {
        for plies in 1..=6 {
            let cases = cases(plies, drops, 60);
            if cases.is_empty() {
                continue;
            }
            let mut times: Vec<Duration> = Vec::with_capacity(cases.len());
            let mut nodes: Vec<u64> = Vec::with_capacity(cases.len());
            let mut found = 0;
            for case in &cases {
                let start = Instant::now();
                let r = run(case, &config);
                times.push(start.elapsed());
                nodes.push(r.nodes);
                found += usize::from(r.sequences.iter().any(|s| s.len() == case.plies));
            }
            times.sort_unstable();
            nodes.sort_unstable();
            let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
            let label = if drops { "drops in hand" } else { "no drops" };
            println!(
                "gap_search {plies} plies, {label}: {} gaps, found {found}; time p50 {:?} p99 {:?} max {:?}; nodes p50 {} p99 {} max {}",
                cases.len(),
                pct(0.5),
                pct(0.99),
                times[times.len() - 1],
                nodes[nodes.len() / 2],
                nodes[((nodes.len() - 1) as f64 * 0.99) as usize],
                nodes[nodes.len() - 1],
            );
            let name = format!("{plies}_plies_{}", if drops { "drops" } else { "no_drops" });
            group.bench_function(name, |b| {
                b.iter(|| {
                    let mut n = 0;
                    for case in &cases {
                        n += run(case, &config).nodes;
                    }
                    black_box(n)
                });
            });
        }
    }
    group.finish();
    // Where the gap is not reachable: the search runs to its budget and gives up.
    let start = Position::new(Ruleset::default());
    let mut target = *start.board();
    for (sq, piece) in [("a2", None), ("h5", Some('P'))] {
        target.set_square(
            sq.parse().expect("square"),
            piece.and_then(bugbridge::rules::Piece::from_char),
        );
    }
    let unreachable = Case {
        from: start,
        target,
        plies: 0,
    };
    let t = Instant::now();
    let r = run(&unreachable, &config);
    println!(
        "gap_search unreachable board: {:?}, {} nodes, exhausted {}",
        t.elapsed(),
        r.nodes,
        r.exhausted
    );
}

criterion_group!(benches, gap_search);
criterion_main!(benches);
