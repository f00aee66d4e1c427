//! Drops the arbiter may enter from a hand the record does not know in full.
//!
//! The record's hand holds what the captures it recorded gave, each piece of open kind as
//! its placeholder: a "knight" taken where a drop in doubt (a knight or a rook) stood may
//! be the rook its player drops now, and a partner board that stalled may have captured
//! anything meanwhile. The board shows the drop (one square filled), not its kind; the
//! arbiter sees the piece. So a stalled board's readings take drops of every kind such a
//! hand may give (`feed/stall_choices.rs`), and the arbiter's fill is entered with them
//! (`feed/fill.rs`, `resume.rs`): the record then fits its placeholders to the drop (the
//! captured drop settled a rook, `feed/consistent.rs`), or the drop waits for the partner
//! board's capture (`infer/unread.rs`). A hand whose pieces are all known drops only them.
//! Readings of the partner board kept side by side (a capture whose victim it did not tell,
//! `speculate.rs`) take the arbiter's drop only from their own hands: the capture that
//! gave another piece than the one dropped did not happen (random 625 of the clicks: a pawn
//! dropped on B left `Nxa8` on A standing beside `Nxd7`, and the wrong one was taken).

use crate::rules::{BoardId, Color, Position};

use super::{DROP_KINDS, OccupancyInference};

impl OccupancyInference {
    /// `pos`, a position of `board`, with one piece of every kind a drop may be added to
    /// each hand of `board` whose pieces are not all known (see the module's doc).
    pub(super) fn with_open_hands(&self, board: BoardId, pos: &Position) -> Position {
        let mut any = pos.clone();
        for color in [Color::White, Color::Black] {
            if self.hand_open(board, color) {
                for role in DROP_KINDS {
                    any.pockets_mut()[color].add(role);
                }
            }
        }
        any
    }

    /// `pos`, a position of `board`, with each hand of `board` holding at least what this
    /// reading's own game gives it: a side-by-side reading takes a drop the record's hand
    /// lacks only from its own captures (see `speculate.rs`).
    pub(super) fn with_own_hands(&self, board: BoardId, pos: &Position) -> Position {
        let mut own = pos.clone();
        let mine = *self.game.board(board).pockets();
        for color in [Color::White, Color::Black] {
            for role in DROP_KINDS {
                while own.pockets()[color].count(role) < mine[color].count(role) {
                    own.pockets_mut()[color].add(role);
                }
            }
        }
        own
    }

    /// Whether `color`'s hand on `board` may hold pieces the record's does not: it is not
    /// known (see [`OccupancyInference::hand_unknown`]), or the partner board shows a
    /// capture not final yet, whose piece goes to the hand of its colour here.
    fn hand_open(&self, board: BoardId, color: Color) -> bool {
        let other = board.other();
        self.hand_unknown(board, color)
            || self.watch[other].open.as_ref().is_some_and(|(m, _, _)| {
                let pos = self.game.board(other);
                m.is_capture() && pos.turn() != color
            })
    }
}
