//! Koedem in the simulator: random legal Koedem games (king captures, king drops, grab
//! promotions) and traces that are physically faithful — the king handed over and dropped,
//! the grabbed piece lifted from the other board while that board plays on.
//!
//! Also the round trip through the inference of Koedem games whose promotions are announced
//! (the ruleset's alternative): king captures and king drops come back exactly.

use bugbridge::infer::{InferConfig, Inferrer, SensorEvent};
use bugbridge::rules::{Board, BoardId, BughouseGame, ByBoard, Role, RulesetName};
use bugbridge::simulate::{Profile, SimGame, random_game, simulate};

fn koedem_games(count: u64) -> Vec<SimGame> {
    (0..count)
        .map(|seed| random_game(seed, 120, RulesetName::Koedem.ruleset()))
        .collect()
}

/// The positions after each move, replaying the game as the simulator's source.
fn positions_after(game: &SimGame) -> Vec<BughouseGame> {
    let mut state = game.start.clone();
    let mut out = Vec::new();
    for (i, m) in game.moves.iter().enumerate() {
        match m.grab {
            Some(g) => {
                state
                    .play_grab_promotion(m.board, &m.mv, g, i as u64)
                    .expect("the random game's grab is legal");
            }
            None => {
                state.play(m.board, &m.mv, i as u64);
            }
        }
        out.push(state.clone());
    }
    out
}

#[test]
fn random_koedem_games_capture_drop_kings_and_grab() {
    let games = koedem_games(40);
    let mut king_captures = 0;
    let mut king_drops = 0;
    let mut grabs = 0;
    let mut four_kings = 0;
    for g in &games {
        king_captures += g
            .moves
            .iter()
            .filter(|m| m.mv.capture() == Some(Role::King))
            .count();
        king_drops += g
            .moves
            .iter()
            .filter(|m| m.mv.is_drop() && m.mv.role() == Role::King)
            .count();
        grabs += g.moves.iter().filter(|m| m.grab.is_some()).count();
        let after = positions_after(g);
        // Every grab promoted to the grabbed role and every move was legal.
        let mut state = g.start.clone();
        for (m, next) in g.moves.iter().zip(&after) {
            assert!(state.classify(m.board, &m.mv).is_legal(), "{:?}", m.mv);
            state = next.clone();
        }
        if state.team_with_all_kings().is_some() {
            four_kings += 1;
        }
    }
    println!(
        "{king_captures} king captures, {king_drops} king drops, {grabs} grabs, {four_kings} four-kings ends"
    );
    assert!(king_captures >= 60, "{king_captures}");
    assert!(king_drops >= 50, "{king_drops}");
    assert!(grabs >= 100, "{grabs}");
    assert!(four_kings >= 4, "{four_kings}");
}

/// Applies the trace's readings to both boards; calls `at_press(board, k)` with the boards
/// as they stand at the k-th press of `board` (clean traces: one clock event per press).
fn walk_clean(trace: &[(u64, SensorEvent)], mut at_press: impl FnMut(BoardId, usize, &Board)) {
    let mut boards: ByBoard<Board> = ByBoard::default();
    let mut presses: ByBoard<usize> = ByBoard::default();
    let mut started: ByBoard<bool> = ByBoard::default();
    for (_, ev) in trace {
        match ev {
            SensorEvent::Snapshot { board, placement } => boards[*board] = *placement,
            SensorEvent::Square { board, sq, piece } => boards[*board].set_square(*sq, *piece),
            SensorEvent::Clock { board, .. } => {
                if started[*board] {
                    at_press(*board, presses[*board], &boards[*board]);
                    presses[*board] += 1;
                } else {
                    started[*board] = true;
                }
            }
            _ => {}
        }
    }
}

fn final_boards(trace: &[(u64, SensorEvent)]) -> ByBoard<Board> {
    let mut boards: ByBoard<Board> = ByBoard::default();
    for (_, ev) in trace {
        match ev {
            SensorEvent::Snapshot { board, placement } => boards[*board] = *placement,
            SensorEvent::Square { board, sq, piece } => boards[*board].set_square(*sq, *piece),
            _ => {}
        }
    }
    boards
}

#[test]
fn clean_koedem_traces_show_each_position_at_its_press() {
    for (n, g) in koedem_games(40).iter().enumerate() {
        let after = positions_after(g);
        let per_board: ByBoard<Vec<&BughouseGame>> = ByBoard::new_with(|b| {
            g.moves
                .iter()
                .zip(&after)
                .filter(|(m, _)| m.board == b)
                .map(|(_, s)| s)
                .collect()
        });
        let trace = simulate(g, Profile::Clean, 7 + n as u64);
        let mut checked = 0;
        walk_clean(&trace, |b, k, shown| {
            let want = per_board[b][k].board(b).board();
            assert_eq!(shown, want, "game {n}: board {b} press {k}");
            checked += 1;
        });
        assert_eq!(checked, g.moves.len(), "game {n}: one press per move");
    }
}

#[test]
fn koedem_traces_end_with_the_final_position_and_lift_every_grab_on_the_other_board() {
    for profile in Profile::ALL {
        for (n, g) in koedem_games(30).iter().enumerate() {
            let end = positions_after(g).pop().unwrap_or_else(|| g.start.clone());
            let trace = simulate(g, profile, 100 + n as u64);
            let shown = final_boards(&trace);
            for b in BoardId::ALL {
                assert_eq!(
                    &shown[b],
                    end.board(b).board(),
                    "game {n} {profile}: board {b} at the end"
                );
            }
            // Each grab empties its square on the other board by a reading of that board
            // (unless a link gap hides it and a snapshot shows it afterwards).
            for m in g.moves.iter().filter(|m| m.grab.is_some()) {
                let other = m.board.other();
                let sq = m.grab.expect("grab");
                let lifted = trace.iter().any(|(_, ev)| match ev {
                    SensorEvent::Square {
                        board,
                        sq: s,
                        piece,
                    } => *board == other && *s == sq && piece.is_none(),
                    SensorEvent::Snapshot { board, .. } => *board == other,
                    _ => false,
                });
                assert!(
                    lifted,
                    "game {n} {profile}: grab from {other}{sq} never lifted"
                );
            }
        }
    }
}

#[test]
fn announced_koedem_games_round_trip_through_the_inference() {
    let mut rules = RulesetName::Koedem.ruleset();
    rules.promotion_by_grab = false;
    let games: Vec<SimGame> = (0..20).map(|seed| random_game(seed, 120, rules)).collect();
    let king_captures: usize = games
        .iter()
        .map(|g| {
            g.moves
                .iter()
                .filter(|m| m.mv.capture() == Some(Role::King))
                .count()
        })
        .sum();
    assert!(king_captures >= 30, "{king_captures}");
    for profile in [Profile::Clean, Profile::Noisy] {
        for (n, g) in games.iter().enumerate() {
            let trace = simulate(g, profile, 500 + n as u64);
            let config = InferConfig {
                ruleset: rules,
                ..InferConfig::default()
            };
            let mut inf = Inferrer::new(config, Some(g.start.clone()));
            let mut out = Vec::new();
            let mut last = 0;
            for (t, ev) in &trace {
                inf.observe_into(*t, ev, &mut out);
                last = *t;
            }
            out.extend(inf.tick(last + 60_000));
            let record = inf.record();
            assert_eq!(record.len(), g.moves.len(), "game {n} {profile}: plies");
            for (i, (got, want)) in record.iter().zip(&g.moves).enumerate() {
                assert_eq!(
                    (got.board, got.mv, got.clock),
                    (want.board, want.mv, Some(want.clock)),
                    "game {n} {profile}: ply {i}"
                );
            }
        }
    }
}
