//! The DGT side of a session: handshake, messages → events, clock command queue, LEDs.

use std::collections::VecDeque;
use std::time::Instant;

use bytes::BytesMut;

use super::board_state::BoardTracker;
use super::clock_presence::ClockPresence;
use super::clock_state::ClockTracker;
use super::recovery::{self, Logged, Missed, Recovery};
use super::run::Protocol;
use super::watchdog::Watchdog;
use super::{Control, DgtUpdateMode, SessionConfig};
use crate::dgt::{
    BoardMessage, ClockCommand, ClockMessage, Command, DgtDecoder, EeLog, code_to_piece,
    index_to_square, square_to_index,
};
use crate::error::{DeviceFault, SessionError};
use crate::trace::{Placement, SensorPiece, Square, TraceEvent};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitVersion(Instant),
    /// The board's EEPROM log was asked for (last byte received then).
    AwaitLog(Instant),
    AwaitDump(Instant),
    Synced,
}

#[derive(Debug)]
pub(crate) struct DgtProtocol {
    cfg: SessionConfig,
    decoder: DgtDecoder,
    buf: BytesMut,
    phase: Phase,
    board: BoardTracker,
    clock: ClockTracker,
    watchdog: Watchdog,
    clock_queue: VecDeque<ClockCommand>,
    in_flight: Option<(ClockCommand, Instant, u8)>,
    /// Whether the clock reports (`clock_link` events).
    presence: ClockPresence,
    recovery: Recovery,
    /// The log read at this link-up, to replay once the dump has come.
    log: Option<EeLog>,
}

impl DgtProtocol {
    pub(crate) fn new(cfg: SessionConfig) -> Self {
        let now = Instant::now();
        DgtProtocol {
            board: BoardTracker::new(cfg.board, cfg.orientation),
            clock: ClockTracker::new(cfg.board, cfg.white_side),
            presence: ClockPresence::new(cfg.board, cfg.clock_required, now),
            watchdog: Watchdog::new(now, cfg.probe_after, cfg.reply_timeout),
            decoder: DgtDecoder::new(),
            buf: BytesMut::with_capacity(256),
            phase: Phase::AwaitVersion(now),
            clock_queue: VecDeque::new(),
            in_flight: None,
            recovery: Recovery::default(),
            log: None,
            cfg,
        }
    }

    fn update_command(&self) -> Command {
        match self.cfg.dgt_update {
            DgtUpdateMode::Nice => Command::UpdateNice,
            DgtUpdateMode::EveryClock => Command::Update,
        }
    }

    fn send_next_clock_command(&mut self, now: Instant, out: &mut Vec<u8>) {
        if self.in_flight.is_some() || self.phase != Phase::Synced {
            return;
        }
        if let Some(cmd) = self.clock_queue.pop_front() {
            out.extend(Command::Clock(cmd.clone()).to_bytes());
            self.in_flight = Some((cmd, now, 1));
        }
    }

    fn on_message(
        &mut self,
        msg: BoardMessage,
        now: Instant,
        ev: &mut Vec<TraceEvent>,
        out: &mut Vec<u8>,
    ) {
        match msg {
            BoardMessage::Version { major, minor } => {
                if let Phase::AwaitVersion(_) = self.phase {
                    tracing::info!(board = %self.cfg.board, major, minor, "DGT board version");
                    self.after_version(now, out);
                }
            }
            BoardMessage::BoardDump(codes) => {
                let mut raw = Placement::empty();
                for (i, &code) in codes.iter().enumerate() {
                    if let Some(sq) = index_to_square(i as u8) {
                        raw.set(sq, code_to_piece(code));
                    }
                }
                if self.phase == Phase::Synced {
                    self.board_full(raw, false, ev);
                } else {
                    self.phase = Phase::Synced;
                    ev.push(TraceEvent::Link {
                        board: self.cfg.board,
                        up: true,
                    });
                    self.link_up_board(raw, ev);
                    self.clock.reconnected();
                    self.presence.linked(now);
                    if self.cfg.clock {
                        out.extend(Command::SendClock.to_bytes());
                    }
                    self.send_next_clock_command(now, out);
                }
            }
            BoardMessage::FieldUpdate { index, code } => {
                if self.phase == Phase::Synced
                    && let Some(sq) = index_to_square(index)
                {
                    self.recovery.piece(index, code);
                    self.board_update(sq, code_to_piece(code), ev);
                }
            }
            BoardMessage::Bwtime(b) => match b.classify(self.cfg.bwtime_layout) {
                ClockMessage::Times(_) if !self.cfg.clock || self.phase != Phase::Synced => {}
                ClockMessage::Times(t) if t.no_clock => {
                    // Reported as `clock_link` down from `tick` once it lasts.
                    self.presence.no_clock(now);
                }
                ClockMessage::Times(t) => {
                    if let Some(e) = self.presence.valid(now) {
                        ev.push(e);
                        // The clock was missing: its first reading is news, not a press.
                        self.clock.reconnected();
                    }
                    self.recovery.running(t.running_side());
                    self.clock.observe(&t, ev);
                }
                ClockMessage::Ack(ack) => {
                    self.presence.heard(now);
                    if ack.is_error() {
                        let fault = DeviceFault::ClockNak {
                            command: ack.0[1],
                            code: ack.0[0],
                        };
                        tracing::warn!(board = %self.cfg.board, %fault, "clock");
                    }
                    if ack.command().is_some() {
                        self.in_flight = None;
                        self.send_next_clock_command(now, out);
                    }
                }
                ClockMessage::Empty | ClockMessage::Invalid => {}
            },
            BoardMessage::EeMoves(payload) => {
                if let Phase::AwaitLog(_) = self.phase {
                    match crate::dgt::eeprom::parse(&payload) {
                        Ok(log) => self.log = Some(log),
                        Err(e) => {
                            tracing::warn!(board = %self.cfg.board, error = %e, "EEPROM log unreadable; not replayed");
                        }
                    }
                    self.request_dump(now, out);
                }
            }
            _ => {}
        }
    }

    /// After the version: a board that was heard before is asked for its EEPROM log
    /// first (in IDLE mode, so no update is interleaved), then for updates and a dump.
    fn after_version(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.log = None;
        if self.recovery.wanted() {
            out.extend(Command::EeMoves.to_bytes());
            self.phase = Phase::AwaitLog(now);
        } else {
            self.request_dump(now, out);
        }
    }

    /// The first dump of a connection: a `board` snapshot; when the EEPROM log holds what
    /// was missed, the snapshot is the board as it was left and the missed field changes and
    /// presses follow as the events they were, then whatever the dump shows beyond them.
    fn link_up_board(&mut self, raw: Placement, ev: &mut Vec<TraceEvent>) {
        let board = self.cfg.board;
        let missed = match self.log.take() {
            Some(log) => self.recovery.missed(&log, self.cfg.clock),
            None => Err(recovery::NoRecovery::NoHistory),
        };
        let missed = missed.and_then(|m| {
            let presses = m
                .iter()
                .any(|l| matches!(l, Logged::Missed(Missed::Press { .. })));
            if presses && !self.clock.has_reading() {
                Err(recovery::NoRecovery::NoMatch)
            } else {
                Ok(m)
            }
        });
        let missed = match missed {
            Ok(m) => m,
            Err(why) => {
                if self.recovery.wanted() {
                    tracing::info!(%board, reason = %why, "EEPROM log not replayed");
                }
                self.recovery.reset();
                self.board_full(raw, true, ev);
                return;
            }
        };
        let before = self.board.raw();
        let replayed = recovery::after(before, &missed);
        self.board_full(before, true, ev);
        let (mut squares, mut presses) = (0, 0);
        for m in missed {
            match m {
                Logged::Missed(Missed::Piece { index, code }) => {
                    if let Some(sq) = index_to_square(index) {
                        squares += 1;
                        self.recovery.piece(index, code);
                        self.board_update(sq, code_to_piece(code), ev);
                    }
                }
                Logged::Missed(Missed::Press { halted, seconds }) => {
                    presses += 1;
                    self.recovery.running(Some(halted.other()));
                    self.clock.replay_press(halted, seconds, ev);
                }
                Logged::PowerUp => {}
            }
        }
        tracing::info!(%board, squares, presses, "outage replayed from the EEPROM log");
        if replayed != raw {
            // Changes made while the log was being read: reported from the dump, and the
            // history starts afresh (they are not in it).
            self.recovery.reset();
        }
        self.board_full(raw, false, ev);
    }

    /// A full reading of the board, its events also shown to the clock-side learner.
    fn board_full(&mut self, raw: Placement, force: bool, ev: &mut Vec<TraceEvent>) {
        let n = ev.len();
        self.board.full(raw, force, ev);
        self.clock.sensed(&ev[n..]);
    }

    /// One square of the board's own frame, its events also shown to the learner.
    fn board_update(&mut self, sq: Square, piece: Option<SensorPiece>, ev: &mut Vec<TraceEvent>) {
        let n = ev.len();
        self.board.update(sq, piece, ev);
        self.clock.sensed(&ev[n..]);
    }

    fn request_dump(&mut self, now: Instant, out: &mut Vec<u8>) {
        out.extend(self.update_command().to_bytes());
        out.extend(Command::SendBoard.to_bytes());
        self.phase = Phase::AwaitDump(now);
    }
}

impl Protocol for DgtProtocol {
    fn start(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.buf.clear();
        self.in_flight = None;
        self.watchdog = Watchdog::new(now, self.cfg.probe_after, self.cfg.reply_timeout);
        self.phase = Phase::AwaitVersion(now);
        out.extend(Command::Reset.to_bytes());
        out.extend(Command::Version.to_bytes());
    }

    fn feed(&mut self, bytes: &[u8], now: Instant, ev: &mut Vec<TraceEvent>, out: &mut Vec<u8>) {
        self.watchdog.received(now);
        if let Phase::AwaitLog(_) = self.phase {
            // A full log takes seconds at 9600 baud: waiting counts from the last byte.
            self.phase = Phase::AwaitLog(now);
        }
        self.buf.extend_from_slice(bytes);
        while let Some(msg) = self.decoder.next_message(&mut self.buf) {
            self.on_message(msg, now, ev, out);
        }
    }

    fn tick(
        &mut self,
        now: Instant,
        ev: &mut Vec<TraceEvent>,
        out: &mut Vec<u8>,
    ) -> Result<(), SessionError> {
        match self.phase {
            Phase::AwaitVersion(since)
                if now.duration_since(since) > self.cfg.reply_timeout / 2 =>
            {
                // Some firmwares answer late or not at all: go on without the version.
                self.request_dump(now, out);
            }
            Phase::AwaitLog(since) if now.duration_since(since) > self.cfg.reply_timeout => {
                tracing::warn!(board = %self.cfg.board, "no EEPROM log; not replayed");
                self.request_dump(now, out);
            }
            Phase::AwaitDump(since) if now.duration_since(since) > self.cfg.reply_timeout => {
                return Err(SessionError::Timeout("no board dump"));
            }
            Phase::Synced => {
                if self.cfg.clock {
                    let tick = self.presence.tick(now);
                    ev.extend(tick.event);
                    // A clock command waiting for its ack may be answered instead: ask
                    // between commands only.
                    if tick.poll && self.in_flight.is_none() {
                        out.extend(Command::SendClock.to_bytes());
                    }
                }
                if self.watchdog.check(now)? {
                    out.extend(Command::Version.to_bytes());
                }
                if let Some((cmd, sent, tries)) = self.in_flight.clone()
                    && now.duration_since(sent)
                        > self
                            .cfg
                            .reply_timeout
                            .min(std::time::Duration::from_secs(2))
                {
                    if tries < 3 {
                        out.extend(Command::Clock(cmd.clone()).to_bytes());
                        self.in_flight = Some((cmd, now, tries + 1));
                    } else {
                        tracing::warn!(board = %self.cfg.board, "clock command not acknowledged, dropped");
                        self.in_flight = None;
                        self.send_next_clock_command(now, out);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn control(&mut self, c: Control, now: Instant, out: &mut Vec<u8>) {
        match c {
            Control::Clock(cmd) => {
                self.clock_queue.push_back(cmd);
                self.send_next_clock_command(now, out);
            }
            Control::ShowSquares(_) => {}
            Control::ShowMove(mv) => {
                if !self.cfg.leds {
                    return;
                }
                out.extend(
                    Command::SetLeds {
                        pattern: 0,
                        from: 0x40,
                        to: 0x40,
                    }
                    .to_bytes(),
                );
                if let Some((from, to)) = mv {
                    let f = square_to_index(self.board.flip(from));
                    let t = square_to_index(self.board.flip(to));
                    out.extend(
                        Command::SetLeds {
                            pattern: 1,
                            from: f,
                            to: t,
                        }
                        .to_bytes(),
                    );
                }
            }
        }
    }

    fn dropped_bytes(&self) -> u64 {
        self.decoder.stats().dropped_bytes()
    }
}
