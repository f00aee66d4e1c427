//! Two emulated e-boards playing a trace at its own pace ([`Pace::Timed`]), as the players
//! of the game would: the test does not step them, so what the daemon sees (and when) is
//! what it would see at a real table, bughouse speed included.
//!
//! Unlike [`Table`](crate::table::Table), nothing waits for the daemon between moves: a
//! clockless board's move is only final once the board has moved on or stood still, which
//! is exactly what such a test is about.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, EmulatorHandle, Pace};
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::{BoardId, TraceLine};

use crate::{LIMIT, within};

/// The two boards of a table, each a DGT board with its clock or a Millennium board.
#[derive(Debug)]
pub struct PacedTable {
    emulators: [EmulatorHandle; 2],
    drivers: [DriverKind; 2],
    /// The trace time of its last event (ms): how long the game takes.
    pub duration_ms: u64,
}

fn index(b: BoardId) -> usize {
    match b {
        BoardId::A => 0,
        BoardId::B => 1,
    }
}

impl PacedTable {
    /// Starts both boards for `lines`, held until [`PacedTable::play`]: board A speaks
    /// `drivers[0]`'s protocol, board B `drivers[1]`'s. A Millennium board leaves out the
    /// trace's clock readings of its board (it has no clock).
    ///
    /// # Panics
    ///
    /// When a pty cannot be created.
    #[must_use]
    pub fn start(lines: &[TraceLine], drivers: [DriverKind; 2]) -> PacedTable {
        let emulators = [BoardId::A, BoardId::B].map(|b| {
            let mut cfg = EmulatorConfig::new(drivers[index(b)]);
            cfg.board = b;
            cfg.pace = Pace::Timed { speed: 1.0 };
            let emu = Emulator::start(cfg, lines).expect("an emulated board starts");
            // Held until both have met their host: the two boards of a match start
            // together, as the players do.
            emu.pause();
            emu
        });
        PacedTable {
            emulators,
            drivers,
            duration_ms: lines.last().map_or(0, |l| l.t),
        }
    }

    /// The path a daemon opens for board `b`.
    #[must_use]
    pub fn path(&self, b: BoardId) -> PathBuf {
        self.emulators[index(b)].path()
    }

    /// Board `b`'s protocol.
    #[must_use]
    pub fn driver(&self, b: BoardId) -> DriverKind {
        self.drivers[index(b)]
    }

    /// Writes, at `path`, the configuration a club would write for this table (each board
    /// with its own driver; a Millennium board `clock = "none"`), with the embedded MQTT
    /// broker and HTTP on free loopback ports and the records in `records`, for
    /// `bugbridge run --config`.
    ///
    /// # Panics
    ///
    /// When the file cannot be written.
    pub fn write_config(&self, path: &Path, match_id: &str, records: &Path) {
        let board = |b: BoardId| {
            let driver = self.driver(b).name();
            let clock = if self.driver(b) == DriverKind::Dgt {
                "board"
            } else {
                "none"
            };
            format!(
                "[[board]]\nname = \"{b}\"\ndriver = \"{driver}\"\nclock = \"{clock}\"\nport = \"{}\"\n",
                self.path(b).display()
            )
        };
        let text = format!(
            "[match]\nid = \"{match_id}\"\n\n{}\n{}\n[mqtt]\nurl = \"embedded\"\nembedded_listen = \"127.0.0.1:0\"\n\n[http]\nlisten = \"127.0.0.1:0\"\n\n[record]\ndir = \"{}\"\n",
            board(BoardId::A),
            board(BoardId::B),
            records.display()
        );
        std::fs::write(path, text).expect("write the configuration");
    }

    /// Waits until a host has finished its start-up with both boards, then lets both play.
    pub async fn play(&self) {
        for e in &self.emulators {
            let mut watch = e.watch();
            within("a host synced with the board", watch.wait_for(|s| s.synced))
                .await
                .expect("the emulator is running");
        }
        for e in &self.emulators {
            e.play();
        }
    }

    /// Waits until both boards have played their whole trace (the game's duration, plus
    /// [`LIMIT`] to spare).
    ///
    /// # Panics
    ///
    /// When they have not by then.
    pub async fn played_all(&self) {
        let bound = Duration::from_millis(self.duration_ms) + LIMIT;
        for e in &self.emulators {
            let mut watch = e.watch();
            let done = tokio::time::timeout(bound, watch.wait_for(|s| s.played >= s.total)).await;
            match done {
                Ok(r) => {
                    r.expect("the emulator is running");
                }
                Err(_) => panic!("the boards had not played the game after {bound:?}"),
            }
        }
    }
}
