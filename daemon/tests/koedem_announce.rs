//! Koedem with the "announce piece" alternative: the journal and the BPGN carry
//! `[Promotion "announce"]`, and `replay` and `check` honour it. Without it an announced
//! promotion would be taken for a grab with nothing grabbed: a wrong record.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bugbridge::check::run_with_promotion;
use bugbridge::cli::replay::{Replayed, replay_text};
use bugbridge::infer::Inference;
use bugbridge::rules::{Role, RulesetName};
use bugbridge::sensor::encode;
use bugbridge::simulate::{Profile, SimGame, random_game, simulate};
use bugbridge_drivers::trace::{TraceEvent, TraceLine, line_to_string};

/// A random Koedem game with announced promotions (at least one).
fn announced_game() -> SimGame {
    let mut rules = RulesetName::Koedem.ruleset();
    rules.promotion_by_grab = false;
    (0..200)
        .map(|seed| random_game(seed, 160, rules))
        .find(|g| g.moves.iter().any(|m| m.mv.promotion().is_some()))
        .expect("a random game promotes")
}

/// The journal a Koedem table set to `promotion = "announce"` writes for the game: its
/// `meta` line with the tags the table adds, then the sensor events.
fn journal(game: &SimGame, tags: &[(&str, &str)]) -> String {
    let tags: BTreeMap<String, String> = tags
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut lines = vec![TraceLine {
        t: 0,
        event: TraceEvent::Meta {
            ruleset: Some("koedem".into()),
            time_control: None,
            setup: None,
            tags,
        },
    }];
    lines.extend(
        simulate(game, Profile::Clean, 11)
            .iter()
            .map(|(t, ev)| TraceLine {
                t: *t,
                event: encode(ev),
            }),
    );
    lines
        .iter()
        .map(|l| line_to_string(l) + "\n")
        .collect::<String>()
}

fn same_record(replayed: &Replayed, game: &SimGame) -> bool {
    let record = replayed.game.record();
    record.len() == game.moves.len()
        && record.iter().zip(&game.moves).all(|(got, want)| {
            (got.board, got.mv, got.clock) == (want.board, want.mv, Some(want.clock))
        })
}

fn alerts(replayed: &Replayed) -> Vec<String> {
    replayed
        .decisions
        .iter()
        .filter_map(|d| match d {
            Inference::Alert(a) => Some(format!("{:?}", a.code)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_announce_journal_replays_to_the_same_record_and_says_so() {
    let game = announced_game();
    let announce = journal(
        &game,
        &[("Variant", "Bughouse Koedem"), ("Promotion", "announce")],
    );
    let replayed = replay_text(&announce, None).unwrap();
    assert!(same_record(&replayed, &game), "the record differs");
    assert!(alerts(&replayed).is_empty(), "{:?}", alerts(&replayed));
    let bpgn = replayed.game.all_bpgn().concat();
    assert!(bpgn.contains("[Promotion \"Upgrade\"]"), "{bpgn}");
    // The same sensors read as grab promotion: at most promotions no piece leaves the
    // other board (only a capture's victim may), so they are alerted as illegal
    // (`bad-promotion`). The tag is what makes the difference.
    let grab = journal(&game, &[("Variant", "Bughouse Koedem")]);
    let misread = replay_text(&grab, None).unwrap();
    let promotions = game
        .moves
        .iter()
        .filter(|m| m.mv.promotion().is_some())
        .count();
    let alerted = alerts(&misread);
    assert!(
        alerted.len() * 2 > promotions && alerted.iter().all(|a| a == "IllegalMove"),
        "{promotions} promotions: {alerted:?}"
    );
    assert!(
        misread
            .game
            .all_bpgn()
            .concat()
            .contains("[Promotion \"Steal\"]")
    );
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bugbridge-announce-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn check(path: &PathBuf, promotion_by_grab: Option<bool>) -> (u8, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = run_with_promotion(
        std::slice::from_ref(path),
        None,
        promotion_by_grab,
        false,
        &mut out,
        &mut err,
    );
    let text = String::from_utf8_lossy(&out).into_owned() + &String::from_utf8_lossy(&err);
    (status, text)
}

#[test]
fn a_bpgn_with_announced_promotions_checks_clean() {
    let game = announced_game();
    assert!(
        game.moves
            .iter()
            .any(|m| m.mv.promotion().is_some_and(|r| r != Role::King))
    );
    let journal = journal(
        &game,
        &[("Variant", "Bughouse Koedem"), ("Promotion", "announce")],
    );
    let bpgn = replay_text(&journal, None)
        .unwrap()
        .game
        .all_bpgn()
        .concat();
    let tagged = write_temp("tagged.bpgn", &bpgn);
    let (status, text) = check(&tagged, None);
    assert_eq!(status, 0, "{text}");
    assert!(text.starts_with("ok "), "{text}");
    // The option says it for a file without the tag.
    let untagged = write_temp(
        "untagged.bpgn",
        &bpgn.replace("[Promotion \"Upgrade\"]\n", ""),
    );
    let (status, text) = check(&untagged, Some(false));
    assert_eq!(status, 0, "{text}");
    // An unknown promotion rule is not guessed.
    let unknown = write_temp(
        "unknown.bpgn",
        &bpgn.replace("[Promotion \"Upgrade\"]", "[Promotion \"queen\"]"),
    );
    let (status, text) = check(&unknown, None);
    assert_eq!(status, 1);
    assert!(text.contains("Promotion"), "{text}");
}

#[test]
fn a_grab_is_illegal_in_an_announce_game() {
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/koedem/all_cases.bpgn");
    let text = std::fs::read_to_string(&sample).unwrap();
    assert_eq!(check(&sample, None).0, 0, "the sample's grabs are legal");
    let (status, out) = check(&sample, Some(false));
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("bad-promotion"), "{out}");
    let tagged = write_temp(
        "grab-announce.bpgn",
        &text.replace("[Variant ", "[Promotion \"announce\"]\n[Variant "),
    );
    let (status, out) = check(&tagged, None);
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("bad-promotion"), "{out}");
}

#[test]
fn the_command_line_takes_the_promotion_rule() {
    let game = announced_game();
    let journal = journal(
        &game,
        &[("Variant", "Bughouse Koedem"), ("Promotion", "announce")],
    );
    let trace = write_temp("announce.trace.jsonl", &journal);
    let bin = env!("CARGO_BIN_EXE_bugbridge");
    let replay = std::process::Command::new(bin)
        .arg("replay")
        .arg(&trace)
        .output()
        .unwrap();
    assert!(replay.status.success());
    let tagged = String::from_utf8(replay.stdout).unwrap();
    assert!(tagged.contains("[Promotion \"Upgrade\"]"), "{tagged}");
    // `--koedem-promotion grab` overrides the journal's tag: the BPGN says grab.
    let grab = std::process::Command::new(bin)
        .args(["replay", "--koedem-promotion", "grab"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&grab.stdout).contains("[Promotion \"Steal\"]"));
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/koedem/all_cases.bpgn");
    let check = std::process::Command::new(bin)
        .args(["check", "--koedem-promotion", "announce"])
        .arg(&sample)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("bad-promotion"));
    let bad = std::process::Command::new(bin)
        .args(["check", "--koedem-promotion", "queen"])
        .arg(&sample)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("grab or announce"));
}
