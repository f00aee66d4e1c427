//! Commits without a clock press after a link loss: the resync snapshot differs from the
//! game while the clock shows no press.

use crate::rules::{BoardId, Color, Position};

use super::Inferrer;
use super::engine::Completion;
use super::matcher::{self, Explanation};
use super::output::{Alert, AlertCode, Inference, MoveFlags};

impl Inferrer {
    /// After a resync: the first clock reading shows no press, yet the snapshot differs
    /// from the game. Two plies (a move and its reply, both pressed in the gap) are taken
    /// when they explain the snapshot exactly; anything else is alerted.
    pub(crate) fn infer_gap(&mut self, t: u64, board: BoardId, out: &mut Vec<Inference>) {
        let pos = self.game.board(board);
        let physical = self.tracks[board].physical;
        if matcher::diff(pos, &physical).is_empty() {
            return;
        }
        let turn = pos.turn();
        if matcher::looks_unfinished(pos, &physical, turn) {
            return;
        }
        let seq = self.exact_sequence(board);
        if seq.len() == 2 {
            let readings = self.tracks[board].readings;
            let flags = MoveFlags {
                gap_inferred: true,
                ..MoveFlags::default()
            };
            let done = Completion {
                t,
                readings,
                flags,
                presser: None,
                held_at_press: false,
            };
            for (exp, _) in seq {
                self.commit_explained(board, exp, done, out);
            }
            return;
        }
        if seq.len() == 1 {
            // One move explains it but no press came: it is the work in progress of the
            // side to move; its press will complete it.
            return;
        }
        out.push(Inference::Alert(Alert::about_board(t, board, AlertCode::UnrecognizedPosition, format!(
                "board {board}: after the link came back the board matches no continuation of the game; waiting for it to match"
            ))));
    }

    /// One move of the side to move (legal or not), or a legal move and a legal reply,
    /// giving exactly the physical placement; empty when nothing fits or two pairs do.
    fn exact_sequence(&mut self, board: BoardId) -> Vec<(Explanation, Color)> {
        let pos = self.game.board(board).clone();
        let physical = self.tracks[board].physical;
        let d = matcher::diff(&pos, &physical);
        if d.is_empty() {
            return Vec::new();
        }
        let turn = pos.turn();
        let lifts = self.tracks[board].lifts.clone();
        if let Some(e) = matcher::explain(&pos, &physical, turn, &lifts, &mut self.scratch, true) {
            return vec![(e, turn)];
        }
        // Two plies: the side to move, then the reply.
        matcher::candidates(&pos, &physical, turn, d, &lifts, &mut self.scratch);
        let firsts: Vec<_> = self.scratch.clone();
        let mut found = Vec::new();
        for m in firsts {
            let mv = pos.normalize(&m);
            if !pos.classify(&mv).is_legal() {
                continue;
            }
            let mut after: Position = pos.clone();
            after.play(&mv);
            if let Some(e2) = matcher::explain(
                &after,
                &physical,
                turn.other(),
                &[],
                &mut self.scratch,
                true,
            ) {
                if e2.mover != turn.other() || !e2.legality.is_legal() {
                    continue;
                }
                let e1 = Explanation {
                    mv,
                    mover: turn,
                    legality: crate::rules::Legality::Legal,
                    residual: matcher::diff(&after, &physical),
                    promotion_not_shown: false,
                };
                found.push(((e1, turn), (e2, turn.other())));
                if found.len() > 1 {
                    break;
                }
            }
        }
        match found.as_slice() {
            [(a, b)] => vec![*a, *b],
            _ => Vec::new(),
        }
    }
}
