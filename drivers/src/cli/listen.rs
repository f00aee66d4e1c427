//! `bugbridge listen`: one device's events as sensor-trace lines.

use std::future::Future;
use std::io::Write;
use std::time::Instant;

use crate::error::DriverError;
use crate::session::{SessionConfig, spawn_session};
use crate::trace::{TraceLine, TraceWriter};

/// Reads one device and writes what it reports as sensor-trace lines until `stop` resolves
/// (or the session ends). `t` counts milliseconds from the call; `link` events included.
/// Each line is flushed as soon as it is written, so `listen | tee` shows a board live.
///
/// The board id written is `config.board` (the CLI passes [`crate::trace::BoardId::A`]).
///
/// ```no_run
/// # async fn f() -> Result<(), bugbridge_drivers::DriverError> {
/// use bugbridge_drivers::{listen, session::{DriverKind, PortSpec, SessionConfig}, trace::BoardId};
/// let config = SessionConfig::new(DriverKind::Dgt, PortSpec::Path("/dev/ttyUSB0".into()), BoardId::A);
/// let mut out = std::io::stdout();
/// listen(config, &mut out, async { let _ = tokio::signal::ctrl_c().await; }).await
/// # }
/// ```
///
/// # Errors
/// Writing to `out` failed, or the session thread could not start.
pub async fn listen<W: Write>(
    config: SessionConfig,
    out: &mut W,
    stop: impl Future<Output = ()>,
) -> Result<(), DriverError> {
    let origin = Instant::now();
    let (handle, mut rx) = spawn_session(config)?;
    let mut writer = TraceWriter::new(out);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            // Cancel-safe: nothing is in flight when the stop signal wins.
            () = &mut stop => break,
            // `recv` is cancel-safe: an event not returned stays in the channel.
            ev = rx.recv() => {
                let Some(ev) = ev else { break };
                let t = ev.at.saturating_duration_since(origin).as_millis() as u64;
                writer.write(&TraceLine { t, event: ev.event })?;
                writer.flush()?;
            }
        }
    }
    handle.stop();
    Ok(())
}
