//! The bughouse game: two boards, captured pieces handed to the partner, and how a match
//! ends.
//!
//! Board A and board B; one team has White on A and Black on B (`Team::WhiteA`, whose win
//! BPGN writes `1-0`), the other Black on A and White on B. A completed capture gives the
//! captured piece to the partner (a promoted piece as a pawn), in the partner's colour.

use std::fmt;
use std::ops::{Index, IndexMut};

use super::{
    Bitboard, Captured, Color, IllegalReason, Legality, Move, Position, PositionKey, Role, Ruleset,
    Square,
};

/// Board A or board B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BoardId {
    /// Board A.
    A,
    /// Board B.
    B,
}

impl BoardId {
    /// Both boards.
    pub const ALL: [BoardId; 2] = [BoardId::A, BoardId::B];

    /// The other board.
    #[must_use]
    pub const fn other(self) -> BoardId {
        match self {
            BoardId::A => BoardId::B,
            BoardId::B => BoardId::A,
        }
    }

    /// `A` or `B`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            BoardId::A => 'A',
            BoardId::B => 'B',
        }
    }

    /// The board of `A`/`B` (either case: BPGN tokens write Black's moves as `1a.`).
    #[must_use]
    pub const fn from_char(c: char) -> Option<BoardId> {
        match c {
            'A' | 'a' => Some(BoardId::A),
            'B' | 'b' => Some(BoardId::B),
            _ => None,
        }
    }
}

impl fmt::Display for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// One value per board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByBoard<T> {
    /// Board A's value.
    pub a: T,
    /// Board B's value.
    pub b: T,
}

impl<T> ByBoard<T> {
    /// Builds both values from a function of the board.
    pub fn new_with(mut f: impl FnMut(BoardId) -> T) -> ByBoard<T> {
        ByBoard {
            a: f(BoardId::A),
            b: f(BoardId::B),
        }
    }

    /// The value of `board`.
    pub const fn get(&self, board: BoardId) -> &T {
        match board {
            BoardId::A => &self.a,
            BoardId::B => &self.b,
        }
    }

    /// The value of `board`, mutably.
    pub fn get_mut(&mut self, board: BoardId) -> &mut T {
        match board {
            BoardId::A => &mut self.a,
            BoardId::B => &mut self.b,
        }
    }
}

impl<T> Index<BoardId> for ByBoard<T> {
    type Output = T;
    fn index(&self, b: BoardId) -> &T {
        self.get(b)
    }
}

impl<T> IndexMut<BoardId> for ByBoard<T> {
    fn index_mut(&mut self, b: BoardId) -> &mut T {
        self.get_mut(b)
    }
}

/// A player's place: a board and a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seat {
    /// The board.
    pub board: BoardId,
    /// The colour played there.
    pub color: Color,
}

impl Seat {
    /// The seat on `board` with `color`.
    #[must_use]
    pub const fn new(board: BoardId, color: Color) -> Seat {
        Seat { board, color }
    }

    /// The partner: the other board, the other colour.
    #[must_use]
    pub const fn partner(self) -> Seat {
        Seat {
            board: self.board.other(),
            color: self.color.other(),
        }
    }

    /// The seat's team.
    #[must_use]
    pub const fn team(self) -> Team {
        match (self.board, self.color) {
            (BoardId::A, Color::White) | (BoardId::B, Color::Black) => Team::WhiteA,
            _ => Team::BlackA,
        }
    }

    /// The BPGN tag naming this seat's player: `WhiteA`, `BlackB`, …
    #[must_use]
    pub fn tag(self) -> String {
        let color = self.color.fold("White", "Black");
        format!("{color}{}", self.board)
    }
}

/// A team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Team {
    /// White on A with Black on B: BPGN `1-0` is their win.
    WhiteA,
    /// Black on A with White on B: BPGN `0-1` is their win.
    BlackA,
}

impl Team {
    /// The other team.
    #[must_use]
    pub const fn other(self) -> Team {
        match self {
            Team::WhiteA => Team::BlackA,
            Team::BlackA => Team::WhiteA,
        }
    }
}

/// The result of a match, as BPGN writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchResult {
    /// A team won.
    Won(Team),
    /// Drawn.
    Draw,
    /// Not decided (in progress, or aborted).
    Unfinished,
}

impl MatchResult {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            MatchResult::Won(Team::WhiteA) => "1-0",
            MatchResult::Won(Team::BlackA) => "0-1",
            MatchResult::Draw => "1/2-1/2",
            MatchResult::Unfinished => "*",
        }
    }

    /// The result of a BPGN result text.
    #[must_use]
    pub fn from_str_opt(s: &str) -> Option<MatchResult> {
        match s {
            "1-0" => Some(MatchResult::Won(Team::WhiteA)),
            "0-1" => Some(MatchResult::Won(Team::BlackA)),
            "1/2-1/2" => Some(MatchResult::Draw),
            "*" => Some(MatchResult::Unfinished),
            _ => None,
        }
    }
}

impl fmt::Display for MatchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Bughouse checkmate.
    Checkmate,
    /// A flag fell.
    FlagFall,
    /// Both flags on a board fell: that game is drawn (002 §16.b, 003 §7.10).
    BothFlags,
    /// A player resigned.
    Resignation,
    /// The teams agreed a draw.
    DrawAgreement,
    /// A valid repetition claim.
    Repetition,
    /// The opponent claimed an illegal move in time.
    IllegalMoveClaim,
    /// Koedem: one team holds all four kings.
    AllKings,
    /// Both games ended at the same time (000 §20–21).
    Simultaneous,
    /// Aborted.
    Aborted,
}

impl EndReason {
    /// The published code, e.g. `checkmate`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::FlagFall => "flag-fall",
            EndReason::BothFlags => "both-flags",
            EndReason::Resignation => "resignation",
            EndReason::DrawAgreement => "draw-agreement",
            EndReason::Repetition => "repetition",
            EndReason::IllegalMoveClaim => "illegal-move-claim",
            EndReason::AllKings => "all-kings",
            EndReason::Simultaneous => "simultaneous",
            EndReason::Aborted => "aborted",
        }
    }

    /// The reason of a published code.
    #[must_use]
    pub fn from_code(code: &str) -> Option<EndReason> {
        [
            EndReason::Checkmate,
            EndReason::FlagFall,
            EndReason::BothFlags,
            EndReason::Resignation,
            EndReason::DrawAgreement,
            EndReason::Repetition,
            EndReason::IllegalMoveClaim,
            EndReason::AllKings,
            EndReason::Simultaneous,
            EndReason::Aborted,
        ]
        .into_iter()
        .find(|r| r.code() == code)
    }
}

/// The end of one game, which ends the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameEnd {
    /// The board where it ended (none for a match-wide decision such as a draw agreement).
    pub board: Option<BoardId>,
    /// The match result it gives.
    pub result: MatchResult,
    /// Why.
    pub reason: EndReason,
    /// The player who lost, if one did.
    pub loser: Option<Seat>,
    /// When (trace milliseconds), if known.
    pub t: Option<u64>,
}

/// What playing one move did to the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveOutcome {
    /// Legal, or the rule it broke.
    pub legality: Legality,
    /// The piece taken, if any.
    pub captured: Option<Captured>,
    /// The partner who received the piece, and what (a promoted piece goes as a pawn).
    pub handoff: Option<(Seat, Role)>,
    /// The move ended a game (or made the ends simultaneous).
    pub end: Option<GameEnd>,
}

/// One board's repetition history since its last reset.
#[derive(Debug, Clone, Default)]
struct History {
    keys: Vec<PositionKey>,
}

/// Both boards of a bughouse match, with their shared fate.
#[derive(Debug, Clone)]
pub struct BughouseGame {
    rules: Ruleset,
    boards: ByBoard<Position>,
    history: ByBoard<History>,
    end: Option<GameEnd>,
    /// How close (ms) two ends on different boards must be to count as simultaneous.
    simultaneous_window_ms: u64,
}

/// The default window in which ends on both boards count as simultaneous.
pub const DEFAULT_SIMULTANEOUS_WINDOW_MS: u64 = 1000;

/// A full set of one colour: 8 pawns, 2 knights, 2 bishops, 2 rooks, a queen, a king.
const FULL_SET: [(Role, usize); 6] = [
    (Role::Pawn, 8),
    (Role::Knight, 2),
    (Role::Bishop, 2),
    (Role::Rook, 2),
    (Role::Queen, 1),
    (Role::King, 1),
];

/// The material on both boards and in all holdings is not two full sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialMismatch {
    /// Per colour and role: how many there are against how many there should be.
    pub differences: Vec<(Color, Role, usize, usize)>,
}

impl fmt::Display for MaterialMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("material is not two full sets:")?;
        for (color, role, have, want) in &self.differences {
            write!(f, " {color} {role}s {have} (expected {want})")?;
        }
        Ok(())
    }
}

impl BughouseGame {
    /// Both boards in the start position.
    #[must_use]
    pub fn new(rules: Ruleset) -> BughouseGame {
        BughouseGame::from_positions(Position::new(rules), Position::new(rules), rules)
    }

    /// A match from given positions (a BFEN `Setup`, a resynchronised table).
    #[must_use]
    pub fn from_positions(a: Position, b: Position, rules: Ruleset) -> BughouseGame {
        let history = ByBoard {
            a: History {
                keys: vec![a.key()],
            },
            b: History {
                keys: vec![b.key()],
            },
        };
        BughouseGame {
            rules,
            boards: ByBoard { a, b },
            history,
            end: None,
            simultaneous_window_ms: DEFAULT_SIMULTANEOUS_WINDOW_MS,
        }
    }

    /// Sets the window in which ends on both boards count as simultaneous.
    pub fn set_simultaneous_window(&mut self, ms: u64) {
        self.simultaneous_window_ms = ms;
    }

    /// The rules.
    #[must_use]
    pub const fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// One board.
    #[must_use]
    pub fn board(&self, board: BoardId) -> &Position {
        &self.boards[board]
    }

    /// Both boards.
    #[must_use]
    pub const fn boards(&self) -> &ByBoard<Position> {
        &self.boards
    }

    /// One board, mutably (resynchronisation replaces what the sensors say).
    pub fn board_mut(&mut self, board: BoardId) -> &mut Position {
        &mut self.boards[board]
    }

    /// How the match ended, if it did.
    #[must_use]
    pub const fn end(&self) -> Option<GameEnd> {
        self.end
    }

    /// The match result so far.
    #[must_use]
    pub fn result(&self) -> MatchResult {
        self.end.map_or(MatchResult::Unfinished, |e| e.result)
    }

    /// Classifies `m` on `board` without playing it.
    #[must_use]
    pub fn classify(&self, board: BoardId, m: &Move) -> Legality {
        self.boards[board].classify(m)
    }

    /// Plays `m` on `board` at trace time `t` (ms), legal or not: the capture goes to the
    /// partner, and a mate (or Koedem's fourth king) ends the match — or, within the
    /// simultaneity window of an end on the other board, makes both ends simultaneous.
    pub fn play(&mut self, board: BoardId, m: &Move, t: u64) -> MoveOutcome {
        let legality = self.boards[board].classify(m);
        self.play_classified(board, m, legality, t)
    }

    /// Plays `m` with a classification decided elsewhere (the inference knows about
    /// premature drops, which need the times of both boards).
    pub fn play_classified(
        &mut self,
        board: BoardId,
        m: &Move,
        legality: Legality,
        t: u64,
    ) -> MoveOutcome {
        let position = &mut self.boards[board];
        let mover = Seat::new(board, position.mover(m));
        let played = position.play(m);
        let key = position.key();
        let history = &mut self.history[board];
        if m.is_drop() && self.rules.repetition_resets_on_drop {
            history.keys.clear();
        }
        history.keys.push(key);

        let handoff = played.captured.map(|c| {
            let partner = mover.partner();
            let role = c.handoff_role();
            self.boards[partner.board].pockets_mut()[partner.color].add(role);
            (partner, role)
        });

        let mut end = None;
        if self.rules.kings_capturable {
            if let Some(team) = self.team_with_all_kings() {
                end = Some(GameEnd {
                    board: Some(board),
                    result: MatchResult::Won(team),
                    reason: EndReason::AllKings,
                    loser: None,
                    t: Some(t),
                });
            }
        } else if self.boards[board].is_checkmate() {
            let loser = Seat::new(board, self.boards[board].turn());
            end = Some(GameEnd {
                board: Some(board),
                result: MatchResult::Won(loser.team().other()),
                reason: EndReason::Checkmate,
                loser: Some(loser),
                t: Some(t),
            });
        }
        let end = end.and_then(|e| self.conclude(e));
        MoveOutcome {
            legality,
            captured: played.captured,
            handoff,
            end,
        }
    }

    /// Records an end decided outside the moves (flag, resignation, agreement, claim).
    /// Returns the end that now stands, or `None` if the match had already ended earlier
    /// (outside the simultaneity window).
    pub fn record_end(&mut self, end: GameEnd) -> Option<GameEnd> {
        self.conclude(end)
    }

    /// Replaces the end by an arbiter's correction (the end recorded was wrong): unlike
    /// [`BughouseGame::record_end`], the first end does not stand.
    pub fn correct_end(&mut self, end: GameEnd) {
        self.end = Some(end);
    }

    /// Takes back the end a move made: the caller cannot be sure of it (a mate found with
    /// pieces whose kinds an occupancy-only board left open, or one a correction made
    /// after the players went on), and play goes on until the arbiter records the result.
    pub fn withdraw_end(&mut self) -> Option<GameEnd> {
        self.end.take()
    }

    /// A flag fell on `board` for `color` at `t`. If the other flag on that board had
    /// already fallen, that game is drawn instead.
    pub fn flag(
        &mut self,
        board: BoardId,
        color: Color,
        other_flag_down: bool,
        t: u64,
    ) -> Option<GameEnd> {
        let loser = Seat::new(board, color);
        let end = if other_flag_down {
            if !self.rules.draws {
                return None;
            }
            GameEnd {
                board: Some(board),
                result: MatchResult::Draw,
                reason: EndReason::BothFlags,
                loser: None,
                t: Some(t),
            }
        } else {
            GameEnd {
                board: Some(board),
                result: MatchResult::Won(loser.team().other()),
                reason: EndReason::FlagFall,
                loser: Some(loser),
                t: Some(t),
            }
        };
        self.conclude(end)
    }

    /// The first game to end decides the match; a second end on the other board within the
    /// window is simultaneous: the same team won both → that team, otherwise a draw.
    fn conclude(&mut self, new: GameEnd) -> Option<GameEnd> {
        match self.end {
            None => {
                self.end = Some(new);
                Some(new)
            }
            Some(first) => {
                let close = match (first.t, new.t) {
                    (Some(a), Some(b)) => a.abs_diff(b) <= self.simultaneous_window_ms,
                    _ => false,
                };
                let other_board =
                    first.board.is_some() && new.board.is_some() && first.board != new.board;
                if !(close && other_board) || first.reason == EndReason::Simultaneous {
                    return None;
                }
                let result = if first.result == new.result {
                    first.result
                } else {
                    MatchResult::Draw
                };
                let end = GameEnd {
                    board: None,
                    result,
                    reason: EndReason::Simultaneous,
                    loser: None,
                    t: new.t,
                };
                self.end = Some(end);
                Some(end)
            }
        }
    }

    /// Koedem: the team that holds all four kings (on its boards or in hand), if any.
    #[must_use]
    pub fn team_with_all_kings(&self) -> Option<Team> {
        let total: usize = BoardId::ALL
            .into_iter()
            .map(|b| {
                let p = &self.boards[b];
                p.board().by_role(Role::King).count()
                    + Color::ALL
                        .into_iter()
                        .map(|c| p.pockets()[c].count(Role::King) as usize)
                        .sum::<usize>()
            })
            .sum();
        [Team::WhiteA, Team::BlackA].into_iter().find(|&team| {
            let held: usize = BoardId::ALL
                .into_iter()
                .flat_map(|b| Color::ALL.into_iter().map(move |c| Seat::new(b, c)))
                .filter(|s| s.team() == team)
                .map(|s| {
                    let p = &self.boards[s.board];
                    p.board().kings(s.color).count()
                        + p.pockets()[s.color].count(Role::King) as usize
                })
                .sum();
            total > 0 && held == total
        })
    }

    /// How often the current position of `board` has occurred since the last reset.
    #[must_use]
    pub fn repetitions(&self, board: BoardId) -> usize {
        let h = &self.history[board];
        let Some(last) = h.keys.last() else { return 0 };
        h.keys.iter().filter(|k| *k == last).count()
    }

    /// Whether a repetition claim on `board` would be valid now under the ruleset.
    #[must_use]
    pub fn repetition_claim_valid(&self, board: BoardId) -> bool {
        match self.rules.repetition_count {
            Some(n) => self.rules.draws && self.repetitions(board) >= n as usize,
            None => false,
        }
    }

    /// Checks that both boards plus all holdings make two full sets (promoted pieces
    /// counted as pawns).
    ///
    /// # Errors
    ///
    /// [`MaterialMismatch`] listing every colour and role that is off.
    pub fn material_audit(&self) -> Result<(), MaterialMismatch> {
        let mut differences = Vec::new();
        for color in Color::ALL {
            for (role, per_set) in FULL_SET {
                let mut have = 0usize;
                for b in BoardId::ALL {
                    let p = &self.boards[b];
                    let ours = p.board().by_color(color);
                    have += if role == Role::Pawn {
                        (p.board().by_role(Role::Pawn) & ours).count()
                            + (p.promoted() & ours).count()
                    } else {
                        (p.board().by_role(role) & (ours - p.promoted())).count()
                    };
                    have += p.pockets()[color].count(role) as usize;
                }
                let want = per_set * 2;
                if have != want {
                    differences.push((color, role, have, want));
                }
            }
        }
        if differences.is_empty() {
            Ok(())
        } else {
            Err(MaterialMismatch { differences })
        }
    }

    /// The squares of promoted pieces on `board` (a promoted piece captured is passed as a
    /// pawn).
    #[must_use]
    pub fn promoted(&self, board: BoardId) -> Bitboard {
        self.boards[board].promoted()
    }

    /// Koedem grab promotion: the pawn on `board` promotes to the piece taken from `grab`
    /// on the other board; the pawn goes to the opposing team (the player whose piece was
    /// grabbed receives it as a pawn). The move itself must be a promotion to the grabbed
    /// piece's role; kings cannot be grabbed.
    ///
    /// # Errors
    ///
    /// `BadPromotion` when the ruleset has no grabs or the grabbed square does not hold a
    /// non-king piece of the promoting player's colour; nothing changes then.
    pub fn play_grab_promotion(
        &mut self,
        board: BoardId,
        m: &Move,
        grab: Square,
        t: u64,
    ) -> Result<MoveOutcome, IllegalReason> {
        let mover = self.boards[board].mover(m);
        let other = board.other();
        let grabbed = self.boards[other].board().piece_at(grab);
        if !self.rules.promotion_by_grab {
            return Err(IllegalReason::BadPromotion);
        }
        match grabbed {
            Some(p)
                if p.color == mover && p.role != Role::King && Some(p.role) == m.promotion() => {}
            _ => return Err(IllegalReason::BadPromotion),
        }
        self.boards[other].remove_piece_at(grab);
        let outcome = self.play(board, m, t);
        // The grabbed piece is a real piece now: not marked promoted.
        self.boards[board].set_promoted(m.to(), false);
        // The pawn goes to the player whose piece was grabbed.
        self.boards[other].pockets_mut()[mover].add(Role::Pawn);
        Ok(outcome)
    }
}
