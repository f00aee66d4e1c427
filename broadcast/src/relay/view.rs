//! One view of the tournament: a hub holding every match plus each table's `status`, and a
//! change feed for the tournament page. The relay keeps one live view (arbiters) and, with
//! `--delay`, a second one fed the same messages that many seconds later (the public).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::message::{ALERT_LOG_LEN, AlertLog, LoggedAlert, Message};
use crate::hub::{Hub, HubOptions, Mirrored};
use crate::wire::{BoardState, ByBoard, Clocks, Event, EventKind, MatchResult, MatchState};

/// How often the tournament page's streams get the changes ([`View::flush_changes`]).
pub const PAGE_FLUSH: Duration = Duration::from_millis(100);

/// How many alerts the console keeps (all tables together).
const CONSOLE_LOG: usize = 10_000;

/// One line of the arbiter console: an alert of one table and whether it was acknowledged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsoleAlert {
    /// The table's match id.
    #[serde(rename = "match")]
    pub match_id: String,
    /// Whether an arbiter acknowledged it.
    pub acked: bool,
    /// When a relay first received it (ms since the Unix epoch).
    #[serde(default)]
    pub at: u64,
    /// The alert as the table published it (`seq` is its alert sequence).
    #[serde(flatten)]
    pub alert: Event,
}

/// One table on the tournament page: `GET /api/tournament` and the tournament stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableSummary {
    /// The match id.
    pub id: String,
    /// `online`, `offline`, or `unknown` before the retained status arrived.
    pub status: String,
    /// `seq` of the last event.
    pub seq: u64,
    /// The full BFEN.
    pub bfen: String,
    /// Both boards (names, BFEN half, holdings, last move).
    pub boards: ByBoard<BoardState>,
    /// The four clocks.
    pub clocks: Clocks,
    /// How many moves were played.
    pub plies: usize,
    /// The BPGN tags (`Event`, `Round`, `Table`, players).
    pub tags: BTreeMap<String, String>,
    /// The result once the match has ended.
    #[serde(default)]
    pub result: Option<MatchResult>,
    /// Relative URL of the match's viewer.
    pub viewer: String,
}

/// What applying a message found out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Taken (or harmlessly ignored).
    Done,
    /// An event arrived after a hole in its `seq`: the match's retained state must be read
    /// again.
    Gap,
    /// The match's alert log holds alerts the broker's retained one may lack (a new alert,
    /// or a retained log older than this view's): it must be published again.
    AlertLog,
}

/// Now, in ms since the Unix epoch.
pub(super) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[derive(Debug)]
struct Inner {
    hub: Hub,
    status: RwLock<BTreeMap<String, bool>>,
    acks: RwLock<BTreeMap<String, BTreeSet<u64>>>,
    /// Every table's alerts in the order they arrived (bounded).
    log: RwLock<VecDeque<ConsoleAlert>>,
    /// The tables changed since the last [`View::flush_changes`].
    pending_changes: Mutex<BTreeSet<String>>,
    /// Each flush's frames as one buffer, shared by every page stream.
    changes: broadcast::Sender<Bytes>,
    console: broadcast::Sender<Bytes>,
}

/// A hub plus the tables' status; cheap to clone.
#[derive(Debug, Clone)]
pub struct View {
    inner: Arc<Inner>,
}

impl View {
    /// An empty view; `hub` is the hub it fills.
    #[must_use]
    pub fn new(hub: Hub) -> Self {
        View {
            inner: Arc::new(Inner {
                hub,
                status: RwLock::default(),
                acks: RwLock::default(),
                log: RwLock::default(),
                pending_changes: Mutex::default(),
                // A page stream further behind gets every table again (`tables`).
                changes: broadcast::channel(64).0,
                console: broadcast::channel(1024).0,
            }),
        }
    }

    /// An empty view with a fresh hub (its operator action channel is dropped: a delayed
    /// view takes no action).
    #[must_use]
    pub fn with_options(opts: HubOptions) -> Self {
        View::new(Hub::new(opts).0)
    }

    /// The hub behind the view.
    #[must_use]
    pub fn hub(&self) -> &Hub {
        &self.inner.hub
    }

    /// Applies one message of `match_id`.
    pub fn apply(&self, match_id: &str, message: Message) -> Applied {
        let hub = &self.inner.hub;
        let mut applied = Applied::Done;
        let changed = match message {
            Message::Status(online) => {
                let mut status = self.inner.status.write().unwrap_or_else(|e| e.into_inner());
                let before = status.insert(match_id.to_owned(), online);
                drop(status);
                if online && before == Some(false) {
                    // Back after being offline: a new daemon process, which numbers its
                    // events from 1 again.
                    hub.mirror_restart(match_id);
                }
                hub.mirror_status(match_id, online);
                before != Some(online)
            }
            Message::State(state) => {
                let taken = hub.mirror_state(match_id, *state);
                // The status may have come before the match's first state.
                if let Some(online) = self.online(match_id) {
                    hub.mirror_status(match_id, online);
                }
                taken
            }
            Message::Bpgn(bpgn) => {
                hub.mirror_bpgn(match_id, bpgn);
                false
            }
            Message::Event(event) => {
                let mirrored = hub.mirror_event(match_id, &event);
                if mirrored == Mirrored::Gap {
                    applied = Applied::Gap;
                }
                if event.kind == EventKind::Action
                    && matches!(mirrored, Mirrored::Applied | Mirrored::Gap)
                {
                    let json = serde_json::json!({
                        "match": match_id,
                        "action": event.action,
                        "code": event.code,
                        "t": event.t,
                    });
                    self.console_send("action", &json);
                }
                false
            }
            Message::Alert(alert) => {
                if matches!(
                    hub.mirror_alert(match_id, &alert),
                    Mirrored::Applied | Mirrored::Gap
                ) {
                    let line = ConsoleAlert {
                        match_id: match_id.to_owned(),
                        acked: self.is_acked(match_id, alert.seq),
                        at: self.arrival(),
                        alert,
                    };
                    self.console_send("alert", &line);
                    self.log_insert(line);
                    applied = Applied::AlertLog;
                }
                false
            }
            Message::AlertLog(alerts) => {
                if self.merge_alert_log(match_id, alerts) {
                    applied = Applied::AlertLog;
                }
                false
            }
            Message::Acks(seqs) => {
                let set: BTreeSet<u64> = seqs.into_iter().collect();
                let json = serde_json::json!({ "match": match_id, "acked": set });
                self.inner
                    .acks
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(match_id.to_owned(), set);
                self.console_send("acks", &json);
                false
            }
        };
        if changed && self.inner.changes.receiver_count() > 0 {
            self.inner
                .pending_changes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(match_id.to_owned());
        }
        applied
    }

    /// Sends the tournament page's streams the changes since the last flush, as one buffer
    /// of `event: table` frames (each table changed once, as it is now, serialised once for
    /// every stream). Called every [`PAGE_FLUSH`] by the relay: under load a page viewer
    /// gets one write per flush instead of one per change, and no stream copies or
    /// serialises anything of its own.
    pub fn flush_changes(&self) {
        let pending = std::mem::take(
            &mut *self
                .inner
                .pending_changes
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        if pending.is_empty() {
            return;
        }
        let mut batch = Vec::new();
        for id in &pending {
            let json = serde_json::to_vec(&self.summary(id)).unwrap_or_default();
            batch.extend_from_slice(&crate::hub::sse_frame(None, Some("table"), &json));
        }
        let _ = self.inner.changes.send(Bytes::from(batch));
    }

    /// When a live alert arrived, for the console's log: the wall clock, but later than
    /// every alert logged before, so that two alerts of one millisecond keep their order
    /// when a relay restarted from the retained logs puts them back by time.
    fn arrival(&self) -> u64 {
        let log = self.inner.log.read().unwrap_or_else(|e| e.into_inner());
        now_ms().max(log.back().map_or(0, |a| a.at + 1))
    }

    /// Puts `line` in the console's log in the order of `at` (bounded: the oldest goes).
    fn log_insert(&self, line: ConsoleAlert) {
        let mut log = self.inner.log.write().unwrap_or_else(|e| e.into_inner());
        let at = log
            .iter()
            .rposition(|a| a.at <= line.at)
            .map_or(0, |i| i + 1);
        log.insert(at, line);
        if log.len() > CONSOLE_LOG {
            log.pop_front();
        }
    }

    /// Takes the alerts of a match's retained log that this view has not seen (a relay
    /// started mid-round learns the alerts raised before it); `true` when this view holds
    /// alerts of the match that `alerts` lacks, so that its own log must be published.
    fn merge_alert_log(&self, match_id: &str, alerts: Vec<LoggedAlert>) -> bool {
        let known = |log: &VecDeque<ConsoleAlert>, alert: &Event| {
            log.iter()
                .any(|a| a.match_id == match_id && a.alert == *alert)
        };
        let added: Vec<&LoggedAlert> = {
            let log = self.inner.log.read().unwrap_or_else(|e| e.into_inner());
            alerts
                .iter()
                .filter(|logged| !known(&log, &logged.alert))
                .collect()
        };
        // The table's arbiter view first: the alerts of the table's current run (its daemon
        // numbers them from 1 again after a restart), in order. Then the console, so that
        // an alert seen there is in the table's view too.
        let run_start = added
            .windows(2)
            .rposition(|w| w[1].alert.seq <= w[0].alert.seq)
            .map_or(0, |i| i + 1);
        for logged in &added[run_start..] {
            self.inner.hub.mirror_alert(match_id, &logged.alert);
        }
        for logged in &added {
            let line = ConsoleAlert {
                match_id: match_id.to_owned(),
                acked: self.is_acked(match_id, logged.alert.seq),
                at: logged.at,
                alert: logged.alert.clone(),
            };
            self.console_send("alert", &line);
            self.log_insert(line);
        }
        self.alert_log(match_id)
            .alerts
            .iter()
            .any(|ours| !alerts.iter().any(|theirs| theirs.alert == ours.alert))
    }

    /// The match's alert log as relays publish it: its latest alerts, oldest first.
    #[must_use]
    pub fn alert_log(&self, match_id: &str) -> AlertLog {
        let log = self.inner.log.read().unwrap_or_else(|e| e.into_inner());
        let mut alerts: Vec<LoggedAlert> = log
            .iter()
            .rev()
            .filter(|a| a.match_id == match_id)
            .take(ALERT_LOG_LEN)
            .map(|a| LoggedAlert {
                at: a.at,
                alert: a.alert.clone(),
            })
            .collect();
        alerts.reverse();
        AlertLog { alerts }
    }

    fn console_send(&self, event: &str, value: &impl Serialize) {
        let json = serde_json::to_vec(value).unwrap_or_default();
        let _ = self
            .inner
            .console
            .send(crate::hub::sse_frame(None, Some(event), &json));
    }

    /// The arbiter console's feed: SSE frames `alert`, `action` (a table confirmed an
    /// operator action) and `acks` (a match's acknowledged alerts changed).
    #[must_use]
    pub fn console(&self) -> broadcast::Receiver<Bytes> {
        self.inner.console.subscribe()
    }

    /// Whether alert `seq` of `match_id` was acknowledged.
    #[must_use]
    pub fn is_acked(&self, match_id: &str, seq: u64) -> bool {
        self.inner
            .acks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .is_some_and(|s| s.contains(&seq))
    }

    /// Marks alert `seq` of `match_id` (un)acknowledged; returns the match's new list.
    pub fn set_acked(&self, match_id: &str, seq: u64, acked: bool) -> Vec<u64> {
        let mut acks = self.inner.acks.write().unwrap_or_else(|e| e.into_inner());
        let set = acks.entry(match_id.to_owned()).or_default();
        if acked {
            set.insert(seq);
        } else {
            set.remove(&seq);
        }
        set.iter().copied().collect()
    }

    /// Every table's alerts received since the relay started, newest first, or only those
    /// of `table`.
    #[must_use]
    pub fn console_alerts(&self, table: Option<&str>) -> Vec<ConsoleAlert> {
        let log = self.inner.log.read().unwrap_or_else(|e| e.into_inner());
        log.iter()
            .rev()
            .filter(|a| table.is_none_or(|t| t == a.match_id))
            .map(|a| ConsoleAlert {
                acked: self.is_acked(&a.match_id, a.alert.seq),
                ..a.clone()
            })
            .collect()
    }

    /// Whether the table's daemon is online (`None`: no status seen yet).
    #[must_use]
    pub fn online(&self, match_id: &str) -> Option<bool> {
        self.inner
            .status
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .copied()
    }

    /// The ids of the tables known: with a state, or with a status only.
    #[must_use]
    pub fn table_ids(&self) -> Vec<String> {
        let mut ids = self.inner.hub.match_ids();
        for id in self
            .inner
            .status
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
        {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids.sort();
        ids
    }

    /// The tournament page's line for `match_id`.
    #[must_use]
    pub fn summary(&self, match_id: &str) -> TableSummary {
        let state = self.inner.hub.state(match_id).unwrap_or_else(|| {
            // Known only by its status: no clock was read yet, none is shown.
            let mut state = MatchState::default();
            state.clocks.A.unread = true;
            state.clocks.B.unread = true;
            state
        });
        let status = match self.online(match_id) {
            Some(true) => "online",
            Some(false) => "offline",
            None => "unknown",
        };
        TableSummary {
            id: match_id.to_owned(),
            status: status.to_owned(),
            seq: state.seq,
            bfen: state.bfen,
            boards: state.boards,
            clocks: state.clocks,
            plies: state.moves.len(),
            tags: state.tags,
            result: state.result,
            viewer: format!("/match/{match_id}"),
        }
    }

    /// Every table's line, in `Table` order ([`table_order`](super::http::table_order):
    /// numeric `Table` tags by number, then other tags, then tables without one; the id
    /// breaks ties), as the page and the round BPGN show them.
    #[must_use]
    pub fn summaries(&self) -> Vec<TableSummary> {
        let mut list: Vec<TableSummary> =
            self.table_ids().iter().map(|id| self.summary(id)).collect();
        list.sort_by_key(super::http::table_order);
        list
    }

    /// The tables' lines as they change (state or status), as `event: table` SSE frames, a
    /// flush's worth in each buffer.
    #[must_use]
    pub fn changes(&self) -> broadcast::Receiver<Bytes> {
        self.inner.changes.subscribe()
    }
}
