//! What an emulated device does, independent of the pty and the trace player.

use std::time::Instant;

use bytes::BytesMut;

use super::state::{Change, Physical};
use crate::trace::Square;

/// What a device shows that tests and demos may want to see.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceStatus {
    /// Commands received and understood.
    pub commands: u64,
    /// Command bytes the device could not parse.
    pub dropped_bytes: u64,
    /// Squares whose LEDs are lit (normal frame).
    pub leds: Vec<Square>,
    /// Text on a DGT 3000 display, while one is shown.
    pub clock_text: Option<String>,
}

pub(crate) trait Device: Send {
    /// Host bytes arrived: answer into `out`.
    fn on_bytes(&mut self, bytes: &[u8], p: &mut Physical, now: Instant, out: &mut BytesMut);
    /// The physical state changed: report it into `out` as the real device would.
    fn render(&mut self, change: &Change, p: &Physical, now: Instant, out: &mut BytesMut);
    /// The physical state changed, whether or not a host listens: what the device keeps
    /// of it itself (a DGT board's EEPROM log). Not called while the device is off.
    fn record(&mut self, _change: &Change, _p: &Physical, _now: Instant) {}
    /// The device was switched on (again) with `p` on it.
    fn power_up(&mut self, _p: &Physical) {}
    /// Time passed: e.g. a running clock's display changed.
    fn tick(&mut self, p: &Physical, now: Instant, out: &mut BytesMut);
    /// The host finished its start-up (update mode + dump, or first status).
    fn synced(&self) -> bool;
    /// The cable was pulled.
    fn unplugged(&mut self);
    /// Status for the handle.
    fn status(&self) -> DeviceStatus;
}
