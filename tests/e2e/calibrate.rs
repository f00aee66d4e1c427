//! `bugbridge calibrate` against two Certabo boards emulated by `bugbridge emulate --driver
//! certabo` on real ptys (their own processes: tags of each board's own set, noise on empty
//! squares, misread tags, readings in 64-byte pieces).
//!
//! Board A's start position carries extra queens on d3 and d6: both sets and the two extra
//! queens are learnt, reported board by board, and saved beside the configuration. A board
//! whose h2 pawn is missing fails the calibration, naming the board and the square, and
//! nothing is saved. Then `bugbridge run` with boards that could not be learnt from (their
//! h2 pawn missing) connects both: it reads the saved calibration, and learns nothing again.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use bugbridge_drivers::certabo::Calibration;
use bugbridge_drivers::emulate::TagSet;
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::{BoardId, Placement, Square, TraceEvent, TraceLine};
use bugbridge_tests::child::ChildDaemon;
use bugbridge_tests::paced::PacedTable;
use bugbridge_tests::temp::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_bugbridge-e2e");

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
const EXTRA_QUEENS: &str = "rnbqkbnr/pppppppp/3q4/8/8/3Q4/PPPPPPPP/RNBQKBNR";
const NO_H2: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR";

/// `bugbridge emulate --driver certabo` for one board of a trace; killed when dropped.
struct Emulated {
    child: Child,
    path: String,
}

impl Emulated {
    fn start(trace: &Path, board: &str) -> Emulated {
        let mut child = Command::new(BIN)
            .args([
                "emulate", "--driver", "certabo", "--board", board, "--trace",
            ])
            .arg(trace)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("emulate starts");
        let mut path = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut path)
            .expect("the device path");
        let path = path.trim().to_owned();
        assert!(path.starts_with("/dev/"), "{path:?}");
        Emulated { child, path }
    }
}

impl Drop for Emulated {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A trace whose boards stand in `a` and `b`.
fn trace(dir: &Path, name: &str, a: &str, b: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "{{\"t\":0,\"board\":\"A\",\"ev\":\"board\",\"fen\":\"{a}\"}}\n{{\"t\":0,\"board\":\"B\",\"ev\":\"board\",\"fen\":\"{b}\"}}\n"
        ),
    )
    .expect("write the trace");
    path
}

/// A table's configuration with its two Certabo boards on `a` and `b`.
fn config(dir: &Path, a: &str, b: &str) -> PathBuf {
    let path = dir.join("table.toml");
    std::fs::write(
        &path,
        format!(
            "[match]\nid = \"calibrate\"\n\n[[board]]\nname = \"A\"\ndriver = \"certabo\"\nport = \"{a}\"\n\n[[board]]\nname = \"B\"\ndriver = \"certabo\"\nport = \"{b}\"\n\n[mqtt]\nurl = \"embedded\"\nembedded_listen = \"127.0.0.1:0\"\n\n[http]\nlisten = \"127.0.0.1:0\"\n\n[record]\ndir = \"games\"\n"
        ),
    )
    .expect("write the configuration");
    path
}

async fn calibrate(config: &Path) -> Output {
    let config = config.to_owned();
    tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .arg("calibrate")
            .arg("--config")
            .arg(&config)
            .stdin(Stdio::null())
            .output()
            .expect("calibrate runs")
    })
    .await
    .expect("calibrate ends")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calibrate_learns_both_sets_names_a_missing_piece_and_run_reuses_it() {
    let dir = TempDir::new("calibrate");
    let saved = dir.path().join("table.calibration.json");

    // Both boards set up, extra queens on board A.
    let set_up = trace(dir.path(), "set-up.jsonl", EXTRA_QUEENS, START);
    let (a, b) = (Emulated::start(&set_up, "A"), Emulated::start(&set_up, "B"));
    let table = config(dir.path(), &a.path, &b.path);
    let out = calibrate(&table).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for line in [
        format!(
            "board A ({}): 34 pieces recognised: K1 Q2 R2 B2 N2 P8 k1 q2 r2 b2 n2 p8 (extra queens on d3, d6)",
            a.path
        ),
        format!(
            "board B ({}): 32 pieces recognised: K1 Q1 R2 B2 N2 P8 k1 q1 r2 b2 n2 p8",
            b.path
        ),
        "board A: squares not recognised: none".into(),
        "board B: squares not recognised: none".into(),
        "board A: duplicate tags: none".into(),
        "board B: duplicate tags: none".into(),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no line {line:?} in:\n{stdout}"
        );
    }
    assert!(stdout.contains(&saved.display().to_string()), "{stdout}");
    let cal = Calibration::from_json(&std::fs::read_to_string(&saved).expect("saved"))
        .expect("a calibration");
    assert_eq!(cal.len(), 66, "both sets and the two extra queens");
    assert_eq!(cal.summary(), "K2 Q3 R4 B4 N4 P16 k2 q3 r4 b4 n4 p16");
    // The tags are the boards' own: a piece of either set is known on both boards.
    for board in [BoardId::A, BoardId::B] {
        let set = TagSet::for_board(board);
        for (piece, tag) in &set.tags {
            assert_eq!(cal.piece(*tag), Some(*piece), "board {board} {tag}");
        }
    }
    for (piece, tag) in &TagSet::for_board(BoardId::A).extra_queens {
        assert_eq!(cal.piece(*tag), Some(*piece), "extra queen {tag}");
    }
    drop((a, b));

    // Board B's h2 pawn missing: the calibration fails naming the board and the square.
    let missing = trace(dir.path(), "missing.jsonl", START, NO_H2);
    let (a, b) = (
        Emulated::start(&missing, "A"),
        Emulated::start(&missing, "B"),
    );
    let table = config(dir.path(), &a.path, &b.path);
    let out = calibrate(&table).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l == "board B: squares not recognised: h2"),
        "{stdout}"
    );
    assert!(
        stderr.contains("calibrate: board B: h2: no white pawn recognised"),
        "{stderr}"
    );
    assert!(!stderr.contains("board A:"), "board A was fine: {stderr}");
    assert!(stderr.contains("nothing saved"), "{stderr}");
    let after = Calibration::from_json(&std::fs::read_to_string(&saved).expect("saved"))
        .expect("a calibration");
    assert_eq!(after, cal, "the saved calibration is untouched");
    drop((a, b));

    // `run` with boards that cannot be learnt from (h2 missing) reads the saved calibration.
    let h2 = Square::from_name("h2").expect("h2");
    let mut setup = Placement::start();
    setup.set(h2, None);
    let lines: Vec<TraceLine> = [BoardId::A, BoardId::B]
        .into_iter()
        .map(|board| TraceLine {
            t: 0,
            event: TraceEvent::Board {
                board,
                placement: setup,
            },
        })
        .collect();
    let boards = PacedTable::start(&lines, [DriverKind::Certabo, DriverKind::Certabo]);
    let table = config(
        dir.path(),
        &boards.path(BoardId::A).display().to_string(),
        &boards.path(BoardId::B).display().to_string(),
    );
    let (daemon, mut sub) =
        ChildDaemon::run_with_subscriber(BIN, &table, "calibrate", "calibrate").await;
    sub.until("both boards connected with the calibration", |s| {
        s.state()
            .is_some_and(|st| st.boards.A.connected && st.boards.B.connected)
    })
    .await;
    daemon.terminate().await;
    let after = Calibration::from_json(&std::fs::read_to_string(&saved).expect("saved"))
        .expect("a calibration");
    assert_eq!(after, cal, "nothing learnt again");
}
