//! simulate → infer → the record must give back the source game: boards, interleaving
//! order, moves, clock times to the second, and the result (with the board it was decided
//! on).
//!
//! `cargo test` runs a sample (30 random games per profile, and every legal real game of
//! `tests/data/bpgn` on every profile); `BUGBRIDGE_FULL=1 cargo test --release -p bugbridge
//! --test roundtrip -- --nocapture` runs the full set (500 random games × 3 profiles; a
//! number ≥ 500 instead of `1` runs that many) and prints the figures.

#[path = "support/corpus.rs"]
mod corpus;
use corpus::real_games;

use bugbridge::infer::{AlertCode, InferConfig, Inference, Inferrer};
use bugbridge::rules::notation::bpgn::parse_bpgn;
use bugbridge::rules::{BoardId, MatchResult, Ruleset};
use bugbridge::simulate::{Profile, SimGame, random_game, simulate};

/// How one game came back.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Exactly the source moves.
    Exact,
    /// A correct prefix, the rest stopped at an alert.
    StoppedWithAlert(usize),
    /// A wrong move (or a missing one with no alert): never acceptable.
    Wrong(String),
}

fn replay(game: &SimGame, profile: Profile, seed: u64) -> Verdict {
    let trace = simulate(game, profile, seed);
    let mut inf = Inferrer::new(InferConfig::default(), Some(game.start.clone()));
    let mut out = Vec::new();
    let mut last = 0;
    for (t, ev) in &trace {
        inf.observe_into(*t, ev, &mut out);
        last = *t;
    }
    out.extend(inf.tick(last + 60_000));
    let record = inf.record();
    // Plies reconstructed after a lost link are placed among the other board's moves by
    // times worked out from the clocks, which this simulator's think times do not follow:
    // then each board's own order is compared (`roundtrip_outages.rs` checks that such
    // records replay legally).
    let by_board = record.iter().any(|e| e.flags.gap_inferred);
    let as_recorded = record;
    let mut record: Vec<_> = record.to_vec();
    let mut wanted: Vec<_> = game.moves.clone();
    if by_board {
        record.sort_by_key(|e| e.board == BoardId::B);
        wanted.sort_by_key(|m| m.board == BoardId::B);
    }
    let game = &SimGame {
        moves: wanted,
        ..game.clone()
    };
    for (i, (got, want)) in record.iter().zip(&game.moves).enumerate() {
        if got.board != want.board || got.mv != want.mv || got.clock != Some(want.clock) {
            return Verdict::Wrong(format!(
                "ply {i}: got {}{} {} {:?} t={}, want {} {} {}",
                got.board, got.side, got.mv, got.clock, got.t, want.board, want.mv, want.clock,
            ));
        }
    }
    if record.len() > game.moves.len() {
        return Verdict::Wrong(format!(
            "extra move {:?}",
            record.get(game.moves.len()).map(|e| e.mv)
        ));
    }
    if record.len() == game.moves.len() {
        // The result too: the one the moves give (a mate), or none.
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
            return Verdict::Wrong(format!("result: got {got:?}, want {want:?}"));
        }
        // And the recorded BPGN reads back with that result, whichever board ended it.
        let text = bugbridge::record::bpgn::text(&bugbridge::record::bpgn::MatchRecord {
            moves: as_recorded,
            result: got.map(|(r, _)| r),
            ..Default::default()
        });
        let read = parse_bpgn(&text).map(|g| g[0].team_result());
        let want = want.map_or(MatchResult::Unfinished, |(r, _)| r);
        if read != Ok(want) {
            return Verdict::Wrong(format!("the BPGN reads {read:?}, want {want}:\n{text}"));
        }
        return Verdict::Exact;
    }
    let alerted = out.iter().any(|i| {
        matches!(i, Inference::Alert(a) if matches!(a.code,
            AlertCode::UnrecognizedPosition | AlertCode::ClockWithoutMove))
    });
    if alerted {
        Verdict::StoppedWithAlert(record.len())
    } else {
        Verdict::Wrong(format!(
            "stopped at ply {} of {} without an alert; next {:?}: {:?}",
            record.len(),
            game.moves.len(),
            game.moves[record.len()].board,
            game.moves[record.len()].mv
        ))
    }
}

fn games(count: u64) -> Vec<SimGame> {
    (0..count)
        .map(|seed| random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default()))
        .collect()
}

fn check_profile(games: &[SimGame], profile: Profile) -> (usize, usize, Vec<String>) {
    let mut exact = 0;
    let mut stopped = 0;
    let mut wrong = Vec::new();
    for (i, g) in games.iter().enumerate() {
        match replay(g, profile, 1000 + i as u64) {
            Verdict::Exact => exact += 1,
            Verdict::StoppedWithAlert(_) => stopped += 1,
            Verdict::Wrong(w) => wrong.push(format!("game {i} ({profile}): {w}")),
        }
    }
    (exact, stopped, wrong)
}

fn full() -> bool {
    std::env::var("BUGBRIDGE_FULL").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `BUGBRIDGE_FULL=1`: 500 games per profile; a larger number: that many.
fn full_count() -> u64 {
    std::env::var("BUGBRIDGE_FULL")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&n| n >= 500)
        .unwrap_or(500)
}

fn run(profile: Profile) {
    let count = if full() { full_count() } else { 30 };
    let gs = games(count);
    let plies: usize = gs.iter().map(|g| g.moves.len()).sum();
    let (exact, stopped, wrong) = check_profile(&gs, profile);
    println!(
        "{profile}: {count} games, {plies} plies: {exact} exact, {stopped} stopped with an alert, {} wrong",
        wrong.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    match profile {
        Profile::Clean | Profile::Noisy => assert_eq!(exact, gs.len(), "{profile}: all exact"),
        Profile::Faults | Profile::Outages => assert!(
            exact * 100 >= gs.len() * 99,
            "faults: {exact} of {} exact",
            gs.len()
        ),
    }
}

#[test]
fn random_games_round_trip_exactly_on_clean() {
    run(Profile::Clean);
}

#[test]
fn random_games_round_trip_exactly_on_noisy() {
    run(Profile::Noisy);
}

#[test]
fn random_games_round_trip_on_faults_or_stop_with_an_alert() {
    run(Profile::Faults);
}

#[test]
fn real_bpgn_games_round_trip_exactly_on_every_profile() {
    let games = real_games();
    assert!(
        games.len() >= 10,
        "only {} legal real games found",
        games.len()
    );
    // Outages have their own round trip (`roundtrip_outages.rs`), judged per board.
    for profile in [Profile::Clean, Profile::Noisy, Profile::Faults] {
        for seed in 0..3 {
            for (name, game) in &games {
                match replay(game, profile, seed) {
                    Verdict::Exact => {}
                    Verdict::StoppedWithAlert(_) if profile == Profile::Faults => {}
                    other => panic!("{name} ({profile}, seed {seed}): {other:?}"),
                }
            }
        }
    }
    println!(
        "{} legal real games × 3 profiles × 3 seeds: exact",
        games.len()
    );
}

#[test]
fn random_games_include_drops_promotions_and_both_boards() {
    let gs = games(30);
    let moves = gs.iter().flat_map(|g| &g.moves);
    let drops = moves.clone().filter(|m| m.mv.is_drop()).count();
    let promotions = moves.clone().filter(|m| m.mv.promotion().is_some()).count();
    let b = moves.clone().filter(|m| m.board == BoardId::B).count();
    assert!(
        drops > 30 && promotions > 3 && b > 100,
        "{drops} {promotions} {b}"
    );
}

#[test]
fn simulation_is_reproducible() {
    let g = random_game(3, 40, Ruleset::default());
    assert_eq!(
        simulate(&g, Profile::Faults, 9),
        simulate(&g, Profile::Faults, 9)
    );
}
