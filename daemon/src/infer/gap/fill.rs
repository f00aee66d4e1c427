//! The arbiter's `fill`: the moves a board played while its link was down, as the arbiter
//! saw them. Into an open gap they are committed like a bridged sequence (flagged
//! reconstructed, timed from the clocks, the other board's pending drops settled); after
//! a bridged gap they replace its plies (picking an alternative of a `gap-ambiguous`
//! alert). Either way a correction tells viewers that the record changed. A list that is
//! not a legal sequence from the position before the gap changes nothing.

use crate::rules::notation::legal_sequence;
use crate::rules::{BoardId, Color, IllegalReason, Legality, Move, Piece};

use super::super::Inferrer;
use super::super::board_track::PendingPress;
use super::super::matcher::{self, Explanation};
use super::super::output::{Correction, CorrectionKind, Inference, MoveFlags};
use super::bridge::BridgeAt;
use super::timing::ClockMark;
use super::{Gap, LastGap};

impl Inferrer {
    pub(crate) fn operator_fill(
        &mut self,
        t: u64,
        board: BoardId,
        moves: &[String],
        out: &mut Vec<Inference>,
    ) {
        if moves.is_empty() {
            return;
        }
        if self.tracks[board].gap.is_some() {
            self.fill_open_gap(t, board, moves, out);
        } else {
            self.pick_gap_alternative(t, board, moves, out);
        }
    }

    /// The move number and side of the first ply a fill of `board` enters: the board's
    /// next move when its gap is open, else the first ply of its last gap.
    pub(crate) fn fill_starts_at(&self, board: BoardId) -> Option<(u32, Color)> {
        let track = &self.tracks[board];
        if track.gap.is_some() {
            let side = self.game.board(board).turn();
            return Some((track.moves_made[side].saturating_add(1), side));
        }
        track.last_gap.map(|last| (last.number, last.side))
    }

    fn fill_open_gap(
        &mut self,
        t: u64,
        board: BoardId,
        moves: &[String],
        out: &mut Vec<Inference>,
    ) {
        let Ok(seq) = legal_sequence(self.game.board(board).clone(), moves) else {
            return;
        };
        let track = &self.tracks[board];
        let at = BridgeAt {
            end: ClockMark {
                t,
                readings: track.readings,
            },
            running: track.running,
            pressed: None,
            settle: true,
        };
        let times = self.gap_times(board, &seq, at);
        let flags = MoveFlags {
            gap_inferred: true,
            ..MoveFlags::default()
        };
        self.commit_gap(board, &seq, &times, flags, out);
        let track = &self.tracks[board];
        if matcher::diff(self.game.board(board), &track.physical).any() {
            // The board has gone on since: the gap stays open from the filled position
            // (already alerted) and the next reading bridges the rest.
            let gap = Gap::reopened(
                ClockMark {
                    t,
                    readings: track.readings,
                },
                track.running,
                t,
                self.record.len(),
            );
            self.tracks[board].gap = Some(gap);
        }
        let Some(last) = self.tracks[board].last_gap else {
            return;
        };
        let sans: Vec<String> = self
            .gap_entries(board, last)
            .map(|e| e.san.clone())
            .collect();
        let index = self
            .record
            .iter()
            .position(|e| e.board == board && e.side == last.side && e.number == last.number)
            .unwrap_or(0);
        out.push(Inference::Correction(Correction {
            t,
            board,
            side: last.side,
            number: last.number,
            index,
            kind: CorrectionKind::Fill,
            old_san: String::new(),
            new_san: sans.join(" "),
            detail: format!(
                "board {board}: the arbiter filled the link gap with {}",
                sans.join(" ")
            ),
        }));
    }

    fn pick_gap_alternative(
        &mut self,
        t: u64,
        board: BoardId,
        moves: &[String],
        out: &mut Vec<Inference>,
    ) {
        let Some(last) = self.tracks[board].last_gap else {
            return;
        };
        if moves.len() != last.plies {
            return;
        }
        let Some((first, _)) = self.gap_indices(board, last) else {
            return;
        };
        // The position before the gap's first ply.
        let mut game = self.start.clone();
        for e in &self.record[..first] {
            game.play_classified(e.board, &e.mv, e.legality, e.t);
        }
        let Ok(seq) = legal_sequence(game.board(board).clone(), moves) else {
            return;
        };
        self.switch_gap_sequence(t, board, &seq, out);
        // The arbiter decided: no longer ambiguous.
        if let Some((_, indices)) = self.gap_indices(board, last) {
            for i in indices {
                self.record[i].flags.gap_ambiguous = false;
            }
        }
        self.tracks[board].gap_alternatives.clear();
    }

    /// The record indices of the plies of a board's last gap (first, all).
    pub(crate) fn gap_indices(&self, board: BoardId, last: LastGap) -> Option<(usize, Vec<usize>)> {
        let keys: Vec<(Color, u32)> = self
            .gap_entries(board, last)
            .map(|e| (e.side, e.number))
            .collect();
        let indices: Vec<usize> = self
            .record
            .iter()
            .enumerate()
            .filter(|(_, e)| e.board == board && keys.contains(&(e.side, e.number)))
            .map(|(i, _)| i)
            .collect();
        Some((*indices.first()?, indices))
    }

    /// Replaces the plies of `board`'s last gap by `seq` (as long), with a correction for
    /// each ply that changes; the sequence it replaces becomes an alternative.
    pub(crate) fn switch_gap_sequence(
        &mut self,
        t: u64,
        board: BoardId,
        seq: &[Move],
        out: &mut Vec<Inference>,
    ) {
        let Some(last) = self.tracks[board].last_gap else {
            return;
        };
        let Some((_, indices)) = self.gap_indices(board, last) else {
            return;
        };
        if indices.len() != seq.len() {
            return;
        }
        let old: Vec<Move> = indices.iter().map(|&i| self.record[i].mv).collect();
        for (&i, mv) in indices.iter().zip(seq) {
            if self.record[i].mv != *mv {
                self.replace_entry(t, i, *mv, CorrectionKind::Replace, out);
            }
        }
        self.place_gap_drop_after_supply(board);
        let alternatives = &mut self.tracks[board].gap_alternatives;
        alternatives.retain(|a| a.as_slice() != seq);
        alternatives.push(old);
    }

    /// A drop of `board`'s last gap that its estimated time puts before the other board's
    /// capture supplying it was made after that capture: it moves to just after it, with
    /// that capture's time, when only the other board's moves lie between.
    fn place_gap_drop_after_supply(&mut self, board: BoardId) {
        let Some(last) = self.tracks[board].last_gap else {
            return;
        };
        let Some((_, indices)) = self.gap_indices(board, last) else {
            return;
        };
        let not_in_hand = Legality::Illegal(IllegalReason::DropNotInHand);
        let mut game = self.start.clone();
        let mut unsupplied = None;
        for (i, e) in self.record.iter().enumerate() {
            if indices.contains(&i) && game.board(e.board).classify(&e.mv) == not_in_hand {
                unsupplied = Some(i);
                break;
            }
            game.play_classified(e.board, &e.mv, e.legality, e.t);
        }
        let Some(i) = unsupplied else {
            return;
        };
        let drop = self.record[i].mv;
        let mut supply = None;
        for k in i + 1..self.record.len() {
            let e = &self.record[k];
            if e.board == board {
                break;
            }
            game.play_classified(e.board, &e.mv, e.legality, e.t);
            if game.board(board).classify(&drop) != not_in_hand {
                supply = Some(k);
                break;
            }
        }
        let Some(k) = supply else {
            return;
        };
        let mut entry = self.record.remove(i);
        entry.t = entry.t.max(self.record[k - 1].t);
        entry.legality = game.board(board).classify(&drop);
        self.record.insert(k, entry);
        self.replay_record();
    }

    /// A press on `board` whose board no legal move explains from the record: if the
    /// board's last gap has alternatives under one of which a legal move explains it, that
    /// alternative was what happened. It replaces the recorded one (each changed ply
    /// published as a correction) and the move it explains is returned. Nothing changes
    /// when none does: the alert then is not the committed alternative's alone.
    pub(crate) fn settle_gap_by_move(
        &mut self,
        board: BoardId,
        p: PendingPress,
        out: &mut Vec<Inference>,
    ) -> Option<Explanation> {
        let last = self.tracks[board].last_gap?;
        let mut alternatives = self.tracks[board].gap_alternatives.clone();
        if alternatives.is_empty() {
            return None;
        }
        let (_, indices) = self.gap_indices(board, last)?;
        let chosen: Vec<Move> = indices.iter().map(|&i| self.record[i].mv).collect();
        closest_first(&chosen, &mut alternatives);
        for alt in alternatives {
            let mut trial = Vec::new();
            self.switch_gap_sequence(p.t, board, &alt, &mut trial);
            let found = self.explain_press(board, p.by);
            if let Some(exp) = found
                && exp.legality.is_legal()
            {
                out.extend(trial);
                return Some(exp);
            }
            self.switch_gap_sequence(p.t, board, &chosen, &mut Vec::new());
        }
        None
    }

    /// A drop on `board` of a piece not in hand: if an alternative of a bridged gap's
    /// sequence would have put it in hand (the other board's gap capturing it instead of
    /// another piece, or this board's gap dropping another piece), that alternative was
    /// what happened: it replaces the recorded one. Returns whether it did.
    pub(crate) fn switch_gap_for_drop(
        &mut self,
        t: u64,
        board: BoardId,
        piece: Piece,
        out: &mut Vec<Inference>,
    ) -> bool {
        for g in [board.other(), board] {
            let Some(last) = self.tracks[g].last_gap else {
                continue;
            };
            if self.tracks[g].gap_alternatives.is_empty() {
                continue;
            }
            let Some((first, indices)) = self.gap_indices(g, last) else {
                continue;
            };
            let chosen: Vec<Move> = indices.iter().map(|&i| self.record[i].mv).collect();
            let mut game = self.start.clone();
            for e in &self.record[..first] {
                game.play_classified(e.board, &e.mv, e.legality, e.t);
            }
            let before = game.board(g).clone();
            let gain = |seq: &[Move]| -> i32 {
                let mut pos = before.clone();
                let mut n = 0;
                for m in seq {
                    let mover = pos.mover(m);
                    if g == board && *m == (Move::Drop { piece, to: m.to() }) {
                        n -= 1;
                    }
                    if let Some(c) = pos.play(m).captured
                        && g != board
                        && c.handoff_role() == piece.role
                        && mover.other() == piece.color
                    {
                        n += 1;
                    }
                }
                n
            };
            let base = gain(&chosen);
            let mut alternatives = self.tracks[g].gap_alternatives.clone();
            closest_first(&chosen, &mut alternatives);
            let unsupplied = self.drops_unsupplied(&indices, &chosen);
            let better = alternatives
                .into_iter()
                .find(|a| gain(a) > base && self.drops_unsupplied(&indices, a) <= unsupplied);
            if let Some(alt) = better {
                self.switch_gap_sequence(t, g, &alt, out);
                return true;
            }
        }
        false
    }
}

impl Inferrer {
    /// How many drops of the record, other than the gap's own plies at `indices`, find no
    /// piece in hand when those plies are `seq`: an alternative that supplies one drop
    /// must not take the piece of another already recorded.
    fn drops_unsupplied(&self, indices: &[usize], seq: &[Move]) -> usize {
        let mut game = self.start.clone();
        let mut n = 0;
        for (i, e) in self.record.iter().enumerate() {
            let mv = indices
                .iter()
                .position(|&k| k == i)
                .and_then(|k| seq.get(k))
                .unwrap_or(&e.mv);
            // The gap's own plies were found legal where they stand in the gap.
            if !indices.contains(&i)
                && game.board(e.board).classify(mv)
                    == Legality::Illegal(IllegalReason::DropNotInHand)
            {
                n += 1;
            }
            game.play_classified(e.board, mv, e.legality, e.t);
        }
        n
    }
}

/// Orders `alternatives` by how few of their plies differ from `chosen` (stable): the
/// committed sequence was the most plausible, so evidence against one of its plies
/// changes that ply and keeps the others (a drop a hand was seen making, say).
fn closest_first(chosen: &[Move], alternatives: &mut [Vec<Move>]) {
    alternatives.sort_by_key(|a| {
        a.iter().zip(chosen).filter(|(x, y)| x != y).count() + a.len().abs_diff(chosen.len())
    });
}
