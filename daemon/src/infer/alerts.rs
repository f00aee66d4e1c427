//! What the arbiter is told beyond illegal moves: a press that nothing explains (a clock
//! without a move, a board that matches nothing, a takeback), pieces gone from the board,
//! boards and holdings that are not two full sets, and squares that stay different from
//! the game across presses.

use crate::rules::{BoardId, MaterialMismatch};

use super::Inferrer;
use super::board_track::PendingPress;
use super::engine::Completion;
use super::matcher;
use super::output::{Alert, AlertCode, Inference, MoveFlags};

impl Inferrer {
    /// The board was set back to an earlier position of the game (a takeback of one or
    /// more plies, case 20/21). A completed move stands in bughouse (`rules.md` §5), so it
    /// is not popped: the arbiter is told, and the inference waits for the board to match
    /// the game again (or for an operator's correction). Returns whether it is one.
    pub(crate) fn takeback(&mut self, board: BoardId, t: u64, out: &mut Vec<Inference>) -> bool {
        let track = &self.tracks[board];
        let plies = track
            .history
            .iter()
            .rev()
            .position(|p| matcher::diff(p, &track.physical).is_empty());
        let Some(k) = plies else {
            return false;
        };
        if !track.takeback_alerted {
            self.tracks[board].takeback_alerted = true;
            let back = k + 1;
            let detail = format!(
                "board {board}: the board was set back {back} ply(s) (a takeback); completed moves stand, the game continues from the recorded position once the board matches it (a captured piece given back must come from the partner's holdings)"
            );
            out.push(Inference::Alert(Alert::about_board(
                t,
                board,
                AlertCode::UnrecognizedPosition,
                detail,
            )));
        }
        true
    }

    pub(crate) fn alert_pending(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        let Some(mut p) = self.tracks[board].pending else {
            return;
        };
        p.alerted = true;
        self.tracks[board].pending = Some(p);
        if self.commit_with_missing_pieces(board, p, out) {
            return;
        }
        let pos = self.game.board(board);
        let physical = &self.tracks[board].physical;
        if matcher::diff(pos, physical).is_empty() || matcher::looks_unfinished(pos, physical, p.by)
        {
            self.alert_no_move(board, p, out);
        } else {
            let squares: Vec<String> = matcher::diff(pos, physical)
                .into_iter()
                .map(|s| s.to_string())
                .collect();
            out.push(Inference::Alert(Alert {
                t: p.t.max(p.deadline),
                board: Some(board),
                code: AlertCode::UnrecognizedPosition,
                reason: None,
                number: None,
                side: Some(p.by),
                san: None,
                detail: format!(
                    "board {board}: {} pressed the clock but the board matches no move (squares {}); waiting for it to match",
                    p.by,
                    squares.join(" ")
                ),
                choices: Vec::new(),
            }));
        }
    }

    /// The press still waits after the grace: if a move explains the board once pieces
    /// missing from it are taken as gone (hidden, taken off), that is what happened: the
    /// move is committed at its press and the missing pieces are alerted as a material
    /// mismatch, once.
    pub(crate) fn commit_with_missing_pieces(
        &mut self,
        board: BoardId,
        p: PendingPress,
        out: &mut Vec<Inference>,
    ) -> bool {
        let pos = self.game.board(board);
        let track = &self.tracks[board];
        let gone = matcher::missing(pos, &track.physical) | track.missing_ok;
        let Some(exp) = matcher::explain_with(
            pos,
            &track.physical,
            p.by,
            &track.lifts,
            &mut self.scratch,
            false,
            gone,
        ) else {
            return false;
        };
        // Only a legal move with pieces gone; a board set back is a takeback, not this.
        if !exp.legality.is_legal() {
            return false;
        }
        let mut after = pos.clone();
        after.play(&exp.mv);
        let newly = (exp.residual & matcher::missing(&after, &track.physical)) - track.missing_ok;
        if newly.is_empty() {
            // Nothing is missing: the press was not waiting for a hidden piece.
            return false;
        }
        self.tracks[board].missing_ok |= newly;
        self.tracks[board].pending = None;
        let squares: Vec<String> = newly.into_iter().map(|s| s.to_string()).collect();
        out.push(Inference::Alert(Alert::about_board(
            p.deadline,
            board,
            AlertCode::MaterialMismatch,
            format!(
                "board {board}: a piece is missing from {} (hidden or taken off the board)",
                squares.join(" ")
            ),
        )));
        let done = Completion {
            t: p.t,
            readings: p.readings,
            flags: MoveFlags {
                late_put: true,
                ..MoveFlags::default()
            },
            presser: Some(p.by),
            held_at_press: false,
        };
        self.commit_explained(board, exp, done, out);
        true
    }

    pub(crate) fn alert_no_move(
        &mut self,
        board: BoardId,
        p: PendingPress,
        out: &mut Vec<Inference>,
    ) {
        out.push(Inference::Alert(Alert {
            t: p.t,
            board: Some(board),
            code: AlertCode::ClockWithoutMove,
            reason: None,
            number: None,
            side: Some(p.by),
            san: None,
            detail: format!(
                "board {board}: {} pressed the clock without a completed move",
                p.by
            ),
            choices: Vec::new(),
        }));
    }

    pub(crate) fn audit(&mut self, t: u64, board: Option<BoardId>, out: &mut Vec<Inference>) {
        match self.game.material_audit() {
            Ok(()) => self.last_mismatch = None,
            // A premature drop's piece is counted once on the board and once where the
            // pending capture still shows it: not a mismatch until that capture settles.
            Err(m) if self.debts_explain(&m) => self.last_mismatch = None,
            Err(m) => {
                if self.last_mismatch.as_ref() != Some(&m) {
                    out.push(Inference::Alert(Alert {
                        t,
                        board,
                        code: AlertCode::MaterialMismatch,
                        reason: None,
                        number: None,
                        side: None,
                        san: None,
                        detail: m.to_string(),
                        choices: Vec::new(),
                    }));
                    self.last_mismatch = Some(m);
                }
            }
        }
    }

    pub(crate) fn debts_explain(&self, m: &MaterialMismatch) -> bool {
        m.differences.iter().all(|&(color, role, have, want)| {
            let owed: usize = BoardId::ALL
                .into_iter()
                .map(|b| self.debts[b][color][role.index()] as usize)
                .sum();
            owed > 0 && have == want + owed
        })
    }

    /// The same squares left over at two commits in a row, showing the same and untouched
    /// in between: not a premove but a discrepancy (a knocked piece left on a neighbouring
    /// square, a piece taken off the board). A square that changed between the two commits
    /// is a hand at work, not a discrepancy: a piece lifted as one move is completed, put
    /// back, and lifted again as the next is (or a tag misread at both moments) shows the
    /// same at both commits without having lain there.
    pub(crate) fn check_discrepancy(
        &mut self,
        board: BoardId,
        t: u64,
        residual: crate::rules::Bitboard,
        out: &mut Vec<Inference>,
    ) {
        let track = &mut self.tracks[board];
        let stuck: crate::rules::Bitboard = (residual
            & (track.residual - track.missing_ok - track.residual_touched))
            .into_iter()
            .filter(|&sq| track.residual_board.piece_at(sq) == track.physical.piece_at(sq))
            .collect();
        track.residual = residual;
        track.residual_board = track.physical;
        track.residual_touched = crate::rules::Bitboard::EMPTY;
        if stuck.is_empty() {
            track.discrepancy_alerted = false;
            return;
        }
        if track.discrepancy_alerted {
            return;
        }
        track.discrepancy_alerted = true;
        let pos = self.game.board(board);
        let missing = pos.board().occupied().count() != track.physical.occupied().count();
        let squares: Vec<String> = stuck.into_iter().map(|s| s.to_string()).collect();
        out.push(Inference::Alert(Alert {
            t,
            board: Some(board),
            code: if missing {
                AlertCode::MaterialMismatch
            } else {
                AlertCode::UnrecognizedPosition
            },
            reason: None,
            number: None,
            side: None,
            san: None,
            detail: format!(
                "board {board}: the board differs from the game on {} since the last move",
                squares.join(" ")
            ),
            choices: Vec::new(),
        }));
    }
}
