//! Whole-daemon benchmarks (a harness of its own, `harness = false`):
//!
//! * **latency**: from the clock-press bytes written to the pty (an emulated DGT board's
//!   press event, played on demand) to the MQTT `events` message of that move received by
//!   a subscriber on loopback; p50, p99 and max over every move of the demo game, played
//!   twice (220 presses, each on a quiet table so presses do not queue);
//!   two figures are printed: from the moment the board is seen to have written the press
//!   bytes (the measure: that observation comes just after the write), and from the moment
//!   the board was asked to press (an upper bound that adds the emulator thread's own
//!   polling, since it takes requests between pty reads of up to 10 ms);
//! * **memory**: the daemon's resident set (`VmRSS`, and the peak `VmHWM`) with two boards
//!   after a whole game;
//! * **idle CPU**: `utime + stime` of the daemon over a few seconds with both boards
//!   connected and nothing played.
//!
//! The daemon runs as a process of its own (`bugbridge-e2e run --config FILE`, this crate's
//! copy of the `bugbridge` binary, see `bin/daemon.rs`), its embedded broker included (the
//! demo's and a club's set-up). The boards and the subscriber live in this process.
//!
//! Run: `cargo bench -p bugbridge-tests`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use bugbridge_broadcast::wire::EventKind;
use bugbridge_tests::child::ChildDaemon;
use bugbridge_tests::game::{DEMO_GAME, TestGame};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;

const MATCH: &str = "bench";

/// The rounds of the game (each with a fresh daemon and fresh boards).
const ROUNDS: usize = 2;

/// The window over which idle CPU is measured.
const IDLE: Duration = Duration::from_secs(5);

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(bench());
}

/// What `/proc` says about the daemon.
#[derive(Debug, Default, Clone, Copy)]
struct Resources {
    rss_kib: u64,
    hwm_kib: u64,
    threads: u64,
    idle_cpu_percent: f64,
}

fn status_field(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim_start_matches(':').split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = text.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): utime is field 14, stime field 15.
    let get = |n: usize| {
        f.get(n - 3)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    get(14) + get(15)
}

fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

fn write_config(path: &Path, table: &Table, records: &Path) {
    use bugbridge_drivers::trace::BoardId;
    let text = format!(
        r#"[match]
id = "{MATCH}"

[[board]]
name = "A"
driver = "dgt"
port = "{a}"

[[board]]
name = "B"
driver = "dgt"
port = "{b}"

[mqtt]
url = "embedded"
embedded_listen = "127.0.0.1:0"

[http]
listen = "127.0.0.1:0"

[record]
dir = "{records}"

[log]
level = "info"
"#,
        a = table.path(BoardId::A).display(),
        b = table.path(BoardId::B).display(),
        records = records.display(),
    );
    std::fs::write(path, text).expect("write the configuration");
}

/// One game with a fresh daemon: the latency samples (from the write seen, from the
/// request to the board) and, for `measure`, the daemon's resources afterwards.
async fn round(game: &TestGame, measure: bool) -> (Vec<(Duration, Duration)>, Resources) {
    let dir = TempDir::new("bench");
    let mut table = Table::start(game, None);
    let config = dir.path().join("table.toml");
    write_config(&config, &table, &dir.path().join("games"));
    let (daemon, mut sub) = ChildDaemon::run_with_subscriber(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        &config,
        MATCH,
        "bench",
    )
    .await;
    table.synced().await;

    let mut samples = Vec::new();
    while let Some(step) = table.step().await {
        if !step.press {
            continue;
        }
        let (asked, written) = table.last_timing().expect("a step was timed");
        sub.wait_moves(table.moves_played()).await;
        let i = sub
            .events
            .iter()
            .rposition(|e| e.kind == EventKind::Move)
            .expect("a move event");
        let arrived = sub.arrivals[i];
        samples.push((
            arrived.saturating_duration_since(written),
            arrived.saturating_duration_since(asked),
        ));
    }
    assert_eq!(samples.len(), game.moves.len());

    let mut res = Resources::default();
    if measure {
        let pid = daemon.pid();
        let hz = clock_ticks_per_second();
        let before = cpu_ticks(pid);
        let t0 = Instant::now();
        // A measurement window, not a synchronisation: the daemon is left idle.
        tokio::time::sleep(IDLE).await;
        let ticks = cpu_ticks(pid) - before;
        let secs = t0.elapsed().as_secs_f64();
        res = Resources {
            rss_kib: status_field(pid, "VmRSS"),
            hwm_kib: status_field(pid, "VmHWM"),
            threads: status_field(pid, "Threads"),
            idle_cpu_percent: ticks as f64 / hz as f64 / secs * 100.0,
        };
    }
    daemon.terminate().await;
    (samples, res)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn bench() {
    let game = TestGame::from_bpgn(DEMO_GAME, None);
    let mut written = Vec::new();
    let mut asked = Vec::new();
    let mut res = Resources::default();
    for r in 0..ROUNDS {
        let (samples, measured) = round(&game, r == ROUNDS - 1).await;
        written.extend(samples.iter().map(|s| s.0));
        asked.extend(samples.iter().map(|s| s.1));
        if r == ROUNDS - 1 {
            res = measured;
        }
    }
    written.sort();
    asked.sort();
    println!(
        "latency: clock press written to the pty -> MQTT `events` message at a subscriber \
         (loopback, embedded broker), {} presses",
        written.len()
    );
    for (what, v) in [
        ("from the bytes written", &written),
        ("from the board asked to press", &asked),
    ] {
        println!(
            "  {what:<32} p50 {:7.3} ms   p90 {:7.3} ms   p99 {:7.3} ms   max {:7.3} ms",
            ms(percentile(v, 0.50)),
            ms(percentile(v, 0.90)),
            ms(percentile(v, 0.99)),
            ms(v[v.len() - 1]),
        );
    }
    let p99 = ms(percentile(&written, 0.99));
    println!(
        "  goal p99 < 5 ms: {}",
        if p99 < 5.0 { "met" } else { "NOT met" }
    );
    println!(
        "memory: daemon with two boards after a {}-ply game: VmRSS {:.1} MiB (peak VmHWM \
         {:.1} MiB), {} threads; goal < 30 MB: {}",
        game.moves.len(),
        res.rss_kib as f64 / 1024.0,
        res.hwm_kib as f64 / 1024.0,
        res.threads,
        if res.rss_kib * 1024 < 30_000_000 {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "idle CPU: {:.2} % of one core over {} s (two boards connected, clocks stopped)",
        res.idle_cpu_percent,
        IDLE.as_secs()
    );
}
