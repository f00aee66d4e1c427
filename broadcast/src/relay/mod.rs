//! The relay: the web tier of a tournament, fed from the broker instead of a table.
//!
//! Each table's daemon publishes its match under `<prefix>/<match>/…` (see the crate docs).
//! A relay subscribes to every match under the prefix, keeps each one in a [`Hub`] (the
//! same one the daemon serves from, filled by [`Hub::mirror_state`] and friends, so `seq`
//! and JSON are the table's own) and serves all of them with the daemon's viewer, API and
//! streams, plus the tournament page and its downloads ([`http`]).
//!
//! It writes nothing to disk: everything it shows comes from the broker's retained
//! `status`/`state`/`bpgn` (delivered again on every subscription, so a relay started or
//! restarted mid-round is complete as soon as they arrive) and the live `events`/`alerts`.
//! Any number of relays can run side by side behind a load balancer.
//!
//! Consistency: events are taken only in `seq` order (repeats after a reconnect are
//! dropped); an event after a hole makes the relay subscribe to that match's `state` again,
//! which makes the broker re-send the retained state, the truth about what was missed. A
//! state older than the one held is ignored, except after the table went `offline` and came
//! back `online`: a restarted daemon numbers its events from 1 again, so the relay starts
//! counting afresh.
//!
//! `--delay`: the public view gets every message that many seconds after the live one,
//! with the clocks' reading time moved by as much so that clocks count down as they did
//! then. Requests carrying the arbiter token are served from the live view.
//!
//! The arbiter console's alerts outlive the relay: relays keep each match's latest alerts
//! in the retained `<prefix>/<match>/alertlog` (published on every new alert, and again by
//! any relay that holds alerts the retained log lacks), which a relay started later reads
//! like the other retained topics.
//!
//! Operator actions posted on the relay's arbiter routes are published on
//! `<prefix>/<match>/operator` (QoS 1, not retained), for the table's daemon to apply.

pub mod delay;
mod held;
pub mod http;
pub mod message;
mod subscriber;
pub mod view;

use std::future::Future;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::error::MqttOptionsError;
use crate::hub::{Hub, HubOptions};
use crate::mqtt::PublisherOptions;
use crate::wire::OperatorAction;
pub use message::Message;
pub use view::{Applied, TableSummary, View};

/// Options of a relay.
#[derive(Debug, Clone)]
pub struct RelayOptions {
    /// The broker, credentials, client id, topic prefix, keep-alive and reconnect back-off
    /// (the same options as the daemon's publisher; `will_match` and `queue` are unused).
    pub mqtt: PublisherOptions,
    /// How far behind the live view the public one is (zero: one view for both).
    pub delay: Duration,
    /// Options of the hubs (history kept per match).
    pub hub: HubOptions,
}

/// The relay's connection to the broker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStatus {
    /// Whether the connection is up.
    pub connected: bool,
    /// Why the last connection attempt failed or the connection was lost (`None` while
    /// connected or before the first attempt).
    pub problem: Option<crate::mqtt::Problem>,
    /// Failed connection attempts since the last successful one.
    pub failures: u64,
    /// `ConnAck`s received so far.
    pub connections: u64,
    /// Messages applied to the live view so far.
    pub received: u64,
    /// Messages applied to the public view so far.
    pub applied: u64,
    /// `seq` gaps seen on `events`, each answered by re-reading the match's retained state.
    pub gaps: u64,
    /// States received while a re-read was pending (the answer to a gap).
    pub rereads: u64,
}

/// A running relay's views; cheap to clone.
#[derive(Debug, Clone)]
pub struct Relay {
    live: View,
    public: View,
    delay: Duration,
    prefix: String,
    status: watch::Receiver<RelayStatus>,
    outgoing: mpsc::UnboundedSender<(String, Vec<u8>)>,
}

/// The loop to run in its own task: [`RelayLoop::run`].
#[derive(Debug)]
pub struct RelayLoop {
    opts: RelayOptions,
    live: View,
    public: View,
    actions: mpsc::Receiver<OperatorAction>,
    outgoing: mpsc::UnboundedReceiver<(String, Vec<u8>)>,
    status: watch::Sender<RelayStatus>,
}

impl Relay {
    /// Builds the relay's views; nothing is received until [`RelayLoop::run`] runs.
    ///
    /// # Errors
    ///
    /// A bad topic prefix, or `embedded` as the broker (a relay reads a broker others
    /// publish to).
    // Like `Publisher::new`, it returns the handle and its loop.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(opts: RelayOptions) -> Result<(Relay, RelayLoop), MqttOptionsError> {
        opts.mqtt.validate()?;
        if opts.mqtt.url == crate::mqtt::BrokerUrl::Embedded {
            return Err(MqttOptionsError::BadUrl {
                url: "embedded".to_owned(),
                why: "a relay needs the broker the tables publish to (mqtt:// or mqtts://)",
            });
        }
        let (hub, actions) = Hub::new(opts.hub.clone());
        let live = View::new(hub);
        let public = if opts.delay.is_zero() {
            live.clone()
        } else {
            View::with_options(opts.hub.clone())
        };
        let (status, status_rx) = watch::channel(RelayStatus::default());
        let (outgoing_tx, outgoing) = mpsc::unbounded_channel();
        Ok((
            Relay {
                live: live.clone(),
                public: public.clone(),
                delay: opts.delay,
                prefix: opts.mqtt.topic_prefix.clone(),
                status: status_rx,
                outgoing: outgoing_tx,
            },
            RelayLoop {
                opts,
                live,
                public,
                actions,
                outgoing,
                status,
            },
        ))
    }

    /// The live view (arbiters).
    #[must_use]
    pub fn live(&self) -> &View {
        &self.live
    }

    /// The public view (`delay` behind the live one; the same view without a delay).
    #[must_use]
    pub fn public(&self) -> &View {
        &self.public
    }

    /// The configured delay of the public view.
    #[must_use]
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// The connection state and progress.
    #[must_use]
    pub fn status(&self) -> RelayStatus {
        *self.status.borrow()
    }

    /// Waits until `f` holds, re-checking after each message applied or connection change.
    /// Returns `false` if the relay stopped first.
    pub async fn wait_until(&self, mut f: impl FnMut(&Relay) -> bool) -> bool {
        let mut rx = self.status.clone();
        loop {
            if f(self) {
                return true;
            }
            if rx.changed().await.is_err() {
                return f(self);
            }
        }
    }

    /// Marks alert `seq` of `match_id` (un)acknowledged here and publishes the match's list
    /// (retained) so that every relay, and this one after a restart, agrees.
    pub fn set_acked(&self, match_id: &str, seq: u64, acked: bool) -> Vec<u64> {
        let list = self.live.set_acked(match_id, seq, acked);
        let payload = serde_json::to_vec(&message::AckList {
            acked: list.clone(),
        })
        .unwrap_or_default();
        let name = crate::wire::topic::name(&self.prefix, match_id, message::ACKS);
        let _ = self.outgoing.send((name, payload));
        list
    }

    /// Ends the views' open SSE streams (for the HTTP server's graceful shutdown).
    pub fn close(&self) {
        self.live.hub().close();
        self.public.hub().close();
    }
}

impl RelayLoop {
    /// Receives from the broker until `shutdown` completes; reconnects on its own.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        subscriber::run(self, shutdown).await;
    }
}
