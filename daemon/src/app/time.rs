//! Wall-clock helpers: the BPGN `Date`/`Time` tags and the trace time origin they encode.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now.
#[must_use]
pub fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month, day) → days since 1970-01-01.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The BPGN `Date` (`2026.11.21`) and `Time` (`21:30:05`, UTC) of an instant.
#[must_use]
pub fn date_time_tags(ms: u64) -> (String, String) {
    let secs = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    (
        format!("{y:04}.{mo:02}.{d:02}"),
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60),
    )
}

/// The instant (ms since the epoch) of BPGN `Date` and `Time` tags, if they parse.
#[must_use]
pub fn from_tags(date: &str, time: &str) -> Option<u64> {
    let mut d = date.split(['.', '-']);
    let (y, mo, da) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    let mut t = time.split(':');
    let (h, mi, s): (i64, i64, i64) = (
        t.next()?.parse().ok()?,
        t.next()?.parse().ok()?,
        t.next()?.parse().ok()?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&da) {
        return None;
    }
    let secs = days_from_civil(y, mo, da) * 86_400 + h * 3600 + mi * 60 + s;
    u64::try_from(secs).ok().map(|s| s * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_to_the_second() {
        let ms = 1_795_296_605_000; // 2026-11-21 21:30:05 UTC
        let (d, t) = date_time_tags(ms);
        assert_eq!((d.as_str(), t.as_str()), ("2026.11.21", "21:30:05"));
        assert_eq!(from_tags(&d, &t), Some(ms));
        assert_eq!(date_time_tags(0), ("1970.01.01".into(), "00:00:00".into()));
        assert_eq!(from_tags("2024-02-29", "00:00:00"), Some(1_709_164_800_000));
        assert_eq!(from_tags("x", "y"), None);
    }
}
