//! [`TraceReader`]: reads and validates trace lines.
//!
//! Accepted input: UTF-8 JSON objects, one per line; blank lines (only white space) are
//! ignored but counted; a trailing `\r` is tolerated. Fields not named by `sensor-trace.md`
//! are ignored, except on `operator` lines, where every field is kept. Everything the page
//! calls an error is reported with its line number: the reader never skips a bad line
//! silently and never panics. After an error the reader goes on with the next line, so a
//! caller may collect all errors; a decreasing `t` does not lower the reference time.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde_json::{Map, Value};

use super::error::{TraceError, TraceErrorKind};
use super::event::{TraceEvent, TraceLine};
use super::occupancy::Occupancy;
use super::piece::{Placement, SensorPiece};
use super::square::{BoardId, Side, Square};

/// Reads a trace line by line; an iterator of `Result<TraceLine, TraceError>`.
#[derive(Debug)]
pub struct TraceReader<R> {
    input: R,
    line: usize,
    previous_t: Option<u64>,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> TraceReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> Self {
        TraceReader {
            input,
            line: 0,
            previous_t: None,
            buf: Vec::new(),
            done: false,
        }
    }

    /// The number of the last line read (1-based; 0 before the first).
    #[must_use]
    pub fn line_number(&self) -> usize {
        self.line
    }
}

/// Parses a whole trace held in memory, stopping at the first error.
///
/// # Errors
/// The first line that is wrong.
pub fn parse_trace(text: &str) -> Result<Vec<TraceLine>, TraceError> {
    TraceReader::new(text.as_bytes()).collect()
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceLine, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(_) => {}
                Err(e) => {
                    self.line += 1;
                    self.done = true;
                    return Some(Err(TraceError {
                        line: self.line,
                        kind: e.into(),
                    }));
                }
            }
            self.line += 1;
            let text = match std::str::from_utf8(&self.buf) {
                Ok(t) => t.trim(),
                Err(e) => {
                    return Some(Err(
                        self.err(TraceErrorKind::Json(format!("invalid UTF-8: {e}")))
                    ));
                }
            };
            if text.is_empty() {
                continue;
            }
            let first = self.previous_t.is_none();
            let result = parse_line(text, first).and_then(|line| {
                if let Some(previous) = self.previous_t
                    && line.t < previous
                {
                    return Err(TraceErrorKind::DecreasingTime {
                        t: line.t,
                        previous,
                    });
                }
                Ok(line)
            });
            // Any line with a readable `t` counts as "seen" for the meta-first rule.
            if self.previous_t.is_none() {
                self.previous_t = Some(0);
            }
            return Some(match result {
                Ok(line) => {
                    self.previous_t = Some(line.t);
                    Ok(line)
                }
                Err(kind) => Err(self.err(kind)),
            });
        }
    }
}

impl<R> TraceReader<R> {
    fn err(&self, kind: TraceErrorKind) -> TraceError {
        TraceError {
            line: self.line,
            kind,
        }
    }
}

/// Parses one line's text (no line number; see [`TraceReader`]).
///
/// # Errors
/// What is wrong with the line.
pub fn parse_line(text: &str, first_line: bool) -> Result<TraceLine, TraceErrorKind> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| TraceErrorKind::Json(e.to_string()))?;
    let Value::Object(mut obj) = value else {
        return Err(TraceErrorKind::Json("not a JSON object".to_owned()));
    };
    let t = match obj.get("t") {
        None => return Err(TraceErrorKind::MissingField("t")),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| bad("t", "must be a non-negative integer"))?,
    };
    let ev = match obj.get("ev") {
        None => return Err(TraceErrorKind::MissingField("ev")),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(bad("ev", "must be a string")),
    };
    let event = match ev.as_str() {
        "meta" => {
            if !first_line {
                return Err(TraceErrorKind::MetaNotFirst);
            }
            let ruleset = opt_string(&obj, "ruleset")?;
            let time_control = opt_string(&obj, "time_control")?;
            let setup = opt_string(&obj, "setup")?;
            let mut tags = BTreeMap::new();
            match obj.get("tags") {
                None | Some(Value::Null) => {}
                Some(Value::Object(m)) => {
                    for (k, v) in m {
                        let Value::String(v) = v else {
                            return Err(bad("tags", &format!("tag {k:?} is not a string")));
                        };
                        tags.insert(k.clone(), v.clone());
                    }
                }
                Some(_) => return Err(bad("tags", "must be an object")),
            }
            TraceEvent::Meta {
                ruleset,
                time_control,
                setup,
                tags,
            }
        }
        "board" => {
            let board = board_field(&obj)?;
            let fen = match obj.get("fen") {
                None => return Err(TraceErrorKind::MissingField("fen")),
                Some(Value::String(s)) => s,
                Some(_) => return Err(bad("fen", "must be a string")),
            };
            let placement = Placement::from_fen(fen).map_err(|e| TraceErrorKind::BadFen {
                fen: fen.clone(),
                reason: e.0,
            })?;
            TraceEvent::Board { board, placement }
        }
        "square" => {
            let board = board_field(&obj)?;
            let sq = match obj.get("sq") {
                None => return Err(TraceErrorKind::MissingField("sq")),
                Some(Value::String(s)) => {
                    Square::from_name(s).ok_or_else(|| TraceErrorKind::BadSquare(s.clone()))?
                }
                Some(v) => return Err(TraceErrorKind::BadSquare(v.to_string())),
            };
            let piece = match obj.get("piece") {
                None => return Err(TraceErrorKind::MissingField("piece")),
                Some(Value::Null) => None,
                Some(Value::String(s)) => Some(
                    s.parse::<SensorPiece>()
                        .map_err(|_| TraceErrorKind::BadPiece(s.clone()))?,
                ),
                Some(v) => return Err(TraceErrorKind::BadPiece(v.to_string())),
            };
            TraceEvent::Square { board, sq, piece }
        }
        "occupancy" => {
            let board = board_field(&obj)?;
            let occupied = match obj.get("occupied") {
                None => return Err(TraceErrorKind::MissingField("occupied")),
                Some(Value::String(s)) => {
                    s.parse::<Occupancy>().map_err(|e| TraceErrorKind::BadFen {
                        fen: s.clone(),
                        reason: e.0,
                    })?
                }
                Some(_) => return Err(bad("occupied", "must be a string")),
            };
            TraceEvent::Occupancy { board, occupied }
        }
        "clock" => {
            let board = board_field(&obj)?;
            let white = seconds(&obj, "white")?;
            let black = seconds(&obj, "black")?;
            let running = match obj.get("running") {
                None => return Err(TraceErrorKind::MissingField("running")),
                Some(Value::Null) => None,
                Some(Value::String(s)) => Some(
                    Side::from_name(s)
                        .ok_or_else(|| bad("running", "must be \"white\", \"black\" or null"))?,
                ),
                Some(_) => return Err(bad("running", "must be \"white\", \"black\" or null")),
            };
            TraceEvent::Clock {
                board,
                white,
                black,
                running,
            }
        }
        "link" => {
            let board = board_field(&obj)?;
            let up = match obj.get("up") {
                None => return Err(TraceErrorKind::MissingField("up")),
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(bad("up", "must be true or false")),
            };
            TraceEvent::Link { board, up }
        }
        "clock_link" => {
            let board = board_field(&obj)?;
            let up = match obj.get("up") {
                None => return Err(TraceErrorKind::MissingField("up")),
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(bad("up", "must be true or false")),
            };
            TraceEvent::ClockLink { board, up }
        }
        "clock_side" => {
            let board = board_field(&obj)?;
            let white_side = match obj.get("white_side") {
                None => return Err(TraceErrorKind::MissingField("white_side")),
                Some(v) => clock_side(v)
                    .ok_or_else(|| bad("white_side", "must be \"left\" or \"right\""))?,
            };
            let configured = match obj.get("configured") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s == "auto" => None,
                Some(v) => Some(clock_side(v).ok_or_else(|| {
                    bad(
                        "configured",
                        "must be \"left\", \"right\", \"auto\" or null",
                    )
                })?),
            };
            let evidence = opt_string(&obj, "evidence")?.unwrap_or_default();
            TraceEvent::ClockSide {
                board,
                white_side,
                configured,
                evidence,
            }
        }
        "unknown_tag" => {
            let board = board_field(&obj)?;
            let sq = match obj.get("sq") {
                None => return Err(TraceErrorKind::MissingField("sq")),
                Some(Value::String(s)) => {
                    Square::from_name(s).ok_or_else(|| TraceErrorKind::BadSquare(s.clone()))?
                }
                Some(v) => return Err(TraceErrorKind::BadSquare(v.to_string())),
            };
            let tag = opt_string(&obj, "tag")?.unwrap_or_default();
            TraceEvent::UnknownTag { board, sq, tag }
        }
        "operator" => {
            let board = match obj.get("board") {
                None => None,
                Some(_) => Some(board_field(&obj)?),
            };
            let action = match obj.get("action") {
                None => return Err(TraceErrorKind::MissingField("action")),
                Some(Value::String(s)) => s.clone(),
                Some(_) => return Err(bad("action", "must be a string")),
            };
            for k in ["t", "ev", "board", "action"] {
                obj.remove(k);
            }
            TraceEvent::Operator {
                board,
                action,
                fields: obj,
            }
        }
        other => return Err(TraceErrorKind::UnknownEvent(other.to_owned())),
    };
    Ok(TraceLine { t, event })
}

fn clock_side(v: &Value) -> Option<crate::dgt::ClockSide> {
    match v.as_str()? {
        "left" => Some(crate::dgt::ClockSide::Left),
        "right" => Some(crate::dgt::ClockSide::Right),
        _ => None,
    }
}

fn bad(field: &'static str, reason: &str) -> TraceErrorKind {
    TraceErrorKind::BadField {
        field,
        reason: reason.to_owned(),
    }
}

fn board_field(obj: &Map<String, Value>) -> Result<BoardId, TraceErrorKind> {
    match obj.get("board") {
        None => Err(TraceErrorKind::MissingField("board")),
        Some(Value::String(s)) => {
            BoardId::from_name(s).ok_or_else(|| bad("board", "must be \"A\" or \"B\""))
        }
        Some(_) => Err(bad("board", "must be \"A\" or \"B\"")),
    }
}

fn opt_string(
    obj: &Map<String, Value>,
    field: &'static str,
) -> Result<Option<String>, TraceErrorKind> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(field, "must be a string")),
    }
}

fn seconds(obj: &Map<String, Value>, field: &'static str) -> Result<f64, TraceErrorKind> {
    match obj.get(field) {
        None => Err(TraceErrorKind::MissingField(field)),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(bad(field, "must be a non-negative number of seconds")),
        },
    }
}
