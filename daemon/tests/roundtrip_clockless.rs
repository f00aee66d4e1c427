//! simulate → leave out the clocks of board B (or of both) → infer: each board's record must
//! be its game, move for move, at the pace the games were played, with no illegal-move
//! alert in a legal game and no wrong move; the whole record must replay by the rules (a
//! drop after the capture that supplied it).
//!
//! `cargo test` runs a sample (every legal real game of `tests/data/bpgn` and 20 random
//! games per profile and table); `BUGBRIDGE_FULL=1 cargo test --release -p bugbridge --test
//! roundtrip_clockless -- --nocapture` runs every real game on 3 seeds and 500 random games
//! per profile and table (a number ≥ 500 instead of `1` runs that many) and prints the
//! figures.

#[path = "support/corpus.rs"]
mod corpus;
use corpus::real_games;

use bugbridge::infer::{AlertCode, InferConfig, Inference, Inferrer, RecordEntry};
use bugbridge::rules::{BoardId, BughouseGame, ByBoard, Ruleset};
use bugbridge::simulate::{Profile, SimGame, random_game, simulate, without_clocks};

/// How one board of one game came back.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BoardVerdict {
    Exact,
    /// A correct prefix, then nothing more (a move never recognised).
    Short(usize),
    /// A wrong move: never acceptable.
    Wrong(String),
}

#[derive(Debug, Default)]
struct Tally {
    games: usize,
    boards: usize,
    exact: usize,
    short: usize,
    wrong: Vec<String>,
    illegal_alerts: usize,
    other_alerts: usize,
    unreplayable: Vec<String>,
    revisions: usize,
    /// Clockless moves: trace ms from the placement that completed a move to its commit.
    latencies: Vec<u64>,
}

impl Tally {
    fn line(&self, what: &str) -> String {
        let mut l = self.latencies.clone();
        l.sort_unstable();
        let pct = |p: f64| {
            l.get(((l.len() as f64 - 1.0) * p).round() as usize)
                .copied()
                .unwrap_or(0)
        };
        format!(
            "{what}: {} games, {} boards: {} exact ({:.1} %), {} short, {} wrong, {} illegal-move alerts, {} other alerts, {} revised, {} not replayable; commit latency p50 {} ms, p99 {} ms, max {} ms",
            self.games,
            self.boards,
            self.exact,
            100.0 * self.exact as f64 / self.boards.max(1) as f64,
            self.short,
            self.wrong.len(),
            self.illegal_alerts,
            self.other_alerts,
            self.revisions,
            self.unreplayable.len(),
            pct(0.5),
            pct(0.99),
            l.last().copied().unwrap_or(0)
        )
    }
}

fn judge_board(
    record: &[RecordEntry],
    game: &SimGame,
    board: BoardId,
    clockless: bool,
) -> BoardVerdict {
    let got: Vec<&RecordEntry> = record.iter().filter(|e| e.board == board).collect();
    let want: Vec<_> = game.moves.iter().filter(|m| m.board == board).collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let clock_ok = if clockless {
            g.clock.is_none()
        } else {
            g.clock == Some(w.clock)
        };
        if g.mv != w.mv || !clock_ok {
            return BoardVerdict::Wrong(format!(
                "board {board} ply {i}: got {} ({:?}, t={}), want {} ({})",
                g.san, g.clock, g.t, w.mv, w.clock
            ));
        }
    }
    if got.len() > want.len() {
        return BoardVerdict::Wrong(format!("board {board}: extra move {}", got[want.len()].san));
    }
    if got.len() < want.len() {
        return BoardVerdict::Short(got.len());
    }
    BoardVerdict::Exact
}

/// Whether the record, in its order, replays by the rules from the start.
fn replays(record: &[RecordEntry], start: &BughouseGame) -> Result<(), String> {
    let mut g = start.clone();
    for (i, e) in record.iter().enumerate() {
        let legality = g.classify(e.board, &e.mv);
        if !legality.is_legal() {
            return Err(format!(
                "entry {i} ({}{} {}) is {legality:?} in record order",
                e.board, e.side, e.san
            ));
        }
        g.play(e.board, &e.mv, e.t);
    }
    Ok(())
}

fn run_one(
    game: &SimGame,
    profile: Profile,
    seed: u64,
    clockless: ByBoard<bool>,
    tally: &mut Tally,
    name: &str,
) {
    let trace = without_clocks(simulate(game, profile, seed), clockless);
    let config = InferConfig {
        clock: ByBoard::new_with(|b| !clockless[b]),
        ..InferConfig::default()
    };
    let mut inf = Inferrer::new(config, Some(game.start.clone()));
    let mut out = Vec::new();
    let mut last = 0;
    let mut seen = 0;
    let mut latency = |out: &[Inference], now: u64, tally: &mut Tally| {
        for i in &out[seen..] {
            if let Inference::Move { entry, .. } = i
                && entry.flags.no_clock
            {
                tally.latencies.push(now.saturating_sub(entry.t));
            }
        }
        seen = out.len();
    };
    for (t, ev) in &trace {
        // The daemon's timers tick between events.
        let mut k = last + 50;
        while k < *t {
            out.extend(inf.tick(k));
            latency(&out, k, tally);
            k += 50;
        }
        inf.observe_into(*t, ev, &mut out);
        latency(&out, *t, tally);
        last = *t;
    }
    out.extend(inf.tick(last + 60_000));
    tally.games += 1;
    for a in out.iter().filter_map(|i| match i {
        Inference::Alert(a) => Some(a),
        _ => None,
    }) {
        if a.code == AlertCode::IllegalMove {
            tally.illegal_alerts += 1;
            tally.wrong.push(format!(
                "{name} seed {seed} ({profile}): alert {}",
                a.detail
            ));
        } else {
            tally.other_alerts += 1;
        }
    }
    tally.revisions += out
        .iter()
        .filter(|i| matches!(i, Inference::Correction(_)))
        .count();
    let record = inf.record();
    let mut all_exact = true;
    for b in BoardId::ALL {
        tally.boards += 1;
        all_exact &= judge_board(record, game, b, clockless[b]) == BoardVerdict::Exact;
        match judge_board(record, game, b, clockless[b]) {
            BoardVerdict::Exact => tally.exact += 1,
            BoardVerdict::Short(n) => {
                tally.short += 1;
                if std::env::var("BUGBRIDGE_VERBOSE").is_ok() {
                    eprintln!("{name} seed {seed} ({profile}) board {b}: short at {n}");
                }
            }
            BoardVerdict::Wrong(w) => tally
                .wrong
                .push(format!("{name} seed {seed} ({profile}): {w}")),
        }
    }
    if all_exact {
        // The result too: the one the moves give (a mate), or none, on the board it was
        // decided on.
        let mut played = game.start.clone();
        for m in &game.moves {
            played.play(m.board, &m.mv, 0);
        }
        let want = played.end().map(|e| (e.result, e.board));
        let got = out.iter().rev().find_map(|i| match i {
            Inference::End { result, board, .. } => Some((*result, *board)),
            _ => None,
        });
        if got != want {
            tally.wrong.push(format!(
                "{name} seed {seed} ({profile}): result {got:?}, want {want:?}"
            ));
        }
    }
    if let Err(e) = replays(record, &game.start) {
        tally
            .unreplayable
            .push(format!("{name} seed {seed} ({profile}): {e}"));
    }
}

fn full() -> Option<u64> {
    let v = std::env::var("BUGBRIDGE_FULL").ok()?;
    let n = v.parse::<u64>().ok()?;
    (n > 0).then_some(if n >= 500 { n } else { 500 })
}

const TABLES: [(&str, ByBoard<bool>); 2] = [
    ("board B clockless", ByBoard { a: false, b: true }),
    ("both clockless", ByBoard { a: true, b: true }),
];

fn check(tally: &Tally, what: &str, exact_share: f64) {
    println!("{}", tally.line(what));
    assert!(
        tally.wrong.is_empty(),
        "{what}:\n{}",
        tally.wrong.join("\n")
    );
    assert!(
        tally.unreplayable.is_empty(),
        "{what}:\n{}",
        tally.unreplayable.join("\n")
    );
    assert!(
        tally.exact as f64 >= exact_share * tally.boards as f64,
        "{what}: {} of {} boards exact",
        tally.exact,
        tally.boards
    );
}

fn random_run(profile: Profile) {
    let count = full().unwrap_or(20);
    let games: Vec<SimGame> = (0..count)
        .map(|seed| random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default()))
        .collect();
    for (what, table) in TABLES {
        let mut tally = Tally::default();
        for (i, g) in games.iter().enumerate() {
            run_one(
                g,
                profile,
                5000 + i as u64,
                table,
                &mut tally,
                &format!("random {i}"),
            );
        }
        check(&tally, &format!("random, {profile}, {what}"), 0.99);
    }
}

#[test]
fn random_games_without_clocks_round_trip_on_clean() {
    random_run(Profile::Clean);
}

#[test]
fn random_games_without_clocks_round_trip_on_noisy() {
    random_run(Profile::Noisy);
}

#[test]
fn random_games_without_clocks_round_trip_on_faults() {
    random_run(Profile::Faults);
}

#[test]
fn real_games_without_clocks_round_trip_on_every_profile() {
    let games = real_games();
    assert!(games.len() >= 10, "only {} legal real games", games.len());
    let seeds = if full().is_some() { 3 } else { 1 };
    for profile in [Profile::Clean, Profile::Noisy, Profile::Faults] {
        for (what, table) in TABLES {
            let mut tally = Tally::default();
            for seed in 0..seeds {
                for (name, game) in &games {
                    run_one(game, profile, seed, table, &mut tally, name);
                }
            }
            check(&tally, &format!("real, {profile}, {what}"), 0.95);
        }
    }
}
