//! Client programs that nobody on this project wrote, written for real boards, against the
//! emulated boards (and a device script of our own that sends what a 7-bit Millennium
//! device sends, against `bugbridge listen`):
//!
//! * python-asyncdgt (DGT): handshake, version, serial numbers, every position of a played
//!   trace, the clock times and lever side of every reading, clock text, beep and
//!   set-and-run acknowledged.
//! * python-mchess (Millennium ChessLink): version, every position, LEDs; with and without
//!   parity, normal and turned board.
//! * a Millennium device without parity through `bugbridge listen`.
//!
//! The clients are run from `../shared/interop` (their licences differ from the project's;
//! they are never copied in). They need Python 3 with `pip install pyserial pyee==8.2.2
//! chess`; a missing interpreter or package fails the test with that instruction.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bugbridge_drivers::dgt::ClockSide;
use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, EmulatorHandle};
use bugbridge_drivers::millennium::ParityMode;
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::{BoardId, Placement, Side, Square, TraceEvent, TraceLine};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;
use serde_json::Value;

/// `../shared` next to the repository (or `$BUGBRIDGE_SHARED`): the third-party clients
/// and the recordings.
pub(crate) fn shared() -> PathBuf {
    let dir = std::env::var_os("BUGBRIDGE_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    assert!(
        dir.join("interop").is_dir() && dir.join("data/dgt-recordings").is_dir(),
        "the opt-in suite needs the shared material (interop/, data/dgt-recordings/) at {} \
         or in $BUGBRIDGE_SHARED",
        dir.display()
    );
    dir
}

/// `python3`, checked to have what the clients import.
fn python() -> &'static str {
    let ok = Command::new("python3")
        .args(["-c", "import serial, pyee, chess"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the interoperability tests need Python 3 with the clients' packages: \
         `pip install pyserial pyee==8.2.2 chess`"
    );
    "python3"
}

/// Runs one of this suite's scripts with `PYTHONPATH` = `paths`, in `cwd`; its JSON lines.
async fn run_script(script: &str, args: &[String], paths: &[PathBuf], cwd: &Path) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("optin/interop")
        .join(script);
    let pythonpath = std::env::join_paths(paths).expect("joinable paths");
    let child = Command::new(python())
        .arg(&script)
        .args(args)
        .env("PYTHONPATH", pythonpath)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let out = within(
        &format!("{} to finish", script.display()),
        tokio::task::spawn_blocking(move || child.wait_with_output()),
    )
    .await
    .expect("the waiting thread")
    .expect("the script's output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        script.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The values of `key` in the lines that have it, in order.
fn values<'a>(lines: &'a [Value], key: &str) -> Vec<&'a Value> {
    lines.iter().filter_map(|l| l.get(key)).collect()
}

fn one<'a>(lines: &'a [Value], key: &str) -> &'a Value {
    values(lines, key)
        .first()
        .copied()
        .unwrap_or_else(|| panic!("no {key} in {lines:?}"))
}

fn dedup<T: PartialEq>(mut v: Vec<T>) -> Vec<T> {
    v.dedup();
    v
}

/// Every placement board A's events of `lines` pass through, in order, starting with the
/// set-up (a `board` event changes its squares one after another, as the emulators report
/// them).
fn positions(lines: &[TraceLine]) -> Vec<Placement> {
    let mut cur: Option<Placement> = None;
    let mut out = Vec::new();
    for l in lines.iter().filter(|l| l.event.board() == Some(BoardId::A)) {
        match &l.event {
            TraceEvent::Board { placement, .. } => match cur.as_mut() {
                None => {
                    cur = Some(*placement);
                    out.push(*placement);
                }
                Some(c) => {
                    let diff: Vec<_> = placement.diff(c).collect();
                    for (sq, piece) in diff {
                        c.set(sq, piece);
                        out.push(*c);
                    }
                }
            },
            TraceEvent::Square { sq, piece, .. } => {
                let c = cur.as_mut().expect("a set-up before the squares");
                c.set(*sq, *piece);
                out.push(*c);
            }
            _ => {}
        }
    }
    out
}

/// Board A's clock readings as a DGT clock with White on the left shows them:
/// (left seconds, right seconds, left side running).
fn clock_readings(lines: &[TraceLine]) -> Vec<(u64, u64, bool)> {
    lines
        .iter()
        .filter_map(|l| match l.event {
            TraceEvent::Clock {
                board: BoardId::A,
                white,
                black,
                running,
            } => Some((
                white.ceil() as u64,
                black.ceil() as u64,
                running == Some(Side::White),
            )),
            _ => None,
        })
        .collect()
}

async fn wait_leds(emu: &EmulatorHandle, want: &[Square]) {
    let mut w = emu.watch();
    let mut want = want.to_vec();
    want.sort();
    within(
        "the LEDs the client lit",
        w.wait_for(|s| {
            let mut l = s.device.leds.clone();
            l.sort();
            l == want
        }),
    )
    .await
    .expect("the emulator runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asyncdgt_reads_the_emulated_dgt_board_and_clock() {
    let interop = shared().join("interop");
    let game = TestGame::demo_prefix(40);
    let placements = positions(&game.lines);
    let readings = dedup(clock_readings(&game.lines));
    assert!(readings.len() >= 20, "{readings:?}");
    let mut config = EmulatorConfig::new(DriverKind::Dgt);
    config.white_side = ClockSide::Left;
    let emu = Emulator::start(config, &game.lines).expect("emulator");
    let last_board = placements.last().expect("positions").to_string();
    let last_clock = readings.last().expect("readings");
    let scratch = TempDir::new("asyncdgt");
    let out = run_script(
        "asyncdgt_client.py",
        &[
            emu.path().display().to_string(),
            last_board,
            last_clock.0.to_string(),
            last_clock.1.to_string(),
        ],
        &[interop.join("shims"), interop.join("python-asyncdgt")],
        scratch.path(),
    )
    .await;

    // Handshake, serial numbers, versions (board 3.1; a DGT 3000 reports 2.0).
    assert_eq!(one(&out, "version"), "3.1");
    assert_eq!(one(&out, "serial"), "00042");
    assert_eq!(one(&out, "long_serial"), "0000000042");
    assert_eq!(one(&out, "clock_version"), "2.0");

    // Every position of the trace, in order.
    let boards: Vec<String> = values(&out, "board")
        .into_iter()
        .map(|v| v.as_str().expect("a FEN").to_owned())
        .collect();
    let want: Vec<String> = placements.iter().map(ToString::to_string).collect();
    assert_eq!(dedup(boards), dedup(want));

    // Every clock reading: both times and the lever (asyncdgt's `left_up` is true exactly
    // while the left side runs: status 0x09), then the clock set by set-and-run.
    let mut clocks: Vec<(u64, u64, bool)> = values(&out, "clock")
        .into_iter()
        .map(|v| {
            (
                v[0].as_u64().expect("left"),
                v[1].as_u64().expect("right"),
                v[2].as_bool().expect("left_up"),
            )
        })
        .collect();
    assert_eq!(clocks.pop(), Some((65, 125, true)), "set-and-run shown");
    assert_eq!(clocks, readings);

    // Clock commands acknowledged, the text on the display.
    for ack in ["text_acked", "beep_acked", "set_acked", "set_shown"] {
        assert_eq!(one(&out, ack), true, "{ack}");
    }
    assert_eq!(
        emu.status().device.clock_text.as_deref().map(str::trim),
        Some("bugbrdg")
    );
    assert_eq!(emu.status().device.dropped_bytes, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_mchess_reads_the_emulated_millennium_board_and_lights_its_leds() {
    let interop = shared().join("interop");
    let game = TestGame::demo_prefix(40);
    let want: Vec<String> = positions(&game.lines)
        .iter()
        .map(ToString::to_string)
        .collect();
    // Not on one line: the emulator reads a square as lit when all four of its corners
    // are, which two squares with one between them would light too.
    let g1 = Square::from_name("g1").expect("g1");
    let f3 = Square::from_name("f3").expect("f3");
    // A ChessLink board as it comes (h1 first, odd parity), and a 7-bit device without
    // parity turned 180° (python-mchess recognises the turned start position).
    for (rotated, parity) in [(false, ParityMode::Odd), (true, ParityMode::Ignore)] {
        let mut config = EmulatorConfig::new(DriverKind::Millennium);
        config.rotated = rotated;
        config.parity = parity;
        let emu = Emulator::start(config, &game.lines).expect("emulator");
        let scratch = TempDir::new("mchess");
        let out = run_script(
            "mchess_client.py",
            &[
                emu.path().display().to_string(),
                want.last().expect("positions").clone(),
            ],
            &[interop.join("shims"), interop.join("python-mchess/mchess")],
            scratch.path(),
        )
        .await;
        let case = format!("rotated {rotated}, parity {parity:?}");
        assert_eq!(one(&out, "version"), "01.10", "{case}");
        // python-mchess: true = "cable right", the h1-first board.
        assert_eq!(one(&out, "orientation"), !rotated, "{case}");
        let boards: Vec<String> = values(&out, "board")
            .into_iter()
            .map(|v| v.as_str().expect("a FEN").to_owned())
            .collect();
        assert_eq!(dedup(boards), dedup(want.clone()), "{case}");
        assert_eq!(one(&out, "leds_sent"), true, "{case}");
        wait_leds(&emu, &[g1, f3]).await;
        assert_eq!(emu.status().device.dropped_bytes, 0, "{case}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_reads_a_millennium_device_without_parity() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("optin/interop/unparitied_millennium.py");
    let mut device = Command::new(python())
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the device script starts");
    let device_lines = lines_of(device.stdout.take().expect("piped"));
    let mut device_lines = device_lines;
    let port = within("the device's pty path", device_lines.recv())
        .await
        .expect("the device prints its path");
    let mut listen = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .args(["listen", "--driver", "millennium", "--port", &port])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("listen starts");
    let mut listened = lines_of(listen.stdout.take().expect("piped"));
    let mut events = Vec::new();
    while events.len() < 4 {
        let line = within("listen's trace lines", listened.recv())
            .await
            .expect("listen runs");
        events.push(
            bugbridge_drivers::trace::parse_line(&line, false)
                .unwrap_or_else(|e| panic!("{e}: {line}"))
                .event,
        );
    }
    let start = Placement::start();
    assert_eq!(
        events,
        vec![
            TraceEvent::Link {
                board: BoardId::A,
                up: true
            },
            TraceEvent::Board {
                board: BoardId::A,
                placement: start
            },
            TraceEvent::Square {
                board: BoardId::A,
                sq: Square::from_name("e2").expect("e2"),
                piece: None
            },
            TraceEvent::Square {
                board: BoardId::A,
                sq: Square::from_name("e4").expect("e4"),
                piece: start.get(Square::from_name("e2").expect("e2"))
            },
        ]
    );
    bugbridge_tests::child::terminate(listen, "listen").await;
    let _ = device.kill();
    let _ = device.wait();
    // The handshake the device saw: version, report mode, scan time, status; once the host
    // had seen 7-bit replies it answered in kind.
    let mut commands = Vec::new();
    while let Ok(line) = device_lines.try_recv() {
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        commands.push((
            v["cmd"].as_str().expect("cmd").to_owned(),
            v["parity_bit_seen"].as_bool().expect("flag"),
        ));
    }
    let letters: Vec<&str> = commands.iter().map(|(c, _)| &c[..1]).collect();
    assert_eq!(&letters[..4], ["V", "W", "W", "S"], "{commands:?}");
    assert!(
        commands[1..].iter().all(|(_, parity)| !parity),
        "after the first 7-bit reply the host sends without parity: {commands:?}"
    );
}

/// Lines of a child's output on a channel (read on a thread of its own).
fn lines_of(
    out: impl std::io::Read + Send + 'static,
) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    use std::io::BufRead;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
