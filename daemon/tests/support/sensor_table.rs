//! The sensor-table builder of the inference tests (`#[path]`-included): two boards and
//! their clocks fed event by event. `lift(A, "e2")`, `put(A, "e4", 'P')`, `press(A)`,
//! `play(A, "e2e4")` (lift, put, press), each advancing the trace time.

#![allow(dead_code)]

use bugbridge::infer::{AlertCode, InferConfig, Inference, Inferrer, SensorEvent};
use bugbridge::rules::{
    BoardId, BughouseGame, ByBoard, ByColor, Color, Move, Piece, Role, Square, castle_king_target,
    castle_rook_target,
};

pub(crate) fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

pub(crate) fn piece(c: char) -> Piece {
    Piece::from_char(c).expect("piece letter")
}

/// A table with two boards and their clocks, fed event by event.
pub(crate) struct Table {
    pub(crate) inf: Inferrer,
    pub(crate) t: u64,
    pub(crate) out: Vec<Inference>,
    pub(crate) clocks: ByBoard<ByColor<f64>>,
    pub(crate) running: ByBoard<Option<Color>>,
    pub(crate) rotated: ByBoard<bool>,
    /// A silent board's placement, side to move and the seconds its clocks lose.
    pub(crate) pending_gap: Option<(BoardId, bugbridge::rules::Board, Color, (f64, f64))>,
    /// Fischer increment added to the mover's clock at each press.
    pub(crate) increment: f64,
}

impl Table {
    pub(crate) fn new() -> Table {
        Table::with(InferConfig::default(), None, ByBoard::default())
    }

    pub(crate) fn with(
        config: InferConfig,
        start: Option<BughouseGame>,
        rotated: ByBoard<bool>,
    ) -> Table {
        let game = start
            .clone()
            .unwrap_or_else(|| BughouseGame::new(config.ruleset));
        let mut table = Table {
            inf: Inferrer::new(config, start),
            t: 0,
            out: Vec::new(),
            clocks: ByBoard::new_with(|_| ByColor {
                white: 180.0,
                black: 180.0,
            }),
            running: ByBoard::default(),
            rotated,
            pending_gap: None,
            increment: 0.0,
        };
        for b in BoardId::ALL {
            let mut placement = *game.board(b).board();
            if rotated[b] {
                placement = placement.rotate_180();
            }
            table.feed(SensorEvent::Snapshot {
                board: b,
                placement,
            });
        }
        for b in BoardId::ALL {
            if config.clock[b] {
                table.running[b] = Some(game.board(b).turn());
                table.clock_event(b);
            }
        }
        table
    }

    pub(crate) fn feed(&mut self, ev: SensorEvent) {
        let out = self.inf.observe(self.t, &ev);
        self.out.extend(out);
    }

    pub(crate) fn clock_event(&mut self, b: BoardId) {
        let c = self.clocks[b];
        self.feed(SensorEvent::Clock {
            board: b,
            white: c.white,
            black: c.black,
            running: self.running[b],
        });
    }

    pub(crate) fn wait(&mut self, ms: u64) -> &mut Table {
        self.t += ms;
        let out = self.inf.tick(self.t);
        self.out.extend(out);
        self
    }

    pub(crate) fn square(&mut self, b: BoardId, s: &str, p: Option<Piece>) -> &mut Table {
        self.t += 150;
        let mut s = sq(s);
        if self.rotated[b] {
            s = s.rotate_180();
        }
        self.feed(SensorEvent::Square {
            board: b,
            sq: s,
            piece: p,
        });
        self
    }

    pub(crate) fn lift(&mut self, b: BoardId, s: &str) -> &mut Table {
        self.square(b, s, None)
    }

    pub(crate) fn put(&mut self, b: BoardId, s: &str, p: char) -> &mut Table {
        self.square(b, s, Some(piece(p)))
    }

    /// The player whose clock runs presses it.
    pub(crate) fn press(&mut self, b: BoardId) -> &mut Table {
        self.t += 200;
        let mover = self.running[b].unwrap_or(Color::White);
        self.clocks[b][mover] += self.increment - 3.0;
        self.running[b] = Some(mover.other());
        self.clock_event(b);
        self
    }

    /// Lift/put for a move of the game (found by its UCI text among all moves a piece
    /// could make), then the press.
    pub(crate) fn play(&mut self, b: BoardId, uci: &str) -> &mut Table {
        let pos = self.inf.game().board(b).clone();
        let m = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.uci() == uci)
            .unwrap_or_else(|| panic!("{uci} is not legal on {b}"));
        self.hands(b, &m);
        self.press(b)
    }

    /// The readings of `m` made the plain way (no press).
    pub(crate) fn hands(&mut self, b: BoardId, m: &Move) -> &mut Table {
        let pos = self.inf.game().board(b).clone();
        let color = pos.mover(m);
        match *m {
            Move::Normal {
                from,
                to,
                capture,
                promotion,
                ..
            } => {
                let p = match promotion {
                    Some(r) => r.of(color),
                    None => self.inf.physical(b).piece_at(from).expect("piece"),
                };
                self.lift(b, &from.to_string());
                if capture.is_some() {
                    self.lift(b, &to.to_string());
                }
                self.square(b, &to.to_string(), Some(p));
            }
            Move::EnPassant { from, to } => {
                let victim = Square::from_coords(to.file(), from.rank());
                self.lift(b, &from.to_string());
                self.square(b, &to.to_string(), Some(Role::Pawn.of(color)));
                self.lift(b, &victim.to_string());
            }
            Move::Castle { king, rook } => {
                self.lift(b, &king.to_string());
                self.square(
                    b,
                    &castle_king_target(king, rook).to_string(),
                    Some(Role::King.of(color)),
                );
                self.lift(b, &rook.to_string());
                self.square(
                    b,
                    &castle_rook_target(king, rook).to_string(),
                    Some(Role::Rook.of(color)),
                );
            }
            Move::Drop { piece, to } => {
                self.square(b, &to.to_string(), Some(piece));
            }
        }
        self
    }

    pub(crate) fn moves(&self) -> Vec<String> {
        self.inf
            .record()
            .iter()
            .map(|e| format!("{}:{}", e.board, e.mv.uci()))
            .collect()
    }

    pub(crate) fn last_move(&self) -> String {
        self.moves().last().cloned().unwrap_or_default()
    }

    pub(crate) fn alerts(&self, code: AlertCode) -> usize {
        self.out
            .iter()
            .filter(|i| matches!(i, Inference::Alert(a) if a.code == code))
            .count()
    }

    pub(crate) fn outputs_since(&self, n: usize) -> &[Inference] {
        &self.out[n..]
    }
}
