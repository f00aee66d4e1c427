//! The messages of the delayed (public) view, held until they are due.
//!
//! Every move makes a table publish its whole `state` (with every move so far) and its
//! whole `bpgn`: holding each one for the delay would keep the same moves over and over,
//! growing with the square of the game's length times the number of tables. Instead each
//! match keeps a few *bases* (a full move list, a full BPGN text) and every held message
//! refers to one: the part it shares with the base (a prefix) plus its own short tail. A
//! message that shares too little, or whose tail would grow long, starts a new base; bases
//! no held message refers to any more are dropped, and a match with nothing held keeps
//! nothing. What a message becomes when it is due is exactly what arrived.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use tokio::time::Instant;

use super::message::Message;
use crate::wire::{MatchState, MoveEntry};

/// A sequence held in pieces: a move list or a text.
trait Sequence: Default {
    /// Its length (moves, or bytes).
    fn len(&self) -> usize;
    /// How many leading items it shares with `other` (a char boundary for text).
    fn common_prefix(&self, other: &Self) -> usize;
    /// Items `from..` of itself, as a new sequence.
    fn tail(&self, from: usize) -> Self;
    /// `self[..keep]` followed by `tail`.
    fn joined(&self, keep: usize, tail: &Self) -> Self;
    /// Appends `other[from..]`.
    fn extend_from(&mut self, other: &Self, from: usize);
    /// The longest tail a held message may carry before it starts a new base.
    const LONGEST_TAIL: usize;
}

impl Sequence for Vec<MoveEntry> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn common_prefix(&self, other: &Self) -> usize {
        self.iter().zip(other).take_while(|(a, b)| a == b).count()
    }
    fn tail(&self, from: usize) -> Self {
        self[from..].to_vec()
    }
    fn joined(&self, keep: usize, tail: &Self) -> Self {
        let mut out = Vec::with_capacity(keep + tail.len());
        out.extend_from_slice(&self[..keep]);
        out.extend_from_slice(tail);
        out
    }
    fn extend_from(&mut self, other: &Self, from: usize) {
        self.extend_from_slice(&other[from..]);
    }
    const LONGEST_TAIL: usize = 16;
}

impl Sequence for String {
    fn len(&self) -> usize {
        str::len(self)
    }
    fn common_prefix(&self, other: &Self) -> usize {
        let mut n = self
            .bytes()
            .zip(other.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !(self.is_char_boundary(n) && other.is_char_boundary(n)) {
            n -= 1;
        }
        n
    }
    fn tail(&self, from: usize) -> Self {
        self[from..].to_owned()
    }
    fn joined(&self, keep: usize, tail: &Self) -> Self {
        let mut out = String::with_capacity(keep + tail.len());
        out.push_str(&self[..keep]);
        out.push_str(tail);
        out
    }
    fn extend_from(&mut self, other: &Self, from: usize) {
        self.push_str(&other[from..]);
    }
    const LONGEST_TAIL: usize = 512;
}

/// A held sequence: `base[..keep]` of the timeline's base `base`, then `tail`.
#[derive(Debug)]
struct Shared<T> {
    base: u64,
    keep: usize,
    tail: T,
}

/// One match's bases of one kind, oldest first, each with its id.
#[derive(Debug)]
struct Timeline<T> {
    bases: VecDeque<(u64, T)>,
    next: u64,
}

impl<T> Default for Timeline<T> {
    fn default() -> Self {
        Timeline {
            bases: VecDeque::new(),
            next: 0,
        }
    }
}

impl<T: Sequence> Timeline<T> {
    /// Holds `new`: as a reference into the newest base when they share enough, else as a
    /// new base.
    fn hold(&mut self, new: T) -> Shared<T> {
        if let Some((id, base)) = self.bases.back_mut() {
            let common = base.common_prefix(&new);
            if common == base.len() {
                // The base is a prefix of it (the usual case: moves were added): the base
                // grows, which changes nothing of what is held.
                base.extend_from(&new, common);
                return Shared {
                    base: *id,
                    keep: new.len(),
                    tail: T::default(),
                };
            }
            let tail = new.len() - common;
            if tail <= T::LONGEST_TAIL && common >= tail {
                return Shared {
                    base: *id,
                    keep: common,
                    tail: new.tail(common),
                };
            }
        }
        let id = self.next;
        self.next += 1;
        let keep = new.len();
        self.bases.push_back((id, new));
        Shared {
            base: id,
            keep,
            tail: T::default(),
        }
    }

    /// What `held` stands for; the bases older than its own are dropped (held messages of
    /// one match come due in the order they were held, so none refers to them any more).
    fn release(&mut self, held: &Shared<T>) -> T {
        while self.bases.front().is_some_and(|(id, _)| *id < held.base) {
            self.bases.pop_front();
        }
        match self.bases.front() {
            Some((id, base)) if *id == held.base => base.joined(held.keep, &held.tail),
            // Unreachable: a base is dropped only once nothing refers to it.
            _ => held.tail.tail(0),
        }
    }

    fn size(&self) -> usize {
        self.bases.iter().map(|(_, b)| b.len()).sum()
    }
}

/// A message as held: small ones as they are, states and BPGNs by reference.
#[derive(Debug)]
enum Held {
    Whole(Box<Message>),
    /// A state without its moves, and its moves.
    State(Box<MatchState>, Shared<Vec<MoveEntry>>),
    Bpgn(Shared<String>),
}

/// One match's bases and how many of its messages are held.
#[derive(Debug, Default)]
struct MatchBases {
    moves: Timeline<Vec<MoveEntry>>,
    bpgn: Timeline<String>,
    held: usize,
}

/// How much a [`DelayBuffer`] holds, for its tests and metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeldSize {
    /// Messages waiting.
    pub messages: usize,
    /// Moves held, in bases and tails.
    pub moves: usize,
    /// BPGN bytes held, in bases and tails.
    pub bpgn_bytes: usize,
}

/// The messages of every match waiting for their due time, first due first.
#[derive(Debug, Default)]
pub struct DelayBuffer {
    queue: VecDeque<(Instant, Arc<str>, Held)>,
    matches: HashMap<Arc<str>, MatchBases>,
}

impl DelayBuffer {
    /// Holds `message` of `match_id` until `due` (not earlier than any held before it).
    pub fn push(&mut self, due: Instant, match_id: &str, message: Message) {
        let id: Arc<str> = match self.matches.get_key_value(match_id) {
            Some((id, _)) => Arc::clone(id),
            None => Arc::from(match_id),
        };
        let bases = self.matches.entry(Arc::clone(&id)).or_default();
        bases.held += 1;
        let held = match message {
            Message::State(mut state) => {
                let moves = bases.moves.hold(std::mem::take(&mut state.moves));
                Held::State(state, moves)
            }
            Message::Bpgn(text) => Held::Bpgn(bases.bpgn.hold(text)),
            other => Held::Whole(Box::new(other)),
        };
        self.queue.push_back((due, id, held));
    }

    /// When the first held message is due.
    #[must_use]
    pub fn next_due(&self) -> Option<Instant> {
        self.queue.front().map(|(due, _, _)| *due)
    }

    /// Takes every message due at `now`, in the order they were held.
    pub fn pop_due(&mut self, now: Instant) -> Vec<(Arc<str>, Message)> {
        let mut out = Vec::new();
        while self.queue.front().is_some_and(|(due, _, _)| *due <= now) {
            let Some((_, id, held)) = self.queue.pop_front() else {
                break;
            };
            let Some(bases) = self.matches.get_mut(&id) else {
                continue;
            };
            let message = match held {
                Held::Whole(m) => *m,
                Held::State(mut state, moves) => {
                    state.moves = bases.moves.release(&moves);
                    Message::State(state)
                }
                Held::Bpgn(text) => Message::Bpgn(bases.bpgn.release(&text)),
            };
            bases.held -= 1;
            if bases.held == 0 {
                self.matches.remove(&id);
            }
            out.push((id, message));
        }
        out
    }

    /// How much is held.
    #[must_use]
    pub fn held(&self) -> HeldSize {
        let mut size = HeldSize {
            messages: self.queue.len(),
            ..HeldSize::default()
        };
        for bases in self.matches.values() {
            size.moves += bases.moves.size();
            size.bpgn_bytes += bases.bpgn.size();
        }
        for (_, _, held) in &self.queue {
            match held {
                Held::State(_, moves) => size.moves += moves.tail.len(),
                Held::Bpgn(text) => size.bpgn_bytes += text.tail.len(),
                Held::Whole(_) => {}
            }
        }
        size
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::wire::{Board, Event, Side};

    fn entry(n: usize) -> MoveEntry {
        MoveEntry {
            board: if n.is_multiple_of(2) {
                Board::A
            } else {
                Board::B
            },
            side: if (n / 2).is_multiple_of(2) {
                Side::White
            } else {
                Side::Black
            },
            number: u32::try_from(n / 4 + 1).unwrap_or(u32::MAX),
            san: format!("N{n}"),
            clock: Some(180.0 - n as f64 / 10.0),
            flags: Vec::new(),
        }
    }

    /// What a table publishes after each of `plies` moves: the event, the state (every
    /// move so far) and the BPGN (every move so far, then `*`); one correction at ply 30
    /// (the last move replaced), the result in the header at the end.
    fn game(plies: usize) -> Vec<Message> {
        let mut out = Vec::new();
        let mut moves: Vec<MoveEntry> = Vec::new();
        for n in 0..plies {
            if n == 30 {
                moves.pop();
                let mut fixed = entry(n);
                fixed.san = "Qh5".to_owned();
                moves.push(fixed);
            }
            moves.push(entry(n));
            let seq = u64::try_from(n + 1).unwrap_or(u64::MAX);
            let event: Event =
                serde_json::from_value(serde_json::json!({"seq": seq, "t": n, "kind": "move"}))
                    .unwrap_or_else(|e| panic!("an event: {e}"));
            out.push(Message::Event(event));
            out.push(Message::State(Box::new(MatchState {
                seq,
                bfen: format!("bfen-{n}"),
                moves: moves.clone(),
                ..MatchState::default()
            })));
            let result = if n + 1 == plies { "1-0" } else { "*" };
            let movetext: Vec<String> = moves
                .iter()
                .map(|m| format!("{}. {} {{{:.1}}}", m.number, m.san, m.clock.unwrap_or(0.0)))
                .collect();
            out.push(Message::Bpgn(format!(
                "[Event \"Open\"]\n[Result \"{result}\"]\n\n{} {result}\n",
                movetext.join(" ")
            )));
        }
        out
    }

    #[test]
    fn every_message_comes_out_as_it_went_in_in_order() {
        let messages = game(120);
        let start = Instant::now();
        let mut buffer = DelayBuffer::default();
        for (i, m) in messages.iter().enumerate() {
            let id = if i % 3 == 0 { "t1" } else { "t2" };
            let due = start + Duration::from_millis(u64::try_from(i).unwrap_or(0));
            buffer.push(due, id, m.clone());
        }
        assert!(buffer.pop_due(start - Duration::from_millis(1)).is_empty());
        let mut out = Vec::new();
        while let Some(due) = buffer.next_due() {
            out.extend(buffer.pop_due(due));
        }
        let got: Vec<Message> = out.into_iter().map(|(_, m)| m).collect();
        assert_eq!(got, messages);
        assert_eq!(buffer.held(), HeldSize::default(), "nothing kept after");
    }

    #[test]
    fn a_long_game_held_whole_costs_about_one_copy_not_one_per_move() {
        let plies = 400;
        let messages = game(plies);
        let naive_moves: usize = (1..=plies).sum();
        let naive_bpgn: usize = messages
            .iter()
            .map(|m| match m {
                Message::Bpgn(t) => t.len(),
                _ => 0,
            })
            .sum();
        let last_bpgn = match messages.last() {
            Some(Message::Bpgn(t)) => t.len(),
            _ => 0,
        };
        let due = Instant::now() + Duration::from_secs(3600);
        let mut buffer = DelayBuffer::default();
        for m in messages {
            buffer.push(due, "t1", m);
        }
        let held = buffer.held();
        assert_eq!(held.messages, plies * 3);
        // One growing base plus the corrected tails, against 80,200 moves held one by one.
        assert!(
            held.moves <= 2 * plies,
            "{held:?} (one by one: {naive_moves})"
        );
        // The BPGN ends with its result token, so a text shares a prefix with its base,
        // then a tail of its own: a few dozen copies' worth, not hundreds.
        assert!(
            held.bpgn_bytes <= 30 * last_bpgn && held.bpgn_bytes * 8 <= naive_bpgn,
            "{held:?} (final BPGN {last_bpgn} bytes, one by one {naive_bpgn})"
        );
    }

    #[test]
    fn a_sliding_window_holds_only_what_it_spans() {
        let plies = 400;
        let window = 20;
        let messages = game(plies);
        let start = Instant::now();
        let mut buffer = DelayBuffer::default();
        let mut most = HeldSize::default();
        let mut out = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            let at = start + Duration::from_millis(u64::try_from(i).unwrap_or(0));
            buffer.push(at + Duration::from_millis(3 * window), "t1", m.clone());
            out.extend(buffer.pop_due(at));
            let held = buffer.held();
            most.messages = most.messages.max(held.messages);
            most.moves = most.moves.max(held.moves);
            most.bpgn_bytes = most.bpgn_bytes.max(held.bpgn_bytes);
        }
        assert!(most.messages <= 3 * 20 + 1, "{most:?}");
        assert!(most.moves <= 2 * plies, "{most:?}");
        let last_bpgn = match messages.last() {
            Some(Message::Bpgn(t)) => t.len(),
            _ => 0,
        };
        assert!(
            most.bpgn_bytes <= 4 * last_bpgn,
            "{most:?} (final {last_bpgn})"
        );
        while let Some(due) = buffer.next_due() {
            out.extend(buffer.pop_due(due));
        }
        let got: Vec<Message> = out.into_iter().map(|(_, m)| m).collect();
        assert_eq!(got, messages);
    }
}
