//! [`OccupancyInference`]: every reading of the occupancy that still explains it.
//!
//! A capture whose capturer was set straight onto its victim shows only its origin
//! emptying; when the piece there could take on several squares, occupancy cannot tell
//! which. Each is then a reading of its own (a [`World`]), played on as the boards go on:
//! a reading that stalls, or that no longer explains a board while another does (it falls
//! two moves behind there), is given up. The moves every reading agrees on are final; what
//! they disagree on waits until one reading is left, or the input ends, when what they
//! still disagree on is flagged (the kinds they name, the squares a capture may have taken
//! on), never guessed.

use crate::rules::{BoardId, BughouseGame, ByBoard, Color, Move, Role, Ruleset, Square};

use super::{KindNote, OccupancyMove, Resolution, World};

/// At most so many readings are followed; a capture that would make more stalls its board.
const MAX_READINGS: usize = 8;

/// A reading that cannot explain a board for so many of its snapshots in a row, while
/// another explains it, is given up (a hand holding a piece is one or two).
const STUCK: u32 = 3;

/// A reading: the world and what it decided that is not handed on yet.
#[derive(Debug, Clone)]
struct Reading {
    world: World,
    held: Vec<OccupancyMove>,
    resolved: Vec<Resolution>,
    /// How many snapshots in a row each board has shown what this reading cannot explain.
    stuck: ByBoard<u32>,
}

impl Reading {
    fn stalled_boards(&self) -> usize {
        BoardId::ALL
            .into_iter()
            .filter(|&b| self.world.stalled(b).is_some())
            .count()
    }

    /// What tells two readings apart (equal keys: the same reading reached twice).
    fn key(&self) -> String {
        let w = &self.world;
        format!(
            "{:?}{:?}{:?}{:?}{:?}",
            w.game.board(BoardId::A),
            w.game.board(BoardId::B),
            w.watch[BoardId::A].open,
            w.watch[BoardId::B].open,
            self.held
        )
    }
}

/// The occupancy inference of a table.
#[derive(Debug, Clone)]
pub struct OccupancyInference {
    readings: Vec<Reading>,
    resolved: Vec<Resolution>,
}

impl OccupancyInference {
    /// Both boards in the start position.
    #[must_use]
    pub fn new(rules: Ruleset) -> Self {
        OccupancyInference::from_game(BughouseGame::new(rules), rules)
    }

    /// From a game in progress (a set-up position, a restart).
    #[must_use]
    pub fn from_game(game: BughouseGame, rules: Ruleset) -> Self {
        OccupancyInference {
            readings: vec![Reading {
                world: World::from_game(game, rules),
                held: Vec::new(),
                resolved: Vec::new(),
                stuck: ByBoard::default(),
            }],
            resolved: Vec::new(),
        }
    }

    /// The game as decided so far (open moves not included; of the first reading when
    /// several are followed).
    #[must_use]
    pub fn game(&self) -> &BughouseGame {
        self.readings[0].world.game()
    }

    /// Why `board` is stalled, when it is (in every reading): nothing more is decided there
    /// (the arbiter must enter the moves).
    #[must_use]
    pub fn stalled(&self, board: BoardId) -> Option<&str> {
        if self
            .readings
            .iter()
            .all(|r| r.world.stalled(board).is_some())
        {
            self.readings[0].world.stalled(board)
        } else {
            None
        }
    }

    /// What `board` shows that no move explains (squares emptied, squares filled since its
    /// last final move), when no reading explains it.
    #[must_use]
    pub fn waiting(&self, board: BoardId) -> Option<(Vec<Square>, Vec<Square>)> {
        let mut it = self.readings.iter().map(|r| r.world.waiting(board));
        let first = it.next()??;
        it.all(|w| w.is_some()).then_some(first)
    }

    /// Kinds settled by later moves since the last call.
    pub fn take_resolutions(&mut self) -> Vec<Resolution> {
        std::mem::take(&mut self.resolved)
    }

    /// The side to move on `board` (as decided so far).
    #[must_use]
    pub fn turn(&self, board: BoardId) -> Color {
        self.readings[0].world.turn(board)
    }

    /// A snapshot of `board` at `t` (bit = square index, a1 = bit 0). Returns the moves
    /// that became final.
    pub fn feed(&mut self, board: BoardId, t: u64, occ: u64) -> Vec<OccupancyMove> {
        self.step(|w| w.feed(board, t, occ));
        for r in &mut self.readings {
            r.stuck[board] = if r.world.waiting(board).is_some() {
                r.stuck[board] + 1
            } else {
                0
            };
        }
        self.prune();
        self.hand_on(false)
    }

    /// The end of the input: open moves become final, and what the readings still
    /// disagree on is flagged or left out.
    pub fn finish(&mut self) -> Vec<OccupancyMove> {
        self.step(World::finish);
        self.prune();
        let mut out = self.hand_on(true);
        out.sort_by_key(|m| m.t);
        out
    }

    /// Runs `f` in every reading; a capture of several targets that became final makes a
    /// reading of each other target (the state before `f`, the capture taken as that one,
    /// `f` again).
    fn step(&mut self, f: impl Fn(&mut World) -> Vec<OccupancyMove>) {
        let mut next: Vec<Reading> = Vec::new();
        let total = self.readings.len();
        for mut r in std::mem::take(&mut self.readings) {
            let before = r.world.fork_open().then(|| r.clone());
            r.held.extend(f(&mut r.world));
            r.resolved.extend(r.world.take_resolutions());
            let fork = r.world.take_fork();
            if let (Some((board, t, others)), Some(before)) = (fork, before) {
                if total + next.len() + others.len() >= MAX_READINGS {
                    give_up(&mut r, board, t, &others);
                    next.push(r);
                    continue;
                }
                next.push(r);
                for target in others {
                    let mut alt = before.clone();
                    if !alt.world.force_open(board, target) {
                        continue;
                    }
                    alt.held.extend(f(&mut alt.world));
                    alt.resolved.extend(alt.world.take_resolutions());
                    if let Some((b, t, others)) = alt.world.take_fork() {
                        give_up(&mut alt, b, t, &others);
                    }
                    next.push(alt);
                }
            } else {
                next.push(r);
            }
        }
        self.readings = next;
        self.dedup();
        if std::env::var("OCC_TRACE").is_ok() {
            for r in &self.readings {
                eprintln!("  reading: held {:?} open {:?}/{:?} wait {:?}/{:?} stalled {:?}/{:?}", r.held.iter().map(|m| format!("{}{:?}", m.board, m.mv)).collect::<Vec<_>>(), r.world.watch[BoardId::A].open.as_ref().map(|o| o.0), r.world.watch[BoardId::B].open.as_ref().map(|o| o.0), r.world.waiting(BoardId::A), r.world.waiting(BoardId::B), r.world.stalled(BoardId::A), r.world.stalled(BoardId::B));
            }
        }
    }

    /// Gives up the readings that explain less: those with more stalled boards than
    /// another, those that could not explain a board for [`STUCK`] snapshots in a row while
    /// another explains it, and repeats.
    fn prune(&mut self) {
        if self.readings.len() < 2 {
            return;
        }
        let fewest = self
            .readings
            .iter()
            .map(Reading::stalled_boards)
            .min()
            .unwrap_or(0);
        self.readings.retain(|r| r.stalled_boards() == fewest);
        for b in BoardId::ALL {
            if self.readings.iter().any(|r| r.stuck[b] == 0) {
                self.readings.retain(|r| r.stuck[b] < STUCK);
            }
        }
        self.dedup();
    }

    fn dedup(&mut self) {
        let mut seen = std::collections::HashSet::new();
        self.readings.retain(|r| seen.insert(r.key()));
    }

    /// The moves every reading agrees on (all of them when one is left), and the
    /// resolutions of a reading left alone. At the end (`last`), what the readings
    /// disagree on is merged where their squares agree and flagged.
    fn hand_on(&mut self, last: bool) -> Vec<OccupancyMove> {
        let mut out = Vec::new();
        if self.readings.len() == 1 {
            let r = &mut self.readings[0];
            out.append(&mut r.held);
            self.resolved.append(&mut r.resolved);
            return out;
        }
        for b in BoardId::ALL {
            let lists: Vec<Vec<OccupancyMove>> = self
                .readings
                .iter()
                .map(|r| r.held.iter().filter(|m| m.board == b).cloned().collect())
                .collect();
            let shortest = lists.iter().map(Vec::len).min().unwrap_or(0);
            let mut agreed = 0;
            while agreed < shortest && lists.iter().all(|l| l[agreed] == lists[0][agreed]) {
                agreed += 1;
            }
            out.extend(lists[0][..agreed].iter().cloned());
            if last {
                for i in agreed..shortest {
                    let column: Vec<&OccupancyMove> = lists.iter().map(|l| &l[i]).collect();
                    match merged(&column) {
                        Some((m, go_on)) => {
                            out.push(m);
                            if !go_on {
                                break;
                            }
                        }
                        None => break,
                    }
                }
                continue;
            }
            for r in &mut self.readings {
                let mut dropped = 0;
                r.held.retain(|m| {
                    if m.board == b && dropped < agreed {
                        dropped += 1;
                        false
                    } else {
                        true
                    }
                });
            }
        }
        if last {
            for r in &mut self.readings {
                r.held.clear();
            }
        }
        out.sort_by_key(|m| m.t);
        out
    }
}

/// A capture of several targets that would make too many readings: flagged with every
/// target, and its board stalls in this reading.
fn give_up(r: &mut Reading, board: BoardId, t: u64, others: &[Square]) {
    if let Some(m) = r
        .held
        .iter_mut()
        .rev()
        .find(|m| m.board == board && m.t == t)
    {
        let mut targets: Vec<Square> = others.to_vec();
        targets.push(m.mv.to());
        targets.sort();
        targets.dedup();
        m.note = KindNote::CaptureOpen { targets };
        let from = m.mv.from();
        r.world.stalled[board] = Some(format!(
            "board {board}: the piece from {} was set onto one of several pieces it may take, and too many readings are open to follow it",
            from.map_or_else(String::new, |s| s.to_string())
        ));
    }
}

/// The move the readings disagree on as one flagged move, when they agree on its squares
/// (kinds merged); whether the board's later moves may still be merged. Moves of other
/// squares: none (the board stops there: which reading is true is not known, and the
/// truth may be none of them).
fn merged(column: &[&OccupancyMove]) -> Option<(OccupancyMove, bool)> {
    let first = column[0];
    let squares = |m: &OccupancyMove| (m.mv.from(), m.mv.to());
    if column.iter().all(|m| squares(m) == squares(first)) {
        let mut choices: Vec<Role> = Vec::new();
        for m in column {
            match (&m.note, m.mv) {
                (
                    KindNote::DropUndetermined { choices: c }
                    | KindNote::PieceOpen { choices: c }
                    | KindNote::PromotionAssumed { choices: c },
                    _,
                ) => choices.extend(c),
                (_, Move::Drop { piece, .. }) => choices.push(piece.role),
                (
                    _,
                    Move::Normal {
                        promotion: Some(p), ..
                    },
                ) => choices.push(p),
                (_, Move::Normal { role, .. }) => choices.push(role),
                _ => {}
            }
        }
        choices.sort();
        choices.dedup();
        let note = if choices.len() < 2 {
            first.note.clone()
        } else {
            match first.mv {
                Move::Drop { .. } => KindNote::DropUndetermined { choices },
                Move::Normal {
                    promotion: Some(_), ..
                } => KindNote::PromotionAssumed { choices },
                _ => KindNote::PieceOpen { choices },
            }
        };
        return Some((
            OccupancyMove {
                note,
                ..first.clone()
            },
            true,
        ));
    }
    None
}
