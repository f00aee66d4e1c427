//! Certabo / Sentio costs: decoding a reading, turning it into pieces, and the noise filter.
//!
//! The filter's latency is structural: a change shows after `agree` readings in a row, so it
//! is reported `(agree - 1)` reading periods after the board first shows it. This bench
//! measures the processing per reading (decode + calibration + filter), which is what comes
//! on top, and prints, per `agree`, how many readings a change takes to come through a
//! stream with the emulator's noise (30 % of empty squares, 1 % misreads).

use std::time::Duration;

use bugbridge_drivers::certabo::{
    Calibrator, FrameDecoder, Message, SquareFilter, TagId, TagReading, square_to_index,
};
use bugbridge_drivers::emulate::TagSet;
use bugbridge_drivers::trace::{BoardId, SensorPiece, Square};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn noisy(base: &TagReading, seed: &mut u64) -> TagReading {
    let mut r = base.clone();
    for id in &mut r.0 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let roll = *seed % 100;
        if id.is_none() && roll < 30 {
            *id = TagId([(64 + *seed % 190) as u8, 1, 2, 3, (*seed >> 8) as u8]);
        } else if !id.is_none() && roll == 99 {
            id.0[4] ^= 0x5a;
        }
    }
    r
}

fn bench(c: &mut Criterion) {
    let set = TagSet::for_board(BoardId::A);
    let start = set.start_reading();
    let mut cal = Calibrator::new();
    for _ in 0..7 {
        let _ = cal.add(&start);
    }
    let cal = cal.result().expect("calibrated");
    let bytes = Message::Tags(Box::new(start.clone())).to_bytes();
    let mut g = c.benchmark_group("certabo");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("decode one reading", |b| {
        let mut d = FrameDecoder::default();
        b.iter(|| d.decode(&bytes));
    });
    g.bench_function("reading to filtered pieces", |b| {
        let mut d = FrameDecoder::default();
        let mut f = SquareFilter::new(2);
        b.iter(|| {
            for m in d.decode(&bytes) {
                if let Message::Tags(r) = m {
                    let p = cal.placement(&r);
                    let mut a = [None::<SensorPiece>; 64];
                    for sq in Square::all() {
                        a[usize::from(sq.index())] = p.get(sq);
                    }
                    let _ = f.update(&a);
                }
            }
        });
    });
    g.finish();

    // Readings until e2-e4 shows, and spurious changes, over 2000 noisy moves per agree.
    let e2 = square_to_index(Square::from_name("e2").expect("e2"));
    let e4 = square_to_index(Square::from_name("e4").expect("e4"));
    let mut moved = start.clone();
    moved.0[e4] = moved.0[e2];
    moved.0[e2] = TagId::NONE;
    for agree in 1..=3 {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let (mut delay, mut spurious) = (0u64, 0u64);
        for _ in 0..2000 {
            let mut f = SquareFilter::new(agree);
            let before = cal.placement(&start);
            let arr = |r: &TagReading| {
                let p = cal.placement(r);
                let mut a = [None::<SensorPiece>; 64];
                for sq in Square::all() {
                    a[usize::from(sq.index())] = p.get(sq);
                }
                a
            };
            let truth_before = arr(&start);
            let truth_after = arr(&moved);
            let _ = before;
            // A clean start (the first reading is taken as it is).
            let _ = f.update(&truth_before);
            for _ in 0..5 {
                let out = f.update(&arr(&noisy(&start, &mut seed)));
                spurious += u64::from(out != truth_before);
            }
            for n in 1..=10 {
                let out = f.update(&arr(&noisy(&moved, &mut seed)));
                if out[Square::from_name("e4").expect("e4").index() as usize]
                    == truth_after[Square::from_name("e4").expect("e4").index() as usize]
                {
                    delay += n;
                    break;
                }
            }
        }
        println!(
            "agree {agree}: e4 shown at reading {:.2} on average (1 = the first that shows it); {:.2} % of still readings showed a misread",
            delay as f64 / 2000.0,
            spurious as f64 / 100.0
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
