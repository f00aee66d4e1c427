//! bugbridge's BPGN through the readers the bughouse world uses, run from
//! `../shared/interop/bpgn-readers` (never copied in): pychess.org's importer
//! (`pychess_import.py`, Python 3.11+) and the BPGN viewer (`bhv_read.js`, node).
//!
//! Every kind of file bugbridge writes: each corpus game's replay, outage, fault and
//! clockless replays, a set-up game, the demo and the Koedem demo. Each must be imported
//! whole: both boards' plies, the moves and the result, the mover's clock at every ply
//! (pychess), every time, the end comment and result, every ply played (viewer). A game with
//! an illegal move goes to pychess through `export --for pychess` (the game up to that
//! move); the viewer reads it whole and plays it up to that move. Neither knows Koedem:
//! pychess's export refuses it, saying so; the viewer reads a Koedem game whole but its
//! boards stop before the first move bughouse forbids, exactly there. A Chess960 set-up game:
//! pychess imports it whole; the viewer reads it whole, its boards stop at the first
//! castling (it knows only the standard one). A missing interpreter
//! fails the test, saying what to install.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bugbridge::rules::notation::bpgn::{BpgnGame, parse_bpgn, replay};
use bugbridge::rules::notation::variant::{
    PROMOTION_TAG, VARIANT_TAG, promotion_by_grab_of, rules_with_promotion, ruleset_of_variant,
};
use bugbridge::rules::{BoardId, Move};
use bugbridge_tests::temp::TempDir;
use serde_json::Value;

fn readers() -> PathBuf {
    let dir = super::interop::shared().join("interop/bpgn-readers");
    assert!(
        dir.join("pychess-variants/pychess_import.py").is_file()
            && dir.join("bughouse-viewer/bhv_read.js").is_file(),
        "the readers are missing from {}",
        dir.display()
    );
    dir
}

fn tool(program: &str, hint: &str) -> &'static str {
    let ok = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "the BPGN reader tests need {program}: {hint}");
    if program == "node" { "node" } else { "python3" }
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../daemon/tests/data/bpgn")
}

fn bugbridge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
}

/// `simulate ARGS FILE | replay`, written to `out`.
fn replay_of(source: &Path, args: &[&str], out: &Path) {
    let trace = out.with_extension("trace.jsonl");
    let sim = bugbridge()
        .arg("simulate")
        .args(args)
        .arg(source)
        .output()
        .expect("simulate runs");
    // An illegal game is simulated up to its end and exits 1.
    assert!(
        !sim.stdout.is_empty(),
        "simulate {}: {}",
        source.display(),
        String::from_utf8_lossy(&sim.stderr)
    );
    std::fs::write(&trace, &sim.stdout).unwrap();
    replay_into(&trace, out);
}

/// `replay TRACE`, its BPGN written to `out`.
fn replay_into(trace: &Path, out: &Path) {
    let rep = bugbridge()
        .arg("replay")
        .arg(trace)
        .output()
        .expect("replay runs");
    assert!(
        rep.status.success(),
        "replay {}: {}",
        trace.display(),
        String::from_utf8_lossy(&rep.stderr)
    );
    std::fs::write(out, &rep.stdout).unwrap();
}

/// `simulate FILE`, its boards turned into boards that sense only occupancy (TabuTronic
/// Sentio: no clock, an `occupancy` line at every change), then `replay`, written to `out`.
fn occupancy_replay_of(source: &Path, out: &Path) {
    let sim = bugbridge()
        .arg("simulate")
        .arg(source)
        .output()
        .expect("simulate runs");
    let mut boards: BTreeMap<String, [[bool; 8]; 8]> = BTreeMap::new();
    let occupied = |b: &[[bool; 8]; 8]| {
        // FEN placement, rank 8 first, `X` for an occupied square.
        let ranks: Vec<String> = (0..8)
            .rev()
            .map(|r| {
                let (mut text, mut empty) = (String::new(), 0);
                for &on in &b[r] {
                    if on {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        text.push('X');
                    } else {
                        empty += 1;
                    }
                }
                if empty > 0 {
                    text.push_str(&empty.to_string());
                }
                text
            })
            .collect();
        ranks.join("/")
    };
    let mut trace = String::new();
    for line in String::from_utf8_lossy(&sim.stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("a trace line");
        let board = v["board"].as_str().unwrap_or_default().to_owned();
        match v["ev"].as_str() {
            Some("meta") => {
                trace.push_str(line);
                trace.push('\n');
                continue;
            }
            Some("board") => {
                let mut b = [[false; 8]; 8];
                for (r, rank) in v["fen"].as_str().unwrap().split('/').enumerate() {
                    let mut f = 0;
                    for c in rank.chars() {
                        match c.to_digit(10) {
                            Some(n) => f += n as usize,
                            None => {
                                b[7 - r][f] = true;
                                f += 1;
                            }
                        }
                    }
                }
                boards.insert(board.clone(), b);
            }
            Some("square") => {
                let sq = v["sq"].as_str().unwrap().as_bytes();
                let (f, r) = (usize::from(sq[0] - b'a'), usize::from(sq[1] - b'1'));
                boards.get_mut(&board).expect("a board line first")[r][f] = !v["piece"].is_null();
            }
            _ => continue,
        }
        trace.push_str(&format!(
            "{{\"t\":{},\"board\":\"{board}\",\"ev\":\"occupancy\",\"occupied\":\"{}\"}}\n",
            v["t"],
            occupied(&boards[&board])
        ));
    }
    let path = out.with_extension("trace.jsonl");
    std::fs::write(&path, trace).unwrap();
    replay_into(&path, out);
}

/// The demo's recorded games (`demo --loops 1`), into `dir`.
fn demo(args: &[&str], dir: &Path) -> Vec<PathBuf> {
    let status = bugbridge()
        .args(["demo", "--http", "127.0.0.1:0", "--mqtt", "127.0.0.1:0"])
        .args(["--speed", "20", "--loops", "1", "--noise", "clean", "--dir"])
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the demo runs");
    assert!(status.success(), "demo {args:?}: {status}");
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map_while(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "bpgn") {
                found.push(p);
            }
        }
    }
    assert!(
        !found.is_empty(),
        "the demo {args:?} wrote no BPGN in {}",
        dir.display()
    );
    found
}

fn json(cmd: &mut Command) -> Value {
    let out = cmd.output().expect("the reader runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| {
            panic!(
                "no JSON from the reader: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    serde_json::from_str(line).expect("the reader's JSON")
}

fn pychess(file: &Path) -> Value {
    json(
        Command::new(tool("python3", "Python 3.11 or later"))
            .arg(readers().join("pychess-variants/pychess_import.py"))
            .arg("--json")
            .arg(file),
    )
}

fn viewer(file: &Path) -> Value {
    json(
        Command::new(tool("node", "`apt-get install nodejs`"))
            .arg(readers().join("bughouse-viewer/bhv_read.js"))
            .arg("--json")
            .arg(file),
    )
}

fn read(file: &Path) -> BpgnGame {
    let text = std::fs::read_to_string(file).unwrap();
    parse_bpgn(&text).unwrap().remove(0)
}

/// The rules a game was played under, from its `Variant` and `Promotion` tags.
fn rules_of(game: &BpgnGame) -> bugbridge::rules::Ruleset {
    let name = game
        .tag(VARIANT_TAG)
        .and_then(ruleset_of_variant)
        .unwrap_or_default();
    let grab = game.tag(PROMOTION_TAG).and_then(promotion_by_grab_of);
    rules_with_promotion(name, grab)
}

/// The plies before the first illegal move, if the game has one.
fn legal_plies(game: &BpgnGame) -> Option<usize> {
    let r = replay(game, rules_of(game)).expect("replays");
    r.stop.map(|_| r.moves.len() - 1)
}

fn is_chess960(game: &BpgnGame) -> bool {
    game.tag(VARIANT_TAG).is_some_and(|v| v.contains("960"))
}

/// pychess's moves (UCI, ply by ply, as it stored them) are bugbridge's replay of `given`.
fn same_moves_as_pychess(name: &str, given: &Path, v: &Value) {
    let game = read(given);
    let r = replay(&game, rules_of(&game)).expect("replays");
    assert!(r.is_legal(), "{name}: what pychess imported is legal");
    // pychess plays a Chess960 game in python-chess's Chess960 mode, whose UCI writes
    // castling as the king taking its own rook (`g1h1`).
    let ours: Vec<String> = r
        .moves
        .iter()
        .map(|m| match m.mv {
            Move::Castle { king, rook } if is_chess960(&game) => format!("{king}{rook}"),
            mv => mv.uci(),
        })
        .collect();
    let theirs: Vec<String> = v["clocks"]
        .as_array()
        .expect("clocks")
        .iter()
        .map(|c| c["move"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(theirs, ours, "{name}: the moves pychess stored");
}

fn per_board(game: &BpgnGame, upto: usize) -> (u64, u64) {
    let count = |b| {
        game.moves[..upto]
            .iter()
            .filter(|m| m.token.board == b)
            .count() as u64
    };
    (count(BoardId::A), count(BoardId::B))
}

/// pychess imports `file` (or its pychess export) whole: plies, result, the mover's clock.
fn through_pychess(file: &Path, dir: &Path) -> String {
    let game = read(file);
    let koedem = game.tag(VARIANT_TAG).and_then(ruleset_of_variant)
        == Some(bugbridge::rules::RulesetName::Koedem);
    let illegal = legal_plies(&game);
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    if koedem || illegal.is_some() {
        let out = bugbridge()
            .args(["export", "--for", "pychess"])
            .arg(file)
            .output()
            .unwrap();
        if koedem {
            assert!(
                !out.status.success(),
                "{name}: pychess export of Koedem must refuse"
            );
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("Koedem"),
                "{name}"
            );
            return format!("{name}: Koedem, refused by the export, named");
        }
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let exported = dir.join(format!("{name}.pychess.bpgn"));
        std::fs::write(&exported, &out.stdout).unwrap();
        let upto = illegal.unwrap();
        let v = pychess(&exported);
        assert_eq!(v["outcome"], "accepted", "{name} (pychess export): {v}");
        let (a, b) = per_board(&game, upto);
        assert_eq!(
            (v["plies_A"].as_u64(), v["plies_B"].as_u64()),
            (Some(a), Some(b)),
            "{name}"
        );
        assert_eq!(v["result"], game.tag("Result").unwrap(), "{name}");
        same_moves_as_pychess(&name, &exported, &v);
        return format!("{name}: pychess export accepted, {upto} plies up to the illegal move");
    }
    let v = pychess(file);
    assert_eq!(v["outcome"], "accepted", "{name}: {v}");
    let (a, b) = per_board(&game, game.moves.len());
    assert_eq!(
        (v["plies_A"].as_u64(), v["plies_B"].as_u64()),
        (Some(a), Some(b)),
        "{name}"
    );
    assert_eq!(v["result"], game.tag("Result").unwrap(), "{name}");
    same_moves_as_pychess(&name, file, &v);
    let clocks = v["clocks"].as_array().expect("clocks");
    assert_eq!(clocks.len(), game.moves.len(), "{name}");
    for (m, c) in game.moves.iter().zip(clocks) {
        let Some(t) = m.clock else { continue };
        let seat = match c["mover"].as_str().unwrap() {
            "WA" => "WhiteA",
            "BA" => "BlackA",
            "WB" => "WhiteB",
            _ => "BlackB",
        };
        let got = c[seat].as_i64().unwrap();
        let want = (t * 1000.0).round() as i64;
        assert!(
            (got - want).abs() <= 1,
            "{name} {}: clock {got} ms, file {t} s",
            m.token
        );
    }
    format!("{name}: pychess accepted {} plies", game.moves.len())
}

/// The viewer loads `file` whole: every ply and time, the end comment and result.
fn through_viewer(file: &Path) {
    let game = read(file);
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let v = viewer(file);
    assert_eq!(v["loaded"], true, "{name}: {v}");
    let (a, b) = per_board(&game, game.moves.len());
    assert_eq!(
        (v["plies_A"].as_u64(), v["plies_B"].as_u64()),
        (Some(a), Some(b)),
        "{name}: {v}"
    );
    let timed = game.moves.iter().filter(|m| m.clock.is_some()).count() as u64;
    assert_eq!(v["times_read"].as_u64(), Some(timed), "{name}: {v}");
    let last_clocked = game.moves.last().is_none_or(|m| m.clock.is_some());
    if last_clocked && !game.moves.is_empty() {
        assert_eq!(v["stopped"], "at the end comment and result", "{name}: {v}");
        assert_eq!(v["end_result"], game.tag("Result").unwrap(), "{name}: {v}");
        assert_eq!(
            v["end_comment"].as_str(),
            game.end_comment.as_deref(),
            "{name}: {v}"
        );
    }
    let koedem = game.tag(VARIANT_TAG).and_then(ruleset_of_variant)
        == Some(bugbridge::rules::RulesetName::Koedem);
    if koedem {
        // The viewer knows no Koedem: it reads every ply, time and the result, but plays
        // the moves on its boards by bughouse's rules, so its boards stop before the first
        // move bughouse forbids (a king left in check, a king taken or dropped, a grab).
        let (playable, first) = plain_bughouse_prefix(&game);
        assert!(playable < game.moves.len(), "{name}: a Koedem-only move");
        assert_eq!(
            (
                v["plies_played"].as_u64(),
                v["play_stopped_before"].as_str()
            ),
            (Some(playable as u64), first.as_deref()),
            "{name}: {v}"
        );
    } else if is_chess960(&game) {
        // Nor Chess960 castling: its boards stop before the first castling.
        let r = replay(&game, rules_of(&game)).expect("replays");
        let first = r
            .moves
            .iter()
            .position(|m| matches!(m.mv, Move::Castle { .. }))
            .expect("the Chess960 game castles");
        let named = format!("{} {}", r.moves[first].token, r.moves[first].san_text);
        assert_eq!(
            (
                v["plies_played"].as_u64(),
                v["play_stopped_before"].as_str()
            ),
            (Some(first as u64), Some(named.as_str())),
            "{name}: {v}"
        );
    } else {
        let playable = legal_plies(&game).unwrap_or(game.moves.len()) as u64;
        assert!(
            v["plies_played"].as_u64().unwrap() >= playable,
            "{name}: {v}"
        );
    }
}

/// The plies of `game` that bughouse's rules (not Koedem's) allow, and the first move they
/// forbid as the viewer names it (`14a. P@e4`).
fn plain_bughouse_prefix(game: &BpgnGame) -> (usize, Option<String>) {
    let r = replay(game, bugbridge::rules::Ruleset::default()).expect("replays");
    match r.stop {
        None => (r.moves.len(), None),
        Some(stop) => {
            let index = r
                .moves
                .iter()
                .position(|m| m.token == stop.token() && m.san_text == stop.san_text());
            let before = index.unwrap_or(r.moves.len());
            (
                before,
                Some(format!("{} {}", stop.token(), stop.san_text())),
            )
        }
    }
}

#[test]
fn bugbridge_s_files_are_imported_whole_by_pychess_and_the_viewer() {
    let dir = TempDir::new("bpgn-readers");
    let mut files = Vec::new();
    let mut sources: Vec<PathBuf> = Vec::new();
    for sub in [
        "bpgn-standard-samples",
        "bugaboo",
        "lwerdna-chess",
        "pychess-variants",
    ] {
        for e in std::fs::read_dir(corpus().join(sub))
            .unwrap()
            .map_while(Result::ok)
        {
            if e.path().extension().is_some_and(|x| x == "bpgn") {
                sources.push(e.path());
            }
        }
    }
    sources.sort();
    assert_eq!(sources.len(), 18, "the corpus");
    for s in &sources {
        let out = dir
            .path()
            .join(format!("{}.bpgn", s.file_stem().unwrap().to_string_lossy()));
        replay_of(s, &["--noise", "clean"], &out);
        files.push(out);
    }
    for (source, args, name) in [
        (
            "bugaboo/test.bpgn",
            &["--noise", "outages"][..],
            "test-outages",
        ),
        (
            "pychess-variants/1934301.bpgn",
            &["--noise", "outages"][..],
            "1934301-outages",
        ),
        (
            "lwerdna-chess/bugdb_2307758.bpgn",
            &["--noise", "faults"][..],
            "bugdb_2307758-faults",
        ),
        (
            "lwerdna-chess/foo.bpgn",
            &["--no-clock", "B"][..],
            "foo-noclockB",
        ),
        (
            "lwerdna-chess/foo.bpgn",
            &["--no-clock", "AB"][..],
            "foo-noclockAB",
        ),
    ] {
        let out = dir.path().join(format!("{name}.bpgn"));
        replay_of(&corpus().join(source), args, &out);
        files.push(out);
    }
    // Two Sentio boards (occupancy only): placeholder kinds fitted so the game stays
    // legal, kinds settled later corrected in the record.
    for (source, name) in [
        ("lwerdna-chess/foo.bpgn", "foo-sentio"),
        ("bugaboo/test.bpgn", "test-sentio"),
    ] {
        let out = dir.path().join(format!("{name}.bpgn"));
        occupancy_replay_of(&corpus().join(source), &out);
        files.push(out);
    }
    // A set-up game from a Chess960 start (bughouse.pro's, Shredder-FEN castling rights).
    let chess960 = dir.path().join("chess960.bpgn");
    replay_of(
        &super::interop::shared()
            .join("data/bpgn-thirdparty/bughouse-pro/test-source_regular-chess960.bpgn"),
        &["--noise", "clean"],
        &chess960,
    );
    files.push(chess960);
    let demo_dir = dir.path().join("demo");
    std::fs::create_dir_all(&demo_dir).unwrap();
    files.extend(demo(&[], &demo_dir));
    let koedem_dir = dir.path().join("koedem");
    std::fs::create_dir_all(&koedem_dir).unwrap();
    files.extend(demo(&["--ruleset", "koedem"], &koedem_dir));
    let mut report = Vec::new();
    for f in &files {
        report.push(through_pychess(f, dir.path()));
        through_viewer(f);
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn round_trip_through_pychess_and_the_viewer_gives_the_same_moves_clocks_and_result() {
    let dir = TempDir::new("bpgn-roundtrip");
    let out = dir.path().join("foo.bpgn");
    replay_of(
        &corpus().join("lwerdna-chess/foo.bpgn"),
        &["--noise", "clean"],
        &out,
    );
    let game = read(&out);
    let v = pychess(&out);
    let clocks = v["clocks"].as_array().unwrap();
    let moves: Vec<String> = clocks
        .iter()
        .map(|c| c["board"].as_str().unwrap().to_owned())
        .collect();
    let ours: Vec<String> = game
        .moves
        .iter()
        .map(|m| m.token.board.to_string())
        .collect();
    assert_eq!(moves, ours, "the order of the boards' moves");
    // The same moves: pychess's UCI of each ply against bugbridge's own replay.
    let played = replay(&game, bugbridge::rules::Ruleset::default()).unwrap();
    assert!(played.is_legal());
    let theirs: Vec<String> = clocks
        .iter()
        .map(|c| c["move"].as_str().unwrap().to_owned())
        .collect();
    let ours: Vec<String> = played.moves.iter().map(|m| m.mv.uci()).collect();
    assert_eq!(theirs, ours, "the moves");
    // The same clocks, ply by ply (the mover's; pychess rounds down to the millisecond).
    for (m, c) in game.moves.iter().zip(clocks) {
        let seat = match c["mover"].as_str().unwrap() {
            "WA" => "WhiteA",
            "BA" => "BlackA",
            "WB" => "WhiteB",
            _ => "BlackB",
        };
        let t = m.clock.expect("a clock");
        assert!((c[seat].as_i64().unwrap() - (t * 1000.0).round() as i64).abs() <= 1);
    }
    assert_eq!(v["result"], game.tag("Result").unwrap());
    let w = viewer(&out);
    assert_eq!(w["end_result"], game.tag("Result").unwrap());
    assert_eq!(w["plies_played"].as_u64(), Some(game.moves.len() as u64));
}
