//! What the inference knows about one board between commits: the debounced physical
//! placement, the order of lifts, the clock, the link, a press waiting for the board to
//! settle and a drop waiting for the other board.

use crate::rules::{Bitboard, Board, ByColor, Color, Move, Piece, Pockets, Position, Square};

use super::SensorEvent;
use super::engine::Completion;
use super::gap::{Gap, LastGap};
use super::matcher::Explanation;

/// How many lifts are remembered between two commits (more is noise).
const MAX_LIFTS: usize = 64;

/// A clock press that no move explained yet (the piece still in hand, a misread square,
/// a board that matches nothing): it waits for the board to settle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PendingPress {
    pub(crate) by: Color,
    pub(crate) t: u64,
    pub(crate) readings: Option<ByColor<f64>>,
    pub(crate) deadline: u64,
    pub(crate) alerted: bool,
    /// The board's holdings at the press (a drop completed later may not use a piece
    /// that arrived after it).
    pub(crate) pockets: Pockets,
}

/// A kind settled by an occupancy-only board for the `ply`th move of its board (see
/// [`super::Inferrer::settle_kind`]), waiting for that move to be recorded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PendingSettle {
    /// How many of the board's queued events came before it.
    pub(crate) at: usize,
    pub(crate) t: u64,
    pub(crate) ply: usize,
    pub(crate) mv: Move,
    pub(crate) open: bool,
}

/// A drop of a piece not (yet) in hand: it waits for the other board's press that
/// supplies it, up to the tolerance. Later events of the board queue behind it.
#[derive(Debug, Clone)]
pub(crate) struct DeferredDrop {
    pub(crate) exp: Explanation,
    pub(crate) done: Completion,
    pub(crate) deadline: u64,
}

/// The state of one board.
#[derive(Debug, Clone)]
pub(crate) struct Track {
    /// What the sensors show, in the board's true orientation.
    pub(crate) physical: Board,
    /// The board was set up rotated 180° (decided at its first snapshot).
    pub(crate) rotated: bool,
    /// The first snapshot was seen.
    pub(crate) oriented: bool,
    /// Square readings since the last commit, in order.
    pub(crate) lifts: Vec<(Square, Option<Piece>)>,
    /// Whose clock runs, by the last reading.
    pub(crate) running: Option<Color>,
    /// Whether any clock reading has been seen.
    pub(crate) clock_seen: bool,
    /// The last clock reading.
    pub(crate) readings: Option<ByColor<f64>>,
    /// When it was taken.
    pub(crate) readings_t: u64,
    /// The board's link gap, while it is open.
    pub(crate) gap: Option<Gap>,
    /// A gap closed because the board came back exactly as it was left, until the board
    /// or its clock shows something: a first clock reading with a press made in the gap
    /// and no square seen since reopens it (a board that lost its power while a capture
    /// was under way shows the position as left, the victim in the capturer's hand).
    pub(crate) closed_as_left: Option<Gap>,
    /// The plies of the board's last bridged gap.
    pub(crate) last_gap: Option<LastGap>,
    /// The other sequences that explained that gap (from the position before it).
    pub(crate) gap_alternatives: Vec<Vec<crate::rules::Move>>,
    /// The last two plies of a gap bridged between presses, whose presses may still come
    /// (a move and the reply made before its press): each is owed by its mover, in order.
    pub(crate) owed_presses: Vec<(Color, u32)>,
    /// The same gap read one ply longer: its last ply, by the side whose clock ran, made
    /// but not pressed when the gap was bridged. The presses that follow tell the two
    /// readings apart.
    pub(crate) gap_longer: Vec<Vec<crate::rules::Move>>,
    /// The first owed press, when it came: its time and readings.
    pub(crate) owed_paid: Option<(u64, Option<ByColor<f64>>)>,
    /// After a link loss: squares mean nothing until the next snapshot.
    pub(crate) awaiting_snapshot: bool,
    /// After a resync snapshot: the next clock reading decides what happened in the gap.
    pub(crate) gap_check: bool,
    /// The link went down and has not come back (`link-restored` is said once it does).
    pub(crate) link_down: bool,
    pub(crate) pending: Option<PendingPress>,
    pub(crate) deferred: Option<DeferredDrop>,
    pub(crate) queue: Vec<(u64, SensorEvent)>,
    /// Kinds an occupancy-only board settled for moves still queued behind a deferred
    /// drop (see [`super::Inferrer::settle_kind`]): applied once the queue is drained.
    pub(crate) settles: Vec<PendingSettle>,
    /// An occupancy-only board whose moves are not read now (stalled, or showing what no
    /// move explains): a capture it made meanwhile may supply the partner board's drops.
    pub(crate) unread: bool,
    /// When its moves were read again, those the arbiter entered included (the time of
    /// the last one handed on): the partner board's drops pending on it are judged once
    /// they are final.
    pub(crate) read_again_at: u64,
    /// Whether the board's clock reports (configured with one, and not lost since).
    pub(crate) clock_live: bool,
    /// Clockless: the last move seen complete, not final yet.
    pub(crate) provisional: Option<super::clockless::Provisional>,
    /// Clockless: the record entry of the board's last move, made final by stillness
    /// alone, that its mover may still go on with (a slow slide, castling after its rook).
    pub(crate) revisable: Option<super::clockless::Revisable>,
    /// Clockless: its provisional move is being committed (nothing else is judged).
    pub(crate) finalizing: bool,
    /// When each square's reading last changed (the time a move was completed).
    pub(crate) square_t: [u64; 64],
    /// White's clock side the clock lines are labelled by, once a `clock_side` said it.
    pub(crate) white_side: Option<super::ClockSideName>,
    /// A `clock-side` alert was raised for this board (one is enough).
    pub(crate) clock_side_alerted: bool,
    /// The time of the last square change (how long the board has been still).
    pub(crate) last_change: u64,
    /// Moves made per side (the BPGN move number of the next one is this plus one).
    pub(crate) moves_made: ByColor<u32>,
    pub(crate) flag_alerted: ByColor<bool>,
    /// The squares left over at the last commit, with what they showed.
    pub(crate) residual: Bitboard,
    pub(crate) residual_board: Board,
    /// The squares of [`Track::residual`] that changed since that commit: a hand (or a
    /// flickering sensor) at work there, not a piece left lying wrong.
    pub(crate) residual_touched: Bitboard,
    pub(crate) discrepancy_alerted: bool,
    pub(crate) last_press_t: u64,
    /// The positions before the last commits (takeback detection).
    pub(crate) history: Vec<Position>,
    pub(crate) takeback_alerted: bool,
    /// Squares whose piece is known to be off the board (alerted as a material
    /// mismatch): no longer a reason to wait.
    pub(crate) missing_ok: Bitboard,
}

impl Track {
    pub(crate) fn new(physical: Board, clock: bool) -> Track {
        Track {
            physical,
            rotated: false,
            oriented: false,
            lifts: Vec::with_capacity(MAX_LIFTS),
            running: None,
            clock_seen: false,
            readings: None,
            readings_t: 0,
            gap: None,
            closed_as_left: None,
            last_gap: None,
            gap_alternatives: Vec::new(),
            owed_presses: Vec::new(),
            gap_longer: Vec::new(),
            owed_paid: None,
            awaiting_snapshot: false,
            gap_check: false,
            link_down: false,
            pending: None,
            deferred: None,
            queue: Vec::new(),
            settles: Vec::new(),
            unread: false,
            read_again_at: 0,
            clock_live: clock,
            provisional: None,
            revisable: None,
            square_t: [0; 64],
            finalizing: false,
            white_side: None,
            clock_side_alerted: false,
            last_change: 0,
            moves_made: ByColor::default(),
            flag_alerted: ByColor::default(),
            residual: Bitboard::EMPTY,
            residual_board: Board::empty(),
            residual_touched: Bitboard::EMPTY,
            discrepancy_alerted: false,
            last_press_t: 0,
            history: Vec::new(),
            takeback_alerted: false,
            missing_ok: Bitboard::EMPTY,
        }
    }

    /// The square in true orientation.
    pub(crate) fn orient(&self, sq: Square) -> Square {
        if self.rotated { sq.rotate_180() } else { sq }
    }

    pub(crate) fn note(&mut self, sq: Square, piece: Option<Piece>) {
        if self.lifts.len() < MAX_LIFTS {
            self.lifts.push((sq, piece));
        }
    }

    /// The reading of `color`, if it is a real number of seconds.
    pub(crate) fn reading(readings: Option<ByColor<f64>>, color: Color) -> Option<f64> {
        readings.map(|r| r[color]).filter(|s| s.is_finite())
    }
}
