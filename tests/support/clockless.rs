//! A real corpus game as boards without a clock play it, and how to tell whether a record
//! is that game.
//!
//! The trace is what `bugbridge simulate --noise noisy --no-clock A|B|AB` writes (the same
//! library calls: `sim_game`, `simulate`, `without_clocks`): the players keep the pace the
//! game's clocks gave, with the handling noise of careful club players, and the clockless
//! boards report no clock. The expectation is the game itself, not a re-inference of the
//! trace: each board's moves in order with the SAN the recorder writes, and the team result.
//! The two boards' moves are compared board by board, since a clockless board's move is
//! recorded when it is final, which may come after a move of the other board that followed
//! it at the table.

use std::collections::BTreeMap;
use std::fmt;

use bugbridge::cli::simulate::sim_game;
use bugbridge::rules::notation::bpgn::{BpgnGame, parse_bpgn, replay};
use bugbridge::rules::{BoardId, ByBoard, Color, MatchResult, RulesetName};
use bugbridge::sensor;
use bugbridge::simulate::{Profile, simulate, without_clocks};
use bugbridge_broadcast::wire;
use bugbridge_drivers::trace::{TraceEvent, TraceLine};

/// One move of the game, as the record must have it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ply {
    /// The board.
    pub board: wire::Board,
    /// The mover.
    pub side: wire::Side,
    /// The BPGN move number.
    pub number: u32,
    /// The SAN the recorder writes (canonical: `+`/`#` and disambiguation computed).
    pub san: String,
    /// The mover's time in the game (seconds), for a board with a clock.
    pub clock: Option<f64>,
}

impl fmt::Display for Ply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = match (self.board, self.side) {
            (wire::Board::A, wire::Side::White) => 'A',
            (wire::Board::A, wire::Side::Black) => 'a',
            (wire::Board::B, wire::Side::White) => 'B',
            (wire::Board::B, wire::Side::Black) => 'b',
        };
        write!(f, "{}{letter}. {}", self.number, self.san)
    }
}

impl Ply {
    /// The ply a published `move` event names (its clock left out of the comparison).
    #[must_use]
    pub fn of_event(e: &wire::Event) -> Option<Ply> {
        Some(Ply {
            board: e.board?,
            side: e.side?,
            number: e.number?,
            san: e.san.clone()?,
            clock: e.clock,
        })
    }

    /// Whether `other` is the same move (board, side, number, SAN).
    #[must_use]
    pub fn same_move(&self, other: &Ply) -> bool {
        (self.board, self.side, self.number, &self.san)
            == (other.board, other.side, other.number, &other.san)
    }
}

/// A game ready to be played by boards without a clock, with what must be recorded.
#[derive(Debug, Clone)]
pub struct ClocklessGame {
    /// The trace, `meta` first.
    pub lines: Vec<TraceLine>,
    /// The boards without a clock.
    pub clockless: ByBoard<bool>,
    /// Every move of the game, in the game's order.
    pub plies: Vec<Ply>,
    /// The team result (`1-0`: WhiteA's team won), whichever board the game ended on.
    pub result: MatchResult,
    /// Each board's placement, holdings, side to move, castling and en passant at the end
    /// (the BFEN of each board without its times).
    pub final_boards: [String; 2],
}

fn wire_board(b: BoardId) -> wire::Board {
    match b {
        BoardId::A => wire::Board::A,
        BoardId::B => wire::Board::B,
    }
}

fn wire_side(c: Color) -> wire::Side {
    match c {
        Color::White => wire::Side::White,
        Color::Black => wire::Side::Black,
    }
}

/// The BFEN of each board without its two clock fields: what the board shows and holds,
/// and whose turn it is.
#[must_use]
pub fn boards_without_times(bfen: &str) -> [String; 2] {
    let mut halves = bfen.split('|').map(|half| {
        let fields: Vec<&str> = half.split_whitespace().collect();
        fields[..fields.len().min(4)].join(" ")
    });
    [
        halves.next().unwrap_or_default(),
        halves.next().unwrap_or_default(),
    ]
}

impl ClocklessGame {
    /// The first game of `bpgn`, simulated with the `noisy` profile and noise seed `seed`,
    /// the boards of `clockless` reporting no clock.
    ///
    /// # Panics
    ///
    /// When the game cannot be read, does not replay legally to its end, or cannot be
    /// simulated.
    #[must_use]
    pub fn from_bpgn(bpgn: &str, clockless: ByBoard<bool>, seed: u64) -> ClocklessGame {
        ClocklessGame::from_bpgn_with(bpgn, clockless, Profile::Noisy, seed)
    }

    /// As [`ClocklessGame::from_bpgn`], the players and sensors behaving as `profile` says.
    ///
    /// # Panics
    ///
    /// As [`ClocklessGame::from_bpgn`].
    #[must_use]
    pub fn from_bpgn_with(
        bpgn: &str,
        clockless: ByBoard<bool>,
        profile: Profile,
        seed: u64,
    ) -> ClocklessGame {
        let games = parse_bpgn(bpgn).expect("the test game parses");
        let game: &BpgnGame = games.first().expect("the file holds a game");
        let replayed = replay(game, RulesetName::Fide.ruleset()).expect("the test game replays");
        assert_eq!(replayed.stop, None, "the test game is legal to its end");
        let plies: Vec<Ply> = replayed
            .moves
            .iter()
            .map(|m| Ply {
                board: wire_board(m.token.board),
                side: wire_side(m.token.color),
                number: m.token.number,
                san: m.canonical_san.clone(),
                clock: game.moves[m.index].clock,
            })
            .collect();
        let final_boards = boards_without_times(
            &replayed
                .moves
                .last()
                .map(|m| m.bfen.clone())
                .unwrap_or_default(),
        );
        let sim = sim_game(game, RulesetName::Fide).expect("the test game simulates");
        let trace = without_clocks(simulate(&sim, profile, seed), clockless);
        let tags: BTreeMap<String, String> = game
            .tags
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "Result" | "Setup" | "SetUp" | "FEN"))
            .cloned()
            .collect();
        let mut lines = vec![TraceLine {
            t: 0,
            event: TraceEvent::Meta {
                ruleset: Some(RulesetName::Fide.as_str().into()),
                time_control: game.tag("TimeControl").map(str::to_owned),
                setup: None,
                tags,
            },
        }];
        lines.extend(trace.into_iter().map(|(t, ev)| TraceLine {
            t,
            event: sensor::encode(&ev),
        }));
        ClocklessGame {
            lines,
            clockless,
            plies,
            result: game.team_result(),
            final_boards,
        }
    }

    /// The plies of board `b`, in order.
    #[must_use]
    pub fn plies_of(&self, b: wire::Board) -> Vec<&Ply> {
        self.plies.iter().filter(|p| p.board == b).collect()
    }

    /// Whether board `b` has no clock.
    #[must_use]
    pub fn is_clockless(&self, b: wire::Board) -> bool {
        match b {
            wire::Board::A => self.clockless.a,
            wire::Board::B => self.clockless.b,
        }
    }

    /// What is wrong with a record of this game, one line per board (empty when it is the
    /// game): the first move that differs, and the moves missing or in excess.
    #[must_use]
    pub fn differences(&self, recorded: &[Ply]) -> Vec<String> {
        let mut out = Vec::new();
        for b in [wire::Board::A, wire::Board::B] {
            let want = self.plies_of(b);
            let got: Vec<&Ply> = recorded.iter().filter(|p| p.board == b).collect();
            let same = want
                .iter()
                .zip(&got)
                .take_while(|(w, g)| w.same_move(g))
                .count();
            if same == want.len() && got.len() == want.len() {
                continue;
            }
            let mut line = format!(
                "board {}: {same} of the game's {} moves recorded right, {} recorded",
                b.as_str(),
                want.len(),
                got.len()
            );
            match (want.get(same), got.get(same)) {
                (Some(w), Some(g)) => {
                    line.push_str(&format!("; first difference: {g}, the game has {w}"))
                }
                (Some(w), None) => line.push_str(&format!("; missing from {w}")),
                (None, Some(g)) => line.push_str(&format!("; in excess from {g}")),
                (None, None) => {}
            }
            out.push(line);
        }
        out
    }
}
