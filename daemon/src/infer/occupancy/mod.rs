//! Moves from boards that sense only occupancy (TabuTronic Sentio): which squares hold a
//! piece, never which piece.
//!
//! The game so far is known (a [`BughouseGame`] of both boards, holdings included), so the
//! pieces are too: what is missing is which move a new occupancy shows. Each snapshot of a
//! board is matched against the legal moves of its side to move: a move matches when the
//! board after it is occupied exactly as the snapshot says. Like the clockless inference the
//! last match stays **open** (a slid piece resting on its way, a rook moved before its king
//! castles): it is replaced by a later match from the same position, and becomes final when
//! the board shows something only the next move explains, or at [`OccupancyInference::finish`].
//!
//! What occupancy cannot say, the rules and the order of events do:
//!
//! * **captures**: the victim's square is occupied before and after, so the capture's target
//!   must be a square seen empty since the last move (the order of lifts tells the victim).
//!   A capturer set straight onto its victim shows only its origin emptying: a board still
//!   so for `HELD_MS` (1.5 s) is judged (a hand moving a piece puts it down sooner), and the one
//!   legal capture from there is the open move; several, and the board stalls. The piece put
//!   back undoes it, put down elsewhere replaces it, unless a drop by the opponent would
//!   read the same: then the board stalls A victim's square emptied long after the capturer's lift may be a flicker
//!   or a j'adoube after the capturer was set straight onto another piece: the captures
//!   are followed side by side (see `unsure_victim.rs`);
//! * **order**: a piece lands after it leaves, so a square filled before the moving piece's
//!   own emptied was another piece's (a drop): no move is taken from that;
//! * **castling** and **en passant** are the only moves with their occupancy (a piece of open
//!   kind that may be a pawn stepping onto the en passant square stalls the board: the
//!   capture with its victim lifted last shows the same);
//! * **promotions**: every promotion piece gives the same occupancy: the ruleset's first
//!   promotion piece (the queen) is taken and the move is flagged
//!   ([`KindNote::PromotionAssumed`]) for the arbiter;
//! * **drops**: the kind comes from the dropping player's hand when only one kind is there, or
//!   only one kind may stand on that square (no pawn on a back rank); otherwise the drop is
//!   recorded with its kind **undetermined** ([`KindNote::DropUndetermined`], with the kinds
//!   it may be), never guessed. The game goes on with the first of them as a placeholder so
//!   that later moves can be matched; the record must say the kind is undetermined. A move
//!   of such a piece names every kind whose shape makes it, and settles the kind
//!   ([`Resolution`]) only when one kind alone has that shape.
//!
//! * **look-alikes**: a quiet move whose piece could as well have been set straight onto a
//!   piece it takes, with the opponent holding a piece to drop where the move lands, reads
//!   the same as that capture and the drop. Such a move is made final as any, but handed
//!   on only once the board shows the move after it (or rests after it at the end); when the
//!   board stalls first, it is never handed on. A piece set on a square and taken back to
//!   its own is no move;
//! * **supply late**: a drop made before the capture that supplies it is seen is read
//!   again, with the hand as it is then, once the other board's reading shows the capture.
//!
//! A board that stalls or waits is taken up again by the arbiter's moves (see `resume.rs`).
//!
//! Pure: no I/O, times passed in.

use crate::rules::{
    Bitboard, BoardId, BughouseGame, ByBoard, ByColor, Color, Move, Role, Ruleset, Square,
};

/// How sure the kind of the moved piece is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindNote {
    /// Only one move explains the board.
    Exact,
    /// A promotion: the piece chosen is an assumption (`choices`, the ruleset's pieces).
    PromotionAssumed {
        /// Every piece the pawn may have become.
        choices: Vec<Role>,
    },
    /// A drop whose kind neither the hand nor the square tells: the arbiter must say.
    DropUndetermined {
        /// The kinds it may be (the move carries the first as a placeholder).
        choices: Vec<Role>,
    },
    /// A piece whose kind is still open (an earlier undetermined drop or assumed promotion)
    /// moved as more than one of its kinds could: the squares are sure, the kind is not.
    PieceOpen {
        /// The kinds it may be.
        choices: Vec<Role>,
    },
}

/// A move the occupancy showed, final.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OccupancyMove {
    /// The board.
    pub board: BoardId,
    /// When the snapshot that completed it arrived (ms).
    pub t: u64,
    /// The move (for an undetermined drop, with a placeholder kind).
    pub mv: Move,
    /// How sure its kind is.
    pub note: KindNote,
}

/// A kind left open earlier (a drop's or a promotion's), settled by a later move of that
/// piece that only one of its possible kinds can make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The board.
    pub board: BoardId,
    /// The time of the drop or promotion whose kind it settles.
    pub t: u64,
    /// The kind it was.
    pub role: Role,
    /// Empty when the kind is settled; else the kinds it may still be, `role` the one the
    /// record now carries as a placeholder (a piece the arbiter named that may have been
    /// dropped as its kind or as a pawn that promoted since).
    pub open: Vec<Role>,
}

impl Resolution {
    /// The kind of the drop or promotion of `board` at `t` is `role`, for sure.
    #[must_use]
    pub fn settled(board: BoardId, t: u64, role: Role) -> Resolution {
        Resolution {
            board,
            t,
            role,
            open: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct Assumed {
    /// Where the piece stands now.
    sq: Square,
    /// The kinds it may be, and the one the game carries.
    choices: Vec<Role>,
    role: Role,
    /// It was dropped (its kind came from a hand).
    dropped: bool,
    /// Its colour.
    color: Color,
    /// The time of the move that put it there.
    t: u64,
    /// As a pawn it may have promoted since (when it reached the last rank): what it moves
    /// like no longer tells what it was put down as.
    may_have_promoted: Option<u64>,
}

#[derive(Debug, Clone, Default)]
struct Watch {
    /// Pieces whose kind is not known.
    assumed: Vec<Assumed>,
    /// Squares seen empty since the last final move that were occupied then, in order.
    lifted: Vec<Square>,
    /// The move the board shows now, not final yet.
    open: Option<(Move, KindNote, u64)>,
    /// Squares emptied since the open move was matched.
    since_open: Vec<Square>,
    /// The last snapshot.
    last: Option<u64>,
    /// Squares empty at the last final move that have been seen occupied since.
    appeared: u64,
    /// The squares the moves taken as open since the last final move cover (files, then
    /// ranks, lowest and highest): where a sliding piece may have passed.
    span: Option<[u8; 4]>,
    /// The most squares occupied at the last final move that were empty at once since.
    most_gone: u32,
    /// The squares occupied at the last final move that were empty at the same moment as
    /// another since: two pieces off at once and back read as a capture and a drop where
    /// the capturer stood (see `off_and_back`).
    off_together: u64,
    /// When the board last changed (ms).
    changed_at: u64,
    /// When each square last filled and last emptied.
    changes: SquareChanges,
    /// When each square first filled and first emptied since the last final move (see
    /// `stood_there_first`).
    first: SquareChanges,
    /// The capture taken for a piece held still (see `judge_held`), while it is the open
    /// move: the piece put back undoes it, the piece put elsewhere replaces it.
    held: Option<Move>,
    /// A piece held still that may have taken one of several pieces (see `judge_held`):
    /// each capture it may have made. The board waits: the opponent's reply may tell which
    /// (see `held_then_reply`), or the piece be put down after all.
    held_several: Vec<Move>,
    /// The board state (`changed_at`) a still board was last read for a capture and its
    /// reply (see `held_then_reply_still`): once for each.
    still_read: Option<u64>,
    /// Since when the board has shown what no move explains (see `unsettled`).
    unsettled_since: Option<u64>,
}

impl Watch {
    /// Whether every one of `squares` touches `to` and emptied before `to` last filled:
    /// a piece set beside its square first and then moved over (see `set_beside_first`).
    fn left_before_landing(&self, squares: u64, to: Square) -> bool {
        let landed = self.changes.filled[to.index()];
        landed != 0
            && Bitboard(squares).into_iter().all(|sq| {
                sq != to
                    && sq.file().index().abs_diff(to.file().index()) <= 1
                    && sq.rank().index().abs_diff(to.rank().index()) <= 1
                    && self.changes.emptied[sq.index()] <= landed
            })
    }
}

/// When each square of a board last filled and last emptied (ms; 0: not since the start).
/// A piece reaches its square after it left its own: a square filled before the moving
/// piece's square emptied was filled by another piece (a drop), not by that move.
#[derive(Debug, Clone)]
struct SquareChanges {
    filled: [u64; 64],
    emptied: [u64; 64],
}

impl Default for SquareChanges {
    fn default() -> Self {
        SquareChanges {
            filled: [0; 64],
            emptied: [0; 64],
        }
    }
}

/// The kinds a hand may drop.
const DROP_KINDS: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// How long a board must rest showing exactly its open move before that move is final
/// without a next move (ms; see [`OccupancyInference::commit_at_rest`]): a hand at work
/// changes a board sooner.
const REST_MS: u64 = 3_000;

/// How long a board showing only one piece lifted must stay so before the piece is taken
/// as set straight onto a piece it took (ms): a hand moving a piece puts it down sooner.
const HELD_MS: u64 = 1_500;

/// How long a board may show what no move explains, though it goes on changing, before a
/// drop on its partner's board is read as from a hand nobody knows (ms): a capture its
/// reading misses leaves it so for good, and the partner's drops must not wait for it.
const UNEXPLAINED_MS: u64 = 4_000;

/// How long after its lift a piece moved by hand is set down at the latest (ms): later, the
/// piece may have taken a piece it was set straight onto and the square been filled by the
/// opponent's drop.
pub(super) const SLOW_LANDING_MS: u64 = 800;

/// How long after its lift a capturer that lifts its victim itself lands at the latest (ms):
/// two hand movements (the victim off, the capturer on), each as quick as a move's.
const SLOW_CAPTURE_MS: u64 = 1_200;

/// The longest a victim's square may read empty and a sensor's flicker there read the
/// same (ms): a hand placing the capturer over its victim and pulling the victim out
/// leaves it empty about as briefly.
const BRIEF_VICTIM_MS: u64 = 70;

/// How long a piece must stand on a move's landing square before the moving piece left its
/// own for that piece to be another (ms; see `stood_there_first`): a sensor's ghost reading
/// is briefer.
const STOOD_FIRST_MS: u64 = 300;

/// The rectangle of files and ranks between a move's squares.
fn span_of(mv: &Move) -> Option<[u8; 4]> {
    let from = mv.from()?;
    let to = open_to(mv);
    let (f0, f1) = (from.file().index(), to.file().index());
    let (r0, r1) = (from.rank().index(), to.rank().index());
    Some([f0.min(f1), f0.max(f1), r0.min(r1), r0.max(r1)])
}

fn union(a: Option<[u8; 4]>, b: Option<[u8; 4]>) -> Option<[u8; 4]> {
    match (a, b) {
        (Some(a), Some(b)) => Some([
            a[0].min(b[0]),
            a[1].max(b[1]),
            a[2].min(b[2]),
            a[3].max(b[3]),
        ]),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The occupancy inference of a table.
#[derive(Debug, Clone)]
pub struct OccupancyInference {
    game: BughouseGame,
    rules: Ruleset,
    watch: ByBoard<Watch>,
    resolved: Vec<Resolution>,
    /// Pieces in a hand whose kind is open (a piece of open kind was taken): each the kinds
    /// it may be. A drop from such a hand names all of them among its choices.
    unsure: ByBoard<ByColor<Vec<Vec<Role>>>>,
    /// Boards whose occupancy two readings explain: nothing more is decided there until
    /// the arbiter says (why, for people).
    stalled: ByBoard<Option<String>>,
    /// Moves made final because the board went on, not handed on until the board shows
    /// the next move whose colour it can see (or rests after them at the end): a move that
    /// seemed made while the board was showing something else is never handed on (see
    /// `withhold`). The first is a look-alike, the others drops made after it (a drop does
    /// not show whose it is: one ply more or less reads the same).
    withheld: ByBoard<Vec<OccupancyMove>>,
    /// Withheld moves the next move confirmed, to hand on.
    released: Vec<OccupancyMove>,
    /// A trial reading of `held_then_reply` is under way: it is not nested (one capture
    /// and one reply, no more), and a drop from an unknown hand tells it nothing.
    trying: bool,
    /// Readings of a capture whose victim the board cannot tell yet, followed side by side
    /// (see `speculate.rs`).
    speculation: Option<Box<speculate::Speculation>>,
    /// This is one of those readings (of the board named): it starts none of its own.
    in_fork: Option<BoardId>,
    /// This reading (a fork) waits on a board where it would have begun readings of its
    /// own: it waits in doubt, and falling behind does not refute it (see `speculate`).
    /// Cleared when the board's next move is final.
    doubt: ByBoard<bool>,
    /// Moves made final and withheld that a stall kept from being handed on: the game
    /// holds them, the record does not (see `resume.rs`).
    abandoned: ByBoard<Vec<OccupancyMove>>,
    /// The board whose snapshots are being read again (see `resume.rs`): the other board
    /// is not read at their times, which are past for it.
    reading_again: Option<BoardId>,
}

/// Whether a `role` of `color` on `from` may go to `to` by its shape alone (sliders
/// blocked by `occupied`; a pawn's capture diagonal, its push straight on).
fn shape_fits(
    role: Role,
    color: Color,
    from: Square,
    to: Square,
    occupied: Bitboard,
    capture: bool,
) -> bool {
    if role != Role::Pawn || capture {
        return crate::rules::attacks(role, color, from, occupied).contains(to);
    }
    let step: i8 = if color == Color::White { 1 } else { -1 };
    let (f, r) = (from.file().index(), from.rank().index() as i8);
    let start = if color == Color::White { 1 } else { 6 };
    to.file().index() == f
        && (to.rank().index() as i8 == r + step
            || (r == start && to.rank().index() as i8 == r + 2 * step))
}

/// The squares of a capture onto its victim's square (en passant, whose victim stands
/// elsewhere, is none).
fn capture_squares(m: &Move) -> Option<(Square, Square)> {
    match *m {
        Move::Normal {
            from,
            to,
            capture: Some(_),
            ..
        } => Some((from, to)),
        _ => None,
    }
}

/// Where a move lands (the rook's square for castling, as [`Move::Castle`] names it).
fn open_to(m: &Move) -> Square {
    match *m {
        Move::Normal { to, .. } | Move::EnPassant { to, .. } | Move::Drop { to, .. } => to,
        Move::Castle { rook, .. } => rook,
    }
}

/// Whether two moves move the same squares (they may differ in a piece's kind).
fn same_squares(a: &Move, b: &Move) -> bool {
    a.from() == b.from() && open_to(a) == open_to(b)
}

/// The legal captures of the piece on `from` onto the square of its victim (en passant,
/// whose victim stands elsewhere, left out).
fn captures_from(pos: &crate::rules::Position, from: Square) -> Vec<Move> {
    pos.legal_moves()
        .into_iter()
        .filter(|m| {
            m.from() == Some(from)
                && matches!(
                    m,
                    Move::Normal {
                        capture: Some(_),
                        ..
                    }
                )
        })
        .collect()
}

/// `captures` by their victim's square, in square order (a pawn's capture onto the last
/// rank is one move per promotion piece).
fn by_victim(captures: &[Move]) -> Vec<(Square, Vec<Move>)> {
    let mut out: Vec<(Square, Vec<Move>)> = Vec::new();
    for m in captures {
        match out.iter_mut().find(|(sq, _)| *sq == m.to()) {
            Some((_, of_victim)) => of_victim.push(*m),
            None => out.push((m.to(), vec![*m])),
        }
    }
    out.sort_by_key(|(sq, _)| *sq);
    out
}

/// `trial` with `capture` (by the piece lifted at `lifted_at`) made final, and the moves
/// that made final: a reading in which the piece was set straight onto its victim.
fn capture_made(
    mut trial: OccupancyInference,
    board: BoardId,
    (capture, note): (Move, KindNote),
    lifted_at: u64,
) -> (OccupancyInference, Vec<OccupancyMove>) {
    let mut out = Vec::new();
    trial.set_open(board, capture, note, lifted_at);
    trial.withhold(board, &mut out);
    (trial, out)
}

/// Squares for people, as the stall messages name them: `e4 or d5`.
fn square_names(squares: &[Square]) -> String {
    squares
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

fn occupancy_after(game: &BughouseGame, board: BoardId, m: &Move) -> u64 {
    let mut pos = game.board(board).clone();
    pos.play(m);
    pos.board().occupied().0
}

impl OccupancyInference {
    /// Both boards in the start position.
    #[must_use]
    pub fn new(rules: Ruleset) -> Self {
        OccupancyInference::from_game(BughouseGame::new(rules), rules)
    }

    /// From a game in progress (a set-up position, a restart).
    #[must_use]
    pub fn from_game(game: BughouseGame, rules: Ruleset) -> Self {
        OccupancyInference {
            game,
            rules,
            watch: ByBoard::default(),
            resolved: Vec::new(),
            unsure: ByBoard::default(),
            stalled: ByBoard::default(),
            withheld: ByBoard::default(),
            released: Vec::new(),
            trying: false,
            speculation: None,
            in_fork: None,
            doubt: ByBoard::default(),
            abandoned: ByBoard::default(),
            reading_again: None,
        }
    }

    /// The game as decided so far (open moves not included).
    #[must_use]
    pub fn game(&self) -> &BughouseGame {
        &self.game
    }

    fn base(&self, board: BoardId) -> u64 {
        self.game.board(board).board().occupied().0
    }

    /// Why `board` is stalled, when it is: two readings explain what it shows, so nothing
    /// more is decided there (the arbiter must enter the moves).
    #[must_use]
    pub fn stalled(&self, board: BoardId) -> Option<&str> {
        if self.stall_deferred(board) {
            return None;
        }
        self.stalled[board].as_deref()
    }

    /// Kinds settled by later moves since the last call.
    pub fn take_resolutions(&mut self) -> Vec<Resolution> {
        std::mem::take(&mut self.resolved)
    }

    /// The moves of the side to move that give exactly `occ`, with their note. A move of a
    /// piece whose kind is open is flagged when another of its kinds also explains the board.
    fn matches(&self, board: BoardId, occ: u64) -> Option<(Move, KindNote)> {
        let (mv, note) = self.matches_in(&self.game, board, occ)?;
        let Some(from) = mv.from() else {
            return Some((mv, note));
        };
        let Some(a) = self.watch[board].assumed.iter().rfind(|a| a.sq == from) else {
            return Some((mv, note));
        };
        let mut kinds = vec![a.role];
        for &role in a.choices.iter().filter(|&&r| r != a.role) {
            if let Some(game) = self.with_kind(board, a, role)
                && self.matches_in(&game, board, occ).is_some()
            {
                kinds.push(role);
            }
        }
        // What the other pieces' placeholder kinds allow may be wrong: every kind whose
        // shape makes the move is named too.
        let occupied = Bitboard(self.base(board));
        kinds.extend(
            a.choices
                .iter()
                .copied()
                .filter(|&r| shape_fits(r, a.color, from, mv.to(), occupied, mv.is_capture())),
        );
        kinds.sort();
        kinds.dedup();
        if kinds.len() > 1 {
            return Some((mv, KindNote::PieceOpen { choices: kinds }));
        }
        Some((mv, note))
    }

    /// The game with the open-kind piece `a` of `board` taken as `role`. A dropped piece's
    /// hand gets the placeholder back and gives `role` when it holds one; when it does not
    /// (the kind came from a capture still in the air, or from another open kind), the hand
    /// is left as it was: its count is as unsure as the kind.
    fn with_kind(&self, board: BoardId, a: &Assumed, role: Role) -> Option<BughouseGame> {
        let promoted = self.game.board(board).promoted().contains(a.sq);
        self.with_kind_as(board, a, role, promoted)
    }

    /// As [`OccupancyInference::with_kind`], with whether the piece is a promoted pawn
    /// given: a dropped piece that promoted was dropped as a pawn, and a promoted piece
    /// goes back to a hand as a pawn when taken.
    fn with_kind_as(
        &self,
        board: BoardId,
        a: &Assumed,
        role: Role,
        promoted: bool,
    ) -> Option<BughouseGame> {
        let mut game = self.game.clone();
        let pos = game.board_mut(board);
        let piece = pos.board().piece_at(a.sq)?;
        if a.dropped {
            let given = |promoted: bool, role: Role| if promoted { Role::Pawn } else { role };
            let was = given(pos.promoted().contains(a.sq), a.role);
            let pocket = &mut pos.pockets_mut()[piece.color];
            pocket.add(was);
            if !pocket.take(given(promoted, role)) {
                pocket.take(was);
            }
        }
        pos.set_piece_at(
            a.sq,
            crate::rules::Piece {
                color: piece.color,
                role,
            },
        );
        pos.set_promoted(a.sq, promoted);
        Some(game)
    }

    /// As [`OccupancyInference::matches`], in `game`.
    fn matches_in(
        &self,
        game: &BughouseGame,
        board: BoardId,
        occ: u64,
    ) -> Option<(Move, KindNote)> {
        self.matches_lifted(game, board, occ, &self.watch[board].lifted)
    }

    /// As [`OccupancyInference::matches_in`], with the squares seen emptied given.
    fn matches_lifted(
        &self,
        game: &BughouseGame,
        board: BoardId,
        occ: u64,
        lifted: &[Square],
    ) -> Option<(Move, KindNote)> {
        let pos = game.board(board);
        let fits: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| occupancy_after(game, board, m) == occ)
            .filter(|m| match m {
                // The victim's square must have been seen empty (lifted, then taken), and
                // not filled again before the capturer left its own: a piece put back
                // (read, lost and read again, adjusted) is no victim.
                Move::Normal {
                    capture: Some(_),
                    from,
                    to,
                    ..
                } => {
                    let c = &self.watch[board].changes;
                    lifted.contains(to) && c.filled[to.index()] >= c.emptied[from.index()]
                }
                _ => true,
            })
            .filter(|m| self.landed_after_leaving(board, m))
            .collect();
        if fits.is_empty() {
            return self.drop_from_unknown_hand(game, board, occ);
        }
        let first = fits[0];
        if let Move::Drop { to, .. } = first {
            let mut concrete: Vec<Role> = fits
                .iter()
                .filter_map(|m| match m {
                    Move::Drop { piece, .. } => Some(piece.role),
                    _ => None,
                })
                .collect();
            concrete.sort();
            let mut choices = concrete.clone();
            let back_rank = matches!(to.rank().index(), 0 | 7);
            for entry in &self.unsure[board][pos.turn()] {
                choices.extend(entry.iter().filter(|&&r| !(r == Role::Pawn && back_rank)));
            }
            // A capture under way on the other board may be about to fill this hand: the
            // pieces of the dropper's colour in the air there are possible kinds too.
            let other = board.other();
            let mover = pos.turn();
            // A piece held still there, taken as set onto a victim, has its victim in the
            // air too.
            let held: Vec<Square> = self.watch[other]
                .held
                .iter()
                .chain(&self.watch[other].held_several)
                .map(Move::to)
                .collect();
            for sq in self.watch[other].lifted.iter().chain(&held) {
                if let Some(p) = game.board(other).board().piece_at(*sq)
                    && p.color == mover
                    && p.role != Role::King
                    && !(p.role == Role::Pawn && back_rank)
                {
                    let role = if game.board(other).promoted().contains(*sq) {
                        Role::Pawn
                    } else {
                        p.role
                    };
                    if !(role == Role::Pawn && back_rank) {
                        choices.push(role);
                    }
                }
            }
            if self.stalled[other].is_some() || self.unsettled(game, other) {
                // What the other board's captures supplied is unknown (it stalled, or shows
                // changes no move explains yet): any kind may be.
                choices.extend(
                    DROP_KINDS
                        .into_iter()
                        .filter(|&r| !(r == Role::Pawn && back_rank)),
                );
            }
            choices.sort();
            choices.dedup();
            let note = if choices.len() == 1 {
                KindNote::Exact
            } else {
                KindNote::DropUndetermined {
                    choices: choices.clone(),
                }
            };
            let piece = crate::rules::Piece {
                color: pos.turn(),
                role: concrete[0],
            };
            return Some((Move::Drop { piece, to }, note));
        }
        let promotions: Vec<Role> = fits
            .iter()
            .filter_map(|m| match m {
                Move::Normal {
                    promotion: Some(r), ..
                } => Some(*r),
                _ => None,
            })
            .collect();
        if promotions.len() > 1 {
            let default = self
                .rules
                .promotion_pieces
                .iter()
                .find(|r| promotions.contains(r))
                .unwrap_or(promotions[0]);
            let mv = fits
                .iter()
                .copied()
                .find(|m| matches!(m, Move::Normal { promotion: Some(r), .. } if *r == default))
                .unwrap_or(first);
            let mut choices = promotions;
            choices.sort();
            choices.dedup();
            return Some((mv, KindNote::PromotionAssumed { choices }));
        }
        // Several captures from one square to several lifted squares: the victim is the one
        // lifted last (an earlier lift belongs to a move given up).
        let mv = fits
            .iter()
            .copied()
            .max_by_key(|m| match m {
                Move::Normal { to, .. } => lifted.iter().position(|s| s == to).unwrap_or(0),
                _ => 0,
            })
            .unwrap_or(first);
        Some((mv, KindNote::Exact))
    }

    /// One piece set down where the board had none, nothing else changed, and no piece in
    /// the hand of the side to move may go there, while the other board (whose captures fill
    /// that hand) is stalled: what it gave is not known, so this is a drop of a kind
    /// nobody can tell. It is recorded with every kind that may stand there, the first as a
    /// placeholder (the hand is not charged for it).
    fn drop_from_unknown_hand(
        &self,
        game: &BughouseGame,
        board: BoardId,
        occ: u64,
    ) -> Option<(Move, KindNote)> {
        if self.trying {
            // Too weak to tell which capture a reply follows (see `held_then_reply`).
            return None;
        }
        let other = board.other();
        let now = self.watch[board].changed_at;
        let stuck = self.stalled[other].is_some()
            || (self.unsettled(&self.game, other)
                && (self.watch[other].changed_at + HELD_MS <= now
                    || self.watch[other]
                        .unsettled_since
                        .is_some_and(|since| since + UNEXPLAINED_MS <= now)));
        if !stuck {
            return None;
        }
        self.unknown_hand_drop(game, board, occ)
    }

    /// The drop `occ` shows on `board` (one piece set down, nothing else changed), from a
    /// hand nobody knows: every kind that may stand there, the first as a placeholder.
    fn unknown_hand_drop(
        &self,
        game: &BughouseGame,
        board: BoardId,
        occ: u64,
    ) -> Option<(Move, KindNote)> {
        let pos = game.board(board);
        let base = pos.board().occupied().0;
        let new = occ & !base;
        if base & !occ != 0 || new.count_ones() != 1 {
            return None;
        }
        let to = Bitboard(new).into_iter().next()?;
        let mut any = pos.clone();
        let turn = any.turn();
        for role in DROP_KINDS {
            any.pockets_mut()[turn].add(role);
        }
        let mut choices: Vec<Role> = any
            .legal_moves()
            .into_iter()
            .filter_map(|m| match m {
                Move::Drop { piece, to: t } if t == to => Some(piece.role),
                _ => None,
            })
            .collect();
        choices.sort();
        choices.dedup();
        let piece = crate::rules::Piece {
            color: turn,
            role: *choices.first()?,
        };
        Some((
            Move::Drop { piece, to },
            KindNote::DropUndetermined { choices },
        ))
    }

    /// Whether the piece `m` moves was read on its landing square no earlier than its own
    /// square emptied (the last time each did). A square filled while the piece still stood
    /// took another piece: a drop, with the piece lifted for the next move (or a capturer
    /// set straight onto its victim, the drop following). Castling (the king may be set on
    /// the rook) and promotions (the new piece may be set down before the pawn is taken
    /// away) are left out.
    fn landed_after_leaving(&self, board: BoardId, m: &Move) -> bool {
        let (from, to) = match *m {
            Move::Normal {
                from,
                to,
                promotion: None,
                ..
            }
            | Move::EnPassant { from, to } => (from, to),
            _ => return true,
        };
        let c = &self.watch[board].changes;
        c.filled[to.index()] >= c.emptied[from.index()]
    }

    /// Whether `board` shows changes that neither its position nor its open move explain
    /// (a piece in a hand, a capture not recognised yet).
    fn unsettled(&self, game: &BughouseGame, board: BoardId) -> bool {
        let w = &self.watch[board];
        let Some(last) = w.last else {
            return false;
        };
        let base = game.board(board).board().occupied().0;
        last != base
            && w.open
                .as_ref()
                .is_none_or(|(m, _, _)| occupancy_after(game, board, m) != last)
    }

    fn commit(&mut self, board: BoardId) -> Option<OccupancyMove> {
        let (mv, note, t) = self.watch[board].open.take()?;
        *self.doubt.get_mut(board) = false;
        self.watch[board].held = None;
        self.watch[board].held_several.clear();
        self.game.play(board, &mv, t);
        self.watch[board].lifted.clear();
        self.watch[board].appeared = self.watch[board].last.unwrap_or(0) & !self.base(board);
        self.watch[board].first = SquareChanges::default();
        self.watch[board].span = None;
        let gone = self.base(board) & !self.watch[board].last.unwrap_or(0);
        self.watch[board].most_gone = gone.count_ones();
        self.watch[board].off_together = if gone.count_ones() >= 2 { gone } else { 0 };
        self.follow(board, &mv, &note, t);
        Some(OccupancyMove { board, t, mv, note })
    }

    /// Keeps track of the pieces whose kind is open: where they go, whether they are taken.
    fn follow(&mut self, board: BoardId, mv: &Move, note: &KindNote, t: u64) {
        // What an undetermined drop or a captured piece of open kind left open in a hand
        // stays open for good: an emptied hand may have emptied of other kinds than the
        // placeholders it gave, so it says nothing about the kinds it holds later.
        let mover = self.game.board(board).turn().other();
        let w = &mut self.watch[board];
        let (from, to) = match *mv {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (Some(from), to),
            Move::Castle { king, rook } => (Some(king), rook),
            Move::Drop { to, .. } => (None, to),
        };
        // Every entry on the square taken goes (a dropped piece that promoted there has two:
        // what it was dropped as, what it became), lest the capturer inherit one.
        let (taken, kept): (Vec<Assumed>, Vec<Assumed>) = std::mem::take(&mut w.assumed)
            .into_iter()
            .partition(|a| a.sq == to);
        w.assumed = kept;
        for taken in taken.into_iter().filter(|a| a.dropped) {
            // Its kind goes on being open in the partner's hand (a pawn's, when it may
            // have promoted: a promoted piece goes to the hand as a pawn).
            let mut kinds = taken.choices;
            if taken.may_have_promoted.is_some() && !kinds.contains(&Role::Pawn) {
                kinds.push(Role::Pawn);
            }
            self.unsure[board.other()][taken.color].push(kinds);
        }
        if let Some(from) = from {
            self.follow_open_kind(board, mv, from, to, t);
        }
        let w = &mut self.watch[board];
        match (note, mv) {
            (KindNote::DropUndetermined { choices }, Move::Drop { piece, .. }) => {
                // The hand lost a piece of one of these kinds, not surely the placeholder's:
                // what stays in it is open the same way.
                self.unsure[board][piece.color].push(choices.clone());
                let w = &mut self.watch[board];
                w.assumed.push(Assumed {
                    sq: to,
                    choices: choices.clone(),
                    role: piece.role,
                    dropped: true,
                    color: piece.color,
                    t,
                    may_have_promoted: None,
                });
            }
            (
                KindNote::PromotionAssumed { choices },
                Move::Normal {
                    promotion: Some(role),
                    ..
                },
            ) => {
                w.assumed.push(Assumed {
                    sq: to,
                    choices: choices.clone(),
                    role: *role,
                    dropped: false,
                    color: mover,
                    t,
                    may_have_promoted: None,
                });
            }
            _ => {}
        }
    }

    /// A piece of open kind went from `from` to `to` in `mv` (the game has played it): it
    /// goes along, and its kinds narrow to those whose shape makes the move; one left
    /// settles it. As a pawn onto the last rank it may have promoted, and from then on its
    /// pawn kind stands for a promoted pawn of any kind, which later moves cannot rule out
    /// by the pawn's shape.
    fn follow_open_kind(&mut self, board: BoardId, mv: &Move, from: Square, to: Square, t: u64) {
        let last_rank = matches!(to.rank().index(), 0 | 7);
        let occupied = Bitboard(self.base(board));
        let shaped = matches!(mv, Move::Normal { .. } | Move::EnPassant { .. });
        let capture = mv.is_capture();
        let w = &mut self.watch[board];
        let mut settled = Vec::new();
        for (i, a) in w.assumed.iter_mut().enumerate() {
            if a.sq != from {
                continue;
            }
            a.sq = to;
            if shaped {
                let fits: Vec<Role> = a
                    .choices
                    .iter()
                    .copied()
                    .filter(|&r| {
                        r == a.role
                            || (r == Role::Pawn && a.may_have_promoted.is_some())
                            || shape_fits(r, a.color, from, to, occupied, capture)
                    })
                    .collect();
                a.choices = fits;
            }
            if last_rank && a.choices.contains(&Role::Pawn) && a.may_have_promoted.is_none() {
                a.may_have_promoted = Some(t);
            }
            if a.choices == [a.role] && a.may_have_promoted.is_none() {
                settled.push(i);
            }
        }
        for i in settled.into_iter().rev() {
            let a = w.assumed.remove(i);
            self.resolved.push(Resolution::settled(board, a.t, a.role));
        }
    }

    /// Nothing matches `occ`: maybe a piece of open kind is not the placeholder its kind
    /// carries (it moved as only another of its kinds can, or as another kind it does not
    /// pin, check or block what the placeholder would). Every other kind of every such piece
    /// is tried; when those that explain the board all give the same move, the move is
    /// taken and the piece's kinds narrow to them (settled when one is left). Two different
    /// moves: nothing is decided.
    fn resolve(&mut self, board: BoardId, occ: u64) -> Option<(Move, KindNote)> {
        let mut found: Vec<(usize, Role, bool, BughouseGame, Move, KindNote)> = Vec::new();
        let assumed = &self.watch[board].assumed;
        for (i, a) in assumed.iter().enumerate() {
            if assumed[i + 1..].iter().any(|b| b.sq == a.sq) {
                // A dropped piece that promoted since: the later entry (what it became)
                // is its kind now.
                continue;
            }
            for (role, promoted) in self.other_kinds(board, a) {
                let Some(game) = self.with_kind_as(board, a, role, promoted) else {
                    continue;
                };
                if let Some((m, note)) = self.matches_in(&game, board, occ) {
                    found.push((i, role, promoted, game, m, note));
                }
            }
        }
        let (i, _, _, _, m, _) = found.first()?;
        let (i, m) = (*i, *m);
        if found
            .iter()
            .any(|(j, _, _, _, other, _)| *j != i || !same_squares(other, &m))
        {
            return None;
        }
        if self.stall_en_passant_lookalike(board, &m)
            || self.stall_open_kind_lookalike(board, i, &m)
            || self.stall_brief_open_kind_victim(board, i, &m)
            || self.stall_unsure_victim(board, &m)
            || self.stall_slow_capture(board, &m)
        {
            return None;
        }
        let (_, role, promoted, game, m, note) = found.swap_remove(0);
        self.game = game;
        Some(self.narrow_kinds(board, i, (role, promoted), m, note))
    }

    /// The piece of open kind `assumed[i]` of `board` was taken as `role` (promoted or not)
    /// for `m`, which the game now carries: its kinds narrow to those whose shape makes its
    /// own move (settled when one is left), and the move's note names them. Only the shape
    /// of the piece's own move settles its kind: what the other pieces' placeholder kinds
    /// allow (a pin, a check, a block) may be wrong themselves.
    fn narrow_kinds(
        &mut self,
        board: BoardId,
        i: usize,
        (role, promoted): (Role, bool),
        m: Move,
        note: KindNote,
    ) -> (Move, KindNote) {
        let a = &self.watch[board].assumed[i];
        let own = m.from() == Some(a.sq);
        let occupied = Bitboard(self.base(board));
        let shape = |r: Role| shape_fits(r, a.color, a.sq, m.to(), occupied, m.is_capture());
        let promotable = Self::promotable(a);
        // The kinds it may be as put down, and as a promoted pawn.
        let fits: Vec<Role> = a
            .choices
            .iter()
            .copied()
            .filter(|&r| !(promotable && r == Role::Pawn) && shape(r))
            .collect();
        let promoted_fits: Vec<Role> = if promotable {
            self.rules
                .promotion_pieces
                .iter()
                .filter(|&r| shape(r))
                .collect()
        } else {
            Vec::new()
        };
        if own && promoted_fits.is_empty() && fits == [role] {
            let a = self.watch[board].assumed.remove(i);
            if a.may_have_promoted.is_none() || promotable {
                self.resolved.push(Resolution::settled(board, a.t, role));
            }
            return (m, note);
        }
        if own && promoted && fits.is_empty() {
            // Only a promoted pawn makes the move: it was put down as a pawn, and is a
            // promoted piece of the kinds that make it.
            let mut a = self.watch[board].assumed.remove(i);
            if a.dropped {
                self.resolved
                    .push(Resolution::settled(board, a.t, Role::Pawn));
            }
            if promoted_fits.len() == 1 {
                return (m, note);
            }
            a.dropped = false;
            // Its kind is now that of the move that promoted it.
            a.t = a.may_have_promoted.take().unwrap_or(a.t);
            a.role = role;
            a.choices = promoted_fits.clone();
            self.watch[board].assumed.insert(i, a);
            return (
                m,
                KindNote::PieceOpen {
                    choices: promoted_fits,
                },
            );
        }
        let a = &mut self.watch[board].assumed[i];
        a.role = role;
        if own && promotable {
            let mut choices = fits.clone();
            if !promoted_fits.is_empty() {
                choices.push(Role::Pawn);
            }
            if promoted_fits.is_empty() {
                a.may_have_promoted = None;
            }
            a.choices = choices;
            let mut kinds = fits;
            kinds.extend(promoted_fits);
            kinds.sort();
            kinds.dedup();
            return (m, KindNote::PieceOpen { choices: kinds });
        }
        if own && fits.contains(&role) {
            a.choices = fits.clone();
            return (m, KindNote::PieceOpen { choices: fits });
        }
        // The move is another piece's: when its kind is open too, every kind whose shape
        // makes the move is named.
        if let Some(from) = m.from()
            && let Some(b) = self.watch[board].assumed.iter().rfind(|b| b.sq == from)
        {
            let mut kinds: Vec<Role> = b
                .choices
                .iter()
                .copied()
                .filter(|&r| shape_fits(r, b.color, from, m.to(), occupied, m.is_capture()))
                .collect();
            kinds.push(b.role);
            kinds.sort();
            kinds.dedup();
            if kinds.len() > 1 {
                return (m, KindNote::PieceOpen { choices: kinds });
            }
        }
        (m, note)
    }

    /// Whether the piece of open kind `a` may be a pawn that promoted: its pawn kind then
    /// stands for a promoted piece of any kind.
    fn promotable(a: &Assumed) -> bool {
        a.may_have_promoted.is_some() && a.choices.contains(&Role::Pawn)
    }

    /// The kinds other than its placeholder the piece of open kind `a` of `board` may be,
    /// each with whether it is a promoted pawn (a promotion's piece is one whatever its
    /// kind; a piece put down that may have promoted is one only as a pawn).
    fn other_kinds(&self, board: BoardId, a: &Assumed) -> Vec<(Role, bool)> {
        let promotable = Self::promotable(a);
        let promoted = !promotable && self.game.board(board).promoted().contains(a.sq);
        let mut kinds: Vec<(Role, bool)> = a
            .choices
            .iter()
            .copied()
            .filter(|&r| r != a.role && !(promotable && r == Role::Pawn))
            .map(|r| (r, promoted))
            .collect();
        if promotable {
            kinds.extend(
                self.rules
                    .promotion_pieces
                    .iter()
                    .filter(|&r| r != a.role)
                    .map(|r| (r, true)),
            );
        }
        kinds
    }

    /// A snapshot of `board` at `t` (bit = square index, a1 = bit 0). Returns the moves
    /// that became final.
    pub fn feed(&mut self, board: BoardId, t: u64, occ: u64) -> Vec<OccupancyMove> {
        let mut out = self.feed_inner(board, t, occ);
        if self.reading_again.is_none() {
            out.extend(self.read_supplied(board.other(), t));
        }
        for b in BoardId::ALL {
            if self.stalled[b].is_some() {
                // What made the board stall may be what the withheld move took for its
                // own: it is not handed on (the arbiter's moves replace it, see `resume`).
                let dropped = std::mem::take(&mut self.withheld[b]);
                self.abandoned[b].extend(dropped);
            }
        }
        out.append(&mut self.released);
        out.sort_by_key(|m| m.t);
        // A look-alike quiet move stalls the board while readings run side by side, and
        // they stall the same way: the main reading says so first, or the readings would
        // be taken for ones that went otherwise. With none running, it may begin them.
        let running = self.speculation.is_some();
        if running {
            self.fork_lookalike(board, t, occ);
        }
        self.speculate(board, t, occ, &mut out);
        if !running {
            self.fork_lookalike(board, t, occ);
        }
        for b in BoardId::ALL {
            let unsettled = self.unsettled(&self.game, b);
            let w = &mut self.watch[b];
            if !unsettled {
                w.unsettled_since = None;
            } else if w.unsettled_since.is_none() {
                w.unsettled_since = Some(t);
            }
        }
        out
    }

    /// When `board` shows what no move explained, reads it again at `t` with the hand as
    /// it is now: a drop made before the capture on the other board that supplies it was
    /// seen there.
    fn read_supplied(&mut self, board: BoardId, t: u64) -> Vec<OccupancyMove> {
        let w = &self.watch[board];
        if self.stalled[board].is_some() || w.open.is_some() || !self.unsettled(&self.game, board) {
            return Vec::new();
        }
        let Some(last) = w.last else {
            return Vec::new();
        };
        let still_since = w.changed_at;
        let out = self.feed_inner(board, t, last);
        self.watch[board].changed_at = still_since;
        out
    }

    fn feed_inner(&mut self, board: BoardId, t: u64, occ: u64) -> Vec<OccupancyMove> {
        let mut out = Vec::new();
        for b in [board.other(), board] {
            self.judge_held(b, t);
        }
        self.watch[board].changed_at = t;
        if self.stalled[board].is_some() {
            return out;
        }
        let base = self.base(board);
        let before = self.watch[board].last.unwrap_or(base);
        self.watch[board].last = Some(occ);
        let w = &mut self.watch[board];
        for sq in Bitboard(before & !occ) {
            w.since_open.push(sq);
            w.changes.emptied[sq.index()] = t;
            if w.first.emptied[sq.index()] == 0 {
                w.first.emptied[sq.index()] = t;
            }
        }
        for sq in Bitboard(occ & !before) {
            w.changes.filled[sq.index()] = t;
            if w.first.filled[sq.index()] == 0 {
                w.first.filled[sq.index()] = t;
            }
        }
        for sq in Bitboard(base & !occ) {
            if !self.watch[board].lifted.contains(&sq) {
                self.watch[board].lifted.push(sq);
            }
        }
        self.watch[board].appeared |= occ & !base;
        let gone = (base & !occ).count_ones();
        self.watch[board].most_gone = self.watch[board].most_gone.max(gone);
        if gone >= 2 {
            self.watch[board].off_together |= base & !occ;
        }
        if (occ & !base).count_ones() == 1 && (base & !occ) == 0 {
            // A piece appeared: a drop. The hand must hold what the other board's captures
            // gave it, so a capture still open there is final first.
            out.extend(self.supply(board, occ));
        }
        if let Some((mv, note)) = self.matches_checked(board, occ) {
            if self.off_and_back(board, &mv, occ) {
                return out;
            }
            if let Some(held) = self.held_readings(board).into_iter().find(|held| {
                *held != mv
                    && (mv.from() == held.from() && self.drop_may_follow(board, held, occ, t)
                        || mv.from() != held.from() && self.watch[board].held.is_none())
            }) {
                // The piece held still was put down elsewhere after all, or it was set onto
                // a victim and the opponent dropped a piece where it now shows; or, one of
                // several victims possible, it was put back while a piece was put down
                // elsewhere (or it took, and drops followed).
                self.stalled[board] = Some(format!(
                    "board {board}: the piece from {} was held, then {} filled: {mv:?}, or {held:?} and a piece dropped there; the board cannot tell",
                    held.from().map(|s| s.to_string()).unwrap_or_default(),
                    open_to(&mv)
                ));
                self.forget_held(board);
                return out;
            }
            if let Some(held) = self.watch[board].held
                && mv != held
                && mv.from() == held.from()
            {
                // The piece held still was put down elsewhere after all (no drop reads the
                // same: see above).
                self.set_open(board, mv, note, t);
                return out;
            }
            match self.watch[board].open {
                Some((open, _, _)) if open != mv && !self.may_replace(board, &open, &mv) => {
                    // The open move's piece still stands where it landed: what changed since
                    // is the next move's.
                    self.withhold(board, &mut out);
                    self.after_commit(board, t, occ, &mut out);
                }
                _ => self.set_open(board, mv, note, t),
            }
            return out;
        }
        if self.stalled[board].is_some() {
            return out;
        }
        if occ == base {
            if let Some((
                open @ Move::Normal {
                    capture: Some(_),
                    from,
                    to,
                    ..
                },
                _,
                _,
            )) = self.watch[board].open
                && self.watch[board].lifted.contains(&to)
            {
                // The capture was made and a piece dropped where the capturer stood, or
                // both pieces were put back: occupancy cannot tell.
                self.stalled[board] = Some(format!(
                    "board {board}: {open:?} was made and a piece dropped on {from}, or both pieces were put back: the board cannot tell"
                ));
                return out;
            }
            if self.dropped_piece_lifted(board) {
                // The piece just dropped was lifted again: read, lost and read again as it
                // is set down, taken back, or the victim of a capture under way. The drop
                // stays open: the next readings tell.
                return out;
            }
            if self.watch[board].appeared != 0 && !self.set_down_and_taken_back(board) {
                self.stalled[board] = Some(format!(
                    "board {board}: pieces were put down and taken away, and the board is back as it was: more happened than the board can tell"
                ));
                return out;
            }
            if self.watch[board].most_gone >= 2 {
                self.stalled[board] = Some(format!(
                    "board {board}: two pieces were lifted at once and the board is back as it was: a capture and a drop where the capturer stood, or both pieces put back; the board cannot tell"
                ));
                return out;
            }
            if let Some(held) = self
                .held_readings(board)
                .into_iter()
                .find(|held| self.drop_may_follow(board, held, occ, t))
            {
                self.stalled[board] = Some(format!(
                    "board {board}: the piece from {} was held and the square filled again: put back, or {held:?} and a piece dropped where it stood; the board cannot tell",
                    held.from().map(|s| s.to_string()).unwrap_or_default()
                ));
                self.forget_held(board);
                return out;
            }
            // Lifted and put back: no move (or, when a capture and a drop read the same,
            // that and the other reading side by side, the board waiting meanwhile).
            let forked = self.fork_put_back(board, t, occ);
            if !forked {
                self.put_back(board);
            }
            return out;
        }
        if let Some((open, _, _)) = self.watch[board].open
            && self.continues(board, &open, occ)
        {
            return out;
        }
        if self.watch[board].open.is_some() {
            if self.stall_open_kind_slide(board, occ) {
                return out;
            }
            // Only the next move explains it: the open one is final.
            self.withhold(board, &mut out);
            self.after_commit(board, t, occ, &mut out);
            return out;
        }
        self.last_resort(board, t, occ, &mut out);
        out
    }

    /// A board that has shown one piece lifted and nothing else changed since its last final
    /// move, for [`HELD_MS`] and more, is judged: a hand moving a piece puts it down sooner,
    /// so the piece was set straight onto a piece it took (the victim pushed off: its square
    /// never read empty). Pieces lifted and put back before (a j'adoube, the opponent's
    /// while he thinks after that capture) do not change this. Exactly one legal capture
    /// from there: that is the move. Several, or a piece whose kind is open: the board cannot
    /// tell, and stalls.
    fn judge_held(&mut self, board: BoardId, t: u64) {
        let w = &self.watch[board];
        if self.stalled[board].is_some() || w.open.is_some() || t < w.changed_at + HELD_MS {
            return;
        }
        let Some(last) = w.last else {
            return;
        };
        let base = self.base(board);
        let gone = base & !last;
        if last & !base != 0 || gone.count_ones() != 1 || w.appeared != 0 {
            self.held_then_reply_still(board, t);
            return;
        }
        let Some(from) = Bitboard(gone).into_iter().next() else {
            return;
        };
        if w.most_gone >= 3 {
            // Two more pieces were off at once meanwhile and are back: a capture by the
            // opponent and a drop where his capturer stood read the same.
            self.stalled[board] = Some(format!(
                "board {board}: the piece from {from} was lifted and not put down, and two pieces were lifted at once and put back meanwhile: a capture and a drop where the capturer stood, or both pieces put back; the board cannot tell"
            ));
            return;
        }
        if !self.movers_piece_on(board, from) {
            return;
        }
        let captures = captures_from(self.game.board(board), from);
        let (targets, open_kind) = self.capture_targets(board, from, &captures);
        if targets.is_empty() && !open_kind {
            // A piece with nothing to take, held: the hand is still at work.
            return;
        }
        if targets.len() > 1 && !open_kind {
            // Several victims: the opponent's reply may tell which (`held_then_reply`), or
            // the moves after it (each capture followed beside the main reading).
            if self.watch[board].held_several.is_empty() {
                self.watch[board].held_several.clone_from(&captures);
                self.fork_held(board, t, from, &captures);
            }
            return;
        }
        if targets.len() != 1 || open_kind {
            self.fork_held_open(board, t, from);
            let which = if targets.is_empty() {
                "its kind is open".to_owned()
            } else if open_kind {
                format!("{}, pieces of open kind about", square_names(&targets))
            } else {
                square_names(&targets)
            };
            self.stalled[board] = Some(format!(
                "board {board}: the piece from {from} was lifted and not put down: set straight onto a piece it took ({which}), the board cannot tell which"
            ));
            return;
        }
        let (mv, note) = self.held_capture(&captures);
        if self.stall_held_with_put_back(board, from, &mv) {
            return;
        }
        self.take_held(board, mv, note);
    }

    /// The victims' squares of `captures` (the legal captures of the piece on `from`), and
    /// whether pieces of open kind make them unsure: the piece itself is one, or pieces of
    /// open kind elsewhere may check, pin or free what their placeholders do not (the
    /// captures the piece's shape allows are not all legal ones; they are named too).
    fn capture_targets(
        &self,
        board: BoardId,
        from: Square,
        captures: &[Move],
    ) -> (Vec<Square>, bool) {
        let w = &self.watch[board];
        let pos = self.game.board(board);
        let mut targets: Vec<Square> = by_victim(captures).into_iter().map(|v| v.0).collect();
        let mut open_kind = w.assumed.iter().any(|a| a.sq == from);
        if !w.assumed.is_empty()
            && let Some(piece) = pos.board().piece_at(from)
        {
            let them = piece.color.other();
            let occupied = pos.board().occupied();
            let reach = crate::rules::attacks(piece.role, piece.color, from, occupied);
            let victims = reach.0 & pos.board().by_color(them).0 & !pos.board().kings(them).0;
            let mut by_shape: Vec<Square> = Bitboard(victims).into_iter().collect();
            by_shape.sort();
            if by_shape != targets {
                open_kind = true;
                targets.extend(by_shape);
                targets.sort();
                targets.dedup();
            }
        }
        (targets, open_kind)
    }

    /// Whether `board`, showing `occ` as `mv` (a move from its last final position) leaves
    /// it, had two other pieces off at once since that position, both back now: the
    /// opponent's capture with one and a drop where his capturer stood read the same as
    /// both put back (a drop read late, its supply seen only after the capture, shows no
    /// other move meanwhile). The board stalls.
    fn off_and_back(&mut self, board: BoardId, mv: &Move, occ: u64) -> bool {
        let base = self.base(board);
        let own = mv.from().map_or(0, |s| 1u64 << s.index()) | 1u64 << mv.to().index();
        let back = self.watch[board].off_together & occ & !(base ^ occ) & !own;
        if back.count_ones() < 2 {
            return false;
        }
        self.stalled[board] = Some(format!(
            "board {board}: the board shows {mv:?}, but {} were lifted at once since and are back: another capture and a drop where its capturer stood may have been made too; the board cannot tell",
            Bitboard(back)
                .into_iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(" and ")
        ));
        true
    }

    /// What was lifted since the last final move is back: no move.
    fn put_back(&mut self, board: BoardId) {
        let w = &mut self.watch[board];
        w.open = None;
        w.held = None;
        w.held_several.clear();
        w.appeared = 0;
        w.span = None;
        w.most_gone = 0;
        w.off_together = 0;
        w.first = SquareChanges::default();
        w.lifted.clear();
    }

    /// Whether the piece on `sq` is the side to move's.
    fn movers_piece_on(&self, board: BoardId, sq: Square) -> bool {
        let pos = self.game.board(board);
        pos.board()
            .piece_at(sq)
            .is_some_and(|p| p.color == pos.turn())
    }

    /// The capture of a piece held still: `captures` (of one victim) differ only in the
    /// promotion piece, the ruleset's first is taken and flagged.
    fn held_capture(&self, captures: &[Move]) -> (Move, KindNote) {
        let mut promotions: Vec<Role> = captures.iter().filter_map(Move::promotion).collect();
        let mv = captures
            .iter()
            .copied()
            .find(|m| {
                m.promotion()
                    .is_none_or(|p| Some(p) == self.rules.promotion_pieces.iter().next())
            })
            .unwrap_or(captures[0]);
        let note = if promotions.len() > 1 {
            promotions.sort();
            KindNote::PromotionAssumed {
                choices: promotions,
            }
        } else {
            KindNote::Exact
        };
        (mv, note)
    }

    /// The piece held still on `board` took with `mv`: the open move.
    fn take_held(&mut self, board: BoardId, mv: Move, note: KindNote) {
        let at = self.watch[board].changed_at;
        self.set_open(board, mv, note, at);
        self.watch[board].held = Some(mv);
    }

    /// Whether the board, back as it was at the last final move, shows only the open
    /// drop's piece lifted again (nothing else seen where the board had none).
    fn dropped_piece_lifted(&self, board: BoardId) -> bool {
        let w = &self.watch[board];
        matches!(
            w.open,
            Some((Move::Drop { to, .. }, _, _))
                if w.appeared & (1u64 << to.index()) != 0
                    && w.left_before_landing(w.appeared & !(1u64 << to.index()), to)
                    && w.most_gone == 0
        )
    }

    /// Whether the board, back as it was at the last final move, shows one piece set down
    /// and taken back: the open move's piece (put on its square and taken back to its
    /// own) and only it was seen where the board had none, on its way, and at most its
    /// own square emptied. Two moves cannot come back to the same occupancy that way: the
    /// opponent cannot empty the square the mover's piece went to without filling it (a
    /// capture) or take it back to its own.
    fn set_down_and_taken_back(&self, board: BoardId) -> bool {
        let w = &self.watch[board];
        let Some((open, _, _)) = &w.open else {
            return false;
        };
        if w.most_gone > 1 || open.is_capture() || open.is_drop() {
            return false;
        }
        self.on_the_way(board, open, w.appeared)
    }

    /// The captures a piece held still may have made: the one taken, or the several it may.
    fn held_readings(&self, board: BoardId) -> Vec<Move> {
        let w = &self.watch[board];
        w.held.iter().chain(&w.held_several).copied().collect()
    }

    /// The capture taken for a piece held still is one reading of two: the board stalls
    /// without it (nothing makes it final).
    fn forget_held(&mut self, board: BoardId) {
        let w = &mut self.watch[board];
        if w.held.is_some() && w.open.as_ref().map(|(m, _, _)| *m) == w.held {
            w.open = None;
        }
        w.held = None;
        w.held_several.clear();
    }

    /// Whether, after `capture` (a piece held still, taken as set onto its victim), the
    /// opponent may have dropped a piece so that the board shows `occ`: a drop from his hand
    /// explains it, or his hand is not known (the other board stalled or unsettled, a
    /// capture open there, kinds open in it).
    fn drop_may_follow(&self, board: BoardId, capture: &Move, occ: u64, t: u64) -> bool {
        let mut game = self.game.clone();
        game.play(board, capture, t);
        if matches!(
            self.matches_lifted(&game, board, occ, &[]),
            Some((Move::Drop { .. }, _))
        ) {
            return true;
        }
        let other = board.other();
        let opponent = game.board(board).turn();
        self.hand_unknown(board, opponent)
            || self.watch[other]
                .open
                .as_ref()
                .is_some_and(|(m, _, _)| m.is_capture())
    }

    /// Whether what `color`'s hand on `board` holds is not known: the other board (whose
    /// captures fill it) stalled or shows what no move explains, or the hand gave or got a
    /// piece of open kind.
    fn hand_unknown(&self, board: BoardId, color: Color) -> bool {
        let other = board.other();
        self.stalled[other].is_some()
            || self.unsettled(&self.game, other)
            || !self.unsure[board][color].is_empty()
    }

    /// Whether `color` on `board` may hold a piece to drop: his hand is not empty, or not
    /// known.
    fn may_drop(&self, board: BoardId, color: Color) -> bool {
        !self.game.board(board).pockets()[color].is_empty() || self.hand_unknown(board, color)
    }

    /// [`OccupancyInference::matches`], kept only when what the board showed since the last
    /// final move fits it: a square that was empty then, filled since and empty again must
    /// lie where the moving piece passed (a slide). Anything else (a piece put down and
    /// taken away elsewhere) means more happened than one move: the board stalls.
    fn matches_checked(&mut self, board: BoardId, occ: u64) -> Option<(Move, KindNote)> {
        let (mv, note) = self.matches(board, occ)?;
        let t = self.watch[board].changed_at;
        if self.stall_en_passant_lookalike(board, &mv)
            || self.stall_slow_capture(board, &mv)
            || self.fork_unsure_victim(board, t, (&mv, &note))
            || self.stall_drop_around_put_back(board, &mv)
        {
            return None;
        }
        if let Some(stood) = self.stood_there_first(board, &mv) {
            self.stalled[board] = Some(format!(
                "board {board}: the board shows {mv:?}, but a piece stood on {} for {} ms before the piece from {} left: another piece was put there and taken, more than one move was made",
                mv.to(),
                stood,
                mv.from().map(|s| s.to_string()).unwrap_or_default()
            ));
            return None;
        }
        if self.history_ok(board, &mv, occ) {
            Some((mv, note))
        } else {
            self.stall_history(board, &mv);
            None
        }
    }

    /// Whether `m`, a capture whose victim was lifted after the capturer and whose capturer
    /// landed later than [`SLOW_CAPTURE_MS`] after its lift, stalls the board: the piece
    /// may have been set straight onto another piece it takes (that square shows no change),
    /// and the opponent have lifted and put back the piece `m` takes (adjusting it, or
    /// starting his move and changing his mind). A hand taking a piece is quicker.
    fn stall_slow_capture(&mut self, board: BoardId, m: &Move) -> bool {
        let Some((from, to)) = capture_squares(m) else {
            return false;
        };
        let c = &self.watch[board].changes;
        let (lifted, victim, landed) = (
            c.emptied[from.index()],
            c.emptied[to.index()],
            c.filled[to.index()],
        );
        if victim < lifted || landed < lifted + SLOW_CAPTURE_MS {
            return false;
        }
        // Pieces of open kind may make a capture legal that their placeholders do not: the
        // piece's shape names those too.
        let captures = captures_from(self.game.board(board), from);
        let Some(other) = self
            .capture_targets(board, from, &captures)
            .0
            .into_iter()
            .find(|&sq| sq != to)
            .or_else(|| self.open_kind_victim(board, from, to))
        else {
            return false;
        };
        self.stalled[board] = Some(format!(
            "board {board}: the piece from {from} took on {to} {} ms after it was lifted, its victim lifted after it; or it was set straight onto {other} and the piece on {to} was lifted and put back; the board cannot tell",
            landed - lifted
        ));
        true
    }

    /// A piece other than on `to` that the piece of open kind on `from` may take as one of
    /// its kinds (by shape: what the placeholders allow may be wrong).
    fn open_kind_victim(&self, board: BoardId, from: Square, to: Square) -> Option<Square> {
        let a = self.watch[board].assumed.iter().rfind(|a| a.sq == from)?;
        let placement = self.game.board(board).board();
        let them = a.color.other();
        let victims = placement.by_color(them).0 & !placement.kings(them).0 & !(1u64 << to.index());
        a.choices.iter().find_map(|&r| {
            let reach = crate::rules::attacks(r, a.color, from, placement.occupied());
            Bitboard(reach.0 & victims).into_iter().next()
        })
    }

    /// Whether `m`, a quiet move of the piece of open kind `assumed[i]` as another of its
    /// kinds, stalls the board: as one of its kinds the piece may have been set straight
    /// onto a piece it takes (its square then shows no change), and the opponent may hold a
    /// piece to drop where `m` lands; occupancy cannot tell the two, and taking `m` would
    /// settle the piece's kind from a move it may not have made.
    fn stall_open_kind_lookalike(&mut self, board: BoardId, i: usize, m: &Move) -> bool {
        let Move::Normal {
            from,
            capture: None,
            ..
        } = *m
        else {
            return false;
        };
        let a = &self.watch[board].assumed[i];
        if a.sq != from {
            return false;
        }
        let c = &self.watch[board].changes;
        if c.filled[m.to().index()] < c.emptied[from.index()] + SLOW_LANDING_MS {
            // Set down as soon as a hand moving it would: no time for a drop in between.
            return false;
        }
        let may_take = self.open_kind_victim(board, from, m.to()).is_some();
        if !may_take || !self.may_drop(board, a.color.other()) {
            return false;
        }
        self.stalled[board] = Some(format!(
            "board {board}: the piece on {from} (its kind open) went to {}, or took a piece it was set straight onto and a piece was dropped on {}; the board cannot tell",
            m.to(),
            m.to()
        ));
        true
    }

    /// Whether `m`, a capture by the piece of open kind `assumed[i]` as another kind than
    /// its placeholder, whose victim's square read empty for less than [`BRIEF_VICTIM_MS`],
    /// stalls the board: a sensor's flicker there, while the piece was set straight onto
    /// another piece one of its kinds takes, reads the same, and taking `m` would settle
    /// the piece's kind from a capture it may not have made.
    fn stall_brief_open_kind_victim(&mut self, board: BoardId, i: usize, m: &Move) -> bool {
        let Some((from, to)) = capture_squares(m) else {
            return false;
        };
        if self.watch[board].assumed[i].sq != from {
            return false;
        }
        let c = &self.watch[board].changes;
        let empty_ms = c.filled[to.index()].saturating_sub(c.emptied[to.index()]);
        if empty_ms >= BRIEF_VICTIM_MS {
            return false;
        }
        let Some(other) = self.open_kind_victim(board, from, to) else {
            return false;
        };
        self.stalled[board] = Some(format!(
            "board {board}: the piece on {from} (its kind open) took on {to}, whose piece read gone only {empty_ms} ms, or it was set straight onto {other} as another of its kinds; the board cannot tell"
        ));
        true
    }

    /// Whether the open move's piece, of open kind, lifted again from where it landed and
    /// a square filled since, stalls the board: as another of its kinds it may have slid on
    /// (the open move one of the squares it crossed), which reads the same as the open move
    /// made and the next one begun. Taking either would settle the piece's kind wrongly if
    /// the other was made.
    fn stall_open_kind_slide(&mut self, board: BoardId, occ: u64) -> bool {
        let w = &self.watch[board];
        let Some((open, _, _)) = w.open else {
            return false;
        };
        let Some(from) = open.from() else {
            return false;
        };
        if !w.since_open.contains(&open_to(&open)) {
            return false;
        }
        let Some(a) = w.assumed.iter().rfind(|a| a.sq == from) else {
            return false;
        };
        let slides = a.choices.iter().any(|&role| {
            role != a.role
                && self.with_kind(board, a, role).is_some_and(|game| {
                    self.matches_in(&game, board, occ)
                        .is_some_and(|(m, _)| m.from() == Some(from))
                })
        });
        if !slides {
            return false;
        }
        self.stalled[board] = Some(format!(
            "board {board}: the piece on {from} (its kind open) went to {} and on: {open:?} and the next move begun, or another of its kinds sliding further; the board cannot tell",
            open_to(&open)
        ));
        true
    }

    /// Whether `m`, a step of a piece of open kind that may be a pawn onto the square a
    /// pawn takes en passant to, stalls the board: the pawn's en passant with its victim
    /// taken last shows the same squares until the victim goes, and then the step followed
    /// by the opponent lifting that pawn for his move shows what the capture does. Taking
    /// either would settle the piece's kind, and the other reading would make it wrong.
    fn stall_en_passant_lookalike(&mut self, board: BoardId, m: &Move) -> bool {
        let Move::Normal {
            from,
            to,
            capture: None,
            promotion: None,
            ..
        } = *m
        else {
            return false;
        };
        let Some(a) = self.watch[board]
            .assumed
            .iter()
            .find(|a| a.sq == from && a.choices.contains(&Role::Pawn))
        else {
            return false;
        };
        let ep = Move::EnPassant { from, to };
        let as_pawn = self.with_kind(board, a, Role::Pawn);
        if !as_pawn.is_some_and(|g| g.board(board).legal_moves().contains(&ep)) {
            return false;
        }
        self.stalled[board] = Some(format!(
            "board {board}: the piece on {from} (its kind open) went to {to}: a step, or a pawn taking en passant with the pawn it takes still to be lifted; the board cannot tell"
        ));
        true
    }

    fn history_ok(&self, board: BoardId, mv: &Move, occ: u64) -> bool {
        let gone_again = self.watch[board].appeared & !occ;
        if gone_again == 0 {
            return true;
        }
        self.on_the_way(board, mv, gone_again) || self.set_beside_first(board, mv, gone_again)
    }

    /// Whether the squares filled and emptied again (`gone_again`) are a piece first set
    /// beside the square `mv` lands on and then moved over: every one of them touches the
    /// landing square and emptied before the landing square last filled, and nothing else
    /// changed since the last final move than `mv`'s own squares. A hand aims a drop or a
    /// knight at the square next to its target often enough. More than one move cannot
    /// read like this: a piece put on a square and gone again needs a second move of its
    /// side, and the opponent's move between would have changed another square, or filled
    /// the landing square before the piece left the square beside it (a drop answered by a
    /// drop beside it, then the first piece lifted for the next move).
    fn set_beside_first(&self, board: BoardId, mv: &Move, gone_again: u64) -> bool {
        let w = &self.watch[board];
        if !w.held_several.is_empty() || w.held.is_some() {
            return false;
        }
        let to = open_to(mv);
        if w.appeared & (1u64 << to.index()) == 0 || !w.left_before_landing(gone_again, to) {
            return false;
        }
        let base = self.base(board);
        let mut own = base ^ occupancy_after(&self.game, board, mv);
        own |= 1u64 << to.index();
        if let Some(from) = mv.from() {
            own |= 1u64 << from.index();
        }
        let lifted = self.watch[board]
            .lifted
            .iter()
            .fold(0u64, |acc, sq| acc | 1u64 << sq.index());
        let touched = lifted | self.watch[board].appeared;
        touched & !(own | gone_again) == 0
    }

    /// Whether `squares` all lie where the pieces of the moves taken as open since the last
    /// final move, and of `mv`, may have passed (the rectangle their squares span).
    fn on_the_way(&self, board: BoardId, mv: &Move, squares: u64) -> bool {
        let Some([f0, f1, r0, r1]) = union(self.watch[board].span, span_of(mv)) else {
            return false;
        };
        Bitboard(squares).into_iter().all(|sq| {
            let (f, r) = (sq.file().index(), sq.rank().index());
            (f0..=f1).contains(&f) && (r0..=r1).contains(&r)
        })
    }

    /// How long (ms) a piece stood on the landing square of `mv`, a quiet move, while the
    /// moving piece still stood on its own square, since the last final move, when that is
    /// [`STOOD_FIRST_MS`] or more: a piece moved by hand reaches its square after it left
    /// its own, so that piece was another, put there (a drop) and taken since (a capture
    /// whose capturer stands there now: `mv` hides at least three plies). The square
    /// filling again later hides it from `landed_after_leaving`. A piece knocked there from
    /// a square beside it (lifted before) is not counted; castling and promotions (the new
    /// piece may be set down before the pawn is taken away) are left out.
    fn stood_there_first(&self, board: BoardId, mv: &Move) -> Option<u64> {
        let (from, to) = match *mv {
            Move::Normal {
                from,
                to,
                capture: None,
                promotion: None,
                ..
            }
            | Move::EnPassant { from, to } => (from, to),
            _ => return None,
        };
        let first = &self.watch[board].first;
        let base = self.base(board);
        let (put, left) = (first.filled[to.index()], first.emptied[from.index()]);
        // A square not changed since the last final move reads 0: the piece had left
        // before (the move under way then), or nothing stood there.
        if put == 0 || left == 0 || put >= left || Bitboard(base).contains(to) {
            return None;
        }
        let gone = first.emptied[to.index()];
        let end = if gone > put { gone.min(left) } else { left };
        // `Bitboard::any` says whether any square is set: the iterator's is called.
        let mut beside = Bitboard(crate::rules::king_attacks(to).0 & base).into_iter();
        let knocked = Iterator::any(&mut beside, |sq| {
            sq != from && (1..=put).contains(&first.emptied[sq.index()])
        });
        (end - put >= STOOD_FIRST_MS && !knocked).then_some(end - put)
    }

    fn stall_history(&mut self, board: BoardId, mv: &Move) {
        self.stalled[board] = Some(format!(
            "board {board}: the board shows {mv:?}, but pieces were put down and taken away elsewhere since the last move: more than one move was made"
        ));
    }

    /// Makes the open move final, withheld while the moves withheld before are not
    /// confirmed: a move that is no drop confirms them (its piece shows whose turn it was),
    /// a drop does not.
    fn withhold(&mut self, board: BoardId, out: &mut Vec<OccupancyMove>) {
        let lookalike = self.watch[board]
            .open
            .as_ref()
            .is_some_and(|(m, _, _)| self.capture_and_drop_lookalike(board, m));
        let Some(m) = self.commit(board) else {
            return;
        };
        if !m.mv.is_drop() {
            out.append(&mut self.withheld[board]);
        }
        if lookalike || !self.withheld[board].is_empty() {
            self.withheld[board].push(m);
        } else {
            out.push(m);
        }
    }

    /// Whether `m`, a quiet move, reads the same as a capture by its piece set straight
    /// onto its victim (its square shows no change) followed by the opponent dropping a
    /// piece where `m` lands: the piece may take, and the opponent may hold a piece (or
    /// his hand is unknown). Such a move is handed on only once the board shows the move
    /// after it.
    fn capture_and_drop_lookalike(&self, board: BoardId, m: &Move) -> bool {
        let Move::Normal {
            from,
            capture: None,
            promotion: None,
            ..
        } = *m
        else {
            return false;
        };
        let pos = self.game.board(board);
        if !self.may_drop(board, pos.turn().other()) {
            return false;
        }
        if pos
            .legal_moves()
            .iter()
            .any(|x| x.from() == Some(from) && x.is_capture())
        {
            return true;
        }
        // A piece of open kind may take as another of its kinds (random 3114: a piece read
        // as a rook, truly a bishop, set straight onto a piece only a bishop takes).
        let on = pos.board();
        self.watch[board]
            .assumed
            .iter()
            .filter(|a| a.sq == from)
            .any(|a| {
                let theirs = on.by_color(a.color.other()).0 & !on.kings(a.color.other()).0;
                a.choices.iter().any(|&role| {
                    crate::rules::attacks(role, a.color, from, on.occupied()).0 & theirs != 0
                })
            })
    }

    fn set_open(&mut self, board: BoardId, mv: Move, note: KindNote, t: u64) {
        // The board shows the next move: the ones withheld were made, unless it is a drop
        // (whose turn it was it does not show).
        if !mv.is_drop() {
            self.released.append(&mut self.withheld[board]);
        }
        let w = &mut self.watch[board];
        if w.open.as_ref().is_none_or(|(m, _, _)| *m != mv) {
            w.since_open.clear();
        }
        if w.held != Some(mv) {
            w.held = None;
        }
        w.held_several.clear();
        w.span = union(w.span, span_of(&mv));
        w.open = Some((mv, note, t));
    }

    /// Whether a new match may take the open move's place: the open move's piece has left
    /// its landing square since (a slide going on), or the new move completes it (castling
    /// after its rook or king part), or it is the same squares.
    fn may_replace(&self, board: BoardId, open: &Move, new: &Move) -> bool {
        let w = &self.watch[board];
        let (Some(from), to) = (open.from(), open_to(open)) else {
            // A drop: a piece lifted after it landed is the next move's (a capture's victim
            // or capturer), not a piece that went where the dropped one stands.
            return new.from().is_none_or(|f| !w.since_open.contains(&f));
        };
        if w.since_open.contains(&to) {
            return true;
        }
        match *new {
            Move::Castle { king, rook } => from == king || from == rook,
            _ => new.from() == Some(from) && open_to(new) == to,
        }
    }

    /// After the open move became final: what the board shows is matched from the new
    /// position.
    fn after_commit(&mut self, board: BoardId, t: u64, occ: u64, out: &mut Vec<OccupancyMove>) {
        let base = self.base(board);
        // Lifted since the move became open and standing in the position now: a victim
        // lifted before its capturer landed.
        let mut lifted: Vec<Square> = self.watch[board]
            .since_open
            .iter()
            .copied()
            .filter(|&s| Bitboard(base).contains(s))
            .collect();
        for s in Bitboard(base & !occ) {
            if !lifted.contains(&s) {
                lifted.push(s);
            }
        }
        self.watch[board].lifted = lifted;
        if (occ & !base).count_ones() == 1 && (base & !occ) == 0 {
            out.extend(self.supply(board, occ));
        }
        if let Some((mv, note)) = self.matches_checked(board, occ) {
            self.set_open(board, mv, note, t);
            return;
        }
        if self.stalled[board].is_some() {
            return;
        }
        self.last_resort(board, t, occ, out);
    }

    /// Nothing matches: a capture on the other board may supply a drop, or a piece of open
    /// kind may have moved as another of its kinds.
    fn last_resort(&mut self, board: BoardId, t: u64, occ: u64, out: &mut Vec<OccupancyMove>) {
        if let Some(m) = self.supply(board, occ) {
            out.push(m);
            if let Some((mv, note)) = self.matches_checked(board, occ) {
                self.set_open(board, mv, note, t);
                return;
            }
        }
        if let Some((mv, note)) = self.resolve(board, occ) {
            if self.history_ok(board, &mv, occ) {
                self.set_open(board, mv, note, t);
            } else {
                self.stall_history(board, &mv);
            }
            return;
        }
        if self.stalled[board].is_none() {
            self.held_then_reply(board, t, occ, out);
        }
    }

    /// Makes the other board's open move final if it captures, for `board` showing `occ`
    /// (a drop may need its piece). A capture taken for a piece held still is made final
    /// only when `occ` needs it: the piece may yet be put back.
    fn supply(&mut self, board: BoardId, occ: u64) -> Option<OccupancyMove> {
        let other = board.other();
        if self.watch[other].held.is_some() {
            let mut trial = self.clone();
            trial.commit_capture(other);
            trial.matches(board, occ)?;
        }
        self.commit_capture(other)
    }

    /// Makes `board`'s open move final if it captures (its piece goes to a hand). Not on a
    /// stalled board: its open move is one reading of two (a drop it would supply names
    /// every kind, the hand being unknown).
    fn commit_capture(&mut self, board: BoardId) -> Option<OccupancyMove> {
        if self.stalled[board].is_some() {
            return None;
        }
        let captures = self.watch[board].open.as_ref().is_some_and(|(m, _, _)| {
            matches!(
                m,
                Move::Normal {
                    capture: Some(_),
                    ..
                } | Move::EnPassant { .. }
            )
        });
        if captures { self.commit(board) } else { None }
    }

    /// Whether `occ` is the open move's mover still at work: the moved piece lifted again
    /// (a slide resting on its way), or the king lifted after a rook move castling would
    /// explain.
    fn continues(&self, board: BoardId, open: &Move, occ: u64) -> bool {
        let after = occupancy_after(&self.game, board, open);
        let Move::Normal { role, from, to, .. } = *open else {
            return false;
        };
        if occ == after & !(1u64 << to.index()) {
            return true;
        }
        let pos = self.game.board(board);
        let Some(king) = pos.king_of(pos.turn()) else {
            return false;
        };
        role == Role::Rook
            && pos.castling_rights().contains(from)
            && occ == after & !(1u64 << king.index())
    }

    /// What `board` shows that neither its position nor its open move explains: the squares
    /// emptied and the squares filled since the last final move (none while it is stalled:
    /// that is said already).
    #[must_use]
    pub fn waiting(&self, board: BoardId) -> Option<(Vec<Square>, Vec<Square>)> {
        if self.stalled[board].is_some() || !self.unsettled(&self.game, board) {
            return None;
        }
        let last = self.watch[board].last?;
        let base = self.base(board);
        Some((
            Bitboard(base & !last).into_iter().collect(),
            Bitboard(last & !base).into_iter().collect(),
        ))
    }

    /// Since when `board` has shown, without a break, what neither its position nor its
    /// open move explains (see [`OccupancyInference::waiting`]).
    #[must_use]
    pub fn waiting_since(&self, board: BoardId) -> Option<u64> {
        self.watch[board].unsettled_since
    }

    /// Since when `board` has rested on a move withheld as a look-alike (and the drops
    /// after it): the daemon tells the arbiter after [`STILL_WAIT_MS`].
    #[must_use]
    pub fn withheld_since(&self, board: BoardId) -> Option<u64> {
        (!self.withheld[board].is_empty()).then_some(self.watch[board].changed_at)
    }

    /// A piece held still on `board` that may have been set straight onto one of several
    /// pieces it takes: its square and theirs (the arbiter's choices while the board waits).
    #[must_use]
    pub fn held_choices(&self, board: BoardId) -> Option<(Square, Vec<Square>)> {
        let several = &self.watch[board].held_several;
        let from = several.first()?.from()?;
        Some((from, by_victim(several).into_iter().map(|v| v.0).collect()))
    }

    /// Time passes (`t`): a piece lifted and held still long enough is judged (see
    /// `judge_held`): its capture is the open move (final once the next move begins, as
    /// any), or the board stalls.
    pub fn tick(&mut self, t: u64) {
        for b in BoardId::ALL {
            self.judge_held(b, t);
        }
        self.tick_forks(t);
    }

    /// Time `t` passes with no snapshot: a board that has rested [`REST_MS`] showing
    /// exactly its open move makes it final, as the next move would (a move that reads
    /// like a capture and a drop is withheld all the same, see `withhold`). The last move
    /// of a game has no next move: without this it would never be handed on. A capture taken for a piece held still is not (the piece may
    /// yet be put back). While readings of the other board run side by side, it is made
    /// final in each of them too, and only when all show it (see `commit_at_rest_beside`).
    pub fn commit_at_rest(&mut self, t: u64) -> Vec<OccupancyMove> {
        let mut out = Vec::new();
        if self.in_fork.is_some() || self.trying {
            return out;
        }
        // Moves made final while time passed (a capturer held still, read with its reply)
        // go first: the reply they leave open may be the move the board rests on, and
        // handed on before them it would be recorded out of turn (random 146: the drop
        // after a knight set straight onto its victim, recorded before the knight's move).
        out.append(&mut self.released);
        if self.speculation.is_some() {
            self.commit_at_rest_beside(t, &mut out);
        } else {
            for b in BoardId::ALL {
                if self.rests_on_open(b, t) {
                    // As the next move would: a look-alike of a capture and a drop stays
                    // withheld until the board shows a move after it.
                    self.withhold(b, &mut out);
                }
            }
        }
        out.sort_by_key(|m| m.t);
        out
    }

    /// Whether `board` has rested [`REST_MS`] at `t` showing exactly its open move, which
    /// is not a capture taken for a piece held still (see
    /// [`OccupancyInference::commit_at_rest`]).
    fn rests_on_open(&self, board: BoardId, t: u64) -> bool {
        let w = &self.watch[board];
        let Some((open, _, _)) = w.open else {
            return false;
        };
        self.stalled[board].is_none()
            && w.held.is_none()
            && w.held_several.is_empty()
            && t >= w.changed_at + REST_MS
            && w.last == Some(occupancy_after(&self.game, board, &open))
    }

    /// The end of the input: open moves become final.
    pub fn finish(&mut self) -> Vec<OccupancyMove> {
        let mut out = std::mem::take(&mut self.released);
        for b in BoardId::ALL {
            let open = self.watch[b].open.is_some();
            let at_rest = self.watch[b].last.is_none_or(|o| o == self.base(b));
            let withheld = std::mem::take(&mut self.withheld[b]);
            if self.stalled[b].is_none() && (open || at_rest) {
                // Confirmed by the move after them, or by the board resting after them.
                out.extend(withheld);
            }
            if self.stalled[b].is_none() {
                // A stalled board's open move is one reading of two: it is not made final.
                out.extend(self.commit(b));
            }
        }
        out.sort_by_key(|m| m.t);
        out
    }

    /// The side to move on `board`.
    #[must_use]
    pub fn turn(&self, board: BoardId) -> Color {
        self.game.board(board).turn()
    }
}

mod feed;
mod interrupted;
mod lookalike;
mod open_hand;
mod resume;
mod speculate;
mod unsure_victim;
pub use feed::{Handed, OccupancyFeed, STILL_WAIT_MS};
pub use resume::{ResumeRefused, SnapshotLog};

#[cfg(test)]
mod tests;
