//! The emulator thread: pty I/O, control requests, trace playback.

use std::io::{ErrorKind, Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::Instant;

use bytes::BytesMut;
use tokio::sync::watch;

use super::certabo::CertaboDevice;
use super::device::Device;
use super::dgt::DgtDevice;
use super::millennium::MillenniumDevice;
use super::state::Physical;
use super::{EmuControl, EmulatorConfig, EmulatorStatus, MASTER_TIMEOUT, Pace, point_link};
use crate::serial::PtyPair;
use crate::session::DriverKind;
use crate::trace::{Placement, TraceLine};

pub(crate) struct Player {
    cfg: EmulatorConfig,
    events: Vec<TraceLine>,
    next: usize,
    allowed: usize,
    paused: bool,
    muted: bool,
    /// The board has power (it loses it with the cable in [`EmuControl::PowerLoss`]).
    powered: bool,
    /// Trace time reached (ms since `origin`), for [`Pace::Timed`].
    virtual_ms: f64,
    /// The trace time playing starts from (see `timeline_origin`).
    origin: u64,
    last_instant: Option<Instant>,
    started: bool,
    device: Box<dyn Device>,
    physical: Physical,
    pty: Option<PtyPair>,
    status: watch::Sender<EmulatorStatus>,
    out: BytesMut,
}

impl Player {
    pub(crate) fn new(
        cfg: EmulatorConfig,
        events: Vec<TraceLine>,
        (initial, origin): (Option<Placement>, u64),
        increment: Option<f64>,
        pty: PtyPair,
        status: watch::Sender<EmulatorStatus>,
    ) -> Self {
        let device: Box<dyn Device> = match cfg.driver {
            DriverKind::Dgt => Box::new(DgtDevice::new(
                cfg.rotated,
                cfg.clock,
                cfg.white_side,
                cfg.bwtime_layout,
            )),
            DriverKind::Millennium => Box::new(MillenniumDevice::new(cfg.rotated, cfg.parity)),
            DriverKind::Certabo | DriverKind::Sentio => Box::new(CertaboDevice::new(
                cfg.driver == DriverKind::Sentio,
                cfg.board,
                cfg.rotated,
                cfg.certabo,
            )),
        };
        let physical = Physical::new(initial.unwrap_or_else(Placement::start), increment);
        let mut device = device;
        device.power_up(&physical);
        Player {
            events,
            next: 0,
            allowed: 0,
            paused: false,
            muted: false,
            powered: true,
            virtual_ms: 0.0,
            origin,
            last_instant: None,
            started: false,
            device,
            physical,
            pty: Some(pty),
            status,
            out: BytesMut::with_capacity(1024),
            cfg,
        }
    }

    fn speed(&self) -> f64 {
        match self.cfg.pace {
            Pace::Timed { speed } if speed > 0.0 => speed,
            _ => 0.0,
        }
    }

    fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        if let Some(pty) = self.pty.as_mut().filter(|_| !self.muted)
            && let Err(e) = pty.master.write_all(&self.out)
        {
            tracing::debug!(error = %e, "emulator write failed");
        }
        self.out.clear();
    }

    /// Handles one control request; `false` to stop.
    fn control(&mut self, c: EmuControl) -> bool {
        match c {
            EmuControl::Advance(n) => self.allowed += n,
            EmuControl::Play => self.paused = false,
            EmuControl::Pause => self.paused = true,
            EmuControl::Mute(m) => self.muted = m,
            EmuControl::Garbage(bytes) => {
                self.flush();
                self.out.extend_from_slice(&bytes);
                self.flush();
            }
            EmuControl::Unplug | EmuControl::PowerLoss => {
                if matches!(c, EmuControl::PowerLoss) {
                    self.powered = false;
                }
                self.pty = None;
                self.device.unplugged();
                if let Some(link) = &self.cfg.link_path {
                    let _ = std::fs::remove_file(link);
                }
            }
            EmuControl::Replug(pair) => {
                let pair = *pair;
                if let Some(link) = &self.cfg.link_path
                    && let Err(e) = point_link(link, &pair.slave_path)
                {
                    tracing::warn!(error = %e, "emulator cannot re-point its symlink");
                }
                self.device.unplugged();
                if !self.powered {
                    self.powered = true;
                    self.device.power_up(&self.physical);
                }
                self.pty = Some(pair);
            }
            EmuControl::Stop => return false,
        }
        true
    }

    fn due(&mut self, now: Instant) -> bool {
        if self.next >= self.events.len() {
            return false;
        }
        match self.cfg.pace {
            Pace::Manual => self.next < self.allowed,
            Pace::Asap => self.started && !self.paused,
            Pace::Timed { .. } => {
                if !self.started || self.paused {
                    self.last_instant = None;
                    return false;
                }
                if let Some(last) = self.last_instant {
                    self.virtual_ms +=
                        now.duration_since(last).as_secs_f64() * 1000.0 * self.speed();
                }
                self.last_instant = Some(now);
                self.events[self.next].t.saturating_sub(self.origin) as f64 <= self.virtual_ms
            }
        }
    }

    fn play_due(&mut self) {
        loop {
            let now = Instant::now();
            if !self.due(now) {
                return;
            }
            let speed = self.speed();
            let TraceLine { t, event } = self.events[self.next].clone();
            self.next += 1;
            if let Some(change) = self.physical.apply(&event, t, now, speed) {
                if self.powered {
                    self.device.record(&change, &self.physical, now);
                }
                let live = self.pty.is_some() && self.device.synced() && !self.muted;
                if live {
                    self.device
                        .render(&change, &self.physical, now, &mut self.out);
                    self.flush();
                }
            }
        }
    }

    fn publish(&self) {
        let st = EmulatorStatus {
            played: self.next,
            total: self.events.len(),
            synced: self.device.synced(),
            attached: self.pty.is_some(),
            device: self.device.status(),
        };
        self.status.send_if_modified(|s| {
            if *s == st {
                false
            } else {
                *s = st;
                true
            }
        });
    }

    pub(crate) fn run(mut self, control: Receiver<EmuControl>) {
        let mut buf = [0u8; 1024];
        loop {
            loop {
                match control.try_recv() {
                    Ok(c) => {
                        if !self.control(c) {
                            return self.finish();
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return self.finish(),
                }
            }
            match self.pty.as_mut() {
                Some(pty) => match pty.master.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        if !self.muted {
                            let now = Instant::now();
                            self.device
                                .on_bytes(&buf[..n], &mut self.physical, now, &mut self.out);
                            self.flush();
                        }
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::TimedOut => {}
                    Err(e) => {
                        tracing::debug!(error = %e, "emulator read failed");
                        std::thread::sleep(MASTER_TIMEOUT);
                    }
                },
                None => match control.recv_timeout(MASTER_TIMEOUT) {
                    Ok(c) => {
                        if !self.control(c) {
                            return self.finish();
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return self.finish(),
                },
            }
            if self.device.synced() && !self.started {
                self.started = true;
            }
            self.play_due();
            if self.pty.is_some() && self.device.synced() && !self.muted {
                self.device
                    .tick(&self.physical, Instant::now(), &mut self.out);
                self.flush();
            }
            self.publish();
        }
    }

    fn finish(self) {
        if let Some(link) = &self.cfg.link_path {
            let _ = std::fs::remove_file(link);
        }
    }
}
