//! The test game: a real corpus game turned into the sensor trace two boards with clocks
//! would produce, and what the daemon must make of it.
//!
//! The trace comes from the project's own simulator (`bugbridge::cli::simulate::sim_game` +
//! `bugbridge::simulate::simulate`, profile `clean`, so it is the same on every run). The
//! times at the presses are cut to whole seconds, since that is what a DGT clock shows and
//! so what the emulated clock reports. The expectation is the offline re-inference of the
//! very same trace (`bugbridge::cli::replay::replay_text`): the moves, their order, times
//! and BFENs an uninterrupted run records.

use std::collections::BTreeMap;

use bugbridge::cli::replay::replay_text;
use bugbridge::cli::simulate::sim_game;
use bugbridge::infer::Inference;
use bugbridge::publish;
use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::bpgn::parse_bpgn;
use bugbridge::sensor;
use bugbridge::simulate::{Profile, simulate};
use bugbridge_broadcast::wire;
use bugbridge_drivers::trace::{TraceEvent, TraceLine, TraceWriter};

/// A short real game: 8 plies on both boards, no captures (`pychess-variants/1283326`).
pub const SHORT_GAME: &str =
    include_str!("../../daemon/tests/data/bpgn/pychess-variants/1283326.bpgn");

/// The demo's game (`1934301`): 110 plies with captures, drops, checks and a mate.
pub const DEMO_GAME: &str = include_str!("../../daemon/data/demo/1934301.bpgn");

/// One move as the daemon must publish it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedMove {
    /// The board.
    pub board: wire::Board,
    /// The mover.
    pub side: wire::Side,
    /// The BPGN move number.
    pub number: u32,
    /// The SAN.
    pub san: String,
    /// The mover's time at the press.
    pub clock: Option<f64>,
    /// The BFEN after the move.
    pub bfen: String,
}

impl ExpectedMove {
    /// Whether a published `events` message is this move (its `t` and `seq` are the
    /// daemon's own and not compared).
    #[must_use]
    pub fn matches(&self, e: &wire::Event) -> bool {
        e.kind == wire::EventKind::Move
            && e.board == Some(self.board)
            && e.side == Some(self.side)
            && e.number == Some(self.number)
            && e.san.as_deref() == Some(self.san.as_str())
            && e.clock == self.clock
            && e.bfen.as_deref() == Some(self.bfen.as_str())
    }
}

/// A game ready to be played by emulated boards, with its expected outcome.
#[derive(Debug, Clone)]
pub struct TestGame {
    /// The trace, `meta` first.
    pub lines: Vec<TraceLine>,
    /// The same trace as text (`.trace.jsonl`).
    pub text: String,
    /// Every move, in the order it must be decided.
    pub moves: Vec<ExpectedMove>,
    /// The BPGN of an uninterrupted run (the re-inference of [`TestGame::text`]).
    pub bpgn: String,
    /// The BFEN after the last move.
    pub final_bfen: String,
}

impl TestGame {
    /// The first game of `bpgn`, cut to its first `plies` moves (all of them if `None`).
    ///
    /// # Panics
    ///
    /// When the game cannot be read or simulated, or its re-inference differs from the
    /// game itself (then the test could not tell the daemon's faults from the simulator's).
    #[must_use]
    pub fn from_bpgn(bpgn: &str, plies: Option<usize>) -> TestGame {
        TestGame::from_bpgn_under(bpgn, plies, RulesetName::Fide)
    }

    /// [`TestGame::from_bpgn`] under `ruleset`.
    ///
    /// # Panics
    ///
    /// As [`TestGame::from_bpgn`].
    #[must_use]
    pub fn from_bpgn_under(bpgn: &str, plies: Option<usize>, ruleset: RulesetName) -> TestGame {
        let games = parse_bpgn(bpgn).expect("the test game parses");
        let game = games.first().expect("the file holds a game");
        let mut sim = sim_game(game, ruleset).expect("the test game simulates");
        if let Some(n) = plies {
            sim.moves.truncate(n);
        }
        for m in &mut sim.moves {
            m.clock = m.clock.floor();
        }
        sim.base_seconds = sim.base_seconds.floor();
        let tags: BTreeMap<String, String> = game
            .tags
            .iter()
            .filter(|(k, _)| k.starts_with("White") || k.starts_with("Black") || k == "Event")
            .cloned()
            .collect();
        let mut lines = vec![TraceLine {
            t: 0,
            event: TraceEvent::Meta {
                ruleset: Some(ruleset.as_str().into()),
                time_control: game.tag("TimeControl").map(str::to_owned),
                setup: None,
                tags,
            },
        }];
        lines.extend(
            simulate(&sim, Profile::Clean, 1)
                .into_iter()
                .map(|(t, ev)| TraceLine {
                    t,
                    event: sensor::encode(&ev),
                }),
        );
        let mut w = TraceWriter::new(Vec::new());
        for l in &lines {
            w.write(l).expect("writing to memory");
        }
        w.flush().expect("writing to memory");
        let text = String::from_utf8(w.into_inner()).expect("a trace is UTF-8");
        let replayed = replay_text(&text, None).expect("the test trace re-infers");
        let moves: Vec<ExpectedMove> = replayed
            .decisions
            .iter()
            .filter(|d| matches!(d, Inference::Move { .. }))
            .filter_map(publish::event)
            .map(|e| ExpectedMove {
                board: e.board.expect("a move has a board"),
                side: e.side.expect("a move has a side"),
                number: e.number.expect("a move has a number"),
                san: e.san.expect("a move has a SAN"),
                clock: e.clock,
                bfen: e.bfen.expect("a move has a BFEN"),
            })
            .collect();
        assert_eq!(
            moves.len(),
            sim.moves.len(),
            "the re-inference of the test trace must find every move of the game"
        );
        let alerts = replayed
            .decisions
            .iter()
            .filter(|d| matches!(d, Inference::Alert(_)))
            .count();
        assert_eq!(alerts, 0, "the clean test trace raises no alert");
        let final_bfen = moves.last().map(|m| m.bfen.clone()).unwrap_or_default();
        TestGame {
            lines,
            text,
            moves,
            bpgn: replayed.game.bpgn(),
            final_bfen,
        }
    }

    /// A random Koedem game of the simulator (seed `seed`), written as BPGN the way
    /// bughouse.pro writes it (grabs `b8=Ra1`), then made a test game under koedem.
    ///
    /// # Panics
    ///
    /// As [`TestGame::from_bpgn`].
    #[must_use]
    pub fn koedem(seed: u64) -> TestGame {
        TestGame::from_bpgn_under(&koedem_bpgn(seed), None, RulesetName::Koedem)
    }

    /// The 8-ply game [`SHORT_GAME`].
    #[must_use]
    pub fn short() -> TestGame {
        TestGame::from_bpgn(SHORT_GAME, None)
    }

    /// The first `plies` moves of [`DEMO_GAME`] (40 reach drops and checks on both boards).
    #[must_use]
    pub fn demo_prefix(plies: usize) -> TestGame {
        TestGame::from_bpgn(DEMO_GAME, Some(plies))
    }
}

/// The movetext of a BPGN text: everything after the tag pairs, with line breaks and runs
/// of spaces made single spaces (files written at different times differ in their `Date`
/// and `Time` tags, never in their moves).
#[must_use]
pub fn movetext(bpgn: &str) -> String {
    bpgn.lines()
        .filter(|l| !l.trim_start().starts_with('['))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The BPGN text of the simulator's random Koedem game `seed`.
#[must_use]
pub fn koedem_bpgn(seed: u64) -> String {
    use bugbridge::rules::notation::San;
    use bugbridge::rules::{ByBoard, Color};
    let sim = bugbridge::simulate::random_game(seed, 200, RulesetName::Koedem.ruleset());
    let mut game = sim.start.clone();
    let mut numbers: ByBoard<u32> = ByBoard::default();
    let mut text = String::from(
        "[Event \"random Koedem game\"]\n[WhiteA \"a\"]\n[BlackA \"b\"]\n[WhiteB \"c\"]\n[BlackB \"d\"]\n[TimeControl \"300+0\"]\n[Variant \"Bughouse Koedem\"]\n\n",
    );
    for m in &sim.moves {
        let pos = game.board(m.board);
        let color = pos.mover(&m.mv);
        if color == Color::White {
            numbers[m.board] += 1;
        }
        let letter = match color {
            Color::White => m.board.char(),
            Color::Black => m.board.char().to_ascii_lowercase(),
        };
        let san = San::from_move(pos, &m.mv).with_grab(m.grab).to_string();
        text.push_str(&format!(
            "{}{letter}. {san} {{{}}} ",
            numbers[m.board].max(1),
            m.clock
        ));
        match m.grab {
            Some(g) => {
                game.play_grab_promotion(m.board, &m.mv, g, 0)
                    .expect("the random game's grab is legal");
            }
            None => {
                game.play(m.board, &m.mv, 0);
            }
        }
    }
    text.push_str(game.result().as_str());
    text.push('\n');
    text
}
