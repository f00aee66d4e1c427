//! The shared "drop one byte, record it, retry" rule of every decoder.
//!
//! A noisy USB-serial board must never cost us the session: a decoder that meets bytes it
//! cannot frame drops them from the front of the buffer, counts them here, keeps the last
//! reason, and tries again from the next byte. Each call drops at least one byte, so a
//! decode loop always terminates.

use bytes::{Buf, BytesMut};

use crate::error::DecodeError;

/// Counters of what a decoder threw away.
#[derive(Debug, Default, Clone)]
pub struct ResyncStats {
    dropped: u64,
    events: u64,
    last: Option<DecodeError>,
}

impl ResyncStats {
    /// Drops `n` (at least 1) bytes from the front of `buf` because of `why`.
    pub(crate) fn drop_bytes(&mut self, buf: &mut BytesMut, n: usize, why: DecodeError) {
        let n = n.clamp(1, buf.len().max(1)).min(buf.len());
        buf.advance(n);
        self.dropped += n as u64;
        self.events += 1;
        tracing::debug!(dropped = n, reason = %why, "decoder resync");
        self.last = Some(why);
    }

    /// Records `n` bytes already consumed by a byte-at-a-time decoder as dropped because of
    /// `why`.
    pub(crate) fn note(&mut self, n: usize, why: DecodeError) {
        self.dropped += n as u64;
        self.events += 1;
        tracing::debug!(dropped = n, reason = %why, "decoder resync");
        self.last = Some(why);
    }

    /// Counts `n` more dropped bytes for the reason already recorded.
    pub(crate) fn more(&mut self, n: usize) {
        self.dropped += n as u64;
    }

    /// Total bytes dropped so far.
    #[must_use]
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped
    }

    /// How many times bytes were dropped.
    #[must_use]
    pub fn resyncs(&self) -> u64 {
        self.events
    }

    /// Why bytes were last dropped.
    #[must_use]
    pub fn last_error(&self) -> Option<&DecodeError> {
        self.last.as_ref()
    }
}
