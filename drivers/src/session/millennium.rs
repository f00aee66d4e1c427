//! The Millennium side of a session: `V`, register writes, `S`; statuses → events; LEDs.

use std::time::Instant;

use bytes::BytesMut;

use super::board_state::BoardTracker;
use super::run::Protocol;
use super::watchdog::Watchdog;
use super::{Control, SessionConfig};
use crate::error::SessionError;
use crate::millennium::{
    MillCommand, ParityMode, Reply, ReplyDecoder, apply_parity, char_to_piece, index_to_square,
    leds_for_squares,
};
use crate::trace::{Placement, TraceEvent};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitVersion,
    AwaitReportMode,
    AwaitScanTime,
    AwaitStatus,
    Synced,
}

#[derive(Debug)]
pub(crate) struct MillenniumProtocol {
    cfg: SessionConfig,
    decoder: ReplyDecoder,
    buf: BytesMut,
    phase: Phase,
    since: Instant,
    board: BoardTracker,
    watchdog: Watchdog,
}

impl MillenniumProtocol {
    pub(crate) fn new(cfg: SessionConfig) -> Self {
        let now = Instant::now();
        MillenniumProtocol {
            board: BoardTracker::new(cfg.board, cfg.orientation),
            watchdog: Watchdog::new(now, cfg.probe_after, cfg.reply_timeout),
            decoder: ReplyDecoder::new(cfg.millennium.parity),
            buf: BytesMut::with_capacity(256),
            phase: Phase::AwaitVersion,
            since: now,
            cfg,
        }
    }

    /// The parity commands go out with: as configured, or (auto) as the board sends.
    fn send_parity(&self) -> ParityMode {
        match self.cfg.millennium.parity {
            ParityMode::Auto => self.decoder.detected_parity().unwrap_or(ParityMode::Odd),
            other => other,
        }
    }

    fn send(&self, cmd: &MillCommand, out: &mut Vec<u8>) {
        let mut bytes = cmd.to_bytes();
        apply_parity(&mut bytes, self.send_parity());
        out.extend(bytes);
    }

    fn step(&mut self, phase: Phase, cmd: MillCommand, now: Instant, out: &mut Vec<u8>) {
        self.send(&cmd, out);
        self.phase = phase;
        self.since = now;
    }

    fn on_reply(&mut self, r: Reply, now: Instant, ev: &mut Vec<TraceEvent>, out: &mut Vec<u8>) {
        let m = self.cfg.millennium;
        match (self.phase, r) {
            (Phase::AwaitVersion, Reply::Version { major, minor }) => {
                tracing::info!(board = %self.cfg.board, major, minor, "Millennium board version");
                let cmd = MillCommand::WriteRegister {
                    addr: 2,
                    value: m.report_mode,
                };
                self.step(Phase::AwaitReportMode, cmd, now, out);
            }
            (Phase::AwaitReportMode, Reply::RegisterWritten { addr: 2, .. }) => {
                let cmd = MillCommand::WriteRegister {
                    addr: 1,
                    value: m.scan_time,
                };
                self.step(Phase::AwaitScanTime, cmd, now, out);
            }
            (Phase::AwaitScanTime, Reply::RegisterWritten { addr: 1, .. }) => {
                self.step(Phase::AwaitStatus, MillCommand::Status, now, out);
            }
            (Phase::AwaitStatus, Reply::Status(s)) => {
                self.phase = Phase::Synced;
                ev.push(TraceEvent::Link {
                    board: self.cfg.board,
                    up: true,
                });
                self.board.full(placement(&s), true, ev);
            }
            (Phase::Synced, Reply::Status(s)) => self.board.full(placement(&s), false, ev),
            _ => {}
        }
    }
}

fn placement(s: &[u8; 64]) -> Placement {
    let mut p = Placement::empty();
    for (i, &c) in s.iter().enumerate() {
        if let Some(sq) = index_to_square(i as u8) {
            p.set(sq, char_to_piece(c));
        }
    }
    p
}

impl Protocol for MillenniumProtocol {
    fn start(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.buf.clear();
        self.watchdog = Watchdog::new(now, self.cfg.probe_after, self.cfg.reply_timeout);
        self.step(Phase::AwaitVersion, MillCommand::Version, now, out);
    }

    fn feed(&mut self, bytes: &[u8], now: Instant, ev: &mut Vec<TraceEvent>, out: &mut Vec<u8>) {
        self.watchdog.received(now);
        self.buf.extend_from_slice(bytes);
        let known = self.decoder.detected_parity();
        while let Some(r) = self.decoder.next_reply(&mut self.buf) {
            if known.is_none()
                && let Some(p) = self.decoder.detected_parity()
            {
                tracing::info!(board = %self.cfg.board, parity = p.name(), "Millennium board parity");
            }
            self.on_reply(r, now, ev, out);
        }
    }

    fn tick(
        &mut self,
        now: Instant,
        _ev: &mut Vec<TraceEvent>,
        out: &mut Vec<u8>,
    ) -> Result<(), SessionError> {
        if self.phase == Phase::Synced {
            if self.watchdog.check(now)? {
                self.send(&MillCommand::Version, out);
            }
        } else if now.duration_since(self.since) > self.cfg.reply_timeout {
            return Err(SessionError::Timeout("Millennium handshake not answered"));
        }
        Ok(())
    }

    fn control(&mut self, c: Control, _now: Instant, out: &mut Vec<u8>) {
        match c {
            Control::ShowMove(mv) if self.cfg.leds => match mv {
                Some((from, to)) => {
                    let squares = [self.board.flip(from), self.board.flip(to)];
                    let patterns = Box::new(leds_for_squares(&squares, 0xFF));
                    let cmd = MillCommand::Leds {
                        slot_time: 0x20,
                        patterns,
                    };
                    self.send(&cmd, out);
                }
                None => self.send(&MillCommand::LedsOff, out),
            },
            Control::ShowMove(_) | Control::ShowSquares(_) | Control::Clock(_) => {}
        }
    }

    fn dropped_bytes(&self) -> u64 {
        self.decoder.stats().dropped_bytes()
    }
}
