//! The session thread: open, handshake, read loop, reconnect with back-off.

use std::io::{self, ErrorKind, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::Sender;

use super::certabo::CertaboProtocol;
use super::dgt::DgtProtocol;
use super::millennium::MillenniumProtocol;
use super::{Control, Direction, DriverKind, PortSpec, SensorEvent, SessionConfig};
use crate::error::SessionError;
use crate::serial::{LineSettings, Port, find_by_usb_serial};
use crate::trace::TraceEvent;

/// One protocol's behaviour inside the session loop; no I/O of its own.
pub(crate) trait Protocol {
    /// A new connection: reset per-connection state, queue the handshake.
    fn start(&mut self, now: Instant, out: &mut Vec<u8>);
    /// Bytes arrived.
    fn feed(&mut self, bytes: &[u8], now: Instant, ev: &mut Vec<TraceEvent>, out: &mut Vec<u8>);
    /// Time passed (called after every read or read timeout); may report events.
    fn tick(
        &mut self,
        now: Instant,
        ev: &mut Vec<TraceEvent>,
        out: &mut Vec<u8>,
    ) -> Result<(), SessionError>;
    /// A request from the handle.
    fn control(&mut self, c: Control, now: Instant, out: &mut Vec<u8>);
    /// Bytes the decoder dropped so far.
    fn dropped_bytes(&self) -> u64;
}

enum Exit {
    Stopped,
    Failed(SessionError),
}

struct Ctx {
    cfg: SessionConfig,
    control: Receiver<Control>,
    tx: Sender<SensorEvent>,
    stop: Arc<AtomicBool>,
}

impl Ctx {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.tx.is_closed()
    }

    /// Sends events; `false` when the receiver is gone.
    fn emit(&self, at: Instant, events: &mut Vec<TraceEvent>) -> bool {
        for event in events.drain(..) {
            if self.tx.blocking_send(SensorEvent { at, event }).is_err() {
                return false;
            }
        }
        true
    }

    /// Waits `d` unless stopped; control messages arriving meanwhile are dropped (nothing
    /// to show on a disconnected board). Returns `true` when stopped.
    fn wait(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        loop {
            if self.stopped() {
                return true;
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self
                .control
                .recv_timeout(left.min(Duration::from_millis(50)))
            {
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(left.min(Duration::from_millis(50)))
                }
            }
        }
    }
}

fn resolve(spec: &PortSpec) -> io::Result<PathBuf> {
    match spec {
        PortSpec::Path(p) => Ok(p.clone()),
        PortSpec::UsbSerial(s) => find_by_usb_serial(s).ok_or_else(|| {
            io::Error::new(
                ErrorKind::NotFound,
                format!("no USB port with serial {s:?}"),
            )
        }),
    }
}

pub(crate) fn run(
    cfg: SessionConfig,
    control: Receiver<Control>,
    tx: Sender<SensorEvent>,
    stop: Arc<AtomicBool>,
) {
    let mut proto: Box<dyn Protocol + Send> = match cfg.driver {
        DriverKind::Dgt => Box::new(DgtProtocol::new(cfg.clone())),
        DriverKind::Millennium => Box::new(MillenniumProtocol::new(cfg.clone())),
        DriverKind::Certabo | DriverKind::Sentio => Box::new(CertaboProtocol::new(cfg.clone())),
    };
    let settings = match cfg.driver {
        DriverKind::Dgt => LineSettings::DGT,
        DriverKind::Millennium => LineSettings::MILLENNIUM,
        DriverKind::Certabo | DriverKind::Sentio => LineSettings::CERTABO,
    };
    let ctx = Ctx {
        cfg,
        control,
        tx,
        stop,
    };
    let board = ctx.cfg.board;
    let mut link_up: Option<bool> = None;
    let mut last_why = String::new();
    let mut backoff = ctx.cfg.backoff_min;
    loop {
        if ctx.stopped() {
            return;
        }
        let opened =
            resolve(&ctx.cfg.port).and_then(|p| Port::open(&p, settings, ctx.cfg.read_timeout));
        let err = match opened {
            Err(e) => SessionError::Transport(e),
            Ok(port) => match connected(&ctx, port, proto.as_mut(), &mut link_up, &mut backoff) {
                Exit::Stopped => return,
                Exit::Failed(e) => e,
            },
        };
        if link_up != Some(false) {
            let why = super::diagnose::explain(ctx.cfg.driver, &ctx.cfg.port, &err);
            if link_up.is_none() {
                tracing::warn!(%board, "board {board} cannot be used: {why}");
            } else {
                tracing::warn!(%board, "board {board} link down: {why}");
            }
            let mut ev = vec![TraceEvent::Link { board, up: false }];
            if !ctx.emit(Instant::now(), &mut ev) {
                return;
            }
            link_up = Some(false);
            last_why = why;
        } else if let why = super::diagnose::explain(ctx.cfg.driver, &ctx.cfg.port, &err)
            && why != last_why
        {
            // Another reason than last time (unplugged, then plugged with the wrong rights):
            // worth saying.
            tracing::warn!(%board, "board {board} still cannot be used: {why}");
            last_why = why;
        } else {
            tracing::debug!(%board, port = %super::diagnose::port_name(&ctx.cfg.port), error = %err, "reconnect failed");
        }
        if ctx.wait(backoff) {
            return;
        }
        backoff = (backoff * 2).min(ctx.cfg.backoff_max);
    }
}

fn connected(
    ctx: &Ctx,
    mut port: Port,
    proto: &mut dyn Protocol,
    link_up: &mut Option<bool>,
    backoff: &mut Duration,
) -> Exit {
    let mut out = Vec::with_capacity(256);
    let mut events = Vec::with_capacity(64);
    let mut buf = [0u8; 1024];
    proto.start(Instant::now(), &mut out);
    loop {
        if ctx.stopped() {
            return Exit::Stopped;
        }
        while let Ok(c) = ctx.control.try_recv() {
            proto.control(c, Instant::now(), &mut out);
        }
        if !out.is_empty() {
            if let Some(raw) = &ctx.cfg.raw {
                raw.record(Instant::now(), Direction::Out, &out);
            }
            if let Err(e) = port.write_all(&out) {
                return Exit::Failed(SessionError::Transport(e));
            }
            out.clear();
        }
        match port.read(&mut buf) {
            Ok(0) => {
                return Exit::Failed(SessionError::Transport(io::Error::new(
                    ErrorKind::UnexpectedEof,
                    "end of file",
                )));
            }
            Ok(n) => {
                let now = Instant::now();
                if let Some(raw) = &ctx.cfg.raw {
                    raw.record(now, Direction::In, &buf[..n]);
                }
                let before = proto.dropped_bytes();
                proto.feed(&buf[..n], now, &mut events, &mut out);
                let dropped = proto.dropped_bytes() - before;
                if dropped > 0 {
                    tracing::debug!(board = %ctx.cfg.board, dropped, "garbage dropped");
                }
                if events
                    .iter()
                    .any(|e| matches!(e, TraceEvent::Link { up: true, .. }))
                {
                    *link_up = Some(true);
                    *backoff = ctx.cfg.backoff_min;
                    tracing::info!(board = %ctx.cfg.board, port = %super::diagnose::port_name(&ctx.cfg.port), "link up");
                }
                if !ctx.emit(now, &mut events) {
                    return Exit::Stopped;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::TimedOut | ErrorKind::WouldBlock | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Exit::Failed(SessionError::Transport(e)),
        }
        let now = Instant::now();
        if let Err(e) = proto.tick(now, &mut events, &mut out) {
            return Exit::Failed(e);
        }
        if !ctx.emit(now, &mut events) {
            return Exit::Stopped;
        }
    }
}
