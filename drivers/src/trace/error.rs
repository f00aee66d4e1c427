//! [`TraceError`]: what is wrong with a trace line, and where.

/// A trace line could not be read. `line` counts from 1.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub kind: TraceErrorKind,
}

/// What is wrong with a trace line.
#[derive(Debug, thiserror::Error)]
pub enum TraceErrorKind {
    /// The underlying reader failed (including invalid UTF-8).
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
    /// The line is not a JSON object.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// `ev` names no known event.
    #[error("unknown event {0:?}")]
    UnknownEvent(String),
    /// A required field is absent.
    #[error("missing field {0:?}")]
    MissingField(&'static str),
    /// A field has the wrong type or value.
    #[error("bad field {field:?}: {reason}")]
    BadField {
        /// The field.
        field: &'static str,
        /// Why it is wrong.
        reason: String,
    },
    /// `sq` is not `a1`..`h8`.
    #[error("bad square {0:?}")]
    BadSquare(String),
    /// `piece` is not one of `KQRBNPkqrbnp` or null.
    #[error("bad piece letter {0:?}")]
    BadPiece(String),
    /// `fen` is not a placement field.
    #[error("bad fen {fen:?}: {reason}")]
    BadFen {
        /// The text.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `t` went down.
    #[error("time {t} is before the previous line's {previous}")]
    DecreasingTime {
        /// This line's `t`.
        t: u64,
        /// The previous line's `t`.
        previous: u64,
    },
    /// A `meta` line that is not the first line.
    #[error("meta must be the first line")]
    MetaNotFirst,
}
