//! Inference benchmarks: replay throughput (sensor events per second) on long simulated
//! noisy matches of both boards, and the latency of each `observe` call (p50/p99 printed).
//!
//! Run: `cargo bench -p bugbridge --bench infer`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bugbridge::infer::{InferConfig, Inference, Inferrer, SensorEvent};
use bugbridge::rules::Ruleset;
use bugbridge::simulate::{Profile, SimGame, random_game, simulate};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Several long random games, each simulated with noise: (start, trace).
fn traces(profile: Profile) -> Vec<(SimGame, Vec<(u64, SensorEvent)>)> {
    (0..8)
        .map(|seed| {
            let game = random_game(seed, 200, Ruleset::default());
            let trace = simulate(&game, profile, seed + 77);
            (game, trace)
        })
        .collect()
}

fn replay(game: &SimGame, trace: &[(u64, SensorEvent)], out: &mut Vec<Inference>) -> usize {
    let mut inf = Inferrer::new(InferConfig::default(), Some(game.start.clone()));
    for (t, ev) in trace {
        inf.observe_into(*t, ev, out);
        out.clear();
    }
    inf.record().len()
}

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("infer");
    for profile in [Profile::Clean, Profile::Noisy] {
        let traces = traces(profile);
        let events: usize = traces.iter().map(|(_, t)| t.len()).sum();
        group.throughput(Throughput::Elements(events as u64));
        group.bench_function(format!("replay_{profile}"), |b| {
            let mut out = Vec::new();
            b.iter(|| {
                let mut plies = 0;
                for (game, trace) in &traces {
                    plies += replay(game, trace, &mut out);
                }
                black_box(plies)
            });
        });
    }
    group.finish();
}

/// Per-event decision latency: every `observe` timed on its own; percentiles printed.
fn latency(c: &mut Criterion) {
    let traces = traces(Profile::Noisy);
    let mut samples: Vec<Duration> = Vec::new();
    let mut out = Vec::new();
    for _ in 0..20 {
        for (game, trace) in &traces {
            let mut inf = Inferrer::new(InferConfig::default(), Some(game.start.clone()));
            for (t, ev) in trace {
                let start = Instant::now();
                inf.observe_into(*t, ev, &mut out);
                samples.push(start.elapsed());
                out.clear();
            }
        }
    }
    samples.sort_unstable();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize];
    println!(
        "infer/observe latency over {} events: p50 {:?}, p90 {:?}, p99 {:?}, p99.9 {:?}, max {:?}",
        samples.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(0.999),
        samples[samples.len() - 1]
    );
    // Presses are where the work is: time them alone too.
    c.bench_function("infer/observe_noisy_event", |b| {
        let (game, trace) = &traces[0];
        b.iter(|| {
            let mut inf = Inferrer::new(InferConfig::default(), Some(game.start.clone()));
            for (t, ev) in trace.iter().take(200) {
                inf.observe_into(*t, ev, &mut out);
                out.clear();
            }
            black_box(inf.record().len())
        });
    });
}

criterion_group!(benches, throughput, latency);
criterion_main!(benches);
