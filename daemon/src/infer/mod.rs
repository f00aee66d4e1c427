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
//! # Layout
//!
//! - [`event`]: the input ([`SensorEvent`], [`OperatorAction`]);
//! - [`config`]: [`InferConfig`];
//! - [`output`]: the decisions ([`Inference`], [`RecordEntry`], [`Alert`], …);
//! - `matcher`: which move explains a placement (bitboard diffs, premove residue);
//! - `board_track`: one board's state between commits;
//! - `engine`: the [`Inferrer`] and its press handling;
//! - `drops`: the cross-board drop race and premature drops;
//! - `promotion`: promotions not shown, corrections, operator replacements;
//! - `settle`: commits without a press (clockless boards, link gaps).

pub mod config;
pub mod event;
pub mod output;

mod board_track;
mod drops;
mod engine;
mod matcher;
mod promotion;
mod settle;

pub use config::InferConfig;
pub use engine::Inferrer;
pub use event::{OperatorAction, SensorEvent};
pub use output::{Alert, AlertCode, Correction, CorrectionKind, Inference, MoveFlags, RecordEntry};
