//! Two Certabo boards at a bughouse table: a real corpus game at its real pace, played by
//! emulated Certabo boards on ptys (RFID tags of each board's own set, noise on empty
//! squares, misread tags, readings in 64-byte pieces), through `bugbridge run` (a process of
//! its own, with its embedded broker) to an MQTT subscriber.
//!
//! The table starts uncalibrated: each board learns its set from its start position and both
//! boards know both sets (a captured piece is dropped on the partner's board with its own
//! board's tag), saved beside the configuration. The record must be the game. A second run
//! with the saved calibration connects boards whose start position cannot be learnt (a
//! pawn missing): the calibration is reused, not learnt again.

use bugbridge::rules::ByBoard;
use bugbridge::rules::notation::bpgn::parse_bpgn;
use bugbridge_drivers::certabo::Calibration;
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::{BoardId, Placement, Square, TraceEvent, TraceLine};
use bugbridge_tests::child::ChildDaemon;
use bugbridge_tests::clockless::{ClocklessGame, Ply, boards_without_times};
use bugbridge_tests::paced::PacedTable;
use bugbridge_tests::temp::TempDir;

/// 79 plies, 105 s of play, drops on both boards, a mate by a drop on board B.
const GAME: &str = include_str!("../../daemon/tests/data/bpgn/lwerdna-chess/foo.bpgn");

const SEED: u64 = 1;

fn both_connected(sub: &bugbridge_tests::mqtt::Subscriber) -> bool {
    sub.state()
        .is_some_and(|st| st.boards.A.connected && st.boards.B.connected)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_certabo_boards_learn_both_sets_and_record_a_real_game() {
    let game = ClocklessGame::from_bpgn(GAME, ByBoard { a: true, b: true }, SEED);
    let table = PacedTable::start(&game.lines, [DriverKind::Certabo, DriverKind::Certabo]);
    let dir = TempDir::new("certabo");
    let records = dir.path().join("games");
    let config = dir.path().join("table.toml");
    table.write_config(&config, "certabo", &records);
    let (mut daemon, mut sub) = ChildDaemon::run_with_subscriber(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        &config,
        "certabo",
        "certabo",
    )
    .await;
    // A Certabo board reports once it knows its pieces: both sets learnt.
    sub.until("both boards calibrated and connected", both_connected)
        .await;
    // The file is written once the second set is learnt, as the board connects: wait for
    // the daemon to say so.
    daemon
        .until_log("the calibration of both sets saved", |line| {
            line.contains("calibration saved") && line.contains("(64 tags")
        })
        .await;
    let saved = dir.path().join("table.calibration.json");
    let cal = Calibration::from_json(&std::fs::read_to_string(&saved).expect("saved"))
        .expect("a calibration");
    assert_eq!(cal.len(), 64, "both sets, on both boards");
    assert_eq!(cal.summary(), "K2 Q2 R4 B4 N4 P16 k2 q2 r4 b4 n4 p16");

    table.play().await;
    table.played_all().await;
    let ended = sub
        .until_within(bugbridge_tests::LIMIT, |s| {
            s.events
                .iter()
                .any(|e| e.kind == bugbridge_broadcast::wire::EventKind::End)
        })
        .await;
    let recorded: Vec<Ply> = sub.moves().into_iter().filter_map(Ply::of_event).collect();
    let alerts: Vec<String> = sub
        .alerts
        .iter()
        .map(|a| format!("{:?} {:?}", a.code, a.detail))
        .collect();
    let differences = game.differences(&recorded);
    assert!(
        differences.is_empty(),
        "the record is not the game:\n  {}\nalerts: {alerts:#?}",
        differences.join("\n  ")
    );
    assert!(ended, "the game ended");
    let last_seq = sub.events.iter().map(|e| e.seq).max().unwrap_or(0);
    sub.until("the state and BPGN of the end", |s| {
        s.state()
            .is_some_and(|st| st.seq >= last_seq && st.result.is_some())
    })
    .await;
    assert_eq!(
        boards_without_times(sub.topic("bfen").unwrap_or_default()),
        game.final_boards
    );
    let bpgn = sub.topic("bpgn").unwrap_or_default().to_owned();
    let parsed = parse_bpgn(&bpgn).unwrap_or_else(|e| panic!("{e}:\n{bpgn}"));
    assert_eq!(parsed[0].team_result(), game.result, "{bpgn}");
    assert_eq!(parsed[0].moves.len(), game.plies.len(), "{bpgn}");
    daemon.terminate().await;

    // The restart: the same calibration file, boards whose h2 pawn is missing (no set can
    // be learnt from that). They connect: the saved calibration names their pieces.
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
    let again = PacedTable::start(&lines, [DriverKind::Certabo, DriverKind::Certabo]);
    let config2 = dir.path().join("again.toml");
    again.write_config(&config2, "certabo-again", &dir.path().join("games2"));
    let text = std::fs::read_to_string(&config2).expect("config");
    let text = text.replace(
        "driver = \"certabo\"\n",
        &format!(
            "driver = \"certabo\"\ncalibration = \"{}\"\n",
            saved.display()
        ),
    );
    std::fs::write(&config2, text).expect("config");
    let (daemon, mut sub) = ChildDaemon::run_with_subscriber(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        &config2,
        "certabo-again",
        "certabo-again",
    )
    .await;
    sub.until(
        "both boards connected with the saved calibration",
        both_connected,
    )
    .await;
    let bfen = sub.state().map(|s| s.bfen).unwrap_or_default();
    assert!(!bfen.is_empty());
    daemon.terminate().await;
    let after = Calibration::from_json(&std::fs::read_to_string(&saved).expect("saved"))
        .expect("a calibration");
    assert_eq!(after, cal, "nothing learnt again");
}
