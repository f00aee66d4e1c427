//! Arbitrary sensor traces into the inference: it never panics, whatever the order, the
//! times (even decreasing), the clock values (NaN, negative, huge) or the placements.
#![no_main]

use bugbridge::infer::{InferConfig, Inferrer, OperatorAction, SensorEvent};
use bugbridge::rules::{
    Board, BoardId, ByBoard, Color, EndReason, MatchResult, Piece, Role, Square, Team,
};
use libfuzzer_sys::fuzz_target;

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
}

fn piece(b: u8) -> Option<Piece> {
    let role = Role::ALL[(b % 6) as usize];
    let color = if b & 8 == 0 {
        Color::White
    } else {
        Color::Black
    };
    (b % 13 != 12).then_some(Piece { color, role })
}

fn seconds(b: u8) -> f64 {
    match b % 8 {
        0 => f64::NAN,
        1 => -5.0,
        2 => 1e300,
        3 => f64::INFINITY,
        4 => 0.0,
        _ => f64::from(b) * 1.5,
    }
}

fn board(b: u8) -> BoardId {
    if b & 1 == 0 { BoardId::A } else { BoardId::B }
}

fn color(b: u8) -> Color {
    if b & 2 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let Some(flags) = bytes.next() else {
        return;
    };
    let config = InferConfig {
        clock: ByBoard {
            a: flags & 1 == 0,
            b: flags & 2 == 0,
        },
        ..InferConfig::default()
    };
    let mut inf = Inferrer::new(config, None);
    let mut t: u64 = 0;
    let mut out = Vec::new();
    while let Some(op) = bytes.next() {
        let arg = bytes.next().unwrap_or(0);
        let arg2 = bytes.next().unwrap_or(0);
        // Time moves on, sometimes backwards.
        t = if op & 0x80 != 0 {
            t.saturating_sub(u64::from(arg2) * 10)
        } else {
            t.saturating_add(u64::from(arg2) * 37)
        };
        let ev = match op % 9 {
            0 | 1 | 2 => SensorEvent::Square {
                board: board(op >> 4),
                sq: Square::from_index_masked(u32::from(arg)),
                piece: piece(arg2),
            },
            3 => SensorEvent::Clock {
                board: board(arg),
                white: seconds(arg2),
                black: seconds(arg >> 1),
                running: match arg % 3 {
                    0 => None,
                    1 => Some(Color::White),
                    _ => Some(Color::Black),
                },
            },
            4 => {
                let mut placement = if arg & 1 == 0 {
                    Board::start()
                } else {
                    Board::empty()
                };
                for _ in 0..(arg2 % 8) {
                    let s = bytes.next().unwrap_or(0);
                    let p = bytes.next().unwrap_or(0);
                    placement.set_square(Square::from_index_masked(u32::from(s)), piece(p));
                }
                if arg & 2 != 0 {
                    placement = placement.rotate_180();
                }
                SensorEvent::Snapshot {
                    board: board(arg >> 2),
                    placement,
                }
            }
            5 => SensorEvent::Link {
                board: board(arg),
                up: arg2 & 1 == 0,
            },
            6 => SensorEvent::Operator(match arg % 3 {
                0 => OperatorAction::Promotion {
                    board: board(arg2),
                    number: u32::from(arg2 >> 1),
                    side: color(arg2),
                    piece: Role::ALL[(arg2 % 6) as usize],
                },
                1 => OperatorAction::Result {
                    result: if arg2 & 1 == 0 {
                        MatchResult::Won(Team::WhiteA)
                    } else {
                        MatchResult::Draw
                    },
                    reason: (arg2 & 2 == 0).then_some(EndReason::Resignation),
                    correct: arg2 & 4 != 0,
                },
                _ => OperatorAction::Replace {
                    board: board(arg2),
                    number: u32::from(arg2 >> 2),
                    side: color(arg2),
                    san: String::from_utf8_lossy(&[arg2, arg, op, b'4']).into_owned(),
                },
            }),
            7 => {
                out.extend(inf.tick(t));
                continue;
            }
            _ => {
                // A plain legal-looking move on a board: lift, put, press.
                let b = board(arg);
                let from = Square::from_index_masked(u32::from(arg2));
                let to = Square::from_index_masked(u32::from(arg));
                let shown = inf.physical(b).piece_at(from);
                inf.observe_into(
                    t,
                    &SensorEvent::Square {
                        board: b,
                        sq: from,
                        piece: None,
                    },
                    &mut out,
                );
                SensorEvent::Square {
                    board: b,
                    sq: to,
                    piece: shown,
                }
            }
        };
        inf.observe_into(t, &ev, &mut out);
        if out.len() > 10_000 {
            out.clear();
        }
    }
    let _ = inf.record().len();
    let _ = inf.game().material_audit();
});
