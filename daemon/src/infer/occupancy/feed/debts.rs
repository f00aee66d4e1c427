//! Placeholders that leave a debt no capture settles.
//!
//! A drop read while the partner board's moves were not (it stalled, and the arbiter
//! takes it up again later) owes its piece: the hand was empty, so its kind is open among
//! all, and its placeholder is the first of them. When the partner board's moves are read
//! at last, the captures among them hand the seat other kinds: the placeholder's debt is
//! never settled and the record alerts a premature drop that was a legal drop of one of
//! those kinds (random 0 of the clicks: two drops held as pawns, supplied a knight and a
//! rook).
//!
//! So when a capture handed on fills the hand of a seat that owes a piece, the seat's
//! drops of open kind try the other kinds they may be, one at a time, the earliest first:
//! a kind is taken when it leaves fewer pieces owed and no more moves illegal. The kinds
//! stay flagged as undetermined; the record's entries are corrected (`Placeholder`), and
//! the drop, now supplied, follows its capture there (`infer/unread.rs`). The same is tried
//! when a drop of a known kind (the arbiter's) is handed on owing its piece: an earlier
//! placeholder of the seat may hold it, while the capture that supplied its true kind came
//! after it (random 262 of the clicks: `B@a2`, a pawn, held the bishop of `7... B@d8`,
//! which was alerted premature before a later capture freed it).

use crate::rules::Seat;

use super::consistent::{HandedMove, replay};
use super::{Handed, OccupancyFeed, with_role};

impl OccupancyFeed {
    /// After a capture handed on gave `seat` a piece while it owed one: the placeholders
    /// that settle its debts (see the module docs), their corrections at `t` or later.
    pub(super) fn settle_debts(&mut self, seat: Seat, t: u64) -> Vec<Handed> {
        let mut given = self.handed.clone();
        let (game, mut illegal) = replay(&self.start, &mut given);
        let mut owed = game.owed();
        if game.owes(seat) == 0 {
            return Vec::new();
        }
        let mut changed = false;
        for i in 0..given.len() {
            let h = &given[i];
            if !h.mv.is_drop() || !h.is_open() || (h.board, h.side) != (seat.board, seat.color) {
                continue;
            }
            let current = h.mv;
            for &role in &h.kinds {
                let Some(mv) = with_role(&current, role).filter(|mv| *mv != current) else {
                    continue;
                };
                let mut trial: Vec<HandedMove> = given.clone();
                trial[i].mv = mv;
                let (after, bad) = replay(&self.start, &mut trial);
                if bad <= illegal && after.owed() < owed {
                    (given, illegal, owed) = (trial, bad, after.owed());
                    changed = true;
                    break;
                }
            }
            if owed == 0 {
                break;
            }
        }
        if !changed {
            return Vec::new();
        }
        let mut at = t.max(self.last_t);
        self.take(given, &mut at)
    }
}

#[cfg(test)]
mod tests {
    use super::super::consistent::KindOf;
    use super::super::test_support::{feed_with, sq};
    use super::*;
    use crate::infer::occupancy::{KindNote, OccupancyMove};
    use crate::rules::{BoardId, Color, Move, Piece, Role};

    /// Board `board`'s legal move from `from` to `to` in the game as handed on, exact.
    fn step(feed: &OccupancyFeed, board: BoardId, t: u64, from: &str, to: &str) -> OccupancyMove {
        let mv = feed
            .shown
            .board(board)
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(sq(from)) && m.to() == sq(to))
            .expect("a legal move");
        OccupancyMove {
            board,
            t,
            mv,
            note: KindNote::Exact,
        }
    }

    /// White's drop on board A at `t` of `role` to `to`, its kind said by `note`.
    fn white_drop(t: u64, to: &str, role: Role, note: KindNote) -> OccupancyMove {
        OccupancyMove {
            board: BoardId::A,
            t,
            mv: Move::Drop {
                piece: Piece {
                    color: Color::White,
                    role,
                },
                to: sq(to),
            },
            note,
        }
    }

    /// A drop from a hand nobody knows: any kind.
    fn any_kind() -> KindNote {
        KindNote::DropUndetermined {
            choices: crate::infer::occupancy::DROP_KINDS.to_vec(),
        }
    }

    /// Board B read at last, from `t`: 1. Nf3 e6 2. Ng5 Qxg5, a knight to white on A.
    fn b_takes_a_knight(
        feed: &mut OccupancyFeed,
        t: u64,
        events: &mut Vec<Handed>,
        alerts: &mut Vec<crate::infer::Inference>,
    ) {
        for (i, (from, to)) in [("g1", "f3"), ("e7", "e6"), ("f3", "g5"), ("d8", "g5")]
            .into_iter()
            .enumerate()
        {
            let m = step(feed, BoardId::B, t + i as u64 * 1_000, from, to);
            feed.hand_on_as_made(&[m], t + 4_000, events, alerts);
        }
    }

    #[test]
    fn a_capture_read_after_a_drop_of_open_kind_gives_its_placeholder_the_kind_it_supplied() {
        let mut feed = feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        );
        // White on A drops on e3 before his partner's capture is read: the hand is
        // empty, the kind open among all, its placeholder a pawn, owed.
        let drop = white_drop(1_000, "e3", Role::Pawn, any_kind());
        let (mut events, mut alerts) = (Vec::new(), Vec::new());
        feed.hand_on_as_made(&[drop], 1_000, &mut events, &mut alerts);
        assert_eq!(feed.handed[0].mv.role_of_kind(), Some(Role::Pawn));
        b_takes_a_knight(&mut feed, 2_000, &mut events, &mut alerts);
        assert_eq!(
            feed.handed[0].mv.role_of_kind(),
            Some(Role::Knight),
            "{:?}",
            feed.handed
        );
        assert_eq!(feed.shown.owed(), 0);
        // The record hears it as a placeholder changed, still undetermined.
        assert!(
            events.iter().any(|h| matches!(
                h,
                Handed::Settled { board: BoardId::A, ply: 0, open: true, mv, .. }
                    if mv.role_of_kind() == Some(Role::Knight)
            )),
            "{events:?}"
        );
    }

    #[test]
    fn a_drop_of_known_kind_a_placeholder_holds_frees_it_when_a_capture_supplied_another() {
        let mut feed = feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/B w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        );
        // White on A, holding a bishop, drops on e3 a piece of any kind (his partner's
        // captures not read): the placeholder takes the bishop. Black answers e6.
        let (mut events, mut alerts) = (Vec::new(), Vec::new());
        let first = white_drop(1_000, "e3", Role::Bishop, any_kind());
        feed.hand_on_as_made(&[first], 1_000, &mut events, &mut alerts);
        let reply = step(&feed, BoardId::A, 2_000, "e7", "e6");
        feed.hand_on_as_made(&[reply], 2_000, &mut events, &mut alerts);
        b_takes_a_knight(&mut feed, 3_000, &mut events, &mut alerts);
        assert_eq!(feed.handed[0].mv.role_of_kind(), Some(Role::Bishop));
        // The arbiter enters a bishop dropped on d3: the bishop was in hand, so the drop
        // on e3 was the knight the capture gave (read after it), not the bishop.
        let second = white_drop(8_000, "d3", Role::Bishop, KindNote::Exact);
        feed.hand_on_as_made(&[second], 8_000, &mut events, &mut alerts);
        assert_eq!(
            feed.handed[0].mv.role_of_kind(),
            Some(Role::Knight),
            "{:?}",
            feed.handed
        );
        assert_eq!(feed.shown.owed(), 0);
    }
}
