//! The journal: the match's sensor trace, append-only, written before interpretation.
//!
//! Lines are the `sensor-trace.md` format, so a journal is also a trace for `replay`.
//! Durability: every line is handed to the OS as it arrives; `sync` (called at each clock
//! press, when a move is completed) makes everything so far durable. A crash can at worst
//! leave a torn last line; [`Journal::recover`] drops it and truncates the file to the last
//! whole line before appending goes on.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use bugbridge_drivers::trace::{TraceError, TraceLine, line_to_string, parse_line};

/// A journal that cannot be read back or written.
#[derive(Debug)]
pub enum JournalError {
    /// The file could not be opened, read or written.
    Io(PathBuf, io::Error),
    /// A whole line of the journal is not a trace line (not a torn tail: real damage).
    Corrupt(PathBuf, TraceError),
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            JournalError::Corrupt(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for JournalError {}

/// What a journal held when it was reopened.
#[derive(Debug)]
pub struct Recovered {
    /// Its whole lines, in order.
    pub lines: Vec<TraceLine>,
    /// Bytes of a torn last line that were dropped (0 after a clean stop).
    pub dropped_bytes: usize,
}

/// An open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
    last_t: u64,
}

impl Journal {
    /// Creates a new journal (the file must not exist yet).
    ///
    /// # Errors
    ///
    /// [`JournalError::Io`].
    pub fn create(path: &Path) -> Result<Journal, JournalError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| JournalError::Io(path.to_owned(), e))?;
        Ok(Journal {
            path: path.to_owned(),
            out: BufWriter::new(file),
            last_t: 0,
        })
    }

    /// Reopens a journal after a stop or a crash: reads its whole lines, drops a torn last
    /// line, and positions for appending.
    ///
    /// # Errors
    ///
    /// [`JournalError::Io`], or [`JournalError::Corrupt`] when a complete line is damaged
    /// (the file is then left as it is).
    pub fn recover(path: &Path) -> Result<(Journal, Recovered), JournalError> {
        let io_err = |e| JournalError::Io(path.to_owned(), e);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io_err)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io_err)?;
        let (lines, dropped_bytes) = whole_lines(path, &bytes)?;
        let whole = bytes.len() - dropped_bytes;
        let last_t = lines.iter().map(|l| l.t).max().unwrap_or(0);
        if dropped_bytes > 0 {
            file.set_len(whole as u64).map_err(io_err)?;
            file.sync_data().map_err(io_err)?;
        }
        file.seek(SeekFrom::End(0)).map_err(io_err)?;
        Ok((
            Journal {
                path: path.to_owned(),
                out: BufWriter::new(file),
                last_t,
            },
            Recovered {
                lines,
                dropped_bytes,
            },
        ))
    }

    /// Reads a journal without opening it for appending (a finished game's): its whole
    /// lines, a torn last line left out (the file is not changed).
    ///
    /// # Errors
    ///
    /// [`JournalError::Io`], or [`JournalError::Corrupt`] when a complete line is damaged.
    pub fn read(path: &Path) -> Result<Recovered, JournalError> {
        let bytes = std::fs::read(path).map_err(|e| JournalError::Io(path.to_owned(), e))?;
        let (lines, dropped_bytes) = whole_lines(path, &bytes)?;
        Ok(Recovered {
            lines,
            dropped_bytes,
        })
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The time of the last line written or recovered.
    #[must_use]
    pub const fn last_t(&self) -> u64 {
        self.last_t
    }

    /// Appends one line (handed to the OS at once; durable after [`Journal::sync`]).
    /// A time earlier than the last one is raised to it: a trace's `t` never decreases.
    ///
    /// # Errors
    ///
    /// [`JournalError::Io`].
    pub fn append(&mut self, line: &TraceLine) -> Result<(), JournalError> {
        let mut line = line.clone();
        line.t = line.t.max(self.last_t);
        self.last_t = line.t;
        let mut text = line_to_string(&line);
        text.push('\n');
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| JournalError::Io(self.path.clone(), e))
    }

    /// Makes everything appended so far durable (fsync).
    ///
    /// # Errors
    ///
    /// [`JournalError::Io`].
    pub fn sync(&mut self) -> Result<(), JournalError> {
        self.out
            .flush()
            .and_then(|()| self.out.get_ref().sync_data())
            .map_err(|e| JournalError::Io(self.path.clone(), e))
    }
}

/// The whole lines of a journal's bytes, and the length of a torn last line (the bytes
/// after the last line end).
fn whole_lines(path: &Path, bytes: &[u8]) -> Result<(Vec<TraceLine>, usize), JournalError> {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let text = String::from_utf8_lossy(&bytes[..whole]);
    let mut lines = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let line = parse_line(raw, lines.is_empty()).map_err(|kind| {
            JournalError::Corrupt(path.to_owned(), TraceError { line: i + 1, kind })
        })?;
        lines.push(line);
    }
    Ok((lines, bytes.len() - whole))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bugbridge_drivers::trace::{BoardId, Side, TraceEvent};

    fn clock(t: u64, white: f64) -> TraceLine {
        TraceLine {
            t,
            event: TraceEvent::Clock {
                board: BoardId::A,
                white,
                black: 180.0,
                running: Some(Side::Black),
            },
        }
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_appending_goes_on() {
        let dir = std::env::temp_dir().join(format!("bugbridge-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.trace.jsonl");
        let _ = std::fs::remove_file(&path);
        let mut j = Journal::create(&path).unwrap();
        j.append(&clock(10, 179.0)).unwrap();
        j.append(&clock(20, 178.0)).unwrap();
        j.sync().unwrap();
        drop(j);
        // A crash in the middle of a write.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"t\":30,\"board\":\"A\",\"ev\":\"clo")
            .unwrap();
        drop(f);
        let (mut j, rec) = Journal::recover(&path).unwrap();
        assert_eq!(rec.lines.len(), 2);
        assert_eq!(rec.dropped_bytes, 29);
        assert_eq!(j.last_t(), 20);
        j.append(&clock(5, 177.0)).unwrap();
        drop(j);
        let (_, rec) = Journal::recover(&path).unwrap();
        assert_eq!(rec.lines.len(), 3);
        assert_eq!(rec.lines[2].t, 20, "time never goes back");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_whole_line_is_an_error_naming_the_line() {
        let dir =
            std::env::temp_dir().join(format!("bugbridge-journal-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.trace.jsonl");
        std::fs::write(
            &path,
            "{\"t\":0,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\nnot json\n",
        )
        .unwrap();
        let err = Journal::recover(&path).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
