//! The binary's interfaces as users and scripts see them (`interfaces.md`): exit statuses,
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
