//! The tournament tier under load (a harness of its own, `harness = false`): a generator
//! publishes 100 tables' matches (the demo's recorded game, one ply every 1.2 s per table,
//! tables out of phase, each through its own real publisher and MQTT connection) to Debian's
//! mosquitto; two relays (`bugbridge-e2e relay`, processes of their own) serve 10,000 SSE
//! viewers: 9,000 on the matches' streams (90 per match, half on each relay) and 1,000 on
//! the tournament page's stream. Printed:
//!
//! * p50/p99/max from the table's `Hub::publish` to the viewer reading the event (match
//!   streams) or the table's line (tournament stream), over the measurement window;
//! * each relay's resident set (`VmRSS`) with 100 tables and 5,000 viewers;
//! * the central broker restarted mid-round (stopped cleanly while the tables play on, its
//!   persistent sessions saved, and started again): the events the match viewers of both
//!   relays did not get, counted as the jumps of each viewer's `seq` (the events exist on
//!   the broker: each table's publisher sends what the broker never acknowledged again,
//!   and the broker queues them in each relay's persistent session), and the time until
//!   every viewer has an event published after the broker came back;
//! * a relay restarted mid-round: the time until it serves all 100 tables at least as far
//!   as they were when it was started again;
//! * for comparison, one table's daemon serving its viewers itself (its hub and HTTP
//!   server, no broker, no relay): the same latency for 90 and for 1,000 viewers.
//!
//! Generator, viewers and relays share this machine's cores: the figures include that
//! contention. Needs `mosquitto` (`apt-get install mosquitto`).
//!
//! Run: `cargo bench -p bugbridge-tests --bench tournament`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, RwLock};
use std::time::{Duration, Instant};

use bugbridge_broadcast::mqtt::{Publisher, PublisherOptions};
use bugbridge_broadcast::wire::{
    BoardClock, BoardState, ByBoard, Clocks, Event, EventKind, MatchState, MoveEntry, Side,
};
use bugbridge_broadcast::{Hub, HubOptions, Update};
use bugbridge_tests::game::{DEMO_GAME, ExpectedMove, TestGame};
use bugbridge_tests::temp::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;

const TABLES: usize = 100;
const MATCH_VIEWERS: usize = 9_000;
const PAGE_VIEWERS: usize = 1_000;
const PLY_EVERY: Duration = Duration::from_millis(1200);
/// Plies measured per table (about 19 s at one ply every 1.2 s).
const MEASURE_PLIES: u64 = 16;
/// The daemon-alone comparison: the viewers of one table as the relays have them (90),
/// then a crowd on one board.
const DAEMON_VIEWERS: [usize; 2] = [90, 1_000];
const DAEMON_MEASURE_PLIES: u64 = 10;
/// How long the viewers may take to connect before the run is called failed.
const CONNECT_BOUND: Duration = Duration::from_secs(120);

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(bench());
}

fn mosquitto_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join("mosquitto"))
        .find(|p| p.is_file())
        .expect("the benchmark needs mosquitto: apt-get install mosquitto")
}

fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    probe.local_addr().expect("an address")
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The central broker: mosquitto with persistent sessions kept across a restart
/// (`persistence true`, saved when it is stopped with `SIGTERM`), on a fixed port.
struct Broker {
    conf: PathBuf,
    addr: SocketAddr,
    child: Option<Child>,
}

impl Broker {
    fn start(dir: &TempDir, addr: SocketAddr) -> Broker {
        let conf = dir.path().join("mosquitto.conf");
        let store = dir.path().join("store");
        std::fs::create_dir_all(&store).expect("the persistence directory");
        std::fs::write(
            &conf,
            format!(
                "listener {} 127.0.0.1\nallow_anonymous true\npersistence true\n\
                 persistence_location {}/\nautosave_interval 30\nuser root\n\
                 message_size_limit 4194304\nmax_queued_messages 100000\n\
                 max_inflight_messages 100\nlog_dest none\n",
                addr.port(),
                store.display()
            ),
        )
        .expect("a config");
        let mut broker = Broker {
            conf,
            addr,
            child: None,
        };
        broker.spawn();
        broker
    }

    fn spawn(&mut self) {
        self.child = Some(
            Command::new(mosquitto_binary())
                .arg("-c")
                .arg(&self.conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("mosquitto starts"),
        );
        while std::net::TcpStream::connect(self.addr).is_err() {
            // Waiting for another process to bind its port: nothing to wait on but the port.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops it cleanly: it saves its sessions, their queues and the retained messages.
    async fn stop(&mut self) {
        let child = self.child.take().expect("running");
        let exit = bugbridge_tests::child::terminate(child, "mosquitto").await;
        assert!(exit.success(), "mosquitto: {exit}");
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A relay process; returns it and its HTTP address (from its first stdout line).
fn relay(broker: SocketAddr, name: &str) -> (Killed, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .args(["relay", "--mqtt", &format!("mqtt://{broker}")])
        .args([
            "--http",
            "127.0.0.1:0",
            "--client-id",
            name,
            "--log-level",
            "warn",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the relay starts");
    let stdout = child.stdout.take().expect("its stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("its address");
    let addr = line
        .trim()
        .strip_prefix("relay: http://")
        .and_then(|a| a.strip_suffix('/'))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (Killed(child), addr)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// CPU time (user + system) the process used so far, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the `(comm)` field: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let get = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    get(11) + get(12)
}

fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

/// When each table published each `seq`.
struct Clock {
    start: Instant,
    published: Vec<RwLock<Vec<u64>>>,
    seq: Vec<AtomicU64>,
    /// Woken at every publish of every table.
    ticked: Notify,
}

impl Clock {
    fn micros(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// Plies published by all tables so far.
    fn plies(&self) -> u64 {
        self.seq.iter().map(|s| s.load(Ordering::Relaxed)).sum()
    }

    /// Waits until the tables have published `n` plies more than `from`.
    async fn published_beyond(&self, from: u64, n: u64) {
        loop {
            let ticked = self.ticked.notified();
            tokio::pin!(ticked);
            ticked.as_mut().enable();
            if self.plies() >= from + n {
                return;
            }
            ticked.await;
        }
    }
}

fn state_after(moves: &[ExpectedMove], names: &BTreeMap<String, String>) -> MatchState {
    let last = moves.last();
    let bfen = last.map_or_else(String::new, |m| m.bfen.clone());
    let halves: Vec<&str> = bfen.split(" | ").collect();
    let board = |i: usize, w: &str, b: &str| BoardState {
        white: names.get(w).cloned(),
        black: names.get(b).cloned(),
        bfen: halves.get(i).copied().unwrap_or_default().to_owned(),
        holdings: String::new(),
        to_move: Side::White,
        last_move: None,
        connected: true,
        configured: true,
        physical: None,
        must_drop_king: Vec::new(),
    };
    MatchState {
        bfen: bfen.clone(),
        boards: ByBoard {
            A: board(0, "WhiteA", "BlackA"),
            B: board(1, "WhiteB", "BlackB"),
        },
        clocks: Clocks {
            at: 1_790_000_000_000,
            A: BoardClock {
                white: 170.0,
                black: 171.0,
                running: Some(Side::White),
                unread: false,
            },
            B: BoardClock {
                white: 168.0,
                black: 169.0,
                running: Some(Side::Black),
                unread: false,
            },
        },
        moves: moves
            .iter()
            .map(|m| MoveEntry {
                board: m.board,
                side: m.side,
                number: m.number,
                san: m.san.clone(),
                clock: m.clock,
                flags: Vec::new(),
            })
            .collect(),
        tags: names.clone(),
        ..MatchState::default()
    }
}

/// One table: publishes the game's plies at real speed, looping, until `stop`, through
/// the broker (a table of the tournament) or to `hub` only (a daemon serving its viewers
/// itself).
async fn table(
    i: usize,
    broker: Option<SocketAddr>,
    hub: Hub,
    game: Arc<TestGame>,
    clock: Arc<Clock>,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let id = format!("t{i:03}");
    if let Some(broker) = broker {
        let mut opts = PublisherOptions::from_url(&format!("mqtt://{broker}")).expect("a URL");
        opts.client_id = format!("bench-{id}");
        opts.will_match = Some(id.clone());
        let (_handle, publisher) = Publisher::new(hub.clone(), opts).expect("a publisher");
        let mut publisher_stop = stop.clone();
        tokio::spawn(publisher.run(async move {
            let _ = publisher_stop.wait_for(|s| *s).await;
        }));
    }
    let mut names = BTreeMap::new();
    for (k, v) in [
        ("WhiteA", "Ann"),
        ("BlackA", "Bob"),
        ("WhiteB", "Cid"),
        ("BlackB", "Dee"),
    ] {
        names.insert(k.to_owned(), format!("{v} {i}"));
    }
    names.insert("Event".into(), "Bench Open".into());
    names.insert("Round".into(), "1".into());
    names.insert("Table".into(), (i + 1).to_string());
    hub.publish(
        &id,
        Update {
            state: state_after(&[], &names),
            bpgn: String::new(),
            events: Vec::new(),
        },
    )
    .expect("a valid id");
    // Out of phase: table i starts its first ply i/TABLES of a ply period late.
    let offset = PLY_EVERY.mul_f64(i as f64 / TABLES as f64);
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + offset, PLY_EVERY);
    let mut ply = 0usize;
    let mut seq = 0u64;
    while !*stop.borrow() {
        tick.tick().await;
        ply = if ply == game.moves.len() { 1 } else { ply + 1 };
        let played = &game.moves[..ply];
        let m = &played[ply - 1];
        let event = Event {
            board: Some(m.board),
            side: Some(m.side),
            number: Some(m.number),
            san: Some(m.san.clone()),
            clock: m.clock,
            bfen: Some(m.bfen.clone()),
            ..Event::new(EventKind::Move, seq * 1200)
        };
        seq += 1;
        {
            let mut published = clock.published[i].write().expect("not poisoned");
            if published.len() <= usize::try_from(seq).unwrap_or(usize::MAX) {
                published.resize(usize::try_from(seq).unwrap_or(0) + 1, 0);
            }
            published[usize::try_from(seq).unwrap_or(0)] = clock.micros();
        }
        clock.seq[i].store(seq, Ordering::Relaxed);
        clock.ticked.notify_waiters();
        let _ = hub.publish(
            &id,
            Update {
                state: state_after(played, &names),
                bpgn: format!("[Event \"Bench Open\"]\n\n{} plies\n", ply),
                events: vec![event],
            },
        );
    }
}

type Samples = Arc<Mutex<Vec<u64>>>;

/// Viewers whose stream answered, and viewers that could not connect.
static STREAMING: AtomicU64 = AtomicU64::new(0);
static FAILED: AtomicU64 = AtomicU64::new(0);
/// Woken when a viewer is counted in either.
static SETTLED: LazyLock<Notify> = LazyLock::new(Notify::new);

/// Events the match viewers did not get: the sum of the jumps of each viewer's `seq` (from
/// the `seq` of the state it got first).
static LOST: AtomicU64 = AtomicU64::new(0);
/// Match viewers whose stream ended while their relay ran.
static ENDED: AtomicU64 = AtomicU64::new(0);

/// A point every match viewer must get past: an event of its table at `seq[table]` or
/// later. `generation` 0 is no checkpoint.
struct Checkpoint {
    generation: AtomicU64,
    seq: Vec<AtomicU64>,
    passed: AtomicU64,
    changed: Notify,
}

static CHECKPOINT: LazyLock<Checkpoint> = LazyLock::new(|| Checkpoint {
    generation: AtomicU64::new(0),
    seq: (0..TABLES).map(|_| AtomicU64::new(u64::MAX)).collect(),
    passed: AtomicU64::new(0),
    changed: Notify::new(),
});

impl Checkpoint {
    /// Sets a new checkpoint at `seqs`.
    fn set(&self, seqs: &[u64]) {
        for (at, &seq) in self.seq.iter().zip(seqs) {
            at.store(seq, Ordering::SeqCst);
        }
        self.passed.store(0, Ordering::SeqCst);
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// A viewer of `table` got the event `seq`; `passed` is the generation it last passed.
    fn seen(&self, table: usize, seq: u64, passed: &mut u64) {
        let generation = self.generation.load(Ordering::SeqCst);
        if generation == 0 || generation == *passed {
            return;
        }
        if self
            .seq
            .get(table)
            .is_some_and(|at| seq >= at.load(Ordering::SeqCst))
        {
            *passed = generation;
            self.passed.fetch_add(1, Ordering::SeqCst);
            self.changed.notify_waiters();
        }
    }

    /// Waits until `viewers` viewers passed the checkpoint, at most `bound`; how many did.
    async fn passed_by(&self, viewers: u64, bound: Duration) -> u64 {
        let all = async {
            loop {
                let changed = self.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if self.passed.load(Ordering::SeqCst) >= viewers {
                    return;
                }
                changed.await;
            }
        };
        let _ = tokio::time::timeout(bound, all).await;
        self.passed.load(Ordering::SeqCst)
    }

    fn clear(&self) {
        self.generation.store(0, Ordering::SeqCst);
    }
}

/// Counts a viewer as streaming or failed.
fn settle(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
    SETTLED.notify_waiters();
}

/// Waits until `expected` viewers in all are streaming or have failed.
async fn viewers_settled(expected: u64) {
    let settled = async {
        loop {
            let woken = SETTLED.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if STREAMING.load(Ordering::Relaxed) + FAILED.load(Ordering::Relaxed) >= expected {
                return;
            }
            woken.await;
        }
    };
    if tokio::time::timeout(CONNECT_BOUND, settled).await.is_err() {
        panic!(
            "{} of {expected} viewers connected within {CONNECT_BOUND:?}",
            STREAMING.load(Ordering::Relaxed) + FAILED.load(Ordering::Relaxed)
        );
    }
}

/// One SSE viewer: reads `path` on `addr`, and for each event (match stream: `id: N` frames
/// without `event:`; tournament stream: `table` frames) records the latency from its
/// publication, while `measuring`.
async fn viewer(
    addr: SocketAddr,
    path: String,
    table_of: Option<usize>,
    clock: Arc<Clock>,
    samples: Samples,
    measuring: Arc<std::sync::atomic::AtomicBool>,
) {
    let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await else {
        settle(&FAILED);
        return;
    };
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        settle(&FAILED);
        return;
    }
    let mut buf = vec![0u8; 16 * 1024];
    // Bytes not yet parsed; frames are read in place and dropped once per read (the
    // viewers share the cores with the relays: their parsing must stay cheap).
    let mut pending: Vec<u8> = Vec::new();
    let mut local = Vec::new();
    let mut counted = false;
    // The last `seq` this (match) viewer has, and the checkpoint it last passed.
    let mut last: Option<u64> = None;
    let mut passed = 0u64;
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if pending.is_empty() && !std::mem::replace(&mut counted, true) {
            settle(&STREAMING);
        }
        let now = clock.micros();
        pending.extend_from_slice(&buf[..n]);
        let measure = measuring.load(Ordering::Relaxed);
        let mut cursor = 0;
        while let Some(end) = pending[cursor..].windows(2).position(|w| w == b"\n\n") {
            let frame = std::str::from_utf8(&pending[cursor..cursor + end + 2]).unwrap_or("");
            cursor += end + 2;
            let (table, seq) = match table_of {
                Some(t) => {
                    let Some(id) = frame.find("id: ") else {
                        continue;
                    };
                    let Some(seq) = frame[id + 4..]
                        .split('\n')
                        .next()
                        .and_then(|v| v.trim().parse::<u64>().ok())
                    else {
                        continue;
                    };
                    if frame.contains("event:") {
                        // The state: the first one (the catch-up) is where the events start.
                        last.get_or_insert(seq);
                        continue;
                    }
                    if let Some(before) = last {
                        if seq > before + 1 {
                            LOST.fetch_add(seq - before - 1, Ordering::Relaxed);
                        }
                        if seq <= before {
                            continue;
                        }
                    }
                    last = Some(seq);
                    CHECKPOINT.seen(t, seq, &mut passed);
                    (t, Some(seq))
                }
                None => {
                    if !measure || !frame.contains("event: table\n") {
                        continue;
                    }
                    // `{"id":"t042","status":..,"seq":N,...}`: read the two fields only.
                    let field = |key: &str| {
                        frame.find(key).map(|at| {
                            frame[at + key.len()..]
                                .chars()
                                .take_while(char::is_ascii_digit)
                                .collect::<String>()
                        })
                    };
                    let t = field("\"id\":\"t").and_then(|v| v.parse::<usize>().ok());
                    let Some(t) = t else { continue };
                    (t, field("\"seq\":").and_then(|v| v.parse().ok()))
                }
            };
            if !measure {
                continue;
            }
            let Some(seq) = seq else { continue };
            let published = clock.published[table]
                .read()
                .expect("not poisoned")
                .get(usize::try_from(seq).unwrap_or(usize::MAX))
                .copied();
            if let Some(at) = published.filter(|at| *at > 0) {
                local.push(now.saturating_sub(at));
            }
        }
        pending.drain(..cursor);
        if !local.is_empty() {
            samples.lock().expect("not poisoned").append(&mut local);
        }
    }
    if counted && table_of.is_some() {
        ENDED.fetch_add(1, Ordering::Relaxed);
    }
    if !counted {
        settle(&FAILED);
    }
    samples.lock().expect("not poisoned").append(&mut local);
}

fn percentiles(name: &str, samples: &Samples) {
    let mut v = samples.lock().expect("not poisoned").clone();
    v.sort_unstable();
    if v.is_empty() {
        println!("{name}: no samples");
        return;
    }
    let at = |q: f64| v[((v.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
    println!(
        "{name}: {} deliveries, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        v.len(),
        at(0.5),
        at(0.99),
        *v.last().unwrap_or(&0) as f64 / 1000.0
    );
}

/// The tables a relay serves at least up to `seqs`: how many.
async fn complete(addr: SocketAddr, seqs: &[u64]) -> usize {
    let (status, body) = bugbridge_tests::http::get(addr, "/api/tournament").await;
    if status != 200 {
        return 0;
    }
    let list: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap_or_default();
    list.iter()
        .filter(|t| {
            let i = t["id"]
                .as_str()
                .and_then(|s| s.strip_prefix('t'))
                .and_then(|s| s.parse::<usize>().ok());
            i.is_some_and(|i| t["seq"].as_u64().unwrap_or(0) >= seqs[i] && t["status"] == "online")
        })
        .count()
}

async fn bench() {
    let dir = TempDir::new("bench-tournament");
    let broker = free_addr();
    let mut central = Broker::start(&dir, broker);
    let (relay_a, http_a) = relay(broker, "bench-relay-a");
    let (mut relay_b, mut http_b) = relay(broker, "bench-relay-b");

    let game = Arc::new(TestGame::from_bpgn(DEMO_GAME, None));
    let clock = Arc::new(Clock {
        start: Instant::now(),
        published: (0..TABLES).map(|_| RwLock::new(Vec::new())).collect(),
        seq: (0..TABLES).map(|_| AtomicU64::new(0)).collect(),
        ticked: Notify::new(),
    });
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    for i in 0..TABLES {
        tokio::spawn(table(
            i,
            Some(broker),
            Hub::new(HubOptions::default()).0,
            game.clone(),
            clock.clone(),
            stop_rx.clone(),
        ));
    }
    // Every table served before the viewers arrive.
    let zero = vec![0; TABLES];
    while complete(http_a, &zero).await < TABLES || complete(http_b, &zero).await < TABLES {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let measuring = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let match_samples: Samples = Arc::default();
    let page_samples: Samples = Arc::default();
    let connect_start = Instant::now();
    for v in 0..MATCH_VIEWERS {
        let t = v % TABLES;
        let addr = if v % 2 == 0 { http_a } else { http_b };
        tokio::spawn(viewer(
            addr,
            format!("/api/matches/t{t:03}/stream"),
            Some(t),
            clock.clone(),
            match_samples.clone(),
            measuring.clone(),
        ));
        if v % 500 == 499 {
            tokio::task::yield_now().await;
        }
    }
    for v in 0..PAGE_VIEWERS {
        let addr = if v % 2 == 0 { http_a } else { http_b };
        tokio::spawn(viewer(
            addr,
            "/api/tournament/stream".to_owned(),
            None,
            clock.clone(),
            page_samples.clone(),
            measuring.clone(),
        ));
    }
    println!(
        "{TABLES} tables, {MATCH_VIEWERS} match viewers + {PAGE_VIEWERS} tournament-page viewers, \
         two relays (connections opened in {:.1} s)",
        connect_start.elapsed().as_secs_f64()
    );
    viewers_settled((MATCH_VIEWERS + PAGE_VIEWERS) as u64).await;
    println!(
        "viewers streaming: {} (connections refused: {})",
        STREAMING.load(Ordering::Relaxed),
        FAILED.load(Ordering::Relaxed)
    );
    let cpu_before = [cpu_ticks(relay_a.0.id()), cpu_ticks(relay_b.0.id())];
    measuring.store(true, Ordering::Relaxed);
    let measured = Instant::now();
    clock
        .published_beyond(clock.plies(), MEASURE_PLIES * TABLES as u64)
        .await;
    measuring.store(false, Ordering::Relaxed);
    let measured = measured.elapsed();
    let cpu_after = [cpu_ticks(relay_a.0.id()), cpu_ticks(relay_b.0.id())];
    percentiles("publish -> match viewer", &match_samples);
    let share = |i: usize| {
        let ticks = cpu_after[i].saturating_sub(cpu_before[i]) as f64;
        100.0 * ticks / clock_ticks_per_second() as f64 / measured.as_secs_f64()
    };
    println!(
        "relay CPU over the measurement: A {:.0} %, B {:.0} % of one core",
        share(0),
        share(1)
    );
    percentiles("publish -> tournament page viewer", &page_samples);
    println!(
        "relay RSS with {TABLES} tables and ~{} viewers each: A {} MiB, B {} MiB",
        (MATCH_VIEWERS + PAGE_VIEWERS) / 2,
        rss_kib(relay_a.0.id()) / 1024,
        rss_kib(relay_b.0.id()) / 1024
    );

    // The central broker restarted mid-round: stopped cleanly (its sessions saved) while
    // the tables play on (about three plies each), then started again. The relays reconnect
    // to their persistent sessions; the tables send again what the broker never
    // acknowledged.
    let lost_before = LOST.load(Ordering::Relaxed);
    let ended_before = ENDED.load(Ordering::Relaxed);
    central.stop().await;
    let down = Instant::now();
    clock
        .published_beyond(clock.plies(), 3 * TABLES as u64)
        .await;
    tokio::task::block_in_place(|| central.spawn());
    let down_for = down.elapsed();
    let back = Instant::now();
    // Every viewer must get an event its table published after the broker came back.
    let after: Vec<u64> = clock
        .seq
        .iter()
        .map(|s| s.load(Ordering::Relaxed) + 1)
        .collect();
    CHECKPOINT.set(&after);
    let passed = CHECKPOINT
        .passed_by(MATCH_VIEWERS as u64, Duration::from_secs(120))
        .await;
    let caught_up = back.elapsed();
    CHECKPOINT.clear();
    let lost = LOST.load(Ordering::Relaxed) - lost_before;
    println!(
        "central broker restarted mid-round (down {:.1} s while the tables played on): \
         events lost by the match viewers across it: {lost} (before it: {lost_before}); \
         {passed} of {MATCH_VIEWERS} viewers past it after {:.2} s; streams ended: {}",
        down_for.as_secs_f64(),
        caught_up.as_secs_f64(),
        ENDED.load(Ordering::Relaxed) - ended_before
    );
    println!(
        "relay RSS after the broker's restart: A {} MiB, B {} MiB",
        rss_kib(relay_a.0.id()) / 1024,
        rss_kib(relay_b.0.id()) / 1024
    );

    // Relay B restarted mid-round (its viewers gone with it).
    drop(relay_b);
    let at_restart: Vec<u64> = clock
        .seq
        .iter()
        .map(|s| s.load(Ordering::Relaxed))
        .collect();
    let restarted = Instant::now();
    (relay_b, http_b) = relay(broker, "bench-relay-b");
    loop {
        if complete(http_b, &at_restart).await == TABLES {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            restarted.elapsed() < Duration::from_secs(60),
            "relay B never complete"
        );
    }
    println!(
        "relay restarted mid-round: all {TABLES} tables complete after {:.2} s (process start included)",
        restarted.elapsed().as_secs_f64()
    );
    println!(
        "relay B RSS after the restart (no viewers): {} MiB",
        rss_kib(relay_b.0.id()) / 1024
    );
    stop_tx.send_replace(true);
    drop(relay_a);
    drop(relay_b);
    drop(central);

    // The comparison: one table's daemon serving its viewers itself (its hub and HTTP
    // server, as `bugbridge run` has them, in this process), no broker, no relay.
    for viewers in DAEMON_VIEWERS {
        daemon_alone(&game, viewers).await;
    }
}

/// One table served by its own daemon's HTTP server to `viewers` viewers: the latency from
/// its publish to them.
async fn daemon_alone(game: &Arc<TestGame>, viewers: usize) {
    let (hub, _actions) = Hub::new(HubOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut server_stop = stop_rx.clone();
    let server = tokio::spawn(bugbridge_broadcast::http::serve(
        listener,
        hub.clone(),
        bugbridge_broadcast::http::HttpOptions::default(),
        async move {
            let _ = server_stop.wait_for(|s| *s).await;
        },
    ));
    let clock = Arc::new(Clock {
        start: Instant::now(),
        published: vec![RwLock::new(Vec::new())],
        seq: vec![AtomicU64::new(0)],
        ticked: Notify::new(),
    });
    tokio::spawn(table(0, None, hub, game.clone(), clock.clone(), stop_rx));
    let measuring = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let samples: Samples = Arc::default();
    let before = STREAMING.load(Ordering::Relaxed) + FAILED.load(Ordering::Relaxed);
    for _ in 0..viewers {
        tokio::spawn(viewer(
            addr,
            "/api/matches/t000/stream".to_owned(),
            Some(0),
            clock.clone(),
            samples.clone(),
            measuring.clone(),
        ));
    }
    viewers_settled(before + viewers as u64).await;
    measuring.store(true, Ordering::Relaxed);
    clock
        .published_beyond(clock.plies(), DAEMON_MEASURE_PLIES)
        .await;
    measuring.store(false, Ordering::Relaxed);
    percentiles(
        &format!("daemon alone, one table, {viewers} viewers: publish -> viewer"),
        &samples,
    );
    stop_tx.send_replace(true);
    let _ = server.await;
}
