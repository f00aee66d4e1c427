//! The occupancy inference (Sentio boards): what one snapshot costs, and what a whole game
//! costs, on the noisy profile where the readings that no single move explains (a capturer
//! set straight onto its victim and answered at once, a drop while the partner board is
//! stuck) make it try readings side by side.
//!
//! Each case is a random game simulated with the `noisy` profile and reduced to each board's
//! occupancy after every square change, fed to an [`OccupancyInference`] as `replay` does.
//! Printed: snapshots per game; criterion times the whole game (divide by its snapshots for
//! one snapshot's cost).
//!
//! Run: `cargo bench -p bugbridge --bench occupancy`.

#[path = "../tests/support/occupancy.rs"]
mod occupancy;

use std::hint::black_box;

use bugbridge::infer::occupancy::OccupancyInference;
use bugbridge::rules::{BoardId, Ruleset};
use bugbridge::simulate::{Profile, SimGame, random_game};
use criterion::{Criterion, criterion_group, criterion_main};
use occupancy::occupancy_snapshots;

fn run(game: &SimGame, snaps: &[(u64, BoardId, u64)]) -> usize {
    let mut inf = OccupancyInference::from_game(game.start.clone(), Ruleset::default());
    let mut moves = 0;
    for &(t, b, occ) in snaps {
        moves += inf.feed(b, t, occ).len();
    }
    moves + inf.finish().len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("occupancy");
    for (seed, profile) in [
        (3, Profile::Clean),
        (3, Profile::Noisy),
        (20, Profile::Noisy),
    ] {
        let game = random_game(seed, 80, Ruleset::default());
        let snaps = occupancy_snapshots(&game, profile, 7000 + seed);
        println!(
            "random {seed} {profile}: {} snapshots, {} moves decided of {}",
            snaps.len(),
            run(&game, &snaps),
            game.moves.len()
        );
        group.bench_function(format!("random {seed} {profile} game"), |b| {
            b.iter(|| run(black_box(&game), black_box(&snaps)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
