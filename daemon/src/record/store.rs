//! Where a match's files live: `<dir>/<match>-<n>.trace.jsonl` (the journal) and
//! `<dir>/<match>-<n>.bpgn`, one pair per game played at the table, `n` counting from 1.

use std::io;
use std::path::{Path, PathBuf};

/// The files of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameFiles {
    /// The game's number at this table.
    pub number: u32,
    /// The journal (sensor trace).
    pub journal: PathBuf,
    /// The BPGN, rewritten after each move.
    pub bpgn: PathBuf,
}

/// A match's recording directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    match_id: String,
}

impl Store {
    /// The store of `match_id` in `dir` (created if missing).
    ///
    /// # Errors
    ///
    /// The directory cannot be created.
    pub fn open(dir: &Path, match_id: &str) -> io::Result<Store> {
        std::fs::create_dir_all(dir)?;
        Ok(Store {
            dir: dir.to_owned(),
            match_id: match_id.to_owned(),
        })
    }

    /// The files of game `number`.
    #[must_use]
    pub fn files(&self, number: u32) -> GameFiles {
        let stem = format!("{}-{number}", self.match_id);
        GameFiles {
            number,
            journal: self.dir.join(format!("{stem}.trace.jsonl")),
            bpgn: self.dir.join(format!("{stem}.bpgn")),
        }
    }

    /// The latest game that has a journal, if any.
    ///
    /// # Errors
    ///
    /// The directory cannot be read.
    pub fn latest(&self) -> io::Result<Option<GameFiles>> {
        let prefix = format!("{}-", self.match_id);
        let mut best: Option<u32> = None;
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(rest) = name.strip_prefix(&prefix) else {
                continue;
            };
            let Some(n) = rest.strip_suffix(".trace.jsonl") else {
                continue;
            };
            if let Ok(n) = n.parse::<u32>() {
                best = Some(best.map_or(n, |b| b.max(n)));
            }
        }
        Ok(best.map(|n| self.files(n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_game_is_the_highest_number() {
        let dir = std::env::temp_dir().join(format!("bugbridge-store-{}", std::process::id()));
        let store = Store::open(&dir, "table-1").unwrap();
        assert_eq!(store.latest().unwrap(), None);
        for n in [1, 2, 10] {
            std::fs::write(store.files(n).journal, "").unwrap();
        }
        std::fs::write(dir.join("table-11-99.trace.jsonl"), "").unwrap();
        assert_eq!(store.latest().unwrap().map(|g| g.number), Some(10));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
