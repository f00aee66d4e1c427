//! The arbiter's moves for an occupancy-only board the inference could not follow (see
//! `resume.rs`): the board's moves since its last one recorded, as SAN, from the record's
//! position. They are handed on as the board's moves, flagged by nothing (the arbiter saw
//! them), and the board's snapshots since are read again from them; the kind of a piece of
//! open kind the arbiter settles in the record is taken by the reading too.

use std::str::FromStr;

use crate::rules::notation::{San, SanKind, legal_sequence};
use crate::rules::{BoardId, Color, Move, Piece, Role, Square};

use super::super::super::output::Inference;
use super::super::{KindNote, OccupancyMove, ResumeRefused};
use super::kind_statement::{KindStatement, kind_statements};
use super::{Handed, OccupancyFeed};

impl OccupancyFeed {
    /// Whether `board` is read by occupancy (it sent an occupancy snapshot).
    #[must_use]
    pub fn reads(&self, board: BoardId) -> bool {
        self.started[board]
    }

    /// The arbiter enters `sans`, the moves `board` played since its last move recorded,
    /// at `t`: they are handed on, then what the board's readings since decide (see
    /// [`super::super::OccupancyInference::resume`]). `first`, when given, must be the move
    /// the board waits for. A first move naming a piece of open kind by its square as
    /// another of its kinds (`Qb4xc4`) settles that kind first; so do kind statements
    /// before the moves (`(f1=N)`, see `kind_statement.rs`).
    ///
    /// # Errors
    ///
    /// [`ResumeRefused`] when the board is not read by occupancy, has nothing waiting for
    /// the arbiter, or the moves are not a legal sequence from the record's position.
    pub fn fill(
        &mut self,
        board: BoardId,
        sans: &[String],
        first: Option<(u32, Color)>,
        t: u64,
    ) -> Result<(Vec<Handed>, Vec<Inference>), ResumeRefused> {
        if !self.started[board] {
            return Err(ResumeRefused(format!(
                "board {board} is not an occupancy-only board"
            )));
        }
        if let Some(first) = first {
            self.fill_starts_at(board, first)?;
        }
        if !self.inf.needs_arbiter(board) {
            return Err(ResumeRefused(format!(
                "board {board}'s moves are all recorded: correct one with replace"
            )));
        }
        let (stated, plies) = kind_statements(board, sans)?;
        if plies.is_empty() {
            return Err(ResumeRefused(format!(
                "board {board}: no move after the kind statements"
            )));
        }
        if !stated.is_empty() {
            // Tried on a copy first: a refused fill leaves no kind settled.
            self.clone().enter(board, &stated, plies, t)?;
        }
        self.enter(board, &stated, plies, t)
    }

    /// The body of [`OccupancyFeed::fill`], its checks made: the kinds `stated` settled,
    /// then the moves `sans` entered.
    fn enter(
        &mut self,
        board: BoardId,
        stated: &[KindStatement],
        sans: &[String],
        t: u64,
    ) -> Result<(Vec<Handed>, Vec<Inference>), ResumeRefused> {
        let (mut events, mut alerts) = (Vec::new(), Vec::new());
        self.settle_stated(board, stated, t, &mut events, &mut alerts)?;
        let moves = match legal_sequence(self.shown.board(board).clone(), sans) {
            Ok(moves) => moves,
            Err(e) => {
                // A move of a piece of open kind named by its square as another of its
                // kinds: that kind is settled first (as a `replace` of the move that put
                // the piece down would), then the moves are entered.
                let Some((at, role)) = self.kind_named(board, sans) else {
                    // A drop from a hand the record does not know in full: the record
                    // fits its placeholders to it, or it waits for the partner board's
                    // capture (see `open_hand.rs`).
                    let any = self.inf.with_open_hands(board, self.shown.board(board));
                    return match legal_sequence(any, sans) {
                        Ok(moves) => self.enter_moves(board, &moves, t, events, alerts),
                        Err(_) => Err(ResumeRefused(format!("board {board}: {e}"))),
                    };
                };
                self.inf.settle_kind_now(board, at, role)?;
                self.hand_on_as_made(&[], t, &mut events, &mut alerts);
                legal_sequence(self.shown.board(board).clone(), sans)
                    .map_err(|e| ResumeRefused(format!("board {board}: {e}")))?
            }
        };
        self.enter_moves(board, &moves, t, events, alerts)
    }

    /// The moves of a fill, legal from the record's position, handed on, then what the
    /// board's readings since decide.
    fn enter_moves(
        &mut self,
        board: BoardId,
        moves: &[Move],
        t: u64,
        mut events: Vec<Handed>,
        mut alerts: Vec<Inference>,
    ) -> Result<(Vec<Handed>, Vec<Inference>), ResumeRefused> {
        let read = self
            .inf
            .resume(board, &self.shown, moves, &mut self.log, t)?;
        let entered: Vec<OccupancyMove> = moves
            .iter()
            .map(|&mv| OccupancyMove {
                board,
                t,
                mv,
                note: KindNote::Exact,
            })
            .collect();
        self.hand_on_as_made(&entered, t, &mut events, &mut alerts);
        self.hand_on(&read, t, &mut events, &mut alerts);
        self.stall_told[board] = false;
        self.stall_said[board] = (0, Vec::new());
        self.wait_told[board] = false;
        self.changed[board] = self.changed[board].max(t);
        Ok((events, alerts))
    }

    /// The kind `sans` names for a piece of open kind of `board`, when it is not the one
    /// the record carries: the first move names the piece by its square (`Qb4xc4`), as one
    /// of the kinds it may be, and the moves are legal from the record's position with the
    /// piece of that kind. Returns the time of the move that put the piece down, and the
    /// kind.
    pub(super) fn kind_named(&self, board: BoardId, sans: &[String]) -> Option<(u64, Role)> {
        let san = San::from_str(sans.first()?.trim()).ok()?;
        let SanKind::Normal {
            role,
            file: Some(file),
            rank: Some(rank),
            ..
        } = san.kind
        else {
            return None;
        };
        let from = Square::from_coords(file, rank);
        let (at, kinds) = self.open_kind_at(board, from)?;
        let pos = self.shown.board(board);
        let piece = pos.board().piece_at(from)?;
        if piece.role == role || !kinds.contains(&role) {
            return None;
        }
        let mut as_named = pos.clone();
        as_named.set_piece_at(from, Piece { role, ..piece });
        legal_sequence(as_named, sans).ok()?;
        Some((at, role))
    }

    /// The piece of open kind the record has on `sq` of `board`: the time of the move that
    /// put it down, and the kinds it may be now (a pawn dropped in doubt that reached the
    /// last rank: any promotion piece). The reading may have moved the piece on since
    /// (a look-alike withheld): the move of the record that put it on `sq` names it then.
    pub(super) fn open_kind_at(&self, board: BoardId, sq: Square) -> Option<(u64, Vec<Role>)> {
        self.inf
            .kinds_now(board)
            .into_iter()
            .find(|(at, _, _)| *at == sq)
            .map(|(_, t, kinds)| (t, kinds))
            .or_else(|| {
                let h = &self.handed[self.origins.of(board, sq)?];
                Some((h.t, h.kinds.clone()))
            })
    }

    /// Whether a fill of `board` whose first ply the alert named as `first` (move number
    /// and side) still enters the board's next move: an alert's choices are the readings
    /// of the board as it stood then, and once the board has moved on (its own later moves
    /// told, another fill) they are no longer its next moves, though their SAN may still
    /// fit its position.
    ///
    /// # Errors
    ///
    /// [`ResumeRefused`] naming the move the record waits for.
    pub fn fill_starts_at(&self, board: BoardId, first: (u32, Color)) -> Result<(), ResumeRefused> {
        let side = self.shown.board(board).turn();
        let number = self.number(self.handed.len(), board, side);
        if (number, side) == first {
            return Ok(());
        }
        Err(ResumeRefused(format!(
            "board {board}'s next move is {number} of {}, not {} of {}: the board has moved on since the alert",
            side.name(),
            first.0,
            first.1.name()
        )))
    }

    /// The arbiter replaced the record's `ply`-th move of `board` (0: its first) by `mv`:
    /// when it is the same move with another kind (a drop's piece, a promotion's), the
    /// reading takes that kind for its piece of open kind, and the record it hands on
    /// from carries it. Returns the corrections of other placeholders that kind rules out
    /// (see `consistent.rs`), to hand on.
    pub fn replaced(&mut self, board: BoardId, ply: usize, mv: Move, t: u64) -> Vec<Handed> {
        let Some(i) = self
            .handed
            .iter()
            .enumerate()
            .filter(|(_, h)| h.board == board)
            .nth(ply)
            .map(|(i, _)| i)
        else {
            return Vec::new();
        };
        let (old, at) = (self.handed[i].mv, self.handed[i].t);
        let role: Option<Role> = match (old, mv) {
            (Move::Drop { to, .. }, Move::Drop { piece, to: t2 }) if to == t2 => Some(piece.role),
            (
                Move::Normal {
                    from,
                    to,
                    promotion: Some(_),
                    ..
                },
                Move::Normal {
                    from: f2,
                    to: t2,
                    promotion: Some(p),
                    ..
                },
            ) if (from, to) == (f2, t2) => Some(p),
            _ => None,
        };
        let Some(role) = role else {
            return Vec::new();
        };
        // The reading's piece of open kind from that move, if it is still open (the
        // record has the arbiter's correction already).
        let _ = self.inf.adopt_kind(board, at, role);
        self.handed[i].mv = mv;
        self.handed[i].kinds.clear();
        let mut events = self.replay_handed(t);
        events.extend(self.mend(t));
        events
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{Board, feed_with, sq};
    use super::*;
    use crate::rules::{Color, Piece};

    /// A table whose board A has White holding a knight and a bishop.
    fn feed() -> OccupancyFeed {
        feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/NB w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        )
    }

    #[test]
    fn the_kind_the_arbiter_gives_a_dropped_piece_is_the_readings_too() {
        let mut feed = feed();
        let mut board = Board::of(&feed);
        board.set(&mut feed, "e3", true);
        board.set(&mut feed, "e7", false);
        board.set(&mut feed, "e6", true);
        assert_eq!(
            feed.inf.open_kinds(BoardId::A).len(),
            1,
            "a knight or a bishop"
        );
        let bishop = Move::Drop {
            piece: Piece {
                color: Color::White,
                role: Role::Bishop,
            },
            to: sq("e3"),
        };
        feed.replaced(BoardId::A, 0, bishop, 5_000);
        assert!(feed.inf.open_kinds(BoardId::A).is_empty());
        assert_eq!(
            feed.shown.board(BoardId::A).board().piece_at(sq("e3")),
            Some(Piece {
                color: Color::White,
                role: Role::Bishop
            })
        );
        // Its next move is read as a bishop's, with no doubt left.
        board.set(&mut feed, "e3", false);
        let (events, alerts) = board.set(&mut feed, "b6", true);
        let (more, more_alerts) = feed.tick(board.t + 4_000);
        assert!(
            alerts.is_empty() && more_alerts.is_empty(),
            "{alerts:?} {more_alerts:?}"
        );
        assert!(
            events.iter().chain(&more).any(|e| matches!(
                e,
                Handed::Event(_, crate::infer::SensorEvent::Square { sq: s, piece: Some(p), .. })
                    if *s == sq("b6") && p.role == Role::Bishop
            )),
            "{events:?} {more:?}"
        );
    }

    #[test]
    fn a_fill_is_refused_for_a_board_that_needs_none() {
        let mut feed = feed();
        let refused = feed.fill(BoardId::A, &["e4".to_owned()], None, 1_000);
        assert!(refused.is_err(), "no occupancy snapshot yet");
        let occ = feed.shown.board(BoardId::A).board().occupied().0;
        feed.feed(BoardId::A, 1_000, occ);
        let refused = feed
            .fill(BoardId::A, &["e4".to_owned()], None, 2_000)
            .expect_err("all recorded");
        assert!(refused.0.contains("all recorded"), "{refused}");
    }
}
