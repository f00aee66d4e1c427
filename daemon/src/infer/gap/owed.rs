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

use super::super::output::{Correction, CorrectionKind, Inference, MoveFlags, RecordEntry};
use super::Gap;
use super::timing::{ClockMark, PressTime};

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
        t: u64,
        readings: Option<ByColor<f64>>,
        out: &mut Vec<Inference>,
    ) -> bool {
        let track = &self.tracks[board];
        let Some(&(side, number)) = track.owed_presses.first() else {
            return false;
        };
        if side != by || track.pending.is_some() || track.awaiting_snapshot {
            let track = &mut self.tracks[board];
            track.owed_presses.clear();
            track.owed_paid = None;
            track.gap_longer.clear();
            return false;
        }
        if matcher::diff(self.game.board(board), &track.physical).any()
            && self.explain_press(board, by).is_some()
        {
            // A new move of his: the gap owed nothing more. When the other side's press
            // was taken as owed already, the gap was one ply longer: that press was for
            // its last ply, made but not pressed when the gap was bridged.
            if self.tracks[board].owed_paid.is_some() {
                self.settle_gap_longer(board, out);
            }
            let track = &mut self.tracks[board];
            track.owed_presses.clear();
            track.owed_paid = None;
            track.gap_longer.clear();
            return false;
        }
        let track = &mut self.tracks[board];
        if track.owed_presses.len() == 2 {
            track.owed_paid = Some((t, readings));
        } else {
            track.owed_paid = None;
            track.gap_longer.clear();
        }
        track.owed_presses.remove(0);
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

impl Inferrer {
    /// The gap last bridged between presses was its one-ply-longer reading (see
    /// [`Track::gap_longer`]): its plies are replaced by those, the last timed at the press
    /// that was taken as owed, and one correction says so.
    fn settle_gap_longer(&mut self, board: BoardId, out: &mut Vec<Inference>) {
        let track = &self.tracks[board];
        let (Some(last), Some((paid_t, paid_readings))) = (track.last_gap, track.owed_paid) else {
            return;
        };
        let mut longer = track.gap_longer.clone();
        if longer.is_empty() {
            return;
        }
        let Some((first, indices)) = self.gap_indices(board, last) else {
            return;
        };
        let old: Vec<RecordEntry> = indices.iter().map(|&i| self.record[i].clone()).collect();
        for &i in indices.iter().rev() {
            let e = self.record.remove(i);
            let made = &mut self.tracks[board].moves_made[e.side];
            *made = made.saturating_sub(1);
        }
        let record = std::mem::take(&mut self.record);
        self.game = self.start.clone();
        self.debts = Default::default();
        for mut e in record {
            e.handoff = self.apply(&e).1;
            self.record.push(e);
        }
        let chosen = longer.remove(0);
        let mut times: Vec<PressTime> = old
            .iter()
            .map(|e| PressTime {
                t: e.t,
                clock: e.clock,
                exact: false,
            })
            .collect();
        let pos = self.game.board(board);
        let last_mover = {
            let mut p = pos.clone();
            let mut mover = p.turn();
            for m in &chosen {
                mover = p.mover(m);
                p.play(m);
            }
            mover
        };
        times.truncate(chosen.len().saturating_sub(1));
        times.push(PressTime {
            t: paid_t,
            clock: Track::reading(paid_readings, last_mover),
            exact: paid_readings.is_some(),
        });
        let down_t = old.first().map_or(paid_t, |e| e.t);
        self.tracks[board].gap = Some(Gap::reopened(
            ClockMark {
                t: down_t,
                readings: None,
            },
            None,
            down_t,
            first,
        ));
        let flags = MoveFlags {
            gap_inferred: true,
            gap_ambiguous: !longer.is_empty(),
            ..MoveFlags::default()
        };
        let mut decided = Vec::new();
        self.commit_gap(board, &chosen, &times, flags, &mut decided);
        self.tracks[board].gap_alternatives = longer;
        // The plies were published once: the change is one correction, not new moves.
        out.extend(
            decided
                .into_iter()
                .filter(|i| !matches!(i, Inference::Move { .. })),
        );
        let old_sans: Vec<String> = old.iter().map(|e| e.san.clone()).collect();
        let new_sans: Vec<String> = self.tracks[board]
            .last_gap
            .map(|l| self.gap_entries(board, l).map(|e| e.san.clone()).collect())
            .unwrap_or_default();
        let (side, number) = old
            .first()
            .map_or((Color::White, 0), |e| (e.side, e.number));
        out.push(Inference::Correction(Correction {
            t: paid_t,
            board,
            side,
            number,
            index: first,
            kind: CorrectionKind::GapSettled,
            old_san: old_sans.join(" "),
            new_san: new_sans.join(" "),
            detail: format!(
                "board {board}: the presses after the link gap show its plies were {}, not {}",
                new_sans.join(" "),
                old_sans.join(" ")
            ),
        }));
    }
}
