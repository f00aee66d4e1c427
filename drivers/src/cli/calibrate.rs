//! `bugbridge calibrate`: reading one Certabo board's start position until its set is
//! learnt (or it is clear that it cannot be).

use std::io::{self, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::certabo::calibration::{KEPT_READINGS, Survey};
use crate::certabo::{Calibrator, Expect, FrameDecoder, Message, TagReading};
use crate::error::DriverError;
use crate::serial::{LineSettings, Port};

/// How long [`survey_start_position`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurveyLimits {
    /// Readings after which a start position that has not settled is reported as it is.
    pub readings: usize,
    /// Longest wait for a reading before the board is reported silent.
    pub silence: Duration,
}

impl Default for SurveyLimits {
    /// 25 readings (the vendor's 15 and then ten more, a few seconds on a real board), a
    /// board silent for 10 s.
    fn default() -> Self {
        SurveyLimits {
            readings: 25,
            silence: Duration::from_secs(10),
        }
    }
}

/// Reads the Certabo board on `path` (its LEDs switched off first, as the vendor's
/// software does on connecting) until its start position settles into a calibration or
/// `limits.readings` readings have come: the [`Survey`] of the last readings says which
/// pieces were recognised, which squares were not, and which tags were read twice. With
/// `rotated` the board lies turned (its readings are turned back before learning).
///
/// # Errors
/// The port cannot be opened or read, the board sends nothing for `limits.silence`, or it
/// sends occupancy readings (a Sentio board, which learns no tags).
pub fn survey_start_position(
    path: &Path,
    limits: SurveyLimits,
    rotated: bool,
) -> Result<Survey, DriverError> {
    let name = path.display();
    let mut port = Port::open(path, LineSettings::CERTABO, Duration::from_millis(50))
        .map_err(|e| io::Error::new(e.kind(), format!("{name}: cannot be opened: {e}")))?;
    port.write_all(&[0u8; 8])
        .map_err(|e| io::Error::new(e.kind(), format!("{name}: cannot be written: {e}")))?;
    let mut decoder = FrameDecoder::new(Expect::Detect);
    let mut calibrator = Calibrator::new();
    let mut seen = 0usize;
    let mut last = Instant::now();
    let mut buf = [0u8; 512];
    loop {
        let n = match port.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::TimedOut => 0,
            Err(e) => {
                return Err(
                    io::Error::new(e.kind(), format!("{name}: cannot be read: {e}")).into(),
                );
            }
        };
        for m in decoder.decode(&buf[..n]) {
            match m {
                Message::Tags(r) => {
                    last = Instant::now();
                    seen += 1;
                    let r = if rotated { turned(&r) } else { *r };
                    let _ = calibrator.add(&r);
                    let survey = calibrator.survey();
                    let settled = survey.readings >= crate::certabo::calibration::MIN_READINGS
                        && survey.unsettled.is_empty();
                    if settled || seen >= limits.readings.max(KEPT_READINGS) {
                        return Ok(survey);
                    }
                }
                Message::Ranks(_) => {
                    return Err(DriverError::Config(format!(
                        "{name}: the board sends occupancy readings: a TabuTronic Sentio, which senses no pieces and needs no calibration"
                    )));
                }
                Message::Ack(_) => {}
            }
        }
        if last.elapsed() > limits.silence {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "{name}: no reading in {} s: is the board switched on, and is this its port? (`bugbridge ports --probe`)",
                    limits.silence.as_secs()
                ),
            )
            .into());
        }
    }
}

/// A reading of a board lying turned, as it would read the right way round.
fn turned(r: &TagReading) -> TagReading {
    let mut ids = r.0;
    ids.reverse();
    TagReading(ids)
}
