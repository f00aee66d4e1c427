//! Boards without a clock at bughouse speed: a real corpus game played at its
//! real pace by emulated boards on ptys, through `bugbridge run` (a process of its own,
//! with its embedded broker) to an MQTT subscriber; the record must be the game.
//!
//! The game is `foo.bpgn` (79 plies in 105 s of play, both boards, drops, a mate by a drop
//! on board B): the shortest real game of the corpus that is legal to a decisive end. Its
//! trace is the `noisy` simulation (`simulate --noise noisy --no-clock …`), so the players
//! slide, hesitate, capture in any order and premove; the boards play it at the pace the
//! game's clocks gave. The daemon runs with its default configuration (`stable_commit_ms`
//! included).
//!
//! * two Millennium boards, neither with a clock;
//! * a DGT board with its clock on A and a Millennium board on B: A's moves keep their
//!   times, B's have none.
//!
//! Compared: every move of both boards (board by board, in order: a clockless board's move
//! is published once final, which may be after the other board's next move), the end and
//! its team result, the final position of each board, that no clockless move carries a
//! time, and the BPGN (retained on MQTT and on disk): the same moves, no comment after a
//! clockless move, the leading `{C:… had no clock}`, and `bugbridge check` reads it.

use std::process::Command;

use bugbridge::rules::ByBoard;
use bugbridge::rules::notation::bpgn::{Annotation, parse_bpgn};
use bugbridge_broadcast::wire::{self, EventKind};
use bugbridge_drivers::session::DriverKind;
use bugbridge_tests::LIMIT;
use bugbridge_tests::child::ChildDaemon;
use bugbridge_tests::clockless::{ClocklessGame, Ply, boards_without_times};
use bugbridge_tests::paced::PacedTable;
use bugbridge_tests::scenarios::bpgn_files;
use bugbridge_tests::temp::TempDir;

/// The game: 79 plies, 105 s of play, ends `{YScorpion checkmated}` on board B.
const GAME: &str = include_str!("../../daemon/tests/data/bpgn/lwerdna-chess/foo.bpgn");

/// The simulated players' noise seed.
const SEED: u64 = 1;

const MATCH: &str = "clockless";

/// What the run published and wrote.
struct Run {
    game: ClocklessGame,
    /// The `move` events, each once, in the order published.
    moves: Vec<wire::Event>,
    /// The `end` event, if the game was seen to end.
    end: Option<wire::Event>,
    /// The last `bfen`.
    bfen: Option<String>,
    /// The retained `bpgn` at the end.
    bpgn: String,
    /// The BPGN file on disk, and what `bugbridge check` says of it.
    on_disk: String,
    check: String,
    /// Every alert code raised, with its detail.
    alerts: Vec<String>,
}

async fn play(drivers: [DriverKind; 2]) -> Run {
    let clockless = ByBoard {
        a: drivers[0] == DriverKind::Millennium,
        b: drivers[1] == DriverKind::Millennium,
    };
    let game = ClocklessGame::from_bpgn(GAME, clockless, SEED);
    let table = PacedTable::start(&game.lines, drivers);
    let dir = TempDir::new("clockless");
    let records = dir.path().join("games");
    let config = dir.path().join("table.toml");
    table.write_config(&config, MATCH, &records);
    let (daemon, mut sub) = ChildDaemon::run_with_subscriber(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        &config,
        MATCH,
        "clockless",
    )
    .await;

    table.play().await;
    table.played_all().await;
    // The last move is final once its board has been still: the end follows. A record that
    // is not the game may never end; then the comparison below says what it holds.
    let ended = sub
        .until_within(LIMIT, |s| s.events.iter().any(|e| e.kind == EventKind::End))
        .await;
    let last_seq = sub.events.iter().map(|e| e.seq).max().unwrap_or(0);
    if ended {
        sub.until("the state and BPGN of the end", |s| {
            s.state()
                .is_some_and(|st| st.seq >= last_seq && st.result.is_some())
        })
        .await;
    }
    let moves = sub.moves().into_iter().cloned().collect();
    let end = sub
        .events
        .iter()
        .find(|e| e.kind == EventKind::End)
        .cloned();
    let bfen = sub.topic("bfen").map(str::to_owned);
    let bpgn = sub.topic("bpgn").unwrap_or_default().to_owned();
    let alerts = sub
        .alerts
        .iter()
        .map(|a| {
            format!(
                "{} {}",
                a.code.as_deref().unwrap_or("?"),
                a.detail.as_deref().unwrap_or("")
            )
        })
        .collect();
    daemon.terminate().await;

    let files = bpgn_files(&records);
    assert_eq!(files.len(), 1, "one game recorded: {files:?}");
    let on_disk = std::fs::read_to_string(&files[0]).expect("the BPGN file");
    let out = Command::new(env!("CARGO_BIN_EXE_bugbridge-e2e"))
        .arg("check")
        .arg(&files[0])
        .output()
        .expect("check runs");
    let check = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Run {
        game,
        moves,
        end,
        bfen,
        bpgn,
        on_disk,
        check,
        alerts,
    }
}

/// Every assertion on a run, the moves first (their differences explain the rest).
fn assert_is_the_game(run: &Run) {
    let game = &run.game;
    let recorded: Vec<Ply> = run.moves.iter().filter_map(Ply::of_event).collect();
    let differences = game.differences(&recorded);
    assert!(
        differences.is_empty(),
        "the record is not the game:\n  {}\nalerts: {:#?}",
        differences.join("\n  "),
        run.alerts
    );

    // Times: none on a clockless board. A clocked board's are read at its presses: each
    // side's only go down (the game has no increment). (They are not the game's to the
    // second: the emulated clock counts down in real time, and the simulated players
    // sometimes think longer than the game's clocks say to keep the game's order.)
    let mut last: Vec<(wire::Board, wire::Side, f64)> = Vec::new();
    for (e, got) in run.moves.iter().zip(&recorded) {
        if game.is_clockless(got.board) {
            assert_eq!(e.clock, None, "{got} has a time on a board without a clock");
            assert!(e.flags.iter().any(|f| f == "no-clock"), "{got}: {e:?}");
        } else {
            let time = e.clock.expect("a time on a board with a clock");
            let before = last
                .iter()
                .rev()
                .find(|(b, s, _)| (*b, *s) == (got.board, got.side))
                .map_or(f64::INFINITY, |l| l.2);
            assert!(time <= before, "{got}: {time} s after {before} s");
            last.push((got.board, got.side, time));
        }
    }

    // The end and each board's final position.
    let end = run.end.as_ref().expect("the game ended");
    assert_eq!(end.result.as_deref(), Some(game.result.as_str()), "{end:?}");
    assert_eq!(
        boards_without_times(run.bfen.as_deref().unwrap_or_default()),
        game.final_boards
    );

    // The BPGN, retained and on disk: the same moves, the end, no comment after a
    // clockless move, the leading comment naming the clockless boards.
    assert_eq!(
        run.on_disk.split_once("\n\n").map(|(_, m)| m),
        run.bpgn.split_once("\n\n").map(|(_, m)| m),
        "the file on disk is the published BPGN"
    );
    let parsed = parse_bpgn(&run.bpgn).unwrap_or_else(|e| panic!("{e}:\n{}", run.bpgn));
    let bpgn = &parsed[0];
    assert_eq!(bpgn.team_result(), game.result, "{}", run.bpgn);
    let note = match (game.clockless.a, game.clockless.b) {
        (true, true) => "C:boards A and B had no clock",
        (true, false) => "C:board A had no clock",
        (false, true) => "C:board B had no clock",
        (false, false) => unreachable!("a clockless test"),
    };
    assert_eq!(
        bpgn.preamble,
        [Annotation::Comment(note.into())],
        "{}",
        run.bpgn
    );
    for m in &bpgn.moves {
        let board = match m.token.board {
            bugbridge::rules::BoardId::A => wire::Board::A,
            bugbridge::rules::BoardId::B => wire::Board::B,
        };
        if game.is_clockless(board) {
            // No time; other annotations (a promotion not shown) may follow the move.
            assert_eq!(m.clock, None, "{}: {}", m.token, run.bpgn);
        } else {
            assert!(m.clock.is_some(), "{}: {}", m.token, run.bpgn);
        }
    }
    assert_eq!(bpgn.moves.len(), game.plies.len());
    assert!(
        run.check.starts_with("ok ")
            && run.check.trim_end().ends_with(&format!(
                "{} plies, {}",
                game.plies.len(),
                game.result
            )),
        "bugbridge check: {}",
        run.check
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_millennium_boards_record_a_real_game_at_its_pace() {
    let run = play([DriverKind::Millennium, DriverKind::Millennium]).await;
    assert_is_the_game(&run);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_with_its_clock_and_a_millennium_board_record_a_real_game_at_its_pace() {
    let run = play([DriverKind::Dgt, DriverKind::Millennium]).await;
    assert_is_the_game(&run);
}
