//! Logging on stderr for every subcommand that runs for a while (`run`, `demo`, `listen`,
//! `emulate`).
//!
//! - `RUST_LOG` replaces the configured level (`RUST_LOG=debug`,
//!   `RUST_LOG=bugbridge_drivers=trace`).
//! - The embedded MQTT broker's per-connection chatter is filtered out unless the filter
//!   names rumqttd (`RUST_LOG=info,rumqttd=debug`): rumqttd logs a client leaving as
//!   `ERROR router-drop` / `ERROR no-connection`, which is not an error of this daemon (the
//!   publisher logs its own connection problems).
//! - Colour codes only when stderr is a terminal: log files and pipes get plain text.
//! - Under systemd (`JOURNAL_STREAM` names stderr), no timestamps: the journal adds its own.
//! - JSON lines on request (`--json-logs`, `[log] format = "json"`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Directives appended to the default filter: rumqttd's router and per-connection tasks log
/// ordinary disconnects at ERROR.
const QUIET_BROKER: &str = "rumqttd=warn,rumqttd::router::routing=off,rumqttd::server::broker=off";

/// The filter for `level` (the configured one, or `RUST_LOG`): plus [`QUIET_BROKER`], unless
/// `level` already says something about rumqttd.
#[must_use]
pub fn default_filter(level: &str) -> String {
    if level.contains("rumqttd") {
        level.to_owned()
    } else {
        format!("{level},{QUIET_BROKER}")
    }
}

/// `RUST_LOG` if set, else `level`.
fn chosen_level(level: &str) -> String {
    std::env::var("RUST_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| level.to_owned())
}

/// Whether stderr goes to the systemd journal (systemd sets `JOURNAL_STREAM` to the
/// device and inode of the stream it connected).
fn stderr_is_journal() -> bool {
    let Ok(value) = std::env::var("JOURNAL_STREAM") else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Some((dev, ino)) = value.split_once(':') else {
            return false;
        };
        let Ok(meta) = std::fs::metadata("/proc/self/fd/2") else {
            return false;
        };
        dev.parse() == Ok(meta.dev()) && ino.parse() == Ok(meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = value;
        false
    }
}

/// Logging for the board tools (`listen`, `emulate`): what a person at the table reads,
/// without timestamps and module paths.
pub(crate) fn init_plain_logging(level: &str) {
    let filter = EnvFilter::new(default_filter(&chosen_level(level)));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .with_target(false)
        .try_init();
}

/// Sets up the global subscriber (once; later calls do nothing).
pub(crate) fn init_logging(level: &str, json: bool) {
    let filter = EnvFilter::new(default_filter(&chosen_level(level)));
    let ansi = std::io::stderr().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi);
    let _ = if json {
        builder.json().try_init()
    } else if stderr_is_journal() {
        builder.without_time().try_init()
    } else {
        builder.try_init()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_broker_chatter_is_off_unless_asked_for() {
        let f = default_filter("info");
        assert!(f.starts_with("info,"), "{f}");
        assert!(f.contains("rumqttd::router::routing=off"), "{f}");
        assert!(f.contains("rumqttd::server::broker=off"), "{f}");
        assert_eq!(default_filter("info,rumqttd=debug"), "info,rumqttd=debug");
        // Every directive parses.
        for d in f.split(',') {
            assert!(
                d.parse::<tracing_subscriber::filter::Directive>().is_ok(),
                "{d}"
            );
        }
    }
}
