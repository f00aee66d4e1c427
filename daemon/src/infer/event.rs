//! The input vocabulary of the inference: what the boards, clocks and operators report,
//! already decoded into rules types (the daemon's adapter maps the wire's trace lines onto
//! these, so the inference depends on nothing but [`crate::rules`]).

use crate::rules::{Board, BoardId, Color, EndReason, MatchResult, Piece, Role, Square};

/// One sensor or operator event, as it arrived.
#[derive(Debug, Clone, PartialEq)]
pub enum SensorEvent {
    /// A full snapshot of what a board's sensors show (on connect, after a resync).
    Snapshot {
        /// The board.
        board: BoardId,
        /// Its placement, as the sensors read it (maybe rotated, maybe with promoted pawns
        /// still shown as pawns).
        placement: Board,
    },
    /// One square's reading changed.
    Square {
        /// The board.
        board: BoardId,
        /// The square, in the board's own (sensor) coordinates.
        sq: Square,
        /// What it shows now; `None` when empty.
        piece: Option<Piece>,
    },
    /// A clock reading. A change of `running` from one colour to the other is a clock
    /// press: the side whose clock stopped completed a move.
    Clock {
        /// The board whose clock it is.
        board: BoardId,
        /// White's remaining seconds.
        white: f64,
        /// Black's remaining seconds.
        black: f64,
        /// Whose clock runs; `None` when both are stopped.
        running: Option<Color>,
    },
    /// Whether the board relays a clock changed: a DGT board reports its clock
    /// unplugged (`false`), or readings come again (`true`). A board without its clock
    /// is inferred like a clockless one from then on.
    ClockLink {
        /// The board.
        board: BoardId,
        /// Whether a clock reports now.
        up: bool,
    },
    /// The driver decided (or changed its mind about) which side of the clock White's time
    /// is on, from play: the colour that moved while a side's time fell.
    ClockSide {
        /// The board.
        board: BoardId,
        /// White's side of the clock, as decided.
        white_side: ClockSideName,
        /// The side the configuration named, when it named one (`auto`: none).
        configured: Option<ClockSideName>,
        /// The evidence, for people.
        evidence: String,
    },
    /// The board's device went down (`false`) or came back (`true`).
    Link {
        /// The board.
        board: BoardId,
        /// Whether the link is up now.
        up: bool,
    },
    /// A decision of an arbiter or operator; part of the record.
    Operator(OperatorAction),
}

impl SensorEvent {
    /// The board the event belongs to (none for match-wide operator actions).
    #[must_use]
    pub fn board(&self) -> Option<BoardId> {
        match self {
            SensorEvent::Snapshot { board, .. }
            | SensorEvent::Square { board, .. }
            | SensorEvent::Clock { board, .. }
            | SensorEvent::Link { board, .. }
            | SensorEvent::ClockLink { board, .. }
            | SensorEvent::ClockSide { board, .. } => Some(*board),
            SensorEvent::Operator(op) => op.board(),
        }
    }
}

/// A side of a clock, seen from the players (the clock knows only left and right).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockSideName {
    /// The left side.
    Left,
    /// The right side.
    Right,
}

impl ClockSideName {
    /// `left` or `right`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ClockSideName::Left => "left",
            ClockSideName::Right => "right",
        }
    }
}

/// What an operator decided.
#[derive(Debug, Clone, PartialEq)]
pub enum OperatorAction {
    /// The promotion of a move was declared as `piece` (e.g. a knight said aloud while the
    /// pawn stayed on the board).
    Promotion {
        /// The board.
        board: BoardId,
        /// The move number of the promoting move.
        number: u32,
        /// The side that promoted.
        side: Color,
        /// The declared piece.
        piece: Role,
    },
    /// The match result, as an arbiter recorded it.
    Result {
        /// The result.
        result: MatchResult,
        /// Why, when the reason is one of the published codes.
        reason: Option<EndReason>,
        /// The game has ended and this result corrects the one recorded: without it a
        /// result for an ended game is refused, so a second click cannot silently replace
        /// the first result.
        correct: bool,
    },
    /// A recorded move is replaced by another one (the arbiter corrects the record).
    Replace {
        /// The board.
        board: BoardId,
        /// The move number.
        number: u32,
        /// The side.
        side: Color,
        /// The SAN of the replacement move, resolved against the position before it.
        san: String,
    },
    /// The moves a board played while its link was down, as the arbiter saw them: they
    /// fill its open gap, or replace the plies of its last reconstructed gap (picking one
    /// of the alternatives of a `gap-ambiguous` alert).
    Fill {
        /// The board.
        board: BoardId,
        /// The plies in order, as SAN, from the position before the gap.
        moves: Vec<String>,
        /// The move number and side of the first ply, as the alert offering the moves
        /// named them: the record must still be waiting for that move, or the fill is
        /// refused (the board moved on since the alert: the moves are not the next ones).
        first: Option<(u32, Color)>,
    },
}

impl OperatorAction {
    /// The board the action concerns, if one.
    #[must_use]
    pub fn board(&self) -> Option<BoardId> {
        match self {
            OperatorAction::Promotion { board, .. }
            | OperatorAction::Replace { board, .. }
            | OperatorAction::Fill { board, .. } => Some(*board),
            OperatorAction::Result { .. } => None,
        }
    }
}
