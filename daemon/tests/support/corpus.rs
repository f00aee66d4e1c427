//! The legal real games of the corpus (`daemon/tests/data/bpgn`) as games to simulate,
//! shared by the round-trip suites (`#[path]`-included).

use bugbridge::rules::notation::bpgn::{parse_bpgn, replay as replay_bpgn};
use bugbridge::rules::{BughouseGame, ByBoard, ByColor, Ruleset};
use bugbridge::simulate::{SimGame, SimMove};

/// Every BPGN file under `dir`, recursively.
fn bpgn_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            bpgn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "bpgn") {
            out.push(path);
        }
    }
}

/// The legal real games of the corpus, as games to simulate (a move without a clock
/// comment keeps the mover's previous time).
pub(crate) fn real_games() -> Vec<(String, SimGame)> {
    let rules = Ruleset::default();
    let mut files = Vec::new();
    bpgn_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bpgn"),
        &mut files,
    );
    files.sort();
    let mut games = Vec::new();
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let Ok(parsed) = parse_bpgn(&String::from_utf8_lossy(&bytes)) else {
            continue;
        };
        for (n, game) in parsed.iter().enumerate() {
            let Ok(replayed) = replay_bpgn(game, rules) else {
                continue;
            };
            let Ok(start) = game.start_positions(rules) else {
                continue;
            };
            if !replayed.is_legal() || replayed.moves.is_empty() {
                continue;
            }
            let base = game.base_time().unwrap_or(180.0);
            let mut last = ByBoard::new_with(|_| ByColor {
                white: base,
                black: base,
            });
            let moves = replayed
                .moves
                .iter()
                .map(|m| {
                    let seat = &mut last[m.token.board][m.token.color];
                    let clock = game.moves[m.index].clock.unwrap_or(*seat);
                    *seat = clock;
                    SimMove {
                        board: m.token.board,
                        mv: m.mv,
                        clock,
                        grab: None,
                    }
                })
                .collect();
            let start = BughouseGame::from_positions(
                start.a.position.clone(),
                start.b.position.clone(),
                rules,
            );
            let name = file
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
            games.push((
                format!("{name} #{}", n + 1),
                SimGame {
                    start,
                    moves,
                    base_seconds: base,
                },
            ));
        }
    }
    games
}
