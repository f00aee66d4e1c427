//! A board whose cable is out for 4 s while three of its plies are played, then put back:
//! the final record is the game's.
//!
//! The cable is pulled right after a move, at a point of a real game where one board's
//! next three presses all come before the other board's next one and within 4 s of the
//! game's time (the time the emulated clock shows; the test itself waits for nothing); that
//! board's three plies are played (lift, put, press), none heard by the daemon; the other
//! board's hands move meanwhile but it presses no clock. Then the cable goes back in:
//!
//! * a DGT board that kept its power: the session reads the board's EEPROM log and replays
//!   what it missed, so the moves, their order and their clock times are exactly those of
//!   an uninterrupted run (`link-lost`, `link-restored` and no other alert);
//! * a DGT board that lost its power with the cable: its log restarts at power-up and holds
//!   nothing of the outage; the gap search works the three plies out from the snapshot and
//!   the clock: the same moves in the same order, flagged reconstructed, the other moves'
//!   times exact and the gap's times bounded by the clock readings around it;
//! * a Millennium board (no clock, no log): the same from the snapshot alone.

use bugbridge::config::ClockSource;
use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::bpgn::{BpgnGame, parse_bpgn, replay};
use bugbridge_broadcast::wire::{self, EventKind};
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::BoardId;
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::{TestGame, movetext};
use bugbridge_tests::http::{self, Sse};
use bugbridge_tests::mqtt::{RestartableBroker, Subscriber};
use bugbridge_tests::table::{Step, Table};
use bugbridge_tests::temp::TempDir;
use bugbridge_tests::within;

/// A real game (bugdb 2308617) with quick runs of three plies on one board, on board A
/// from its 19th press and on board B from its 38th.
const FAST_GAME: &str =
    include_str!("../../daemon/tests/data/bpgn/lwerdna-chess/bugdb_2308617.bpgn");

/// Plies of one board played while its cable is out.
const GAP_PLIES: usize = 3;

/// How long the cable is out, in trace time (ms).
const OUTAGE_MS: u64 = 4000;

/// How the board goes off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outage {
    /// Only the link: a DGT board keeps logging.
    LinkOnly,
    /// The board is powered through its cable: off with it.
    PowerLoss,
}

/// Whether the outage can start now, after a step at trace time `now`: `board` (any board if
/// `None`) presses `GAP_PLIES` times before the other board's next press, all of it within
/// [`OUTAGE_MS`]. Returns the board.
fn gap_board(now: u64, upcoming: &[Step], only: Option<BoardId>) -> Option<BoardId> {
    let presses: Vec<&Step> = upcoming
        .iter()
        .filter(|s| s.press)
        .take(GAP_PLIES)
        .collect();
    let first = presses.first()?;
    let last = presses.last()?;
    let one_board = presses.len() == GAP_PLIES && presses.iter().all(|s| s.board == first.board);
    let fits = one_board && last.t <= now + OUTAGE_MS;
    (fits && only.is_none_or(|b| b == first.board)).then_some(first.board)
}

/// What the run recorded.
struct Run {
    game: TestGame,
    board: BoardId,
    /// The index in the record of the first move of the gap.
    gap_from: usize,
    state: wire::MatchState,
    events: Vec<wire::Event>,
    bpgn: String,
    alerts: Vec<(String, Option<wire::Board>)>,
    metrics: String,
}

async fn three_plies_out(drivers: [DriverKind; 2], outage: Outage) -> Run {
    let game = TestGame::from_bpgn(FAST_GAME, Some(45));
    let records = TempDir::new("outage");
    let links = TempDir::new("outage-links");
    let mut table = Table::start_with(&game, Some(links.path()), drivers);
    let broker = RestartableBroker::start().await;
    let mut sub = Subscriber::start(broker.addr(), "arbiter", &format!("bughouse/{MATCH}/#"));
    sub.subscribed(1).await;
    let mut cfg = config(&table, Some(&broker.url()), records.path());
    for (b, d) in cfg.boards.iter_mut().zip(drivers) {
        b.driver = match d {
            DriverKind::Dgt => bugbridge::config::DriverKind::Dgt,
            DriverKind::Millennium => {
                b.clock = ClockSource::None;
                bugbridge::config::DriverKind::Millennium
            }
            other => panic!(
                "the outage runs use DGT and Millennium boards, not {}",
                other.name()
            ),
        };
    }
    // Only a clockless board's outage is wanted when there is one.
    let only = match drivers {
        [_, DriverKind::Millennium] => Some(BoardId::B),
        [DriverKind::Millennium, _] => Some(BoardId::A),
        _ => None,
    };
    let daemon = InProcess::start(cfg).await;
    let mut sse = Sse::open(daemon.http(), MATCH).await;
    table.synced().await;

    // Play on (every move decided) until one board's next three plies come within 4 s and
    // before the other board's next press, with a few moves on both boards already heard.
    let board = loop {
        table
            .play_moves(table.moves_played() + 1, &mut async |n| {
                sse.wait_moves(n).await
            })
            .await;
        let now = table.last_step().expect("a step was played").t;
        if table.moves_played() >= 6
            && let Some(b) = gap_board(now, table.upcoming(), only)
        {
            break b;
        }
    };

    match outage {
        Outage::LinkOnly => table.emulator(board).unplug(),
        Outage::PowerLoss => table.emulator(board).power_loss(),
    }
    table
        .wait_status(board, "the board unplugged", |s| !s.attached)
        .await;
    sse.until_state(|s| !wire_board(s, board).connected).await;
    let gap_from = table.moves_played();
    while table.moves_played() < gap_from + GAP_PLIES {
        let step = table.step().await.expect("the game goes on");
        assert!(
            !step.press || step.board == board,
            "only the unplugged board presses in the gap"
        );
    }
    // Nothing of the gap was decided while the cable was out.
    assert_eq!(
        http::state(daemon.http(), MATCH).await.moves.len(),
        gap_from
    );

    table
        .emulator_mut(board)
        .replug()
        .expect("a new pty for the board");
    table
        .wait_status(board, "the board replugged and synced", |s| {
            s.attached && s.synced
        })
        .await;
    // Bounded as a whole (the stream's keep-alives and clock states would otherwise keep
    // the per-line bound from ever firing).
    let n = table.moves_played();
    within(
        "the gap's moves decided after the replug",
        sse.wait_moves(n),
    )
    .await;
    sse.until_state(|s| wire_board(s, board).connected).await;

    table
        .play_rest(&mut async |n| sse.wait_moves(n).await)
        .await;
    let state = http::state(daemon.http(), MATCH).await;
    let (_, bpgn) = http::get(daemon.http(), &format!("/api/matches/{MATCH}/bpgn")).await;
    sub.until("link-restored on MQTT", |s| {
        s.alerts
            .iter()
            .any(|a| a.code.as_deref() == Some("link-restored"))
    })
    .await;
    let alerts = sub
        .alerts
        .iter()
        .map(|a| (a.code.clone().unwrap_or_default(), a.board))
        .collect();
    let (_, metrics) = http::get(daemon.http(), "/metrics").await;
    let events = sse
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Move)
        .cloned()
        .collect();
    daemon.stop().await;
    Run {
        game,
        board,
        gap_from,
        state,
        events,
        bpgn,
        alerts,
        metrics,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_powered_dgt_board_out_for_three_plies_is_recovered_from_its_log() {
    let run = three_plies_out([DriverKind::Dgt, DriverKind::Dgt], Outage::LinkOnly).await;
    let game = &run.game;
    assert_eq!(run.state.moves.len(), game.moves.len());
    assert_eq!(run.state.bfen, game.final_bfen);
    // The moves as published: the same SANs, order and clock times as an uninterrupted run,
    // none of them reconstructed (the log said what happened).
    assert_eq!(run.events.len(), game.moves.len());
    for (e, m) in run.events.iter().zip(&game.moves) {
        assert!(m.matches(e), "{e:?} is not {m:?}");
        assert!(e.flags.is_empty(), "{e:?}");
    }
    assert_eq!(movetext(&run.bpgn), movetext(&game.bpgn));
    // The arbiter heard of the outage and of its end, and of nothing else.
    assert_only_link_alerts(&run);
    assert_counter(&run, "bugbridge_link_gaps", "outcome=\"outage\"", 1);
    assert_counter(&run, "bugbridge_link_gaps", "outcome=\"bridged\"", 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dgt_board_that_lost_power_for_three_plies_is_bridged_by_the_search() {
    let run = three_plies_out([DriverKind::Dgt, DriverKind::Dgt], Outage::PowerLoss).await;
    assert_same_game(&run, true);
    assert_only_link_alerts(&run);
    assert_counter(&run, "bugbridge_link_gaps", "outcome=\"outage\"", 1);
    assert_counter(&run, "bugbridge_link_gaps", "outcome=\"bridged\"", 1);
    assert_counter(&run, "bugbridge_link_gaps", "outcome=\"unbridged\"", 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_millennium_board_out_for_three_plies_is_bridged_by_the_search() {
    let run = three_plies_out([DriverKind::Dgt, DriverKind::Millennium], Outage::PowerLoss).await;
    assert_eq!(run.board, BoardId::B);
    assert_same_game(&run, false);
    assert_only_link_alerts(&run);
    assert_counter(&run, "bugbridge_link_gaps", "outcome=\"bridged\"", 1);
}

/// The record holds the game's moves with the game's result and replays legally; the gap's
/// moves (and only they) are flagged reconstructed; every other move's time is the game's
/// (none on a clockless board); with a clock, each gap move's time lies between its
/// mover's times before and after the gap.
///
/// With a clock, the order of the moves is the game's. A clockless board's moves are
/// committed once the board has been still, after the other board's presses that came
/// before its (unheard) press in the game: there each board's own sequence is compared.
fn assert_same_game(run: &Run, clock: bool) {
    let game = &run.game;
    let gap_board = wire_letter(run.board);
    assert_eq!(run.state.moves.len(), game.moves.len());
    assert_eq!(run.events.len(), game.moves.len());
    for b in [wire::Board::A, wire::Board::B] {
        let got: Vec<_> = run.events.iter().filter(|e| e.board == Some(b)).collect();
        let want: Vec<_> = game.moves.iter().filter(|m| m.board == b).collect();
        let gap = if b == gap_board {
            let first = game.moves[..run.gap_from]
                .iter()
                .filter(|m| m.board == b)
                .count();
            first..first + GAP_PLIES
        } else {
            0..0
        };
        assert_eq!(got.len(), want.len(), "board {b:?}");
        for (i, (e, m)) in got.iter().zip(&want).enumerate() {
            let what = format!("board {b:?} move {i}: {e:?} against {m:?}");
            assert_eq!(e.side, Some(m.side), "{what}");
            assert_eq!(e.number, Some(m.number), "{what}");
            assert_eq!(e.san.as_deref(), Some(m.san.as_str()), "{what}");
            assert_eq!(
                e.bfen.as_deref().map(|f| half(f, b)),
                Some(half(&m.bfen, b)),
                "{what}"
            );
            let reconstructed = e.flags.iter().any(|f| f == "reconstructed");
            assert_eq!(reconstructed, gap.contains(&i), "{what}");
            if !clock && b == gap_board {
                assert_eq!(e.clock, None, "{what}");
            } else if !gap.contains(&i) {
                assert_eq!(e.clock, m.clock, "{what}");
            } else {
                let same_side = |j: &usize| want[*j].side == m.side;
                let before = (0..gap.start)
                    .rev()
                    .find(same_side)
                    .and_then(|j| want[j].clock);
                let after = (gap.end..want.len())
                    .find(same_side)
                    .and_then(|j| want[j].clock);
                let t = e.clock.expect("a reconstructed time");
                assert!(before.is_none_or(|b| t <= b), "{what}");
                assert!(after.is_none_or(|a| t >= a), "{what}");
            }
        }
    }
    if clock {
        for (e, m) in run.events.iter().zip(&game.moves) {
            assert_eq!(
                (e.board, e.side, e.number),
                (Some(m.board), Some(m.side), Some(m.number))
            );
        }
    }
    // The BPGN: the same moves and result as the game's, and it replays legally.
    let got = one_game(&run.bpgn);
    let want = one_game(&game.bpgn);
    let per_board = |g: &BpgnGame| -> Vec<String> {
        let mut tokens: Vec<String> = g
            .moves
            .iter()
            .map(|m| {
                format!(
                    "{:?} {} {:?} {}",
                    m.token.board, m.token.number, m.token.color, m.san_text
                )
            })
            .collect();
        tokens.sort_by_key(|t| t.starts_with('B'));
        tokens
    };
    assert_eq!(per_board(&got), per_board(&want));
    assert_eq!(got.result, want.result);
    let replayed = replay(&got, RulesetName::Fide.ruleset()).expect("the record replays");
    assert!(replayed.is_legal(), "{:?}\n{}", replayed.stop, run.bpgn);
    assert_eq!(replayed.moves.len(), game.moves.len());
}

/// Board `b`'s placement in a BFEN.
fn half(bfen: &str, b: wire::Board) -> String {
    let i = usize::from(b == wire::Board::B);
    let side = bfen.split('|').nth(i).unwrap_or("").trim();
    side.split([' ', '/']).take(8).collect::<Vec<_>>().join("/")
}

fn one_game(bpgn: &str) -> BpgnGame {
    let mut games = parse_bpgn(bpgn).unwrap_or_else(|e| panic!("{e}: {bpgn}"));
    assert_eq!(games.len(), 1, "{bpgn}");
    games.remove(0)
}

/// `link-lost` then `link-restored` for the board, and no other alert.
fn assert_only_link_alerts(run: &Run) {
    let wb = Some(wire_letter(run.board));
    assert_eq!(
        run.alerts,
        vec![
            ("link-lost".to_owned(), wb),
            ("link-restored".to_owned(), wb)
        ]
    );
    assert!(
        run.metrics.contains(&format!(
            "bugbridge_link_outages_total{{match=\"{MATCH}\",board=\"{}\"}} 1",
            run.board
        )),
        "{}",
        run.metrics
    );
}

/// `/metrics` shows `metric{match="e2e",<label>} n`.
fn assert_counter(run: &Run, metric: &str, label: &str, n: u64) {
    let line = format!("{metric}{{match=\"{MATCH}\",{label}}} {n}");
    assert!(
        run.metrics.lines().any(|l| l == line),
        "no `{line}` in\n{}",
        run.metrics
    );
}

fn wire_letter(b: BoardId) -> wire::Board {
    match b {
        BoardId::A => wire::Board::A,
        BoardId::B => wire::Board::B,
    }
}

fn wire_board(s: &wire::MatchState, b: BoardId) -> &wire::BoardState {
    match b {
        BoardId::A => &s.boards.A,
        BoardId::B => &s.boards.B,
    }
}
