//! A tournament through Debian's mosquitto, configured with the repository's own examples
//! (`config/mosquitto/{room,central,acl}.conf`): a room broker bridged to a central one
//! (QoS 1, persistent session), three tables (daemons on emulated boards over ptys) on the
//! room broker, two relays on the central one. Mid-round a relay is restarted, the central
//! broker is restarted, a table's daemon is stopped and started again; every relay ends
//! with every table's exact state and BPGN. An operator action from a relay reaches its
//! table, journaled, and both relays follow; clients without the ACL right cannot change a
//! match.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bugbridge::config::Config;
use bugbridge_broadcast::wire::EventKind;
use bugbridge_tests::daemon::{InProcess, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::relay::{RunningRelay, post};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

const RELAY_PASSWORD: &str = "relay-secret";
const BRIDGE_PASSWORD: &str = "bridge-secret";
const VIEWER_PASSWORD: &str = "viewer-secret";
const TABLES: [&str; 3] = ["open-t1", "open-t2", "open-t3"];

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

    async fn restart(&mut self) {
        let child = self.child.take().expect("running");
        let exit = bugbridge_tests::child::terminate(child, self.name).await;
        assert!(exit.success(), "{}: {exit}\n{}", self.name, self.log());
        self.spawn();
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

/// One table: its emulated boards, its configuration and its daemon.
struct TableUnderTest {
    id: &'static str,
    table: Table,
    cfg: Config,
    daemon: Option<InProcess>,
    sse: Option<Sse>,
    _records: TempDir,
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
            mqtt.password_file = Some(password_file);
            mqtt.operator = true;
        }
        let mut t = TableUnderTest {
            id,
            table,
            cfg,
            daemon: None,
            sse: None,
            _records: records,
            _links: links,
        };
        t.start_daemon().await;
        t.table.synced().await;
        t
    }

    async fn start_daemon(&mut self) {
        let daemon = InProcess::start(self.cfg.clone()).await;
        self.sse = Some(Sse::open(daemon.http(), self.id).await);
        self.daemon = Some(daemon);
    }

    async fn stop_daemon(&mut self) {
        self.sse = None;
        self.daemon.take().expect("running").stop().await;
    }

    fn http(&self) -> SocketAddr {
        self.daemon.as_ref().expect("running").http()
    }

    async fn play(&mut self, moves: usize) {
        let sse = self.sse.as_mut().expect("running");
        let id = self.id;
        self.table
            .play_moves(moves, &mut async |n| {
                let what = format!("{id} to decide move {n}");
                within(&what, sse.wait_moves(n)).await;
            })
            .await;
    }

    async fn play_rest(&mut self) {
        let sse = self.sse.as_mut().expect("running");
        let id = self.id;
        self.table
            .play_rest(&mut async |n| {
                let what = format!("{id} to decide move {n}");
                within(&what, sse.wait_moves(n)).await;
            })
            .await;
    }

    fn journal(&self) -> String {
        std::fs::read_dir(&self.cfg.record_dir)
            .expect("the record directory")
            .filter_map(Result::ok)
            .filter(|e| e.path().to_string_lossy().ends_with(".trace.jsonl"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect()
    }
}

/// Every relay holds exactly the table's state and BPGN.
async fn relays_match(relays: &[&RunningRelay], tables: &[TableUnderTest], when: &str) {
    for t in tables {
        let state = http::state(t.http(), t.id).await;
        let (_, bpgn) = http::get(t.http(), &format!("/api/matches/{}/bpgn", t.id)).await;
        for (i, relay) in relays.iter().enumerate() {
            let done = tokio::time::timeout(
                bugbridge_tests::LIMIT,
                relay.relay.wait_until(|r| {
                    r.public().hub().state(t.id).as_ref() == Some(&state)
                        && r.public().hub().bpgn(t.id).as_deref() == Some(bpgn.as_str())
                        && r.public().online(t.id) == Some(true)
                }),
            )
            .await;
            if done.is_err() {
                let r = &relay.relay;
                let held = r.public().hub().state(t.id);
                panic!(
                    "{when}: {} not complete at relay {i}: seq {:?} (table {}), moves {:?} (table {}), \
                     same state {}, same BPGN {}, online {:?}, relay {:?}",
                    t.id,
                    held.as_ref().map(|s| s.seq),
                    state.seq,
                    held.as_ref().map(|s| s.moves.len()),
                    state.moves.len(),
                    held.as_ref() == Some(&state),
                    r.public().hub().bpgn(t.id).as_deref() == Some(bpgn.as_str()),
                    r.public().online(t.id),
                    r.status(),
                );
            }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_through_bridged_mosquittos_survives_restarts_and_keeps_its_acl() {
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

    let relay_url = format!("mqtt://relay:{RELAY_PASSWORD}@{central_addr}");
    let first = RunningRelay::start(&relay_url, "relay-1", Duration::ZERO).await;
    let mut second = RunningRelay::start(&relay_url, "relay-2", Duration::ZERO).await;
    let mut tables = Vec::new();
    for (n, id) in TABLES.iter().enumerate() {
        tables.push(TableUnderTest::start(id, n + 1, room_addr, secrets.path(), &game).await);
    }
    for t in &mut tables {
        t.play(6).await;
    }
    relays_match(&[&first, &second], &tables, "after the first moves").await;

    // A relay restarted mid-round is complete from the retained messages.
    second.stop().await;
    for t in &mut tables {
        t.play(9).await;
    }
    second = RunningRelay::start(&relay_url, "relay-2", Duration::ZERO).await;
    relays_match(&[&first, &second], &tables, "after a relay restart").await;

    // The central broker restarted mid-round: the bridge and both relays reconnect, the
    // moves played meanwhile arrive through the room broker's queue.
    central.restart().await;
    for t in &mut tables {
        t.play(14).await;
    }
    relays_match(
        &[&first, &second],
        &tables,
        "after the central broker's restart",
    )
    .await;

    // A table's daemon stops: offline at both relays; started again, it recovers.
    tables[2].stop_daemon().await;
    for relay in [&first, &second] {
        relay
            .until("the stopped table offline", |r| {
                r.public().online(TABLES[2]) == Some(false)
            })
            .await;
    }
    tables[2].start_daemon().await;
    for t in &mut tables {
        t.play_rest().await;
    }
    relays_match(&[&first, &second], &tables, "after a table's restart").await;

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

    // The relay's action, sent after them on the same path, reaches table 1, is journaled
    // and applied, and both relays' viewers follow.
    let (status, reply) = post(
        first.http,
        "/api/matches/open-t1/arbiter/actions",
        r#"{"action":"result","result":"1-0","reason":"resignation"}"#,
    )
    .await;
    assert_eq!(status, 202, "{reply}");
    let sse = tables[0].sse.as_mut().expect("running");
    // Applied (the result), then confirmed (the `action` event, published right after).
    let applied = tokio::time::timeout(bugbridge_tests::LIMIT, async {
        sse.until_state(|s| s.result.as_ref().is_some_and(|r| r.result == "1-0"))
            .await;
        while !sse.events.iter().any(|e| e.kind == EventKind::Action) {
            assert!(sse.next().await.is_some(), "the stream ended");
        }
    })
    .await;
    assert!(
        applied.is_ok(),
        "the action did not reach the table:\ncentral:\n{}\nroom:\n{}",
        central.log(),
        room.log()
    );
    relays_match(&[&first, &second], &tables, "after the operator action").await;
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
    for relay in [&first, &second] {
        let state = relay.relay.public().hub().state("open-t1").expect("served");
        assert_ne!(state.bfen, "forged");
    }

    for mut t in tables {
        t.stop_daemon().await;
    }
    first.stop().await;
    second.stop().await;
    drop(room);
}
