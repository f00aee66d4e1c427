//! Shared helpers of the integration tests: a sample match.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

use bugbridge_broadcast::Update;
use bugbridge_broadcast::wire::{
    Board, BoardClock, BoardState, ByBoard, Clocks, Event, EventKind, LastMove, MatchState,
    MoveEntry, Side,
};

pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180";

/// The state after `plies` moves on board A (e4 e5 Nf3 ... style placeholders: the hub does
/// not care about chess).
pub fn state(plies: u32) -> MatchState {
    let mut moves = Vec::new();
    for p in 0..plies {
        moves.push(MoveEntry {
            board: Board::A,
            side: if p.is_multiple_of(2) {
                Side::White
            } else {
                Side::Black
            },
            number: p / 2 + 1,
            san: format!("m{p}"),
            clock: Some(180.0 - f64::from(p)),
            flags: Vec::new(),
        });
    }
    let bfen = format!("{START} | {START} #{plies}");
    let mut tags = BTreeMap::new();
    tags.insert("WhiteA".to_owned(), "Ann".to_owned());
    MatchState {
        bfen: bfen.clone(),
        boards: ByBoard {
            A: BoardState {
                white: Some("Ann".to_owned()),
                black: Some("Bob".to_owned()),
                bfen: START.to_owned(),
                holdings: String::new(),
                to_move: if plies.is_multiple_of(2) {
                    Side::White
                } else {
                    Side::Black
                },
                last_move: (plies > 0).then(|| LastMove {
                    from: Some("e2".to_owned()),
                    to: "e4".to_owned(),
                    drop: None,
                    san: format!("m{}", plies - 1),
                    side: Side::White,
                    number: 1,
                    captured: None,
                    handoff: None,
                    grab: None,
                }),
                connected: true,
                configured: true,
                physical: None,
                must_drop_king: Vec::new(),
            },
            B: BoardState {
                bfen: START.to_owned(),
                connected: true,
                configured: true,
                physical: None,
                ..BoardState::default()
            },
        },
        clocks: Clocks {
            at: 1_790_000_000_000,
            A: BoardClock {
                white: 178.0,
                black: 180.0,
                running: Some(Side::Black),
                unread: false,
            },
            B: BoardClock::default(),
        },
        moves,
        tags,
        ..MatchState::default()
    }
}

pub fn move_event(plies: u32) -> Event {
    let p = plies - 1;
    Event {
        board: Some(Board::A),
        side: Some(if p.is_multiple_of(2) {
            Side::White
        } else {
            Side::Black
        }),
        number: Some(p / 2 + 1),
        san: Some(format!("m{p}")),
        clock: Some(180.0 - f64::from(p)),
        bfen: Some(format!("{START} | {START} #{plies}")),
        ..Event::new(EventKind::Move, u64::from(plies) * 1000)
    }
}

pub fn alert(t: u64) -> Event {
    Event {
        board: Some(Board::B),
        code: Some("illegal-move".to_owned()),
        reason: Some("drop-not-in-hand".to_owned()),
        number: Some(7),
        side: Some(Side::Black),
        san: Some("N@f3".to_owned()),
        detail: Some("no knight in hand".to_owned()),
        ..Event::new(EventKind::Alert, t)
    }
}

/// The update for the `plies`th move.
pub fn move_update(plies: u32) -> Update {
    Update {
        state: state(plies),
        bpgn: format!("[Event \"Test\"]\n\n{plies} plies\n"),
        events: vec![move_event(plies)],
    }
}
