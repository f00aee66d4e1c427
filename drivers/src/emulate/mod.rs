//! Emulated boards on pseudo-terminals that speak the real protocols and play a sensor trace.
//!
//! [`Emulator::start`] creates a pty pair (`serialport::TTYPort::pair()`); a driver opens
//! the slave side's path ([`EmulatorHandle::path`]), exactly as it would open
//! `/dev/ttyUSB0`. With [`EmulatorConfig::link_path`] the emulator keeps a symlink there that
//! always points at the current pty, so "unplug" (both pty ends closed, symlink removed: the
//! driver sees a hang-up) and "replug" (a new pty, the symlink re-pointed) look to the driver
//! like a USB cable pulled and put back at the same `/dev/serial/by-path` name.
//!
//! The emulator plays one board's `board`/`square`/`clock`/`clock_link` events of a trace, in order. A
//! leading `board` event is the position set up before the cable was plugged in; everything
//! after it is played once the host has finished its start-up (DGT: update mode and a dump;
//! Millennium: the first `S`), paced by [`Pace`]. Events played while unplugged or muted
//! change the physical board but are not sent; the host sees them in its next full dump.
//!
//! DGT: an EEPROM event log that goes on while unplugged and restarts with a power-up tag
//! after [`EmulatorHandle::power_loss`] (`SEND_EE_MOVES` returns it); field updates in any
//! update mode; BWTIME on clock events and, with
//! [`Pace::Timed`], whenever the running clock's display changes (update-nice behaviour);
//! acks to clock commands; SETNRUN sets the clock; DGT 3000 text is kept for
//! [`DeviceStatus::clock_text`]; Revelation II LEDs are tracked. Like real hardware: the
//! clock status byte is 0x08/0x09/0x12/0x13 (lever and turn bits), the running display
//! never goes up except by the Fischer increment at a press (the trace's `meta` time
//! control, else what the trace's own readings added; a stopped clock may be set), a
//! `clock_link` down line pulls the clock's cable out of the board (BWTIME says "no clock
//! connected" until the `clock_link` up line) while the clock itself goes on, and field
//! updates flow once an update mode is chosen, whether the host asked for the dump before or
//! after. Millennium: `V S W R L X T` with
//! parity (or without, [`EmulatorConfig::parity`]) and block check, the status h1 first,
//! automatic `s` reports on change unless register 02 is 1.

mod certabo;
mod device;
mod dgt;
mod eeprom;
mod millennium;
mod player;
mod state;

pub use certabo::{CertaboEmulation, TagSet};
pub use device::DeviceStatus;

use std::io;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::watch;

use crate::dgt::{BwtimeLayout, ClockSide};
use crate::millennium::ParityMode;
use crate::serial::{PtyPair, pty_pair};
use crate::session::DriverKind;
use crate::trace::{BoardId, TraceEvent, TraceLine};

/// How the trace is played.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// Only when told: [`EmulatorHandle::advance`].
    Manual,
    /// Everything, as fast as the host takes it.
    Asap,
    /// With the trace's timing divided by `speed` (2.0 = twice as fast); the running
    /// clock counts down in between.
    Timed {
        /// Speed factor, above 0.
        speed: f64,
    },
}

/// How to emulate.
#[derive(Debug, Clone)]
pub struct EmulatorConfig {
    /// The protocol to speak.
    pub driver: DriverKind,
    /// Which board's events of the trace to play.
    pub board: BoardId,
    /// Pacing.
    pub pace: Pace,
    /// Keep a symlink here pointing at the current pty (reopen-by-path across replugs).
    pub link_path: Option<PathBuf>,
    /// The board is turned 180° (its reports are in the turned frame).
    pub rotated: bool,
    /// A clock is plugged into the (DGT) board.
    pub clock: bool,
    /// The clock side White sits on.
    pub white_side: ClockSide,
    /// BWTIME layout the emulated board sends.
    pub bwtime_layout: BwtimeLayout,
    /// Millennium: [`ParityMode::Odd`] (default) as a ChessLink board, [`ParityMode::Ignore`]
    /// for a 7-bit device without parity (DGT Centaur's ChessLink emulation).
    pub parity: ParityMode,
    /// Certabo / Sentio: reading period, noise, LED kind.
    pub certabo: CertaboEmulation,
}

impl EmulatorConfig {
    /// Defaults: board A, [`Pace::Asap`], no symlink, normal orientation, clock plugged in,
    /// white on the left, modern BWTIME layout, odd parity.
    #[must_use]
    pub fn new(driver: DriverKind) -> Self {
        EmulatorConfig {
            driver,
            board: BoardId::A,
            pace: Pace::Asap,
            link_path: None,
            rotated: false,
            clock: true,
            white_side: ClockSide::Left,
            bwtime_layout: BwtimeLayout::Modern,
            parity: ParityMode::Odd,
            certabo: CertaboEmulation::default(),
        }
    }
}

/// What the emulator is doing; watch it with [`EmulatorHandle::watch`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmulatorStatus {
    /// Events played so far (not counting the leading set-up `board`).
    pub played: usize,
    /// Events to play in all.
    pub total: usize,
    /// The host has finished its start-up on the current connection.
    pub synced: bool,
    /// The cable is in.
    pub attached: bool,
    /// Device state.
    pub device: DeviceStatus,
}

#[derive(Debug)]
pub(crate) enum EmuControl {
    Advance(usize),
    Play,
    Pause,
    Unplug,
    PowerLoss,
    Replug(Box<PtyPair>),
    Garbage(Vec<u8>),
    Mute(bool),
    Stop,
}

/// Starts emulators.
#[derive(Debug)]
pub struct Emulator;

/// Controls a running emulator; dropping it stops the emulator and removes its symlink.
#[derive(Debug)]
pub struct EmulatorHandle {
    control: std::sync::mpsc::Sender<EmuControl>,
    status: watch::Receiver<EmulatorStatus>,
    link_path: Option<PathBuf>,
    current: PathBuf,
    thread: Option<JoinHandle<()>>,
}

const MASTER_TIMEOUT: Duration = Duration::from_millis(10);

impl Emulator {
    /// Starts an emulated board playing `trace` (only `config.board`'s events are used).
    ///
    /// # Errors
    /// When no pty can be created or the symlink cannot be made.
    pub fn start(config: EmulatorConfig, trace: &[TraceLine]) -> io::Result<EmulatorHandle> {
        let mut events: Vec<TraceLine> = trace
            .iter()
            .filter(|l| l.event.board() == Some(config.board))
            .filter(|l| match l.event {
                TraceEvent::Board { .. } | TraceEvent::Square { .. } => true,
                // A Millennium board has no clock: its clock events (and its clock's cable
                // going out and in) are not part of its play.
                TraceEvent::Clock { .. } | TraceEvent::ClockLink { .. } => {
                    config.driver == DriverKind::Dgt
                }
                _ => false,
            })
            .cloned()
            .collect();
        let increment = trace.iter().find_map(|l| match &l.event {
            TraceEvent::Meta {
                time_control: Some(tc),
                ..
            } => fischer_increment(tc),
            _ => None,
        });
        let origin = timeline_origin(&events);
        let initial = match events.first() {
            Some(TraceLine {
                event: TraceEvent::Board { placement, .. },
                ..
            }) => {
                let p = *placement;
                events.remove(0);
                Some(p)
            }
            _ => None,
        };
        let pair = pty_pair(MASTER_TIMEOUT)?;
        let current = pair.slave_path.clone();
        if let Some(link) = &config.link_path {
            point_link(link, &current).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "{}: cannot make the link to the device: {e}",
                        link.display()
                    ),
                )
            })?;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let (status_tx, status_rx) = watch::channel(EmulatorStatus {
            total: events.len(),
            attached: true,
            ..EmulatorStatus::default()
        });
        let link_path = config.link_path.clone();
        let player = player::Player::new(
            config,
            events,
            (initial, origin),
            increment,
            pair,
            status_tx,
        );
        let thread = std::thread::Builder::new()
            .name("bugbridge-emulator".into())
            .spawn(move || player.run(rx))?;
        Ok(EmulatorHandle {
            control: tx,
            status: status_rx,
            link_path,
            current,
            thread: Some(thread),
        })
    }
}

/// The increment of a `base+increment` time control, in seconds.
fn fischer_increment(tc: &str) -> Option<f64> {
    let (_, inc) = tc.split_once('+')?;
    inc.trim()
        .parse::<f64>()
        .ok()
        .filter(|i| i.is_finite() && *i >= 0.0)
}

/// The trace time that [`Pace::Timed`] plays from: the leading set-up snapshot's, else the
/// first event's. Not simply the first event played: a Millennium board leaves out its clock
/// readings, so its first played event is its first move, seconds into the game, and two
/// boards of a table started together would otherwise each play their first move at once,
/// out of step with each other (a drop before the capture that supplies it).
fn timeline_origin(events: &[TraceLine]) -> u64 {
    events.first().map_or(0, |l| l.t)
}

/// Points the symlink `link` at `target`, atomically (symlink + rename).
pub(crate) fn point_link(link: &Path, target: &Path) -> io::Result<()> {
    let mut tmp = link.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, link)
}

impl EmulatorHandle {
    /// The path a driver should open: the symlink if configured, else the current pty slave.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.link_path
            .clone()
            .unwrap_or_else(|| self.current.clone())
    }

    /// The current status.
    #[must_use]
    pub fn status(&self) -> EmulatorStatus {
        self.status.borrow().clone()
    }

    /// A watch of the status, e.g. `watch.wait_for(|s| s.played == 10).await`.
    #[must_use]
    pub fn watch(&self) -> watch::Receiver<EmulatorStatus> {
        self.status.clone()
    }

    /// Plays `n` more events ([`Pace::Manual`]).
    pub fn advance(&self, n: usize) {
        let _ = self.control.send(EmuControl::Advance(n));
    }

    /// Resumes playing ([`Pace::Asap`] / [`Pace::Timed`]).
    pub fn play(&self) {
        let _ = self.control.send(EmuControl::Play);
    }

    /// Pauses playing.
    pub fn pause(&self) {
        let _ = self.control.send(EmuControl::Pause);
    }

    /// Pulls the cable: both pty ends close (the driver sees a hang-up), the symlink goes.
    pub fn unplug(&self) {
        let _ = self.control.send(EmuControl::Unplug);
    }

    /// Pulls the cable of a board powered through it: the board goes off as well, so its
    /// EEPROM log stops; [`EmulatorHandle::replug`] switches it on again, which writes a
    /// power-up tag. (Plain [`EmulatorHandle::unplug`] is a board with its own supply: its
    /// log goes on while the cable is out.)
    pub fn power_loss(&self) {
        let _ = self.control.send(EmuControl::PowerLoss);
    }

    /// Puts the cable back: a new pty; the symlink (if any) points at it. Returns the path
    /// to open.
    ///
    /// # Errors
    /// When no pty can be created.
    pub fn replug(&mut self) -> io::Result<PathBuf> {
        let pair = pty_pair(MASTER_TIMEOUT)?;
        self.current = pair.slave_path.clone();
        let _ = self.control.send(EmuControl::Replug(Box::new(pair)));
        Ok(self.path())
    }

    /// Sends these bytes to the host, between two messages.
    pub fn inject_garbage(&self, bytes: &[u8]) {
        let _ = self.control.send(EmuControl::Garbage(bytes.to_vec()));
    }

    /// Stops (or resumes) answering and reporting, with the cable in: the host must notice by
    /// its own timeout.
    pub fn set_mute(&self, mute: bool) {
        let _ = self.control.send(EmuControl::Mute(mute));
    }

    /// Stops the emulator and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let _ = self.control.send(EmuControl::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for EmulatorHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Placement, Square};

    fn square(t: u64) -> TraceLine {
        TraceLine {
            t,
            event: TraceEvent::Square {
                board: BoardId::B,
                sq: Square::new(12).expect("a square"),
                piece: None,
            },
        }
    }

    #[test]
    fn a_timed_board_plays_from_its_set_up_not_from_its_first_move() {
        let setup = TraceLine {
            t: 0,
            event: TraceEvent::Board {
                board: BoardId::B,
                placement: Placement::start(),
            },
        };
        assert_eq!(timeline_origin(&[setup, square(2717), square(3031)]), 0);
        assert_eq!(timeline_origin(&[square(2717), square(3031)]), 2717);
        assert_eq!(timeline_origin(&[]), 0);
    }
}
