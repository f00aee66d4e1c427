//! Two emulated e-boards on pseudo-terminals, played one event at a time: DGT boards with
//! clocks by default, or a Millennium board (no clock) on either side. A DGT board also
//! plays the trace's `clock_link` lines (its clock's cable out and in).
//!
//! Both boards run in [`Pace::Manual`]: nothing happens until the test advances them. The
//! test plays the trace in its own order (the board whose next event is earliest goes
//! next) and, after each clock press, waits for the daemon to have decided the move before
//! going on, so the order in which the two boards' bytes reach the daemon is the game's.

use std::path::{Path, PathBuf};

use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, EmulatorHandle, EmulatorStatus, Pace};
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::{BoardId, Side, TraceEvent};

use crate::game::TestGame;
use crate::within;

/// One event of the trace as a board plays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The board that plays it.
    pub board: BoardId,
    /// The event that completes a move: a clock press, or on a clockless board the last
    /// square change before the press the trace holds.
    pub press: bool,
    /// Its time in the trace (ms).
    pub t: u64,
    /// A `clock_link` line: the clock's cable goes out (`false`) or back in (`true`).
    pub clock_link: Option<bool>,
}

/// The two boards of a table.
#[derive(Debug)]
pub struct Table {
    emulators: Vec<EmulatorHandle>,
    schedule: Vec<Step>,
    next: usize,
    played: [usize; 2],
    moves: usize,
    last: Option<(std::time::Instant, std::time::Instant)>,
    last_step: Option<Step>,
}

fn index(b: BoardId) -> usize {
    match b {
        BoardId::A => 0,
        BoardId::B => 1,
    }
}

impl Table {
    /// Starts both boards for `game`. With `links`, each board keeps a symlink in that
    /// directory (`board-a`, `board-b`) that always points at its current pty, so a daemon
    /// started again, or a board replugged, is found at the same path.
    ///
    /// # Panics
    ///
    /// When a pty cannot be created.
    #[must_use]
    pub fn start(game: &TestGame, links: Option<&Path>) -> Table {
        Table::start_with(game, links, [DriverKind::Dgt, DriverKind::Dgt])
    }

    /// [`Table::start`] with board A's and board B's devices: a Millennium board has no
    /// clock, so its clock events are not played, and its moves complete with their last
    /// square change (the daemon commits them once the board has been still).
    ///
    /// # Panics
    ///
    /// As [`Table::start`].
    #[must_use]
    pub fn start_with(game: &TestGame, links: Option<&Path>, drivers: [DriverKind; 2]) -> Table {
        let emulators = [BoardId::A, BoardId::B]
            .into_iter()
            .map(|b| {
                let mut cfg = EmulatorConfig::new(drivers[index(b)]);
                cfg.board = b;
                cfg.pace = Pace::Manual;
                cfg.link_path =
                    links.map(|d| d.join(format!("board-{}", b.to_string().to_lowercase())));
                Emulator::start(cfg, &game.lines).expect("an emulated board starts")
            })
            .collect();
        // The same selection as the emulator's: each board's snapshot, squares and clock,
        // less the leading snapshot (the position set up before the cable went in).
        let mut schedule = Vec::new();
        let mut seen_first = [false; 2];
        let mut running: [Option<Option<Side>>; 2] = [None, None];
        for line in &game.lines {
            let Some(board) = line.event.board() else {
                continue;
            };
            let i = index(board);
            let clockless = drivers[i] == DriverKind::Millennium;
            let mut clock_link = None;
            let press = match &line.event {
                TraceEvent::Board { .. } if !seen_first[i] => {
                    seen_first[i] = true;
                    continue;
                }
                TraceEvent::Board { .. } | TraceEvent::Square { .. } => false,
                // The clock's cable, played by a DGT board's emulator.
                TraceEvent::ClockLink { up, .. } if !clockless => {
                    clock_link = Some(*up);
                    false
                }
                TraceEvent::Clock { running: r, .. } => {
                    let before = running[i].replace(*r);
                    let press = matches!((before, r), (Some(Some(x)), Some(y)) if x != *y);
                    if clockless {
                        // Not played: the move ends with its last square change.
                        if press
                            && let Some(last) = schedule
                                .iter_mut()
                                .rev()
                                .find(|s: &&mut Step| s.board == board)
                        {
                            last.press = true;
                        }
                        continue;
                    }
                    press
                }
                _ => continue,
            };
            seen_first[i] = true;
            schedule.push(Step {
                board,
                press,
                t: line.t,
                clock_link,
            });
        }
        Table {
            emulators,
            schedule,
            next: 0,
            played: [0, 0],
            moves: 0,
            last: None,
            last_step: None,
        }
    }

    /// The emulated board `b`.
    #[must_use]
    pub fn emulator(&self, b: BoardId) -> &EmulatorHandle {
        &self.emulators[index(b)]
    }

    /// The emulated board `b`, to unplug and replug it.
    #[must_use]
    pub fn emulator_mut(&mut self, b: BoardId) -> &mut EmulatorHandle {
        &mut self.emulators[index(b)]
    }

    /// The path a daemon opens for board `b` (the symlink when there is one).
    #[must_use]
    pub fn path(&self, b: BoardId) -> PathBuf {
        self.emulator(b).path()
    }

    /// Moves completed (clock presses played) so far.
    #[must_use]
    pub fn moves_played(&self) -> usize {
        self.moves
    }

    /// The events still to play, in the order [`Table::step`] plays them.
    #[must_use]
    pub fn upcoming(&self) -> &[Step] {
        &self.schedule[self.next..]
    }

    /// Whether every event has been played.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.next == self.schedule.len()
    }

    /// Waits until board `b`'s status satisfies `f`.
    ///
    /// # Panics
    ///
    /// After [`LIMIT`](crate::LIMIT), naming `what`.
    pub async fn wait_status(
        &self,
        b: BoardId,
        what: &str,
        f: impl FnMut(&EmulatorStatus) -> bool,
    ) -> EmulatorStatus {
        let mut watch = self.emulator(b).watch();
        let st = within(what, watch.wait_for(f)).await;
        st.expect("the emulator is running").clone()
    }

    /// Waits until a host has connected to both boards and finished its start-up.
    pub async fn synced(&self) {
        for b in [BoardId::A, BoardId::B] {
            self.wait_status(b, "a host synced with the board", |s| s.synced)
                .await;
        }
    }

    /// Plays the next event and waits until the board has written it to its pty. Returns
    /// it, or `None` when the trace is over.
    pub async fn step(&mut self) -> Option<Step> {
        let step = *self.schedule.get(self.next)?;
        self.next += 1;
        let i = index(step.board);
        self.played[i] += 1;
        let n = self.played[i];
        let mut watch = self.emulators[i].watch();
        let asked = std::time::Instant::now();
        self.emulators[i].advance(1);
        within(
            "the board to play its next event",
            watch.wait_for(|s| s.played >= n),
        )
        .await
        .expect("the emulator is running");
        self.last = Some((asked, std::time::Instant::now()));
        self.last_step = Some(step);
        if step.press {
            self.moves += 1;
        }
        Some(step)
    }

    /// The last event played.
    #[must_use]
    pub fn last_step(&self) -> Option<Step> {
        self.last_step
    }

    /// When the last [`Table::step`] asked the board to play (before its bytes were
    /// written) and when the board was seen to have written them (after).
    #[must_use]
    pub fn last_timing(&self) -> Option<(std::time::Instant, std::time::Instant)> {
        self.last
    }

    /// Plays until `moves` moves have been completed (stopping right after that press);
    /// after every press, awaits `decided(moves so far)`, which must return once the
    /// daemon has decided that many moves.
    pub async fn play_moves(&mut self, moves: usize, decided: &mut impl AsyncFnMut(usize)) {
        while self.moves < moves {
            let Some(step) = self.step().await else {
                panic!("the trace has only {} moves, not {moves}", self.moves);
            };
            if step.press {
                decided(self.moves).await;
            }
        }
    }

    /// Plays everything left, awaiting `decided` after every press as [`Table::play_moves`].
    pub async fn play_rest(&mut self, decided: &mut impl AsyncFnMut(usize)) {
        while let Some(step) = self.step().await {
            if step.press {
                decided(self.moves).await;
            }
        }
    }
}
