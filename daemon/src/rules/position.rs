//! One bughouse board: placement, both holdings, promoted pieces, side to move, castling
//! rights, en passant; move generation with drops, classification and play.
//!
//! A [`Position`] holds whatever physically stands on the board. Construction never
//! validates: after a completed illegal move the side not to move may be in check, a pawn
//! may stand on the back rank, a colour may have 17 pieces or no king. [`Position::problems`]
//! says what is impossible about it; the generator and [`Position::play`] cope with all of
//! it and never panic.
//!
//! Move generation is legal, pin-aware and bitboard based when the side to move has exactly
//! one king (the normal case); with no king, several kings or Koedem's capturable kings it
//! falls back to pseudo-legal generation filtered by playing each move.

use std::fmt;

use super::attacks::{
    aligned, between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, ray, rook_attacks,
};
use super::castling::Castling;
use super::moves::{castle_king_target, castle_rook_target};
use super::{
    Bitboard, Board, Color, File, IllegalReason, Legality, Move, MoveList, Piece, Pockets, Rank,
    Role, Ruleset, Square,
};

/// A piece taken off the board by a move: it goes to the partner's holdings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Captured {
    /// The piece as it stood (a promoted pawn shows its declared role here).
    pub piece: Piece,
    /// It was a promoted pawn: the partner receives a pawn.
    pub promoted: bool,
    /// Where it stood.
    pub square: Square,
}

impl Captured {
    /// What the partner receives: a promoted piece goes back as a pawn.
    #[must_use]
    pub const fn handoff_role(&self) -> Role {
        if self.promoted {
            Role::Pawn
        } else {
            self.piece.role
        }
    }
}

/// What playing a move changed, beyond the position itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Played {
    /// The piece taken, if any.
    pub captured: Option<Captured>,
}

/// Things about a position that cannot arise in legal play (bit set).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Problems(u16);

impl Problems {
    /// A colour has no king.
    pub const MISSING_KING: Problems = Problems(1);
    /// A colour has more than one king.
    pub const TOO_MANY_KINGS: Problems = Problems(2);
    /// The side not to move is in check.
    pub const OPPOSITE_CHECK: Problems = Problems(4);
    /// A pawn stands on the first or last rank.
    pub const PAWN_ON_BACKRANK: Problems = Problems(8);
    /// A colour has more than 16 pieces on the board.
    pub const TOO_MANY_PIECES: Problems = Problems(16);

    /// No problem.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `other` is among the problems.
    #[must_use]
    pub const fn contains(self, other: Problems) -> bool {
        self.0 & other.0 == other.0
    }

    const fn with(self, other: Problems) -> Problems {
        Problems(self.0 | other.0)
    }
}

impl fmt::Debug for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (Problems::MISSING_KING, "missing-king"),
            (Problems::TOO_MANY_KINGS, "too-many-kings"),
            (Problems::OPPOSITE_CHECK, "opposite-check"),
            (Problems::PAWN_ON_BACKRANK, "pawn-on-backrank"),
            (Problems::TOO_MANY_PIECES, "too-many-pieces"),
        ];
        f.debug_set()
            .entries(
                names
                    .iter()
                    .filter(|(p, _)| self.contains(*p))
                    .map(|(_, n)| n),
            )
            .finish()
    }
}

/// The part of a position that repetition compares: placement, side to move, castling
/// rights and a capturable en passant square. Holdings are not part of it (000 §18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PositionKey {
    board: Board,
    promoted: Bitboard,
    turn: Color,
    castling: Bitboard,
    ep_square: Option<Square>,
}

/// One bughouse board (see the module docs).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    promoted: Bitboard,
    pockets: Pockets,
    turn: Color,
    /// Castling rights, the castling king's start square and the rooks' (Chess960 too).
    castling: Castling,
    ep_square: Option<Square>,
    rules: Ruleset,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Position({} {:?} {} castling {:?} ep {:?})",
            self.board.placement_with(self.promoted),
            self.pockets,
            self.turn.char(),
            self.castling.rights(),
            self.ep_square
        )
    }
}

fn home_rank(color: Color) -> Bitboard {
    Bitboard::from_rank(Rank::First.relative_to(color))
}

impl Position {
    /// The start position under `rules`: White to move, empty holdings.
    #[must_use]
    pub fn new(rules: Ruleset) -> Position {
        Position {
            board: Board::start(),
            promoted: Bitboard::EMPTY,
            pockets: Pockets::default(),
            turn: Color::White,
            castling: Castling::standard(),
            ep_square: None,
            rules,
        }
    }

    /// Any arrangement, standard or Chess960. Castling rights (rooks by square) are kept
    /// only for rooks on their home rank with their king on its home rank, wherever on it
    /// (of two Koedem kings there, the one on the e-file): that king is the one that
    /// castles, and counts as unmoved while its colour keeps a right.
    #[must_use]
    pub fn from_parts(
        board: Board,
        pockets: Pockets,
        promoted: Bitboard,
        turn: Color,
        castling: Bitboard,
        ep_square: Option<Square>,
        rules: Ruleset,
    ) -> Position {
        let castling = Castling::from_setup(&board, castling);
        Position {
            board,
            promoted: promoted & board.occupied(),
            pockets,
            turn,
            castling,
            ep_square,
            rules,
        }
    }

    /// The pieces on the board.
    #[must_use]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// Both players' holdings.
    #[must_use]
    pub const fn pockets(&self) -> &Pockets {
        &self.pockets
    }

    /// Mutable holdings: the game adds the partner's captures here.
    pub fn pockets_mut(&mut self) -> &mut Pockets {
        &mut self.pockets
    }

    /// The squares holding promoted pawns (they show their declared role on the board).
    #[must_use]
    pub const fn promoted(&self) -> Bitboard {
        self.promoted
    }

    /// The side to move.
    #[must_use]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The rooks (by square) that keep the right to castle.
    #[must_use]
    pub const fn castling_rights(&self) -> Bitboard {
        self.castling.rights()
    }

    /// The square `color`'s castling king started on: e1/e8 in standard chess, any file of
    /// the home rank in Chess960. Castling moves the king from there.
    #[must_use]
    pub fn castling_king(&self, color: Color) -> Square {
        self.castling.king_start(color)
    }

    /// The rook of `color` that keeps the right to castle on the h-side (`king_side`) or
    /// the a-side of its king, by its square.
    #[must_use]
    pub fn castling_rook(&self, color: Color, king_side: bool) -> Option<Square> {
        self.castling.rook(color, king_side)
    }

    /// The square a pawn just skipped with a double step, if any.
    #[must_use]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en passant square if a pawn of the side to move could take there (what FEN and
    /// repetition care about).
    #[must_use]
    pub fn capturable_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let pawns = self.board.by_piece(Role::Pawn.of(self.turn));
        (pawn_attacks(self.turn.other(), ep) & pawns)
            .any()
            .then_some(ep)
    }

    /// The rules this board is played under.
    #[must_use]
    pub const fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// Takes a piece off the board (Koedem's grab, an operator's correction).
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        self.promoted.discard(sq);
        self.castling.discard(sq);
        self.board.remove_piece_at(sq)
    }

    /// Marks or unmarks the piece on `sq` as a promoted pawn (an operator declares the
    /// promotion piece, a grab brings a real piece).
    pub fn set_promoted(&mut self, sq: Square, promoted: bool) {
        self.promoted
            .set(sq, promoted && self.board.occupied().contains(sq));
    }

    /// Puts `piece` on `sq` (replacing what stood there): a declared promotion piece
    /// replaces the standing pawn.
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.board.set_piece_at(sq, piece);
    }

    /// Sets the side to move (a clock press out of turn, a resynchronised board).
    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// The key repetition compares.
    #[must_use]
    pub fn key(&self) -> PositionKey {
        PositionKey {
            board: self.board,
            promoted: self.promoted,
            turn: self.turn,
            castling: self.castling.rights(),
            ep_square: self.capturable_ep_square(),
        }
    }

    /// The one king of `color`, if it has exactly one.
    #[must_use]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.board.kings(color).single()
    }

    /// The pieces of `attacker` that attack `sq`, given the occupancy `occupied`.
    #[must_use]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let b = &self.board;
        let them = b.by_color(attacker);
        ((knight_attacks(sq) & b.by_role(Role::Knight))
            | (king_attacks(sq) & b.by_role(Role::King))
            | (pawn_attacks(attacker.other(), sq) & b.by_role(Role::Pawn))
            | (bishop_attacks(sq, occupied) & b.bishops_and_queens())
            | (rook_attacks(sq, occupied) & b.rooks_and_queens()))
            & them
            & occupied
    }

    /// The pieces giving check to the side to move (empty without exactly one king).
    #[must_use]
    pub fn checkers(&self) -> Bitboard {
        match self.king_of(self.turn) {
            Some(k) => self.attackers_to(k, self.turn.other(), self.board.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Whether any king of `color` is attacked.
    #[must_use]
    pub fn king_attacked(&self, color: Color) -> bool {
        let occupied = self.board.occupied();
        self.board
            .kings(color)
            .into_iter()
            .filter(|&k| self.attackers_to(k, color.other(), occupied).any())
            .count()
            > 0
    }

    /// Whether the side to move is in check.
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.king_attacked(self.turn)
    }

    /// What is impossible in legal play about this position.
    #[must_use]
    pub fn problems(&self) -> Problems {
        let mut p = Problems::default();
        for color in Color::ALL {
            let kings = self.board.kings(color).count();
            if kings == 0 {
                p = p.with(Problems::MISSING_KING);
            } else if kings > 1 {
                p = p.with(Problems::TOO_MANY_KINGS);
            }
            if self.board.by_color(color).count() > 16 {
                p = p.with(Problems::TOO_MANY_PIECES);
            }
        }
        if self.king_attacked(self.turn.other()) {
            p = p.with(Problems::OPPOSITE_CHECK);
        }
        if (self.board.by_role(Role::Pawn) & Bitboard::BACKRANKS).any() {
            p = p.with(Problems::PAWN_ON_BACKRANK);
        }
        p
    }

    /// The pieces of `color` pinned to its king (empty without exactly one king).
    #[must_use]
    pub fn pinned(&self, color: Color) -> Bitboard {
        let Some(ksq) = self.king_of(color) else {
            return Bitboard::EMPTY;
        };
        let b = &self.board;
        let them = b.by_color(color.other());
        let snipers = ((rook_attacks(ksq, Bitboard::EMPTY) & b.rooks_and_queens())
            | (bishop_attacks(ksq, Bitboard::EMPTY) & b.bishops_and_queens()))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(ksq, sniper) & b.occupied();
            if !blockers.more_than_one() {
                pinned |= blockers & b.by_color(color);
            }
        }
        pinned
    }

    fn uses_fast_path(&self) -> bool {
        !self.rules.kings_capturable && self.king_of(self.turn).is_some()
    }

    /// All legal moves of the side to move.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::with_capacity(128);
        self.legal_moves_into(&mut moves);
        moves
    }

    /// Appends all legal moves of the side to move to `moves` (cleared first).
    pub fn legal_moves_into(&self, moves: &mut MoveList) {
        moves.clear();
        if self.uses_fast_path() {
            self.gen_legal(moves, true);
        } else {
            self.gen_pseudo(self.turn, moves);
            if !self.rules.kings_capturable {
                let us = self.turn;
                moves.retain(|m| {
                    let mut after = self.clone();
                    after.play_unchecked(m);
                    !after.king_attacked(us) && self.castle_path_safe(m)
                });
            } else {
                self.koedem_filter(moves);
            }
        }
    }

    /// How many legal moves the side to move has. Drops are counted without being
    /// generated, which is what makes perft with full holdings fast.
    #[must_use]
    pub fn count_legal(&self, scratch: &mut MoveList) -> usize {
        if self.uses_fast_path() {
            scratch.clear();
            let drops = self.gen_legal(scratch, false);
            scratch.len() + drops
        } else {
            self.legal_moves_into(scratch);
            scratch.len()
        }
    }

    /// Koedem: a player holding a king must drop it.
    fn koedem_filter(&self, moves: &mut MoveList) {
        if self.pockets[self.turn].has(Role::King) {
            moves.retain(|m| matches!(m, Move::Drop { piece, .. } if piece.role == Role::King));
        }
    }

    /// The squares where `color` may drop, given the checks against its one king.
    fn drop_targets(&self, checkers: Bitboard, ksq: Square) -> Bitboard {
        let empty = !self.board.occupied();
        match checkers.single() {
            None if checkers.any() => Bitboard::EMPTY,
            None => empty,
            Some(checker) => between(ksq, checker) & empty,
        }
    }

    /// Legal generation for a side with exactly one king. With `with_drops` false the drops
    /// are only counted (returned), not pushed.
    fn gen_legal(&self, moves: &mut MoveList, with_drops: bool) -> usize {
        let us = self.turn;
        let them = us.other();
        let b = &self.board;
        let Some(ksq) = self.king_of(us) else {
            return 0;
        };
        let occ = b.occupied();
        let ours = b.by_color(us);
        let theirs = b.by_color(them);
        let checkers = self.attackers_to(ksq, them, occ);

        // King steps: the destination must not be attacked once the king has left.
        let occ_wo_king = occ.without(ksq);
        for to in king_attacks(ksq) & !ours {
            if self.attackers_to(to, them, occ_wo_king).is_empty() {
                moves.push(Move::Normal {
                    role: Role::King,
                    from: ksq,
                    capture: b.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
        if checkers.more_than_one() {
            return 0;
        }
        let target = match checkers.single() {
            Some(c) => between(ksq, c).with(c),
            None => !ours,
        };
        let pinned = self.pinned(us);

        // Knights, bishops, rooks, queens.
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for from in b.by_role(role) & ours {
                let mut to_set = match role {
                    Role::Knight => knight_attacks(from),
                    Role::Bishop => bishop_attacks(from, occ),
                    Role::Rook => rook_attacks(from, occ),
                    _ => bishop_attacks(from, occ) | rook_attacks(from, occ),
                } & target;
                if pinned.contains(from) {
                    to_set &= ray(ksq, from);
                }
                for to in to_set {
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: b.role_at(to),
                        to,
                        promotion: None,
                    });
                }
            }
        }

        // Pawns.
        let forward: i8 = us.fold(1, -1);
        let last_rank = Bitboard::from_rank(Rank::Eighth.relative_to(us));
        let second_rank = Bitboard::from_rank(Rank::Second.relative_to(us));
        for from in b.by_role(Role::Pawn) & ours {
            let pin_mask = if pinned.contains(from) {
                ray(ksq, from)
            } else {
                Bitboard::FULL
            };
            let mut dests = pawn_attacks(us, from) & theirs & target & pin_mask;
            if let Some(one) = from.offset(0, forward).filter(|s| !occ.contains(*s)) {
                if target.contains(one) && pin_mask.contains(one) {
                    dests.add(one);
                }
                if second_rank.contains(from)
                    && let Some(two) = one.offset(0, forward).filter(|s| !occ.contains(*s))
                    && target.contains(two)
                    && pin_mask.contains(two)
                {
                    dests.add(two);
                }
            }
            for to in dests {
                self.push_pawn_move(moves, from, to, last_rank.contains(to));
            }
            if let Some(ep) = self.ep_square
                && pawn_attacks(us, from).contains(ep)
                && self.ep_is_legal(from, ep, ksq)
            {
                moves.push(Move::EnPassant { from, to: ep });
            }
        }

        // Castling.
        if checkers.is_empty() {
            self.gen_castling(moves, ksq);
        }

        // Drops.
        let targets = self.drop_targets(checkers, ksq);
        let pocket = self.pockets[us];
        let mut counted = 0;
        for role in pocket.roles() {
            let squares = if role == Role::Pawn {
                targets - Bitboard::BACKRANKS
            } else {
                targets
            };
            if with_drops {
                for to in squares {
                    moves.push(Move::Drop {
                        piece: role.of(us),
                        to,
                    });
                }
            } else {
                counted += squares.count();
            }
        }
        counted
    }

    fn push_pawn_move(&self, moves: &mut MoveList, from: Square, to: Square, promotes: bool) {
        let capture = self.board.role_at(to);
        if promotes {
            for promotion in self.rules.promotion_pieces.iter() {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture,
                    to,
                    promotion: Some(promotion),
                });
            }
        } else {
            moves.push(Move::Normal {
                role: Role::Pawn,
                from,
                capture,
                to,
                promotion: None,
            });
        }
    }

    /// En passant can uncover the king along a rank or a diagonal: test it by the result.
    fn ep_is_legal(&self, from: Square, to: Square, ksq: Square) -> bool {
        let us = self.turn;
        let Some(victim) = Square::new((from.rank().index() * 8) + to.file().index()) else {
            return false;
        };
        if self.board.piece_at(victim) != Some(Role::Pawn.of(us.other())) {
            return false;
        }
        let occ = (self.board.occupied().without(from).without(victim)).with(to);
        let them = self.board.by_color(us.other()).without(victim);
        let b = &self.board;
        let sliders = ((rook_attacks(ksq, occ) & b.rooks_and_queens())
            | (bishop_attacks(ksq, occ) & b.bishops_and_queens()))
            & them;
        let leapers = ((knight_attacks(ksq) & b.by_role(Role::Knight))
            | (pawn_attacks(us, ksq) & b.by_role(Role::Pawn))
            | (king_attacks(ksq) & b.by_role(Role::King)))
            & them;
        sliders.is_empty() && leapers.is_empty()
    }

    /// Castling moves whose right, empty path and unattacked king path all hold.
    fn gen_castling(&self, moves: &mut MoveList, ksq: Square) {
        let us = self.turn;
        if ksq != self.castling.king_start(us) {
            return;
        }
        let rooks = self.castling.rights() & home_rank(us) & self.board.by_piece(Role::Rook.of(us));
        for rook in rooks {
            if self.castle_is_possible(ksq, rook) {
                moves.push(Move::Castle { king: ksq, rook });
            }
        }
    }

    /// Path empty and the king neither in check nor passing or landing on an attacked
    /// square.
    fn castle_is_possible(&self, king: Square, rook: Square) -> bool {
        let us = self.turn;
        if !self.castle_path_clear(king, rook) {
            return false;
        }
        let king_to = castle_king_target(king, rook);
        let occ = self.board.occupied().without(king).without(rook);
        let king_path = between(king, king_to).with(king_to).with(king);
        king_path
            .into_iter()
            .all(|sq| self.attackers_to(sq, us.other(), occ).is_empty())
    }

    /// Whether every square the king and the rook pass or land on is empty (but for the two
    /// of them: in Chess960 the king may stand on the rook's target and the other way round).
    fn castle_path_clear(&self, king: Square, rook: Square) -> bool {
        let king_to = castle_king_target(king, rook);
        let rook_to = castle_rook_target(king, rook);
        let occ = self.board.occupied().without(king).without(rook);
        let path = between(king, rook)
            | between(king, king_to).with(king_to)
            | between(rook, rook_to).with(rook_to);
        (path & occ).is_empty()
    }

    /// For the slow path: a castle also needs the king's path unattacked.
    fn castle_path_safe(&self, m: &Move) -> bool {
        match *m {
            Move::Castle { king, rook } => self.castle_is_possible(king, rook),
            _ => true,
        }
    }

    /// Pseudo-legal moves of `color`: right geometry, own pieces not taken, castling with
    /// the right and an empty path, drops from the real holdings; king safety not checked.
    fn gen_pseudo(&self, color: Color, moves: &mut MoveList) {
        let b = &self.board;
        let occ = b.occupied();
        let ours = b.by_color(color);
        let theirs = b.by_color(color.other());
        for from in ours {
            let Some(role) = b.role_at(from) else {
                continue;
            };
            let to_set = match role {
                Role::Pawn => {
                    let forward: i8 = color.fold(1, -1);
                    let mut dests = pawn_attacks(color, from) & theirs;
                    if let Some(one) = from.offset(0, forward).filter(|s| !occ.contains(*s)) {
                        dests.add(one);
                        if Bitboard::from_rank(Rank::Second.relative_to(color)).contains(from)
                            && let Some(two) = one.offset(0, forward).filter(|s| !occ.contains(*s))
                        {
                            dests.add(two);
                        }
                    }
                    let last = Bitboard::from_rank(Rank::Eighth.relative_to(color));
                    for to in dests {
                        self.push_pawn_move(moves, from, to, last.contains(to));
                    }
                    if let Some(ep) = self.ep_square
                        && pawn_attacks(color, from).contains(ep)
                    {
                        moves.push(Move::EnPassant { from, to: ep });
                    }
                    continue;
                }
                Role::Knight => knight_attacks(from),
                Role::Bishop => bishop_attacks(from, occ),
                Role::Rook => rook_attacks(from, occ),
                Role::Queen => bishop_attacks(from, occ) | rook_attacks(from, occ),
                Role::King => king_attacks(from),
            } & !ours;
            for to in to_set {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture: b.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
        // Castling: right and empty path (attacks are legality).
        let king = self.castling.king_start(color);
        if b.piece_at(king) == Some(Role::King.of(color)) {
            let rooks =
                self.castling.rights() & home_rank(color) & b.by_piece(Role::Rook.of(color));
            for rook in rooks {
                if self.castle_path_clear(king, rook) {
                    moves.push(Move::Castle { king, rook });
                }
            }
        }
        let empty = !occ;
        for role in self.pockets[color].roles() {
            let squares = if role == Role::Pawn {
                empty - Bitboard::BACKRANKS
            } else {
                empty
            };
            for to in squares {
                moves.push(Move::Drop {
                    piece: role.of(color),
                    to,
                });
            }
        }
    }

    /// Whether `m` is legal here.
    #[must_use]
    pub fn is_legal(&self, m: &Move) -> bool {
        self.classify(m).is_legal()
    }

    /// The colour of the player making `m`: the piece on its origin square, or the
    /// dropped piece's colour. For a move from an empty square, the side to move.
    #[must_use]
    pub fn mover(&self, m: &Move) -> Color {
        match *m {
            Move::Drop { piece, .. } => piece.color,
            _ => m
                .from()
                .and_then(|from| self.board.color_at(from))
                .unwrap_or(self.turn),
        }
    }

    /// Classifies any physically possible move: legal, or illegal with the rule it breaks.
    ///
    /// The order of the checks gives the most useful reason to an arbiter: out of turn
    /// first, then what is wrong with a drop, then the piece's movement, castling, a
    /// promotion, and last the king left in check.
    #[must_use]
    pub fn classify(&self, m: &Move) -> Legality {
        use IllegalReason::*;
        let mover = self.mover(m);
        if mover != self.turn {
            return Legality::Illegal(OutOfTurn);
        }
        if let Move::Drop { piece, to } = *m {
            if !self.pockets[mover].has(piece.role) {
                return Legality::Illegal(DropNotInHand);
            }
            if piece.role == Role::Pawn && Bitboard::BACKRANKS.contains(to) {
                return Legality::Illegal(PawnDropBackRank);
            }
            if self.board.occupied().contains(to) {
                return Legality::Illegal(BadPieceMovement);
            }
        }
        if self.rules.kings_capturable
            && self.pockets[mover].has(Role::King)
            && !matches!(m, Move::Drop { piece, .. } if piece.role == Role::King)
        {
            return Legality::Illegal(KingNotDropped);
        }
        if let Some(promotion) = m.promotion()
            && !self.rules.promotion_pieces.contains(promotion)
        {
            // Judge the movement first: a bad promotion of a bad move is a bad move.
            let plain = match *m {
                Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    ..
                } => Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion: Some(Role::Queen),
                },
                other => other,
            };
            return match self.classify(&plain) {
                Legality::Legal => Legality::Illegal(BadPromotion),
                other => other,
            };
        }
        let mut pseudo = MoveList::with_capacity(128);
        self.gen_pseudo(mover, &mut pseudo);
        let normalized = self.normalize(m);
        if !pseudo.contains(&normalized) {
            return Legality::Illegal(if self.looks_like_castling(&normalized) {
                CastlingNotAllowed
            } else {
                BadPieceMovement
            });
        }
        if self.rules.kings_capturable {
            return Legality::Legal;
        }
        if let Move::Castle { king, rook } = normalized
            && !self.castle_is_possible(king, rook)
        {
            return Legality::Illegal(CastlingNotAllowed);
        }
        let mut after = self.clone();
        after.play_unchecked(&normalized);
        if after.king_attacked(mover) {
            return Legality::Illegal(LeavesKingInCheck);
        }
        Legality::Legal
    }

    /// The same move as the generator writes it: the capture field from the board, a king
    /// step from its castling square to the g- or c-file that no king step reaches, or onto
    /// its own castling rook (as Chess960's UCI writes it), as castling; a pawn's diagonal step onto the en passant
    /// square as en passant, a pawn reaching the last rank as a queen promotion.
    #[must_use]
    pub fn normalize(&self, m: &Move) -> Move {
        match *m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let role = self.board.role_at(from).unwrap_or(role);
                let color = self.mover(m);
                if role == Role::King
                    && from == self.castling.king_start(color)
                    && from.rank() == to.rank()
                {
                    if self.board.piece_at(to) == Some(Role::Rook.of(color))
                        && self.castling.rights().contains(to)
                    {
                        return Move::Castle {
                            king: from,
                            rook: to,
                        };
                    }
                    if (to.file() == File::G || to.file() == File::C)
                        && !king_attacks(from).contains(to)
                    {
                        let king_side = to.file() == File::G;
                        let corner = if king_side { File::H } else { File::A };
                        let rook = self
                            .castling
                            .rook(color, king_side)
                            .unwrap_or(Square::from_coords(corner, from.rank()));
                        return Move::Castle { king: from, rook };
                    }
                }
                if role == Role::Pawn
                    && Some(to) == self.ep_square
                    && from.file() != to.file()
                    && !self.board.occupied().contains(to)
                {
                    return Move::EnPassant { from, to };
                }
                let promotion = if role == Role::Pawn
                    && to.rank() == Rank::Eighth.relative_to(color)
                    && promotion.is_none()
                {
                    Some(Role::Queen)
                } else {
                    promotion
                };
                Move::Normal {
                    role,
                    from,
                    capture: self.board.role_at(to),
                    to,
                    promotion,
                }
            }
            other => other,
        }
    }

    fn looks_like_castling(&self, m: &Move) -> bool {
        match *m {
            Move::Castle { .. } => true,
            Move::Normal {
                role: Role::King,
                from,
                to,
                ..
            } => from.rank() == to.rank() && from.file().index().abs_diff(to.file().index()) == 2,
            _ => false,
        }
    }

    /// Plays `m` as it physically happened, legal or not, and returns what it took.
    ///
    /// It never fails and never panics: a move from an empty square puts a piece of the
    /// move's role there first (the sensors saw it arrive), a drop of a piece not held
    /// takes nothing from the holdings. The side to move becomes the other colour of the
    /// mover.
    pub fn play(&mut self, m: &Move) -> Played {
        let m = self.normalize(m);
        self.play_unchecked(&m)
    }

    fn play_unchecked(&mut self, m: &Move) -> Played {
        let mover = self.mover(m);
        let mut played = Played::default();
        self.ep_square = None;
        match *m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let piece = self
                    .board
                    .remove_piece_at(from)
                    .unwrap_or(Piece { color: mover, role });
                let was_promoted = self.promoted.contains(from);
                self.promoted.discard(from);
                played.captured = self.take(to);
                let landed = match promotion {
                    Some(p) if piece.role == Role::Pawn => {
                        self.promoted.add(to);
                        p.of(piece.color)
                    }
                    _ => {
                        if was_promoted {
                            self.promoted.add(to);
                        }
                        piece
                    }
                };
                self.board.set_piece_at(to, landed);
                if piece.role == Role::Pawn
                    && from.rank().index().abs_diff(to.rank().index()) == 2
                    && from.file() == to.file()
                {
                    self.ep_square = Square::new((from.index() as u8 + to.index() as u8) / 2);
                }
                // Only the original king castles (Koedem's second king, dropped, moves
                // without touching the rights): the original stands on its home square
                // while it keeps them.
                if piece.role == Role::King && from == self.castling.king_start(piece.color) {
                    self.castling.king_left(piece.color);
                }
                self.castling.discard(from);
                self.castling.discard(to);
            }
            Move::EnPassant { from, to } => {
                let piece = self
                    .board
                    .remove_piece_at(from)
                    .unwrap_or(Role::Pawn.of(mover));
                if let Some(victim) = Square::new(from.rank().index() * 8 + to.file().index()) {
                    played.captured = self.take(victim);
                }
                // A piece standing on the e.p. square would be a physical impossibility;
                // if the sensors say so, it is taken too.
                if let Some(c) = self.take(to) {
                    played.captured.get_or_insert(c);
                }
                self.board.set_piece_at(to, piece);
            }
            Move::Castle { king, rook } => {
                let king_piece = self.board.remove_piece_at(king);
                let rook_piece = self.board.remove_piece_at(rook);
                let king_to = castle_king_target(king, rook);
                let rook_to = castle_rook_target(king, rook);
                played.captured = self.take(king_to).or_else(|| self.take(rook_to));
                self.board
                    .set_piece_at(king_to, king_piece.unwrap_or(Role::King.of(mover)));
                self.board
                    .set_piece_at(rook_to, rook_piece.unwrap_or(Role::Rook.of(mover)));
                self.castling.king_left(mover);
            }
            Move::Drop { piece, to } => {
                self.pockets[piece.color].take(piece.role);
                played.captured = self.take(to);
                self.board.set_piece_at(to, piece);
                if piece.role == Role::Rook && self.rules.castle_with_dropped_rook {
                    let kings = self.board.kings(piece.color);
                    self.castling.rook_dropped(piece.color, to, kings);
                }
            }
        }
        self.turn = mover.other();
        played
    }

    /// Removes whatever stands on `sq`, as a capture.
    fn take(&mut self, sq: Square) -> Option<Captured> {
        let piece = self.board.remove_piece_at(sq)?;
        let promoted = self.promoted.contains(sq);
        self.promoted.discard(sq);
        self.castling.discard(sq);
        if piece.role == Role::King && sq == self.castling.king_start(piece.color) {
            // Koedem: only the original king castles; a king dropped later never does.
            self.castling.king_left(piece.color);
        }
        Some(Captured {
            piece,
            promoted,
            square: sq,
        })
    }

    /// The roles `color` could still receive from the partner: those of which fewer than the
    /// two sets of the match (16 pawns, 4 knights, 4 bishops, 4 rooks, 2 queens) stand on
    /// this board as `color`'s, promoted pieces counting as pawns (000 §10, `rules.md` §3).
    /// Both sets count: `color`'s pieces on the other board and in its players' hands may
    /// all still be captured there and passed, and pieces dropped here came from that set.
    #[must_use]
    pub fn potential_roles(&self, color: Color) -> [bool; 6] {
        let ours = self.board.by_color(color);
        let mut potential = [false; 6];
        for (role, full) in [
            (Role::Pawn, 16),
            (Role::Knight, 4),
            (Role::Bishop, 4),
            (Role::Rook, 4),
            (Role::Queen, 2),
        ] {
            let on_board = if role == Role::Pawn {
                (self.board.by_role(Role::Pawn) & ours).count() + (self.promoted & ours).count()
            } else {
                (self.board.by_role(role) & (ours - self.promoted)).count()
            };
            potential[role.index()] = on_board < full;
        }
        potential
    }

    /// Bughouse checkmate: in check, no legal move with the real holdings, and no drop of a
    /// piece *potentially* in the holdings could parry the check. No mate when kings can be
    /// captured (Koedem) or without exactly one king.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        if self.rules.kings_capturable {
            return false;
        }
        let Some(ksq) = self.king_of(self.turn) else {
            return false;
        };
        let checkers = self.checkers();
        if checkers.is_empty() || !self.legal_moves().is_empty() {
            return false;
        }
        let Some(checker) = checkers.single() else {
            return true; // double check: only the king could answer, and it cannot
        };
        let blocks = between(ksq, checker);
        let potential = self.potential_roles(self.turn);
        let piece_block = blocks.any()
            && [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
                .into_iter()
                .any(|r| potential[r.index()]);
        let pawn_block = (blocks - Bitboard::BACKRANKS).any() && potential[Role::Pawn.index()];
        !(piece_block || pawn_block)
    }

    /// Whether the side to move must wait: no legal move, but not mated (no stalemate in
    /// bughouse: he waits for his partner to pass a piece).
    #[must_use]
    pub fn must_wait(&self) -> bool {
        self.legal_moves().is_empty() && !self.is_checkmate()
    }

    /// Counts the leaves of the legal-move tree to `depth` (perft).
    ///
    /// On one board a capture's piece would leave for the partner's holdings; the published
    /// crazyhouse counts this is checked against keep it in the capturer's own holdings
    /// instead, so perft does that (promoted pieces return as pawns). Move generation is
    /// the same either way.
    ///
    /// ```
    /// use bugbridge::rules::{Position, Ruleset};
    /// assert_eq!(Position::new(Ruleset::default()).perft(2), 400);
    /// ```
    #[must_use]
    pub fn perft(&self, depth: u32) -> u64 {
        let mut buffers: Vec<MoveList> =
            (0..=depth).map(|_| MoveList::with_capacity(256)).collect();
        self.perft_inner(depth, &mut buffers)
    }

    fn perft_inner(&self, depth: u32, buffers: &mut [MoveList]) -> u64 {
        let Some((moves, rest)) = buffers.split_first_mut() else {
            return 1;
        };
        match depth {
            0 => 1,
            1 => self.count_legal(moves) as u64,
            _ => {
                self.legal_moves_into(moves);
                let mut total = 0;
                for m in moves.iter() {
                    let mut child = self.clone();
                    if let Some(c) = child.play_unchecked(m).captured {
                        child.pockets[self.turn].add(c.handoff_role());
                    }
                    total += child.perft_inner(depth - 1, rest);
                }
                total
            }
        }
    }

    /// Whether `a`, `b` and the king of `color` are aligned (used by move inference to tell
    /// a pin from a blunder).
    #[must_use]
    pub fn aligned_with_king(&self, color: Color, a: Square, b: Square) -> bool {
        self.king_of(color).is_some_and(|k| aligned(k, a, b))
    }
}
