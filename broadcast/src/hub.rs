//! The hub: the one place that holds what is published, per match.
//!
//! The daemon calls [`Hub::publish`] with an [`Update`] (the new [`MatchState`], the BPGN and
//! the events decided since the last update). The hub numbers the events (`seq`, gap-free
//! from 1; alerts get their own sequence), keeps the latest state and a bounded history of
//! events, serialises everything once, and fans it out: to the SSE streams through a
//! `tokio::sync::broadcast` channel per match and to the MQTT publisher, which pulls from the
//! hub whenever the hub's generation counter moves. Operator actions from the arbiter page
//! travel the other way on the `mpsc` channel returned by [`Hub::new`]. A daemon that checks
//! actions against its game says so ([`Hub::answer_actions`]) and answers each one
//! ([`Hub::answer`]): the arbiter page's request then waits for the answer, so a refused
//! action is a 400 naming the field at fault, not a 202 that silently did nothing.

mod mirror;

use std::collections::{BTreeMap, VecDeque};

pub use mirror::Mirrored;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use bytes::Bytes;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::archive::Archive;
use crate::error::PublishError;
use crate::health::Health;
use crate::metrics::Metrics;
use crate::wire::{Event, EventKind, MatchState, MatchSummary, OperatorAction, SCHEMA_VERSION};

/// Options of a [`Hub`].
#[derive(Debug, Clone)]
pub struct HubOptions {
    /// Also publish alerts on the public events stream and topic (`alerts_public`).
    pub alerts_public: bool,
    /// How many events of each stream are kept per match, for `Last-Event-ID` catch-up and
    /// for re-publishing to MQTT after a reconnect.
    pub history: usize,
    /// Capacity of each match's fan-out channel; a stream that falls further behind gets a
    /// fresh state catch-up instead of the events it missed.
    pub fanout_capacity: usize,
    /// Capacity of the operator action channel.
    pub action_capacity: usize,
}

impl Default for HubOptions {
    fn default() -> Self {
        HubOptions {
            alerts_public: false,
            history: 4096,
            fanout_capacity: 256,
            action_capacity: 64,
        }
    }
}

/// What the daemon hands to [`Hub::publish`] after each change.
#[derive(Debug, Clone, Default)]
pub struct Update {
    /// The whole state after the change; `v`, `id` and `seq` are set by the hub.
    pub state: MatchState,
    /// The whole BPGN so far.
    pub bpgn: String,
    /// Events decided since the previous update, in order; `seq` is set by the hub. Alerts
    /// (`kind = alert`) go to the alert stream (and the public one too if `alerts_public`).
    pub events: Vec<Event>,
}

/// What [`Hub::publish`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Published {
    /// `seq` of the last event on the events stream after this update.
    pub seq: u64,
    /// `seq` of the last alert after this update.
    pub alert_seq: u64,
}

/// A message of a match's fan-out: already framed for SSE, and its JSON for MQTT.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub(crate) seq: u64,
    pub(crate) json: Bytes,
    pub(crate) frame: Bytes,
}

/// What an SSE stream receives.
#[derive(Debug, Clone)]
pub(crate) enum Delivery {
    /// One update on the public stream, already framed: its events, then the new state.
    /// One buffer per update means one write per viewer per update.
    Batch(Bytes),
    /// A full state (alert stream only; framed there without `id:`).
    State(Item),
    /// An alert (alert stream only).
    Alert(Item),
}

/// Per-match data, behind one lock.
#[derive(Debug)]
pub(crate) struct MatchData {
    pub(crate) state: MatchState,
    pub(crate) state_item: Item,
    pub(crate) bpgn: Bytes,
    pub(crate) seq: u64,
    pub(crate) alert_seq: u64,
    /// Bumped on every update: the MQTT publisher re-sends retained topics when it moves.
    pub(crate) version: u64,
    pub(crate) events: VecDeque<Item>,
    pub(crate) alerts: VecDeque<Item>,
    /// Whether the table's daemon is online, as an SSE `status` frame, when this hub is a
    /// relay's (which knows it from the retained `status`); `None` on a daemon's own hub.
    pub(crate) status_frame: Option<Bytes>,
}

/// One match served.
#[derive(Debug)]
pub(crate) struct MatchEntry {
    pub(crate) id: String,
    pub(crate) data: RwLock<MatchData>,
    pub(crate) public: broadcast::Sender<Delivery>,
    pub(crate) private: broadcast::Sender<Delivery>,
}

/// Why the daemon refused an operator action: the field at fault and a sentence for the
/// arbiter (the body of the 400 answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRefusal {
    /// The action's field at fault (`reason`, `number`, `moves`, …).
    pub field: String,
    /// Why.
    pub message: String,
}

impl std::fmt::Display for ActionRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ActionRefusal {}

/// The answer to an operator action.
pub type ActionOutcome = Result<(), ActionRefusal>;

#[derive(Debug)]
struct Inner {
    opts: HubOptions,
    matches: RwLock<BTreeMap<String, Arc<MatchEntry>>>,
    actions: mpsc::Sender<OperatorAction>,
    /// The daemon answers every action (see [`Hub::answer_actions`]).
    answers: AtomicBool,
    /// The requests waiting for their answer, by action id.
    replies: Mutex<HashMap<String, oneshot::Sender<ActionOutcome>>>,
    metrics: Metrics,
    generation: watch::Sender<u64>,
    closed: watch::Sender<bool>,
    archive: Archive,
    health: Health,
}

/// The matches served by this process; cheap to clone (an `Arc`).
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

/// Frames a JSON document as one SSE message.
pub(crate) fn sse_frame(id: Option<u64>, event: Option<&str>, json: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(json.len() + 40);
    if let Some(id) = id {
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    if let Some(event) = event {
        out.extend_from_slice(format!("event: {event}\n").as_bytes());
    }
    out.extend_from_slice(b"data: ");
    // Compact serde_json output holds no raw newline, so one data line suffices.
    out.extend_from_slice(json);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

fn to_json<T: serde::Serialize>(value: &T) -> Bytes {
    // The wire types contain only strings, numbers and maps with string keys: serialising
    // them cannot fail.
    Bytes::from(serde_json::to_vec(value).unwrap_or_default())
}

fn state_item(state: &MatchState) -> Item {
    let json = to_json(state);
    Item {
        seq: state.seq,
        frame: sse_frame(Some(state.seq), Some("state"), &json),
        json,
    }
}

/// Whether `id` can be a topic level and a URL path segment.
#[must_use]
pub fn valid_match_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && id != "."
        && id != ".."
}

fn push_bounded(history: &mut VecDeque<Item>, item: Item, cap: usize) {
    if history.len() >= cap.max(1) {
        history.pop_front();
    }
    history.push_back(item);
}

impl Hub {
    /// A hub with no match yet, and the receiving end of the operator action channel (the
    /// daemon journals and applies what arrives there).
    #[must_use]
    pub fn new(opts: HubOptions) -> (Hub, mpsc::Receiver<OperatorAction>) {
        let (tx, rx) = mpsc::channel(opts.action_capacity.max(1));
        let inner = Inner {
            opts,
            matches: RwLock::default(),
            actions: tx,
            answers: AtomicBool::new(false),
            replies: Mutex::default(),
            metrics: Metrics::new(),
            generation: watch::Sender::new(0),
            closed: watch::Sender::new(false),
            archive: Archive::default(),
            health: Health::default(),
        };
        (
            Hub {
                inner: Arc::new(inner),
            },
            rx,
        )
    }

    /// The hub's options.
    #[must_use]
    pub fn options(&self) -> &HubOptions {
        &self.inner.opts
    }

    /// What is up and what is down (`/healthz`, `/readyz`), written by the publisher.
    #[must_use]
    pub fn health(&self) -> &Health {
        &self.inner.health
    }

    /// The metrics registry shared by the hub, the HTTP side and the MQTT publisher.
    #[must_use]
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// The games recorded so far (`/api/games`).
    #[must_use]
    pub fn archive(&self) -> &Archive {
        &self.inner.archive
    }

    /// Publishes `update` for `match_id`, creating the match on first use.
    ///
    /// Events are numbered and fanned out in order, then the new state. Returns the last
    /// `seq` of each stream.
    ///
    /// # Errors
    ///
    /// [`PublishError::InvalidMatchId`] if `match_id` is not 1–64 of `A-Za-z0-9._-`; the
    /// update comes back in the error.
    pub fn publish(&self, match_id: &str, update: Update) -> Result<Published, PublishError> {
        if !valid_match_id(match_id) {
            return Err(PublishError::InvalidMatchId {
                id: match_id.to_owned(),
                update: Box::new(update),
            });
        }
        let entry = self.entry_or_create(match_id);
        let published = self.apply(&entry, update);
        self.inner.generation.send_modify(|g| *g += 1);
        Ok(published)
    }

    /// Continues the numbering of `match_id` after a restart, with the events an earlier
    /// run of the daemon published for it (re-derived from its record): `finished` (games
    /// over) are only counted; `current` (the game going on) are numbered and kept in the
    /// history, not fanned out to open streams: the MQTT publisher sends them again with
    /// the numbers they had (at least once, as after any reconnect) and a viewer resuming
    /// with `Last-Event-ID` catches up. So the next event gets the `seq` that run would
    /// have given it and subscribers that drop repeated `seq`s lose nothing. Numbers only
    /// go up: a match already further on keeps its own.
    ///
    /// # Errors
    ///
    /// [`PublishError::InvalidMatchId`], as for [`Hub::publish`] (with an empty update).
    pub fn resume(
        &self,
        match_id: &str,
        finished: &[Event],
        current: Vec<Event>,
    ) -> Result<Published, PublishError> {
        if !valid_match_id(match_id) {
            return Err(PublishError::InvalidMatchId {
                id: match_id.to_owned(),
                update: Box::default(),
            });
        }
        let alerts_public = self.inner.opts.alerts_public;
        let alerts = finished
            .iter()
            .filter(|e| e.kind == EventKind::Alert)
            .count() as u64;
        let public = finished.len() as u64 - if alerts_public { 0 } else { alerts };
        let entry = self.entry_or_create(match_id);
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        if data.seq > 0 || data.alert_seq > 0 {
            return Ok(Published {
                seq: data.seq,
                alert_seq: data.alert_seq,
            });
        }
        data.seq = public;
        data.alert_seq = alerts;
        let history = self.inner.opts.history;
        for mut event in current {
            if event.kind == EventKind::Alert {
                data.alert_seq += 1;
                event.seq = data.alert_seq;
                let json = to_json(&event);
                let item = Item {
                    seq: event.seq,
                    frame: sse_frame(Some(event.seq), Some("alert"), &json),
                    json,
                };
                push_bounded(&mut data.alerts, item, history);
                if !alerts_public {
                    continue;
                }
            }
            data.seq += 1;
            event.seq = data.seq;
            let json = to_json(&event);
            let item = Item {
                seq: event.seq,
                frame: sse_frame(Some(event.seq), None, &json),
                json,
            };
            push_bounded(&mut data.events, item, history);
        }
        data.state.seq = data.seq;
        data.state_item = state_item(&data.state);
        Ok(Published {
            seq: data.seq,
            alert_seq: data.alert_seq,
        })
    }

    fn entry_or_create(&self, match_id: &str) -> Arc<MatchEntry> {
        if let Some(entry) = self.entry(match_id) {
            return entry;
        }
        let mut matches = self
            .inner
            .matches
            .write()
            .unwrap_or_else(|e| e.into_inner());
        matches
            .entry(match_id.to_owned())
            .or_insert_with(|| {
                let mut state = MatchState {
                    v: SCHEMA_VERSION,
                    id: match_id.to_owned(),
                    ..MatchState::default()
                };
                state.seq = 0;
                let cap = self.inner.opts.fanout_capacity.max(1);
                Arc::new(MatchEntry {
                    id: match_id.to_owned(),
                    data: RwLock::new(MatchData {
                        state_item: state_item(&state),
                        state,
                        bpgn: Bytes::new(),
                        seq: 0,
                        alert_seq: 0,
                        version: 0,
                        events: VecDeque::new(),
                        alerts: VecDeque::new(),
                        status_frame: None,
                    }),
                    public: broadcast::channel(cap).0,
                    private: broadcast::channel(cap).0,
                })
            })
            .clone()
    }

    fn apply(&self, entry: &MatchEntry, update: Update) -> Published {
        let opts = &self.inner.opts;
        let metrics = &self.inner.metrics;
        let labels = Metrics::labels(&entry.id);
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        let mut batch = Vec::new();
        for mut event in update.events {
            if event.kind == EventKind::Alert {
                data.alert_seq += 1;
                event.seq = data.alert_seq;
                let code = event.code.clone().unwrap_or_default();
                let json = to_json(&event);
                let item = Item {
                    seq: event.seq,
                    frame: sse_frame(Some(event.seq), Some("alert"), &json),
                    json,
                };
                push_bounded(&mut data.alerts, item.clone(), opts.history);
                let _ = entry.private.send(Delivery::Alert(item));
                let mut alert_labels = labels.clone();
                alert_labels.push(("code".to_owned(), code));
                metrics.alerts.get_or_create(&alert_labels).inc();
                if event.code.as_deref() == Some("link-lost")
                    && let Some(b) = event.board
                {
                    let mut board_labels = labels.clone();
                    board_labels.push(("board".to_owned(), b.as_str().to_owned()));
                    metrics.link_outages.get_or_create(&board_labels).inc();
                }
                if !opts.alerts_public {
                    continue;
                }
            }
            data.seq += 1;
            event.seq = data.seq;
            match event.kind {
                EventKind::Move => {
                    metrics.moves.get_or_create(&labels).inc();
                }
                EventKind::Correction => {
                    metrics.corrections.get_or_create(&labels).inc();
                }
                EventKind::Alert | EventKind::End | EventKind::Action => {}
            }
            metrics.events.get_or_create(&labels).inc();
            let json = to_json(&event);
            let item = Item {
                seq: event.seq,
                frame: sse_frame(Some(event.seq), None, &json),
                json,
            };
            batch.extend_from_slice(&item.frame);
            push_bounded(&mut data.events, item, opts.history);
        }
        let mut state = update.state;
        state.v = SCHEMA_VERSION;
        state.id.clone_from(&entry.id);
        state.seq = data.seq;
        let connected = [&state.boards.A, &state.boards.B]
            .iter()
            .filter(|b| b.connected)
            .count();
        metrics
            .boards_connected
            .get_or_create(&labels)
            .set(i64::try_from(connected).unwrap_or(0));
        data.state_item = state_item(&state);
        data.state = state;
        data.bpgn = Bytes::from(update.bpgn);
        data.version += 1;
        batch.extend_from_slice(&data.state_item.frame);
        let _ = entry.public.send(Delivery::Batch(Bytes::from(batch)));
        let _ = entry.private.send(Delivery::State(data.state_item.clone()));
        Published {
            seq: data.seq,
            alert_seq: data.alert_seq,
        }
    }

    pub(crate) fn entry(&self, match_id: &str) -> Option<Arc<MatchEntry>> {
        self.inner
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .cloned()
    }

    pub(crate) fn entries(&self) -> Vec<Arc<MatchEntry>> {
        self.inner
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// The ids of the matches served, sorted.
    #[must_use]
    pub fn match_ids(&self) -> Vec<String> {
        self.entries().iter().map(|e| e.id.clone()).collect()
    }

    /// The latest state of `match_id`, if it is served.
    #[must_use]
    pub fn state(&self, match_id: &str) -> Option<MatchState> {
        let entry = self.entry(match_id)?;
        let data = entry.data.read().unwrap_or_else(|e| e.into_inner());
        Some(data.state.clone())
    }

    /// The BPGN of `match_id` so far, if it is served.
    #[must_use]
    pub fn bpgn(&self, match_id: &str) -> Option<String> {
        let entry = self.entry(match_id)?;
        let data = entry.data.read().unwrap_or_else(|e| e.into_inner());
        Some(String::from_utf8_lossy(&data.bpgn).into_owned())
    }

    /// One summary line per match served.
    #[must_use]
    pub fn summaries(&self) -> Vec<MatchSummary> {
        self.entries()
            .iter()
            .map(|entry| {
                let data = entry.data.read().unwrap_or_else(|e| e.into_inner());
                MatchSummary {
                    id: entry.id.clone(),
                    seq: data.seq,
                    bfen: data.state.bfen.clone(),
                    last_move: data.state.moves.last().cloned(),
                    result: data.state.result.clone(),
                    viewer: format!("/match/{}", entry.id),
                    api: format!("/api/matches/{}", entry.id),
                }
            })
            .collect()
    }

    /// Ends every open SSE stream and makes new ones end at once, so that the HTTP server's
    /// graceful shutdown can complete. Publishing still works (MQTT keeps going until its
    /// own shutdown). Idempotent.
    pub fn close(&self) {
        self.inner.closed.send_replace(true);
        self.inner.generation.send_modify(|g| *g += 1);
    }

    /// Whether [`Hub::close`] was called.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        *self.inner.closed.borrow()
    }

    pub(crate) fn closed_rx(&self) -> watch::Receiver<bool> {
        self.inner.closed.subscribe()
    }

    pub(crate) fn generation_rx(&self) -> watch::Receiver<u64> {
        self.inner.generation.subscribe()
    }

    pub(crate) fn action_sender(&self) -> &mpsc::Sender<OperatorAction> {
        &self.inner.actions
    }

    /// The receiver of actions promises to answer every action that has an id with
    /// [`Hub::answer`]. (A relay forwarding actions to a broker cannot: its requests are
    /// accepted without waiting.)
    pub fn answer_actions(&self) {
        self.inner.answers.store(true, Ordering::Release);
    }

    /// Answers the action `id`: applied, or refused with the field at fault.
    pub fn answer(&self, id: &str, outcome: ActionOutcome) {
        let waiting = self
            .inner
            .replies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        if let Some(tx) = waiting {
            // The request may have given up waiting: nothing to tell then.
            let _ = tx.send(outcome);
        }
    }

    /// Where the answer to action `id` will come, when the receiver answers actions.
    pub(crate) fn expect_answer(&self, id: &str) -> Option<oneshot::Receiver<ActionOutcome>> {
        if !self.inner.answers.load(Ordering::Acquire) {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        self.inner
            .replies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned(), tx);
        Some(rx)
    }

    /// Forgets the wait for action `id` (it was never sent).
    pub(crate) fn forget_answer(&self, id: &str) {
        self.inner
            .replies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }
}

/// A new subscription to a match's public stream and what its catch-up sends
/// ([`MatchEntry::subscribe_public`]).
pub(crate) struct PublicSubscription {
    pub(crate) rx: broadcast::Receiver<Delivery>,
    /// The state at the instant of the subscription.
    pub(crate) state: Item,
    /// Events already fanned out that the state does not count yet.
    pub(crate) ahead: Vec<Item>,
    /// The table's status frame (a relay's hub only).
    pub(crate) status: Option<Bytes>,
}

impl MatchEntry {
    /// Subscribes to the public stream and returns the state at that instant, atomically:
    /// everything received afterwards is newer than the snapshot. Also returns the events
    /// kept in history that are newer than that state: fanned out before the subscription,
    /// not counted in the state yet. A relay's hub has them between a mirrored event and
    /// the state that follows it (two MQTT messages); a viewer subscribing then would
    /// otherwise miss that event.
    /// With them, the table's status frame when the hub is a relay's.
    pub(crate) fn subscribe_public(&self) -> PublicSubscription {
        let data = self.data.read().unwrap_or_else(|e| e.into_inner());
        let state_seq = data.state.seq;
        let ahead = data
            .events
            .iter()
            .rev()
            .take_while(|i| i.seq > state_seq)
            .cloned()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        PublicSubscription {
            rx: self.public.subscribe(),
            state: data.state_item.clone(),
            ahead,
            status: data.status_frame.clone(),
        }
    }

    /// Like [`MatchEntry::subscribe_public`] for the alert stream; also returns the alert
    /// `seq` at that instant.
    pub(crate) fn subscribe_private(&self) -> (broadcast::Receiver<Delivery>, Item, u64) {
        let data = self.data.read().unwrap_or_else(|e| e.into_inner());
        (
            self.private.subscribe(),
            data.state_item.clone(),
            data.alert_seq,
        )
    }

    /// Events kept in history with `after < seq <= upto`.
    pub(crate) fn events_between(&self, after: u64, upto: u64) -> Vec<Item> {
        let data = self.data.read().unwrap_or_else(|e| e.into_inner());
        data.events
            .iter()
            .filter(|i| i.seq > after && i.seq <= upto)
            .cloned()
            .collect()
    }

    /// Alerts kept in history with `after < seq <= upto`.
    pub(crate) fn alerts_between(&self, after: u64, upto: u64) -> Vec<Item> {
        let data = self.data.read().unwrap_or_else(|e| e.into_inner());
        data.alerts
            .iter()
            .filter(|i| i.seq > after && i.seq <= upto)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: EventKind) -> Event {
        Event::new(kind, 0)
    }

    #[test]
    fn a_resumed_match_numbers_on_from_its_earlier_events() {
        let (hub, _actions) = Hub::new(HubOptions::default());
        let finished = [event(EventKind::Move), event(EventKind::Alert)];
        let current = vec![event(EventKind::Move), event(EventKind::Alert)];
        let resumed = hub.resume("t", &finished, current).expect("a valid id");
        assert_eq!((resumed.seq, resumed.alert_seq), (2, 2));
        assert_eq!(hub.state("t").map(|s| s.seq), Some(2));
        // The current game's events are kept for catching up, with their numbers.
        let entry = hub.entry("t").expect("the match");
        let kept: Vec<u64> = entry.events_between(0, 10).iter().map(|i| i.seq).collect();
        assert_eq!(kept, [2]);
        let next = hub
            .publish(
                "t",
                Update {
                    events: vec![event(EventKind::Move), event(EventKind::Alert)],
                    ..Update::default()
                },
            )
            .expect("a valid id");
        assert_eq!((next.seq, next.alert_seq), (3, 3));
        // Never backwards.
        assert_eq!(hub.resume("t", &[], Vec::new()).expect("a valid id").seq, 3);

        let (public, _actions) = Hub::new(HubOptions {
            alerts_public: true,
            ..HubOptions::default()
        });
        assert_eq!(
            public
                .resume("t", &finished, vec![event(EventKind::Alert)])
                .expect("a valid id")
                .seq,
            3
        );
    }
}
