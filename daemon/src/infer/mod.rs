//! Move inference: sensor events of both boards in, moves, alerts and corrections out.
//!
//! A pure state machine ([`Inferrer`]): no I/O, time passed in with every event. Bughouse is
//! played "clock move", so a move is completed by the mover's clock press; the board
//! between presses is work in progress (including the opponent's premove, `rules.md` §6).
//! At a press the committed position is compared with what the sensors show and the move
//! that explains the difference is committed, legal or not (an illegal move completed by
//! a player stands, is recorded and alerted: `rules.md` §5). Nothing is emitted for the
//! states in between, so slides, hesitations, adjusted pieces, flicker and captures in
//! any order need no special handling; ties are broken by the order of lifts.
//!
//! # How the hard cases fall out (each case has its test in `tests/infer_cases.rs`)
//!
//! - Only the placement at the press matters, so slides (1), hesitations and j'adoube
//!   (16), flicker and misreads between presses (18, 19), castling in any order (6–8) and
//!   e.p. in any order (9, 10) need nothing special.
//! - Captures in any order (2–4, 15, 24): the move must explain every changed square; what
//!   is left over must be the opponent's work in progress (a premove, 22–24), never a
//!   piece of the mover appearing, and a piece of the mover missing only when the
//!   opponent visibly took it.
//! - Ties use the readings since the last commit: the piece lifted first (5), the square
//!   a piece was last put on (a slide's transit squares lose), a piece seen put down
//!   before a premove took it, the causal order of lift and put.
//! - A press nothing explains waits (the piece still in hand, a misread at the press:
//!   19, 36) and is alerted after `press_grace_ms`: `clock-without-move`, or
//!   `unrecognized-position` (17, a board that matches nothing), or a takeback (20, 21:
//!   reported, not popped, since a completed move stands).
//! - Promotions shown as a pawn are the declared queen and match the laid pawn (12);
//!   identity follows the piece, so a later knight move corrects the promotion (13) and
//!   a capture of it passes a pawn (14, by the rules core).
//! - Drops (25–30): legal from the holdings at the press, with the drop tolerance for
//!   the other board's press; premature drops keep a debt settled by the late capture.
//! - Illegal moves (27, 28, 31, 32) are committed with the rules core's reason; the clock
//!   says who moves next.
//! - Gestures without a press are no moves (33); the first snapshot decides the
//!   orientation (34); any start position with holdings is accepted (35); both boards
//!   reset after an end is a new game (37). Occupancy-only boards (26) do not exist
//!   among the supported drivers: the sensors report the piece.
//!
//! # Layout
//!
//! - [`event`] — the input ([`SensorEvent`], [`OperatorAction`]);
//! - [`config`] — the tuning ([`InferConfig`]);
//! - [`output`] — the decisions ([`Inference`], [`RecordEntry`], [`Alert`], …);
//! - `matcher`: which move explains a placement (bitboard diffs, premove residue);
//! - `board_track`: one board's state between commits;
//! - `engine`: the [`Inferrer`] and its press handling;
//! - `alerts`: presses nothing explains, takebacks, missing pieces, the material audit;
//! - `drops`: the cross-board drop race and premature drops;
//! - `promotion`: promotions not shown, corrections, operator replacements;
//! - `clockless`: boards without a clock, followed square by square at bughouse speed;
//! - `flag`: the end of a game by the clock, and following the boards after an end;
//! - `operator`: the arbiter's actions checked before they are journaled, results and
//!   their corrections;
//! - `settle`: a resync without a gap;
//! - [`gap`]: link gaps: the search for the plies a silent board played, their times
//!   from the clocks, drops of the other board pending on the gap, the arbiter's fill.

pub mod config;
pub mod event;
pub mod gap;
pub mod output;

mod alerts;
mod board_track;
mod clock_presence;
mod clock_side;
mod clockless;
mod drops;
mod engine;
mod flag;
mod koedem;
mod matcher;
pub mod occupancy;
mod operator;
mod owing;
mod promotion;
mod settle;
mod unknown_tag;
mod unread;
mod unsure_end;

pub use config::InferConfig;
pub use engine::Inferrer;
pub use event::{ClockSideName, OperatorAction, SensorEvent};
pub use gap::GapStats;
pub use operator::{ActionRefused, operator_reasons};
pub use output::{
    Alert, AlertChoice, AlertCode, Correction, CorrectionKind, Inference, MoveFlags, RecordEntry,
};
pub use unknown_tag::unknown_tag_alert;
pub use unsure_end::OpenPlies;
