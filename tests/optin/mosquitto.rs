//! The MQTT scenarios with Debian's mosquitto as the broker, started by the test on a free
//! port as a child process (and really stopped and started again for the restart).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use bugbridge_tests::scenarios::{self, Broker};
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

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
/// loses the retained messages, the hardest case for the daemon).
struct Mosquitto {
    addr: SocketAddr,
    dir: TempDir,
    child: Option<Child>,
    starts: usize,
}

impl Mosquitto {
    fn start() -> Mosquitto {
        // A free port: bind port 0, read it, release it, give it to mosquitto.
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = probe.local_addr().expect("a bound address");
        drop(probe);
        let mut m = Mosquitto {
            addr,
            dir: TempDir::new("mosquitto"),
            child: None,
            starts: 0,
        };
        m.spawn();
        m
    }

    fn spawn(&mut self) {
        self.starts += 1;
        let config = self.dir.path().join("mosquitto.conf");
        std::fs::write(
            &config,
            format!(
                "listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n\
                 log_dest stderr\n",
                port = self.addr.port()
            ),
        )
        .expect("write mosquitto.conf");
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

    async fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status()
            .expect("kill(1) runs");
        assert!(status.success());
        let exit = within(
            "mosquitto to stop",
            tokio::task::spawn_blocking(move || child.wait()),
        )
        .await
        .expect("the waiting thread")
        .expect("mosquitto's exit status");
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
