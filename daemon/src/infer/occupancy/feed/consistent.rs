//! The record an occupancy-only board hands on is a game every reader can play.
//!
//! A drop or a promotion whose kind the board cannot tell is handed on with a placeholder
//! kind (flagged for the arbiter). The reading keeps its own placeholders and changes
//! them as the piece moves (a "pawn" that then moves along a file is a rook or a queen);
//! the record must follow, or it would hold a pawn taking straight ahead, a drop of a
//! kind the hand no longer holds because an earlier placeholder took it, or a king "in
//! check" from a placeholder the true piece never gave: moves no reader can play
//! (pychess.org, the BPGN viewer) and illegal-move alerts for moves that were legal.
//!
//! So before a move is handed on it is fitted to the game as handed on: its piece's kind
//! is the one the record has on its square. When that leaves a move illegal, the kinds of
//! the placeholders are searched (the game played again from the start, each placeholder
//! trying its kinds, its current one first) for the assignment that leaves the fewest
//! moves illegal, fewer than now; each placeholder alone changed is tried first, so that
//! one far back in a long game is found within the search's budget. Kinds hang together
//! across the boards: a drop's kind decides what its captor's partner may drop. The
//! record's entries whose placeholder changed are corrected (their kinds stay flagged as
//! undetermined), before the move. The same is done when a kind is settled or entered by
//! the arbiter.

use crate::rules::{BoardId, BughouseGame, Color, Move, Position, Role};

use super::owing::Owing;
use super::{Handed, KindNote, OccupancyFeed, OccupancyMove, with_role};

/// How many moves one search may play before it settles for the best assignment found:
/// each costs a few microseconds (a Raspberry Pi takes about ten times longer), and a
/// search runs while the table waits; a misfit is almost always mended within a few
/// hundred.
const SEARCH_BUDGET: usize = 30_000;

/// A move handed on, with the kinds its piece may still be.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::infer::occupancy) struct HandedMove {
    /// The board.
    pub board: BoardId,
    /// Who made it.
    pub side: Color,
    /// The move as handed on (placeholder kinds included).
    pub mv: Move,
    /// The time of the occupancy move.
    pub t: u64,
    /// The time its sensor events were handed on at.
    pub at: u64,
    /// A drop or a promotion whose kind the board could not tell: every kind it may be
    /// (the move carries one of them). Empty when the kind is known.
    pub kinds: Vec<Role>,
}

impl HandedMove {
    /// The kinds a move's note leaves open for the piece it puts down (a drop's, a
    /// promotion's: also that of a piece of open kind that may be a pawn promoting),
    /// empty when it is sure.
    pub(super) fn open_kinds(m: &OccupancyMove, game: &BughouseGame) -> Vec<Role> {
        // As handed on: a "promotion" whose piece the record has as another kind than a
        // pawn is that piece's move (its kind is its drop's, see `choices.rs`).
        let promotion = matches!(
            m.mv,
            Move::Normal {
                promotion: Some(_),
                ..
            }
        );
        match (&m.note, m.mv) {
            (KindNote::Exact, _) => Vec::new(),
            (KindNote::DropUndetermined { choices }, Move::Drop { .. }) => choices.clone(),
            (KindNote::PromotionAssumed { choices }, _) if promotion => choices.clone(),
            _ if promotion => game.rules().promotion_pieces.iter().collect(),
            _ => Vec::new(),
        }
    }

    pub(super) fn is_open(&self) -> bool {
        self.kinds.len() > 1
    }
}

/// `mv` as played in `pos`: its piece and its capture what stand there (a placeholder
/// changed since), a promotion only for a pawn.
fn fitted(pos: &Position, mv: &Move) -> Move {
    let mut m = pos.normalize(mv);
    if let Move::Normal {
        role, promotion, ..
    } = &mut m
        && *role != Role::Pawn
    {
        *promotion = None;
    }
    m
}

/// `moves` played from `start`, each fitted to the game then: the game after them (drops
/// not in hand owing their piece, see `owing.rs`) and how many were illegal.
pub(super) fn replay(start: &BughouseGame, moves: &mut [HandedMove]) -> (Owing, usize) {
    let mut game = Owing::new(start.clone());
    let mut illegal = 0;
    for h in moves.iter_mut() {
        h.mv = fitted(game.board(h.board), &h.mv);
        if !game.classify(h.board, &h.mv).is_legal() {
            illegal += 1;
        }
        game.play(h.board, &h.mv, h.t);
    }
    (game, illegal)
}

/// A branch-and-bound search over the placeholders' kinds (see the module docs).
struct Search<'a> {
    /// The moves as they stand, the last possibly the one about to be handed on.
    given: &'a [HandedMove],
    /// The moves of the branch being tried.
    trying: Vec<HandedMove>,
    /// The fewest illegal moves of a whole assignment found (at first: as now).
    best: usize,
    found: Option<Vec<HandedMove>>,
    budget: usize,
    /// The kinds the reading says the last move's piece may be (empty: any).
    last_kinds: &'a [Role],
}

impl Search<'_> {
    /// The assignment of kinds that leaves fewer than `now` moves of `given` illegal,
    /// the fewest the budget finds.
    fn run(
        start: &BughouseGame,
        given: &[HandedMove],
        last_kinds: &[Role],
        now: usize,
    ) -> Option<Vec<HandedMove>> {
        let mut s = Search {
            given,
            trying: given.to_vec(),
            best: now,
            found: None,
            budget: SEARCH_BUDGET,
            last_kinds,
        };
        // The moves before the first placeholder are what they are: played once.
        let first = given.iter().position(HandedMove::is_open)?;
        let mut game = Owing::new(start.clone());
        let mut illegal = 0;
        for h in &given[..first] {
            illegal += usize::from(!game.classify(h.board, &h.mv).is_legal());
            game.play(h.board, &h.mv, h.t);
        }
        s.one_changed(first, game.clone(), illegal);
        s.trying = given.to_vec();
        s.from(first, game, illegal);
        s.found
    }

    /// Each placeholder alone taking each other kind of its own, the others as they stand,
    /// the latest first (as the full search prefers): a long game holds many
    /// placeholders, and the one a move misfits may be a single one far back (a drop that
    /// was a rook, its piece now moving along a file), which the full search, varying the
    /// latest placeholders first, may not reach within its budget. Plays on from move
    /// `first` with `game` as it stands before it.
    fn one_changed(&mut self, first: usize, mut game: Owing, mut illegal: usize) {
        // The game before each placeholder, and the moves illegal by then.
        let mut before = Vec::new();
        for i in first..self.given.len() {
            let h = &self.given[i];
            if h.is_open() {
                before.push((i, game.clone(), illegal));
            }
            let mv = fitted(game.board(h.board), &h.mv);
            illegal += self.misfits(i, &game, &mv);
            game.play(h.board, &mv, h.t);
        }
        for (i, game, illegal) in before.into_iter().rev() {
            let h = &self.given[i];
            let current = h.mv.role_of_kind();
            for &role in h.kinds.iter().filter(|&&r| Some(r) != current) {
                if self.budget < self.given.len() - i {
                    return;
                }
                self.trying = self.given.to_vec();
                let (next, bad) = self.with_kind(i, &game, role);
                self.as_they_stand(i + 1, next, illegal + bad);
                if self.best == 0 {
                    return;
                }
            }
        }
    }

    /// Placeholder `i` tried as `role` after `game` (in `trying`): the game after it, and
    /// whether it misfits (0 or 1).
    fn with_kind(&mut self, i: usize, game: &Owing, role: Role) -> (Owing, usize) {
        let h = &self.given[i];
        let mv = with_role(&h.mv, role).unwrap_or(h.mv);
        let mv = fitted(game.board(h.board), &mv);
        let bad = self.misfits(i, game, &mv);
        let mut next = game.clone();
        next.play(h.board, &mv, h.t);
        self.trying[i].mv = mv;
        (next, bad)
    }

    /// Plays the moves from `i` on as they stand (`trying`), with `game` before it and
    /// `illegal` so far: the assignment is kept when it leaves fewer moves illegal.
    fn as_they_stand(&mut self, mut i: usize, mut game: Owing, mut illegal: usize) {
        while let Some(h) = self.given.get(i) {
            if illegal >= self.best {
                return;
            }
            self.budget = self.budget.saturating_sub(1);
            let mv = fitted(game.board(h.board), &self.trying[i].mv);
            illegal += self.misfits(i, &game, &mv);
            game.play(h.board, &mv, h.t);
            self.trying[i].mv = mv;
            i += 1;
        }
        if illegal < self.best {
            self.best = illegal;
            self.found = Some(self.trying.clone());
        }
    }

    /// Plays on from move `i` with `game` as it stands before it and `illegal` moves
    /// illegal so far.
    fn from(&mut self, mut i: usize, mut game: Owing, mut illegal: usize) {
        loop {
            if illegal >= self.best || self.budget == 0 {
                return;
            }
            let Some(h) = self.given.get(i) else {
                self.best = illegal;
                self.found = Some(self.trying.clone());
                return;
            };
            self.budget -= 1;
            if !h.is_open() {
                let mv = fitted(game.board(h.board), &h.mv);
                illegal += self.misfits(i, &game, &mv);
                game.play(h.board, &mv, h.t);
                self.trying[i].mv = mv;
                i += 1;
                continue;
            }
            let current = h.mv.role_of_kind();
            let kinds = current
                .into_iter()
                .chain(h.kinds.iter().copied().filter(|&r| Some(r) != current));
            for role in kinds.collect::<Vec<_>>() {
                let (next, bad) = self.with_kind(i, &game, role);
                self.from(i + 1, next, illegal + bad);
                if self.best == 0 || self.budget == 0 {
                    return;
                }
            }
            return;
        }
    }

    /// Whether move `i`, `mv` after `game`, misfits (0 or 1): illegal, or the last move
    /// made by a piece the reading says it is not.
    fn misfits(&self, i: usize, game: &BughouseGame, mv: &Move) -> usize {
        let last = i + 1 == self.given.len();
        let board = self.given[i].board;
        usize::from(!game.classify(board, mv).is_legal() || (last && off_kind(mv, self.last_kinds)))
    }
}

/// The kinds the reading says the piece of `m` may be, when it moved a piece of open kind
/// (empty: the record's piece is the reading's).
fn piece_kinds(m: &OccupancyMove) -> Vec<Role> {
    match (&m.note, m.mv) {
        (KindNote::PieceOpen { choices }, _)
        | (KindNote::DropUndetermined { choices }, Move::Normal { .. }) => choices.clone(),
        _ => Vec::new(),
    }
}

/// Whether `mv` moves a piece of another kind than `kinds` (a placeholder pawn the record
/// has take diagonally onto the last rank, where the reading saw a bishop or a queen).
fn off_kind(mv: &Move, kinds: &[Role]) -> bool {
    match *mv {
        Move::Normal { role, .. } => !kinds.is_empty() && !kinds.contains(&role),
        _ => false,
    }
}

pub(super) trait KindOf {
    /// The kind a drop puts down or a promotion makes.
    fn role_of_kind(&self) -> Option<Role>;
}

impl KindOf for Move {
    fn role_of_kind(&self) -> Option<Role> {
        match *self {
            Move::Drop { piece, .. } => Some(piece.role),
            Move::Normal { promotion, .. } => promotion,
            _ => None,
        }
    }
}

impl OccupancyFeed {
    /// Fits `m` to the game as handed on, about to be handed on at `at` (see the module
    /// docs). Returns the corrections of earlier placeholders, to hand on before it; `at`
    /// moves later when a corrected move must be final in the record first.
    pub(super) fn fit(&mut self, m: &mut OccupancyMove, at: &mut u64) -> Vec<Handed> {
        m.mv = fitted(self.shown.board(m.board), &m.mv);
        let kinds = piece_kinds(m);
        let off = off_kind(&m.mv, &kinds);
        if !off && self.shown.classify(m.board, &m.mv).is_legal() {
            return Vec::new();
        }
        let mut given = self.handed.clone();
        given.push(HandedMove {
            board: m.board,
            side: self.shown.board(m.board).mover(&m.mv),
            mv: m.mv,
            t: m.t,
            at: *at,
            kinds: HandedMove::open_kinds(m, &self.start),
        });
        let (_, now) = replay(&self.start, &mut given);
        let Some(mut better) = Search::run(&self.start, &given, &kinds, now + usize::from(off))
        else {
            return Vec::new();
        };
        if let Some(last) = better.pop() {
            m.mv = last.mv;
        }
        self.take(better, at)
    }

    /// The game as handed on after a kind was settled or entered: placeholders that the
    /// kind now known makes illegal (a drop of the kind an earlier drop now turns out to
    /// have been) take another of their kinds. The corrections, at `t` or later.
    pub(super) fn mend(&mut self, t: u64) -> Vec<Handed> {
        let mut given = self.handed.clone();
        let (_, now) = replay(&self.start, &mut given);
        if now == 0 {
            return Vec::new();
        }
        let Some(better) = Search::run(&self.start, &given, &[], now) else {
            return Vec::new();
        };
        let mut at = t;
        self.take(better, &mut at)
    }

    /// Takes `better` for the moves handed on: the corrections of the entries whose kind
    /// changed, to hand on at `at` or later (once those entries are final in the record).
    pub(super) fn take(&mut self, better: Vec<HandedMove>, at: &mut u64) -> Vec<Handed> {
        let mut out = Vec::new();
        let mut plies = crate::rules::ByBoard::<usize>::default();
        for (old, new) in self.handed.iter().zip(&better) {
            let ply = plies[old.board];
            plies[old.board] += 1;
            if old.is_open() && old.mv.role_of_kind() != new.mv.role_of_kind() {
                *at = (*at).max(old.at + self.commit_ms + 1);
                out.push((old.board, ply, new.mv));
            }
        }
        self.handed = better;
        let mut events: Vec<Handed> = out
            .into_iter()
            .map(|(board, ply, mv)| Handed::Settled {
                t: *at,
                board,
                ply,
                mv,
                open: true,
            })
            .collect();
        events.extend(self.replay_handed(*at));
        *at = (*at).max(self.last_t);
        events
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{Board, DROP_ON_E3_THEN_TO_E5, feed_with, sq};
    use super::*;
    use crate::infer::SensorEvent;
    use crate::rules::Color;

    /// White on A holds a pawn, a rook and a queen: a drop on e3 may be any of them.
    fn feed() -> OccupancyFeed {
        feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/PRQ w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        )
    }

    #[test]
    fn a_placeholder_its_piece_then_moves_as_it_cannot_takes_another_of_its_kinds() {
        let mut feed = feed();
        // X@e3 e6, then the piece from e3 goes to e5: a rook or a queen, never a pawn.
        let (handed, _) = Board::of(&feed).play(&mut feed, &DROP_ON_E3_THEN_TO_E5);
        let drop = feed.handed[0].mv;
        assert_eq!(feed.handed[0].kinds.len(), 3, "{:?}", feed.handed[0]);
        let put = drop.role_of_kind().expect("a drop's kind");
        assert!(matches!(put, Role::Rook | Role::Queen), "{drop}");
        let e5 = feed.shown.board(BoardId::A).board().piece_at(sq("e5"));
        assert_eq!(e5.map(|p| (p.color, p.role)), Some((Color::White, put)));
        // Every move as handed on is legal, and what the piece inference is shown is that
        // game: when the placeholder changed, the correction came before the move.
        let mut again = feed.handed.clone();
        assert_eq!(replay(&feed.start, &mut again).1, 0);
        let correction = handed
            .iter()
            .position(|h| matches!(h, Handed::Settled { open: true, .. }));
        let moved = handed.iter().position(|h| {
            matches!(h, Handed::Event(_, SensorEvent::Square { sq: s, piece: Some(_), .. }) if *s == sq("e5"))
        });
        if let Some(c) = correction {
            assert!(moved.is_some_and(|m| c < m), "{handed:?}");
        }
        assert!(moved.is_some(), "{handed:?}");
    }

    #[test]
    fn a_placeholder_far_back_is_mended_though_many_placeholders_came_after_it() {
        // White drops on e3 (a pawn, a rook or a queen), then both sides drop fifteen
        // pieces each a pawn or a knight, then the piece from e3 goes to e5: only the drop
        // on e3 as a rook or a queen makes it. The full search varies the latest
        // placeholders first: 2^15 assignments of them, beyond its budget.
        let feed = feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/RQPPPPPPPPNNNNNNNNppppppppnnnnnnnn w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        );
        let start = feed.start.clone();
        let open = |color: Color, to: &str, kinds: &[Role]| HandedMove {
            board: BoardId::A,
            side: color,
            mv: Move::Drop {
                piece: Role::Pawn.of(color),
                to: sq(to),
            },
            t: 0,
            at: 0,
            kinds: kinds.to_vec(),
        };
        let mut given = vec![open(
            Color::White,
            "e3",
            &[Role::Pawn, Role::Rook, Role::Queen],
        )];
        let either = [Role::Pawn, Role::Knight];
        for (black, white) in [
            ("a6", "a3"),
            ("b6", "b3"),
            ("c6", "c3"),
            ("d6", "d3"),
            ("f6", "f3"),
            ("g6", "g3"),
            ("h6", "h3"),
        ] {
            given.push(open(Color::Black, black, &either));
            given.push(open(Color::White, white, &either));
        }
        given.push(open(Color::Black, "a5", &either));
        given.push(HandedMove {
            board: BoardId::A,
            side: Color::White,
            mv: Move::Normal {
                role: Role::Pawn,
                from: sq("e3"),
                capture: None,
                to: sq("e5"),
                promotion: None,
            },
            t: 0,
            at: 0,
            kinds: Vec::new(),
        });
        let (_, now) = replay(&start, &mut given.clone());
        assert_eq!(now, 1, "only the last move misfits");
        let kinds = [Role::Rook, Role::Queen];
        let better = Search::run(&start, &given, &kinds, now + 1).expect("an assignment");
        let mut again = better.clone();
        assert_eq!(replay(&start, &mut again).1, 0, "{better:?}");
        let e3 = better[0].mv.role_of_kind();
        assert!(matches!(e3, Some(Role::Rook | Role::Queen)), "{e3:?}");
        // Only the culprit changed.
        assert!(
            better[1..16]
                .iter()
                .all(|h| h.mv.role_of_kind() == Some(Role::Pawn))
        );
    }

    #[test]
    fn a_kind_settled_hands_the_other_placeholder_the_kind_left() {
        // White holds a pawn and a knight: two drops, each either. The second's piece then
        // steps as only a pawn can: the first was the knight.
        let mut feed = feed_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/PN w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        );
        let mut board = Board::of(&feed);
        for (s, on) in [
            ("e3", true),
            ("e7", false),
            ("e6", true),
            ("d3", true),
            ("d7", false),
            ("d6", true),
            ("d3", false),
            ("d4", true),
            ("a7", false),
            ("a6", true),
        ] {
            board.set(&mut feed, s, on);
        }
        feed.tick(board.t + 4_000);
        let kinds: Vec<Option<Role>> = feed
            .handed
            .iter()
            .filter(|h| h.mv.is_drop())
            .map(|h| h.mv.role_of_kind())
            .collect();
        assert_eq!(
            kinds,
            [Some(Role::Knight), Some(Role::Pawn)],
            "{:?}",
            feed.handed
        );
        let mut again = feed.handed.clone();
        assert_eq!(replay(&feed.start, &mut again).1, 0);
    }
}
