//! The presses a bridged gap may still owe.
//!
//! A gap bridged between presses (at a periodic reading, or when the grace ran out) is
//! explained by plies that leave the side whose clock runs to move. That is what the
//! board shows when every ply was pressed, but also when the last two were not: a move
//! made without pressing, and the opponent's reply made on the board before that press
//! (a premove). The clock cannot tell the two apart at link-up; the presses that follow
//! do. When the side to move presses while the board shows no move of his, the press is
//! the one his gap ply still owed: its reading (now known exactly) is recorded for that
//! ply, and the opponent's press that follows completes the reply the same way. Read as
//! presses of new moves instead, they would be clock presses without a move, and every
//! later move would be judged out of turn.

use crate::rules::{BoardId, ByColor, Color};

use super::super::Inferrer;
use super::super::board_track::Track;
use super::super::matcher;

impl Inferrer {
    /// A press by `by` on `board`: if it is the press a gap ply still owed, records its
    /// reading for that ply and returns `true` (nothing else to do).
    pub(crate) fn owed_press(
        &mut self,
        board: BoardId,
        by: Color,
        readings: Option<ByColor<f64>>,
    ) -> bool {
        let track = &self.tracks[board];
        let Some(&(side, number)) = track.owed_presses.first() else {
            return false;
        };
        if side != by || track.pending.is_some() || track.awaiting_snapshot {
            self.tracks[board].owed_presses.clear();
            return false;
        }
        let pos = self.game.board(board);
        if matcher::diff(pos, &track.physical).any()
            && matcher::explain_with(
                pos,
                &track.physical,
                by,
                &track.lifts,
                &mut self.scratch,
                false,
                track.missing_ok,
            )
            .is_some()
        {
            // A new move of his: the gap owed nothing.
            self.tracks[board].owed_presses.clear();
            return false;
        }
        self.tracks[board].owed_presses.remove(0);
        if let Some(e) = self
            .record
            .iter_mut()
            .rev()
            .find(|e| e.board == board && e.side == side && e.number == number)
            && let Some(clock) = Track::reading(readings, side)
        {
            e.clock = Some(clock);
            e.flags.time_estimated = false;
        }
        true
    }
}

impl Inferrer {
    /// After a gap bridged without a press: its last two plies may still owe theirs.
    pub(crate) fn owe_last_presses(&mut self, board: BoardId) {
        let Some(last) = self.tracks[board].last_gap else {
            return;
        };
        let keys: Vec<(Color, u32)> = self
            .gap_entries(board, last)
            .map(|e| (e.side, e.number))
            .collect();
        self.tracks[board].owed_presses = if keys.len() >= 2 {
            keys[keys.len() - 2..].to_vec()
        } else {
            Vec::new()
        };
    }
}
