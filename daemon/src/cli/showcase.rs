//! The demo's arbiter showcase: the looped game is the recorded one up to a point late in
//! it, where one player completes an illegal move (it stands, is recorded and reaches the
//! arbiter view as an alert) and his opponent then lets the flag fall. Without it a new
//! user would never see the arbiter view do anything.
//!
//! The point is chosen where the flag comes soonest: the position late in the game where
//! the opponent of the player to move has the least time left, among those where the
//! player to move has an illegal move to make (preferably a king or a pinned piece left
//! in check, otherwise a piece moved the way it cannot move).

use bugbridge_drivers::trace::{BoardId as WireBoard, TraceEvent, TraceLine};

use crate::rules::notation::san::san_string;
use crate::rules::{
    BoardId, ByBoard, ByColor, Color, IllegalReason, Legality, Move, Position, Role, Square,
};
use crate::simulate::{SimGame, SimMove};

/// What the showcase did, for the banner and the `Event` tag.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Showcase {
    /// The board of the illegal move and of the flag.
    pub(crate) board: BoardId,
    /// The move number of the illegal move.
    pub(crate) number: u32,
    /// Who made it.
    pub(crate) mover: Color,
    /// Its SAN.
    pub(crate) san: String,
    /// The rule it breaks.
    pub(crate) reason: IllegalReason,
    /// The opponent's seconds left when it was pressed: the time until the flag falls.
    pub(crate) flag_after: f64,
}

impl Showcase {
    /// A short label for the `Event` tag.
    pub(crate) fn label(&self) -> String {
        let dots = if self.mover == Color::White {
            "."
        } else {
            "..."
        };
        format!(
            "arbiter showcase: the illegal {}{dots} {} on board {}, then a flag fall",
            self.number, self.san, self.board
        )
    }

    /// One line for the banner.
    pub(crate) fn describe(&self) -> String {
        format!(
            "arbiter showcase: on board {} at move {} {} plays the illegal {} ({}); then {} \
             lets the flag fall ({:.0} s later)",
            self.board,
            self.number,
            self.mover,
            self.san,
            self.reason,
            self.mover.other(),
            self.flag_after
        )
    }
}

/// An illegal move for the side to move in `pos`: a king step or another piece's move to
/// an empty square that leaves the king in check, else a piece moved the wrong way.
fn illegal_move(pos: &Position) -> Option<(Move, IllegalReason)> {
    let us = pos.turn();
    let board = pos.board();
    let mut wrong_way = None;
    for from in Square::ALL {
        let Some(piece) = board.piece_at(from) else {
            continue;
        };
        if piece.color != us || piece.role == Role::Pawn {
            continue;
        }
        for to in Square::ALL {
            if board.piece_at(to).is_some() {
                continue;
            }
            let mv = Move::Normal {
                role: piece.role,
                from,
                capture: None,
                to,
                promotion: None,
            };
            match pos.classify(&mv) {
                Legality::Illegal(r @ IllegalReason::LeavesKingInCheck) => return Some((mv, r)),
                Legality::Illegal(r @ IllegalReason::BadPieceMovement)
                    if wrong_way.is_none() && piece.role != Role::King =>
                {
                    wrong_way = Some((mv, r));
                }
                _ => {}
            }
        }
    }
    wrong_way
}

/// The game cut at the showcase point, with the illegal move appended; `None` when no
/// point of the second half of the game has an illegal move to make (a game too short).
pub(crate) fn showcase(sim: &SimGame) -> Option<(SimGame, Showcase)> {
    let n = sim.moves.len();
    if n < 4 {
        return None;
    }
    let mut state = sim.start.clone();
    let mut clocks: ByBoard<ByColor<f64>> = ByBoard::new_with(|_| ByColor {
        white: sim.base_seconds,
        black: sim.base_seconds,
    });
    let mut best: Option<(usize, Move, IllegalReason, f64)> = None;
    for (k, sm) in sim.moves.iter().enumerate() {
        let pos = state.board(sm.board);
        if k >= n / 2 && pos.mover(&sm.mv) == pos.turn() {
            let opponent_left = clocks[sm.board][pos.turn().other()];
            // Keep a few seconds for the viewer to see the clock run down.
            if opponent_left >= 3.0
                && best.as_ref().is_none_or(|b| opponent_left < b.3)
                && let Some((mv, reason)) = illegal_move(pos)
            {
                best = Some((k, mv, reason, opponent_left));
            }
        }
        let mover = state.board(sm.board).mover(&sm.mv);
        clocks[sm.board][mover] = sm.clock;
        let legality = state.classify(sm.board, &sm.mv);
        state.play_classified(sm.board, &sm.mv, legality, 0);
    }
    let (k, mv, reason, flag_after) = best?;
    // Replay up to k for the SAN and the move number.
    let mut state = sim.start.clone();
    for sm in &sim.moves[..k] {
        let legality = state.classify(sm.board, &sm.mv);
        state.play_classified(sm.board, &sm.mv, legality, 0);
    }
    let board = sim.moves[k].board;
    let pos = state.board(board);
    let plies = sim.moves[..k].iter().filter(|m| m.board == board).count();
    let info = Showcase {
        board,
        number: u32::try_from(plies / 2 + 1).unwrap_or(u32::MAX),
        mover: pos.turn(),
        san: san_string(pos, &mv),
        reason,
        flag_after,
    };
    let mut moves = sim.moves[..k].to_vec();
    moves.push(SimMove {
        board,
        mv,
        clock: sim.moves[k].clock,
        grab: None,
    });
    Some((
        SimGame {
            start: sim.start.clone(),
            moves,
            base_seconds: sim.base_seconds,
        },
        info,
    ))
}

/// The trace's time when the showcase game is decided: the illegal move's press plus the
/// opponent's time, and the clock events that keep the other board from flagging first
/// (its clock is stopped at the press).
pub(crate) fn flag_time(
    lines: &[TraceLine],
    info: &Showcase,
    wire: impl Fn(BoardId) -> WireBoard,
) -> (u64, Vec<TraceLine>) {
    let board = wire(info.board);
    let other = wire(info.board.other());
    // The illegal move's press is the last press of its board.
    let press = lines
        .iter()
        .rev()
        .find_map(|l| match &l.event {
            TraceEvent::Clock {
                board: b,
                running: Some(_),
                ..
            } if *b == board => Some(l.t),
            _ => None,
        })
        .unwrap_or(0);
    let flag = press + (info.flag_after * 1000.0).ceil() as u64;
    let mut extra = Vec::new();
    // The other board's clock at the press: stop it if it would run out first.
    let last_other = lines.iter().rev().find_map(|l| match &l.event {
        TraceEvent::Clock {
            board: b,
            white,
            black,
            running,
        } if *b == other && l.t <= press => Some((l.t, *white, *black, *running)),
        _ => None,
    });
    if let Some((t0, white, black, Some(side))) = last_other {
        let elapsed = (press.saturating_sub(t0)) as f64 / 1000.0;
        let left_at_flag = |v: f64| v - elapsed - info.flag_after;
        let running_left = match side {
            bugbridge_drivers::trace::Side::White => white,
            bugbridge_drivers::trace::Side::Black => black,
        };
        if left_at_flag(running_left) < 3.0 {
            let now = |v: f64, runs: bool| {
                if runs {
                    (v - elapsed).max(1.0).floor()
                } else {
                    v
                }
            };
            extra.push(TraceLine {
                t: press + 1,
                event: TraceEvent::Clock {
                    board: other,
                    white: now(white, side == bugbridge_drivers::trace::Side::White),
                    black: now(black, side == bugbridge_drivers::trace::Side::Black),
                    running: None,
                },
            });
        }
    }
    (flag, extra)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RulesetName;
    use crate::rules::notation::bpgn::parse_bpgn;

    #[test]
    fn the_demo_game_ends_with_an_illegal_move_on_a_short_clock() {
        let text = include_str!("../../data/demo/1934301.bpgn");
        let game = &parse_bpgn(text).unwrap()[0];
        let sim = crate::cli::simulate::sim_game(game, RulesetName::Fide).unwrap();
        let (cut, info) = showcase(&sim).expect("a point for the showcase");
        assert!(cut.moves.len() > sim.moves.len() / 2);
        assert!(cut.moves.len() <= sim.moves.len());
        // The last move is illegal where it is played, for the reason said.
        let mut state = cut.start.clone();
        let (last, before) = cut.moves.split_last().unwrap();
        for sm in before {
            let l = state.classify(sm.board, &sm.mv);
            state.play_classified(sm.board, &sm.mv, l, 0);
        }
        assert_eq!(last.board, info.board);
        assert_eq!(
            state.classify(last.board, &last.mv),
            Legality::Illegal(info.reason)
        );
        assert_eq!(state.board(last.board).turn(), info.mover);
        assert!(info.flag_after >= 3.0, "{info:?}");
        assert!(info.describe().contains(&info.san));
        assert!(info.label().contains(&info.san));
    }
}
