//! One view of the tournament: a hub holding every match plus each table's `status`, and a
//! change feed for the tournament page. The relay keeps one live view (arbiters) and, with
//! `--delay`, a second one fed the same messages that many seconds later (the public).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::message::Message;
use crate::hub::{Hub, HubOptions, Mirrored};
use crate::wire::{BoardState, ByBoard, Clocks, MatchResult};

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
}

#[derive(Debug)]
struct Inner {
    hub: Hub,
    status: RwLock<BTreeMap<String, bool>>,
    changes: broadcast::Sender<String>,
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
                changes: broadcast::channel(1024).0,
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
                status.insert(match_id.to_owned(), online) != Some(online)
            }
            Message::State(state) => hub.mirror_state(match_id, *state),
            Message::Bpgn(bpgn) => {
                hub.mirror_bpgn(match_id, bpgn);
                false
            }
            Message::Event(event) => {
                if hub.mirror_event(match_id, &event) == Mirrored::Gap {
                    applied = Applied::Gap;
                }
                false
            }
            Message::Alert(alert) => {
                hub.mirror_alert(match_id, &alert);
                false
            }
        };
        if changed {
            let _ = self.inner.changes.send(match_id.to_owned());
        }
        applied
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
        let state = self.inner.hub.state(match_id).unwrap_or_default();
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

    /// Every table's line, sorted by id (the page groups and orders them by their tags).
    #[must_use]
    pub fn summaries(&self) -> Vec<TableSummary> {
        self.table_ids().iter().map(|id| self.summary(id)).collect()
    }

    /// The ids of tables as they change (state or status).
    #[must_use]
    pub fn changes(&self) -> broadcast::Receiver<String> {
        self.inner.changes.subscribe()
    }
}
