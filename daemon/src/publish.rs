//! From the domain to the published schema: inference decisions become
//! [`wire::Event`]s and the match becomes a [`wire::MatchState`].
//!
//! This is the only module that knows both the domain types and `bugbridge_broadcast::wire`,
//! which owns the JSON contract. `replay --events` prints the same events (without `seq`,
//! which only a live stream numbers).

use std::collections::BTreeMap;

use bugbridge_broadcast::wire;

use crate::infer::{Alert, Correction, Inference, OperatorAction, RecordEntry};
use crate::rules::notation::bfen::{write_bfen, write_board_fen};
use crate::rules::notation::{San, SanKind};
use crate::rules::{
    Board, BoardId, BughouseGame, ByBoard, ByColor, Color, EndReason, MatchResult, Move, Role,
    holdings_string,
};

/// The wire's board letter.
#[must_use]
pub fn board(b: BoardId) -> wire::Board {
    match b {
        BoardId::A => wire::Board::A,
        BoardId::B => wire::Board::B,
    }
}

/// The wire's side.
#[must_use]
pub fn side(c: Color) -> wire::Side {
    match c {
        Color::White => wire::Side::White,
        Color::Black => wire::Side::Black,
    }
}

/// The domain's board of the wire's letter.
#[must_use]
pub fn board_id(b: wire::Board) -> BoardId {
    match b {
        wire::Board::A => BoardId::A,
        wire::Board::B => BoardId::B,
    }
}

/// The domain's colour of the wire's side.
#[must_use]
pub fn color(s: wire::Side) -> Color {
    match s {
        wire::Side::White => Color::White,
        wire::Side::Black => Color::Black,
    }
}

/// The published event of an inference decision (`None` for decisions that are not
/// events of the stream, such as the start of a new game, which shows in the state).
#[must_use]
pub fn event(inference: &Inference) -> Option<wire::Event> {
    match inference {
        Inference::Move { entry, bfen } => {
            let mut e = wire::Event::new(wire::EventKind::Move, entry.t);
            e.board = Some(board(entry.board));
            e.side = Some(side(entry.side));
            e.number = Some(entry.number);
            e.san = Some(entry.san.clone());
            e.clock = entry.clock;
            e.bfen = Some(bfen.clone());
            e.flags = entry.flags.names().into_iter().map(str::to_owned).collect();
            let (captured, handoff, grab) = koedem_parts(entry);
            e.captured = captured;
            e.handoff = handoff;
            e.grab = grab;
            Some(e)
        }
        Inference::Alert(a) => Some(alert(a)),
        Inference::Correction(c) => Some(correction(c)),
        Inference::End {
            t,
            board: b,
            result,
            reason,
            detail,
        } => {
            let mut e = wire::Event::new(wire::EventKind::End, *t);
            e.board = b.map(board);
            e.result = Some(result.as_str().to_owned());
            e.reason = reason.map(|r| r.code().to_owned());
            e.detail = (!detail.is_empty()).then(|| detail.clone());
            Some(e)
        }
        Inference::ResultCorrection {
            t,
            result,
            reason,
            detail,
        } => {
            // A correction of the result names no move: its `result` and `reason` are the
            // game's from now on.
            let mut e = wire::Event::new(wire::EventKind::Correction, *t);
            e.result = Some(result.as_str().to_owned());
            e.reason = reason.map(|r| r.code().to_owned());
            e.detail = Some(detail.clone());
            Some(e)
        }
        Inference::NewGame { .. } => None,
    }
}

/// What a move took, where that piece went, and the piece a grab promotion took from the
/// other board.
fn koedem_parts(
    entry: &RecordEntry,
) -> (Option<String>, Option<wire::Handoff>, Option<wire::Grab>) {
    let taken = entry.side.other();
    let captured = entry
        .mv
        .capture()
        .map(|role| role.of(taken).char().to_string());
    // The capturer's partner plays the taken colour on the other board.
    let handoff = entry.handoff.map(|role| wire::Handoff {
        board: board(entry.board.other()),
        side: side(taken),
        piece: role.of(taken).char().to_string(),
    });
    let grab = grab_of(entry.board, entry.side, &entry.san);
    (captured, handoff, grab)
}

/// The grab a SAN writes (`b8=Ra1`), played by `mover` on `promoting`.
fn grab_of(promoting: BoardId, mover: Color, san: &str) -> Option<wire::Grab> {
    let san: San = san.parse().ok()?;
    let from = san.grab?;
    let SanKind::Normal {
        to,
        promotion: Some(role),
        ..
    } = san.kind
    else {
        return None;
    };
    Some(wire::Grab {
        from_board: board(promoting.other()),
        from: from.to_string(),
        to_board: board(promoting),
        to: to.to_string(),
        piece: role.of(mover).char().to_string(),
    })
}

fn alert(a: &Alert) -> wire::Event {
    let mut e = wire::Event::new(wire::EventKind::Alert, a.t);
    e.board = a.board.map(board);
    e.code = Some(a.code.code().to_owned());
    e.reason = a.reason.map(|r| r.code().to_owned());
    e.number = a.number;
    e.side = a.side.map(side);
    e.san.clone_from(&a.san);
    e.detail = (!a.detail.is_empty()).then(|| a.detail.clone());
    e.choices = a
        .choices
        .iter()
        .map(|c| wire::Choice {
            label: c.label.clone(),
            post: action(&c.action),
        })
        .collect();
    e
}

/// The wire form of an operator action (the body the arbiter page posts for it).
#[must_use]
pub fn action(op: &OperatorAction) -> wire::ActionKind {
    match op {
        OperatorAction::Promotion {
            board: b,
            number,
            side: s,
            piece,
        } => wire::ActionKind::Promotion {
            board: board(*b),
            number: *number,
            side: side(*s),
            piece: piece.char().to_string(),
        },
        OperatorAction::Result {
            result,
            reason,
            correct,
        } => wire::ActionKind::Result {
            result: result.as_str().to_owned(),
            reason: reason.map_or_else(String::new, |r| r.code().to_owned()),
            correct: *correct,
        },
        OperatorAction::Replace {
            board: b,
            number,
            side: s,
            san,
        } => wire::ActionKind::Replace {
            board: board(*b),
            number: *number,
            side: side(*s),
            san: san.clone(),
        },
        OperatorAction::Fill {
            board: b,
            moves,
            first,
        } => wire::ActionKind::Fill {
            board: board(*b),
            moves: moves.clone(),
            number: first.map(|(n, _)| n),
            side: first.map(|(_, s)| side(s)),
        },
    }
}

fn correction(c: &Correction) -> wire::Event {
    let mut e = wire::Event::new(wire::EventKind::Correction, c.t);
    e.board = Some(board(c.board));
    e.side = Some(side(c.side));
    e.number = Some(c.number);
    e.san = Some(c.new_san.clone());
    e.grab = grab_of(c.board, c.side, &c.new_san);
    let detail = if c.detail.is_empty() {
        format!("{} replaced by {}", c.old_san, c.new_san)
    } else {
        c.detail.clone()
    };
    e.detail = Some(detail);
    e
}

/// The JSON line of `replay --events`: the event without `seq`.
#[must_use]
pub fn replay_line(e: &wire::Event) -> String {
    // The schema's field order is the documented one (`t`, `kind`, `board`, …) after `seq`;
    // serialising the struct keeps it, and the zero `seq` in front is cut off.
    let mut e = e.clone();
    e.seq = 0;
    let text = serde_json::to_string(&e).unwrap_or_default();
    match text.strip_prefix("{\"seq\":0,") {
        Some(rest) => format!("{{{rest}"),
        None => text,
    }
}

/// A clock reading of one board: both times and the running side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockReading {
    /// White's and Black's remaining seconds.
    pub times: ByColor<f64>,
    /// Whose time runs.
    pub running: Option<Color>,
}

/// Everything the published state is made of.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The match id.
    pub match_id: &'a str,
    /// Both boards.
    pub game: &'a BughouseGame,
    /// The committed moves, in order.
    pub record: &'a [RecordEntry],
    /// The latest clock reading of each board.
    pub clocks: ByBoard<Option<ClockReading>>,
    /// When those readings were taken (ms since the Unix epoch, server clock).
    pub clock_at: u64,
    /// Whether each board's device link is up.
    pub connected: ByBoard<bool>,
    /// Which boards the table's configuration has.
    pub configured: ByBoard<bool>,
    /// What each board's sensors show while its moves are not being recorded (its link
    /// back, the gap not bridged, the board unlike the game).
    pub unrecorded: ByBoard<Option<Board>>,
    /// The BPGN tags (player names among them).
    pub tags: &'a BTreeMap<String, String>,
    /// How the match ended, if it did.
    pub end: Option<(MatchResult, Option<EndReason>, Option<BoardId>, &'a str)>,
}

/// The times each board's BFEN carries: the latest readings.
fn times(view: &View<'_>) -> ByBoard<Option<ByColor<f64>>> {
    ByBoard {
        a: view.clocks.a.map(|c| c.times),
        b: view.clocks.b.map(|c| c.times),
    }
}

/// The full BFEN of the view.
#[must_use]
pub fn bfen(view: &View<'_>) -> String {
    let boards = view.game.boards();
    write_bfen(
        ByBoard {
            a: &boards.a,
            b: &boards.b,
        },
        times(view),
    )
}

fn last_move(record: &[RecordEntry], b: BoardId) -> Option<wire::LastMove> {
    let e = record.iter().rev().find(|e| e.board == b)?;
    let (from, drop) = match e.mv {
        Move::Drop { piece, .. } => (None, Some(piece.role.upper_char().to_string())),
        m => (m.from().map(|s| s.to_string()), None),
    };
    let (captured, handoff, grab) = koedem_parts(e);
    Some(wire::LastMove {
        from,
        to: e.mv.to().to_string(),
        drop,
        san: e.san.clone(),
        side: side(e.side),
        number: e.number,
        captured,
        handoff,
        grab,
    })
}

/// The published state of the view.
#[must_use]
pub fn state(view: &View<'_>) -> wire::MatchState {
    let t = times(view);
    let board_state = |b: BoardId| {
        let p = view.game.board(b);
        let white_tag = format!("White{b}");
        let black_tag = format!("Black{b}");
        wire::BoardState {
            white: view.tags.get(&white_tag).cloned(),
            black: view.tags.get(&black_tag).cloned(),
            bfen: write_board_fen(p, *t.get(b)),
            holdings: holdings_string(p.pockets()),
            to_move: side(p.turn()),
            last_move: last_move(view.record, b),
            connected: *view.connected.get(b),
            configured: *view.configured.get(b),
            physical: view.unrecorded.get(b).map(|p| p.placement()),
            must_drop_king: Color::ALL
                .into_iter()
                .filter(|&c| p.pockets()[c].has(Role::King))
                .map(side)
                .collect(),
        }
    };
    let clock = |b: BoardId| {
        view.clocks
            .get(b)
            .map(|c| wire::BoardClock {
                white: c.times.white,
                black: c.times.black,
                running: c.running.map(side),
                unread: false,
            })
            .unwrap_or(wire::BoardClock {
                unread: true,
                ..wire::BoardClock::default()
            })
    };
    wire::MatchState {
        v: wire::SCHEMA_VERSION,
        id: view.match_id.to_owned(),
        seq: 0,
        bfen: bfen(view),
        boards: wire::ByBoard {
            A: board_state(BoardId::A),
            B: board_state(BoardId::B),
        },
        clocks: wire::Clocks {
            at: view.clock_at,
            A: clock(BoardId::A),
            B: clock(BoardId::B),
        },
        moves: view
            .record
            .iter()
            .map(|e| wire::MoveEntry {
                board: board(e.board),
                side: side(e.side),
                number: e.number,
                san: e.san.clone(),
                clock: e.clock,
                flags: e.flags.names().into_iter().map(str::to_owned).collect(),
            })
            .collect(),
        tags: view.tags.clone(),
        end_reasons: crate::infer::operator_reasons(view.game.rules())
            .into_iter()
            .map(|r| r.code().to_owned())
            .collect(),
        result: view
            .end
            .map(|(result, reason, b, detail)| wire::MatchResult {
                result: result.as_str().to_owned(),
                reason: reason.map_or_else(String::new, |r| r.code().to_owned()),
                board: b.map(board),
                detail: (!detail.is_empty()).then(|| detail.to_owned()),
            }),
    }
}
