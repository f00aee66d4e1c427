//! `bugbridge demo`: no hardware needed. Two emulated DGT boards with clocks, on
//! pseudo-terminals, replay a real game through the real drivers, the inference, the
//! recorder, an embedded MQTT broker and the viewer; the game starts again when it ends.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use bugbridge_drivers::trace::{
    BoardId as WireBoard, Placement, TraceEvent, TraceLine, TraceWriter,
};
use clap::Args;

use crate::app::{self, RunOptions};
use crate::config::{
    BoardConfig, ClockSource, Config, DriverKind, HttpConfig, LogFormat, MqttConfig, Orientation,
    WhiteSide,
};
use crate::rules::notation::bpgn::parse_bpgn;
use crate::rules::{BoardId, RulesetName};
use crate::sensor;
use crate::simulate::{Profile, simulate};

/// The game the demo plays unless told otherwise (see `daemon/data/demo/SOURCE.md`).
const DEMO_GAME: &str = include_str!("../../data/demo/1934301.bpgn");

/// Arguments of `demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Play faster (2 = twice as fast) or slower than the real game.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Play the first game of this BPGN file instead of the built-in one.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Where the viewer and the API listen.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub http: SocketAddr,
    /// Where the embedded MQTT broker listens.
    #[arg(long, default_value = "127.0.0.1:1883")]
    pub mqtt: SocketAddr,
    /// How the simulated players and sensors behave: clean, noisy or faults.
    #[arg(long, default_value = "noisy")]
    pub noise: String,
    /// The seed of the simulated noise.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// How many times the game is played before the demo stops (a new game begins when
    /// both boards are set up again).
    #[arg(long, default_value_t = 20)]
    pub loops: u32,
    /// Where recordings go (default: a fresh temporary directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The ruleset. `koedem` without `--game` plays a random Koedem game made by the
    /// simulator (king captures, king drops, grab promotions).
    #[arg(long, value_parser = super::check::parse_ruleset)]
    pub ruleset: Option<RulesetName>,
}

/// Seconds between the end of a game and the boards being set up again.
const PAUSE_MS: u64 = 8_000;

/// The demo's trace: the game `loops` times, the boards set up again in between.
fn demo_trace(
    text: &str,
    ruleset: RulesetName,
    profile: Profile,
    seed: u64,
    loops: u32,
) -> Result<(Vec<TraceLine>, BTreeMap<String, String>), String> {
    let games = parse_bpgn(text).map_err(|e| {
        format!(
            "line {}, column {}: expected {}",
            e.line, e.column, e.expected
        )
    })?;
    let game = games.first().ok_or("the file holds no game")?;
    let sim = super::simulate::sim_game(game, ruleset)?;
    let tags: BTreeMap<String, String> = game.tags.iter().cloned().collect();
    Ok((loop_trace(&sim, profile, seed, loops), demo_tags(tags)))
}

/// A random Koedem game of the simulator, for `demo --ruleset koedem`.
fn koedem_trace(
    profile: Profile,
    seed: u64,
    loops: u32,
) -> (Vec<TraceLine>, BTreeMap<String, String>) {
    let sim = crate::simulate::random_game(seed, 160, RulesetName::Koedem.ruleset());
    let mut tags = BTreeMap::new();
    tags.insert("Event".to_owned(), format!("random Koedem game {seed}"));
    tags.insert("Variant".to_owned(), "Bughouse Koedem".to_owned());
    (loop_trace(&sim, profile, seed, loops), demo_tags(tags))
}

fn demo_tags(all: BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut tags: BTreeMap<String, String> = all
        .into_iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "WhiteA" | "BlackA" | "WhiteB" | "BlackB" | "Event" | "Site" | "Variant"
            )
        })
        .collect();
    tags.insert(
        "Event".into(),
        format!(
            "bugbridge demo: {}",
            tags.get("Event").cloned().unwrap_or_default()
        ),
    );
    tags
}

/// The game `loops` times, the boards set up again in between.
fn loop_trace(
    sim: &crate::simulate::SimGame,
    profile: Profile,
    seed: u64,
    loops: u32,
) -> Vec<TraceLine> {
    let base = sim.base_seconds;
    let mut lines = Vec::new();
    let mut offset = 0u64;
    for i in 0..loops.max(1) {
        let events = simulate(sim, profile, seed.wrapping_add(u64::from(i)));
        let mut last = 0;
        for (t, ev) in events {
            last = t;
            lines.push(TraceLine {
                t: offset + t,
                event: sensor::encode(&ev),
            });
        }
        // The game is over: clocks stopped, then both boards set up again.
        let end = offset + last + PAUSE_MS / 2;
        for b in [WireBoard::A, WireBoard::B] {
            lines.push(TraceLine {
                t: end,
                event: TraceEvent::Clock {
                    board: b,
                    white: base,
                    black: base,
                    running: None,
                },
            });
            lines.push(TraceLine {
                t: end,
                event: TraceEvent::Board {
                    board: b,
                    placement: Placement::start(),
                },
            });
        }
        offset = offset + last + PAUSE_MS;
    }
    lines
}

pub(super) fn run(args: DemoArgs) -> u8 {
    super::init_logging("warn,bugbridge=info", false);
    if !(args.speed.is_finite() && args.speed > 0.0) {
        eprintln!("demo: --speed must be a positive number");
        return 2;
    }
    let profile: Profile = match args.noise.parse() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("demo: {e}");
            return 2;
        }
    };
    let text = match &args.game {
        Some(path) => match std::fs::read(path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                eprintln!("{}: cannot read: {e}", path.display());
                return 2;
            }
        },
        None => DEMO_GAME.to_owned(),
    };
    let ruleset = args.ruleset.unwrap_or_default();
    let built = match (&args.game, ruleset) {
        (None, RulesetName::Koedem) => Ok(koedem_trace(profile, args.seed, args.loops)),
        _ => demo_trace(&text, ruleset, profile, args.seed, args.loops),
    };
    let (trace, tags) = match built {
        Ok(t) => t,
        Err(e) => {
            eprintln!("demo: {e}");
            return 1;
        }
    };
    let dir = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("bugbridge-demo-{}", std::process::id()))
    });
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: {e}", dir.display());
        return 3;
    }
    let trace_path = dir.join("demo.trace.jsonl");
    let token = format!(
        "{:016x}",
        crate::simulate::Rng::new(args.seed ^ std::process::id() as u64 ^ app::time::wall_ms())
            .next_u64()
    );
    let token_path = dir.join("arbiter.token");
    let written = std::fs::File::create(&trace_path).and_then(|f| {
        let mut w = TraceWriter::new(std::io::BufWriter::new(f));
        for line in &trace {
            w.write(line)?;
        }
        w.flush()
    });
    if let Err(e) = written.and_then(|()| std::fs::write(&token_path, &token)) {
        eprintln!("{}: {e}", dir.display());
        return 3;
    }
    let board = |id| BoardConfig {
        id,
        driver: DriverKind::Emulated,
        port: None,
        usb_serial: None,
        clock: ClockSource::Board,
        white_side: WhiteSide::Left,
        orientation: Orientation::Auto,
        trace: Some(trace_path.clone()),
    };
    let config = Config {
        match_id: "demo".into(),
        ruleset,
        time_control: None,
        tags,
        boards: vec![board(BoardId::A), board(BoardId::B)],
        mqtt: Some(MqttConfig {
            url: "embedded".into(),
            topic_prefix: "bughouse".into(),
            username: None,
            password_file: None,
            ca_file: None,
            alerts_public: false,
            embedded_listen: args.mqtt,
        }),
        http: Some(HttpConfig {
            listen: args.http,
            arbiter_token_file: Some(token_path),
        }),
        record_dir: dir.join("games"),
        stable_commit_ms: 1500,
        drop_tolerance_ms: 300,
        log_format: LogFormat::Text,
        log_level: "info".into(),
    };
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let options = RunOptions {
        emulator_speed: args.speed,
        ready: Some(ready_tx),
    };
    super::runtime(async move {
        let banner = async move {
            if let Ok(ep) = ready_rx.await {
                if let Some(http) = ep.http {
                    println!(
                        "bugbridge demo: two emulated DGT boards with clocks replay a real game"
                    );
                    println!("  viewer   http://{http}/match/demo");
                    println!("  arbiter  http://{http}/arbiter/demo?token={token}");
                    println!("  API      http://{http}/api/matches/demo");
                }
                if let Some(mqtt) = ep.mqtt_broker {
                    println!("  MQTT     mqtt://{mqtt}  (topics bughouse/demo/#)");
                }
                println!("  records  {}", dir.join("games").display());
                println!("Ctrl-C stops it.");
            }
        };
        let (result, ()) = tokio::join!(
            app::run(config, options, super::signals::terminated()),
            banner
        );
        match result {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("demo: {e}");
                e.exit_status()
            }
        }
    })
}
