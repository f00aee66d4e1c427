//! The arbiter answers a stalled occupancy-only board in one click, for the round trips
//! (`#[path]`-included): a game's occupancy trace is replayed as the daemon reads it
//! (`replay`), each `occupancy-stalled` alert is read as the arbiter page gets it
//! (`publish::event`), and when the board's true next move is among its choices, the
//! arbiter posts it `ARBITER_DELAY_MS` after the alert (a line in the journal, as the daemon
//! keeps operator actions) and the game is replayed again, until no alert offers the truth.
//! Every board's record must stay the game's moves on the game's squares: a click never
//! makes a move wrong.

use bugbridge::cli::replay::Replayed;
use bugbridge::infer::{AlertCode, CorrectionKind, Inference, OperatorAction};
use bugbridge::rules::notation::san_string;
use bugbridge::rules::{
    BoardId, BughouseGame, ByColor, Color, EndReason, MatchResult, Move, Piece, Position,
    RulesetName, Square,
};

use crate::occupancy_judge::{record_against, same_squares};

/// How long after the alert the arbiter clicks (ms): he walks over and looks.
const ARBITER_DELAY_MS: u64 = 15_000;

/// The most clicks a game gets: each is one replay more.
const CLICKS_MAX: usize = 30;

/// The game's move `number` of `side` on `board`, as SAN in the record's position before
/// it (`record`: the replay's record, followed by the game's moves of that board it does
/// not hold yet: a stalled board's moves before the one in doubt): the move of the same
/// squares (and dropped or promoted kind) that is legal there, if any, the moving piece or
/// one of the opponent's taken as the kind it truly is where the record's placeholder is
/// another, a drop from the hand holding its kind (a placeholder the true move does not fit
/// otherwise leaves none); with the
/// game's position before it and the move's SAN there. None when the game has no such
/// move.
fn truth(
    start: &BughouseGame,
    moves: &[(BoardId, Move)],
    record: &[bugbridge::infer::RecordEntry],
    board: BoardId,
    number: u32,
    side: Color,
) -> Option<(Option<String>, Position, String)> {
    let ply = |number: u32, side: Color| 2 * number + u32::from(side == Color::Black);
    let mut g = start.clone();
    let mut seen = ByColor::new_with(|_| 0);
    let mut want = None;
    // The board's moves before the one wanted, by ply.
    let mut before: Vec<(u32, Move)> = Vec::new();
    for &(b, mv) in moves {
        if b == board {
            let mover = g.board(b).mover(&mv);
            seen[mover] += 1;
            if (seen[mover], mover) == (number, side) {
                want = Some(mv);
                break;
            }
            before.push((ply(seen[mover], mover), mv));
        }
        g.play(b, &mv, 0);
    }
    let want = want?;
    let true_pos = g.board(board).clone();
    let true_san = san_string(&true_pos, &want);
    let mut recorded = start.clone();
    let mut last = 0;
    for e in record
        .iter()
        .take_while(|e| (e.board, e.number, e.side) != (board, number, side))
    {
        recorded.play(e.board, &e.mv, 0);
        if e.board == board {
            last = ply(e.number, e.side);
        }
    }
    // The board's moves the feed read but has not handed on to the record yet (a stalled
    // board holds those before the move in doubt): the alert's choices follow them. The
    // game's own are played; were the feed's other, a click would show it (`judge`).
    for (_, mv) in before.iter().filter(|(p, _)| *p > last) {
        recorded.play(board, mv, 0);
    }
    let pos = recorded.board(board);
    let same = |m: &Move| same_squares(m, &want);
    if let Some(mv) = pos.legal_moves().into_iter().find(same) {
        return Some((Some(san_string(pos, &mv)), true_pos, true_san));
    }
    // A piece of open kind whose placeholder is not what it is: the move as that kind
    // (a choice that settles the kind as it enters the move), or an opponent's piece as
    // the kind it is (a choice that states it first).
    let mut tried: Vec<Position> = Vec::new();
    if let (Move::Normal { role, from, .. }, Some(piece)) =
        (want, want.from().and_then(|f| pos.board().piece_at(f)))
    {
        let mut swapped = pos.clone();
        swapped.set_piece_at(from, Piece { role, ..piece });
        tried.push(swapped);
    }
    // A drop of a kind the record's hand lacks (a captured placeholder that was that kind,
    // or a capture of the partner board not read yet): offered from the hand as it may be.
    if let Move::Drop { piece, .. } = want {
        let mut any = pos.clone();
        any.pockets_mut()[piece.color].add(piece.role);
        tried.push(any);
    }
    for sq in pos.board().by_color(side.other()) {
        let (Some(is), Some(was)) = (true_pos.board().piece_at(sq), pos.board().piece_at(sq))
        else {
            continue;
        };
        if is.color == was.color && is.role != was.role {
            let mut swapped = pos.clone();
            swapped.set_piece_at(sq, is);
            tried.push(swapped);
        }
    }
    let san = tried.iter().find_map(|p| {
        p.legal_moves()
            .into_iter()
            .find(same)
            .map(|mv| san_string(p, &mv))
    });
    Some((san, true_pos, true_san))
}

/// Whether the kind a choice's label says a piece is (`… (f1 a knight)`) is the kind the
/// game has on that square before the move (`true_pos`): a click must never settle a
/// wrong kind.
fn kind_true(label: &str, true_pos: &Position) -> bool {
    let Some(said) = label
        .rsplit_once(" (")
        .and_then(|(_, s)| s.strip_suffix(')'))
    else {
        return true;
    };
    let Some((sq, kind)) = said.split_once(" a ") else {
        return true;
    };
    let Ok(sq) = sq.parse::<Square>() else {
        return true;
    };
    true_pos
        .board()
        .piece_at(sq)
        .is_some_and(|p| p.role.to_string() == kind)
}

/// Whether a choice's label states a piece's kind (`17. Qbb5 (b3 a queen)`).
fn states_kind(label: &str) -> bool {
    label
        .rsplit_once(" (")
        .is_some_and(|(_, said)| said.contains(" a "))
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

/// What the clicks did, over the games played.
#[derive(Default)]
pub(crate) struct Clicks {
    pub(crate) boards: usize,
    pub(crate) whole_before: usize,
    pub(crate) whole_after: usize,
    pub(crate) moves_before: usize,
    pub(crate) moves_after: usize,
    pub(crate) stalls: usize,
    /// Stall alerts said again with what the board showed since, as the trace reads alone.
    pub(crate) said_again: usize,
    pub(crate) offered: usize,
    pub(crate) choices: usize,
    pub(crate) clicked: usize,
    pub(crate) wrong: Vec<String>,
    pub(crate) wrong_alone: Vec<String>,
    pub(crate) missed: Vec<String>,
    /// The labels of the choices clicked, in order.
    pub(crate) clicked_labels: Vec<String>,
    /// The record of the last game played, after its clicks.
    pub(crate) record: Vec<(BoardId, Move)>,
    /// `illegal-move` alerts said of the games (all legal) as read alone, and after the
    /// clicks: drops recorded before the partner board's captures that supplied them.
    pub(crate) illegal_alone: usize,
    pub(crate) illegal_after: usize,
    /// The `illegal-move` alerts of the last game played, after its clicks.
    pub(crate) illegal_details: Vec<String>,
    /// Ends the record reported, as read alone and after the clicks, that are not the
    /// game's (a mate found among placeholders).
    pub(crate) ends_wrong: Vec<String>,
    /// Ends the record reported that are the game's, after the clicks.
    pub(crate) ends_true: usize,
    /// `end-undetermined` alerts after the clicks: mates found among pieces of open kind,
    /// left to the arbiter, and how many of them the game's end is (the rest: the
    /// players went on).
    pub(crate) ends_unsure: usize,
    pub(crate) ends_unsure_true: usize,
}

/// The `illegal-move` alerts among a replay's decisions.
fn illegal_alerts(replayed: &Replayed) -> usize {
    replayed
        .decisions
        .iter()
        .filter(|d| matches!(d, Inference::Alert(a) if a.code == AlertCode::IllegalMove))
        .count()
}

impl Clicks {
    /// The ends `replayed` reported against the game's (`game_end`: its board, result and
    /// reason): one that is not goes to `ends_wrong`. Returns how many are.
    fn judge_ends(
        &mut self,
        name: &str,
        game_end: Option<(Option<BoardId>, MatchResult, EndReason)>,
        replayed: &Replayed,
    ) -> usize {
        let mut right = 0;
        for d in &replayed.decisions {
            if let Inference::End {
                board,
                result,
                reason,
                ..
            } = d
            {
                let end = (*board, *result, reason.unwrap_or(EndReason::Aborted));
                if game_end == Some(end) {
                    right += 1;
                } else {
                    self.ends_wrong.push(format!(
                        "{name}: the record ended {end:?}, the game {game_end:?}"
                    ));
                }
            }
        }
        right
    }

    /// How many boards of `replayed` hold as many moves as the game's.
    fn whole(moves: &[(BoardId, Move)], replayed: &Replayed) -> usize {
        BoardId::ALL
            .into_iter()
            .filter(|&b| {
                replayed
                    .game
                    .record()
                    .iter()
                    .filter(|e| e.board == b)
                    .count()
                    == moves.iter().filter(|m| m.0 == b).count()
            })
            .count()
    }

    /// Each board's record against the game's moves: the first move on other squares goes
    /// to `wrong`, and so does a kind the record settled that is not the game's (see
    /// [`Clicks::settled_kinds_wrong`]).
    fn judge(name: &str, moves: &[(BoardId, Move)], replayed: &Replayed, wrong: &mut Vec<String>) {
        for b in BoardId::ALL {
            let got: Vec<&Move> = replayed
                .game
                .record()
                .iter()
                .filter(|e| e.board == b)
                .map(|e| &e.mv)
                .collect();
            let want: Vec<&Move> = moves.iter().filter(|m| m.0 == b).map(|m| &m.1).collect();
            record_against(&got, &want, &format!("{name} board {b}"), wrong);
        }
        Self::settled_kinds_wrong(name, moves, replayed, wrong);
    }

    /// Each kind the record settled (a drop's or a promotion's placeholder corrected as
    /// known: by a later move of its piece, or by a click naming it) against the game's
    /// move it stands for (the board's moves in order: their squares are judged above): a
    /// kind no longer flagged must be the true one. The kinds of the pieces it moves or
    /// takes are not its own: a victim of open kind is its placeholder until its own entry
    /// is settled, and that entry is judged where it stands (random 369, 684: a promotion
    /// settled by a click took a dropped piece still flagged).
    fn settled_kinds_wrong(
        name: &str,
        moves: &[(BoardId, Move)],
        replayed: &Replayed,
        wrong: &mut Vec<String>,
    ) {
        // The last correction of each entry says whether its kind stands settled.
        let mut last: Vec<((BoardId, u32, Color), CorrectionKind)> = Vec::new();
        for d in &replayed.decisions {
            if let Inference::Correction(c) = d {
                let key = (c.board, c.number, c.side);
                last.retain(|(k, _)| *k != key);
                last.push((key, c.kind));
            }
        }
        let settled = |key: (BoardId, u32, Color)| {
            last.iter().any(|(k, kind)| {
                *k == key
                    && matches!(
                        kind,
                        CorrectionKind::KindSettled | CorrectionKind::Promotion
                    )
            })
        };
        for b in BoardId::ALL {
            let game = moves.iter().filter(|m| m.0 == b).map(|m| m.1);
            let record = replayed.game.record().iter().filter(|e| e.board == b);
            for (e, want) in record.zip(game) {
                if settled((e.board, e.number, e.side)) && !same_squares(&e.mv, &want) {
                    wrong.push(format!(
                        "{name} board {b} {}{:?}: settled as {:?}, the game's {want:?}",
                        e.number, e.side, e.mv
                    ));
                }
            }
        }
    }

    /// The game `moves` from `start`, whose occupancy trace is `trace`, replayed and taken
    /// up again one click per stall alert that offers the truth (see the module's doc).
    pub(crate) fn play(
        &mut self,
        name: &str,
        start: &BughouseGame,
        moves: &[(BoardId, Move)],
        mut trace: String,
        ruleset: Option<RulesetName>,
    ) {
        if std::env::var("CLICK_DEBUG").is_ok_and(|d| d == name) {
            std::fs::write("/tmp/click-debug.trace.jsonl", &trace).expect("write");
        }
        let mut replayed = bugbridge::cli::replay::replay_text(&trace, ruleset).expect("replay");
        self.boards += 2;
        self.whole_before += Self::whole(moves, &replayed);
        self.moves_before += replayed.game.record().len();
        self.illegal_alone += illegal_alerts(&replayed);
        self.said_again += replayed
            .decisions
            .iter()
            .filter(|d| {
                matches!(d, Inference::Alert(a)
                    if a.code == AlertCode::OccupancyStalled && a.detail.contains("said again"))
            })
            .count();
        let game_end = {
            let mut g = start.clone();
            for (b, m) in moves {
                g.play(*b, m, 0);
            }
            g.end().map(|e| (e.board, e.result, e.reason))
        };
        self.judge_ends(name, game_end, &replayed);
        let mut alone = Vec::new();
        Self::judge(name, moves, &replayed, &mut alone);
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
            let Some((want, true_pos, true_san)) =
                truth(start, moves, replayed.game.record(), board, number, side)
            else {
                continue;
            };
            let Some(want) = want else {
                self.missed.push(format!(
                    "{name} board {board} {number}{side:?}: {true_san} not legal in the record's position ({})",
                    alert.detail
                ));
                continue;
            };
            // The arbiter reads the latest list said of that move by the time he clicks (a
            // board played on is said again with what it showed since).
            let clicked_at = alert.t + ARBITER_DELAY_MS;
            let decision = replayed
                .decisions
                .iter()
                .rev()
                .find(|d| {
                    matches!(d, Inference::Alert(a)
                        if a.code == AlertCode::OccupancyStalled
                            && (a.board, a.number, a.side) == (Some(board), Some(number), Some(side))
                            && a.t <= clicked_at)
                })
                .unwrap_or(decision);
            let event = bugbridge::publish::event(decision).expect("an alert event");
            // A choice stating a piece's kind names the move as that kind makes it: the
            // truth's SAN when the kind is the truth's (`Bxc4 (b5 a bishop)` where the
            // record has a placeholder queen and the move as `Qxc4`).
            let Some(choice) = event.choices.iter().find(|c| {
                let san = plain(c.label.split(' ').nth(1).unwrap_or(""));
                (san == plain(&want) || (states_kind(&c.label) && san == plain(&true_san)))
                    && kind_true(&c.label, &true_pos)
            }) else {
                self.missed.push(format!(
                    "{name} board {board} {number}{side:?}: {want} not among {:?} ({})",
                    event.choices.iter().map(|c| &c.label).collect::<Vec<_>>(),
                    alert.detail
                ));
                continue;
            };
            self.offered += 1;
            let mut post = serde_json::to_value(&choice.post).expect("json");
            post["t"] = serde_json::json!(clicked_at);
            post["ev"] = serde_json::json!("operator");
            trace = with_post(&trace, &post);
            if std::env::var("CLICK_DEBUG").is_ok_and(|d| d == name) {
                println!(
                    "click {} at {} for: {}",
                    choice.label, alert.t, alert.detail
                );
                std::fs::write("/tmp/click-debug.trace.jsonl", &trace).expect("write");
            }
            replayed = bugbridge::cli::replay::replay_text(&trace, ruleset).expect("replay");
            self.clicked += 1;
            self.clicked_labels.push(choice.label.clone());
            if !wrong_alone {
                Self::judge(name, moves, &replayed, &mut self.wrong);
            }
        }
        self.whole_after += Self::whole(moves, &replayed);
        self.moves_after += replayed.game.record().len();
        self.ends_true += self.judge_ends(name, game_end, &replayed);
        for d in &replayed.decisions {
            if let Inference::Alert(a) = d
                && a.code == AlertCode::EndUndetermined
            {
                self.ends_unsure += 1;
                let said = a.choices.first().and_then(|c| match c.action {
                    OperatorAction::Result { result, reason, .. } => {
                        Some((a.board, result, reason))
                    }
                    _ => None,
                });
                if said.is_some_and(|(b, r, why)| {
                    game_end == Some((b, r, why.unwrap_or(EndReason::Aborted)))
                }) {
                    self.ends_unsure_true += 1;
                }
            }
        }
        self.illegal_after += illegal_alerts(&replayed);
        self.illegal_details = replayed
            .decisions
            .iter()
            .filter_map(|d| match d {
                Inference::Alert(a) if a.code == AlertCode::IllegalMove => Some(a.detail.clone()),
                _ => None,
            })
            .collect();
        self.record = replayed
            .game
            .record()
            .iter()
            .map(|e| (e.board, e.mv))
            .collect();
    }

    /// Prints the figures of `what` and asserts: no move wrong as the daemon reads the
    /// trace alone (`replay`, its timers as live: random 146 once recorded a reply before
    /// the capture it answered), none after a click, and the clicks took boards up again
    /// (more moves recorded).
    pub(crate) fn check(&mut self, what: &str) {
        println!(
            "{what}: {} boards, {} whole alone, {} whole after one click per stall ({} moves recorded alone, {} after); {} stall alerts, {} with the true next move among their choices ({} choices in all), {} clicked; {} stall alerts said again alone",
            self.boards,
            self.whole_before,
            self.whole_after,
            self.moves_before,
            self.moves_after,
            self.stalls,
            self.offered,
            self.choices,
            self.clicked,
            self.said_again
        );
        println!(
            "{what}: {} illegal-move alerts alone, {} after the clicks (the games are legal)",
            self.illegal_alone, self.illegal_after
        );
        println!(
            "{what}: {} ends recorded after the clicks, all the game's; {} mates left to the arbiter (end-undetermined), {} of them the game's end",
            self.ends_true, self.ends_unsure, self.ends_unsure_true
        );
        for m in self.missed.iter().take(20) {
            println!("missed: {m}");
        }
        println!("wrong alone: {:#?}", self.wrong_alone);
        assert!(
            self.wrong_alone.is_empty(),
            "{what}: wrong before any click:\n{}",
            self.wrong_alone.join("\n")
        );
        self.ends_wrong.sort();
        self.ends_wrong.dedup();
        assert!(
            self.ends_wrong.is_empty(),
            "{what}: ends no game had:\n{}",
            self.ends_wrong.join("\n")
        );
        self.wrong.sort();
        self.wrong.dedup();
        assert!(self.wrong.is_empty(), "{}", self.wrong.join("\n"));
        assert!(
            self.moves_after > self.moves_before,
            "{what}: clicks took no board up again"
        );
    }
}
