//! What the feed's tests share: a table from a BFEN, and board A's occupancy changed
//! square by square.

use crate::infer::Inference;
use crate::rules::notation::parse_bfen;
use crate::rules::{BoardId, BughouseGame, RulesetName, Square};

use super::{Handed, OccupancyFeed};

pub(super) fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

/// A table standing as `bfen` (FIDE rules), its moves final after 800 ms still.
pub(super) fn feed_with(bfen: &str) -> OccupancyFeed {
    let rules = RulesetName::Fide.ruleset();
    let boards = parse_bfen(bfen, rules).expect("bfen");
    let game = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
    OccupancyFeed::new(game, rules, 800)
}

/// A board's occupancy (board A's unless said), changed square by square and fed.
pub(super) struct Board {
    id: BoardId,
    occ: u64,
    pub(super) t: u64,
}

impl Board {
    pub(super) fn of(feed: &OccupancyFeed) -> Board {
        Board::of_board(feed, BoardId::A)
    }

    pub(super) fn of_board(feed: &OccupancyFeed, id: BoardId) -> Board {
        Board {
            id,
            occ: feed.shown.board(id).board().occupied().0,
            t: 0,
        }
    }

    /// Square `s` occupied (`on`) or emptied, 500 ms after the last change.
    pub(super) fn set(
        &mut self,
        feed: &mut OccupancyFeed,
        s: &str,
        on: bool,
    ) -> (Vec<Handed>, Vec<Inference>) {
        let bit = 1u64 << sq(s).index();
        self.occ = if on { self.occ | bit } else { self.occ & !bit };
        self.t += 500;
        feed.feed(self.id, self.t, self.occ)
    }
}

/// White drops on e3, Black plays e7-e6, the dropped piece goes on to e5.
pub(super) const DROP_ON_E3_THEN_TO_E5: [(&str, bool); 5] = [
    ("e3", true),
    ("e7", false),
    ("e6", true),
    ("e3", false),
    ("e5", true),
];

impl Board {
    /// Each of `changes` in turn, then the board rests 4 s: everything handed on and said.
    pub(super) fn play(
        &mut self,
        feed: &mut OccupancyFeed,
        changes: &[(&str, bool)],
    ) -> (Vec<Handed>, Vec<Inference>) {
        let (mut handed, mut said) = (Vec::new(), Vec::new());
        for &(s, on) in changes {
            let (h, a) = self.set(feed, s, on);
            handed.extend(h);
            said.extend(a);
        }
        let (h, a) = feed.tick(self.t + 4_000);
        handed.extend(h);
        said.extend(a);
        (handed, said)
    }
}

impl Board {
    /// Each of `changes` in turn, then 80 s of the daemon's ticks: the first
    /// `occupancy-stalled` alert said.
    pub(super) fn stall_after(
        &mut self,
        feed: &mut OccupancyFeed,
        changes: &[(&str, bool)],
    ) -> crate::infer::Alert {
        let (_, mut said) = self.play(feed, changes);
        for t in (1..=800).map(|i| self.t + i * 100) {
            said.extend(feed.tick(t).1);
        }
        stalls(&said)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("a stall: {said:?}"))
    }
}

/// The board, moves and first move of a choice's fill.
pub(super) fn fill_of(
    choice: &crate::infer::AlertChoice,
) -> (BoardId, Vec<String>, Option<(u32, crate::rules::Color)>) {
    let crate::infer::OperatorAction::Fill {
        board,
        moves,
        first,
    } = &choice.action
    else {
        panic!("a fill: {choice:?}");
    };
    (*board, moves.clone(), *first)
}

/// The `occupancy-stalled` alerts among `said`.
pub(super) fn stalls(said: &[Inference]) -> Vec<crate::infer::Alert> {
    said.iter()
        .filter_map(|a| match a {
            Inference::Alert(a) if a.code == crate::infer::AlertCode::OccupancyStalled => {
                Some(a.clone())
            }
            _ => None,
        })
        .collect()
}
