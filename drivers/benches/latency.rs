//! Byte-to-event latency through a real pty: a hand-driven DGT board on the master side,
//! a real session on the slave. Each sample writes one FIELD_UPDATE and waits for the
//! session's `square` event. Criterion reports the mean; p50/p99 over a separate run of
//! 2000 samples are printed, split into "pty + serial thread" (write → read instant) and
//! "channel" (read instant → received).

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bugbridge_drivers::dgt::{
    BoardMessage, Command, CommandDecoder, piece_to_code, square_to_index,
};
use bugbridge_drivers::serial::pty_pair;
use bugbridge_drivers::session::{DriverKind, PortSpec, SensorEvent, SessionConfig, spawn_session};
use bugbridge_drivers::trace::{BoardId, Placement, Square, TraceEvent};
use bytes::BytesMut;
use criterion::{Criterion, criterion_group, criterion_main};
use tokio::sync::mpsc::Receiver;

struct Rig {
    writer: bugbridge_drivers::serial::Port,
    rx: Receiver<SensorEvent>,
    flip: bool,
    index: u8,
    _stop: Arc<AtomicBool>,
    _keep: Vec<Box<dyn std::any::Any>>,
}

impl Rig {
    fn new() -> Rig {
        let pair = pty_pair(Duration::from_millis(20)).expect("pty");
        let mut reader = pair.master.try_clone().expect("clone");
        let writer = pair.master;
        let mut answer = writer.try_clone().expect("clone");
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        // The board: answers version and dump requests.
        std::thread::spawn(move || {
            let mut d = CommandDecoder::new();
            let mut buf = BytesMut::new();
            let mut chunk = [0u8; 256];
            let mut dump = [0u8; 64];
            for sq in Square::all() {
                dump[usize::from(square_to_index(sq))] = piece_to_code(Placement::start().get(sq));
            }
            while !stop2.load(Ordering::SeqCst) {
                let Ok(n) = reader.read(&mut chunk) else {
                    continue;
                };
                buf.extend_from_slice(&chunk[..n]);
                while let Some(c) = d.next_command(&mut buf) {
                    let reply = match c {
                        Command::Version => Some(BoardMessage::Version { major: 3, minor: 1 }),
                        Command::SendBoard => Some(BoardMessage::BoardDump(dump)),
                        _ => None,
                    };
                    if let Some(r) = reply {
                        let _ = answer.write_all(&r.to_bytes());
                    }
                }
            }
        });
        let mut cfg = SessionConfig::new(
            DriverKind::Dgt,
            PortSpec::Path(pair.slave_path.clone()),
            BoardId::A,
        );
        cfg.clock = false;
        let (handle, mut rx) = spawn_session(cfg).expect("session");
        // link up + board
        for _ in 0..2 {
            rx.blocking_recv().expect("handshake event");
        }
        let e2 = Square::from_name("e2").expect("e2");
        Rig {
            writer,
            rx,
            flip: false,
            index: square_to_index(e2),
            _stop: stop,
            _keep: vec![Box::new(handle), Box::new(pair.slave_keepalive)],
        }
    }

    /// One sample: (write → read instant, read instant → received).
    fn sample(&mut self) -> (Duration, Duration) {
        self.flip = !self.flip;
        let code = if self.flip { 0 } else { 1 };
        let bytes = BoardMessage::FieldUpdate {
            index: self.index,
            code,
        }
        .to_bytes();
        let t0 = Instant::now();
        self.writer.write_all(&bytes).expect("write");
        let ev = self.rx.blocking_recv().expect("event");
        let t2 = Instant::now();
        assert!(
            matches!(ev.event, TraceEvent::Square { .. }),
            "{:?}",
            ev.event
        );
        (
            ev.at.saturating_duration_since(t0),
            t2.saturating_duration_since(ev.at),
        )
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn bench(c: &mut Criterion) {
    let mut rig = Rig::new();
    let n = 2000;
    let mut total = Vec::with_capacity(n);
    let mut read = Vec::with_capacity(n);
    let mut chan = Vec::with_capacity(n);
    for _ in 0..n {
        let (a, b) = rig.sample();
        read.push(a);
        chan.push(b);
        total.push(a + b);
    }
    for (name, v) in [
        ("total", &mut total),
        ("pty+serial thread", &mut read),
        ("channel", &mut chan),
    ] {
        v.sort();
        println!(
            "byte-to-event latency [{name}] over {n} samples: p50 {:?}  p99 {:?}  max {:?}",
            percentile(v, 0.50),
            percentile(v, 0.99),
            v[v.len() - 1]
        );
    }
    c.bench_function("pty_byte_to_event", |b| {
        b.iter_custom(|iters| {
            let mut sum = Duration::ZERO;
            for _ in 0..iters {
                let (a, b) = rig.sample();
                sum += a + b;
            }
            sum
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
