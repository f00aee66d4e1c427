//! `bugbridge emulate`: an emulated board on a pty playing a trace file.

use std::fs::File;
use std::future::Future;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use crate::dgt::ClockSide;
use crate::emulate::{Emulator, EmulatorConfig, Pace};
use crate::error::DriverError;
use crate::millennium::ParityMode;
use crate::session::DriverKind;
use crate::trace::{BoardId, TraceLine, TraceReader};

/// Options of `bugbridge emulate --driver dgt|millennium --trace FILE`.
#[derive(Debug, Clone)]
pub struct EmulateOptions {
    /// Protocol to speak.
    pub driver: DriverKind,
    /// The sensor trace to play.
    pub trace: PathBuf,
    /// Which board of the trace (default A).
    pub board: BoardId,
    /// Speed factor; `None` plays as fast as the host takes it.
    pub speed: Option<f64>,
    /// Keep a symlink to the pty here (stable path).
    pub link: Option<PathBuf>,
    /// Emulate a board turned 180°.
    pub rotated: bool,
    /// Where White sits at the clock.
    pub white_side: ClockSide,
    /// Millennium parity: odd (default) or none (a 7-bit device).
    pub parity: ParityMode,
    /// Certabo / Sentio: reading period, noise, LED kind.
    pub certabo: crate::emulate::CertaboEmulation,
}

impl EmulateOptions {
    /// Board A, real-time speed (1.0), no symlink, normal orientation, white on the left,
    /// odd parity.
    #[must_use]
    pub fn new(driver: DriverKind, trace: PathBuf) -> Self {
        EmulateOptions {
            driver,
            trace,
            board: BoardId::A,
            speed: Some(1.0),
            link: None,
            rotated: false,
            white_side: ClockSide::Left,
            parity: ParityMode::Odd,
            certabo: crate::emulate::CertaboEmulation::default(),
        }
    }
}

/// Reads a whole trace file.
///
/// # Errors
/// [`DriverError::Trace`] naming the file and line, or [`DriverError::Io`].
pub fn read_trace_file(path: &Path) -> Result<Vec<TraceLine>, DriverError> {
    let file =
        File::open(path).map_err(|e| DriverError::Config(format!("{}: {e}", path.display())))?;
    TraceReader::new(BufReader::new(file))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| DriverError::Trace {
            path: path.display().to_string(),
            source,
        })
}

/// Starts an emulated board for the trace file, writes its device path (one line, flushed)
/// to `out`, and keeps it running until `stop` resolves.
///
/// # Errors
/// The trace cannot be read (exit status 1 in the CLI), or no pty can be made.
pub async fn emulate_file<W: Write>(
    opts: EmulateOptions,
    out: &mut W,
    stop: impl Future<Output = ()>,
) -> Result<(), DriverError> {
    let lines = read_trace_file(&opts.trace)?;
    let mut config = EmulatorConfig::new(opts.driver);
    config.board = opts.board;
    config.pace = match opts.speed {
        Some(speed) if speed > 0.0 && speed.is_finite() => Pace::Timed { speed },
        Some(_) => {
            return Err(DriverError::Config(
                "--speed must be a positive number".into(),
            ));
        }
        None => Pace::Asap,
    };
    if let Some(link) = &opts.link
        && let Some(dir) = link.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(DriverError::Config(format!(
            "--link {}: the directory {} does not exist",
            link.display(),
            dir.display()
        )));
    }
    config.link_path = opts.link;
    config.rotated = opts.rotated;
    config.white_side = opts.white_side;
    config.parity = opts.parity;
    if !(0.0..=1.0).contains(&opts.certabo.noise) {
        return Err(DriverError::Config(
            "--noise must be a share between 0 and 1".into(),
        ));
    }
    config.certabo = opts.certabo;
    let handle = Emulator::start(config, &lines)?;
    writeln!(out, "{}", handle.path().display())?;
    out.flush()?;
    stop.await;
    // Stopping joins the emulator thread (at most one 10 ms read); fine on a runtime worker.
    handle.stop();
    Ok(())
}
