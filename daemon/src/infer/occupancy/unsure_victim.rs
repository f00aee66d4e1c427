//! A capture whose victim's lift may have been noise after the capturer was set straight onto
//! another piece it takes.
//!
//! A capturer set straight onto its victim shows only its own square emptying (the victim's
//! square never reads empty). When, after its lift, another piece it could take reads empty
//! and full again, the board shows what a capture of that piece shows (the victim pulled out,
//! the capturer put in its place): a sensor's flicker there (a square read empty for a scan
//! or two) reads like a victim pulled out from under the capturer set over it, and the
//! opponent's j'adoube of that piece, once the capturer is down, like a victim lifted and
//! the capturer put in its place. The board cannot tell which piece was taken: each capture
//! is followed side by side (see `speculate.rs`), later moves tell them apart (the capturer
//! stands on its victim's square in one reading only), and the main reading stalls, said
//! only if no reading is left. With pieces of open kind about, or while other readings run,
//! the captures cannot be followed: the board stalls only where the capture read is the less
//! likely (a flicker-short empty square, or a lift later than a hand holding the capturer
//! reaches), and takes the capture otherwise. A player who holds his piece half a second
//! before he takes is common (a quarter of an outside generator's captures, a board whose
//! host is busy adds its own delay); a flicker or a j'adoube on a piece he could have
//! taken, just after he set his piece straight onto another, is rare.

use crate::rules::{BoardId, Move, Square};

use super::{
    KindNote, OccupancyInference, by_victim, capture_made, capture_squares, captures_from,
    square_names,
};

/// How long after its capturer's lift a hand taking a piece empties the victim's square at
/// the latest (ms): it goes straight from the one to the other. Later, the capturer may have
/// been set down on another victim first, and the square emptied by the opponent's hand
/// (a j'adoube) or by a flicker as a hand passed over it.
const VICTIM_REACH_MS: u64 = 450;

/// How long a square reads empty at most when its sensor flickers (ms): a scan or two. A
/// victim pulled out reads empty until the capturer is put in its place, mostly longer.
const FLICKER_MS: u64 = 100;

/// How long after its capturer's lift a hand may still pull the victim out (ms): players
/// hold the capturer a second or more before taking (an outside generator's captures, the
/// capturer lifted first: half within 0.2 s, 90 % within 1 s, 95 % within 1.5 s). Within
/// it, a victim's square read empty longer than a flicker is the capture; later, it may
/// be the opponent's j'adoube after the capturer was set straight onto another victim.
const HAND_REACH_MS: u64 = 1_500;

/// How much doubt about a capture's victim makes the board hold back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Doubt {
    /// Any: its square emptied later than [`VICTIM_REACH_MS`] after the capturer's lift.
    /// Taken where each capture can be followed side by side (later moves tell them
    /// apart, nothing is lost).
    Any,
    /// Only where the capture read is the less likely: its square read empty no longer
    /// than a flicker ([`FLICKER_MS`]), or emptied later than a hand still holding the
    /// capturer reaches it ([`HAND_REACH_MS`]). Taken where the board would stall: a
    /// player who holds his piece half a second before taking is common, a flicker or a
    /// j'adoube on a piece he could have taken, right after he set his piece straight onto
    /// another, is not.
    Likely,
}

impl OccupancyInference {
    /// Whether `m` (with `note`), a capture just matched on `board`, is not taken because
    /// its victim's lift may have been noise after its piece was set straight onto another
    /// piece it takes (see the module's doc): each capture is followed side by side and
    /// the board stalls (said only if no reading is left), or, when they cannot be
    /// followed, the board stalls.
    pub(super) fn fork_unsure_victim(
        &mut self,
        board: BoardId,
        t: u64,
        (m, note): (&Move, &KindNote),
    ) -> bool {
        let Some(why) = self.unsure_victim(board, m, Doubt::Any) else {
            return false;
        };
        let Some((from, to)) = capture_squares(m) else {
            return false;
        };
        let captures = captures_from(self.game.board(board), from);
        let (_, open_kind) = self.capture_targets(board, from, &captures);
        if open_kind || self.in_fork.is_some() || self.trying || self.speculation.is_some() {
            // The captures it may have made are not known, or cannot be followed here: the
            // board stalls only when the capture read is the less likely (see
            // [`Doubt::Likely`]). A trial reading of a reply cannot tell either: its
            // capture is not ruled out.
            let Some(why) = self.unsure_victim(board, m, Doubt::Likely) else {
                return false;
            };
            *self.doubt.get_mut(board) |= self.trying;
            self.stall_in_doubt(board, why);
            return true;
        }
        let lifted_at = self.watch[board].changes.emptied[from.index()];
        let readings = by_victim(&captures)
            .into_iter()
            .map(|(victim, of_victim)| {
                let (capture, at) = if victim == to {
                    ((*m, note.clone()), t)
                } else {
                    (self.held_capture(&of_victim), lifted_at)
                };
                capture_made(self.clone(), board, capture, at)
            })
            .collect();
        self.fork_from(board, t, readings, false);
        self.defer_stall();
        self.stall_in_doubt(board, why);
        true
    }

    /// Whether `m`, a capture matched on a board where pieces of open kind may not be what
    /// their placeholders are, stalls it because its victim's lift may have been noise
    /// (see the module's doc): the captures cannot be followed side by side there.
    pub(super) fn stall_unsure_victim(&mut self, board: BoardId, m: &Move) -> bool {
        let Some(why) = self.unsure_victim(board, m, Doubt::Likely) else {
            return false;
        };
        self.stall_in_doubt(board, why);
        true
    }

    /// Why the victim of `m`, a capture onto its victim's square, may not be the piece
    /// taken, if it may not: its square emptied later than [`VICTIM_REACH_MS`] after the
    /// capturer's lift (the opponent's hand, or a flicker as it passes), and the capturer
    /// could have been set straight onto another piece (by the shapes of its kinds too,
    /// when its kind is open).
    fn unsure_victim(&self, board: BoardId, m: &Move, doubt: Doubt) -> Option<String> {
        let (from, to) = capture_squares(m)?;
        let c = &self.watch[board].changes;
        let (lifted, up, back) = (
            c.emptied[from.index()],
            c.emptied[to.index()],
            c.filled[to.index()],
        );
        let within_reach = match doubt {
            Doubt::Any => up <= lifted + VICTIM_REACH_MS,
            Doubt::Likely => {
                up <= lifted + VICTIM_REACH_MS
                    || (back.saturating_sub(up) > FLICKER_MS && up <= lifted + HAND_REACH_MS)
            }
        };
        if within_reach {
            return None;
        }
        let captures = captures_from(self.game.board(board), from);
        let mut others: Vec<Square> = self
            .capture_targets(board, from, &captures)
            .0
            .into_iter()
            .filter(|&sq| sq != to)
            .collect();
        others.extend(self.open_kind_victim(board, from, to));
        others.sort();
        others.dedup();
        if others.is_empty() {
            return None;
        }
        Some(format!(
            "board {board}: the piece from {from} took on {to}, whose piece was lifted {} ms after it and read gone {} ms, or it was set straight onto {} and the piece on {to} was touched or flickered; the board cannot tell",
            up - lifted,
            back.saturating_sub(up),
            square_names(&others)
        ))
    }
}
