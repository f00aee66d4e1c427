//! What the inference decides: moves (the record), alerts, corrections, ends, new games.
//!
//! The types carry everything the `replay --events` JSON and the BPGN writer need; the
//! serialisation itself lives with the callers.

use std::fmt;

use crate::rules::{BoardId, Color, EndReason, IllegalReason, Legality, MatchResult, Move, Role};

/// Facts about how a move was recognised, kept in the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MoveFlags {
    /// A promotion where the board still shows a pawn: the declared piece (queen unless an
    /// operator or a later move says otherwise) is recorded.
    pub promotion_not_shown: bool,
    /// The board has no clock: committed after the placement was stable, no time known.
    pub no_clock: bool,
    /// Completed while the link was down: reconstructed from the board and the clocks
    /// when the link came back (or filled in by the arbiter).
    pub gap_inferred: bool,
    /// Reconstructed, and other orders of the gap's plies explain the board as well (a
    /// `gap-ambiguous` alert lists them).
    pub gap_ambiguous: bool,
    /// The clock reading (and time) of the press is an estimate within the gap's bounds.
    pub time_estimated: bool,
    /// A drop of a piece not yet in hand while the other board was silent: held pending
    /// on that board's gap (settled when it is bridged).
    pub gap_pending: bool,
    /// A drop of a piece not yet in hand while the other board's moves were not read (an
    /// occupancy-only board stalled, or showing what no move explains): held pending on
    /// them, without an alert. Once they are read, a capture among them that supplies it
    /// puts it after that capture, legal; else it is alerted as premature.
    pub unread_pending: bool,
    /// A Koedem grab promotion whose grabbed piece was not seen leaving the other board
    /// while that board's link was down: it waits for that board's gap (no alert yet).
    pub grab_pending: bool,
    /// The press came before the piece was put down (the move completed afterwards).
    pub late_put: bool,
    /// The premature drop was committed without the piece in hand; a later capture settled
    /// the debt.
    pub premature: bool,
}

/// One committed move of the record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordEntry {
    /// The board.
    pub board: BoardId,
    /// The side that made it.
    pub side: Color,
    /// The move number of its BPGN token (`12` for `12A.`/`12a.`).
    pub number: u32,
    /// The move, as the rules core writes it (normalised).
    pub mv: Move,
    /// Its SAN on the position before it.
    pub san: String,
    /// The mover's remaining seconds at the press (none on a clockless board).
    pub clock: Option<f64>,
    /// When it was decided (trace ms): the press, or the end of the stable window.
    pub t: u64,
    /// Legal, or the rule it broke.
    pub legality: Legality,
    /// How it was recognised.
    pub flags: MoveFlags,
    /// What the partner received from this move's capture (a promoted piece goes as a
    /// pawn).
    pub handoff: Option<Role>,
}

/// The code of an alert (`docs/events.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlertCode {
    /// A completed move breaks a rule (the reason says which).
    IllegalMove,
    /// The board matches no explanation; the inference waits for it to match again.
    UnrecognizedPosition,
    /// A clock shows zero for the side whose clock ran.
    FlagFall,
    /// A board's device dropped off.
    LinkLost,
    /// A board's device is back after a `link-lost` (what it missed is taken from its
    /// own log, or worked out by the gap search).
    LinkRestored,
    /// Several sequences of plies explain a board after a link gap: the most plausible is
    /// recorded, the alternatives are listed.
    GapAmbiguous,
    /// Boards and holdings are not two full sets (a piece hidden, taken off, added).
    MaterialMismatch,
    /// A clock press with no move on the board.
    ClockWithoutMove,
    /// Play shows White's time on the other side of the clock than the configuration
    /// says; the evidence is followed.
    ClockSide,
    /// A board's clock stopped reporting (unplugged, or the board says "no clock"): the
    /// board is inferred without a clock from then on.
    ClockLost,
    /// A board's clock reports again: its presses complete moves again.
    ClockRestored,
    /// An RFID tag no calibration knows stays on a square: a piece nobody calibrated. The
    /// square reads empty; no piece is made up for it.
    UnknownTag,
    /// An occupancy-only board (Sentio) showed a drop or a promotion whose piece it cannot
    /// tell: recorded with a placeholder kind, the choices in the detail.
    KindUndetermined,
    /// An occupancy-only board showed what two readings explain: no more moves are taken
    /// from it until the arbiter enters them.
    OccupancyStalled,
    /// A move mates as recorded, but not as every piece whose kind an occupancy-only
    /// board left open may be, or a correction made it mate after the players went on:
    /// the game is not ended, the arbiter records the result in one click.
    EndUndetermined,
}

impl AlertCode {
    /// The published code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            AlertCode::IllegalMove => "illegal-move",
            AlertCode::UnrecognizedPosition => "unrecognized-position",
            AlertCode::FlagFall => "flag-fall",
            AlertCode::LinkLost => "link-lost",
            AlertCode::LinkRestored => "link-restored",
            AlertCode::GapAmbiguous => "gap-ambiguous",
            AlertCode::MaterialMismatch => "material-mismatch",
            AlertCode::ClockWithoutMove => "clock-without-move",
            AlertCode::ClockSide => "clock-side",
            AlertCode::ClockLost => "clock-lost",
            AlertCode::ClockRestored => "clock-restored",
            AlertCode::UnknownTag => "unknown-tag",
            AlertCode::KindUndetermined => "kind-undetermined",
            AlertCode::OccupancyStalled => "occupancy-stalled",
            AlertCode::EndUndetermined => "end-undetermined",
        }
    }
}

impl MoveFlags {
    /// The published names of the flags that are set (`reconstructed`, `ambiguous`, ...).
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.gap_inferred, "reconstructed"),
            (self.gap_ambiguous, "ambiguous"),
            (self.time_estimated, "time-estimated"),
            (self.gap_pending, "pending-on-gap"),
            (self.unread_pending, "pending-on-unread"),
            (self.grab_pending, "grab-pending"),
            (self.promotion_not_shown, "promotion-not-shown"),
            (self.no_clock, "no-clock"),
            (self.late_put, "late-put"),
            (self.premature, "premature"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

impl fmt::Display for AlertCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// An alert for the arbiter.
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    /// When it was decided (trace ms).
    pub t: u64,
    /// The board concerned, if one.
    pub board: Option<BoardId>,
    /// What kind of alert.
    pub code: AlertCode,
    /// For `illegal-move`: the rule broken.
    pub reason: Option<IllegalReason>,
    /// The move number concerned, if a move is.
    pub number: Option<u32>,
    /// The side concerned, if one.
    pub side: Option<Color>,
    /// The SAN of the move concerned, if a move is.
    pub san: Option<String>,
    /// A sentence for people.
    pub detail: String,
    /// What the arbiter may answer in one click (the kinds an occupancy-only board's
    /// drop or promotion may be); empty for most alerts.
    pub choices: Vec<AlertChoice>,
}

/// One answer the arbiter may give an alert in one click: the operator action it posts.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertChoice {
    /// What the button says (the move as it would be recorded, e.g. `N@f3`).
    pub label: String,
    /// The action it posts.
    pub action: super::OperatorAction,
}

impl Alert {
    /// The `premature-drop` of record entry `e` (a drop held pending on the other board),
    /// said at `t`: `why` says what did not supply its piece.
    #[must_use]
    pub fn premature_drop(t: u64, e: &RecordEntry, why: &str) -> Alert {
        Alert {
            t,
            board: Some(e.board),
            code: AlertCode::IllegalMove,
            reason: Some(IllegalReason::PrematureDrop),
            number: Some(e.number),
            side: Some(e.side),
            san: Some(e.san.clone()),
            detail: format!(
                "board {}: {}{} {} dropped a piece that {why} (premature-drop)",
                e.board,
                e.number,
                if e.side == Color::White { "." } else { "..." },
                e.san
            ),
            choices: Vec::new(),
        }
    }

    /// An alert about `board` that names no move.
    #[must_use]
    pub fn about_board(t: u64, board: BoardId, code: AlertCode, detail: String) -> Alert {
        Alert {
            t,
            board: Some(board),
            code,
            reason: None,
            number: None,
            side: None,
            san: None,
            detail,
            choices: Vec::new(),
        }
    }
}

/// What a correction changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CorrectionKind {
    /// A promotion recorded with the default piece was another piece (the laid pawn moved
    /// like a knight, or an operator declared it).
    Promotion,
    /// An operator replaced a recorded move.
    Replace,
    /// An operator filled a link gap with the moves that were missing.
    Fill,
    /// A clockless board's move, final after the board was still, was only the first
    /// stop of its mover's hand (a slow slide, castling rook first): the whole move.
    Revised,
    /// A bridged link gap was another sequence of plies, as the presses and moves that
    /// followed showed.
    GapSettled,
    /// An occupancy-only board's drop recorded with a placeholder kind was another kind,
    /// as a later move of the piece showed (it moved as only that kind can).
    KindSettled,
    /// A drop recorded pending on the other board's moves not read yet (an occupancy-only
    /// board taken up again by the arbiter) now follows the capture among them that
    /// supplied it, legal: the record's order of the two boards' moves changed.
    Supplied,
    /// An occupancy-only board's drop or promotion recorded with a placeholder kind now
    /// carries another of the kinds it may be: the game as recorded had become illegal
    /// with the first (its piece moved as that kind cannot). Still undetermined.
    Placeholder,
}

impl CorrectionKind {
    /// Whether it corrects a kind an occupancy-only board left open.
    #[must_use]
    pub const fn is_occupancy_kind(self) -> bool {
        matches!(
            self,
            CorrectionKind::KindSettled | CorrectionKind::Placeholder
        )
    }
}

/// An earlier record entry was changed; the game was re-played from there.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    /// When it was decided (trace ms).
    pub t: u64,
    /// The board of the corrected move.
    pub board: BoardId,
    /// Its side.
    pub side: Color,
    /// Its move number.
    pub number: u32,
    /// Its index in the record.
    pub index: usize,
    /// What changed.
    pub kind: CorrectionKind,
    /// The SAN before.
    pub old_san: String,
    /// The SAN now.
    pub new_san: String,
    /// A sentence for people.
    pub detail: String,
}

/// A decision of the inference, in the order it was made.
#[derive(Debug, Clone, PartialEq)]
pub enum Inference {
    /// A move was committed (legal or not: an illegal one also raises an alert).
    Move {
        /// The record entry.
        entry: RecordEntry,
        /// The BFEN after the move, with the latest clock readings.
        bfen: String,
    },
    /// An alert.
    Alert(Alert),
    /// An earlier move was corrected.
    Correction(Correction),
    /// The match ended.
    End {
        /// When (trace ms).
        t: u64,
        /// The board where it ended, if one.
        board: Option<BoardId>,
        /// The match result.
        result: MatchResult,
        /// Why, if known.
        reason: Option<EndReason>,
        /// A sentence for people.
        detail: String,
    },
    /// The arbiter corrected the result of a game that had ended.
    ResultCorrection {
        /// When (trace ms).
        t: u64,
        /// The corrected result.
        result: MatchResult,
        /// Why, if known.
        reason: Option<EndReason>,
        /// A sentence for people.
        detail: String,
    },
    /// Both boards were reset after an end: a fresh game starts.
    NewGame {
        /// When (trace ms).
        t: u64,
    },
}

impl Inference {
    /// The trace time at which it was decided.
    #[must_use]
    pub fn t(&self) -> u64 {
        match self {
            Inference::Move { entry, .. } => entry.t,
            Inference::Alert(a) => a.t,
            Inference::Correction(c) => c.t,
            Inference::End { t, .. }
            | Inference::ResultCorrection { t, .. }
            | Inference::NewGame { t } => *t,
        }
    }
}
