//! The arbiter's `fill`: the moves a board played while its link was down, as the arbiter
//! saw them. Into an open gap they are committed like a bridged sequence (flagged
//! reconstructed, timed from the clocks, the other board's pending drops settled); after
//! a bridged gap they replace its plies (picking an alternative of a `gap-ambiguous`
//! alert). Either way a correction tells viewers that the record changed. A list that is
//! not a legal sequence from the position before the gap changes nothing.

use std::str::FromStr;

use crate::rules::notation::San;
use crate::rules::{BoardId, Move, Position};

use super::super::Inferrer;
use super::super::output::{Correction, CorrectionKind, Inference, MoveFlags};
use super::bridge::BridgeAt;
use super::timing::ClockMark;

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

    fn fill_open_gap(
        &mut self,
        t: u64,
        board: BoardId,
        moves: &[String],
        out: &mut Vec<Inference>,
    ) {
        let Some(seq) = parse_sequence(self.game.board(board).clone(), moves) else {
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
        };
        let times = self.gap_times(board, &seq, at);
        let flags = MoveFlags {
            gap_inferred: true,
            ..MoveFlags::default()
        };
        self.commit_gap(board, &seq, &times, flags, out);
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
        let indices: Vec<usize> = self
            .record
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                self.gap_entries(board, last)
                    .any(|g| (g.side, g.number) == (e.side, e.number) && e.board == board)
            })
            .map(|(i, _)| i)
            .collect();
        let Some(&first) = indices.first() else {
            return;
        };
        // The position before the gap's first ply.
        let mut game = self.start.clone();
        for e in &self.record[..first] {
            game.play_classified(e.board, &e.mv, e.legality, e.t);
        }
        let Some(seq) = parse_sequence(game.board(board).clone(), moves) else {
            return;
        };
        for (&i, mv) in indices.iter().zip(&seq) {
            if self.record[i].mv != *mv {
                self.replace_entry(t, i, *mv, CorrectionKind::Replace, out);
            }
        }
        for &i in &indices {
            self.record[i].flags.gap_ambiguous = false;
        }
    }
}

/// The moves of `sans` played in turn from `pos`, when every one is legal.
fn parse_sequence(mut pos: Position, sans: &[String]) -> Option<Vec<Move>> {
    let mut seq = Vec::with_capacity(sans.len());
    for text in sans {
        let san = San::from_str(text.trim()).ok()?;
        let mv = san.to_move_for(&pos, pos.turn()).ok()?;
        if !pos.classify(&mv).is_legal() {
            return None;
        }
        let mv = pos.normalize(&mv);
        pos.play(&mv);
        seq.push(mv);
    }
    Some(seq)
}
