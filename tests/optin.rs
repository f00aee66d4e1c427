//! The opt-in suite (`cargo test -p bugbridge-tests --features optin --test optin`, run by
//! `.ci/run` after it installs what the suite needs): the end-to-end scenarios against
//! programs of the distribution rather than in-process stand-ins.
//!
//! A program missing is a failure with a message saying what to install, never a skip.
//!
//! * [`mosquitto`]: Debian's mosquitto as the broker (`apt-get install mosquitto`).
//! * [`tournament`]: a room mosquitto bridged to a central one with the repository's example
//!   configurations, six tables, two relays, kills and restarts, operator actions, the ACL.
//! * [`browser`]: the viewer and arbiter pages in headless Chromium driven over WebDriver
//!   (`apt-get install chromium chromium-driver`).
//! * [`interop`]: third-party DGT and Millennium client programs (from `../shared/interop`)
//!   against the emulated boards, and a Millennium device without parity through `listen`
//!   (`pip install pyserial pyee==8.2.2 chess`).
//! * [`bpgn_readers`]: every kind of BPGN file bugbridge writes through pychess.org's
//!   importer and the BPGN viewer (from `../shared/interop/bpgn-readers`; Python 3.11 and
//!   node, `apt-get install nodejs`).
//! * [`recording`]: a real DGT board's recorded bytes (from `../shared/data`) through
//!   `listen` and `replay`.

#[path = "optin/bpgn_readers.rs"]
mod bpgn_readers;
#[path = "optin/browser.rs"]
mod browser;
#[path = "optin/interop.rs"]
mod interop;
#[path = "optin/mosquitto.rs"]
mod mosquitto;
#[path = "optin/recording.rs"]
mod recording;
#[path = "optin/tournament.rs"]
mod tournament;
