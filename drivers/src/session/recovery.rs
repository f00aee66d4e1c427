//! Recovery of a DGT board's outage from its own EEPROM log.
//!
//! A board that kept its power while its link was down logged every field change and every
//! lever press meanwhile (`docs/eboards.md`, "The DGT board's event log"). The session remembers the last
//! [`HISTORY`] loggable things it received (field updates, and presses seen in the clock
//! readings, in the board's own frame); at link-up it reads the log, finds the latest place
//! where the log's entries end exactly like that history, and takes everything after it as
//! what was missed. A power-up tag after that place means the board was off for part of the
//! outage: nothing is replayed (the log cannot say what happened while it was off). No
//! match means nothing is replayed either; the inference bridges the gap from the snapshot.
//!
//! Presses are compared by side only: the time in a reading can lag the logged one.

use std::collections::VecDeque;
use std::fmt;

use crate::dgt::ClockSide;
use crate::dgt::eeprom::{EeEntry, EeLog, tag};
use crate::dgt::{code_to_piece, index_to_square};
use crate::trace::Placement;

/// How many received items are remembered (and compared, at most).
pub(crate) const HISTORY: usize = 32;

/// Something the board both reports and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// A field change (board index, piece code).
    Piece { index: u8, code: u8 },
    /// The lever halted this side.
    Press { halted: ClockSide },
}

/// Something to replay: what the board logged while the host could not hear it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missed {
    /// A field change (board index, piece code).
    Piece { index: u8, code: u8 },
    /// A lever press: the halted side and its time then.
    Press { halted: ClockSide, seconds: u32 },
}

/// Why nothing is replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoRecovery {
    /// Nothing was received before the outage to find in the log.
    NoHistory,
    /// The log does not hold what was received before the outage.
    NoMatch,
    /// The board was switched on again during the outage (power-up tag after the match).
    PowerLoss,
}

impl fmt::Display for NoRecovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NoRecovery::NoHistory => "nothing received before the outage",
            NoRecovery::NoMatch => "the log does not hold what was received before the outage",
            NoRecovery::PowerLoss => "the board lost power during the outage",
        })
    }
}

/// What was received from one board, for finding it in its log.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recovery {
    history: VecDeque<Seen>,
    lever: Option<ClockSide>,
}

impl Recovery {
    /// Whether a log is worth reading at the next link-up.
    pub(crate) fn wanted(&self) -> bool {
        !self.history.is_empty()
    }

    /// Forgets everything (after a power loss the old history is not in the new log).
    pub(crate) fn reset(&mut self) {
        self.history.clear();
        self.lever = None;
    }

    fn push(&mut self, s: Seen) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(s);
    }

    /// A field update was received (or replayed).
    pub(crate) fn piece(&mut self, index: u8, code: u8) {
        self.push(Seen::Piece { index, code });
    }

    /// A clock reading was received (or replayed) with this side running: a change of the
    /// running side is a press that the board logged.
    pub(crate) fn running(&mut self, running: Option<ClockSide>) {
        if let (Some(before), Some(now)) = (self.lever, running)
            && before != now
        {
            self.push(Seen::Press { halted: before });
        }
        if running.is_some() {
            self.lever = running;
        }
    }

    /// What was missed, according to `log`; `with_clock`: presses count (a session that
    /// ignores the clock has none in its history, so the log's are left out too).
    pub(crate) fn missed(&self, log: &EeLog, with_clock: bool) -> Result<Vec<Logged>, NoRecovery> {
        if self.history.is_empty() {
            return Err(NoRecovery::NoHistory);
        }
        let items: Vec<Logged> = log
            .entries
            .iter()
            .filter_map(|e| match *e {
                EeEntry::Piece { index, code, .. } => {
                    Some(Logged::Missed(Missed::Piece { index, code }))
                }
                EeEntry::Time { left, .. } if with_clock => Some(Logged::Missed(Missed::Press {
                    halted: if left {
                        ClockSide::Left
                    } else {
                        ClockSide::Right
                    },
                    seconds: e.total_seconds().unwrap_or(0),
                })),
                EeEntry::Tag(tag::POWER_UP) => Some(Logged::PowerUp),
                _ => None,
            })
            .collect();
        let k = self.history.len();
        let tail: Vec<Seen> = self.history.iter().copied().collect();
        let end = (k..=items.len())
            .rev()
            .find(|&end| items[end - k..end].iter().zip(&tail).all(|(l, s)| l.is(s)))
            .ok_or(NoRecovery::NoMatch)?;
        let rest = &items[end..];
        if rest.contains(&Logged::PowerUp) {
            return Err(NoRecovery::PowerLoss);
        }
        Ok(rest.to_vec())
    }
}

/// A log entry that matters for recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Logged {
    /// Something to replay.
    Missed(Missed),
    /// The board was switched on.
    PowerUp,
}

impl Logged {
    fn is(&self, s: &Seen) -> bool {
        match (self, s) {
            (Logged::Missed(Missed::Piece { index, code }), Seen::Piece { index: i, code: c }) => {
                index == i && code == c
            }
            (Logged::Missed(Missed::Press { halted, .. }), Seen::Press { halted: h }) => {
                halted == h
            }
            _ => false,
        }
    }
}

/// The board (own frame) after the missed field changes.
pub(crate) fn after(mut raw: Placement, missed: &[Logged]) -> Placement {
    for m in missed {
        if let Logged::Missed(Missed::Piece { index, code }) = *m
            && let Some(sq) = index_to_square(index)
        {
            raw.set(sq, code_to_piece(code));
        }
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::eeprom::{EeEntry, EeLog};

    fn piece(index: u8, code: u8) -> EeEntry {
        EeEntry::Piece {
            index,
            code,
            quick: false,
        }
    }

    fn log(entries: Vec<EeEntry>) -> EeLog {
        EeLog {
            entries,
            wrapped: false,
            skipped: 0,
        }
    }

    fn seen() -> Recovery {
        let mut r = Recovery::default();
        r.running(Some(ClockSide::Left));
        r.piece(52, 0); // e2 lifted
        r.piece(36, 1); // e4 white pawn
        r.running(Some(ClockSide::Right)); // White pressed
        r
    }

    #[test]
    fn what_follows_the_received_history_is_missed() {
        let r = seen();
        let l = log(vec![
            EeEntry::Tag(tag::POWER_UP),
            EeEntry::Tag(tag::START_POSITION),
            piece(52, 0),
            piece(36, 1),
            EeEntry::time(true, 178),
            piece(11, 0), // d7 lifted
            piece(27, 7), // d5 black pawn
            EeEntry::time(false, 175),
        ]);
        assert_eq!(
            r.missed(&l, true),
            Ok(vec![
                Logged::Missed(Missed::Piece { index: 11, code: 0 }),
                Logged::Missed(Missed::Piece { index: 27, code: 7 }),
                Logged::Missed(Missed::Press {
                    halted: ClockSide::Right,
                    seconds: 175
                }),
            ])
        );
        // Without a clock the presses are left out on both sides.
        let mut no_clock = Recovery::default();
        no_clock.piece(52, 0);
        no_clock.piece(36, 1);
        assert_eq!(
            no_clock.missed(&l, false).map(|m| m.len()),
            Ok(2),
            "two field changes"
        );
    }

    #[test]
    fn a_power_up_in_the_gap_replays_nothing() {
        let r = seen();
        let l = log(vec![
            EeEntry::Tag(tag::POWER_UP),
            piece(52, 0),
            piece(36, 1),
            EeEntry::time(true, 178),
            piece(11, 0),
            EeEntry::Tag(tag::POWER_UP),
            piece(27, 7),
        ]);
        assert_eq!(r.missed(&l, true), Err(NoRecovery::PowerLoss));
    }

    #[test]
    fn a_log_without_the_history_replays_nothing() {
        let r = seen();
        let l = log(vec![
            EeEntry::Tag(tag::POWER_UP),
            piece(52, 0),
            piece(11, 0),
        ]);
        assert_eq!(r.missed(&l, true), Err(NoRecovery::NoMatch));
        assert_eq!(
            Recovery::default().missed(&l, true),
            Err(NoRecovery::NoHistory)
        );
    }

    #[test]
    fn the_latest_match_is_taken_and_nothing_missed_is_nothing() {
        // The same lift and put back twice: only what follows the last one is missed.
        let mut r = Recovery::default();
        r.piece(57, 0);
        r.piece(57, 3);
        let l = log(vec![piece(57, 0), piece(57, 3), piece(57, 0), piece(57, 3)]);
        assert_eq!(r.missed(&l, true), Ok(vec![]));
        let raw = Placement::start();
        assert_eq!(after(raw, &[]), raw);
    }
}
