//! Every BPGN file other programs wrote (`../shared/data/bpgn-thirdparty`: the chess.com
//! viewer, bughouse.pro, pychess) read by `check` with its true team result and plies per
//! board, as each folder's README states them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn shared() -> PathBuf {
    std::env::var_os("BUGBRIDGE_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    )
}

/// One README row: file, true team result, plies on A and on B.
struct Truth {
    file: PathBuf,
    result: String,
    plies: (usize, usize),
}

fn truths() -> Vec<Truth> {
    let root = shared().join("data/bpgn-thirdparty");
    let mut out = Vec::new();
    for folder in ["bughouse-viewer", "bughouse-pro", "pychess-variants"] {
        let readme = root.join(folder).join("README.md");
        let text = std::fs::read_to_string(&readme)
            .unwrap_or_else(|e| panic!("{}: {e} (the shared data is needed)", readme.display()));
        for line in text.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let n = cells.len();
            let file = cells[0].trim_matches('`');
            if !file.ends_with(".bpgn") || n < 4 {
                continue; // another table (what an old version reported)
            }
            let result = cells[n - 3].replace(['*', '`'], "");
            let result = if result.is_empty() {
                "*".to_owned()
            } else {
                result
            };
            let plies = (cells[n - 2].parse().unwrap(), cells[n - 1].parse().unwrap());
            out.push(Truth {
                file: root.join(folder).join(file),
                result,
                plies,
            });
        }
    }
    out
}

fn plies_per_board(text: &str) -> (usize, usize) {
    use bugbridge::rules::BoardId;
    let games = bugbridge::rules::notation::bpgn::parse_bpgn(text).unwrap();
    let count = |b| games[0].moves.iter().filter(|m| m.token.board == b).count();
    (count(BoardId::A), count(BoardId::B))
}

#[test]
fn check_gives_every_third_party_file_its_true_result_and_plies() {
    let truths = truths();
    assert_eq!(truths.len(), 31, "the READMEs list 31 files");
    let mut right = 0;
    for t in &truths {
        let out = Command::new(env!("CARGO_BIN_EXE_bugbridge"))
            .arg("check")
            .arg(&t.file)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let name = t.file.file_name().unwrap().to_string_lossy();
        let text = std::fs::read_to_string(&t.file).unwrap();
        let (a, b) = plies_per_board(&text);
        assert_eq!((a, b), t.plies, "{name}: plies per board");
        let want = format!(" #1: {} plies, {}\n", a + b, t.result);
        assert!(
            out.status.success() && stdout.ends_with(&want),
            "{name}: want {want:?}, got {stdout}{stderr}"
        );
        right += 1;
    }
    assert_eq!(right, 31);
}

#[test]
fn check_names_the_rule_when_tag_and_moves_disagree() {
    let file = shared().join("data/bpgn-thirdparty/bughouse-pro/bpro-mateB.bpgn");
    let out = Command::new(env!("CARGO_BIN_EXE_bugbridge"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("BPGN standard"), "{stderr}");
    let file = shared().join("data/bpgn-thirdparty/bughouse-viewer/161528221047.generate.bpgn");
    let out = Command::new(env!("CARGO_BIN_EXE_bugbridge"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("names the winner"), "{stderr}");
}

#[test]
fn koedem_promotion_tags_and_the_option_over_them() {
    let dir = std::env::temp_dir().join(format!("bugbridge-3p-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let steal = shared().join("data/bpgn-thirdparty/bughouse-pro/bpro-koedem-steal.bpgn");
    let text = std::fs::read_to_string(&steal).unwrap();
    for (tag, option, ok) in [
        ("STEAL", None, true),
        ("upgrade", None, false), // announce: 5A. xg8=Nb1 is a grab, refused
        ("bogus", None, false),
        ("bogus", Some("grab"), true),
    ] {
        let f = dir.join(format!("{tag}.bpgn"));
        std::fs::write(
            &f,
            text.replace("[Promotion \"Steal\"]", &format!("[Promotion \"{tag}\"]")),
        )
        .unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bugbridge"));
        cmd.arg("check");
        if let Some(o) = option {
            cmd.args(["--koedem-promotion", o]);
        }
        let out = cmd.arg(&f).output().unwrap();
        assert_eq!(
            out.status.success(),
            ok,
            "{tag} {option:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn chess_com_knight_drop_written_as_nag_146() {
    let text = "[Event \"Live Chess - Bughouse\"]\n[WhiteA \"a\"][BlackA \"b\"][WhiteB \"c\"][BlackB \"d\"]\n\
                1A. e4 {180} 1a. d5 {180} 2A. exd5 {179} 1B. $146@f3 {180} *\n";
    let games = bugbridge::rules::notation::bpgn::parse_bpgn(text).unwrap();
    assert_eq!(games[0].moves[3].san_text, "N@f3");
}

#[test]
fn pychess_one_board_fen_is_read_at_the_start_and_explained_otherwise() {
    use bugbridge::rules::notation::bpgn::parse_bpgn;
    let start = "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1\"]\n\
                 [SetUp \"1\"]\n\n1A. e4 1B. d4 *\n";
    let games = parse_bpgn(start).unwrap();
    assert_eq!(games[0].setup, None);
    assert_eq!(games[0].moves.len(), 2);
    let other = "[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1\"]\n\
                 [SetUp \"1\"]\n\n1a. e5 *\n";
    let e = parse_bpgn(other).unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert!(
        e.expected.contains("one board's FEN") && e.expected.contains("pychess"),
        "{e}"
    );
}

/// bughouse.pro's Chess960 game played on simulated boards (sensor events, Chess960 castling
/// with king and rook lifted and put down) and inferred back: the record has the same moves
/// from the same start, and the same result.
#[test]
fn the_chess960_game_comes_back_from_the_boards_move_for_move() {
    use bugbridge::rules::Ruleset;
    use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
    let file = shared().join("data/bpgn-thirdparty/bughouse-pro/test-source_regular-chess960.bpgn");
    let source = parse_bpgn(&std::fs::read_to_string(&file).unwrap())
        .unwrap()
        .remove(0);
    let moves = |g: &bugbridge::rules::notation::bpgn::BpgnGame| -> Vec<String> {
        let r = replay(g, Ruleset::default()).unwrap();
        assert!(r.is_legal(), "{:?}", r.stop);
        r.moves
            .iter()
            .map(|m| format!("{} {}", m.token, m.mv.uci()))
            .collect()
    };
    let want = moves(&source);
    assert!(want.iter().any(|m| m == "4B. g1g1"), "a Chess960 O-O");
    let dir = std::env::temp_dir().join(format!("bugbridge-960-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for noise in ["clean", "noisy"] {
        let sim = Command::new(env!("CARGO_BIN_EXE_bugbridge"))
            .args(["simulate", "--noise", noise])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            sim.status.success(),
            "{}",
            String::from_utf8_lossy(&sim.stderr)
        );
        let trace = dir.join(format!("{noise}.trace.jsonl"));
        std::fs::write(&trace, &sim.stdout).unwrap();
        let rep = Command::new(env!("CARGO_BIN_EXE_bugbridge"))
            .arg("replay")
            .arg(&trace)
            .output()
            .unwrap();
        assert!(
            rep.status.success(),
            "{}",
            String::from_utf8_lossy(&rep.stderr)
        );
        let text = String::from_utf8(rep.stdout).unwrap();
        let back = parse_bpgn(&text).unwrap().remove(0);
        assert_eq!(back.setup, source.setup, "{noise}: the start");
        assert_eq!(moves(&back), want, "{noise}: the moves");
        assert_eq!(back.tag("Result"), Some("0-1"), "{noise}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
