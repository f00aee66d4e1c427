//! A tournament through Debian's mosquitto, configured with the repository's own examples
//! (`config/mosquitto/{room,central,acl}.conf`): a room broker bridged to a central one
//! (QoS 1, persistent session), six tables (daemons on emulated boards over ptys, one of
//! them the `bugbridge` binary as a process of its own) on the room broker, two relays on
//! the central one (one in a task of the test, one the `bugbridge relay` binary).
//!
//! Mid-round the relay process is killed (`SIGKILL`) and started again (its arbiter console
//! keeps the alert raised before, from the relays' retained alert log), the central broker
//! is restarted, the table process is killed (`SIGKILL`: its match goes `offline` through
//! its last will) and started again; every relay ends with every table's exact state and
//! BPGN, and that BPGN is the game played. An operator action posted on the relay process's
//! arbiter route reaches its table, journaled, and both relays' viewers follow; clients
//! without the ACL right cannot change a match.
//!
//! Everything waits on what it observes (SSE frames, the relays' change feeds), with
//! deadlines generous enough for a loaded two-core machine.

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bugbridge::config::Config;
use bugbridge_broadcast::relay::TableSummary;
use bugbridge_broadcast::wire::{EventKind, MatchState};
use bugbridge_tests::child::ChildDaemon;
use bugbridge_tests::daemon::{InProcess, config};
use bugbridge_tests::game::{TestGame, movetext};
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::relay::{RunningRelay, TOKEN, post};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::task::JoinHandle;

const RELAY_PASSWORD: &str = "relay-secret";
const BRIDGE_PASSWORD: &str = "bridge-secret";
const VIEWER_PASSWORD: &str = "viewer-secret";
const TABLES: [&str; 6] = [
    "open-t1", "open-t2", "open-t3", "open-t4", "open-t5", "open-t6",
];
/// The table whose daemon is a process of its own, killed mid-round.
const KILLED: usize = 5;
/// How long any one wait may take: generous, for a two-core machine shared with builds.
const DEADLINE: Duration = Duration::from_secs(90);

fn repo_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mosquitto_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join("mosquitto"))
        .find(|p| p.is_file())
        .expect("the opt-in suite needs Debian's MQTT broker: apt-get install mosquitto")
}

fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    probe.local_addr().expect("a bound address")
}

/// An example configuration made to run here: its listener on `addr`, its files in `dir`,
/// and each `(from, to)` replacement applied.
fn adapt(example: &str, addr: SocketAddr, dir: &Path, replace: &[(&str, String)]) -> String {
    let d = dir.display();
    let mut text: String = example
        .lines()
        .map(|line| {
            let key = line.split_whitespace().next().unwrap_or("");
            match key {
                "listener" => format!("listener {} 127.0.0.1", addr.port()),
                "persistence_location" => format!("persistence_location {d}/"),
                "password_file" => format!("password_file {d}/passwords"),
                "acl_file" => format!("acl_file {d}/acl"),
                _ => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    for (from, to) in replace {
        assert!(text.contains(from), "the example has no {from:?}");
        text = text.replace(from, to);
    }
    // Run as whoever runs the test (mosquitto started as root would switch user); log
    // every packet, for the failure messages.
    text.push_str("\nuser root\nlog_type all\n");
    text
}

/// A mosquitto process with one configuration, stoppable and startable on the same port.
struct Mosquitto {
    name: &'static str,
    dir: TempDir,
    child: Option<Child>,
    starts: usize,
}

impl Mosquitto {
    fn start(name: &'static str, dir: TempDir, conf: &str) -> Mosquitto {
        std::fs::write(dir.path().join("mosquitto.conf"), conf).expect("write the config");
        let mut m = Mosquitto {
            name,
            dir,
            child: None,
            starts: 0,
        };
        m.spawn();
        m
    }

    fn spawn(&mut self) {
        self.starts += 1;
        let log = std::fs::File::create(self.dir.path().join(format!("log-{}", self.starts)))
            .expect("the broker's log");
        let child = Command::new(mosquitto_binary())
            .arg("-c")
            .arg(self.dir.path().join("mosquitto.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start mosquitto: {e}"));
        self.child = Some(child);
    }

    fn log(&self) -> String {
        (1..=self.starts)
            .filter_map(|n| std::fs::read_to_string(self.dir.path().join(format!("log-{n}"))).ok())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Stops it cleanly (`SIGTERM`: it saves its persistent sessions and retained
    /// messages).
    async fn stop(&mut self) {
        let child = self.child.take().expect("running");
        let exit = bugbridge_tests::child::terminate(child, self.name).await;
        assert!(exit.success(), "{}: {exit}\n{}", self.name, self.log());
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Writes the password file of every user into `dir` (`mosquitto_passwd -b`).
fn passwords(dir: &Path, users: &[(&str, &str)]) {
    let file = dir.join("passwords");
    std::fs::write(&file, "").expect("the password file");
    for (user, password) in users {
        let out = Command::new("mosquitto_passwd")
            .arg("-b")
            .arg(&file)
            .arg(user)
            .arg(password)
            .output()
            .expect("the opt-in suite needs mosquitto_passwd (apt-get install mosquitto)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(dir.join("acl"), repo_file("config/mosquitto/acl.conf")).expect("the ACL");
}

fn table_password(id: &str) -> String {
    format!("{id}-secret")
}

/// Waits until `addr` accepts connections.
async fn listening(addr: SocketAddr, what: &str) {
    within(what, async {
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            // Polling a port that is being bound by another process: no event to wait on.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// A table's daemon: in a task of the test, or the binary as a process (to be killed).
enum Daemon {
    InProcess(InProcess),
    Process(ChildDaemon),
}

/// One table: its emulated boards, its configuration and its daemon.
struct TableUnderTest {
    id: &'static str,
    n: usize,
    table: Table,
    cfg: Config,
    password_file: PathBuf,
    daemon: Option<Daemon>,
    sse: Option<Sse>,
    records: TempDir,
    _links: TempDir,
}

impl TableUnderTest {
    async fn start(
        id: &'static str,
        n: usize,
        room: SocketAddr,
        secrets: &Path,
        game: &TestGame,
    ) -> Self {
        let records = TempDir::new(&format!("tournament-{id}"));
        let links = TempDir::new(&format!("tournament-{id}-links"));
        let table = Table::start(game, Some(links.path()));
        let mut cfg = config(&table, Some(&format!("mqtt://{room}")), records.path());
        cfg.match_id = id.to_owned();
        cfg.tags.insert("Event".into(), "Spring Open".into());
        cfg.tags.insert("Round".into(), "1".into());
        cfg.tags.insert("Table".into(), n.to_string());
        let password_file = secrets.join(format!("{id}.password"));
        std::fs::write(&password_file, table_password(id)).expect("a password file");
        if let Some(mqtt) = cfg.mqtt.as_mut() {
            // No user name: the match id is (the ACL's `%u`).
            mqtt.password_file = Some(password_file.clone());
            mqtt.operator = true;
        }
        let mut t = TableUnderTest {
            id,
            n,
            table,
            cfg,
            password_file,
            daemon: None,
            sse: None,
            records,
            _links: links,
        };
        t.start_daemon(room).await;
        t.table.synced().await;
        t
    }

    /// The process table's configuration file, as an organiser writes it for the
    /// tournament (the same keys as `config/tournament-table.toml`).
    fn config_file(&self, room: SocketAddr) -> PathBuf {
        use bugbridge_drivers::trace::BoardId;
        let text = format!(
            r#"[match]
id = "{id}"

[match.tags]
Event = "Spring Open"
Round = "1"
Table = "{n}"

[[board]]
name = "A"
driver = "dgt"
port = "{a}"
clock = "board"

[[board]]
name = "B"
driver = "dgt"
port = "{b}"
clock = "board"

[mqtt]
url = "mqtt://{room}"
topic_prefix = "bughouse"
password_file = "{password}"
operator = true

[http]
listen = "127.0.0.1:0"

[record]
dir = "{records}"
"#,
            id = self.id,
            n = self.n,
            a = self.table.path(BoardId::A).display(),
            b = self.table.path(BoardId::B).display(),
            password = self.password_file.display(),
            records = self.records.path().display(),
        );
        let path = self.records.path().join("table.toml");
        std::fs::write(&path, text).expect("write the table's configuration");
        path
    }

    async fn start_daemon(&mut self, room: SocketAddr) {
        let daemon = if self.n == KILLED + 1 {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"));
            cmd.arg("run")
                .arg("--config")
                .arg(self.config_file(room))
                .arg("--json-logs");
            Daemon::Process(ChildDaemon::start(cmd).await)
        } else {
            Daemon::InProcess(InProcess::start(self.cfg.clone()).await)
        };
        self.daemon = Some(daemon);
        self.sse = Some(Sse::open(self.http(), self.id).await);
    }

    /// `SIGKILL` for the process table, a clean stop for the others.
    async fn kill_daemon(&mut self) {
        self.sse = None;
        match self.daemon.take().expect("running") {
            Daemon::Process(p) => p.kill_9(),
            Daemon::InProcess(d) => d.stop().await,
        }
    }

    fn http(&self) -> SocketAddr {
        match self.daemon.as_ref().expect("running") {
            Daemon::InProcess(d) => d.http(),
            Daemon::Process(p) => p.http.expect("the daemon serves HTTP"),
        }
    }

    /// Plays up to `moves` moves (`None`: to the end), each awaited on the daemon's stream
    /// (the loop of `Table::play_moves`, written out so that the future can be spawned).
    async fn play(&mut self, moves: Option<usize>) {
        let sse = self.sse.as_mut().expect("running");
        while moves.is_none_or(|m| self.table.moves_played() < m) {
            let Some(step) = self.table.step().await else {
                assert!(moves.is_none(), "{}: the trace is shorter", self.id);
                break;
            };
            if step.press {
                let n = self.table.moves_played();
                let what = format!("{} to decide move {n}", self.id);
                within(&what, sse.wait_moves(n)).await;
            }
        }
    }

    fn journal(&self) -> String {
        std::fs::read_dir(self.records.path())
            .expect("the record directory")
            .filter_map(Result::ok)
            .filter(|e| e.path().to_string_lossy().ends_with(".trace.jsonl"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect()
    }
}

/// Every table plays (to `moves`, or to the end) at the same time, each in a task: what
/// the test does meanwhile happens mid-round.
fn playing(tables: Vec<TableUnderTest>, moves: Option<usize>) -> Vec<JoinHandle<TableUnderTest>> {
    tables
        .into_iter()
        .map(|mut t| {
            tokio::spawn(async move {
                t.play(moves).await;
                t
            })
        })
        .collect()
}

async fn played(handles: Vec<JoinHandle<TableUnderTest>>) -> Vec<TableUnderTest> {
    let mut tables = Vec::new();
    for h in handles {
        tables.push(h.await.expect("a table plays without panicking"));
    }
    tables
}

/// The `bugbridge relay` binary as a process of its own (to be killed with `SIGKILL`).
struct RelayProcess {
    child: Child,
    http: SocketAddr,
    log: PathBuf,
}

impl RelayProcess {
    async fn start(broker: &str, name: &str, dir: &Path) -> RelayProcess {
        let token = dir.join("arbiter.token");
        std::fs::write(&token, TOKEN).expect("the token file");
        let log = dir.join(format!("{name}.log"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
            .args(["relay", "--http", "127.0.0.1:0", "--client-id", name])
            .arg("--mqtt")
            .arg(broker)
            .arg("--arbiter-token-file")
            .arg(&token)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("the relay's log"))
            .spawn()
            .expect("the relay starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let addr = line
                    .strip_prefix("relay: http://")
                    .and_then(|a| a.trim_end_matches('/').parse::<SocketAddr>().ok());
                if let (Some(addr), Some(tx)) = (addr, tx.take()) {
                    let _ = tx.send(addr);
                }
            }
        });
        let http = within("the relay process to listen", rx)
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "the relay process exited:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            });
        RelayProcess { child, http, log }
    }

    /// `kill -9`, and reap it.
    fn kill_9(mut self) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A viewer of every table on each relay, reading in a task: the `seq`s of the events it
/// received, and the stop signal.
type Watchers = (
    tokio::sync::watch::Sender<bool>,
    Vec<(SocketAddr, &'static str, JoinHandle<Vec<u64>>)>,
);

async fn watching(relays: &[SocketAddr]) -> Watchers {
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut tasks = Vec::new();
    for &relay in relays {
        for id in TABLES {
            let mut sse = Sse::open(relay, id).await;
            let mut stopped = stopped.clone();
            let task = tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = stopped.wait_for(|s| *s) => break,
                        // Only dropped at the end, with the stream.
                        msg = sse.next() => if msg.is_none() { break },
                    }
                }
                sse.events.iter().map(|e| e.seq).collect()
            });
            tasks.push((relay, id, task));
        }
    }
    (stop, tasks)
}

/// Stops the watchers; the number of events the viewers did not get between the first and
/// the last each got (a `seq` that jumps).
async fn events_lost((stop, tasks): Watchers) -> u64 {
    stop.send_replace(true);
    let mut lost = 0;
    for (relay, id, task) in tasks {
        let seqs = task.await.expect("a watcher");
        assert!(
            !seqs.is_empty(),
            "{id} at {relay}: no event (the relay ended the stream: it lost events)"
        );
        for pair in seqs.windows(2) {
            assert!(pair[1] > pair[0], "{id} at {relay}: out of order {seqs:?}");
            lost += pair[1] - pair[0] - 1;
        }
    }
    lost
}

/// Waits until the relay on `relay` reports its broker down (`/readyz` 503) after at least
/// `failures` failed attempts. Polled: the relay's streams say nothing while it waits.
async fn until_down(relay: SocketAddr, failures: u64) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    loop {
        ticks.tick().await;
        let (code, body) = http::get(relay, "/readyz").await;
        let report: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        if code == 503 && report["mqtt"]["failures"].as_u64() >= Some(failures) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{relay} not reported down after {failures} failures: {code} {body}"
        );
    }
}

/// The tournament page's line of `id` at the relay serving HTTP on `relay`.
async fn summary(relay: SocketAddr, id: &str) -> Option<TableSummary> {
    let (status, body) = http::get(relay, "/api/tournament").await;
    assert_eq!(status, 200, "GET /api/tournament: {body}");
    let tables: Vec<TableSummary> =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("not the tables ({e}): {body}"));
    tables.into_iter().find(|t| t.id == id)
}

/// What the relay on `relay` holds of `id` that differs from the table's `state` and
/// `bpgn` (and its `online` status), or `None` when it holds exactly them.
async fn difference(relay: SocketAddr, id: &str, state: &MatchState, bpgn: &str) -> Option<String> {
    let (code, body) = http::get(relay, &format!("/api/matches/{id}")).await;
    if code != 200 {
        return Some(format!("GET /api/matches/{id}: {code}"));
    }
    let held: MatchState =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("not a state ({e}): {body}"));
    if held != *state {
        return Some(format!(
            "state: seq {} (table {}), moves {} (table {}), result {:?} (table {:?})",
            held.seq,
            state.seq,
            held.moves.len(),
            state.moves.len(),
            held.result,
            state.result
        ));
    }
    let (_, held_bpgn) = http::get(relay, &format!("/api/matches/{id}/bpgn")).await;
    if held_bpgn != bpgn {
        return Some(format!("BPGN:\n{held_bpgn}\ntable's:\n{bpgn}"));
    }
    let status = summary(relay, id).await.map(|s| s.status);
    (status.as_deref() != Some("online")).then(|| format!("status {status:?}"))
}

/// Waits until `check` answers `None` at the relay on `relay`, checking again after every
/// change frame of its tournament stream (and at least every half second, for the BPGN,
/// which changes without a frame of its own); fails with `check`'s last answer.
async fn until_relay<F, Fut>(relay: SocketAddr, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<String>>,
{
    // The stream is read in a task of its own (reading it is not cancel-safe); each frame
    // wakes the check.
    let mut stream = Sse::open_path(relay, "/api/tournament/stream").await;
    let (tx, mut changed) = tokio::sync::watch::channel(0u64);
    let reader = tokio::spawn(async move {
        while stream.next().await.is_some() {
            tx.send_modify(|n| *n += 1);
        }
    });
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Some(why) = check().await else { break };
        if tokio::time::Instant::now() >= deadline {
            reader.abort();
            panic!("timed out after {DEADLINE:?} waiting for {what} at {relay}: {why}");
        }
        let _ = tokio::time::timeout(Duration::from_millis(500), changed.changed()).await;
    }
    reader.abort();
}

/// Every relay holds exactly every table's state and BPGN, with the table online.
async fn relays_match(relays: &[SocketAddr], tables: &[TableUnderTest], when: &str) {
    for t in tables {
        let state = http::state(t.http(), t.id).await;
        let (_, bpgn) = http::get(t.http(), &format!("/api/matches/{}/bpgn", t.id)).await;
        for relay in relays {
            let what = format!("{when}: {} complete", t.id);
            until_relay(*relay, &what, || difference(*relay, t.id, &state, &bpgn)).await;
        }
    }
}

/// A raw client of `broker` logged in as `user`; returns once connected.
async fn client(broker: SocketAddr, user: &str, password: &str) -> AsyncClient {
    let mut opts = MqttOptions::new(
        format!("raw-{user}"),
        broker.ip().to_string(),
        broker.port(),
    );
    opts.set_credentials(user, password);
    let (client, mut eventloop) = AsyncClient::new(opts, 16);
    let (up_tx, up_rx) = tokio::sync::oneshot::channel();
    let mut up_tx = Some(up_tx);
    tokio::spawn(async move {
        while let Ok(event) = eventloop.poll().await {
            if let Event::Incoming(Packet::ConnAck(ack)) = event
                && let Some(up) = up_tx.take()
            {
                let _ = up.send(ack.code);
            }
        }
    });
    let code = within("the raw client to connect", up_rx)
        .await
        .expect("a ConnAck");
    assert_eq!(code, rumqttc::ConnectReturnCode::Success, "{user} logs in");
    client
}

/// An alert of table 2, as its daemon publishes alerts.
const ALERT: &str = r#"{"seq":1,"t":5120,"kind":"alert","board":"A","code":"illegal-move","reason":"leaves-king-in-check","detail":"raised for the console"}"#;

/// `None` once the arbiter console of the relay on `relay` lists [`ALERT`] for table 2.
async fn console_has_alert(relay: SocketAddr) -> Option<String> {
    let (code, body) = http::get(relay, &format!("/api/tournament/alerts?token={TOKEN}")).await;
    if code != 200 {
        return Some(format!("GET /api/tournament/alerts: {code}"));
    }
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("not the alerts ({e}): {body}"));
    let found = list.iter().any(|a| {
        a["match"] == TABLES[1] && a["seq"] == 1 && a["detail"] == "raised for the console"
    });
    (!found).then(|| format!("alerts: {body}"))
}

/// Both relays show `id` with `status` on the tournament page.
async fn relays_show(relays: &[SocketAddr], id: &str, status: &str) {
    for relay in relays {
        let what = format!("{id} {status}");
        until_relay(*relay, &what, || async {
            let shown = summary(*relay, id).await.map(|s| s.status);
            (shown.as_deref() != Some(status)).then(|| format!("status {shown:?}"))
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_through_bridged_mosquittos_survives_kills_and_restarts_and_keeps_its_acl() {
    let game = TestGame::demo_prefix(24);
    let secrets = TempDir::new("tournament-secrets");
    let central_addr = free_addr();
    let room_addr = free_addr();
    let central_dir = TempDir::new("tournament-central");
    let room_dir = TempDir::new("tournament-room");
    let mut users = vec![
        ("relay", RELAY_PASSWORD.to_owned()),
        ("bridge", BRIDGE_PASSWORD.to_owned()),
        ("viewer", VIEWER_PASSWORD.to_owned()),
    ];
    users.extend(TABLES.iter().map(|id| (*id, table_password(id))));
    let users: Vec<(&str, &str)> = users.iter().map(|(u, p)| (*u, p.as_str())).collect();
    passwords(central_dir.path(), &users);
    passwords(room_dir.path(), &users);
    let central_conf = adapt(
        &repo_file("config/mosquitto/central.conf"),
        central_addr,
        central_dir.path(),
        &[],
    );
    let room_conf = adapt(
        &repo_file("config/mosquitto/room.conf"),
        room_addr,
        room_dir.path(),
        &[
            ("central.example.org:1883", central_addr.to_string()),
            (
                "remote_password change-me",
                format!("remote_password {BRIDGE_PASSWORD}"),
            ),
            // Reconnect quickly after the central broker's restart in this test.
            ("restart_timeout 2 30", "restart_timeout 1 2".to_owned()),
        ],
    );
    let mut central = Mosquitto::start("central mosquitto", central_dir, &central_conf);
    let room = Mosquitto::start("room mosquitto", room_dir, &room_conf);
    listening(central_addr, "the central broker").await;
    listening(room_addr, "the room broker").await;

    // A relay with a wrong password says so: a warning naming the cause on its
    // stderr, /readyz 503 with the reason, bugbridge_mqtt_connected 0.
    let wrong = RelayProcess::start(
        &format!("mqtt://relay:not-the-password@{central_addr}"),
        "relay-wrong",
        secrets.path(),
    )
    .await;
    // The readiness and the warning are written independently: each is waited for.
    let wrong_log = wrong.log.clone();
    until_relay(wrong.http, "the refusal reported and logged", || async {
        let (code, body) = http::get(wrong.http, "/readyz").await;
        let log = std::fs::read_to_string(&wrong_log).unwrap_or_default();
        let logged = log.contains("WARN") && log.contains("password") && log.contains("--mqtt");
        (!(code == 503 && body.contains("not-authorised") && logged))
            .then(|| format!("/readyz {code}: {body}; log: {log}"))
    })
    .await;
    let (_, metrics) = http::get(wrong.http, "/metrics").await;
    assert!(metrics.contains("bugbridge_mqtt_connected 0"), "{metrics}");
    drop(wrong);

    let relay_url = format!("mqtt://relay:{RELAY_PASSWORD}@{central_addr}");
    let first = RunningRelay::start(&relay_url, "relay-1", Duration::ZERO).await;
    let mut second = RelayProcess::start(&relay_url, "relay-2", secrets.path()).await;
    let mut tables = Vec::new();
    for (n, id) in TABLES.iter().enumerate() {
        tables.push(TableUnderTest::start(id, n + 1, room_addr, secrets.path(), &game).await);
    }
    tables = played(playing(tables, Some(4))).await;
    relays_match(&[first.http, second.http], &tables, "after the first moves").await;
    for relay in [first.http, second.http] {
        let (code, body) = http::get(relay, "/readyz").await;
        assert_eq!(code, 200, "{body}");
        let (_, metrics) = http::get(relay, "/metrics").await;
        assert!(metrics.contains("bugbridge_mqtt_connected 1"), "{metrics}");
    }

    // An alert of table 2 (as its daemon would publish it) on both arbiter consoles.
    let table_two = client(room_addr, TABLES[1], &table_password(TABLES[1])).await;
    table_two
        .publish("bughouse/open-t2/alerts", QoS::AtLeastOnce, false, ALERT)
        .await
        .expect("queued");
    for relay in [first.http, second.http] {
        until_relay(relay, "the alert on the console", || {
            console_has_alert(relay)
        })
        .await;
    }

    // The relay process killed mid-round, started again while the tables play on: complete
    // from the retained messages, its console's alert included (the relays' alert log).
    let round = playing(tables, Some(8));
    second.kill_9();
    tables = played(round).await;
    let round = playing(tables, Some(12));
    second = RelayProcess::start(&relay_url, "relay-2", secrets.path()).await;
    tables = played(round).await;
    relays_match(
        &[first.http, second.http],
        &tables,
        "after the relay process was killed and started again",
    )
    .await;
    until_relay(second.http, "the alert after the restart", || {
        console_has_alert(second.http)
    })
    .await;

    // The central broker restarted mid-round: the bridge and both relays reconnect, the
    // moves played meanwhile arrive through the room broker's queue. Every per-match viewer
    // of both relays gets every event, in order, none skipped (the relays' persistent
    // sessions on the central broker, kept across its restart by `persistence true`).
    // Down while the tables play two moves and until the relay process's reconnect back-off
    // (100 ms doubling) is past 3 s: the bridge (reconnecting within 2 s) then delivers the
    // room's queue before that relay is back, as in the outside check.
    let watchers = watching(&[first.http, second.http]).await;
    central.stop().await;
    tables = played(playing(tables, Some(14))).await;
    until_down(second.http, 5).await;
    central.spawn();
    tables = played(playing(tables, Some(16))).await;
    relays_match(
        &[first.http, second.http],
        &tables,
        "after the central broker's restart",
    )
    .await;
    let lost = events_lost(watchers).await;
    assert_eq!(lost, 0, "events lost across the central broker's restart");

    // The table process killed: its last will says `offline` at both relays; started
    // again (from its journal), it recovers and plays on.
    let relays = [first.http, second.http];
    tables[KILLED].kill_daemon().await;
    relays_show(&relays, TABLES[KILLED], "offline").await;
    tables[KILLED].start_daemon(room_addr).await;
    relays_show(&relays, TABLES[KILLED], "online").await;
    tables = played(playing(tables, None)).await;
    relays_match(&relays, &tables, "at the end of the round").await;
    // Every table's final BPGN, at both relays, is the game played.
    for t in &tables {
        for relay in relays {
            let (_, bpgn) = http::get(relay, &format!("/api/matches/{}/bpgn", t.id)).await;
            assert_eq!(
                movetext(&bpgn),
                movetext(&game.bpgn),
                "{} at {relay}: the game",
                t.id
            );
            let state = http::state(relay, t.id).await;
            assert_eq!(state.moves.len(), game.moves.len(), "{} at {relay}", t.id);
            assert_eq!(state.bfen, game.final_bfen, "{} at {relay}", t.id);
        }
    }

    // Clients without the right: the read-only viewer user sends table 1 an action, and
    // table 3's user writes table 1's state. Both are acknowledged by the broker (MQTT
    // 3.1.1 cannot refuse a publish) and dropped by the ACL.
    let viewer = client(central_addr, "viewer", VIEWER_PASSWORD).await;
    let forged_action =
        r#"{"match_id":"open-t1","action":"result","result":"0-1","reason":"forged-by-viewer"}"#;
    viewer
        .publish(
            "bughouse/open-t1/operator",
            QoS::AtLeastOnce,
            false,
            forged_action,
        )
        .await
        .expect("queued");
    let other_table = client(room_addr, TABLES[2], &table_password(TABLES[2])).await;
    other_table
        .publish(
            "bughouse/open-t1/state",
            QoS::AtLeastOnce,
            true,
            r#"{"seq":9999,"bfen":"forged","boards":{"A":{"bfen":"","holdings":"","to_move":"white","connected":true},"B":{"bfen":"","holdings":"","to_move":"white","connected":true}},"clocks":{"at":0,"A":{"white":0,"black":0},"B":{"white":0,"black":0}}}"#,
        )
        .await
        .expect("queued");

    // The console's action, posted on the relay process after them on the same path,
    // reaches table 1, is journaled and applied, and both relays' viewers follow.
    let mut viewers = Vec::new();
    for relay in relays {
        viewers.push(Sse::open(relay, "open-t1").await);
    }
    let (status, reply) = post(
        second.http,
        "/api/matches/open-t1/arbiter/actions",
        r#"{"action":"result","result":"1-0","reason":"resignation"}"#,
    )
    .await;
    assert_eq!(status, 202, "{reply}");
    let sse = tables[0].sse.as_mut().expect("running");
    // Applied (the result), then confirmed (the `action` event, published right after).
    let applied = tokio::time::timeout(DEADLINE, async {
        sse.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "1-0"))
            .await;
        while !sse.events.iter().any(|e| e.kind == EventKind::Action) {
            assert!(sse.next().await.is_some(), "the stream ended");
        }
    })
    .await;
    assert!(
        applied.is_ok(),
        "the action did not reach the table:\ncentral:\n{}\nroom:\n{}\nrelay:\n{}",
        central.log(),
        room.log(),
        std::fs::read_to_string(&second.log).unwrap_or_default()
    );
    for (viewer, relay) in viewers.iter_mut().zip(relays) {
        let what = format!("the result on a viewer of {relay}");
        within(
            &what,
            viewer.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "1-0")),
        )
        .await;
    }
    relays_match(&relays, &tables, "after the operator action").await;
    let journal = tables[0].journal();
    assert!(
        journal.contains("resignation"),
        "the relay's action is journaled"
    );
    assert!(
        !journal.contains("forged-by-viewer"),
        "the viewer's action never arrived"
    );
    for t in &tables[1..] {
        assert!(!t.journal().contains("resignation"), "{} untouched", t.id);
    }
    for relay in relays {
        let state = http::state(relay, "open-t1").await;
        assert_ne!(state.bfen, "forged");
    }

    for mut t in tables {
        t.kill_daemon().await;
    }
    first.stop().await;
    drop(second);
    drop(room);
}
