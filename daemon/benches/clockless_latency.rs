//! Clockless commit latency: on boards without a clock, how long after the
//! placement that completes a move is the move decided, i.e. published? Goal: p99 ≤ 1 s.
//!
//! Measured in trace time, so the figures are deterministic: every legal real game of the
//! corpus (`tests/data/bpgn`, bughouse at its real pace) and a few random games, each
//! simulated with the `noisy` profile and both boards' clock readings left out
//! (`simulate::without_clocks`, as `simulate --noise noisy --no-clock AB`), fed to an
//! [`Inferrer`] configured without clocks as the daemon feeds it: `observe` for each event,
//! and `tick` every [`TICK_MS`] of trace time in between, as the daemon's timer does.
//!
//! For each committed move: the decision is the trace time of the `observe`/`tick` call
//! that returned it; the completing placement is the last event on that board, at or before
//! the decision, that made its sensors show the position after the move (after the board's
//! earlier moves of the game); when the sensors never showed it (a promotion with the pawn
//! left standing, a premove overlapping the move), the last square event on that board on
//! the move's destination before the decision. The k-th move committed on a board is
//! compared with the board's k-th move of the game: a different move counts as wrong, a
//! move never committed as missed; only the right ones are timed.
//!
//! Printed (and saved in `<target>/criterion/clockless/latency.txt`): per game and over
//! all, p50, p99 and max of the timed moves, with the counts; criterion also times the
//! inference of one whole clockless real game (`foo.bpgn`, the end-to-end test's).
//!
//! Run: `cargo bench -p bugbridge --bench clockless_latency`.

#[path = "../tests/support/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use std::hint::black_box;

use bugbridge::infer::{InferConfig, Inference, Inferrer, RecordEntry, SensorEvent};
use bugbridge::rules::{Board, ByBoard, Ruleset, Square};
use bugbridge::simulate::{Profile, SimGame, random_game, simulate, without_clocks};
use criterion::{Criterion, criterion_group, criterion_main};

/// The daemon's timer interval (`app::run`'s `tick`): how often, between events, the
/// inference's timers run.
const TICK_MS: u64 = 100;

/// How long after the last event the timers keep running (the last move's stillness).
const TAIL_MS: u64 = 10_000;

/// The goal: p99 of the latency, ms.
const GOAL_P99_MS: u64 = 1000;

/// One clockless game to infer.
struct Case {
    name: String,
    game: SimGame,
    trace: Vec<(u64, SensorEvent)>,
}

fn cases() -> Vec<Case> {
    let both = ByBoard { a: true, b: true };
    let real = corpus::real_games()
        .into_iter()
        .filter(|(_, g)| g.moves.len() >= 20);
    let random = (0..6).map(|seed| {
        (
            format!("random game {seed}"),
            random_game(seed, 120, Ruleset::default()),
        )
    });
    real.chain(random)
        .enumerate()
        .map(|(i, (name, game))| {
            let trace = without_clocks(simulate(&game, Profile::Noisy, 17 + i as u64), both);
            Case { name, game, trace }
        })
        .collect()
}

/// The inference of a clockless trace, as the daemon runs it: each committed move with the
/// trace time at which it was decided.
fn infer(case: &Case) -> Vec<(u64, RecordEntry)> {
    let config = InferConfig {
        clock: ByBoard { a: false, b: false },
        ..InferConfig::default()
    };
    let mut inf = Inferrer::new(config, Some(case.game.start.clone()));
    let mut decided = Vec::new();
    let mut out = Vec::new();
    let mut keep = |at: u64, out: &mut Vec<Inference>| {
        for i in out.drain(..) {
            if let Inference::Move { entry, .. } = i {
                decided.push((at, entry));
            }
        }
    };
    let mut next_tick = TICK_MS;
    for (t, ev) in &case.trace {
        while next_tick < *t {
            out.extend(inf.tick(next_tick));
            keep(next_tick, &mut out);
            next_tick += TICK_MS;
        }
        inf.observe_into(*t, ev, &mut out);
        keep(*t, &mut out);
    }
    let end = case.trace.last().map_or(0, |(t, _)| *t) + TAIL_MS;
    while next_tick <= end {
        out.extend(inf.tick(next_tick));
        keep(next_tick, &mut out);
        next_tick += TICK_MS;
    }
    decided
}

/// What one board's sensors showed, event by event: (trace time, placement after it, the
/// square event's square if it was one).
type Timeline = Vec<(u64, Board, Option<Square>)>;

fn timelines(case: &Case) -> ByBoard<Timeline> {
    let mut boards = ByBoard::new_with(|b| *case.game.start.board(b).board());
    let mut out = ByBoard::<Timeline>::default();
    for (t, ev) in &case.trace {
        match *ev {
            SensorEvent::Snapshot { board, placement } => {
                boards[board] = placement;
                out[board].push((*t, placement, None));
            }
            SensorEvent::Square { board, sq, piece } => {
                boards[board].set_square(sq, piece);
                out[board].push((*t, boards[board], Some(sq)));
            }
            _ => {}
        }
    }
    out
}

/// The latencies (ms) of one game's right moves, and how many were wrong and missed.
#[derive(Debug, Default)]
struct Tally {
    latencies: Vec<u64>,
    right: usize,
    wrong: usize,
    missed: usize,
    fallback: usize,
}

fn measure(case: &Case, tally: &mut Tally) {
    let decided = infer(case);
    let timelines = timelines(case);
    // The placement after each move of the game, board by board.
    let mut game = case.game.start.clone();
    let mut seen = ByBoard::<usize>::default();
    for m in &case.game.moves {
        game.play(m.board, &m.mv, 0);
        let after = *game.board(m.board).board();
        let k = seen[m.board];
        seen[m.board] += 1;
        let Some((at, entry)) = decided.iter().filter(|(_, e)| e.board == m.board).nth(k) else {
            tally.missed += 1;
            continue;
        };
        if entry.mv != m.mv {
            tally.wrong += 1;
            continue;
        }
        tally.right += 1;
        let line = &timelines[m.board];
        let shown = (0..line.len()).rev().find(|&j| {
            line[j].0 <= *at && line[j].1 == after && (j == 0 || line[j - 1].1 != after)
        });
        let completed = match shown {
            Some(j) => line[j].0,
            None => {
                tally.fallback += 1;
                line.iter()
                    .rev()
                    .find(|(t, _, sq)| *t <= *at && *sq == Some(m.mv.to()))
                    .map_or(*at, |(t, _, _)| *t)
            }
        };
        tally.latencies.push(at.saturating_sub(completed));
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The figures, one line each: per game, then over all of them.
fn report(cases: &[Case]) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let mut all = Tally::default();
    for case in cases {
        let mut one = Tally::default();
        measure(case, &mut one);
        one.latencies.sort_unstable();
        let _ = writeln!(
            text,
            "  {:<40} {:>3} moves: {:>3} right, {:>3} wrong, {:>3} missed; p50 {:>6} ms  max {:>6} ms",
            case.name,
            case.game.moves.len(),
            one.right,
            one.wrong,
            one.missed,
            percentile(&one.latencies, 0.5),
            one.latencies.last().copied().unwrap_or(0),
        );
        all.latencies.extend(one.latencies);
        all.right += one.right;
        all.wrong += one.wrong;
        all.missed += one.missed;
        all.fallback += one.fallback;
    }
    all.latencies.sort_unstable();
    let total = all.right + all.wrong + all.missed;
    let p99 = percentile(&all.latencies, 0.99);
    let _ = writeln!(
        text,
        "clockless commit latency (trace time, noisy, both boards without a clock, {} games): \
         completing placement -> move decided",
        cases.len()
    );
    let _ = writeln!(
        text,
        "  {} of {total} moves committed right ({} wrong, {} missed; {} timed from their \
         destination square)",
        all.right, all.wrong, all.missed, all.fallback
    );
    let _ = writeln!(
        text,
        "  p50 {} ms   p90 {} ms   p99 {} ms   max {} ms",
        percentile(&all.latencies, 0.5),
        percentile(&all.latencies, 0.9),
        p99,
        all.latencies.last().copied().unwrap_or(0),
    );
    let met = all.right == total && p99 <= GOAL_P99_MS;
    let _ = writeln!(
        text,
        "  goal every move right and p99 <= {GOAL_P99_MS} ms: {}",
        if met { "met" } else { "NOT met" }
    );
    text
}

/// Where criterion keeps its results (`<target>/criterion`), to keep the figures beside
/// them: `CARGO_TARGET_DIR`, else the target directory this benchmark was built in.
fn criterion_dir() -> Option<std::path::PathBuf> {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        // target/<profile>/deps/<this benchmark>
        None => std::env::current_exe().ok()?.ancestors().nth(3)?.to_owned(),
    };
    Some(target.join("criterion"))
}

fn latency(c: &mut Criterion) {
    let cases = cases();
    let figures = report(&cases);
    print!("{figures}");
    if let Some(dir) = criterion_dir().map(|d| d.join("clockless")) {
        let saved = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("latency.txt"), &figures));
        match saved {
            Ok(()) => println!("  (saved in {})", dir.join("latency.txt").display()),
            Err(e) => println!("  (not saved in {}: {e})", dir.display()),
        }
    }
    // The game of the end-to-end test (`tests/e2e/clockless.rs`).
    let case = cases
        .iter()
        .find(|c| c.name.starts_with("foo.bpgn"))
        .unwrap_or(&cases[0]);
    c.bench_function("clockless/infer_whole_noisy_game", |b| {
        b.iter(|| black_box(infer(case).len()));
    });
}

criterion_group!(benches, latency);
criterion_main!(benches);
