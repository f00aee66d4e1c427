//! The end of a game by the clock, and what the inference does once a game has ended.
//!
//! A flag has fallen when a clock shows zero for the side whose time runs, or ran until the
//! clock stopped there (a DGT clock blocks at the flag; the driver reads the clock's flag
//! bit as zero). Under the rulesets where the flag ends the game by itself (`fide`,
//! `tournament`, `koedem`: `rules.md` §4) the team of the player whose flag fell loses;
//! both flags down on one board draw that game, except under `koedem`, which has no draws:
//! there the side whose clock is not running had reached zero first, and loses. Under
//! `uscf2006` and `wbn` a flag counts only when claimed: the `flag-fall` alert is the
//! arbiter's prompt to confirm the claim, which the arbiter view does in one click.
//!
//! Once a game has ended, nothing more is recorded into it (`rules.md` §1: the first game to
//! end decides the match, play after it is not part of the game). The boards are still
//! followed, so that both boards set up again start the next game, and so that the grab of
//! a Koedem promotion that ended the game is still paired with its piece.

use crate::rules::{BoardId, ByColor, Color, Seat};

use super::output::{Alert, AlertCode, Inference};

/// How long after a board's link comes back, once the game has ended, its events are still
/// taken as news of what it did while silent (its resync: a snapshot, the clock, the
/// replayed log), and so handled as always.
const RESYNC_MS: u64 = 2000;
use super::{Inferrer, SensorEvent};

impl Inferrer {
    /// Looks at a clock reading of `board` before it replaces the previous one (whose
    /// running side is still the track's): alerts a flag at zero once per game, and ends
    /// the game by the flag where the ruleset says a flag ends it.
    pub(crate) fn on_flags(
        &mut self,
        t: u64,
        board: BoardId,
        readings: ByColor<f64>,
        running: Option<Color>,
        out: &mut Vec<Inference>,
    ) {
        let rules = *self.game.rules();
        let down = |c: Color| readings[c].is_finite() && readings[c] <= 0.0;
        for color in Color::ALL {
            let track = &mut self.tracks[board];
            if down(color) && !track.flag_alerted[color] {
                track.flag_alerted[color] = true;
                let seat = Seat::new(board, color).tag();
                let claim = if rules.flag_needs_claim && !self.end_reported {
                    format!(
                        "; under {} the game ends when the flag is claimed: confirm the claim in the arbiter view",
                        rules.name
                    )
                } else {
                    String::new()
                };
                out.push(Inference::Alert(Alert {
                    t,
                    board: Some(board),
                    code: AlertCode::FlagFall,
                    reason: None,
                    number: None,
                    side: Some(color),
                    san: None,
                    detail: format!("board {board}: {color}'s flag fell ({seat}){claim}"),
                    choices: Vec::new(),
                }));
            }
        }
        // A clock at zero before any move is a clock not yet set (or the last game's), and
        // a game that has ended cannot end again.
        if rules.flag_needs_claim || self.end_reported || self.record.is_empty() {
            return;
        }
        let previous = self.tracks[board].running;
        let Some(color) = Color::ALL.into_iter().find(|&c| {
            down(c) && (running == Some(c) || (running.is_none() && previous == Some(c)))
        }) else {
            return;
        };
        let both = down(color.other());
        let (loser, both) = if both && !rules.draws {
            // No draws (Koedem): the side whose time is not running was at zero already.
            (color.other(), false)
        } else {
            (color, both)
        };
        let Some(end) = self.game.flag(board, loser, both, t) else {
            return;
        };
        let detail = if both {
            format!(
                "both flags fell on board {board} ({} and {}): that game is drawn",
                Seat::new(board, Color::White).tag(),
                Seat::new(board, Color::Black).tag()
            )
        } else {
            format!(
                "{} lost on time: {loser}'s flag fell on board {board}",
                Seat::new(board, loser).tag()
            )
        };
        self.end_game(t, end, detail, out);
    }

    /// Reports an end decided outside the moves, and lets go of what waited for a move: a
    /// press not yet explained will never be.
    pub(crate) fn end_game(
        &mut self,
        t: u64,
        end: crate::rules::GameEnd,
        detail: String,
        out: &mut Vec<Inference>,
    ) {
        self.end_reported = true;
        for b in BoardId::ALL {
            self.tracks[b].pending = None;
        }
        out.push(Inference::End {
            t,
            board: end.board,
            result: end.result,
            reason: Some(end.reason),
            detail,
        });
    }

    /// An event after the end of the game: the boards and clocks are followed (both boards
    /// set up again start a new game), nothing is recorded. Returns `false` for the events
    /// handled as always (links, operator actions).
    pub(crate) fn after_end(&mut self, t: u64, ev: &SensorEvent, out: &mut Vec<Inference>) -> bool {
        // A board whose link was down is still bridged: the plies it played in the gap came
        // before the end, and so did what a board back from a lost link reports at once (the
        // press and the move of its last ply, replayed from its log), and the presses a
        // bridged gap's last plies still owe. And while a drop made before the end still
        // owes its piece (a mate dropped with a piece the other board's gap had not yet
        // supplied), the capture that supplies it is still to be recorded.
        if let SensorEvent::Link { board, up: true } = *ev {
            self.resync_until[board] = t.saturating_add(RESYNC_MS);
        }
        let owed = BoardId::ALL.into_iter().any(|b| {
            Color::ALL
                .into_iter()
                .any(|c| self.debts[b][c].iter().any(|&n| n > 0))
        });
        let bridging = |b: BoardId| {
            let tr = &self.tracks[b];
            tr.gap.is_some()
                || tr.link_down
                || tr.awaiting_snapshot
                || !tr.owed_presses.is_empty()
                || t <= self.resync_until[b]
        };
        if owed || ev.board().is_some_and(bridging) {
            return false;
        }
        match *ev {
            SensorEvent::Square { board, sq, piece } => {
                let track = &mut self.tracks[board];
                if track.awaiting_snapshot {
                    return true;
                }
                let sq = track.orient(sq);
                let was = track.physical.piece_at(sq);
                track.physical.set_square(sq, piece);
                track.last_change = t;
                // A Koedem promotion that ended the game (its capture took the fourth
                // king) is still paired with the piece grabbed from the other board.
                self.grab_square(t, board, sq, (was, piece), out);
                if piece.is_some() {
                    self.check_new_game(t, out);
                }
                true
            }
            SensorEvent::Snapshot { board, placement } => {
                let track = &mut self.tracks[board];
                track.physical = if track.rotated {
                    placement.rotate_180()
                } else {
                    placement
                };
                track.awaiting_snapshot = false;
                track.last_change = t;
                self.check_new_game(t, out);
                true
            }
            SensorEvent::Clock {
                board,
                white,
                black,
                running,
            } => {
                let track = &mut self.tracks[board];
                track.running = running;
                track.clock_seen = true;
                track.readings = Some(ByColor { white, black });
                track.readings_t = t;
                true
            }
            _ => false,
        }
    }
}
