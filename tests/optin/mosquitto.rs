//! The MQTT scenarios with Debian's mosquitto as the broker, started by the test on a free
//! port as a child process (and really stopped and started again for the restart).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use bugbridge::config::MqttConfig;
use bugbridge_tests::scenarios::{self, Broker};
use bugbridge_tests::temp::TempDir;

/// Where the mosquitto binary is: `$PATH`, or Debian's `/usr/sbin` (not on every user's
/// `$PATH`).
fn mosquitto_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join("mosquitto"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the opt-in suite needs Debian's MQTT broker: `apt-get install mosquitto` \
                 (no `mosquitto` on $PATH, in /usr/sbin or /sbin)"
            )
        })
}

/// A mosquitto process listening on one loopback port, without persistence (a restart
/// loses the retained messages, the hardest case for the daemon); with [`Secured`], also
/// a TLS listener that wants a user name and password, which is the one the daemon uses.
struct Mosquitto {
    addr: SocketAddr,
    dir: TempDir,
    child: Option<Child>,
    starts: usize,
    secured: Option<Secured>,
}

/// The TLS listener of a club's own broker: its own certificate authority, a password file.
struct Secured {
    addr: SocketAddr,
    ca: PathBuf,
    password_file: PathBuf,
}

const USER: &str = "bugbridge";
const PASSWORD: &str = "s3cret-at-the-table";

/// A free loopback port: bind port 0, read it, release it.
fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    probe.local_addr().expect("a bound address")
}

/// Runs a tool the secured broker needs (openssl, mosquitto_passwd); fails, never skips,
/// when it is missing.
fn tool(name: &str, args: &[&str], dir: &std::path::Path) {
    let out = Command::new(name)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("the opt-in suite needs `{name}` (apt-get install openssl mosquitto): {e}")
        });
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Secured {
    /// A CA, a server certificate for 127.0.0.1 signed by it, and a password file.
    fn make(dir: &std::path::Path) -> Secured {
        tool(
            "openssl",
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=bugbridge test CA",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
            ],
            dir,
        );
        tool(
            "openssl",
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
            ],
            dir,
        );
        std::fs::write(
            dir.join("server.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
             keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
        )
        .expect("write server.ext");
        tool(
            "openssl",
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "server.ext",
                "-out",
                "server.crt",
            ],
            dir,
        );
        tool(
            "mosquitto_passwd",
            &["-b", "-c", "passwd", USER, PASSWORD],
            dir,
        );
        std::fs::write(dir.join("password"), PASSWORD).expect("write the daemon's password file");
        Secured {
            addr: free_addr(),
            ca: dir.join("ca.crt"),
            password_file: dir.join("password"),
        }
    }
}

impl Mosquitto {
    fn start() -> Mosquitto {
        let mut m = Mosquitto {
            addr: free_addr(),
            dir: TempDir::new("mosquitto"),
            child: None,
            starts: 0,
            secured: None,
        };
        m.spawn();
        m
    }

    /// With a TLS listener wanting a password (for the daemon) beside the plain one (for
    /// the test's subscriber).
    fn start_secured() -> Mosquitto {
        let dir = TempDir::new("mosquitto-tls");
        let secured = Secured::make(dir.path());
        let mut m = Mosquitto {
            addr: free_addr(),
            dir,
            child: None,
            starts: 0,
            secured: Some(secured),
        };
        m.spawn();
        m
    }

    fn spawn(&mut self) {
        self.starts += 1;
        let config = self.dir.path().join("mosquitto.conf");
        let mut text = format!(
            "per_listener_settings true\npersistence false\nlog_dest stderr\nuser root\n\
             listener {port} 127.0.0.1\nallow_anonymous true\n",
            port = self.addr.port()
        );
        if let Some(s) = &self.secured {
            let d = self.dir.path().display();
            text.push_str(&format!(
                "listener {port} 127.0.0.1\nallow_anonymous false\npassword_file {d}/passwd\n\
                 cafile {d}/ca.crt\ncertfile {d}/server.crt\nkeyfile {d}/server.key\n",
                port = s.addr.port()
            ));
        }
        std::fs::write(&config, text).expect("write mosquitto.conf");
        let log = std::fs::File::create(self.dir.path().join(format!("log-{}", self.starts)))
            .expect("create the broker's log");
        let child = Command::new(mosquitto_binary())
            .arg("-c")
            .arg(&config)
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
}

impl Broker for Mosquitto {
    fn addr(&self) -> SocketAddr {
        self.addr
    }

    fn url(&self) -> String {
        match &self.secured {
            Some(s) => format!("mqtts://{}", s.addr),
            None => format!("mqtt://{}", self.addr),
        }
    }

    fn configure(&self, mqtt: &mut MqttConfig) {
        if let Some(s) = &self.secured {
            mqtt.username = Some(USER.to_owned());
            mqtt.password_file = Some(s.password_file.clone());
            mqtt.ca_file = Some(s.ca.clone());
        }
    }

    async fn stop(&mut self) {
        let Some(child) = self.child.take() else {
            return;
        };
        let exit = bugbridge_tests::child::terminate(child, "mosquitto").await;
        assert!(exit.success(), "mosquitto: {exit}\n{}", self.log());
    }

    async fn start_again(&mut self) {
        assert!(self.child.is_none(), "stop the broker first");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_subscriber_receives_every_move_in_order_with_its_bfen() {
    let broker = Mosquitto::start();
    scenarios::subscriber_receives_every_move(&broker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_restarted_mid_game_gets_the_current_state_and_no_unexplained_gap() {
    let mut broker = Mosquitto::start();
    scenarios::broker_restart_mid_game(&mut broker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_over_tls_with_a_password_carries_the_match() {
    // The daemon publishes through the TLS listener, authenticated, trusting the club's own
    // CA; the subscriber reads the same broker on its plain listener.
    let broker = Mosquitto::start_secured();
    scenarios::subscriber_receives_every_move(&broker).await;
    let log = broker.log();
    assert!(
        log.contains(&format!("u'{USER}'")) || log.contains(USER),
        "the daemon did not log in as {USER}:\n{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_refusing_the_password_is_said_and_reported_degraded() {
    use bugbridge_broadcast::mqtt::{Problem, Publisher, PublisherOptions};
    use bugbridge_broadcast::{Hub, HubOptions, Update};
    // A wrong password for the TLS listener: mosquitto answers CONNACK "not authorised".
    let broker = Mosquitto::start_secured();
    let secured = broker.secured.as_ref().expect("secured");
    let (hub, _actions) = Hub::new(HubOptions::default());
    hub.publish("table-1", Update::default()).expect("publish");
    let mut opts = PublisherOptions::from_url(&broker.url()).expect("the url");
    opts.username = Some(USER.to_owned());
    opts.password = Some("not-the-password".to_owned());
    opts.ca_pem = Some(std::fs::read(&secured.ca).expect("the CA"));
    opts.backoff_min = std::time::Duration::from_millis(20);
    opts.backoff_max = std::time::Duration::from_millis(100);
    let (mut handle, publisher) = Publisher::new(hub.clone(), opts).expect("the publisher");
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(publisher.run(async {
        let _ = stop_rx.await;
    }));
    bugbridge_tests::within(
        "mosquitto's refusal",
        handle.wait_for(|s| s.problem == Some(Problem::NotAuthorised)),
    )
    .await;
    let report = hub.health().report();
    assert_eq!(report.status, "degraded");
    let mqtt = report.mqtt.expect("the publisher's state");
    assert_eq!(
        mqtt.problem,
        Some("not-authorised"),
        "{mqtt:?}\n{}",
        broker.log()
    );
    assert!(
        mqtt.reason
            .as_deref()
            .is_some_and(|r| r.contains("user name or password")),
        "{mqtt:?}\n{}",
        broker.log()
    );
    let _ = stop_tx.send(());
    task.await.expect("the publisher stops");
}
