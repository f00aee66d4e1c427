//! [`TraceWriter`]: writes lines exactly in the format of `sensor-trace.md`.

use std::io::{self, Write};

use super::event::{TraceEvent, TraceLine};

/// Writes trace lines, one JSON object per line, `\n` ends, fields in the documented order
/// (`t`, `board`, `ev`, then the event's fields).
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: W,
    buf: String,
}

impl<W: Write> TraceWriter<W> {
    /// A writer over `out`. Wrap files in a `BufWriter`.
    pub fn new(out: W) -> Self {
        TraceWriter {
            out,
            buf: String::with_capacity(128),
        }
    }

    /// Writes one line.
    ///
    /// # Errors
    /// The underlying writer's error.
    pub fn write(&mut self, line: &TraceLine) -> io::Result<()> {
        self.buf.clear();
        format_line(line, &mut self.buf);
        self.buf.push('\n');
        self.out.write_all(self.buf.as_bytes())
    }

    /// Flushes the underlying writer.
    ///
    /// # Errors
    /// The underlying writer's error.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Gives back the underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// One line as text, without the final `\n`.
#[must_use]
pub fn line_to_string(line: &TraceLine) -> String {
    let mut s = String::with_capacity(96);
    format_line(line, &mut s);
    s
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// Clock seconds: integers when whole (`178`), else the shortest decimal (`178.5`).
fn number(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else if x.is_finite() {
        format!("{x}")
    } else {
        // Not representable in JSON; a reader rejects it, so write something visible.
        "null".to_owned()
    }
}

fn format_line(line: &TraceLine, s: &mut String) {
    use std::fmt::Write as _;
    let _ = write!(s, "{{\"t\":{}", line.t);
    if let Some(b) = line.event.board() {
        let _ = write!(s, ",\"board\":\"{b}\"");
    }
    let _ = write!(s, ",\"ev\":\"{}\"", line.event.kind());
    match &line.event {
        TraceEvent::Meta {
            ruleset,
            time_control,
            setup,
            tags,
        } => {
            if let Some(r) = ruleset {
                let _ = write!(s, ",\"ruleset\":{}", json_str(r));
            }
            if let Some(tc) = time_control {
                let _ = write!(s, ",\"time_control\":{}", json_str(tc));
            }
            if let Some(fen) = setup {
                let _ = write!(s, ",\"setup\":{}", json_str(fen));
            }
            if !tags.is_empty() {
                s.push_str(",\"tags\":{");
                for (i, (k, v)) in tags.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    let _ = write!(s, "{}:{}", json_str(k), json_str(v));
                }
                s.push('}');
            }
        }
        TraceEvent::Board { placement, .. } => {
            let _ = write!(s, ",\"fen\":\"{placement}\"");
        }
        TraceEvent::Occupancy { occupied, .. } => {
            let _ = write!(s, ",\"occupied\":\"{occupied}\"");
        }
        TraceEvent::Square { sq, piece, .. } => {
            let _ = write!(s, ",\"sq\":\"{sq}\",\"piece\":");
            match piece {
                Some(p) => {
                    let _ = write!(s, "\"{p}\"");
                }
                None => s.push_str("null"),
            }
        }
        TraceEvent::Clock {
            white,
            black,
            running,
            ..
        } => {
            let _ = write!(
                s,
                ",\"white\":{},\"black\":{},\"running\":",
                number(*white),
                number(*black)
            );
            match running {
                Some(side) => {
                    let _ = write!(s, "\"{side}\"");
                }
                None => s.push_str("null"),
            }
        }
        TraceEvent::Link { up, .. } | TraceEvent::ClockLink { up, .. } => {
            let _ = write!(s, ",\"up\":{up}");
        }
        TraceEvent::ClockSide {
            white_side,
            configured,
            evidence,
            ..
        } => {
            let name = |c: crate::dgt::ClockSide| match c {
                crate::dgt::ClockSide::Left => "left",
                crate::dgt::ClockSide::Right => "right",
            };
            let _ = write!(
                s,
                ",\"white_side\":\"{}\",\"configured\":\"{}\",\"evidence\":{}",
                name(*white_side),
                configured.map_or("auto", name),
                json_str(evidence)
            );
        }
        TraceEvent::UnknownTag { sq, tag, .. } => {
            let _ = write!(s, ",\"sq\":\"{sq}\",\"tag\":{}", json_str(tag));
        }
        TraceEvent::Operator { action, fields, .. } => {
            let _ = write!(s, ",\"action\":{}", json_str(action));
            for (k, v) in fields {
                let _ = write!(s, ",{}:{}", json_str(k), v);
            }
        }
    }
    s.push('}');
}
