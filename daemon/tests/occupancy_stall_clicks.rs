//! The arbiter answers a stalled occupancy-only board in one click: noisy random games are
//! replayed as the daemon reads them (`replay`), each `occupancy-stalled` alert is read as
//! the arbiter page gets it (`publish::event`), and when the board's true next move is among
//! its choices, the arbiter posts it `ARBITER_DELAY_MS` after the alert (a line in the
//! journal, as the daemon keeps operator actions) and the game is replayed again, until no
//! alert offers the truth. Every board's record must stay the game's moves on the game's
//! squares (kinds aside where a `kind-undetermined` alert says so): a click never makes a
//! move wrong. Printed: the stall alerts, how many offered the truth, and the boards whole
//! before and after the clicks.
//!
//! `cargo test` runs 12 games; `BUGBRIDGE_FULL=N cargo test --release -p bugbridge --test
//! occupancy_stall_clicks -- --nocapture` runs N.

// Shared with the round trips, which use more of them.
#[path = "support/occupancy.rs"]
#[allow(dead_code)]
mod occupancy;
#[path = "support/occupancy_judge.rs"]
#[allow(dead_code)]
mod occupancy_judge;

use bugbridge::infer::{AlertCode, Inference};
use bugbridge::rules::notation::san_string;
use bugbridge::rules::{BoardId, ByBoard, Color, Move, Ruleset};
use bugbridge::simulate::{Profile, SimGame, random_game};
use occupancy::occupancy_snapshots;
use occupancy_judge::{board_moves, occupancy_trace, record_against, same_squares};

/// How long after the alert the arbiter clicks (ms): he walks over and looks.
const ARBITER_DELAY_MS: u64 = 15_000;

/// The most clicks a game gets: each is one replay more.
const CLICKS_MAX: usize = 30;

fn game_trace(game: &SimGame, seed: u64) -> String {
    occupancy_trace(
        ByBoard::new_with(|b| game.start.board(b).board().occupied().0),
        occupancy_snapshots(game, Profile::Noisy, seed),
    )
}

/// The game's move `number` of `side` on `board`, as SAN in the record's position before
/// it (`record`: the replay's record): the move of the same squares (and dropped or
/// promoted kind) that is legal there, if any (a placeholder kind the true move does not
/// fit leaves none). None when the game has no such move.
fn truth(
    game: &SimGame,
    record: &[bugbridge::infer::RecordEntry],
    board: BoardId,
    number: u32,
    side: Color,
) -> Option<Option<String>> {
    let mut g = game.start.clone();
    let mut seen = 0;
    let mut want = None;
    for m in &game.moves {
        let pos = g.board(m.board);
        if m.board == board && pos.mover(&m.mv) == side {
            seen += 1;
            if seen == number {
                want = Some(m.mv);
                break;
            }
        }
        g.play(m.board, &m.mv, 0);
    }
    let want = want?;
    let mut recorded = game.start.clone();
    for e in record
        .iter()
        .take_while(|e| (e.board, e.number, e.side) != (board, number, side))
    {
        recorded.play(e.board, &e.mv, 0);
    }
    let pos = recorded.board(board);
    let same = |m: &Move| same_squares(m, &want);
    if let Some(mv) = pos.legal_moves().into_iter().find(same) {
        return Some(Some(san_string(pos, &mv)));
    }
    // A piece of open kind whose placeholder is not what it is: the move as that kind
    // (a choice that settles the kind as it enters the move).
    let (Move::Normal { role, from, .. }, Some(piece)) =
        (want, want.from().and_then(|f| pos.board().piece_at(f)))
    else {
        return Some(None);
    };
    let mut swapped = pos.clone();
    swapped.set_piece_at(from, bugbridge::rules::Piece { role, ..piece });
    Some(
        swapped
            .legal_moves()
            .into_iter()
            .find(same)
            .map(|mv| san_string(&swapped, &mv)),
    )
}

/// SAN without its check sign.
fn plain(san: &str) -> String {
    san.trim_end_matches(['+', '#']).to_owned()
}

/// `post` inserted into `trace` at its time (after every line of that time or before).
fn with_post(trace: &str, post: &serde_json::Value) -> String {
    let at = post["t"].as_u64().unwrap_or(0);
    let mut out = String::with_capacity(trace.len() + 200);
    let mut placed = false;
    for line in trace.lines() {
        let t = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v["t"].as_u64())
            .unwrap_or(0);
        if !placed && t > at {
            out.push_str(&post.to_string());
            out.push('\n');
            placed = true;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !placed {
        out.push_str(&post.to_string());
        out.push('\n');
    }
    out
}

#[derive(Default)]
struct Clicks {
    boards: usize,
    whole_before: usize,
    whole_after: usize,
    stalls: usize,
    offered: usize,
    choices: usize,
    clicked: usize,
    wrong: Vec<String>,
    wrong_alone: Vec<String>,
    missed: Vec<String>,
}

impl Clicks {
    /// Each board's record as moves, and how many boards are whole.
    fn whole(game: &SimGame, replayed: &bugbridge::cli::replay::Replayed) -> usize {
        BoardId::ALL
            .into_iter()
            .filter(|&b| {
                replayed
                    .game
                    .record()
                    .iter()
                    .filter(|e| e.board == b)
                    .count()
                    == game.moves.iter().filter(|m| m.board == b).count()
            })
            .count()
    }

    fn judge(
        name: &str,
        game: &SimGame,
        replayed: &bugbridge::cli::replay::Replayed,
        wrong: &mut Vec<String>,
    ) {
        for b in BoardId::ALL {
            let (got, want) = board_moves(replayed.game.record(), game, b);
            record_against(&got, &want, &format!("{name} board {b}"), wrong);
        }
    }

    fn play(&mut self, name: &str, game: &SimGame, seed: u64) {
        let mut trace = game_trace(game, seed);
        if std::env::var("CLICK_DEBUG").is_ok_and(|d| d == name) {
            std::fs::write("/tmp/click-debug.trace.jsonl", &trace).expect("write");
        }
        let mut replayed = bugbridge::cli::replay::replay_text(&trace, None).expect("replay");
        self.boards += 2;
        self.whole_before += Self::whole(game, &replayed);
        let mut alone = Vec::new();
        Self::judge(name, game, &replayed, &mut alone);
        let wrong_alone = !alone.is_empty();
        self.wrong_alone.extend(alone);
        let mut answered: Vec<(BoardId, u32, Color)> = Vec::new();
        for _ in 0..CLICKS_MAX {
            let stall = replayed.decisions.iter().find_map(|d| match d {
                Inference::Alert(a)
                    if a.code == AlertCode::OccupancyStalled
                        && a.board
                            .zip(a.number)
                            .zip(a.side)
                            .is_some_and(|((b, n), s)| !answered.contains(&(b, n, s))) =>
                {
                    Some((a.clone(), d))
                }
                _ => None,
            });
            let Some((alert, decision)) = stall else {
                break;
            };
            let (Some(board), Some(number), Some(side)) = (alert.board, alert.number, alert.side)
            else {
                unreachable!("matched above");
            };
            answered.push((board, number, side));
            self.stalls += 1;
            self.choices += alert.choices.len();
            let Some(want) = truth(game, replayed.game.record(), board, number, side) else {
                continue;
            };
            let Some(want) = want else {
                self.missed.push(format!(
                    "{name} board {board} {number}{side:?}: not legal in the record's position ({})",
                    alert.detail
                ));
                continue;
            };
            let event = bugbridge::publish::event(decision).expect("an alert event");
            let Some(choice) = event
                .choices
                .iter()
                .find(|c| plain(c.label.split(' ').nth(1).unwrap_or("")) == plain(&want))
            else {
                self.missed.push(format!(
                    "{name} board {board} {number}{side:?}: {want} not among {:?} ({})",
                    event.choices.iter().map(|c| &c.label).collect::<Vec<_>>(),
                    alert.detail
                ));
                continue;
            };
            self.offered += 1;
            let mut post = serde_json::to_value(&choice.post).expect("json");
            post["t"] = serde_json::json!(alert.t + ARBITER_DELAY_MS);
            post["ev"] = serde_json::json!("operator");
            trace = with_post(&trace, &post);
            if std::env::var("CLICK_DEBUG").is_ok_and(|d| d == name) {
                println!(
                    "click {} at {} for: {}",
                    choice.label, alert.t, alert.detail
                );
                std::fs::write("/tmp/click-debug.trace.jsonl", &trace).expect("write");
            }
            replayed = bugbridge::cli::replay::replay_text(&trace, None).expect("replay");
            self.clicked += 1;
            if !wrong_alone {
                Self::judge(name, game, &replayed, &mut self.wrong);
            }
        }
        self.whole_after += Self::whole(game, &replayed);
    }
}

#[test]
fn one_click_on_the_true_reading_of_a_stalled_board_takes_it_up_again() {
    let count = std::env::var("BUGBRIDGE_FULL")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(12);
    let mut clicks = Clicks::default();
    for seed in 0..count {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        clicks.play(&format!("random {seed}"), &g, 7000 + seed);
    }
    println!(
        "random, noisy: {} boards, {} whole alone, {} whole after one click per stall; {} stall alerts, {} with the true next move among their choices ({} choices in all), {} clicked",
        clicks.boards,
        clicks.whole_before,
        clicks.whole_after,
        clicks.stalls,
        clicks.offered,
        clicks.choices,
        clicks.clicked
    );
    for m in clicks.missed.iter().take(20) {
        println!("missed: {m}");
    }
    println!("wrong alone: {:#?}", clicks.wrong_alone);
    clicks.wrong.sort();
    clicks.wrong.dedup();
    assert!(clicks.wrong.is_empty(), "{}", clicks.wrong.join("\n"));
    assert!(
        clicks.offered * 2 >= clicks.stalls,
        "{} of {} stall alerts offered the board's next move",
        clicks.offered,
        clicks.stalls
    );
    assert!(
        clicks.whole_after > clicks.whole_before,
        "clicks took no board up again"
    );
}
