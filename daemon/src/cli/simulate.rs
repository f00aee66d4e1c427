//! `bugbridge simulate [--game N] [--seed S] [--noise clean|noisy|faults] [--no-clock A|B|AB]
//! FILE.bpgn`: the sensor trace two real boards would produce for game N, on stdout.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bugbridge_drivers::trace::{TraceEvent, TraceLine, TraceWriter};
use clap::Args;

use crate::rules::notation::bpgn::{BpgnGame, ReplayStop, parse_bpgn, replay};
use crate::rules::{BughouseGame, RulesetName};
use crate::sensor;
use crate::simulate::{NoClock, Profile, SimGame, SimMove, simulate, without_clocks};

use super::check::parse_ruleset;

/// Arguments of `simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Which game of the file, counted from 1.
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// The seed of the physical noise: the same seed gives the same trace.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How the players and the sensors behave: clean, noisy, faults or outages.
    #[arg(long, default_value = "clean", value_parser = parse_profile)]
    pub noise: Profile,
    /// Boards without a clock: A, B or AB. Their clock readings are left out of the trace
    /// (the players keep the pace the game's clocks gave).
    #[arg(long, value_name = "A|B|AB")]
    pub no_clock: Option<NoClock>,
    /// The ruleset (default: koedem for a game tagged `[Variant "Bughouse Koedem"]`, else
    /// fide).
    #[arg(long, value_parser = parse_ruleset)]
    pub ruleset: Option<RulesetName>,
    /// The BPGN file.
    pub file: PathBuf,
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse()
        .map_err(|e: crate::simulate::UnknownProfile| e.to_string())
}

/// The game of a BPGN record as the simulator takes it: its start, its moves in order with
/// the mover's clock at each press, and the base time. Moves without a clock comment get
/// the mover's previous time (or the base time); a game that turns illegal is simulated up
/// to and including the illegal move, as it was played.
///
/// # Errors
///
/// A message when the `FEN` setup cannot be read.
pub fn sim_game(game: &BpgnGame, ruleset: RulesetName) -> Result<SimGame, String> {
    sim_game_to_stop(game, ruleset).map(|(sim, _)| sim)
}

/// [`sim_game`], and where the game stopped being playable, if it did: the illegal move
/// (simulated, as it was played) or the move that names no possible move (not simulated).
/// The moves after it are not in the [`SimGame`].
///
/// # Errors
///
/// A message when the `FEN` setup cannot be read.
pub fn sim_game_to_stop(
    game: &BpgnGame,
    ruleset: RulesetName,
) -> Result<(SimGame, Option<ReplayStop>), String> {
    let rules = ruleset.ruleset();
    let start = game
        .start_positions(rules)
        .map_err(|e| format!("the FEN tag: {e}"))?;
    let base = game.base_time().unwrap_or(180.0);
    let replayed = replay(game, rules).map_err(|e| e.to_string())?;
    let mut last = crate::rules::ByBoard::new_with(|b| {
        start[b].times.unwrap_or(crate::rules::ByColor {
            white: base,
            black: base,
        })
    });
    let moves = replayed
        .moves
        .iter()
        .map(|r| {
            let board = r.token.board;
            let color = r.token.color;
            let clock = game
                .moves
                .get(r.index)
                .and_then(|m| m.clock)
                .unwrap_or(last[board][color]);
            last[board][color] = clock;
            SimMove {
                board,
                mv: r.mv,
                clock,
                grab: game.moves.get(r.index).and_then(|m| m.san.grab),
            }
        })
        .collect();
    let sim = SimGame {
        start: BughouseGame::from_positions(start.a.position, start.b.position, rules),
        moves,
        base_seconds: base,
    };
    Ok((sim, replayed.stop))
}

pub(super) fn run(args: SimulateArgs) -> u8 {
    let file = args.file.display().to_string();
    let text = match std::fs::read(&args.file) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("{file}: cannot read: {e}");
            return 2;
        }
    };
    let games = match parse_bpgn(&text) {
        Ok(g) => g,
        Err(e) => {
            eprintln!(
                "{file}:{}:{}: expected {}, found {}",
                e.line, e.column, e.expected, e.found
            );
            return 1;
        }
    };
    let Some(game) = args.game.checked_sub(1).and_then(|i| games.get(i)) else {
        eprintln!(
            "{file}: no game #{} (the file holds {})",
            args.game,
            games.len()
        );
        return 2;
    };
    let ruleset = args
        .ruleset
        .or_else(|| {
            game.tag(crate::rules::notation::variant::VARIANT_TAG)
                .and_then(crate::rules::notation::variant::ruleset_of_variant)
        })
        .unwrap_or_default();
    let (sim, stop) = match sim_game_to_stop(game, ruleset) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file} #{}: {e}", args.game);
            return 1;
        }
    };
    let total = game.moves.len();
    let mut tags: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in &game.tags {
        // The start position travels in `meta`'s `setup`, the result is the trace's to say.
        if !matches!(k.as_str(), "Result" | "Setup" | "SetUp" | "FEN") {
            tags.insert(k.clone(), v.clone());
        }
    }
    let meta = TraceLine {
        t: 0,
        event: TraceEvent::Meta {
            ruleset: Some(ruleset.as_str().to_owned()),
            time_control: game.tag("TimeControl").map(str::to_owned),
            setup: game.setup.clone(),
            tags,
        },
    };
    let stdout = std::io::stdout();
    let mut w = TraceWriter::new(std::io::BufWriter::new(stdout.lock()));
    let mut ok = w.write(&meta).is_ok();
    let mut trace = simulate(&sim, args.noise, args.seed);
    if let Some(NoClock(boards)) = args.no_clock {
        trace = without_clocks(trace, boards);
    }
    for (t, ev) in trace {
        ok &= w
            .write(&TraceLine {
                t,
                event: sensor::encode(&ev),
            })
            .is_ok();
    }
    ok &= w.flush().is_ok();
    if !ok {
        return 3;
    }
    match stop {
        // The trace is written up to where the game stopped being playable: a truncated
        // game is said, and is not a success.
        Some(stop) => {
            let how = match &stop {
                ReplayStop::Illegal { .. } => "the illegal move is in the trace, as played",
                ReplayStop::Unresolved { .. } | ReplayStop::Repeated { .. } => {
                    "that move is not in the trace"
                }
            };
            eprintln!(
                "{file} #{}: stopped at {stop} ({how}); the trace holds {} of the {total} moves",
                args.game,
                sim.moves.len()
            );
            1
        }
        None => 0,
    }
}
