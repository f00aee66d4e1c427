//! The occupancy-only inference (TabuTronic Sentio) against the traces made outside the
//! project (`../shared/data/outside-traces/`, see its README): an independent generator's
//! players and sensors, with its own handling noise (slides, hesitations, flicker, a piece
//! set on a neighbouring square first), which our simulator does not share. Each trace is
//! turned into what an occupancy board would show (which squares are occupied, nothing
//! else; the clocks are left out) and judged against its `.bpgn` as the round trips judge
//! (`support/occupancy_judge.rs`): no move may be wrong.
//!
//! A trace is read up to where it stops being a Sentio table's:
//! - an outage trace up to its link loss (a board whose power is lost sends nothing, and
//!   what an occupancy board then misses is another inference's matter);
//! - a Koedem trace up to 3 s before the first promotion's press (a promotion by grab
//!   lifts a piece on the other board, which no occupancy board can tell from a move) and
//!   1 s before a king drop (a hand's kinds exclude the king on a Sentio table).
//!
//! A board is expected to have decided the moves its clock was pressed for before the cut.
//! `OCC_STALLS=1` prints why each board that is short stopped; `OCC_DEBUG=outage-104` runs
//! only that trace and prints its occupancy changes, decisions, each board's hands and what
//! it stalls or waits on after each change, and the game's moves.

#[path = "support/occupancy_arbiter.rs"]
mod occupancy_arbiter;
#[path = "support/occupancy_judge.rs"]
mod occupancy_judge;
#[path = "support/stall_clicks.rs"]
mod stall_clicks;

use std::path::{Path, PathBuf};

use bugbridge::infer::occupancy::{OccupancyInference, OccupancyMove};
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay as replay_bpgn};
use bugbridge::rules::{BoardId, BughouseGame, ByBoard, Move, Role, RulesetName};
use bugbridge::sensor::{board as sensor_board, board_id};
use bugbridge_drivers::trace::{TraceEvent, TraceLine, parse_trace};
use occupancy_arbiter::{Arbiter, Read};
use occupancy_judge::{BoardVerdict, Tally, judge_board, occupancy_trace, record_against};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/outside-traces")
}

/// Every trace of `family`, each with the game it played.
fn traces(family: &str) -> Vec<(String, PathBuf, PathBuf)> {
    let dir = shared().join(family);
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: cannot read: {e}", dir.display()));
    let mut out: Vec<_> = entries
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let name = file.strip_suffix(".trace.jsonl")?.to_owned();
            let game = name
                .strip_suffix("-clean")
                .or_else(|| name.strip_suffix("-noisy"))
                .unwrap_or(&name);
            let bpgn = dir.join(format!("{game}.bpgn"));
            Some((name, e.path(), bpgn))
        })
        .collect();
    out.sort();
    out
}

/// The moves of the game played, in order, with their boards.
fn game_moves(bpgn: &Path, ruleset: RulesetName) -> Vec<(BoardId, Move)> {
    let text = std::fs::read_to_string(bpgn)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", bpgn.display()));
    let games = parse_bpgn(&text).unwrap_or_else(|e| panic!("{}: {e}", bpgn.display()));
    let played = replay_bpgn(&games[0], ruleset.ruleset())
        .unwrap_or_else(|e| panic!("{}: {e}", bpgn.display()));
    played.moves.iter().map(|m| (m.token.board, m.mv)).collect()
}

/// When each board's clock was pressed: every change of the side whose time runs.
fn presses(lines: &[TraceLine]) -> ByBoard<Vec<u64>> {
    let mut out: ByBoard<Vec<u64>> = ByBoard::new_with(|_| Vec::new());
    let mut running: ByBoard<Option<String>> = ByBoard::new_with(|_| None);
    for line in lines {
        if let TraceEvent::Clock {
            board, running: r, ..
        } = &line.event
        {
            let b = board_id(*board);
            let now = format!("{r:?}");
            if running[b].as_ref().is_some_and(|before| *before != now) {
                out[b].push(line.t);
            }
            running[b] = Some(now);
        }
    }
    out
}

/// Where the trace stops being a Sentio table's (see the module's doc).
fn cut(lines: &[TraceLine], moves: &[(BoardId, Move)], pressed: &ByBoard<Vec<u64>>) -> u64 {
    let mut cut = lines
        .iter()
        .filter(|l| matches!(l.event, TraceEvent::Link { up: false, .. }))
        .map(|l| l.t)
        .min()
        .unwrap_or(u64::MAX);
    let mut ply: ByBoard<usize> = ByBoard::new_with(|_| 0);
    for (board, mv) in moves {
        let at = pressed[*board].get(ply[*board]).copied();
        ply[*board] += 1;
        let before = match mv {
            Move::Normal {
                promotion: Some(_), ..
            } => 3_000,
            Move::Drop { piece, .. } if piece.role == Role::King => 1_000,
            _ => continue,
        };
        if let Some(at) = at {
            cut = cut.min(at.saturating_sub(before));
        }
    }
    cut
}

/// Each board's occupied squares after every change before `cut`: `(t, board, occupied)`.
fn occupancy_before(
    lines: &[TraceLine],
    start: &BughouseGame,
    cut: u64,
) -> Vec<(u64, BoardId, u64)> {
    let mut occ: ByBoard<u64> = ByBoard::new_with(|b| start.board(b).board().occupied().0);
    let mut out = Vec::new();
    for line in lines.iter().take_while(|l| l.t < cut) {
        let (b, now) = match &line.event {
            TraceEvent::Board { board, placement } => {
                (board_id(*board), sensor_board(placement).occupied().0)
            }
            TraceEvent::Square { board, sq, piece } => {
                let b = board_id(*board);
                let bit = 1u64 << sq.index();
                (
                    b,
                    if piece.is_some() {
                        occ[b] | bit
                    } else {
                        occ[b] & !bit
                    },
                )
            }
            _ => continue,
        };
        if now != occ[b] {
            occ[b] = now;
            out.push((line.t, b, now));
        }
    }
    out
}

/// An outside trace with its game, read up to its cut.
struct Outside {
    lines: Vec<TraceLine>,
    ruleset: RulesetName,
    /// The moves of the game played.
    moves: Vec<(BoardId, Move)>,
    /// When each board's clock was pressed.
    pressed: ByBoard<Vec<u64>>,
    /// Where the trace stops being a Sentio table's.
    cut: u64,
    start: BughouseGame,
}

impl Outside {
    fn load(trace: &Path, bpgn: &Path) -> Outside {
        let text = std::fs::read_to_string(trace)
            .unwrap_or_else(|e| panic!("{}: cannot read: {e}", trace.display()));
        let lines = parse_trace(&text).unwrap_or_else(|e| panic!("{}: {e}", trace.display()));
        let ruleset = match lines.first().map(|l| &l.event) {
            Some(TraceEvent::Meta {
                ruleset: Some(r), ..
            }) => r
                .parse::<RulesetName>()
                .unwrap_or_else(|e| panic!("{}: ruleset {r}: {e}", trace.display())),
            _ => RulesetName::Fide,
        };
        let moves = game_moves(bpgn, ruleset);
        let pressed = presses(&lines);
        let cut = cut(&lines, &moves, &pressed);
        let start = BughouseGame::new(ruleset.ruleset());
        Outside {
            lines,
            ruleset,
            moves,
            pressed,
            cut,
            start,
        }
    }

    /// The trace as an occupancy-only table shows it, up to its cut.
    fn occupancy_text(&self) -> String {
        occupancy_trace(
            ByBoard::new_with(|b| self.start.board(b).board().occupied().0),
            occupancy_before(&self.lines, &self.start, self.cut),
        )
    }
}

/// One trace through the inference (with the arbiter the daemon alerts, when
/// `with_arbiter`: see `support/occupancy_arbiter.rs`), judged; returns the moves its boards
/// should have decided.
fn run(name: &str, trace: &Path, bpgn: &Path, tally: &mut Tally, with_arbiter: bool) -> usize {
    let o = Outside::load(trace, bpgn);
    let (moves, pressed, cut, start) = (&o.moves, &o.pressed, o.cut, &o.start);
    let mut inf = OccupancyInference::from_game(start.clone(), o.ruleset.ruleset());
    let debug = std::env::var("OCC_DEBUG").is_ok_and(|d| d == name);
    let (mut decided, mut settled) = (Vec::new(), Vec::new());
    let before: ByBoard<u64> = ByBoard::new_with(|b| start.board(b).board().occupied().0);
    let mut arbiter =
        with_arbiter.then(|| Arbiter::new(start, moves.iter().copied(), pressed.clone()));
    let mut reading = Read {
        inf: &mut inf,
        decided: &mut decided,
        settled: &mut settled,
        debug,
    };
    // The trace stops being a Sentio table's at the cut: nothing comes after it.
    reading.all(
        before,
        occupancy_before(&o.lines, start, cut),
        arbiter.as_mut(),
        false,
    );
    if let Some(arbiter) = &arbiter {
        tally.entered += arbiter.entered.len();
        tally.refused_entries += arbiter.refused;
        tally.games_entered += usize::from(!arbiter.entered.is_empty());
    }
    if debug {
        for (i, (b, m)) in moves.iter().enumerate() {
            println!("truth {i} {b} {m:?}");
        }
    }
    let mut expected_all = 0;
    for b in BoardId::ALL {
        let got: Vec<&OccupancyMove> = decided.iter().filter(|m| m.board == b).collect();
        let want: Vec<&Move> = moves.iter().filter(|m| m.0 == b).map(|m| &m.1).collect();
        let expected = pressed[b].iter().filter(|&&t| t < cut).count();
        expected_all += expected;
        let verdict = judge_board(
            tally,
            &got,
            &want,
            expected,
            &settled,
            &format!("{name} board {b}"),
        );
        if verdict == BoardVerdict::Short && std::env::var("OCC_STALLS").is_ok() {
            println!(
                "SHORT {name} {b} {}/{expected} {:?}",
                got.len(),
                inf.stalled(b)
            );
        }
    }
    expected_all
}

#[test]
fn outside_traces_as_occupancy_no_wrong_move() {
    all_traces(false, 60);
}

/// With the arbiter the daemon alerts, entering the moves of a board that stalled or waits:
/// its snapshots since are read again from his moves.
#[test]
fn outside_traces_as_occupancy_with_the_arbiter_no_wrong_move() {
    all_traces(true, 75);
}

/// Every outside trace, judged: no wrong move, and at least `percent` of the moves pressed
/// before the cuts recorded.
fn all_traces(with_arbiter: bool, percent: usize) {
    let mut tally = Tally::default();
    let (mut files, mut expected) = (0, 0);
    for family in ["outage", "koedem"] {
        for (name, trace, bpgn) in traces(family) {
            if std::env::var("OCC_DEBUG").is_ok_and(|d| d != name) {
                continue;
            }
            files += 1;
            expected += run(&name, &trace, &bpgn, &mut tally, with_arbiter);
        }
    }
    let with = if with_arbiter {
        ", with the arbiter"
    } else {
        ""
    };
    println!(
        "{}; {expected} moves pressed before the cuts, {:.1} % recorded",
        tally.line(&format!(
            "outside traces as occupancy ({files} traces){with}"
        )),
        100.0 * tally.moves as f64 / expected.max(1) as f64
    );
    if std::env::var("OCC_DEBUG").is_ok() {
        return;
    }
    assert!(files >= 40, "only {files} outside traces");
    assert!(
        tally.wrong.is_empty(),
        "wrong moves:\n{}",
        tally.wrong.join("\n")
    );
    assert!(
        tally.moves * 100 >= expected * percent,
        "{} of {expected} moves recorded",
        tally.moves
    );
}

/// Through `replay` (the daemon's path: each move handed on to the piece inference, kinds
/// it cannot tell said as `kind-undetermined` alerts), the outside traces read as occupancy
/// give records whose moves are the game's squares on every board, with no more kinds
/// differing from the game's than alerts say so.
#[test]
fn outside_traces_as_occupancy_replay_into_the_record() {
    use bugbridge::infer::{AlertCode, Inference};
    let (mut boards, mut moves, mut flagged) = (0, 0, 0);
    let mut wrong = Vec::new();
    for family in ["outage", "koedem"] {
        for (name, trace, bpgn) in traces(family) {
            let outside = Outside::load(&trace, &bpgn);
            let text = outside.occupancy_text();
            let (ruleset, played) = (outside.ruleset, outside.moves);
            let replayed = bugbridge::cli::replay::replay_text(&text, Some(ruleset))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let undetermined = replayed
                .decisions
                .iter()
                .filter(
                    |d| matches!(d, Inference::Alert(a) if a.code == AlertCode::KindUndetermined),
                )
                .count();
            flagged += undetermined;
            for b in BoardId::ALL {
                boards += 1;
                let record = replayed.game.record();
                let got: Vec<&Move> = record
                    .iter()
                    .filter(|e| e.board == b)
                    .map(|e| &e.mv)
                    .collect();
                let want: Vec<&Move> = played.iter().filter(|m| m.0 == b).map(|m| &m.1).collect();
                moves += got.len();
                let kinds_differ =
                    record_against(&got, &want, &format!("{name} board {b}"), &mut wrong);
                if got.len() > want.len() {
                    wrong.push(format!(
                        "{name} board {b}: {} moves, the game {}",
                        got.len(),
                        want.len()
                    ));
                }
                assert!(
                    kinds_differ <= undetermined,
                    "{name} board {b}: {kinds_differ} kinds differ, {undetermined} alerts"
                );
            }
        }
    }
    println!(
        "replay of the outside traces as occupancy: {boards} boards, {moves} moves recorded, {flagged} kind-undetermined alerts"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(moves >= 1_000, "only {moves} moves recorded");
}

/// The arbiter's one click on the true reading of each stalled board (see
/// `support/stall_clicks.rs`), on the outside traces read as occupancy through `replay`: no
/// click makes a move wrong, and clicks take boards up again. Each click replays the trace
/// again: `cargo test` clicks every other trace of each family, `BUGBRIDGE_FULL=1` all.
#[test]
fn outside_traces_as_occupancy_one_click_per_stall_no_wrong_move() {
    let step = if std::env::var("BUGBRIDGE_FULL").is_ok() {
        1
    } else {
        2
    };
    let mut clicks = stall_clicks::Clicks::default();
    for family in ["outage", "koedem"] {
        for (name, trace, bpgn) in traces(family).into_iter().step_by(step) {
            let o = Outside::load(&trace, &bpgn);
            clicks.play(
                &name,
                &o.start,
                &o.moves,
                o.occupancy_text(),
                Some(o.ruleset),
            );
        }
    }
    clicks.check("outside traces as occupancy");
}
