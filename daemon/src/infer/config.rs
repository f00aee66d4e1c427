//! How the inference is tuned for one match.

use crate::rules::{ByBoard, Ruleset};

/// The default of [`InferConfig::stable_commit_ms`]: longer than a hand rests between two
/// placements of one move (a slide, a capture), shorter than the 1 s a spectator may wait
/// for a move (the `clockless_latency` benchmark measures it).
pub const DEFAULT_STABLE_COMMIT_MS: u64 = 800;

/// The configuration of an [`Inferrer`](super::Inferrer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InferConfig {
    /// The rules of the match.
    pub ruleset: Ruleset,
    /// Whether each board has a clock. A board without one is followed square by square:
    /// a move is final when the other side's next move begins, or when the board has been
    /// still for [`stable_commit_ms`](Self::stable_commit_ms).
    pub clock: ByBoard<bool>,
    /// Clockless boards: how long (ms) the board must be still, with a move on it, for
    /// that move to be final when the other side has not started its own.
    pub stable_commit_ms: u64,
    /// How late (ms) the other board's press that supplies a dropped piece may arrive and
    /// still make the drop legal (the cross-board race of case 30).
    pub drop_tolerance_ms: u64,
    /// How long (ms) a press that no move explains yet may wait for the board to settle
    /// (a piece still in hand, a misread square) before it is alerted.
    pub press_grace_ms: u64,
    /// Both boards back in the start position after this long (ms) without a press start
    /// a new game even when no end was recorded.
    pub new_game_idle_ms: u64,
    /// A board back from a link gap: the longest sequence of plies searched to explain
    /// what it shows.
    pub gap_max_plies: usize,
    /// The most positions one gap search may visit before it gives up (bounds the time a
    /// search takes; see the `gap_search` benchmark).
    pub gap_node_budget: u64,
    /// Koedem: how far apart (ms) a promotion's press and the grabbed piece leaving the
    /// other board may be and still be paired as one grab.
    pub grab_window_ms: u64,
}

impl Default for InferConfig {
    fn default() -> InferConfig {
        InferConfig {
            ruleset: Ruleset::default(),
            clock: ByBoard { a: true, b: true },
            stable_commit_ms: DEFAULT_STABLE_COMMIT_MS,
            drop_tolerance_ms: 300,
            press_grace_ms: 2500,
            new_game_idle_ms: 60_000,
            gap_max_plies: 6,
            gap_node_budget: 150_000,
            grab_window_ms: 15_000,
        }
    }
}
