//! `bugbridge calibrate --config FILE`: learns the piece sets of a table's Certabo boards
//! from their start positions, says what it learnt, and saves the table's calibration where
//! `run` reads it (the boards' `calibration` file, by default beside the configuration).
//!
//! Each board's own set stands in its start position (a second white queen on d3 and a
//! second black queen on d6 are learnt too, if there). Both boards are read at once; both
//! sets go into one file, so that both boards know both sets: a piece captured on one board
//! is recognised when it is dropped on the other.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use bugbridge_drivers::certabo::calibration::{Survey, expected};
use bugbridge_drivers::certabo::{Calibration, store};
use bugbridge_drivers::serial::find_by_usb_serial;
use bugbridge_drivers::trace::{SensorPiece, Square};
use bugbridge_drivers::{DriverError, SurveyLimits, survey_start_position};
use clap::Args;

use crate::config::{BoardConfig, Config, DriverKind, Orientation};
use crate::rules::BoardId;

/// Arguments of `calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The table's configuration file (its Certabo boards are read at their ports).
    #[arg(long)]
    pub config: PathBuf,
    /// Only this board (A or B); the other board's tags already in the file are kept.
    #[arg(long, value_parser = parse_board)]
    pub board: Option<BoardId>,
    /// Keep the tags already in the calibration file and add the ones learnt now (e.g. a
    /// spare set calibrated on one board), instead of replacing them.
    #[arg(long)]
    pub add: bool,
    /// Readings of a start position that has not settled before it is reported as it is.
    #[arg(long, default_value_t = 25)]
    pub readings: usize,
}

fn parse_board(s: &str) -> Result<BoardId, String> {
    match s {
        "A" | "a" => Ok(BoardId::A),
        "B" | "b" => Ok(BoardId::B),
        _ => Err(format!("expected A or B, found {s:?}")),
    }
}

/// A board to read: its configuration and the device it is on.
struct Target<'a> {
    board: &'a BoardConfig,
    path: PathBuf,
    calibration: PathBuf,
}

/// A piece's name for people: "white pawn".
fn piece_name(p: SensorPiece) -> String {
    let colour = if p.is_white() { "white" } else { "black" };
    let kind = match p.char().to_ascii_uppercase() {
        'K' => "king",
        'Q' => "queen",
        'R' => "rook",
        'B' => "bishop",
        'N' => "knight",
        _ => "pawn",
    };
    format!("{colour} {kind}")
}

fn squares(list: &[Square]) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a board's survey says is wrong, one line per problem (empty when it can be used).
fn problems(id: BoardId, s: &Survey) -> Vec<String> {
    let mut out = Vec::new();
    for &sq in &s.unsettled {
        let what = match expected(sq) {
            Some(p)
                if bugbridge_drivers::trace::Placement::start()
                    .get(sq)
                    .is_some() =>
            {
                format!("no {} recognised", piece_name(p))
            }
            Some(p) => format!("neither empty nor a steady extra {}", piece_name(p)),
            None => "not read".into(),
        };
        out.push(format!("board {id}: {sq}: {what} in most readings"));
    }
    let kinds = |squares: &[Square]| {
        let mut k: Vec<SensorPiece> = squares.iter().filter_map(|&sq| expected(sq)).collect();
        k.dedup();
        k.len()
    };
    for (tag, on) in &s.duplicates {
        if kinds(on) > 1 {
            out.push(format!(
                "board {id}: tag {tag} is read on {} which hold different pieces: a faulty tag or reader; swap the piece on {} with a spare",
                squares(on),
                on[0]
            ));
        }
    }
    out
}

/// The report of one board that was read.
fn report(id: BoardId, path: &Path, s: &Survey) -> String {
    let mut lines = Vec::new();
    let cal = s
        .recognised
        .iter()
        .fold(Calibration::new(), |mut c, &(_, p, t)| {
            let _ = c.insert(t, p);
            c
        });
    let extra = s.extra_queens();
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(" (extra queens on {})", squares(&extra))
    };
    lines.push(format!(
        "board {id} ({}): {} pieces recognised: {}{extra}",
        path.display(),
        s.recognised.len(),
        cal.summary()
    ));
    if s.unsettled.is_empty() {
        lines.push(format!("board {id}: squares not recognised: none"));
    } else {
        lines.push(format!(
            "board {id}: squares not recognised: {}",
            squares(&s.unsettled)
        ));
    }
    if s.duplicates.is_empty() {
        lines.push(format!("board {id}: duplicate tags: none"));
    } else {
        for (tag, on) in &s.duplicates {
            lines.push(format!(
                "board {id}: duplicate tag {tag} on {}",
                squares(on)
            ));
        }
    }
    lines.join("\n")
}

fn targets<'a>(
    config: &'a Config,
    file: &Path,
    only: Option<BoardId>,
) -> Result<Vec<Target<'a>>, String> {
    let certabo: Vec<&BoardConfig> = config
        .boards
        .iter()
        .filter(|b| b.driver == DriverKind::Certabo)
        .collect();
    if certabo.is_empty() {
        return Err(format!(
            "{}: no Certabo board (driver = \"certabo\"): only Certabo boards are calibrated; a Sentio board senses no pieces and needs none",
            file.display()
        ));
    }
    let mut out = Vec::new();
    for b in certabo {
        if only.is_some_and(|o| o != b.id) {
            continue;
        }
        let path = match (&b.usb_serial, &b.port) {
            (Some(serial), _) => find_by_usb_serial(serial).ok_or_else(|| {
                format!(
                    "board {}: no USB serial port with serial number {serial:?}: is the board plugged in? (`bugbridge ports`)",
                    b.id
                )
            })?,
            (None, Some(port)) => PathBuf::from(port),
            (None, None) => return Err(format!("board {}: no port configured", b.id)),
        };
        let calibration = b
            .calibration
            .clone()
            .unwrap_or_else(|| crate::config::default_calibration(file));
        out.push(Target {
            board: b,
            path,
            calibration,
        });
    }
    if out.is_empty() {
        return Err(format!(
            "{}: board {} is not a Certabo board",
            file.display(),
            only.map_or_else(String::new, |b| b.to_string())
        ));
    }
    Ok(out)
}

pub(super) fn run(args: CalibrateArgs) -> u8 {
    super::logging::init_plain_logging("warn");
    let config = match Config::load(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let targets = match targets(&config, &args.config, args.board) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("calibrate: {e}");
            return 2;
        }
    };
    let names: Vec<String> = targets
        .iter()
        .map(|t| format!("board {} on {}", t.board.id, t.path.display()))
        .collect();
    println!("calibrating {}", names.join(" and "));
    println!(
        "set each board's own set up in the start position; a second white queen on d3 and a second black queen on d6 are learnt too, if you put them there"
    );
    if std::io::stdin().is_terminal() {
        println!("press Enter when the boards are set up");
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }
    let limits = SurveyLimits {
        readings: args.readings.max(1),
        ..SurveyLimits::default()
    };
    let results: Vec<Result<Survey, DriverError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = targets
            .iter()
            .map(|t| {
                let rotated = t.board.orientation == Orientation::Rotated;
                scope.spawn(move || survey_start_position(&t.path, limits, rotated))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(DriverError::Config("the board's reader stopped".into()))
                })
            })
            .collect()
    });
    let mut failed = Vec::new();
    let mut device_error = false;
    let mut learnt: BTreeMap<PathBuf, Vec<(BoardId, Calibration)>> = BTreeMap::new();
    for (t, result) in targets.iter().zip(results) {
        let id = t.board.id;
        match result {
            Ok(survey) => {
                println!("{}", report(id, &t.path, &survey));
                let wrong = problems(id, &survey);
                if wrong.is_empty() {
                    match survey.calibration() {
                        Ok(cal) => learnt
                            .entry(t.calibration.clone())
                            .or_default()
                            .push((id, cal)),
                        Err(e) => failed.push(format!("board {id}: {e}")),
                    }
                } else {
                    failed.extend(wrong);
                }
            }
            Err(e) => {
                device_error |= !matches!(e, DriverError::Config(_));
                failed.push(format!("board {id}: {e}"));
            }
        }
    }
    if !failed.is_empty() {
        for f in &failed {
            eprintln!("calibrate: {f}");
        }
        eprintln!(
            "calibrate: nothing saved: set each board's own set up in the start position, each piece centred on its square, and calibrate again"
        );
        return if device_error { 3 } else { 1 };
    }
    let mut saves = Vec::new();
    for (file, sets) in learnt {
        let mut table = if args.add || args.board.is_some() {
            match store::load(&file) {
                Ok(shared) => shared.get(),
                Err(e) => {
                    eprintln!("calibrate: {e}");
                    return 2;
                }
            }
        } else {
            Calibration::new()
        };
        for (id, set) in &sets {
            for (tag, piece) in set.iter() {
                if let Some(known) = table.piece(tag)
                    && known == piece
                    && !args.add
                    && args.board.is_none()
                {
                    println!(
                        "board {id}: tag {tag} ({}) is also read on the other board: are both boards' sets the same?",
                        piece_name(piece)
                    );
                }
            }
            if let Err(e) = table.merge(set) {
                eprintln!("calibrate: board {id}: {e}; nothing saved");
                return 1;
            }
        }
        saves.push((file, table));
    }
    for (file, table) in saves {
        if let Err(e) = store::save(&table, &file) {
            eprintln!("calibrate: {}: cannot be written: {e}", file.display());
            return 3;
        }
        println!(
            "saved {} tags ({}) to {}: `bugbridge run` reads it; both boards know both sets",
            table.len(),
            table.summary(),
            file.display()
        );
    }
    0
}
