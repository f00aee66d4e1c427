//! A clock found or missed: a DGT board whose clock is unplugged (or never plugged in) is
//! inferred like a clockless board from that moment, and as a clocked one again when its
//! clock reports, with one alert each way.

use crate::rules::BoardId;

use super::Inferrer;
use super::output::{Alert, AlertCode, Inference};

impl Inferrer {
    /// Whether `board`'s presses complete its moves now: it was configured with a clock
    /// and the clock has not been lost since.
    #[must_use]
    pub fn has_clock(&self, board: BoardId) -> bool {
        self.tracks[board].clock_live
    }

    /// The board's clock stopped (`up == false`) or started (`true`) reporting.
    pub(crate) fn on_clock_link(
        &mut self,
        t: u64,
        board: BoardId,
        up: bool,
        out: &mut Vec<Inference>,
    ) {
        if self.tracks[board].clock_live == up {
            return;
        }
        self.tracks[board].clock_live = up;
        if up {
            self.clock_found(board, out);
        } else {
            if let Some(p) = self.tracks[board].pending.take()
                && !self.try_resolve(board, p, true, out)
                && !p.alerted
            {
                // A press nothing explained: said as it would have been after its grace.
                self.tracks[board].pending = Some(p);
                self.alert_pending(board, out);
                self.tracks[board].pending = None;
            }
            self.clock_lost(t, board, out);
        }
        let (code, detail) = if up {
            (
                AlertCode::ClockRestored,
                format!("board {board}: the clock reports again; its presses complete moves"),
            )
        } else {
            (
                AlertCode::ClockLost,
                format!(
                    "board {board}: the clock stopped reporting; moves are taken from the board alone"
                ),
            )
        };
        out.push(Inference::Alert(Alert::about_board(t, board, code, detail)));
    }
}
