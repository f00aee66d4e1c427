//! The games this daemon has recorded, served read-only: `GET /api/games`, one game's
//! positions, its BPGN.
//!
//! The daemon hands over each finished game as a [`GameRecord`] (every position computed by
//! its rules core) with the BPGN text of its file; this module only keeps them, serialised
//! once, and answers lookups. At most [`Archive::CAPACITY`] games are kept, the oldest
//! added leaving first, so a daemon running for months stays small.

use std::collections::BTreeMap;
use std::sync::RwLock;

use bytes::Bytes;

use crate::wire::{GameRecord, GameSummary};

/// One game kept: its list line, its JSON and its BPGN.
#[derive(Debug, Clone)]
pub(crate) struct ArchivedGame {
    pub(crate) summary: GameSummary,
    pub(crate) json: Bytes,
    pub(crate) bpgn: Bytes,
    /// Order of addition, for dropping the oldest.
    added: u64,
}

#[derive(Debug, Default)]
struct Games {
    by_key: BTreeMap<(String, u32), ArchivedGame>,
    next: u64,
}

/// The recorded games served; owned by the [`Hub`](crate::Hub).
#[derive(Debug, Default)]
pub struct Archive {
    games: RwLock<Games>,
}

/// The relative URLs of game `number` of `match_id`: viewer page, JSON, BPGN.
fn urls(match_id: &str, number: u32) -> (String, String, String) {
    (
        format!("/games/{match_id}/{number}"),
        format!("/api/games/{match_id}/{number}"),
        format!("/api/games/{match_id}/{number}/bpgn"),
    )
}

impl Archive {
    /// How many games are kept at most.
    pub const CAPACITY: usize = 1000;

    /// Adds game `record` (or replaces the game of the same match and number, e.g. after a
    /// correction) with the text of its BPGN file. The URLs of its summary are set here.
    pub fn add(&self, mut record: GameRecord, bpgn: String) {
        let s = &mut record.summary;
        (s.viewer, s.api, s.bpgn) = urls(&s.match_id, s.number);
        let key = (s.match_id.clone(), s.number);
        // The wire types hold only strings, numbers and string-keyed maps: serialising them
        // cannot fail.
        let json = Bytes::from(serde_json::to_vec(&record).unwrap_or_default());
        let mut games = self.games.write().unwrap_or_else(|e| e.into_inner());
        let added = games.next;
        games.next += 1;
        games.by_key.insert(
            key,
            ArchivedGame {
                summary: record.summary,
                json,
                bpgn: Bytes::from(bpgn),
                added,
            },
        );
        while games.by_key.len() > Self::CAPACITY {
            let oldest = games
                .by_key
                .iter()
                .min_by_key(|(_, g)| g.added)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => games.by_key.remove(&k),
                None => break,
            };
        }
    }

    /// Every game kept, by match id then game number.
    #[must_use]
    pub fn list(&self) -> Vec<GameSummary> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games.by_key.values().map(|g| g.summary.clone()).collect()
    }

    /// Game `number` of `match_id`, if kept.
    pub(crate) fn get(&self, match_id: &str, number: u32) -> Option<ArchivedGame> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games.by_key.get(&(match_id.to_owned(), number)).cloned()
    }
}
