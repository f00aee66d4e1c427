//! End-to-end tests of bugbridge: two emulated DGT boards with clocks on real
//! pseudo-terminals, the daemon in-process (`app::run`), a real MQTT broker on loopback
//! (the embedded rumqttd, started and stopped by the test), the HTTP API and SSE stream.
//!
//! Every wait is on an observable effect (an emulator's status, an MQTT message, an SSE
//! frame), bounded by `bugbridge_tests::LIMIT`; no fixed ports. The kill -9 test runs the
//! real binary and lives with the daemon's crate (`daemon/tests/crash.rs`).
//!
//! * `subscriber`: every move reaches an MQTT subscriber, in order, with its BFEN.
//! * `broker_restart`: the broker restarted mid-game; retained state current, no
//!   unexplained `seq` gap.
//! * `unplug`: a board unplugged and replugged mid-game; `link-lost`, then the game goes on.
//! * `outage`: a board's cable out for 4 s over three of its plies: a powered DGT board's
//!   EEPROM log replayed at replug (the record exact); a DGT board that lost power, and a
//!   Millennium board, bridged by the gap search (the same moves, order and result).
//! * `clock_side`: a real DGT recording, also with its clock turned round, through
//!   `listen` and `replay`: White's clock side learnt from play, the game exact.
//! * `clock_unplug`: a board's clock unplugged mid-game and plugged back through the
//!   daemon: `clock-lost`, `clock-restored`, and the whole game recorded.
//! * `clockless`: boards without a clock (Millennium) playing a real game at its pace
//!   through `bugbridge run`: every move, the result, no times, the BPGN.
//! * `certabo`: two Certabo boards (RFID tags, noise) learning both sets and recording a
//!   real game at its pace through `bugbridge run`; a restart reuses the calibration.
//! * `calibrate`: `bugbridge calibrate` against two `bugbridge emulate --driver certabo`
//!   boards: both sets and extra queens learnt and reported, a missing piece named, and
//!   `run` reusing the saved calibration.
//! * `sentio`: two Sentio boards (occupancy only) recording a real game at its pace through
//!   `bugbridge run`: every move exact or its kind flagged with the truth among the choices.
//! * `demo`: `bugbridge demo` with nothing else installed.
//! * `quiet`: a normal demo run, a subscriber coming and going: no WARN, no ERROR.
//! * `relay`: a table through the broker to a relay; an operator action back over MQTT.
//! * `koedem`: a Koedem match: king captures, grabs and the four-kings result.
//! * `arbiter_end`: a result from the API while the boards play on: no move after the end,
//!   a second result refused, a correction published, journaled and replayed at restart.

#[path = "e2e/arbiter_end.rs"]
mod arbiter_end;
#[path = "e2e/broker_restart.rs"]
mod broker_restart;
#[path = "e2e/calibrate.rs"]
mod calibrate;
#[path = "e2e/certabo.rs"]
mod certabo;
#[path = "e2e/clock_side.rs"]
mod clock_side;
#[path = "e2e/clock_unplug.rs"]
mod clock_unplug;
#[path = "e2e/clockless.rs"]
mod clockless;
#[path = "e2e/demo.rs"]
mod demo;
#[path = "e2e/koedem.rs"]
mod koedem;
#[path = "e2e/outage.rs"]
mod outage;
#[path = "e2e/quiet.rs"]
mod quiet;
#[path = "e2e/relay.rs"]
mod relay;
#[path = "e2e/sentio.rs"]
mod sentio;
#[path = "e2e/subscriber.rs"]
mod subscriber;
#[path = "e2e/unplug.rs"]
mod unplug;
