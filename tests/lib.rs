//! Shared helpers of bugbridge's end-to-end tests and benchmarks.
//!
//! Everything runs for real: two emulated DGT boards with clocks on pseudo-terminals
//! (`bugbridge_drivers::emulate`), the daemon (in-process through `bugbridge::app::run`, or
//! the `bugbridge` binary as a child process), an MQTT broker on loopback, the HTTP API.
//! Nothing synchronises by sleeping: every wait is on an observable effect (the emulator's
//! status watch, an MQTT message, an SSE frame), bounded by [`LIMIT`].
//!
//! # Layout
//!
//! * [`game`]: a corpus BPGN game (or its first plies) → the sensor trace two boards would
//!   produce ([`game::TestGame`]), and what an uninterrupted run must record (the offline
//!   re-inference of the same trace).
//! * [`table`]: the two emulated boards in [`Pace::Manual`](bugbridge_drivers::emulate::Pace),
//!   advanced one event at a time in trace order ([`table::Table`]).
//! * [`clockless`]: a corpus game as boards without a clock play it (the noisy trace
//!   without clock readings) and the record it must give, board by board.
//! * [`paced`]: two emulated boards (DGT or Millennium) playing a trace at its own pace
//!   ([`Pace::Timed`](bugbridge_drivers::emulate::Pace)), not stepped by the test.
//! * [`daemon`]: the daemon's configuration for a test and the daemon in a task
//!   ([`daemon::InProcess`]).
//! * [`child`]: the daemon as a child process ([`child::ChildDaemon`]), for `kill -9`,
//!   memory and CPU.
//! * [`mqtt`]: a recording subscriber ([`mqtt::Subscriber`]) and a broker that can be
//!   stopped and started again on the same port ([`mqtt::RestartableBroker`]).
//! * [`http`]: a minimal HTTP/1.1 client for the JSON API and the SSE stream.
//! * [`recording`]: the real DGT recording of `../shared` played as the board into
//!   `bugbridge listen` over a pty, also with its clock turned round.
//! * [`relay`]: a relay in tasks of the test ([`relay::RunningRelay`]) and the arbiter's POST.
//! * [`scenarios`]: the scenarios run against any broker ([`scenarios::Broker`]): the
//!   embedded one in `cargo test`, Debian's mosquitto in the opt-in suite.
//! * [`temp`]: temporary directories removed on drop.

#[path = "support/child.rs"]
pub mod child;
#[path = "support/clockless.rs"]
pub mod clockless;
#[path = "support/daemon.rs"]
pub mod daemon;
#[path = "support/game.rs"]
pub mod game;
#[path = "support/http.rs"]
pub mod http;
#[path = "support/mqtt.rs"]
pub mod mqtt;
#[path = "support/paced.rs"]
pub mod paced;
#[path = "support/recording.rs"]
pub mod recording;
#[path = "support/relay.rs"]
pub mod relay;
#[path = "support/scenarios.rs"]
pub mod scenarios;
#[path = "support/table.rs"]
pub mod table;
#[path = "support/temp.rs"]
pub mod temp;

use std::time::Duration;

/// The upper bound of every wait: far above what any step takes, so that it only turns a
/// hang into a clear failure, even on a small machine busy with other builds.
pub const LIMIT: Duration = Duration::from_secs(60);

/// Awaits `fut`, failing with `what` if it takes longer than [`LIMIT`].
///
/// # Panics
///
/// When `fut` does not complete within [`LIMIT`].
pub async fn within<T>(what: &str, fut: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(LIMIT, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {LIMIT:?} waiting for {what}"),
    }
}

/// Tests of the helpers themselves (here rather than in `support/game.rs`, which the
/// daemon's `crash` test compiles too).
#[cfg(test)]
mod tests {
    use crate::game::{TestGame, movetext};

    #[test]
    fn movetext_ignores_tags_and_line_breaks() {
        let a = "[Event \"x\"]\n[Date \"2026.11.21\"]\n\n1A. e4 {178} 1B. d4\n{177} *\n";
        let b = "[Event \"x\"]\n[Date \"2027.01.01\"]\n\n1A. e4 {178}\n1B. d4 {177} *\n";
        assert_eq!(movetext(a), "1A. e4 {178} 1B. d4 {177} *");
        assert_eq!(movetext(a), movetext(b));
    }

    #[test]
    fn the_short_game_has_whole_second_times_and_its_eight_moves() {
        let g = TestGame::short();
        assert_eq!(g.moves.len(), 8);
        assert!(
            g.moves
                .iter()
                .all(|m| m.clock.is_some_and(|c| c.fract() == 0.0))
        );
        assert!(
            movetext(&g.bpgn).starts_with("1A. e4 {118} 1B. e4 {117}"),
            "{}",
            g.bpgn
        );
    }
}
