//! The binary's interfaces as users and scripts see them (the README): exit statuses,
//! output lines, and `simulate | replay` giving back the game.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bugbridge::rules::Ruleset;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bugbridge"))
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bpgn")
        .join(rel)
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bugbridge-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn check_reports_each_game_and_exits_by_the_worst() {
    let ok = run(bin().arg("check").arg(data("lwerdna-chess/foo.bpgn")));
    assert_eq!(ok.status.code(), Some(0));
    let out = String::from_utf8_lossy(&ok.stdout);
    assert!(out.ends_with("foo.bpgn #1: 79 plies, 1-0\n"), "{out}");

    let bad = run(bin()
        .arg("check")
        .arg(data("lwerdna-chess/foo.bpgn"))
        .arg(data("lwerdna-chess/nonexistent_pawn_drop_19A.bpgn")));
    assert_eq!(bad.status.code(), Some(1));
    let out = String::from_utf8_lossy(&bad.stdout);
    assert!(
        out.contains("nonexistent_pawn_drop_19A.bpgn #1: 19A. P@e7+: drop-not-in-hand"),
        "{out}"
    );

    let missing = run(bin().arg("check").arg("no/such/file.bpgn"));
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/file.bpgn"));

    let usage = run(bin()
        .args(["check", "--ruleset", "blitz"])
        .arg(data("lwerdna-chess/foo.bpgn")));
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("blitz"));
}

#[test]
fn check_positions_prints_token_san_and_bfen_per_move() {
    let out = run(bin()
        .args(["check", "--positions"])
        .arg(data("pychess-variants/1283326.bpgn")));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap();
    let fields: Vec<&str> = first.split('\t').collect();
    assert_eq!(fields.len(), 4, "{first}");
    assert!(fields[0].ends_with("1283326.bpgn #1"));
    assert_eq!(fields[1], "1A.");
    assert!(fields[3].contains(" | "), "{first}");
    assert_eq!(text.lines().count(), 8);
}

#[test]
fn simulate_then_replay_gives_back_the_game() {
    let dir = temp("roundtrip");
    let game = data("pychess-variants/1934587.bpgn");
    let source = parse_bpgn(&std::fs::read_to_string(&game).unwrap()).unwrap();
    let expected: Vec<String> = replay(&source[0], Ruleset::default())
        .unwrap()
        .moves
        .iter()
        .map(|m| format!("{} {}", m.token, m.canonical_san))
        .collect();

    let sim = run(bin()
        .args(["simulate", "--noise", "noisy", "--seed", "5"])
        .arg(&game));
    assert_eq!(
        sim.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let trace = dir.join("game.trace.jsonl");
    std::fs::write(&trace, &sim.stdout).unwrap();
    let again = run(bin()
        .args(["simulate", "--noise", "noisy", "--seed", "5"])
        .arg(&game));
    assert_eq!(
        sim.stdout, again.stdout,
        "the same seed gives the same trace"
    );

    let events = dir.join("events.jsonl");
    let rep = run(bin().arg("replay").arg("--events").arg(&events).arg(&trace));
    assert_eq!(
        rep.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rep.stderr)
    );
    let bpgn = String::from_utf8_lossy(&rep.stdout);
    let back = parse_bpgn(&bpgn).unwrap();
    let got: Vec<String> = back[0]
        .moves
        .iter()
        .map(|m| format!("{} {}", m.token, m.san))
        .collect();
    assert_eq!(got, expected);
    // Times to the second: the clock comments of the source, rounded as a DGT clock shows.
    for (a, b) in back[0].moves.iter().zip(&source[0].moves) {
        let (a, b) = (a.clock.unwrap(), b.clock.unwrap());
        assert!((a - b).abs() < 1.0, "{a} vs {b}");
    }

    let lines = std::fs::read_to_string(&events).unwrap();
    let moves: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["kind"] == "move")
        .collect();
    assert_eq!(moves.len(), expected.len());
    let first = &moves[0];
    for key in [
        "t", "kind", "board", "side", "number", "san", "clock", "bfen",
    ] {
        assert!(first.get(key).is_some(), "{key} missing in {first}");
    }
    assert!(first.get("seq").is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_broken_trace_is_refused_naming_the_line() {
    let dir = temp("broken");
    let trace = dir.join("bad.trace.jsonl");
    std::fs::write(
        &trace,
        "{\"t\":0,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\n{\"t\":5,\"board\":\"A\",\"ev\":\"square\",\"sq\":\"z9\",\"piece\":null}\n",
    )
    .unwrap();
    let rep = run(bin().arg("replay").arg(&trace));
    assert_eq!(rep.status.code(), Some(1));
    let err = String::from_utf8_lossy(&rep.stderr);
    assert!(err.contains("line 2"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_configuration_is_refused_with_its_place() {
    let dir = temp("config");
    let cfg = dir.join("table.toml");
    std::fs::write(
        &cfg,
        "[match]\nid = \"t\"\n\n[[board]]\nname = \"A\"\ndriver = \"dgtx\"\nport = \"/dev/null\"\n",
    )
    .unwrap();
    let out = run(bin().arg("run").arg("--config").arg(&cfg));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("table.toml:6:") && err.contains("board[0].driver"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check`'s verdict on one file: its lines on stdout.
fn check_lines(path: &Path) -> String {
    let out = run(bin().arg("check").arg(path));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `simulate FILE | replay`: the recorded BPGN.
fn simulate_and_replay(game: &Path, dir: &Path) -> String {
    let sim = run(bin().args(["simulate", "--noise", "noisy"]).arg(game));
    assert_eq!(
        sim.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let trace = dir.join("game.trace.jsonl");
    std::fs::write(&trace, &sim.stdout).unwrap();
    let rep = run(bin().arg("replay").arg(&trace));
    assert_eq!(
        rep.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rep.stderr)
    );
    String::from_utf8_lossy(&rep.stdout).into_owned()
}

#[test]
fn simulate_replay_check_keeps_the_result_of_games_decided_on_either_board() {
    let dir = temp("results");
    // 1934301 and foo end on board B, bugaboo/test on board A.
    for (rel, plies_and_result) in [
        ("pychess-variants/1934301.bpgn", "110 plies, 0-1"),
        ("lwerdna-chess/foo.bpgn", "79 plies, 1-0"),
        ("bugaboo/test.bpgn", "139 plies, 0-1"),
    ] {
        let source = check_lines(&data(rel));
        assert!(
            source.ends_with(&format!(": {plies_and_result}\n")),
            "{source}"
        );
        let bpgn = simulate_and_replay(&data(rel), &dir);
        assert!(bpgn.contains("[Recorder \"bugbridge "), "{bpgn}");
        let recorded = dir.join("recorded.bpgn");
        std::fs::write(&recorded, &bpgn).unwrap();
        let again = check_lines(&recorded);
        assert!(
            again.ends_with(&format!(": {plies_and_result}\n")),
            "{rel}: the source says {source:?}, its recording {again:?}\n{bpgn}"
        );
        // The result tag and the terminator say the same.
        let game = &parse_bpgn(&bpgn).unwrap()[0];
        assert_eq!(game.tag("Result"), game.result.map(|r| r.as_str()));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_leaves_out_a_torn_last_line_with_a_warning() {
    let dir = temp("torn");
    let sim = run(bin().arg("simulate").arg(data("lwerdna-chess/foo.bpgn")));
    assert_eq!(sim.status.code(), Some(0));
    let text = String::from_utf8(sim.stdout).unwrap();
    let whole = dir.join("whole.trace.jsonl");
    std::fs::write(&whole, &text).unwrap();
    let expected = run(bin().arg("replay").arg(&whole));
    assert_eq!(expected.status.code(), Some(0));

    // A power cut in the middle of the last line: the whole trace up to it, and half a line.
    let lines = text.lines().count();
    let torn = dir.join("torn.trace.jsonl");
    std::fs::write(
        &torn,
        format!("{text}{{\"t\":99999999,\"board\":\"A\",\"ev\":\"clo"),
    )
    .unwrap();
    let rep = run(bin().arg("replay").arg(&torn));
    assert_eq!(rep.status.code(), Some(0));
    let err = String::from_utf8_lossy(&rep.stderr);
    assert!(
        err.contains(&format!(
            "warning: line {}: the last line is cut off",
            lines + 1
        )),
        "{err}"
    );
    assert_eq!(rep.stdout, expected.stdout, "the same BPGN");

    // The same damage followed by another line is not a torn tail: an error naming it.
    let damaged = dir.join("damaged.trace.jsonl");
    std::fs::write(
        &damaged,
        format!(
            "{text}{{\"t\":99999999,\"board\":\"A\",\"ev\":\"clo\n{}\n",
            text.lines().last().unwrap()
        ),
    )
    .unwrap();
    let rep = run(bin().arg("replay").arg(&damaged));
    assert_eq!(rep.status.code(), Some(1));
    let err = String::from_utf8_lossy(&rep.stderr);
    assert!(err.contains(&format!("line {}", lines + 1)), "{err}");
    assert!(rep.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_set_up_game_round_trips_through_the_trace_from_its_start_position() {
    let dir = temp("setup");
    let path = data("bpgn-standard-samples/VampireGod-Setup-BFEN-2002.bpgn");
    let source = &parse_bpgn(&std::fs::read_to_string(&path).unwrap()).unwrap()[0];
    let fen = source.setup.clone().expect("a set-up game");
    let expected: Vec<String> = replay(source, Ruleset::default())
        .unwrap()
        .moves
        .iter()
        .map(|m| format!("{}{} {}", m.token.board, m.token.color, m.canonical_san))
        .collect();
    assert_eq!(expected.len(), 13);

    let sim = run(bin().args(["simulate", "--noise", "noisy"]).arg(&path));
    assert_eq!(sim.status.code(), Some(0));
    let text = String::from_utf8(sim.stdout).unwrap();
    let meta: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(meta["ev"], "meta");
    assert_eq!(meta["setup"], fen.as_str(), "the trace carries the start");
    let trace = dir.join("setup.trace.jsonl");
    std::fs::write(&trace, &text).unwrap();
    let events = dir.join("events.jsonl");
    let rep = run(bin().arg("replay").arg("--events").arg(&events).arg(&trace));
    assert_eq!(
        rep.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rep.stderr)
    );
    let alerts: Vec<String> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"kind\":\"alert\""))
        .map(str::to_owned)
        .collect();
    assert!(alerts.is_empty(), "{alerts:?}");
    let bpgn = String::from_utf8_lossy(&rep.stdout);
    let back = &parse_bpgn(&bpgn).unwrap()[0];
    assert_eq!(back.setup.as_deref(), Some(fen.as_str()), "{bpgn}");
    let got: Vec<String> = back
        .moves
        .iter()
        .map(|m| format!("{}{} {}", m.token.board, m.token.color, m.san))
        .collect();
    assert_eq!(got, expected);
    for (a, b) in back.moves.iter().zip(&source.moves) {
        assert!((a.clock.unwrap() - b.clock.unwrap()).abs() < 1.0);
    }
    // The recording is a set-up game `check` replays from the same start.
    let recorded = dir.join("recorded.bpgn");
    std::fs::write(&recorded, bpgn.as_bytes()).unwrap();
    assert!(check_lines(&recorded).contains(": 13 plies, "));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `cmd` to its end; its exit status and peak resident memory in bytes
/// (`wait4`'s `ru_maxrss`, for this child alone).
fn run_measured(cmd: &mut Command) -> (Option<i32>, u64) {
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: `rusage` is plain data, zeroed is a valid value; `wait4` fills it for `pid`,
    // our own child, which is then reaped (the `Child` is not waited on again).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(waited, pid, "wait4");
    std::mem::forget(child);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024)
}

#[test]
fn check_streams_a_large_file_in_bounded_memory() {
    let dir = temp("large");
    // 24 MB of games with long kibitz comments: reading the whole file at once needs
    // several times that.
    let kibitz = "well played, what a game ".repeat(2000);
    let game = format!(
        "[Event \"big\"]\n\n1A. e4 {{119}} {{C: {kibitz}}} 1a. e5 {{119}} {{C: {kibitz}}} *\n\n"
    );
    let path = dir.join("large.bpgn");
    let count = 24_000_000 / game.len();
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for _ in 0..count {
            f.write_all(game.as_bytes()).unwrap();
        }
        f.flush().unwrap();
    }
    let (code, peak) = run_measured(bin().arg("check").arg(&path));
    assert_eq!(code, Some(0));
    assert!(
        peak < 32 << 20,
        "check of a 24 MB file peaked at {} MB",
        peak >> 20
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_prints_each_game_as_soon_as_it_is_read() {
    use std::io::{BufRead, Write};
    let mut child = bin()
        .args(["check", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.expect("a line")).is_err() {
                return;
            }
        }
    });
    let limit = std::time::Duration::from_secs(20);
    // One game, the input still open: its line comes before the next game is written.
    stdin.write_all(b"1A. e4 1a. e5 *\n").unwrap();
    stdin.flush().unwrap();
    // (`*` ends the game only when the next token shows; a tag does.)
    stdin.write_all(b"[Event \"2\"]\n").unwrap();
    stdin.flush().unwrap();
    let first = rx.recv_timeout(limit).expect("the first game's line");
    assert_eq!(first, "ok /dev/stdin #1: 2 plies, *");
    stdin.write_all(b"1A. d4 *\n").unwrap();
    drop(stdin);
    let second = rx.recv_timeout(limit).expect("the second game's line");
    assert_eq!(second, "ok /dev/stdin #2: 1 plies, *");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn check_refuses_an_absurd_game_after_reporting_the_ones_before() {
    let dir = temp("absurd");
    let path = dir.join("absurd.bpgn");
    std::fs::write(
        &path,
        format!("1A. e4 *\n[Event \"x\"]\n{}*\n", "1A. e4 ".repeat(200_000)),
    )
    .unwrap();
    let out = run(bin().arg("check").arg(&path));
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, format!("ok {} #1: 1 plies, *\n", path.display()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("{}:3:", path.display()))
            && stderr.contains("expected a game of at most 10000 moves")
            && stderr.contains("refused"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn relay_refuses_bad_options_naming_them() {
    for (args, wanted) in [
        (&["relay", "--mqtt", "embedded"][..], "--mqtt"),
        (&["relay", "--mqtt", "http://broker"][..], "--mqtt"),
        (
            &["relay", "--mqtt", "mqtt://127.0.0.1:1", "--delay=-5"][..],
            "--delay",
        ),
        (
            &["relay", "--mqtt", "mqtt://127.0.0.1:1", "--prefix", "a/#"][..],
            "prefix",
        ),
        (
            &[
                "relay",
                "--mqtt",
                "mqtt://127.0.0.1:1",
                "--arbiter-token-file",
                "no/such/token",
            ][..],
            "no/such/token",
        ),
    ] {
        let out = run(bin().args(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(wanted), "{args:?}: {err}");
    }
}

#[test]
fn run_refuses_a_bad_match_id_or_tag_from_the_command_line() {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/minimal.toml");
    let bad_id = run(bin()
        .arg("run")
        .arg("--config")
        .arg(&config)
        .args(["--match-id", "table 1"]));
    assert_eq!(bad_id.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_id.stderr).contains("--match-id"));
    let bad_tag = run(bin()
        .arg("run")
        .arg("--config")
        .arg(&config)
        .args(["--tag", "Round"]));
    assert_eq!(bad_tag.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_tag.stderr).contains("KEY=VALUE"));
}

#[test]
fn listen_on_something_that_is_no_serial_port_exits_2_at_once() {
    let dir = temp("listen-file");
    let file = dir.join("not-a-port");
    std::fs::write(&file, "x").unwrap();
    for port in [Path::new("/dev/null"), file.as_path()] {
        let out = run(bin()
            .args(["listen", "--driver", "dgt", "--port"])
            .arg(port));
        assert_eq!(out.status.code(), Some(2), "{}", port.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not a serial port"),
            "{}: {err}",
            port.display()
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn emulate_refuses_parity_auto_clearly() {
    let dir = temp("emulate-parity");
    let trace = dir.join("t.jsonl");
    std::fs::write(&trace, "").unwrap();
    let out = run(bin()
        .args([
            "emulate",
            "--driver",
            "millennium",
            "--parity",
            "auto",
            "--trace",
        ])
        .arg(&trace));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--parity auto") && err.contains("odd"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
