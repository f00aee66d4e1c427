//! Link gaps: a board whose device dropped off for a few seconds while the game went on.
//!
//! While a board is silent nothing it does is seen; the other board plays on, and its
//! drops of pieces not yet in hand are committed *pending on the gap* (no alert: the
//! silent board may well have captured them). When the link comes back, the snapshot and
//! the clock define a target: the placement and the side to move. The plies in between
//! are searched ([`search`]); their press times come from the clocks ([`timing`]).
//!
//! - One sequence: committed, each move flagged as reconstructed, placed in the record by
//!   its press time among the other board's moves (every drop after the capture that
//!   supplied it), and the pending drops are settled: legal if the sequence supplied the
//!   piece, alerted if not.
//! - Several (a transposition): the one that settles the most pending drops (else the
//!   first found) is committed, flagged ambiguous, and one `gap-ambiguous` alert lists the
//!   alternatives; the arbiter picks one with the `fill` action (or `replace`).
//! - None within the bound (pieces knocked over, too many plies): after the press grace,
//!   exactly one `unrecognized-position` alert naming the squares that differ; nothing is
//!   invented, the board's presses raise nothing more, and every later press or reading
//!   tries again: the gap is bridged as soon as the board shows a reachable position. The
//!   arbiter may fill the gap with the missing moves at any time.

pub mod search;
pub mod timing;

mod bridge;
mod fill;
mod owed;

pub(crate) use bridge::BridgeAt;

use crate::rules::{Board, Color, Move};

use timing::ClockMark;

/// How often the boards' links dropped and how the gaps ended (for `/metrics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GapStats {
    /// Link losses.
    pub outages: u64,
    /// Gaps closed by reconstructed moves (ambiguous ones included).
    pub bridged: u64,
    /// Gaps whose board several sequences explained.
    pub ambiguous: u64,
    /// Gaps alerted as not reconstructable (some may be bridged later).
    pub unbridged: u64,
}

/// A board's open gap.
#[derive(Debug, Clone)]
pub(crate) struct Gap {
    /// The last clock reading before the link dropped.
    pub(crate) before: ClockMark,
    /// The side whose clock ran when the link dropped.
    pub(crate) before_running: Option<Color>,
    /// When the link dropped (no ply of the gap was pressed before).
    pub(crate) down_t: u64,
    /// The record's length when it opened: everything after it is the other board's.
    pub(crate) record_len: usize,
    /// The link is back (squares mean something again after the next snapshot).
    pub(crate) up: bool,
    /// When the unbridged gap is alerted.
    pub(crate) deadline: Option<u64>,
    /// The unbridged gap was alerted.
    pub(crate) alerted: bool,
    /// The placement and side to move of the last search that found nothing (the same
    /// question is not asked twice).
    pub(crate) tried: Option<(Board, Option<Color>)>,
    /// What explained the board at readings that did not bridge the gap (a move waiting
    /// for its press, a promoted piece before it was taken): the sequence that continues
    /// one of them is preferred among several.
    pub(crate) seen: Vec<Vec<Move>>,
    /// The ply the board showed made but not pressed when the link went (lifted and put
    /// down, the press still to come): the side's next ply, unless nothing that starts
    /// with it explains the board after the gap.
    pub(crate) shown: Option<Move>,
    /// What the board showed at link-up: a square changed since was changed by a hand
    /// seen at work after the link came back, so by one of the gap's last plies.
    pub(crate) snapshot: Option<Board>,
}

impl Gap {
    /// A gap the inference opens itself on a board that is up and seen (an arbiter's fill
    /// of part of it, a bridged gap read again): nothing is alerted about it.
    pub(crate) fn reopened(
        before: ClockMark,
        before_running: Option<Color>,
        down_t: u64,
        record_len: usize,
    ) -> Gap {
        Gap {
            before,
            before_running,
            down_t,
            record_len,
            up: true,
            deadline: None,
            alerted: true,
            tried: None,
            seen: Vec::new(),
            shown: None,
            snapshot: None,
        }
    }
}

/// The moves the last bridged gap of a board committed (for the arbiter's pick).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LastGap {
    /// The side and move number of its first ply.
    pub(crate) side: Color,
    pub(crate) number: u32,
    /// How many plies.
    pub(crate) plies: usize,
}
