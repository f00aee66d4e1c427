//! The arbiter's actions, checked against the game before anything is journaled, and the
//! result an arbiter records or corrects.
//!
//! A result is not something to be overwritten by a second click: once a game has ended,
//! only an explicit correction (`"correct": true`) changes it, and the correction is
//! journaled, published and written into the BPGN's end comment, so the record says that
//! it was corrected and what it was before. An action that names a move, a board or a
//! reason that does not exist, or a move that cannot have been played, is refused with the
//! field at fault; a refused action changes nothing and is not journaled.

use std::fmt;
use std::str::FromStr;

use crate::rules::notation::San;
use crate::rules::{
    BoardId, Color, EndReason, GameEnd, Legality, MatchResult, Role, Ruleset, Seat,
};

use super::output::Inference;
use super::{Inferrer, OperatorAction};

/// An operator action the game refuses, and the field of the action at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRefused {
    /// The field of the action at fault (`reason`, `number`, `moves`, …).
    pub field: &'static str,
    /// Why, for the arbiter.
    pub message: String,
}

impl ActionRefused {
    fn new(field: &'static str, message: impl Into<String>) -> ActionRefused {
        ActionRefused {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for ActionRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ActionRefused {}

/// The end reasons an arbiter may record under `rules`, in the order the arbiter view
/// offers them.
#[must_use]
pub fn operator_reasons(rules: &Ruleset) -> Vec<EndReason> {
    let mut reasons = vec![EndReason::Resignation];
    if rules.kings_capturable {
        reasons.push(EndReason::AllKings);
    } else {
        reasons.push(EndReason::Checkmate);
    }
    reasons.push(EndReason::FlagFall);
    if rules.draws {
        reasons.push(EndReason::BothFlags);
        reasons.push(EndReason::DrawAgreement);
        if rules.repetition_count.is_some() {
            reasons.push(EndReason::Repetition);
        }
    }
    reasons.extend([
        EndReason::IllegalMoveClaim,
        EndReason::Simultaneous,
        EndReason::Aborted,
    ]);
    reasons
}

/// Whether `reason` can give `result`: a draw for the drawn ends, a win for the others.
fn fits(reason: EndReason, result: MatchResult) -> bool {
    match reason {
        EndReason::BothFlags | EndReason::DrawAgreement | EndReason::Repetition => {
            result == MatchResult::Draw
        }
        EndReason::Simultaneous | EndReason::Aborted => true,
        _ => matches!(result, MatchResult::Won(_)),
    }
}

fn seat_name(board: BoardId, side: Color) -> String {
    Seat::new(board, side).tag()
}

impl Inferrer {
    /// Checks an operator action against the game as it stands: `Ok` when applying it
    /// makes sense, otherwise the field at fault. Nothing is changed.
    ///
    /// # Errors
    ///
    /// [`ActionRefused`] naming the field: an unknown or unfitting reason, a result for an
    /// ended game without `correct`, a move that does not exist, a SAN that no move of the
    /// position fits or that is illegal, a fill that does not fit the board's gap.
    pub fn check_action(&self, t: u64, op: &OperatorAction) -> Result<(), ActionRefused> {
        let rules = *self.game.rules();
        match op {
            OperatorAction::Result {
                result,
                reason,
                correct,
            } => {
                let Some(reason) = reason else {
                    let known: Vec<&str> =
                        operator_reasons(&rules).iter().map(|r| r.code()).collect();
                    return Err(ActionRefused::new(
                        "reason",
                        format!("not an end reason; one of {}", known.join(", ")),
                    ));
                };
                if !operator_reasons(&rules).contains(reason) {
                    return Err(ActionRefused::new(
                        "reason",
                        format!("{} is not an end under {}", reason.code(), rules.name),
                    ));
                }
                if *result == MatchResult::Unfinished {
                    return Err(ActionRefused::new(
                        "result",
                        "* is not a result; one of 1-0, 0-1, 1/2-1/2",
                    ));
                }
                if *result == MatchResult::Draw && !rules.draws {
                    return Err(ActionRefused::new(
                        "result",
                        format!("{} has no draws", rules.name),
                    ));
                }
                if !fits(*reason, *result) {
                    return Err(ActionRefused::new(
                        "result",
                        format!("{} does not end a game {}", reason.code(), result.as_str()),
                    ));
                }
                if self.end_reported && !correct {
                    let was = self
                        .game
                        .end()
                        .map(|e| format!(" {} ({})", e.result.as_str(), e.reason.code()))
                        .unwrap_or_default();
                    return Err(ActionRefused::new(
                        "correct",
                        format!(
                            "the game has already ended{was}; send \"correct\": true to correct its result"
                        ),
                    ));
                }
                Ok(())
            }
            OperatorAction::Promotion {
                board,
                number,
                side,
                piece,
            } => {
                let index = self.entry(*board, *number, *side)?;
                if self.record[index].mv.promotion().is_none() {
                    return Err(ActionRefused::new(
                        "number",
                        format!(
                            "{} of {} on board {board} is not a promotion",
                            self.record[index].san,
                            seat_name(*board, *side)
                        ),
                    ));
                }
                if *piece == Role::King
                    || *piece == Role::Pawn
                    || !rules.promotion_pieces.contains(*piece)
                {
                    return Err(ActionRefused::new(
                        "piece",
                        format!("{} may not promote to {piece:?}", rules.name),
                    ));
                }
                Ok(())
            }
            OperatorAction::Replace {
                board,
                number,
                side,
                san,
            } => {
                let index = self.entry(*board, *number, *side)?;
                let parsed = San::from_str(san)
                    .map_err(|e| ActionRefused::new("san", format!("{san:?} is not SAN: {e}")))?;
                let mut game = self.start.clone();
                for e in &self.record[..index] {
                    game.play_classified(e.board, &e.mv, e.legality, e.t);
                }
                let pos = game.board(*board);
                let mv = parsed.to_move_for(pos, *side).map_err(|e| {
                    ActionRefused::new(
                        "san",
                        format!(
                            "{san} for {} at move {number} on board {board}: {e}",
                            seat_name(*board, *side)
                        ),
                    )
                })?;
                // The record keeps illegal moves as played: one illegal move may be
                // corrected into another, but a legal record is not made illegal.
                if let Legality::Illegal(why) = pos.classify(&mv)
                    && self.record[index].legality.is_legal()
                {
                    return Err(ActionRefused::new(
                        "san",
                        format!(
                            "{san} is illegal for {} at move {number} on board {board} ({why})",
                            seat_name(*board, *side),
                        ),
                    ));
                }
                Ok(())
            }
            OperatorAction::Fill {
                board,
                moves,
                first,
            } => {
                if moves.is_empty() {
                    return Err(ActionRefused::new("moves", "no move given"));
                }
                let track = &self.tracks[*board];
                if track.gap.is_none() && track.last_gap.is_none() {
                    return Err(ActionRefused::new(
                        "board",
                        format!("board {board} has no link gap to fill"),
                    ));
                }
                if let (Some((number, side)), Some((n, s))) = (*first, self.fill_starts_at(*board))
                    && (number, side) != (n, s)
                {
                    return Err(ActionRefused::new(
                        "number",
                        format!(
                            "board {board}'s gap begins with move {n} of {}, not {number} of {}: the record has changed since",
                            s.name(),
                            side.name()
                        ),
                    ));
                }
                // The fill itself decides what fits the gap: tried on a copy.
                let mut probe = self.clone();
                let mut out = Vec::new();
                probe.operator_fill(t, *board, moves, &mut out);
                if out
                    .iter()
                    .any(|i| matches!(i, Inference::Move { .. } | Inference::Correction(_)))
                {
                    Ok(())
                } else {
                    Err(ActionRefused::new(
                        "moves",
                        format!(
                            "{} is not a legal sequence of board {board}'s gap from the position before it (or changes nothing)",
                            moves.join(" ")
                        ),
                    ))
                }
            }
        }
    }

    fn entry(&self, board: BoardId, number: u32, side: Color) -> Result<usize, ActionRefused> {
        self.record
            .iter()
            .position(|e| e.board == board && e.number == number && e.side == side)
            .ok_or_else(|| {
                ActionRefused::new(
                    "number",
                    format!(
                        "{} has no move {number} on board {board}",
                        seat_name(board, side)
                    ),
                )
            })
    }

    /// The arbiter recorded a result: the end of the game, or, once it has ended and the
    /// action says `correct`, the corrected result.
    pub(crate) fn operator_result(
        &mut self,
        t: u64,
        result: MatchResult,
        reason: Option<EndReason>,
        correct: bool,
        out: &mut Vec<Inference>,
    ) {
        let reason_or = reason.unwrap_or(EndReason::Aborted);
        let end = GameEnd {
            board: None,
            result,
            reason: reason_or,
            loser: None,
            t: Some(t),
        };
        if self.end_reported {
            if !correct {
                // Refused by the check; an old journal's second result changes nothing.
                return;
            }
            self.game.correct_end(end);
            out.push(Inference::ResultCorrection {
                t,
                result,
                reason,
                detail: format!(
                    "result corrected by the arbiter to {} ({})",
                    result.as_str(),
                    reason_or.code()
                ),
            });
            return;
        }
        self.game.record_end(end);
        self.end_game(
            t,
            end,
            format!("{} recorded by the arbiter", reason_or.code()),
            out,
        );
        if let Some(Inference::End { reason: r, .. }) = out.last_mut() {
            *r = reason;
        }
    }
}
