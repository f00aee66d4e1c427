//! White's side of the clock, as the driver learnt it from play.

use crate::rules::BoardId;

use super::Inferrer;
use super::event::ClockSideName;
use super::output::Inference;

impl Inferrer {
    /// The driver decided White's side of `board`'s clock.
    pub(crate) fn on_clock_side(
        &mut self,
        _t: u64,
        _board: BoardId,
        _white_side: ClockSideName,
        _configured: Option<ClockSideName>,
        _evidence: &str,
        _out: &mut Vec<Inference>,
    ) {
    }
}
