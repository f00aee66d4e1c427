//! The adapter between the drivers' wire vocabulary (`bugbridge_drivers::trace`) and the
//! inference's input ([`crate::infer::SensorEvent`], in rules types).
//!
//! This is the only place that knows both, so the inference depends on nothing but the rules
//! core and the drivers know no chess.

use bugbridge_drivers::trace::{self, Placement, SensorPiece, Side, TraceEvent, TraceLine};

use crate::infer::{ClockSideName, OperatorAction, SensorEvent};
use crate::rules::{Board, BoardId, Color, EndReason, MatchResult, Piece, Role, Square};

/// The match facts a trace's `meta` line carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// The ruleset name, if given.
    pub ruleset: Option<String>,
    /// The time control, if given.
    pub time_control: Option<String>,
    /// The BFEN both boards start from, when not the initial position.
    pub setup: Option<String>,
    /// BPGN tags.
    pub tags: std::collections::BTreeMap<String, String>,
}

/// What one trace line means to the daemon.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// The `meta` line.
    Meta(Meta),
    /// A sensor or operator event for the inference.
    Event(SensorEvent),
    /// An operator action this version does not know: kept in the journal, not applied.
    UnknownOperator(String),
    /// What an occupancy-only board (Sentio) shows: a set of occupied squares (bit = square
    /// index, a1 = bit 0). Kept in the journal; piece inference needs pieces.
    Occupancy {
        /// Which board.
        board: BoardId,
        /// The occupied squares.
        occupied: u64,
    },
    /// A tag no calibration knows stays on a square of an RFID board: one `unknown-tag`
    /// alert naming the square, no piece.
    UnknownTag {
        /// Which board.
        board: BoardId,
        /// The square, in the game's frame.
        sq: Square,
        /// The tag's id, for people.
        tag: String,
    },
}

/// A rules board id from the wire's.
#[must_use]
pub fn board_id(b: trace::BoardId) -> BoardId {
    match b {
        trace::BoardId::A => BoardId::A,
        trace::BoardId::B => BoardId::B,
    }
}

/// The wire's board id from a rules one.
#[must_use]
pub fn wire_board_id(b: BoardId) -> trace::BoardId {
    match b {
        BoardId::A => trace::BoardId::A,
        BoardId::B => trace::BoardId::B,
    }
}

/// The wire's clock side from the inference's.
#[must_use]
pub fn wire_clock_side(c: ClockSideName) -> bugbridge_drivers::dgt::ClockSide {
    match c {
        ClockSideName::Left => bugbridge_drivers::dgt::ClockSide::Left,
        ClockSideName::Right => bugbridge_drivers::dgt::ClockSide::Right,
    }
}

/// The inference's clock side from the wire's.
#[must_use]
pub fn clock_side_name(c: bugbridge_drivers::dgt::ClockSide) -> ClockSideName {
    match c {
        bugbridge_drivers::dgt::ClockSide::Left => ClockSideName::Left,
        bugbridge_drivers::dgt::ClockSide::Right => ClockSideName::Right,
    }
}

/// A rules square from the wire's (both count a1 = 0 … h8 = 63).
#[must_use]
pub fn square(sq: trace::Square) -> Square {
    Square::from_index_masked(u32::from(sq.index()))
}

/// A rules piece from a sensor piece letter.
#[must_use]
pub fn piece(p: SensorPiece) -> Option<Piece> {
    Piece::from_char(p.char())
}

/// A rules board from a sensor placement.
#[must_use]
pub fn board(placement: &Placement) -> Board {
    let mut b = Board::empty();
    for sq in trace::Square::all() {
        if let Some(p) = placement.get(sq).and_then(piece) {
            b.set_piece_at(square(sq), p);
        }
    }
    b
}

/// A sensor placement from a rules board.
#[must_use]
pub fn placement(b: &Board) -> Placement {
    let mut p = Placement::empty();
    for sq in Square::ALL {
        if let (Some(piece), Some(wsq)) = (b.piece_at(sq), trace::Square::new(sq.index() as u8)) {
            p.set(wsq, SensorPiece::from_char(piece.char()));
        }
    }
    p
}

fn color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

fn side(color: Color) -> Side {
    match color {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

/// Decodes one trace event for the daemon.
#[must_use]
pub fn decode(ev: &TraceEvent) -> Decoded {
    match ev {
        TraceEvent::Meta {
            ruleset,
            time_control,
            setup,
            tags,
        } => Decoded::Meta(Meta {
            ruleset: ruleset.clone(),
            time_control: time_control.clone(),
            setup: setup.clone(),
            tags: tags.clone(),
        }),
        TraceEvent::Board {
            board: b,
            placement,
        } => Decoded::Event(SensorEvent::Snapshot {
            board: board_id(*b),
            placement: board(placement),
        }),
        TraceEvent::Square {
            board: b,
            sq,
            piece: p,
        } => Decoded::Event(SensorEvent::Square {
            board: board_id(*b),
            sq: square(*sq),
            piece: p.and_then(piece),
        }),
        TraceEvent::Clock {
            board: b,
            white,
            black,
            running,
        } => Decoded::Event(SensorEvent::Clock {
            board: board_id(*b),
            white: *white,
            black: *black,
            running: running.map(color),
        }),
        TraceEvent::ClockLink { board: b, up } => Decoded::Event(SensorEvent::ClockLink {
            board: board_id(*b),
            up: *up,
        }),
        TraceEvent::ClockSide {
            board: b,
            white_side,
            configured,
            evidence,
        } => Decoded::Event(SensorEvent::ClockSide {
            board: board_id(*b),
            white_side: clock_side_name(*white_side),
            configured: configured.map(clock_side_name),
            evidence: evidence.clone(),
        }),
        TraceEvent::Occupancy { board: b, occupied } => Decoded::Occupancy {
            board: board_id(*b),
            occupied: occupied.0,
        },
        TraceEvent::UnknownTag { board: b, sq, tag } => Decoded::UnknownTag {
            board: board_id(*b),
            sq: square(*sq),
            tag: tag.clone(),
        },
        TraceEvent::Link { board: b, up } => Decoded::Event(SensorEvent::Link {
            board: board_id(*b),
            up: *up,
        }),
        TraceEvent::Operator {
            board: b,
            action,
            fields,
        } => match operator(b.map(board_id), action, fields) {
            Some(op) => Decoded::Event(SensorEvent::Operator(op)),
            None => Decoded::UnknownOperator(action.clone()),
        },
    }
}

fn operator(
    board: Option<BoardId>,
    action: &str,
    fields: &serde_json::Map<String, serde_json::Value>,
) -> Option<OperatorAction> {
    let str_field = |k: &str| fields.get(k).and_then(serde_json::Value::as_str);
    let side = || match str_field("side")? {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    };
    let number = || {
        fields
            .get("number")?
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
    };
    match action {
        "promotion" => Some(OperatorAction::Promotion {
            board: board?,
            number: number()?,
            side: side()?,
            piece: str_field("piece")?
                .chars()
                .next()
                .and_then(Role::from_char)?,
        }),
        "result" => Some(OperatorAction::Result {
            result: MatchResult::from_str_opt(str_field("result")?)?,
            reason: str_field("reason").and_then(EndReason::from_code),
            correct: fields
                .get("correct")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        }),
        "replace" => Some(OperatorAction::Replace {
            board: board?,
            number: number()?,
            side: side()?,
            san: str_field("san")?.to_owned(),
        }),
        "fill" => Some(OperatorAction::Fill {
            board: board?,
            moves: fields
                .get("moves")?
                .as_array()?
                .iter()
                .map(|m| m.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()?,
            first: match (fields.get("number"), fields.get("side")) {
                (None, None) => None,
                _ => Some((number()?, side()?)),
            },
        }),
        _ => None,
    }
}

/// Encodes an inference input as a trace event (simulate's output, operator actions into
/// the journal).
#[must_use]
pub fn encode(ev: &SensorEvent) -> TraceEvent {
    match ev {
        SensorEvent::Snapshot {
            board: b,
            placement: p,
        } => TraceEvent::Board {
            board: wire_board_id(*b),
            placement: placement(p),
        },
        SensorEvent::Square {
            board: b,
            sq,
            piece: p,
        } => TraceEvent::Square {
            board: wire_board_id(*b),
            sq: trace::Square::new(sq.index() as u8).unwrap_or_else(unreachable_square),
            piece: p.and_then(|p| SensorPiece::from_char(p.char())),
        },
        SensorEvent::Clock {
            board: b,
            white,
            black,
            running,
        } => TraceEvent::Clock {
            board: wire_board_id(*b),
            white: *white,
            black: *black,
            running: running.map(side),
        },
        SensorEvent::Link { board: b, up } => TraceEvent::Link {
            board: wire_board_id(*b),
            up: *up,
        },
        SensorEvent::ClockLink { board: b, up } => TraceEvent::ClockLink {
            board: wire_board_id(*b),
            up: *up,
        },
        SensorEvent::ClockSide {
            board: b,
            white_side,
            configured,
            evidence,
        } => TraceEvent::ClockSide {
            board: wire_board_id(*b),
            white_side: wire_clock_side(*white_side),
            configured: configured.map(wire_clock_side),
            evidence: evidence.clone(),
        },
        SensorEvent::Operator(op) => encode_operator(op),
    }
}

/// A rules square always has an index below 64, so this is never reached; a1 keeps the
/// function total without a panic.
fn unreachable_square() -> trace::Square {
    trace::Square::all()
        .next()
        .expect("the wire has 64 squares")
}

fn encode_operator(op: &OperatorAction) -> TraceEvent {
    use serde_json::{Map, Value};
    let mut fields = Map::new();
    let (board, action) = match op {
        OperatorAction::Promotion {
            board,
            number,
            side,
            piece,
        } => {
            fields.insert("number".into(), Value::from(*number));
            fields.insert("side".into(), Value::from(side.name()));
            fields.insert("piece".into(), Value::from(piece.upper_char().to_string()));
            (Some(*board), "promotion")
        }
        OperatorAction::Result {
            result,
            reason,
            correct,
        } => {
            fields.insert("result".into(), Value::from(result.as_str()));
            if let Some(r) = reason {
                fields.insert("reason".into(), Value::from(r.code()));
            }
            if *correct {
                fields.insert("correct".into(), Value::from(true));
            }
            (None, "result")
        }
        OperatorAction::Replace {
            board,
            number,
            side,
            san,
        } => {
            fields.insert("number".into(), Value::from(*number));
            fields.insert("side".into(), Value::from(side.name()));
            fields.insert("san".into(), Value::from(san.as_str()));
            (Some(*board), "replace")
        }
        OperatorAction::Fill {
            board,
            moves,
            first,
        } => {
            fields.insert(
                "moves".into(),
                Value::Array(moves.iter().map(|m| Value::from(m.as_str())).collect()),
            );
            if let Some((number, side)) = first {
                fields.insert("number".into(), Value::from(*number));
                fields.insert("side".into(), Value::from(side.name()));
            }
            (Some(*board), "fill")
        }
    };
    TraceEvent::Operator {
        board: board.map(wire_board_id),
        action: action.into(),
        fields,
    }
}

/// A whole trace decoded: the `meta` facts, the events with their times, and the operator
/// actions this version does not know.
pub type DecodedTrace = (Meta, Vec<(u64, SensorEvent)>, Vec<String>);

/// Decodes a whole trace into the inference's input, with the `meta` facts.
///
/// # Errors
///
/// The first [`trace::TraceError`] (it names the line).
pub fn decode_trace(text: &str) -> Result<DecodedTrace, trace::TraceError> {
    let lines: Vec<TraceLine> = trace::parse_trace(text)?;
    let mut meta = Meta::default();
    let mut events = Vec::with_capacity(lines.len());
    let mut unknown = Vec::new();
    for line in lines {
        match decode(&line.event) {
            Decoded::Meta(m) => meta = m,
            Decoded::Event(e) => events.push((line.t, e)),
            Decoded::UnknownOperator(a) => unknown.push(a),
            Decoded::Occupancy { .. } | Decoded::UnknownTag { .. } => {}
        }
    }
    Ok((meta, events, unknown))
}

/// A whole trace decoded line by line (the `meta` line's facts apart): what `replay`
/// feeds to a [`crate::game::Match`], occupancy snapshots and unknown tags included.
///
/// # Errors
///
/// The first [`trace::TraceError`] (it names the line).
pub fn decode_trace_lines(text: &str) -> Result<(Meta, Vec<(u64, Decoded)>), trace::TraceError> {
    let lines: Vec<TraceLine> = trace::parse_trace(text)?;
    let mut meta = Meta::default();
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        match decode(&line.event) {
            Decoded::Meta(m) => meta = m,
            other => out.push((line.t, other)),
        }
    }
    Ok((meta, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_the_wire_vocabulary() {
        let events = vec![
            SensorEvent::Snapshot {
                board: BoardId::B,
                placement: Board::start(),
            },
            SensorEvent::Square {
                board: BoardId::A,
                sq: "e4".parse().unwrap(),
                piece: Piece::from_char('P'),
            },
            SensorEvent::Square {
                board: BoardId::A,
                sq: "e2".parse().unwrap(),
                piece: None,
            },
            SensorEvent::Clock {
                board: BoardId::A,
                white: 178.5,
                black: 180.0,
                running: Some(Color::Black),
            },
            SensorEvent::Link {
                board: BoardId::B,
                up: false,
            },
            SensorEvent::Operator(OperatorAction::Promotion {
                board: BoardId::A,
                number: 23,
                side: Color::White,
                piece: Role::Knight,
            }),
            SensorEvent::Operator(OperatorAction::Result {
                result: MatchResult::Draw,
                reason: Some(EndReason::DrawAgreement),
                correct: false,
            }),
            SensorEvent::Operator(OperatorAction::Result {
                result: MatchResult::Won(crate::rules::Team::WhiteA),
                reason: Some(EndReason::Resignation),
                correct: true,
            }),
            SensorEvent::Operator(OperatorAction::Replace {
                board: BoardId::B,
                number: 12,
                side: Color::Black,
                san: "Nxe5".into(),
            }),
        ];
        for ev in events {
            assert_eq!(decode(&encode(&ev)), Decoded::Event(ev.clone()));
        }
    }

    #[test]
    fn an_unknown_operator_action_is_kept_apart() {
        let ev = TraceEvent::Operator {
            board: None,
            action: "coffee".into(),
            fields: serde_json::Map::new(),
        };
        assert_eq!(decode(&ev), Decoded::UnknownOperator("coffee".into()));
    }
}
