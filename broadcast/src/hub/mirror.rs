//! Mirroring: a hub fed with what another process already published.
//!
//! The relay serves matches it does not compute: their events arrive from MQTT already
//! numbered, their state already complete. These methods store them as they are (`seq`
//! kept, never renumbered) and fan them out to the same SSE streams as [`Hub::publish`], so
//! the viewer, the API and the streams behave exactly as on the table's own daemon.

use bytes::Bytes;

use super::{Delivery, Hub, Item, push_bounded, sse_frame, state_item, to_json, valid_match_id};
use crate::metrics::Metrics;
use crate::wire::{Event, EventKind, MatchState};

/// What became of a mirrored event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mirrored {
    /// Stored and fanned out: it was the next of its stream.
    Applied,
    /// Already seen (a re-send after a reconnect): ignored.
    Duplicate,
    /// Stored and fanned out, but events before it are missing: the caller should re-read
    /// the match's state, which is the truth about what was missed.
    Gap,
    /// The match id cannot be served (not 1–64 of `A-Za-z0-9._-`): ignored.
    Refused,
}

impl Hub {
    /// Stores `state` as the latest state of `match_id` if it is not older than the one
    /// held (its `seq` is not below), and fans it out. Returns whether it was taken.
    pub fn mirror_state(&self, match_id: &str, mut state: MatchState) -> bool {
        if !valid_match_id(match_id) {
            return false;
        }
        let entry = self.entry_or_create(match_id);
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        if data.version > 0 && state.seq < data.state.seq {
            return false;
        }
        state.id.clone_from(&entry.id);
        // The first state of a match joined mid-game is where its events start; later, events
        // are counted by themselves (a state may overtake the events it counts: brokers only
        // keep the order within a topic).
        if data.seq == 0 && data.events.is_empty() {
            data.seq = state.seq;
        }
        let connected = [&state.boards.A, &state.boards.B]
            .iter()
            .filter(|b| b.connected)
            .count();
        self.metrics()
            .boards_connected
            .get_or_create(&Metrics::labels(&entry.id))
            .set(i64::try_from(connected).unwrap_or(0));
        data.state_item = state_item(&state);
        data.state = state;
        data.version += 1;
        let _ = entry
            .public
            .send(Delivery::Batch(data.state_item.frame.clone()));
        let _ = entry.private.send(Delivery::State(data.state_item.clone()));
        drop(data);
        self.inner.generation.send_modify(|g| *g += 1);
        true
    }

    /// Forgets the numbering of `match_id`'s streams (not its state, which stays shown): its
    /// publisher restarted, and a new process numbers its events and alerts from 1 again.
    /// The next state is taken whatever its `seq`.
    pub fn mirror_restart(&self, match_id: &str) {
        let Some(entry) = self.entry(match_id) else {
            return;
        };
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        data.seq = 0;
        data.alert_seq = 0;
        data.events.clear();
        data.alerts.clear();
        data.version = 0;
    }

    /// Tells the viewers of `match_id` whether its table's daemon is online (a relay knows
    /// it from the table's retained `status`): an SSE `status` message, `{"online": bool}`,
    /// on every change and after every catch-up, so that a viewer shows an offline table's
    /// clocks as last read instead of running them down. Only for a match already held.
    pub fn mirror_status(&self, match_id: &str, online: bool) {
        let Some(entry) = self.entry(match_id) else {
            return;
        };
        let json: &[u8] = if online {
            br#"{"online":true}"#
        } else {
            br#"{"online":false}"#
        };
        let frame = sse_frame(None, Some("status"), json);
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        if data.status_frame.as_ref() == Some(&frame) {
            return;
        }
        data.status_frame = Some(frame.clone());
        let _ = entry.public.send(Delivery::Batch(frame));
    }

    /// Stores the whole BPGN of `match_id` so far.
    pub fn mirror_bpgn(&self, match_id: &str, bpgn: String) {
        if !valid_match_id(match_id) {
            return;
        }
        let entry = self.entry_or_create(match_id);
        entry.data.write().unwrap_or_else(|e| e.into_inner()).bpgn = Bytes::from(bpgn);
    }

    /// Stores one event of the public stream with its own `seq` and fans it out.
    pub fn mirror_event(&self, match_id: &str, event: &Event) -> Mirrored {
        if !valid_match_id(match_id) {
            return Mirrored::Refused;
        }
        let entry = self.entry_or_create(match_id);
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        if event.seq <= data.seq {
            return Mirrored::Duplicate;
        }
        let outcome = if event.seq == data.seq + 1 {
            Mirrored::Applied
        } else {
            Mirrored::Gap
        };
        data.seq = event.seq;
        let labels = Metrics::labels(&entry.id);
        let metrics = self.metrics();
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
        let json = to_json(event);
        let item = Item {
            seq: event.seq,
            frame: sse_frame(Some(event.seq), None, &json),
            json,
        };
        let _ = entry.public.send(Delivery::Batch(item.frame.clone()));
        let cap = self.inner.opts.history;
        push_bounded(&mut data.events, item, cap);
        outcome
    }

    /// Stores one alert (its own `seq`) and fans it out to the arbiter streams.
    pub fn mirror_alert(&self, match_id: &str, event: &Event) -> Mirrored {
        if !valid_match_id(match_id) {
            return Mirrored::Refused;
        }
        let entry = self.entry_or_create(match_id);
        let mut data = entry.data.write().unwrap_or_else(|e| e.into_inner());
        if event.seq <= data.alert_seq {
            return Mirrored::Duplicate;
        }
        let outcome = if event.seq == data.alert_seq + 1 {
            Mirrored::Applied
        } else {
            Mirrored::Gap
        };
        data.alert_seq = event.seq;
        let mut labels = Metrics::labels(&entry.id);
        labels.push(("code".to_owned(), event.code.clone().unwrap_or_default()));
        self.metrics().alerts.get_or_create(&labels).inc();
        let json = to_json(event);
        let item = Item {
            seq: event.seq,
            frame: sse_frame(Some(event.seq), Some("alert"), &json),
            json,
        };
        let _ = entry.private.send(Delivery::Alert(item.clone()));
        let cap = self.inner.opts.history;
        push_bounded(&mut data.alerts, item, cap);
        outcome
    }

    /// The alerts of `match_id` kept in history, oldest first.
    #[must_use]
    pub fn alerts(&self, match_id: &str) -> Vec<Event> {
        let Some(entry) = self.entry(match_id) else {
            return Vec::new();
        };
        let data = entry.data.read().unwrap_or_else(|e| e.into_inner());
        data.alerts
            .iter()
            .filter_map(|item| serde_json::from_slice(&item.json).ok())
            .collect()
    }
}
