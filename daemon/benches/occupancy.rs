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
//! The feed (what the daemon runs: the reading, then the record kept a legal game, see
//! `feed/consistent.rs`) is timed too, on the clean games where placeholders most often
//! misfit, with the slowest single snapshot printed: a search over placeholders runs while
//! the table waits.
//!
//! Run: `cargo bench -p bugbridge --bench occupancy`.

#[path = "../tests/support/occupancy.rs"]
mod occupancy;

use std::hint::black_box;

use std::time::{Duration, Instant};

use bugbridge::infer::occupancy::{OccupancyFeed, OccupancyInference};
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

/// The game through the feed: events handed on, and the slowest snapshot.
fn run_feed(game: &SimGame, snaps: &[(u64, BoardId, u64)]) -> (usize, Duration) {
    let mut feed = OccupancyFeed::new(game.start.clone(), Ruleset::default(), 800);
    let (mut handed, mut slowest) = (0, Duration::ZERO);
    for &(t, b, occ) in snaps {
        let started = Instant::now();
        handed += feed.feed(b, t, occ).0.len();
        slowest = slowest.max(started.elapsed());
    }
    (handed + feed.finish(u64::MAX / 2).0.len(), slowest)
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
    // The slowest snapshot through the feed over many games, clean and noisy.
    for profile in [Profile::Clean, Profile::Noisy] {
        let mut slowest = (Duration::ZERO, 0);
        for seed in 0..100 {
            let game = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
            let snaps = occupancy_snapshots(&game, profile, 7000 + seed);
            let (_, worst) = run_feed(&game, &snaps);
            slowest = slowest.max((worst, seed));
        }
        println!(
            "feed, {profile}, random 0..100: slowest snapshot {:?} (random {})",
            slowest.0, slowest.1
        );
    }
    for seed in [4, 7] {
        let game = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        let snaps = occupancy_snapshots(&game, Profile::Clean, 7000 + seed);
        group.bench_function(format!("feed random {seed} clean game"), |b| {
            b.iter(|| run_feed(black_box(&game), black_box(&snaps)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
