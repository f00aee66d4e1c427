//! `bugbridge demo`: no hardware needed. Two emulated DGT boards with clocks, on
//! pseudo-terminals, replay a real game through the real drivers, the inference, the
//! recorder, an embedded MQTT broker and the viewer; the game starts again when it ends.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use bugbridge_drivers::trace::{
    BoardId as WireBoard, Placement, TraceEvent, TraceLine, TraceWriter,
};
use clap::Args;

use crate::app::{self, RunOptions};
use crate::config::{
    BoardConfig, ClockSource, Config, DriverKind, HttpConfig, KoedemOptions, LogFormat, MqttConfig,
    Orientation, Parity, WhiteSide,
};
use crate::rules::notation::bpgn::parse_bpgn;
use crate::rules::{BoardId, RulesetName};
use crate::sensor;

use super::showcase::{Showcase, flag_time, showcase};
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
    /// How the simulated players and sensors behave: clean, noisy or faults (`outages` is
    /// refused: the emulated boards cannot drop their link).
    #[arg(long, default_value = "noisy")]
    pub noise: String,
    /// The seed of the simulated noise.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// How many times the game is played before the demo stops (a new game begins when
    /// both boards are set up again).
    #[arg(long, default_value_t = 20)]
    pub loops: u32,
    /// Where recordings go (default: a fresh temporary directory, removed at the end).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Play the game exactly as recorded. By default it is cut late in the game, where a
    /// player completes an illegal move and his opponent then lets the flag fall, so that
    /// the arbiter view shows its alerts.
    #[arg(long)]
    pub as_played: bool,
    /// The ruleset. `koedem` without `--game` plays a random Koedem game made by the
    /// simulator (king captures, king drops, grab promotions).
    #[arg(long, value_parser = super::check::parse_ruleset)]
    pub ruleset: Option<RulesetName>,
    /// The emulated boards: `dgt` (with clocks) or `certabo` (RFID boards without clocks:
    /// each learns its tag set from its start position and both know both sets; a move is
    /// final when the board is still or the other side begins).
    #[arg(long, default_value = "dgt", value_parser = ["dgt", "certabo"])]
    pub driver: String,
}

/// Seconds between the end of a game and the boards being set up again.
const PAUSE_MS: u64 = 8_000;

/// The demo's trace, its BPGN tags, and the arbiter showcase played, if any.
type DemoTrace = (Vec<TraceLine>, BTreeMap<String, String>, Option<Showcase>);

/// The demo's trace: the game `loops` times, the boards set up again in between. With
/// `arbiter`, the game is cut late and ends with an illegal move and a flag fall (see
/// [`super::showcase`]); what was done is returned for the banner.
fn demo_trace(
    text: Option<&str>,
    ruleset: RulesetName,
    profile: Profile,
    seed: u64,
    loops: u32,
    arbiter: bool,
) -> Result<DemoTrace, String> {
    let (sim, all_tags) = match text {
        Some(text) => {
            let games = parse_bpgn(text).map_err(|e| {
                format!(
                    "line {}, column {}: expected {}",
                    e.line, e.column, e.expected
                )
            })?;
            let game = games.first().ok_or("the file holds no game")?;
            let sim = super::simulate::sim_game(game, ruleset)?;
            (sim, game.tags.clone())
        }
        // No stored game: a random game of the simulator (the Koedem demonstration).
        None => {
            let sim = crate::simulate::random_game(seed, 160, ruleset.ruleset());
            let mut tags = vec![("Event".to_owned(), format!("random {ruleset} game {seed}"))];
            if let Some(variant) = crate::rules::notation::variant::variant_of(ruleset) {
                tags.push(("Variant".to_owned(), variant.to_owned()));
            }
            (sim, tags)
        }
    };
    // The arbiter showcase cuts a bughouse game at an illegal move and a flag fall.
    let arbiter = arbiter && ruleset != RulesetName::Koedem;
    let (sim, shown) = match arbiter.then(|| showcase(&sim)).flatten() {
        Some((cut, info)) => (cut, Some(info)),
        None => (sim, None),
    };
    let mut tags: BTreeMap<String, String> = all_tags
        .into_iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "WhiteA" | "BlackA" | "WhiteB" | "BlackB" | "Event" | "Site" | "Variant"
            )
        })
        .collect();
    let label = match &shown {
        Some(info) => format!(" ({})", info.label()),
        None => String::new(),
    };
    tags.insert(
        "Event".into(),
        format!(
            "bugbridge demo: {}{label}",
            tags.get("Event").cloned().unwrap_or_default()
        ),
    );
    let base = sim.base_seconds;
    let mut lines = Vec::new();
    let mut offset = 0u64;
    let loops = loops.max(1);
    for i in 0..loops {
        let events = simulate(&sim, profile, seed.wrapping_add(u64::from(i)));
        let mut game_lines: Vec<TraceLine> = events
            .into_iter()
            .map(|(t, ev)| TraceLine {
                t,
                event: sensor::encode(&ev),
            })
            .collect();
        let mut last = game_lines.last().map_or(0, |l| l.t);
        if let Some(info) = &shown {
            // Nobody moves after the illegal move: the opponent's clock runs out.
            let (flag, extra) = flag_time(&game_lines, info, |b| match b {
                BoardId::A => WireBoard::A,
                BoardId::B => WireBoard::B,
            });
            game_lines.extend(extra);
            game_lines.sort_by_key(|l| l.t);
            last = last.max(flag + FLAG_SHOWN_MS);
        }
        lines.extend(game_lines.into_iter().map(|l| TraceLine {
            t: offset + l.t,
            event: l.event,
        }));
        // The game is over: clocks stopped, then both boards set up again (not after the
        // last loop: that would start a game nobody plays).
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
            if i + 1 < loops {
                lines.push(TraceLine {
                    t: end,
                    event: TraceEvent::Board {
                        board: b,
                        placement: Placement::start(),
                    },
                });
            }
        }
        offset = offset + last + PAUSE_MS;
    }
    Ok((lines, tags, shown))
}

/// How far apart (ms of wall time) presses on different boards reach the daemon, at
/// least, in a sped-up demo: the two emulated boards run on their own pseudo-terminals,
/// whose delivery may differ by a few milliseconds, and by tens on a busy machine (30 ms
/// let two presses swap while both cores were taken by other work).
const PRESS_GAP_WALL_MS: f64 = 60.0;

/// Spreads the presses of a trace played `speed` times faster so that presses on
/// different boards stay [`PRESS_GAP_WALL_MS`] apart once sped up: the boards' own
/// timing jitter cannot swap them, and the record keeps the game's order. Everything after
/// a press that is moved is moved with it (think times grow a little; the clock readings,
/// and so the recorded times, do not change).
fn spread_presses(lines: &mut [TraceLine], speed: f64) {
    let gap = (PRESS_GAP_WALL_MS * speed) as u64;
    if speed <= 1.0 || gap == 0 {
        return;
    }
    let mut shift = 0u64;
    let mut running: BTreeMap<&'static str, Option<bugbridge_drivers::trace::Side>> =
        BTreeMap::new();
    let mut last_press: Option<(&'static str, u64)> = None;
    for line in lines.iter_mut() {
        line.t += shift;
        let TraceEvent::Clock {
            board,
            running: now,
            ..
        } = &line.event
        else {
            continue;
        };
        let name = match board {
            WireBoard::A => "A",
            WireBoard::B => "B",
        };
        let before = running.insert(name, *now);
        if before.is_none_or(|b| b == *now) {
            continue;
        }
        if let Some((other, t)) = last_press
            && other != name
            && line.t < t + gap
        {
            let more = t + gap - line.t;
            shift += more;
            line.t += more;
        }
        last_press = Some((name, line.t));
    }
}

/// How long the fallen flag stays on the clock before the game is cleared away.
const FLAG_SHOWN_MS: u64 = 3_000;

/// The demo's own temporary directory, removed when the demo ends (however it ends).
#[derive(Debug)]
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the arbiter token readable by its owner only: it opens the arbiter view.
fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    #[cfg(unix)]
    {
        // An existing file keeps its mode through `open`: set it.
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    f.write_all(token.as_bytes())
}

pub(super) fn run(args: DemoArgs) -> u8 {
    super::init_logging("warn,bugbridge=info", false);
    if !(args.speed.is_finite() && args.speed > 0.0) {
        eprintln!("demo: --speed must be a positive number");
        return 2;
    }
    if args.loops == 0 {
        eprintln!("demo: --loops must be at least 1");
        return 2;
    }
    let profile: Profile = match args.noise.parse() {
        Ok(Profile::Outages) => {
            // The demo's emulated boards play the trace's board and clock lines; they cannot
            // drop off their link on a trace line, so the outages would silently not happen.
            eprintln!(
                "demo: --noise outages is not available in the demo (its emulated boards cannot drop their link): use clean, noisy or faults, or `bugbridge simulate --noise outages GAME.bpgn > t.jsonl` then `bugbridge replay t.jsonl` for games with link outages"
            );
            return 2;
        }
        Ok(p) => p,
        Err(e) => {
            eprintln!("demo: {e}");
            return 2;
        }
    };
    let (text, source) = match &args.game {
        Some(path) => match std::fs::read(path) {
            Ok(b) => (
                String::from_utf8_lossy(&b).into_owned(),
                path.display().to_string(),
            ),
            Err(e) => {
                eprintln!("demo: {}: cannot read: {e}", path.display());
                return 2;
            }
        },
        None => (DEMO_GAME.to_owned(), "the built-in game".to_owned()),
    };
    let ruleset = args.ruleset.unwrap_or_default();
    let random = args.game.is_none() && ruleset == RulesetName::Koedem;
    let source = if random {
        format!("a random {ruleset} game")
    } else {
        source
    };
    let certabo = args.driver == "certabo";
    // The arbiter showcase ends with a flag fall: boards without clocks play the game as
    // recorded.
    let (trace, tags, shown) = match demo_trace(
        (!random).then_some(text.as_str()),
        ruleset,
        profile,
        args.seed,
        args.loops,
        !args.as_played && !certabo,
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("demo: {source}: {e}");
            return 1;
        }
    };
    let (dir, _cleanup) = match &args.dir {
        Some(dir) => (dir.clone(), None),
        None => {
            let dir = std::env::temp_dir().join(format!("bugbridge-demo-{}", std::process::id()));
            (dir.clone(), Some(TempDir(dir)))
        }
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!(
            "demo: --dir {}: cannot create the directory: {e}",
            dir.display()
        );
        return 2;
    }
    let mut trace = trace;
    spread_presses(&mut trace, args.speed);
    if certabo {
        // A Certabo board learns its set from readings of its start position: the boards
        // stand still 3 s (real time) before play begins.
        let still = (3_000.0 * args.speed) as u64;
        for line in &mut trace {
            if line.t > 0 {
                line.t += still;
            }
        }
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
    if let Err(e) = written.and_then(|()| write_token(&token_path, &token)) {
        eprintln!("demo: --dir {}: not writable: {e}", dir.display());
        return 2;
    }
    let calibration = certabo.then(|| dir.join("table.calibration.json"));
    let board = |id| BoardConfig {
        id,
        driver: DriverKind::Emulated,
        port: None,
        usb_serial: None,
        clock: if certabo {
            ClockSource::None
        } else {
            ClockSource::Board
        },
        white_side: WhiteSide::Left,
        orientation: Orientation::Auto,
        parity: Parity::Auto,
        trace: Some(trace_path.clone()),
        calibration: calibration.clone(),
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
            operator: false,
            embedded_listen: args.mqtt,
        }),
        http: Some(HttpConfig {
            listen: args.http,
            arbiter_token_file: Some(token_path),
        }),
        record_dir: dir.join("games"),
        stable_commit_ms: crate::infer::config::DEFAULT_STABLE_COMMIT_MS,
        drop_tolerance_ms: 300,
        gap_max_plies: 6,
        // The grab window is game time: the sped-up demo shrinks it with everything else.
        koedem: KoedemOptions {
            grab_window_ms: ((KoedemOptions::default().grab_window_ms as f64 / args.speed) as u64)
                .max(50),
            ..KoedemOptions::default()
        },
        log_format: LogFormat::Text,
        log_level: "info".into(),
    };
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let options = RunOptions {
        emulator_speed: args.speed,
        ready: Some(ready_tx),
        stop_when_played: true,
        emulated_driver: if certabo {
            bugbridge_drivers::session::DriverKind::Certabo
        } else {
            bugbridge_drivers::session::DriverKind::Dgt
        },
        ..RunOptions::default()
    };
    let loops = args.loops;
    let kept = args.dir.is_some();
    let records = dir.join("games");
    super::runtime(async move {
        let banner = async move {
            if let Ok(ep) = ready_rx.await {
                if let Some(http) = ep.http {
                    if certabo {
                        println!(
                            "bugbridge demo: two emulated Certabo boards (RFID tags, no clocks) replay a real game"
                        );
                    } else {
                        println!(
                            "bugbridge demo: two emulated DGT boards with clocks replay a real game"
                        );
                    }
                    println!("  viewer   http://{http}/match/demo");
                    println!("  arbiter  http://{http}/arbiter/demo?token={token}");
                    println!("  API      http://{http}/api/matches/demo");
                }
                if let Some(mqtt) = ep.mqtt_broker {
                    println!("  MQTT     mqtt://{mqtt}  (topics bughouse/demo/#)");
                }
                if kept {
                    println!("  records  {}", records.display());
                } else {
                    println!(
                        "  records  {}  (removed when the demo ends; --dir keeps them)",
                        records.display()
                    );
                }
                if let Some(info) = &shown {
                    println!("  {}", info.describe());
                    println!("           (--as-played plays the game as recorded)");
                }
                println!("The game is played {loops} time(s); Ctrl-C stops it sooner.");
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
