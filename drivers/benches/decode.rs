//! Decode throughput (MB/s) of the DGT and Millennium decoders on realistic streams.

use std::hint::black_box;

use bugbridge_drivers::dgt::BwtimeLayout;
use bugbridge_drivers::dgt::{BoardMessage, Bwtime, ClockSide, ClockTimes, DgtDecoder, SideTime};
use bugbridge_drivers::millennium::{ParityMode, Reply, ReplyDecoder};
use bytes::BytesMut;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// About 64 KiB of a game's DGT traffic: field updates and clock messages, a dump now and then.
fn dgt_stream() -> Vec<u8> {
    let mut out = BytesMut::new();
    let mut dump = [0u8; 64];
    dump.iter_mut()
        .enumerate()
        .for_each(|(i, c)| *c = (i % 13) as u8);
    let mut i: u32 = 0;
    while out.len() < 64 * 1024 {
        BoardMessage::FieldUpdate {
            index: (i % 64) as u8,
            code: (i % 13) as u8,
        }
        .encode(&mut out);
        let side = if i.is_multiple_of(2) {
            ClockSide::Left
        } else {
            ClockSide::Right
        };
        let t = ClockTimes::with_running(
            SideTime::from_seconds(180 - i % 180),
            SideTime::from_seconds(170),
            Some(side),
        );
        BoardMessage::Bwtime(Bwtime::from_times(&t, BwtimeLayout::Modern)).encode(&mut out);
        if i.is_multiple_of(20) {
            BoardMessage::BoardDump(dump).encode(&mut out);
        }
        i += 1;
    }
    out.to_vec()
}

/// About 64 KiB of Millennium status reports.
fn millennium_stream() -> Vec<u8> {
    let mut out = BytesMut::new();
    let mut s = [b'.'; 64];
    s[..8].copy_from_slice(b"rnbqkbnr");
    s[56..].copy_from_slice(b"RNBQKBNR");
    let mut i = 0usize;
    while out.len() < 64 * 1024 {
        s[8 + i % 48] = if i.is_multiple_of(2) { b'P' } else { b'.' };
        Reply::Status(s).encode(&mut out);
        i += 1;
    }
    out.to_vec()
}

fn bench(c: &mut Criterion) {
    let dgt = dgt_stream();
    let mill = millennium_stream();
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Bytes(dgt.len() as u64));
    g.bench_function("dgt", |b| {
        b.iter(|| {
            let mut d = DgtDecoder::new();
            let mut buf = BytesMut::from(&dgt[..]);
            let mut n = 0usize;
            while let Some(m) = d.next_message(&mut buf) {
                black_box(&m);
                n += 1;
            }
            n
        })
    });
    // The same stream arriving in 32-byte reads, as from a serial port.
    g.bench_function("dgt_32_byte_reads", |b| {
        b.iter(|| {
            let mut d = DgtDecoder::new();
            let mut buf = BytesMut::new();
            let mut n = 0usize;
            for chunk in dgt.chunks(32) {
                buf.extend_from_slice(chunk);
                while let Some(m) = d.next_message(&mut buf) {
                    black_box(&m);
                    n += 1;
                }
            }
            n
        })
    });
    g.throughput(Throughput::Bytes(mill.len() as u64));
    g.bench_function("millennium", |b| {
        b.iter(|| {
            let mut d = ReplyDecoder::new(ParityMode::Odd);
            let mut buf = BytesMut::from(&mill[..]);
            let mut n = 0usize;
            while let Some(r) = d.next_reply(&mut buf) {
                black_box(&r);
                n += 1;
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
