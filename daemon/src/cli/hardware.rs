//! `bugbridge listen`, `bugbridge ports` and `bugbridge emulate`: checking a board, its
//! cable and its clock, and emulating one for other software.

use std::path::PathBuf;
use std::time::Duration;

use bugbridge_drivers::certabo::store;
use bugbridge_drivers::dgt::ClockSide;
use bugbridge_drivers::millennium::ParityMode;
use bugbridge_drivers::session::{DriverKind, PortSpec, RawLog, SessionConfig};
use bugbridge_drivers::trace::BoardId;
use bugbridge_drivers::{DriverError, EmulateOptions, PORTS_HEADER, emulate_file, listen, ports};
use clap::{Args, ValueEnum};

/// A board protocol on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Driver {
    /// DGT e-boards (with a DGT clock plugged in, if any).
    Dgt,
    /// Millennium ChessLink / eONE.
    Millennium,
    /// Certabo RFID boards (tag ids per square; a calibration names the pieces).
    Certabo,
    /// TabuTronic Sentio / Spectrum (occupancy only).
    Sentio,
}

impl Driver {
    fn kind(self) -> DriverKind {
        match self {
            Driver::Dgt => DriverKind::Dgt,
            Driver::Millennium => DriverKind::Millennium,
            Driver::Certabo => DriverKind::Certabo,
            Driver::Sentio => DriverKind::Sentio,
        }
    }
}

/// The clock side White sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Side {
    /// Left of the clock.
    Left,
    /// Right of the clock.
    Right,
}

impl Side {
    fn clock_side(self) -> ClockSide {
        match self {
            Side::Left => ClockSide::Left,
            Side::Right => ClockSide::Right,
        }
    }
}

/// White's clock side for `listen`: learnt from play, or a side play may overrule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LearntSide {
    /// Learnt from play: the colour that moves while a side's time runs.
    Auto,
    /// Left of the clock, unless play shows otherwise (then said on stderr and followed).
    Left,
    /// Right of the clock, likewise.
    Right,
}

impl LearntSide {
    fn clock_side(self) -> Option<ClockSide> {
        match self {
            LearntSide::Auto => None,
            LearntSide::Left => Some(ClockSide::Left),
            LearntSide::Right => Some(ClockSide::Right),
        }
    }
}

/// Arguments of `listen`.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// The board's protocol.
    #[arg(long, value_enum)]
    pub driver: Driver,
    /// The serial device.
    #[arg(long)]
    pub port: PathBuf,
    /// Which side of the clock White sits on: auto learns it from play (what it decided,
    /// and why, shows as a `clock_side` line and on stderr).
    #[arg(long, value_enum, default_value = "auto")]
    pub white_side: LearntSide,
    /// Millennium parity: auto (accept both, answer as the board sends), odd, or none.
    #[arg(long, value_enum, default_value = "auto")]
    pub parity: Parity,
    /// Also write every byte read and written to FILE, one timestamped line per read:
    /// `<ms> in|out <hex>`.
    #[arg(long, value_name = "FILE")]
    pub raw: Option<PathBuf>,
    /// Certabo: the tag calibration file (read if present; the sets learnt from start
    /// positions are added to it). Without it the board's start position is learnt anew.
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,
    /// Certabo / Sentio: readings in a row a square needs to change (1 = no noise filter;
    /// default 2 for Certabo, 1 for Sentio).
    #[arg(long)]
    pub agree: Option<u32>,
}

/// Millennium parity on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Parity {
    /// Accept bytes with and without parity; detect which the board sends.
    Auto,
    /// 7 data bits plus odd parity in bit 7 (ChessLink, Exclusive, Performance).
    Odd,
    /// 7-bit characters without parity (DGT Centaur's ChessLink emulation).
    None,
}

impl Parity {
    fn mode(self) -> ParityMode {
        match self {
            Parity::Auto => ParityMode::Auto,
            Parity::Odd => ParityMode::Odd,
            Parity::None => ParityMode::Ignore,
        }
    }
}

/// Arguments of `ports`.
#[derive(Debug, Args)]
pub struct PortsArgs {
    /// Also ask each port whether a DGT, Millennium, Certabo or Sentio board answers
    /// (takes a moment; a CP210x port is listened to first).
    #[arg(long)]
    pub probe: bool,
}

/// Arguments of `emulate`.
#[derive(Debug, Args)]
pub struct EmulateArgs {
    /// The protocol to speak.
    #[arg(long, value_enum)]
    pub driver: Driver,
    /// The sensor trace to play.
    #[arg(long)]
    pub trace: PathBuf,
    /// Which board of the trace to play.
    #[arg(long, default_value = "A", value_parser = parse_board)]
    pub board: BoardId,
    /// Play with the trace's timing divided by this (default: as fast as read).
    #[arg(long)]
    pub speed: Option<f64>,
    /// Keep a symlink at this path pointing at the device.
    #[arg(long)]
    pub link: Option<PathBuf>,
    /// The board lies turned 180° (Millennium: the status goes a8 first instead of h1).
    #[arg(long)]
    pub rotated: bool,
    /// Which side of the clock White sits on.
    #[arg(long, value_enum, default_value = "left")]
    pub white_side: Side,
    /// Millennium parity: odd (a ChessLink board) or none (a 7-bit device).
    #[arg(long, value_enum, default_value = "odd")]
    pub parity: Parity,
    /// Certabo: share of empty squares that read a random noise id in each reading.
    #[arg(long, default_value_t = 0.3)]
    pub noise: f64,
    /// Certabo / Sentio: milliseconds between two readings.
    #[arg(long, default_value_t = 100)]
    pub period_ms: u64,
    /// Certabo / Sentio: RGB LEDs (a TabuTronic Spectrum: answers `D`).
    #[arg(long)]
    pub rgb: bool,
}

fn parse_board(s: &str) -> Result<BoardId, String> {
    BoardId::from_name(s).ok_or_else(|| format!("expected A or B, found {s:?}"))
}

async fn interrupted() {
    super::signals::terminated().await;
}

fn status(e: &DriverError) -> u8 {
    match e {
        DriverError::Trace { .. } => 1,
        DriverError::Config(_) => 2,
        DriverError::Io(_) => 3,
    }
}

/// Why `path` can never be a board's serial port (a regular file, `/dev/null`), so that
/// `listen` says so instead of waiting for a board forever. `None` when it may be one, or
/// is not there yet (a board plugged in later is waited for).
fn not_a_serial_port(path: &std::path::Path) -> Option<String> {
    use std::io::IsTerminal;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some("a directory".into());
    }
    if !meta.file_type().is_char_device() {
        return Some("a regular file".into());
    }
    // Without blocking on a modem line, and without making it our controlling terminal.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    (!file.is_terminal()).then(|| "a character device that is no terminal".into())
}

pub(super) fn run_listen(args: ListenArgs) -> u8 {
    // Why the port cannot be used, and what the board says, go to stderr; RUST_LOG works.
    super::logging::init_plain_logging("info");
    if let Some(why) = not_a_serial_port(&args.port) {
        eprintln!(
            "listen: {}: not a serial port ({why}); `bugbridge ports` lists the serial ports",
            args.port.display()
        );
        return 2;
    }
    let mut config = SessionConfig::new(args.driver.kind(), PortSpec::Path(args.port), BoardId::A);
    config.white_side = args.white_side.clock_side();
    config.millennium.parity = args.parity.mode();
    config.certabo.agree = args.agree.map(|n| n.max(1));
    let saver = match &args.calibration {
        Some(path) => match store::load(path) {
            Ok(cal) => {
                config.certabo.calibration = cal.clone();
                Some(store::keep_saved(cal, path.clone()))
            }
            Err(e) => {
                eprintln!("listen: --calibration {}: {e}", path.display());
                return 2;
            }
        },
        None => None,
    };
    if let Some(path) = &args.raw {
        match std::fs::File::create(path) {
            Ok(f) => config.raw = Some(RawLog::new(Box::new(f))),
            Err(e) => {
                eprintln!("listen: --raw {}: {e}", path.display());
                return 2;
            }
        }
    }
    super::runtime(async move {
        let _saver = saver.map(tokio::spawn);
        let mut out = std::io::stdout();
        match listen(config, &mut out, interrupted()).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("listen: {e}");
                status(&e)
            }
        }
    })
}

pub(super) fn run_ports(args: PortsArgs) -> u8 {
    let reports = ports(args.probe.then_some(Duration::from_millis(500)));
    if reports.is_empty() {
        eprintln!(
            "no serial ports found: is the board plugged in and switched on? (`dmesg` shows \
             what the kernel saw when it was plugged)"
        );
        return 0;
    }
    println!("{PORTS_HEADER}");
    for p in reports {
        println!("{p}");
    }
    0
}

pub(super) fn run_emulate(args: EmulateArgs) -> u8 {
    super::logging::init_plain_logging("warn");
    if args.parity == Parity::Auto {
        // An emulated board speaks one way; `auto` is for reading a board (`listen`).
        eprintln!(
            "emulate: --parity auto is for reading a board (listen); an emulated board has one parity: --parity odd (a ChessLink board) or none (a 7-bit device)"
        );
        return 2;
    }
    let mut opts = EmulateOptions::new(args.driver.kind(), args.trace);
    opts.board = args.board;
    opts.speed = args.speed;
    opts.link = args.link;
    opts.rotated = args.rotated;
    opts.white_side = args.white_side.clock_side();
    opts.parity = args.parity.mode();
    opts.certabo.noise = args.noise;
    opts.certabo.period = Duration::from_millis(args.period_ms.max(1));
    opts.certabo.rgb = args.rgb;
    super::runtime(async move {
        let mut out = std::io::stdout();
        match emulate_file(opts, &mut out, interrupted()).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("emulate: {e}");
                status(&e)
            }
        }
    })
}
