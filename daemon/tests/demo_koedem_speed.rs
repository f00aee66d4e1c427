//! `bugbridge demo --ruleset koedem` sped up: the record is the simulator's game, move for
//! move and in its order, grabs included, however fast the emulated boards play (the
//! grab window shrinks with the speed, and presses on different boards reach the daemon
//! far enough apart that the two boards' own delivery times cannot swap them).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::San;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge::simulate::random_game;

/// Plays the demo's random Koedem game of `seed` at `speed` and checks its record.
fn demo_records_the_game(seed: u64, speed: &str) {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "bugbridge-koedem-speed-{}-{seed}-{speed}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_bugbridge"))
        .args([
            "demo",
            "--ruleset",
            "koedem",
            "--noise",
            "noisy",
            "--loops",
            "1",
        ])
        .args(["--speed", speed, "--seed", &seed.to_string()])
        .args(["--http", "127.0.0.1:0", "--mqtt", "127.0.0.1:0", "--dir"])
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rules = RulesetName::Koedem.ruleset();
    let text = std::fs::read_to_string(dir.join("games/demo-1.bpgn")).expect("the record");
    let _ = std::fs::remove_dir_all(&dir);
    let games = parse_bpgn(&text).expect("the record parses");
    let played = replay(&games[0], rules).expect("the record replays");
    assert!(played.is_legal(), "{:?}\n{text}", played.stop);
    // The demo's game: the simulator's random Koedem game of the seed (160 plies at most).
    let game = random_game(seed, 160, rules);
    assert!(
        game.moves.iter().any(|m| m.grab.is_some()),
        "a game with grabs"
    );
    let got: Vec<String> = played
        .moves
        .iter()
        .map(|m| {
            let grab = m.san_text.parse::<San>().ok().and_then(|s| s.grab);
            format!("{} {} {grab:?}", m.token.board, m.mv)
        })
        .collect();
    let want: Vec<String> = game
        .moves
        .iter()
        .map(|m| format!("{} {} {:?}", m.board, m.mv, m.grab))
        .collect();
    assert_eq!(got, want, "speed {speed}, seed {seed}\n{text}");
}

#[test]
fn a_koedem_demo_at_sixty_times_the_speed_records_the_game_exactly() {
    demo_records_the_game(1, "60");
}
