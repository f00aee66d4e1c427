//! A capture of the bytes on a board's link, for `bugbridge listen --raw FILE`.
//!
//! One line per read or write, in the order they happened:
//! `<ms> in <hex>` for bytes the board sent, `<ms> out <hex>` for bytes the host sent, `ms`
//! counted from the start of the capture, hex in lower case without separators, e.g.
//! `1520 in 8d000a20030220030109`. A user whose board misbehaves sends this file; replayed
//! into a pseudo-terminal it reproduces what the board did, byte for byte and at its pace.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which way bytes went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Board → host.
    In,
    /// Host → board.
    Out,
}

/// A shared, line-buffered capture sink. Clones write to the same file.
#[derive(Clone)]
pub struct RawLog {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    origin: Instant,
}

impl std::fmt::Debug for RawLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawLog").finish_non_exhaustive()
    }
}

impl RawLog {
    /// A capture into `sink`, times counted from now.
    #[must_use]
    pub fn new(sink: Box<dyn Write + Send>) -> RawLog {
        RawLog {
            sink: Arc::new(Mutex::new(sink)),
            origin: Instant::now(),
        }
    }

    /// Appends one line for `bytes` read (or written) at `at`; errors are logged once per
    /// write and otherwise ignored (a full disk must not stop the board).
    pub fn record(&self, at: Instant, dir: Direction, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let ms = at.saturating_duration_since(self.origin).as_millis();
        let mut line = String::with_capacity(16 + bytes.len() * 2);
        let _ = write!(
            line,
            "{ms} {} ",
            match dir {
                Direction::In => "in",
                Direction::Out => "out",
            }
        );
        for b in bytes {
            let _ = write!(line, "{b:02x}");
        }
        line.push('\n');
        let Ok(mut sink) = self.sink.lock() else {
            return;
        };
        if let Err(e) = sink.write_all(line.as_bytes()).and_then(|()| sink.flush()) {
            tracing::warn!(error = %e, "raw capture: write failed");
        }
    }
}

/// Parses one capture line back into `(ms, direction, bytes)`; `None` for a malformed line.
#[must_use]
pub fn parse_raw_line(line: &str) -> Option<(u64, Direction, Vec<u8>)> {
    let mut parts = line.split_ascii_whitespace();
    let ms = parts.next()?.parse().ok()?;
    let dir = match parts.next()? {
        "in" => Direction::In,
        "out" => Direction::Out,
        _ => return None,
    };
    let hex = parts.next()?;
    if parts.next().is_some() || hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some((ms, dir, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_round_trip() {
        let buf = Shared::default();
        let log = RawLog::new(Box::new(buf.clone()));
        let t = log.origin + std::time::Duration::from_millis(1520);
        log.record(t, Direction::In, &[0x8d, 0x00, 0x0a]);
        log.record(t, Direction::Out, &[0x4b]);
        log.record(t, Direction::Out, &[]);
        let text = String::from_utf8(buf.0.lock().expect("lock").clone()).expect("utf8");
        assert_eq!(text, "1520 in 8d000a\n1520 out 4b\n");
        let parsed: Vec<_> = text.lines().map(parse_raw_line).collect();
        assert_eq!(
            parsed,
            vec![
                Some((1520, Direction::In, vec![0x8d, 0x00, 0x0a])),
                Some((1520, Direction::Out, vec![0x4b])),
            ]
        );
        assert_eq!(parse_raw_line("12 in 8"), None);
        assert_eq!(parse_raw_line("x in 80"), None);
        assert_eq!(parse_raw_line("1 sideways 80"), None);
    }
}
