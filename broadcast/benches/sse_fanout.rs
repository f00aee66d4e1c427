//! Fan-out benchmark: many concurrent SSE viewers on loopback, each move delivered to all.
//!
//! Starts the real router with `serve` on 127.0.0.1:0, opens `BENCH_CLIENTS` (default 5000)
//! raw HTTP/1.1 connections to `/api/matches/bench/stream`, waits until every one has its
//! catch-up, then publishes `BENCH_MOVES` (default 50) moves `BENCH_GAP_MS` (default 20) ms
//! apart, each an event plus the full state, as the daemon would. Every client timestamps
//! each event it receives; latency = receive time − publish time. Prints p50/p90/p99/max
//! over all (client, move) pairs, and the time until the *last* client had each move.
//!
//! Run: `cargo bench -p bugbridge-broadcast`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bugbridge_broadcast::http::{HttpOptions, serve};
use bugbridge_broadcast::wire::{
    Board, BoardClock, BoardState, ByBoard, Clocks, Event, EventKind, MatchState, MoveEntry, Side,
};
use bugbridge_broadcast::{Hub, HubOptions, Update};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, mpsc};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Raises the soft open-files limit to the hard one: each client costs two descriptors.
fn raise_nofile() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
    limit.rlim_cur
}

fn update(ply: u32) -> Update {
    let side = if ply % 2 == 1 {
        Side::White
    } else {
        Side::Black
    };
    let moves = (1..=ply)
        .map(|p| MoveEntry {
            board: if p % 3 == 0 { Board::B } else { Board::A },
            side: if p % 2 == 1 { Side::White } else { Side::Black },
            number: p.div_ceil(2),
            san: "Nf3".to_owned(),
            clock: Some(170.0),
            flags: Vec::new(),
        })
        .collect();
    let board = BoardState {
        white: Some("White player".to_owned()),
        black: Some("Black player".to_owned()),
        bfen: START.to_owned(),
        connected: true,
        physical: None,
        ..BoardState::default()
    };
    let state = MatchState {
        bfen: format!("{START} | {START}"),
        boards: ByBoard {
            A: board.clone(),
            B: board,
        },
        clocks: Clocks {
            at: 0,
            A: BoardClock {
                white: 170.0,
                black: 171.0,
                running: Some(side),
                unread: false,
            },
            B: BoardClock::default(),
        },
        moves,
        ..MatchState::default()
    };
    let event = Event {
        board: Some(Board::A),
        side: Some(side),
        number: Some(ply.div_ceil(2)),
        san: Some("Nf3".to_owned()),
        clock: Some(170.0),
        bfen: Some(state.bfen.clone()),
        ..Event::new(EventKind::Move, u64::from(ply) * 1000)
    };
    Update {
        state,
        bpgn: String::new(),
        events: vec![event],
    }
}

/// Finds `data: {"seq":N` of unnamed (event) frames in `buf`; returns the seqs found and
/// how many bytes were fully scanned.
fn scan(buf: &[u8], seqs: &mut Vec<u64>) -> usize {
    const PAT: &[u8] = b"\ndata: {\"seq\":";
    let mut i = 0;
    let mut consumed = 0;
    while i + PAT.len() <= buf.len() {
        if &buf[i..i + PAT.len()] == PAT {
            let start = i + PAT.len();
            let end = buf[start..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map(|n| start + n);
            let Some(end) = end else { break };
            if let Ok(seq) = std::str::from_utf8(&buf[start..end]).unwrap_or("").parse() {
                seqs.push(seq);
            }
            i = end;
            consumed = end;
        } else {
            i += 1;
        }
    }
    consumed.max(buf.len().saturating_sub(PAT.len() + 20))
}

struct Shared {
    sent: Vec<OnceLock<Instant>>,
    ready: AtomicUsize,
    ready_tx: mpsc::UnboundedSender<()>,
}

async fn client(
    addr: std::net::SocketAddr,
    moves: u64,
    shared: Arc<Shared>,
    permits: Arc<Semaphore>,
) -> Vec<Duration> {
    let permit = permits.acquire().await.unwrap();
    let mut socket = TcpStream::connect(addr).await.expect("connect");
    socket
        .write_all(b"GET /api/matches/bench/stream HTTP/1.1\r\nHost: bench\r\n\r\n")
        .await
        .unwrap();
    drop(permit);
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 32 * 1024];
    let mut ready = false;
    let mut latencies = Vec::with_capacity(moves as usize);
    let mut seqs = Vec::new();
    loop {
        let n = socket.read(&mut chunk).await.expect("read");
        assert!(n > 0, "server closed the stream");
        let now = Instant::now();
        buf.extend_from_slice(&chunk[..n]);
        if !ready && buf.windows(12).any(|w| w == b"event: state") {
            ready = true;
            shared.ready.fetch_add(1, Ordering::Relaxed);
            let _ = shared.ready_tx.send(());
            buf.clear();
            continue;
        }
        if std::env::var_os("BENCH_DEBUG").is_some() {
            eprintln!("{:?}", String::from_utf8_lossy(&buf[..buf.len().min(400)]));
        }
        let used = scan(&buf, &mut seqs);
        buf.drain(..used);
        for seq in seqs.drain(..) {
            if let Some(sent) = shared.sent.get(seq as usize).and_then(OnceLock::get) {
                latencies.push(now.saturating_duration_since(*sent));
            }
            if seq >= moves {
                return latencies;
            }
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let clients = env("BENCH_CLIENTS", 5000);
    let moves = env("BENCH_MOVES", 50) as u64;
    let gap = Duration::from_millis(env("BENCH_GAP_MS", 20) as u64);
    let nofile = raise_nofile();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (hub, _actions) = Hub::new(HubOptions {
            fanout_capacity: 1024,
            ..HubOptions::default()
        });
        // The starting position, without an event: move `n` then has `seq` n.
        hub.publish(
            "bench",
            Update {
                events: Vec::new(),
                ..update(0)
            },
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(listener, hub.clone(), HttpOptions::default(), async {
            let _ = stop_rx.await;
        }));
        let (ready_tx, mut ready_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            sent: (0..=moves).map(|_| OnceLock::new()).collect(),
            ready: AtomicUsize::new(0),
            ready_tx,
        });
        let permits = Arc::new(Semaphore::new(256));
        let t0 = Instant::now();
        let tasks: Vec<_> = (0..clients)
            .map(|_| {
                tokio::spawn(client(
                    addr,
                    moves,
                    Arc::clone(&shared),
                    Arc::clone(&permits),
                ))
            })
            .collect();
        while shared.ready.load(Ordering::Relaxed) < clients {
            ready_rx.recv().await.unwrap();
        }
        let connect_time = t0.elapsed();
        for ply in 1..=moves {
            let _ = shared.sent[ply as usize].set(Instant::now());
            hub.publish("bench", update(ply as u32)).unwrap();
            tokio::time::sleep(gap).await;
        }
        let mut all = Vec::with_capacity(clients * moves as usize);
        let mut per_move_max = vec![Duration::ZERO; moves as usize + 1];
        for task in tasks {
            let latencies = task.await.unwrap();
            for (i, l) in latencies.iter().enumerate() {
                per_move_max[i + 1] = per_move_max[i + 1].max(*l);
            }
            all.extend(latencies);
        }
        all.sort();
        let mut last = per_move_max[1..].to_vec();
        last.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "sse_fanout: {clients} clients (RLIMIT_NOFILE {nofile}), {moves} moves {} ms apart, {} deliveries, connected in {:.0} ms",
            gap.as_millis(),
            all.len(),
            ms(connect_time)
        );
        println!(
            "per delivery: p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
            ms(percentile(&all, 0.50)),
            ms(percentile(&all, 0.90)),
            ms(percentile(&all, 0.99)),
            ms(percentile(&all, 1.0))
        );
        println!(
            "last client per move: p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
            ms(percentile(&last, 0.50)),
            ms(percentile(&last, 0.99)),
            ms(percentile(&last, 1.0))
        );
        assert_eq!(all.len(), clients * moves as usize, "some deliveries missing");
        stop_tx.send(()).unwrap();
        server.await.unwrap().unwrap();
    });
}
