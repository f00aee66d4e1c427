//! Link watchdog: probe a silent device, give up when the probe is not answered.

use std::time::{Duration, Instant};

use crate::error::SessionError;

#[derive(Debug, Clone)]
pub(crate) struct Watchdog {
    last_rx: Instant,
    probe_sent: Option<Instant>,
    probe_after: Duration,
    reply_timeout: Duration,
}

impl Watchdog {
    pub(crate) fn new(now: Instant, probe_after: Duration, reply_timeout: Duration) -> Self {
        Watchdog {
            last_rx: now,
            probe_sent: None,
            probe_after,
            reply_timeout,
        }
    }

    pub(crate) fn received(&mut self, now: Instant) {
        self.last_rx = now;
        self.probe_sent = None;
    }

    /// `Ok(true)` when a probe should be sent now.
    pub(crate) fn check(&mut self, now: Instant) -> Result<bool, SessionError> {
        match self.probe_sent {
            Some(sent) if now.duration_since(sent) > self.reply_timeout => {
                Err(SessionError::Timeout("device did not answer a probe"))
            }
            Some(_) => Ok(false),
            None if now.duration_since(self.last_rx) > self.probe_after => {
                self.probe_sent = Some(now);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
