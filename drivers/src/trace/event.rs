//! [`TraceEvent`] and [`TraceLine`]: the sensor vocabulary.

use std::collections::BTreeMap;

use super::occupancy::Occupancy;
use super::piece::{Placement, SensorPiece};
use super::square::{BoardId, Side, Square};
use crate::dgt::ClockSide;

/// One event of the sensor vocabulary (see `sensor-trace.md`).
#[derive(Debug, Clone, PartialEq)]
pub enum TraceEvent {
    /// Facts about the match known before play; at most one, as the first line.
    Meta {
        /// Ruleset name, e.g. `"fide"`.
        ruleset: Option<String>,
        /// Time control, e.g. `"180+0"`.
        time_control: Option<String>,
        /// The position both boards start from when it is not the initial one: a BFEN
        /// (`<board A> | <board B>`, holdings and clock times included), as a BPGN `FEN` tag
        /// with `SetUp "1"` gives it. `None`: the initial position.
        setup: Option<String>,
        /// BPGN tags (name → value). An empty map is not written.
        tags: BTreeMap<String, String>,
    },
    /// A full snapshot of what the board's sensors show.
    Board {
        /// Which board.
        board: BoardId,
        /// What every square shows.
        placement: Placement,
    },
    /// One square's reading changed.
    Square {
        /// Which board.
        board: BoardId,
        /// The square.
        sq: Square,
        /// What it shows now (`None` = empty).
        piece: Option<SensorPiece>,
    },
    /// What a board that senses only occupancy (Sentio) shows: a full snapshot, sent at
    /// every change.
    Occupancy {
        /// Which board.
        board: BoardId,
        /// The occupied squares.
        occupied: Occupancy,
    },
    /// A reading of the board's clock.
    Clock {
        /// Which board.
        board: BoardId,
        /// White's remaining seconds.
        white: f64,
        /// Black's remaining seconds.
        black: f64,
        /// The side whose time runs, `None` when both are stopped.
        running: Option<Side>,
    },
    /// Whether the board relays a clock changed: `false` when a DGT board reports "no clock
    /// connected" or its clock stops reporting, `true` when readings come again.
    ClockLink {
        /// Which board.
        board: BoardId,
        /// `true` = a clock reports.
        up: bool,
    },
    /// The session decided which side of the clock White's time is on, from play (the
    /// colour that moved while a side's time fell), or changed its mind.
    ClockSide {
        /// Which board.
        board: BoardId,
        /// White's side, as decided.
        white_side: ClockSide,
        /// The side the configuration named (`None`: `auto`).
        configured: Option<ClockSide>,
        /// What it was decided from, for people.
        evidence: String,
    },
    /// A tag no calibration knows stays on a square of an RFID board (Certabo): a piece
    /// nobody calibrated. The square reads empty; the arbiter is told once per square.
    UnknownTag {
        /// Which board.
        board: BoardId,
        /// The square, in the game's frame.
        sq: Square,
        /// The tag's id as the board reads it (`1 2 3 4 5`), for people.
        tag: String,
    },
    /// The device connection went down or came back.
    Link {
        /// Which board.
        board: BoardId,
        /// `true` = connected.
        up: bool,
    },
    /// A decision by an arbiter or operator; kept whole so it round-trips.
    Operator {
        /// The line's `board`, when present.
        board: Option<BoardId>,
        /// The `action` field.
        action: String,
        /// Every other field of the line except `t`, `ev`, `board` and `action`.
        fields: serde_json::Map<String, serde_json::Value>,
    },
}

impl TraceEvent {
    /// The `ev` name of this event.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            TraceEvent::Meta { .. } => "meta",
            TraceEvent::Board { .. } => "board",
            TraceEvent::Square { .. } => "square",
            TraceEvent::Occupancy { .. } => "occupancy",
            TraceEvent::Clock { .. } => "clock",
            TraceEvent::Link { .. } => "link",
            TraceEvent::ClockLink { .. } => "clock_link",
            TraceEvent::ClockSide { .. } => "clock_side",
            TraceEvent::UnknownTag { .. } => "unknown_tag",
            TraceEvent::Operator { .. } => "operator",
        }
    }

    /// The board the event belongs to, if any (`meta` has none).
    #[must_use]
    pub fn board(&self) -> Option<BoardId> {
        match self {
            TraceEvent::Meta { .. } => None,
            TraceEvent::Board { board, .. }
            | TraceEvent::Square { board, .. }
            | TraceEvent::Occupancy { board, .. }
            | TraceEvent::Clock { board, .. }
            | TraceEvent::Link { board, .. }
            | TraceEvent::ClockLink { board, .. }
            | TraceEvent::ClockSide { board, .. }
            | TraceEvent::UnknownTag { board, .. } => Some(*board),
            TraceEvent::Operator { board, .. } => *board,
        }
    }

    /// The same event relabelled for another board (no effect on `meta`).
    #[must_use]
    pub fn with_board(mut self, id: BoardId) -> TraceEvent {
        match &mut self {
            TraceEvent::Meta { .. } => {}
            TraceEvent::Board { board, .. }
            | TraceEvent::Square { board, .. }
            | TraceEvent::Occupancy { board, .. }
            | TraceEvent::Clock { board, .. }
            | TraceEvent::Link { board, .. }
            | TraceEvent::ClockLink { board, .. }
            | TraceEvent::ClockSide { board, .. }
            | TraceEvent::UnknownTag { board, .. } => *board = id,
            TraceEvent::Operator { board, .. } => *board = Some(id),
        }
        self
    }
}

/// One line of a trace: an event and its time.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceLine {
    /// Milliseconds since the trace started; never decreases along a trace.
    pub t: u64,
    /// The event.
    pub event: TraceEvent,
}
