//! The two kinds of link outage of the simulator's `outages` profile, as they show in the
//! trace: a board that lost its power reports nothing of the window (its next snapshot
//! differs from what was heard when it moved meanwhile: the gap search's case); a DGT board
//! that stayed powered reports at link-up what its EEPROM log kept, as a DGT session
//! replays it: a snapshot of the board as the link left it, the window's field changes and
//! presses, then the dump, all at the link-up time, so that what was heard always adds up
//! to each snapshot.

use bugbridge::infer::SensorEvent;
use bugbridge::rules::{Board, ByBoard, Ruleset};
use bugbridge::simulate::{Profile, random_game, simulate};

/// What one outage of a trace looked like.
#[derive(Debug, Default)]
struct Seen {
    /// Replayed from the log (a snapshot right at link-up).
    logged: bool,
    /// Presses among the replayed events.
    presses: usize,
    /// Every snapshot from link-up to the dump matched what had been heard.
    consistent: bool,
}

/// The outages of a trace, in order.
fn outages(trace: &[(u64, SensorEvent)]) -> Vec<Seen> {
    let mut heard: ByBoard<Option<Board>> = ByBoard::default();
    let mut running: ByBoard<Option<Option<bugbridge::rules::Color>>> = ByBoard::default();
    let mut open: ByBoard<Option<(u64, Seen, usize)>> = ByBoard::default();
    let mut out = Vec::new();
    for (t, ev) in trace {
        match ev {
            SensorEvent::Link { board, up: false } => {
                open[*board] = Some((
                    *t,
                    Seen {
                        consistent: true,
                        ..Seen::default()
                    },
                    0,
                ));
            }
            SensorEvent::Link { board, up: true } => {
                if let Some((_, seen, _)) = open[*board].take() {
                    open[*board] = Some((*t, seen, 1));
                }
            }
            SensorEvent::Snapshot { board, placement } => {
                if let Some((up, mut seen, k)) = open[*board].take() {
                    if k == 1 && *t == up {
                        seen.logged = true;
                    }
                    seen.consistent &= heard[*board] == Some(*placement);
                    if k == 1 && seen.logged {
                        // The board as it was left: the log's events follow.
                        open[*board] = Some((up, seen, 2));
                    } else {
                        out.push(seen);
                    }
                }
                heard[*board] = Some(*placement);
            }
            SensorEvent::Square { board, sq, piece } => {
                if let Some(b) = &mut heard[*board] {
                    b.set_square(*sq, *piece);
                }
            }
            SensorEvent::Clock {
                board, running: r, ..
            } => {
                let before = running[*board].replace(*r);
                if let Some((up, seen, 2)) = &mut open[*board]
                    && *t == *up
                    && before.is_some_and(|b| b.is_some() && b != *r)
                {
                    seen.presses += 1;
                }
            }
            SensorEvent::Operator(_)
            | SensorEvent::ClockLink { .. }
            | SensorEvent::ClockSide { .. } => {}
        }
    }
    out
}

#[test]
fn outages_are_of_both_kinds_and_a_logged_one_adds_up_to_the_dump() {
    let mut all = Vec::new();
    for seed in 0..30u64 {
        let game = random_game(seed, 80, Ruleset::default());
        let trace = simulate(&game, Profile::Outages, 7000 + seed);
        let seen = outages(&trace);
        assert!(!seen.is_empty(), "seed {seed}: at least one outage a game");
        all.extend(seen);
    }
    let logged: Vec<&Seen> = all.iter().filter(|s| s.logged).collect();
    let lost: Vec<&Seen> = all.iter().filter(|s| !s.logged).collect();
    assert!(
        logged.len() >= 5 && lost.len() >= 5,
        "{} logged, {} power losses",
        logged.len(),
        lost.len()
    );
    // What a powered board's log replays adds up: the snapshot as the board was left is
    // what was heard before the link went, and the dump is what that plus the log gives.
    for s in &logged {
        assert!(s.consistent, "{s:?}");
    }
    assert!(
        logged.iter().any(|s| s.presses > 0),
        "a logged outage replays presses"
    );
    // After a power loss nothing of the window is heard: the dump differs from what was
    // heard whenever the board moved meanwhile.
    assert!(lost.iter().any(|s| !s.consistent), "{lost:?}");
}
