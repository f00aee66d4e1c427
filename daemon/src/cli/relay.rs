//! `bugbridge relay --mqtt URL`: the tournament's web tier, fed from the broker.
//!
//! Serves every match published under the prefix with the daemon's viewer, API and streams,
//! plus the tournament page; stateless (nothing written to disk), so any number can run
//! behind a load balancer. See `bugbridge_broadcast::relay`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use bugbridge_broadcast::HubOptions;
use bugbridge_broadcast::http::{ArbiterToken, HttpOptions};
use bugbridge_broadcast::mqtt::PublisherOptions;
use bugbridge_broadcast::relay::{self, Relay, RelayOptions};
use clap::Args;

/// Arguments of `relay`.
#[derive(Debug, Args)]
pub struct RelayArgs {
    /// The broker the tables publish to: `mqtt://[user:pass@]host[:port]` or `mqtts://…`.
    #[arg(long)]
    pub mqtt: String,
    /// Where to serve HTTP (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub http: SocketAddr,
    /// First topic level of the tables' topics.
    #[arg(long, default_value = "bughouse")]
    pub prefix: String,
    /// Show the public pages and API this many seconds behind (the arbiter is never delayed).
    #[arg(long, default_value_t = 0.0)]
    pub delay: f64,
    /// File holding the arbiter token (the arbiter routes answer 401 without one).
    #[arg(long)]
    pub arbiter_token_file: Option<PathBuf>,
    /// PEM CA certificate(s) to trust for `mqtts://` instead of the platform's.
    #[arg(long)]
    pub ca_file: Option<PathBuf>,
    /// MQTT client id (unique on the broker); default `bugbridge-relay-<pid>`.
    #[arg(long)]
    pub client_id: Option<String>,
    /// Log level (`RUST_LOG` overrides it).
    #[arg(long, default_value = "info")]
    pub log_level: String,
    /// Log as JSON lines.
    #[arg(long)]
    pub json_logs: bool,
}

fn options(args: &RelayArgs) -> Result<(RelayOptions, HttpOptions), String> {
    if !(args.delay.is_finite() && args.delay >= 0.0 && args.delay <= 86_400.0) {
        return Err(format!(
            "--delay {}: expected seconds between 0 and 86400",
            args.delay
        ));
    }
    let mut mqtt = PublisherOptions::from_url(&args.mqtt).map_err(|e| format!("--mqtt: {e}"))?;
    if mqtt.url == bugbridge_broadcast::mqtt::BrokerUrl::Embedded {
        return Err("--mqtt: a relay reads the tables' broker: mqtt:// or mqtts://".to_owned());
    }
    mqtt.topic_prefix.clone_from(&args.prefix);
    mqtt.client_id = args
        .client_id
        .clone()
        .unwrap_or_else(|| format!("bugbridge-relay-{}", std::process::id()));
    if let Some(path) = &args.ca_file {
        mqtt.ca_pem =
            Some(std::fs::read(path).map_err(|e| format!("--ca-file {}: {e}", path.display()))?);
    }
    let mut http = HttpOptions::default();
    if let Some(path) = &args.arbiter_token_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--arbiter-token-file {}: {e}", path.display()))?;
        http.arbiter_token = Some(ArbiterToken::new(&text).ok_or_else(|| {
            format!("--arbiter-token-file {}: the file is empty", path.display())
        })?);
    }
    let opts = RelayOptions {
        mqtt,
        delay: Duration::from_secs_f64(args.delay),
        hub: HubOptions {
            // A viewer further behind gets a fresh state; every slot holds a frame until
            // overwritten, a hundred matches' worth of them.
            fanout_capacity: 64,
            ..HubOptions::default()
        },
    };
    Ok((opts, http))
}

pub(super) fn run(args: RelayArgs) -> u8 {
    let (opts, http) = match options(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("relay: {e}");
            return 2;
        }
    };
    super::init_logging(&args.log_level, args.json_logs);
    one_malloc_arena();
    let (relay, relay_loop) = match Relay::new(opts) {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("relay: {e}");
            return 2;
        }
    };
    let addr = args.http;
    super::runtime(async move {
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("relay: --http {addr}: {e}");
                return 3;
            }
        };
        let local = listener.local_addr().unwrap_or(addr);
        println!("relay: http://{local}/");
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut mqtt_stop = stop_rx.clone();
        let mqtt = tokio::spawn(relay_loop.run(async move {
            let _ = mqtt_stop.wait_for(|s| *s).await;
        }));
        let mut http_stop = stop_rx;
        let server = tokio::spawn(relay::http::serve(listener, relay, http, async move {
            let _ = http_stop.wait_for(|s| *s).await;
        }));
        super::signals::terminated().await;
        stop_tx.send_replace(true);
        let _ = mqtt.await;
        match server.await {
            Ok(Ok(())) => 0,
            Ok(Err(e)) => {
                eprintln!("relay: HTTP: {e}");
                3
            }
            Err(e) => {
                eprintln!("relay: {e}");
                3
            }
        }
    })
}

/// Makes every thread allocate from glibc's one main arena. A relay's memory is thousands of
/// small per-viewer connection states allocated and freed on every worker thread; with an
/// arena per thread each keeps its own partly used pages, about 10 MiB more at 5,000 viewers,
/// while the relay's few threads hardly contend for the one lock.
fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before the runtime's threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
